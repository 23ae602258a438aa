/* The results database (see store.h): its schema and opening.  The store's
 * files (this one; store_query.c: queries; store_journal.c: recording
 * results, findings and the campaign journal; store_nas.c: the NAS side)
 * are the only ones that speak SQL: the schema lives in the migrations
 * below, column names come from the tables in these files, and every value
 * is a bound parameter, so nothing a user types ever becomes SQL text. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "agent.h"
#include "store_internal.h"

/* Long enough for another nfsagent to commit a result, short enough that a
 * stuck one is reported rather than waited on. */
enum { DEFAULT_BUSY_MS = 5000 };

/* Whether result r (of table results) is a campaign's result recorded again:
 * an older row has its run, target, repetition and profile.  Step 4 removes
 * such rows; a reader of an older file skips them (old_schema_views). */
#define LATER_TWIN(results) \
	"r.campaign IS NOT NULL AND EXISTS (" \
	" SELECT 1 FROM " results " o WHERE o.campaign = r.campaign AND o.target = r.target" \
	" AND o.repetition = r.repetition AND o.profile = r.profile AND o.id < r.id)"

/* A version 4 UUID, as make_uuid (store_journal.c) writes one. */
#define RANDOM_UUID                                                                   \
	"lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4'"                   \
	" || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + abs(random() % 4), 1)" \
	" || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))"

/* ---- the schema: step i takes a database from version i to i + 1.  A
 * released step never changes (databases in the field ran it); a new schema
 * is a new step at the end. ---- */
