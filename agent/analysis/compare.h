/* Comparing two groups of results (shared by compare and regress): loading
 * them by selector, matching runs of the same workload, each metric's effect
 * and verdict from the engine of stats.h, whether the groups ran one after
 * the other, and the factors in which the groups' provenance differs. */
#ifndef NFSAGENT_COMPARE_H
#define NFSAGENT_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "fio.h"
#include "analysis/stats.h"
#include "store/store.h"


enum { NA_M_IOPS, NA_M_MBPS, NA_M_AVG, NA_M_P99, NA_M_COUNT };
typedef struct na_metric_info {
	const char *key;     /* "iops", "mbps", "avg", "p99": threshold and JSON names */
	const char *label;   /* "IOPS", "MB/s", "avg latency", "p99 latency" */
	bool lower_is_better;
	/* A verdict line: IOPS and p99 carry independent evidence; MB/s is IOPS
	 * times the block size and average latency follows from IOPS and the
	 * queue depth, so they are shown without a verdict of their own. */
	bool judged;
} na_metric_info;
extern const na_metric_info na_metrics[NA_M_COUNT];
extern const char *const na_dir_names[2];  /* "read", "write" */

/* The layers under the guest's fio rows: what ESXi's datastore counters
 * and the NAS's pool saw of the same run (bench --nas).  Amplification is
 * pool bytes written / guest bytes written (nas_amplification_of), and
 * under it its split's three parts (dataset bytes per guest byte, pool
 * data bytes per dataset byte, log bytes per guest byte): for each, lower
 * is better (more bytes for the guest's is worse), the layers judged.  A
 * rate (MB/s) or the ARC's hit share by itself is neither better nor worse
 * (more pool MB/s may be more guest MB/s, or more waste): shown with its
 * change, without a verdict.  A value
 * of 0 is measured (a write-only run's pool reads), not a stall: a line
 * with one has no ratio of logs, so no test (na_cmp_layer_effect). */
/* The log device's write wait and its sync queue's share (us) have a
 * better side, lower, and are judged; the ZIL's commits and bytes a
 * second and the txgs' sync time and dirty data (schema 11) are shown
 * with their change only: more of them may be more guest writes. */
enum { NA_L_ESXI_READ, NA_L_ESXI_WRITE, NA_L_POOL_READ, NA_L_POOL_WRITE, NA_L_SPECIAL_WRITE,
       NA_L_LOG_WRITE, NA_L_AMPLIFICATION, NA_L_AMP_GUEST_TO_DATASET, NA_L_AMP_DATASET_TO_DATA,
       NA_L_AMP_LOG_SHARE, NA_L_ARC_HITS, NA_L_LOG_WAIT, NA_L_LOG_SYNC_WAIT, NA_L_ZIL_COMMITS,
       NA_L_ZIL_SLOG, NA_L_ZIL_NORMAL, NA_L_TXG_SYNC, NA_L_TXG_SYNC_MAX, NA_L_TXG_DIRTY,
       NA_L_COUNT };
typedef struct na_layer_info {
	const char *key;     /* JSON: "esxi_write_mbps", "pool_write_mbps", "amplification" */
	const char *label;   /* "ESXi datastore write", "pool data write", "write amplification" */
	const char *unit;    /* " MB/s", "x", "%" */
	bool lower_is_better;  /* when judged */
	bool judged;           /* a direction, so a verdict */
} na_layer_info;
extern const na_layer_info na_layers[NA_L_COUNT];
/* A result's layers (n: its NAS side, NULL for none); -1 where not measured
 * (compare_layers.c, as na_layers and na_cmp_layer_cells_of).  The
 * amplification and its parts are n's as stored (schema 8); a row from
 * before has the total alone, from its stored totals.  Pool figures come
 * from complete rows only. */
void na_cmp_layers(const na_result *r, const na_nas_run *n, double layer[NA_L_COUNT]);
/* B against A for layer m: na_effect_of, judged when the layer is; with a
 * value of 0 on either side, no test: the change is the medians' ratio,
 * never a run "at 0 left out". */
na_effect na_cmp_layer_effect(int m, const double *a, size_t na, const double *b, size_t nb,
                              double band);

/* One ok result, reduced to what a comparison needs. */
typedef struct na_cmp_row {
	int64_t id;
	int64_t group;                  /* the group run the row stands for (folded, id its
	                                 * first member's), 0: a single result */
	char *field[NA_N_FIELDS];       /* the store's listed fields (NA_FIELD_host, ...),
	                                 * job_file as a hash of its content; NULL when not
	                                 * recorded or not kept */
	char **label_keys, **label_values;
	size_t n_labels;
	bool present[2];                /* [read, write]: the direction did I/O */
	double metric[2][NA_M_COUNT];   /* IOPS, MB/s (10^6 B), avg us, p99 us; -1 unknown */
	na_fio_dir bins[2];             /* [read (a mixed job's), write]: its latency bins
	                                 * (na_cmp_row_bins); n_bins 0: none (plain json) */
	double layer[NA_L_COUNT];       /* -1: not measured (no NAS side, no host counters) */
	bool fell_back;                 /* asked NFS 4.1, ran as NFS 3: the extent-size bug */
} na_cmp_row;

