/* A group run in the results database: the group (result_groups) and the
 * link to its members, which are ordinary results.  The group's figures
 * live in its own row, not in results, so that compare, regress and report,
 * which pool results by profile and provenance, never pool a group's sums
 * with one VM's runs (docs/groups.md). */
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

#define DIR_COLUMNS(d) \
	" " d "_iops REAL, " d "_bw_bytes REAL, " d "_lat_mean_us REAL, " d "_p50_us REAL," \
	" " d "_p95_us REAL, " d "_p99_us REAL, " d "_p999_us REAL, " d "_max_us REAL," \
	" " d "_total_ios INTEGER, " d "_runtime_ms INTEGER,"
#define GROUP_TABLES(temp)                                                                   \
	"CREATE " temp "TABLE result_groups ("                                                   \
	" id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, started_at TEXT NOT NULL,"          \
	" profile TEXT NOT NULL, repetition INTEGER NOT NULL, vms INTEGER NOT NULL,"             \
	" start_skew_ms REAL, incomplete INTEGER NOT NULL, why TEXT,"                            \
	DIR_COLUMNS("read") DIR_COLUMNS("write")                                                 \
	" iops REAL, slowest_vm TEXT, slowest_share REAL,"                                       \
	" CHECK (NOT incomplete OR why IS NOT NULL));"                                           \
	"CREATE " temp "TABLE result_group_members ("                                            \
	" group_id INTEGER NOT NULL REFERENCES result_groups (id) ON DELETE CASCADE,"            \
	" vm TEXT NOT NULL, result_id INTEGER REFERENCES results (id) ON DELETE CASCADE,"        \
	" why TEXT, PRIMARY KEY (group_id, vm));"

const char na_store_group_schema[] = GROUP_TABLES("")
	"CREATE INDEX result_group_members_result ON result_group_members (result_id);";
/* A reader of an older file: no group, and no result in one. */
const char na_store_group_none[] = GROUP_TABLES("TEMP ");

int na_store_group_begin(na_store *s, vs_error *err)
{
	if (s->version < NA_SCHEMA_GROUPS)
		return vs_fail(err, VS_ERR_USAGE, "%s is held at schema %d: a group needs %d", s->path,
		               s->version, NA_SCHEMA_GROUPS);
	int rc = na_sql_begin(s, err);
	s->in_group = rc == VS_OK;
	return rc;
}

static int bind_dir(sqlite3_stmt *st, int at, const na_dir_stats *d)
{
	const double v[] = {d->iops, d->bw_bytes, d->lat_mean_us, d->p50_us, d->p95_us, d->p99_us,
	                    d->p999_us, d->max_us};
	int rc = SQLITE_OK;
	for (int i = 0; rc == SQLITE_OK && i < 8; i++)
		rc = !d->present || (i >= 3 && v[i] < 0) ? sqlite3_bind_null(st, at + i)
		                                         : sqlite3_bind_double(st, at + i, v[i]);
	if (rc == SQLITE_OK)
		rc = d->present ? sqlite3_bind_int64(st, at + 8, d->total_ios) : sqlite3_bind_null(st, at + 8);
	if (rc == SQLITE_OK)
		rc = d->present ? sqlite3_bind_int64(st, at + 9, d->runtime_ms) : sqlite3_bind_null(st, at + 9);
	return rc;
}

