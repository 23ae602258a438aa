/* The results database (see store.h): its schema, opening and queries.
 * This file and store_journal.c (recording results, findings and the
 * campaign journal) are the only ones that speak SQL: the schema lives in the migrations of
 * store_schema.c, column names come from the tables in these files, and every value is a bound
 * parameter, so nothing a user types ever becomes SQL text. */
#include <ctype.h>
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

void na_sql_columns(sqlite3_str *t, bool marks)
{
	for (size_t i = 0; i < na_n_columns; i++)
		sqlite3_str_appendf(t, "%s%s", i ? ", " : "", marks ? "?" : na_columns[i].name);
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
	rc = read_version(s, &version, err);
	if (rc == VS_OK)
		rc = configure(s, err);
	if (rc == VS_OK && version < target)
		rc = migrate(s, target, err);
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
	rc = read_version(s, &version, err);
	if (rc == VS_OK && version == 0)
		return empty_file(s->path, err);
	for (size_t i = 0; rc == VS_OK && i < na_schema_n_views; i++)
		if (version >= na_schema_views[i].from && version < na_schema_views[i].to)
			rc = exec(s, na_schema_views[i].sql, err);
	return rc;
}

int na_store_open_readonly(const char *path, na_store **out, vs_error *err)
{
	na_store *s = calloc(1, sizeof(*s));
	int rc = s ? resolve_path(s, path, false, err) : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	if (rc == VS_OK)
		rc = check_readable(s->path, err);
	if (rc == VS_OK)
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

/* ---- querying ---- */

/* The column a condition's field names (a static string, never the
 * user's text), or NULL when the field is a label key: id or a query field. */
static const char *condition_column(const char *cond, size_t len)
{
	if (len == strlen("protocol") && strncmp(cond, "protocol", len) == 0)
		return "datastore_type";
	if (len == strlen("id") && strncmp(cond, "id", len) == 0)
		return "id";
	for (size_t i = 0; i < NA_N_FIELDS; i++)
		if (na_fields[i].query && strlen(na_fields[i].name) == len &&
		    strncmp(cond, na_fields[i].name, len) == 0)
			return i >= NA_FIELD_FIRST_ZFS ? na_zfs_columns[i - NA_FIELD_FIRST_ZFS].compared
			                               : na_fields[i].name;
	return NULL;
}

/* The zfs_ field whose column condition_column gave (its na_zfs_columns index), or -1. */
static int zfs_of(const char *col)
{
	for (int i = 0; col && i < NA_N_ZFS; i++)
		if (col == na_zfs_columns[i].compared)
			return i;
	return -1;
}

bool na_store_is_field(const char *name)
{
	return condition_column(name, strlen(name)) != NULL;
}

/* vSphere records NFS 3 as "NFS" and NFS 4.1 as "NFS41"; people write
 * NFS3, NFSv3, nfs4.1, NFSv4.1...  Any other value is taken as typed. */
const char *na_protocol_value(const char *v)
{
	static const char *const nfs3[] = {"nfs", "nfs3", "nfsv3", "v3", "3"};
	static const char *const nfs41[] = {"nfs41", "nfsv41", "nfs4", "nfsv4", "v41", "41", "4"};
	char k[16];
	size_t n = 0;
	for (const char *p = v; *p && n < sizeof(k) - 1; p++)
		if (!strchr(" ._-", *p))
			k[n++] = (char)tolower((unsigned char)*p);
	k[n] = '\0';
	for (size_t i = 0; strlen(v) < sizeof(k) && i < sizeof(nfs3) / sizeof(*nfs3); i++)
		if (strcmp(k, nfs3[i]) == 0)
			return "NFS";
	for (size_t i = 0; strlen(v) < sizeof(k) && i < sizeof(nfs41) / sizeof(*nfs41); i++)
		if (strcmp(k, nfs41[i]) == 0)
			return "NFS41";
	return v;
}

/* The value a condition compares with (its text after '='). */
static const char *condition_value(const char *cond, const char *col)
{
	const char *v = strchr(cond, '=') + 1;
	return col && strcmp(col, "datastore_type") == 0 ? na_protocol_value(v) : v;
}

/* Up to max distinct values of sql's first column, ", "-separated, into buf
 * ("" if none; "..." after the max-th).  key: bound to ?1 when not NULL. */
static int list_values(na_store *s, const char *sql, const char *key, size_t keylen, size_t max,
                       char *buf, size_t size, vs_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = na_sql_prepare(s, sql, &st, err);
	int step = rc == VS_OK && key ? sqlite3_bind_text(st, 1, key, (int)keylen, SQLITE_STATIC)
	                              : SQLITE_OK;
	size_t len = 0, n = 0;
	buf[0] = '\0';
	while (rc == VS_OK && step == SQLITE_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);
		if (v && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", n ? ", " : "",
			                        n < max ? v : "...");
		if (++n > max)
			step = SQLITE_DONE;
		else
			step = SQLITE_OK;
	}
	if (rc == VS_OK && step != SQLITE_DONE)
		rc = na_sql_fail(s, step, err);
	sqlite3_finalize(st);
	return rc;
}

