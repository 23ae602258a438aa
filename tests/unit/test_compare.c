/* Comparing groups of results: selectors, matching, the lines' changes
 * and noise, factor detection, limits, and loading from a real database. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <unistd.h>

#include "output.h"
#include "analysis/compare.h"
#include "analysis/trap.h"

static const int by_profile[] = {NA_FIELD_profile};

/* One ok write-only result, latency following from IOPS at queue depth 32;
 * labels "k=v" (at most 4). */
static void add(na_cmp_group *g, const char *protocol, const char *profile, double iops, ...)
{
	static int64_t id;
	na_label labels[4];
	size_t n = 0;
	char buf[4][64];
	va_list ap;
	va_start(ap, iops);
	for (const char *l; n < 4 && (l = va_arg(ap, const char *)); n++) {
		snprintf(buf[n], sizeof(buf[n]), "%s", l);
		char *eq = strchr(buf[n], '=');
		*eq = '\0';
		labels[n] = (na_label){buf[n], eq + 1};
	}
	va_end(ap);
	na_result r = {.id = ++id, .status = "ok", .datastore_type = protocol, .datastore = "ds1",
	               .esxi_build = "24022510", .host = "esx01", .profile = profile,
	               .labels = labels, .n_labels = n};
	r.write = (na_dir_stats){.present = true, .iops = iops, .bw_bytes = iops * 4096,
	                         .lat_mean_us = 32e6 / iops, .p99_us = 96e6 / iops};
	assert_int_equal(na_cmp_group_add(g, &r), VS_OK);
}

static void test_selector(void **state)
{
	(void)state;
	na_selector sel;
	vs_error err = {0};
	assert_int_equal(na_selector_parse("protocol=NFS41,recordsize=64K", &sel, &err), VS_OK);
	assert_int_equal(sel.n, 4);
	assert_string_equal(sel.conds[0], "protocol=NFS41");
	assert_string_equal(sel.conds[1], "recordsize=64K");
	assert_string_equal(sel.conds[2], "status=ok");
	assert_string_equal(sel.conds[3], "site=guest");  /* a baseline only when named */
	na_selector_free(&sel);
	assert_int_equal(na_selector_parse("site=nas", &sel, &err), VS_OK);
	assert_int_equal(sel.n, 2);
	na_selector_free(&sel);
	/* A part without '=' continues the value before it. */
	assert_int_equal(na_selector_parse("servers=10.0.0.5,10.0.1.5,vm=x", &sel, &err), VS_OK);
	assert_int_equal(sel.n, 4);
	assert_string_equal(sel.conds[0], "servers=10.0.0.5,10.0.1.5");
	assert_string_equal(sel.conds[1], "vm=x");
	na_selector_free(&sel);
	const char *bad[] = {"", "=x", "a=1,,b=2", "x", "a=1,", ",a=1"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_int_equal(na_selector_parse(bad[i], &sel, &err), VS_ERR_USAGE);
		assert_null(sel.conds);
	}
	assert_non_null(strstr(err.message, "has an empty condition"));
}

static const na_cmp_line *line(const na_cmp *c, const char *profile, int dir, int metric)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->lines[i].key->field[NA_FIELD_profile], profile) == 0 && c->lines[i].dir == dir &&
		    c->lines[i].metric == metric)
			return &c->lines[i];
	return NULL;
}

static void test_lines(void **state)
{
	(void)state;
	na_cmp_group a = {0}, b = {0};
	const double va[] = {10000, 10200, 9900}, vb[] = {13000, 13300, 12900};
	for (size_t i = 0; i < 3; i++) {
		add(&a, "NFS", "randwrite", va[i], NULL);
		add(&b, "NFS", "randwrite", vb[i], NULL);
	}
	add(&a, "NFS", "only-a", 500, NULL);
	add(&b, "NFS", "only-b", 500, NULL);
	na_cmp c;
	assert_int_equal(na_cmp_run(&a, &b, by_profile, 1, 0, &c), VS_OK);
	assert_int_equal(c.keys, 1);
	assert_int_equal(c.judged, 2);  /* write IOPS and p99 */
	assert_int_equal(c.n, NA_M_COUNT);  /* write only: reads did no I/O */
	assert_null(line(&c, "randwrite", 0, NA_M_IOPS));
	const na_cmp_line *iops = line(&c, "randwrite", 1, NA_M_IOPS);
	const na_cmp_line *p99 = line(&c, "randwrite", 1, NA_M_P99);
	assert_non_null(iops);
	assert_non_null(p99);
	assert_true(na_effect_pct(&iops->eff) > 30.2 && na_effect_pct(&iops->eff) < 30.3);
	assert_int_equal(iops->eff.verdict, NA_NOISE_BEYOND);
	assert_true(iops->a[0] == 10000 && iops->sa.n == 3 && iops->sb.median == 13000);
	/* More IOPS, so lower latency: the sign is negative and that is better. */
	assert_true(na_effect_pct(&p99->eff) < 0);
	assert_int_equal(p99->eff.verdict, NA_NOISE_BEYOND);
	/* Weighted Holm over the profile's 2 lines: IOPS (weight 4 of 5) is held to
	 * 4% first, then p99 gets the whole 5%; each interval at its own level. */
	assert_true(fabs(iops->eff.alpha - 0.04) < 1e-12 && iops->eff.p_holm >= iops->eff.p);
	assert_true(fabs(p99->eff.alpha - 0.05) < 1e-12 && iops->eff.family == 2);
	na_cmp_cells s;
	na_cmp_cells_of(iops, &s);
	assert_string_equal(s.metric, "write IOPS");
	/* The figures beside the change are the geometric means it is the ratio
	 * of (issue 36), not the medians (10,000 and 13,000: +30.0%). */
	assert_string_equal(s.a, "10,033 (9,900-10,200, n=3)");
	assert_string_equal(s.b_bare, "13,066 (12,900-13,300)");
	assert_true(fabs(iops->eff.center_b / iops->eff.center_a - iops->eff.ratio) < 1e-12);
	assert_true(fabs(13066.0 / 10033 - 1.302) < 0.0005);
	assert_string_equal(s.change, "+30.2% better (96% CI +25.4% to +35.3%)");
	assert_string_equal(s.verdict, "beyond noise");
	na_cmp_cells_of(p99, &s);
	assert_string_equal(s.metric, "write p99 latency (of each run)");
	assert_string_equal(s.a, "9.57 ms (9.41-9.70, n=3)");
	assert_string_equal(s.b, "7.35 ms (7.22-7.44, n=3)");  /* 7.35 / 9.57: -23.2% */
	assert_string_equal(s.change, "-23.2% better (95% CI -25.9% to -20.5%)");
	assert_string_equal(s.pooled, "");  /* no fio bins stored */
	na_cmp_cells_of(line(&c, "randwrite", 1, NA_M_MBPS), &s);
	assert_string_equal(s.b, "53.5 MB/s (52.8-54.5, n=3)");
	assert_string_equal(s.verdict, "follows IOPS");
	na_cmp_cells_of(line(&c, "randwrite", 1, NA_M_AVG), &s);
	assert_string_equal(s.b, "2.45 ms (2.41-2.48, n=3)");
	assert_string_equal(s.verdict, "follows IOPS");
	na_cmp_free(&c);
	/* Swapped: the mirrored change, the same verdicts. */
	assert_int_equal(na_cmp_run(&b, &a, by_profile, 1, 0, &c), VS_OK);
	iops = line(&c, "randwrite", 1, NA_M_IOPS);
	assert_int_equal(iops->eff.verdict, NA_NOISE_BEYOND);
	na_cmp_cells_of(iops, &s);
	assert_string_equal(s.change, "-23.2% worse (96% CI -26.1% to -20.2%)");
	na_cmp_free(&c);
	/* --min-change 40%: a +30% cannot clear it. */
	assert_int_equal(na_cmp_run(&a, &b, by_profile, 1, 0.40, &c), VS_OK);
	iops = line(&c, "randwrite", 1, NA_M_IOPS);
	assert_int_equal(iops->eff.verdict, NA_NOISE_WITHIN);
	na_cmp_free(&c);
	/* Nothing in common: no lines. */
	na_cmp_group none = {0};
	add(&none, "NFS", "seqwrite", 900, NULL);
	assert_int_equal(na_cmp_run(&a, &none, by_profile, 1, 0, &c), VS_OK);
	assert_int_equal(c.n, 0);
	assert_int_equal(c.keys, 0);
	na_cmp_free(&c);
	na_cmp_group_free(&a);
	na_cmp_group_free(&b);
	na_cmp_group_free(&none);
}

