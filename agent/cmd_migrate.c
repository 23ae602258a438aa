/* nfsagent migrate: Storage vMotion of a VM's home and all its disks, then
 * verify; on failure, diagnose, and if it is the NFS 4.1 extent-size bug,
 * apply the chosen workaround once.  Whatever happens, the last line says
 * where the VM is.  Several VMs (or every VM on a datastore) move one after
 * the other, each verified before the next starts. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "ops/mount.h"
#include "ops/unmount.h"

static const char usage[] =
	"Usage: nfsagent migrate --vm VM [--vm VM2 ...] --datastore DS\n"
	"                        [--on-extent-bug POLICY] [--allow-power-off]\n"
	"                        [--keep-going] [--dry-run] [OPTIONS]\n"
	"       nfsagent migrate --from-datastore OLD --datastore DS [...]\n"
	"Storage-vMotions VM (configuration and every disk) to DS, then verifies every\n"
	"disk. Several VMs, or every VM with files on OLD (by name), move one at a time;\n"
	"the first failure stops the rest unless --keep-going, and the extent-size bug\n"
	"always stops them. A summary says where each VM is. --dry-run checks every name\n"
	"and host and lists what would move, changing nothing.\n"
	"When a move fails it says why; on the NFS 4.1 extent-size bug POLICY is\n"
	"  fail      stop (default; exit 3)\n"
	"  nfs3      remount DS as NFS 3 on the hosts that mount it (only if no VM lives\n"
	"            there) and retry once\n"
	"  snapshot  take a snapshot, retry, remove the snapshot\n"
	"  cold      power the VM off, migrate, power it on (needs --allow-power-off)\n"
	"A failed move's verdict is recorded in the results database (--db FILE).\n\n"
	NA_CONNECT_HELP;

enum {
	OPT_VM = NA_OPT_FIRST_COMMAND_OPTION, OPT_DATASTORE, OPT_POLICY, OPT_ALLOW_OFF, OPT_DB,
	OPT_FROM, OPT_KEEP_GOING, OPT_DRY_RUN
};

typedef struct migrate_cmd {
	na_migrate_args one;  /* policy, target and database; .vm is the VM of the moment */
	const char **vms;     /* --vm, as given */
	size_t n_vms;
	const char *from;     /* --from-datastore */
	bool keep_going, dry_run;
} migrate_cmd;


typedef struct migration {
	vs_client *c;
	const na_migrate_args *a;
	bool json;
	na_inventory own, *inv; /* own, or the caller's (a->inv) */
	vs_vm *vm;
	vs_datastore *target;
	char *vm_moref;          /* survives inventory reloads */
	na_diagnosis diag;
	const char *workaround;  /* the policy applied, if any */
	bool already_there;
	na_checks checks;
} migration;

static int add_vm(migrate_cmd *a, const char *name)
{
	const char **grown = realloc(a->vms, (a->n_vms + 1) * sizeof(*grown));
	if (!grown)
		return -NA_EXIT_FAIL;
	a->vms = grown;
	a->vms[a->n_vms++] = name;
	return 1;
}

static int on_option(int opt, const char *arg, void *ud)
{
	migrate_cmd *a = ud;
	switch (opt) {
	case OPT_VM: return add_vm(a, arg);
	case OPT_DATASTORE: a->one.datastore = arg; return 1;
	case OPT_POLICY: a->one.policy = arg; return 1;
	case OPT_ALLOW_OFF: a->one.allow_power_off = true; return 1;
	case OPT_DB: a->one.db = arg; return 1;
	case OPT_FROM: a->from = arg; return 1;
	case OPT_KEEP_GOING: a->keep_going = true; return 1;
	case OPT_DRY_RUN: a->dry_run = true; return 1;
	default: return 0;
	}
}

