/* Ceilings under a comparison: a side at its host's recorded link (the
 * network), and writes of several block sizes at the log device's one
 * rate (the SLOG). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "analysis/compare.h"

static const int by_profile[] = {NA_FIELD_profile};

static void both_sides_at_the_link(void **state)
{
	(void)state;
	na_net_side a = {"A", "DC0_H0", "10000", "vmnic1", 1.13e9}, b = a;
	b.name = "B";
	char line[600] = "";
	assert_int_equal(na_cmp_network_bound(&a, &b, line, sizeof(line)), NA_NET_A | NA_NET_B);
	assert_string_equal(line, "network-bound: both sides at 1.13 GB/s through DC0_H0's 10 Gb/s link "
	                          "(vmnic1): a change between them is not a storage change");
	b.bytes_per_s = 1.2e9;
	assert_int_equal(na_cmp_network_bound(&a, &b, line, sizeof(line)), NA_NET_A | NA_NET_B);
	assert_string_equal(line, "network-bound: A at 1.13 GB/s through DC0_H0's 10 Gb/s link (vmnic1), "
	                          "B at 1.20 GB/s through DC0_H0's 10 Gb/s link (vmnic1): a change "
	                          "between them is not a storage change");
}

static void one_side_or_none(void **state)
{
	(void)state;
	na_net_side a = {"A", "DC0_H0", "10000", "vmnic1", 0.6e9}, b = {"B", "DC0_H1", "100", "vmnic0", 11.5e6};
	char line[600] = "untouched";
	assert_int_equal(na_cmp_network_bound(&a, &b, line, sizeof(line)), NA_NET_B);
	assert_string_equal(line, "network-bound: B only, at 12 MB/s through DC0_H1's 100 Mb/s link "
	                          "(vmnic0): B's figure is its link's, not its storage's");
	b.bytes_per_s = 11e6;  /* 88% of 100 Mb/s */
	snprintf(line, sizeof(line), "untouched");
	assert_int_equal(na_cmp_network_bound(&a, &b, line, sizeof(line)), 0);
	assert_string_equal(line, "untouched");
	/* a link not recorded, or not a number, is never a ceiling */
	a.bytes_per_s = 5e9;
	a.speed_mbit = NULL;
	assert_int_equal(na_cmp_network_bound(&a, &b, line, sizeof(line)), 0);
	a.speed_mbit = "10G";
	assert_int_equal(na_cmp_network_bound(&a, &b, line, sizeof(line)), 0);
}

/* A read-only result of profile through host's link at bytes/s. */
static void add(na_cmp_group *g, const char *profile, const char *host, const char *mbit, double bps)
{
	static int64_t id;
	na_result r = {.id = ++id, .status = "ok", .host = host, .profile = profile,
	               .link_speed_mbit = mbit, .link_nic = "vmnic1"};
	r.read = (na_dir_stats){.present = true, .iops = bps / 131072, .bw_bytes = bps,
	                        .lat_mean_us = 900, .p99_us = 2000};
	assert_int_equal(na_cmp_group_add(g, &r), VS_OK);
}

/* compare's lines: each side's median MB/s against its first row's link. */
static void hints_of_a_comparison(void **state)
{
	(void)state;
	na_cmp_group a = {0}, b = {0};
	for (int i = 0; i < 3; i++) {
		add(&a, "seqread-128k", "DC0_H0", "10000", 1.12e9 + i * 1e7);
		add(&b, "seqread-128k", "DC0_H0", "10000", 1.13e9);
		add(&a, "randread-4k", "DC0_H0", "10000", 0.3e9);
		add(&b, "randread-4k", "DC0_H0", "10000", 1.2e9);
	}
	na_cmp c;
	assert_int_equal(na_cmp_run(&a, &b, by_profile, 1, 0, &c), VS_OK);
	na_cmp_hint *h = NULL;
	size_t n = 0;
	assert_int_equal(na_cmp_network_hints(&c, &b, by_profile, 1, "A", "B", &h, &n), VS_OK);
	assert_int_equal(n, 2);
	assert_string_equal(h[0].line->key->field[NA_FIELD_profile], "seqread-128k");
	assert_int_equal(h[0].sides, NA_NET_A | NA_NET_B);
	assert_int_equal(h[0].line->dir, 0);
	assert_string_equal(h[0].text, "network-bound: both sides at 1.13 GB/s through DC0_H0's 10 Gb/s "
	                               "link (vmnic1): a change between them is not a storage change");
	assert_string_equal(h[1].line->key->field[NA_FIELD_profile], "randread-4k");
	assert_int_equal(h[1].sides, NA_NET_B);
	na_cmp_hints_free(h, n);
	na_cmp_free(&c);
	na_cmp_group_free(&a);
	na_cmp_group_free(&b);
}

