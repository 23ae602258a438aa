/* The fleet workflow (ops/fleet.h).  One thread, one client: vCenter does
 * the moving, so the only long wait is for its tasks, and one
 * WaitForUpdatesEx covers every task in flight (vs_task_set).  Starting a
 * move is one read and one call; verifying one that landed and diagnosing
 * one that failed are short calls made between two waits; the moves in
 * vCenter go on meanwhile.  The one slow read, the listing of the target's
 * folders that tells a failed try's copies from older ones, is a task in
 * the same set: it runs beside the moves, never in front of them. */
#include <stdlib.h>
#include <string.h>

#include "ops/fleet.h"
#include "ops/verify.h"
#include "interrupts.h"

/* How long one wait for the tasks may take: a Ctrl-C is seen within it. */
enum { WAIT_S = 5 };

typedef struct fleet {
	na_session *s;
	const na_fleet_args *a;
	na_fleet_result *r;
	const vs_datastore *target;  /* in s->inv; found again after a remount */
	vs_task_set *tasks;
	char *listing;   /* the task listing the target's root, until it ends */
	vs_file *root;   /* its folders, as listed (NULL: not, or not yet) */
	size_t n_root;
	int64_t root_ms; /* when the listing ended, by vCenter's clock (0: unknown) */
	double t0;
	bool bug;   /* the extent-size bug showed: nothing new starts */
	bool stop;  /* a failure, or Ctrl-C: nothing new starts */
} fleet;

static double since(const fleet *f)
{
	return na_run_clock() - f->t0;
}

static void changed(const fleet *f)
{
	if (f->a->changed)
		f->a->changed(f->a->ud, f->r);
}

/* Counted against the limits: a move vCenter has not ended (one that has,
 * waiting for its checks, frees its place). */
static bool in_flight(const na_fleet_vm *v)
{
	return (v->state == NA_FLEET_STARTED || v->state == NA_FLEET_QUEUED ||
	        v->state == NA_FLEET_MOVING) && !v->landed;
}

static bool has(char *const *list, size_t n, const char *moref)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], moref) == 0)
			return true;
	return false;
}

static const vs_vm *vm_entry(const na_inventory *inv, const char *moref)
{
	for (size_t i = 0; i < inv->n_vms; i++)
		if (strcmp(inv->vms[i].moref, moref) == 0)
			return &inv->vms[i];
	return NULL;
}

/* ---- the plan ---------------------------------------------------------------- */

static int64_t layout_bytes(const vs_vm_layout *l)
{
	int64_t sum = 0;
	for (size_t i = 0; i < l->n_files; i++)
		sum += l->files[i].size > 0 ? l->files[i].size : 0;
	return sum;
}

static int plan_one(na_session *s, const vs_vm *vm, const vs_datastore *target, na_fleet_vm *v,
                    vs_error *err)
{
	*v = (na_fleet_vm){.progress = -1, .bytes = -1, .state = NA_FLEET_WAITING, .own_s = -1,
	                   .queued_s = -1};
	v->name = strdup(vm->name);
	v->moref = strdup(vm->moref);
	v->host = strdup(vm->host ? vm->host : "");
	v->from = calloc(vm->n_datastores + 1, sizeof(char *));
	if (!v->name || !v->moref || !v->host || !v->from)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < vm->n_datastores; i++)
		if (!(v->from[v->n_from++] = strdup(vm->datastores[i])))
			return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	v->already_there = vm->n_datastores == 1 && strcmp(vm->datastores[0], target->moref) == 0;
	if (v->already_there) {
		v->state = NA_FLEET_DONE;
		v->verdict = NA_VERDICT_CLEAN;
		return VS_OK;
	}
	char *ds = NULL, *path = NULL;
	int rc = vs_vm_layout_read(s->client, vm->moref, &v->layout, err);
	if (rc == VS_OK)
		v->bytes = layout_bytes(v->layout);
	if (rc == VS_OK && vm->vmx_path && vs_dspath_split(vm->vmx_path, &ds, &path, err) == VS_OK) {
		const vs_datastore *home = na_find_datastore(s->inv, ds, err);
		if (home && !(v->home = strdup(home->moref)))
			rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	*err = (vs_error){0};  /* a home not found is no reason to refuse the move */
	free(ds);
	free(path);
	return rc;
}

