/* bench's NAS side, pure parts: the line per run from a window (the golden
 * zpool iostat of two mirrors, a special mirror, a SLOG), a label that
 * contradicts a measured setting, the latency floor from fio's bins, and
 * the layout in a few words. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "golden.h"

#include "ops/bench_internal.h"

static void load(const char *name, nas_layout *l, nas_samples *s)
{
	size_t len;
	char *text = golden("zfs/zpool_list_mirrors.txt", &len);
	vs_error err = {0};
	assert_int_equal(nas_parse_zpool_list(text, len, l, &err), VS_OK);
	free(text);
	if (!s)
		return;
	text = golden(name, &len);
	assert_int_equal(nas_parse_iostat(text, len, l, s, &err), VS_OK);
	free(text);
}

/* Three intervals of 2 s: 3.5 GB/s on the mirrors, 69 MB/s on the special
 * mirror, 1.1 GB/s on the SLOG, for 138 MB/s from the guest over 6 s. */
static void write_run_line(void **state)
{
	(void)state;
	nas_layout l;
	nas_window w = {.interval_s = 2, .counters = true, .dataset_written = 900000000,
	                .arc_hit_ratio = -1};
	load("zfs/zpool_iostat_mirrors.txt", &l, &w.timeline);
	nas_samples_total(&w.timeline, w.interval_s, w.total, &w.pool_total);
	na_fio_dir write = {.present = true, .bw_bytes = 138e6, .runtime_ms = 6000};
	na_fio_dir read = {0};
	char line[512];
	na_nas_line(&w, &l, &read, &write, 0, line, sizeof(line));
	/* (21088377600 + 412876800 + 6527385600) / 828000000 = 33.8, split:
	 * 900 MB to the dataset for 828 MB (1.1x), (21088377600 + 412876800) /
	 * 900 MB to the data and special vdevs (24x), 6527385600 / 828 MB to
	 * the log (7.9x): 1.087 x 23.9 + 7.9 = 33.8. */
	/* The SLOG's writes waited 96 us, 4 us of it in the sync queue
	 * (total_wait and syncq_wait write of its lines). */
	assert_string_equal(line, "pool wrote 3.5 GB/s (mirrors) + 69 MB/s (special) + 1.1 GB/s (log) "
	                          "for 138 MB/s from the guest: 34x (dataset 1.1x, data vdevs 24x, "
	                          "log 7.9x); pool read 23 MB/s (read-modify-write); log write wait "
	                          "0.096 ms (sync queue 0.004 ms)");
	/* The ZIL's commits and bytes over the 6 s, and the txgs synced. */
	w.zil_commits = 126000;
	w.zil_slog_bytes = 828000000;
	w.txgs = true;
	w.txg_count = 2;
	w.txg_sync_mean_ns = 1455284554;
	w.txg_sync_max_ns = 1712339402;
	w.txg_dirty_mean = 1342177280;
	na_nas_line(&w, &l, &read, &write, 0, line, sizeof(line));
	assert_non_null(strstr(line, "; log write wait 0.096 ms (sync queue 0.004 ms); ZIL 21000 "
	                             "commits/s, 138 MB/s to the SLOG, 0 B/s to the pool; 2 txgs synced "
	                             "in 1.5 s mean (1.7 s max), 1.2 GiB dirty on average"));
	/* Without the counters the ratio is not guessed, nor the ZIL's said. */
	w.counters = false;
	w.txgs = false;
	na_nas_line(&w, &l, &read, &write, 0, line, sizeof(line));
	assert_string_equal(line, "pool wrote 3.5 GB/s (mirrors) + 69 MB/s (special) + 1.1 GB/s (log) "
	                          "for 138 MB/s from the guest; pool read 23 MB/s (read-modify-write); "
	                          "log write wait 0.096 ms (sync queue 0.004 ms)");
	/* A sampler that died: incomplete, never a figure. */
	w.incomplete = true;
	strcpy(w.why, "zpool exited 1");
	na_nas_line(&w, &l, &read, &write, 0, line, sizeof(line));
	assert_string_equal(line, "figures incomplete: zpool exited 1");
	nas_window_free(&w);
	nas_layout_free(&l);
}

/* A stored row: its rates over the seconds the pool measured, as stored
 * (schema 8), not over fio's runtime taken as wholly measured. */