static char *sentence_of(const na_cmp_group *a, const na_cmp_group *b, size_t *n)
{
	na_factor *f = NULL;
	assert_int_equal(na_cmp_factors(a, b, &f, n), VS_OK);
	char *s = na_factors_sentence(f, *n);
	na_factors_free(f, *n);
	return s;
}

/* A mixed job: its write IOPS follow its read IOPS (fio keeps the mix), so
 * the profile's family is read IOPS and both p99s: 3 lines, IOPS first. */
static void test_mixed_family(void **state)
{
	(void)state;
	na_cmp_group a = {0}, b = {0};
	const double va[] = {10000, 10200, 9900}, vb[] = {13000, 13300, 12900};
	for (size_t i = 0; i < 6; i++) {
		double iops = i < 3 ? va[i] : vb[i - 3];
		na_result r = {.id = (int64_t)i + 100, .status = "ok", .profile = "randrw"};
		r.read = (na_dir_stats){.present = true, .iops = iops * 0.7, .bw_bytes = iops * 0.7 * 4096,
		                        .lat_mean_us = 32e6 / iops, .p99_us = 96e6 / iops};
		r.write = (na_dir_stats){.present = true, .iops = iops * 0.3, .bw_bytes = iops * 0.3 * 4096,
		                         .lat_mean_us = 32e6 / iops, .p99_us = 99e6 / iops};
		assert_int_equal(na_cmp_group_add(i < 3 ? &a : &b, &r), VS_OK);
	}
	na_cmp c;
	assert_int_equal(na_cmp_run(&a, &b, by_profile, 1, 0, &c), VS_OK);
	assert_int_equal(c.judged, 3);
	const na_cmp_line *r = line(&c, "randrw", 0, NA_M_IOPS), *w = line(&c, "randrw", 1, NA_M_IOPS);
	assert_true(r->eff.judged && r->eff.family == 3 && r->eff.verdict == NA_NOISE_BEYOND);
	/* weight 4 of 6: held to 3.33% first */
	assert_true(fabs(r->eff.alpha - 0.05 * 4 / 6) < 1e-12);
	assert_true(!w->eff.judged && w->eff.verdict == NA_NOISE_SHOWN);
	na_cmp_cells s;
	na_cmp_cells_of(w, &s);
	assert_string_equal(s.verdict, "follows read IOPS (the job's mix)");
	na_cmp_cells_of(r, &s);
	assert_string_equal(s.change, "+30.2% better (96.67% CI +25.1% to +35.6%)");
	na_cmp_free(&c);
	na_cmp_group_free(&a);
	na_cmp_group_free(&b);
}

static void test_factors(void **state)
{
	(void)state;
	na_cmp_group a = {0}, b = {0}, c = {0}, d = {0};
	add(&a, "NFS41", "randwrite", 33700, "recordsize=64K", "slog=yes", NULL);
	add(&b, "NFS", "randwrite", 43500, "recordsize=16K", "slog=yes", NULL);
	add(&c, "NFS", "randwrite", 37400, "recordsize=64K", "slog=yes", NULL);
	add(&d, "NFS41", "randwrite", 36900, "slog=yes", "recordsize=64K", NULL);
	size_t n;
	char *s = sentence_of(&a, &b, &n);
	assert_int_equal(n, 2);
	assert_string_equal(s, "the groups differ in 2 factors: protocol (NFS41 vs NFS), recordsize "
	                       "(64K vs 16K); a change cannot be pinned on one of them");
	free(s);
	s = sentence_of(&a, &c, &n);
	assert_int_equal(n, 1);
	assert_string_equal(s, "differs in: protocol (NFS41 vs NFS)");
	free(s);
	s = sentence_of(&a, &d, &n);
	assert_int_equal(n, 0);
	assert_string_equal(s, "the groups differ in no recorded factor");
	free(s);
	/* A label only one group has; several values on one side. */
	add(&d, "NFS", "randwrite", 36000, "recordsize=64K", "slog=yes", "sync=always", NULL);
	s = sentence_of(&a, &d, &n);
	assert_string_equal(s, "the groups differ in 2 factors: protocol (NFS41 x1 vs NFS41 x1 + NFS x1), "
	                       "sync (unset x1 vs unset x1 + always x1); a change cannot be pinned on "
	                       "one of them");
	free(s);
	na_factor *f = NULL;
	assert_int_equal(na_cmp_factors(&a, &d, &f, &n), VS_OK);
	assert_string_equal(f[1].name, "sync");
	assert_int_equal(f[1].na, 1);
	assert_int_equal(f[1].nb, 2);
	assert_int_equal(f[1].cb[1], 1);
	na_factors_free(f, n);
	na_cmp_group_free(&a);
	na_cmp_group_free(&b);
	na_cmp_group_free(&c);
	na_cmp_group_free(&d);
}