static const char *const migrations[] = {
	/* 1: results, their labels, and the row that marks the file as ours */
	"CREATE TABLE nfsagent_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"INSERT INTO nfsagent_meta (key, value) VALUES ('application', 'nfsagent');"
	"CREATE TABLE results ("
	" id INTEGER PRIMARY KEY,"
	" started_at TEXT NOT NULL, finished_at TEXT,"
	" status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),"
	" error TEXT CHECK (status = 'ok' OR error IS NOT NULL),"
	" campaign TEXT, target TEXT, repetition INTEGER NOT NULL,"
	" vcenter TEXT, vcenter_version TEXT, vcenter_build TEXT,"
	" host TEXT, esxi_version TEXT, esxi_build TEXT,"
	" datastore TEXT, datastore_type TEXT, servers TEXT, export_path TEXT,"
	" vm TEXT, guest_os TEXT, disk TEXT,"
	" profile TEXT, job_file TEXT, fio_version TEXT,"
	" read_iops REAL, read_bw_bytes REAL, read_lat_mean_us REAL, read_p50_us REAL,"
	" read_p95_us REAL, read_p99_us REAL, read_p999_us REAL, read_max_us REAL,"
	" read_total_ios INTEGER, read_runtime_ms INTEGER,"
	" write_iops REAL, write_bw_bytes REAL, write_lat_mean_us REAL, write_p50_us REAL,"
	" write_p95_us REAL, write_p99_us REAL, write_p999_us REAL, write_max_us REAL,"
	" write_total_ios INTEGER, write_runtime_ms INTEGER,"
	" fio_json TEXT, host_counters_json TEXT);"
	"CREATE TABLE result_labels ("
	" result_id INTEGER NOT NULL REFERENCES results (id) ON DELETE CASCADE,"
	" key TEXT NOT NULL, value TEXT NOT NULL,"
	" PRIMARY KEY (result_id, key));",
	/* 2: queries find results by label */
	"CREATE INDEX result_labels_key_value ON result_labels (key, value);",
	/* 3: findings (probe verdicts, failed moves) and the campaign journal */
	"CREATE TABLE findings ("
	" id INTEGER PRIMARY KEY, at TEXT NOT NULL, kind TEXT NOT NULL,"
	" campaign TEXT, target TEXT, host TEXT, esxi_version TEXT, esxi_build TEXT,"
	" datastore TEXT, datastore_type TEXT, servers TEXT, export_path TEXT, vm TEXT,"
	" extent_bug INTEGER NOT NULL, verdict TEXT NOT NULL, evidence_json TEXT);"
	"CREATE TABLE campaign_runs ("
	" run TEXT PRIMARY KEY, name TEXT NOT NULL, file TEXT, state TEXT NOT NULL,"
	" pid INTEGER, started_at TEXT NOT NULL, updated_at TEXT NOT NULL);"
	"CREATE TABLE campaign_steps ("
	" run TEXT NOT NULL REFERENCES campaign_runs (run) ON DELETE CASCADE,"
	" step TEXT NOT NULL, at TEXT NOT NULL, detail TEXT, PRIMARY KEY (run, step));",
	/* 4: a campaign records a result once per (run, target, repetition,
	 * profile).  Before, a kill between a result and its journal step made
	 * --resume record it again: the oldest row of each is kept (the others go
	 * with their labels), a journal step naming a removed row names the kept
	 * one, and nfsagent_meta notes how many went.  A result the kill left
	 * without its step gets it: the row is whole, and without the step a
	 * resume would run that repetition again, only to be refused. */
	"CREATE TEMP TABLE dup AS SELECT r.id FROM results r WHERE " LATER_TWIN("results") ";"
	"INSERT INTO nfsagent_meta (key, value) SELECT 'duplicates_removed', (SELECT count(*) FROM dup)"
	" WHERE EXISTS (SELECT 1 FROM dup);"
	"DELETE FROM result_labels WHERE result_id IN (SELECT id FROM dup);"
	"DELETE FROM results WHERE id IN (SELECT id FROM dup);"
	"UPDATE campaign_steps SET detail = (SELECT CAST(min(r.id) AS TEXT) FROM results r"
	" WHERE r.campaign = campaign_steps.run"
	" AND campaign_steps.step = 'result:' || r.target || ':' || r.repetition || ':' || r.profile)"
	" WHERE detail IN (SELECT CAST(id AS TEXT) FROM dup);"
	"DROP TABLE dup;"
	"INSERT OR IGNORE INTO campaign_steps (run, step, at, detail)"
	" SELECT r.campaign, 'result:' || r.target || ':' || r.repetition || ':' || r.profile,"
	" coalesce(r.finished_at, r.started_at), CAST(r.id AS TEXT) FROM results r"
	" WHERE r.target IS NOT NULL AND r.profile IS NOT NULL"
	" AND r.campaign IN (SELECT run FROM campaign_runs);"
	"CREATE UNIQUE INDEX results_once ON results (campaign, target, repetition, profile);",
	/* 5: whose view a mismatch was: one host's ("host"), the file's
	 * ("export"), or a race that healed ("transient"); older rows: unknown */
	"ALTER TABLE findings ADD COLUMN extent_case TEXT;",
	/* 6: the NAS side of a result (bench --nas): store_nas.c */
	na_store_nas_schema,
	/* 7: its zpool iostat timeline */
	na_store_nas_timeline,
	/* 8: the seconds of fio's window the pool measured, the amplification's split */
	na_store_nas_window,
	/* 9: the clocks' difference that placed fio's window, and its error */
	na_store_nas_clock,
	/* 10: the pool's health (a resilver, a scrub) as the results' provenance */
	na_store_nas_health,
	/* 11: a central database (nfsagent push) knows a result or a finding
	 * by its UUID, made when it is recorded; older ones get theirs here
	 * (version 4, random).  Who recorded one, the runner's host name, is
	 * unknown before.  central_pushes and central_finding_pushes: which
	 * central database (its database_id) has each, so a push sends only
	 * what it lacks. */
	"ALTER TABLE results ADD COLUMN runner TEXT;"
	"ALTER TABLE results ADD COLUMN uuid TEXT;"
	"UPDATE results SET uuid = " RANDOM_UUID ";"
	"CREATE UNIQUE INDEX results_uuid ON results (uuid);"
	"CREATE TABLE central_pushes ("
	" result_id INTEGER NOT NULL REFERENCES results (id) ON DELETE CASCADE,"
	" central TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (result_id, central));"
	"ALTER TABLE findings ADD COLUMN runner TEXT;"
	"ALTER TABLE findings ADD COLUMN uuid TEXT;"
	"UPDATE findings SET uuid = " RANDOM_UUID ";"
	"CREATE UNIQUE INDEX findings_uuid ON findings (uuid);"
	"CREATE TABLE central_finding_pushes ("
	" finding_id INTEGER NOT NULL REFERENCES findings (id) ON DELETE CASCADE,"
	" central TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (finding_id, central));",
};
enum { LATEST = sizeof(migrations) / sizeof(migrations[0]) };

#define NO_UUID ", NULL AS runner, NULL AS uuid"
/* A reader never migrates: it shows an older file as the latest schema
 * through objects in its connection's temp schema, which SQLite searches
 * before the file's own.  Each applies to the versions from..to-1; a new
 * step that changes what the queries read adds its view here. */
