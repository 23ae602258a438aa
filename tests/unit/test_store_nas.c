/* The NAS side of results (store_nas.c): a row recorded and read back with
 * what was not measured kept apart from zero, one per result, refused
 * without its dataset or an incomplete one without why, schema steps 6 to 11
 * on an older file, and a reader of an older file that sees no NAS side (or
 * a later step's columns NULL). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "store/store.h"

static char path[256];

static int setup(void **state)
{
	(void)state;
	const char *tmp = getenv("TMPDIR");
	snprintf(path, sizeof(path), "%s/nfsagent-store-nas-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	unlink(path);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char side[300];
	unlink(path);
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);
	return 0;
}

static na_result result(void)
{
	return (na_result){
		.started_at = "2026-12-01T10:00:00Z", .finished_at = "2026-12-01T10:01:00Z",
		.status = "ok", .repetition = 1, .host = "esx1", .datastore = "ds64k",
		.datastore_type = "NFS", .vm = "fiotest", .profile = "randwrite-4k-qd1",
		.write = {true, 33700, 138e6, 29, 25, 40, 60, 90, 900, 2022000, 60000},
	};
}

/* A result with NAS side nas (NULL: none). */
static int64_t add_result(na_store *s, const na_nas_run *nas)
{
	na_result r = result();
	r.nas = nas;
	vs_error err = {0};
	assert_int_equal(na_store_add(s, &r, &err), VS_OK);
	return r.id;
}

static na_nas_run sample(void)
{
	return (na_nas_run){
		.dataset = "tank/vmware64k", .pool_layout = "2 mirror + log", .pool_health = "ONLINE",
		.sync = "standard", .compression = "lz4", .atime = "off", .logbias = "latency",
		.primarycache = "all", .recordsize = 65536, .special_small_blocks = 0,
		.pool_known = true, .interval_s = 2, .intervals = 30,
		.data_write_bytes = 210000000000, .data_write_ops = 804000, .log_write_bytes = 54000000000,
		.data_read_bytes = 0,
		.counters_known = true, .dataset_written = 8300000000, .dataset_writes = 2022000,
		.arc_demand_hits = 0, .arc_demand_misses = 0, .arc_size = 200000000000,
		.zil_slog_bytes = 53000000000, .zil_commits = 2022000, .arc_hit_ratio = -1,
		.timeline = "{\"interval_s\":2,\"data_write\":[3500000000,3400000000]}",
		.measured_s = 58, .window_s = 60, .amplification = 31.8, .amp_guest_to_dataset = 1,
		.amp_dataset_to_data = 25.3, .amp_log_share = 6.5,
		/* the NAS's clock behind the guest's: a shift below 0 is known */
		.clock_known = true, .clock_shift_s = -0.25, .clock_err_s = 0.004,
		/* schema 11: the SLOG's waits, 12 txgs in the window */
		.log_write_wait_ms = 0.095, .log_sync_write_wait_ms = 0.015, .txgs_known = true,
		.txg_count = 12, .txg_sync_mean_ms = 812.5, .txg_sync_max_ms = 1204,
		.txg_dirty_mean_bytes = 410e6,
	};
}

typedef struct seen {
	int calls;
	na_nas_run n;
	char dataset[64], sync[16], why[128], timeline[128], health[64];
} seen;

static int keep(const na_nas_run *n, void *ud, vs_error *err)
{
	(void)err;
	seen *s = ud;
	s->calls++;
	s->n = *n;
	snprintf(s->dataset, sizeof(s->dataset), "%s", n->dataset ? n->dataset : "(null)");
	snprintf(s->sync, sizeof(s->sync), "%s", n->sync ? n->sync : "(null)");
	snprintf(s->why, sizeof(s->why), "%s", n->why ? n->why : "(null)");
	snprintf(s->timeline, sizeof(s->timeline), "%s", n->timeline ? n->timeline : "(null)");
	snprintf(s->health, sizeof(s->health), "%s", n->pool_health ? n->pool_health : "(null)");
	return VS_OK;
}

