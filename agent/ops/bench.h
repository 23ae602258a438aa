/* One benchmark in one guest: upload the job, run fio, wait, fetch, parse,
 * record with full provenance. */
#ifndef NFSAGENT_OPS_BENCH_H
#define NFSAGENT_OPS_BENCH_H

#include <signal.h>

#include "nfsagent/nas.h"
#include "fio.h"
#include "analysis/group.h"
#include "analysis/nas_line.h"
#include "ops/nas_memo.h"
#include "ops/session.h"
#include "profiles.h"

/* A NAS command's time during a bench (bench --nas and a campaign's): a
 * NAS under benchmark is busy and answers late (10 s lost whole rounds'
 * NAS sides).  A one-off read has it twice (asked again once), a run
 * waits so long at most for the NAS's first and last readings
 * (docs/nas-sampling.md). */
enum { NA_BENCH_NAS_TIMEOUT_S = 30, NA_BENCH_TOOK = 16 };

/* How long each profile's last run on a datastore took to be seen ended:
 * its next there is first looked at then, and another profile's first
 * there (or anywhere, before any ran there) from it (na_bench_expected_s),
 * as each look is a vCenter call.  A campaign keeps it from round to round. */
typedef struct na_bench_took {
	struct {
		char profile[64], datastore[128];
		double s, job_s;  /* and its job's own time */
		double running_s; /* the latest first look that found it running (0: none) */
	} v[NA_BENCH_TOOK];
	size_t n;
} na_bench_took;

enum { NA_GROUP_MAX_VMS = 64 };  /* the most VMs of a group run (na_op_bench) */

/* Host counters, asked of vCenter in one call: a single run's of its host,
 * a group run's of every member's host at once (hosts, each once, set by
 * the group), the first member to need them asking for all.  Each run
 * keeps its own host's and window's.  na_perf_memo_clear frees the answer. */
typedef struct na_perf_memo {
	const char *hosts[NA_GROUP_MAX_VMS];
	size_t n_hosts;
	int samples, rc;            /* how many 20 s samples a series was asked for: 0 not yet */
	vs_error err;
	vs_perf_sample *v;
	size_t n;
} na_perf_memo;
void na_perf_memo_clear(na_perf_memo *m);

/* What benchmarks made in their guest: the folders (staging, data), and
 * the job texts uploaded into staging, the k-th as text-k.fio (from 1): a
 * run copies its text's file, in the guest, to that name of its own.  A
 * campaign's rounds keep them for the next (keep: na_bench_end leaves
 * them, na_bench_end_kept removes them); stale: made once, maybe gone
 * since (a power cycle): made again before use, removed at the end. */
typedef struct na_bench_guest {
	bool made, keep, stale;
	char **uploaded;
	size_t n_uploaded;
} na_bench_guest;

