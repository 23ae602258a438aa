/* fio's interval logs (agent/fio_logs.c), a group's common window
 * (agent/group_window.c) and the group's figures made from its members cut
 * to it (agent/group.c), as a group run makes them.  Golden logs: tests/data/fio/randrw70_*.1.log,
 * written by Debian's fio 3.33 (tests/data/fio/README.md); the expected
 * numbers were read off them with awk (sums of a line's buckets) and python.
 * The other logs are made here, in fio's format, with known figures. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "golden.h"
#include "analysis/group.h"
#include "analysis/group_window.h"

/* Bucket 11 * 64 + 33 stands for 99840 ns; 64 buckets on, each group's
 * values double: 199680, 399360, 798720, 1597440 ns. */
enum { MS = 1000, BUCKET_US100 = 11 * 64 + 33 };

typedef na_fio_logs logs;

static void assert_near(double got, double want)
{
	if (!(got >= want - 1e-9 * (want > 0 ? want : -want) && got <= want + 1e-9 * (want > 0 ? want : -want)))
		fail_msg("%.17g is not %.17g", got, want);
}

/* fio's plat_idx_to_val, in doubles as fio computes it: the test's own copy. */
static int64_t fio_val(unsigned idx)
{
	if (idx < 128)
		return idx;
	unsigned error_bits = (idx >> 6) - 1;
	unsigned long long base = 1ULL << (error_bits + 6);
	return (int64_t)(base + ((idx % 64 + 0.5) * (1 << error_bits)));
}

enum { MAX_VMS = 3 };

/* The group's figures from the cut r the way ops/bench_window.c makes them
 * (member_cut, group_cut): a VM's na_fio_result holds its jobs' cut reads
 * and writes merged, here one job a VM, and na_group_figures_of sums the
 * VMs.  vm[i] is named "vm<i>"; clear each vm[i] and fig after. */
static void figures_of_cut(const na_gw_result *r, na_fio_result vm[MAX_VMS], na_group_figures *fig)
{
	static const char *const names[MAX_VMS] = {"vm0", "vm1", "vm2"};
	const na_fio_result *fio[MAX_VMS];
	vs_error err = {0};
	assert_true(r->n <= MAX_VMS);
	for (size_t i = 0; i < r->n; i++) {
		vm[i] = (na_fio_result){0};
		assert_int_equal(na_fio_dir_merge(&vm[i].read, &r->member[i][0], &err), VS_OK);
		assert_int_equal(na_fio_dir_merge(&vm[i].write, &r->member[i][1], &err), VS_OK);
		fio[i] = &vm[i];
	}
	assert_int_equal(na_group_figures_of(fio, names, r->n, fig, &err), VS_OK);
}

static void figures_clear(size_t n, na_fio_result vm[MAX_VMS], na_group_figures *fig)
{
	for (size_t i = 0; i < n; i++)
		na_fio_result_clear(&vm[i]);
	na_group_figures_clear(fig);
}

static void test_golden_rate_logs(void **state)
{
	(void)state;
	size_t len;
	char *text = golden("fio/randrw70_iops.1.log", &len);
	na_fio_log log;
	vs_error err = {0};
	assert_int_equal(na_fio_log_parse(text, len, &log, &err), VS_OK);
	assert_int_equal(log.n, 4);
	assert_int_equal(log.s[0].t_ms, 1796480055061LL);
	assert_int_equal(log.s[0].value, 12701);
	assert_int_equal(log.s[0].dir, 0);
	assert_int_equal(log.s[3].t_ms, 1796480056061LL);
	assert_int_equal(log.s[3].value, 6325);
	assert_int_equal(log.s[3].dir, 1);
	na_fio_log_clear(&log);
	free(text);
	text = golden("fio/randrw70_bw.1.log", &len);
	assert_int_equal(na_fio_log_parse(text, len, &log, &err), VS_OK);
	assert_int_equal(log.n, 4);
	assert_int_equal(log.s[1].value, 21600);  /* KiB/s: 5400 writes of 4 KiB */
	assert_int_equal(log.s[2].value, 58788);
	na_fio_log_clear(&log);
	free(text);
}

