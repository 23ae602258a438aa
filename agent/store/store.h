/* The results database: every benchmark result with where it came from.
 *
 * One SQLite file, WAL mode, every write in a transaction.  store.c is the
 * only file that speaks SQL; the rest of nfsagent sees rows as na_result.
 * Errors: VS_ERR_USAGE for bad input (a malformed condition, a database that
 * is not ours or is newer than this nfsagent), VS_ERR_NOMEM, and VS_ERR_FAULT
 * for anything SQLite or the file system refused, including a lock held by
 * another nfsagent.
 */
#ifndef NFSAGENT_STORE_H
#define NFSAGENT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fio.h"
#include "nfsagent/vsphere.h"

typedef struct na_store na_store;

/* A free key=value pair the user attached to a result ("recordsize=16K").
 * Keys are non-empty and hold no '=', so that a query can name them. */
typedef struct na_label {
	const char *key, *value;
} na_label;

/* One direction of a fio job; present is false when it did no I/O, and then
 * its columns are NULL. */
typedef struct na_dir_stats {
	bool present;
	double iops, bw_bytes, lat_mean_us, p50_us, p95_us, p99_us, p999_us, max_us;
	int64_t total_ios, runtime_ms;
} na_dir_stats;

/* The dataset's settings as measured by bench --nas, read back from the
 * result's NAS row: provenance like the fields below, each named zfs_ and
 * its column of nas_runs (zfs_recordsize), NULL without a NAS side.  SIZE:
 * bytes there, shown as zfs writes them ("16K", "1M", "0"), and a query
 * matches any spelling of the size (16K, 16k, 16384); WORD: as measured. */
#define NA_ZFS_FIELDS(X)                                                               \
	X(recordsize, SIZE) X(sync, WORD) X(compression, WORD) X(atime, WORD) \
	X(logbias, WORD) X(primarycache, WORD) X(special_small_blocks, SIZE) \
	X(pool_layout, WORD) X(pool_health, WORD)

typedef struct na_nas_run na_nas_run;

typedef struct na_result {
	int64_t id;                 /* filled by na_store_add */
	const char *started_at, *finished_at;  /* ISO-8601 UTC */
	const char *status;         /* "ok" or "failed" */
	const char *error;          /* fio's error or stderr; required when failed */
	const char *campaign, *target;  /* NULL outside campaigns */
	int repetition;
	const char *vcenter, *vcenter_version, *vcenter_build;
	const char *host, *esxi_version, *esxi_build;
	const char *datastore, *datastore_type, *servers, *export_path;
	const char *vm, *guest_os, *disk;
	const char *profile, *job_file, *fio_version;
	na_dir_stats read, write;   /* stored as NULL for a failed run */
	const char *fio_json, *host_counters_json;
	/* Made by na_store_add, never taken from the caller: the host name of
	 * the machine nfsagent recorded on, and the result's UUID, by which a
	 * central database knows it (NULL before schema 12; the upgrade gives
	 * every older result a UUID and leaves its runner unknown). */
	const char *runner, *uuid;
	/* The host's link to the NFS server as bench read it (netbound.h):
	 * its fastest uplink's negotiated speed in Mb/s (megabits, vSphere's
	 * linkSpeed.speedMb), as decimal text ("10000": compare and report keep
	 * text fields), and that uplink ("vmnic1"); NULL when unknown or
	 * recorded before the link was (see na_result_link). */
	const char *link_speed_mbit, *link_nic;
	/* The host's NFS client settings that shape throughput and the
	 * datastore's nConnect, as bench read them (ops/nfs_client.h):
	 * "NFS.MaxQueueDepth=64 NFS.MaxVolumes=32 SunRPC.MaxConnPerIP=4",
	 * sorted; NULL when unknown or recorded before they were. */
	const char *nfs_client;
	/* Where fio ran: "guest" (every result but one), or "nas" for the
	 * pool measured on its own (bench --nas-baseline, ops/baseline.h).
	 * NULL when recording is "guest"; older results read as "guest". */
	const char *site;
	const na_label *labels;
	size_t n_labels;
	/* Its NAS side (store_nas.c), recorded in the result's transaction
	 * (n->result_id is ignored: it is this result's); NULL: none. */
	const na_nas_run *nas;
#define NA_ZFS_MEMBER(col, kind) const char *zfs_##col;
	NA_ZFS_FIELDS(NA_ZFS_MEMBER)   /* read back only: na_store_add takes nas */
#undef NA_ZFS_MEMBER
} na_result;

