/* Running a campaign: preflight and plan, then per target mount, probe,
 * and repetitions interleaved across targets (A B A B) with the VM moved to
 * each in turn, then the VM goes home and what was mounted is unmounted.
 * Every finished step is journaled in the results database, so a stopped
 * run continues with --resume without repeating or losing a result. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "campaign.h"

typedef struct run {
	na_campaign *c;
	const na_run_options *o;
	vs_client *cl;
	na_store *store;
	na_inventory inv;
	char id[160];            /* the run's name in the journal and on every result */
	char *vm_moref, *home;   /* the VM, and the datastore it started on */
	char *password;
	double t_move, t_bench, t_probe, t_start;
	bool broken[NA_MAX_TARGETS];  /* the extent-size bug stopped moves there */
	bool nfs3[NA_MAX_TARGETS];    /* the bug showed there and its policy is nfs3: NFS 3 from now on */
	int journal_failed;      /* the exit code of a journal that could not be read, or 0 */
} run;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ISO-8601 UTC; compact for run names ("20261130T101500"). */
static void iso_now(char *buf, size_t size, bool compact)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, size, compact ? "%Y%m%dT%H%M%S" : "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int fail_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail_line(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	na_error("%s", line);
	return NA_EXIT_USAGE;
}

/* ---- journal ---------------------------------------------------------------- */

/* Whether step is journaled.  A journal that cannot be read (locked by
 * another nfsagent, say) is no answer: the error is reported once, the run
 * stops at its next safe point as after Ctrl-C (resumable), the step counts
 * as done so that nothing is done on a guess, and nothing more is journaled. */
static bool done(run *r, const char *step, char **detail)
{
	bool yes = false;
	vs_error err = {0};
	if (na_store_step_is_done(r->store, r->id, step, &yes, detail, &err) == VS_OK)
		return yes;
	if (!r->journal_failed)
		r->journal_failed = na_report(&err);
	na_stop_requested = 1;
	return true;
}

static int mark(run *r, const char *step, const char *detail)
{
	char at[32];
	vs_error err = {0};
	if (r->journal_failed)
		return r->journal_failed;
	iso_now(at, sizeof(at), false);
	return na_store_step_done(r->store, r->id, step, detail, at, &err) == VS_OK ? NA_EXIT_OK
	                                                                           : na_report(&err);
}

static void set_state(run *r, const char *state)
{
	char at[32];
	vs_error err = {0};
	iso_now(at, sizeof(at), false);
	if (na_store_run_state(r->store, r->id, state, at, &err) != VS_OK)
		na_report(&err);
}

/* ---- preflight ------------------------------------------------------------------ */

static vs_vm *the_vm(const run *r)
{
	for (size_t i = 0; r->vm_moref && i < r->inv.n_vms; i++)
		if (!strcmp(r->inv.vms[i].moref, r->vm_moref))
			return &r->inv.vms[i];
	return NULL;
}

static int reload(run *r)
{
	vs_error err = {0};
	na_inventory_free(&r->inv);
	if (na_inventory_load(r->cl, true, &r->inv, &err) != VS_OK)
		return na_report(&err);
	if (r->vm_moref && !the_vm(r))
		return fail_line("the VM %s disappeared", r->c->vm);
	return NA_EXIT_OK;
}

/* The target's hosts: "all", "cluster:NAME", or host names. */
static bool target_hosts(run *r, const na_target *t, na_host_choice *choice, vs_error *err)
{
	const char *h = t->hosts ? t->hosts : "all";
	*choice = (na_host_choice){0};
	if (!strcmp(h, "all"))
		choice->all = true;
	else if (!strncmp(h, "cluster:", 8))
		choice->cluster = h + 8;
	else
		choice->host = h;
	vs_host **hosts = NULL;
	size_t n = 0;
	int rc = na_select_hosts(&r->inv, choice, &hosts, &n, err);
	free(hosts);
	return rc == VS_OK;
}

static bool alternating(const run *r, const na_target *t)
{
	for (size_t i = 0; i < r->c->n_targets; i++)
		if (na_target_alternates(&r->c->targets[i], t))
			return true;
	return false;
}

static vs_datastore *datastore_named(const run *r, const char *name)
{
	for (size_t i = 0; i < r->inv.n_datastores; i++)
		if (!strcmp(r->inv.datastores[i].name, name))
			return &r->inv.datastores[i];
	return NULL;
}

