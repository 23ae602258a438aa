/* What nfsagent records in the results database (see store.h): the
 * campaign journal (which steps of a run are done), results (with their
 * journal step in the same transaction, so a kill never leaves one without
 * the other) and findings.  store.c holds the schema, opening and queries;
 * as there, every value is a bound parameter. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store/store_internal.h"

/* ---- the campaign journal ---- */

int na_store_run_claim(na_store *s, const char *run, const char *name, const char *file,
                       const char *now, bool resume, vs_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = na_sql_begin(s, err);
	if (rc == VS_OK)
		rc = na_sql_prepare(s, "SELECT state, pid FROM campaign_runs WHERE run = ?", &st, err);
	if (rc == VS_OK)
		sqlite3_bind_text(st, 1, run, -1, SQLITE_STATIC);
	int step = rc == VS_OK ? sqlite3_step(st) : SQLITE_DONE;
	if (step == SQLITE_ROW) {
		const char *state = (const char *)sqlite3_column_text(st, 0);
		long pid = (long)sqlite3_column_int64(st, 1);
		/* A run is active while the process that claimed it lives. */
		if (strcmp(state, "running") == 0 && pid > 0 && kill((pid_t)pid, 0) == 0)
			rc = vs_fail(err, VS_ERR_USAGE, "campaign '%s' is running already (pid %ld)", name, pid);
		else if (!resume)
			rc = vs_fail(err, VS_ERR_USAGE, "campaign run '%s' exists already", run);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc == VS_OK)
		rc = na_sql_prepare(s, "INSERT INTO campaign_runs (run, name, file, state, pid, "
		                       "started_at, updated_at) VALUES (?1, ?2, ?3, 'running', ?4, ?5, ?5) "
		                       "ON CONFLICT (run) DO UPDATE SET state = 'running', pid = ?4, "
		                       "updated_at = ?5", &st, err);
	if (rc == VS_OK) {
		sqlite3_bind_text(st, 1, run, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, file, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, (sqlite3_int64)getpid());
		sqlite3_bind_text(st, 5, now, -1, SQLITE_STATIC);
		if ((step = sqlite3_step(st)) != SQLITE_DONE)
			rc = na_sql_fail(s, step, err);
	}
	sqlite3_finalize(st);
	rc = na_sql_finish(s, rc, err);
	if (rc != VS_OK && !err->context[0])
		vs_error_context(err, "claim campaign run");
	return rc;
}

/* The newest run of campaign `name` that did not finish (malloc'd), or NULL;
 * an aborted run is finished: it was undone. */
int na_store_run_unfinished(na_store *s, const char *name, char **run, vs_error *err)
{
	sqlite3_stmt *st = NULL;
	*run = NULL;
	int rc = na_sql_prepare(s, "SELECT run FROM campaign_runs WHERE name = ? "
	                           "AND state NOT IN ('done', 'aborted') "
	                           "ORDER BY started_at DESC, run DESC LIMIT 1", &st, err);
	int step = rc == VS_OK ? sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC) : SQLITE_OK;
	if (rc == VS_OK && step == SQLITE_OK)
		step = sqlite3_step(st);
	if (step == SQLITE_ROW && !(*run = strdup((const char *)sqlite3_column_text(st, 0))))
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	else if (rc == VS_OK && step != SQLITE_ROW && step != SQLITE_DONE)
		rc = na_sql_fail(s, step, err);
	sqlite3_finalize(st);
	if (rc != VS_OK)
		vs_error_context(err, "read campaign journal");
	return rc;
}

int na_sql_run(na_store *s, sqlite3_stmt *st, int rc, int bound, vs_error *err)
{
	int step = bound;
	if (rc == VS_OK && step == SQLITE_OK)
		step = sqlite3_step(st);
	if (rc == VS_OK && step != SQLITE_DONE)
		rc = na_sql_fail(s, step, err);
	sqlite3_finalize(st);
	return rc;
}

