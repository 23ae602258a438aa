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

#include "analysis/compare.h"
#include "analysis/stats.h"

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

/* Holm's step-down through na_verdicts: equal weights, then IOPS's. */
static void test_holm(void **state)
{
	(void)state;
	const double p[] = {0.01, 0.04, 0.03, 0.005};
	na_effect e[5];
	na_effect *lines[5];
	for (size_t i = 0; i < 5; i++) {
		e[i] = (na_effect){.judged = i < 4, .verdict = NA_NOISE_WITHIN, .p_band = i < 4 ? p[i] : 0,
		                   .weight = 1, .sd = NAN, .family = 1};
		lines[i] = &e[i];
	}
	e[4].verdict = NA_NOISE_SHOWN;  /* no verdict of its own: not in the family */
	na_verdicts(lines, 5);
	/* sorted 0.005 0.01 0.03 0.04 times 4 3 2 1, kept monotone */
	assert_true(close_to(e[3].p_holm, 0.02) && close_to(e[0].p_holm, 0.03));
	assert_true(close_to(e[2].p_holm, 0.06) && close_to(e[1].p_holm, 0.06));
	/* Called at 5/4% and 5/3%; the rest stopped at the third step, 5/2%. */
	assert_true(close_to(e[3].alpha, 0.0125) && close_to(e[0].alpha, 0.05 / 3));
	assert_true(close_to(e[2].alpha, 0.025) && close_to(e[1].alpha, 0.025));
	assert_true(e[0].family == 4 && e[4].family == 1 && e[4].alpha == 0);
	/* Weighted: an IOPS line (4) with a p99 line (1) holds IOPS to 4% first. */
	e[0] = (na_effect){.judged = true, .verdict = NA_NOISE_WITHIN, .p_band = 0.035,
	                   .weight = NA_IOPS_WEIGHT, .sd = NAN};
	e[1] = (na_effect){.judged = true, .verdict = NA_NOISE_WITHIN, .p_band = 0.02, .weight = 1,
	                   .sd = NAN};
	na_verdicts(lines, 2);
	assert_true(close_to(e[0].p_holm, 0.035 * 5 / 4) && close_to(e[0].alpha, 0.04));
	/* Then the p99 line gets the whole 5%. */
	assert_true(close_to(e[1].p_holm, 0.04375) && close_to(e[1].alpha, 0.05));
	const double big[] = {0.6, 0.9};
	for (size_t i = 0; i < 2; i++)
		e[i] = (na_effect){.judged = true, .verdict = NA_NOISE_WITHIN, .p_band = big[i], .weight = 1,
		                   .sd = NAN};
	na_verdicts(lines, 2);
	assert_true(e[0].p_holm == 1 && e[1].p_holm == 1);
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
	                    "within noise: could only see rises of about +60% or drops of about -37% "
	                    "with 3 runs a side");
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
/* The figures a table prints beside the change are the ones it is the
 * ratio of: the geometric means, not the medians (issue 36: "4,700 ->
 * 3,762" beside -7.7%). */
static void test_effect_centers(void **state)
{
	(void)state;
	const double a[] = {4700, 4000, 6000}, b[] = {3762, 3700, 6100};
	na_effect e = na_effect_of(a, 3, b, 3, 0, true);
	assert_true(close_to(e.center_a, cbrt(4700.0 * 4000 * 6000)));
	assert_true(close_to(e.center_b, cbrt(3762.0 * 3700 * 6100)));
	assert_true(close_to(e.center_b / e.center_a, e.ratio));
	assert_true(close_to(na_geomean(a, 3), e.center_a));
	/* the medians' ratio is another change altogether */
	assert_true(fabs(3762.0 / 4700 - e.ratio) > 0.05);
	/* a stall has no logarithm: left out of the center as of the test */
	const double stalled[] = {4700, 0, 4700};
	assert_true(close_to(na_geomean(stalled, 3), 4700));
	assert_true(isnan(na_geomean(stalled + 1, 1)));
}

/* A metric identical in every run has no interval to print: it is "the
 * same in every run", never "within noise, CI +0.0% to +0.0%". */