static int64_t row_sum(const na_fio_hist_log *h, size_t line)
{
	int64_t sum = 0;
	for (size_t b = 0; b < h->n_bins; b++)
		sum += h->counts[line * h->n_bins + b];
	return sum;
}

static void test_golden_hist_log(void **state)
{
	(void)state;
	size_t len;
	char *text = golden("fio/randrw70_clat_hist.1.log", &len);
	na_fio_hist_log h;
	vs_error err = {0};
	assert_int_equal(na_fio_hist_parse(text, len, &h, &err), VS_OK);
	assert_int_equal(h.n, 4);
	assert_int_equal(h.n_bins, 1856);
	assert_int_equal(h.coarseness, 0);
	assert_int_equal(h.t_ms[0], 1796480055062LL);
	assert_int_equal(h.dir[1], 1);
	const int64_t sums[] = {12708, 5405, 14705, 6324};
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(row_sum(&h, i), sums[i]);
	assert_int_equal(h.counts[435], 1);  /* line 1's first non-empty bucket */
	assert_int_equal(h.counts[434], 0);
	na_fio_hist_clear(&h);
	free(text);
}

static void test_bucket_ns(void **state)
{
	(void)state;
	const unsigned idx[] = {0, 127, 128, 435, BUCKET_US100, 1193, 1855};
	for (size_t i = 0; i < sizeof(idx) / sizeof(idx[0]); i++)
		assert_int_equal(na_fio_hist_bucket_ns(idx[i], 0), fio_val(idx[i]));
	assert_int_equal(na_fio_hist_bucket_ns(435, 0), 3696);  /* 2^11 + 51.5 * 2^5 */
	assert_int_equal(na_fio_hist_bucket_ns(1, 1), 2);       /* mean of 2 and 3, in whole ns */
	assert_int_equal(na_fio_hist_bucket_ns(2, 6), 192);     /* mean of 129, 131, ... 255 */
	assert_int_equal(na_fio_hist_bucket_ns(29, 6), -1);
	assert_int_equal(na_fio_hist_bucket_ns(0, 7), -1);
}

/* One member from the golden logs: its logs' times are on the epoch
 * (log_unix_epoch=1), it started one interval before its first line. */
static void test_golden_window(void **state)
{
	(void)state;
	const char *names[] = {"fio/randrw70_bw.1.log", "fio/randrw70_clat_hist.1.log"};
	logs l;
	vs_error err = {0};
	size_t len[2];
	char *text[2];
	for (size_t i = 0; i < 2; i++)
		text[i] = golden(names[i], &len[i]);
	assert_int_equal(na_fio_log_parse(text[0], len[0], &l.bw, &err), VS_OK);
	assert_int_equal(na_fio_hist_parse(text[1], len[1], &l.hist, &err), VS_OK);
	na_gw_member m = {.start_ms = 1796480054061LL, .interval_ms = MS, .bw = &l.bw, .hist = &l.hist};
	na_gw_result r;
	assert_int_equal(na_gw_compute(&m, 1, &r, &err), VS_OK);
	/* The bandwidth log ends at ...56061, the histogram log 1 ms later. */
	assert_int_equal(r.from_ms, 1796480054061LL);
	assert_int_equal(r.to_ms, 1796480056061LL);
	assert_true(r.member[0][1].bw_bytes == (21600 + 25300) * 1024 / 2.0);
	assert_false(r.member[0][2].present);
	/* The I/Os are the histogram log's completions, its second line cut at
	 * 999 of its 1000 ms: reads 12708 + 0.999 x 14705 = 27398.3, writes
	 * 5405 + 0.999 x 6324 = 11722.7 (python on the file), rounded as a
	 * whole (rounding each bucket gave 27402 and 11729); about what fio's
	 * IOPS log of the same run says (12701 + 14697 reads, 5400 + 6325
	 * writes), sampled a moment apart. */
	int64_t bins[2] = {0, 0};
	for (size_t d = 0; d < 2; d++)
		for (size_t i = 0; i < r.member[0][d].n_bins; i++)
			bins[d] += r.member[0][d].bin_count[i];
	assert_int_equal(bins[0], 27398);
	assert_int_equal(bins[1], 11723);
	assert_int_equal(r.member[0][0].total_ios, 27398);
	assert_true(r.member[0][0].iops == 27398 / 2.0);
	assert_int_equal(r.member[0][1].total_ios, 11723);
	na_fio_result vm[MAX_VMS];
	na_group_figures fig;
	figures_of_cut(&r, vm, &fig);
	assert_true(fig.merged.read.p99_us == r.member[0][0].p99_us);
	assert_true(fig.merged.read.p50_us > 1 && fig.merged.read.p50_us < fig.merged.read.p99_us);
	figures_clear(r.n, vm, &fig);
	na_gw_result_clear(&r);
	na_fio_logs_clear(&l);
	for (size_t i = 0; i < 2; i++)
		free(text[i]);
}