/* ---- the result's fields: one table for store, results, compare and report ----
 * Every field of na_result but id and the per-direction statistics, in the
 * order the store lists them, then the NA_ZFS_FIELDS (text fields that are
 * query, list and factor).  query: --where and selectors name it; list:
 * results shows it; factor: compare names it when its mix of values
 * differs between two groups (the job file by a hash of its content).
 * alias: another name people give it, which conditions, grouping and
 * compare's factors take and show (protocol, the datastore's type). */
#define NA_RESULT_FIELDS(X)                                     \
	/* name            type  query list factor alias */ \
	X(status,          TEXT, 1, 1, 0, NULL)         \
	X(campaign,        TEXT, 1, 1, 0, NULL)         \
	X(target,          TEXT, 1, 1, 0, NULL)         \
	X(repetition,      INT,  1, 1, 0, NULL)         \
	X(vcenter,         TEXT, 1, 1, 1, NULL)         \
	X(vcenter_version, TEXT, 1, 1, 1, NULL)         \
	X(vcenter_build,   TEXT, 1, 1, 1, NULL)         \
	X(host,            TEXT, 1, 1, 1, NULL)         \
	X(esxi_version,    TEXT, 1, 1, 1, NULL)         \
	X(esxi_build,      TEXT, 1, 1, 1, NULL)         \
	X(datastore,       TEXT, 1, 1, 1, NULL)         \
	X(datastore_type,  TEXT, 1, 1, 1, "protocol")   \
	X(servers,         TEXT, 1, 1, 1, NULL)         \
	X(export_path,     TEXT, 1, 1, 1, NULL)         \
	X(vm,              TEXT, 1, 1, 1, NULL)         \
	X(guest_os,        TEXT, 1, 1, 1, NULL)         \
	X(disk,            TEXT, 1, 1, 1, NULL)         \
	X(profile,         TEXT, 1, 1, 0, NULL)         \
	X(fio_version,     TEXT, 1, 1, 1, NULL)         \
	X(started_at,      TEXT, 1, 1, 0, NULL)         \
	X(finished_at,     TEXT, 1, 1, 0, NULL)         \
	X(error,           TEXT, 0, 1, 0, NULL)         \
	X(job_file,        TEXT, 0, 0, 1, NULL)         \
	X(fio_json,        TEXT, 0, 0, 0, NULL)         \
	X(host_counters_json, TEXT, 0, 0, 0, NULL)      \
	X(runner,          TEXT, 1, 1, 0, NULL)         \
	X(uuid,            TEXT, 1, 1, 0, NULL)         \
	X(link_speed_mbit, TEXT, 1, 1, 1, NULL)         \
	X(link_nic,        TEXT, 1, 1, 0, NULL)         \
	X(nfs_client,      TEXT, 1, 1, 1, NULL)         \
	X(site,            TEXT, 1, 1, 1, NULL)
/* One direction's statistics (na_dir_stats), in the same way. */
#define NA_DIR_STATS(X) \
	X(iops, REAL) X(bw_bytes, REAL) X(lat_mean_us, REAL) X(p50_us, REAL) X(p95_us, REAL) \
	X(p99_us, REAL) X(p999_us, REAL) X(max_us, REAL) X(total_ios, I64) X(runtime_ms, I64)

#define NA_FIELD_ID(name, type, query, list, factor, alias) NA_FIELD_##name,
#define NA_ZFS_ID(col, kind) NA_FIELD_zfs_##col,
enum { NA_RESULT_FIELDS(NA_FIELD_ID) NA_ZFS_FIELDS(NA_ZFS_ID) NA_N_FIELDS };
#undef NA_FIELD_ID
#undef NA_ZFS_ID
enum { NA_FIELD_FIRST_ZFS = NA_FIELD_zfs_recordsize };
#define NA_STAT_ID(name, type) NA_STAT_##name,
enum { NA_DIR_STATS(NA_STAT_ID) NA_N_STATS };
#undef NA_STAT_ID

