/* nfsagent results: lists and exports recorded results, selected by any
 * provenance field or label. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/limits.h"
#include "cmd/cmd.h"
#include "output.h"
#include "cmd/cmd_bench_group.h"
#include "analysis/compare.h"
#include "analysis/report.h"
#include "analysis/stats.h"
#include "store/store.h"

static const char usage[] =
	"Usage: nfsagent results [--where KEY=VALUE ...] [--json | --csv] [--full] [--members]\n"
	"                        [--wide] [--db FILE | --db postgresql://...]\n"
	"Lists recorded results. KEY is a provenance field (protocol, datastore, host,\n"
	"esxi_build, vm, profile, status, campaign, ...) or one of your labels\n"
	"(recordsize=16K). --full adds the job file and fio's raw JSON. A result's NAS\n"
	"side (bench --nas) is its \"nas\" object, or its nas_ columns in CSV.\n"
	"--db postgresql://... reads a central database (see nfsagent push).\n"
	"A group run (bench on several VMs at once) is one row, its VM column \"3 VMs\"\n"
	"and its figures the group's (JSON adds its \"members\", each with its own\n"
	"figures; CSV their ids); --members lists its VMs' results as rows of their\n"
	"own instead, each with its \"group\" id. The table leaves out\n"
	"HOST, VM and BUILD, in that order, as long as it would pass 120 columns;\n"
	"--wide keeps every column.\n"
	"Examples:\n"
	"  nfsagent results --where recordsize=16K\n"
	"  nfsagent results --where campaign=nfs3-vs-nfs41-20261130T101500 --csv\n";

enum { OPT_WHERE = NA_OPT_FIRST_COMMAND_OPTION, OPT_CSV, OPT_FULL, OPT_DB, OPT_MEMBERS, OPT_WIDE };
enum { MAX_WHERE = 32 };

typedef struct results_args {
	const char *where[MAX_WHERE];
	size_t n_where;
	bool csv, full, json;
	bool members;            /* a group's members as rows of their own */
	bool wide;               /* every column, however wide */
	const char *db;
} results_args;

/* The columns shown are the store's listed fields (na_fields), in its
 * order: JSON keys and CSV header alike, then each direction's statistics,
 * the labels and the NAS side's figures (nas_columns). */

/* An integer field's value (repetition). */
static int int_of(const na_result *r, size_t i)
{
	return *(const int *)((const char *)r + na_fields[i].off);
}

static json_t *field_json(const na_result *r, size_t i)
{
	if (na_fields[i].type == NA_TYPE_INT)
		return json_integer(int_of(r, i));
	return na_field_text(r, (int)i) ? json_string(na_field_text(r, (int)i)) : json_null();
}

static json_t *dir_json(const na_dir_stats *d)
{
	if (!d->present)
		return json_null();
	json_t *o = json_object();
	for (int i = 0; i < NA_N_STATS; i++) {
		double v = na_stat_value(d, i);
		json_object_set_new(o, na_stats[i].name, na_stats[i].type == NA_TYPE_I64 ? json_integer((json_int_t)v)
		                                         : v >= 0 ? json_real(v) : json_null());
	}
	return o;
}

static json_t *result_json(const na_result *r, bool full)
{
	json_t *o = json_pack("{s:I}", "id", (json_int_t)r->id);
	for (size_t i = 0; i < NA_N_FIELDS; i++)
		if (na_fields[i].list)
			json_object_set_new(o, na_fields[i].name, field_json(r, i));
	json_t *labels = json_object();
	for (size_t i = 0; i < r->n_labels; i++)
		json_object_set_new(labels, r->labels[i].key, json_string(r->labels[i].value));
	json_object_set_new(o, "labels", labels);
	json_object_set_new(o, "read", dir_json(&r->read));
	json_object_set_new(o, "write", dir_json(&r->write));
	json_t *counters = r->host_counters_json ? json_loads(r->host_counters_json, 0, NULL) : NULL;
	json_object_set_new(o, "host_counters", counters ? counters : json_null());
	if (full) {
		json_object_set_new(o, "job_file", json_string(r->job_file ? r->job_file : ""));
		json_object_set_new(o, "fio_json", json_string(r->fio_json ? r->fio_json : ""));
	}
	return o;
}

