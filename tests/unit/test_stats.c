/* The statistics behind compare and regress: spreads, changes, the noise
 * rule on hand-made value sets, and the text they print. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stats.h"

#define SPREAD(...) spread((const double[]){__VA_ARGS__}, sizeof((const double[]){__VA_ARGS__}) / sizeof(double))

/* Equal within 1e-9 (no libm needed). */
static bool close_to(double x, double y)
{
	return x - y < 1e-9 && y - x < 1e-9;
}

static na_spread spread(const double *v, size_t n)
{
	return na_spread_of(v, n);
}

static na_noise noise(na_spread a, na_spread b)
{
	return na_noise_of(&a, &b);
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
	assert_true(close_to(na_rel_spread(&(na_spread){3, 100, 90, 130}), 0.4));
	assert_true(isinf(na_rel_spread(&(na_spread){3, 0, 0, 1})));
}

/* IOPS-like and latency-like changes have the same sign rule: (B - A) / A. */
static void test_change(void **state)
{
	(void)state;
	na_spread a = SPREAD(10000), b = SPREAD(13000);
	assert_true(close_to(na_change_pct(&a, &b), 30));
	assert_true(na_change_pct(&b, &a) < -23.07 && na_change_pct(&b, &a) > -23.08);
	na_spread zero = SPREAD(0, 0, 0);
	assert_true(isnan(na_change_pct(&zero, &b)));
	assert_true(isnan(na_change_pct(&(na_spread){0, -1, -1, -1}, &b)));
}

static void test_too_few(void **state)
{
	(void)state;
	/* However far apart, one or two runs claim nothing. */
	assert_int_equal(noise(SPREAD(17700), SPREAD(37400)), NA_NOISE_TOO_FEW);
	assert_int_equal(noise(SPREAD(100, 101), SPREAD(500, 501, 502)), NA_NOISE_TOO_FEW);
	assert_int_equal(noise(SPREAD(500, 501, 502), SPREAD(100, 101)), NA_NOISE_TOO_FEW);
	assert_int_equal(noise(SPREAD(100, -1, 101), SPREAD(500, 501, 502)), NA_NOISE_TOO_FEW);
	assert_string_equal(na_noise_name(NA_NOISE_TOO_FEW), "too few runs to tell");
}

static void test_overlap(void **state)
{
	(void)state;
	/* The seeds' 46%: 17,700 and 12,100 in one group. */
	na_spread a = SPREAD(17700, 12100, 15000), b = SPREAD(16000, 14000, 13000);
	assert_true(na_ranges_overlap(&a, &b));
	assert_int_equal(noise(a, b), NA_NOISE_WITHIN);
	assert_int_equal(noise(b, a), NA_NOISE_WITHIN);
	/* Touching ranges share a value: not separated. */
	assert_int_equal(noise(SPREAD(100, 105, 110), SPREAD(110, 130, 140)), NA_NOISE_WITHIN);
	assert_string_equal(na_noise_name(NA_NOISE_WITHIN), "within noise");
}

static void test_beyond(void **state)
{
	(void)state;
	na_spread a = SPREAD(10000, 10200, 9900), b = SPREAD(13000, 13300, 12900);
	assert_false(na_ranges_overlap(&a, &b));
	assert_int_equal(noise(a, b), NA_NOISE_BEYOND);
	assert_int_equal(noise(b, a), NA_NOISE_BEYOND);  /* a drop as much as a rise */
	/* Latencies: lower is better, but noise does not care which way. */
	assert_int_equal(noise(SPREAD(3.8, 3.9, 3.7), SPREAD(2.9, 3.0, 2.8)), NA_NOISE_BEYOND);
	assert_string_equal(na_noise_name(NA_NOISE_BEYOND), "beyond noise");
}

/* Separated ranges are not enough when the change is smaller than the
 * groups' own spread: A spreads 40% around its median, B is 35% higher. */
static void test_spread_wins(void **state)
{
	(void)state;
	na_spread a = SPREAD(90, 100, 130), b = SPREAD(131, 135, 140);
	assert_false(na_ranges_overlap(&a, &b));
	assert_int_equal(noise(a, b), NA_NOISE_WITHIN);
	/* The same A against a B 45% higher: beyond. */
	assert_int_equal(noise(a, SPREAD(141, 145, 150)), NA_NOISE_BEYOND);
	/* The larger of the two spreads counts: here B's. */
	assert_int_equal(noise(SPREAD(100, 100, 100), SPREAD(101, 103, 150)), NA_NOISE_WITHIN);
	/* No median to measure against: nothing claimed. */
	assert_int_equal(noise(SPREAD(0, 0, 0), SPREAD(5, 6, 7)), NA_NOISE_WITHIN);
}

static void test_mann_whitney(void **state)
{
	(void)state;
	assert_true(close_to(na_mann_whitney_extreme_p(3, 3), 0.1));
	assert_true(close_to(na_mann_whitney_extreme_p(3, 4), 2.0 / 35));
	assert_true(close_to(na_mann_whitney_extreme_p(4, 4), 2.0 / 70));
	assert_true(close_to(na_mann_whitney_extreme_p(5, 5), 2.0 / 252));
	assert_true(na_mann_whitney_extreme_p(1, 1) == 1);
	assert_true(na_mann_whitney_extreme_p(0, 3) == 1);
	assert_non_null(strstr(na_noise_method, "p = 0.1 two-sided"));
	assert_non_null(strstr(na_noise_method, "too few runs to tell"));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spread),       cmocka_unit_test(test_change),
		cmocka_unit_test(test_too_few),      cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_beyond),       cmocka_unit_test(test_spread_wins),
		cmocka_unit_test(test_mann_whitney), cmocka_unit_test(test_change_text),
		cmocka_unit_test(test_number_text),  cmocka_unit_test(test_wrapped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
