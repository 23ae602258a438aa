/* The NAS side of results (store_nas.c): a row recorded and read back with
 * what was not measured kept apart from zero, one per result, refused
 * without its dataset or an incomplete one without why, schema step 6 on an
 * older file, and a reader of an older file that sees no NAS side. */
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

#include "store.h"

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

static int64_t add_result(na_store *s)
{
	na_result r = {
		.started_at = "2026-12-01T10:00:00Z", .finished_at = "2026-12-01T10:01:00Z",
		.status = "ok", .repetition = 1, .host = "esx1", .datastore = "ds64k",
		.datastore_type = "NFS", .vm = "fiotest", .profile = "randwrite-4k-qd1",
		.write = {true, 33700, 138e6, 29, 25, 40, 60, 90, 900, 2022000, 60000},
	};
	vs_error err = {0};
	assert_int_equal(na_store_add(s, &r, &err), VS_OK);
	return r.id;
}

static na_nas_run sample(int64_t id)
{
	return (na_nas_run){
		.result_id = id, .dataset = "tank/vmware64k", .pool_layout = "2 mirror + log",
		.sync = "standard", .compression = "lz4", .atime = "off", .logbias = "latency",
		.primarycache = "all", .recordsize = 65536, .special_small_blocks = 0,
		.pool_known = true, .interval_s = 2, .intervals = 30,
		.data_write_bytes = 210000000000, .data_write_ops = 804000, .log_write_bytes = 54000000000,
		.data_read_bytes = 0,
		.counters_known = true, .dataset_written = 8300000000, .dataset_writes = 2022000,
		.arc_demand_hits = 0, .arc_demand_misses = 0, .arc_size = 200000000000,
		.zil_slog_bytes = 53000000000, .zil_commits = 2022000, .arc_hit_ratio = -1,
	};
}

typedef struct seen {
	int calls;
	na_nas_run n;
	char dataset[64], sync[16], why[128];
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
	return VS_OK;
}

static void recorded_and_read_back(void **state)
{
	(void)state;
	na_store *s = NULL;
	vs_error err = {0};
	assert_int_equal(na_store_open(path, &s, &err), VS_OK);
	assert_int_equal(na_store_schema_version(), 6);
	int64_t id = add_result(s), other = add_result(s);
	na_nas_run n = sample(id);
	assert_int_equal(na_store_add_nas(s, &n, &err), VS_OK);
	/* The sampler died: settings kept, the figures not measured are NULL. */
	na_nas_run lost = sample(other);
	lost.pool_known = lost.counters_known = false;
	lost.incomplete = true;
	lost.why = "zpool exited 1: pool I/O is currently suspended";
	assert_int_equal(na_store_add_nas(s, &lost, &err), VS_OK);

	seen got = {0};
	bool found = false;
	assert_int_equal(na_store_nas_of(s, id, keep, &got, &found, &err), VS_OK);
	assert_true(found);
	assert_int_equal(got.calls, 1);
	assert_string_equal(got.dataset, "tank/vmware64k");
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

	got = (seen){0};
	assert_int_equal(na_store_nas_of(s, other, keep, &got, &found, &err), VS_OK);
	assert_true(found);
	assert_true(got.n.incomplete);
	assert_string_equal(got.why, "zpool exited 1: pool I/O is currently suspended");
	assert_int_equal(got.n.recordsize, 65536);
	assert_false(got.n.pool_known);
	assert_false(got.n.counters_known);

	/* One per result; a result without one; the refusals. */
	assert_int_not_equal(na_store_add_nas(s, &n, &err), VS_OK);
	assert_string_equal(err.context, "record the NAS side of result 1");
	got = (seen){0};
	assert_int_equal(na_store_nas_of(s, 99, keep, &got, &found, &err), VS_OK);
	assert_false(found);
	assert_int_equal(got.calls, 0);
	na_nas_run bad = sample(id);
	bad.dataset = NULL;
	assert_int_equal(na_store_add_nas(s, &bad, &err), VS_ERR_USAGE);
	bad = sample(other);
	bad.incomplete = true;
	assert_int_equal(na_store_add_nas(s, &bad, &err), VS_ERR_USAGE);
	na_store_close(&s);

	/* The raw row: NULL where nothing was measured, never 0. */
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT data_write_bytes IS NULL, dataset_written IS NULL,"
	                                        " arc_hit_ratio IS NULL, recordsize FROM nas_runs"
	                                        " WHERE result_id = ?", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int64(st, 1, other);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 1);
	assert_int_equal(sqlite3_column_int(st, 1), 1);
	assert_int_equal(sqlite3_column_int(st, 2), 1);
	assert_int_equal(sqlite3_column_int(st, 3), 65536);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* A file of schema 5: a reader sees no NAS side and leaves it at 5; the
 * next recording command adds nas_runs. */
static void older_files(void **state)
{
	(void)state;
	na_store *s = NULL;
	vs_error err = {0};
	assert_int_equal(na_store_open_version(path, 5, &s, &err), VS_OK);
	int64_t id = add_result(s);
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
	na_nas_run n = sample(id);
	assert_int_equal(na_store_add_nas(s, &n, &err), VS_OK);
	assert_int_equal(na_store_nas_of(s, id, keep, &got, &found, &err), VS_OK);
	assert_true(found);
	assert_string_equal(got.dataset, "tank/vmware64k");
	na_store_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(recorded_and_read_back, setup, teardown),
		cmocka_unit_test_setup_teardown(older_files, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
