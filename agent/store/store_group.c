/* A group run in the results database: the group (result_groups) and the
 * link to its members, which are ordinary results.  The group's figures
 * live in its own row, not in results, so that compare, regress and report,
 * which pool results by profile and provenance, never pool a group's sums
 * with one VM's runs (docs/groups.md). */
#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"

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
	if (rc != VS_OK) {
		g->id = 0;
		if (!err->context[0])
			vs_error_context(err, "record group");
	}
	return rc;
}

/* ---- reading a group back (results, compare, report, push) ---- */

void na_group_row_clear(na_group_row *g)
{
	free(g->owned);
	*g = (na_group_row){0};
}

/* A statistic from its text: a NULL REAL is unknown (-1), a NULL count 0. */
static void stat_of(na_dir_stats *d, int i, const char *v)
{
	char *at = (char *)d + na_stats[i].off;
	if (na_stats[i].type == NA_TYPE_REAL)
		*(double *)at = v ? strtod(v, NULL) : -1;
	else
		*(int64_t *)at = v ? strtoll(v, NULL, 10) : 0;
}

int na_group_from_text(na_group_row *g, int64_t id, const char *const v[NA_GROUP_N_COLUMNS + 1],
                       vs_error *err)
{
	enum { UUID, PROFILE, REP, VMS, SKEW, INCOMPLETE, WHY, READ, WRITE = READ + NA_N_STATS,
	       IOPS = WRITE + NA_N_STATS, SLOWEST, SHARE, STARTED };
	static const int texts[] = {UUID, PROFILE, WHY, SLOWEST, STARTED};
	*g = (na_group_row){.id = id};
	size_t size = 0;
	for (int i = 0; i < 5; i++)
		size += v[texts[i]] ? strlen(v[texts[i]]) + 1 : 0;
	if (size && !(g->owned = malloc(size)))
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	const char **to[] = {&g->uuid, &g->profile, &g->why, &g->slowest_vm, &g->started_at};
	char *at = g->owned;
	for (int i = 0; i < 5; i++)
		if (v[texts[i]]) {
			*to[i] = strcpy(at, v[texts[i]]);
			at += strlen(at) + 1;
		}
	g->repetition = v[REP] ? atoi(v[REP]) : 0;
	g->vms = v[VMS] ? atoi(v[VMS]) : 0;
	g->start_skew_ms = v[SKEW] ? strtod(v[SKEW], NULL) : -1;
	bool incomplete = v[INCOMPLETE] && (v[INCOMPLETE][0] == '1' || v[INCOMPLETE][0] == 't');
	g->why = incomplete ? (g->why ? g->why : "incomplete") : NULL;
	na_dir_stats *d[2] = {&g->read, &g->write};
	for (int k = 0; k < 2; k++) {
		d[k]->present = v[READ + k * NA_N_STATS] != NULL;  /* its IOPS */
		for (int i = 0; i < NA_N_STATS; i++)
			stat_of(d[k], i, v[READ + k * NA_N_STATS + i]);
	}
	g->iops = v[IOPS] ? strtod(v[IOPS], NULL) : -1;
	g->slowest_share = v[SHARE] ? strtod(v[SHARE], NULL) : -1;
	return VS_OK;
}

/* A group row as text: its id, then NA_GROUP_COLUMNS and started_at. */
typedef int (*group_text_fn)(int64_t id, const char *const v[NA_GROUP_N_COLUMNS + 1], void *ud,
                             vs_error *err);

/* The group whose id (by_member false) or one of whose members' result
 * (true) is key, to fn (not called for none): a REAL as %.17g, so that a
 * push sends the double recorded. */
static int read_group(na_store *s, int64_t key, bool by_member, group_text_fn fn, void *ud,
                      vs_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = na_sql_prepare(s, by_member ? "SELECT id, " NA_GROUP_COLUMNS ", started_at FROM result_groups"
	                                       " WHERE id = (SELECT group_id FROM result_group_members"
	                                       " WHERE result_id = ?)"
	                                     : "SELECT id, " NA_GROUP_COLUMNS ", started_at FROM result_groups"
	                                       " WHERE id = ?", &st, err);
	int step = rc == VS_OK ? sqlite3_bind_int64(st, 1, key) : SQLITE_OK;
	if (rc == VS_OK && step == SQLITE_OK)
		step = sqlite3_step(st);
	if (rc == VS_OK && step == SQLITE_ROW) {
		const char *v[NA_GROUP_N_COLUMNS + 1];
		char nums[NA_GROUP_N_COLUMNS + 1][32];
		for (int i = 0; i <= NA_GROUP_N_COLUMNS; i++) {
			int type = sqlite3_column_type(st, i + 1);
			if (type == SQLITE_FLOAT)
				snprintf(nums[i], sizeof(nums[i]), "%.17g", sqlite3_column_double(st, i + 1));
			v[i] = type == SQLITE_NULL ? NULL
			       : type == SQLITE_FLOAT ? nums[i] : (const char *)sqlite3_column_text(st, i + 1);
		}
		rc = fn(sqlite3_column_int64(st, 0), v, ud, err);
	} else if (rc == VS_OK && step != SQLITE_DONE) {
		rc = na_sql_fail(s, step, err);
	}
	sqlite3_finalize(st);
	return rc;
}

