/* A group's NAS side: the members' pools (one sampler per pool, members on
 * two exports of one pool sharing it), and its rows in the results
 * database, an older file migrated to hold them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "raw_sql.h"
#include <sqlite3.h>

#include "ops/bench_group_nas.h"
#include "store/store.h"

/* Keyed by NAS and pool, not dataset: tank/a and tank/b on one NAS are one
 * pool (one sampler); tank on another NAS is another; a member without a
 * NAS side is in none. */
static void test_pools(void **state)
{
	(void)state;
	const char *nas[] = {"nas1", "nas1", "nas1", "nas2", "nas1", NULL};
	const char *pool[] = {"tank", "tank", NULL, "tank", "fast", "tank"};
	size_t pool_of[6], leader[6];
	assert_int_equal(na_group_pools(nas, pool, 6, pool_of, leader), 3);
	assert_int_equal(pool_of[0], 0);
	assert_int_equal(pool_of[1], 0);   /* another export of nas1's tank: its sampler */
	assert_int_equal(pool_of[2], NA_NO_POOL);
	assert_int_equal(pool_of[3], 1);
	assert_int_equal(pool_of[4], 2);
	assert_int_equal(pool_of[5], NA_NO_POOL);
	assert_int_equal(leader[0], 0);
	assert_int_equal(leader[1], 3);
	assert_int_equal(leader[2], 4);
}


typedef struct seen {
	size_t n;
	char pools[4][32];
	double amplification[4];
	bool known[4];
	int64_t guest[4];
} seen;

static int on_pool(const na_group_nas_row *p, void *ud, vs_error *err)
{
	(void)err;
	seen *s = ud;
	snprintf(s->pools[s->n], sizeof(s->pools[0]), "%s %s %d %s", p->pool, p->datasets,
	         p->members, p->why ? "incomplete" : "complete");
	s->amplification[s->n] = p->amplification;
	s->known[s->n] = p->pool_known;
	s->guest[s->n++] = p->guest_write_bytes;
	return VS_OK;
}

/* One group with its members and its pools, committed together. */
static int64_t record(na_store *s, const na_group_nas_row *pools, size_t n_pools)
{
	vs_error err = {0};
	na_result r = {.started_at = "2026-12-05T14:00:00Z", .status = "ok", .repetition = 1,
	               .datastore = "truenas-vmware", .vm = "fleet-01", .profile = "randwrite-4k-qd1"};
	assert_int_equal(na_store_group_begin(s, &err), VS_OK);
	assert_int_equal(na_store_add(s, &r, &err), VS_OK);
	na_group_member links[] = {{"fleet-01", r.id, NULL}};
	na_group_row g = {.started_at = r.started_at, .profile = r.profile, .repetition = 1, .vms = 1,
	                  .start_skew_ms = -1, .nas = pools, .n_nas = n_pools};
	assert_int_equal(na_store_group_end(s, VS_OK, &g, links, 1, &err), VS_OK);
	return g.id;
}

/* A file of schema 15 records a group without its NAS side and reads as
 * one without any; opened, it migrates, and a group's pools go in with it. */
static void test_store(void **state)
{
	(void)state;
	char dir[] = "/tmp/nfsagent-test-group-nas-XXXXXX", path[80];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/results.db", dir);
	na_store *s = NULL;
	vs_error err = {0};
	na_group_nas_row pools[] = {
		{.nas = "nas1", .pool = "tank", .datasets = "tank/a, tank/b", .vms = "fleet-01, fleet-02",
		 .members = 2, .interval_s = 1, .pool_known = true, .measured_s = 3.5, .window_s = 3.5,
		 .data_write_bytes = 1200, .log_write_bytes = 100, .guest_write_bytes = 20,
		 .amplification = 65},
		{.nas = "nas1", .pool = "fast", .datasets = "fast/c", .vms = "fleet-03", .members = 1,
		 .interval_s = -1, .measured_s = -1, .window_s = -1, .amplification = -1,
		 .guest_write_bytes = 7, .why = "the NAS could not be sampled"},
	};
	assert_int_equal(na_store_open_version(path, 15, &s, &err), VS_OK);
	int64_t old = record(s, pools, 2);
	na_store_close(&s);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 15);
	seen none = {0};
	assert_int_equal(na_store_open_readonly(path, &s, &err), VS_OK);
	assert_int_equal(na_store_group_nas_of(s, old, on_pool, &none, &err), VS_OK);
	assert_int_equal(none.n, 0);
	na_store_close(&s);

	assert_int_equal(na_store_open(path, &s, &err), VS_OK);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), na_store_schema_version());
	assert_true(na_store_schema_version() > 15);
	int64_t id = record(s, pools, 2);
	seen got = {0};
	assert_int_equal(na_store_group_nas_of(s, id, on_pool, &got, &err), VS_OK);
	na_store_close(&s);
	assert_int_equal(got.n, 2);
	assert_string_equal(got.pools[0], "fast fast/c 1 incomplete");
	assert_string_equal(got.pools[1], "tank tank/a, tank/b 2 complete");
	assert_true(got.amplification[0] < 0 && !got.known[0] && got.guest[0] == 7);
	assert_true(got.amplification[1] == 65 && got.known[1] && got.guest[1] == 20);
	/* a pool never sampled has no bytes, not zeros */
	assert_int_equal(raw_int(path, "SELECT count(*) FROM result_group_nas WHERE pool = 'fast'"
	                               " AND data_write_bytes IS NULL AND interval_s IS NULL"), 1);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM result_group_nas"), 2);
	remove_db(dir, path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pools),
		cmocka_unit_test(test_store),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
