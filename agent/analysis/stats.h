/* The one statistics engine of nfsagent (pure, libm only): what a group of
 * runs says of one metric, and whether two groups differ by more than
 * run-to-run noise.  The bench summary, compare, regress and report all
 * call it, so that they cannot disagree.
 *
 * Runs are the replicates.  Throughputs and latencies vary by a factor from
 * run to run, so the engine works on the logarithms of the values and on the
 * ratio B/A: a t test on the logs (pooled variance, df = nA + nB - 2) gives
 * the ratio with a confidence interval (95% for a line alone, wider when
 * several lines are judged together).  Swapping A and B mirrors the
 * interval (1/hi to 1/lo) and, without a --min-change band, keeps the
 * verdict. */
#ifndef NFSAGENT_STATS_H
#define NFSAGENT_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct na_spread {
	size_t n;
	double median, min, max;
} na_spread;

/* Median, min and max of the values that are >= 0 (negative = unknown). */
na_spread na_spread_of(const double *values, size_t n);

/* Fewer runs than this in either group and no difference is claimed. */
enum { NA_NOISE_MIN_RUNS = 3 };
/* From this many runs a side the rank test checks the t test. */
enum { NA_RANK_MIN_RUNS = 4 };

typedef enum na_noise {
	NA_NOISE_TOO_FEW,  /* "too few runs to tell" */
	NA_NOISE_WITHIN,   /* "within noise" */
	NA_NOISE_BEYOND,   /* "beyond noise" */
	NA_NOISE_SHOWN,    /* shown without a verdict of its own ("follows IOPS") */
} na_noise;
const char *na_noise_name(na_noise v);

/* What one group's runs say of one metric. */
typedef struct na_group {
	na_spread spread;      /* of the values >= 0 */
	size_t n;              /* the values > 0: those with a logarithm */
	double mean, sd;       /* of ln(value); sd is NAN below 2 values */
} na_group;
na_group na_group_of(const double *values, size_t n);
/* The geometric mean of the values > 0, NAN without one: the central value
 * whose ratio between two groups is their change (na_effect_of). */
double na_geomean(const double *values, size_t n);
/* The group's run-to-run spread as a percentage: 100 (e^sd - 1); NAN below 2. */
double na_group_spread_pct(const na_group *g);

/* Two-sided 5% per family of verdict lines; power 80% for the minimum
 * detectable effect. */
#define NA_ALPHA 0.05
#define NA_POWER 0.80

/* In a family, an IOPS line weighs this many p99 lines: the throughput is
 * the question an admin asks first, and p99, a tail partly following IOPS,
 * is the noisier line. */
#define NA_IOPS_WEIGHT 4.0

/* B against A for one metric. */
typedef struct na_effect {
	na_noise verdict;
	bool judged;           /* a verdict line (IOPS, p99); else NA_NOISE_SHOWN */
	size_t na, nb;         /* the runs in the test: values > 0 */
	size_t stalled_a, stalled_b;  /* runs at 0 (a stall), shown but left out of the test */
	double ratio, lo, hi;  /* B/A of the geometric means and its interval at level
	                        * 1 - alpha, the verdict's; NAN when too few */
	double center_a, center_b;  /* what ratio is B/A of, so a table prints them beside
	                        * it: the geometric means of the values > 0 (NAN without) */
	double p;              /* t test on the logs, two-sided, against no change */
	double p_band;         /* against "no change beyond the band" (= p without one) */
	double p_holm;         /* p_band after Holm across the line's family */
	double sd;             /* pooled sd of the logs */
	double alpha;          /* the level the verdict, the interval and the mde use:
	                        * NA_ALPHA alone, Holm's step for the line in a family */
	size_t family;         /* the verdict lines judged together (1 until na_verdicts) */
	double weight;         /* its share of the family's level (1; IOPS lines NA_IOPS_WEIGHT) */
	double band;           /* --min-change as a fraction (0.05), 0 for none */
	double mde;            /* rise seen with 80% power, as a fraction: 0.22 = +22% */
	double mde_drop;       /* drop seen with 80% power: 0.18 = -18%; NAN when no drop
	                        * can clear the band (band >= 100%) */
	double mw_p;           /* exact Mann-Whitney p, two-sided; NAN below 4 runs a side */
	double hl_ratio;       /* Hodges-Lehmann estimate of B/A; NAN below 4 runs a side */
	bool fragile;          /* t test and rank test disagree: the verdict depends on one run */
	bool same;             /* every run of each side measured one value (3 runs a side or
	                        * more): the interval has no width and says nothing */
} na_effect;

/* The effect of B against A (values < 0 are unknown; values of 0 are stalls,
 * counted and left out, since they have no logarithm); band is the
 * practical-significance band as a fraction (0 for none): a change counts
 * only when its interval lies wholly above +band or wholly below -band (a
 * rise of at least 5% or a drop of at least 5%); judged says whether the
 * line carries a verdict.  The verdict is at NA_ALPHA until na_verdicts. */
na_effect na_effect_of(const double *a, size_t na, const double *b, size_t nb, double band,
                       bool judged);
