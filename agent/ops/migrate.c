/* The migrate workflow (ops/migrate.h): Storage vMotion of a VM's home and
 * all its disks, then verify; on failure, diagnose, and if it is the NFS 4.1
 * extent-size bug, apply the chosen workaround once. */
#include <stdlib.h>
#include <string.h>

#include "ops/findings.h"
#include "ops/migrate.h"
#include "ops/mount.h"
#include "ops/unmount.h"
#include "ops/verify.h"
#include "interrupts.h"

typedef struct migration {
	na_session *s;
	vs_client *c;             /* s->client */
	na_inventory *inv;        /* s->inv */
	const na_migrate_args *a;
	na_migrate_result *out;
	vs_vm *vm;
	vs_datastore *target;
	char *vm_moref;           /* survives inventory reloads */
	char *failed_folder;      /* the VM's folder name, once a move to the target failed */
} migration;

/* A fault beside the op's own error (an undo that failed), as a warning;
 * what (may be NULL) says what was being done when e does not. */
static void warn_error(const na_session *s, const char *what, const vs_error *e)
{
	char line[1600];
	vs_error_format(e, line, sizeof(line));
	na_say_warning(s, "%s%s%s", what ? what : "", what ? ": " : "", line);
}

/* (Re)reads the inventory and finds the VM and the target in it. */
static int resolve(migration *m, vs_error *err)
{
	/* The VM's own entry is read again each time: a move changes it. */
	int rc = m->vm_moref ? na_inventory_refresh(m->c, m->inv, m->vm_moref, err)
	                     : na_session_fresh(m->s, err);
	if (rc != VS_OK)
		return rc;
	m->s->stale = false;
	m->vm = NULL;
	for (size_t i = 0; m->vm_moref && i < m->inv->n_vms; i++)
		if (strcmp(m->inv->vms[i].moref, m->vm_moref) == 0)
			m->vm = &m->inv->vms[i];
	if (m->vm_moref && !m->vm)
		return vs_fail(err, VS_ERR_NOT_FOUND, "VM %s is gone from the inventory", m->a->vm);
	if (!m->vm && !(m->vm = na_find_vm(m->inv, m->a->vm, err)))
		return VS_ERR_NOT_FOUND;
	if (!(m->target = na_find_datastore(m->inv, m->a->datastore, err)))
		return VS_ERR_NOT_FOUND;
	if (!m->vm_moref && !(m->vm_moref = strdup(m->vm->moref)))
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	if (!na_mounted_on(m->target, m->vm->host))
		return vs_fail(err, VS_ERR_USAGE, "datastore '%s' is not mounted on host '%s', where %s runs",
		               m->target->name, na_host_name(m->inv, m->vm->host), m->vm->name);
	return VS_OK;
}

void na_migrate_diagnose(na_session *s, const na_migrate_args *a, const vs_vm *vm,
                         const char *log_dir, const vs_datastore *target,
                         const na_attempt *attempt, vs_error *task_err, na_diagnosis *d)
{
	na_diagnosis_free(d);
	na_diagnose_move(s->client, s->inv, vm, log_dir, target, attempt, task_err, d);
	na_say(s, "Storage vMotion of %s to %s failed; what was seen:", vm->name, target->name);
	for (size_t i = 0; i < d->n_evidence; i++)
		na_say(s, "  %s", d->evidence[i]);
	na_finding_source src = {"migration", a->campaign, a->target, na_host_by_moref(s->inv, vm->host),
	                         target, vm->name};
	vs_error rec = {0};
	if (src.host && na_record_finding(s->store, a->db, &src, d->extent_bug, d->extent_case,
	                                  d->verdict, d->evidence, d->n_evidence, &rec) != VS_OK)
		warn_error(s, "the verdict was not recorded", &rec);
	vs_error task = *task_err;
	if (d->extent_bug && d->verdict) {
		vs_fail(task_err, VS_ERR_TASK, "%s", d->verdict);
		return;
	}
	vs_fail(task_err, VS_ERR_TASK, "%s%s(not the extent-size bug)", task.message,
	        task.message[0] ? " " : "");
	snprintf(task_err->fault, sizeof(task_err->fault), "%s", task.fault);
}