static void test_same_in_every_run(void **state)
{
	(void)state;
	char buf[256];
	const double v[] = {0.3, 0.3, 0.3, 0.3}, w[] = {0.6, 0.6, 0.6};
	na_effect e = na_effect_of(v, 4, v, 3, 0, true);
	assert_true(e.same);
	assert_true(e.ratio == 1);
	assert_string_equal(na_effect_text(&e, false, buf, sizeof(buf)), "+0.0%");
	assert_string_equal(na_verdict_text(&e, buf, sizeof(buf)), "the same in every run");
	/* each side constant, the two apart: a change, still no zero-wide interval */
	e = na_effect_of(v, 4, w, 3, 0, true);
	assert_true(e.same);
	assert_string_equal(na_effect_text(&e, false, buf, sizeof(buf)), "+100.0% better");
	assert_string_equal(na_verdict_text(&e, buf, sizeof(buf)), "beyond noise: each side the same in every run");
	/* one run that differs: an interval again */
	const double x[] = {0.3, 0.3, 0.31};
	e = na_effect_of(v, 4, x, 3, 0, true);
	assert_false(e.same);
	assert_non_null(strstr(na_effect_text(&e, false, buf, sizeof(buf)), "% CI "));
	/* too few runs: no interval either way, and not "the same" */
	e = na_effect_of(v, 2, v, 2, 0, true);
	assert_false(e.same);
	assert_string_equal(na_verdict_text(&e, buf, sizeof(buf)), "too few runs to tell");
}

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
	/* (t.975,8 + t.8,8) * 0.1 * sqrt(2/5) = 0.2020 in logs: a rise of e^0.202 - 1 =
	 * 22.4%, a drop of 1 - e^-0.202 = 18.3% (not the same percentage). */
	assert_true(fabs(na_mde(0.1, 5, 5, 0.05, 0) - (exp(0.20206) - 1)) < 1e-4);
	assert_true(fabs(na_mde_drop(0.1, 5, 5, 0.05, 0) - (1 - exp(-0.20206))) < 1e-4);
	/* Beyond a 5% band: the rise must reach 1.05 e^d, the drop 0.95 e^-d. */
	assert_true(fabs(na_mde(0.1, 5, 5, 0.05, 0.05) - (1.05 * exp(0.20206) - 1)) < 1e-4);
	assert_true(fabs(na_mde_drop(0.1, 5, 5, 0.05, 0.05) - (1 - 0.95 * exp(-0.20206))) < 1e-4);
	assert_true(isnan(na_mde_drop(0.1, 5, 5, 0.05, 1)));  /* no drop clears 100% */
	char buf[200];
	na_effect e = {.verdict = NA_NOISE_WITHIN, .na = 5, .nb = 5, .mde = 0.224, .mde_drop = 0.183};
	assert_string_equal(na_verdict_text(&e, buf, sizeof(buf)),
	                    "within noise: could only see rises of about +22% or drops of about -18% "
	                    "with 5 runs a side");
	e.nb = 4;
	e.mde_drop = NAN;
	assert_string_equal(na_verdict_text(&e, buf, sizeof(buf)),
	                    "within noise: could only see rises of about +22% with 5 and 4 runs");
	/* Runs needed: the smallest n whose MDE reaches the change either way. */
	size_t n = na_runs_needed(0.1, 0.10, 0.05, 0);
	assert_true(na_mde(0.1, n, n, 0.05, 0) <= 0.10 && na_mde(0.1, n - 1, n - 1, 0.05, 0) > 0.10);
	assert_true(na_mde_drop(0.1, n, n, 0.05, 0) <= 0.10);
	assert_int_equal(n, 19);
	assert_int_equal(na_runs_needed(0.1, 0.05, 0.05, 0.05), 0);  /* inside the band: never */
}

/* --min-change 5% means a change of at least 5% either way: a drop to 0.951
 * (-4.9%) stays inside, although |ln 0.951| > ln 1.05; -5.1% and +5.1% clear. */
static void test_band_edges(void **state)
{
	(void)state;
	const double a[] = {1000, 1000.1, 999.9};
	const struct { double b; na_noise v; } cases[] = {
		{951, NA_NOISE_WITHIN}, {949, NA_NOISE_BEYOND}, {1049, NA_NOISE_WITHIN}, {1051, NA_NOISE_BEYOND}};
	for (size_t i = 0; i < 4; i++) {
		const double b[] = {cases[i].b, cases[i].b + 0.1, cases[i].b - 0.1};
		na_effect e = na_effect_of(a, 3, b, 3, 0.05, true);
		assert_int_equal(e.verdict, cases[i].v);
		assert_true((e.verdict == NA_NOISE_BEYOND) == (e.lo > 1.05 || e.hi < 0.95));
	}
	/* 100% and more: no drop can clear it, a rise past it can. */
	na_effect e = na_effect_of(a, 3, (const double[]){1, 1.001, 0.999}, 3, 1.0, true);
	assert_int_equal(e.verdict, NA_NOISE_WITHIN);
	e = na_effect_of(a, 3, (const double[]){2100, 2100.1, 2099.9}, 3, 1.0, true);
	assert_int_equal(e.verdict, NA_NOISE_BEYOND);
}