static const struct {
	int from, to;
	const char *sql;
} old_schema_views[] = {
	/* before 3 no finding was recorded */
	{1, 3, "CREATE TEMP TABLE findings (id INTEGER PRIMARY KEY, at TEXT, kind TEXT,"
	       " campaign TEXT, target TEXT, host TEXT, esxi_version TEXT, esxi_build TEXT,"
	       " datastore TEXT, datastore_type TEXT, servers TEXT, export_path TEXT, vm TEXT,"
	       " extent_bug INTEGER, verdict TEXT, evidence_json TEXT, extent_case TEXT)"},
	/* before 4 a campaign's result could be recorded twice: the oldest is
	 * read, as step 4 keeps it, with its own labels only; before 11 no
	 * result had its runner nor its UUID */
	{1, 4, "CREATE TEMP VIEW results AS SELECT *" NO_UUID " FROM main.results r"
	       " WHERE NOT (" LATER_TWIN("main.results") ");"
	       "CREATE TEMP VIEW result_labels AS SELECT * FROM main.result_labels"
	       " WHERE result_id IN (SELECT id FROM temp.results)"},
	/* before 5 a finding had no extent case: unknown */
	{3, 5, "CREATE TEMP VIEW findings AS SELECT id, at, kind, campaign, target, host,"
	       " esxi_version, esxi_build, datastore, datastore_type, servers, export_path, vm,"
	       " extent_bug, verdict, evidence_json, NULL AS extent_case FROM main.findings"},
	/* before 6 no result had a NAS side, before 7 no timeline, before 8
	 * no window's seconds nor split, before 9 no clocks, before 10 no
	 * pool health */
	{4, NA_SCHEMA_UUID, "CREATE TEMP VIEW results AS SELECT *" NO_UUID " FROM main.results"},
	{1, 6, na_store_nas_none},
	{6, 7, na_store_nas_no_timeline},
	{7, 8, na_store_nas_no_window},
	{8, 9, na_store_nas_no_clock},
	{9, 10, na_store_nas_no_health},
};
#undef NO_UUID

