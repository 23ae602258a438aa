/* Running a campaign: preflight and plan, then per target mount, probe,
 * and repetitions interleaved across targets (A B A B) with the VM moved to
 * each in turn, then the VM goes home and what was mounted is unmounted.
 * Every finished step is journaled in the results database, so a stopped
 * run continues with --resume without repeating or losing a result. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ops/campaign_run.h"
#include "analysis/stats.h"
#include "ops/bench.h"
#include "ops/migrate.h"
#include "ops/probe.h"
#include "ops/lines.h"
#include "ops/session.h"
#include "interrupts.h"

/* ---- preflight ------------------------------------------------------------------ */

vs_vm *na_run_vm(const na_run *r)
{
	for (size_t i = 0; r->vm_moref && i < r->inv.n_vms; i++)
		if (!strcmp(r->inv.vms[i].moref, r->vm_moref))
			return &r->inv.vms[i];
	return NULL;
}

const char *na_run_vm_name(const na_run *r)
{
	return na_run_vm_name_at(r, 0);
}

size_t na_run_vm_count(const na_run *r)
{
	return r->n_vms ? r->n_vms : 1;
}

vs_vm *na_run_vm_at(const na_run *r, size_t i)
{
	return r->n_vms ? na_run_member(r, i) : na_run_vm(r);
}

const char *na_run_vm_name_at(const na_run *r, size_t i)
{
	return r->n_vms ? r->vm_names[i] : r->c->vm;
}

/* The whole inventory is read once; after that a change (a move, a mount)
 * only needs the datastores and the VM read again (a group's VMs: all again). */
int na_run_reload(na_run *r)
{
	vs_error err = {0};
	int rc;
	if (r->inv.n_hosts && r->vm_moref && na_run_vm(r) && !r->n_vms) {
		rc = na_inventory_refresh(r->cl, &r->inv, r->vm_moref, &err);
	} else {
		na_inventory_free(&r->inv);
		rc = na_inventory_load(r->cl, true, &r->inv, &err);
	}
	if (rc != VS_OK)
		return na_run_fail(r, &err);
	if (r->vm_moref && !na_run_vm(r))
		return na_run_failf(r, VS_ERR_TASK, "the VM %s disappeared", na_run_vm_name(r));
	for (size_t i = 0; i < r->n_vms; i++)
		if (!na_run_member(r, i))
			return na_run_failf(r, VS_ERR_TASK, "the VM %s disappeared", r->vm_names[i]);
	return VS_OK;
}

bool na_run_alternating(const na_run *r, const na_target *t)
{
	for (size_t i = 0; i < r->c->n_targets; i++)
		if (na_target_alternates(&r->c->targets[i], t))
			return true;
	return false;
}

vs_datastore *na_run_datastore(const na_run *r, const char *name)
{
	for (size_t i = 0; i < r->inv.n_datastores; i++)
		if (!strcmp(r->inv.datastores[i].name, name))
			return &r->inv.datastores[i];
	return NULL;
}

static size_t index_of(const na_run *r, const na_target *t)
{
	return (size_t)(t - r->c->targets);
}

/* The NFS version the target mounts: its own, or NFS 3 once the bug showed
 * there under on_extent_bug = nfs3 (mounting NFS 4.1 again would only hit
 * it again). */
const char *na_run_nfs_of(const na_run *r, const na_target *t)
{
	return r->nfs3[index_of(r, t)] ? "3" : t->nfs;
}

const char *na_target_policy(const na_target *t)
{
	return t->on_extent_bug ? t->on_extent_bug : "fail";
}

const char *na_run_ds_type(const na_run *r, const na_target *t)
{
	return !strcmp(na_run_nfs_of(r, t), "3") ? "NFS" : "NFS41";
}

/* The session the campaign's ops share: its client, inventory and store. */
na_session na_run_session(na_run *r)
{
	return (na_session){.client = r->cl, .inv = &r->inv, .store = r->store,
	                    .output = r->say->output, .warning = r->say->warning,
	                    .detail = r->say->detail, .output_ud = r->say->output_ud};
}

/* ---- steps ---------------------------------------------------------------------- */

