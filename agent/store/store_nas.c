/* The NAS side of results (store.h): table nas_runs, one row per result
 * that bench measured the NAS for, and the zfs_ fields read from it.
 * Column names come from the X-macros of store.h; every value is a bound
 * parameter. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "profiles.h"
#include "store/store_internal.h"

/* The figures' columns, as step 6 made them; a later step that adds one
 * adds it there and to na_store_nas_none, never here. */
#define FIGURES                                                                              \
	" recordsize INTEGER, special_small_blocks INTEGER,"                                     \
	" interval_s INTEGER, intervals INTEGER,"                                                \
	" data_read_ops INTEGER, data_write_ops INTEGER, data_read_bytes INTEGER,"               \
	" data_write_bytes INTEGER, special_read_ops INTEGER, special_write_ops INTEGER,"        \
	" special_read_bytes INTEGER, special_write_bytes INTEGER, dedup_read_ops INTEGER,"      \
	" dedup_write_ops INTEGER, dedup_read_bytes INTEGER, dedup_write_bytes INTEGER,"         \
	" log_read_ops INTEGER, log_write_ops INTEGER, log_read_bytes INTEGER,"                  \
	" log_write_bytes INTEGER, cache_read_ops INTEGER, cache_write_ops INTEGER,"             \
	" cache_read_bytes INTEGER, cache_write_bytes INTEGER,"                                  \
	" dataset_writes INTEGER, dataset_written INTEGER, dataset_reads INTEGER,"               \
	" dataset_read INTEGER, arc_demand_hits INTEGER, arc_demand_misses INTEGER,"             \
	" arc_size INTEGER, zil_commits INTEGER, zil_slog_bytes INTEGER, zil_normal_bytes INTEGER," \
	" arc_hit_ratio REAL,"

/* Schema step 6 (store_schema.c's migrations): a released step never changes. */
const char na_store_nas_schema[] =
	"CREATE TABLE nas_runs ("
	" result_id INTEGER PRIMARY KEY REFERENCES results (id) ON DELETE CASCADE,"
	" dataset TEXT NOT NULL, pool_layout TEXT, sync TEXT, compression TEXT, atime TEXT,"
	" logbias TEXT, primarycache TEXT, why TEXT," FIGURES
	" incomplete INTEGER NOT NULL CHECK (incomplete IN (0, 1)),"
	" CHECK (incomplete = 0 OR why IS NOT NULL));";
/* Schema step 7: the window's zpool iostat timeline (JSON, see store.h). */
const char na_store_nas_timeline[] = "ALTER TABLE nas_runs ADD COLUMN timeline TEXT;";
/* Schema step 8: the NA_NAS_REALS. */
#define ADD_REAL(name) "ALTER TABLE nas_runs ADD COLUMN " #name " REAL;"
const char na_store_nas_window[] = NA_NAS_REALS(ADD_REAL);
/* Schema step 9: the NA_NAS_CLOCK. */
const char na_store_nas_clock[] = NA_NAS_CLOCK(ADD_REAL);
/* Schema step 10: the pool's health, a text of NA_NAS_TEXTS. */
const char na_store_nas_health[] = "ALTER TABLE nas_runs ADD COLUMN pool_health TEXT;";
/* Schema step 11: txg_count and the NA_NAS_ZFS_REALS. */
const char na_store_nas_zfs[] =
	"ALTER TABLE nas_runs ADD COLUMN txg_count INTEGER;" NA_NAS_ZFS_REALS(ADD_REAL);
#undef ADD_REAL
#define REAL_COLUMN(name) ", " #name " REAL"
#define NULL_REAL(name) ", NULL AS " #name
/* What a reader of a file from before step 6 sees: no NAS side. */
const char na_store_nas_none[] =
	"CREATE TEMP TABLE nas_runs (result_id INTEGER PRIMARY KEY, dataset TEXT, pool_layout TEXT,"
	" sync TEXT, compression TEXT, atime TEXT, logbias TEXT, primarycache TEXT, why TEXT,"
	FIGURES " incomplete INTEGER, timeline TEXT" NA_NAS_REALS(REAL_COLUMN)
	NA_NAS_CLOCK(REAL_COLUMN) ", pool_health TEXT, txg_count INTEGER"
	NA_NAS_ZFS_REALS(REAL_COLUMN) ")";
/* ... of a file of step 6: NAS rows without their timeline (nor the later
 * steps' reals) ... */
#define NO_ZFS ", NULL AS txg_count" NA_NAS_ZFS_REALS(NULL_REAL)
#define NO_HEALTH ", NULL AS pool_health" NO_ZFS
const char na_store_nas_no_timeline[] = "CREATE TEMP VIEW nas_runs AS SELECT *, NULL AS timeline"
                                        NA_NAS_REALS(NULL_REAL) NA_NAS_CLOCK(NULL_REAL) NO_HEALTH
                                        " FROM main.nas_runs";