int na_sql_exec_args(na_store *s, const char *sql, const char *const *args, int n, vs_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = na_sql_prepare(s, sql, &st, err);
	int step = SQLITE_OK;
	for (int i = 0; rc == VS_OK && step == SQLITE_OK && i < n; i++)
		step = sqlite3_bind_text(st, i + 1, args[i], -1, SQLITE_STATIC);
	return na_sql_run(s, st, rc, step, err);
}

/* One journal write in its own transaction. */
static int run_exec(na_store *s, const char *sql, const char *const *args, int n, vs_error *err)
{
	int rc = na_sql_begin(s, err);
	if (rc == VS_OK)
		rc = na_sql_exec_args(s, sql, args, n, err);
	return na_sql_finish(s, rc, err);
}

int na_store_journal_step(na_store *s, const char *run, const char *step, const char *detail,
                        const char *now, vs_error *err)
{
	const char *const args[] = {run, step, detail, now};
	return na_sql_exec_args(s, "INSERT OR REPLACE INTO campaign_steps (run, step, detail, at) "
	                    "VALUES (?1, ?2, ?3, coalesce(?4, strftime('%Y-%m-%dT%H:%M:%SZ', 'now')))",
	                    args, 4, err);
}

int na_store_step_done(na_store *s, const char *run, const char *step, const char *detail,
                       const char *now, vs_error *err)
{
	int rc = na_sql_begin(s, err);
	if (rc == VS_OK)
		rc = na_store_journal_step(s, run, step, detail, now, err);
	return na_sql_finish(s, rc, err);
}

int na_store_run_state(na_store *s, const char *run, const char *state, const char *now,
                       vs_error *err)
{
	const char *const args[] = {run, state, now};
	return run_exec(s, "UPDATE campaign_runs SET state = ?2, updated_at = ?3 WHERE run = ?1", args,
	                3, err);
}

int na_store_step_is_done(na_store *s, const char *run, const char *step, bool *done,
                          char **detail, vs_error *err)
{
	sqlite3_stmt *st = NULL;
	*done = false;
	if (detail)
		*detail = NULL;
	int rc = na_sql_prepare(s, "SELECT detail FROM campaign_steps WHERE run = ? AND step = ?", &st,
	                        err);
	int row = rc == VS_OK ? sqlite3_bind_text(st, 1, run, -1, SQLITE_STATIC) : SQLITE_OK;
	if (row == SQLITE_OK && rc == VS_OK)
		row = sqlite3_bind_text(st, 2, step, -1, SQLITE_STATIC);
	if (row == SQLITE_OK && rc == VS_OK)
		row = sqlite3_step(st);
	const char *d = row == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
	if (row == SQLITE_ROW)
		*done = true;
	if (d && detail && !(*detail = strdup(d)))
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	else if (rc == VS_OK && row != SQLITE_ROW && row != SQLITE_DONE)
		rc = na_sql_fail(s, row, err);
	sqlite3_finalize(st);
	if (rc != VS_OK) {
		*done = false;
		vs_error_context(err, "read campaign journal");
	}
	return rc;
}

/* ---- results, each with its journal step when it has one ---- */

void (*na_store_midwrite_hook)(void);

static int check_result(const na_result *r, vs_error *err)
{
	if (!r->started_at)
		return vs_fail(err, VS_ERR_USAGE, "a result needs its start time");
	if (!r->status || (strcmp(r->status, "ok") != 0 && strcmp(r->status, "failed") != 0))
		return vs_fail(err, VS_ERR_USAGE, "a result's status is 'ok' or 'failed', not '%s'",
		               r->status ? r->status : "(none)");
	if (strcmp(r->status, "failed") == 0 && !r->error)
		return vs_fail(err, VS_ERR_USAGE, "a failed result needs its error");
	for (size_t i = 0; i < r->n_labels; i++) {
		const na_label *l = &r->labels[i];
		if (!l->key || !l->key[0] || strchr(l->key, '=') || !l->value)
			return vs_fail(err, VS_ERR_USAGE, "label '%s' needs a key without '=' and a value",
			               l->key ? l->key : "");
	}
	return VS_OK;
}