typedef struct na_cmp_group {
	na_cmp_row *rows;
	size_t n;
} na_cmp_group;

/* "a=1,b=2" -> {"a=1", "b=2", "status=ok"}.  A part without '=' continues
 * the previous value, so servers=10.0.0.5,10.0.1.5 stays one condition. */
typedef struct na_selector {
	char *text;
	const char **conds;
	size_t n;
} na_selector;
int na_selector_parse(const char *selector, na_selector *sel, vs_error *err);
void na_selector_free(na_selector *sel);
/* For a selector that picked nothing: fills err with "WHAT has no ok
 * results: " and why in words (na_store_explain_none), and returns
 * VS_ERR_NOT_FOUND (cmd_compare.c). */
int na_selector_none(na_store *s, const char *what, const char *selector, vs_error *err);
/* The ok results the selector picks, in id order. */
int na_cmp_load(na_store *s, const char *selector, na_cmp_group *g, vs_error *err);
/* A row's IOPS, MB/s, mean and p99 (us) of a direction's statistics. */
void na_cmp_row_metrics(double *m, const na_dir_stats *d);
/* compare_groups.c: the members of a group run among g's rows become one
 * row, the group's (na_cmp_load does this): its figures, its members'
 * bins merged, vm naming them all and the label vms=N. */
int na_cmp_fold_groups(na_store *s, na_cmp_group *g, vs_error *err);
/* dst a copy of src, its own strings and bins (na_cmp_row_free frees
 * them, also after a failure). */
int na_cmp_row_copy(na_cmp_row *dst, const na_cmp_row *src, vs_error *err);
/* Frees a row's strings and bins (not the row). */
void na_cmp_row_free(na_cmp_row *r);
/* A row of r, without its latency bins: na_cmp_row_bins reads them. */
int na_cmp_group_add(na_cmp_group *g, const na_result *r);
/* Row w's latency bins, as the store recorded them with its result. */
int na_cmp_row_bins(na_store *s, na_cmp_row *w, vs_error *err);
/* compare_fallback.c: marks the rows of g that ran as NFS 3 because their
 * campaign target's NFS 4.1 showed the extent-size bug (the campaign's
 * finding says so; na_cmp_load does this). */
int na_cmp_mark_fallbacks(na_store *s, na_cmp_group *g, vs_error *err);
/* The answers of na_ran_as_nfs3 so far: each campaign target's finding is
 * read once (free with na_fallbacks_free). */
typedef struct na_fallbacks {
	struct na_fallback *v;
	size_t n;
} na_fallbacks;
/* Whether a result of campaign's target measured over type (datastore_type)
 * ran as NFS 3 because the target's NFS 4.1 showed the bug (the campaign's
 * finding says so); any of them NULL: it did not. */
int na_ran_as_nfs3(na_store *s, na_fallbacks *known, const char *campaign, const char *target,
                   const char *type, bool *fell, vs_error *err);
void na_fallbacks_free(na_fallbacks *known);
/* " (ran as NFS 3: extent-size bug)": what follows such a target's name. */
extern const char na_cmp_ran_as[];
/* "nfs41 (ran as NFS 3: extent-size bug)", each such target of g once,
 * with " in 2 of 6 results" when not all of g fell back (malloc'd); NULL
 * when none did. */
char *na_cmp_fallback_text(const na_cmp_group *g);
/* Drops (and frees) the rows keep() refuses. */
void na_cmp_group_filter(na_cmp_group *g, bool (*keep)(const na_cmp_row *r, void *ud), void *ud);
void na_cmp_group_free(na_cmp_group *g);
/* The row's label value for key, or NULL. */
const char *na_cmp_label(const na_cmp_row *r, const char *key);
/* Whether x and y agree on every key field (NULL equals NULL). */
bool na_cmp_same_key(const na_cmp_row *x, const na_cmp_row *y, const int *key, size_t n_key);
/* Whether g holds result id. */
bool na_cmp_group_has(const na_cmp_group *g, int64_t id);
/* Whether some row of g agrees with r on the key fields. */
bool na_cmp_has_key(const na_cmp_group *g, const na_cmp_row *r, const int *key, size_t n_key);