static size_t index_of(const run *r, const na_target *t)
{
	return (size_t)(t - r->c->targets);
}

/* The NFS version the target mounts: its own, or NFS 3 once the bug showed
 * there under on_extent_bug = nfs3 (mounting NFS 4.1 again would only hit
 * it again). */
static const char *nfs_of(const run *r, const na_target *t)
{
	return r->nfs3[index_of(r, t)] ? "3" : t->nfs;
}

static const char *policy_of(const na_target *t)
{
	return t->on_extent_bug ? t->on_extent_bug : "fail";
}

static const char *ds_type(const run *r, const na_target *t)
{
	return !strcmp(nfs_of(r, t), "3") ? "NFS" : "NFS41";
}

static int check_target(run *r, const na_target *t, const vs_vm *vm)
{
	vs_error err = {0};
	na_host_choice choice;
	if (!target_hosts(r, t, &choice, &err))
		return na_report(&err);
	vs_datastore *d = NULL;
	for (size_t i = 0; i < r->inv.n_datastores; i++)
		if (!strcmp(r->inv.datastores[i].name, t->datastore))
			d = &r->inv.datastores[i];
	if (!d && !t->servers)
		return fail_line("target %s: no datastore is named '%s' and the target names no export to mount",
		                 t->name, t->datastore);
	if (d && t->servers && alternating(r, t) && !r->o->resume)
		return fail_line("target %s alternates NFS versions on %s:%s: datastore '%s' must not be "
		                 "mounted before the campaign", t->name, t->servers, t->path, t->datastore);
	if (d && t->servers) {
		const char *servers[] = {t->servers, NULL};
		if (!na_same_export(d, servers, t->path))
			return fail_line("target %s: datastore '%s' exists for another export", t->name, t->datastore);
	}
	if (choice.host && strcmp(na_host_name(&r->inv, vm->host), choice.host) != 0)
		return fail_line("target %s: %s runs on another host", t->name, vm->name);
	return NA_EXIT_OK;
}

static void print_plan(run *r, const vs_vm *vm)
{
	na_campaign *c = r->c;
	printf("Campaign %s (%s), run %s\n", c->name, c->file, r->id);
	printf("  VM %s, now on %s (host %s)\n", vm->name, r->home, na_host_name(&r->inv, vm->host));
	for (size_t i = 0; i < c->n_targets; i++) {
		const na_target *t = &c->targets[i];
		printf("  target %s: ", t->name);
		if (t->servers)
			printf("%s:%s as NFS %s named %s on %s hosts", t->servers, t->path, t->nfs,
			       t->datastore, t->hosts ? t->hosts : "all");
		else
			printf("datastore %s", t->datastore);
		printf("%s; on the extent-size bug: %s", t->probe ? "; probe first" : "", policy_of(t));
		for (size_t k = 0; k < t->labels.n; k++)
			printf("%s%s=%s", k ? "," : "; labels ", t->labels.v[k].key, t->labels.v[k].value);
		printf("\n");
	}
	printf("  profiles:");
	for (size_t i = 0; i < c->n_profiles; i++)
		printf(" %s", c->profiles[i]);
	printf(" x %ld repetitions, targets interleaved; size %s, runtime %ld s\n", c->repeat, c->size,
	       c->runtime);
	printf("  then: %s\n", c->cleanup ? "move the VM home and unmount what the campaign mounted"
	                                   : "leave everything as it is (cleanup = no)");
	fflush(stdout);
}

static int preflight(run *r)
{
	vs_error err = {0};
	int rc = reload(r);
	vs_vm *vm = NULL;
	if (rc == NA_EXIT_OK && !(vm = na_find_vm(&r->inv, r->c->vm, &err)))
		return na_report(&err);
	if (rc != NA_EXIT_OK)
		return rc;
	r->vm_moref = strdup(vm->moref);
	char *path = NULL;
	if (vs_dspath_split(vm->vmx_path ? vm->vmx_path : "", &r->home, &path, &err) != VS_OK)
		return na_report(&err);
	free(path);
	if (vs_guest_check(r->cl, vm->moref, &err) != VS_OK)
		return na_report(&err);
	for (size_t i = 0; rc == NA_EXIT_OK && i < r->c->n_targets; i++)
		rc = check_target(r, &r->c->targets[i], vm);
	return rc;
}

/* ---- steps ---------------------------------------------------------------------- */