/* ... of step 7: without step 8's reals, step 9's clocks, step 10's health ... */
const char na_store_nas_no_window[] = "CREATE TEMP VIEW nas_runs AS SELECT *" NA_NAS_REALS(NULL_REAL)
                                      NA_NAS_CLOCK(NULL_REAL) NO_HEALTH " FROM main.nas_runs";
/* ... of step 8: without the clocks and the health ... */
const char na_store_nas_no_clock[] =
	"CREATE TEMP VIEW nas_runs AS SELECT *" NA_NAS_CLOCK(NULL_REAL) NO_HEALTH " FROM main.nas_runs";
/* ... of step 9: without the health ... */
const char na_store_nas_no_health[] = "CREATE TEMP VIEW nas_runs AS SELECT *" NO_HEALTH
                                      " FROM main.nas_runs";
/* ... and of step 10: without the txgs and the log's waits. */
const char na_store_nas_no_zfs[] = "CREATE TEMP VIEW nas_runs AS SELECT *" NO_ZFS
                                   " FROM main.nas_runs";
#undef NO_HEALTH
#undef NO_ZFS
#undef REAL_COLUMN
#undef NULL_REAL

#define COLUMNS NA_NAS_COLUMNS
#define ONE(name) +1
enum {
	N_TEXTS = 0 NA_NAS_TEXTS(ONE), N_SETTINGS = 0 NA_NAS_SETTINGS(ONE),
	N_POOL = 0 NA_NAS_POOL(ONE), N_COUNTERS = 0 NA_NAS_COUNTERS(ONE),
	N_REALS = 0 NA_NAS_REALS(ONE), N_CLOCK = 0 NA_NAS_CLOCK(ONE),
	N_ZFS = 0 NA_NAS_ZFS_REALS(ONE),
};

/* ints[0..n) as values from *at on, or NULL for each when !known. */
static void int_values(na_value *v, int *at, const int64_t *const *ints, size_t n, bool known)
{
	for (size_t i = 0; i < n; i++, (*at)++)
		v[*at] = (na_value){NA_TYPE_I64, !known, NULL, *ints[i], 0};
}

int na_nas_values(const na_nas_run *n, int64_t result_id, na_value v[NA_NAS_N_COLUMNS],
                  vs_error *err)
{
	if (!n->dataset || (n->incomplete && !n->why))
		return vs_fail(err, VS_ERR_USAGE, "a NAS row needs its dataset, and why when incomplete");
#define TEXT_PTR(name) n->name,
#define INT_PTR(name) &n->name,
#define REAL_VALUE(name) n->name,
	const char *const texts[] = {NA_NAS_TEXTS(TEXT_PTR)};
	const int64_t *const settings[] = {NA_NAS_SETTINGS(INT_PTR)};
	const int64_t *const pool[] = {NA_NAS_POOL(INT_PTR)};
	const int64_t *const counters[] = {NA_NAS_COUNTERS(INT_PTR)};
	const double reals[] = {NA_NAS_REALS(REAL_VALUE)};
	const double clock[] = {NA_NAS_CLOCK(REAL_VALUE)};
	const double zfs[] = {NA_NAS_ZFS_REALS(REAL_VALUE)};
	int at = 0;
	v[at++] = (na_value){NA_TYPE_I64, false, NULL, result_id, 0};
	for (size_t i = 0; i < N_TEXTS; i++, at++)
		v[at] = (na_value){NA_TYPE_TEXT, !texts[i], texts[i], 0, 0};
	int_values(v, &at, settings, N_SETTINGS, true);
	int_values(v, &at, pool, N_POOL, n->pool_known);
	int_values(v, &at, counters, N_COUNTERS, n->counters_known);
	v[at++] = (na_value){NA_TYPE_REAL, !(n->counters_known && n->arc_hit_ratio >= 0), NULL, 0,
	                     n->arc_hit_ratio};
	v[at++] = (na_value){NA_TYPE_INT, false, NULL, n->incomplete, 0};
	v[at++] = (na_value){NA_TYPE_TEXT, !(n->pool_known && n->timeline), n->timeline, 0, 0};
	for (size_t i = 0; i < N_REALS; i++, at++)
		v[at] = (na_value){NA_TYPE_REAL, reals[i] < 0, NULL, 0, reals[i]};
	for (size_t i = 0; i < N_CLOCK; i++, at++)
		v[at] = (na_value){NA_TYPE_REAL, !n->clock_known, NULL, 0, clock[i]};
	v[at++] = (na_value){NA_TYPE_I64, !n->txgs_known, NULL, n->txg_count, 0};
	for (size_t i = 0; i < N_ZFS; i++, at++)
		v[at] = (na_value){NA_TYPE_REAL, zfs[i] < 0, NULL, 0, zfs[i]};
	return VS_OK;
}