static int move(migration *m, vs_error *err)
{
	vs_vm_layout *layout = NULL;
	int rc = vs_vm_layout_read_moving(m->c, m->vm->moref, &layout, err);
	char what[256];
	snprintf(what, sizeof(what), "Relocating %s to %s", m->vm->name, m->target->name);
	na_attempt attempt = {0};
	if (rc == VS_OK)
		na_attempt_begin(m->c, m->inv, m->vm, m->target, &attempt);
	na_progress *p = m->s->progress;
	if (p)
		na_progress_init(p, what);
	/* A Storage vMotion is not cancelled halfway: the stop comes after it. */
	na_interrupts_note("letting the running Storage vMotion finish");
	if (rc == VS_OK)
		rc = vs_vm_relocate_disks(m->c, m->vm->moref, m->target->moref, layout,
		                          m->a->disk_datastores, p ? na_progress_cb : NULL, p, err);
	na_interrupts_note(NULL);
	if (p)
		na_progress_done(p);
	m->s->stale = true;
	if (rc == VS_ERR_TASK)
		na_migrate_diagnose(m->s, m->a, m->vm, layout->log_directory, m->target, &attempt, err,
		                    &m->out->diag);
	if (rc == VS_ERR_TASK && attempt.folder && !m->failed_folder)
		m->failed_folder = strdup(attempt.folder);
	if (rc != VS_OK)
		vs_error_context(err, "Storage vMotion of %s to %s", m->vm->name, m->target->name);
	na_attempt_free(&attempt);
	vs_vm_layout_free(&layout);
	return rc;
}

/* ---- workarounds ----------------------------------------------------------- */

/* Whether the mount op left NFS 3 on hosts[i] (it could not undo it). */
static bool nfs3_left(const na_mount_result *nfs3, size_t i)
{
	return i < nfs3->n_hosts && nfs3->hosts[i].outcome == NA_MOUNT_MOUNTED;
}

/* A remount that failed partway: the mount op took its NFS 3 mounts back
 * already (all or nothing); the hosts the unmount let go get the original
 * mount back.  Never NFS 4.1 while NFS 3 stays on a host (mixing the two
 * corrupts data).  Whatever cannot be put back, each host's mount is named. */
static void put_back(migration *m, const vs_datastore *t, vs_host **hosts, size_t n,
                     const bool *read_only, bool *unmounted, const na_mount_result *nfs3)
{
	size_t left = 0, lost = 0, n_servers = 0;
	for (size_t i = 0; i < n; i++)
		left += nfs3_left(nfs3, i);
	na_say(m->s, "The remount failed; putting %s back as %s.", t->name, na_nfs_label(t->type));
	char *list = t->remote_host ? strdup(t->remote_host) : NULL;
	char **servers = list ? na_split_servers(list, &n_servers) : NULL;
	vs_nas_spec spec = {.name = t->name, .servers = (const char *const *)servers,
	                    .path = t->remote_path, .type = t->type, .security = t->security};
	for (size_t i = 0; servers && !left && i < n; i++) {
		if (!unmounted[i])
			continue;
		char *moref = NULL;
		vs_error err = {0};
		spec.read_only = read_only[i];
		if (vs_nas_mount(m->c, hosts[i], &spec, &moref, &err) == VS_OK) {
			na_say(m->s, "%s: mounted %s again (%s %s:%s)", hosts[i]->name, t->name, na_nfs_label(t->type),
			       t->remote_host, t->remote_path);
			unmounted[i] = false;
		} else {
			warn_error(m->s, NULL, &err);  /* it names the host */
		}
		free(moref);
	}
	for (size_t i = 0; i < n; i++) {
		if (nfs3_left(nfs3, i))
			na_say_warning(m->s, "%s has %s as NFS 3 now (it had %s)", hosts[i]->name, t->name,
			               na_nfs_label(t->type));
		else if (unmounted[i])
			na_say_warning(m->s, "%s has no mount of %s now (it had %s)", hosts[i]->name, t->name,
			               na_nfs_label(t->type));
		lost += nfs3_left(nfs3, i) || unmounted[i];
	}
	if (lost)
		na_say_warning(m->s, "%zu of %zu hosts are not as they were; the other hosts have %s as %s",
		               lost, n, t->name, na_nfs_label(t->type));
	else
		na_say(m->s, "Put %s back as %s on %zu host%s.", t->name, na_nfs_label(t->type), n,
		       na_s(n));
	free(servers);
	free(list);
}