int na_fleet_plan(na_session *s, const na_fleet_args *a, const vs_vm *const *vms, size_t n,
                  na_fleet_result *out, vs_error *err)
{
	*out = (na_fleet_result){0};
	const vs_datastore *target = na_find_datastore(s->inv, a->one->datastore, err);
	if (!target)
		return VS_ERR_NOT_FOUND;
	if (!(out->vms = calloc(n + 1, sizeof(*out->vms))))
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	int rc = VS_OK;
	for (; rc == VS_OK && out->n < n; out->n++)
		rc = plan_one(s, vms[out->n], target, &out->vms[out->n], err);
	return rc;
}

/* ---- starting within the limits -------------------------------------------------- */

/* Whether v may start now: a->parallel moves in all, per_host from one
 * source host, per_datastore through any datastore (vCenter counts a
 * Storage vMotion against its source and its target datastores). */
static bool fits(const fleet *f, const na_fleet_vm *v)
{
	size_t all = 0, host = 0, target = 0;
	size_t *source = calloc(v->n_from + 1, sizeof(size_t));
	if (!source)
		return false;
	for (size_t i = 0; i < f->r->n; i++) {
		const na_fleet_vm *o = &f->r->vms[i];
		if (!in_flight(o))
			continue;
		all++;
		host += strcmp(o->host, v->host) == 0;
		target++;  /* every move goes to the one target */
		for (size_t d = 0; d < v->n_from; d++)
			source[d] += has(o->from, o->n_from, v->from[d]) || strcmp(v->from[d], f->target->moref) == 0;
	}
	bool ok = all < (size_t)f->a->parallel && host < (size_t)f->a->per_host &&
	          target < (size_t)f->a->per_datastore;
	for (size_t d = 0; ok && d < v->n_from; d++)
		ok = source[d] < (size_t)f->a->per_datastore;
	free(source);
	return ok;
}

static void fail_vm(fleet *f, na_fleet_vm *v, const vs_error *e)
{
	v->state = NA_FLEET_FAILED;
	if (!v->ended_s)
		v->ended_s = since(f);
	v->err = *e;
	bool bug = v->diag.extent_bug;
	v->verdict = bug ? NA_VERDICT_FINDING : NA_VERDICT_PROBLEM;
	f->bug |= bug;
	if (!bug && !f->a->keep_going && !f->stop) {
		f->stop = true;
		f->r->stopped = "a move failed (--keep-going carries on after a failure)";
	}
}

static void arrived(fleet *f, na_fleet_vm *v);

static void start(fleet *f, na_fleet_vm *v)
{
	vs_error e = {0};
	vs_relocate_outcome how = VS_RELOCATE_STARTED;
	int rc = vs_vm_relocate_start(f->s->client, v->moref, f->target->moref, v->layout,
	                              &na_stop_requested, &v->task, &how, &e);
	if (rc == VS_OK && how == VS_RELOCATE_STOPPED)
		return;  /* Ctrl-C came before the call: it stays not tried */
	v->started_s = since(f);
	v->moving_s = v->ended_s = 0;  /* a retry's times are its own */
	v->own_s = v->queued_s = -1;
	v->state = NA_FLEET_STARTED;
	v->adopted = how == VS_RELOCATE_RUNNING;
	v->already_there = how == VS_RELOCATE_THERE;  /* an earlier run's move took it there */
	if (rc == VS_OK && v->task) {
		rc = vs_task_set_add(f->tasks, v->task, &e);
	} else if (rc == VS_OK) {
		v->ended_s = since(f);
		arrived(f, v);
	}
	if (rc != VS_OK) {
		vs_error_context(&e, "Storage vMotion of %s to %s", v->name, f->target->name);
		fail_vm(f, v, &e);
	}
}