static void slog_rate_alike_across_block_sizes(void **state)
{
	(void)state;
	na_slog_profile p[] = {
		{"randwrite-4k", 153, 153, 4096},
		{"seqwrite-1m", 920, 929, 1048576},
		{"seqwrite-128k", 940, 931, 131072},
	};
	char line[600] = "";
	assert_true(na_slog_bound(p, 3, "A", line, sizeof(line)));
	assert_string_equal(line, "SLOG-bound: the log device wrote ~930 MB/s in each of seqwrite-1m, "
	                          "seqwrite-128k (A): the SLOG is the ceiling for these writes");
	/* rates apart by more than 10% */
	p[2].log_mbps = 600;
	assert_false(na_slog_bound(p, 3, "A", line, sizeof(line)));
	/* one block size twice is no ceiling */
	p[2] = (na_slog_profile){"seqwrite-1m-qd32", 925, 930, 1048576};
	assert_false(na_slog_bound(p, 3, "A", line, sizeof(line)));
	/* the log device carried little of the writes (logbias=throughput) */
	p[2] = (na_slog_profile){"seqwrite-128k", 100, 931, 131072};
	p[1].log_mbps = 110;
	assert_false(na_slog_bound(p, 3, "A", line, sizeof(line)));
}

/* A write-only result with its log device's rate (-1: no NAS side). */
static void add_write(na_cmp_group *g, const char *profile, double bs, double mbps, double log)
{
	na_result r = {.status = "ok", .profile = profile};
	r.write = (na_dir_stats){.present = true, .iops = mbps * 1e6 / bs, .bw_bytes = mbps * 1e6};
	assert_int_equal(na_cmp_group_add(g, &r), VS_OK);
	g->rows[g->n - 1].layer[NA_L_LOG_WRITE] = log;
}

static void slog_hint_of_a_group(void **state)
{
	(void)state;
	na_cmp_group g = {0};
	char line[600] = "";
	add_write(&g, "seqwrite-1m", 1048576, 929, 921);
	add_write(&g, "seqwrite-1m", 1048576, 931, 925);
	add_write(&g, "seqwrite-1m", 1048576, 925, 500);  /* the median is the log's 921 */
	add_write(&g, "seqwrite-128k", 131072, 900, 905);
	add_write(&g, "randwrite-4k", 4096, 153, 160);
	assert_true(na_cmp_slog_hint(&g, "slog=on", line, sizeof(line)));
	assert_string_equal(line, "SLOG-bound: the log device wrote ~913 MB/s in each of seqwrite-1m, "
	                          "seqwrite-128k (slog=on): the SLOG is the ceiling for these writes");
	g.rows[3].layer[NA_L_LOG_WRITE] = 700;
	assert_false(na_cmp_slog_hint(&g, "slog=on", line, sizeof(line)));
	g.rows[3].layer[NA_L_LOG_WRITE] = -1;  /* not measured: one profile left */
	assert_false(na_cmp_slog_hint(&g, "slog=on", line, sizeof(line)));
	/* runs without a NAS side beside measured ones are left out, not -1s */
	g.rows[3].layer[NA_L_LOG_WRITE] = 905;
	g.rows[1].layer[NA_L_LOG_WRITE] = g.rows[2].layer[NA_L_LOG_WRITE] = -1;
	assert_true(na_cmp_slog_hint(&g, "slog=on", line, sizeof(line)));
	assert_non_null(strstr(line, "wrote ~913 MB/s in each of seqwrite-1m, seqwrite-128k"));
	na_cmp_group_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(both_sides_at_the_link),
		cmocka_unit_test(one_side_or_none),
		cmocka_unit_test(hints_of_a_comparison),
		cmocka_unit_test(slog_rate_alike_across_block_sizes),
		cmocka_unit_test(slog_hint_of_a_group),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