/* What put_back needs of the target: the ops read the datastores again
 * after the unmount, and the target's entry goes with them. */
static int keep_target(const vs_datastore *t, vs_datastore *copy, vs_error *err)
{
	*copy = (vs_datastore){0};
	copy->name = strdup(t->name);
	copy->type = strdup(t->type);
	copy->remote_host = t->remote_host ? strdup(t->remote_host) : NULL;
	copy->remote_path = t->remote_path ? strdup(t->remote_path) : NULL;
	copy->security = t->security ? strdup(t->security) : NULL;
	if (copy->name && copy->type && !t->remote_host == !copy->remote_host &&
	    !t->remote_path == !copy->remote_path && !t->security == !copy->security)
		return VS_OK;
	vs_datastore_clear(copy);
	return vs_fail(err, VS_ERR_NOMEM, "out of memory");
}

/* Unmounts the NFS 4.1 target from the hosts that mount it, and mounts its
 * export (first server) as NFS 3 on them, each read-only as it was. */
static int remount_hosts(migration *m, const vs_datastore *was, vs_host **hosts, size_t n,
                         const bool *read_only, bool *unmounted, vs_error *err)
{
	char *server = strndup(was->remote_host, strcspn(was->remote_host, ","));
	const char *servers[] = {server, NULL};
	na_mount_args a = {.hosts = hosts, .read_only = read_only, .n_hosts = n,
	                   .spec = {.name = was->name, .servers = servers, .path = was->remote_path,
	                            .type = "NFS"}};
	na_unmount_result un = {0};
	na_mount_result nfs3 = {0};
	int rc = server ? na_op_unmount(m->s, was->name, hosts, n, &un, err)
	                : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < un.n_hosts; i++)
		unmounted[i] = un.hosts[i].outcome == NA_UNMOUNT_UNMOUNTED;
	if (rc == VS_OK) {
		/* The mount op reads the datastores again: the target's entry goes
		 * (resolve finds it anew). */
		m->target = NULL;
		rc = na_op_mount(m->s, &a, &nfs3, err);
	}
	bool changed = false;
	for (size_t i = 0; rc != VS_OK && i < n; i++)
		changed |= unmounted[i];
	if (changed)
		put_back(m, was, hosts, n, read_only, unmounted, &nfs3);
	na_unmount_result_free(&un);
	na_mount_result_free(&nfs3);
	free(server);
	return rc;
}

static int remount_nfs3(migration *m, vs_error *err)
{
	const vs_datastore *t = m->target;
	/* err still tells of the failed move, diagnosed already: the remount's
	 * refusals and faults are told as themselves. */
	*err = (vs_error){0};
	if (!t->type || strcmp(t->type, "NFS41") != 0)
		return vs_fail(err, VS_ERR_USAGE, "'%s' is %s already; remounting as NFS 3 changes nothing",
		               t->name, na_nfs_label(t->type));
	if (!t->remote_host)
		return vs_fail(err, VS_ERR_PROTOCOL, "'%s' has no NFS server", t->name);
	vs_host **hosts = calloc(t->n_mounts + 1, sizeof(vs_host *));
	bool *read_only = calloc(t->n_mounts + 1, sizeof(bool));
	bool *unmounted = calloc(t->n_mounts + 1, sizeof(bool));
	size_t n = 0;
	for (size_t i = 0; hosts && read_only && i < t->n_mounts; i++) {
		const char *mode = t->mounts[i].access_mode;
		read_only[n] = mode && strcmp(mode, "readOnly") == 0;
		if ((hosts[n] = na_host_by_moref(m->inv, t->mounts[i].host)))
			n++;
	}
	vs_datastore was;
	int rc = !hosts || !read_only || !unmounted ? vs_fail(err, VS_ERR_NOMEM, "out of memory")
	                                            : keep_target(t, &was, err);
	/* A remount that would be refused is one refusal, not a start (the
	 * unmount op checks again: the world may change in between). */
	if (rc == VS_OK && na_unmount_check(m->c, m->inv, t, hosts, n, err) != VS_OK) {
		vs_error_context(err, "remounting %s as NFS 3", t->name);
		rc = err->status;
		vs_datastore_clear(&was);
	} else if (rc == VS_OK) {
		na_say(m->s, "Remounting %s (%.*s:%s) as NFS 3 on %zu host%s.", t->name,
		       (int)strcspn(t->remote_host, ","), t->remote_host, t->remote_path ? t->remote_path : "?",
		       n, na_s(n));
		rc = remount_hosts(m, &was, hosts, n, read_only, unmounted, err);
		vs_datastore_clear(&was);
	}
	free(unmounted);
	free(read_only);
	free(hosts);
	return rc == VS_OK ? resolve(m, err) : rc;
}

