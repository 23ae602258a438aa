/* nfsagent migrate: Storage vMotion of a VM's home and all its disks, then
 * verify; on failure, diagnose, and if it is the NFS 4.1 extent-size bug,
 * apply the chosen workaround once.  Whatever happens, the last line says
 * where the VM is.  Several VMs (or every VM on a datastore) are a fleet
 * (ops/fleet.c): several at once, each verified as it lands. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ops/fleet.h"
#include "ops/migrate.h"
#include "ops/verify.h"
#include "cmd/render.h"
#include "cmd/cmd.h"

static const char usage[] =
	"Usage: nfsagent migrate --vm VM [--vm VM2 ...] --datastore DS\n"
	"                        [--parallel N] [--per-host N] [--per-datastore N]\n"
	"                        [--on-extent-bug POLICY] [--allow-power-off]\n"
	"                        [--keep-going] [--dry-run] [OPTIONS]\n"
	"       nfsagent migrate --vms GLOB --datastore DS [...]\n"
	"       nfsagent migrate --from-datastore OLD --datastore DS [...]\n"
	"Storage-vMotions VM (configuration and every disk) to DS, then verifies every\n"
	"disk as the host that runs it reads them. Several VMs (--vm, and every VM whose\n"
	"name matches GLOB, e.g. 'fleet-*'), or every VM with files on OLD, move up to N\n"
	"at once (--parallel, default 4, at most 32), at most 2 from one\n"
	"source host (--per-host) and 8 through one datastore (--per-datastore), as\n"
	"vCenter's own limits; a move vCenter queues anyway is shown as queued. The first\n"
	"failure stops new starts unless --keep-going; Ctrl-C lets the moves in flight\n"
	"finish (a second Ctrl-C leaves them to vCenter), and the same command again moves\n"
	"only what is left. --dry-run checks every name and host and shows the plan with\n"
	"sizes, changing nothing. Copies failed moves left are listed, never deleted.\n"
	"When a move fails it says why; on the NFS 4.1 extent-size bug POLICY is\n"
	"  fail      stop (default; exit 3)\n"
	"  nfs3      remount DS as NFS 3 on the hosts that mount it, once the moves in\n"
	"            flight have ended (the VMs that landed there go back first), and retry\n"
	"  snapshot  take a snapshot, retry, remove the snapshot\n"
	"  cold      power the VM off, migrate, power it on (needs --allow-power-off)\n"
	"A failed move's verdict is recorded in the results database (--db FILE).\n"
	"Examples:\n"
	"  nfsagent migrate --from-datastore tank-64k --datastore tank-16k --dry-run\n"
	"  nfsagent migrate --from-datastore tank-64k --datastore tank-16k --parallel 8\n"
	"  nfsagent migrate --vms 'web-*' --datastore tank-16k\n\n"
	NA_CONNECT_HELP;

enum {
	OPT_VM = NA_OPT_FIRST_COMMAND_OPTION, OPT_DATASTORE, OPT_POLICY, OPT_ALLOW_OFF, OPT_DB,
	OPT_FROM, OPT_KEEP_GOING, OPT_DRY_RUN, OPT_PARALLEL, OPT_PER_HOST, OPT_PER_DATASTORE, OPT_VMS
};

typedef struct migrate_cmd {
	na_migrate_args one;  /* policy, target and database; .vm is the VM of the moment */
	const char **vms;     /* --vm, as given */
	size_t n_vms;
	const char *glob;     /* --vms */
	const char *from;     /* --from-datastore */
	bool keep_going, dry_run;
	int parallel, per_host, per_datastore;
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

/* A count from 1 to NA_FLEET_MAX_PARALLEL. */
static int count_option(const char *name, const char *arg, int *value, na_outcome *out)
{
	long v = 0;
	if (!na_parse_long(arg, 1, NA_FLEET_MAX_PARALLEL, &v)) {
		na_usage_error(out, "%s wants a whole number from 1 to %d, not '%s'", name,
		               NA_FLEET_MAX_PARALLEL, arg);
		return -1;
	}
	*value = (int)v;
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
	case OPT_VMS: a->glob = arg; return 1;
	case OPT_FROM: a->from = arg; return 1;
	case OPT_KEEP_GOING: a->keep_going = true; return 1;
	case OPT_DRY_RUN: a->dry_run = true; return 1;
	case OPT_PARALLEL: return count_option("--parallel", arg, &a->parallel, out);
	case OPT_PER_HOST: return count_option("--per-host", arg, &a->per_host, out);
	case OPT_PER_DATASTORE: return count_option("--per-datastore", arg, &a->per_datastore, out);
	default: return 0;
	}
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

