/* One run of a campaign, shared by campaign.c (its steps),
 * campaign_home.c (where the VM started, and back there) and
 * campaign_mounts.c (its datastores).  Private to the campaign's files. */
#ifndef NFSAGENT_CAMPAIGN_RUN_H
#define NFSAGENT_CAMPAIGN_RUN_H

#include "ops/campaign.h"
#include "ops/campaign_leftovers.h"
#include "ops/bench.h"
#include "ops/session.h"

typedef struct na_run_link {
	char host[64], server[256];
	vs_host_link link;
} na_run_link;

typedef struct na_run {
	na_campaign *c;
	const na_campaign_args *o;
	/* The caller's session: its sinks carry every line and warning the run
	 * says (the run prints nothing itself). */
	const na_session *say;
	vs_client *cl;
	na_store *store;
	na_inventory inv;
	char id[160];            /* the run's name in the journal and on every result */
	char *vm_moref, *home;   /* the VM, and the datastore it started on */
	char *password;
	double t_move, t_bench, t_probe, t_mount, t_start;  /* t_mount: mounts and unmounts */
	double t_nas;  /* the rounds' readings of the NAS's settings (na_bench_nas_begin) */
	bool broken[NA_MAX_TARGETS];  /* the extent-size bug stopped moves there */
	bool nfs3[NA_MAX_TARGETS];    /* the bug showed there and its policy is nfs3: NFS 3 from now on */
	bool no_fio[NA_MAX_TARGETS];  /* fio is missing on its NAS: said once for every target there */
	int journal_failed;      /* the status of a journal that could not be read, or VS_OK */
	vs_error err;            /* the run's first error: the one main.c prints */
	na_leftovers leftovers;  /* copies failed moves left on the targets */
	size_t guest_leftovers;  /* killed benchmarks whose guest folders could not be removed */
	bool fio_checked, fio_libaio;  /* the VM's fio, as na_run_check_guest found it */
	na_bench_guest guest;    /* the one VM's folders and job texts, kept across rounds */
	na_nas_memo nas_memo[NA_MAX_TARGETS];  /* each target's NAS view, kept across rounds */
	nas_target ahead_nas[NA_MAX_TARGETS];  /* their NASes, as the read-ahead reaches them */
	const nas_target *ahead_of[NA_MAX_TARGETS];
	const char *ahead_path[NA_MAX_TARGETS];
	na_read_ahead *ahead;
	na_run_link links[NA_MAX_TARGETS];  /* each host's link to each server, read once */
	size_t n_links;
	na_bench_took took;      /* how long each profile took on each target, learned round
	                          * by round (a group's by all its members) */
	/* vms =: the group's VMs, resolved at preflight (morefs and names,
	 * malloc'd); vm_moref is the first's.  n_vms 0: the one VM of vm =. */
	char *vm_morefs[NA_MAX_CAMPAIGN_VMS], *vm_names[NA_MAX_CAMPAIGN_VMS];
	size_t n_vms;
	/* The compute resources the VMs run in (na_run_target_choice's default). */
	const char *vm_parents[NA_MAX_CAMPAIGN_VMS + 1];
} na_run;

/* The campaign's functions return a vs_status; the first error is kept in
 * r->err for main.c to print (an error after it, in a cleanup after the
 * failure, is said as a warning).  Returns err's status (never VS_OK). */