/* ---- the result's fields (store.h) and the columns of results (all but id) ---- */
#define FIELD(name, type, query, list, factor) \
	{#name, NA_TYPE_##type, offsetof(na_result, name), query, list, factor},
#define ZFS_FIELD(col, kind) \
	{"zfs_" #col, NA_TYPE_TEXT, offsetof(na_result, zfs_##col), true, true, true},
const na_field na_fields[NA_N_FIELDS] = {NA_RESULT_FIELDS(FIELD) NA_ZFS_FIELDS(ZFS_FIELD)};

#define STAT(name, type) {#name, NA_TYPE_##type, offsetof(na_dir_stats, name), false, false, false},
const na_field na_stats[NA_N_STATS] = {NA_DIR_STATS(STAT)};

const char *na_field_text(const na_result *r, int field)
{
	return *(const char *const *)((const char *)r + na_fields[field].off);
}

double na_stat_value(const na_dir_stats *d, int stat)
{
	const char *at = (const char *)d + na_stats[stat].off;
	return na_stats[stat].type == NA_TYPE_REAL ? *(const double *)at : (double)*(const int64_t *)at;
}

#define FIELD_COLUMN(name, type, query, list, factor) \
	{#name, NA_TYPE_##type, offsetof(na_result, name), 0},
#define READ_COLUMN(name, type) \
	{"read_" #name, NA_TYPE_##type, offsetof(na_result, read.name), offsetof(na_result, read)},
#define WRITE_COLUMN(name, type) \
	{"write_" #name, NA_TYPE_##type, offsetof(na_result, write.name), offsetof(na_result, write)},
const na_column na_columns[] = {
	NA_RESULT_FIELDS(FIELD_COLUMN) NA_DIR_STATS(READ_COLUMN) NA_DIR_STATS(WRITE_COLUMN)
};
const size_t na_n_columns = sizeof(na_columns) / sizeof(na_columns[0]);

/* ---- small helpers ---- */

/* A damaged file is said to be damaged, with the check an admin can run
 * (the path quoted for the shell when it needs it).  not_db: SQLite does
 * not recognize the file at all (another kind of file, or a ruined header). */
static int damaged(const na_store *s, bool not_db, const char *why, vs_error *err)
{
	char *quoted = na_shell_quote(s->path);
	int rc = vs_fail(err, VS_ERR_FAULT, "%s is %s (SQLite: %s): check it with "
	                 "sqlite3 %s 'PRAGMA integrity_check', and restore it from a backup", s->path,
	                 not_db ? "not a database file, or is damaged" : "damaged", why,
	                 quoted ? quoted : "FILE");
	free(quoted);
	return rc;
}

/* Fills err from SQLite's last error; a lock gets the message an admin needs. */
int na_sql_fail(const na_store *s, int rc, vs_error *err)
{
	if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED)
		return vs_fail(err, VS_ERR_FAULT, "database is locked by another nfsagent (%s)", s->path);
	if ((rc & 0xff) == SQLITE_NOMEM)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	if ((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB)
		return damaged(s, (rc & 0xff) == SQLITE_NOTADB, sqlite3_errmsg(s->db), err);
	return vs_fail(err, VS_ERR_FAULT, "%s: %s", s->path, sqlite3_errmsg(s->db));
}

static int exec(na_store *s, const char *sql, vs_error *err)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? VS_OK : na_sql_fail(s, rc, err);
}

int na_sql_prepare(na_store *s, const char *sql, sqlite3_stmt **st, vs_error *err)
{
	int rc = sqlite3_prepare_v2(s->db, sql, -1, st, NULL);
	return rc == SQLITE_OK ? VS_OK : na_sql_fail(s, rc, err);
}

/* The first column of the first row as text ("" if none). */
static int query_value(na_store *s, const char *sql, char *buf, size_t size, vs_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = na_sql_prepare(s, sql, &st, err);
	int step = rc == VS_OK ? sqlite3_step(st) : SQLITE_OK;
	buf[0] = '\0';
	if (step == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0));
	else if (rc == VS_OK && step != SQLITE_DONE)
		rc = na_sql_fail(s, step, err);
	sqlite3_finalize(st);
	return rc;
}

/* The first column of the first row as SQLite's own integer: no text is
 * parsed, and an answer that is not an integer is an error, never 0. */
static int query_int(na_store *s, const char *sql, int64_t *out, vs_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = na_sql_prepare(s, sql, &st, err);
	int step = rc == VS_OK ? sqlite3_step(st) : SQLITE_OK;
	*out = 0;
	if (step == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER)
		*out = sqlite3_column_int64(st, 0);
	else if (rc == VS_OK && (step == SQLITE_ROW || step == SQLITE_DONE))
		rc = vs_fail(err, VS_ERR_FAULT, "%s: SQLite gave no integer for '%s'", s->path, sql);
	else if (rc == VS_OK)
		rc = na_sql_fail(s, step, err);
	sqlite3_finalize(st);
	return rc;
}

/* BEGIN IMMEDIATE takes the write lock up front, so a busy database is
 * reported before any work rather than at COMMIT. */
int na_sql_begin(na_store *s, vs_error *err)
{
	return exec(s, "BEGIN IMMEDIATE", err);
}

/* Commits if all went well, else rolls back; returns the outcome. */
int na_sql_finish(na_store *s, int rc, vs_error *err)
{
	if (rc == VS_OK && !sqlite3_get_autocommit(s->db))
		rc = exec(s, "COMMIT", err);
	if (rc != VS_OK && !sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

void na_sql_columns(sqlite3_str *t)
{
	for (size_t i = 0; i < na_n_columns; i++)
		sqlite3_str_appendf(t, "%s%s", i ? ", " : "", na_columns[i].name);
}

int na_sql_bind(sqlite3_stmt *st, int at, const na_value *v)
{
	if (v->null)
		return sqlite3_bind_null(st, at);
	switch (v->type) {
	case NA_TYPE_TEXT: return sqlite3_bind_text(st, at, v->text, -1, SQLITE_STATIC);
	case NA_TYPE_REAL: return sqlite3_bind_double(st, at, v->d);
	default: return sqlite3_bind_int64(st, at, v->i);
	}
}

/* ---- opening ---- */

/* $XDG_DATA_HOME/nfsagent/results.db, else ~/.local/share/nfsagent/results.db;
 * the XDG spec says a relative XDG_DATA_HOME is to be ignored. */
static int default_path(char **out, vs_error *err)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	bool use_xdg = xdg && xdg[0] == '/';
	if (!use_xdg && !(home && home[0] == '/'))
		return vs_fail(err, VS_ERR_USAGE, "neither XDG_DATA_HOME nor HOME is set: "
		               "give the database's path");
	const char *base = use_xdg ? xdg : home;
	const char *rest = use_xdg ? "/nfsagent/results.db" : "/.local/share/nfsagent/results.db";
	size_t size = strlen(base) + strlen(rest) + 1;
	if (!(*out = malloc(size)))
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	snprintf(*out, size, "%s%s", base, rest);
	return VS_OK;
}

/* Creates the missing directories above path, private to the user: results
 * name the lab's hosts, datastores and servers. */
static int make_parents(char *path, vs_error *err)
{
	for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		int failed = mkdir(path, 0700) != 0 && errno != EEXIST;
		if (failed)
			vs_fail(err, VS_ERR_FAULT, "cannot create directory %s: %s", path, strerror(errno));
		*p = '/';
		if (failed)
			return VS_ERR_FAULT;
	}
	return VS_OK;
}

/* Creates the file ourselves so that it is 0600 from the start: SQLite would
 * make it 0644, and its -wal and -shm files copy the file's mode. */
static int create_file(const char *path, vs_error *err)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return vs_fail(err, VS_ERR_FAULT, "cannot open %s: %s", path, strerror(errno));
	close(fd);
	return VS_OK;
}

/* The database's schema version: 0 for an empty file.  Only reads, so that
 * a database that is not ours stays exactly as it was. */
static int read_version(na_store *s, int *version, vs_error *err)
{
	int64_t objects = 0, meta = 0, v = 0;
	char app[32] = "";
	int rc = query_int(s, "SELECT count(*) FROM sqlite_master", &objects, err);
	if (rc == VS_OK)
		rc = query_int(s, "PRAGMA user_version", &v, err);
	if (rc == VS_OK && (objects || v))
		rc = query_int(s, "SELECT count(*) FROM sqlite_master "
		               "WHERE type = 'table' AND name = 'nfsagent_meta'", &meta, err);
	if (rc == VS_OK && meta)
		rc = query_value(s, "SELECT value FROM nfsagent_meta WHERE key = 'application'",
		                 app, sizeof(app), err);
	if (rc != VS_OK)
		return rc;
	/* Damage can hide the application row: only an intact file is "not ours". */
	char check[64] = "ok";
	if ((objects || v) && (strcmp(app, "nfsagent") != 0 || v < 1))
		rc = query_value(s, "PRAGMA quick_check(1)", check, sizeof(check), err);
	if (rc != VS_OK)
		return rc;
	if (strcmp(check, "ok") != 0)
		return damaged(s, false, check, err);
	if ((objects || v) && (strcmp(app, "nfsagent") != 0 || v < 1))
		return vs_fail(err, VS_ERR_USAGE, "%s is not an nfsagent database (it has no "
		               "nfsagent_meta application row); refusing to change it", s->path);
	if (v > LATEST)
		return vs_fail(err, VS_ERR_USAGE, "%s has schema version %lld, newer than this "
		               "nfsagent's %d: use a newer nfsagent", s->path, (long long)v, LATEST);
	*version = (int)v;
	return VS_OK;
}

/* Applies the steps from the database's version to target in one
 * transaction.  The version is read again under the write lock: another
 * nfsagent may have migrated the file meanwhile. */
static int migrate(na_store *s, int target, vs_error *err)
{
	int version = 0;
	int rc = na_sql_begin(s, err);
	if (rc == VS_OK)
		rc = read_version(s, &version, err);
	for (int v = version; rc == VS_OK && v < target; v++)
		rc = exec(s, migrations[v], err);
	if (rc == VS_OK && version < target) {
		char sql[48];
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", target);
		rc = exec(s, sql, err);
	}
	return na_sql_finish(s, rc, err);
}

/* WAL lets a report read while a benchmark writes, and a crash mid-write
 * leaves only an uncommitted tail that the next open ignores. */
static int configure(na_store *s, vs_error *err)
{
	char mode[16];
	int rc = query_value(s, "PRAGMA journal_mode = WAL", mode, sizeof(mode), err);
	if (rc == VS_OK && strcmp(mode, "wal") != 0)
		return vs_fail(err, VS_ERR_FAULT, "%s: cannot use WAL mode (it stays %s)", s->path, mode);
	return rc == VS_OK ? exec(s, "PRAGMA foreign_keys = ON", err) : rc;
}

static int connect_db(na_store *s, int target, vs_error *err)
{
	int rc = sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE, NULL);
	if (rc != SQLITE_OK)
		return na_sql_fail(s, rc, err);
	sqlite3_busy_timeout(s->db, DEFAULT_BUSY_MS);
	int version = 0;
	rc = read_version(s, &version, err);
	if (rc == VS_OK)
		rc = configure(s, err);
	if (rc == VS_OK && version < target)
		rc = migrate(s, target, err);
	s->version = version < target ? target : version;
	return rc;
}

/* The given path, or the default one (with its directories made when the
 * database is to be created). */
static int resolve_path(na_store *s, const char *path, bool create, vs_error *err)
{
	if (path) {
		s->path = strdup(path);
		return s->path ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	int rc = default_path(&s->path, err);
	return rc == VS_OK && create ? make_parents(s->path, err) : rc;
}

static int empty_file(const char *path, vs_error *err)
{
	return vs_fail(err, VS_ERR_USAGE, "%s is empty: no results are recorded there "
	               "('nfsagent bench' and 'nfsagent run' record them)", path);
}

/* What a reader needs before SQLite sees the file: SQLite would call a
 * missing file an I/O error and an empty one a fresh database. */
static int check_readable(const char *path, vs_error *err)
{
	struct stat st;
	if (stat(path, &st) != 0 && errno == ENOENT)
		return vs_fail(err, VS_ERR_USAGE, "there is no results database at %s: 'nfsagent bench' "
		               "and 'nfsagent run' record results there (or give --db FILE)", path);
	if (stat(path, &st) != 0)
		return vs_fail(err, VS_ERR_FAULT, "cannot read %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return vs_fail(err, VS_ERR_USAGE, "%s is not a file, so not a results database", path);
	return st.st_size == 0 ? empty_file(path, err) : VS_OK;
}

/* Read only: the file is never created, converted or upgraded here, so a
 * 0444 database (an archive, a colleague's copy) can be read, and reading
 * never changes the file.  An older schema is read as it is, through
 * old_schema_views; the next recording command (bench, run) upgrades it.
 * An SQLite file without nfsagent's tables holds no results: refused. */
static int connect_readonly(na_store *s, vs_error *err)
{
	int rc = sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK)
		return na_sql_fail(s, rc, err);
	sqlite3_busy_timeout(s->db, DEFAULT_BUSY_MS);
	int version = 0;
	rc = read_version(s, &version, err);
	if (rc == VS_OK && version == 0)
		return empty_file(s->path, err);
	s->version = version;
	for (size_t i = 0; rc == VS_OK && i < sizeof(old_schema_views) / sizeof(*old_schema_views); i++)
		if (version >= old_schema_views[i].from && version < old_schema_views[i].to)
			rc = exec(s, old_schema_views[i].sql, err);
	return rc;
}

int na_store_open_readonly(const char *path, na_store **out, vs_error *err)
{
	na_store *s = calloc(1, sizeof(*s));
	int rc = s ? resolve_path(s, path, false, err) : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	bool central = na_is_central_url(path);
	if (rc == VS_OK && central)
		rc = na_central_open_reader(s, path, err);
	if (rc == VS_OK && !central)
		rc = check_readable(s->path, err);
	if (rc == VS_OK && !central)
		rc = connect_readonly(s, err);
	if (rc != VS_OK) {
		vs_error_context(err, "open results database");
		na_store_close(&s);
	}
	*out = s;
	return rc;
}

int na_store_open_version(const char *path, int version, na_store **out, vs_error *err)
{
	na_store *s = calloc(1, sizeof(*s));
	int rc = s ? resolve_path(s, path, true, err) : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	if (rc == VS_OK)
		rc = create_file(s->path, err);
	if (rc == VS_OK)
		rc = connect_db(s, version < LATEST ? version : LATEST, err);
	if (rc != VS_OK) {
		vs_error_context(err, "open results database");
		na_store_close(&s);
	}
	*out = s;
	return rc;
}

int na_store_open(const char *path, na_store **out, vs_error *err)
{
	return na_store_open_version(path, LATEST, out, err);
}

void na_store_close(na_store **sp)
{
	na_store *s = *sp;
	if (!s)
		return;
	na_push_close(s);
	na_central_close(&s->reader);
	sqlite3_close(s->db);
	free(s->path);
	free(s);
	*sp = NULL;
}

const char *na_store_path(const na_store *s)
{
	return s->path;
}

void na_store_set_busy_timeout(na_store *s, int ms)
{
	sqlite3_busy_timeout(s->db, ms);
}

int na_store_schema_version(void)
{
	return LATEST;
}