void na_run_result_step(const na_run *r, char *step, size_t size, const na_target *t, long rep,
                        const char *profile)
{
	snprintf(step, size, "%s:%s:%ld:%s", r->n_vms ? "group" : "result", t->name, rep, profile);
}

/* How many of t's results of repetition rep are still to be made (the
 * last's: its baselines too). */
static size_t round_left(na_run *r, const na_target *t, long rep)
{
	size_t todo = rep == r->c->repeat ? na_run_baselines_left(r, t, NULL) : 0;
	for (size_t p = 0; p < r->c->n_profiles; p++) {
		char step[256];
		na_run_result_step(r, step, sizeof(step), t, rep, r->c->profiles[p]);
		todo += !na_run_done(r, step, NULL);
	}
	return todo;
}

/* Whether t has a probe or a result left to make. */
bool na_run_has_work(na_run *r, const na_target *t)
{
	char step[160];
	snprintf(step, sizeof(step), "probe:%s", t->name);
	if (r->broken[index_of(r, t)])
		return false;
	bool left = t->probe > 0 && !na_run_done(r, step, NULL);
	for (long rep = 1; !left && rep <= r->c->repeat; rep++)
		left = round_left(r, t, rep) > 0;
	return left;
}

/* The extent-size bug showed on t (its probe, or a move that fell back):
 * under on_extent_bug = nfs3 a target the campaign mounts as NFS 4.1 is
 * mounted as NFS 3 from then on, journaled so that a resumed run knows. */
static int learn_nfs3(na_run *r, const na_target *t, const char *where)
{
	size_t ti = index_of(r, t);
	if (!na_target_nfs41(t) || strcmp(na_target_policy(t), "nfs3") != 0 || r->nfs3[ti])
		return VS_OK;
	char step[160];
	snprintf(step, sizeof(step), "nfs3:%s", t->name);
	na_say(r->say, "Target %s: the NFS 4.1 extent-size bug showed %s; on_extent_bug = nfs3, so its "
	       "rounds mount %s as NFS 3 from the start.", t->name, where, t->datastore);
	r->nfs3[ti] = true;
	return na_run_mark(r, step, where);
}

/* A probe names its folder after its process: the pid is journaled first,
 * so that the probe of a killed run is found and its folder removed (with
 * its canaries) before the target is probed again, or by an abort. */
static int remove_probe_folders(na_run *r, const na_target *t)
{
	char step[160], *pid = NULL;
	snprintf(step, sizeof(step), "probe-pid:%s", t->name);
	vs_error err = {0};
	size_t removed = 0;
	vs_datastore *d = na_run_datastore(r, t->datastore);
	int rc = VS_OK;
	long n = 0;
	na_session s = na_run_session(r);
	if (na_run_done(r, step, &pid) && pid && d && na_parse_long(pid, 1, LONG_MAX, &n) &&
	    na_probe_folders_remove(&s, d, n, &removed, &err) != VS_OK)
		rc = na_run_fail(r, &err);
	free(pid);
	return rc;
}

static int sweep_probe(na_run *r, const na_target *t)
{
	char step[160], now[32];
	snprintf(step, sizeof(step), "probe-pid:%s", t->name);
	snprintf(now, sizeof(now), "%ld", (long)getpid());
	int rc = remove_probe_folders(r, t);
	return rc == VS_OK ? na_run_mark(r, step, now) : rc;
}