na_value na_column_value(const na_result *r, const na_column *c)
{
	const char *field = (const char *)r + c->off;
	na_value v = {.type = c->type};
	/* A failed run has no statistics: whatever fio printed is not a result. */
	if (c->dir && (!((const na_dir_stats *)((const char *)r + c->dir))->present ||
	               strcmp(r->status, "failed") == 0))
		v.null = true;
	else if (c->type == NA_TYPE_TEXT)
		v.null = !(v.text = *(const char *const *)field);
	else if (c->type == NA_TYPE_INT)
		v.i = *(const int *)field;
	else if (c->type == NA_TYPE_REAL)
		v.d = *(const double *)field;
	else
		v.i = *(const int64_t *)field;
	return v;
}

static int bind_column(sqlite3_stmt *st, int at, const na_column *c, const na_result *r)
{
	na_value v = na_column_value(r, c);
	return na_sql_bind(st, at, &v);
}

/* Whether the file has column c: one held at an older schema
 * (na_store_open_version, for tests) lacks runner and uuid before
 * NA_SCHEMA_UUID, the link and the NFS client before their steps. */
static bool has_column(const na_store *s, const na_column *c)
{
	if (c->off == offsetof(na_result, nfs_client))
		return s->version >= na_schema_version_of(na_schema_nfs_client_step);
	bool link = c->off == offsetof(na_result, link_speed_mbit) || c->off == offsetof(na_result, link_nic);
	bool uuid = c->off == offsetof(na_result, runner) || c->off == offsetof(na_result, uuid);
	if (c->off == offsetof(na_result, site))
		return s->version >= na_schema_version_of(na_schema_site_step);
	return link ? s->version >= na_schema_version_of(na_schema_link_step)
	            : s->version >= NA_SCHEMA_UUID || !uuid;
}

static int insert_result(na_store *s, na_result *r, vs_error *err)
{
	sqlite3_str *t = sqlite3_str_new(s->db);
	sqlite3_str_appendall(t, "INSERT INTO results (");
	int n = 0;
	for (size_t i = 0; i < na_n_columns; i++)
		if (has_column(s, &na_columns[i]))
			sqlite3_str_appendf(t, "%s%s", n++ ? ", " : "", na_columns[i].name);
	sqlite3_str_appendall(t, ") VALUES (");
	for (int i = 0; i < n; i++)
		sqlite3_str_appendall(t, i ? ", ?" : "?");
	sqlite3_str_appendall(t, ")");
	char *sql = sqlite3_str_finish(t);
	sqlite3_stmt *st = NULL;
	int rc = sql ? na_sql_prepare(s, sql, &st, err) : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	int step = SQLITE_OK, at = 1;
	for (size_t i = 0; rc == VS_OK && step == SQLITE_OK && i < na_n_columns; i++)
		if (has_column(s, &na_columns[i]))
			step = bind_column(st, at++, &na_columns[i], r);
	if (rc == VS_OK && step == SQLITE_OK)
		step = sqlite3_step(st);
	if (rc == VS_OK && step != SQLITE_DONE && sqlite3_extended_errcode(s->db) == SQLITE_CONSTRAINT_UNIQUE)
		rc = vs_fail(err, VS_ERR_USAGE, "run %s has a result for target %s, repetition %d, "
		             "profile %s already", r->campaign, r->target, r->repetition, r->profile);
	else if (rc == VS_OK && step != SQLITE_DONE)
		rc = na_sql_fail(s, step, err);
	r->id = rc == VS_OK ? sqlite3_last_insert_rowid(s->db) : 0;
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rc;
}

static int insert_labels(na_store *s, const na_result *r, vs_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = na_sql_prepare(s, "INSERT INTO result_labels (result_id, key, value) VALUES (?, ?, ?)",
	                        &st, err);
	for (size_t i = 0; rc == VS_OK && i < r->n_labels; i++) {
		sqlite3_reset(st);
		int step = sqlite3_bind_int64(st, 1, r->id);
		if (step == SQLITE_OK)
			step = sqlite3_bind_text(st, 2, r->labels[i].key, -1, SQLITE_STATIC);
		if (step == SQLITE_OK)
			step = sqlite3_bind_text(st, 3, r->labels[i].value, -1, SQLITE_STATIC);
		if (step == SQLITE_OK)
			step = sqlite3_step(st);
		if (step != SQLITE_DONE)
			rc = na_sql_fail(s, step, err);
	}
	sqlite3_finalize(st);
	return rc;
}

