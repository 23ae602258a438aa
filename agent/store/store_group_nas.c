/* The NAS side of a group run (docs/groups.md): one row per pool its
 * members' datastores are exports of, recorded in the group's transaction
 * with the group; its amplification is the pool's bytes over the group's
 * common window against the sum of its members' guest bytes in it. */
#include "store/store_internal.h"

#define GROUP_NAS_TABLE(temp)                                                                \
	"CREATE " temp "TABLE result_group_nas ("                                                \
	" group_id INTEGER NOT NULL REFERENCES result_groups (id) ON DELETE CASCADE,"            \
	" nas TEXT NOT NULL, pool TEXT NOT NULL, datasets TEXT NOT NULL, vms TEXT NOT NULL,"      \
	" members INTEGER NOT NULL, interval_s INTEGER, measured_s REAL, window_s REAL,"         \
	" data_write_bytes INTEGER, special_write_bytes INTEGER, log_write_bytes INTEGER,"       \
	" data_read_bytes INTEGER, guest_write_bytes INTEGER, amplification REAL,"               \
	" incomplete INTEGER NOT NULL, why TEXT, PRIMARY KEY (group_id, nas, pool),"             \
	" CHECK (NOT incomplete OR why IS NOT NULL));"

const char na_store_group_nas_schema[] = GROUP_NAS_TABLE("");
/* A reader of an older file: no group had a NAS side. */
const char na_store_group_nas_none[] = GROUP_NAS_TABLE("TEMP ");

/* A figure bound, or NULL when not known (< 0). */
static int bind_known(sqlite3_stmt *st, int at, double v, bool integer)
{
	if (v < 0)
		return sqlite3_bind_null(st, at);
	return integer ? sqlite3_bind_int64(st, at, (int64_t)v) : sqlite3_bind_double(st, at, v);
}

static int bind_row(sqlite3_stmt *st, int64_t group, const na_group_nas_row *p)
{
	sqlite3_bind_int64(st, 1, group);
	sqlite3_bind_text(st, 2, p->nas, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, p->pool, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, p->datasets, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, p->vms, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 6, p->members);
	const double v[] = {p->interval_s, p->measured_s, p->window_s, (double)p->data_write_bytes,
	                    (double)p->special_write_bytes, (double)p->log_write_bytes,
	                    (double)p->data_read_bytes, (double)p->guest_write_bytes, p->amplification};
	const bool integer[] = {true, false, false, true, true, true, true, true, false};
	int rc = SQLITE_OK;
	/* the totals of a pool never sampled are not 0s */
	for (int i = 0; rc == SQLITE_OK && i < 9; i++)
		rc = bind_known(st, 7 + i, p->pool_known || i == 0 || i == 7 ? v[i] : -1, integer[i]);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int(st, 16, p->why != NULL);
	return rc == SQLITE_OK ? sqlite3_bind_text(st, 17, p->why, -1, SQLITE_STATIC) : rc;
}

int na_store_group_nas_insert(na_store *s, int64_t group, const na_group_nas_row *p,
                              vs_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = na_sql_prepare(s, "INSERT INTO result_group_nas (group_id, nas, pool, datasets, vms,"
	                           " members, interval_s, measured_s, window_s, data_write_bytes,"
	                           " special_write_bytes, log_write_bytes, data_read_bytes,"
	                           " guest_write_bytes, amplification, incomplete, why)"
	                           " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	                        &st, err);
	return na_sql_run(s, st, rc, rc == VS_OK ? bind_row(st, group, p) : SQLITE_OK, err);
}

/* Column at as a double, -1 when NULL. */
static double known(sqlite3_stmt *st, int at)
{
	return sqlite3_column_type(st, at) == SQLITE_NULL ? -1 : sqlite3_column_double(st, at);
}

static na_group_nas_row row_of(sqlite3_stmt *st)
{
	na_group_nas_row p = {
		.nas = (const char *)sqlite3_column_text(st, 0),
		.pool = (const char *)sqlite3_column_text(st, 1),
		.datasets = (const char *)sqlite3_column_text(st, 2),
		.vms = (const char *)sqlite3_column_text(st, 3), .members = sqlite3_column_int(st, 4),
		.interval_s = (int)known(st, 5), .measured_s = known(st, 6), .window_s = known(st, 7),
		.pool_known = sqlite3_column_type(st, 8) != SQLITE_NULL,
		.data_write_bytes = sqlite3_column_int64(st, 8),
		.special_write_bytes = sqlite3_column_int64(st, 9),
		.log_write_bytes = sqlite3_column_int64(st, 10),
		.data_read_bytes = sqlite3_column_int64(st, 11),
		.guest_write_bytes = sqlite3_column_int64(st, 12), .amplification = known(st, 13),
		.why = (const char *)sqlite3_column_text(st, 15)};
	return p;
}

int na_store_group_nas_of(na_store *s, int64_t group, na_group_nas_fn fn, void *ud, vs_error *err)
{
	sqlite3_stmt *st = NULL;
	if (s->reader)
		return VS_OK;  /* a central database: none pushed there (docs/groups.md) */
	int rc = na_sql_prepare(s, "SELECT nas, pool, datasets, vms, members, interval_s, measured_s,"
	                           " window_s, data_write_bytes, special_write_bytes, log_write_bytes,"
	                           " data_read_bytes, guest_write_bytes, amplification, incomplete, why"
	                           " FROM result_group_nas WHERE group_id = ? ORDER BY nas, pool",
	                        &st, err);
	int step = rc == VS_OK ? sqlite3_bind_int64(st, 1, group) : SQLITE_OK;
	while (rc == VS_OK && step == SQLITE_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		na_group_nas_row p = row_of(st);
		rc = fn(&p, ud, err);
		step = SQLITE_OK;
	}
	if (rc == VS_OK && step != SQLITE_DONE)
		rc = na_sql_fail(s, step, err);
	sqlite3_finalize(st);
	return rc;
}