static int probe_target(na_run *r, na_target *t)
{
	char step[160];
	snprintf(step, sizeof(step), "probe:%s", t->name);
	if (t->probe <= 0 || na_run_done(r, step, NULL) || !na_run_datastore(r, t->datastore))
		return VS_OK;
	int rc = sweep_probe(r, t);
	if (rc != VS_OK)
		return rc;
	vs_vm *vm = na_run_vm(r);
	na_probe_args a = {.host = na_host_name(&r->inv, vm->host), .datastore = t->datastore,
	                   .db = r->o->db, .disks = r->c->probe_disks,
	                   .size = na_parse_size(r->c->probe_size), .recheck_s = NA_RECHECK_DEFAULT_S,
	                   .campaign = r->id, .target = t->name};
	double t0 = na_run_clock();
	na_session s = na_run_session(r);
	na_probe_result res = {0};
	vs_error err = {0};
	rc = na_op_probe(&s, &a, &res, &err);
	if (rc == VS_OK && s.output)
		na_probe_lines(&res, s.output, s.output_ud);
	na_verdict v = rc == VS_OK ? na_probe_verdict(&res) : NA_VERDICT_CLEAN;
	na_probe_result_free(&res);
	r->t_probe += na_run_clock() - t0;
	if (rc != VS_OK)
		return na_run_fail(r, &err);
	/* A probe that could not tell is no ground to move the VM there. */
	if (v == NA_VERDICT_PROBLEM || v == NA_VERDICT_UNCHECKED)
		return na_run_failf(r, VS_ERR_TASK, "target %s: the probe could not %s (above)", t->name,
		                    v == NA_VERDICT_PROBLEM ? "check every canary disk"
		                                            : "read the canary disks' extents");
	/* The bug showing is a finding (recorded by the probe), not a failure. */
	if (v == NA_VERDICT_FINDING)
		rc = learn_nfs3(r, t, "in its probe");
	return rc == VS_OK ? na_run_mark(r, step, v == NA_VERDICT_CLEAN ? "clean" : "extent-size mismatch")
	                   : rc;
}

/* Moves the VM to ds through migrate (disks: where each disk goes, or NULL:
 * with the VM); the extent-size bug marks the target broken. */
static int move_vm(na_run *r, size_t ti, const char *ds, const char *policy, const char *const *disks)
{
	/* migrate's nfs3 policy remounts an admin's NFS 4.1 datastore as NFS 3
	 * on its hosts when the move meets the bug: journaled first, so that
	 * cleanup puts the admin's mount back as it was. */
	vs_datastore *target = na_run_datastore(r, ds);
	if (ti < NA_MAX_TARGETS && !strcmp(policy, "nfs3") && target && target->type &&
	    !strcmp(target->type, "NFS41") && !na_run_mounted_by_campaign(r, &r->c->targets[ti])) {
		int marked = na_run_put_back_mark(r, &r->c->targets[ti], target);
		if (marked != VS_OK)
			return marked;
	}
	na_migrate_args a = {.vm = r->c->vm, .datastore = ds, .policy = policy, .db = r->o->db,
	                     .vm_moref = r->vm_moref, .allow_power_off = r->c->allow_power_off,
	                     .campaign = r->id,
	                     .target = ti < NA_MAX_TARGETS ? r->c->targets[ti].name : "home",
	                     .disk_datastores = disks};
	double t0 = na_run_clock();
	na_progress bar;
	na_session s = na_run_session(r);
	s.progress = &bar;
	na_verdict v = NA_VERDICT_CLEAN;
	vs_error err = {0};
	na_leftovers left = {0};
	int rc = na_migrate_shown(&s, &a, NULL, &v, &left, &err);
	r->t_move += na_run_clock() - t0;
	/* A failed try (also one a workaround went past) may have left a copy
	 * in a folder named for where the VM was then, which the cleanup's
	 * search by its folder at the end does not find: listed at the end as
	 * found now, with what the cleanup finds. */
	if (na_leftovers_add(&r->leftovers, &left) != VS_OK)
		na_say_warning(r->say, "out of memory: a copy a failed move left may not be listed");
	na_leftovers_free(&left);
	if (s.power_cycled)
		na_run_guest_forget(r);
	if (v == NA_VERDICT_FINDING && ti < NA_MAX_TARGETS) {
		char step[160], why[1600] = "the NFS 4.1 extent-size bug";
		snprintf(step, sizeof(step), "broken:%s", r->c->targets[ti].name);
		/* The verdict, or why a workaround failed (a refused unmount, say). */
		if (rc != VS_OK)
			vs_error_format(&err, why, sizeof(why));
		r->broken[ti] = true;
		na_say_warning(r->say, "target %s: its benchmarks are skipped: %s", r->c->targets[ti].name, why);
		rc = na_run_mark(r, step, "extent-size mismatch");
	} else if (rc != VS_OK) {
		rc = na_run_fail(r, &err);
	} else if (v != NA_VERDICT_CLEAN) {
		rc = na_run_failf(r, VS_ERR_TASK, "the disks of %s on %s did not verify (above)", r->c->vm,
		                  ds);
	}
	/* The op read the datastores and the VM last, after all it changed. */
	int reloaded = s.stale || !na_run_vm(r) ? na_run_reload(r) : VS_OK;
	if (rc == VS_OK && reloaded == VS_OK && ti < NA_MAX_TARGETS) {
		/* migrate's nfs3 policy remounted the target: the bug showed. */
		vs_datastore *d = na_run_datastore(r, ds);
		if (d && d->type && !strcmp(d->type, "NFS") && !strcmp(policy, "nfs3"))
			rc = learn_nfs3(r, &r->c->targets[ti], "on the move");
	}
	return rc != VS_OK ? rc : reloaded;
}