typedef struct na_bench {
	/* The client, the store results go to, and where warnings go (a run
	 * without host counters, fio's files left in the guest, the NAS side
	 * lost); the only other output is fio's waiting line on stderr
	 * (na_wait_tick), which a JSON caller does not see on stdout. */
	na_session *s;
	const vs_vm *vm;
	const vs_host *host;
	const vs_datastore *ds;
	/* The VM's disks on ds, by name ("Hard disk 1 [ds] dir/x.vmdk"; at
	 * least one, na_bench_disks): fio's file is on one of them, which only
	 * the guest knows; the first names the results. */
	char **disks;
	size_t n_disks;
	vs_guest_auth auth;
	na_job_overrides job;       /* job.dir is the user's --dir: fio writes in b->data under it */
	const na_label *labels;
	size_t n_labels;
	const char *campaign, *target;
	const char *step;           /* the campaign's journal step, recorded with the result */
	volatile sig_atomic_t *stop;
	int counter_ids[6];
	char staging[64];           /* our folder in the guest: job, output, logs */
	char data[1024];            /* fio's folder under job.dir: made by na_bench_begin,
	                             * removed by na_bench_end (na_bench_renew_data),
	                             * unless a campaign's rounds keep it (guest) */
	bool fio_libaio;            /* the guest's fio has the libaio engine */
	/* na_bench_disks read the guest's readiness with the disks, in one
	 * call: the next na_bench_begin takes it instead of reading it again */
	bool guest_read;
	int guest_rc;
	vs_error guest_err;
	bool fio_checked;           /* fio_libaio is known: na_bench_begin does not look again
	                             * (a campaign's rounds use the VM's first look) */
	unsigned fio_starts;        /* fio runs started: each its own job file's name */
	na_bench_guest guest;
	vs_host_link link;          /* the host's link to ds's NFS server (na_bench_read_link) */
	bool link_read;             /* link was read (a campaign's, once a run): the op does not again */
	char nfs_client[512];       /* the host's NFS client settings (na_bench_read_client) */
	na_bench_took took;
	na_perf_memo *perf_memo;    /* a group run's, else NULL: each run asks alone */
	/* The NAS side (bench --nas): nas NULL without one; nas_ready once the
	 * dataset behind ds, its settings and its pool were read
	 * (na_bench_nas_begin): then each run is sampled. */
	const nas_target *nas;
	nas_view nas_view;
	bool nas_ready;
	/* A campaign's view kept across its rounds (NULL: read by each bench),
	 * and the recheck of its settings running beside the round's move or
	 * the guests' preparation, until na_bench_nas_settle. */
	na_nas_memo *nas_memo;
	na_recheck *recheck;
	/* A group member's view of its pool (the member that read it; NULL:
	 * none): its results record that dataset's settings and the pool's
	 * health, as a lone VM's do, the pool's figures being the group's. */
	const struct na_bench *nas_of;
	bool nas_lost_said;         /* a run lost the NAS (its readings failed): said once */
	bool nas_shape_said;        /* zpool iostat printed what could not be placed: said once */
	bool nas_txgs_said;         /* the pool's txgs could not be read: said once */
	/* The pool's health as its results' provenance ("ONLINE", "DEGRADED
	 * (resilver 43%)", nas_health_words), read with the view. */
	char pool_health[128];
	/* The runs left to sample (set before na_bench_nas_begin), and the
	 * next one's sampler, opened parked (the first run's while the NAS's
	 * settings are read, the next while one runs), so that no run waits
	 * for an ssh handshake; none once no run is left. */
	size_t nas_runs;
	nas_sampler *nas_next;
	double nas_read_s;          /* how long na_bench_nas_begin's reading of the NAS took */
	const char *site;           /* what the next record is: NULL the guest's, "nas" a baseline's */
} na_bench;

typedef struct na_bench_outcome {
	bool ok;
	na_fio_result fio;
	int64_t row;                /* database id, 0 when not recorded */
	char *error;
	bool nas;                   /* the NAS was sampled (or tried): nas_window is this run's */
	nas_window nas_window;
	/* The guest's clock minus this machine's (s), from the `date` its shell
	 * ran right before fio, within the StartProgramInGuest call: right to
	 * within guest_clock_err, half the call; < 0 not read. */
	double guest_clock_offset, guest_clock_err;
	/* The NAS's clock minus the guest's, which moved fio's window onto the
	 * NAS's intervals, right to within clock_err (s; na_bench_fio_window);
	 * clock_known false when either clock was not read.  Recorded. */
	bool clock_known;
	double clock_shift, clock_err;
} na_bench_outcome;

/* b->disks, from one read of b->vm's layout (b->s, b->vm and b->ds set);
 * VS_ERR_USAGE when none is on b->ds.  na_bench_disks_free frees them. */
int na_bench_disks(na_bench *b, vs_error *err);
void na_bench_disks_free(na_bench *b);
/* Prepares the guest (checks, staging and data folders unless b->guest
 * has them, fio: there, 3.0 or newer) and looks up the counters. */
int na_bench_begin(na_bench *b, vs_error *err);
/* A profile's job file (malloc'd) with fio's files in b's own folder, not
 * in job.dir itself; after na_bench_begin. */
char *na_bench_job(const na_bench *b, const na_profile *p);
/* The seconds a job file is given before fio is stopped: what the job
 * says it runs (na_job_seconds) and a grace for fio's setup and output. */
long na_bench_timeout(const char *job_text);
void na_bench_outcome_clear(na_bench_outcome *o);
/* Reads the dataset behind b->ds, its settings and its pool once, before
 * the first run, and warns about a --label that contradicts a measured
 * setting.  A NAS that cannot be read is one warning naming why, and the
 * benchmark runs without the NAS side: never an error. */
void na_bench_nas_begin(na_bench *b);
/* Warns when b's disk was on the dataset before its recordsize last
 * changed (zpool history, read with b's NAS view), or an earlier result of
 * it measured another recordsize: the disk may hold records of the old size
 * (bench_trap.c). */