typedef enum na_type { NA_TYPE_TEXT, NA_TYPE_INT, NA_TYPE_REAL, NA_TYPE_I64 } na_type;
typedef struct na_field {
	const char *name;
	na_type type;
	size_t off;               /* in na_result, or in na_dir_stats for a statistic */
	bool query, list, factor;
	const char *alias;        /* NULL: none */
} na_field;
extern const na_field na_fields[NA_N_FIELDS];
extern const na_field na_stats[NA_N_STATS];
/* A listed text field: what compare and report keep of a row. */
static inline bool na_field_kept(int field)
{
	return na_fields[field].type == NA_TYPE_TEXT && na_fields[field].list;
}
/* The field name[0..len) names, by its name or its alias, or -1. */
int na_field_named(const char *name, size_t len);
/* Field f as people name it: its alias, else its name. */
static inline const char *na_field_shown(int f)
{
	return na_fields[f].alias ? na_fields[f].alias : na_fields[f].name;
}
/* The zfs_ field a label key names ("recordsize": NA_FIELD_zfs_recordsize),
 * or -1. */
int na_zfs_field_of(const char *label_key);
/* Whether a label's value contradicts zfs_ field f's measured value: a size
 * by its bytes (16K = 16384), a word in any case. */
bool na_zfs_contradicts(int f, const char *label, const char *measured);
/* A text field's value (NULL when not recorded). */
const char *na_field_text(const na_result *r, int field);
/* A statistic as a double (the integer ones converted). */
double na_stat_value(const na_dir_stats *d, int stat);

/* Opens (creating and migrating) the database; path NULL = the default
 * location, $XDG_DATA_HOME/nfsagent/results.db or
 * ~/.local/share/nfsagent/results.db.  A database that is not nfsagent's is
 * refused without being changed. */
int na_store_open(const char *path, na_store **out, vs_error *err);
/* A version 4 UUID (store_journal.c): also the mark of a dataset a command makes. */
int na_store_make_uuid(char out[37], vs_error *err);
/* Whether name is a result field --where selects by (so no label key). */
bool na_store_is_field(const char *name);
/* Opens an existing database to read it, never changing it (results,
 * compare, report, regress): a missing or empty file is refused, not made a
 * database, and a file without write permission is read.  An older schema
 * is never upgraded here: it is read as it is (a campaign result recorded
 * twice before schema 4 reads once, the oldest, as the upgrade keeps it);
 * the next recording command (bench, run) upgrades the file. */
int na_store_open_readonly(const char *path, na_store **out, vs_error *err);
void na_store_close(na_store **s);
const char *na_store_path(const na_store *s);
/* How long a write waits for another nfsagent's transaction (default 5 s). */
void na_store_set_busy_timeout(na_store *s, int ms);
/* The schema version this nfsagent writes. */
int na_store_schema_version(void);

/* Adds one result, its labels and its NAS side (r->nas) in one
 * transaction; sets r->id.  A
 * campaign's result is recorded once: another for the same campaign run,
 * target, repetition and profile is refused (VS_ERR_USAGE).  Databases from
 * before that rule keep the oldest row of each when they are migrated (the
 * count removed is noted in nfsagent_meta as 'duplicates_removed'), and a
 * result a kill left without its journal step gets that step. */
int na_store_add(na_store *s, na_result *r, vs_error *err);
/* The same, with the campaign's journal step (of run r->campaign, its detail
 * the row's id) in the same transaction: the result and its step are
 * recorded together or not at all.  step NULL: na_store_add. */
int na_store_add_journaled(na_store *s, na_result *r, const char *step, vs_error *err);

/* Result id's fio latency bins as recorded with it (store_bins.c): out[0]
 * read (a mixed job's), out[1] write, each ascending by value, present
 * when it has some, total_ios their count; none when fio's output held no
 * bins (plain json).  Free each with na_fio_dir_clear, whatever it returns. */
int na_store_bins_of(na_store *s, int64_t result_id, na_fio_dir out[2], vs_error *err);