int na_run_move(na_run *r, size_t ti, const char *ds, const char *policy)
{
	vs_vm *vm = na_run_vm(r);
	for (size_t i = 0; i < r->inv.n_datastores; i++)
		if (!strcmp(r->inv.datastores[i].name, ds) && vm->n_datastores == 1 &&
		    !strcmp(vm->datastores[0], r->inv.datastores[i].moref))
			return VS_OK;
	return move_vm(r, ti, ds, policy, NULL);
}

/* disks point into the inventory, which the move reads again: copied. */
int na_run_move_disks(na_run *r, const char *const *disks, size_t n)
{
	char **own = calloc(n + 1, sizeof(char *));
	bool copied = own != NULL;
	for (size_t i = 0; copied && i < n; i++)
		copied = !disks[i] || (own[i] = strdup(disks[i]));
	int rc = copied ? move_vm(r, NA_MAX_TARGETS, r->home, "fail", (const char *const *)own)
	                : na_run_failf(r, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; own && i < n; i++)
		free(own[i]);
	free(own);
	return rc;
}

/* An alternating target's turn: park the VM at home if it sits on the
 * export under the other NFS version, unmount that, mount this one. */
static int take_turn(na_run *r, na_target *t)
{
	const char *servers[] = {t->servers, NULL};
	int rc = VS_OK;
	for (size_t i = 0; rc == VS_OK && i < r->inv.n_datastores; i++) {
		vs_datastore *d = &r->inv.datastores[i];
		if (!na_same_export(d, servers, t->path) || !d->type || !strcmp(d->type, na_run_ds_type(r, t)))
			continue;
		na_say(r->say, "Target %s: %s leaves %s first.", t->name, na_nfs_label(d->type), t->path);
		/* The admin's own mount, switched by what the campaign learned:
		 * cleanup puts it back as it was. */
		if (!na_run_alternating(r, t) && !na_run_mounted_by_campaign(r, t))
			rc = na_run_put_back_mark(r, t, d);
		char *name = strdup(d->name);
		if (rc == VS_OK && na_vm_uses(na_run_vm(r), d->moref))
			rc = na_run_move(r, NA_MAX_TARGETS, r->home, "fail");
		vs_datastore *again = rc == VS_OK && name ? na_run_datastore(r, name) : NULL;
		if (again)
			rc = na_run_unmount_all(r, again);
		free(name);
		i = (size_t)-1;  /* the inventory was reloaded: look again */
	}
	vs_datastore *d = rc == VS_OK ? na_run_datastore(r, t->datastore) : NULL;
	size_t mounted = 0;
	if (rc == VS_OK && !d)
		rc = na_run_mount_export(r, t, na_run_nfs_of(r, t), &mounted);
	bool asked = !r->nfs3[index_of(r, t)];
	if (rc == VS_OK)
		rc = probe_target(r, t);
	/* The probe found the bug just now: NFS 3 takes this turn already. */
	return rc == VS_OK && asked && r->nfs3[index_of(r, t)] ? take_turn(r, t) : rc;
}

