/* What the store's files share (store.c: the schema, opening;
 * store_query.c: queries; store_journal.c: recording results, findings and
 * the campaign journal): the handle, the columns of results, and the helpers that run SQL and turn
 * SQLite's status into a vs_error.  Only the store layer includes this;
 * the rest of nfsagent sees store.h. */
#ifndef NFSAGENT_STORE_INTERNAL_H
#define NFSAGENT_STORE_INTERNAL_H

#include <sqlite3.h>

#include "store/store.h"

struct na_store {
	sqlite3 *db;
	char *path;
	int version;  /* the file's schema version, as opened */
	na_central *reader;  /* set: this store is a central database, read only */
	/* A group's transaction is open (na_store_group_begin): each result
	 * recorded meanwhile is a savepoint of it. */
	bool in_group;
	/* The journal step the next group records with its id (run, step;
	 * na_store_group_journal), NULL: none. */
	char *group_run, *group_step;
};
/* The schema step that gave results their uuid and runner columns: a file
 * held at an older schema (na_store_open_version) records without them. */
enum { NA_SCHEMA_UUID = 12 };
/* The step that added result_groups (store_group.c). */
enum { NA_SCHEMA_GROUPS = 13 };
/* The step that added result_bins (store_bins.c). */
enum { NA_SCHEMA_BINS = 14 };
/* The step that added result_group_nas (store_group_nas.c). */
enum { NA_SCHEMA_GROUP_NAS = 16 };
/* The step that added central_group_pushes (store_group.c): its number is
 * its place in na_schema_migrations (na_schema_version_of). */
extern const char na_store_group_pushes_schema[];

/* Journals step of a campaign run (detail: what was noted, may be NULL)
 * inside the caller's transaction, done at now (NULL: this moment). */
int na_store_journal_step(na_store *s, const char *run, const char *step, const char *detail,
                          const char *now, vs_error *err);

/* Fills err from SQLite's status rc (a lock, damage and memory each get
 * their own message) and returns the vs_error status. */
int na_sql_fail(const na_store *s, int rc, vs_error *err);
int na_sql_prepare(na_store *s, const char *sql, sqlite3_stmt **st, vs_error *err);
/* BEGIN IMMEDIATE, and its end: commits if rc is VS_OK, else rolls back;
 * returns the outcome. */
int na_sql_begin(na_store *s, vs_error *err);
/* Runs sql with n text parameters, inside the caller's transaction
 * (store_journal.c). */
int na_sql_exec_args(na_store *s, const char *sql, const char *const *args, int n, vs_error *err);
/* Steps st once (prepared when rc is VS_OK, its parameters bound when
 * bound is SQLITE_OK), expecting no row, and finalizes it. */
int na_sql_run(na_store *s, sqlite3_stmt *st, int rc, int bound, vs_error *err);
int na_sql_finish(na_store *s, int rc, vs_error *err);

/* A column of results (all but id): a field of na_result, or a statistic of
 * one direction (dir: the offset of its na_dir_stats, 0 for a field). */
typedef struct na_column {
	const char *name;
	na_type type;
	size_t off;  /* of the value in na_result */
	size_t dir;
} na_column;
extern const na_column na_columns[];
extern const size_t na_n_columns;
/* Appends "a, b, c" of the columns' names to t. */
void na_sql_columns(sqlite3_str *t);

/* A column's value as either engine takes it: SQLite binds it, PostgreSQL
 * gets it as text (store_pg.c), so both record a row the same way. */
typedef struct na_value {
	na_type type;      /* TEXT: text; INT, I64: i; REAL: d */
	bool null;
	const char *text;
	int64_t i;
	double d;
} na_value;
/* Column c of result r: a failed run's statistics, and a direction that did
 * no I/O, are NULL (store_journal.c). */
na_value na_column_value(const na_result *r, const na_column *c);
/* Binds v as parameter at of st. */
int na_sql_bind(sqlite3_stmt *st, int at, const na_value *v);

/* store_schema.c: step i of na_schema_migrations takes a database from
 * version i to i + 1 (na_schema_latest steps in all); a reader of version
 * v runs the na_schema_views whose from <= v < to instead. */