static int with_snapshot(migration *m, vs_error *err)
{
	char *snapshot = NULL;
	na_say(m->s, "Taking a snapshot of %s and retrying.", m->vm->name);
	int rc = vs_vm_snapshot_create(m->c, m->vm->moref, "nfsagent-svmotion", &snapshot, err);
	if (rc != VS_OK)
		return rc;
	rc = move(m, err);
	vs_error rm_err = {0};
	if (vs_vm_snapshot_remove(m->c, snapshot, &rm_err) != VS_OK) {
		warn_error(m->s, "removing the snapshot", &rm_err);
		na_say_warning(m->s, "snapshot 'nfsagent-svmotion' of %s remains; remove it by hand",
		               m->vm->name);
	} else {
		na_say(m->s, "Removed the snapshot 'nfsagent-svmotion' of %s.", m->vm->name);
	}
	free(snapshot);
	return rc;
}

static int cold(migration *m, vs_error *err)
{
	bool was_on = m->vm->power_state && strcmp(m->vm->power_state, "poweredOn") == 0;
	vs_error no_tools = {0};  /* a guest without Tools running is not waited for afterwards */
	bool had_tools = was_on && vs_guest_check(m->c, m->vm->moref, &no_tools) == VS_OK;
	na_say(m->s, "Powering %s off for a cold migration.", m->vm->name);
	int rc = was_on ? vs_vm_power_off(m->c, m->vm->moref, NULL, NULL, err) : VS_OK;
	m->s->power_cycled |= was_on && rc == VS_OK;  /* on again or not, its guest was off */
	if (rc == VS_OK)
		rc = move(m, err);
	vs_error on_err = {0};
	/* Power it back on even when the move failed: back where it was. */
	if (was_on && vs_vm_power_on(m->c, m->vm_moref, NULL, NULL, &on_err) != VS_OK) {
		warn_error(m->s, "powering it on", &on_err);
		na_say_warning(m->s, "%s is powered off", m->a->vm);
	} else if (was_on) {
		na_say(m->s, "Powered %s back on.", m->a->vm);
		/* What comes next (a benchmark) needs the guest up as it was. */
		vs_error tools = {0};
		if (had_tools && na_wait_for_tools(m->s, m->vm_moref, m->a->vm, &tools) != VS_OK)
			warn_error(m->s, "VMware Tools did not come up", &tools);
	}
	m->s->stale = true;
	return rc;
}

static int work_around(migration *m, vs_error *err)
{
	const char *p = m->a->policy;
	m->out->workaround = p;
	if (strcmp(p, "nfs3") == 0) {
		int rc = remount_nfs3(m, err);
		return rc == VS_OK ? move(m, err) : rc;
	}
	if (strcmp(p, "snapshot") == 0)
		return with_snapshot(m, err);
	return cold(m, err);
}

/* ---- the whole procedure ------------------------------------------------------- */

/* Disks sent each to its own datastore are not all with the home: their
 * caller moves them only when one is astray. */
static bool already_there(const migration *m)
{
	return !m->a->disk_datastores && m->vm->n_datastores == 1 &&
	       strcmp(m->vm->datastores[0], m->target->moref) == 0;
}