/* ---- a group run (bench on several VMs at once; store_group.c) ---- */
typedef struct na_group_row {
	int64_t id;                 /* set by na_store_group_end */
	const char *uuid;           /* as read back (na_store_group_of); NULL when recording */
	const char *started_at, *profile;
	int repetition;
	int vms;                    /* members, complete or not */
	double start_skew_ms;       /* < 0: fewer than two started */
	/* NULL: every member ran the whole job; else which did not and why */
	const char *why;
	/* The group's figures over its complete members: sums, percentiles of
	 * the merged bins (group.c) */
	na_dir_stats read, write;
	double iops;                /* all directions */
	const char *slowest_vm;
	double slowest_share;
	/* Its NAS side: one row per pool its members' datastores are exports
	 * of (store_group_nas.c); none without one */
	const struct na_group_nas_row *nas;
	size_t n_nas;
	char *owned;                /* the strings na_store_group_of read (na_group_row_clear) */
} na_group_row;
/* Frees what na_store_group_of read into g. */
void na_group_row_clear(na_group_row *g);
/* A pool during a group run: sampled once for the members on it, over
 * the group's common window. */
typedef struct na_group_nas_row {
	const char *nas, *pool;     /* the NAS as reached (its host) and the pool's name */
	const char *datasets, *vms; /* its members' datasets and VMs, ", " between */
	int members;                /* the members on it, complete or not */
	int interval_s;             /* zpool iostat's */
	bool pool_known;            /* it was sampled: the bytes are measured (else NULL) */
	double measured_s, window_s; /* of the window, the seconds zpool measured; -1: not placed */
	int64_t data_write_bytes, special_write_bytes, log_write_bytes, data_read_bytes;
	int64_t guest_write_bytes;  /* the complete members' writes in the window, summed */
	/* (data + special + log writes) / guest_write_bytes; -1: not known */
	double amplification;
	const char *why;            /* NULL: complete; else why its figures are not the window's */
} na_group_nas_row;
typedef struct na_group_member {
	const char *vm;
	int64_t result_id;          /* 0: nothing recorded */
	const char *why;            /* NULL: it ran the whole job */
} na_group_member;
/* Opens one transaction for a group and its members: each result recorded
 * until na_store_group_end is a part of it, so that a kill leaves the group
 * with all its members or none of them. */
int na_store_group_begin(na_store *s, vs_error *err);
/* Records the group and links its members (rc VS_OK), then commits; rc not
 * VS_OK (or a failure here) rolls the group and its members back.  Returns
 * the outcome. */
int na_store_group_end(na_store *s, int rc, na_group_row *g, const na_group_member *m, size_t n,
                       vs_error *err);
/* The next group na_store_group_end records journals step of campaign run
 * run, its detail the group's id, in the group's transaction: a group and
 * its step commit together or not at all, so that a resumed campaign never
 * records a second group for one step.  run NULL forgets a step no group
 * took. */
int na_store_group_journal(na_store *s, const char *run, const char *step, vs_error *err);
/* Each group campaign run run journaled ("group:TARGET:REP:PROFILE" steps,
 * in the order recorded), with its target: id, profile, repetition, vms,
 * why ("incomplete" or NULL), iops, slowest_vm and slowest_share; the
 * strings live for the call.  fn's status stops the walk. */
typedef int (*na_group_fn)(const char *target, const na_group_row *g, void *ud, vs_error *err);
int na_store_run_groups(na_store *s, const char *run, na_group_fn fn, void *ud, vs_error *err);
/* The group result id was recorded in (g->id 0: none): every column of
 * its row (a NULL statistic -1, a direction without I/O not present), its
 * strings g's until na_group_row_clear (call it whatever this returns);
 * incomplete: why is "incomplete".  From a file or a central database. */
int na_store_group_of(na_store *s, int64_t result_id, na_group_row *g, vs_error *err);
/* Each member of group group, by VM: its VM, its result (0: it recorded
 * nothing) and that result's UUID (NULL then), and why it was left out
 * (NULL: it ran the whole job); the strings live for the call.  fn's
 * status stops the walk. */
typedef int (*na_member_fn)(const na_group_member *m, const char *result_uuid, void *ud,
                            vs_error *err);
int na_store_group_members(na_store *s, int64_t group, na_member_fn fn, void *ud, vs_error *err);
/* Refuses (VS_ERR_FAULT, naming them) results ids[0..n) that a central
 * database knows as members of a group it does not hold: counted as single
 * runs they would be pseudo-replication.  A file holds a group and its
 * members together (one transaction): VS_OK. */