static int rounds(na_run *r)
{
	bool left = false;
	for (size_t ti = 0; ti < r->c->n_targets; ti++)
		left |= na_run_has_work(r, &r->c->targets[ti]);
	int rc = left ? na_run_sweep_guest(r, true) : VS_OK;
	/* No fio runs beside one a killed run left running. */
	if (rc == VS_OK && left && r->guest_leftovers)
		rc = na_run_failf(r, VS_ERR_TASK, "what %zu killed benchmark%s left in %s may still run: "
		                  "not benchmarking beside it", r->guest_leftovers,
		                  na_s(r->guest_leftovers), na_run_vm_name(r));
	if (rc == VS_OK && left)
		rc = na_run_check_guest(r);
	for (long rep = 1; rc == VS_OK && rep <= r->c->repeat && !na_stop_requested; rep++)
		for (size_t ti = 0; rc == VS_OK && ti < r->c->n_targets && !na_stop_requested; ti++) {
			na_target *t = &r->c->targets[ti];
			size_t runs = r->broken[ti] ? 0 : round_left(r, t, rep);
			if (!runs)
				continue;  /* a resumed run does not move the VM for nothing */
			na_say(r->say, "Repetition %ld on target %s%s:", rep, t->name,
			       r->nfs3[ti] ? " (as NFS 3: the extent-size bug showed on NFS 4.1)" : "");
			/* A learned NFS 3 target takes its turn like an alternating
			 * one: the NFS 4.1 mount goes, the NFS 3 mount comes. */
			if (na_run_alternating(r, t) || r->nfs3[ti])
				rc = take_turn(r, t);
			/* the NAS's settings read again beside the move */
			if (rc == VS_OK && r->ahead_of[ti] && !na_stop_requested)
				na_nas_memo_recheck(&r->nas_memo[ti], r->ahead_of[ti]);
			if (rc == VS_OK && r->n_vms)
				rc = na_run_group_move(r, ti, t->datastore, na_target_policy(t));
			else if (rc == VS_OK)
				rc = na_run_move(r, ti, t->datastore, na_target_policy(t));
			if (rc == VS_OK && !r->broken[ti] && !na_stop_requested)
				rc = na_run_bench_round(r, t, rep);
		}
	/* The cleanup's sweep removes the kept folders (this run's mark is
	 * journaled with a killed run's); without a cleanup to follow (a stop,
	 * cleanup = no) they go now. */
	if (r->c->cleanup && !na_stop_requested)
		na_bench_guest_free(&r->guest);
	else
		na_run_guest_end(r);
	return rc;
}

/* Whether an earlier target names target i's datastore (alternating targets
 * share one). */
static bool named_before(const na_run *r, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(r->c->targets[j].datastore, r->c->targets[i].datastore))
			return true;
	return false;
}

/* Before the campaign's datastores go: what failed moves left there (the
 * VM's folder, or folder_N, on a target the VM is not on now).  Not
 * finding them is no reason to leave the mounts in place. */
static void find_leftovers(na_run *r)
{
	char *folder = NULL, *ds = NULL;
	const char *vmx = na_run_vm(r)->vmx_path;
	vs_error err = {0};
	int rc = vs_dspath_split(vmx ? vmx : "", &ds, &folder, &err);
	char *slash = folder ? strrchr(folder, '/') : NULL;
	if (slash)
		*slash = '\0';
	for (size_t i = 0; rc == VS_OK && slash && i < r->c->n_targets; i++) {
		vs_datastore *d = na_run_datastore(r, r->c->targets[i].datastore);
		if (d && !named_before(r, i) && !na_vm_uses(na_run_vm(r), d->moref))
			rc = na_move_leftovers(r->cl, &r->inv, d, folder, &r->leftovers, &err);
	}
	free(ds);
	free(folder);
	if (rc != VS_OK)
		na_say_warning_error(r->say, &err);
}

/* The group's VMs home with the fleet op (fio ended first: it would write
 * into the disks being copied); the fleet lists what failed moves left. */
static int group_home(na_run *r)
{
	int swept = na_run_sweep_guest(r, false);
	int rc = r->journal_failed ? r->journal_failed : na_run_group_move(r, NA_MAX_TARGETS, r->home, "fail");
	if (swept == VS_OK && r->guest_leftovers)
		swept = na_run_sweep_guest(r, false);
	return rc == VS_OK ? swept : rc;
}

static int unmount_all_targets(na_run *r, int rc);