/* A condition on a label key that no result has is a typo far more often
 * than a real question: say which fields and labels there are. */
static int check_fields(na_store *s, const char *const *conds, size_t n, vs_error *err)
{
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(conds[i], '=');
		size_t len = eq ? (size_t)(eq - conds[i]) : 0;
		if (!eq || !len || condition_column(conds[i], len))
			continue;
		char found[8], labels[512];
		int rc = list_values(s, "SELECT 1 FROM result_labels WHERE key = ?1 LIMIT 1", conds[i], len,
		                     1, found, sizeof(found), err);
		if (rc == VS_OK && found[0])
			continue;
		if (rc == VS_OK)
			rc = list_values(s, "SELECT DISTINCT key FROM result_labels ORDER BY key", NULL, 0, 20,
			                 labels, sizeof(labels), err);
		if (rc != VS_OK)
			return rc;
		char fields[512];
		size_t flen = (size_t)snprintf(fields, sizeof(fields), "protocol, id");
		for (size_t k = 0; k < NA_N_FIELDS && flen < sizeof(fields); k++)
			if (na_fields[k].query)
				flen += (size_t)snprintf(fields + flen, sizeof(fields) - flen, ", %s",
				                         na_fields[k].name);
		return vs_fail(err, VS_ERR_USAGE, "no field or label is called '%.*s': the fields are %s; "
		               "%s%s", (int)len, conds[i], fields,
		               labels[0] ? "the labels recorded are " : "no result has labels", labels);
	}
	return VS_OK;
}

/* Whether any result meets every condition of conds (n of them). */
static int any_match(na_store *s, const char *const *conds, size_t n, bool *any, vs_error *err);

int na_store_explain_none(na_store *s, const char *const *conds, size_t n, vs_error *err)
{
	if (!n)
		return vs_fail(err, VS_ERR_NOT_FOUND, "no results are recorded in %s yet", s->path);
	for (size_t i = 0; i < n; i++) {
		bool any = false;
		int rc = any_match(s, &conds[i], 1, &any, err);
		if (rc != VS_OK)
			return rc;
		if (any)
			continue;
		size_t len = (size_t)(strchr(conds[i], '=') - conds[i]);
		const char *col = condition_column(conds[i], len);
		int z = zfs_of(col);
		char sql[512], values[512];
		if (z >= 0)
			snprintf(sql, sizeof(sql), "SELECT DISTINCT %s FROM" NA_RESULTS_AND_NAS " WHERE %s IS NOT "
			         "NULL ORDER BY nas_runs.%s", na_zfs_columns[z].shown, col, col + strlen("nas_runs."));
		else if (col)
			snprintf(sql, sizeof(sql), "SELECT DISTINCT %s FROM results WHERE %s IS NOT NULL "
			         "ORDER BY 1", col, col);
		else
			snprintf(sql, sizeof(sql), "SELECT DISTINCT value FROM result_labels WHERE key = ?1 "
			         "ORDER BY 1");
		rc = list_values(s, sql, col ? NULL : conds[i], len, 10, values, sizeof(values), err);
		if (rc != VS_OK)
			return rc;
		return vs_fail(err, VS_ERR_NOT_FOUND, "no result has %s%s%.*s%s", conds[i],
		               values[0] ? " (recorded: " : "", (int)sizeof(values), values,
		               values[0] ? ")" : "");
	}
	char all[1024];
	size_t len = 0;
	for (size_t i = 0; i < n && len < sizeof(all); i++)
		len += (size_t)snprintf(all + len, sizeof(all) - len, "%s%s", i ? " and " : "", conds[i]);
	return vs_fail(err, VS_ERR_NOT_FOUND, "no result has %s together, though each of them matches "
	               "some", all);
}