static int mount_export(run *r, na_target *t, size_t *mounted)
{
	na_mount_args a = {.server_list = strdup(t->servers), .nfs = nfs_of(r, t)};
	a.spec.name = t->datastore;
	a.spec.path = t->path;
	target_hosts(r, t, &a.choice, &(vs_error){0});
	*mounted = 0;
	int rc = a.server_list ? na_mount_check(&a) : NA_EXIT_FAIL;
	if (rc < 0)
		rc = na_mount(r->cl, &a, false, mounted);
	free((void *)a.spec.servers);
	free(a.server_list);
	return rc == NA_EXIT_OK ? reload(r) : rc;
}

static int mount_target(run *r, na_target *t)
{
	char step[160], *detail = NULL;
	snprintf(step, sizeof(step), "mount:%s", t->name);
	/* Journaled, and there: done.  Journaled but gone (a failed run's
	 * cleanup unmounted it): mounted again, the campaign's to unmount. */
	bool journaled = !t->servers || alternating(r, t) || done(r, step, &detail);
	free(detail);
	if (journaled && (!t->servers || alternating(r, t) || datastore_named(r, t->datastore)))
		return NA_EXIT_OK;
	size_t mounted = 0;
	int rc = mount_export(r, t, &mounted);
	return rc == NA_EXIT_OK ? mark(r, step, mounted ? "mounted" : "present") : rc;
}

/* The extent-size bug showed on t (its probe, or a move that fell back):
 * under on_extent_bug = nfs3 a target the campaign mounts as NFS 4.1 is
 * mounted as NFS 3 from then on, journaled so that a resumed run knows. */
static int learn_nfs3(run *r, const na_target *t, const char *where)
{
	size_t ti = index_of(r, t);
	if (!t->servers || strcmp(t->nfs, "4.1") != 0 || strcmp(policy_of(t), "nfs3") != 0 || r->nfs3[ti])
		return NA_EXIT_OK;
	char step[160];
	snprintf(step, sizeof(step), "nfs3:%s", t->name);
	printf("Target %s: the NFS 4.1 extent-size bug showed %s; on_extent_bug = nfs3, so its rounds "
	       "mount %s as NFS 3 from the start.\n", t->name, where, t->datastore);
	fflush(stdout);
	r->nfs3[ti] = true;
	return mark(r, step, where);
}

static int probe_target(run *r, na_target *t)
{
	char step[160];
	snprintf(step, sizeof(step), "probe:%s", t->name);
	if (!t->probe || done(r, step, NULL) || !datastore_named(r, t->datastore))
		return NA_EXIT_OK;
	vs_vm *vm = the_vm(r);
	na_probe_args a = {.host = na_host_name(&r->inv, vm->host), .datastore = t->datastore,
	                   .db = r->o->db, .disks = r->c->probe_disks,
	                   .size = na_parse_size(r->c->probe_size), .recheck_s = NA_RECHECK_DEFAULT_S,
	                   .campaign = r->id, .target = t->name};
	double t0 = now_s();
	int rc = na_probe(r->cl, &a, false);
	r->t_probe += now_s() - t0;
	/* The bug showing is a finding (recorded by the probe), not a failure. */
	if (rc == NA_EXIT_FINDING)
		rc = learn_nfs3(r, t, "in its probe") == NA_EXIT_OK ? NA_EXIT_FINDING : NA_EXIT_FAIL;
	if (rc == NA_EXIT_OK || rc == NA_EXIT_FINDING)
		rc = mark(r, step, rc == NA_EXIT_OK ? "clean" : "extent-size mismatch");
	return rc;
}

/* Moves the VM to ds; the extent-size bug marks the target broken. */
static int move_to(run *r, size_t ti, const char *ds, const char *policy)
{
	vs_vm *vm = the_vm(r);
	for (size_t i = 0; i < r->inv.n_datastores; i++)
		if (!strcmp(r->inv.datastores[i].name, ds) && vm->n_datastores == 1 &&
		    !strcmp(vm->datastores[0], r->inv.datastores[i].moref))
			return NA_EXIT_OK;
	na_migrate_args a = {.vm = r->c->vm, .datastore = ds, .policy = policy, .db = r->o->db,
	                     .vm_moref = r->vm_moref, .allow_power_off = r->c->allow_power_off,
	                     .campaign = r->id,
	                     .target = ti < NA_MAX_TARGETS ? r->c->targets[ti].name : "home"};
	double t0 = now_s();
	int rc = na_migrate(r->cl, &a, false);
	r->t_move += now_s() - t0;
	if (rc == NA_EXIT_FINDING && ti < NA_MAX_TARGETS) {
		char step[160];
		snprintf(step, sizeof(step), "broken:%s", r->c->targets[ti].name);
		r->broken[ti] = true;
		na_error("target %s: the NFS 4.1 extent-size bug stopped the move; its benchmarks are skipped",
		         r->c->targets[ti].name);
		rc = mark(r, step, "extent-size mismatch");
	}
	int reloaded = reload(r);
	if (rc == NA_EXIT_OK && reloaded == NA_EXIT_OK && ti < NA_MAX_TARGETS) {
		/* migrate's nfs3 policy remounted the target: the bug showed. */
		vs_datastore *d = datastore_named(r, ds);
		if (d && d->type && !strcmp(d->type, "NFS") && !strcmp(policy, "nfs3"))
			rc = learn_nfs3(r, &r->c->targets[ti], "on the move");
	}
	return rc != NA_EXIT_OK ? rc : reloaded;
}

