/* What limited a run (analysis/limits.c): each verdict with the number
 * behind it, and "undetermined" naming what is missing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/limits.h"

/* The seeds' pool on its own: 900 MB/s on the SLOG (sequential sync
 * writes), 3.5 GB/s of data vdev writes, 1.1 GB/s of reads; this profile
 * (4K random writes) at 100,000 IOPS, 410 MB/s. */
static const na_limit_local local = {.profile = true, .bps = 410e6, .iops = 100000,
                                     .log_write_bps = 900e6, .data_write_bps = 3.5e9,
                                     .data_read_bps = 1.1e9};

/* A 4K random write at 20,000 IOPS through a 10 Gb/s link, the pool idle. */
static na_limit_in writes(void)
{
	return (na_limit_in){.writes = true, .write_bps = 82e6, .write_iops = 20000,
	                     .write_lat_us = 400, .under_floor = -1, .host = "DC0_H0",
	                     .nic = "vmnic1", .link_mbit = 10000, .nas = true, .arc_hit_ratio = -1,
	                     .log_write_bps = 82e6, .data_write_bps = 700e6, .log_wait_us = 95,
	                     .amplification = 9, .local = &local};
}

static void link_bound(void **state)
{
	(void)state;
	na_limit_in in = writes();
	in.link_mbit = 1000;
	in.write_bps = 120e6;  /* of 125 MB/s */
	na_limit v;
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_NETWORK);
	assert_float_equal(v.share, 0.96, 1e-9);
	assert_non_null(strstr(v.evidence, "120 MB/s from the guest, 96% of DC0_H0's 1000 Mb/s link (vmnic1)"));
	/* no NAS side needed */
	in.nas = false;
	in.local = NULL;
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_NETWORK);
}

static void slog_bound(void **state)
{
	(void)state;
	na_limit_in in = writes();
	in.write_bps = in.log_write_bps = 880e6;
	in.data_write_bps = 1.7e9;
	na_limit v;
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_LOG);
	assert_float_equal(v.share, 880.0 / 900, 1e-9);
	assert_non_null(strstr(v.evidence, "880 MB/s, 98% of its NAS-local sequential sync-write ceiling (900 MB/s)"));
	/* the log's wait: most of the guest's write latency */
	in = writes();
	in.log_wait_us = 300;
	na_limit_local no_profile = local;
	no_profile.profile = false;
	in.local = &no_profile;
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_LOG);
	assert_float_equal(v.share, 0.75, 1e-9);
	assert_non_null(strstr(v.evidence, "write wait (300 us) is 75% of the guest's write latency (400 us)"));
	/* but the pool on its own, through the same log, five times faster:
	 * not the log's wait */
	in.local = &local;
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_PATH);
	in.local = &no_profile;
	/* a wait longer than the guest's whole write is no evidence */
	in.log_wait_us = 600;
	na_limit_of(&in, &v);
	assert_int_not_equal(v.layer, NA_LIMIT_LOG);
}

static void pool_bound(void **state)
{
	(void)state;
	na_limit_in in = writes();
	in.data_write_bps = 3.4e9;
	in.amplification = 33;
	na_limit v;
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_POOL);
	assert_float_equal(v.share, 3.4 / 3.5, 1e-9);
	assert_non_null(strstr(v.evidence, "97% of their NAS-local ceiling, 33.0x the guest's writes"));
	/* and the log at its ceiling too: conflicting */
	in.log_write_bps = 890e6;
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_UNDETERMINED);
	assert_non_null(strstr(v.evidence, "conflicting"));
}

static void cache_served(void **state)
{
	(void)state;
	na_limit_in in = {.reads = true, .read_bps = 600e6, .under_floor = -1, .link_mbit = 10000,
	                  .nas = true, .arc_hit_ratio = 0.97, .fits_arc = true, .log_wait_us = -1,
	                  .amplification = -1};
	na_limit v;
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_CACHE);
	assert_float_equal(v.share, 0.97, 1e-9);
	assert_non_null(strstr(v.evidence, "the ARC served 97% of the demand reads"));
	/* without a NAS side: fio's bins */
	in.nas = false;
	in.under_floor = 0.34;
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_CACHE);
	assert_non_null(strstr(v.evidence, "34% of the reads took under 50 us"));
	/* a file larger than the ARC, reads slower than the floor */
	in.nas = true;
	in.fits_arc = false;
	in.under_floor = 0.01;
	na_limit_of(&in, &v);
	assert_int_not_equal(v.layer, NA_LIMIT_CACHE);
}