static void recorded_and_read_back(void **state)
{
	(void)state;
	na_store *s = NULL;
	vs_error err = {0};
	assert_int_equal(na_store_open(path, &s, &err), VS_OK);
	assert_true(na_store_schema_version() >= 15);  /* later steps add other tables */
	na_nas_run n = sample();
	int64_t id = add_result(s, &n);
	/* The sampler died: settings kept, the figures not measured are NULL. */
	na_nas_run lost = sample();
	lost.pool_known = lost.counters_known = false;
	lost.incomplete = true;
	lost.why = "zpool exited 1: pool I/O is currently suspended";
	lost.measured_s = lost.window_s = lost.amplification = -1;
	lost.amp_guest_to_dataset = lost.amp_dataset_to_data = lost.amp_log_share = -1;
	lost.clock_known = false;  /* the guest's clock.txt could not be read */
	lost.txgs_known = false;   /* nor the txgs */
	lost.log_write_wait_ms = lost.log_sync_write_wait_ms = lost.txg_sync_mean_ms = -1;
	lost.txg_sync_max_ms = lost.txg_dirty_mean_bytes = -1;
	int64_t other = add_result(s, &lost);

	seen got = {0};
	bool found = false;
	assert_int_equal(na_store_nas_of(s, id, keep, &got, &found, &err), VS_OK);
	assert_true(found);
	assert_int_equal(got.calls, 1);
	assert_string_equal(got.dataset, "tank/vmware64k");
	assert_string_equal(got.health, "ONLINE");
	assert_string_equal(got.sync, "standard");
	assert_string_equal(got.why, "(null)");
	assert_int_equal(got.n.recordsize, 65536);
	assert_true(got.n.pool_known);
	assert_int_equal(got.n.intervals, 30);
	assert_int_equal(got.n.data_write_bytes, 210000000000);
	assert_int_equal(got.n.log_write_bytes, 54000000000);
	assert_true(got.n.counters_known);
	assert_int_equal(got.n.dataset_written, 8300000000);
	assert_int_equal(got.n.zil_slog_bytes, 53000000000);
	assert_true(got.n.arc_hit_ratio < 0);
	assert_false(got.n.incomplete);
	assert_string_equal(got.timeline, "{\"interval_s\":2,\"data_write\":[3500000000,3400000000]}");
	assert_true(got.n.measured_s == 58 && got.n.window_s == 60);
	assert_true(got.n.amplification == 31.8 && got.n.amp_guest_to_dataset == 1);
	assert_true(got.n.amp_dataset_to_data == 25.3 && got.n.amp_log_share == 6.5);
	assert_true(got.n.clock_known);
	assert_true(got.n.clock_shift_s == -0.25 && got.n.clock_err_s == 0.004);
	assert_true(got.n.log_write_wait_ms == 0.095 && got.n.log_sync_write_wait_ms == 0.015);
	assert_true(got.n.txgs_known);
	assert_int_equal(got.n.txg_count, 12);
	assert_true(got.n.txg_sync_mean_ms == 812.5 && got.n.txg_sync_max_ms == 1204);
	assert_true(got.n.txg_dirty_mean_bytes == 410e6);

	got = (seen){0};
	assert_int_equal(na_store_nas_of(s, other, keep, &got, &found, &err), VS_OK);
	assert_true(found);
	assert_true(got.n.incomplete);
	assert_string_equal(got.why, "zpool exited 1: pool I/O is currently suspended");
	assert_int_equal(got.n.recordsize, 65536);
	assert_false(got.n.pool_known);
	assert_false(got.n.counters_known);
	assert_string_equal(got.timeline, "(null)");  /* no window, no timeline */
	assert_true(got.n.measured_s < 0 && got.n.window_s < 0 && got.n.amplification < 0);
	assert_true(got.n.amp_dataset_to_data < 0 && got.n.amp_log_share < 0);
	assert_false(got.n.clock_known);
	assert_false(got.n.txgs_known);
	assert_true(got.n.log_write_wait_ms < 0 && got.n.txg_sync_mean_ms < 0);

	/* A result without one; the refusals, which refuse the result too: a
	 * result and its NAS side are one transaction. */
	int64_t bare = add_result(s, NULL);
	got = (seen){0};
	assert_int_equal(na_store_nas_of(s, bare, keep, &got, &found, &err), VS_OK);
	assert_false(found);
	assert_int_equal(got.calls, 0);
	na_nas_run bad = sample();
	bad.dataset = NULL;
	na_result r = result();
	r.nas = &bad;
	assert_int_equal(na_store_add(s, &r, &err), VS_ERR_USAGE);
	assert_int_equal(r.id, 0);
	bad = sample();
	bad.incomplete = true;
	assert_int_equal(na_store_add(s, &r, &err), VS_ERR_USAGE);
	assert_string_equal(err.message, "a NAS row needs its dataset, and why when incomplete");
	na_store_close(&s);

	/* The raw row: NULL where nothing was measured, never 0. */
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT data_write_bytes IS NULL, dataset_written IS NULL,"
	                                        " arc_hit_ratio IS NULL, recordsize,"
	                                        " measured_s IS NULL AND amp_log_share IS NULL,"
	                                        " clock_shift_s IS NULL AND clock_err_s IS NULL,"
	                                        " txg_count IS NULL AND log_write_wait_ms IS NULL"
	                                        " AND txg_dirty_mean_bytes IS NULL FROM nas_runs"
	                                        " WHERE result_id = ?", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int64(st, 1, other);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 1);
	assert_int_equal(sqlite3_column_int(st, 1), 1);
	assert_int_equal(sqlite3_column_int(st, 2), 1);
	assert_int_equal(sqlite3_column_int(st, 3), 65536);
	assert_int_equal(sqlite3_column_int(st, 4), 1);
	assert_int_equal(sqlite3_column_int(st, 5), 1);
	assert_int_equal(sqlite3_column_int(st, 6), 1);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM results),"
	                                        " (SELECT count(*) FROM nas_runs)", -1, &st, NULL),
	                 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 3);  /* the refused two left nothing */
	assert_int_equal(sqlite3_column_int(st, 1), 2);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* A file of schema 6 (7, 8, 9, 10): its NAS rows read without a timeline
 * (without step 8's seconds and split, without step 9's clocks, without
 * step 10's pool health, without step 11's txgs and log waits), the file
 * left as it is; the next recording command adds the columns. */
