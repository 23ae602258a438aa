/* A group's figures (agent/group.c): sums equal the members', percentiles
 * come from the merged bins, which is the pooled percentile of every
 * completion and not the mean of the members' percentiles; the spread
 * names the slowest VM and its share of the fair share. */
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

#include "analysis/compare.h"
#include "analysis/group.h"
#include "ops/bench_window.h"
#include "store/store.h"

/* A group's job writes fio's interval logs into nfsagent's own staging
 * folder only: a folder that is not one (a hostile --dir, a line break that
 * would add options) is refused, never spliced into the job. */
static void test_job_logs(void **state)
{
	(void)state;
	vs_error err = {0};
	char *job = NULL;
	const char *fio = "[global]\nbs=4k\n[a]\nnumjobs=2\n";
	assert_int_equal(na_group_job_logs(fio, "/tmp/nfsagent-42-0badcafe", 250, &job, &err), VS_OK);
	assert_non_null(strstr(job, "\n[global]\nwrite_bw_log=/tmp/nfsagent-42-0badcafe/gw\n"
	                            "write_hist_log=/tmp/nfsagent-42-0badcafe/gw\n"
	                            "log_avg_msec=250\nlog_hist_msec=250\nlog_unix_epoch=1\n"));
	assert_string_equal(job + strlen(job) - strlen(fio), fio);  /* the job itself after it */
	free(job);
	const char *bad[] = {"/tmp/nfsagent-42-0badcafe\nexec_prerun=x", "/var/tmp/nfsagent-42-0badcafe",
	                     "/tmp/nfsagent-42-0BADCAFE", "/tmp/nfsagent-", "/tmp/x/../nfsagent-42"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_int_equal(na_group_job_logs(fio, bad[i], 1000, &job, &err), VS_ERR_USAGE);
		assert_null(job);
		assert_non_null(strstr(err.message, "is not nfsagent's own staging folder"));
	}
	assert_int_equal(na_group_job_logs("[global]\nbs=4k\n", "/tmp/nfsagent-42", 1000, &job, &err),
	                 VS_ERR_USAGE);
	assert_non_null(strstr(err.message, "runs 0 fio jobs"));
	/* a job's own log settings would override the group's and misread it */
	const char *own[] = {"[a]\nlog_avg_msec=5000\n", "[a]\n  log_max_value ; bare\n",
	                     "[global]\nper_job_logs=0\n[a]\n"};
	for (size_t i = 0; i < sizeof(own) / sizeof(*own); i++) {
		assert_int_equal(na_group_job_logs(own[i], "/tmp/nfsagent-42-0badcafe", 1000, &job, &err),
		                 VS_ERR_USAGE);
		assert_null(job);
		assert_non_null(strstr(err.message, "a group run writes fio's interval logs its own way"));
	}
	assert_non_null(strstr(err.message, "sets per_job_logs"));
	/* 1 s, or a twentieth of a shorter run, at least 100 ms */
	assert_int_equal(na_group_log_interval("[a]\nruntime=60\n"), 1000);
	assert_int_equal(na_group_log_interval("[a]\nruntime=600\n"), 1000);
	assert_int_equal(na_group_log_interval("[a]\nruntime=3600\n"), 6000);  /* 600 lines */
	assert_int_equal(na_group_log_interval("[a]\nruntime=1000\n"), 2000);
	assert_int_equal(na_group_log_interval("[a]\nruntime=5\n"), 200);
	assert_int_equal(na_group_log_interval("[a]\nruntime=2\n"), 100);
	assert_int_equal(na_group_log_interval("[a]\nruntime=1\n"), 100);
	assert_int_equal(na_group_log_interval("[a]\nrw=read\n"), 1000);
}

/* Three VMs' completion-latency bins (ns -> count): a fast one with a thin
 * tail, a middling one, and a slow one with a heavy tail. */
static int64_t a_ns[] = {50000, 100000, 5000000};
static int64_t a_n[] = {900, 95, 5};
static int64_t b_ns[] = {100000, 200000, 400000};
static int64_t b_n[] = {500, 450, 50};
static int64_t c_ns[] = {300000, 800000, 20000000};
static int64_t c_n[] = {200, 150, 50};