static void start_more(fleet *f)
{
	for (size_t i = 0; i < f->r->n; i++) {
		if (f->bug || f->stop || na_stop_requested)
			return;
		na_fleet_vm *v = &f->r->vms[i];
		if (v->state == NA_FLEET_WAITING && fits(f, v)) {
			start(f, v);
			changed(f);
		}
	}
}

/* ---- as moves end -------------------------------------------------------------- */

/* A move ended well: where the VM is now, at once (a VM not on the target
 * fails, and stops new starts); on the target, its checks come after the
 * starts its end allows (land_all). */
static void arrived(fleet *f, na_fleet_vm *v)
{
	vs_vm *now = NULL;
	vs_error e = {0};
	int rc = vs_vm_lookup(f->s->client, v->moref, &now, &e);
	bool there = rc == VS_OK && now->n_datastores == 1 &&
	             strcmp(now->datastores[0], f->target->moref) == 0;
	if (rc == VS_OK && !there && v->adopted) {
		/* The killed run's relocation went elsewhere: this one is ours to make. */
		v->adopted = false;
		v->state = NA_FLEET_WAITING;
	} else if (rc == VS_OK && !there) {
		fail_vm(f, v, &(vs_error){.status = VS_ERR_PROTOCOL,
		                          .message = "the move succeeded, but the VM is not on the target"});
	} else if (rc == VS_OK) {
		v->landed = now;
		now = NULL;
	} else {
		fail_vm(f, v, &e);
	}
	vs_vm_free(&now);
}

/* Every extent of a VM that landed checked as its host reads it. */
static void verify(fleet *f, na_fleet_vm *v)
{
	vs_error e = {0};
	int rc = na_op_verify(f->s, v->landed, NA_RECHECK_DEFAULT_S, &v->checks, &e);
	v->state = NA_FLEET_DONE;
	v->verdict = rc == VS_OK ? na_verify_verdict(&v->checks) : NA_VERDICT_UNCHECKED;
	if (rc != VS_OK)
		v->err = e;
	vs_vm_free(&v->landed);
}

static void task_failed(fleet *f, na_fleet_vm *v, const vs_error *task_err)
{
	const vs_vm *vm = vm_entry(f->s->inv, v->moref);
	vs_error e = *task_err;
	na_attempt_free(&v->attempt);
	/* The listing tells this try's folder only if it ended before the move
	 * began (vCenter's clock for both): else the try's folder may be in it. */
	bool before = f->root && f->root_ms && e.task_started_ms && f->root_ms <= e.task_started_ms;
	if (vm)
		na_attempt_from(vm, before ? f->root : NULL, f->n_root, &v->attempt);
	if (vm && e.status == VS_ERR_TASK)
		na_migrate_diagnose(f->s, f->a->one, vm, v->layout->log_directory, f->target, &v->attempt,
		                    &e, &v->diag);
	vs_error_context(&e, "Storage vMotion of %s to %s", v->name, f->target->name);
	fail_vm(f, v, &e);
}

/* The target's root listed anew, beside the moves (none when it cannot be:
 * a failed try's folder is then not told, and its evidence not read). */
static void begin_listing(fleet *f)
{
	vs_error ignored = {0};
	if (f->listing)  /* of the datastore before a remount: dropped */
		vs_task_set_take(f->tasks, f->listing, &ignored);
	free(f->listing);
	f->listing = NULL;
	vs_files_free(&f->root, f->n_root);
	f->n_root = 0;
	f->root_ms = 0;
	char *root = vs_dspath_join(f->target->name, NULL);
	if (root && vs_datastore_list_start(f->s->client, f->target->browser, root, "*", &f->listing,
	                                    &ignored) == VS_OK &&
	    vs_task_set_add(f->tasks, f->listing, &ignored) != VS_OK) {
		free(f->listing);
		f->listing = NULL;
	}
	free(root);
}

static void take_listing(fleet *f)
{
	vs_task_phase phase = f->listing ? vs_task_set_phase(f->tasks, f->listing, NULL) : VS_TASK_UNSEEN;
	if (phase != VS_TASK_SUCCESS && phase != VS_TASK_ERROR)
		return;
	vs_error ignored = {0};
	f->root_ms = vs_task_set_times(f->tasks, f->listing).ended_ms;
	vs_datastore_list_take(f->tasks, f->listing, f->target->name, &f->root, &f->n_root, &ignored);
	free(f->listing);
	f->listing = NULL;
}

