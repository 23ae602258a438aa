/* The statistics engine behind bench, compare, regress and report: exact
 * values of its distributions and tests, the text it prints, and a seeded
 * simulation of thousands of comparisons whose truth is known, which holds
 * the verdicts to issue 11's goals (false alarms, power, time order). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compare.h"
#include "stats.h"

#define SPREAD(...) spread((const double[]){__VA_ARGS__}, sizeof((const double[]){__VA_ARGS__}) / sizeof(double))

/* Equal within 1e-9. */
static bool close_to(double x, double y)
{
	return x - y < 1e-9 && y - x < 1e-9;
}

static na_spread spread(const double *v, size_t n)
{
	return na_spread_of(v, n);
}

static void test_spread(void **state)
{
	(void)state;
	na_spread s = SPREAD(17700, 12100, 15000);
	assert_int_equal(s.n, 3);
	assert_true(s.median == 15000 && s.min == 12100 && s.max == 17700);
	s = SPREAD(4, -1, 2, 8, 6);  /* negative = unknown, left out */
	assert_int_equal(s.n, 4);
	assert_true(s.median == 5 && s.min == 2 && s.max == 8);
	s = spread(NULL, 0);
	assert_int_equal(s.n, 0);
}

/* Reference values from R: qt(), pt(). */
static void test_t_distribution(void **state)
{
	(void)state;
	assert_true(fabs(na_t_quantile(0.975, 4) - 2.776445) < 1e-6);
	assert_true(fabs(na_t_quantile(0.975, 8) - 2.306004) < 1e-6);
	assert_true(fabs(na_t_quantile(0.975, 18) - 2.100922) < 1e-6);
	assert_true(fabs(na_t_quantile(0.8, 8) - 0.888890) < 1e-6);
	assert_true(fabs(na_t_quantile(0.975, 1) - 12.706205) < 1e-5);
	assert_true(fabs(na_t_quantile(0.025, 8) + 2.306004) < 1e-6);
	assert_true(fabs(na_t_cdf(2.0, 5) - 0.9490303) < 1e-7);
	assert_true(fabs(na_t_cdf(-1.5, 10) - 0.0822537) < 1e-7);
	assert_true(na_t_cdf(0, 7) == 0.5);
	assert_true(isnan(na_t_quantile(1, 4)) && isnan(na_t_quantile(0.5, 0)));
}

/* Exact: R's wilcox.test(exact = TRUE) p values. */
static void test_mann_whitney(void **state)
{
	(void)state;
	const double a4[] = {1, 2, 3, 4}, b4[] = {5, 6, 7, 8}, b4m[] = {2.5, 6, 7, 8};
	assert_true(close_to(na_mann_whitney_p(a4, 4, b4, 4), 2.0 / 70));
	assert_true(close_to(na_mann_whitney_p(b4, 4, a4, 4), 2.0 / 70));
	assert_true(close_to(na_mann_whitney_p(a4, 4, b4m, 4), 8.0 / 70));  /* U = 14: 4 orders of 70 */
	const double a5[] = {1, 2, 3, 4, 5}, b5[] = {6, 7, 8, 9, 10}, b5x[] = {1.5, 2.5, 3.5, 4.5, 5.5};
	assert_true(close_to(na_mann_whitney_p(a5, 5, b5, 5), 2.0 / 252));
	assert_true(fabs(na_mann_whitney_p(a5, 5, b5x, 5) - 0.6904762) < 1e-7);
	const double b6[] = {6, 7, 8, 9, 10, 11};
	assert_true(close_to(na_mann_whitney_p(a5, 5, b6, 6), 2.0 / 462));
	/* Below 4 runs a side there is no rank test. */
	assert_true(isnan(na_mann_whitney_p(a4, 3, b4, 4)));
}