/* The same member without its bandwidth log: each direction's lines name
 * one block size (4096), so its bytes are its completions times it, within
 * 0.1% of what the bandwidth log says. */
static void test_golden_window_by_size(void **state)
{
	(void)state;
	logs l = {0};
	vs_error err = {0};
	size_t len;
	char *text = golden("fio/randrw70_clat_hist.1.log", &len);
	assert_int_equal(na_fio_hist_parse(text, len, &l.hist, &err), VS_OK);
	assert_int_equal(l.hist.bs[0], 4096);
	assert_int_equal(l.hist.bs[1], 4096);
	assert_int_equal(l.hist.bs[2], 0);
	na_gw_member m = {.start_ms = 1796480054061LL, .interval_ms = MS, .hist = &l.hist};
	na_gw_result r;
	assert_int_equal(na_gw_compute(&m, 1, &r, &err), VS_OK);
	assert_int_equal(r.to_ms, 1796480056062LL);  /* the histogram log's end: no other log */
	double secs = (double)(r.to_ms - r.from_ms) / 1000;
	assert_true(r.member[0][0].bw_bytes == (double)r.member[0][0].total_ios * 4096 / secs);
	assert_true(r.member[0][1].bw_bytes == (double)r.member[0][1].total_ios * 4096 / secs);
	double by_log = (21600 + 25300) * 1024 / 2.0;
	assert_true(fabs(r.member[0][1].bw_bytes / by_log - 1) < 0.001);
	na_gw_result_clear(&r);
	/* A direction whose lines name two sizes needs its bandwidth log. */
	l.hist.bs[1] = -1;
	assert_int_equal(na_gw_compute(&m, 1, &r, &err), VS_ERR_USAGE);
	na_gw_result_clear(&r);
	na_fio_logs_clear(&l);
	free(text);
}

/* When a histogram log alone gives a job's bytes: one size per direction,
 * and fio's own bytes per I/O within 1% of it. */
static void test_sizes_fixed(void **state)
{
	(void)state;
	na_fio_hist_log h = {.bs = {4096, 0, 0}};
	/* 1000 reads of 4 KiB over 2 s, and 0.05% more bytes (I/Os in flight at the ramp's end) */
	na_fio_result f = {.read = {.present = true, .total_ios = 1000, .runtime_ms = 2000,
	                            .bw_bytes = 4096.0 * 1000 / 2 * 1.0005}};
	assert_true(na_gw_sizes_fixed(&f, &h));
	f.read.bw_bytes = 8192.0 * 1000 / 2;   /* a 4K/12K split averaging 8K: not fixed */
	assert_false(na_gw_sizes_fixed(&f, &h));
	f.read.bw_bytes = 4096.0 * 1000 / 2;
	h.bs[1] = 65536;                       /* writes in the log, none in fio's output */
	assert_false(na_gw_sizes_fixed(&f, &h));
	h.bs[1] = 0;
	h.bs[0] = -1;                          /* two sizes in the log */
	assert_false(na_gw_sizes_fixed(&f, &h));
	h.bs[0] = 4096;
	f.mixed = true;                        /* unified_rw_reporting: no read direction apart */
	assert_false(na_gw_sizes_fixed(&f, &h));
}

/* Text of a rate log: one read line per interval, at the interval's end (ms
 * from the member's start), the rate of interval k being rate[k] * scale. */