/* RFC 4180: quote every field, double the quotes. */
static void csv_field(const char *s, bool last)
{
	putchar('"');
	for (; s && *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	fputs(last ? "\"\n" : "\",", stdout);
}

/* A NAS row's figures as results shows them, in one order: the keys of
 * its JSON "nas" object and, named "nas_" and the key, its CSV columns.
 * kind: where the value is and when it is null (not measured). */
typedef enum nas_kind {
	NAS_TEXT,     /* const char *, NULL */
	NAS_SETTING,  /* int64_t, always measured */
	NAS_POOL,     /* int64_t, with pool_known */
	NAS_COUNTER,  /* int64_t, with counters_known */
	NAS_REAL,     /* double, < 0 not known */
	NAS_CLOCK,    /* double, with clock_known (a shift may be < 0) */
	NAS_TXGS,     /* int64_t, with txgs_known */
	NAS_FLAG,     /* bool */
	NAS_JSON,     /* const char * of JSON */
} nas_kind;
typedef struct nas_column {
	const char *name;
	nas_kind kind;
	size_t off;  /* in na_nas_run */
} nas_column;
#define COLUMN(name, kind) {#name, kind, offsetof(na_nas_run, name)},
#define TEXT_COLUMN(name) COLUMN(name, NAS_TEXT)
#define SETTING_COLUMN(name) COLUMN(name, NAS_SETTING)
#define POOL_COLUMN(name) COLUMN(name, NAS_POOL)
#define COUNTER_COLUMN(name) COLUMN(name, NAS_COUNTER)
#define REAL_COLUMN(name) COLUMN(name, NAS_REAL)
#define CLOCK_COLUMN(name) COLUMN(name, NAS_CLOCK)
static const nas_column nas_columns[] = {
	NA_NAS_TEXTS(TEXT_COLUMN) NA_NAS_SETTINGS(SETTING_COLUMN) NA_NAS_POOL(POOL_COLUMN)
	NA_NAS_COUNTERS(COUNTER_COLUMN) COLUMN(arc_hit_ratio, NAS_REAL) NA_NAS_REALS(REAL_COLUMN)
	NA_NAS_CLOCK(CLOCK_COLUMN) COLUMN(txg_count, NAS_TXGS) NA_NAS_ZFS_REALS(REAL_COLUMN)
	COLUMN(incomplete, NAS_FLAG) COLUMN(timeline, NAS_JSON)
};
#undef COLUMN
#undef TEXT_COLUMN
#undef SETTING_COLUMN
#undef POOL_COLUMN
#undef COUNTER_COLUMN
#undef REAL_COLUMN
#undef CLOCK_COLUMN
enum { N_NAS_COLUMNS = sizeof(nas_columns) / sizeof(*nas_columns) };

static json_t *nas_value(const na_nas_run *n, const nas_column *c)
{
	const char *at = (const char *)n + c->off;
	const char *text = c->kind == NAS_TEXT || c->kind == NAS_JSON ? *(const char *const *)at : NULL;
	int64_t whole = c->kind == NAS_SETTING || c->kind == NAS_POOL || c->kind == NAS_COUNTER ||
	                        c->kind == NAS_TXGS
	                    ? *(const int64_t *)at : 0;
	double real = c->kind == NAS_REAL || c->kind == NAS_CLOCK ? *(const double *)at : 0;
	json_t *v = NULL;
	switch (c->kind) {
	case NAS_TEXT: v = text ? json_string(text) : NULL; break;
	case NAS_SETTING: v = json_integer(whole); break;
	case NAS_POOL: v = n->pool_known ? json_integer(whole) : NULL; break;
	case NAS_COUNTER: v = n->counters_known ? json_integer(whole) : NULL; break;
	case NAS_REAL: v = real >= 0 ? json_real(real) : NULL; break;
	case NAS_CLOCK: v = n->clock_known ? json_real(real) : NULL; break;
	case NAS_TXGS: v = n->txgs_known ? json_integer(whole) : NULL; break;
	case NAS_FLAG: v = json_boolean(*(const bool *)at); break;
	case NAS_JSON: v = text ? json_loads(text, 0, NULL) : NULL; break;
	}
	return v ? v : json_null();
}

/* A result's NAS side (bench --nas): the dataset's settings as measured and
 * the pool's figures over the run, null where they were not measured. */
static int nas_json(const na_nas_run *n, void *ud, vs_error *err)
{
	(void)err;
	json_t *o = json_object();
	for (size_t i = 0; i < N_NAS_COLUMNS; i++)
		json_object_set_new(o, nas_columns[i].name, nas_value(n, &nas_columns[i]));
	*(json_t **)ud = o;
	return VS_OK;
}

/* A group row's own columns in CSV, after a result's: empty for a single
 * result, the group's id alone for a member listed with --members;
 * members: "12:fleet-01;13:fleet-02" (its result id, "-" for none). */
static const char *const group_columns[] = {"group", "vms", "start_skew_ms", "window_ms",
                                            "slowest_vm", "slowest_share", "members"};
enum { N_GROUP_COLUMNS = sizeof(group_columns) / sizeof(*group_columns) };

static void csv_header(void)
{
	fputs("\"id\",", stdout);
	for (size_t i = 0; i < NA_N_FIELDS; i++)
		if (na_fields[i].list)
			csv_field(na_fields[i].name, false);
	for (int d = 0; d < 2; d++)
		for (int i = 0; i < NA_N_STATS; i++) {
			char name[48];
			snprintf(name, sizeof(name), "%s_%s", d ? "write" : "read", na_stats[i].name);
			if (na_stats[i].type == NA_TYPE_REAL)
				csv_field(name, false);
		}
	csv_field("ran_as_nfs3", false);
	csv_field("labels", false);
	for (size_t i = 0; i < N_NAS_COLUMNS; i++) {
		char name[48];
		snprintf(name, sizeof(name), "nas_%s", nas_columns[i].name);
		csv_field(name, false);
	}
	for (size_t i = 0; i < N_GROUP_COLUMNS; i++)
		csv_field(group_columns[i], i + 1 == N_GROUP_COLUMNS);
}

/* nas: the result's NAS side as nas_json made it, NULL for none; a null
 * figure is an empty cell, never a 0, and a number is written as the JSON
 * writes it. */
static void csv_row(const na_result *r, const json_t *nas, bool fell)
{
	if (r->id)  /* a group's row has no result id of its own: empty, as JSON's null */
		printf("\"%lld\",", (long long)r->id);
	else
		printf("\"\",");
	for (size_t i = 0; i < NA_N_FIELDS; i++) {
		char num[16];
		bool integer = na_fields[i].type == NA_TYPE_INT;
		if (integer)
			snprintf(num, sizeof(num), "%d", int_of(r, i));
		if (na_fields[i].list)
			csv_field(integer ? num : na_field_text(r, (int)i), false);
	}
	for (int d = 0; d < 2; d++)
		for (int i = 0; i < NA_N_STATS; i++) {
			const na_dir_stats *s = d ? &r->write : &r->read;
			char num[48] = "";
			if (s->present && na_stat_value(s, i) >= 0)
				snprintf(num, sizeof(num), "%.3f", na_stat_value(s, i));
			if (na_stats[i].type == NA_TYPE_REAL)
				csv_field(num, false);
		}
	char labels[1024] = "";
	size_t len = 0;
	for (size_t i = 0; i < r->n_labels && len < sizeof(labels); i++)
		len += (size_t)snprintf(labels + len, sizeof(labels) - len, "%s%s=%s", i ? ";" : "",
		                        r->labels[i].key, r->labels[i].value);
	csv_field(fell ? "true" : "false", false);
	csv_field(labels, false);
	for (size_t i = 0; i < N_NAS_COLUMNS; i++) {
		json_t *v = json_object_get(nas, nas_columns[i].name);
		/* reals to a double's 15 sure digits (a Unix time's milliseconds
		 * too): a sheet's cell, not the 17 of a round trip's binary noise
		 * ("0.8999999999999999") */
		char *text = v && !json_is_null(v) && !json_is_string(v)
		                 ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_PRESERVE_ORDER |
		                                  JSON_REAL_PRECISION(15))
		                 : NULL;
		csv_field(text ? text : json_string_value(v), false);
		free(text);
	}
}