/* Unmounts a datastore from every host that mounts it. */
static int unmount_all(run *r, const vs_datastore *d)
{
	vs_error err = {0};
	vs_host **hosts = calloc(d->n_mounts + 1, sizeof(vs_host *));
	size_t n = 0;
	for (size_t h = 0; hosts && h < d->n_mounts; h++)
		if ((hosts[n] = na_host_by_moref(&r->inv, d->mounts[h].host)))
			n++;
	int rc = hosts ? na_unmount_everywhere(r->cl, &r->inv, d, hosts, n, false, &err)
	               : vs_fail(&err, VS_ERR_NOMEM, "out of memory");
	free(hosts);
	if (rc != VS_OK) {
		vs_error_context(&err, "unmounting %s", d->name);
		return na_report(&err);
	}
	return reload(r);
}

/* An alternating target's turn: park the VM at home if it sits on the
 * export under the other NFS version, unmount that, mount this one. */
static int take_turn(run *r, na_target *t)
{
	const char *servers[] = {t->servers, NULL};
	int rc = NA_EXIT_OK;
	for (size_t i = 0; rc == NA_EXIT_OK && i < r->inv.n_datastores; i++) {
		vs_datastore *d = &r->inv.datastores[i];
		if (!na_same_export(d, servers, t->path) || !d->type || !strcmp(d->type, ds_type(r, t)))
			continue;
		printf("Target %s: %s leaves %s first.\n", t->name, na_nfs_label(d->type), t->path);
		char *name = strdup(d->name);
		if (na_vm_uses(the_vm(r), d->moref))
			rc = move_to(r, NA_MAX_TARGETS, r->home, "fail");
		vs_datastore *again = rc == NA_EXIT_OK && name ? datastore_named(r, name) : NULL;
		if (again)
			rc = unmount_all(r, again);
		free(name);
		i = (size_t)-1;  /* the inventory was reloaded: look again */
	}
	vs_datastore *d = rc == NA_EXIT_OK ? datastore_named(r, t->datastore) : NULL;
	size_t mounted = 0;
	if (rc == NA_EXIT_OK && !d)
		rc = mount_export(r, t, &mounted);
	bool asked = !r->nfs3[index_of(r, t)];
	if (rc == NA_EXIT_OK)
		rc = probe_target(r, t);
	/* The probe found the bug just now: NFS 3 takes this turn already. */
	return rc == NA_EXIT_OK && asked && r->nfs3[index_of(r, t)] ? take_turn(r, t) : rc;
}

static void result_step(char *step, size_t size, const na_target *t, long rep, const char *profile)
{
	snprintf(step, size, "result:%s:%ld:%s", t->name, rep, profile);
}

static int bench_one(run *r, na_bench *b, const na_target *t, const char *profile, long rep)
{
	char step[256], *detail = NULL;
	result_step(step, sizeof(step), t, rep, profile);
	if (done(r, step, &detail)) {
		free(detail);
		return NA_EXIT_OK;
	}
	const na_profile *p = na_profile_find(profile);
	char *job = na_bench_job(b, p);
	na_bench_outcome o = {0};
	vs_error err = {0};
	double t0 = now_s();
	/* The result and its journal step are one transaction: a kill anywhere
	 * leaves both or neither, and the line below follows the commit. */
	b->step = step;
	int rc = job ? na_bench_run(b, p, job, (int)rep, &o, &err) : vs_fail(&err, VS_ERR_NOMEM, "out of memory");
	b->step = NULL;
	r->t_bench += now_s() - t0;
	int code = rc == VS_OK ? NA_EXIT_OK : na_stop_requested ? NA_EXIT_FAIL : na_report(&err);
	if (rc == VS_OK) {
		printf("  %s #%ld on %s: %s (result %lld)\n", profile, rep, t->name, o.ok ? "ok" : "FAILED",
		       (long long)o.row);
		fflush(stdout);
	}
	na_bench_outcome_clear(&o);
	free(job);
	return code;
}