extern const char *const na_schema_migrations[];
extern const int na_schema_latest;
typedef struct na_schema_view {
	int from, to;
	const char *sql;
} na_schema_view;
extern const na_schema_view na_schema_views[];
extern const size_t na_schema_n_views;
/* The version step gives a file (its place in na_schema_migrations), 0 for
 * none: a step known by its text keeps its meaning when steps merged from
 * elsewhere go before it. */
int na_schema_version_of(const char *step);
/* The step that added results' link columns, and what a reader of a file
 * from NA_SCHEMA_UUID up to it sees instead (store.c). */
extern const char na_schema_link_step[];
extern const char na_schema_no_link[];
/* The step that added results' nfs_client column, and what a reader of a
 * file from the link step up to it sees instead (store.c). */
extern const char na_schema_nfs_client_step[];
extern const char na_schema_no_nfs_client[];
/* The step that added results' site, and what a reader of a file from the
 * link step up to it sees instead. */
extern const char na_schema_site_step[];
extern const char na_schema_no_site[];

/* store_nas.c: schema steps 6 (nas_runs), 7 (its timeline), 8 (the
 * window's seconds, the split), 9 (the clocks), 10 (the pool's health) and
 * 11 (the txgs and the log's waits), and what a reader of an older file
 * sees instead (before 6: an empty temp table; at 6 to 10: a view with the
 * later steps' columns NULL). */
extern const char na_store_nas_schema[];
extern const char na_store_nas_timeline[];
extern const char na_store_nas_none[];
/* store_group.c: step 13, and what a reader of an older file sees */
extern const char na_store_group_schema[];
extern const char na_store_group_none[];
/* store_group_nas.c: step 16, what a reader of an older file sees, and
 * a group's NAS row inserted in the group's transaction */
extern const char na_store_group_nas_schema[];
extern const char na_store_group_nas_none[];
int na_store_group_nas_insert(na_store *s, int64_t group, const na_group_nas_row *p,
                              vs_error *err);
/* store_bins.c: step 14 (result_bins, filled for older results), what a
 * reader of an older file sees instead, and the table-valued SQL function
 * nfsagent_fio_bins(fio_json) that both use (na_bins_register adds it to
 * the connection, before either runs). */
extern const char na_store_bins_schema[];
extern const char na_store_bins_view[];
int na_bins_register(na_store *s, vs_error *err);
/* Records result_id's bins from its stored fio_json, inside the caller's
 * transaction (na_store_add_journaled's). */
int na_bins_insert(na_store *s, int64_t result_id, vs_error *err);
/* result_bins' directions, "read" (a mixed job's) and "write". */
extern const char *const na_bins_directions[2];
/* The bins of fio's stored output json (may be NULL): false when it has
 * none that parse; else d[0] read (a mixed job's), d[1] write, in f, which
 * the caller clears (na_fio_result_clear). */
bool na_bins_of_fio_json(const char *json, na_fio_result *f, const na_fio_dir *d[2]);
/* Appends one bin read back (rows in order of direction and value) to
 * out's direction. */
int na_bins_append(na_fio_dir out[2], const char *direction, int64_t ns, int64_t count,
                   vs_error *err);
extern const char na_store_nas_no_timeline[];
extern const char na_store_nas_window[];
extern const char na_store_nas_no_window[];
extern const char na_store_nas_clock[];
extern const char na_store_nas_no_clock[];
extern const char na_store_nas_health[];
extern const char na_store_nas_no_health[];
extern const char na_store_nas_zfs[];
extern const char na_store_nas_no_zfs[];
/* Inserts the NAS side of result result_id inside the caller's
 * transaction (na_store_add_journaled's). */
int na_nas_insert(na_store *s, const na_nas_run *n, int64_t result_id, vs_error *err);
/* The columns of nas_runs in one order, "result_id, dataset, ...": texts,
 * settings, pool, counters, then arc_hit_ratio, incomplete, timeline, the
 * reals, the clocks, txg_count and the ZFS reals; and a NAS row's values in that order (what is not
 * measured is NULL), for either engine.  NULL: n has no dataset, or no why
 * while incomplete. */