static void test_hodges_lehmann(void **state)
{
	(void)state;
	/* Ratios b/a of {1, 2} against {2, 4}: 2, 4, 1, 2 -> median 2. */
	assert_true(close_to(na_hodges_lehmann((const double[]){1, 2}, 2, (const double[]){2, 4}, 2), 2));
	/* Nine ratios of 3 against 3 runs: the fifth. */
	double hl = na_hodges_lehmann((const double[]){100, 110, 121}, 3,
	                              (const double[]){200, 220, 242}, 3);
	assert_true(close_to(hl, 2));
	assert_true(isnan(na_hodges_lehmann(NULL, 0, (const double[]){1}, 1)));
}

static void test_holm(void **state)
{
	(void)state;
	const double p[] = {0.01, 0.04, 0.03, 0.005};
	double out[4];
	na_holm(p, 4, out);  /* sorted 0.005 0.01 0.03 0.04 times 4 3 2 1, kept monotone */
	assert_true(close_to(out[3], 0.02) && close_to(out[0], 0.03));
	assert_true(close_to(out[2], 0.06) && close_to(out[1], 0.06));
	const double big[] = {0.6, 0.9};
	na_holm(big, 2, out);
	assert_true(out[0] == 1 && out[1] == 1);
}

static void test_effect(void **state)
{
	(void)state;
	const double a[] = {10000, 10200, 9900}, b[] = {13000, 13300, 12900};
	na_effect e = na_effect_of(a, 3, b, 3, 0, true);
	assert_int_equal(e.verdict, NA_NOISE_BEYOND);
	assert_true(e.ratio > 1.30 && e.ratio < 1.31);
	assert_true(e.lo > 1.25 && e.hi < 1.36 && e.p < 1e-4);
	char buf[160];
	assert_string_equal(na_effect_text(&e, false, buf, sizeof(buf)),
	                    "+30.2% better (95% CI +25.7% to +34.9%)");
	/* Swapped: the mirrored interval, the same verdict and p. */
	na_effect s = na_effect_of(b, 3, a, 3, 0, true);
	assert_int_equal(s.verdict, NA_NOISE_BEYOND);
	assert_true(fabs(s.lo * e.hi - 1) < 1e-12 && fabs(s.hi * e.lo - 1) < 1e-12);
	assert_true(fabs(s.p - e.p) < 1e-15);
	/* The seeds' noisy groups: within noise, with what could have been seen. */
	const double x[] = {17700, 12100, 15000}, y[] = {16000, 14000, 13000};
	e = na_effect_of(x, 3, y, 3, 0, true);
	assert_int_equal(e.verdict, NA_NOISE_WITHIN);
	assert_string_equal(na_effect_text(&e, false, buf, sizeof(buf)),
	                    "-3.2% worse (95% CI -31.7% to +37.2%)");
	assert_string_equal(na_verdict_text(&e, buf, sizeof(buf)),
	                    "within noise: could only see changes of about ±60% with 3 runs a side");
	/* Too few: one or two runs claim nothing, however far apart. */
	e = na_effect_of((const double[]){17700}, 1, (const double[]){37400}, 1, 0, true);
	assert_int_equal(e.verdict, NA_NOISE_TOO_FEW);
	assert_true(isnan(e.lo) && e.ratio > 2.11 && e.ratio < 2.12);
	e = na_effect_of((const double[]){100, -1, 101}, 3, (const double[]){500, 501, 502}, 3, 0, true);
	assert_int_equal(e.verdict, NA_NOISE_TOO_FEW);
	assert_string_equal(na_verdict_text(&e, buf, sizeof(buf)), "too few runs to tell");
	/* MB/s and average latency: shown, no verdict of their own. */
	e = na_effect_of(a, 3, b, 3, 0, false);
	assert_int_equal(e.verdict, NA_NOISE_SHOWN);
	assert_string_equal(na_verdict_text(&e, buf, sizeof(buf)), "follows IOPS");
	/* --min-change 35%: the +30% no longer clears the band. */
	e = na_effect_of(a, 3, b, 3, 0.35, true);
	assert_int_equal(e.verdict, NA_NOISE_WITHIN);
	e = na_effect_of(a, 3, b, 3, 0.20, true);
	assert_int_equal(e.verdict, NA_NOISE_BEYOND);
}