static void stored_row_line(void **state)
{
	(void)state;
	na_result r = {.write = {.present = true, .bw_bytes = 138e6, .runtime_ms = 6000}};
	na_nas_run n = {.dataset = "tank/vmware64k", .pool_layout = "2 mirror + log",
	                .pool_known = true, .data_write_bytes = 21000000000,
	                .log_write_bytes = 828000000, .counters_known = true,
	                .dataset_written = 828000000, .arc_hit_ratio = -1, .measured_s = 3,
	                .window_s = 6, .amplification = -1};
	char line[512];
	na_nas_row_line(&r, &n, 0, line, sizeof(line));
	assert_string_equal(line, "pool wrote 3.5 GB/s (mirrors) + 138 MB/s (log) for 138 MB/s from "
	                          "the guest: 26x (dataset 1.0x, data vdevs 25x, log 1.0x) "
	                          "[pool measured 3.0 s of fio's 6.0 s]");
	/* A row from before schema 8: the runtime, taken as measured whole. */
	n.measured_s = n.window_s = -1;
	na_nas_row_line(&r, &n, 0, line, sizeof(line));
	assert_string_equal(line, "pool wrote 3.5 GB/s (mirrors) + 138 MB/s (log) for 138 MB/s from "
	                          "the guest: 26x (dataset 1.0x, data vdevs 25x, log 1.0x)");
	/* A mixed pool is named so, its classes read from the words; a pool
	 * not healthy is said. */
	n.pool_layout = "mixed: mirror, raidz1, disk (1 removed) + special mirror + 2 log: disk, mirror";
	n.pool_health = "DEGRADED (resilver 43%)";
	na_nas_row_line(&r, &n, 0, line, sizeof(line));
	assert_string_equal(line, "pool wrote 3.5 GB/s (mixed: mirror, raidz1, disk) + 0 B/s (special) + "
	                          "138 MB/s (log) for 138 MB/s from the guest: 26x (dataset 1.0x, data "
	                          "vdevs 25x, log 1.0x) [pool DEGRADED (resilver 43%)]");
	n.pool_layout = "1 draid2:4d:12c:1s + cache";
	n.pool_health = "ONLINE";
	na_nas_row_line(&r, &n, 0, line, sizeof(line));
	assert_string_equal(line, "pool wrote 3.5 GB/s (draid2:4d:12c:1s vdevs) for 138 MB/s from the "
	                          "guest: 26x (dataset 1.0x, data vdevs 25x, log 1.0x)");
	/* Schema 11's figures as stored: the log's waits (ms), the ZIL's
	 * counters over the window, the txgs; none synced is said so. */
	n.pool_layout = "2 mirror + log";
	n.log_write_ops = 600000;
	n.log_write_wait_ms = 0.095;
	n.log_sync_write_wait_ms = 0.015;
	n.zil_commits = 60000;
	n.zil_slog_bytes = 828000000;
	n.txgs_known = true;
	n.txg_count = 6;
	n.txg_sync_mean_ms = 71.5;
	n.txg_sync_max_ms = 74;
	n.txg_dirty_mean_bytes = 138e6;
	na_nas_row_line(&r, &n, 0, line, sizeof(line));
	assert_string_equal(line, "pool wrote 3.5 GB/s (mirrors) + 138 MB/s (log) for 138 MB/s from "
	                          "the guest: 26x (dataset 1.0x, data vdevs 25x, log 1.0x); log write "
	                          "wait 0.095 ms (sync queue 0.015 ms); ZIL 10000 commits/s, 138 MB/s "
	                          "to the SLOG, 0 B/s to the pool; 6 txgs synced in 72 ms mean (74 ms "
	                          "max), 131.6 MiB dirty on average");
	n.txg_count = 1;  /* one txg, said so */
	na_nas_row_line(&r, &n, 0, line, sizeof(line));
	assert_non_null(strstr(line, "; 1 txg synced in 72 ms mean (74 ms max)"));
	n.txg_count = 0;
	n.txg_sync_mean_ms = n.txg_sync_max_ms = n.txg_dirty_mean_bytes = -1;
	n.log_write_wait_ms = n.log_sync_write_wait_ms = -1;
	na_nas_row_line(&r, &n, 0, line, sizeof(line));
	assert_non_null(strstr(line, "log 1.0x); ZIL 10000 commits/s, 138 MB/s to the SLOG, 0 B/s to "
	                             "the pool; no txg synced in the window"));
}

static void read_run_line(void **state)
{
	(void)state;
	nas_layout l;
	nas_window w = {.interval_s = 2, .counters = true, .arc_hit_ratio = 0.974};
	load("zfs/zpool_iostat_mirrors.txt", &l, &w.timeline);
	nas_samples_total(&w.timeline, w.interval_s, w.total, &w.pool_total);
	na_fio_dir read = {.present = true, .bw_bytes = 1.2e9, .runtime_ms = 6000};
	char line[512];
	na_nas_line(&w, &l, &read, NULL, 8LL << 30, line, sizeof(line));
	assert_string_equal(line, "pool read 23 MB/s (mirrors) for 1.2 GB/s from the guest, "
	                          "ARC demand hits 97%");
	/* The seeds' 8 GB file in 256 GB of ARC. */
	w.arc_size = 256ULL << 30;
	na_nas_line(&w, &l, &read, NULL, 8ULL << 30, line, sizeof(line));
	assert_string_equal(line, "pool read 23 MB/s (mirrors) for 1.2 GB/s from the guest, "
	                          "ARC demand hits 97% [cache-served: 8.0 GiB fits in the ARC's 256.0 GiB]");
	/* The txgs before the brackets; the log's writes, others', unsaid. */
	w.txgs = true;
	na_nas_line(&w, &l, &read, NULL, 8ULL << 30, line, sizeof(line));
	assert_string_equal(line, "pool read 23 MB/s (mirrors) for 1.2 GB/s from the guest, "
	                          "ARC demand hits 97%; no txg synced in the window [cache-served: "
	                          "8.0 GiB fits in the ARC's 256.0 GiB]");
	w.txgs = false;
	w.arc_hit_ratio = 0.5;
	na_nas_line(&w, &l, &read, NULL, 8ULL << 30, line, sizeof(line));
	assert_string_equal(line, "pool read 23 MB/s (mirrors) for 1.2 GB/s from the guest, "
	                          "ARC demand hits 50%");
	/* No whole interval: nothing to say but that. */
	nas_samples_free(&w.timeline);
	na_nas_line(&w, &l, &read, NULL, 0, line, sizeof(line));
	assert_string_equal(line, "figures incomplete: no whole zpool iostat interval in the run");
	nas_layout_free(&l);
}