#define NA_NAS_NAME(name) ", " #name
#define NA_NAS_COLUMNS                                                                    \
	"result_id" NA_NAS_TEXTS(NA_NAS_NAME) NA_NAS_SETTINGS(NA_NAS_NAME) NA_NAS_POOL(NA_NAS_NAME) \
	NA_NAS_COUNTERS(NA_NAS_NAME) ", arc_hit_ratio, incomplete, timeline"                  \
	NA_NAS_REALS(NA_NAS_NAME) NA_NAS_CLOCK(NA_NAS_NAME) ", txg_count" NA_NAS_ZFS_REALS(NA_NAS_NAME)
#define NA_NAS_ONE(name) +1
enum {
	NA_NAS_N_COLUMNS = 1 + 0 NA_NAS_TEXTS(NA_NAS_ONE) NA_NAS_SETTINGS(NA_NAS_ONE)
		NA_NAS_POOL(NA_NAS_ONE) NA_NAS_COUNTERS(NA_NAS_ONE) + 3 NA_NAS_REALS(NA_NAS_ONE)
		NA_NAS_CLOCK(NA_NAS_ONE) + 1 NA_NAS_ZFS_REALS(NA_NAS_ONE)
};
int na_nas_values(const na_nas_run *n, int64_t result_id, na_value v[NA_NAS_N_COLUMNS],
                  vs_error *err);
/* The reverse, from NA_NAS_COLUMNS' values as text (PostgreSQL's: a flag
 * "t" or "f"); n's strings are v's. */
void na_nas_from_text(na_nas_run *n, const na_value v[NA_NAS_N_COLUMNS]);

/* The zfs_ fields' SQL (store_nas.c), in NA_ZFS_FIELDS' order: what a
 * query reads (a size as zfs writes it: 16K, 1M, 0) and what a condition
 * compares (a size as its bytes, so 16k and 16384 match 16K too), from
 * the NA_RESULTS_AND_NAS join. */
#define NA_RESULTS_AND_NAS " results LEFT JOIN nas_runs ON nas_runs.result_id = results.id"
enum { NA_N_ZFS = NA_N_FIELDS - NA_FIELD_FIRST_ZFS };
typedef struct na_zfs_column {
	const char *shown, *compared;
	bool size;
} na_zfs_column;
extern const na_zfs_column na_zfs_columns[NA_N_ZFS];
/* A size as zfs or a label writes it ("0", "16K", "16384"), in bytes; -1
 * for no size. */
int64_t na_zfs_size_of(const char *v);

/* store_pg.c for store_push.c: records result r, its labels, its NAS
 * side (nas, may be NULL), its latency bins (bins[0] read, bins[1]
 * write, as na_store_bins_of reads them) and the UUID of its group (group:
 * "" for none) in one transaction of c; *sent is false when c had r's UUID
 * already (and then nothing is written). */
int na_central_insert(na_central *c, const na_result *r, const na_nas_run *nas,
                      const na_fio_dir bins[2], const char *group, bool *sent, vs_error *err);
/* A group's columns (result_groups) as a push sends them and a reader
 * reads them, the same in both engines; each engine adds started_at last
 * (PostgreSQL's as text), so NA_GROUP_N_COLUMNS + 1 values in all. */
#define NA_GROUP_READ(name, type) ", read_" #name
#define NA_GROUP_WRITE(name, type) ", write_" #name
#define NA_GROUP_COLUMNS                                                         \
	"uuid, profile, repetition, vms, start_skew_ms, incomplete, why"             \
	NA_DIR_STATS(NA_GROUP_READ) NA_DIR_STATS(NA_GROUP_WRITE) ", iops, slowest_vm, slowest_share"
enum { NA_GROUP_N_COLUMNS = 10 + 2 * NA_N_STATS };
/* g from those values as text (NULL: NULL; a flag "1" or "t"), its
 * strings copied into g->owned. */
int na_group_from_text(na_group_row *g, int64_t id, const char *const v[NA_GROUP_N_COLUMNS + 1],
                       vs_error *err);
/* store_pg_group.c: records a group (v: its NA_GROUP_COLUMNS and
 * started_at as text) and its members m (their results pushed before, known
 * by their UUIDs uuid) in one transaction of c; *sent is false when c had its UUID
 * already (and then nothing is written). */