/* A row's cells that are not its fields as stored: "2026-12-05 10:13",
 * "randwrite-4k-qd1 #2", "R 17,700 W 5,900", the worse direction's p99. */
static void table_cells(const na_result *r, char id[24], char started[20], char profile[160],
                        char iops[80], char p99[32])
{
	snprintf(id, 24, "%lld", (long long)r->id);
	snprintf(started, 20, "%.16s", r->started_at ? r->started_at : "-");
	char *t = strchr(started, 'T');
	if (t)
		*t = ' ';
	snprintf(profile, 160, "%s #%d", r->profile ? r->profile : "-", r->repetition);
	const na_dir_stats *d[2] = {&r->read, &r->write};
	char n[32];
	size_t len = 0;
	double worst = -1;
	iops[0] = '\0';
	for (int i = 0; i < 2; i++) {
		if (!d[i]->present)
			continue;
		len += (size_t)snprintf(iops + len, 80 - len, "%s%c %s", len ? " " : "", "RW"[i],
		                        na_number_text(d[i]->iops, n, sizeof(n)));
		if (d[i]->p99_us > worst)
			worst = d[i]->p99_us;
	}
	if (!len)
		snprintf(iops, 80, "-");
	if (worst > 0)
		na_report_latency(worst, p99, 32);
	else
		snprintf(p99, 32, "-");
}

