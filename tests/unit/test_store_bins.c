/* fio's latency bins in the results database (store_bins.c): recorded with
 * each result from its stored fio output, filled in by schema step 14 for
 * older results, made on the fly for a reader of an older file; in every
 * case the bins, and so the percentiles, that parsing fio's output gives
 * (what compare did before). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "analysis/compare.h"
#include "fio.h"
#include "store/store.h"

/* fio's outputs (tests/data/fio, see test_fio.c): several jobs merged,
 * read and write, a unified_rw_reporting job, and plain json (no bins). */
static const char *const outputs[] = {"randwrite_3jobs.jsonplus", "randrw70.jsonplus",
                                      "randrw_mixed.jsonplus", "randread_1job.json",
                                      "noise_before.json"};
enum { N_OUTPUTS = sizeof(outputs) / sizeof(outputs[0]) };
static const double pcts[] = {50, 95, 99, 99.9};

static char *read_output(const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/fio/%s", TEST_DATA_DIR, name);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *text = calloc(1, 1 << 20);
	assert_non_null(text);
	assert_true(fread(text, 1, (1 << 20) - 1, f) > 0);
	fclose(f);
	return text;
}

/* What compare read before schema 14: fio's output parsed, a mixed job's
 * direction as its read. */
static void parsed(const char *text, na_fio_result *f, const na_fio_dir *d[2])
{
	vs_error err = {0};
	assert_int_equal(na_fio_parse(text, strlen(text), f, &err), VS_OK);
	d[0] = f->mixed ? &f->mixed_dir : &f->read;
	d[1] = &f->write;
}

static na_dir_stats stats_of(const na_fio_dir *d)
{
	return (na_dir_stats){d->present, d->iops, d->bw_bytes, d->lat_mean_us, d->p50_us, d->p95_us,
	                      d->p99_us, d->p999_us, d->max_us, d->total_ios, d->runtime_ms};
}

/* A file at schema version holding one ok result per output, ids 1.. */
static void make_file(const char *path, int version)
{
	na_store *s = NULL;
	vs_error err = {0};
	assert_int_equal(na_store_open_version(path, version, &s, &err), VS_OK);
	for (size_t i = 0; i < N_OUTPUTS; i++) {
		char *text = read_output(outputs[i]);
		na_fio_result f;
		const na_fio_dir *d[2];
		parsed(text, &f, d);
		na_result r = {.started_at = "2026-01-01T00:00:00Z", .status = "ok", .profile = outputs[i],
		               .fio_json = text, .read = stats_of(d[0]), .write = stats_of(d[1])};
		assert_int_equal(na_store_add(s, &r, &err), VS_OK);
		assert_int_equal(r.id, (int64_t)i + 1);
		na_fio_result_clear(&f);
		free(text);
	}
	na_store_close(&s);
}

/* Result i + 1's bins as s reads them are those of its output parsed, and
 * so are the percentiles read off them; plain json has none. */
static void bins_as_parsed(na_store *s, size_t i)
{
	char *text = read_output(outputs[i]);
	na_fio_result f;
	const na_fio_dir *want[2];
	parsed(text, &f, want);
	na_fio_dir got[2];
	vs_error err = {0};
	assert_int_equal(na_store_bins_of(s, (int64_t)i + 1, got, &err), VS_OK);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(got[k].n_bins, want[k]->n_bins);
		for (size_t b = 0; b < got[k].n_bins; b++) {
			assert_int_equal(got[k].bin_ns[b], want[k]->bin_ns[b]);
			assert_int_equal(got[k].bin_count[b], want[k]->bin_count[b]);
		}
		double before[] = {want[k]->p50_us, want[k]->p95_us, want[k]->p99_us, want[k]->p999_us};
		for (size_t p = 0; got[k].n_bins && p < 4; p++)
			assert_true(na_fio_bins_percentile(got[k].bin_ns, got[k].bin_count, got[k].n_bins,
			                                   pcts[p]) == before[p]);
		na_fio_dir_clear(&got[k]);
	}
	na_fio_result_clear(&f);
	free(text);
}

/* Every result of the file at path, read only, has its output's bins. */
static void all_as_parsed(const char *path)
{
	na_store *s = NULL;
	vs_error err = {0};
	assert_int_equal(na_store_open_readonly(path, &s, &err), VS_OK);
	for (size_t i = 0; i < N_OUTPUTS; i++)
		bins_as_parsed(s, i);
	na_store_close(&s);
}

static int raw_int(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	int v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static char dir[] = "/tmp/nfsagent-bins-XXXXXX";

static const char *in_dir(const char *name)
{
	static char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* Recorded now: the bins go in with the result, a mixed job's as its read. */
static void recorded_with_the_result(void **state)
{
	(void)state;
	const char *path = in_dir("new.db");
	make_file(path, na_store_schema_version());
	all_as_parsed(path);
	assert_true(raw_int(path, "SELECT count(*) FROM result_bins WHERE result_id = 3"
	                          " AND direction = 'read'") > 0);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM result_bins WHERE result_id = 3"
	                               " AND direction = 'write'"), 0);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM result_bins WHERE result_id >= 4"), 0);
}

/* A schema 13 file upgraded: its results get the bins they had. */
static void older_results_get_theirs(void **state)
{
	(void)state;
	const char *path = in_dir("old.db");
	make_file(path, 13);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE name = 'result_bins'"),
	                 0);
	na_store *s = NULL;
	vs_error err = {0};
	assert_int_equal(na_store_open(path, &s, &err), VS_OK);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), na_store_schema_version());
	for (size_t i = 0; i < N_OUTPUTS; i++)
		bins_as_parsed(s, i);
	/* compare pools them as before: randwrite_3jobs's p99 of all its writes */
	na_cmp_group a = {0}, b = {0};
	assert_int_equal(na_cmp_load(s, "profile=randwrite_3jobs.jsonplus", &a, &err), VS_OK);
	assert_int_equal(na_cmp_load(s, "profile=randwrite_3jobs.jsonplus", &b, &err), VS_OK);
	static const int key[] = {NA_FIELD_profile};
	na_cmp c;
	assert_int_equal(na_cmp_run(&a, &b, key, 1, 0, &c), VS_OK);
	char *text = read_output(outputs[0]);
	na_fio_result f;
	const na_fio_dir *d[2];
	parsed(text, &f, d);
	bool seen = false;
	for (size_t i = 0; i < c.n; i++)
		if (c.lines[i].metric == NA_M_P99 && c.lines[i].dir == 1) {
			assert_true(c.lines[i].pooled_a == d[1]->p99_us && c.lines[i].pooled_a > 0);
			seen = true;
		}
	assert_true(seen);
	na_fio_result_clear(&f);
	free(text);
	na_cmp_free(&c);
	na_cmp_group_free(&a);
	na_cmp_group_free(&b);
	na_store_close(&s);
}

/* A file held at schema 13, read only: the bins are made as they are
 * read, and the file stays as it was. */
static void readers_of_older_files_get_them(void **state)
{
	(void)state;
	const char *path = in_dir("held.db");
	make_file(path, 13);
	all_as_parsed(path);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 13);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE name = 'result_bins'"),
	                 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(recorded_with_the_result),
		cmocka_unit_test(older_results_get_theirs),
		cmocka_unit_test(readers_of_older_files_get_them),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