int na_central_insert_group(na_central *c, const char *const v[NA_GROUP_N_COLUMNS + 1],
                            const na_group_member *m, const char *const *uuid, size_t n, bool *sent,
                            vs_error *err);
/* The reader's na_store_group_of, na_store_group_members and
 * na_store_check_groups. */
int na_central_group_of(na_store *s, int64_t result_id, na_group_row *g, vs_error *err);
int na_central_group_members(na_store *s, int64_t group, na_member_fn fn, void *ud, vs_error *err);
int na_central_check_groups(na_store *s, const int64_t *ids, size_t n, vs_error *err);
/* Pushes group id of s (after its members) to c: *sent false when c had
 * it already (store_group.c). */
int na_group_send(na_store *s, na_central *c, int64_t id, bool *sent, vs_error *err);
/* The UUID of the group result id is a member of into out ("" for none):
 * pushed with the result, so that a central database knows its members
 * before their group arrives (store_group.c). */
int na_store_group_uuid_of(na_store *s, int64_t result_id, char out[37], vs_error *err);
/* A finding's columns as a push sends them, the same in both engines. */
#define NA_FINDING_PUSHED                                                                       \
	"uuid, runner, at, kind, campaign, target, host, esxi_version, esxi_build, datastore,"      \
	" datastore_type, servers, export_path, vm, extent_bug, verdict, evidence_json, extent_case"
enum { NA_FINDING_N_PUSHED = 18 };
/* store_pg.c: records a finding, NA_FINDING_PUSHED's values as text (NULL:
 * NULL); *sent is false when c had its UUID already. */
int na_central_insert_finding(na_central *c, const char *const v[NA_FINDING_N_PUSHED], bool *sent,
                              vs_error *err);
/* The central database's own UUID (its nfsagent_meta database_id): what
 * central_pushes notes a push to. */
const char *na_central_id(const na_central *c);

/* store_query.c, for both engines: the column condition "field=value"
 * names (a static string, never the user's text; NULL: a label key), the
 * zfs_ field (its na_zfs_columns index) such a column is, or -1, and the
 * value the condition compares with (a protocol as vSphere records it). */
const char *na_condition_column(const char *cond, size_t len);
int na_zfs_of(const char *col);
const char *na_condition_value(const char *cond, const char *col);
/* store_journal.c: the findings column a condition selects by, or NULL. */
const char *na_finding_column(const char *cond);

/* store_pg.c: a store that reads a central database (results, compare,
 * report, regress with --db postgresql://...): s->reader is set, and the
 * store's reads go there.  Opening never creates nor upgrades its schema. */
int na_central_open_reader(na_store *s, const char *url, vs_error *err);
bool na_is_central_url(const char *path);
int na_central_query(na_store *s, const char *const *conds, size_t n, na_result_fn fn, void *ud,
                     vs_error *err);
int na_central_nas_of(na_store *s, int64_t id, na_nas_fn fn, void *ud, bool *found,
                      vs_error *err);
int na_central_bins_of(na_store *s, int64_t id, na_fio_dir out[2], vs_error *err);
int na_central_findings(na_store *s, const char *const *conds, size_t n, na_finding_fn fn,
                        void *ud, vs_error *err);
/* What na_store_explain_none and the check of a query's fields ask, there:
 * whether any result meets conds, and the values of sql's first column
 * (key: its $1) as na_values_add lists them. */
int na_central_any_match(na_store *s, const char *const *conds, size_t n, bool *any,
                         vs_error *err);
int na_central_list_values(na_store *s, const char *sql, const char *key, size_t keylen,
                           size_t max, char *buf, size_t size, vs_error *err);
/* Adds value v (the n-th) to buf's ", "-separated list of at most max
 * ("..." after); false once max are there. */
bool na_values_add(char *buf, size_t size, size_t *len, size_t *n, size_t max, const char *v);

/* A protocol as vSphere records it ("NFS", "NFS41") for the ways people
 * write it (NFS3, NFSv4.1...); any other value as typed. */
const char *na_protocol_value(const char *v);

#endif