/* From 4 runs a side the rank test checks the t test; when they disagree
 * one run carries the call either way. */
static void test_depends_on_one_run(void **state)
{
	(void)state;
	char buf[160];
	const double a[] = {100, 101, 102, 103};
	/* Every B above every A (ranks: p = 2/70), but one B far off swamps the t test. */
	na_effect e = na_effect_of(a, 4, (const double[]){104, 105, 106, 400}, 4, 0, true);
	assert_true(close_to(e.mw_p, 2.0 / 70) && e.p > 0.3 && e.fragile);
	assert_int_equal(e.verdict, NA_NOISE_WITHIN);
	assert_non_null(strstr(na_verdict_text(&e, buf, sizeof(buf)), "; depends on one run"));
	assert_true(e.hl_ratio > 1.039 && e.hl_ratio < 1.041);
	/* The t test calls it, but one B inside A's range leaves ranks at p = 4/70. */
	e = na_effect_of(a, 4, (const double[]){102.5, 110, 111, 112}, 4, 0, true);
	assert_true(close_to(e.mw_p, 4.0 / 70) && e.p < 0.02 && e.fragile);
	assert_string_equal(na_verdict_text(&e, buf, sizeof(buf)), "beyond noise; depends on one run");
	/* Both agree: no note. */
	e = na_effect_of(a, 4, (const double[]){110, 111, 112, 113}, 4, 0, true);
	assert_true(!e.fragile && e.verdict == NA_NOISE_BEYOND);
	/* 3 runs a side: no rank test. */
	e = na_effect_of(a, 3, (const double[]){110, 111, 112}, 3, 0, true);
	assert_true(isnan(e.mw_p) && isnan(e.hl_ratio) && !e.fragile);
}

static void test_mde(void **state)
{
	(void)state;
	/* (t.975,8 + t.8,8) * 0.1 * sqrt(2/5) = 0.2020: about ±22%. */
	assert_true(fabs(na_mde(0.1, 5, 5, 0.05, 0) - (exp(0.20206) - 1)) < 1e-4);
	char buf[160];
	na_effect e = {.verdict = NA_NOISE_WITHIN, .na = 5, .nb = 5, .mde = 0.224};
	assert_string_equal(na_verdict_text(&e, buf, sizeof(buf)),
	                    "within noise: could only see changes of about ±22% with 5 runs a side");
	e.nb = 4;
	assert_string_equal(na_verdict_text(&e, buf, sizeof(buf)),
	                    "within noise: could only see changes of about ±22% with 5 and 4 runs");
	/* Runs needed: the smallest n whose MDE reaches the change. */
	size_t n = na_runs_needed(0.1, 0.10, 0.05, 0);
	assert_true(na_mde(0.1, n, n, 0.05, 0) <= 0.10 && na_mde(0.1, n - 1, n - 1, 0.05, 0) > 0.10);
	assert_int_equal(n, 19);
	assert_int_equal(na_runs_needed(0.1, 0.05, 0.05, 0.05), 0);  /* inside the band: never */
}

static void test_percent(void **state)
{
	(void)state;
	double v;
	assert_true(na_percent_parse("10%", &v) && v == 10);
	assert_true(na_percent_parse("2.5", &v) && v == 2.5);
	assert_false(na_percent_parse("10%%", &v));
	assert_false(na_percent_parse("-1%", &v));
	assert_false(na_percent_parse("nan", &v));
	assert_false(na_percent_parse(" 5", &v));
	assert_false(na_percent_parse("0x10", &v));
	assert_false(na_percent_parse("1e3%", &v));
	assert_false(na_percent_parse("", &v));
}