static na_fio_dir dir_of(int64_t *ns, int64_t *count, size_t n, double iops, double bw)
{
	na_fio_dir d = {.present = true, .iops = iops, .bw_bytes = bw, .lat_mean_us = 100,
	                .runtime_ms = 10000, .n_bins = n, .bin_ns = ns, .bin_count = count};
	for (size_t i = 0; i < n; i++)
		d.total_ios += count[i];
	d.p50_us = na_fio_bins_percentile(ns, count, n, 50);
	d.p95_us = na_fio_bins_percentile(ns, count, n, 95);
	d.p99_us = na_fio_bins_percentile(ns, count, n, 99);
	d.p999_us = na_fio_bins_percentile(ns, count, n, 99.9);
	return d;
}

static int cmp64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

/* The percentile of every completion, one sample each, sorted: the
 * ceil(p% of N)-th smallest, in us. */
static double pooled(double p)
{
	int64_t *ns[] = {a_ns, b_ns, c_ns}, *cnt[] = {a_n, b_n, c_n};
	size_t total = 0;
	for (int v = 0; v < 3; v++)
		for (int i = 0; i < 3; i++)
			total += (size_t)cnt[v][i];
	int64_t *all = malloc(total * sizeof(*all));
	size_t k = 0;
	for (int v = 0; v < 3; v++)
		for (int i = 0; i < 3; i++)
			for (int64_t j = 0; j < cnt[v][i]; j++)
				all[k++] = ns[v][i];
	qsort(all, total, sizeof(*all), cmp64);
	size_t rank = (size_t)((p / 100.0) * (double)total + 0.999999);
	double us = (double)all[rank - 1] / 1000.0;
	free(all);
	return us;
}

static void test_merged_percentiles(void **state)
{
	(void)state;
	na_fio_result r[3] = {{.read = dir_of(a_ns, a_n, 3, 9000, 36e6)},
	                      {.read = dir_of(b_ns, b_n, 3, 6000, 24e6)},
	                      {.read = dir_of(c_ns, c_n, 3, 1500, 6e6)}};
	const na_fio_result *fio[] = {&r[0], &r[1], &r[2]};
	const char *names[] = {"fleet-01", "fleet-02", "fleet-03"};
	na_group_figures g;
	vs_error err = {0};
	assert_int_equal(na_group_figures_of(fio, names, 3, &g, &err), VS_OK);
	const na_fio_dir *m = &g.merged.read;
	/* The members' p99s: 100, 400 and 20000 us; their mean is 6833.3 us,
	 * while one completion in a hundred of the pool took 20 ms. */
	double mean_p99 = (r[0].read.p99_us + r[1].read.p99_us + r[2].read.p99_us) / 3;
	assert_true(mean_p99 > 6833 && mean_p99 < 6834);
	assert_true(m->p99_us == pooled(99));
	assert_true(m->p99_us != mean_p99);
	assert_true(m->p50_us == pooled(50) && m->p95_us == pooled(95) && m->p999_us == pooled(99.9));
	assert_true(m->p99_us == 20000 && m->p95_us == 800 && m->p50_us == 100);
	/* Sums are the members'. */
	assert_true(m->iops == 16500 && m->bw_bytes == 66e6 && g.iops == 16500);
	assert_int_equal(m->total_ios, 2400);
	assert_false(g.merged.write.present);
	/* The spread: fleet-03 did 1500 of a fair 5500. */
	assert_string_equal(g.slowest.name, "fleet-03");
	assert_string_equal(g.median.name, "fleet-02");
	assert_string_equal(g.fastest.name, "fleet-01");
	assert_true(g.slowest_share > 0.2727 && g.slowest_share < 0.2728);
	na_group_figures_clear(&g);
}