/* A version 4 UUID (random), as PostgreSQL's uuid type writes it. */
int na_store_make_uuid(char out[37], vs_error *err)
{
	unsigned char b[16];
	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
		return vs_fail(err, VS_ERR_FAULT, "cannot make a UUID: no random bytes");
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	char *p = out;
	for (int i = 0; i < 16; i++)
		p += sprintf(p, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", b[i]);
	return VS_OK;
}

/* The runner is the machine that records: results and findings from many
 * runners meet in a central database.  NULL when it has no name. */
static const char *runner_of(char buf[256])
{
	buf[255] = '\0';
	return gethostname(buf, 255) == 0 && buf[0] ? buf : NULL;
}

int na_store_add_journaled(na_store *s, na_result *r, const char *step, vs_error *err)
{
	char uuid[37], runner[256];
	r->runner = runner_of(runner);
	r->uuid = uuid;
	if (!r->site)
		r->site = "guest";
	int rc = na_store_make_uuid(uuid, err);
	if (rc == VS_OK)
		rc = check_result(r, err);
	if (rc == VS_OK && step && !r->campaign)
		rc = vs_fail(err, VS_ERR_USAGE, "a journaled result needs its campaign run");
	if (rc == VS_OK)
		rc = na_sql_begin(s, err);
	if (rc == VS_OK)
		rc = insert_result(s, r, err);
	if (rc == VS_OK && na_store_midwrite_hook)
		na_store_midwrite_hook();
	if (rc == VS_OK)
		rc = insert_labels(s, r, err);
	if (rc == VS_OK)
		rc = na_bins_insert(s, r->id, err);
	if (rc == VS_OK && r->nas)
		rc = na_nas_insert(s, r->nas, r->id, err);
	char id[24];
	snprintf(id, sizeof(id), "%lld", (long long)r->id);
	if (rc == VS_OK && step)
		rc = na_store_journal_step(s, r->campaign, step, id, r->finished_at ? r->finished_at : r->started_at,
		                  err);
	rc = na_sql_finish(s, rc, err);
	/* they live in this frame: a caller reads them back with a query */
	r->runner = r->uuid = NULL;
	if (rc != VS_OK) {
		r->id = 0;
		vs_error_context(err, "record result");
	}
	return rc;
}

int na_store_add(na_store *s, na_result *r, vs_error *err)
{
	return na_store_add_journaled(s, r, NULL, err);
}

/* ---- findings ---- */

int na_store_add_finding(na_store *s, na_finding *f, vs_error *err)
{
	sqlite3_stmt *st = NULL;
	char uuid[37], buf[256];
	const char *runner = runner_of(buf);
	int rc = na_store_make_uuid(uuid, err);
	if (rc == VS_OK)
		rc = na_sql_begin(s, err);
	if (rc == VS_OK)
		rc = na_sql_prepare(s, "INSERT INTO findings (at, kind, campaign, target, host, esxi_version, "
		                       "esxi_build, datastore, datastore_type, servers, export_path, vm, "
		                       "extent_bug, verdict, evidence_json, extent_case, runner, uuid) "
		                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &st, err);
	const char *const text[] = {f->at, f->kind, f->campaign, f->target, f->host, f->esxi_version,
	                            f->esxi_build, f->datastore, f->datastore_type, f->servers,
	                            f->export_path, f->vm};
	int step = SQLITE_OK;
	for (int i = 0; rc == VS_OK && step == SQLITE_OK && i < 12; i++)
		step = sqlite3_bind_text(st, i + 1, text[i], -1, SQLITE_STATIC);
	if (rc == VS_OK && step == SQLITE_OK)
		step = sqlite3_bind_int(st, 13, f->extent_bug);
	if (rc == VS_OK && step == SQLITE_OK)
		step = sqlite3_bind_text(st, 14, f->verdict, -1, SQLITE_STATIC);
	if (rc == VS_OK && step == SQLITE_OK)
		step = sqlite3_bind_text(st, 15, f->evidence_json, -1, SQLITE_STATIC);
	if (rc == VS_OK && step == SQLITE_OK)
		step = sqlite3_bind_text(st, 16, f->extent_case, -1, SQLITE_STATIC);
	if (rc == VS_OK && step == SQLITE_OK)
		step = sqlite3_bind_text(st, 17, runner, -1, SQLITE_STATIC);
	if (rc == VS_OK && step == SQLITE_OK)
		step = sqlite3_bind_text(st, 18, uuid, -1, SQLITE_STATIC);
	if (rc == VS_OK && step == SQLITE_OK)
		step = sqlite3_step(st);
	if (rc == VS_OK && step != SQLITE_DONE)
		rc = na_sql_fail(s, step, err);
	f->id = rc == VS_OK ? sqlite3_last_insert_rowid(s->db) : 0;
	sqlite3_finalize(st);
	rc = na_sql_finish(s, rc, err);
	if (rc != VS_OK)
		vs_error_context(err, "record finding");
	return rc;
}

/* The findings column condition "field=value" selects by (a result
 * field's alias: its name), or NULL. */
const char *na_finding_column(const char *cond)
{
	static const char *const fields[] = {"kind", "campaign", "target", "host", "esxi_version",
	                                     "esxi_build", "datastore", "datastore_type", "servers",
	                                     "export_path", "vm"};
	const char *eq = strchr(cond, '=');
	size_t len = eq ? (size_t)(eq - cond) : 0;
	int f = len ? na_field_named(cond, len) : -1;
	if (f >= 0) {
		cond = na_fields[f].name;
		len = strlen(cond);
	}
	for (size_t k = 0; len && k < sizeof(fields) / sizeof(*fields); k++)
		if (strlen(fields[k]) == len && strncmp(cond, fields[k], len) == 0)
			return fields[k];
	return NULL;
}

int na_store_findings(na_store *s, const char *const *conds, size_t n, na_finding_fn fn, void *ud,
                      vs_error *err)
{
	if (s->reader)
		return na_central_findings(s, conds, n, fn, ud, err);
	sqlite3_str *t = sqlite3_str_new(s->db);
	sqlite3_str_appendall(t, "SELECT id, at, kind, campaign, target, host, esxi_version, esxi_build, "
	                         "datastore, datastore_type, servers, export_path, vm, extent_bug, "
	                         "verdict, evidence_json, extent_case FROM findings WHERE 1 = 1");
	int rc = VS_OK;
	for (size_t i = 0; rc == VS_OK && i < n; i++) {
		const char *col = na_finding_column(conds[i]);
		if (!col)
			rc = vs_fail(err, VS_ERR_USAGE, "findings cannot be selected by '%s'", conds[i]);
		else
			sqlite3_str_appendf(t, " AND %s = ?", col);
	}
	sqlite3_str_appendall(t, " ORDER BY id");
	char *sql = sqlite3_str_finish(t);
	sqlite3_stmt *st = NULL;
	if (rc == VS_OK)
		rc = sql ? na_sql_prepare(s, sql, &st, err) : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	int step = SQLITE_OK;
	for (size_t i = 0; rc == VS_OK && step == SQLITE_OK && i < n; i++) {
		const char *v = strchr(conds[i], '=') + 1;
		if (strcmp(na_finding_column(conds[i]), "datastore_type") == 0)
			v = na_protocol_value(v);
		step = sqlite3_bind_text(st, (int)i + 1, v, -1, SQLITE_STATIC);
	}
	if (rc == VS_OK && step != SQLITE_OK)
		rc = na_sql_fail(s, step, err);
	step = SQLITE_ROW;
	while (rc == VS_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *c[17];
		for (int i = 1; i < 17; i++)
			c[i] = (const char *)sqlite3_column_text(st, i);
		na_finding f = {sqlite3_column_int64(st, 0), c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8],
		                c[9], c[10], c[11], c[12], sqlite3_column_int(st, 13) != 0, c[14], c[15],
		                c[16]};
		rc = fn(&f, ud, err);
	}
	if (rc == VS_OK && step != SQLITE_DONE)
		rc = na_sql_fail(s, step, err);
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rc;
}