static void test_change_text(void **state)
{
	(void)state;
	char buf[64];
	assert_string_equal(na_change_text(12.34, false, buf, sizeof(buf)), "+12.3% better");
	assert_string_equal(na_change_text(-8.12, false, buf, sizeof(buf)), "-8.1% worse");
	/* Latency: a fall is an improvement, a rise a regression. */
	assert_string_equal(na_change_text(-22.5, true, buf, sizeof(buf)), "-22.5% better");
	assert_string_equal(na_change_text(42.9, true, buf, sizeof(buf)), "+42.9% worse");
	assert_string_equal(na_change_text(0.01, true, buf, sizeof(buf)), "+0.0%");
	assert_string_equal(na_change_text(NAN, false, buf, sizeof(buf)), "n/a");
}

static void test_number_text(void **state)
{
	(void)state;
	char buf[64];
	assert_string_equal(na_number_text(17700, buf, sizeof(buf)), "17,700");
	assert_string_equal(na_number_text(1234567.4, buf, sizeof(buf)), "1,234,567");
	assert_string_equal(na_number_text(999.6, buf, sizeof(buf)), "1,000");
	assert_string_equal(na_number_text(100, buf, sizeof(buf)), "100");
	assert_string_equal(na_number_text(72.46, buf, sizeof(buf)), "72.5");
	assert_string_equal(na_number_text(7.2, buf, sizeof(buf)), "7.20");
	na_spread s = SPREAD(17700, 12100, 15000);
	assert_string_equal(na_spread_text(&s, 1, "", buf, sizeof(buf)), "15,000 (12,100-17,700, n=3)");
	s = SPREAD(7200);
	assert_string_equal(na_spread_text(&s, 1e-3, " ms", buf, sizeof(buf)), "7.20 ms (n=1)");
	char tiny[8];
	na_number_text(1234567, tiny, sizeof(tiny));  /* truncated, still terminated */
	assert_true(strlen(tiny) < sizeof(tiny));
}

static void test_wrapped(void **state)
{
	(void)state;
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	na_print_wrapped(out, "aaa bbb ccc dddddddddd e", 8);
	fclose(out);
	assert_string_equal(text, "aaa bbb\nccc\ndddddddddd\ne\n");
	free(text);
}

/* ---- the simulation ----
 * Groups of runs whose truth is known, through the same path compare takes
 * (na_cmp_group_add, na_cmp_run with Holm's correction).  Each run's IOPS
 * is lognormal with spread sigma (sd of the log); MB/s is IOPS times the
 * block size, average latency queue depth over IOPS, and p99 three times
 * the average with noise of its own (half the spread).  Seeded: every run
 * of the test sees the same numbers. */

static uint64_t rng_state;

static double uniform(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * 3.14159265358979323846 * uniform());
}

static void dir_of(na_dir_stats *d, double iops, double sigma)
{
	*d = (na_dir_stats){.present = true, .iops = iops, .bw_bytes = iops * 4096,
	                    .lat_mean_us = 32e6 / iops,
	                    .p99_us = 96e6 / iops * exp(sigma / 2 * gauss())};
}

static const char *const sim_profiles[] = {"randrw-4k-70-30", "randwrite-4k-qd32"};

/* n runs of each profile from first to first + n_profiles - 1 (both
 * directions for the mixed one, 0), IOPS times ratio. */
static void sim_group(na_cmp_group *g, size_t n, size_t first, size_t n_profiles, double sigma,
                      double ratio)
{
	for (size_t i = 0; i < n; i++)
		for (size_t p = first; p < first + n_profiles; p++) {
			na_result r = {.id = (int64_t)(g->n + 1), .status = "ok", .profile = sim_profiles[p]};
			if (p == 0)
				dir_of(&r.read, 20000 * ratio * exp(sigma * gauss()), sigma);
			dir_of(&r.write, 9000 * ratio * exp(sigma * gauss()), sigma);
			assert_int_equal(na_cmp_group_add(g, &r), VS_OK);
		}
}

typedef struct sim_rates {
	size_t lines, called, comparisons, any;
	size_t iops_lines, right_way;  /* the IOPS lines, those called the right way round */
} sim_rates;

/* trials comparisons of nA against nB runs of the profiles sim_group makes;
 * B's IOPS are ratio times A's. */