static void test_both_directions(void **state)
{
	(void)state;
	na_fio_result r[2] = {{.read = dir_of(a_ns, a_n, 3, 1000, 4e6), .write = dir_of(b_ns, b_n, 3, 500, 2e6)},
	                      {.read = dir_of(c_ns, c_n, 3, 700, 3e6), .write = dir_of(a_ns, a_n, 3, 900, 1e6)}};
	const na_fio_result *fio[] = {&r[0], &r[1]};
	const char *names[] = {"x", "y"};
	na_group_figures g;
	vs_error err = {0};
	assert_int_equal(na_group_figures_of(fio, names, 2, &g, &err), VS_OK);
	assert_true(g.merged.read.iops == 1700 && g.merged.write.iops == 1400);
	assert_true(g.merged.read.bw_bytes == 7e6 && g.merged.write.bw_bytes == 3e6);
	assert_true(g.iops == 3100);
	/* x did 1500, y 1600: the lower middle of two is the slower. */
	assert_string_equal(g.slowest.name, "x");
	assert_string_equal(g.median.name, "x");
	assert_string_equal(g.fastest.name, "y");
	assert_true(g.slowest_share > 0.9677 && g.slowest_share < 0.9678);
	na_group_figures_clear(&g);
	assert_int_not_equal(na_group_figures_of(fio, names, 0, &g, &err), VS_OK);
}

/* ---- a group in the results database ---- */


static na_result member(const char *vm, double iops)
{
	return (na_result){.started_at = "2026-12-05T14:00:00Z", .finished_at = "2026-12-05T14:00:10Z",
	                   .status = "ok", .repetition = 1, .host = "DC0_H0", .datastore = "truenas-vmware",
	                   .vm = vm, .profile = "randread-4k-qd1",
	                   .read = {true, iops, iops * 4096, 100, 90, 150, 400, 900, 2000, 1000, 10000}};
}

/* A file of schema 12 reads as one without groups, and is migrated to
 * hold them; a group and its members commit together or not at all. */
static void test_group_store(void **state)
{
	(void)state;
	char dir[] = "/tmp/nfsagent-test-group-XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/results.db", dir);
	na_store *s = NULL;
	vs_error err = {0};
	na_group_row found;
	assert_int_equal(na_store_open_version(path, 12, &s, &err), VS_OK);
	na_result single = member("fiotest", 5000);
	assert_int_equal(na_store_add(s, &single, &err), VS_OK);
	assert_int_not_equal(na_store_group_begin(s, &err), VS_OK);  /* schema 12 holds no group */
	na_store_close(&s);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 12);
	/* A reader of the old file sees no group, and leaves it at 12. */
	assert_int_equal(na_store_open_readonly(path, &s, &err), VS_OK);
	assert_int_equal(na_store_group_of(s, single.id, &found, &err), VS_OK);
	assert_true(found.id == 0 && found.vms == 0);
	na_store_close(&s);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 12);

	assert_int_equal(na_store_open(path, &s, &err), VS_OK);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), na_store_schema_version());
	assert_int_equal(na_store_group_begin(s, &err), VS_OK);
	na_result a = member("fleet-01", 3000), b = member("fleet-02", 1000);
	assert_int_equal(na_store_add(s, &a, &err), VS_OK);
	assert_int_equal(na_store_add(s, &b, &err), VS_OK);
	na_group_member links[] = {{"fleet-01", a.id, NULL}, {"fleet-02", b.id, NULL},
	                           {"fleet-03", 0, "never started: Tools went away"}};
	na_group_row g = {.started_at = "2026-12-05T14:00:00Z", .profile = "randread-4k-qd1",
	                  .repetition = 1, .vms = 3, .start_skew_ms = 12.5,
	                  .why = "fleet-03: never started: Tools went away",
	                  .read = {true, 4000, 4000 * 4096.0, 100, 90, 150, 400, 900, 2000, 2000, 10000},
	                  .iops = 4000, .slowest_vm = "fleet-02", .slowest_share = 0.5};
	assert_int_equal(na_store_group_end(s, VS_OK, &g, links, 3, &err), VS_OK);
	assert_true(g.id > 0);
	/* A central database no push can reach, at the command's end: what
	 * waits for it is every result and the group run. */
	na_push_counts pushed;
	assert_int_not_equal(na_store_push_to(s, "postgresql:///r?host=/nonexistent", &pushed, &err), VS_OK);
	assert_int_equal(pushed.waiting, 3);  /* the single result too */
	assert_int_equal(pushed.waiting_groups, 1);
	char line[512];
	assert_true(na_store_push_at_end(s, "postgresql:///r?host=/nonexistent", line, sizeof(line)));
	assert_non_null(strstr(line, "3 results and 1 group run wait for the central database ("));
	err = (vs_error){0};
	assert_int_equal(na_store_group_of(s, b.id, &found, &err), VS_OK);
	assert_true(found.id == g.id && found.vms == 3 && found.read.iops == 4000 && found.read.p99_us == 400);
	assert_true(found.why && !found.write.present);
	assert_string_equal(found.started_at, "2026-12-05T14:00:00Z");
	na_group_row_clear(&found);
	assert_int_equal(na_store_group_of(s, single.id, &found, &err), VS_OK);
	assert_true(found.id == 0);
	/* A group that fails takes its members with it. */
	assert_int_equal(na_store_group_begin(s, &err), VS_OK);
	na_result c = member("fleet-01", 2000);
	assert_int_equal(na_store_add(s, &c, &err), VS_OK);
	vs_error why = {0};
	assert_int_equal(na_store_group_end(s, VS_ERR_TASK, &g, links, 1, &why), VS_ERR_TASK);
	na_store_close(&s);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM results"), 3);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM result_groups"), 1);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM result_group_members"), 3);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM result_group_members WHERE result_id IS NULL"
	                               " AND why LIKE 'never started%'"), 1);
	assert_int_equal(raw_int(path, "SELECT incomplete + vms * 10 FROM result_groups"), 31);
	assert_int_equal(raw_int(path, "SELECT round(read_iops) + round(start_skew_ms * 2) FROM result_groups"),
	                 4025);
	remove_db(dir, path);
}