int na_run_fail(na_run *r, const vs_error *err);
int na_run_failf(na_run *r, vs_status status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Now, ISO-8601 UTC; compact for run names ("20261130T101500"). */
void na_run_now(char *buf, size_t size, bool compact);
/* The run's state in the store ("running", "stopped", "done", "aborted");
 * a failure to say it is a warning (its steps and results are kept). */
void na_run_set_state(na_run *r, const char *state);
/* Claims the run for this process: a fresh run (refused while one is
 * unfinished), or the unfinished one with resume or abort (refused while
 * a live process holds it: a state, not bad input). */
int na_run_claim(na_run *r);
/* Whether step is journaled (and what was noted, malloc'd); a journal that
 * cannot be read stops the run at its next safe point and reads as done. */
bool na_run_done(na_run *r, const char *step, char **detail);
/* Journals step. */
int na_run_mark(na_run *r, const char *step, const char *detail);
/* What an earlier run of this campaign learned about its targets: those
 * the bug stopped (broken), those that run NFS 3 since (nfs3). */
void na_run_recall(na_run *r);
vs_vm *na_run_vm(const na_run *r);
vs_datastore *na_run_datastore(const na_run *r, const char *name);
/* Reloads the inventory. */
int na_run_reload(na_run *r);
/* Moves the VM to ds (target ti, or NA_MAX_TARGETS for home) through
 * migrate.  The extent-size bug stopping a move to a target marks it
 * broken (r->broken) and is no error: the campaign goes on without it. */
int na_run_move(na_run *r, size_t ti, const char *ds, const char *policy);
/* Moves the VM's n disks home through migrate, each to disks[i] (a
 * datastore's moref, per disk of the VM's layout), verified. */
int na_run_move_disks(na_run *r, const char *const *disks, size_t n);

/* Journals where the VM started on the first run; reads it back on a resume. */
int na_run_remember_start(na_run *r);
/* The VM, each of its disks, and its power state back as they started. */
int na_run_go_home(na_run *r);
/* A relocation a killed run started may still be running: where the VM is
 * is known only once it ends (it would move the VM after a look), and a
 * power-on is refused meanwhile.  Waits for it, saying so. */
int na_run_wait_for_move(na_run *r);
/* Prints where the VM and each disk are now (read again), against where
 * they started; a failure when any is not back. */
int na_run_check_home(na_run *r);

/* campaign.c, for campaign_mounts.c */
/* The session the campaign's ops share: its client, inventory and store. */
na_session na_run_session(na_run *r);
/* The guest login of the campaign's VM. */
vs_guest_auth na_run_guest_auth(const na_run *r);
/* Ends and removes what killed runs of this campaign left in the guest
 * (their pids are journaled as "bench-pids"; self: this run joins them). */
int na_run_sweep_guest(na_run *r, bool self);
/* A benchmark in the campaign's VM, with its guest login and job settings. */
na_bench na_run_bench(na_run *r, na_session *s);
/* Whether the guest can benchmark (credentials, fio, libaio): run failed if not. */
int na_run_check_guest(na_run *r);
/* Whether t takes turns with another target on its export (NFS 3 / 4.1). */
bool na_run_alternating(const na_run *r, const na_target *t);
/* Whether t still has a probe or a result to make. */
bool na_run_has_work(na_run *r, const na_target *t);
/* "3" or "4.1": what t mounts as now (a learned switch makes it "3"). */
const char *na_run_nfs_of(const na_run *r, const na_target *t);
/* The datastore type t mounts as now. */
const char *na_run_ds_type(const na_run *r, const na_target *t);

/* The journal step of t's result (one VM) or group run (vms =) of
 * profile in repetition rep: "result:T:REP:P" or "group:T:REP:P". */
void na_run_result_step(const na_run *r, char *step, size_t size, const na_target *t, long rep,
                        const char *profile);
/* The campaign's labels and t's own (t's win), into out (2 * NA_MAX_LABELS); how many. */
size_t na_run_labels(const na_run *r, const na_target *t, na_label *out);
/* The campaign's VM (vm =) or its first (vms =), by name for messages. */
const char *na_run_vm_name(const na_run *r);
/* The VMs a round benches, a lone VM (vm =) being a group of one: how
 * many, VM i in the inventory (NULL: gone) and its name. */
size_t na_run_vm_count(const na_run *r);
vs_vm *na_run_vm_at(const na_run *r, size_t i);
const char *na_run_vm_name_at(const na_run *r, size_t i);
/* A benchmark in vm, with the campaign's guest login and job settings. */
na_bench na_run_bench_in(na_run *r, na_session *s, const vs_vm *vm);
/* Ends b (na_bench_end), the one VM's folders and texts kept in r->guest. */
void na_run_bench_done(na_run *r, na_bench *b);
/* Removes what the rounds kept in the one VM's guest. */
void na_run_guest_end(na_run *r);
/* Forgets what the rounds kept there, leaving it (na_bench_guest_free). */
void na_run_guest_forget(na_run *r);
/* Target t's NAS (nas or nas_command), made in *nas with a bench's
 * timeout, as bench --nas reaches it; NULL without one.  Free *nas with
 * nas_target_free either way (it starts zeroed). */
const nas_target *na_run_nas_target(const na_target *t, nas_target *nas);

/* campaign_bench.c: a round's runs */
/* t's profiles in repetition rep not journaled yet, each one run of the
 * bench op in the one VM or in every VM of the group at once, each
 * journaled in its run's transaction; in the last repetition, then t's
 * NAS-local baselines left (campaign_baseline.c). */
int na_run_bench_round(na_run *r, na_target *t, long rep);
/* Starts reading every target's NAS view ahead of its rounds (those with a
 * NAS and work left), beside the mounts, probes and moves. */
void na_run_read_ahead(na_run *r);

/* campaign_baseline.c: each profile once on a target's NAS (baseline = nas) */
/* The journal step of t's baseline of profile: "baseline:T:P". */
void na_run_baseline_step(char *step, size_t size, const na_target *t, const char *profile);
/* How many of t's baselines are still to be made (0 without baseline =
 * nas), their profiles into left (NA_MAX_CAMPAIGN_PROFILES; NULL: none). */
size_t na_run_baselines_left(na_run *r, const na_target *t, const na_profile **left);
/* For t's last round on ds: the baselines to run after its guest runs
 * (into left), "baselining:T" journaled first; 0 when none, those fio
 * missing on an earlier target's NAS rules out journaled as not run. */
size_t na_run_baselines_start(na_run *r, const na_target *t, const vs_datastore *ds,
                              const na_profile **left);
/* Journals p's baseline of t as not run, why (said already); p NULL:
 * each left (fio missing: remembered for the targets on that NAS). */
void na_run_baseline_not_run(na_run *r, const na_target *t, const na_profile *p, const vs_error *why);
/* A resume's or an abort's first act: what a killed run's baseline left
 * on a target's NAS, its fio and its file, ended and removed there. */
void na_run_baselines_sweep(na_run *r);

/* campaign_group.c: a campaign of several VMs (vms =) */
/* Resolves the names and globs of vms = in the inventory (r->vm_morefs),
 * or takes the members a resumed run journaled; a fresh run refuses, with VS_ERR_USAGE, a glob matching nothing, more
 * than 64 VMs, one without Tools or with files on two datastores, and
 * VMs that start on different datastores. */
int na_run_resolve_vms(na_run *r);
/* Journals the group's members (step "vms", their morefs): a resume or an
 * abort reads them back instead of resolving vms = again. */
int na_run_mark_members(na_run *r);
/* Member i of the group, in the inventory (NULL: gone). */
vs_vm *na_run_member(const na_run *r, size_t i);
/* Moves every VM of the group to ds (target ti, or NA_MAX_TARGETS for home)
 * with the fleet op, within the campaign's limits, each verified as it
 * lands; those there already stay.  The extent-size bug stopping it marks
 * the target broken, as na_run_move does. */
int na_run_group_move(na_run *r, size_t ti, const char *ds, const char *policy);
/* Prints where each VM of the group is, read again, against its home; a
 * failure when one is not back. */
int na_run_group_check_home(na_run *r);

/* campaign_dataset.c: a target's dataset (create = yes) */
/* Reads the NAS and says what will be made (or, on a resume, is there:
 * this run's); t->path becomes the dataset's mountpoint.  A dataset not
 * this run's, a missing parent, a NAS that refuses: the run fails. */
int na_run_dataset_plan(na_run *r, na_target *t);
/* Makes t's dataset and its share, or adopts the one this run made
 * (journaled "dataset:T"). */
int na_run_dataset_make(na_run *r, na_target *t);
/* After every host unmounted t: removes the dataset this run made (its
 * mark checked on the NAS), unless keep; still busy, the fix is said and
 * the run fails, the journal keeping it for --abort. */
int na_run_dataset_remove(na_run *r, const na_target *t);

/* campaign_preflight.c */
/* The VM, and the datastore it is on now (its home, unless the journal
 * says where it started). */
int na_run_find_vm(na_run *r);
/* A resume waits for a move a killed run left and powers the VM on again;
 * then the guest is checked, and each target against vSphere. */
int na_run_preflight(na_run *r);
/* The plan, handed to the command's o->planned. */
void na_run_show_plan(na_run *r, const vs_vm *vm);

/* campaign_mounts.c: the campaign's datastores */
/* The target's hosts ("all", "cluster:NAME", a host, by default the hosts
 * the VMs can run on) as a choice, its pointers good until the inventory's
 * next reload. */
na_host_choice na_run_target_choice(na_run *r, const na_target *t);
/* The same hosts (pointers into the inventory; free the array, also on an
 * error, which says why there are none: a host or cluster not found). */
int na_run_target_host_list(na_run *r, const na_target *t, vs_host ***hosts, size_t *n,
                            vs_error *err);
int na_run_mount_export(na_run *r, na_target *t, const char *nfs, size_t *mounted);
/* Unmounts d from every host that mounts it (a refusal is a failure, not bad input). */
int na_run_unmount_all(na_run *r, const vs_datastore *d);
/* Mounts t's datastore where missing, journaled ("mounting:T", "adding:T", "mount:T"). */
int na_run_mount_target(na_run *r, na_target *t);
/* Whether the campaign mounted t's datastore (else it was there before). */
bool na_run_mounted_by_campaign(na_run *r, const na_target *t);
/* Journals the admin's mount d of t's export before a learned switch unmounts it. */
int na_run_put_back_mark(na_run *r, const na_target *t, const vs_datastore *d);
/* At cleanup: the admin's mount as it was, and without the hosts the campaign added. */
int na_run_put_back(na_run *r, na_target *t);
int na_run_remove_added(na_run *r, const na_target *t);

#endif