static char *rate_log(const int64_t *rate, size_t n, int64_t scale)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	for (size_t k = 0; k < n; k++)
		fprintf(f, "%lld, %lld, 0, 4096, 0\n", (long long)((k + 1) * MS), (long long)(rate[k] * scale));
	fclose(f);
	return buf;
}

/* Text of a histogram log: counts[k][j] completions in bucket bucket[j] in
 * interval k, reads only. */
static char *hist_log(size_t n, const unsigned *bucket, size_t nb, const int64_t *counts)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	for (size_t k = 0; k < n; k++) {
		fprintf(f, "%lld, 0, 4096", (long long)((k + 1) * MS));
		for (unsigned b = 0; b < NA_FIO_PLAT_NR; b++) {
			int64_t c = 0;
			for (size_t j = 0; j < nb; j++)
				c += bucket[j] == b ? counts[k * nb + j] : 0;
			fprintf(f, ", %lld", (long long)c);
		}
		fputc('\n', f);
	}
	fclose(f);
	return buf;
}

/* A member whose logs hold n intervals of 1 s at rate[k] reads per second,
 * all its completions in one bucket. */
static void make_member(logs *l, const int64_t *rate, size_t n, unsigned bucket)
{
	vs_error err = {0};
	char *bw = rate_log(rate, n, 4), *hist = hist_log(n, &bucket, 1, rate);
	assert_int_equal(na_fio_log_parse(bw, strlen(bw), &l->bw, &err), VS_OK);
	assert_int_equal(na_fio_hist_parse(hist, strlen(hist), &l->hist, &err), VS_OK);
	free(bw);
	free(hist);
}

enum { T0 = 1000000, N_INT = 10 };

/* Three members starting 0, 300 and 700 ms apart, a 2 s ramp, 10 s of logs
 * each (relative times).  Member 0's rate climbs 1000, 2000, ... 10000 IOPS;
 * members 1 and 2 run at 2000 and 3000 IOPS. */
static void three_members(logs l[3], na_gw_member m[3], size_t short_member, size_t short_n)
{
	int64_t climb[N_INT], flat2[N_INT], flat3[N_INT];
	const int64_t skew[3] = {0, 300, 700};
	for (size_t k = 0; k < N_INT; k++)
		climb[k] = 1000 * (int64_t)(k + 1), flat2[k] = 2000, flat3[k] = 3000;
	const int64_t *rates[3] = {climb, flat2, flat3};
	for (size_t i = 0; i < 3; i++) {
		make_member(&l[i], rates[i], i == short_member ? short_n : N_INT, BUCKET_US100 + (unsigned)i);
		m[i] = (na_gw_member){.start_ms = T0 + skew[i], .log_base_ms = T0 + skew[i], .ramp_ms = 2 * MS,
		                      .interval_ms = MS, .bw = &l[i].bw, .hist = &l[i].hist};
	}
}

static void test_window_of_three(void **state)
{
	(void)state;
	logs l[3];
	na_gw_member m[3];
	three_members(l, m, 3, 0);
	na_gw_result r;
	vs_error err = {0};
	assert_int_equal(na_gw_compute(m, 3, &r, &err), VS_OK);
	assert_int_equal(r.from_ms, T0 + 700 + 2000);  /* the latest start plus the ramp */
	assert_int_equal(r.to_ms, T0 + 10000);         /* member 0's logs end first */
	/* Member 0 in (2700, 10000] of its own time: 0.3 of its third second
	 * (3000 IOPS) and all of seconds 4 to 10 (4000 ... 10000 IOPS). */
	assert_int_equal(r.member[0][0].total_ios, 900 + 49000);
	assert_near(r.member[0][0].iops, 49900 / 7.3);
	/* Members 1 and 2 run flat: whatever the cut, their rates. */
	assert_int_equal(r.member[1][0].total_ios, 2000 * 73 / 10);
	assert_near(r.member[2][0].bw_bytes, 3000 * 4096);
	/* The histogram is cut the same way: member 0's bucket holds 49900. */
	assert_int_equal(r.member[0][0].n_bins, 1);
	assert_int_equal(r.member[0][0].bin_count[0], 49900);
	assert_int_equal(r.member[0][0].bin_ns[0], fio_val(BUCKET_US100));
	/* Spread: member 1 (2000 IOPS) is the slowest, member 2 the median. */
	na_fio_result vm[MAX_VMS];
	na_group_figures fig;
	figures_of_cut(&r, vm, &fig);
	assert_string_equal(fig.slowest.name, "vm1");
	assert_string_equal(fig.median.name, "vm2");
	assert_string_equal(fig.fastest.name, "vm0");
	double total = 49900 / 7.3 + 2000 + 3000;
	assert_near(fig.iops, total);
	assert_near(fig.slowest.iops, 2000);
	assert_near(fig.median.iops, 3000);
	assert_near(fig.fastest.iops, 49900 / 7.3);
	assert_near(fig.slowest_share, 2000 / (total / 3));  /* 0.507 */
	figures_clear(r.n, vm, &fig);
	na_gw_result_clear(&r);
	for (size_t i = 0; i < 3; i++)
		na_fio_logs_clear(&l[i]);
}