static sim_rates simulate(size_t trials, size_t na, size_t nb, size_t first, size_t n_profiles,
                          double sigma, double ratio, bool swap, uint64_t seed)
{
	static const int by_profile[] = {NA_FIELD_profile};
	sim_rates s = {0};
	rng_state = seed;
	for (size_t t = 0; t < trials; t++) {
		na_cmp_group a = {0}, b = {0};
		sim_group(&a, na, first, n_profiles, sigma, 1);
		sim_group(&b, nb, first, n_profiles, sigma, ratio);
		na_cmp c;
		assert_int_equal(swap ? na_cmp_run(&b, &a, by_profile, 1, 0, &c)
		                      : na_cmp_run(&a, &b, by_profile, 1, 0, &c), VS_OK);
		bool any = false;
		for (size_t i = 0; i < c.n; i++) {
			const na_effect *e = &c.lines[i].eff;
			if (!e->judged)
				continue;
			bool called = e->verdict == NA_NOISE_BEYOND;
			s.lines++;
			s.called += called;
			any |= called;
			/* "Right way": B above A (or, swapped, A's rise seen as B's drop). */
			s.iops_lines += c.lines[i].metric == NA_M_IOPS;
			if (c.lines[i].metric == NA_M_IOPS && called && (e->ratio > 1) != swap)
				s.right_way++;
		}
		s.comparisons++;
		s.any += any;
		na_cmp_free(&c);
		na_cmp_group_free(&a);
		na_cmp_group_free(&b);
	}
	return s;
}

enum { TRIALS = 2000 };

/* Identical groups, 3v3 and 5v5, 10% and 30% spread, 2 profiles (one mixed:
 * 3 directions, 6 verdict lines): at most 5% of lines and 10% of whole
 * comparisons call a change. */
static void test_sim_false_alarms(void **state)
{
	(void)state;
	const size_t runs[] = {3, 5};
	const double sigmas[] = {0.10, 0.30};
	for (size_t r = 0; r < 2; r++)
		for (size_t k = 0; k < 2; k++) {
			sim_rates s = simulate(TRIALS, runs[r], runs[r], 0, 2, sigmas[k], 1, false, 11 + r * 2 + k);
			double line = (double)s.called / (double)s.lines, whole = (double)s.any / (double)s.comparisons;
			print_message("false alarms %zu v %zu, spread %.0f%%: %.2f%% of %zu lines, %.2f%% of %zu "
			              "comparisons\n", runs[r], runs[r], sigmas[k] * 100, line * 100, s.lines,
			              whole * 100, s.comparisons);
			assert_true(line <= 0.05);
			assert_true(whole <= 0.10);
		}
}

/* The t test itself is calibrated: one verdict line alone (no correction)
 * calls a change in 5% of identical pairs, within three standard errors. */
static void test_sim_calibrated(void **state)
{
	(void)state;
	rng_state = 99;
	size_t called = 0, trials = 20000;
	for (size_t t = 0; t < trials; t++) {
		double a[3], b[3];
		for (int i = 0; i < 3; i++) {
			a[i] = 1000 * exp(0.3 * gauss());
			b[i] = 1000 * exp(0.3 * gauss());
		}
		na_effect e = na_effect_of(a, 3, b, 3, 0, true);
		called += e.verdict == NA_NOISE_BEYOND;
	}
	double rate = (double)called / (double)trials;
	print_message("one line alone, 3 v 3, 30%% spread: %.2f%%\n", rate * 100);
	assert_true(fabs(rate - 0.05) < 3 * sqrt(0.05 * 0.95 / (double)trials));
}

/* A true +30% at 5v5 with 10% spread, and +10% at 10v10 with 5%: the IOPS
 * line calls it, the right way round, at least 90% of the time, with A and
 * B either way round.  One write profile: its IOPS and p99 are judged
 * together.  With more verdict lines Holm asks more of each; the mixed
 * profile's 4 lines are printed for the record. */