/* One metric of one direction of one key, A against B. */
typedef struct na_cmp_line {
	const na_cmp_row *key;   /* the first row of A with the line's key */
	int dir, metric;
	double *a, *b;           /* the runs' values */
	na_spread sa, sb;        /* p99: the median of the runs' p99s */
	na_effect eff;           /* B/A, its interval, p, MDE and verdict */
	double pooled_a, pooled_b;  /* p99 only: from the runs' merged fio bins, us; -1 unknown */
} na_cmp_line;

typedef struct na_cmp {
	na_cmp_line *lines;
	size_t n;
	/* Under each key's fio lines: its layers' lines (metric: NA_L_*, dir
	 * unused), judged by the same engine, Holm within each key's layers;
	 * a layer is left out when a side has no value or every value is 0. */
	na_cmp_line *layers;
	size_t n_layers;
	size_t keys;             /* keys present in both groups */
	size_t judged;           /* the verdict lines Holm's correction counts */
} na_cmp;

/* For each key present in both groups (in A's order), each direction that did
 * I/O in both, each metric known in both: a line.  band: --min-change as a
 * fraction (0 for none).  The verdicts are corrected together (na_verdicts). */
int na_cmp_run(const na_cmp_group *a, const na_cmp_group *b, const int *key, size_t n_key,
               double band, na_cmp *out);
void na_cmp_free(na_cmp *c);

/* When every run of one group started before every run of the other: the
 * sentence saying so, with both time ranges, the groups called name_a and
 * name_b ("A", "the baseline"; malloc'd); NULL when they interleave or a
 * start time is unknown. */
char *na_cmp_time_warning(const na_cmp_group *a, const na_cmp_group *b, const char *name_a,
                          const char *name_b);

/* A field (one the store's table marks a factor, or a label) whose mix of
 * values differs between the groups: other values, or
 * the same values in other proportions (A on host1 x4 + host2 x1, B the
 * reverse). */
typedef struct na_factor {
	char *name;              /* "protocol", "esxi_build", ... or a label key */
	char **a, **b;           /* the distinct values; "unset" for a missing one */
	size_t *ca, *cb;         /* how many runs had each */
	size_t na, nb;
} na_factor;
int na_cmp_factors(const na_cmp_group *a, const na_cmp_group *b, na_factor **out, size_t *n);
void na_factors_free(na_factor *f, size_t n);
/* "differs in: protocol (NFS41 vs NFS)", "differs in: host (esx01 x4 +
 * esx02 x1 vs esx01 x1 + esx02 x4)", "the groups differ in 2 factors: ...;
 * a change cannot be pinned on one of them", or "the groups differ in no
 * recorded factor" (malloc'd, NULL without memory). */
char *na_factors_sentence(const na_factor *f, size_t n);

/* What a line prints: "write IOPS", "17,700 (12,100-17,700, n=3)",
 * "7.20 ms (6.90-8.10, n=3)", "+12.3% better (95% CI +8.0% to +16.8%)",
 * "within noise: could only see ...", and for p99 "pooled 7.90 ms" from
 * the fio bins ("" when they are not stored).  A terminal's table is
 * narrower (issue 24: 120 columns): the spreads without their n (said once
 * in the header), the change without its interval, the verdict's name, and
 * the rest (interval, what "within noise" could see) in the row's note. */
typedef struct na_cmp_cells {
	char metric[64], a[96], b[96], change[96], verdict[128], pooled[64];
	char a_bare[80], b_bare[80], change_bare[32], verdict_bare[48], note[192];
} na_cmp_cells;
void na_cmp_cells_of(const na_cmp_line *l, na_cmp_cells *c);
/* The narrow cells and the note from the wide ones (na_cmp_cells_of and
 * na_cmp_layer_cells_of call it; compare_layers.c). */
void na_cmp_cells_narrow(const na_cmp_line *l, double scale, const char *unit, na_cmp_cells *c);

/* A layer's line in the same cells: "pool data write", "3,500 MB/s (...)". */
void na_cmp_layer_cells_of(const na_cmp_line *l, na_cmp_cells *c);
/* The verdict of a layer's line in a few words (for JSON): the engine's,
 * or "no verdict" (no better side), or "not tested: a run measured 0". */
const char *na_cmp_layer_verdict(const na_cmp_line *l);

/* Labels of g that contradict the settings measured with its runs
 * (recordsize=16K on runs whose zfs_recordsize is 64K): one sentence per
 * label value and measured value, "label recordsize=16K contradicts the
 * NAS in A: zfs_recordsize is 64K (5 runs)", into *out (malloc'd, *n of
 * them); VS_ERR_NOMEM. */
int na_cmp_label_conflicts(const na_cmp_group *g, const char *name, char ***out, size_t *n);