static int clean_up(na_run *r)
{
	if (!r->c->cleanup && !r->o->abort)
		return VS_OK;
	na_say(r->say, "Cleaning up:");
	if (r->n_vms)
		return unmount_all_targets(r, group_home(r));
	/* A killed run's fio is ended before the VM moves: it would write into
	 * the disk being copied.  A kill during a cold move left the VM off:
	 * then the sweep waits until go_home has powered it on (if it ran at the
	 * start).  Swept also when the VM could not go home: what can be
	 * removed goes (what cannot keeps its mark for the next cleanup). */
	const vs_vm *vm = na_run_vm(r);
	bool on = vm && vm->power_state && strcmp(vm->power_state, "poweredOn") == 0;
	int swept = on ? na_run_sweep_guest(r, false) : VS_OK;
	int rc = na_run_go_home(r);
	if (swept == VS_OK && (!on || r->guest_leftovers))
		swept = na_run_sweep_guest(r, false);
	if (rc == VS_OK)
		rc = swept;
	return unmount_all_targets(r, rc);
}

/* After the VMs went home (rc: how that went): the campaign's mounts go,
 * an admin's datastore is put back as it was, and where everything is
 * now is read again: the promise is checked, not assumed. */
static int unmount_all_targets(na_run *r, int rc)
{
	if (rc == VS_OK)
		rc = na_run_mark(r, "home", r->home);
	if (rc == VS_OK && !r->n_vms)
		find_leftovers(r);
	for (size_t i = 0; rc == VS_OK && i < r->c->n_targets; i++) {
		na_target *t = &r->c->targets[i];
		char unstep[160];
		snprintf(unstep, sizeof(unstep), "unmount:%s", t->name);
		if (!na_run_mounted_by_campaign(r, t)) {
			/* It was there before the campaign: it stays, as it was. */
			rc = na_run_put_back(r, t);
			if (rc == VS_OK)
				rc = na_run_remove_added(r, t);
			continue;
		}
		vs_datastore *d = na_run_datastore(r, t->datastore);
		rc = d ? na_run_unmount_all(r, d) : VS_OK;
		if (rc == VS_OK)
			rc = na_run_mark(r, unstep, "unmounted");
	}
	/* Every dataset the run may have made, whatever became of its mount
	 * (a kill between the create and the mount): its mark decides. */
	for (size_t i = 0; rc == VS_OK && i < r->c->n_targets; i++)
		rc = na_run_dataset_remove(r, &r->c->targets[i]);
	if (rc != VS_OK)
		return rc;
	return r->n_vms ? na_run_group_check_home(r) : na_run_check_home(r);
}

/* ---- the run ---------------------------------------------------------------------- */

/* A target the bug stopped is the campaign's finding: exit 3, as migrate. */
static na_verdict verdict(const na_run *r)
{
	for (size_t i = 0; i < r->c->n_targets; i++)
		if (r->broken[i])
			return NA_VERDICT_FINDING;
	return NA_VERDICT_CLEAN;
}

/* run --abort: no more work; the probes' folders, the VM and each disk,
 * and the campaign's mounts go back, and the end state is read back. */
static int abort_run(na_run *r)
{
	na_say(r->say, "Aborting run %s: nothing more runs; everything goes back.", r->id);
	int rc = na_run_remember_start(r);
	na_run_baselines_sweep(r);  /* a dataset the cleanup removes is busy while fio writes there */
	for (size_t i = 0; rc == VS_OK && i < r->c->n_targets; i++)
		rc = remove_probe_folders(r, &r->c->targets[i]);
	if (rc == VS_OK)
		rc = clean_up(r);
	for (size_t i = 0; rc == VS_OK && i < r->c->n_targets; i++) {
		const na_target *t = &r->c->targets[i];
		bool there = na_run_datastore(r, t->datastore) != NULL;
		if (named_before(r, i) || !na_run_mounted_by_campaign(r, t))
			continue;
		na_say(r->say, "  %s: %s", t->datastore,
		       there ? "still mounted" : "not mounted (the campaign mounted it)");
		if (there)
			rc = na_run_failf(r, VS_ERR_TASK, "%s, which the campaign mounted, is still mounted",
			                  t->datastore);
	}
	if (rc == VS_OK && r->guest_leftovers)
		rc = na_run_failf(r, VS_ERR_TASK,
		                  "not everything is back: what %zu killed benchmark%s left in %s remains "
		                  "(set the guest password and abort again)",
		                  r->guest_leftovers, na_s(r->guest_leftovers), na_run_vm_name(r));
	/* An error recorded on the way (a journal read in the cleanup) is no
	 * "everything is back". */
	if (rc == VS_OK)
		rc = r->err.status;
	if (rc == VS_OK) {
		na_run_set_state(r, "aborted");
		na_say(r->say, "Run %s aborted: everything is back where it started.", r->id);
	}
	return rc;
}