/* Group g as a result, for the one list of fields: r's provenance (its
 * first member's), the group's start, profile, repetition and figures,
 * vms ("4 VMs") as its VM, no host (its members' may differ), its status
 * "ok" or "incomplete" and why. */
static na_result group_result(const na_result *r, const na_group_row *g, char vms[32])
{
	na_result x = *r;
	snprintf(vms, 32, "%d VMs", g->vms);
	x.id = 0;
	x.uuid = g->uuid;
	x.started_at = g->started_at;
	x.finished_at = x.host = x.fio_json = x.host_counters_json = NULL;
	x.profile = g->profile;
	x.repetition = g->repetition;
	x.vm = vms;
	x.status = g->why ? "incomplete" : "ok";
	x.error = g->why;
	x.read = g->read;
	x.write = g->write;
	return x;
}

/* The common window's length (each direction's runtime is it). */
static int64_t window_ms(const na_group_row *g)
{
	return g->read.runtime_ms > g->write.runtime_ms ? g->read.runtime_ms : g->write.runtime_ms;
}

static json_t *real_or_null(double v)
{
	return v >= 0 ? json_real(v) : json_null();
}

/* A group waiting for its members' rows (JSON): each fills its place. */
typedef struct pending {
	int64_t id;
	json_t *o;
	size_t left;  /* members' rows not seen yet */
	int64_t member;              /* a member's result: the group's key for its verdict */
	na_limit_members seen;       /* the members' rows seen: no query runs inside the listing */
} pending;

typedef struct listing {
	const results_args *a;
	na_store *store;
	na_table *table;
	size_t n, printed;       /* rows read; JSON objects printed */
	int64_t *groups;         /* the groups shown as one row already */
	size_t n_groups;
	pending *open;           /* JSON: groups whose members are still to come */
	size_t n_open;
	na_fallbacks fallbacks;  /* each campaign target's, asked once */
	na_limit_bases bases;    /* JSON: the NAS-local results, read before the listing */
} listing;

static void print_json(listing *l, json_t *o)
{
	char *s = json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT);
	printf("%s\n  %s", l->printed++ ? "," : "", s ? s : "null");
	free(s);
	json_decref(o);
}

/* A member's place in its group's JSON, before its row comes. */
static int member_json(const na_group_member *m, const char *uuid, void *ud, vs_error *err)
{
	(void)uuid;
	(void)err;
	pending *p = ud;
	json_array_append_new(json_object_get(p->o, "members"),
	                      json_pack("{s:o, s:s, s:o}", "id", m->result_id ? json_integer(m->result_id)
	                                                                      : json_null(),
	                                "vm", m->vm, "why", m->why ? json_string(m->why) : json_null()));
	p->left += m->result_id != 0;
	return VS_OK;
}

/* "12:fleet-01;13:fleet-02" */
static int member_csv(const na_group_member *m, const char *uuid, void *ud, vs_error *err)
{
	(void)uuid;
	(void)err;
	char *cell = ud;
	size_t len = strlen(cell);
	char id[24] = "-";
	if (m->result_id)
		snprintf(id, sizeof(id), "%lld", (long long)m->result_id);
	snprintf(cell + len, 4096 - len, "%s%s:%s", len ? ";" : "", id, m->vm);
	return VS_OK;
}