/* One run on a host, the disk, the vCenter and the job file it ran with. */
static void add_on(na_cmp_group *g, const char *host, const char *disk, const char *vcenter,
                   const char *job)
{
	na_result r = {.id = 1, .status = "ok", .datastore_type = "NFS", .profile = "p", .host = host,
	               .disk = disk, .vcenter = vcenter, .job_file = job};
	assert_int_equal(na_cmp_group_add(g, &r), VS_OK);
}

/* The same hosts in another mix are a factor, with the counts; so are the
 * disk, the vCenter and the job file's content. */
static void test_factor_mix(void **state)
{
	(void)state;
	na_cmp_group a = {0}, b = {0};
	for (int i = 0; i < 5; i++) {
		add_on(&a, i < 4 ? "host1" : "host2", "d1", "vc1", "[job]\nbs=4k\n");
		add_on(&b, i < 1 ? "host1" : "host2", "d1", "vc1", "[job]\nbs=4k\n");
	}
	size_t n;
	char *s = sentence_of(&a, &b, &n);
	assert_string_equal(s, "differs in: host (host1 x4 + host2 x1 vs host1 x1 + host2 x4)");
	free(s);
	/* The same proportions in groups of other sizes: no factor. */
	na_cmp_group c = {0};
	for (int i = 0; i < 10; i++)
		add_on(&c, i < 8 ? "host1" : "host2", "d1", "vc1", "[job]\nbs=4k\n");
	s = sentence_of(&a, &c, &n);
	assert_int_equal(n, 0);
	free(s);
	na_cmp_group d = {0};
	for (int i = 0; i < 5; i++)
		add_on(&d, i < 4 ? "host1" : "host2", "d2", "vc2", "[job]\nbs=64k\n");
	na_factor *f = NULL;
	assert_int_equal(na_cmp_factors(&a, &d, &f, &n), VS_OK);
	assert_int_equal(n, 3);
	assert_string_equal(f[0].name, "vcenter");
	assert_string_equal(f[1].name, "disk");
	assert_string_equal(f[2].name, "job_file");
	assert_int_equal(strlen(f[2].a[0]), 8);  /* a hash, not the file */
	assert_string_not_equal(f[2].a[0], f[2].b[0]);
	na_factors_free(f, n);
	na_cmp_group_free(&a);
	na_cmp_group_free(&b);
	na_cmp_group_free(&c);
	na_cmp_group_free(&d);
}

/* The same job run by two nfsagent processes names their own folders
 * (data and staging) by each process's mark: one job file, no factor.  A
 * job in another --dir is another. */
static void test_job_file_across_processes(void **state)
{
	(void)state;
	const char *runs[3][2] = {{"4242-0badcafe", "/var/tmp"}, {"17-00ff", "/var/tmp"}, {"17-00ff", "/data"}};
	na_cmp_group g[3] = {{0}};
	char text[256];
	for (size_t i = 0; i < 3; i++) {
		snprintf(text, sizeof(text), "[global]\nwrite_bw_log=/tmp/nfsagent-%s/gw\ndirectory=%s/nfsagent-fio-%s\nbs=4k\n",
		         runs[i][0], runs[i][1], runs[i][0]);
		add_on(&g[i], "host1", "d1", "vc1", text);
	}
	size_t n;
	na_factor *f = NULL;
	assert_int_equal(na_cmp_factors(&g[0], &g[1], &f, &n), VS_OK);
	assert_int_equal(n, 0);
	na_factors_free(f, n);
	assert_int_equal(na_cmp_factors(&g[1], &g[2], &f, &n), VS_OK);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].name, "job_file");
	na_factors_free(f, n);
	for (size_t i = 0; i < 3; i++)
		na_cmp_group_free(&g[i]);
}

/* A run whose 100 writes have latency bins (ns -> count), as the store
 * reads them back (na_cmp_row_bins). */
static void add_binned(na_cmp_group *g, int64_t ns1, int64_t count1, int64_t ns2, int64_t count2)
{
	na_result r = {.id = 1, .status = "ok", .profile = "p"};
	r.write = (na_dir_stats){.present = true, .iops = 100, .bw_bytes = 409600, .lat_mean_us = 1000,
	                         .p99_us = 1500};
	assert_int_equal(na_cmp_group_add(g, &r), VS_OK);
	na_fio_dir *d = &g->rows[g->n - 1].bins[1];
	d->bin_ns = malloc(2 * sizeof(int64_t));
	d->bin_count = malloc(2 * sizeof(int64_t));
	assert_true(d->bin_ns && d->bin_count);
	d->bin_ns[0] = ns1, d->bin_count[0] = count1, d->bin_ns[1] = ns2, d->bin_count[1] = count2;
	*d = (na_fio_dir){.present = true, .total_ios = 100, .n_bins = 2, .bin_ns = d->bin_ns,
	                  .bin_count = d->bin_count};
}

/* p99 beside its median of runs: the p99 of all the runs' I/Os together,
 * from their merged fio bins; unknown when one run has none. */
static void test_pooled_p99(void **state)
{
	(void)state;
	na_cmp_group a = {0}, b = {0};
	for (int i = 0; i < 3; i++) {
		add_binned(&a, 1000000, 99, 10000000, 1);
		add_binned(&b, 1000000, 97, 2000000, 3);
	}
	na_cmp c;
	assert_int_equal(na_cmp_run(&a, &b, by_profile, 1, 0, &c), VS_OK);
	const na_cmp_line *p99 = line(&c, "p", 1, NA_M_P99);
	assert_non_null(p99);
	assert_true(p99->pooled_a == 1000 && p99->pooled_b == 2000);
	na_cmp_cells s;
	na_cmp_cells_of(p99, &s);
	assert_string_equal(s.pooled, "pooled from fio bins: 1.00 vs 2.00 ms");
	json_t *o = na_cmp_line_json(p99);
	assert_true(json_real_value(json_object_get(json_object_get(o, "pooled_p99_us"), "b")) == 2000);
	json_decref(o);
	na_cmp_free(&c);
	/* One run without bins: no pooled value. */
	add(&b, "NFS", "p", 100, NULL);
	assert_int_equal(na_cmp_run(&a, &b, by_profile, 1, 0, &c), VS_OK);
	p99 = line(&c, "p", 1, NA_M_P99);
	assert_true(p99->pooled_a == 1000 && p99->pooled_b < 0);
	na_cmp_free(&c);
	na_cmp_group_free(&a);
	na_cmp_group_free(&b);
}

/* The regression rule at its edges: the whole interval past the limit,
 * or within it for a pass. */