/* One target's profiles in one repetition: the guest is prepared once for
 * them, and not at all when a resumed run has them all already. */
static int bench_round(run *r, na_target *t, long rep)
{
	size_t todo = 0;
	for (size_t p = 0; p < r->c->n_profiles; p++) {
		char step[256];
		result_step(step, sizeof(step), t, rep, r->c->profiles[p]);
		todo += !done(r, step, NULL);
	}
	if (!todo)
		return NA_EXIT_OK;
	na_label labels[2 * NA_MAX_LABELS];
	size_t n = 0;
	for (size_t i = 0; i < r->c->labels.n; i++)
		labels[n++] = r->c->labels.v[i];
	for (size_t i = 0; i < t->labels.n; i++)
		labels[n++] = t->labels.v[i];
	vs_vm *vm = the_vm(r);
	vs_error err = {0};
	vs_datastore *ds = na_find_datastore(&r->inv, t->datastore, &err);
	na_bench b = {.c = r->cl, .vm = vm, .host = na_host_by_moref(&r->inv, vm->host), .ds = ds,
	              .auth = {r->c->guest_user ? r->c->guest_user : getenv("NFSAGENT_GUEST_USER"), r->password},
	              .job = {r->c->size, r->c->runtime, r->c->ramp, r->c->dir},
	              .labels = labels, .n_labels = n, .campaign = r->id, .target = t->name,
	              .store = r->store, .stop = &na_stop_requested};
	double t0 = now_s();
	int rc = ds ? VS_OK : VS_ERR_NOT_FOUND;  /* err says which; no host: na_bench_begin says so */
	if (rc == VS_OK && !(b.disk = na_bench_disk(r->cl, vm, ds, &err)))
		rc = err.status;
	if (rc == VS_OK)
		rc = na_bench_begin(&b, &err);
	r->t_bench += now_s() - t0;
	int code = rc == VS_OK ? NA_EXIT_OK : na_report(&err);
	for (size_t p = 0; code == NA_EXIT_OK && p < r->c->n_profiles && !na_stop_requested; p++)
		code = bench_one(r, &b, t, r->c->profiles[p], rep);
	if (rc == VS_OK)
		na_bench_end(&b);
	free(b.disk);
	return code;
}

static int rounds(run *r)
{
	int rc = NA_EXIT_OK;
	for (long rep = 1; rc == NA_EXIT_OK && rep <= r->c->repeat && !na_stop_requested; rep++)
		for (size_t ti = 0; rc == NA_EXIT_OK && ti < r->c->n_targets && !na_stop_requested; ti++) {
			na_target *t = &r->c->targets[ti];
			if (r->broken[ti])
				continue;
			printf("Repetition %ld on target %s%s:\n", rep, t->name,
			       r->nfs3[ti] ? " (as NFS 3: the extent-size bug showed on NFS 4.1)" : "");
			/* A learned NFS 3 target takes its turn like an alternating
			 * one: the NFS 4.1 mount goes, the NFS 3 mount comes. */
			if (alternating(r, t) || r->nfs3[ti])
				rc = take_turn(r, t);
			if (rc == NA_EXIT_OK)
				rc = move_to(r, ti, t->datastore, policy_of(t));
			if (rc == NA_EXIT_FINDING)
				rc = NA_EXIT_OK;  /* recorded; the campaign goes on with the other targets */
			if (rc == NA_EXIT_OK && !r->broken[ti] && !na_stop_requested)
				rc = bench_round(r, t, rep);
		}
	return rc;
}

/* ---- where the VM started ------------------------------------------------------ */

/* The datastore named in a "[ds] dir/file" path (malloc'd), or NULL. */
static char *ds_of(const char *dspath)
{
	char *ds = NULL, *path = NULL;
	vs_error err = {0};
	vs_dspath_split(dspath ? dspath : "", &ds, &path, &err);
	free(path);
	return ds;
}

static void disk_step(char *step, size_t size, const vs_disk *d)
{
	snprintf(step, size, "start-disk:%d", d->key);
}