static void say(const migration *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const migration *m, const char *fmt, ...)
{
	if (m->json)
		return;
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

/* (Re)reads the inventory and finds the VM and the target in it. */
static int resolve(migration *m, vs_error *err)
{
	int rc;
	if (m->a->inv && m->vm_moref) {
		m->inv = m->a->inv;
		rc = na_inventory_refresh(m->c, m->inv, m->vm_moref, err);
	} else {
		na_inventory_free(&m->own);
		m->inv = &m->own;
		rc = na_inventory_load(m->c, true, m->inv, err);
	}
	if (rc != VS_OK)
		return rc;
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

static int move(migration *m, vs_error *err)
{
	vs_vm_layout *layout = NULL;
	int rc = vs_vm_layout_read(m->c, m->vm->moref, &layout, err);
	char what[256];
	snprintf(what, sizeof(what), "Relocating %s to %s", m->vm->name, m->target->name);
	na_attempt attempt = {0};
	if (rc == VS_OK)
		na_attempt_begin(m->c, m->inv, m->vm, m->target, &attempt);
	na_progress p;
	na_progress_init(&p, what);
	/* A Storage vMotion is not cancelled halfway: the stop comes after it. */
	na_interrupts_note("letting the running Storage vMotion finish");
	if (rc == VS_OK)
		rc = vs_vm_relocate(m->c, m->vm->moref, m->target->moref, layout, na_progress_cb, &p, err);
	na_interrupts_note(NULL);
	na_progress_done(&p);
	if (rc == VS_ERR_TASK) {
		na_diagnosis_free(&m->diag);
		na_diagnose_move(m->c, m->inv, m->vm, layout->log_directory, m->target, &attempt, err,
		                 &m->diag);
		say(m, "Storage vMotion of %s to %s failed.", m->vm->name, m->target->name);
		if (!m->json)
			na_diagnosis_print(&m->diag, stdout);
		na_finding_source src = {"migration", m->a->campaign, m->a->target,
		                         na_host_by_moref(m->inv, m->vm->host),
		                         m->target, m->vm->name};
		vs_error rec = {0};
		if (src.host && na_record_finding(NULL, m->a->db, &src, m->diag.extent_bug,
		                                  m->diag.extent_case, m->diag.verdict, m->diag.evidence,
		                                  m->diag.n_evidence, &rec) != VS_OK)
			na_warn("the verdict was not recorded: %s", rec.message);
	}
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
	say(m, "The remount failed; putting %s back as %s.", t->name, na_nfs_label(t->type));
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
			say(m, "%s: mounted %s again (%s %s:%s)", hosts[i]->name, t->name, na_nfs_label(t->type),
			    t->remote_host, t->remote_path);
			unmounted[i] = false;
		} else {
			na_report(&err);
		}
		free(moref);
	}
	for (size_t i = 0; i < n; i++) {
		if (nfs3_left(nfs3, i))
			na_warn("%s has %s as NFS 3 now (it had %s)", hosts[i]->name, t->name,
			        na_nfs_label(t->type));
		else if (unmounted[i])
			na_warn("%s has no mount of %s now (it had %s)", hosts[i]->name, t->name,
			        na_nfs_label(t->type));
		lost += nfs3_left(nfs3, i) || unmounted[i];
	}
	if (lost)
		na_warn("%zu of %zu hosts are not as they were; the other hosts have %s as %s", lost, n,
		        t->name, na_nfs_label(t->type));
	else
		say(m, "Put %s back as %s on %zu host%s.", t->name, na_nfs_label(t->type), n,
		    n == 1 ? "" : "s");
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
	na_session s = {.client = m->c, .inv = m->inv, .output = m->json ? NULL : na_print_line,
	                .warning = na_print_warning};
	char *server = strndup(was->remote_host, strcspn(was->remote_host, ","));
	const char *servers[] = {server, NULL};
	na_mount_args a = {.hosts = hosts, .read_only = read_only, .n_hosts = n,
	                   .spec = {.name = was->name, .servers = servers, .path = was->remote_path,
	                            .type = "NFS"}};
	na_unmount_result un = {0};
	na_mount_result nfs3 = {0};
	int rc = server ? na_op_unmount(&s, was->name, hosts, n, &un, err)
	                : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < un.n_hosts; i++)
		unmounted[i] = un.hosts[i].outcome == NA_UNMOUNT_UNMOUNTED;
	if (rc == VS_OK) {
		/* The mount op reads the datastores again: the target's entry goes
		 * (resolve finds it anew). */
		m->target = NULL;
		rc = na_op_mount(&s, &a, &nfs3, err);
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
		say(m, "Remounting %s (%.*s:%s) as NFS 3 on %zu host%s.", t->name,
		    (int)strcspn(t->remote_host, ","), t->remote_host, t->remote_path ? t->remote_path : "?",
		    n, n == 1 ? "" : "s");
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
	say(m, "Taking a snapshot of %s and retrying.", m->vm->name);
	int rc = vs_vm_snapshot_create(m->c, m->vm->moref, "nfsagent-svmotion", &snapshot, err);
	if (rc != VS_OK)
		return rc;
	rc = move(m, err);
	vs_error rm_err = {0};
	if (vs_vm_snapshot_remove(m->c, snapshot, &rm_err) != VS_OK) {
		na_report(&rm_err);
		na_warn("snapshot 'nfsagent-svmotion' of %s remains; remove it by hand", m->vm->name);
	} else {
		say(m, "Removed the snapshot 'nfsagent-svmotion' of %s.", m->vm->name);
	}
	free(snapshot);
	return rc;
}