int na_store_check_groups(na_store *s, const int64_t *ids, size_t n, vs_error *err);
/* Each NAS row of group group, by NAS and pool; the strings live for the
 * call (an older file has none: schema 16).  fn's status stops the walk. */
typedef int (*na_group_nas_fn)(const na_group_nas_row *p, void *ud, vs_error *err);
int na_store_group_nas_of(na_store *s, int64_t group, na_group_nas_fn fn, void *ud, vs_error *err);

/* Called for each row; returns VS_OK to go on, or a negative status (with err
 * filled) to stop the query, which then returns that status. */
typedef int (*na_result_fn)(const na_result *r, void *ud, vs_error *err);
/* Every condition "field=value" must hold.  field is a provenance column
 * (status, campaign, target, repetition, vcenter, host, esxi_version,
 * esxi_build, datastore, datastore_type or its alias protocol, servers,
 * export_path, vm, guest_os, disk, profile, fio_version, id ...) or else a
 * label key.  Calls fn for each row in id order with a na_result whose
 * strings live until fn returns. */
int na_store_query(na_store *s, const char *const *conditions, size_t n, na_result_fn fn,
                   void *ud, vs_error *err);
/* A query whose field is neither a column nor a recorded label key is
 * refused (VS_ERR_USAGE), naming the fields and labels there are.  A
 * protocol (datastore_type) value may be written NFS3, NFSv3, NFS4.1,
 * NFSv4.1, nfs41...: it is compared as NFS or NFS41.
 * After a query matched nothing: fills err (VS_ERR_NOT_FOUND) with why in
 * words, the first condition no result meets and that field's recorded
 * values, and returns that status. */
int na_store_explain_none(na_store *s, const char *const *conditions, size_t n, vs_error *err);

/* ---- findings: probe verdicts and failed moves, with their provenance ---- */
typedef struct na_finding {
	int64_t id;
	const char *at, *kind;      /* kind: "probe" or "migration" */
	const char *campaign, *target;
	const char *host, *esxi_version, *esxi_build;
	const char *datastore, *datastore_type, *servers, *export_path;
	const char *vm;
	bool extent_bug;            /* the descriptor/extent size mismatch showed */
	const char *verdict;        /* one line */
	const char *evidence_json;  /* array of strings */
	const char *extent_case;    /* "host", "export", "transient" or NULL (na_extent_case) */
} na_finding;
int na_store_add_finding(na_store *s, na_finding *f, vs_error *err);
typedef int (*na_finding_fn)(const na_finding *f, void *ud, vs_error *err);
/* Conditions field=value over kind, campaign, target, host, esxi_version,
 * esxi_build, datastore, datastore_type (alias protocol), servers,
 * export_path, vm; in id order. */
int na_store_findings(na_store *s, const char *const *conditions, size_t n, na_finding_fn fn,
                      void *ud, vs_error *err);

/* ---- the NAS side of a result (bench --nas): the dataset's settings as
 * measured, and what its pool did during the run (store_nas.c) ---- */
/* Whole numbers of a NAS row: the settings, then the pool's I/O over the
 * window per class (NULL when zpool iostat gave no window), then the kstat
 * deltas (NULL when they were not read before and after). */
#define NA_NAS_SETTINGS(X) X(recordsize) X(special_small_blocks)
#define NA_NAS_POOL(X)                                                                          \
	X(interval_s) X(intervals)                      \
	X(data_read_ops) X(data_write_ops) X(data_read_bytes) X(data_write_bytes) \
	X(special_read_ops) X(special_write_ops) X(special_read_bytes) X(special_write_bytes) \
	X(dedup_read_ops) X(dedup_write_ops) X(dedup_read_bytes) X(dedup_write_bytes) \
	X(log_read_ops) X(log_write_ops) X(log_read_bytes) X(log_write_bytes) \
	X(cache_read_ops) X(cache_write_ops) X(cache_read_bytes) X(cache_write_bytes)
#define NA_NAS_COUNTERS(X)                                                                      \
	X(dataset_writes) X(dataset_written) X(dataset_reads) X(dataset_read) \
	X(arc_demand_hits) X(arc_demand_misses) X(arc_size) X(zil_commits) X(zil_slog_bytes) \
	X(zil_normal_bytes)