static void test_regression_rule(void **state)
{
	(void)state;
	na_threshold drop = {NA_M_IOPS, 10, false}, rise = {NA_M_P99, 20, true};
	na_effect e = {.verdict = NA_NOISE_BEYOND, .ratio = 0.80, .lo = 0.70, .hi = 0.8999};
	assert_true(na_threshold_clear(&drop, &e));
	e.hi = 0.9001;  /* reaches back inside the limit: not proven */
	assert_false(na_threshold_clear(&drop, &e));
	assert_true(na_threshold_exceeded(&drop, na_effect_pct(&e)));
	e = (na_effect){.ratio = 1.5, .lo = 1.2001, .hi = 1.8};
	assert_true(na_threshold_clear(&rise, &e));
	e.lo = 1.1999;
	assert_false(na_threshold_clear(&rise, &e));
	/* A rise never clears a drop limit, however sure. */
	e = (na_effect){.ratio = 1.5, .lo = 1.4, .hi = 1.6};
	assert_false(na_threshold_clear(&drop, &e));
	/* Within the limit only when the whole interval is (issue 36: an
	 * interval reaching both sides of it cannot tell, never a pass). */
	assert_true(na_threshold_within(&drop, &e));
	e = (na_effect){.ratio = 0.95, .lo = 0.9001, .hi = 1.01};
	assert_true(na_threshold_within(&drop, &e));
	e.lo = 0.8999;
	assert_false(na_threshold_within(&drop, &e));
	assert_false(na_threshold_clear(&drop, &e));
	e = (na_effect){.ratio = 0.165, .lo = 0.011, .hi = 2.52};  /* -83.5%, 3 noisy runs a side */
	assert_false(na_threshold_within(&drop, &e) || na_threshold_clear(&drop, &e));
	e = (na_effect){.ratio = 1.1, .lo = 0.95, .hi = 1.1999};
	assert_true(na_threshold_within(&rise, &e));
	e.hi = 1.2001;
	assert_false(na_threshold_within(&rise, &e));
	/* too few runs: no interval, so never within */
	e = (na_effect){.verdict = NA_NOISE_TOO_FEW, .ratio = 1, .lo = NAN, .hi = NAN};
	assert_false(na_threshold_within(&drop, &e) || na_threshold_clear(&drop, &e));
}

static bool is_nfs(const na_cmp_row *r, void *ud)
{
	(void)ud;
	return strcmp(r->field[NA_FIELD_datastore_type], "NFS") == 0;
}

static void test_filter(void **state)
{
	(void)state;
	na_cmp_group g = {0};
	add(&g, "NFS41", "a", 1, "x=1", NULL);
	add(&g, "NFS", "b", 2, NULL);
	add(&g, "NFS41", "c", 3, NULL);
	add(&g, "NFS", "d", 4, "y=2", NULL);
	na_cmp_group_filter(&g, is_nfs, NULL);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.rows[0].field[NA_FIELD_profile], "b");
	assert_string_equal(na_cmp_label(&g.rows[1], "y"), "2");
	assert_null(na_cmp_label(&g.rows[1], "x"));
	na_cmp_group_free(&g);
}