/* --vms: every VM whose name matches, by name, but those named by --vm. */
static int add_matches(const na_inventory *inv, const char *glob, const vs_vm **vms, size_t *n,
                       vs_error *err)
{
	size_t named = *n, matched = 0;
	for (size_t i = 0; i < inv->n_vms; i++) {
		const vs_vm *vm = &inv->vms[i];
		bool again = false;
		for (size_t j = 0; j < named && !again; j++)
			again = vms[j] == vm;
		if (fnmatch(glob, vm->name, 0) != 0)
			continue;
		matched++;
		if (!again)
			vms[(*n)++] = vm;
	}
	if (!matched)
		return vs_fail(err, VS_ERR_USAGE, "--vms '%s' matches no VM", glob);
	qsort(vms + named, *n - named, sizeof(vs_vm *), by_name);
	return VS_OK;
}

/* The VMs to move: --vm as given (each resolved, near matches named; one
 * named twice is refused) and those --vms matches, or every VM with files
 * on --from-datastore, by name.  Every VM's host must mount the target:
 * all checked before anything moves. */
static int fleet_vms(const na_inventory *inv, const migrate_cmd *a, const vs_vm ***vms, size_t *n,
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
		for (size_t j = 0; j < *n; j++)
			if ((*vms)[j] == vm)
				return vs_fail(err, VS_ERR_USAGE, "VM %s is named twice", vm->name);
		(*vms)[(*n)++] = vm;
	}
	if (a->glob && add_matches(inv, a->glob, *vms, n, err) != VS_OK)
		return err->status;
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

static const char *state_word(const na_fleet_vm *v)
{
	switch (v->state) {
	case NA_FLEET_WAITING: return "waiting";
	case NA_FLEET_STARTED: return v->adopted ? "found moving already (an earlier run's)" : "started";
	case NA_FLEET_QUEUED: return "queued by vCenter";
	case NA_FLEET_MOVING: return "moving";
	case NA_FLEET_DONE:
		return v->already_there                        ? "there already"
		       : v->verdict == NA_VERDICT_CLEAN       ? "moved, verified"
		       : v->verdict == NA_VERDICT_FINDING     ? "moved, but an extent is smaller than its descriptor"
		       : v->verdict == NA_VERDICT_UNCHECKED   ? "moved, could not verify (an extent's length could not be read)"
		                                               : "moved, not verified";
	case NA_FLEET_FAILED:
		return v->diag.extent_bug ? "not moved: NFS 4.1 extent-size mismatch" : "not moved";
	case NA_FLEET_NOT_TRIED: return "not tried";
	}
	return "?";
}

/* What the live lines compare against: each VM's state when last shown.
 * On a terminal, the VMs in flight and the total are a block redrawn in
 * place (live: its lines now on screen), and only ended moves scroll. */
typedef struct fleet_view {
	na_fleet_state *shown;
	size_t n;
	bool tty;
	size_t live;
} fleet_view;

/* The live block taken off the screen, before anything else is printed. */
static void erase_live(fleet_view *view)
{
	if (view->live)
		printf("\033[%zuA\033[J", view->live);
	view->live = 0;
}

static void fleet_line(void *ud, const char *line)
{
	erase_live(ud);
	na_print_line(NULL, line);
}

static void fleet_warning(void *ud, const char *line)
{
	erase_live(ud);
	fflush(stdout);
	na_print_warning(NULL, line);
}

static void clock_text(double s, char *buf, size_t size)
{
	long t = s < 0 ? 0 : (long)(s + 0.5);
	snprintf(buf, size, "%ld:%02ld", t / 60, t % 60);
}

/* The total: done, running, queued, failed, elapsed, and an ETA from the
 * rate at which moves have ended so far. */