/* A run at 0 (a stall) cannot enter a test on logs: it is counted and said. */
static void test_stalls(void **state)
{
	(void)state;
	char buf[200];
	const double a[] = {1000, 1010, 990, 1005}, b[] = {1000, 0, 995, 1008};
	na_effect e = na_effect_of(a, 4, b, 4, 0, true);
	assert_true(e.stalled_a == 0 && e.stalled_b == 1 && e.nb == 3);
	assert_int_equal(e.verdict, NA_NOISE_WITHIN);
	assert_non_null(strstr(na_verdict_text(&e, buf, sizeof(buf)),
	                       "; 1 run of B at 0 left out of the test"));
	/* Two stalls leave 2 runs: too few, and still said. */
	const double b2[] = {0, 0, 995, 1008};
	e = na_effect_of(b2, 4, a, 4, 0, true);
	assert_int_equal(e.verdict, NA_NOISE_TOO_FEW);
	assert_string_equal(na_verdict_text(&e, buf, sizeof(buf)),
	                    "too few runs to tell; 2 runs of A at 0 left out of the test");
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
	assert_string_equal(na_spread_text(&s, NAN, 1, "", buf, sizeof(buf)), "15,000 (12,100-17,700, n=3)");
	/* a comparison's center in the median's place, the spread kept */
	assert_string_equal(na_spread_text(&s, 14768.2, 1, "", buf, sizeof(buf)),
	                    "14,768 (12,100-17,700, n=3)");
	s = SPREAD(7200);
	assert_string_equal(na_spread_text(&s, NAN, 1e-3, " ms", buf, sizeof(buf)), "7.20 ms (n=1)");
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
	na_print_wrapped(out, "aaa bbb ccc dddddddddd e", 8, 0, 0);
	fclose(out);
	assert_string_equal(text, "aaa bbb\nccc\ndddddddddd\ne\n");
	free(text);
	/* a note under a table row: indented 2, its continuations 4 */
	out = open_memstream(&text, &size);
	na_print_wrapped(out, "aaa bbb ccc dd", 10, 2, 4);
	fclose(out);
	assert_string_equal(text, "  aaa bbb\n    ccc dd\n");
	free(text);
}

/* ---- the simulation ----
 * Groups of runs whose truth is known, through the same path compare takes
 * (na_cmp_group_add, na_cmp_run with Holm's correction per profile).  Each
 * run's IOPS is lognormal with spread sigma (sd of the log); MB/s is IOPS
 * times the block size, average latency queue depth over IOPS.  p99 has
 * noise of its own: its log moves with its direction's IOPS only by the
 * model's p99_corr (a tail is not a function of the mean), with the same
 * spread sigma, and it follows a true change (latency = depth / IOPS).  A
 * mixed job's read and write IOPS move together by rw_corr (fio issues its
 * I/Os in the job's mix, so in practice the two are tied; compare judges
 * only the read IOPS of a mixed job).  Seeded: every run of the test sees
 * the same numbers. */

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

/* How the lines of one run move together. */
typedef struct sim_model {
	const char *name;
	double rw_corr, p99_corr;
} sim_model;

/* Independent lines: the hardest case for the false-alarm goal. */
static const sim_model independent = {"independent lines", 0, 0};
/* A mixed job's directions tied by its mix, p99 half following IOPS. */
static const sim_model realistic = {"mix-tied directions, p99 0.5", 0.99, 0.5};

/* z mixed with a fresh normal at correlation rho. */
static double correlated(double z, double rho)
{
	return rho * z + sqrt(1 - rho * rho) * gauss();
}

/* One direction: IOPS typical * ratio with noise z (standard normal). */
static void dir_of(na_dir_stats *d, const sim_model *m, double typical, double ratio,
                   double sigma, double z)
{
	double iops = typical * ratio * exp(sigma * z);
	*d = (na_dir_stats){.present = true, .iops = iops, .bw_bytes = iops * 4096,
	                    .lat_mean_us = 32e6 / iops,
	                    .p99_us = 96e6 / (typical * ratio) * exp(-sigma * correlated(z, m->p99_corr))};
}