static void test_sim_power(void **state)
{
	(void)state;
	const struct { size_t n; double sigma, ratio; } cases[] = {{5, 0.10, 1.30}, {10, 0.05, 1.10}};
	for (size_t k = 0; k < 2; k++)
		for (int swap = 0; swap < 2; swap++) {
			sim_rates s = simulate(TRIALS, cases[k].n, cases[k].n, 1, 1, cases[k].sigma,
			                       cases[k].ratio, swap, 7 + k);
			sim_rates mixed = simulate(TRIALS, cases[k].n, cases[k].n, 0, 1, cases[k].sigma,
			                           cases[k].ratio, swap, 7 + k);
			double power = (double)s.right_way / (double)s.iops_lines;
			print_message("power %+.0f%% at %zu v %zu, spread %.0f%%%s: %.2f%% (mixed profile, 4 "
			              "verdict lines: %.2f%%)\n", (cases[k].ratio - 1) * 100, cases[k].n,
			              cases[k].n, cases[k].sigma * 100, swap ? ", A and B swapped" : "",
			              power * 100, 100.0 * (double)mixed.right_way / (double)mixed.iops_lines);
			assert_true(power >= 0.90);
		}
}

/* Groups whose runs do not interleave are warned about every time; groups
 * that do, never.  Random start times, the truth checked by brute force. */
static void test_sim_time_order(void **state)
{
	(void)state;
	rng_state = 5;
	size_t warned = 0, separated = 0;
	for (size_t t = 0; t < 4000; t++) {
		na_cmp_group g[2] = {{0}, {0}};
		char when[12][32];
		size_t n[2] = {3 + (size_t)(uniform() * 3), 3 + (size_t)(uniform() * 3)};
		/* Half the trials all of one group first, half shuffled. */
		bool block = t % 2 == 0;
		const char *ta[6], *tb[6];
		for (size_t s = 0, k = 0; s < 2; s++)
			for (size_t i = 0; i < n[s]; i++, k++) {
				int minute = block ? (int)(s * 30 + i) : (int)(uniform() * 60);
				snprintf(when[k], sizeof(when[k]), "2026-01-01T10:%02d:00Z", minute);
				na_result r = {.id = (int64_t)k + 1, .status = "ok", .profile = "p",
				               .started_at = when[k]};
				assert_int_equal(na_cmp_group_add(&g[s], &r), VS_OK);
				(s ? tb : ta)[i] = when[k];
			}
		bool apart = true, apart_r = true;
		for (size_t i = 0; i < n[0]; i++)
			for (size_t j = 0; j < n[1]; j++) {
				apart &= strcmp(ta[i], tb[j]) < 0;
				apart_r &= strcmp(tb[j], ta[i]) < 0;
			}
		char *w = na_cmp_time_warning(&g[0], &g[1], "A", "B");
		assert_true((w != NULL) == (apart || apart_r));
		if (w)
			assert_non_null(strstr(w, "nfsagent run interleaves"));
		warned += w != NULL;
		separated += apart || apart_r;
		free(w);
		na_cmp_group_free(&g[0]);
		na_cmp_group_free(&g[1]);
	}
	print_message("time order: %zu of 4000 separated, %zu warned\n", separated, warned);
	assert_true(separated >= 2000 && warned == separated);
	/* An unknown start time: no claim either way. */
	const char *known[] = {"2026-01-01T10:00:00Z"}, *unknown[] = {NULL};
	assert_int_equal(na_time_order(known, 1, unknown, 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spread),          cmocka_unit_test(test_t_distribution),
		cmocka_unit_test(test_mann_whitney),    cmocka_unit_test(test_hodges_lehmann),
		cmocka_unit_test(test_holm),            cmocka_unit_test(test_effect),
		cmocka_unit_test(test_depends_on_one_run), cmocka_unit_test(test_mde),
		cmocka_unit_test(test_percent),         cmocka_unit_test(test_change_text),
		cmocka_unit_test(test_number_text),     cmocka_unit_test(test_wrapped),
		cmocka_unit_test(test_sim_false_alarms), cmocka_unit_test(test_sim_calibrated),
		cmocka_unit_test(test_sim_power),       cmocka_unit_test(test_sim_time_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