static void total_text(const na_fleet_result *r, char *buf, size_t size)
{
	size_t count[NA_FLEET_NOT_TRIED + 1] = {0}, ended = 0;
	double now = 0;
	for (size_t i = 0; i < r->n; i++) {
		const na_fleet_vm *v = &r->vms[i];
		count[v->state]++;
		ended += !v->already_there && (v->state == NA_FLEET_DONE || v->state == NA_FLEET_FAILED);
		now = v->ended_s > now ? v->ended_s : now;
		now = v->started_s > now ? v->started_s : now;
	}
	size_t left = count[NA_FLEET_WAITING] + count[NA_FLEET_QUEUED] + count[NA_FLEET_MOVING];
	char elapsed[32], eta[48] = "ETA when a move has ended";
	clock_text(now, elapsed, sizeof(elapsed));
	if (ended) {
		char t[32];
		clock_text(now / (double)ended * (double)left, t, sizeof(t));
		snprintf(eta, sizeof(eta), "ETA %s", t);
	}
	snprintf(buf, size, "  -- %zu done, %zu moving, %zu queued, %zu failed, %zu waiting; %s elapsed, %s",
	         count[NA_FLEET_DONE], count[NA_FLEET_MOVING] + count[NA_FLEET_STARTED],
	         count[NA_FLEET_QUEUED], count[NA_FLEET_FAILED], count[NA_FLEET_WAITING], elapsed, eta);
}

static void print_total(const na_fleet_result *r)
{
	char line[256];
	total_text(r, line, sizeof(line));
	printf("%s\n", line);
}

/* A move's own time, from when vCenter began it to its end; and the time
 * vCenter kept it queued before that, said apart: vCenter's when it said
 * them, else as we saw them. */
static double moving_time(const na_fleet_vm *v)
{
	if (v->own_s >= 0)
		return v->own_s;
	return v->ended_s - (v->moving_s > 0 ? v->moving_s : v->started_s);
}

static double queued_time(const na_fleet_vm *v)
{
	if (v->queued_s >= 0)
		return v->queued_s;
	return v->moving_s > 0 ? v->moving_s - v->started_s : 0;
}

static bool ended(const na_fleet_vm *v)
{
	return v->state == NA_FLEET_DONE || v->state == NA_FLEET_FAILED;
}

/* v's line; live: in the live block, with its task's percent. */
static void vm_text(const na_fleet_vm *v, bool live, char *buf, size_t size)
{
	char *name = na_escaped(v->name), took[96] = "", done[16] = "";
	if (ended(v)) {
		char move[32], queued[32], after[48] = "";
		clock_text(moving_time(v), move, sizeof(move));
		clock_text(queued_time(v), queued, sizeof(queued));
		if (queued_time(v) >= 0.5)
			snprintf(after, sizeof(after), ", after %s queued", queued);
		snprintf(took, sizeof(took), " (%s%s)", move, after);
	} else if (live && v->state == NA_FLEET_MOVING && v->progress >= 0) {
		snprintf(done, sizeof(done), " %d%%", v->progress);
	}
	snprintf(buf, size, "%s%s: %s%s%s", live ? "  " : "", name ? name : "?", state_word(v), done, took);
	free(name);
}

static void print_vm(const na_fleet_vm *v)
{
	char line[512];
	vm_text(v, false, line, sizeof(line));
	printf("%s\n", line);
}

/* A line of the live block, cut to the terminal's width: a line that
 * wrapped would take two rows where the erase counts one. */
static void live_line(fleet_view *view, const char *text, size_t cols)
{
	size_t n = strlen(text);
	if (n >= cols) {
		n = cols ? cols - 1 : 0;
		while (n && ((unsigned char)text[n] & 0xC0) == 0x80)
			n--;  /* not inside a character */
	}
	printf("%.*s\n", (int)n, text);
	view->live++;
}

/* On a terminal: each VM in flight, and the total under them, within the
 * terminal's rows (the rest counted on one line): a block taller than the
 * screen could not be moved back over. */