static int build_query(na_store *s, const char *const *conds, size_t n, char **sql,
                       vs_error *err)
{
	sqlite3_str *t = sqlite3_str_new(s->db);
	sqlite3_str_appendall(t, "SELECT results.id, ");
	na_sql_columns(t, false);
	for (int i = 0; i < NA_N_ZFS; i++)
		sqlite3_str_appendf(t, ", %s", na_zfs_columns[i].shown);
	sqlite3_str_appendall(t, " FROM" NA_RESULTS_AND_NAS " WHERE 1 = 1");
	int rc = VS_OK;
	for (size_t i = 0; rc == VS_OK && i < n; i++) {
		const char *eq = strchr(conds[i], '=');
		const char *col = eq ? condition_column(conds[i], (size_t)(eq - conds[i])) : NULL;
		if (!eq || eq == conds[i])
			rc = vs_fail(err, VS_ERR_USAGE, "'%s' is not a field=value condition", conds[i]);
		else if (col)
			sqlite3_str_appendf(t, " AND %s = ?", col);
		else
			sqlite3_str_appendall(t, " AND EXISTS (SELECT 1 FROM result_labels l WHERE "
			                      "l.result_id = results.id AND l.key = ? AND l.value = ?)");
	}
	sqlite3_str_appendall(t, " ORDER BY results.id");
	*sql = sqlite3_str_finish(t);
	return rc == VS_OK && !*sql ? vs_fail(err, VS_ERR_NOMEM, "out of memory") : rc;
}

static int bind_conditions(na_store *s, sqlite3_stmt *st, const char *const *conds, size_t n,
                           vs_error *err)
{
	int at = 1, rc = SQLITE_OK;
	for (size_t i = 0; rc == SQLITE_OK && i < n; i++) {
		const char *eq = strchr(conds[i], '=');
		int len = (int)(eq - conds[i]);
		const char *col = condition_column(conds[i], (size_t)len);
		if (!col)
			rc = sqlite3_bind_text(st, at++, conds[i], len, SQLITE_STATIC);
		const char *v = condition_value(conds[i], col);
		int z = zfs_of(col);
		/* a size by its bytes; a value that is no size matches none */
		int64_t bytes = z >= 0 && na_zfs_columns[z].size ? na_zfs_size_of(v) : -1;
		if (rc == SQLITE_OK && bytes >= 0)
			rc = sqlite3_bind_int64(st, at++, bytes);
		else if (rc == SQLITE_OK)
			rc = sqlite3_bind_text(st, at++, v, -1, SQLITE_STATIC);
	}
	return rc == SQLITE_OK ? VS_OK : na_sql_fail(s, rc, err);
}

static void read_columns(sqlite3_stmt *st, na_result *r)
{
	r->id = sqlite3_column_int64(st, 0);
	for (size_t i = 0; i < na_n_columns; i++) {
		const na_column *c = &na_columns[i];
		char *field = (char *)r + c->off;
		int at = (int)i + 1;
		if (c->dir && sqlite3_column_type(st, at) != SQLITE_NULL)
			((na_dir_stats *)((char *)r + c->dir))->present = true;
		if (c->type == NA_TYPE_TEXT)
			*(const char **)field = (const char *)sqlite3_column_text(st, at);
		else if (c->type == NA_TYPE_INT)
			*(int *)field = sqlite3_column_int(st, at);
		else if (c->type == NA_TYPE_REAL)
			*(double *)field = sqlite3_column_double(st, at);
		else
			*(int64_t *)field = sqlite3_column_int64(st, at);
	}
	for (int i = 0; i < NA_N_ZFS; i++)
		*(const char **)((char *)r + na_fields[NA_FIELD_FIRST_ZFS + i].off) =
			(const char *)sqlite3_column_text(st, (int)na_n_columns + 1 + i);
}