/* Real numbers (schema 8; NULL when not known, or before it): the seconds
 * of fio's window zpool iostat's intervals measured and the window's own
 * (the totals are scaled up to it, nas_window_select), and the write
 * amplification with its split (nas_amplification_of: pool data and log
 * writes per guest byte = dataset per guest byte x pool data per dataset
 * byte + log per guest byte), all over fio's window. */
#define NA_NAS_REALS(X) \
	X(measured_s) X(window_s) X(amplification) X(amp_guest_to_dataset) X(amp_dataset_to_data) \
	X(amp_log_share)
/* The clocks (schema 9; NULL when not known, or before it): the NAS's
 * clock minus the guest's that moved fio's window onto zpool's intervals
 * (na_bench_fio_window), and how far off it may be, seconds.  A shift may
 * be negative, so clock_known says whether both are. */
#define NA_NAS_CLOCK(X) X(clock_shift_s) X(clock_err_s)
/* The figures an admin watches beside a benchmark (schema 11; NULL when
 * not known, or before it), over fio's window: the log class's write wait
 * (zpool iostat -l's total_wait) and its sync queue's share (syncq_wait),
 * ms, NULL without log writes; and of the txgs whose sync ended in it
 * (nas_window's), how many (txg_count, with txgs_known) and their sync
 * time's mean and max (ms) and dirty bytes' mean, NULL when none did. */
#define NA_NAS_ZFS_REALS(X) \
	X(log_write_wait_ms) X(log_sync_write_wait_ms) X(txg_sync_mean_ms) X(txg_sync_max_ms) \
	X(txg_dirty_mean_bytes)
/* Texts: the dataset, the pool's layout in words ("2 mirror + log"), the
 * settings that are words, why the figures are incomplete, and the pool's
 * health (schema 10; NULL before it): "ONLINE", "DEGRADED (resilver 43%)". */
#define NA_NAS_TEXTS(X) \
	X(dataset) X(pool_layout) X(sync) X(compression) X(atime) X(logbias) X(primarycache) X(why) \
	X(pool_health)

#define NA_NAS_INT(name) int64_t name;
#define NA_NAS_TEXT(name) const char *name;
#define NA_NAS_REAL(name) double name;
struct na_nas_run {
	int64_t result_id;
	NA_NAS_TEXTS(NA_NAS_TEXT)
	NA_NAS_SETTINGS(NA_NAS_INT)
	bool pool_known;             /* the NA_NAS_POOL figures were measured */
	NA_NAS_POOL(NA_NAS_INT)
	bool counters_known;         /* the NA_NAS_COUNTERS deltas were measured */
	NA_NAS_COUNTERS(NA_NAS_INT)
	double arc_hit_ratio;        /* demand data; < 0 (NULL) without demand reads */
	bool incomplete;             /* something was not read: why says what */
	/* zpool iostat's intervals as JSON, NULL without them (or before schema
	 * 7): {"interval_s": 2, "data_write": [...], "data_read": [...],
	 * "special_write": [...], "log_write": [...], "end": [...]}, bytes per
	 * second; "end" (from schema 8): each interval's end, Unix seconds of
	 * the NAS's clock. */
	const char *timeline;
	NA_NAS_REALS(NA_NAS_REAL)    /* each < 0 (NULL) when not known */
	bool clock_known;            /* the NA_NAS_CLOCK were measured */
	NA_NAS_CLOCK(NA_NAS_REAL)
	bool txgs_known;             /* txg_count was measured (schema 11) */
	int64_t txg_count;
	NA_NAS_ZFS_REALS(NA_NAS_REAL)  /* each < 0 (NULL) when not known */
};
#undef NA_NAS_INT
#undef NA_NAS_TEXT
#undef NA_NAS_REAL
/* A result's NAS side is recorded with it (na_result.nas): both or
 * neither.  One needs its dataset, and why when incomplete (VS_ERR_USAGE,
 * and then the result is not recorded either). */
/* The NAS side of result id: *found false when it has none (no --nas, or
 * a database from before schema 6); fn is called once if it has one, with
 * strings that live until fn returns. */
typedef int (*na_nas_fn)(const na_nas_run *n, void *ud, vs_error *err);
int na_store_nas_of(na_store *s, int64_t result_id, na_nas_fn fn, void *ud, bool *found,
                    vs_error *err);