static void draw_live(fleet_view *view, const na_fleet_result *r)
{
	struct winsize ws = {0};
	ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws);
	size_t cols = ws.ws_col ? ws.ws_col : 80, rows = ws.ws_row > 3 ? ws.ws_row : 24;
	size_t shown = 0, more = 0;
	char line[512];
	for (size_t i = 0; i < r->n; i++) {
		const na_fleet_vm *v = &r->vms[i];
		if (v->state != NA_FLEET_STARTED && v->state != NA_FLEET_QUEUED && v->state != NA_FLEET_MOVING)
			continue;
		if (shown + 3 >= rows) {
			more++;
			continue;
		}
		vm_text(v, true, line, sizeof(line));
		live_line(view, line, cols);
		shown++;
	}
	if (more) {
		snprintf(line, sizeof(line), "  ... and %zu more in flight", more);
		live_line(view, line, cols);
	}
	total_text(r, line, sizeof(line));
	live_line(view, line, cols);
}

/* A line per VM whose state changed and the total when a move ended; on a
 * terminal, the ended moves' lines above the live block drawn again. */
static void show_changes(void *ud, const na_fleet_result *r)
{
	fleet_view *view = ud;
	bool any_ended = false;
	erase_live(view);
	for (size_t i = 0; i < r->n && i < view->n; i++) {
		const na_fleet_vm *v = &r->vms[i];
		if (view->shown[i] == v->state)
			continue;
		view->shown[i] = v->state;
		any_ended |= ended(v);
		if (!view->tty || ended(v))
			print_vm(v);
	}
	if (view->tty)
		draw_live(view, r);
	else if (any_ended)
		print_total(r);
	fflush(stdout);
}

static void print_summary(const migrate_cmd *a, const na_session *s, const na_fleet_result *r)
{
	static const char *const headers[] = {"VM", "HOST", "SIZE", "TIME", "QUEUED", "RESULT"};
	na_table *t = na_table_new(6, headers);
	size_t there = 0;
	for (size_t i = 0; t && i < r->n; i++) {
		const na_fleet_vm *v = &r->vms[i];
		char size[32], took[32] = "-", queued[32] = "-", what[1200];
		na_size(v->bytes, size, sizeof(size));
		if (v->ended_s > 0) {
			clock_text(moving_time(v), took, sizeof(took));
			clock_text(queued_time(v), queued, sizeof(queued));
		}
		there += v->state == NA_FLEET_DONE;
		/* The fault's name is short; its message was said as the move failed. */
		const char *why = v->state != NA_FLEET_FAILED || v->diag.extent_bug ? ""
		                  : v->err.fault[0]                               ? v->err.fault
		                                                                  : v->err.message;
		snprintf(what, sizeof(what), "%s%s%s", state_word(v), *why ? ": " : "", why);
		const char *row[] = {v->name, na_host_name(s->inv, v->host), size, took, queued, what};
		na_table_add(t, row);
	}
	if (r->stopped)
		printf("\nStopped: %s.\n", r->stopped);
	if (r->remounted)
		printf("\n%s was remounted as %s on the extent-size bug (--on-extent-bug nfs3).\n",
		       a->one.datastore, r->remounted);
	char elapsed[32];
	clock_text(r->elapsed_s, elapsed, sizeof(elapsed));
	printf("\n%zu of %zu VMs now on %s (%s):\n", there, r->n, a->one.datastore, elapsed);
	if (t)
		na_table_print(t, stdout);
	na_table_free(&t);
	na_leftovers_print(&r->leftovers);
}

static json_t *vm_json(const na_session *s, const na_fleet_vm *v)
{
	json_t *o = json_pack("{s:s, s:s, s:I, s:s, s:b, s:b, s:f, s:f, s:f, s:o, s:o}", "vm", v->name,
	                      "host", na_host_name(s->inv, v->host), "bytes", (json_int_t)v->bytes,
	                      "result", state_word(v), "moved", v->state == NA_FLEET_DONE,
	                      "already_there", v->already_there, "started_s", v->started_s,
	                      "moving_s", v->moving_s, "ended_s", v->ended_s,
	                      /* as the table says them: vCenter's when it said them */
	                      "took_s", ended(v) ? json_real(moving_time(v)) : json_null(),
	                      "queued_s", ended(v) ? json_real(queued_time(v)) : json_null());
	if (v->diag.verdict)
		json_object_set_new(o, "diagnosis", na_diagnosis_json(&v->diag));
	if (v->checks.n)
		json_object_set_new(o, "verify", na_checks_json(&v->checks));
	if (v->state == NA_FLEET_FAILED)
		json_object_set_new(o, "error", json_pack("{s:s, s:s}", "fault", v->err.fault, "message",
		                                          v->err.message));
	return o;
}