static void test_thresholds(void **state)
{
	(void)state;
	na_threshold t;
	vs_error err = {0};
	assert_int_equal(na_threshold_parse("iops=10%", false, &t, &err), VS_OK);
	assert_true(t.metric == NA_M_IOPS && t.pct == 10 && !t.rise);
	assert_true(na_threshold_exceeded(&t, -10.1));
	assert_false(na_threshold_exceeded(&t, -10));
	assert_false(na_threshold_exceeded(&t, 50));
	assert_false(na_threshold_exceeded(&t, NAN));
	assert_int_equal(na_threshold_parse("mbps=5", false, &t, &err), VS_OK);
	assert_int_equal(t.metric, NA_M_MBPS);
	assert_int_equal(na_threshold_parse("p99=20%", true, &t, &err), VS_OK);
	assert_true(t.metric == NA_M_P99 && t.rise);
	assert_true(na_threshold_exceeded(&t, 20.5));
	assert_false(na_threshold_exceeded(&t, -40));
	assert_int_equal(na_threshold_parse("avg=0", true, &t, &err), VS_OK);
	/* Drops are of throughput, rises of latency. */
	assert_int_equal(na_threshold_parse("p99=10%", false, &t, &err), VS_ERR_USAGE);
	assert_string_equal(err.message, "--max-drop wants iops|mbps=PCT, not 'p99=10%'");
	assert_int_equal(na_threshold_parse("iops=10%", true, &t, &err), VS_ERR_USAGE);
	assert_string_equal(err.message, "--max-rise wants avg|p99=PCT, not 'iops=10%'");
	const char *bad[] = {"iops", "iops=", "iops=abc", "iops=-5%", "iops=100%", "iops=10%x",
	                     "iops=nan", "iops=inf", "iops=10%%", "=10%", "IOPS=10%"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_int_equal(na_threshold_parse(bad[i], false, &t, &err), VS_ERR_USAGE);
	assert_int_equal(na_threshold_parse("p99=1e9", true, &t, &err), VS_ERR_USAGE);
	assert_non_null(strstr(err.message, "percentage"));
}

/* A store in a new directory (dir: a mkdtemp template, filled in). */
static na_store *temp_store(char *dir)
{
	char path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.db", dir);
	na_store *s = NULL;
	vs_error err = {0};
	assert_int_equal(na_store_open(path, &s, &err), VS_OK);
	return s;
}

/* Closes s and removes its directory. */
static void temp_store_remove(na_store *s, const char *dir)
{
	na_store_close(&s);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* Through a real database: failed runs and other groups stay out. */
static void test_load(void **state)
{
	(void)state;
	char dir[] = "/tmp/nfsagent-compare-XXXXXX";
	na_store *s = temp_store(dir);
	vs_error err = {0};
	na_label label = {"recordsize", "64K"};
	const char *status[] = {"ok", "failed", "ok"};
	for (size_t i = 0; i < 3; i++) {
		na_result r = {.started_at = "2026-01-01T00:00:00Z", .status = status[i], .error = "boom",
		               .datastore_type = i == 2 ? "NFS" : "NFS41", .profile = "p",
		               .labels = &label, .n_labels = 1};
		r.read = (na_dir_stats){.present = i != 1, .iops = 100, .bw_bytes = 409600,
		                        .lat_mean_us = 10, .p99_us = 20};
		assert_int_equal(na_store_add(s, &r, &err), VS_OK);
	}
	na_cmp_group g = {0};
	assert_int_equal(na_cmp_load(s, "protocol=NFS41,recordsize=64K", &g, &err), VS_OK);
	assert_int_equal(g.n, 1);
	assert_true(g.rows[0].present[0] && !g.rows[0].present[1]);
	assert_true(g.rows[0].metric[0][NA_M_MBPS] > 0.4095 && g.rows[0].metric[0][NA_M_MBPS] < 0.4097);
	assert_string_equal(na_cmp_label(&g.rows[0], "recordsize"), "64K");
	na_cmp_group_free(&g);
	assert_int_equal(na_cmp_load(s, "recordsize=", &g, &err), VS_OK);
	assert_int_equal(g.n, 0);
	assert_int_equal(na_cmp_load(s, "=x", &g, &err), VS_ERR_USAGE);
	temp_store_remove(s, dir);
}

/* The layers under the fio rows (ESXi's counters, the pool from the NAS
 * side) judged like them; the measured recordsize and the pool's health as
 * factors; a label that contradicts the NAS warned about. */
static void test_nas_layers(void **state)
{
	(void)state;
	char dir[] = "/tmp/nfsagent-compare-XXXXXX";
	na_store *s = temp_store(dir);
	vs_error err = {0};
	na_label label = {"recordsize", "16K"};
	for (int i = 0; i < 10; i++) {
		bool big = i >= 5;  /* 64K records: the pool writes about twice as much */
		double jitter = 1 + 0.01 * (i % 5);
		/* fio's 60 s of I/O end by 1:25, when the result is recorded;
		 * before 0:25 it laid out its file.  20 s samples ending at 1:20
		 * lie inside the I/O; ending at 0:40, in the layout (the start is
		 * no anchor); at 1:40, past the end: neither is the run's. */
		na_result r = {.started_at = "2026-01-01T00:00:00Z", .finished_at = "2026-01-01T00:01:25Z",
		               .status = "ok", .profile = "randwrite",
		               .datastore_type = "NFS41", .labels = &label, .n_labels = 1,
		               .host_counters_json = i == 0 ? "[]"
		                   : big ? "[{\"counter\":\"datastore.write.average\",\"time\":"
		                           "\"2026-01-01T00:00:40Z\",\"value\":1},"
		                           "{\"counter\":\"datastore.write.average\",\"time\":"
		                           "\"2026-01-01T00:01:20Z\",\"value\":134000},"
		                           "{\"counter\":\"datastore.write.average\",\"time\":"
		                           "\"2026-01-01T00:01:40Z\",\"value\":1}]"
		                         : "[{\"counter\":\"datastore.write.average\",\"time\":"
		                           "\"2026-01-01T00:01:00Z\",\"value\":173000}]"};
		double guest = (big ? 138e6 : 178e6) * jitter;
		r.write = (na_dir_stats){.present = true, .iops = guest / 4096, .bw_bytes = guest,
		                         .lat_mean_us = 30, .p99_us = 90, .runtime_ms = 60000};
		na_nas_run n = {.dataset = big ? "tank/vm64k" : "tank/vm16k", .pool_layout = "11 mirror + log",
		                .pool_health = big ? "DEGRADED (resilver 43%)" : "ONLINE", .sync = "standard", .recordsize = big ? 65536 : 16384,
		                .pool_known = true, .interval_s = 2, .intervals = 30,
		                .data_write_bytes = (int64_t)((big ? 3.5e9 : 1.7e9) * 60 * jitter),
		                /* read-modify-write on 64K only: 16K's pool reads are a measured 0 */
		                .data_read_bytes = big ? (int64_t)(23e6 * 60 * jitter) : 0,
		                .log_write_bytes = (int64_t)(guest * 60),
		                .counters_known = true, .dataset_written = (int64_t)(guest * 60),
		                .arc_hit_ratio = -1,
		                /* rows from before schema 8: no stored amplification
		                 * nor split (the total is the stored totals') */
		                .measured_s = -1, .window_s = -1, .amplification = -1,
		                .amp_guest_to_dataset = -1, .amp_dataset_to_data = -1,
		                .amp_log_share = -1};
		r.nas = &n;
		assert_int_equal(na_store_add(s, &r, &err), VS_OK);
	}
	na_cmp_group a = {0}, b = {0};
	assert_int_equal(na_cmp_load(s, "zfs_recordsize=16k", &a, &err), VS_OK);
	assert_int_equal(na_cmp_load(s, "zfs_recordsize=65536", &b, &err), VS_OK);
	assert_int_equal(a.n, 5);
	assert_int_equal(b.n, 5);
	assert_true(a.rows[0].layer[NA_L_ESXI_WRITE] < 0);  /* its counters came back empty */
	assert_true(fabs(a.rows[1].layer[NA_L_ESXI_WRITE] - 173000 * 1024 / 1e6) < 1e-6);
	assert_true(fabs(b.rows[0].layer[NA_L_ESXI_WRITE] - 134000 * 1024 / 1e6) < 1e-6);
	/* A run shorter than a 20 s sample has none of its own: not measured. */
	na_result brief = {.started_at = "2026-01-01T00:00:30Z", .finished_at = "2026-01-01T00:00:42Z",
	                   .host_counters_json =
	                       "[{\"counter\":\"datastore.write.average\",\"time\":"
	                       "\"2026-01-01T00:00:40Z\",\"value\":134000}]"};
	brief.write = (na_dir_stats){.present = true, .runtime_ms = 2000};
	double brief_layer[NA_L_COUNT];
	na_cmp_layers(&brief, NULL, brief_layer);
	assert_true(brief_layer[NA_L_ESXI_WRITE] < 0);
	assert_true(fabs(b.rows[0].layer[NA_L_POOL_WRITE] - 3500) < 1e-6);
	assert_true(fabs(b.rows[0].layer[NA_L_AMPLIFICATION] - (3.5e9 * 60 + 138e6 * 60) / (138e6 * 60))
	            < 1e-9);
	assert_true(b.rows[0].layer[NA_L_AMP_GUEST_TO_DATASET] < 0);  /* no split stored */
	assert_true(b.rows[0].layer[NA_L_AMP_DATASET_TO_DATA] < 0);
	assert_true(b.rows[0].layer[NA_L_AMP_LOG_SHARE] < 0);
	assert_true(b.rows[0].layer[NA_L_ARC_HITS] < 0);
	assert_true(a.rows[0].layer[NA_L_POOL_READ] == 0);  /* measured, not unknown */
	/* The rates are over fio's window as stored (schema 8), not the runtime. */
	na_result one = {.write = {.present = true, .bw_bytes = 138e6, .runtime_ms = 60000}};
	na_nas_run row = {.pool_known = true, .data_write_bytes = (int64_t)(3.5e9 * 60),
	                  .window_s = 30, .arc_hit_ratio = -1};
	double layer[NA_L_COUNT];
	na_cmp_layers(&one, &row, layer);
	assert_true(fabs(layer[NA_L_POOL_WRITE] - 7000) < 1e-6);
	row.window_s = -1;  /* a row from before it */
	na_cmp_layers(&one, &row, layer);
	assert_true(fabs(layer[NA_L_POOL_WRITE] - 3500) < 1e-6);

	size_t n = 0;
	char *text = sentence_of(&a, &b, &n);
	/* a resilver running beside B's runs: named, it may be the change */
	assert_string_equal(text, "the groups differ in 2 factors: zfs_recordsize (16K vs 64K), "
	                          "zfs_pool_health (ONLINE vs DEGRADED (resilver 43%)); a change cannot "
	                          "be pinned on one of them");
	free(text);
	char **conflicts = NULL;
	assert_int_equal(na_cmp_label_conflicts(&a, "A", &conflicts, &n), VS_OK);
	assert_int_equal(n, 0);
	free(conflicts);
	assert_int_equal(na_cmp_label_conflicts(&b, "B", &conflicts, &n), VS_OK);
	assert_int_equal(n, 1);
	assert_string_equal(conflicts[0], "label recordsize=16K contradicts the NAS in B: "
	                                  "zfs_recordsize is 64K (5 runs)");
	free(conflicts[0]);
	free(conflicts);

	na_cmp c;
	assert_int_equal(na_cmp_run(&a, &b, by_profile, 1, 0, &c), VS_OK);
	/* ESXi write (4 runs against 5), pool data read (0 on A), pool data
	 * write, pool log write, amplification: no special or ARC figures, and
	 * no part rows without a stored split.
	 * Only the amplification has a better side: the one verdict, alone in
	 * its family; the rates are shown with their change. */
	assert_int_equal(c.n_layers, 5);
	const int want[] = {NA_L_ESXI_WRITE, NA_L_POOL_READ, NA_L_POOL_WRITE, NA_L_LOG_WRITE,
	                    NA_L_AMPLIFICATION};
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(c.layers[i].metric, want[i]);
		assert_int_equal(c.layers[i].eff.judged, i == 4);
		assert_int_equal(c.layers[i].eff.verdict, i == 4 ? NA_NOISE_BEYOND : NA_NOISE_SHOWN);
		assert_int_equal(c.layers[i].eff.stalled_a + c.layers[i].eff.stalled_b, 0);
	}
	assert_int_equal(c.layers[4].eff.family, 1);
	assert_int_equal(c.layers[0].sa.n, 4);
	na_cmp_cells cells;
	na_cmp_layer_cells_of(&c.layers[2], &cells);
	assert_string_equal(cells.metric, "pool data write");
	assert_string_equal(cells.change, "+105.9%");  /* about 3,500 MB/s against 1,700: no better side */
	assert_string_equal(cells.verdict, "no verdict: neither side is better by itself");
	assert_string_equal(na_cmp_layer_verdict(&c.layers[2]), "no verdict");
	/* A measured 0 is no stall: all 5 of A's runs counted, no test. */
	na_cmp_layer_cells_of(&c.layers[1], &cells);
	assert_int_equal(c.layers[1].sa.n, 5);
	assert_string_equal(cells.a, "0.00 MB/s (0.00-0.00, n=5)");
	assert_string_equal(cells.change, "n/a");
	assert_string_equal(cells.verdict, "not tested: a run measured 0, which has no ratio of logs; "
	                    "the figures and change are medians");
	assert_null(strstr(cells.verdict, "left out"));
	/* More pool bytes per guest byte: worse; each side's runs all alike, so
	 * no zero-wide interval is printed. */
	na_cmp_layer_cells_of(&c.layers[4], &cells);
	assert_non_null(strstr(cells.change, "worse"));
	assert_null(strstr(cells.change, "CI"));
	assert_string_equal(cells.verdict, "beyond noise: each side the same in every run");
	na_cmp_free(&c);
	na_cmp_group_free(&a);
	na_cmp_group_free(&b);
	temp_store_remove(s, dir);
}

/* The amplification and its split as bench stored them (schema 8), not
 * what the stored totals would give; the three parts judged under it,
 * lower better for each: B's records cost more pool bytes per dataset
 * byte (worse), its log fewer per guest byte (better), the same dataset
 * bytes (within noise).  An incomplete row's stored figures are left out. */
static void test_stored_split(void **state)
{
	(void)state;
	char dir[] = "/tmp/nfsagent-compare-XXXXXX";
	na_store *s = temp_store(dir);
	vs_error err = {0};
	for (int i = 0; i < 11; i++) {
		bool big = i >= 5 && i < 10, lost = i == 10;
		double jitter = 1 + 0.01 * (i % 5);
		na_result r = {.started_at = "2026-01-01T00:00:00Z", .status = "ok", .profile = "randwrite"};
		r.write = (na_dir_stats){.present = true, .iops = 40000, .bw_bytes = 160e6,
		                         .lat_mean_us = 30, .p99_us = 90, .runtime_ms = 60000};
		double to_data = (big ? 31.4 : 7.8) * jitter, log = (big ? 0.5 : 1.0) * jitter;
		/* the totals would give 2x; the stored figures say otherwise */
		na_nas_run n = {.dataset = big || lost ? "tank/vm64k" : "tank/vm16k",
		                .recordsize = big || lost ? 65536 : 16384,
		                .pool_known = true, .interval_s = 1, .intervals = 60,
		                .data_write_bytes = (int64_t)(160e6 * 60 * 2),
		                .counters_known = true, .dataset_written = (int64_t)(160e6 * 60),
		                .arc_hit_ratio = -1, .measured_s = 60, .window_s = 60,
		                .amplification = 1.02 * jitter * to_data + log,
		                .amp_guest_to_dataset = 1.02 * jitter, .amp_dataset_to_data = to_data,
		                .amp_log_share = log, .incomplete = lost,
		                .why = lost ? "zpool exited 1" : NULL};
		r.nas = &n;
		assert_int_equal(na_store_add(s, &r, &err), VS_OK);
	}
	na_cmp_group a = {0}, b = {0};
	assert_int_equal(na_cmp_load(s, "zfs_recordsize=16K", &a, &err), VS_OK);
	assert_int_equal(na_cmp_load(s, "zfs_recordsize=64K", &b, &err), VS_OK);
	assert_int_equal(b.n, 6);
	assert_true(fabs(a.rows[0].layer[NA_L_AMPLIFICATION] - (1.02 * 7.8 + 1.0)) < 1e-9);
	assert_true(fabs(b.rows[1].layer[NA_L_AMP_GUEST_TO_DATASET] - 1.02 * 1.01) < 1e-9);
	assert_true(fabs(b.rows[1].layer[NA_L_AMP_DATASET_TO_DATA] - 31.4 * 1.01) < 1e-9);
	assert_true(fabs(b.rows[1].layer[NA_L_AMP_LOG_SHARE] - 0.5 * 1.01) < 1e-9);
	for (int m = NA_L_POOL_READ; m < NA_L_COUNT; m++)  /* the incomplete row: none */
		assert_true(b.rows[5].layer[m] < 0);

	na_cmp c;
	assert_int_equal(na_cmp_run(&a, &b, by_profile, 1, 0, &c), VS_OK);
	/* pool data read (0 on both: left out), pool data write, then the
	 * amplification and its parts, in that order: four verdicts, one family */
	assert_int_equal(c.n_layers, 5);
	const int want[] = {NA_L_POOL_WRITE, NA_L_AMPLIFICATION, NA_L_AMP_GUEST_TO_DATASET,
	                    NA_L_AMP_DATASET_TO_DATA, NA_L_AMP_LOG_SHARE};
	const int verdict[] = {NA_NOISE_SHOWN, NA_NOISE_BEYOND, NA_NOISE_WITHIN, NA_NOISE_BEYOND,
	                       NA_NOISE_BEYOND};
	const char *const change[] = {NULL, "worse", NULL, "worse", "better"};
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(c.layers[i].metric, want[i]);
		assert_int_equal(c.layers[i].eff.judged, i > 0);
		assert_int_equal(c.layers[i].eff.verdict, verdict[i]);
		assert_int_equal(c.layers[i].sb.n, 5);
		if (i > 0)
			assert_int_equal(c.layers[i].eff.family, 4);
		na_cmp_cells cells;
		na_cmp_layer_cells_of(&c.layers[i], &cells);
		if (change[i])
			assert_non_null(strstr(cells.change, change[i]));
	}
	na_cmp_cells cells;
	na_cmp_layer_cells_of(&c.layers[1], &cells);
	assert_string_equal(cells.metric, "write amplification");
	assert_string_equal(cells.a, "9.30x (8.96-9.65, n=5)");  /* stored, not the totals' 2.00x */
	na_cmp_layer_cells_of(&c.layers[3], &cells);
	assert_string_equal(cells.metric, "amplification, dataset to data vdevs");
	assert_string_equal(cells.b, "32.0x (31.4-32.7, n=5)");
	na_cmp_layer_cells_of(&c.layers[4], &cells);
	assert_string_equal(cells.metric, "amplification, log share");
	na_cmp_free(&c);
	na_cmp_group_free(&a);
	na_cmp_group_free(&b);
	temp_store_remove(s, dir);
}