static void older_nas_rows(int version)
{
	na_store *s = NULL;
	vs_error err = {0};
	assert_int_equal(na_store_open_version(path, version, &s, &err), VS_OK);
	/* the row as schema 6 wrote it: every column but the timeline */
	int64_t id = add_result(s, NULL);
	na_store_close(&s);
	sqlite3 *db = NULL;
	char sql[256];
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	snprintf(sql, sizeof(sql), "INSERT INTO nas_runs (result_id, dataset, recordsize, incomplete)"
	         " VALUES (%lld, 'tank/vm', 16384, 0)", (long long)id);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(na_store_open_readonly(path, &s, &err), VS_OK);
	seen got = {0};
	bool found = false;
	assert_int_equal(na_store_nas_of(s, id, keep, &got, &found, &err), VS_OK);
	assert_true(found);
	assert_string_equal(got.dataset, "tank/vm");
	assert_string_equal(got.timeline, "(null)");
	assert_true(got.n.measured_s < 0 && got.n.window_s < 0 && got.n.amplification < 0);
	assert_false(got.n.clock_known);
	assert_string_equal(got.health, "(null)");
	assert_false(got.n.txgs_known);
	assert_true(got.n.log_write_wait_ms < 0 && got.n.log_sync_write_wait_ms < 0);
	assert_true(got.n.txg_sync_mean_ms < 0 && got.n.txg_sync_max_ms < 0);
	assert_true(got.n.txg_dirty_mean_bytes < 0);
	na_store_close(&s);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), version);
	sqlite3_finalize(st);
	sqlite3_close(db);
	assert_int_equal(na_store_open(path, &s, &err), VS_OK);
	na_nas_run n = sample();
	id = add_result(s, &n);
	got = (seen){0};
	assert_int_equal(na_store_nas_of(s, id, keep, &got, &found, &err), VS_OK);
	assert_string_equal(got.timeline, n.timeline);
	assert_true(got.n.amp_dataset_to_data == 25.3);
	assert_true(got.n.clock_known && got.n.clock_shift_s == -0.25 && got.n.clock_err_s == 0.004);
	assert_string_equal(got.health, "ONLINE");
	assert_true(got.n.txgs_known && got.n.txg_count == 12 && got.n.log_write_wait_ms == 0.095);
	na_store_close(&s);
}

static void schema_6_files(void **state)
{
	(void)state;
	older_nas_rows(6);
}

static void schema_7_files(void **state)
{
	(void)state;
	older_nas_rows(7);
}

static void schema_8_files(void **state)
{
	(void)state;
	older_nas_rows(8);
}

static void schema_9_files(void **state)
{
	(void)state;
	older_nas_rows(9);
}

static void schema_10_files(void **state)
{
	(void)state;
	older_nas_rows(10);
}

/* A file of schema 5: a reader sees no NAS side and leaves it at 5; the
 * next recording command adds nas_runs. */
static void older_files(void **state)
{
	(void)state;
	na_store *s = NULL;
	vs_error err = {0};
	assert_int_equal(na_store_open_version(path, 5, &s, &err), VS_OK);
	int64_t id = add_result(s, NULL);
	na_store_close(&s);
	assert_int_equal(na_store_open_readonly(path, &s, &err), VS_OK);
	seen got = {0};
	bool found = true;
	assert_int_equal(na_store_nas_of(s, id, keep, &got, &found, &err), VS_OK);
	assert_false(found);
	na_store_close(&s);
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 5);
	sqlite3_finalize(st);
	sqlite3_close(db);

	assert_int_equal(na_store_open(path, &s, &err), VS_OK);
	na_nas_run n = sample();
	id = add_result(s, &n);
	assert_int_equal(na_store_nas_of(s, id, keep, &got, &found, &err), VS_OK);
	assert_true(found);
	assert_string_equal(got.dataset, "tank/vmware64k");
	na_store_close(&s);
}