/* ints[0..n) from the texts at *at on; *known: whether the first was recorded. */
static void int_texts(const na_value *v, int *at, int64_t *const *ints, size_t n, bool *known)
{
	if (known)
		*known = !v[*at].null;
	for (size_t i = 0; i < n; i++, (*at)++)
		*ints[i] = strtoll(v[*at].text, NULL, 10);
}

static double real_text(const na_value *v)
{
	return v->null ? -1 : strtod(v->text, NULL);
}

void na_nas_from_text(na_nas_run *n, const na_value v[NA_NAS_N_COLUMNS])
{
#define TEXT_OUT(name) &n->name,
#define INT_OUT(name) &n->name,
#define REAL_OUT(name) &n->name,
	const char **texts[] = {NA_NAS_TEXTS(TEXT_OUT)};
	int64_t *const settings[] = {NA_NAS_SETTINGS(INT_OUT)};
	int64_t *const pool[] = {NA_NAS_POOL(INT_OUT)};
	int64_t *const counters[] = {NA_NAS_COUNTERS(INT_OUT)};
	double *const reals[] = {NA_NAS_REALS(REAL_OUT)};
	double *const clock[] = {NA_NAS_CLOCK(REAL_OUT)};
	double *const zfs[] = {NA_NAS_ZFS_REALS(REAL_OUT)};
	int at = 1;
	for (size_t i = 0; i < N_TEXTS; i++, at++)
		*texts[i] = v[at].null ? NULL : v[at].text;
	int_texts(v, &at, settings, N_SETTINGS, NULL);
	int_texts(v, &at, pool, N_POOL, &n->pool_known);
	int_texts(v, &at, counters, N_COUNTERS, &n->counters_known);
	n->arc_hit_ratio = real_text(&v[at++]);
	n->incomplete = !strcmp(v[at++].text, "t");
	n->timeline = v[at].null ? NULL : v[at].text;
	at++;
	for (size_t i = 0; i < N_REALS; i++, at++)
		*reals[i] = real_text(&v[at]);
	n->clock_known = !v[at].null;
	for (size_t i = 0; i < N_CLOCK; i++, at++)
		*clock[i] = real_text(&v[at]);
	n->txgs_known = !v[at].null;
	n->txg_count = n->txgs_known ? strtoll(v[at].text, NULL, 10) : 0;
	at++;
	for (size_t i = 0; i < N_ZFS; i++, at++)
		*zfs[i] = real_text(&v[at]);
#undef TEXT_OUT
#undef INT_OUT
#undef REAL_OUT
}

int na_nas_insert(na_store *s, const na_nas_run *n, int64_t result_id, vs_error *err)
{
	na_value v[NA_NAS_N_COLUMNS];
	int rc = na_nas_values(n, result_id, v, err);
	if (rc != VS_OK)
		return rc;
	char sql[2048] = "INSERT INTO nas_runs (" COLUMNS ") VALUES (?";
	for (int i = 1; i < NA_NAS_N_COLUMNS; i++)
		strcat(sql, ", ?");
	strcat(sql, ")");
	sqlite3_stmt *st = NULL;
	rc = na_sql_prepare(s, sql, &st, err);
	int b = SQLITE_OK;
	for (int i = 0; rc == VS_OK && b == SQLITE_OK && i < NA_NAS_N_COLUMNS; i++)
		b = na_sql_bind(st, i + 1, &v[i]);
	if (rc == VS_OK && b == SQLITE_OK)
		b = sqlite3_step(st);
	if (rc == VS_OK && b != SQLITE_DONE)
		rc = na_sql_fail(s, b, err);
	sqlite3_finalize(st);
	if (rc != VS_OK)
		vs_error_context(err, "record the NAS side of result %lld", (long long)result_id);
	return rc;
}

/* Reads ints from column *col on; *known: whether the first was recorded. */
static void read_ints(sqlite3_stmt *st, int *col, int64_t *const *ints, size_t n, bool *known)
{
	if (known)
		*known = sqlite3_column_type(st, *col) != SQLITE_NULL;
	for (size_t i = 0; i < n; i++, (*col)++)
		*ints[i] = sqlite3_column_int64(st, *col);
}