static void print_json(const migrate_cmd *a, const na_session *s, const na_fleet_result *r,
                       bool plan)
{
	json_t *vms = json_array(), *left = json_array();
	for (size_t i = 0; i < r->n; i++)
		json_array_append_new(vms, vm_json(s, &r->vms[i]));
	for (size_t i = 0; i < r->leftovers.n; i++)
		json_array_append_new(left, json_string(r->leftovers.paths[i]));
	na_json_print(json_pack("{s:s, s:b, s:o, s:o, s:s?, s:s?, s:f}", "datastore", a->one.datastore,
	                        "dry_run", plan, "vms", vms, "leftovers", left, "stopped", r->stopped,
	                        "remounted", r->remounted, "elapsed_s", r->elapsed_s));
}

/* The fewest waves the limits allow, each move taking the same time. */
static size_t waves(const migrate_cmd *a, const na_fleet_result *r, size_t *to_move)
{
	size_t most = 0, width = (size_t)(a->parallel < a->per_datastore ? a->parallel : a->per_datastore);
	*to_move = 0;
	for (size_t i = 0; i < r->n; i++) {
		if (r->vms[i].already_there)
			continue;
		size_t same = 0;
		for (size_t j = 0; j < r->n; j++)
			same += !r->vms[j].already_there && strcmp(r->vms[j].host, r->vms[i].host) == 0;
		size_t host_waves = (same + (size_t)a->per_host - 1) / (size_t)a->per_host;
		most = host_waves > most ? host_waves : most;
		(*to_move)++;
	}
	size_t total_waves = (*to_move + width - 1) / width;
	return total_waves > most ? total_waves : most;
}

/* What would move, after every check; nothing changes. */
static void print_plan(const migrate_cmd *a, const na_session *s, const na_fleet_result *r)
{
	int64_t bytes = 0;
	static const char *const headers[] = {"VM", "HOST", "SIZE", "PLAN"};
	na_table *t = na_table_new(4, headers);
	for (size_t i = 0; t && i < r->n; i++) {
		const na_fleet_vm *v = &r->vms[i];
		char size[32];
		bytes += v->already_there || v->bytes < 0 ? 0 : v->bytes;
		const char *row[] = {v->name, na_host_name(s->inv, v->host), na_size(v->bytes, size, sizeof(size)),
		                     v->already_there ? "there already: skipped" : "move"};
		na_table_add(t, row);
	}
	size_t to_move = 0, w = waves(a, r, &to_move);
	char total[32];
	printf("Would move %zu VM%s (%s) to %s, up to %d at once (at most %d per source host, %d per "
	       "datastore): %zu wave%s of moves at the least.\n",
	       to_move, na_s(to_move), na_size(bytes, total, sizeof(total)), a->one.datastore, a->parallel,
	       a->per_host, a->per_datastore, w, na_s(w));
	if (t)
		na_table_print(t, stdout);
	na_table_free(&t);
}

/* Each VM already on the target, said once. */
static void say_there_already(const migrate_cmd *a, const na_fleet_result *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->vms[i].already_there) {
			char *name = na_escaped(r->vms[i].name);
			printf("%s is on %s already: skipped.\n", name ? name : "?", a->one.datastore);
			free(name);
		}
}

static vs_status fleet_outcome(const na_fleet_result *r, na_outcome *out)
{
	size_t failed = 0, not_tried = 0;
	for (size_t i = 0; i < r->n; i++) {
		failed += r->vms[i].state == NA_FLEET_FAILED;
		not_tried += r->vms[i].state == NA_FLEET_NOT_TRIED;
	}
	out->verdict = na_fleet_verdict(r);
	if (r->interrupted)
		return vs_fail(&out->err, VS_ERR_TASK, "interrupted: %zu of %zu VMs not tried", not_tried,
		               r->n);
	if (failed && out->verdict != NA_VERDICT_FINDING)
		return vs_fail(&out->err, VS_ERR_TASK, "%zu of %zu VMs did not move (see the table above)",
		               failed, r->n);
	return VS_OK;
}