/* The group's own CSV cells (g->id 0: a single result's, empty). */
static int csv_group_cells(listing *l, const na_group_row *g, bool whole, vs_error *err)
{
	char cells[N_GROUP_COLUMNS - 1][48] = {{0}};
	char members[4096] = "";
	int rc = VS_OK;
	if (g->id)
		snprintf(cells[0], sizeof(cells[0]), "%lld", (long long)g->id);
	if (whole) {
		snprintf(cells[1], sizeof(cells[1]), "%d", g->vms);
		if (g->start_skew_ms >= 0)
			snprintf(cells[2], sizeof(cells[2]), "%.3f", g->start_skew_ms);
		snprintf(cells[3], sizeof(cells[3]), "%lld", (long long)window_ms(g));
		snprintf(cells[4], sizeof(cells[4]), "%s", g->slowest_vm ? g->slowest_vm : "");
		if (g->slowest_share >= 0)
			snprintf(cells[5], sizeof(cells[5]), "%.3f", g->slowest_share);
		rc = na_store_group_members(l->store, g->id, member_csv, members, err);
	}
	for (size_t i = 0; i + 1 < N_GROUP_COLUMNS; i++)
		csv_field(cells[i], false);
	csv_field(members, true);
	return rc;
}

/* target's cell: its name, and "(ran as NFS 3)" when it fell back. */
static void target_cell(const na_result *r, bool fell, char target[160])
{
	snprintf(target, 160, "%s%s", r->target ? r->target : "-", fell ? " (ran as NFS 3)" : "");
}

/* Whether group g (id 0: none) is shown already; else notes it shown. */
static bool shown_before(listing *l, const na_group_row *g)
{
	for (size_t i = 0; i < l->n_groups; i++)
		if (l->groups[i] == g->id)
			return true;
	int64_t *more = realloc(l->groups, (l->n_groups + 1) * sizeof(*more));
	if (!more)
		return true;
	l->groups = more;
	l->groups[l->n_groups++] = g->id;
	return false;
}

/* A group's first member seen stands for the group: one row with its
 * figures; the others add none. */
static void group_row(listing *l, const na_result *r, const na_group_row *g, bool fell)
{
	char id[24], started[20], profile[160], iops[80], p99[32], vms[32], target[160];
	na_result x = group_result(r, g, vms);
	table_cells(&x, id, started, profile, iops, p99);
	snprintf(id, sizeof(id), "group %lld", (long long)g->id);
	target_cell(r, fell, target);
	const char *cells[] = {id, started, target, profile, "-", r->esxi_build,
	                       r->datastore, na_nfs_label(r->datastore_type), vms,
	                       x.status, iops, p99};
	na_table_add(l->table, cells);
}

static int group_nas_json(const na_group_nas_row *p, void *ud, vs_error *err)
{
	(void)err;
	json_array_append_new(ud, na_group_nas_json(p));
	return VS_OK;
}

/* The NAS rows of r's group (an array; null outside a group). */
static int group_nas(listing *l, const na_group_row *g, json_t **out, vs_error *err)
{
	*out = g->id ? json_array() : json_null();
	return g->id ? na_store_group_nas_of(l->store, g->id, group_nas_json, *out, err) : VS_OK;
}

/* Opens group g's JSON row at its first member seen (r): the group as a
 * result, its own figures, and a place for each member. */
static int open_group(listing *l, const na_result *r, const na_group_row *g, bool fell,
                      vs_error *err)
{
	pending *more = realloc(l->open, (l->n_open + 1) * sizeof(*more));
	if (!more)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	l->open = more;
	char vms[32];
	na_result x = group_result(r, g, vms);
	json_t *o = result_json(&x, false), *pools = NULL;
	json_object_set_new(o, "id", json_null());
	json_object_set_new(o, "group", json_integer((json_int_t)g->id));
	json_object_set_new(o, "vms", json_integer(g->vms));
	json_object_set_new(o, "iops", real_or_null(g->iops));
	json_object_set_new(o, "window_ms", json_integer((json_int_t)window_ms(g)));
	json_object_set_new(o, "start_skew_ms", real_or_null(g->start_skew_ms));
	json_object_set_new(o, "slowest_vm", g->slowest_vm ? json_string(g->slowest_vm) : json_null());
	json_object_set_new(o, "slowest_share", real_or_null(g->slowest_share));
	json_object_set_new(o, "members", json_array());
	json_object_set_new(o, "nas", json_null());
	int rc = group_nas(l, g, &pools, err);
	json_object_set_new(o, "group_nas", pools);
	json_object_set_new(o, "ran_as_nfs3", json_boolean(fell));
	pending *p = &l->open[l->n_open++];
	*p = (pending){g->id, o, 0, r->id, {0}};
	return rc == VS_OK ? na_store_group_members(l->store, g->id, member_json, p, err) : rc;
}