/* The first run journals where the VM started: the datastore of every disk,
 * its host and power state, and its home last (the "start" step: with it
 * journaled, all of it is).  A resumed run reads them back, wherever the
 * stopped run left the VM. */
static int remember_start(run *r)
{
	char *home = NULL;
	if (done(r, "start", &home)) {
		free(r->home);
		r->home = home;
		return r->journal_failed;
	}
	vs_vm *vm = the_vm(r);
	vs_vm_layout *l = NULL;
	vs_error err = {0};
	if (vs_vm_layout_read(r->cl, r->vm_moref, &l, &err) != VS_OK)
		return na_report(&err);
	int rc = mark(r, "start-host", na_host_name(&r->inv, vm->host));
	if (rc == NA_EXIT_OK)
		rc = mark(r, "start-power", vm->power_state ? vm->power_state : "unknown");
	for (size_t i = 0; rc == NA_EXIT_OK && i < l->n_disks; i++) {
		char step[64], *ds = ds_of(l->disks[i].file);
		disk_step(step, sizeof(step), &l->disks[i]);
		rc = ds ? mark(r, step, ds) : fail_line("cannot read the datastore of %s", l->disks[i].file);
		free(ds);
	}
	vs_vm_layout_free(&l);
	return rc == NA_EXIT_OK ? mark(r, "start", r->home) : rc;
}

/* Per disk of l, the datastore moref it must go back to where it is not
 * there now (else NULL); *n how many.  A disk with no recorded start (none
 * before this version) belongs at home. */
static const char **disks_astray(run *r, const vs_vm_layout *l, size_t *n)
{
	const char **to = calloc(l->n_disks + 1, sizeof(char *));
	*n = 0;
	for (size_t i = 0; to && i < l->n_disks; i++) {
		char step[64], *start = NULL, *now = ds_of(l->disks[i].file);
		disk_step(step, sizeof(step), &l->disks[i]);
		done(r, step, &start);
		vs_datastore *d = datastore_named(r, start ? start : r->home);
		if (d && now && strcmp(now, d->name) != 0) {
			to[i] = d->moref;
			(*n)++;
		}
		free(start);
		free(now);
	}
	return to;
}

/* The VM's files are at home, and so is every disk that started there. */
static bool home_in_place(const run *r, const vs_vm_layout *l, const char **to)
{
	vs_datastore *home = datastore_named(r, r->home);
	char *vmx = ds_of(the_vm(r)->vmx_path);
	bool ok = home && vmx && !strcmp(vmx, r->home);
	free(vmx);
	for (size_t i = 0; ok && i < l->n_disks; i++)
		ok = !to[i] || strcmp(to[i], home->moref) != 0;
	return ok;
}

/* A move may have powered the VM off (allow_power_off): it runs again if it
 * ran at the start.  A VM that changed hosts (DRS) is only named. */
static int restore_power(run *r)
{
	char *power = NULL, *host = NULL;
	vs_error err = {0};
	int rc = NA_EXIT_OK;
	done(r, "start-power", &power);
	done(r, "start-host", &host);
	vs_vm *vm = the_vm(r);
	if (power && !strcmp(power, "poweredOn") && vm->power_state && strcmp(vm->power_state, power)) {
		printf("Powering %s on: it ran at the start.\n", r->c->vm);
		fflush(stdout);
		rc = vs_vm_power_on(r->cl, r->vm_moref, NULL, NULL, &err) == VS_OK ? reload(r) : na_report(&err);
	}
	const char *now = rc == NA_EXIT_OK ? na_host_name(&r->inv, the_vm(r)->host) : NULL;
	if (host && now && strcmp(host, now) != 0)
		na_warn("%s runs on host %s now; it started on %s", r->c->vm, now, host);
	free(power);
	free(host);
	return rc;
}

/* The VM back where it started, from where it really is (not from the
 * journal: a failed run's cleanup may have journaled steps that a resumed
 * run undid): its home and the disks that started there by a move home (with
 * verification), then every disk that started elsewhere to its own
 * datastore, then its power state. */