/* A group run of two VMs on hosts, recorded; its id. */
static int64_t record_group(na_store *s, const char *host_a, const char *host_b)
{
	vs_error err = {0};
	na_result a = member("fleet-01", 3000), b = member("fleet-02", 1000);
	a.host = host_a;
	b.host = host_b;
	a.link_speed_mbit = b.link_speed_mbit = "10000";
	a.link_nic = b.link_nic = "vmnic1";
	assert_int_equal(na_store_group_begin(s, &err), VS_OK);
	assert_int_equal(na_store_add(s, &a, &err), VS_OK);
	assert_int_equal(na_store_add(s, &b, &err), VS_OK);
	na_group_member links[] = {{"fleet-01", a.id, NULL}, {"fleet-02", b.id, NULL}};
	na_group_row g = {.started_at = "2026-12-05T14:00:00Z", .profile = "randread-4k-qd1",
	                  .repetition = 1, .vms = 2, .read = {true, 4000, 4000 * 4096.0, 100, 90, 150, 400,
	                  900, 2000, 2000, 10000}, .iops = 4000, .slowest_vm = "fleet-02", .slowest_share = 0.5};
	assert_int_equal(na_store_group_end(s, VS_OK, &g, links, 2, &err), VS_OK);
	return a.id;
}

/* compare folds a group into one row: through one host it keeps the
 * host's link; over two it went through no one link, and has none. */
static void test_group_link(void **state)
{
	(void)state;
	char dir[] = "/tmp/nfsagent-test-link-XXXXXX", path[64];
	vs_error err = {0};
	na_store *s = NULL;
	assert_int_equal(na_store_open(strcat(strcpy(path, mkdtemp(dir)), "/results.db"), &s, &err), VS_OK);
	int64_t one = record_group(s, "DC0_H0", "DC0_H0"), two = record_group(s, "DC0_H0", "DC0_H1");
	na_cmp_group g = {0};
	assert_int_equal(na_cmp_load(s, "profile=randread-4k-qd1", &g, &err), VS_OK);
	assert_int_equal(g.n, 2);
	assert_true(g.rows[0].id == one && g.rows[1].id == two);
	assert_string_equal(g.rows[0].field[NA_FIELD_link_speed_mbit], "10000");
	assert_string_equal(g.rows[0].field[NA_FIELD_link_nic], "vmnic1");
	assert_null(g.rows[1].field[NA_FIELD_link_speed_mbit]);
	assert_null(g.rows[1].field[NA_FIELD_link_nic]);
	na_cmp_group_free(&g);
	na_store_close(&s);
	assert_int_equal(remove_db(dir, path), 0);
}

