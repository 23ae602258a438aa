/* The HTML report: selected results grouped for comparison, with charts,
 * provenance and the probe and migration findings.
 *
 * One self-contained file: inline CSS and SVG, no script, and a content
 * security policy that forbids loading anything, so it opens offline and
 * nothing a server or user wrote into the database can run in it.
 */
#ifndef NFSAGENT_REPORT_H
#define NFSAGENT_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/stats.h"
#include "store/store.h"

typedef struct na_report_opts {
	const char *const *where;     /* field=value conditions, as for na_store_query */
	size_t n_where;
	const char *const *group_by;  /* fields or label keys; none = chosen from the data */
	size_t n_group_by;
	const char *generated_at;     /* shown as the generation time */
} na_report_opts;

/* What the report held, for the command's summary line. */
typedef struct na_report_counts {
	size_t results, failed, groups, profiles, findings;
} na_report_counts;

/* Writes the report for the selected results to out. */
int na_report_html(na_store *s, const na_report_opts *o, FILE *out, na_report_counts *counts,
                   vs_error *err);

/* ---- shared by report.c and report_svg.c ---- */
enum { NA_PCTS = 4 };  /* p50, p95, p99, p99.9 */

/* One run's pool timeline (zpool iostat's intervals), in MB/s. */
typedef struct na_timeline {
	int64_t id;              /* the result */
	size_t group;            /* its index among the chart's groups */
	int interval_s;
	double *data_w, *log_w;  /* data vdevs' and log vdevs' writes per interval */
	/* each interval's end, s after the first one began: from the NAS's
	 * stamps when stored, else (i + 1) x interval_s */
	double *at;
	size_t n;
} na_timeline;

/* One profile's numbers: groups are the series, directions the clusters. */
typedef struct na_chart {
	const char *profile;
	const char *const *groups;
	const size_t *colors;     /* na_report_color's index of each group */
	size_t n_groups;
	const char *const *dirs;  /* "read", "write" */
	size_t n_dirs;
	const na_spread *iops;    /* [dir * n_groups + group] */
	const na_spread *pct;     /* [(dir * n_groups + group) * NA_PCTS + p] */
	const na_timeline *runs;  /* the runs with a pool timeline (bench --nas) */
	size_t n_runs;
} na_chart;

/* Writes s with &, <, >, " and ' escaped and control characters dropped. */
void na_html_escape(FILE *out, const char *s);
/* The colour of group i, the same in every chart and table. */
const char *na_report_color(size_t i);
/* The page from its doctype to <body>: the security policy and the style sheet. */
void na_report_head(FILE *out);
/* "37,400", "886", "3.46". */
const char *na_report_grouped(double v, char *buf, size_t size);
/* "37.4k", "886", "1.2M". */
const char *na_report_compact(double v, char *buf, size_t size);
/* "850 µs", "3.4 ms", "1.2 s". */
const char *na_report_latency(double us, char *buf, size_t size);
/* A probe verdict or failed move: badge, verdict line, provenance, evidence. */
void na_report_finding(FILE *out, const na_finding *f);
void na_svg_iops(FILE *out, const na_chart *c);
void na_svg_latency(FILE *out, const na_chart *c);
/* The pool's writes over each run's window: a line per run in its group's
 * colour, data vdevs solid, the log dashed. */
void na_svg_timeline(FILE *out, const na_chart *c);

#endif