static int go_home(run *r)
{
	vs_error err = {0};
	vs_vm_layout *l = NULL;
	size_t astray = 0;
	const char **to = NULL;
	int rc = vs_vm_layout_read(r->cl, r->vm_moref, &l, &err) == VS_OK ? NA_EXIT_OK : na_report(&err);
	if (rc == NA_EXIT_OK && !(to = disks_astray(r, l, &astray)))
		rc = fail_line("out of memory");
	if (rc == NA_EXIT_OK && !home_in_place(r, l, to)) {
		rc = move_to(r, NA_MAX_TARGETS, r->home, "fail");
		free(to);
		to = NULL;
		vs_vm_layout_free(&l);
		if (rc == NA_EXIT_OK && vs_vm_layout_read(r->cl, r->vm_moref, &l, &err) != VS_OK)
			rc = na_report(&err);
		if (rc == NA_EXIT_OK)
			to = disks_astray(r, l, &astray);
	}
	vs_datastore *home = datastore_named(r, r->home);
	if (rc == NA_EXIT_OK && astray && home) {
		printf("Moving %zu disk%s of %s back to %s own datastore%s.\n", astray, astray == 1 ? "" : "s",
		       r->c->vm, astray == 1 ? "its" : "their", astray == 1 ? "" : "s");
		fflush(stdout);
		double t0 = now_s();
		if (vs_vm_relocate_disks(r->cl, r->vm_moref, home->moref, l, to, NULL, NULL, &err) != VS_OK) {
			vs_error_context(&err, "moving the disks of %s back", r->c->vm);
			rc = na_report(&err);
		}
		r->t_move += now_s() - t0;
		int reloaded = reload(r);
		rc = rc == NA_EXIT_OK ? reloaded : rc;
	}
	free(to);
	vs_vm_layout_free(&l);
	return rc == NA_EXIT_OK ? restore_power(r) : rc;
}

static int clean_up(run *r)
{
	if (!r->c->cleanup)
		return NA_EXIT_OK;
	printf("Cleaning up:\n");
	int rc = go_home(r);
	if (rc == NA_EXIT_OK)
		rc = mark(r, "home", r->home);
	for (size_t i = 0; rc == NA_EXIT_OK && i < r->c->n_targets; i++) {
		na_target *t = &r->c->targets[i];
		vs_datastore *alt = alternating(r, t) ? datastore_named(r, t->datastore) : NULL;
		if (alt) {
			rc = unmount_all(r, alt);  /* the campaign mounted it: preflight made sure */
			continue;
		}
		char step[160], unstep[160], *detail = NULL;
		snprintf(step, sizeof(step), "mount:%s", t->name);
		snprintf(unstep, sizeof(unstep), "unmount:%s", t->name);
		bool ours = done(r, step, &detail) && detail && !strcmp(detail, "mounted");
		free(detail);
		if (!ours)
			continue;  /* it was there before the campaign; unmounted or not, it is there now */
		vs_error err = {0};
		vs_datastore *d = na_find_datastore(&r->inv, t->datastore, &err);
		vs_host **hosts = calloc(r->inv.n_hosts + 1, sizeof(vs_host *));
		size_t n = 0;
		for (size_t h = 0; d && hosts && h < d->n_mounts; h++)
			if ((hosts[n] = na_host_by_moref(&r->inv, d->mounts[h].host)))
				n++;
		int urc = d && hosts ? na_unmount_everywhere(r->cl, &r->inv, d, hosts, n, false, &err) : VS_OK;
		if (urc != VS_OK)
			vs_error_context(&err, "unmounting %s", t->datastore);
		rc = urc == VS_OK ? mark(r, unstep, "unmounted") : na_report(&err);
		free(hosts);
		if (rc == NA_EXIT_OK)
			rc = reload(r);
	}
	return rc;
}

static void print_time(const run *r)
{
	double total = now_s() - r->t_start;
	double other = total - r->t_move - r->t_bench - r->t_probe;
	printf("Where the time went (%.1f s): Storage vMotion %.1f s, benchmarks %.1f s, probes %.1f s, "
	       "nfsagent and everything else %.1f s (%.1f%%)\n",
	       total, r->t_move, r->t_bench, r->t_probe, other, total > 0 ? 100 * other / total : 0);
}

/* ---- the run ---------------------------------------------------------------------- */