int na_store_nas_of(na_store *s, int64_t result_id, na_nas_fn fn, void *ud, bool *found,
                    vs_error *err)
{
	sqlite3_stmt *st = NULL;
	*found = false;
	if (s->reader)
		return na_central_nas_of(s, result_id, fn, ud, found, err);
	int rc = na_sql_prepare(s, "SELECT " COLUMNS " FROM nas_runs WHERE result_id = ?", &st, err);
	int step = rc == VS_OK ? sqlite3_bind_int64(st, 1, result_id) : SQLITE_OK;
	if (rc == VS_OK && step == SQLITE_OK)
		step = sqlite3_step(st);
	if (rc == VS_OK && step == SQLITE_ROW) {
		na_nas_run n = {.result_id = result_id};
#define TEXT_OUT(name) &n.name,
#define INT_OUT(name) &n.name,
		const char **texts[] = {NA_NAS_TEXTS(TEXT_OUT)};
		int64_t *const settings[] = {NA_NAS_SETTINGS(INT_OUT)};
		int64_t *const pool[] = {NA_NAS_POOL(INT_OUT)};
		int64_t *const counters[] = {NA_NAS_COUNTERS(INT_OUT)};
		int col = 1;
		for (size_t i = 0; i < N_TEXTS; i++, col++)
			*texts[i] = (const char *)sqlite3_column_text(st, col);
		read_ints(st, &col, settings, N_SETTINGS, NULL);
		read_ints(st, &col, pool, N_POOL, &n.pool_known);
		read_ints(st, &col, counters, N_COUNTERS, &n.counters_known);
		n.arc_hit_ratio = sqlite3_column_type(st, col) == SQLITE_NULL ? -1
		                                                             : sqlite3_column_double(st, col);
		n.incomplete = sqlite3_column_int(st, ++col) != 0;
		n.timeline = (const char *)sqlite3_column_text(st, ++col);
#define REAL_OUT(name) &n.name,
		double *const reals[] = {NA_NAS_REALS(REAL_OUT)};
		for (size_t i = 0; i < N_REALS; i++, col++)
			*reals[i] = sqlite3_column_type(st, col + 1) == SQLITE_NULL
			                    ? -1
			                    : sqlite3_column_double(st, col + 1);
		/* the clocks: both recorded or neither */
		n.clock_known = sqlite3_column_type(st, col + 1) != SQLITE_NULL;
		double *const clock[] = {NA_NAS_CLOCK(REAL_OUT)};
		for (size_t i = 0; i < N_CLOCK; i++, col++)
			*clock[i] = sqlite3_column_double(st, col + 1);
		n.txgs_known = sqlite3_column_type(st, ++col) != SQLITE_NULL;
		n.txg_count = sqlite3_column_int64(st, col);
		double *const zfs[] = {NA_NAS_ZFS_REALS(REAL_OUT)};
		for (size_t i = 0; i < N_ZFS; i++, col++)
			*zfs[i] = sqlite3_column_type(st, col + 1) == SQLITE_NULL
			                  ? -1
			                  : sqlite3_column_double(st, col + 1);
		*found = true;
		rc = fn(&n, ud, err);
	} else if (rc == VS_OK && step != SQLITE_DONE) {
		rc = na_sql_fail(s, step, err);
	}
	sqlite3_finalize(st);
	return rc;
}

/* ---- the zfs_ fields (store.h): read from the NAS row, joined ---- */
#define SIZE_TEXT(c)                                                                       \
	"CASE WHEN " c " > 0 AND " c " % 1048576 = 0 THEN (" c " / 1048576) || 'M'"            \
	" WHEN " c " > 0 AND " c " % 1024 = 0 THEN (" c " / 1024) || 'K' ELSE CAST(" c " AS TEXT) END"
#define SHOWN_SIZE(col) SIZE_TEXT("nas_runs." #col)
#define SHOWN_WORD(col) "nas_runs." #col
#define IS_SIZE_SIZE true
#define IS_SIZE_WORD false
#define ZFS_SQL(col, kind) {SHOWN_##kind(col), "nas_runs." #col, IS_SIZE_##kind},
const na_zfs_column na_zfs_columns[NA_N_ZFS] = {NA_ZFS_FIELDS(ZFS_SQL)};

int na_zfs_field_of(const char *label_key)
{
	for (int i = 0; i < NA_N_ZFS; i++)
		if (strcasecmp(label_key, na_fields[NA_FIELD_FIRST_ZFS + i].name + strlen("zfs_")) == 0)
			return NA_FIELD_FIRST_ZFS + i;
	return -1;
}

int64_t na_zfs_size_of(const char *v)
{
	return strcmp(v, "0") == 0 ? 0 : na_parse_size(v);
}

bool na_zfs_contradicts(int f, const char *label, const char *measured)
{
	if (f < NA_FIELD_FIRST_ZFS || f >= NA_N_FIELDS || !label || !measured)
		return false;
	if (na_zfs_columns[f - NA_FIELD_FIRST_ZFS].size)
		return na_zfs_size_of(label) != na_zfs_size_of(measured);
	return strcasecmp(label, measured) != 0;
}