/* A campaign's group run (vms =) journals its step with the group's id in
 * the group's own transaction: both or neither, and a step only once. */
static void test_group_journal(void **state)
{
	(void)state;
	char dir[] = "/tmp/nfsagent-test-group-XXXXXX", path[64];
	const char *step = "group:v3:1:randread-4k-qd1";
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/results.db", dir);
	na_store *s = NULL;
	vs_error err = {0}, why = {0};
	assert_int_equal(na_store_open(path, &s, &err), VS_OK);
	assert_int_equal(na_store_run_claim(s, "g-1", "g", "g.ini", "2026-12-05T14:00:00Z", false, &err),
	                 VS_OK);
	na_result a = member("fleet-01", 3000), b = member("fleet-02", 1000), c = member("fleet-01", 900);
	a.campaign = b.campaign = c.campaign = "g-1";
	a.target = b.target = c.target = "v3";
	c.repetition = 2;
	na_group_member links[] = {{"fleet-01", 0, NULL}, {"fleet-02", 0, NULL}};
	na_group_row g = {.started_at = "2026-12-05T14:00:00Z", .profile = "randread-4k-qd1",
	                  .repetition = 1, .vms = 2, .start_skew_ms = -1};
	/* The group fails: its step is not journaled. */
	assert_int_equal(na_store_group_journal(s, "g-1", step, &err), VS_OK);
	assert_int_equal(na_store_group_begin(s, &err), VS_OK);
	assert_int_equal(na_store_add(s, &a, &err), VS_OK);
	assert_int_equal(na_store_group_end(s, VS_ERR_TASK, &g, links, 1, &why), VS_ERR_TASK);
	bool done = true;
	char *detail = NULL;
	assert_int_equal(na_store_step_is_done(s, "g-1", step, &done, &detail, &err), VS_OK);
	assert_false(done);
	/* Recorded: two members under one run, target, repetition and profile,
	 * and the step names the group. */
	assert_int_equal(na_store_group_journal(s, "g-1", step, &err), VS_OK);
	assert_int_equal(na_store_group_begin(s, &err), VS_OK);
	assert_int_equal(na_store_add(s, &a, &err), VS_OK);
	assert_int_equal(na_store_add(s, &b, &err), VS_OK);
	links[0].result_id = a.id;
	links[1].result_id = b.id;
	assert_int_equal(na_store_group_end(s, VS_OK, &g, links, 2, &err), VS_OK);
	assert_int_equal(na_store_step_is_done(s, "g-1", step, &done, &detail, &err), VS_OK);
	assert_true(done);
	char id[24];
	snprintf(id, sizeof(id), "%lld", (long long)g.id);
	assert_string_equal(detail, id);
	free(detail);
	/* The step was taken: the next group journals none. */
	assert_int_equal(na_store_group_begin(s, &err), VS_OK);
	assert_int_equal(na_store_add(s, &c, &err), VS_OK);
	links[0].result_id = c.id;
	assert_int_equal(na_store_group_end(s, VS_OK, &g, links, 1, &err), VS_OK);
	na_store_close(&s);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM campaign_steps"), 1);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM result_groups"), 2);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM results WHERE campaign = 'g-1'"), 3);
	remove_db(dir, path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job_logs),
		cmocka_unit_test(test_merged_percentiles),
		cmocka_unit_test(test_both_directions),
		cmocka_unit_test(test_group_store),
		cmocka_unit_test(test_group_journal),
		cmocka_unit_test(test_group_link),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