static void test_sums_are_the_members(void **state)
{
	(void)state;
	logs l[3];
	na_gw_member m[3];
	three_members(l, m, 3, 0);
	na_gw_result r;
	vs_error err = {0};
	assert_int_equal(na_gw_compute(m, 3, &r, &err), VS_OK);
	double iops = 0, bw = 0;
	int64_t ios = 0;
	for (size_t i = 0; i < 3; i++)
		iops += r.member[i][0].iops, bw += r.member[i][0].bw_bytes, ios += r.member[i][0].total_ios;
	na_fio_result vm[MAX_VMS];
	na_group_figures fig;
	figures_of_cut(&r, vm, &fig);
	const na_fio_dir *read = &fig.merged.read;
	assert_near(read->iops, iops);
	assert_near(read->bw_bytes, bw);
	assert_int_equal(read->total_ios, ios);
	/* Each member had its own bucket: the group's bins are theirs side by side. */
	assert_int_equal(read->n_bins, 3);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(read->bin_count[i], r.member[i][0].bin_count[0]);
	assert_false(fig.merged.write.present);
	figures_clear(r.n, vm, &fig);
	na_gw_result_clear(&r);
	for (size_t i = 0; i < 3; i++)
		na_fio_logs_clear(&l[i]);
}

/* The value of the k-th smallest of all completions (k from 1). */
static int64_t kth(const unsigned *bucket, const int64_t *count, size_t nb, int64_t k)
{
	for (size_t j = 0; j < nb; j++)
		if ((k -= count[j]) <= 0)
			return fio_val(bucket[j]);
	return -1;
}

/* Members of known, different histograms over 3 intervals, all inside the
 * window.  The true pooled percentile is computed here by rank: the
 * ceil(p * N / 100)-th smallest completion of all members together. */