/* ---- the campaign journal: which steps of a run are done ---- */
/* Claims run for this process; refused while a live process holds it, or
 * when it exists and resume is false. */
int na_store_run_claim(na_store *s, const char *run, const char *name, const char *file,
                       const char *now, bool resume, vs_error *err);
/* Journal reads fail like writes (VS_ERR_FAULT for a database that cannot
 * be read, a lock included): an unreadable journal is never "not done". */
/* *run: the newest unfinished run of a campaign (malloc'd), or NULL. */
int na_store_run_unfinished(na_store *s, const char *name, char **run, vs_error *err);
/* state: "running", "stopped" or "done". */
int na_store_run_state(na_store *s, const char *run, const char *state, const char *now,
                       vs_error *err);
int na_store_step_done(na_store *s, const char *run, const char *step, const char *detail,
                       const char *now, vs_error *err);
/* *done: whether step is journaled; *detail (may be NULL; malloc'd) what was noted. */
int na_store_step_is_done(na_store *s, const char *run, const char *step, bool *done,
                          char **detail, vs_error *err);

/* ---- the central database: PostgreSQL, where the results of many runners
 * meet (store_pg.c, store_push.c; docs/central.md).  The local file stays
 * the outbox: a result is recorded there first, then pushed. ---- */
typedef struct na_central na_central;
/* Refuses (VS_ERR_USAGE) a URL that is not postgresql:// or postgres://, or
 * that holds a password: libpq's own PGPASSWORD, ~/.pgpass (PGPASSFILE)
 * or a service file bring it.  The message never repeats the URL. */
int na_central_check_url(const char *url, vs_error *err);
/* Connects (giving up after 10 s unless the URL sets connect_timeout) and
 * brings the central schema to this nfsagent's version, creating it in a
 * database without one.  Refused: a newer schema, an older one the role may
 * not upgrade, a database with a results table that is not nfsagent's.
 * VS_ERR_CONNECT: unreachable; VS_ERR_AUTH: login or a right refused. */
int na_central_open(const char *url, na_central **out, vs_error *err);
void na_central_close(na_central **c);

typedef struct na_push_counts {
	size_t sent;     /* recorded in the central database by this push */
	size_t present;  /* there already: pushed by a run that was killed before it noted so */
	size_t waiting;  /* left to push after an error */
	size_t findings; /* findings recorded there by this push */
	size_t groups;   /* group runs recorded there by this push */
	size_t waiting_groups; /* group runs left to push after an error (na_store_push_to) */
} na_push_counts;
/* Pushes every result of s that central c lacks, oldest first, each with
 * its labels and NAS side in one transaction of c: whole or not at all;
 * then the findings (probe verdicts, failed moves) it lacks.
 * The central database knows a result by its UUID (INSERT ... ON CONFLICT
 * DO NOTHING), so pushing again, or two runners at once, records it once.
 * Each pushed result is noted in s (central_pushes).  Stops at the first
 * error, with n->waiting counted. */
int na_store_push(na_store *s, na_central *c, na_push_counts *n, vs_error *err);
/* How many results of s no central database has been seen to hold: what
 * waits when the central database cannot be reached. */
int na_store_unpushed(na_store *s, size_t *n, vs_error *err);
/* The push a command makes at its end (bench, run --central): opens url,
 * pushes what no central database has yet (a result pushed to another
 * stays there: `nfsagent push` copies it), closes it.  Recording a result never
 * pushes it: the local file is the outbox, and a push that fails costs the
 * run nothing.  On failure n says what waits (waiting, waiting_groups),
 * counted as those no central database has. */
int na_store_push_to(na_store *s, const char *url, na_push_counts *n, vs_error *err);
/* na_store_push_to at a command's end (s or url NULL: nothing): true when
 * something waits, with line the warning that says so ("2 results wait for
 * the central database (WHY); run nfsagent push"). */
bool na_store_push_at_end(na_store *s, const char *url, char *line, size_t size);

/* ---- for tests ---- */
/* Opens like na_store_open but migrates no further than version (>= 1). */
int na_store_open_version(const char *path, int version, na_store **out, vs_error *err);
/* When set, na_store_add calls it inside its transaction, after the result
 * row and before the labels: a test kills the process there. */
extern void (*na_store_midwrite_hook)(void);

#endif
