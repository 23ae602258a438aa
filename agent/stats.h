/* Small statistics over repetitions (pure), and the one rule nfsagent uses
 * to say whether a difference between two groups of runs is more than
 * run-to-run noise. */
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

typedef enum na_noise {
	NA_NOISE_TOO_FEW,  /* "too few runs to tell" */
	NA_NOISE_WITHIN,   /* "within noise" */
	NA_NOISE_BEYOND,   /* "beyond noise" */
} na_noise;

/* (b - a) / a in percent of the medians; NAN when a's median is not > 0. */
double na_change_pct(const na_spread *a, const na_spread *b);
/* (max - min) / median; INFINITY when the median is not > 0. */
double na_rel_spread(const na_spread *s);
/* Whether the ranges [min, max] share a value (touching counts). */
bool na_ranges_overlap(const na_spread *a, const na_spread *b);
/* The rule; na_noise_method says it in words. */
na_noise na_noise_of(const na_spread *a, const na_spread *b);
const char *na_noise_name(na_noise v);
/* Two-sided exact p of a Mann-Whitney U at its extreme (U = 0: every value
 * of one group above every value of the other): 2 / C(n1 + n2, n1). */
double na_mann_whitney_extreme_p(size_t n1, size_t n2);
/* 17,700 / 72.5 / 7.20: three significant digits or more, with thousands
 * separators as in the seeds' tables. */
const char *na_number_text(double v, char *buf, size_t size);
/* "17,700 (12,100-17,700, n=3)": the values times scale, unit after the median. */
const char *na_spread_text(const na_spread *s, double scale, const char *unit, char *buf,
                           size_t size);
/* "+12.3% better", "-8.1% worse" (better knows whether lower is better),
 * "+0.0%" or "n/a". */
const char *na_change_text(double pct, bool lower_is_better, char *buf, size_t size);
/* The rule in words, one paragraph, for output footers. */
extern const char na_noise_method[];
/* text on lines of at most width columns (longer words stay whole). */
void na_print_wrapped(FILE *out, const char *text, size_t width);

/* 17700 -> "17,700" (rounded to a whole number). */
const char *na_thousands(double v, char *buf, size_t size);

#endif