/* The ids (",") a query picks, and the first's zfs_ fields. */
typedef struct picked {
	char ids[64], zfs[256];
} picked;

static int pick(const na_result *r, void *ud, vs_error *err)
{
	(void)err;
	picked *p = ud;
	size_t len = strlen(p->ids);
	snprintf(p->ids + len, sizeof(p->ids) - len, "%s%lld", len ? "," : "", (long long)r->id);
	for (int f = NA_FIELD_FIRST_ZFS; !len && f < NA_N_FIELDS; f++) {
		size_t z = strlen(p->zfs);
		const char *v = na_field_text(r, f);
		snprintf(p->zfs + z, sizeof(p->zfs) - z, "%s%s=%s", z ? " " : "", na_fields[f].name,
		         v ? v : "NULL");
	}
	return VS_OK;
}

static picked where(na_store *s, const char *cond)
{
	picked p = {"", ""};
	vs_error err = {0};
	const char *conds[] = {cond};
	assert_int_equal(na_store_query(s, conds, cond ? 1 : 0, pick, &p, &err), VS_OK);
	return p;
}

/* The measured settings are provenance: zfs_ fields read back from the NAS
 * row, queried by any spelling of a size, NULL without a NAS side. */
static void settings_are_fields(void **state)
{
	(void)state;
	na_store *s = NULL;
	vs_error err = {0};
	assert_int_equal(na_store_open(path, &s, &err), VS_OK);
	na_nas_run n64 = sample(), n16 = sample(), n1m = sample();
	n16.recordsize = 16384;
	n16.special_small_blocks = 16384;
	n16.sync = "always";
	n16.pool_health = "DEGRADED (resilver 43%)";
	n1m.recordsize = 1048576;
	add_result(s, &n64);
	add_result(s, &n16);
	add_result(s, NULL);
	add_result(s, &n1m);
	assert_string_equal(where(s, NULL).zfs,
	                    "zfs_recordsize=64K zfs_sync=standard zfs_compression=lz4 zfs_atime=off "
	                    "zfs_logbias=latency zfs_primarycache=all zfs_special_small_blocks=0 "
	                    "zfs_pool_layout=2 mirror + log zfs_pool_health=ONLINE");
	assert_string_equal(where(s, "zfs_recordsize=16K").zfs,
	                    "zfs_recordsize=16K zfs_sync=always zfs_compression=lz4 zfs_atime=off "
	                    "zfs_logbias=latency zfs_primarycache=all zfs_special_small_blocks=16K "
	                    "zfs_pool_layout=2 mirror + log zfs_pool_health=DEGRADED (resilver 43%)");
	assert_string_equal(where(s, "id=3").zfs,
	                    "zfs_recordsize=NULL zfs_sync=NULL zfs_compression=NULL zfs_atime=NULL "
	                    "zfs_logbias=NULL zfs_primarycache=NULL zfs_special_small_blocks=NULL "
	                    "zfs_pool_layout=NULL zfs_pool_health=NULL");
	assert_string_equal(where(s, "zfs_recordsize=64K").ids, "1");
	assert_string_equal(where(s, "zfs_recordsize=64k").ids, "1");
	assert_string_equal(where(s, "zfs_recordsize=65536").ids, "1");
	assert_string_equal(where(s, "zfs_recordsize=1M").ids, "4");
	assert_string_equal(where(s, "zfs_special_small_blocks=0").ids, "1,4");
	assert_string_equal(where(s, "zfs_sync=always").ids, "2");
	assert_string_equal(where(s, "zfs_pool_layout=2 mirror + log").ids, "1,2,4");
	assert_string_equal(where(s, "zfs_pool_health=ONLINE").ids, "1,4");
	assert_string_equal(where(s, "zfs_recordsize=sixteen").ids, "");
	const char *none[] = {"zfs_recordsize=128K"};
	assert_int_equal(na_store_explain_none(s, none, 1, &err), VS_ERR_NOT_FOUND);
	assert_string_equal(err.message, "no result has zfs_recordsize=128K (recorded: 16K, 64K, 1M)");
	na_store_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(recorded_and_read_back, setup, teardown),
		cmocka_unit_test_setup_teardown(older_files, setup, teardown),
		cmocka_unit_test_setup_teardown(settings_are_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(schema_6_files, setup, teardown),
		cmocka_unit_test_setup_teardown(schema_7_files, setup, teardown),
		cmocka_unit_test_setup_teardown(schema_8_files, setup, teardown),
		cmocka_unit_test_setup_teardown(schema_9_files, setup, teardown),
		cmocka_unit_test_setup_teardown(schema_10_files, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