static vs_status migrate_fleet(vs_client *c, migrate_cmd *a, bool json, na_outcome *out)
{
	na_inventory inv = {0};
	vs_error *err = &out->err;
	const vs_vm **vms = NULL;
	size_t n = 0;
	na_fleet_result r = {0};
	fleet_view view = {0};
	na_fleet_args fa = {.one = &a->one, .parallel = a->parallel, .per_host = a->per_host,
	                    .per_datastore = a->per_datastore, .keep_going = a->keep_going,
	                    .changed = json ? NULL : show_changes, .ud = &view};
	na_session s = {.client = c, .inv = &inv, .output = json ? NULL : fleet_line,
	                .warning = fleet_warning, .output_ud = &view};
	vs_status rc = na_inventory_load(c, true, &inv, err);
	if (rc == VS_OK)
		rc = fleet_vms(&inv, a, &vms, &n, err);
	if (rc == VS_OK && n == 0 && !json) {
		printf("No VM has files on datastore %s.\n", a->from);
		goto done;
	}
	if (rc == VS_OK)
		rc = na_fleet_plan(&s, &fa, vms, n, &r, err);
	if (rc == VS_OK && a->dry_run) {
		if (json)
			print_json(a, &s, &r, true);
		else
			print_plan(a, &s, &r);
		goto done;
	}
	if (rc == VS_OK && !(view.shown = calloc(r.n + 1, sizeof(*view.shown))))
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	if (rc != VS_OK)
		goto done;
	view.n = r.n;
	view.tty = !json && isatty(STDOUT_FILENO);
	for (size_t i = 0; i < r.n; i++)
		view.shown[i] = r.vms[i].state;
	if (!json)
		say_there_already(a, &r);
	rc = na_op_fleet(&s, &fa, &r, err);
	if (view.live) {  /* the last total stays */
		erase_live(&view);
		print_total(&r);
	}
	if (json)
		print_json(a, &s, &r, false);
	else
		print_summary(a, &s, &r);
	if (rc == VS_OK)
		rc = fleet_outcome(&r, out);
done:
	free(view.shown);
	na_fleet_result_free(&r);
	free(vms);
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
	na_leftovers left = {0};
	json_t *record = NULL;
	rc = na_migrate_shown(&s, &a->one, json ? &record : NULL, &out->verdict, &left, &out->err);
	if (record)
		na_json_print(record);
	if (!json)
		na_leftovers_print(&left);
	na_leftovers_free(&left);
	na_inventory_free(&inv);
	return rc;
}

static vs_status run(vs_client *c, void *args, bool json, na_outcome *out)
{
	migrate_cmd *a = args;
	/* A dry run of one VM is the batch's plan: the same checks, nothing moves. */
	if (a->n_vms == 1 && !a->glob && !a->from && !a->dry_run)
		return migrate_one(c, a, json, out);
	return migrate_fleet(c, a, json, out);
}

static vs_status check(void *args, int argc, char **argv, na_outcome *out)
{
	const migrate_cmd *cmd = args;
	const na_migrate_args *a = &cmd->one;
	const char *p = a->policy;
	if (argc > 0)
		return na_usage_error(out, "unexpected argument '%s'", argv[0]);
	if ((!cmd->n_vms && !cmd->glob && !cmd->from) || !a->datastore)
		return na_usage_error(out, "--vm, --vms or --from-datastore, and --datastore are required");
	if ((cmd->n_vms || cmd->glob) && cmd->from)
		return na_usage_error(out, "give --vm/--vms or --from-datastore, not both");
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
		{"vms", required_argument, NULL, OPT_VMS},
		{"from-datastore", required_argument, NULL, OPT_FROM},
		{"keep-going", no_argument, NULL, OPT_KEEP_GOING},
		{"dry-run", no_argument, NULL, OPT_DRY_RUN},
		{"parallel", required_argument, NULL, OPT_PARALLEL},
		{"per-host", required_argument, NULL, OPT_PER_HOST},
		{"per-datastore", required_argument, NULL, OPT_PER_DATASTORE},
		{0},
	};
	static const na_command_spec spec = {usage, longopts, on_option, check, run};
	migrate_cmd a = {.one = {.policy = "fail"}, .parallel = NA_FLEET_PARALLEL,
	                 .per_host = NA_FLEET_PER_HOST, .per_datastore = NA_FLEET_PER_DATASTORE};
	vs_status rc = na_command(&spec, &a, argc, argv, out);
	free(a.vms);
	return rc;
}