static void test_merged_p99(void **state)
{
	(void)state;
	const unsigned bucket[4] = {BUCKET_US100, BUCKET_US100 + 64, BUCKET_US100 + 128, BUCKET_US100 + 256};
	/* Per member, per interval, the counts of the four buckets: a fast member
	 * with a tail of 11 in 1001 at 1.6 ms, a steady one, a slow one with one
	 * completion at 1.6 ms.  Totals: 1001, 1500, 302. */
	const int64_t counts[3][3 * 4] = {
		{330, 0, 0, 4, 330, 0, 0, 3, 330, 0, 0, 4},
		{100, 350, 50, 0, 100, 350, 50, 0, 100, 350, 50, 0},
		{0, 0, 100, 0, 0, 0, 100, 2, 0, 0, 100, 0},
	};
	logs l[3];
	na_gw_member m[3];
	int64_t pooled[4] = {0};
	vs_error err = {0};
	for (size_t i = 0; i < 3; i++) {
		int64_t rate[3];
		for (size_t k = 0; k < 3; k++) {
			rate[k] = 0;
			for (size_t j = 0; j < 4; j++)
				rate[k] += counts[i][k * 4 + j], pooled[j] += counts[i][k * 4 + j];
		}
		char *bw = rate_log(rate, 3, 4), *hist = hist_log(3, bucket, 4, counts[i]);
		assert_int_equal(na_fio_log_parse(bw, strlen(bw), &l[i].bw, &err), VS_OK);
		assert_int_equal(na_fio_hist_parse(hist, strlen(hist), &l[i].hist, &err), VS_OK);
		free(bw), free(hist);
		m[i] = (na_gw_member){.start_ms = T0, .log_base_ms = T0, .interval_ms = MS,
		                      .bw = &l[i].bw, .hist = &l[i].hist};
	}
	na_gw_result r;
	assert_int_equal(na_gw_compute(m, 3, &r, &err), VS_OK);
	na_fio_result vm[MAX_VMS];
	na_group_figures fig;
	figures_of_cut(&r, vm, &fig);
	const na_fio_dir *read = &fig.merged.read;
	int64_t n = pooled[0] + pooled[1] + pooled[2] + pooled[3];
	assert_int_equal(n, 2803);  /* odd: no p * N / 100 is a whole number */
	assert_int_equal(read->total_ios, n);
	/* ceil(p * N / 100) in integers: 1402, 2663, 2775, 2801. */
	const int64_t ranks[4] = {(50 * n + 99) / 100, (95 * n + 99) / 100, (99 * n + 99) / 100, (999 * n + 999) / 1000};
	const double got[4] = {read->p50_us, read->p95_us, read->p99_us, read->p999_us};
	for (size_t i = 0; i < 4; i++)
		assert_true(got[i] == kth(bucket, pooled, 4, ranks[i]) / 1000.0);
	double mean_p99 = (r.member[0][0].p99_us + r.member[1][0].p99_us + r.member[2][0].p99_us) / 3;
	assert_true(read->p99_us != mean_p99);
	/* The numbers: the member p99s are 1597.44, 399.36 and 399.36 us, their
	 * mean 798.72 us; pooled, 2790 of 2803 completions lie at or below the
	 * 400 us bucket, so the group's p99 is 399.36 us. */
	assert_near(r.member[0][0].p99_us, 1597.44);
	assert_near(r.member[1][0].p99_us, 399.36);
	assert_near(r.member[2][0].p99_us, 399.36);
	assert_near(mean_p99, 798.72);
	assert_near(read->p99_us, 399.36);
	assert_near(read->p50_us, 199.68);
	assert_near(read->p999_us, 1597.44);
	figures_clear(r.n, vm, &fig);
	na_gw_result_clear(&r);
	for (size_t i = 0; i < 3; i++)
		na_fio_logs_clear(&l[i]);
}

static void test_early_end_shortens(void **state)
{
	(void)state;
	logs l[3];
	na_gw_member m[3];
	three_members(l, m, 2, 7);  /* member 2's logs stop after 7 of 10 s */
	na_gw_result r;
	vs_error err = {0};
	assert_int_equal(na_gw_compute(m, 3, &r, &err), VS_OK);
	assert_int_equal(r.from_ms, T0 + 2700);
	assert_int_equal(r.to_ms, T0 + 700 + 7000);
	assert_near(r.member[2][0].iops, 3000);
	/* Member 0 in (2700, 7700]: 0.3 * 3000 + 4000 + ... + 7000 + 0.7 * 8000. */
	assert_int_equal(r.member[0][0].total_ios, 900 + 22000 + 5600);
	na_gw_result_clear(&r);
	for (size_t i = 0; i < 3; i++)
		na_fio_logs_clear(&l[i]);
}

/* A direction of a few I/Os spread over buckets, in an interval the window
 * cuts to 0.4: its 5 x 0.4 = 2 completions are kept whole (each bucket
 * alone would round 0.4 down to nothing and the direction vanish), in the
 * slowest of the buckets that tie. */
