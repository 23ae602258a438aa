/* What the report's files share (report.c: reading, grouping and the page;
 * report_layers.c: what ESXi's counters and the NAS add under the fio
 * numbers, and the recordsize trap): the rows read, the report being written, and the helpers its
 * tables use.  Only the report's files include this; the rest of nfsagent
 * sees report.h. */
#ifndef NFSAGENT_REPORT_INTERNAL_H
#define NFSAGENT_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/compare.h"
#include "analysis/report.h"

enum { NA_REPORT_MAX_BY = 16 };

/* One selected result, copied. */
typedef struct na_report_row {
	int64_t id;
	char *f[NA_N_FIELDS];  /* the store's listed text fields; --group-by may name any */
	na_label *labels;  /* owned copies */
	size_t n_labels;
	bool ok;
	na_dir_stats dir[2];
	size_t group, profile;
	double layer[NA_L_COUNT];  /* ESXi's and the pool's (compare's), -1 not measured */
	na_timeline timeline;      /* n 0 without a NAS side */
	char cache[96];            /* why its reads came from a cache, as the CLI flags them
	                            * ("16.0 MiB fits in the ARC's 7.2 GiB"); "" if not */
} na_report_row;

typedef struct na_report_page {
	na_report_row *rows;
	size_t n, cap;
	const char *by[NA_REPORT_MAX_BY];  /* static names, the options' or the rows' label keys */
	size_t n_by;
	char **groups, **profiles;
	size_t n_groups, n_profiles;
	size_t n_findings;
	const na_report_opts *o;
	FILE *out;
	na_store *store;
	na_cmp_group results;   /* each row as compare reads it, in the same order */
	/* [p * n_groups + g]: group g's ok runs of profile p as compare reads
	 * them (na_report_pick: group runs folded), and compare's run of them
	 * against the profile's first group (none for the first): the lines and
	 * verdicts the page shows are compare's (na_cmp_run). */
	na_cmp_group *picked;
	na_cmp *cmps;
} na_report_page;

/* Whether group g has runs of profile p (SIZE_MAX: of any profile). */
bool na_report_in_profile(const na_report_page *r, size_t p, size_t g);
/* The group a profile's ratios compare with: its first. */
size_t na_report_first_group(const na_report_page *r, size_t p);
/* A table's head: first's cell, then each group of profile p with its colour. */
void na_report_group_header(const na_report_page *r, size_t p, const char *first);
/* A cell's change against the first group and its verdict, in words. */
void na_report_ratio(const na_report_page *r, const char *change, const char *verdict);
/* The figure group g's cell leads with (metric's line units): the one
 * compare's change against the profile's first group is the ratio of (the
 * first group's, from its pairs), else geomean, the runs' own; a cell's
 * bold figure and its change never disagree (issue 36).  With a line,
 * *spread becomes that side's runs as compare counts them (a group run is
 * one), so the median, range and n beside the figure are of the same runs. */
double na_report_center(const na_report_page *r, size_t p, size_t g, int dir, int metric,
                        bool layer, double geomean, na_spread *spread);
/* compare's line of group g of profile p against the profile's first group:
 * metric (NA_M_* of direction dir, or with layer NA_L_*); NULL when compare
 * has none (the first group, a metric one side lacks). */
const na_cmp_line *na_report_line(const na_report_page *r, size_t p, size_t g, int dir, int metric,
                                  bool layer);

/* Group g's ok rows of profile p (SIZE_MAX: of any), copied from
 * r->results into out (na_cmp_group_free), and the group runs whose
 * members are all among them folded into one row each, as compare reads a
 * selection (na_cmp_fold_groups). */
int na_report_pick(const na_report_page *r, size_t p, size_t g, na_cmp_group *out, vs_error *err);

/* report_summary.c: the page's top, compare's verdict lines for its groups
 * and the caveats. */
void na_report_summary(const na_report_page *r);
/* A note per group whose runs of profile p read from a cache, as element
 * tag ("p" under the profile, "li" in the summary's caveats). */
void na_report_cache_notes(const na_report_page *r, size_t p, const char *tag);

/* report_groups.c: a section with one row per group run among the rows
 * (none without one). */
int na_report_group_runs(const na_report_page *r, vs_error *err);

/* report_groups.c: whether res is left out of the report: a NAS-local
 * baseline (site nas) is no group's run unless a --where names site. */
bool na_report_skips(const na_report_page *r, const na_result *res);

/* report_layers.c */
/* Row w's layers (na_cmp_layers) from result res and, when the store has
 * one, its NAS side, whose pool timeline w keeps; VS_ERR_NOMEM. */
int na_report_nas_side(na_store *s, na_report_row *w, const na_result *res, vs_error *err);
/* Flags w's reads cache-served from fio's latency bins (c's), as bench does
 * without a NAS side: a quarter or more under an NFS round trip. */
void na_report_cache_bins(na_report_row *w, const na_cmp_row *c);
/* Profile p's table of layers under its fio numbers (none when no run of p
 * measured any), from compare's rows (a group run's pool as its group's). */
void na_report_layers(const na_report_page *r, size_t p);
/* A warning line per group and disk whose runs measured another recordsize
 * than an earlier result of the disk's stay (na_trap_sentences: the disk may
 * still hold the old size's records); a store error as its status. */
int na_report_traps(const na_report_page *r, vs_error *err);

#endif