static int execute(na_run *r)
{
	if (r->o->abort)
		return abort_run(r);
	int rc = na_run_remember_start(r);
	na_run_recall(r);
	na_run_baselines_sweep(r);
	for (size_t i = 0; rc == VS_OK && i < r->c->n_targets && !na_stop_requested; i++)
		rc = na_run_dataset_make(r, &r->c->targets[i]);
	if (rc == VS_OK && !na_stop_requested)
		na_run_read_ahead(r);
	for (size_t i = 0; rc == VS_OK && i < r->c->n_targets && !na_stop_requested; i++)
		rc = na_run_mount_target(r, &r->c->targets[i]);
	for (size_t i = 0; rc == VS_OK && i < r->c->n_targets && !na_stop_requested; i++)
		rc = probe_target(r, &r->c->targets[i]);
	if (rc == VS_OK)
		rc = rounds(r);
	if (na_stop_requested) {
		na_run_set_state(r, "stopped");
		/* The stop, with how to go on, is the last line; what it cut short
		 * ("interrupted: ...") is said before it.  A journal that could not
		 * be read caused the stop: it stays the error. */
		vs_status was = r->err.status;  /* its exit code stays the run's */
		if (was != VS_OK && !r->journal_failed) {
			na_say_warning_error(r->say, &r->err);
			r->err = (vs_error){0};
		}
		return na_run_failf(r, was != VS_OK ? was : VS_ERR_TASK, "stopped: every finished step is "
		                    "kept; continue with nfsagent run %s --resume", r->c->file);
	}
	int cleaned = clean_up(r);
	if (rc == VS_OK)
		rc = cleaned;
	/* The journal keeps their marks: --resume or --abort tries again. */
	if (rc == VS_OK && r->guest_leftovers)
		rc = na_run_failf(r, VS_ERR_TASK, "not everything is back: what %zu killed benchmark%s "
		                  "left in %s remains; nfsagent run %s --abort tries again",
		                  r->guest_leftovers, na_s(r->guest_leftovers), na_run_vm_name(r), r->c->file);
	/* An error recorded on the way (a journal read in the cleanup) is no success. */
	if (rc == VS_OK)
		rc = r->err.status;
	na_run_set_state(r, rc == VS_OK ? "done" : "stopped");
	return rc;
}

/* The guest password: a file's, else the environment's (NULL: none). */
static int guest_password(const na_campaign *c, char **password, vs_error *err)
{
	const char *env = getenv("NFSAGENT_GUEST_PASSWORD");
	*password = c->guest_password_file ? na_read_secret(c->guest_password_file, err)
	            : env                  ? strdup(env)
	                                   : NULL;
	return *password || !c->guest_password_file ? VS_OK : err->status;
}

/* The results database, and the central one checked for the push at the end. */
static int open_store(na_run *r)
{
	vs_error e = {0};
	if (na_store_open(r->o->db, &r->store, &e) != VS_OK ||
	    (r->o->central && na_central_check_url(r->o->central, &e) != VS_OK))
		return na_run_fail(r, &e);
	return VS_OK;
}

/* What the run leaves its command: where the time went, what failed moves
 * left, and the results database for the summary. */
static void hand_over(na_run *r, na_campaign_result *out)
{
	out->total_s = na_run_clock() - r->t_start;
	out->move_s = r->t_move;
	out->bench_s = r->t_bench;
	out->nas_s = r->t_nas;
	out->probe_s = r->t_probe;
	out->mount_s = r->t_mount;
	out->leftovers = r->leftovers;
	r->leftovers = (na_leftovers){0};
	out->store = r->store;
	r->store = NULL;
	snprintf(out->run_id, sizeof(out->run_id), "%s", r->id);
}