static void test_thin_direction_kept(void **state)
{
	(void)state;
	const unsigned bucket[5] = {BUCKET_US100, BUCKET_US100 + 1, BUCKET_US100 + 2, BUCKET_US100 + 3,
	                            BUCKET_US100 + 4};
	const int64_t counts[2 * 5] = {1, 1, 1, 1, 1, 0, 0, 0, 0, 0};
	char *text = hist_log(2, bucket, 5, counts);
	na_fio_hist_log h;
	vs_error err = {0};
	assert_int_equal(na_fio_hist_parse(text, strlen(text), &h, &err), VS_OK);
	free(text);
	na_gw_member m = {.start_ms = T0, .log_base_ms = T0, .ramp_ms = 600, .interval_ms = MS, .hist = &h};
	na_gw_result r;
	assert_int_equal(na_gw_compute(&m, 1, &r, &err), VS_OK);
	assert_int_equal(r.from_ms, T0 + 600);
	assert_int_equal(r.to_ms, T0 + 2 * MS);
	assert_true(r.member[0][0].present);
	assert_int_equal(r.member[0][0].total_ios, 2);
	assert_int_equal(r.member[0][0].n_bins, 2);
	assert_int_equal(r.member[0][0].bin_count[0] + r.member[0][0].bin_count[1], 2);
	/* the five tie: the two slowest buckets take them (the tail kept) */
	assert_int_equal(r.member[0][0].bin_ns[0], fio_val(BUCKET_US100 + 3));
	assert_int_equal(r.member[0][0].bin_ns[1], fio_val(BUCKET_US100 + 4));
	na_gw_result_clear(&r);
	na_fio_hist_clear(&h);
}

static void test_window_too_short(void **state)
{
	(void)state;
	logs l[3];
	na_gw_member m[3];
	vs_error err = {0};
	na_gw_result r;
	three_members(l, m, 2, 3);  /* member 2 ends at 3700, 1000 ms after 2700 */
	assert_int_equal(na_gw_compute(m, 3, &r, &err), VS_OK);
	na_gw_result_clear(&r);
	m[1].ramp_ms = 2500;        /* member 1 measures from 2800: 900 ms left */
	assert_int_equal(na_gw_compute(m, 3, &r, &err), VS_ERR_PROTOCOL);
	assert_non_null(strstr(err.message, "is 900 ms long, shorter than one 1000 ms interval"));
	assert_non_null(strstr(err.message, "member 1 measures from 1002800 ms, member 2's logs end at 1003700"));
	/* The bounds are also given as values, for the caller to name the VMs. */
	assert_int_equal(r.starts_last, 1);
	assert_int_equal(r.ends_first, 2);
	assert_int_equal(r.from_ms, 1002800);
	assert_int_equal(r.to_ms, 1003700);
	na_gw_result_clear(&r);
	m[1].ramp_ms = 3500;
	assert_int_equal(na_gw_compute(m, 3, &r, &err), VS_ERR_PROTOCOL);
	assert_non_null(strstr(err.message, "window is empty: member 2's logs end at 1003700 ms, before "
	                                    "member 1 measures from 1003800 ms"));
	na_gw_result_clear(&r);
	m[0].hist = NULL;
	assert_int_equal(na_gw_compute(m, 3, &r, &err), VS_ERR_USAGE);
	assert_non_null(strstr(err.message, "member 0"));
	na_gw_result_clear(&r);
	for (size_t i = 0; i < 3; i++)
		na_fio_logs_clear(&l[i]);
}

static void expect_log_error(const char *text, const char *want)
{
	na_fio_log log;
	vs_error err = {0};
	assert_int_equal(na_fio_log_parse(text, strlen(text), &log, &err), VS_ERR_PROTOCOL);
	if (!strstr(err.message, want))
		fail_msg("\"%s\" does not say \"%s\"", err.message, want);
	na_fio_log_clear(&log);
}

static void expect_hist_error(const char *text, const char *want)
{
	na_fio_hist_log h;
	vs_error err = {0};
	assert_int_equal(na_fio_hist_parse(text, strlen(text), &h, &err), VS_ERR_PROTOCOL);
	if (!strstr(err.message, want))
		fail_msg("\"%s\" does not say \"%s\"", err.message, want);
	na_fio_hist_clear(&h);
}