void na_bench_recordsize_trap(const na_bench *b);
/* Joins the recheck of a kept view's settings (ops/nas_memo.h) and takes
 * what it read, before the first sampler starts and anything is recorded;
 * said when they changed or could not be read.  No recheck: nothing. */
void na_bench_nas_settle(na_bench *b);
/* Ends the NAS side; a campaign's view is kept in b->nas_memo. */
void na_bench_nas_end(na_bench *b);
/* Whether label key=value contradicts the measured settings p (recordsize
 * and special_small_blocks as sizes, 16K = 16384; sync, compression, atime,
 * logbias, primarycache as words, case aside); why says how. */
bool na_bench_label_conflict(const nas_props *p, const char *key, const char *value, char *why,
                             size_t size);

/* A NAS-local baseline's run (ops/baseline.h), as it ended. */
typedef struct na_bench_run_entry {
	size_t profile;   /* index into the plan's local list when it has one, else its profiles */
	int repetition;   /* from 1 */
	na_bench_outcome o;
} na_bench_run_entry;

/* One member's part of a group's repetition. */
typedef struct na_bench_member_run {
	na_bench_outcome o;         /* o.row 0: nothing recorded (never started, or unread) */
	/* Why the member leaves the group incomplete (malloc'd): "never
	 * started: ...", "fio failed: ...", "ended early: ...", "timed out";
	 * NULL when it ran the whole job. */
	char *why;
	/* When its guest's shell ran fio, on this machine's clock (s): the
	 * middle of its StartProgramInGuest call; 0 when it never started. */
	double start_s;
	/* Its figures over the group's common window (read and write, from its
	 * fio's interval logs, every job of it together): what the group's sum
	 * is made of.  Nothing present when it was not cut. */
	na_fio_result window;
} na_bench_member_run;

/* A NAS pool during a group's repetition: sampled once for every member
 * whose datastore is an export of it (ops/bench_group_nas.c). */
typedef struct na_bench_group_pool {
	size_t leader;              /* the member whose NAS target and view sample it */
	char nas[256], pool[256];   /* the leader's NAS (as reached) and pool */
	size_t members;             /* on it, complete or not */
	size_t measured;            /* of them, those that ran the whole job: guest_written's */
	char datasets[256], vms[512];  /* its members', ", " between */
	/* What the pool did, cut to the group's common window once placed
	 * (else incomplete, saying why), and the bytes its complete members
	 * wrote in that window, summed. */
	nas_window w;
	uint64_t guest_written;
	double amplification;       /* pool's writes / guest_written; -1 not known */
} na_bench_group_pool;

typedef struct na_bench_group_run {
	size_t profile;             /* index into the plan's profiles */
	int repetition;             /* from 1 */
	na_bench_member_run *m;     /* one per member, in the members' order */
	size_t incomplete;          /* members with a why */
	/* The spread of the members' starts (ms), right to within the longest
	 * StartProgramInGuest call's half; -1 when fewer than two started. */
	double skew_ms;
	/* The common window, from the latest start of the members' measuring
	 * to the earliest end of their logs, on the guests' clock (ms since the
	 * epoch; equal when it was not cut), and the longest complete member's
	 * own fio runtime (ms), which it is shorter than. */
	int64_t window_from_ms, window_to_ms, runtime_ms;
	/* The group's figures over its complete members (fig.n of them; 0:
	 * none ran the whole job), cut to the common window, and its row in the
	 * store (0: not recorded). */
	na_group_figures fig;
	int64_t group_id;
	na_bench_group_pool *pools; /* one per pool sampled (none without a NAS side) */
	size_t n_pools;
} na_bench_group_run;

/* Called after each run (one profile's repetition in every member), for a
 * caller that shows them as they come. */
typedef void (*na_bench_run_fn)(void *ud, na_bench *const *members, size_t n, const na_profile *p,
                                const na_bench_group_run *r);