/* A result of VM fiotest with its NAS side's recordsize. */
static void add_trap_run(na_store *s, const char *vcenter, const char *ds, const char *disk,
                         int64_t recordsize)
{
	vs_error err = {0};
	na_result r = {.started_at = "2026-01-01T00:00:00Z", .status = "ok", .profile = "p",
	               .vcenter = vcenter, .vm = "fiotest", .datastore = ds, .disk = disk};
	r.write = (na_dir_stats){.present = true, .iops = 100, .bw_bytes = 409600};
	na_nas_run n = {.dataset = "tank/vm", .recordsize = recordsize};
	r.nas = &n;
	assert_int_equal(na_store_add(s, &r, &err), VS_OK);
}

/* compare's trap sentences for group A, vm=fiotest (*n of them). */
static char **trap_text(na_store *s, size_t *n)
{
	vs_error err = {0};
	na_cmp_group g = {0};
	assert_int_equal(na_cmp_load(s, "vm=fiotest", &g, &err), VS_OK);
	char **text = NULL;
	assert_int_equal(na_trap_sentences(s, &g, "A", &text, n, &err), VS_OK);
	na_cmp_group_free(&g);
	return text;
}

static const char trap_16k_after_1[] =
	"1 run of A measured recordsize 16K on disk-1000-0 [ds1] fiotest/fiotest.vmdk after result 1 "
	"measured 128K there: the disk may still hold 128K records, since a recordsize applies to "
	"blocks written after it is set";