static void test_malformed_lines(void **state)
{
	(void)state;
	const char *ok = "1000, 5, 0, 4096, 0\n";
	char buf[256];
	expect_log_error("", "is empty");
	snprintf(buf, sizeof(buf), "%s1000, 5, 0, 4096\n", ok);
	expect_log_error(buf, "line 2: not \"msec, value");
	snprintf(buf, sizeof(buf), "%s%s1000, x, 0, 4096, 0\n", ok, ok);
	expect_log_error(buf, "line 3: not");
	expect_log_error("1000, -5, 0, 4096, 0\n", "line 1: not");
	expect_log_error("1000, 5, 0, 4096, 0, 0, 0, 0\n", "line 1: not");
	expect_log_error("1000, 5, 0, 4096, 0\n\n", "line 2: not");
	expect_log_error("1000, 5, 0, 4096, 0;\n", "line 1: not");
	expect_log_error("1000, 99999999999999999999, 0, 4096, 0\n", "line 1: not");
	snprintf(buf, sizeof(buf), "%s1000, 5, 3, 4096, 0\n", ok);
	expect_log_error(buf, "line 2: direction 3 is not 0, 1 or 2");
	snprintf(buf, sizeof(buf), "%s999, 5, 0, 4096, 0\n", ok);
	expect_log_error(buf, "line 2: time 999 ms goes back from 1000 ms");
	expect_log_error("2000000000000000, 5, 0, 4096, 0\n", "line 1: time 2000000000000000 ms is past any clock");
	/* Within a direction only: a read line may follow a later write line. */
	na_fio_log log;
	vs_error err = {0};
	const char *mixed = "1000, 5, 1, 4096, 0\r\n999, 5, 0, 4096, 0, 0";
	assert_int_equal(na_fio_log_parse(mixed, strlen(mixed), &log, &err), VS_OK);
	assert_int_equal(log.n, 2);
	na_fio_log_clear(&log);

	expect_hist_error("1000, 0, 4096\n", "line 1: not \"msec, direction");
	expect_hist_error("1000, 0, 4096, 1, 2, 3\n", "line 1: 3 buckets, not fio 3's 1856");
	const unsigned b = 0;
	const int64_t one = 1, big = 4294967296LL;
	char *h = hist_log(1, &b, 1, &one), *hb = hist_log(1, &b, 1, &big);
	char *two = malloc(2 * strlen(h) + 40);
	sprintf(two, "%s2000, 1, 4096, 1, 2\n", h);
	expect_hist_error(two, "line 2: 2 buckets where the lines before have 1856");
	sprintf(two, "%s2000, 5%s", h, h + strlen("1000, 0"));
	expect_hist_error(two, "line 2: direction 5 is not 0, 1 or 2");
	sprintf(two, "%s999, 0%s", h, h + strlen("1000, 0"));
	expect_hist_error(two, "line 2: time 999 ms goes back from 1000 ms");
	expect_hist_error(hb, "line 1: bucket 0 counts 4294967296 completions");
	free(h), free(hb), free(two);
	/* A coarse log (log_hist_coarseness=6): 29 buckets. */
	na_fio_hist_log coarse;
	char c6[256] = "1000, 0, 4096";
	for (size_t i = 0; i < NA_FIO_PLAT_NR >> 6; i++)
		strcat(c6, i == 2 ? ", 7" : ", 0");
	assert_int_equal(na_fio_hist_parse(c6, strlen(c6), &coarse, &err), VS_OK);
	assert_int_equal(coarse.coarseness, 6);
	assert_int_equal(coarse.counts[2], 7);
	na_fio_hist_clear(&coarse);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_rate_logs),
		cmocka_unit_test(test_golden_hist_log),
		cmocka_unit_test(test_bucket_ns),
		cmocka_unit_test(test_golden_window),
		cmocka_unit_test(test_golden_window_by_size),
		cmocka_unit_test(test_sizes_fixed),
		cmocka_unit_test(test_window_of_three),
		cmocka_unit_test(test_sums_are_the_members),
		cmocka_unit_test(test_merged_p99),
		cmocka_unit_test(test_early_end_shortens),
		cmocka_unit_test(test_window_too_short),
		cmocka_unit_test(test_thin_direction_kept),
		cmocka_unit_test(test_malformed_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