static const char *const sim_profiles[] = {"randrw-4k-70-30", "randwrite-4k-qd32"};

/* One experiment: nA against nB runs of the profiles first .. first +
 * n_profiles - 1 (0 is mixed, both directions: 3 verdict lines, read IOPS
 * and both p99s; 1 is write-only: 2), B's IOPS ratio times A's, --min-change
 * band. */
typedef struct sim_case {
	size_t na, nb, first, n_profiles;
	double sigma, ratio, band;
	bool swap;
	const sim_model *model;
	uint64_t seed;
} sim_case;

static void sim_group(na_cmp_group *g, size_t n, const sim_case *k, double ratio)
{
	for (size_t i = 0; i < n; i++)
		for (size_t p = k->first; p < k->first + k->n_profiles; p++) {
			na_result r = {.id = (int64_t)(g->n + 1), .status = "ok", .profile = sim_profiles[p]};
			double z = gauss();
			if (p == 0)
				dir_of(&r.read, k->model, 20000, ratio, k->sigma, z);
			dir_of(&r.write, k->model, 9000, ratio, k->sigma, p == 0 ? correlated(z, k->model->rw_corr) : z);
			assert_int_equal(na_cmp_group_add(g, &r), VS_OK);
		}
}

typedef struct sim_rates {
	size_t lines, called, comparisons, any;
	size_t iops_lines, right_way;  /* the IOPS lines, those called the right way round */
	size_t family_min, family_max; /* the Holm families seen */
	size_t contradictions;         /* a verdict its printed interval does not bear out */
} sim_rates;

/* Whether the interval, at the level printed, lies wholly past the band. */
static bool clears_band(const na_effect *e)
{
	return e->lo > 1 + e->band || e->hi < 1 - e->band;
}