static int cold(migration *m, vs_error *err)
{
	bool was_on = m->vm->power_state && strcmp(m->vm->power_state, "poweredOn") == 0;
	say(m, "Powering %s off for a cold migration.", m->vm->name);
	int rc = was_on ? vs_vm_power_off(m->c, m->vm->moref, NULL, NULL, err) : VS_OK;
	if (rc == VS_OK)
		rc = move(m, err);
	vs_error on_err = {0};
	/* Power it back on even when the move failed: back where it was. */
	if (was_on && vs_vm_power_on(m->c, m->vm_moref, NULL, NULL, &on_err) != VS_OK) {
		na_report(&on_err);
		na_warn("%s is powered off", m->a->vm);
	}
	say(m, "Powered %s back on.", m->a->vm);
	return rc;
}

static int work_around(migration *m, vs_error *err)
{
	const char *p = m->a->policy;
	m->workaround = p;
	if (strcmp(p, "nfs3") == 0) {
		int rc = remount_nfs3(m, err);
		return rc == VS_OK ? move(m, err) : rc;
	}
	if (strcmp(p, "snapshot") == 0)
		return with_snapshot(m, err);
	return cold(m, err);
}

/* ---- the whole procedure ------------------------------------------------------- */

static bool already_there(const migration *m)
{
	return m->vm->n_datastores == 1 && strcmp(m->vm->datastores[0], m->target->moref) == 0;
}

static void where_is(migration *m, json_t *out)
{
	vs_vm *now = NULL;
	vs_error err = {0};
	if (vs_vm_lookup(m->c, m->vm_moref, &now, &err) != VS_OK) {
		na_report(&err);
		return;
	}
	json_t *ds = json_array();
	char names[512] = "";
	size_t len = 0;
	for (size_t i = 0; i < now->n_datastores; i++) {
		vs_datastore *d = na_datastore_by_moref(m->inv, now->datastores[i]);
		const char *name = d ? d->name : now->datastores[i];
		json_array_append_new(ds, json_string(name));
		if (len < sizeof(names))
			len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", i ? ", " : "", name);
	}
	const char *host = na_host_name(m->inv, now->host);
	say(m, "%s is on datastore %s (host %s), %s.", now->name, names, host, now->power_state);
	json_object_set_new(out, "location", json_pack("{s:o, s:s, s:s}", "datastores", ds, "host", host,
	                                               "power_state", now->power_state));
	vs_vm_free(&now);
}

static int migrate(migration *m, vs_error *err)
{
	if ((m->already_there = already_there(m))) {
		say(m, "%s is on %s already.", m->vm->name, m->target->name);
		return VS_OK;
	}
	int rc = move(m, err);
	if (rc == VS_ERR_TASK && m->diag.extent_bug && strcmp(m->a->policy, "fail") != 0) {
		say(m, "Working around it (--on-extent-bug %s).", m->a->policy);
		rc = work_around(m, err);
	}
	if (rc == VS_OK) {
		say(m, "Moved %s to %s%s.", m->vm->name, m->target->name,
		    m->workaround ? " after the workaround" : "");
		rc = na_verify_vm(m->c, m->inv, m->vm, NA_RECHECK_DEFAULT_S, &m->checks, err);
		if (rc == VS_OK && !m->json)
			na_verify_report(m->vm->name, &m->checks);
	}
	return rc;
}