/* The seeds' trap: runs on a disk whose dataset's recordsize changed under
 * it (an earlier result of its stay measured another), a move away ending
 * the stay. */
/* Schema 11's figures as layers: the log's waits in us (judged, lower
 * better), the ZIL's a second, the txgs' sync time and dirty data; none
 * from an incomplete row, none not measured. */
static void test_zfs_layers(void **state)
{
	(void)state;
	na_result r = {.write = {.present = true, .bw_bytes = 138e6, .runtime_ms = 60000}};
	na_nas_run n = {.pool_known = true, .log_write_ops = 600000, .counters_known = true,
	                .zil_commits = 1200000, .zil_slog_bytes = (int64_t)(138e6 * 30),
	                .arc_hit_ratio = -1, .window_s = 30, .amplification = -1,
	                .log_write_wait_ms = 0.095, .log_sync_write_wait_ms = 0.015,
	                .txgs_known = true, .txg_count = 6, .txg_sync_mean_ms = 812.5,
	                .txg_sync_max_ms = 1204, .txg_dirty_mean_bytes = 410e6};
	double layer[NA_L_COUNT];
	na_cmp_layers(&r, &n, layer);
	assert_true(fabs(layer[NA_L_LOG_WAIT] - 95) < 1e-9);
	assert_true(fabs(layer[NA_L_LOG_SYNC_WAIT] - 15) < 1e-9);
	assert_true(fabs(layer[NA_L_ZIL_COMMITS] - 40000) < 1e-9);  /* over the 30 s window */
	assert_true(fabs(layer[NA_L_ZIL_SLOG] - 138) < 1e-9);
	assert_true(layer[NA_L_ZIL_NORMAL] == 0);
	assert_true(layer[NA_L_TXG_SYNC] == 812.5 && layer[NA_L_TXG_SYNC_MAX] == 1204);
	assert_true(fabs(layer[NA_L_TXG_DIRTY] - 410) < 1e-9);
	assert_string_equal(na_layers[NA_L_LOG_WAIT].unit, " us");
	/* not measured: none; an incomplete row: none */
	n.log_write_wait_ms = n.txg_sync_mean_ms = -1;
	n.zil_commits = 0;
	na_cmp_layers(&r, &n, layer);
	assert_true(layer[NA_L_LOG_WAIT] < 0 && layer[NA_L_TXG_SYNC] < 0 && layer[NA_L_ZIL_COMMITS] < 0);
	assert_true(layer[NA_L_LOG_SYNC_WAIT] == 15);
	n.incomplete = true;
	na_cmp_layers(&r, &n, layer);
	assert_true(layer[NA_L_LOG_SYNC_WAIT] < 0 && layer[NA_L_TXG_SYNC_MAX] < 0);
	/* A SLOG ten times slower in B: judged worse, by the same engine. */
	const double a[] = {95, 96, 94, 95, 97}, b[] = {950, 960, 940, 955, 965};
	na_effect e = na_cmp_layer_effect(NA_L_LOG_WAIT, a, 5, b, 5, 0);
	assert_true(e.judged);
	assert_int_equal(e.verdict, NA_NOISE_BEYOND);
	assert_true(e.ratio > 9.9 && e.ratio < 10.1);
	/* Longer txg syncs may be more data: shown, no verdict. */
	e = na_cmp_layer_effect(NA_L_TXG_SYNC, a, 5, b, 5, 0);
	assert_false(e.judged);
	assert_int_equal(e.verdict, NA_NOISE_SHOWN);
}