static int migrate(migration *m, vs_error *err)
{
	if ((m->out->already_there = already_there(m))) {
		na_say(m->s, "%s is on %s already.", m->vm->name, m->target->name);
		return VS_OK;
	}
	/* A fleet's move that hit the bug is not made again before the workaround. */
	int rc = m->a->bug_seen ? VS_ERR_TASK : move(m, err);
	m->out->diag.extent_bug |= m->a->bug_seen;
	if (rc == VS_ERR_TASK && m->out->diag.extent_bug && strcmp(m->a->policy, "fail") != 0) {
		/* a fleet's VM not moved again has no verdict of its own */
		na_say(m->s, "%s: working around it (--on-extent-bug %s).",
		       err->message[0] ? err->message : "the NFS 4.1 extent-size bug", m->a->policy);
		rc = work_around(m, err);
	} else if (rc == VS_ERR_TASK && m->out->diag.extent_bug) {
		na_say(m->s, m->a->campaign ? "To move it all the same, set on_extent_bug = nfs3 in the "
		                              "target's section (NFS 3 for the move), or snapshot or cold."
		                            : "To move it all the same: --on-extent-bug nfs3 (NFS 3 for the "
		                              "move), snapshot, or cold with --allow-power-off.");
	}
	if (rc == VS_OK) {
		na_say(m->s, "Moved %s to %s%s.", m->vm->name, m->target->name,
		       m->out->workaround ? " after the workaround" : "");
		rc = na_op_verify(m->s, m->vm, NA_RECHECK_DEFAULT_S, &m->out->checks, err);
	}
	return rc;
}


/* The copies the failed moves left on the target, read once all is done
 * (the VM's entry read again first, by where_now unless that failed: a
 * retry's folder is its home now). */
static void list_leftovers(migration *m)
{
	vs_error e = {0};
	vs_datastore *target = NULL;
	int rc = m->s->stale ? na_inventory_refresh(m->c, m->inv, m->vm_moref, &e) : VS_OK;
	if (rc == VS_OK && !(target = na_find_datastore(m->inv, m->a->datastore, &e)))
		rc = VS_ERR_NOT_FOUND;
	m->s->stale = false;
	if (rc == VS_OK)
		rc = na_move_leftovers(m->c, m->inv, target, m->failed_folder, &m->out->leftovers, &e);
	if (rc != VS_OK)
		warn_error(m->s, "listing what the failed move left", &e);
}

/* The VM as it is now, with the datastores, in one read: the session's
 * inventory is current afterwards (not stale), whatever the op changed. */
static int where_now(migration *m, vs_error *err)
{
	int rc = na_inventory_refresh(m->c, m->inv, m->vm_moref, err);
	const vs_vm *vm = NULL;
	for (size_t i = 0; rc == VS_OK && i < m->inv->n_vms; i++)
		if (strcmp(m->inv->vms[i].moref, m->vm_moref) == 0)
			vm = &m->inv->vms[i];
	if (rc == VS_OK)
		m->s->stale = false;
	if (rc == VS_OK && !vm)  /* an inventory read without VMs: the VM alone */
		return vs_vm_lookup(m->c, m->vm_moref, &m->out->now, err);
	if (rc == VS_OK && !(m->out->now = vs_vm_dup(vm)))
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	return rc;
}

int na_op_migrate(na_session *s, const na_migrate_args *a, na_migrate_result *out, vs_error *err)
{
	*out = (na_migrate_result){0};
	migration m = {.s = s, .c = s->client, .inv = s->inv, .a = a, .out = out};
	int rc = a->vm_moref && !(m.vm_moref = strdup(a->vm_moref))
	                 ? vs_fail(err, VS_ERR_NOMEM, "out of memory")
	                 : resolve(&m, err);
	if (rc == VS_OK)
		rc = migrate(&m, err);
	out->moved = rc == VS_OK;
	/* Where the VM is in the end, whatever happened: read again. */
	vs_error where = {0};
	if (m.vm_moref && where_now(&m, &where) != VS_OK)
		warn_error(s, "reading where the VM is", &where);
	if (m.failed_folder)
		list_leftovers(&m);
	free(m.failed_folder);
	free(m.vm_moref);
	return rc;
}

na_verdict na_migrate_verdict(const na_migrate_result *r, int rc)
{
	return rc == VS_OK          ? na_verify_verdict(&r->checks)
	       : r->diag.extent_bug ? NA_VERDICT_FINDING
	                            : NA_VERDICT_CLEAN;
}

void na_migrate_result_free(na_migrate_result *r)
{
	na_checks_free(&r->checks);
	na_diagnosis_free(&r->diag);
	vs_vm_free(&r->now);
	na_leftovers_free(&r->leftovers);
}