static void free_labels(na_label *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)v[i].key);
		free((char *)v[i].value);
	}
	free(v);
}

/* Copies the labels of result id: the row's own strings are SQLite's. */
static int read_labels(na_store *s, sqlite3_stmt *st, na_result *r, vs_error *err)
{
	na_label *v = NULL;
	size_t n = 0;
	int step = sqlite3_reset(st);
	if (step == SQLITE_OK)
		step = sqlite3_bind_int64(st, 1, r->id);
	while (step == SQLITE_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 0);
		const char *value = (const char *)sqlite3_column_text(st, 1);
		na_label *grown = realloc(v, (n + 1) * sizeof(*v));
		step = grown ? SQLITE_OK : SQLITE_NOMEM;
		v = grown ? grown : v;
		if (grown) {
			v[n++] = (na_label){strdup(key ? key : ""), strdup(value ? value : "")};
			step = v[n - 1].key && v[n - 1].value ? SQLITE_OK : SQLITE_NOMEM;
		}
	}
	r->labels = v;
	r->n_labels = n;
	return step == SQLITE_DONE ? VS_OK : na_sql_fail(s, step, err);
}

static int each_row(na_store *s, sqlite3_stmt *rows, sqlite3_stmt *labels, na_result_fn fn,
                    void *ud, vs_error *err)
{
	int step;
	while ((step = sqlite3_step(rows)) == SQLITE_ROW) {
		na_result r = {0};
		read_columns(rows, &r);
		int rc = read_labels(s, labels, &r, err);
		if (rc != VS_OK)
			vs_error_context(err, "query results");
		else
			rc = fn(&r, ud, err);
		free_labels((na_label *)r.labels, r.n_labels);
		if (rc != VS_OK)
			return rc;
	}
	if (step == SQLITE_DONE)
		return VS_OK;
	vs_error_context(err, "query results");
	return na_sql_fail(s, step, err);
}

static int any_match(na_store *s, const char *const *conds, size_t n, bool *any, vs_error *err)
{
	char *sql = NULL;
	sqlite3_stmt *rows = NULL;
	int rc = build_query(s, conds, n, &sql, err);
	if (rc == VS_OK)
		rc = na_sql_prepare(s, sql, &rows, err);
	if (rc == VS_OK)
		rc = bind_conditions(s, rows, conds, n, err);
	int step = rc == VS_OK ? sqlite3_step(rows) : SQLITE_DONE;
	*any = step == SQLITE_ROW;
	if (rc == VS_OK && step != SQLITE_ROW && step != SQLITE_DONE)
		rc = na_sql_fail(s, step, err);
	sqlite3_finalize(rows);
	sqlite3_free(sql);
	return rc;
}

int na_store_query(na_store *s, const char *const *conditions, size_t n, na_result_fn fn,
                   void *ud, vs_error *err)
{
	char *sql = NULL;
	sqlite3_stmt *rows = NULL, *labels = NULL;
	int rc = check_fields(s, conditions, n, err);
	if (rc != VS_OK)
		return rc;  /* a whole sentence, about the user's words */
	rc = build_query(s, conditions, n, &sql, err);
	if (rc == VS_OK)
		rc = na_sql_prepare(s, sql, &rows, err);
	if (rc == VS_OK)
		rc = na_sql_prepare(s, "SELECT key, value FROM result_labels WHERE result_id = ? ORDER BY key",
		                    &labels, err);
	if (rc == VS_OK)
		rc = bind_conditions(s, rows, conditions, n, err);
	if (rc != VS_OK)
		vs_error_context(err, "query results");
	else
		rc = each_row(s, rows, labels, fn, ud, err);
	sqlite3_finalize(rows);
	sqlite3_finalize(labels);
	sqlite3_free(sql);
	return rc;
}