/* v's task ended, seen now.  Its time queued and its own are vCenter's
 * when it says them, not when we saw the task leave the queue and end: a
 * busy client sees both late, and would count the lag as queued or moving
 * (and a killed run's move, adopted, began before this run). */
static void ended_now(fleet *f, na_fleet_vm *v)
{
	vs_task_times t = vs_task_set_times(f->tasks, v->task);
	v->ended_s = since(f);
	double queued_s = (double)(t.started_ms - t.queued_ms) / 1000,
	       own_s = (double)(t.ended_ms - t.started_ms) / 1000;
	bool said = t.queued_ms > 0 && queued_s >= 0 && own_s >= 0;
	v->queued_s = said ? queued_s : -1;
	v->own_s = said ? own_s : -1;
}

/* Looks at each task in flight after a wait; an ended one is taken. */
static bool look(fleet *f)
{
	bool any = false;
	take_listing(f);
	for (size_t i = 0; i < f->r->n; i++) {
		na_fleet_vm *v = &f->r->vms[i];
		if (!in_flight(v))
			continue;
		int progress = -1;
		vs_task_phase phase = vs_task_set_phase(f->tasks, v->task, &progress);
		na_fleet_state was = v->state;
		int had = v->progress;
		v->progress = progress;
		if (phase != VS_TASK_UNSEEN)
			v->state = phase == VS_TASK_QUEUED ? NA_FLEET_QUEUED : NA_FLEET_MOVING;
		if (phase == VS_TASK_RUNNING && !v->moving_s)
			v->moving_s = since(f);  /* vCenter's queue, if any, is behind it */
		if (phase == VS_TASK_SUCCESS || phase == VS_TASK_ERROR) {
			ended_now(f, v);
			vs_error e = {0};
			int rc = vs_task_set_take(f->tasks, v->task, &e);
			free(v->task);
			v->task = NULL;
			if (rc == VS_OK)
				arrived(f, v);
			else
				task_failed(f, v, &e);  /* at once: the extent-size bug stops new starts */
		}
		any |= v->state != was || v->progress != had;
	}
	return any;
}

static size_t count_in_flight(const na_fleet_result *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++)
		n += in_flight(&r->vms[i]);
	return n;
}

/* The VMs that landed, each checked; whether there were any. */
static bool land_all(fleet *f)
{
	bool any = false;
	for (size_t i = 0; i < f->r->n; i++) {
		na_fleet_vm *v = &f->r->vms[i];
		if (!v->landed)
			continue;
		verify(f, v);
		any = true;
	}
	if (any)
		changed(f);
	return any;
}

/* Starts and waits until nothing is in flight and nothing more may start.
 * The checks of the moves that landed come after the starts, so that they
 * hold none back. */
static int run_moves(fleet *f, vs_error *err)
{
	for (;;) {
		start_more(f);
		if (land_all(f))
			continue;
		if (!count_in_flight(f->r))
			return VS_OK;
		int rc = vs_task_set_wait(f->tasks, WAIT_S, err);
		if (rc != VS_OK)
			return rc;
		if (look(f))
			changed(f);
	}
}

/* ---- the extent-size bug ------------------------------------------------------ */

/* Moves v the single-VM way, straight to the workaround. */
static int work_around_one(fleet *f, na_fleet_vm *v)
{
	na_migrate_args one = *f->a->one;
	one.vm = v->name;
	one.vm_moref = v->moref;
	one.bug_seen = true;
	na_migrate_result mr;
	vs_error e = {0};
	v->started_s = v->moving_s = since(f);
	v->state = NA_FLEET_MOVING;
	changed(f);
	int rc = na_op_migrate(f->s, &one, &mr, &e);
	v->ended_s = since(f);
	v->state = rc == VS_OK ? NA_FLEET_DONE : NA_FLEET_FAILED;
	v->verdict = rc == VS_OK ? na_migrate_verdict(&mr, rc) : NA_VERDICT_PROBLEM;
	v->err = e;
	na_checks_free(&v->checks);
	v->checks = mr.checks;
	mr.checks = (na_checks){0};
	na_migrate_result_free(&mr);
	changed(f);
	return rc;
}