/* One VM; its JSON record goes to *record. */
static int migrate_one(vs_client *c, const na_migrate_args *a, bool json, json_t **record)
{
	migration m = {.c = c, .a = a, .json = json};
	vs_error err = {0};
	int rc = a->vm_moref && !(m.vm_moref = strdup(a->vm_moref))
	                 ? vs_fail(&err, VS_ERR_NOMEM, "out of memory")
	                 : resolve(&m, &err);
	if (rc == VS_OK)
		rc = migrate(&m, &err);
	int code = rc == VS_OK ? na_verify_exit(&m.checks)
	           : m.diag.extent_bug ? NA_EXIT_FINDING : na_exit_code(&err);
	if (rc != VS_OK && !(rc == VS_ERR_TASK && m.diag.verdict))
		na_report(&err);
	json_t *out = json_pack("{s:s, s:s, s:b, s:b, s:s?}", "vm", a->vm, "datastore", a->datastore,
	                        "moved", rc == VS_OK, "already_there", m.already_there,
	                        "workaround", m.workaround);
	if (m.diag.verdict)
		json_object_set_new(out, "diagnosis", na_diagnosis_json(&m.diag));
	if (m.checks.n)
		json_object_set_new(out, "verify", na_checks_json(&m.checks));
	if (rc != VS_OK)
		json_object_set_new(out, "error", json_pack("{s:s, s:s}", "fault", err.fault,
		                                            "message", err.message));
	if (m.vm_moref)
		where_is(&m, out);
	*record = out;
	na_checks_free(&m.checks);
	na_diagnosis_free(&m.diag);
	na_inventory_free(&m.own);
	free(m.vm_moref);
	return code;
}

int na_migrate(vs_client *c, const na_migrate_args *a, bool json)
{
	json_t *record = NULL;
	int code = migrate_one(c, a, json, &record);
	if (json)
		na_json_print(record);
	else
		json_decref(record);
	return code;
}

/* ---- several VMs ------------------------------------------------------------ */

static int by_name(const void *a, const void *b)
{
	return strcmp((*(const vs_vm *const *)a)->name, (*(const vs_vm *const *)b)->name);
}

static bool has_datastore(const vs_vm *vm, const char *moref)
{
	for (size_t d = 0; d < vm->n_datastores; d++)
		if (strcmp(vm->datastores[d], moref) == 0)
			return true;
	return false;
}

/* Adds vm unless it is in the list already (named twice). */
static void add_once(const vs_vm **vms, size_t *n, const vs_vm *vm)
{
	for (size_t i = 0; i < *n; i++)
		if (vms[i] == vm)
			return;
	vms[(*n)++] = vm;
}

/* The VMs to move: --vm as given (each resolved, near matches named), or
 * every VM with files on --from-datastore, by name.  Every VM's host must
 * mount the target: all checked before anything moves. */
static int batch_vms(const na_inventory *inv, const migrate_cmd *a, const vs_vm ***vms, size_t *n,
                     vs_error *err)
{
	*n = 0;
	const vs_datastore *target = na_find_datastore(inv, a->one.datastore, err);
	const vs_datastore *from = target && a->from ? na_find_datastore(inv, a->from, err) : NULL;
	if (!target || (a->from && !from))
		return VS_ERR_NOT_FOUND;
	*vms = calloc(inv->n_vms + a->n_vms + 1, sizeof(vs_vm *));
	if (!*vms)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < a->n_vms; i++) {
		const vs_vm *vm = na_find_vm(inv, a->vms[i], err);
		if (!vm)
			return VS_ERR_NOT_FOUND;
		add_once(*vms, n, vm);
	}
	for (size_t i = 0; from && i < inv->n_vms; i++)
		if (has_datastore(&inv->vms[i], from->moref))
			(*vms)[(*n)++] = &inv->vms[i];
	if (from)
		qsort(*vms, *n, sizeof(vs_vm *), by_name);
	for (size_t i = 0; i < *n; i++)
		if (!na_mounted_on(target, (*vms)[i]->host))
			return vs_fail(err, VS_ERR_USAGE, "datastore '%s' is not mounted on host '%s', where %s runs",
			               target->name, na_host_name(inv, (*vms)[i]->host), (*vms)[i]->name);
	return VS_OK;
}