/* Prints open group i with its verdict and forgets it.  Inside the listing
 * every member was seen; after it, the members the selection left out are
 * read. */
static int close_group(listing *l, size_t i, vs_error *err)
{
	pending *p = &l->open[i];
	na_limit lim;
	int rc = na_limit_of_group(l->store, &l->bases, p->member, &p->seen, &lim, err);
	json_object_set_new(p->o, "limited_by", rc == VS_OK ? na_limit_json(&lim) : json_null());
	print_json(l, p->o);
	na_limit_members_free(&p->seen);
	memmove(&l->open[i], &l->open[i + 1], (--l->n_open - i) * sizeof(*l->open));
	return rc;
}

/* r takes its place in its group's JSON row (opened first); the row is
 * printed once its last member's came. */
static int fill_member(listing *l, const na_result *r, const na_group_row *g, bool fell,
                       vs_error *err)
{
	int rc = shown_before(l, g) ? VS_OK : open_group(l, r, g, fell, err);
	size_t i = 0;
	while (i < l->n_open && l->open[i].id != g->id)
		i++;
	if (rc != VS_OK || i == l->n_open)
		return rc;
	json_t *members = json_object_get(l->open[i].o, "members"), *m;
	size_t at;
	json_array_foreach(members, at, m) {
		if (json_integer_value(json_object_get(m, "id")) != r->id)
			continue;
		json_t *full = result_json(r, l->a->full);
		json_object_set(full, "why", json_object_get(m, "why"));
		json_array_set_new(members, at, full);
		l->open[i].left--;
		rc = na_limit_members_add(&l->open[i].seen, r, err);
		break;
	}
	if (rc == VS_OK && !l->open[i].left)
		rc = close_group(l, i, err);
	return rc;
}

static int on_row(const na_result *r, void *ud, vs_error *err)
{
	listing *l = ud;
	/* The header waits for the first row: a selection that matches
	 * nothing prints nothing but why. */
	if (!l->n && l->a->json)
		fputs("[", stdout);
	if (!l->n && l->a->csv)
		csv_header();
	l->n++;
	json_t *nas = NULL;
	bool found;
	na_group_row g = {0};
	int rc = l->a->json || l->a->csv ? na_store_nas_of(l->store, r->id, nas_json, &nas, &found, err)
	                                 : VS_OK;
	if (rc == VS_OK)
		rc = na_store_group_of(l->store, r->id, &g, err);
	bool fell = false;
	if (rc == VS_OK)
		rc = na_ran_as_nfs3(l->store, &l->fallbacks, r->campaign, r->target, r->datastore_type, &fell,
		                    err);
	bool as_group = rc == VS_OK && g.id && !l->a->members;
	if (as_group && l->a->json) {
		rc = fill_member(l, r, &g, fell, err);
	} else if (as_group && l->a->csv && !shown_before(l, &g)) {
		char vms[32];
		na_result x = group_result(r, &g, vms);
		csv_row(&x, NULL, fell);
		rc = csv_group_cells(l, &g, true, err);
	} else if (as_group && !l->a->csv && !shown_before(l, &g)) {
		group_row(l, r, &g, fell);
	} else if (rc == VS_OK && !as_group && l->a->json) {
		json_t *o = result_json(r, l->a->full), *pools = NULL;
		json_object_set_new(o, "nas", nas ? json_incref(nas) : json_null());
		json_object_set_new(o, "group", g.id ? json_integer((json_int_t)g.id) : json_null());
		rc = group_nas(l, &g, &pools, err);
		json_object_set_new(o, "group_nas", pools);
		json_object_set_new(o, "ran_as_nfs3", json_boolean(fell));
		na_limit lim;
		if (rc == VS_OK)
			rc = na_limit_of_stored(l->store, &l->bases, r, &lim, err);
		json_object_set_new(o, "limited_by", rc == VS_OK ? na_limit_json(&lim) : json_null());
		print_json(l, o);
	} else if (rc == VS_OK && !as_group && l->a->csv) {
		csv_row(r, nas, fell);
		rc = csv_group_cells(l, &g, false, err);
	} else if (rc == VS_OK && !as_group) {
		char id[24], started[20], profile[160], iops[80], p99[32], target[160];
		table_cells(r, id, started, profile, iops, p99);
		target_cell(r, fell, target);
		const char *cells[] = {id, started, target, profile, r->host,
		                       r->esxi_build, r->datastore, na_nfs_label(r->datastore_type), r->vm,
		                       r->status, iops, p99};
		na_table_add(l->table, cells);
	}
	json_decref(nas);
	na_group_row_clear(&g);
	return rc;
}