static bool bug_hit(const na_fleet_vm *v)
{
	return v->state == NA_FLEET_FAILED && v->diag.extent_bug;
}

/* The VMs this fleet put on the target go back where they were: a
 * datastore is not unmounted under a VM, and NFS 3 and NFS 4.1 never mount
 * one export at once.  They move again after the remount. */
static bool evacuate(fleet *f)
{
	for (size_t i = 0; i < f->r->n; i++) {
		na_fleet_vm *v = &f->r->vms[i];
		if (v->state != NA_FLEET_DONE || v->already_there)
			continue;
		const char **disks = calloc(v->layout->n_disks + 1, sizeof(char *));
		vs_error e = {0};
		for (size_t d = 0; disks && d < v->layout->n_disks; d++)
			disks[d] = v->layout->disks[d].datastore;
		na_say(f->s, "Moving %s back from %s: the remount as NFS 3 needs it empty.", v->name,
		       f->target->name);
		int rc = !disks || !v->home ? vs_fail(&e, VS_ERR_NOMEM, "where %s was is unknown", v->name)
		                            : vs_vm_relocate_disks(f->s->client, v->moref, v->home, v->layout,
		                                                   disks, NULL, NULL, &e);
		free(disks);
		if (rc != VS_OK) {
			v->err = e;
			f->stop = true;
			f->r->stopped = "moving a VM back before the remount failed";
			return false;
		}
		v->state = NA_FLEET_WAITING;
		na_checks_free(&v->checks);
		changed(f);
	}
	return true;
}

/* NFS 3: once the target is empty again, the first VM the bug stopped is
 * moved with the remount; then the others, and the VMs not started yet,
 * go back to the parallel moves. */
static int remount_then_resume(fleet *f, vs_error *err)
{
	na_fleet_vm *first = NULL;
	for (size_t i = 0; i < f->r->n && !first; i++)
		first = bug_hit(&f->r->vms[i]) ? &f->r->vms[i] : NULL;
	if (!first) {  /* every VM it stopped was moved since: nothing to work around */
		f->bug = false;
		return VS_OK;
	}
	if (!evacuate(f))
		return VS_OK;
	if (work_around_one(f, first) != VS_OK) {
		f->stop = true;
		f->r->stopped = "remounting the target as NFS 3 failed";
		return VS_OK;
	}
	f->r->remounted = "NFS 3";
	f->bug = false;
	int rc = na_session_fresh(f->s, err);  /* the remount made the datastore anew */
	if (rc == VS_OK && !(f->target = na_find_datastore(f->s->inv, f->a->one->datastore, err)))
		rc = VS_ERR_NOT_FOUND;
	for (size_t i = 0; rc == VS_OK && i < f->r->n; i++)
		if (bug_hit(&f->r->vms[i]))
			f->r->vms[i].state = NA_FLEET_WAITING;
	if (rc == VS_OK)
		begin_listing(f);
	return rc;
}

/* After the moves in flight have ended: the policy's workaround. */
static int after_bug(fleet *f, vs_error *err)
{
	const char *policy = f->a->one->policy;
	if (strcmp(policy, "nfs3") == 0)
		return remount_then_resume(f, err);
	if (strcmp(policy, "fail") == 0) {
		f->stop = true;
		f->r->stopped = "the extent-size mismatch showed; more moves there would repeat it";
		return VS_OK;
	}
	/* snapshot, cold: one VM at a time, as the single-VM workaround is. */
	for (size_t i = 0; i < f->r->n && !na_stop_requested; i++) {
		na_fleet_vm *v = &f->r->vms[i];
		if (bug_hit(v) || v->state == NA_FLEET_WAITING)
			work_around_one(f, v);
	}
	f->bug = false;
	return VS_OK;
}

/* ---- the whole fleet ---------------------------------------------------------- */