/* What became of one VM, for the summary. */
static const char *outcome(int code, const json_t *record, char *buf, size_t size)
{
	bool moved = json_is_true(json_object_get(record, "moved"));
	const char *fault = json_string_value(json_object_get(json_object_get(record, "error"), "fault"));
	if (code == NA_EXIT_OK)
		return json_is_true(json_object_get(record, "already_there")) ? "there already"
		                                                              : "moved, verified";
	if (code == NA_EXIT_FINDING)
		return moved ? "moved, but an extent is smaller than its descriptor"
		             : "not moved: NFS 4.1 extent-size mismatch";
	if (moved && code == NA_EXIT_UNCHECKED)
		return "moved, could not verify (an extent's length could not be read)";
	if (moved)
		return "moved, not verified";
	snprintf(buf, size, "not moved: %s", fault && *fault ? fault : "failed");
	return buf;
}

/* A run over several VMs. */
typedef struct batch {
	const vs_vm **vms;   /* into the inventory read before the first move */
	size_t n, tried;
	int *codes;          /* exit code of each VM tried */
	json_t *records;     /* the record of each VM tried */
	const char *stopped; /* why the rest were not tried, or NULL */
} batch;

static void print_summary(const migrate_cmd *a, const batch *b)
{
	static const char *const headers[] = {"VM", "RESULT"};
	na_table *t = na_table_new(2, headers);
	size_t there = 0;
	for (size_t i = 0; t && i < b->n; i++) {
		char buf[160];
		json_t *record = i < b->tried ? json_array_get(b->records, i) : NULL;
		const char *what = record ? outcome(b->codes[i], record, buf, sizeof(buf)) : "not tried";
		there += json_is_true(json_object_get(record, "moved"));
		const char *row[] = {b->vms[i]->name, what};
		na_table_add(t, row);
	}
	if (b->stopped)
		printf("\nStopped: %s.\n", b->stopped);
	printf("\n%zu of %zu VMs now on %s:\n", there, b->n, a->one.datastore);
	if (t)
		na_table_print(t, stdout);
	na_table_free(&t);
}

static void print_json(const migrate_cmd *a, batch *b)
{
	json_t *not_tried = json_array();
	for (size_t i = b->tried; i < b->n; i++)
		json_array_append_new(not_tried, json_string(b->vms[i]->name));
	na_json_print(json_pack("{s:s, s:O, s:o, s:s?}", "datastore", a->one.datastore, "vms",
	                        b->records, "not_tried", not_tried, "stopped", b->stopped));
}

/* Moves b's VMs one after the other; returns the exit code. */
static int move_all(vs_client *c, migrate_cmd *a, batch *b, bool json)
{
	int code = NA_EXIT_OK;
	/* Ctrl-C lets the running Storage vMotion finish and starts no other. */
	na_interrupts saved;
	na_interrupts_catch(&saved);
	for (; b->tried < b->n && !b->stopped; b->tried++) {
		const vs_vm *vm = b->vms[b->tried];
		if (!json)
			printf("%s[%zu/%zu] %s\n", b->tried ? "\n" : "", b->tried + 1, b->n, vm->name);
		a->one.vm = vm->name;
		a->one.vm_moref = vm->moref;
		json_t *record = NULL;
		int one = b->codes[b->tried] = migrate_one(c, &a->one, json, &record);
		json_array_append_new(b->records, record);
		if (one != NA_EXIT_OK && (code == NA_EXIT_OK || one == NA_EXIT_FINDING))
			code = one;
		bool more = b->tried + 1 < b->n;
		if (more && one == NA_EXIT_FINDING)
			b->stopped = "the extent-size mismatch showed; more moves there would repeat it";
		/* A move that worked but could not be verified is no failure to stop at. */
		else if (more && one != NA_EXIT_OK && one != NA_EXIT_UNCHECKED && !a->keep_going)
			b->stopped = "a move failed (--keep-going carries on after a failure)";
		else if (more && na_stop_requested)
			b->stopped = "interrupted";
	}
	na_interrupts_release(&saved);
	if (na_stop_requested && b->tried < b->n) {
		na_error("interrupted: %zu of %zu VMs not tried", b->n - b->tried, b->n);
		if (code == NA_EXIT_OK)
			code = NA_EXIT_FAIL;
	}
	return code;
}