static vs_status list(const results_args *a, na_outcome *out)
{
	static const char *const headers[] = {"ID", "STARTED (UTC)", "TARGET", "PROFILE", "HOST",
	                                      "BUILD", "DATASTORE", "PROTOCOL", "VM", "STATUS",
	                                      "IOPS", "P99"};
	na_store *store = NULL;
	vs_error *err = &out->err;
	vs_status rc = na_store_open_readonly(a->db, &store, err);
	listing l = {.a = a, .store = store};
	/* HOST, VM, BUILD: what the provenance (--json) and --wide keep */
	static const size_t droppable[] = {4, 8, 5};
	if (rc == VS_OK && !a->json && !a->csv)
		l.table = na_table_new(12, headers);
	if (l.table && !a->wide)
		na_table_fit(l.table, droppable, 3);
	if (rc == VS_OK && a->json)
		rc = na_limit_bases_load(store, &l.bases, err);
	if (rc == VS_OK)
		rc = na_store_query(store, a->where, a->n_where, on_row, &l, err);
	/* Nothing selected is an error (a name that matched nothing, exit 2);
	 * an empty database is not, but says so. */
	bool none = rc == VS_OK && !l.n;
	if (none)
		rc = na_store_explain_none(store, a->where, a->n_where, err);
	if (none && !a->n_where) {
		na_warn("%s", err->message);
		rc = VS_OK;
		if (a->json)
			fputs("[", stdout);
		if (a->csv)
			csv_header();
	}
	/* groups some of whose members the selection left out */
	while (rc == VS_OK && l.n_open)
		rc = close_group(&l, 0, err);
	for (size_t i = 0; i < l.n_open; i++) {
		json_decref(l.open[i].o);
		na_limit_members_free(&l.open[i].seen);
	}
	free(l.open);
	na_limit_bases_free(&l.bases);
	if (rc == VS_OK && a->json)
		fputs(l.printed ? "\n]\n" : "]\n", stdout);
	if (rc == VS_OK && l.n && l.table)
		na_table_print(l.table, stdout);
	na_table_free(&l.table);
	free(l.groups);
	na_fallbacks_free(&l.fallbacks);
	na_store_close(&store);
	return rc;
}

static int on_option(int opt, const char *arg, void *ud, na_outcome *out)
{
	results_args *a = ud;
	switch (opt) {
	case OPT_CSV: a->csv = true; return 1;
	case OPT_FULL: a->full = true; return 1;
	case OPT_MEMBERS: a->members = true; return 1;
	case OPT_WIDE: a->wide = true; return 1;
	case OPT_DB: a->db = arg; return 1;
	case OPT_WHERE:
		if (!strchr(arg, '=') || arg[0] == '=' || a->n_where == MAX_WHERE) {
			na_usage_error(out, "--where wants KEY=VALUE, not '%s'", arg);
			return -1;
		}
		a->where[a->n_where++] = arg;
		return 1;
	default: return 0;
	}
}

vs_status cmd_results(int argc, char **argv, na_outcome *out)
{
	static const struct option longopts[] = {
		{"where", required_argument, NULL, OPT_WHERE}, {"csv", no_argument, NULL, OPT_CSV},
		{"full", no_argument, NULL, OPT_FULL},         {"db", required_argument, NULL, OPT_DB},
		{"json", no_argument, NULL, NA_OPT_JSON},      {"help", no_argument, NULL, NA_OPT_HELP},
		{"members", no_argument, NULL, OPT_MEMBERS},  {"wide", no_argument, NULL, OPT_WIDE},
		{0},
	};
	results_args a = {0};
	int go = na_parse_local_options(argc, argv, longopts, usage, on_option, &a, &a.json, out);
	if (go <= 0)
		return go < 0 ? out->err.status : VS_OK;
	if (a.json && a.csv)
		return na_usage_error(out, "choose --json or --csv");
	return list(&a, out);
}