static int claim(run *r)
{
	vs_error err = {0};
	char at[32];
	iso_now(at, sizeof(at), false);
	char *prev = NULL;
	if (na_store_run_unfinished(r->store, r->c->name, &prev, &err) != VS_OK)
		return na_report(&err);
	int rc = NA_EXIT_OK;
	if (prev && !r->o->resume && na_store_run_claim(r->store, prev, r->c->name, r->c->file, at, true,
	                                                 &err) != VS_OK)
		rc = na_report(&err);  /* it is running right now */
	else if (prev && !r->o->resume)
		rc = fail_line("campaign %s has an unfinished run (%s): continue it with --resume",
		               r->c->name, prev);
	else if (!prev && r->o->resume)
		rc = fail_line("campaign %s has no unfinished run to resume", r->c->name);
	if (rc == NA_EXIT_OK && prev)
		snprintf(r->id, sizeof(r->id), "%s", prev);
	if (rc == NA_EXIT_OK && na_store_run_claim(r->store, r->id, r->c->name, r->c->file, at,
	                                           r->o->resume, &err) != VS_OK)
		rc = na_report(&err);
	free(prev);
	return rc;
}

/* What an earlier run of this campaign learned about its targets. */
static void recall(run *r)
{
	for (size_t i = 0; i < r->c->n_targets; i++) {
		char step[160];
		snprintf(step, sizeof(step), "nfs3:%s", r->c->targets[i].name);
		r->nfs3[i] = done(r, step, NULL);
		snprintf(step, sizeof(step), "broken:%s", r->c->targets[i].name);
		r->broken[i] = done(r, step, NULL);
	}
}

/* A target the bug stopped is the campaign's finding: exit 3, as migrate. */
static int verdict(const run *r, int rc)
{
	for (size_t i = 0; rc == NA_EXIT_OK && i < r->c->n_targets; i++)
		if (r->broken[i])
			rc = NA_EXIT_FINDING;
	return rc;
}

static int execute(run *r)
{
	int rc = remember_start(r);
	recall(r);
	for (size_t i = 0; rc == NA_EXIT_OK && i < r->c->n_targets && !na_stop_requested; i++)
		rc = mount_target(r, &r->c->targets[i]);
	for (size_t i = 0; rc == NA_EXIT_OK && i < r->c->n_targets && !na_stop_requested; i++)
		rc = probe_target(r, &r->c->targets[i]);
	if (rc == NA_EXIT_OK)
		rc = rounds(r);
	if (na_stop_requested) {
		set_state(r, "stopped");
		na_error("stopped: every finished step is kept; continue with nfsagent run %s --resume",
		         r->c->file);
		return NA_EXIT_FAIL;
	}
	int cleaned = clean_up(r);
	if (rc == NA_EXIT_OK)
		rc = cleaned;
	set_state(r, rc == NA_EXIT_OK ? "done" : "stopped");
	return verdict(r, rc);
}

static char *guest_password(const na_campaign *c)
{
	if (c->guest_password_file)
		return na_read_secret(c->guest_password_file);
	const char *env = getenv("NFSAGENT_GUEST_PASSWORD");
	return env ? strdup(env) : NULL;
}

int na_campaign_run(na_campaign *c, const na_run_options *o)
{
	run r = {.c = c, .o = o, .t_start = now_s()};
	char stamp[32];
	iso_now(stamp, sizeof(stamp), true);
	snprintf(r.id, sizeof(r.id), "%s-%s", c->name, stamp);
	if (!(r.password = guest_password(c)))
		return fail_line("no guest password: set NFSAGENT_GUEST_PASSWORD or guest_password_file");
	vs_error err = {0};
	int rc = na_store_open(o->db, &r.store, &err) == VS_OK ? NA_EXIT_OK : na_report(&err);
	if (rc == NA_EXIT_OK)
		rc = na_conn_open(o->conn, &r.cl);
	if (rc == NA_EXIT_OK)
		rc = preflight(&r);
	if (rc == NA_EXIT_OK && o->resume) {
		char *prev = NULL;
		if (na_store_run_unfinished(r.store, c->name, &prev, &err) != VS_OK)
			rc = na_report(&err);
		if (prev)
			snprintf(r.id, sizeof(r.id), "%s", prev);
		free(prev);
	}
	if (rc == NA_EXIT_OK)
		print_plan(&r, the_vm(&r));
	if (rc == NA_EXIT_OK && !o->dry_run && (rc = claim(&r)) == NA_EXIT_OK) {
		na_interrupts saved;
		na_interrupts_catch(&saved);
		rc = execute(&r);
		na_interrupts_release(&saved);
		na_campaign_print_summary(r.store, c, r.id);
		print_time(&r);
	}
	vs_disconnect(&r.cl);
	na_inventory_free(&r.inv);
	na_store_close(&r.store);
	free(r.vm_moref);
	free(r.home);
	free(r.password);
	return rc;
}