static sim_rates simulate(size_t trials, const sim_case *k)
{
	static const int by_profile[] = {NA_FIELD_profile};
	sim_rates s = {.family_min = SIZE_MAX};
	rng_state = k->seed;
	for (size_t t = 0; t < trials; t++) {
		na_cmp_group a = {0}, b = {0};
		sim_group(&a, k->na, k, 1);
		sim_group(&b, k->nb, k, k->ratio);
		na_cmp c;
		assert_int_equal(k->swap ? na_cmp_run(&b, &a, by_profile, 1, k->band, &c)
		                         : na_cmp_run(&a, &b, by_profile, 1, k->band, &c), VS_OK);
		bool any = false;
		for (size_t i = 0; i < c.n; i++) {
			const na_effect *e = &c.lines[i].eff;
			if (!e->judged)
				continue;
			bool called = e->verdict == NA_NOISE_BEYOND;
			s.lines++;
			s.called += called;
			any |= called;
			s.family_min = e->family < s.family_min ? e->family : s.family_min;
			s.family_max = e->family > s.family_max ? e->family : s.family_max;
			s.contradictions += called != clears_band(e);
			/* "Right way": B above A (or, swapped, A's rise seen as B's drop). */
			s.iops_lines += c.lines[i].metric == NA_M_IOPS;
			if (c.lines[i].metric == NA_M_IOPS && called && (e->ratio > 1) != k->swap)
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

enum { TRIALS = 4000, POWER_TRIALS = 2000 };

/* Identical groups, 3v3 and 5v5, 10% and 30% spread, a whole comparison of
 * 2 profiles (the mixed one's 3 verdict lines and the write-only one's 2,
 * each profile a Holm family at 5%): at most 5% of lines and 10% of whole
 * comparisons call a change.  Two families of 5% cannot exceed 10% together
 * whatever their dependence (with independent families 1 - 0.95^2 =
 * 9.75%), so the simulation's estimate, which sits at that ceiling, is held
 * to 10% within three standard errors; the lines (about 2%) to 5% outright.
 * Under independent lines (the hardest case) and realistic ones.  And every
 * verdict agrees with its printed interval. */
static void test_sim_false_alarms(void **state)
{
	(void)state;
	const size_t runs[] = {3, 5};
	const double sigmas[] = {0.10, 0.30};
	const sim_model *models[] = {&independent, &realistic};
	for (size_t m = 0; m < 2; m++)
		for (size_t r = 0; r < 2; r++)
			for (size_t k = 0; k < 2; k++) {
				sim_case c = {runs[r], runs[r], 0, 2, sigmas[k], 1, 0, false, models[m],
				              11 + m * 4 + r * 2 + k};
				sim_rates s = simulate(TRIALS, &c);
				double line = (double)s.called / (double)s.lines;
				double whole = (double)s.any / (double)s.comparisons;
				print_message("false alarms %zu v %zu, spread %.0f%%, %s, families of %zu and %zu "
				              "lines: %.2f%% of %zu lines, %.2f%% of %zu comparisons\n", runs[r],
				              runs[r], sigmas[k] * 100, models[m]->name, s.family_min,
				              s.family_max, line * 100, s.lines, whole * 100, s.comparisons);
				double tolerance = 3 * sqrt(0.1 * 0.9 / TRIALS);
				assert_true(s.family_min == 2 && s.family_max == 3);
				assert_true(line <= 0.05);
				assert_true(whole <= 0.10 + tolerance);
				assert_int_equal(s.contradictions, 0);
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

/* A true +30% at 5v5 with 10% spread, and +10% at 10v10 with 5%: each IOPS
 * line calls it, the right way round, at least 90% of the time, with A and
 * B either way round, at the real family sizes: a write-only profile (2
 * verdict lines), a read+write profile (3) and a comparison of both.  Under
 * both models; the verdicts always agree with their intervals. */
static void test_sim_power(void **state)
{
	(void)state;
	const struct { size_t n; double sigma, ratio; } cases[] = {{5, 0.10, 1.30}, {10, 0.05, 1.10}};
	const struct { size_t first, n_profiles, family; const char *name; } shapes[] = {
		{1, 1, 2, "write-only profile"}, {0, 1, 3, "read+write profile"},
		{0, 2, 3, "2-profile comparison"}};
	const sim_model *models[] = {&independent, &realistic};
	for (size_t k = 0; k < 2; k++)
		for (size_t f = 0; f < 3; f++)
			for (size_t m = 0; m < 2; m++)
				for (int swap = 0; swap < 2; swap++) {
					sim_case c = {cases[k].n, cases[k].n, shapes[f].first, shapes[f].n_profiles,
					              cases[k].sigma, cases[k].ratio, 0, swap, models[m], 7 + k};
					sim_rates s = simulate(POWER_TRIALS, &c);
					double power = (double)s.right_way / (double)s.iops_lines;
					print_message("power %+.0f%% at %zu v %zu, spread %.0f%%, %s (Holm families "
					              "up to %zu lines), %s%s: %.2f%%\n", (cases[k].ratio - 1) * 100,
					              cases[k].n, cases[k].n, cases[k].sigma * 100, shapes[f].name,
					              s.family_max, models[m]->name, swap ? ", A and B swapped" : "",
					              power * 100);
					assert_int_equal(s.family_max, shapes[f].family);
					assert_true(power >= 0.90);
					assert_int_equal(s.contradictions, 0);
				}
}

/* With a --min-change band too, no line says "within noise" while its
 * interval clears the band, nor the reverse. */
static void test_sim_interval_agrees(void **state)
{
	(void)state;
	const double bands[] = {0, 0.05, 0.20};
	const double ratios[] = {1, 1.08, 0.9, 1.3};
	for (size_t b = 0; b < 3; b++)
		for (size_t r = 0; r < 4; r++) {
			sim_case c = {5, 4, 0, 2, 0.10, ratios[r], bands[b], r % 2, &independent, 40 + b * 4 + r};
			sim_rates s = simulate(500, &c);
			assert_int_equal(s.contradictions, 0);
			assert_true(s.lines > 0);
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
		cmocka_unit_test(test_band_edges),      cmocka_unit_test(test_stalls),
		cmocka_unit_test(test_percent),         cmocka_unit_test(test_change_text),
		cmocka_unit_test(test_number_text),     cmocka_unit_test(test_wrapped),
		cmocka_unit_test(test_effect_centers),  cmocka_unit_test(test_same_in_every_run),
		cmocka_unit_test(test_sim_false_alarms), cmocka_unit_test(test_sim_calibrated),
		cmocka_unit_test(test_sim_power),       cmocka_unit_test(test_sim_interval_agrees),
		cmocka_unit_test(test_sim_time_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