static void run_free(na_run *r)
{
	vs_disconnect(&r->cl);
	na_inventory_free(&r->inv);
	na_store_close(&r->store);
	free(r->vm_moref);
	for (size_t i = 0; i < r->n_vms; i++) {
		free(r->vm_morefs[i]);
		free(r->vm_names[i]);
	}
	free(r->home);
	free(r->password);
	na_leftovers_free(&r->leftovers);
	na_read_ahead_end(&r->ahead);
	for (size_t i = 0; i < NA_MAX_TARGETS; i++) {
		na_nas_memo_free(&r->nas_memo[i]);
		nas_target_free(&r->ahead_nas[i]);
	}
}

int na_op_campaign(na_session *s, const na_campaign_args *o, na_campaign_result *out, vs_error *err)
{
	na_campaign *c = o->c;
	na_run r = {.c = c, .o = o, .say = s, .t_start = na_run_clock()};
	*out = (na_campaign_result){.verdict = NA_VERDICT_CLEAN};
	char stamp[32];
	na_run_now(stamp, sizeof(stamp), true);
	snprintf(r.id, sizeof(r.id), "%s-%s", c->name, stamp);
	/* An abort runs nothing in the guest; a password lets it remove what
	 * killed benchmarks left there, and one that cannot be read does not
	 * stop it. */
	if (guest_password(c, &r.password, err) != VS_OK && !o->abort)
		return err->status;
	if (!r.password && c->guest_password_file && o->abort)
		na_say_warning_error(s, err);
	*err = (vs_error){0};
	if (!r.password && !o->abort)
		return vs_fail(err, VS_ERR_USAGE,
		               "no guest password: set NFSAGENT_GUEST_PASSWORD or guest_password_file");
	vs_error e = {0};
	/* A resume or an abort finds its run in the journal; a fresh run opens
	 * the database once preflight found all it names, so that bad input
	 * leaves none behind (docs/safety.md). */
	int rc = o->resume || o->abort ? open_store(&r) : VS_OK;
	if (rc == VS_OK && (o->resume || o->abort)) {
		char *prev = NULL;
		if (na_store_run_unfinished(r.store, c->name, &prev, &e) != VS_OK)
			rc = na_run_fail(&r, &e);
		if (prev)
			snprintf(r.id, sizeof(r.id), "%s", prev);
		free(prev);
	}
	if (rc == VS_OK && na_conn_open(o->conn, &r.cl, &e) != VS_OK)
		rc = na_run_fail(&r, &e);
	if (rc == VS_OK)
		rc = na_run_find_vm(&r);
	/* A resume's preflight changes things (it waits for a relocation and
	 * powers the VM on): the run is this process's first, so that two
	 * resumes never both act.  A fresh run's preflight only reads. */
	bool claimed = rc == VS_OK && o->resume && (rc = na_run_claim(&r)) == VS_OK;
	if (rc == VS_OK && !o->abort)
		rc = na_run_preflight(&r);
	if (rc != VS_OK && claimed)
		na_run_set_state(&r, "stopped");  /* not left "running" under this process's pid */
	if (rc == VS_OK && !r.store)
		rc = open_store(&r);
	if (rc == VS_OK && !o->abort)
		na_run_show_plan(&r, na_run_vm(&r));
	if (rc == VS_OK && !o->dry_run && (o->resume || (rc = na_run_claim(&r)) == VS_OK)) {
		na_interrupts saved;
		na_interrupts_catch(&saved);
		rc = execute(&r);
		na_interrupts_release(&saved);
		out->ran = true;
		/* A failure is what a run that failed says, also beside a broken target. */
		out->verdict = rc == VS_OK ? verdict(&r) : NA_VERDICT_CLEAN;
	}
	hand_over(&r, out);
	run_free(&r);
	if (rc != VS_OK)
		*err = r.err.status != VS_OK ? r.err : (vs_error){.status = rc, .message = "the campaign failed"};
	return rc;
}

void na_campaign_result_free(na_campaign_result *out)
{
	na_leftovers_free(&out->leftovers);
	na_store_close(&out->store);
}