static void path_bound(void **state)
{
	(void)state;
	na_limit_in in = writes();  /* 82 MB/s of the pool's own 410: 20% */
	na_limit v;
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_PATH);
	assert_float_equal(v.share, 0.2, 1e-9);
	assert_non_null(strstr(v.evidence, "the guest reached 20% of the pool's own 410 MB/s (100000 IOPS)"));
	/* at 60% of it: no verdict */
	in.write_bps = 246e6;
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_UNDETERMINED);
	assert_non_null(strstr(v.evidence, "no layer at its ceiling: the guest at 60%"));
}

static void undetermined(void **state)
{
	(void)state;
	na_limit_in in = writes();
	na_limit v;
	in.nas = false;
	in.nas_why = NULL;
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_UNDETERMINED);
	assert_float_equal(v.share, -1, 0);
	assert_non_null(strstr(v.evidence, "no NAS side (bench --nas)"));
	in = writes();
	in.local = NULL;
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_UNDETERMINED);
	assert_non_null(strstr(v.evidence, "no NAS-local baseline of the dataset"));
	na_limit_local other = local;
	other.profile = false;
	in.local = &other;
	na_limit_of(&in, &v);
	assert_non_null(strstr(v.evidence, "no NAS-local baseline of this profile"));
	in = writes();
	in.link_mbit = 0;
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_UNDETERMINED);
	assert_non_null(strstr(v.evidence, "link speed is not recorded"));
	assert_string_equal(na_limit_name(NA_LIMIT_LOG), "log device");
}

/* From stored rows: the rates over the window, the baseline's ceilings. */
static void from_rows(void **state)
{
	(void)state;
	na_result g = {.host = "DC0_H0", .link_speed_mbit = "10000", .link_nic = "vmnic1",
	               .write = {.present = true, .bw_bytes = 82e6, .iops = 20000, .lat_mean_us = 400,
	                         .runtime_ms = 10000}};
	na_nas_run gn = {.pool_known = true, .window_s = 10, .log_write_bytes = 820000000,
	                 .data_write_bytes = 7000000000, .log_write_wait_ms = 0.095,
	                 .amplification = 9, .arc_hit_ratio = -1};
	na_result nl = {.write = {.present = true, .bw_bytes = 410e6, .iops = 100000, .runtime_ms = 10000}};
	na_nas_run nn = {.pool_known = true, .window_s = 10, .log_write_bytes = 4100000000,
	                 .data_write_bytes = 35000000000};
	na_result seq = {.write = {.present = true, .bw_bytes = 900e6, .iops = 900, .runtime_ms = 10000}};
	na_nas_run sn = {.pool_known = true, .window_s = 10, .log_write_bytes = 9000000000,
	                 .data_write_bytes = 18000000000};
	na_limit_local l = {0};
	na_limit_local_add(&l, &nl, &nn, true);
	na_limit_local_add(&l, &seq, &sn, false);
	assert_true(l.profile);
	assert_float_equal(l.bps, 410e6, 1);
	assert_float_equal(l.log_write_bps, 900e6, 1);
	assert_float_equal(l.data_write_bps, 3.5e9, 1);
	na_limit_in in;
	na_limit_in_of_row(&g, &gn, 0, -1, &in);
	in.local = &l;
	assert_float_equal(in.log_write_bps, 82e6, 1);
	assert_float_equal(in.log_wait_us, 95, 1e-6);
	na_limit v;
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_PATH);
	assert_float_equal(v.share, 0.2, 1e-9);
	na_limit_in_of_row(&g, NULL, 0, -1, &in);
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_UNDETERMINED);
	/* A row marked incomplete holds the whole sampling's totals, not fio's
	 * window's: no evidence of the run, nor a baseline's ceilings. */
	gn.incomplete = true;
	gn.why = "zpool iostat measured 0.2 s of fio's 1.0 s window";
	na_limit_in_of_row(&g, &gn, 0, -1, &in);
	in.local = &l;
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_UNDETERMINED);
	assert_string_equal(v.evidence, "the NAS's figures are incomplete (zpool iostat measured 0.2 s "
	                    "of fio's 1.0 s window): the pool, its log and the path cannot be told apart");
	gn.incomplete = false;
	nn.incomplete = sn.incomplete = true;
	l = (na_limit_local){0};
	na_limit_local_add(&l, &nl, &nn, true);
	na_limit_local_add(&l, &seq, &sn, false);
	assert_true(l.profile);
	assert_float_equal(l.log_write_bps, 0, 0);
	assert_float_equal(l.data_write_bps, 0, 0);
	na_limit_in_of_row(&g, &gn, 0, -1, &in);
	in.local = &l;
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_UNDETERMINED);  /* room unknown is not room */
	assert_non_null(strstr(v.evidence, "no NAS-local baseline measured the data vdevs' writes "
	                                   "over its fio's window: their ceiling is not known (the "
	                                   "guest at 20% of the pool's own 410 MB/s)"));
	/* a write baseline's ceilings say nothing of the reads' */
	na_limit_local writes_only = local;
	writes_only.data_read_bps = 0;
	na_limit_in rd = {.reads = true, .read_bps = 82e6, .read_iops = 20000, .under_floor = -1,
	                  .host = "DC0_H0", .nic = "vmnic1", .link_mbit = 10000, .nas = true,
	                  .arc_hit_ratio = 0.1, .log_write_bps = -1, .data_read_bps = 82e6,
	                  .log_wait_us = -1, .amplification = -1, .local = &writes_only};
	na_limit_of(&rd, &v);
	assert_int_equal(v.layer, NA_LIMIT_UNDETERMINED);
	assert_non_null(strstr(v.evidence, "the data vdevs' reads over its fio's window"));
	writes_only.data_read_bps = 1.1e9;
	na_limit_of(&rd, &v);
	assert_int_equal(v.layer, NA_LIMIT_PATH);
}