typedef struct na_bench_plan {
	const na_profile *const *profiles;
	size_t n;
	const char *job;  /* the user's job file for the one profile, or NULL: the profiles' */
	long repeat;
	/* The repetitions are numbered from repetition_base + 1: a campaign
	 * runs one at a time (0: from 1). */
	long repetition_base;
	/* Then each profile once on the NAS itself (bench --nas-baseline; one
	 * member): the plan's, or local's n_local (a campaign's left to make) */
	bool baseline;
	const na_profile *const *local;
	size_t n_local;
	na_bench_run_fn on_run;  /* may be NULL */
	/* Called after each NAS-local baseline's run; may be NULL. */
	void (*on_local)(void *ud, const na_bench *b, const na_profile *p, const na_bench_run_entry *e);
	/* Called for a baseline that could not run, said already (why), or with
	 * p NULL when none can (why: no NAS side; fio missing on the NAS,
	 * VS_ERR_NOT_FOUND); may be NULL. */
	void (*not_local)(void *ud, const na_profile *p, const vs_error *why);
	/* A campaign's journal step for a run (into buf; repetition 0: the
	 * profile's NAS-local baseline), recorded in the run's transaction: a
	 * lone member's result's, a group's row's.  May be NULL: nothing
	 * journaled. */
	void (*step_of)(void *ud, const na_profile *p, int repetition, char *buf, size_t size);
	void *ud;
} na_bench_plan;

typedef struct na_bench_result {
	na_bench_group_run *runs;  /* in the order they ran */
	size_t n;
	size_t members;            /* each run's m has as many */
	size_t failed;             /* member runs recorded as failed (fio's failure) */
	size_t incomplete;         /* runs that lost a member (a group's) */
	bool interrupted;
	/* The NAS-local baseline's runs (plan->baseline; ops/baseline.h), one
	 * per profile, recorded with site = nas. */
	na_bench_run_entry *local;
	size_t n_local;
} na_bench_result;

/* The one benchmark op, for one VM (a group of one) or several at once.
 * Each member is resolved (vm, host, ds, disks, auth, store; a member with
 * a NAS target has a NAS side, each pool sampled once for all members on
 * it).  It prepares every guest and the NAS side, runs every profile
 * plan->repeat times with the repetitions interleaved (A B A B), fio
 * started in every guest before any is waited for, records each run as it
 * ends, and removes what it put in the guests.  A lone VM's run is its
 * result; a group's is its members' results and the group's row in one
 * transaction, its figures cut to the members' common window
 * (docs/groups.md), and a member that fails, ends early or never starts is
 * named in it, never left out (for a lone VM, that is the op's error).
 * Ctrl-C stops fio in every guest and starts no other run; what was
 * recorded stays. */
int na_op_bench(na_bench *const *members, size_t n, const na_bench_plan *plan, na_bench_result *out,
                vs_error *err);
void na_bench_result_free(na_bench_result *r);
/* The store's rows of r's pools, r->n_pools of them (the strings point
 * into r; ops/bench_group_nas.c). */
void na_group_nas_rows(const na_bench_group_run *r, na_group_nas_row *rows);

/* Reads b->link, the host's link to the datastore's (first) NFS server:
 * the network-bound hint's ceiling (netbound.h); unknown (speed 0) when
 * vSphere does not say or the read failed (then not VS_OK), never an error
 * of the benchmark's.  One call. */
int na_bench_read_link(na_bench *b);
/* Reads b->nfs_client, the host's NFS client settings and ds's nConnect
 * (nfs_client.h), beside its link: once per host and process (the client
 * keeps them), "" when vSphere does not say or the read failed, never an
 * error of the benchmark's. */
void na_bench_read_client(na_bench *b);
/* The NFS server b's link is read to: ds's first, "" when unknown. */
void na_bench_server(const na_bench *b, char *server, size_t size);
/* Removes what the benchmark put in the guest, unless b->guest.keep. */
void na_bench_end(na_bench *b);
/* Removes what benchmarks that kept it left in the guest (b made as they
 * were, with their b->guest). */
void na_bench_end_kept(na_bench *b);
/* Frees g's texts and forgets its folders, leaving the guest as it is. */
void na_bench_guest_free(na_bench_guest *g);
/* This process's mark, "PID-TOKEN" (TOKEN: 8 random hex digits, made once):
 * the name of its folders in a guest.  A pid alone is not unique: another
 * runner, or a container, can have this one's and benchmark the same VM. */
const char *na_bench_mark(void);
/* Whether mark is one na_bench_mark makes, or a bare pid (the folders of
 * an nfsagent from before the marks). */
bool na_bench_mark_valid(const char *mark);
/* Removes what a benchmark of the nfsagent process of mark (killed: it
 * could not) left in the guest: the programs still running from its
 * staging folder (listed in *ended, to be freed by the caller), then that
 * folder and fio's folder under dir. */
int na_bench_sweep(vs_client *c, const vs_vm *vm, const vs_guest_auth *auth, const char *dir,
                   const char *mark, vs_guest_programs *ended, vs_error *err);

#endif