/* What would move, after every check; nothing changes. */
static int print_plan(const migrate_cmd *a, const batch *b, bool json)
{
	json_t *vms = json_array();
	if (!json)
		printf("Would move %zu VM%s to %s, one at a time:\n", b->n, b->n == 1 ? "" : "s",
		       a->one.datastore);
	for (size_t i = 0; i < b->n; i++) {
		json_array_append_new(vms, json_string(b->vms[i]->name));
		if (!json)
			printf("  %s\n", b->vms[i]->name);
	}
	if (json)
		na_json_print(json_pack("{s:s, s:o}", "datastore", a->one.datastore, "would_move", vms));
	else
		json_decref(vms);
	return NA_EXIT_OK;
}

static int migrate_batch(vs_client *c, migrate_cmd *a, bool json)
{
	na_inventory inv = {0};
	vs_error err = {0};
	batch b = {.records = json_array()};
	int code = NA_EXIT_OK;
	int rc = na_inventory_load(c, true, &inv, &err);
	if (rc == VS_OK)
		rc = batch_vms(&inv, a, &b.vms, &b.n, &err);
	if (rc == VS_OK && !(b.codes = calloc(b.n + 1, sizeof(int))))
		rc = vs_fail(&err, VS_ERR_NOMEM, "out of memory");
	if (rc != VS_OK) {
		code = na_report(&err);
	} else if (b.n == 0 && !json) {
		printf("No VM has files on datastore %s.\n", a->from);
	} else if (a->dry_run) {
		code = print_plan(a, &b, json);
	} else {
		code = move_all(c, a, &b, json);
		if (json)
			print_json(a, &b);
		else
			print_summary(a, &b);
	}
	json_decref(b.records);
	free(b.codes);
	free(b.vms);
	na_inventory_free(&inv);
	return code;
}

static int run(vs_client *c, void *args, bool json)
{
	migrate_cmd *a = args;
	/* A dry run of one VM is the batch's plan: the same checks, nothing moves. */
	if (a->n_vms == 1 && !a->from && !a->dry_run) {
		a->one.vm = a->vms[0];
		return na_migrate(c, &a->one, json);
	}
	return migrate_batch(c, a, json);
}

static int check(void *args, int argc, char **argv)
{
	const migrate_cmd *cmd = args;
	const na_migrate_args *a = &cmd->one;
	const char *p = a->policy;
	if (argc > 0)
		return na_usage_error("migrate", "unexpected argument '%s'", argv[0]);
	if ((!cmd->n_vms && !cmd->from) || !a->datastore)
		return na_usage_error("migrate", "--vm (or --from-datastore) and --datastore are required");
	if (cmd->n_vms && cmd->from)
		return na_usage_error("migrate", "give --vm or --from-datastore, not both");
	if (strcmp(p, "fail") != 0 && strcmp(p, "nfs3") != 0 && strcmp(p, "snapshot") != 0 &&
	    strcmp(p, "cold") != 0)
		return na_usage_error("migrate", "--on-extent-bug is fail, nfs3, snapshot or cold, not '%s'", p);
	if (strcmp(p, "cold") == 0 && !a->allow_power_off)
		return na_usage_error("migrate", "--on-extent-bug cold powers the VM off: add --allow-power-off");
	return -1;
}

int cmd_migrate(int argc, char **argv)
{
	static const struct option longopts[] = {
		NA_CONNECT_LONGOPTS,
		{"vm", required_argument, NULL, OPT_VM},
		{"datastore", required_argument, NULL, OPT_DATASTORE},
		{"on-extent-bug", required_argument, NULL, OPT_POLICY},
		{"allow-power-off", no_argument, NULL, OPT_ALLOW_OFF},
		{"db", required_argument, NULL, OPT_DB},
		{"from-datastore", required_argument, NULL, OPT_FROM},
		{"keep-going", no_argument, NULL, OPT_KEEP_GOING},
		{"dry-run", no_argument, NULL, OPT_DRY_RUN},
		{0},
	};
	static const na_command_spec spec = {"migrate", usage, longopts, on_option, check, run};
	migrate_cmd a = {.one = {.policy = "fail"}};
	int rc = na_command(&spec, &a, argc, argv);
	free(a.vms);
	return rc;
}