/* ---- a group run: its own figures, held by na_limit_of's rules ---- */

/* Three VMs: two on esx01's 1 Gb/s link (125 MB/s), one on esx02's 10 Gb/s. */
static const na_limit_member trio[] = {
	{.id = 11, .host = "esx01", .nic = "vmnic1", .nfs_client = "nconnect=4", .link_mbit = 1000,
	 .read_bps = 60e6},
	{.id = 12, .host = "esx02", .nic = "vmnic0", .link_mbit = 10000, .read_bps = 60e6},
	{.id = 13, .host = "esx01", .nic = "vmnic1", .nfs_client = "nconnect=4", .link_mbit = 1000,
	 .read_bps = 60e6},
};

/* 180 MB/s of reads over the common window. */
static na_group_row reads_group(void)
{
	return (na_group_row){.id = 7, .profile = "seqread-1m-qd8", .vms = 3,
	                      .read = {.present = true, .bw_bytes = 180e6, .iops = 180,
	                               .lat_mean_us = 5000, .runtime_ms = 5000}};
}

static void group_link_per_host(void **state)
{
	(void)state;
	na_group_row g = reads_group();
	na_limit_in in;
	na_limit_in_of_group(&g, NULL, 0, trio, 3, 0.01, &in);
	/* esx01's VMs moved two thirds of the window's bytes: 120 MB/s */
	assert_string_equal(in.host, "esx01");
	assert_int_equal(in.link_mbit, 1000);
	assert_int_equal(in.link_vms, 2);
	assert_int_equal(in.vms, 3);
	assert_float_equal(in.link_bps, 120e6, 1);
	assert_float_equal(in.read_bps, 180e6, 1);
	assert_string_equal(in.nfs_client, "nconnect=4");
	na_limit v;
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_NETWORK);
	assert_float_equal(v.share, 0.96, 1e-9);
	assert_string_equal(v.evidence, "120 MB/s from its 2 VMs on esx01, 96% of esx01's 1000 Mb/s link (vmnic1)");
	/* split by the VMs' whole-run rates: esx01's 90 + 30 of 180 MB/s */
	na_limit_member uneven[3];
	memcpy(uneven, trio, sizeof(uneven));
	uneven[0].read_bps = 90e6, uneven[1].read_bps = 60e6, uneven[2].read_bps = 30e6;
	g.read.bw_bytes = 150e6;
	na_limit_in_of_group(&g, NULL, 0, uneven, 3, 0.01, &in);
	assert_float_equal(in.link_bps, 100e6, 1);
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_UNDETERMINED);  /* 80% of the link, no NAS side */
	assert_non_null(strstr(v.evidence, "no NAS side (bench --nas)"));
	/* a host whose link speed is not recorded is the one held: it cannot be ruled out */
	uneven[1].link_mbit = 0;
	na_limit_in_of_group(&g, NULL, 0, uneven, 3, 0.01, &in);
	assert_string_equal(in.host, "esx02");
	assert_int_equal(in.link_mbit, 0);
	assert_float_equal(in.link_bps, 50e6, 1);
}

/* The group's pool over its window: 5 s of tank's writes. */
static const na_group_nas_row tank = {.nas = "truenas", .pool = "tank", .members = 3, .pool_known = true,
                                      .window_s = 5, .log_write_bytes = 615000000,
                                      .data_write_bytes = 3500000000, .special_write_bytes = 0,
                                      .data_read_bytes = 0, .guest_write_bytes = 615000000,
                                      .amplification = 6.7};

/* 123 MB/s of 4K writes from three VMs (30% of the pool's own 410). */
static na_group_row writes_group(void)
{
	return (na_group_row){.id = 8, .profile = "randwrite-4k-qd16", .vms = 3,
	                      .write = {.present = true, .bw_bytes = 123e6, .iops = 30000,
	                                .lat_mean_us = 1500, .runtime_ms = 5000}};
}