static void labels_against_settings(void **state)
{
	(void)state;
	nas_props p = {.recordsize = 65536, .sync = "standard", .compression = "lz4", .atime = "off",
	               .logbias = "latency", .primarycache = "all", .special_small_blocks = 0};
	char why[160];
	assert_true(na_bench_label_conflict(&p, "recordsize", "16K", why, sizeof(why)));
	assert_string_equal(why, "recordsize is 65536 (64.0 KiB) on the dataset");
	assert_false(na_bench_label_conflict(&p, "recordsize", "64K", why, sizeof(why)));
	assert_false(na_bench_label_conflict(&p, "RecordSize", "65536", why, sizeof(why)));
	assert_true(na_bench_label_conflict(&p, "recordsize", "big", why, sizeof(why)));
	assert_true(na_bench_label_conflict(&p, "sync", "always", why, sizeof(why)));
	assert_string_equal(why, "sync is standard on the dataset");
	assert_false(na_bench_label_conflict(&p, "compression", "LZ4", why, sizeof(why)));
	assert_false(na_bench_label_conflict(&p, "special_small_blocks", "0", why, sizeof(why)));
	assert_true(na_bench_label_conflict(&p, "special_small_blocks", "32K", why, sizeof(why)));
	/* Labels the NAS does not measure are the user's own. */
	assert_false(na_bench_label_conflict(&p, "slog", "yes", why, sizeof(why)));
}

/* The seed: about a third of reads under 50 us. */
static void latency_floor(void **state)
{
	(void)state;
	int64_t ns[] = {20000, 49000, 50000, 250000, 900000};
	int64_t count[] = {100, 240, 10, 600, 50};
	na_fio_dir d = {.present = true, .n_bins = 5, .bin_ns = ns, .bin_count = count};
	assert_float_equal(na_share_under(&d, NA_CACHE_FLOOR_US), 340.0 / 1000, 1e-9);
	assert_true(na_share_under(&d, NA_CACHE_FLOOR_US) >= NA_CACHE_SHARE);
	assert_float_equal(na_share_under(&d, 10), 0, 1e-9);
	na_fio_dir none = {.present = true};
	assert_float_equal(na_share_under(&none, NA_CACHE_FLOOR_US), -1, 1e-9);
}

static void layout_in_words(void **state)
{
	(void)state;
	nas_layout l;
	load(NULL, &l, NULL);
	char s[64];
	nas_layout_summary(&l, s, sizeof(s));
	assert_string_equal(s, "2 mirror + special mirror + log + cache");
	nas_layout_free(&l);
	size_t len;
	char *text = golden("zfs/zpool_list_raidz2.txt", &len);
	vs_error err = {0};
	assert_int_equal(nas_parse_zpool_list(text, len, &l, &err), VS_OK);
	free(text);
	nas_layout_summary(&l, s, sizeof(s));
	assert_string_equal(s, "2 raidz2 + spare");
	nas_layout_free(&l);
}

/* fio's window is put on the NAS's clock only with both clocks read: a
 * guest whose clock.txt gave no reading leaves the NAS side incomplete,
 * its totals untouched (not cut as if the clocks agreed). */
static void window_needs_both_clocks(void **state)
{
	(void)state;
	na_bench_outcome out = {.guest_clock_err = -1};
	out.fio.timestamp_ms = 1764600010000;
	out.fio.write = (na_fio_dir){.present = true, .runtime_ms = 2000};
	nas_window *w = &out.nas_window;
	*w = (nas_window){.interval_s = 1, .clock_err = 0.01, .arc_hit_ratio = -1};
	w->total[NAS_CLASS_DATA].write_bytes = 123;
	na_bench_fio_window(&out);
	assert_true(w->incomplete);
	assert_string_equal(w->why,
	                    "the guest's clock was not read (clock.txt): fio's window cannot be placed");
	assert_false(w->fio_window);
	assert_int_equal(w->total[NAS_CLASS_DATA].write_bytes, 123);
	assert_false(out.clock_known);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(window_needs_both_clocks),
		cmocka_unit_test(write_run_line),
		cmocka_unit_test(read_run_line),
		cmocka_unit_test(stored_row_line),
		cmocka_unit_test(labels_against_settings),
		cmocka_unit_test(latency_floor),
		cmocka_unit_test(layout_in_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