/* The interval, mde and verdict of e at level alpha: "beyond noise" exactly
 * when that interval clears the band, so the two never contradict. */
void na_effect_level(na_effect *e, double alpha);
/* Holm's weighted step-down correction across one family of verdict lines
 * (one profile's IOPS and p99 lines): the chance that a family of lines with
 * no true change shows any change stays NA_ALPHA, whatever their dependence.
 * At each step the line with the smallest p / weight is held to NA_ALPHA
 * times its share of the weight left; a line called passes its share on.
 * Each line gets p_holm, family and the level it was judged at (its step's
 * when called; the step where the calls stopped when not). */
void na_verdicts(na_effect *const *lines, size_t n);

/* The change B/A as a percentage, (ratio - 1) * 100; NAN when unknown. */
double na_effect_pct(const na_effect *e);
/* Minimum detectable rise (fraction) for a pooled sd of the logs, runs a
 * side, two-sided level alpha, 80% power, beyond band.  A rise is the harder
 * direction: the drop seen is smaller (na_mde_drop). */
double na_mde(double sd, size_t na, size_t nb, double alpha, double band);
/* The same for drops: 0.18 = a drop of 18%; NAN when no drop clears the band. */
double na_mde_drop(double sd, size_t na, size_t nb, double alpha, double band);
/* Runs a side that would see a change (fraction, 0.10) either way at that
 * spread and level with 80% power; 0 when no number up to 10,000 would
 * (change <= band). */
size_t na_runs_needed(double sd, double change, double alpha, double band);
/* "95", "97.5", "98.75": the confidence level of alpha, in percent. */
const char *na_level_text(double alpha, char *buf, size_t size);

/* ---- the distributions, exposed for their tests ---- */
double na_t_cdf(double t, double df);
double na_t_quantile(double p, double df);
/* Exact two-sided Mann-Whitney p of a against b (no ties correction; a tie
 * counts half); NAN with fewer than NA_RANK_MIN_RUNS or over 100 a side. */
double na_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb);
/* The median of all ratios b_j / a_i (on the logs); NAN without values. */
double na_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb);

/* ---- time order ---- */
/* -1 when every run of A started before every run of B, +1 the reverse, 0
 * when they interleave or a time is unknown (NULL).  ISO-8601 UTC times
 * compare as text. */
int na_time_order(const char *const *a, size_t na, const char *const *b, size_t nb);

/* ---- text ---- */
/* 17,700 / 72.5 / 7.20: three significant digits or more, with thousands
 * separators as in the seeds' tables. */
const char *na_number_text(double v, char *buf, size_t size);
/* "17,700 (12,100-17,700, n=3)": center (NAN: the median) and the spread's
 * min and max times scale, unit after the center.  A comparison's center
 * is its effect's (center_a, center_b): the figures its change is the
 * ratio of. */
const char *na_spread_text(const na_spread *s, double center, double scale, const char *unit,
                           char *buf, size_t size);
/* The same without its n, "17,700 (12,100-17,700)": a table that says the
 * runs once in its header. */
const char *na_spread_bare_text(const na_spread *s, double center, double scale, const char *unit,
                                char *buf, size_t size);
/* "+12.3% better", "-8.1% worse" (better knows whether lower is better),
 * "+0.0%" or "n/a". */
const char *na_change_text(double pct, bool lower_is_better, char *buf, size_t size);
/* "+9.7% better (95% CI -5.4% to +27.1%)" at the verdict's level ("97.5% CI"
 * in a family of 2), or the change alone when too few or when neither side
 * varied (same: the interval would be zero-wide). */
const char *na_effect_text(const na_effect *e, bool lower_is_better, char *buf, size_t size);
/* "beyond noise", "within noise: could only see rises of about +22% or drops
 * of about -18% with 5 runs a side", "too few runs to tell", "follows IOPS",
 * "the same in every run" (no change, no spread) or "beyond noise: each
 * side the same in every run";
 * with "; depends on one run" when the rank test disagrees and "; 1 run of B
 * at 0 left out of the test" for stalls. */
const char *na_verdict_text(const na_effect *e, char *buf, size_t size);
/* The rule in words, for output footers. */
extern const char na_noise_method[];
/* Terminal output fits this many columns (issue 24: an admin's terminal). */
enum { NA_TEXT_WIDTH = 120 };
/* text on lines of at most width columns (longer words stay whole), the
 * first line indented by first spaces, the others by rest. */
void na_print_wrapped(FILE *out, const char *text, size_t width, size_t first, size_t rest);
/* What write(what) puts in a text, wrapped to NA_TEXT_WIDTH as above (its
 * leading spaces and its last newline left out). */
void na_print_wrapped_by(FILE *out, void (*write)(FILE *, const void *), const void *what,
                         size_t first, size_t rest);
/* "warning: text" on stdout, wrapped to NA_TEXT_WIDTH. */
void na_warn_wrapped(const char *text);

/* "10%" or "10" -> 10: a number >= 0 with an optional '%'; false otherwise. */
bool na_percent_parse(const char *text, double *pct);
/* 17700 -> "17,700" (rounded to a whole number). */
const char *na_thousands(double v, char *buf, size_t size);

#endif