static int parse_group(int64_t id, const char *const v[NA_GROUP_N_COLUMNS + 1], void *ud,
                       vs_error *err)
{
	return na_group_from_text(ud, id, v, err);
}

int na_store_group_of(na_store *s, int64_t result_id, na_group_row *g, vs_error *err)
{
	*g = (na_group_row){0};
	return s->reader ? na_central_group_of(s, result_id, g, err)
	                 : read_group(s, result_id, true, parse_group, g, err);
}

int na_store_group_members(na_store *s, int64_t group, na_member_fn fn, void *ud, vs_error *err)
{
	if (s->reader)
		return na_central_group_members(s, group, fn, ud, err);
	sqlite3_stmt *st = NULL;
	int rc = na_sql_prepare(s, "SELECT m.vm, m.result_id, m.why, r.uuid FROM result_group_members m"
	                           " LEFT JOIN results r ON r.id = m.result_id WHERE m.group_id = ?"
	                           " ORDER BY m.vm", &st, err);
	int step = rc == VS_OK ? sqlite3_bind_int64(st, 1, group) : SQLITE_OK;
	while (rc == VS_OK && step == SQLITE_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		na_group_member m = {(const char *)sqlite3_column_text(st, 0), sqlite3_column_int64(st, 1),
		                     (const char *)sqlite3_column_text(st, 2)};
		rc = fn(&m, (const char *)sqlite3_column_text(st, 3), ud, err);
		step = SQLITE_OK;
	}
	if (rc == VS_OK && step != SQLITE_DONE)
		rc = na_sql_fail(s, step, err);
	sqlite3_finalize(st);
	return rc;
}

int na_store_check_groups(na_store *s, const int64_t *ids, size_t n, vs_error *err)
{
	return s->reader ? na_central_check_groups(s, ids, n, err) : VS_OK;
}

int na_store_group_uuid_of(na_store *s, int64_t result_id, char out[37], vs_error *err)
{
	na_group_row g = {0};
	int rc = read_group(s, result_id, true, parse_group, &g, err);
	snprintf(out, 37, "%s", rc == VS_OK && g.uuid ? g.uuid : "");
	na_group_row_clear(&g);
	return rc;
}

/* ---- pushing a group (store_push.c) ---- */

/* Step 18: which central database (its database_id) holds each group, as
 * central_pushes notes results, so that a push sends only what it lacks. */
const char na_store_group_pushes_schema[] =
	"CREATE TABLE central_group_pushes ("
	" group_id INTEGER NOT NULL REFERENCES result_groups (id) ON DELETE CASCADE,"
	" central TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (group_id, central));";

/* A group's members gathered for one push (their strings copied), and
 * their results' UUIDs. */
typedef struct members {
	na_group_member *m;
	char **uuid;
	size_t n;
} members;

static void members_free(members *ms)
{
	for (size_t i = 0; i < ms->n; i++) {
		free((char *)ms->m[i].vm);
		free((char *)ms->m[i].why);
		free(ms->uuid[i]);
	}
	free(ms->m);
	free(ms->uuid);
}

static char *copy(const char *v, bool *ok)
{
	char *c = v ? strdup(v) : NULL;
	*ok = *ok && (!v || c);
	return c;
}

static int gather(const na_group_member *m, const char *result_uuid, void *ud, vs_error *err)
{
	members *ms = ud;
	na_group_member *more = realloc(ms->m, (ms->n + 1) * sizeof(*more));
	if (more)
		ms->m = more;
	char **uuids = more ? realloc(ms->uuid, (ms->n + 1) * sizeof(*uuids)) : NULL;
	if (!uuids)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	ms->uuid = uuids;
	bool ok = true;
	ms->uuid[ms->n] = copy(result_uuid, &ok);
	ms->m[ms->n++] = (na_group_member){copy(m->vm, &ok), m->result_id, copy(m->why, &ok)};
	return ok ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
}

/* A group row read for its push: sent with its members. */
typedef struct sending_group {
	na_central *c;
	members ms;
	bool *sent;
} sending_group;

static int send_group(int64_t id, const char *const v[NA_GROUP_N_COLUMNS + 1], void *ud,
                      vs_error *err)
{
	(void)id;
	sending_group *x = ud;
	return na_central_insert_group(x->c, v, x->ms.m, (const char *const *)x->ms.uuid, x->ms.n,
	                               x->sent, err);
}

int na_group_send(na_store *s, na_central *c, int64_t id, bool *sent, vs_error *err)
{
	sending_group x = {.c = c, .sent = sent};
	*sent = false;
	int rc = na_store_group_members(s, id, gather, &x.ms, err);
	if (rc == VS_OK)
		rc = read_group(s, id, false, send_group, &x, err);
	members_free(&x.ms);
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
