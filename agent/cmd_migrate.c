/* nfsagent migrate: Storage vMotion of a VM's home and all its disks, then
 * verify; on failure, diagnose, and if it is the NFS 4.1 extent-size bug,
 * apply the chosen workaround once.  Whatever happens, the last line says
 * where the VM is.  Several VMs (or every VM on a datastore) move one after
 * the other, each verified before the next starts. */
#include <stdlib.h>
#include <string.h>

#include "ops/migrate.h"
#include "ops/verify.h"

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


static int add_vm(migrate_cmd *a, const char *name, na_outcome *out)
{
	const char **grown = realloc(a->vms, (a->n_vms + 1) * sizeof(*grown));
	if (!grown) {
		vs_fail(&out->err, VS_ERR_NOMEM, "out of memory");
		return -1;
	}
	a->vms = grown;
	a->vms[a->n_vms++] = name;
	return 1;
}

static int on_option(int opt, const char *arg, void *ud, na_outcome *out)
{
	migrate_cmd *a = ud;
	switch (opt) {
	case OPT_VM: return add_vm(a, arg, out);
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

static void where_is(const na_session *s, const na_migrate_result *r, json_t *out)
{
	const vs_vm *now = r->now;
	json_t *ds = json_array();
	char names[512] = "";
	size_t len = 0;
	for (size_t i = 0; i < now->n_datastores; i++) {
		vs_datastore *d = na_datastore_by_moref(s->inv, now->datastores[i]);
		const char *name = d ? d->name : now->datastores[i];
		json_array_append_new(ds, json_string(name));
		if (len < sizeof(names))
			len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", i ? ", " : "", name);
	}
	const char *host = na_host_name(s->inv, now->host);
	na_say(s, "%s is on datastore %s (host %s), %s.", now->name, names, host, now->power_state);
	json_object_set_new(out, "location", json_pack("{s:o, s:s, s:s}", "datastores", ds, "host", host,
	                                               "power_state", now->power_state));
}

static json_t *record_of(const na_migrate_args *a, const na_migrate_result *r, const vs_error *err)
{
	json_t *out = json_pack("{s:s, s:s, s:b, s:b, s:s?}", "vm", a->vm, "datastore", a->datastore,
	                        "moved", r->moved, "already_there", r->already_there, "workaround",
	                        r->workaround);
	if (r->diag.verdict)
		json_object_set_new(out, "diagnosis", na_diagnosis_json(&r->diag));
	if (r->checks.n)
		json_object_set_new(out, "verify", na_checks_json(&r->checks));
	if (!r->moved)
		json_object_set_new(out, "error", json_pack("{s:s, s:s}", "fault", err->fault,
		                                            "message", err->message));
	return out;
}

vs_status na_migrate_shown(na_session *s, const na_migrate_args *a, bool json, json_t **record,
                           na_verdict *verdict, vs_error *err)
{
	na_migrate_result r;
	vs_status rc = na_op_migrate(s, a, &r, err);
	*verdict = na_migrate_verdict(&r, rc);
	if (rc == VS_OK && s->output)
		na_verify_print(r.now ? r.now->name : a->vm, &r.checks);
	json_t *out = record_of(a, &r, err);
	if (r.now)
		where_is(s, &r, out);
	if (record)
		*record = out;
	else if (json)
		na_json_print(out);
	else
		json_decref(out);
	/* A diagnosed failure has said why already: nobody says it again. */
	if (rc == VS_ERR_TASK && r.diag.verdict)
		err->message[0] = err->fault[0] = '\0';
	na_migrate_result_free(&r);
	return rc;
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

/* How one VM's move ended: its op's status and verdict. */
typedef struct vm_end {
	vs_status rc;
	na_verdict verdict;
} vm_end;

static bool clean(vm_end e)
{
	return e.rc == VS_OK && e.verdict == NA_VERDICT_CLEAN;
}

/* What became of one VM, for the summary. */
static const char *outcome(vm_end e, const json_t *record, char *buf, size_t size)
{
	bool moved = json_is_true(json_object_get(record, "moved"));
	const char *fault = json_string_value(json_object_get(json_object_get(record, "error"), "fault"));
	if (clean(e))
		return json_is_true(json_object_get(record, "already_there")) ? "there already"
		                                                              : "moved, verified";
	if (e.verdict == NA_VERDICT_FINDING)
		return moved ? "moved, but an extent is smaller than its descriptor"
		             : "not moved: NFS 4.1 extent-size mismatch";
	if (moved && e.rc == VS_OK && e.verdict == NA_VERDICT_UNCHECKED)
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
	vm_end *ends;        /* of each VM tried */
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
		const char *what = record ? outcome(b->ends[i], record, buf, sizeof(buf)) : "not tried";
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

/* Moves b's VMs one after the other, each VM's error said as it comes.
 * The batch ends as its first VM that did not end clean, or as a finding
 * when the extent-size bug showed: out says so, without a line of its own
 * for what was said (unless Ctrl-C left VMs not tried). */
static vs_status move_all(na_session *s, migrate_cmd *a, batch *b, bool json, na_outcome *out)
{
	vm_end end = {VS_OK, NA_VERDICT_CLEAN};
	/* Ctrl-C lets the running Storage vMotion finish and starts no other. */
	na_interrupts saved;
	na_interrupts_catch(&saved);
	for (; b->tried < b->n && !b->stopped; b->tried++) {
		const vs_vm *vm = b->vms[b->tried];
		if (!json) {
			char *shown = na_escaped(vm->name);  /* a name cannot drive the terminal */
			printf("%s[%zu/%zu] %s\n", b->tried ? "\n" : "", b->tried + 1, b->n,
			       shown ? shown : vm->name);
			free(shown);
		}
		/* Copies: the op reads the VM's entry again, and its strings go. */
		char *name = strdup(vm->name), *moref = strdup(vm->moref);
		a->one.vm = name;
		a->one.vm_moref = moref;
		json_t *record = NULL;
		vs_error err = {0};
		vm_end one = {VS_ERR_NOMEM, NA_VERDICT_CLEAN};
		if (name && moref)
			one.rc = na_migrate_shown(s, &a->one, json, &record, &one.verdict, &err);
		if (one.rc != VS_OK && (err.message[0] || err.fault[0]))
			na_print_error(&err);
		b->ends[b->tried] = one;
		free(name);
		free(moref);
		json_array_append_new(b->records, record);
		bool finding = one.verdict == NA_VERDICT_FINDING;
		if (!clean(one) && (clean(end) || finding))
			end = one;
		bool more = b->tried + 1 < b->n;
		if (more && finding)
			b->stopped = "the extent-size mismatch showed; more moves there would repeat it";
		/* A move that worked but could not be verified is no failure to stop at. */
		else if (more && !clean(one) && !(one.rc == VS_OK && one.verdict == NA_VERDICT_UNCHECKED) &&
		         !a->keep_going)
			b->stopped = "a move failed (--keep-going carries on after a failure)";
		else if (more && na_stop_requested)
			b->stopped = "interrupted";
	}
	na_interrupts_release(&saved);
	out->verdict = end.verdict;
	out->err = (vs_error){.status = end.rc};
	if (na_stop_requested && b->tried < b->n)
		vs_fail(&out->err, end.rc != VS_OK ? end.rc : VS_ERR_TASK,
		        "interrupted: %zu of %zu VMs not tried", b->n - b->tried, b->n);
	return out->err.status;
}

/* What would move, after every check; nothing changes. */
static void print_plan(const migrate_cmd *a, const batch *b, bool json)
{
	json_t *vms = json_array();
	if (!json)
		printf("Would move %zu VM%s to %s, one at a time:\n", b->n, na_s(b->n),
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
}

static vs_status migrate_batch(vs_client *c, migrate_cmd *a, bool json, na_outcome *out)
{
	na_inventory inv = {0};
	vs_error *err = &out->err;
	batch b = {.records = json_array()};
	vs_status rc = na_inventory_load(c, true, &inv, err);
	na_progress bar;
	na_session s = {.client = c, .inv = &inv, .output = json ? NULL : na_print_line,
	                .warning = na_print_warning, .progress = &bar};
	if (rc == VS_OK)
		rc = batch_vms(&inv, a, &b.vms, &b.n, err);
	if (rc == VS_OK && !(b.ends = calloc(b.n + 1, sizeof(vm_end))))
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	if (rc == VS_OK && b.n == 0 && !json) {
		printf("No VM has files on datastore %s.\n", a->from);
	} else if (rc == VS_OK && a->dry_run) {
		print_plan(a, &b, json);
	} else if (rc == VS_OK) {
		rc = move_all(&s, a, &b, json, out);
		if (json)
			print_json(a, &b);
		else
			print_summary(a, &b);
	}
	json_decref(b.records);
	free(b.ends);
	free(b.vms);
	na_inventory_free(&inv);
	return rc;
}

/* One VM: its own lines, no summary. */
static vs_status migrate_one(vs_client *c, migrate_cmd *a, bool json, na_outcome *out)
{
	na_inventory inv;
	vs_status rc = na_inventory_load(c, true, &inv, &out->err);
	if (rc != VS_OK)
		return rc;
	na_progress bar;
	na_session s = {.client = c, .inv = &inv, .output = json ? NULL : na_print_line,
	                .warning = na_print_warning, .progress = &bar};
	a->one.vm = a->vms[0];
	rc = na_migrate_shown(&s, &a->one, json, NULL, &out->verdict, &out->err);
	na_inventory_free(&inv);
	return rc;
}

static vs_status run(vs_client *c, void *args, bool json, na_outcome *out)
{
	migrate_cmd *a = args;
	/* A dry run of one VM is the batch's plan: the same checks, nothing moves. */
	if (a->n_vms == 1 && !a->from && !a->dry_run)
		return migrate_one(c, a, json, out);
	return migrate_batch(c, a, json, out);
}

static vs_status check(void *args, int argc, char **argv, na_outcome *out)
{
	const migrate_cmd *cmd = args;
	const na_migrate_args *a = &cmd->one;
	const char *p = a->policy;
	if (argc > 0)
		return na_usage_error(out, "unexpected argument '%s'", argv[0]);
	if ((!cmd->n_vms && !cmd->from) || !a->datastore)
		return na_usage_error(out, "--vm (or --from-datastore) and --datastore are required");
	if (cmd->n_vms && cmd->from)
		return na_usage_error(out, "give --vm or --from-datastore, not both");
	if (strcmp(p, "fail") != 0 && strcmp(p, "nfs3") != 0 && strcmp(p, "snapshot") != 0 &&
	    strcmp(p, "cold") != 0)
		return na_usage_error(out, "--on-extent-bug is fail, nfs3, snapshot or cold, not '%s'", p);
	if (strcmp(p, "cold") == 0 && !a->allow_power_off)
		return na_usage_error(out, "--on-extent-bug cold powers the VM off: add --allow-power-off");
	return VS_OK;
}

vs_status cmd_migrate(int argc, char **argv, na_outcome *out)
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
	static const na_command_spec spec = {usage, longopts, on_option, check, run};
	migrate_cmd a = {.one = {.policy = "fail"}};
	vs_status rc = na_command(&spec, &a, argc, argv, out);
	free(a.vms);
	return rc;
}