static int insert_group(na_store *s, na_group_row *g, vs_error *err)
{
	char uuid[37];
	sqlite3_stmt *st = NULL;
	int rc = na_store_make_uuid(uuid, err);
	if (rc == VS_OK)
		rc = na_sql_prepare(s, "INSERT INTO result_groups (uuid, started_at, profile, repetition, vms,"
		                       " start_skew_ms, incomplete, why,"
		                       " read_iops, read_bw_bytes, read_lat_mean_us, read_p50_us, read_p95_us,"
		                       " read_p99_us, read_p999_us, read_max_us, read_total_ios, read_runtime_ms,"
		                       " write_iops, write_bw_bytes, write_lat_mean_us, write_p50_us,"
		                       " write_p95_us, write_p99_us, write_p999_us, write_max_us,"
		                       " write_total_ios, write_runtime_ms, iops, slowest_vm, slowest_share)"
		                       " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
		                       " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &st, err);
	int step = SQLITE_OK;
	if (rc == VS_OK) {
		sqlite3_bind_text(st, 1, uuid, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, g->started_at, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, g->profile, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 4, g->repetition);
		sqlite3_bind_int(st, 5, g->vms);
		if (g->start_skew_ms >= 0)
			sqlite3_bind_double(st, 6, g->start_skew_ms);
		sqlite3_bind_int(st, 7, g->why != NULL);
		sqlite3_bind_text(st, 8, g->why, -1, SQLITE_STATIC);
		step = bind_dir(st, 9, &g->read);
	}
	if (rc == VS_OK && step == SQLITE_OK)
		step = bind_dir(st, 19, &g->write);
	if (rc == VS_OK && step == SQLITE_OK && g->slowest_vm) {
		sqlite3_bind_double(st, 29, g->iops);
		sqlite3_bind_text(st, 30, g->slowest_vm, -1, SQLITE_STATIC);
		step = sqlite3_bind_double(st, 31, g->slowest_share);
	}
	if (rc == VS_OK && step == SQLITE_OK)
		step = sqlite3_step(st);
	if (rc == VS_OK && step != SQLITE_DONE)
		rc = na_sql_fail(s, step, err);
	g->id = rc == VS_OK ? sqlite3_last_insert_rowid(s->db) : 0;
	sqlite3_finalize(st);
	return rc;
}

static int insert_member(na_store *s, int64_t group, const na_group_member *m, vs_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = na_sql_prepare(s, "INSERT INTO result_group_members (group_id, vm, result_id, why)"
	                           " VALUES (?, ?, ?, ?)", &st, err);
	int step = SQLITE_OK;
	if (rc == VS_OK) {
		sqlite3_bind_int64(st, 1, group);
		sqlite3_bind_text(st, 2, m->vm, -1, SQLITE_STATIC);
		if (m->result_id)
			sqlite3_bind_int64(st, 3, m->result_id);
		sqlite3_bind_text(st, 4, m->why, -1, SQLITE_STATIC);
		step = sqlite3_step(st);
	}
	if (rc == VS_OK && step != SQLITE_DONE)
		rc = na_sql_fail(s, step, err);
	sqlite3_finalize(st);
	return rc;
}

int na_store_group_journal(na_store *s, const char *run, const char *step, vs_error *err)
{
	free(s->group_run);
	free(s->group_step);
	s->group_run = run ? strdup(run) : NULL;
	s->group_step = run ? strdup(step) : NULL;
	return !run || (s->group_run && s->group_step) ? VS_OK
	                                               : vs_fail(err, VS_ERR_NOMEM, "out of memory");
}

/* The campaign's step, if one waits for this group: journaled with its id. */
static int journal_group(na_store *s, const na_group_row *g, vs_error *err)
{
	if (!s->group_step)
		return VS_OK;
	char id[24];
	snprintf(id, sizeof(id), "%lld", (long long)g->id);
	return na_store_journal_step(s, s->group_run, s->group_step, id, NULL, err);
}

int na_store_group_end(na_store *s, int rc, na_group_row *g, const na_group_member *m, size_t n,
                       vs_error *err)
{
	if (!s->in_group)
		return rc != VS_OK ? rc : vs_fail(err, VS_ERR_USAGE, "no group's transaction is open");
	s->in_group = false;
	if (rc == VS_OK)
		rc = insert_group(s, g, err);
	for (size_t i = 0; rc == VS_OK && i < n; i++)
		rc = insert_member(s, g->id, &m[i], err);
	/* a file held at an older schema records the group without it */
	for (size_t i = 0; rc == VS_OK && s->version >= NA_SCHEMA_GROUP_NAS && i < g->n_nas; i++)
		rc = na_store_group_nas_insert(s, g->id, &g->nas[i], err);
	if (rc == VS_OK)
		rc = journal_group(s, g, err);
	na_store_group_journal(s, NULL, NULL, err);  /* taken, or gone with the group */
	rc = na_sql_finish(s, rc, err);
	for (size_t i = 0; rc == VS_OK && i < n; i++)
		if (m[i].result_id)
			na_push_recorded(s, NA_PUSH_RESULT, m[i].result_id);
	if (rc != VS_OK) {
		g->id = 0;
		if (!err->context[0])
			vs_error_context(err, "record group");
	}
	return rc;
}

/* A direction's IOPS, bytes/s, mean and p99 latency from column at on;
 * a NULL is unknown (-1), IOPS NULL: no I/O that way. */
static void dir_of(sqlite3_stmt *st, int at, na_dir_stats *d)
{
	double *v[] = {&d->iops, &d->bw_bytes, &d->lat_mean_us, &d->p99_us};
	d->present = sqlite3_column_type(st, at) != SQLITE_NULL;
	for (int i = 0; i < 4; i++)
		*v[i] = sqlite3_column_type(st, at + i) != SQLITE_NULL ? sqlite3_column_double(st, at + i)
		                                                       : -1;
}

int na_store_group_of(na_store *s, int64_t result_id, na_group_row *g, vs_error *err)
{
	sqlite3_stmt *st = NULL;
	*g = (na_group_row){0};
	if (s->reader)
		return VS_OK;
	int rc = na_sql_prepare(s, "SELECT g.id, g.vms, g.incomplete, g.read_iops, g.read_bw_bytes,"
	                           " g.read_lat_mean_us, g.read_p99_us, g.write_iops, g.write_bw_bytes,"
	                           " g.write_lat_mean_us, g.write_p99_us, g.started_at"
	                           " FROM result_group_members m"
	                           " JOIN result_groups g ON g.id = m.group_id WHERE m.result_id = ?",
	                        &st, err);
	int step = rc == VS_OK ? sqlite3_bind_int64(st, 1, result_id) : SQLITE_OK;
	if (rc == VS_OK && step == SQLITE_OK)
		step = sqlite3_step(st);
	if (rc == VS_OK && step == SQLITE_ROW) {
		g->id = sqlite3_column_int64(st, 0);
		g->vms = sqlite3_column_int(st, 1);
		g->why = sqlite3_column_int(st, 2) ? "incomplete" : NULL;
		dir_of(st, 3, &g->read);
		dir_of(st, 7, &g->write);
		const unsigned char *at = sqlite3_column_text(st, 11);
		if (!(g->started_at = strdup(at ? (const char *)at : "")))
			rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	} else if (rc == VS_OK && step != SQLITE_DONE) {
		rc = na_sql_fail(s, step, err);
	}
	sqlite3_finalize(st);
	return rc;
}

int na_store_run_groups(na_store *s, const char *run, na_group_fn fn, void *ud, vs_error *err)
{
	sqlite3_stmt *st = NULL;
	if (s->reader)
		return VS_OK;
	/* the target: the step's part between "group:" and the next ':' */
	int rc = na_sql_prepare(s, "SELECT substr(j.step, 7, instr(substr(j.step, 7), ':') - 1),"
	                           " g.id, g.profile, g.repetition, g.vms, g.incomplete, g.iops,"
	                           " g.slowest_vm, g.slowest_share"
	                           " FROM campaign_steps j JOIN result_groups g"
	                           " ON CAST(g.id AS TEXT) = j.detail"
	                           " WHERE j.run = ? AND j.step LIKE 'group:%' ORDER BY g.id",
	                        &st, err);
	int step = rc == VS_OK ? sqlite3_bind_text(st, 1, run, -1, SQLITE_STATIC) : SQLITE_OK;
	while (rc == VS_OK && step == SQLITE_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		na_group_row g = {.id = sqlite3_column_int64(st, 1),
		                  .profile = (const char *)sqlite3_column_text(st, 2),
		                  .repetition = sqlite3_column_int(st, 3), .vms = sqlite3_column_int(st, 4),
		                  .why = sqlite3_column_int(st, 5) ? "incomplete" : NULL,
		                  .iops = sqlite3_column_double(st, 6),
		                  .slowest_vm = (const char *)sqlite3_column_text(st, 7),
		                  .slowest_share = sqlite3_column_double(st, 8)};
		rc = fn((const char *)sqlite3_column_text(st, 0), &g, ud, err);
		step = SQLITE_OK;
	}
	if (rc == VS_OK && step != SQLITE_DONE)
		rc = na_sql_fail(s, step, err);
	sqlite3_finalize(st);
	return rc;
}