static void test_recordsize_trap(void **state)
{
	(void)state;
	char dir[] = "/tmp/nfsagent-compare-XXXXXX";
	na_store *s = temp_store(dir);
	/* 1, 2 at 128K; 3 at 16K (changed under the disk); 4 elsewhere (moved);
	 * 5 back at 16K (written anew); 6 at 128K (changed again) */
	const char *ds[] = {"ds1", "ds1", "ds1", "ds2", "ds1", "ds1"};
	const int64_t rs[] = {131072, 131072, 16384, 16384, 16384, 131072};
	for (int i = 0; i < 6; i++) {
		char disk[64];
		snprintf(disk, sizeof(disk), "disk-1000-0 [%s] fiotest/fiotest.vmdk", ds[i]);
		add_trap_run(s, NULL, ds[i], disk, rs[i]);
	}
	size_t n = 0;
	char **text = trap_text(s, &n);
	assert_int_equal(n, 2);
	assert_string_equal(text[0], trap_16k_after_1);
	assert_non_null(strstr(text[1], "1 run of A measured recordsize 128K on disk-1000-0 [ds1] "
	                                "fiotest/fiotest.vmdk after result 5 measured 16K there"));
	for (size_t i = 0; i < n; i++)
		free(text[i]);
	free(text);
	temp_store_remove(s, dir);
}

/* A VM is known by its vCenter and name, and each of its disks has a stay
 * of its own: a run on another disk does not end it, a disk moved does. */
typedef struct trap_seen {
	int64_t other_id[4], first_id[4];
	size_t n;
} trap_seen;

static int note_now(const na_result *r, const na_trap *t, void *ud, vs_error *err)
{
	(void)err;
	trap_seen *seen = ud;
	if (!r->id && seen->n < 4) {
		seen->other_id[seen->n] = t->other_id;
		seen->first_id[seen->n++] = t->first_id;
	}
	return VS_OK;
}

static void test_trap_stays(void **state)
{
	(void)state;
	char dir[] = "/tmp/nfsagent-compare-XXXXXX";
	na_store *s = temp_store(dir);
	vs_error err = {0};
	/* 1 disk 0 at 128K; 2 disk 1 elsewhere; 3 disk 0 at 16K (changed under
	 * it: result 2 did not end its stay); 4 a VM of the same name in
	 * another vCenter, at 128K after 3's 16K: its own stay */
	const char *vc[] = {"vc1", "vc1", "vc1", "vc2"};
	const char *disk[] = {"disk-1000-0 [ds1] fiotest/fiotest.vmdk",
	                      "disk-1000-1 [ds2] fiotest/fiotest_1.vmdk",
	                      "disk-1000-0 [ds1] fiotest/fiotest.vmdk",
	                      "disk-1000-0 [ds1] fiotest/fiotest.vmdk"};
	const char *ds[] = {"ds1", "ds2", "ds1", "ds1"};
	const int64_t rs[] = {131072, 16384, 16384, 131072};
	for (int i = 0; i < 4; i++)
		add_trap_run(s, vc[i], ds[i], disk[i], rs[i]);
	size_t n = 0;
	char **text = trap_text(s, &n);
	assert_int_equal(n, 1);
	assert_string_equal(text[0], trap_16k_after_1);
	free(text[0]);
	free(text);
	/* bench's runs to come, one per disk of the VM on ds1: disk 0 stayed
	 * (its first 128K result is 1), disk 1 was moved there (a new stay) */
	na_result now[] = {
		{.vcenter = "vc1", .disk = disk[0], .datastore = "ds1", .zfs_recordsize = "16384",
		 .started_at = "2026-01-02T00:00:00Z"},
		{.vcenter = "vc1", .disk = "disk-1000-1 [ds1] fiotest/fiotest_1.vmdk", .datastore = "ds1",
		 .zfs_recordsize = "16384", .started_at = "2026-01-02T00:00:00Z"},
	};
	trap_seen seen = {0};
	assert_int_equal(na_trap_walk(s, "fiotest", now, 2, note_now, &seen, &err), VS_OK);
	assert_int_equal(seen.n, 2);
	assert_int_equal(seen.other_id[0], 1);
	assert_int_equal(seen.first_id[0], 1);
	assert_int_equal(seen.other_id[1], 0);
	assert_int_equal(seen.first_id[1], 0);
	/* vc2's VM: its disk's stay began with result 4 */
	seen = (trap_seen){0};
	now[0].vcenter = "vc2";
	assert_int_equal(na_trap_walk(s, "fiotest", now, 1, note_now, &seen, &err), VS_OK);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.first_id[0], 4);
	assert_int_equal(seen.other_id[0], 4);
	temp_store_remove(s, dir);
}

/* The compare command nfsagent prints is pasted into a shell: a campaign
 * name is one word, whatever it holds. */
static void test_shell_quote(void **state)
{
	(void)state;
	const char *cases[][2] = {
		{"campaign=nfs3-vs-nfs41-20261201T112448,target=nfs3",
		 "campaign=nfs3-vs-nfs41-20261201T112448,target=nfs3"},
		{"campaign=a b,target=$(touch x)", "'campaign=a b,target=$(touch x)'"},
		{"it's", "'it'\\''s'"},
		{"", "''"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *q = na_shell_quote(cases[i][0]);
		assert_string_equal(q, cases[i][1]);
		free(q);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_selector), cmocka_unit_test(test_lines),
		cmocka_unit_test(test_factors),  cmocka_unit_test(test_filter),
		cmocka_unit_test(test_factor_mix),
		cmocka_unit_test(test_job_file_across_processes), cmocka_unit_test(test_regression_rule),
		cmocka_unit_test(test_pooled_p99),     cmocka_unit_test(test_mixed_family),
		cmocka_unit_test(test_thresholds), cmocka_unit_test(test_load),
		cmocka_unit_test(test_shell_quote), cmocka_unit_test(test_nas_layers),
		cmocka_unit_test(test_zfs_layers),
		cmocka_unit_test(test_recordsize_trap), cmocka_unit_test(test_stored_split),
		cmocka_unit_test(test_trap_stays),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
