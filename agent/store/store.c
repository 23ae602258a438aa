/* The results database (see store.h): opening it at its schema.  The
 * store's files (this one; store_schema.c: the schema; store_query.c:
 * queries; store_journal.c: recording results, findings and the campaign
 * journal; store_nas.c: the NAS side; store_pg.c, store_push.c: the central
 * database) are the only ones that speak SQL: the schema lives in the
 * migrations of store_schema.c, column names come from the tables in these
 * files, and every value is a bound parameter, so nothing a user types ever
 * becomes SQL text. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "output.h"
#include "store/store_internal.h"

/* Long enough for another nfsagent to commit a result, short enough that a
 * stuck one is reported rather than waited on. */
enum { DEFAULT_BUSY_MS = 5000 };

/* ---- the result's fields (store.h) and the columns of results (all but id) ---- */
#define FIELD(name, type, query, list, factor, alias) \
	{#name, NA_TYPE_##type, offsetof(na_result, name), query, list, factor, alias},
#define ZFS_FIELD(col, kind) \
	{"zfs_" #col, NA_TYPE_TEXT, offsetof(na_result, zfs_##col), true, true, true, NULL},
const na_field na_fields[NA_N_FIELDS] = {NA_RESULT_FIELDS(FIELD) NA_ZFS_FIELDS(ZFS_FIELD)};

#define STAT(name, type) {#name, NA_TYPE_##type, offsetof(na_dir_stats, name), false, false, false, NULL},
const na_field na_stats[NA_N_STATS] = {NA_DIR_STATS(STAT)};

static bool named(const char *name, size_t len, const char *what)
{
	return what && strlen(what) == len && strncmp(name, what, len) == 0;
}

int na_field_named(const char *name, size_t len)
{
	for (int f = 0; f < NA_N_FIELDS; f++)
		if (named(name, len, na_fields[f].name) || named(name, len, na_fields[f].alias))
			return f;
	return -1;
}

const char *na_field_text(const na_result *r, int field)
{
	return *(const char *const *)((const char *)r + na_fields[field].off);
}

double na_stat_value(const na_dir_stats *d, int stat)
{
	const char *at = (const char *)d + na_stats[stat].off;
	return na_stats[stat].type == NA_TYPE_REAL ? *(const double *)at : (double)*(const int64_t *)at;
}

#define FIELD_COLUMN(name, type, query, list, factor, alias) \
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
	return exec(s, s->in_group ? "SAVEPOINT result" : "BEGIN IMMEDIATE", err);
}

/* Commits if all went well, else rolls back; returns the outcome.  In a
 * group's transaction, the savepoint is kept or undone instead. */
int na_sql_finish(na_store *s, int rc, vs_error *err)
{
	if (s->in_group) {
		if (rc != VS_OK)
			sqlite3_exec(s->db, "ROLLBACK TO result", NULL, NULL, NULL);
		int released = exec(s, "RELEASE result", err);
		return rc != VS_OK ? rc : released;
	}
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
	if (v > na_schema_latest)
		return vs_fail(err, VS_ERR_USAGE, "%s has schema version %lld, newer than this "
		               "nfsagent's %d: use a newer nfsagent", s->path, (long long)v, na_schema_latest);
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
		rc = exec(s, na_schema_migrations[v], err);
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
	rc = na_bins_register(s, err);
	if (rc == VS_OK)
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
 * na_schema_views; the next recording command (bench, run) upgrades it.
 * An SQLite file without nfsagent's tables holds no results: refused. */
static int connect_readonly(na_store *s, vs_error *err)
{
	int rc = sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK)
		return na_sql_fail(s, rc, err);
	sqlite3_busy_timeout(s->db, DEFAULT_BUSY_MS);
	int version = 0;
	rc = na_bins_register(s, err);
	if (rc == VS_OK)
		rc = read_version(s, &version, err);
	if (rc == VS_OK && version == 0)
		return empty_file(s->path, err);
	s->version = version;
	for (size_t i = 0; rc == VS_OK && i < na_schema_n_views; i++)
		if (version >= na_schema_views[i].from && version < na_schema_views[i].to)
			rc = exec(s, na_schema_views[i].sql, err);
	if (rc == VS_OK && version >= NA_SCHEMA_UUID && version < na_schema_version_of(na_schema_link_step))
		rc = exec(s, na_schema_no_link, err);
	int link = na_schema_version_of(na_schema_link_step);
	int client = na_schema_version_of(na_schema_nfs_client_step);
	if (rc == VS_OK && version >= link && version < client)
		rc = exec(s, na_schema_no_nfs_client, err);
	else if (rc == VS_OK && version >= client && version < na_schema_version_of(na_schema_site_step))
		rc = exec(s, na_schema_no_site, err);
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
		rc = connect_db(s, version < na_schema_latest ? version : na_schema_latest, err);
	if (rc != VS_OK) {
		vs_error_context(err, "open results database");
		na_store_close(&s);
	}
	*out = s;
	return rc;
}

int na_store_open(const char *path, na_store **out, vs_error *err)
{
	return na_store_open_version(path, na_schema_latest, out, err);
}

void na_store_close(na_store **sp)
{
	na_store *s = *sp;
	if (!s)
		return;
	na_central_close(&s->reader);
	free(s->group_run);
	free(s->group_step);
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
	return na_schema_latest;
}