/* ---- compare_ceilings.c: a figure that is a ceiling's ---- */

/* One side of a comparison through its host: its name ("A", a report's
 * group), host, recorded link (link_speed_mbit as stored: Mb/s as text;
 * NULL unknown) and one direction's throughput. */
typedef struct na_net_side {
	const char *name, *host, *speed_mbit, *nic;
	double bytes_per_s;
} na_net_side;
enum { NA_NET_A = 1, NA_NET_B = 2 };
/* Which sides reached their link (NA_NET_A | NA_NET_B; na_network_bound
 * decides each), and when one did, line says so: "network-bound: both
 * sides at 1.13 GB/s through esx01's 10 Gb/s link (vmnic1): a change
 * between them is not a storage change", each side's figure when they
 * differ, or "network-bound: B only, at ...: B's figure is its link's,
 * not its storage's". */
int na_cmp_network_bound(const na_net_side *a, const na_net_side *b, char *line, size_t size);

/* A line of c found at a ceiling: sides as na_cmp_network_bound's. */
typedef struct na_cmp_hint {
	const na_cmp_line *line;
	int sides;
	char *text;
} na_cmp_hint;
/* c's MB/s lines (of groups a and b, matched by key) where a side ran at
 * its host's recorded link, each key's first row's link and host against
 * the median of its runs; *out malloc'd (na_cmp_hints_free); VS_ERR_NOMEM. */
int na_cmp_network_hints(const na_cmp *c, const na_cmp_group *b, const int *key, size_t n_key,
                         const char *name_a, const char *name_b, na_cmp_hint **out, size_t *n);
void na_cmp_hints_free(na_cmp_hint *h, size_t n);

/* A write profile's medians as the SLOG hint reads them: the log device's
 * own write rate (its zpool iostat bytes over fio's window), the guest's
 * write rate (MB/s) and bytes per write (MB/s over IOPS); -1/0 unknown. */
typedef struct na_slog_profile {
	const char *profile;
	double log_mbps, write_mbps, block_bytes;
} na_slog_profile;
/* The log device carries the bulk of a profile's writes at this share of
 * the guest's bytes (each sync write lands once on a SLOG). */
#define NA_SLOG_BULK_SHARE 0.5
/* Rates (and block sizes) within this share of each other are the same. */
#define NA_SLOG_SAME_SHARE 0.1
/* Whether two or more profiles of different block sizes, each with the
 * log device carrying the bulk of its writes, ran at the log device's
 * fastest rate (within NA_SLOG_SAME_SHARE): line says "SLOG-bound: the log
 * device wrote ~930 MB/s in each of seqwrite-1m, seqwrite-128k (A): the
 * SLOG is the ceiling for these writes". */
bool na_slog_bound(const na_slog_profile *p, size_t n, const char *group, char *line, size_t size);
/* na_slog_bound of g's write profiles (rows with a NAS side), group its name. */
bool na_cmp_slog_hint(const na_cmp_group *g, const char *group, char *line, size_t size);

/* compare_limits.c: one line per profile of g (its guest runs): what
 * limited its runs, the verdict most of them got with the median run's
 * evidence and the guest against the pool's own ("A randwrite-4k-qd16:
 * limited by path in 3 of 3 runs: ..."), or "undetermined: the runs
 * disagree (path 2, log device 1)"; *out malloc'd strings (free each). */
int na_cmp_limit_lines(na_store *s, const na_cmp_group *g, const char *name, char ***out, size_t *n,
                       vs_error *err);

/* compare_json.c: the line as JSON: values, spreads, estimate, interval, p,
 * MDE, verdict and method; na_cmp_effect_json the figures alone, for a
 * metric where lower is better or not; na_cmp_unit "IOPS", "MB/s", "us". */
json_t *na_cmp_line_json(const na_cmp_line *l);
json_t *na_cmp_effect_json(const na_cmp_line *l, bool lower_is_better);
const char *na_cmp_unit(int metric);

/* --max-drop iops=10% / --max-rise p99=20% (cmd_regress.c) */
typedef struct na_threshold {
	int metric;
	double pct;
	bool rise;
} na_threshold;
int na_threshold_parse(const char *arg, bool rise, na_threshold *t, vs_error *err);
/* Whether the estimate is past the limit, and whether the whole 95%
 * interval is (the regression rule: a drop whose interval lies wholly
 * beyond the threshold). */
bool na_threshold_exceeded(const na_threshold *t, double change_pct);
bool na_threshold_clear(const na_threshold *t, const na_effect *e);
/* Whether the whole 95% interval lies within the limit (a pass the runs
 * show); false without an interval (too few runs). */
bool na_threshold_within(const na_threshold *t, const na_effect *e);

#endif