/* A failed attempt's folders, read after the moves: the VM's entry is read
 * again first, for a folder that became its home (a retry's) is no leftover. */
static void collect_leftovers(fleet *f)
{
	for (size_t i = 0; i < f->r->n; i++) {
		const na_fleet_vm *v = &f->r->vms[i];
		if (!v->attempt.folder || (v->state == NA_FLEET_DONE && !v->diag.verdict))
			continue;
		vs_error e = {0};
		int rc = na_inventory_refresh(f->s->client, f->s->inv, v->moref, &e);
		if (rc == VS_OK && !(f->target = na_find_datastore(f->s->inv, f->a->one->datastore, &e)))
			rc = VS_ERR_NOT_FOUND;
		if (rc == VS_OK)
			rc = na_move_leftovers(f->s->client, f->s->inv, f->target, v->attempt.folder,
			                       &f->r->leftovers, &e);
		if (rc != VS_OK) {
			char line[1600];
			vs_error_format(&e, line, sizeof(line));
			na_say_warning(f->s, "could not list what %s's failed move left: %s", v->name, line);
			return;
		}
	}
}

static int run_fleet(fleet *f, vs_error *err)
{
	int rc = VS_OK;
	while (rc == VS_OK) {
		rc = run_moves(f, err);
		if (rc != VS_OK || !f->bug || na_stop_requested)
			break;
		rc = after_bug(f, err);
		if (f->stop)
			break;
	}
	return rc;
}

int na_op_fleet(na_session *s, const na_fleet_args *a, na_fleet_result *out, vs_error *err)
{
	fleet f = {.s = s, .a = a, .r = out, .t0 = na_run_clock()};
	na_interrupts saved;
	na_interrupts_catch(&saved);
	na_interrupts_note("letting the Storage vMotions in flight finish (Ctrl-C again leaves them "
	                   "running in vCenter)");
	na_interrupts_second("nfsagent: leaving the Storage vMotions in flight running in vCenter; "
	                     "the same command again waits for them\n");
	int rc = (f.target = na_find_datastore(s->inv, a->one->datastore, err)) ? VS_OK : VS_ERR_NOT_FOUND;
	if (rc == VS_OK)
		rc = vs_task_set_new(s->client, &f.tasks, err);
	if (rc == VS_OK) {
		begin_listing(&f);
		rc = run_fleet(&f, err);
	}
	na_interrupts_second(NULL);
	na_interrupts_note(NULL);
	out->interrupted = na_stop_requested;
	for (size_t i = 0; i < out->n; i++)
		if (out->vms[i].state == NA_FLEET_WAITING)
			out->vms[i].state = NA_FLEET_NOT_TRIED;
	if (out->interrupted && !out->stopped)
		out->stopped = "interrupted";
	if (f.target)
		collect_leftovers(&f);
	vs_task_set_free(&f.tasks);
	free(f.listing);
	vs_files_free(&f.root, f.n_root);
	na_interrupts_release(&saved);
	out->elapsed_s = since(&f);
	return rc;
}

na_verdict na_fleet_verdict(const na_fleet_result *r)
{
	na_verdict worst = NA_VERDICT_CLEAN;
	for (size_t i = 0; i < r->n; i++) {
		const na_fleet_vm *v = &r->vms[i];
		if (v->verdict == NA_VERDICT_FINDING)
			return NA_VERDICT_FINDING;
		if (v->verdict != NA_VERDICT_CLEAN)
			worst = v->verdict;
	}
	return worst;
}

void na_fleet_result_free(na_fleet_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		na_fleet_vm *v = &r->vms[i];
		free(v->name);
		free(v->moref);
		free(v->host);
		free(v->home);
		for (size_t d = 0; d < v->n_from; d++)
			free(v->from[d]);
		free(v->from);
		na_diagnosis_free(&v->diag);
		na_checks_free(&v->checks);
		free(v->task);
		vs_vm_layout_free(&v->layout);
		vs_vm_free(&v->landed);
		na_attempt_free(&v->attempt);
	}
	free(r->vms);
	na_leftovers_free(&r->leftovers);
	*r = (na_fleet_result){0};
}