static void group_pool(void **state)
{
	(void)state;
	na_limit_member w[3];
	memcpy(w, trio, sizeof(w));
	for (size_t i = 0; i < 3; i++)
		w[i].link_mbit = 10000, w[i].read_bps = 0, w[i].write_bps = 41e6;
	na_group_row g = writes_group();
	na_limit_in in;
	na_limit_in_of_group(&g, &tank, 1, w, 3, -1, &in);
	assert_true(in.nas);
	assert_true(in.pool_totals_only);
	assert_float_equal(in.log_write_bps, 123e6, 1);
	assert_float_equal(in.data_write_bps, 700e6, 1);
	assert_float_equal(in.amplification, 6.7, 1e-9);
	assert_float_equal(in.log_wait_us, -1, 0);  /* not in a group's pool row */
	assert_float_equal(in.arc_hit_ratio, -1, 0);
	assert_float_equal(in.write_lat_us, 1500, 0);
	in.local = &local;
	na_limit v;
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_PATH);
	assert_float_equal(v.share, 0.3, 1e-9);
	assert_non_null(strstr(v.evidence, "its 3 VMs together reached 30% of the pool's own 410 MB/s"));
	/* at 60% of the pool's own: undetermined, saying what a group lacks */
	g.write.bw_bytes = 246e6;
	na_limit_in_of_group(&g, &tank, 1, w, 3, -1, &in);
	in.local = &local;
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_UNDETERMINED);
	assert_non_null(strstr(v.evidence, "(a group's pool row has no log write wait)"));
	/* the data vdevs at 3.4 of their 3.5 GB/s */
	na_group_nas_row busy = tank;
	busy.data_write_bytes = 17000000000;
	na_limit_in_of_group(&g, &busy, 1, w, 3, -1, &in);
	in.local = &local;
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_POOL);
	assert_float_equal(v.share, 3.4 / 3.5, 1e-9);
	assert_non_null(strstr(v.evidence, "6.7x the guest's writes"));
}

static void group_no_pool(void **state)
{
	(void)state;
	na_group_row g = writes_group();
	na_limit_in in;
	na_limit v;
	na_group_nas_row two[2] = {tank, tank};
	two[1].pool = "fast";
	na_limit_in_of_group(&g, two, 2, trio, 3, -1, &in);
	assert_false(in.nas);
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_UNDETERMINED);
	assert_string_equal(v.evidence, "no NAS side (its VMs' datastores are on several pools): the pool, "
	                    "its log and the path cannot be told apart");
	na_group_nas_row late = tank;
	late.why = "fleet-03 was left out";
	na_limit_in_of_group(&g, &late, 1, trio, 3, -1, &in);
	assert_false(in.nas);
	assert_string_equal(in.nas_why, "fleet-03 was left out");
	late.why = NULL, late.window_s = -1;
	na_limit_in_of_group(&g, &late, 1, trio, 3, -1, &in);
	assert_false(in.nas);
	assert_string_equal(in.nas_why, "its pool's figures are not the window's");
	/* no I/O in the window */
	g.write.present = false;
	na_limit_in_of_group(&g, &tank, 1, trio, 3, -1, &in);
	na_limit_of(&in, &v);
	assert_string_equal(v.evidence, "no I/O measured");
}

static void group_reads(void **state)
{
	(void)state;
	na_limit_member fast[3];
	memcpy(fast, trio, sizeof(fast));
	for (size_t i = 0; i < 3; i++)
		fast[i].link_mbit = 10000;
	na_group_row g = reads_group();
	na_limit_in in;
	na_limit v;
	/* a third of the members' reads under 50 us: cache, from the bins alone */
	na_limit_in_of_group(&g, &tank, 1, fast, 3, 0.34, &in);
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_CACHE);
	assert_float_equal(v.share, 0.34, 1e-9);
	/* slower reads: no ARC figures, so no path verdict */
	na_limit_in_of_group(&g, &tank, 1, fast, 3, 0.01, &in);
	in.local = &local;
	na_limit_of(&in, &v);
	assert_int_equal(v.layer, NA_LIMIT_UNDETERMINED);
	assert_string_equal(v.evidence, "a group's pool row has no ARC hit ratio: the cache cannot be "
	                    "ruled out for its reads");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(link_bound),   cmocka_unit_test(slog_bound),
		cmocka_unit_test(pool_bound),   cmocka_unit_test(cache_served),
		cmocka_unit_test(path_bound),   cmocka_unit_test(undetermined),
		cmocka_unit_test(from_rows),    cmocka_unit_test(group_link_per_host),
		cmocka_unit_test(group_pool),   cmocka_unit_test(group_no_pool),
		cmocka_unit_test(group_reads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
