/* The report's look: its head and style sheet, number formats, the finding
 * cards and the two inline-SVG charts.  nfsagent links no maths library, so
 * the few logarithms the latency axis needs are computed here. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "analysis/stats.h"

enum { W = 560, L = 70, R = 14, T = 18, PH = 250, PW = W - L - R, LEGEND_Y = T + PH + 44 };
static const char *const pct_names[NA_PCTS] = {"p50", "p95", "p99", "p99.9"};
static const char *const dir_styles[2] = {"read", "write"};

void na_report_head(FILE *out)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      /* nothing may be loaded or run: the page is data, some of it a server's */
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>nfsagent benchmark report</title>\n<style>", out);
	fputs("body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
	      "color:#1b1b1b;background:#fff;margin:0 auto;padding:24px 32px;max-width:1240px}"
	      "h1{font-size:24px;margin:0 0 4px}h2{font-size:19px;margin:32px 0 8px;padding-top:10px;"
	      "border-top:2px solid #e3e6ea}.meta{color:#555;margin:2px 0}"
	      ".cap{color:#555;font-size:12px;margin:-6px 0 16px}"
	      "code{font:12px ui-monospace,'DejaVu Sans Mono',monospace}"
	      /* a table of many groups scrolls inside the page, never past its edge */
	      "table{border-collapse:collapse;margin:8px 0 14px;font-variant-numeric:tabular-nums;"
	      "display:block;max-width:100%;overflow-x:auto}"
	      "th,td{border:1px solid #d5d9de;padding:5px 10px;text-align:left;vertical-align:top}"
	      "thead th{background:#f1f3f5}tbody th{font-weight:600;background:#fafbfc;white-space:nowrap}"
	      "td.num{text-align:right;white-space:nowrap}td.num b{font-size:15px}"
	      ".sp,.ratio{display:block;color:#5f6670;font-size:12px}"
	      ".sw{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:6px;"
	      "vertical-align:-1px}.few{display:block;color:#a4460b;font-weight:600}"
	      ".note{background:#fff6e5;border-left:4px solid #e69f00;padding:6px 10px;margin:8px 0}"
	      ".note .few{display:inline}.charts{display:flex;flex-wrap:wrap;gap:20px}figure{margin:0}"
	      "figcaption{font-weight:600;margin-bottom:4px}svg text{font-family:inherit;fill:#333}"
	      ".finding{border:1px solid #d5d9de;border-radius:6px;padding:8px 12px;margin:8px 0}"
	      ".badge{border-radius:4px;padding:1px 7px;font-size:12px;font-weight:600;margin-right:8px;"
	      "color:#fff}.bad{background:#c0392b}.clean{background:#1e7d4f}"
	      "ul.ev{margin:6px 0 0;padding-left:20px}", out);
	fputs("</style>\n</head>\n<body>\n", out);
}

void na_html_escape(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default:
			/* control characters are not allowed in HTML text */
			if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
				fputc(*s, out);
		}
	}
}

const char *na_report_color(size_t i)
{
	/* Okabe-Ito: told apart with the common colour-vision deficiencies */
	static const char *const colors[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
	                                     "#56B4E9", "#D55E00", "#7F7F7F", "#000000"};
	return colors[i % (sizeof(colors) / sizeof(*colors))];
}

const char *na_report_grouped(double v, char *buf, size_t size)
{
	if (v < 999.5) {
		snprintf(buf, size, "%.3g", v);
		return buf;
	}
	return na_thousands(v, buf, size);
}

/* Three significant digits with the unit of the right thousand. */
static const char *scaled(double v, const char *const units[3], char *buf, size_t size)
{
	int k = v < 999.5 ? 0 : v < 999500 ? 1 : 2;
	snprintf(buf, size, "%.3g%s", v / (k == 0 ? 1 : k == 1 ? 1e3 : 1e6), units[k]);
	return buf;
}

const char *na_report_compact(double v, char *buf, size_t size)
{
	static const char *const units[] = {"", "k", "M"};
	return scaled(v, units, buf, size);
}

const char *na_report_latency(double us, char *buf, size_t size)
{
	static const char *const units[] = {" µs", " ms", " s"};
	return scaled(us, units, buf, size);
}

/* ---- findings ---- */

static void evidence(FILE *out, const char *json)
{
	json_t *a = json ? json_loads(json, 0, NULL) : NULL;
	size_t i;
	json_t *v;
	if (json_is_array(a) && json_array_size(a)) {
		fputs("<ul class=\"ev\">", out);
		json_array_foreach(a, i, v) {
			fputs("<li><code>", out);
			na_html_escape(out, json_is_string(v) ? json_string_value(v) : "(not text)");
			fputs("</code></li>", out);
		}
		fputs("</ul>", out);
	}
	json_decref(a);
}

static void part(FILE *out, const char *sep, const char *value)
{
	if (value && value[0]) {
		fputs(sep, out);
		na_html_escape(out, value);
	}
}

void na_report_finding(FILE *out, const na_finding *f)
{
	fputs("<div class=\"finding\" data-kind=\"", out);
	na_html_escape(out, f->kind);
	fprintf(out, "\" data-extent-bug=\"%d\"><span class=\"badge %s\">%s</span><b>", f->extent_bug,
	        f->extent_bug ? "bad" : "clean", f->extent_bug ? "extent-size mismatch" : "clean");
	na_html_escape(out, f->verdict);
	fputs("</b><p class=\"meta\">", out);
	part(out, "", f->kind);
	part(out, " at ", f->at);
	part(out, " · host ", f->host);
	part(out, " · ESXi ", f->esxi_version);
	part(out, " build ", f->esxi_build);
	part(out, " · datastore ", f->datastore);
	part(out, " · type ", f->datastore_type);
	part(out, " · export ", f->servers);
	part(out, ":", f->export_path);
	part(out, " · VM ", f->vm);
	part(out, " · case ", f->extent_case);
	fputs("</p>", out);
	evidence(out, f->evidence_json);
	fputs("</div>\n", out);
}

/* ---- shared pieces ---- */

static double pow10_of(int d)
{
	double v = 1;
	for (; d > 0; d--)
		v *= 10;
	for (; d < 0; d++)
		v /= 10;
	return v;
}

/* log10 for x > 0: whole decades by division, the rest by the atanh series. */
static double log10_of(double x)
{
	double d = 0;
	for (; x >= 10; x /= 10)
		d++;
	for (; x < 1; x *= 10)
		d--;
	double t = (x - 1) / (x + 1), t2 = t * t, term = t, sum = 0;
	for (int k = 1; k < 80; k += 2, term *= t2)
		sum += term / k;
	return d + 2 * sum / 2.302585092994046;
}

/* 1, 2 or 5 times a power of ten, near range / 5. */
static double nice_step(double range)
{
	double raw = range / 5, p = 1;
	while (p * 10 <= raw)
		p *= 10;
	while (p > raw)
		p /= 10;
	return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
}

static void attr(FILE *out, const char *name, const char *value)
{
	fprintf(out, " %s=\"", name);
	na_html_escape(out, value);
	fputc('"', out);
}

/* A horizontal grid line with its label at the left. */
static void grid(FILE *out, double y, const char *label, bool strong)
{
	fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>"
	        "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>\n",
	        L, L + PW, y, y, strong ? "#c5cad0" : "#eceef1", L - 6, y + 4, label);
}

static void axes(FILE *out, const char *ytitle)
{
	fprintf(out, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>"
	        "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n",
	        L, L, T, T + PH, L, L + PW, T + PH, T + PH);
	fprintf(out, "<text class=\"ytitle\" transform=\"rotate(-90)\" x=\"%d\" y=\"14\""
	        " font-size=\"12\" text-anchor=\"middle\">%s</text>\n", -(T + PH / 2), ytitle);
}

static void xlabel(FILE *out, double x, const char *label)
{
	fprintf(out, "<text class=\"xlabel\" x=\"%.1f\" y=\"%d\" font-size=\"12\""
	        " text-anchor=\"middle\">%s</text>\n", x, T + PH + 18, label);
}

static void legend_item(FILE *out, size_t color, const char *name, int x, int y, const char *dash)
{
	fputs("<g class=\"legend\">", out);
	if (!dash)
		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" rx=\"2\" fill=\"%s\"/>",
		        x, y - 10, na_report_color(color));
	else
		fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#333\""
		        " stroke-width=\"2\"%s/>", x, x + 16, y - 4, y - 4, dash);
	fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"12\">", x + (dash ? 20 : 17), y);
	na_html_escape(out, name);
	fputs("</text></g>\n", out);
}

/* The groups' colours (and the line styles' names, solid then dashed, when
 * given), in as many rows as the width needs; with out NULL only counts the
 * rows. */
static int legend(FILE *out, const na_chart *c, int y, const char *const *styles)
{
	int x = L, rows = 1;
	size_t n = c->n_groups + (styles ? 2 : 0);
	for (size_t i = 0; i < n; i++) {
		bool style = i >= c->n_groups;
		const char *name = !style ? c->groups[i] : styles[i - c->n_groups];
		int w = (style ? 36 : 32) + 7 * (int)strlen(name);
		if (x + w > W && x > L)
			x = L, y += 18, rows++;
		if (out)
			legend_item(out, style ? 0 : c->colors[i], name, x, y,
			            !style ? NULL : i == c->n_groups ? "" : " stroke-dasharray=\"6 4\"");
		x += w;
	}
	return rows;
}

/* A chart's svg, tall enough for its legend (styles as legend() takes them). */
static void open_svg(FILE *out, const char *kind, const na_chart *c, const char *const *styles,
                     const char *what)
{
	int height = LEGEND_Y + 18 * legend(NULL, c, 0, styles) - 4;
	fprintf(out, "<svg class=\"chart %s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
	        " role=\"img\"", kind, W, height, W, height);
	attr(out, "data-profile", c->profile);
	fprintf(out, "><title>%s for ", what);
	na_html_escape(out, c->profile);
	fputs("</title>\n", out);
}

/* A value axis from 0 to the first multiple of nice_step(max) at or past
 * max * headroom, its grid drawn; returns that top. */
static double linear_grid(FILE *out, double max, double headroom)
{
	double step = nice_step(max > 0 ? max : 1), top = step;
	while (top < max * headroom)
		top += step;
	char label[32];
	for (double v = 0; v <= top * 1.0001; v += step)
		grid(out, T + PH - PH * v / top, na_report_compact(v, label, sizeof(label)), v == 0);
	return top;
}

/* ---- median IOPS: clusters per direction, one bar per group ---- */

static double iops_top(const na_chart *c)
{
	double max = 0;
	for (size_t i = 0; i < c->n_dirs * c->n_groups; i++)
		if (c->iops[i].n && c->iops[i].max > max)
			max = c->iops[i].max;
	return max > 0 ? max : 1;
}

static double ybar(double v, double top)
{
	return T + PH - PH * v / top;
}

static void bar(FILE *out, const na_chart *c, size_t d, size_t g, double x, double bw, double top)
{
	const na_spread *s = &c->iops[d * c->n_groups + g];
	double y = ybar(s->median, top), lo = ybar(s->min, top), hi = ybar(s->max, top);
	double cx = x + bw / 2, cap = bw / 4 < 8 ? bw / 4 : 8;
	char v[32], a[32], b[32];
	fputs("<rect class=\"bar\"", out);
	attr(out, "data-profile", c->profile);
	attr(out, "data-group", c->groups[g]);
	fprintf(out, " data-dir=\"%s\" data-value=\"%.10g\" data-min=\"%.10g\" data-max=\"%.10g\""
	        " data-n=\"%zu\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
	        c->dirs[d], s->median, s->min, s->max, s->n, x, y, bw, T + PH - y,
	        na_report_color(c->colors[g]));
	na_html_escape(out, c->groups[g]);
	fprintf(out, " %s: median %s IOPS, %s–%s over %zu runs</title></rect>\n", c->dirs[d],
	        na_report_grouped(s->median, v, sizeof(v)), na_report_grouped(s->min, a, sizeof(a)),
	        na_report_grouped(s->max, b, sizeof(b)), s->n);
	/* the spread: a whisker from min to max with caps, drawn over the bar */
	fprintf(out, "<path class=\"spread\" d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\""
	        " stroke=\"#1b1b1b\" stroke-width=\"1.6\" fill=\"none\"/>\n",
	        cx, lo, hi, cx - cap, lo, cx + cap, cx - cap, hi, cx + cap);
	fprintf(out, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\""
	        " text-anchor=\"middle\">%s</text>\n",
	        cx, hi - 5, na_report_compact(s->median, v, sizeof(v)));
}

void na_svg_iops(FILE *out, const na_chart *c)
{
	open_svg(out, "iops", c, NULL, "Median IOPS");
	/* room for the value above the highest whisker */
	double top = linear_grid(out, iops_top(c), 1.08);
	double cw = (double)PW / (double)c->n_dirs;
	double bw = cw * 0.75 / (double)c->n_groups, gap = bw * 0.12;
	bw = bw > 64 ? 64 : bw;
	for (size_t d = 0; d < c->n_dirs; d++) {
		double cx = L + cw * ((double)d + 0.5);
		double x0 = cx - ((double)c->n_groups * (bw + gap) - gap) / 2;
		for (size_t g = 0; g < c->n_groups; g++) {
			double x = x0 + (double)g * (bw + gap);
			if (c->iops[d * c->n_groups + g].n)
				bar(out, c, d, g, x, bw, top);
			else
				fprintf(out, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">"
				        "no runs</text>\n", x + bw / 2, T + PH - 4);
		}
		xlabel(out, cx, c->dirs[d]);
	}
	axes(out, "IOPS (median of runs)");
	legend(out, c, LEGEND_Y, NULL);
	fputs("</svg>\n", out);
}

/* ---- latency percentiles: a line per group and direction, log axis ---- */

static bool pct_range(const na_chart *c, int *lo, int *hi)
{
	double min = 0, max = 0;
	for (size_t i = 0; i < c->n_dirs * c->n_groups * NA_PCTS; i++) {
		const na_spread *s = &c->pct[i];
		if (s->n && s->median > 0) {
			min = min == 0 || s->median < min ? s->median : min;
			max = s->median > max ? s->median : max;
		}
	}
	if (max <= 0)
		return false;
	for (*lo = 0; pow10_of(*lo) > min; --*lo)
		;
	for (; pow10_of(*lo + 1) <= min; ++*lo)
		;
	for (*hi = *lo + 1; pow10_of(*hi) < max; ++*hi)
		;
	return true;
}

static void series(FILE *out, const na_chart *c, size_t d, size_t g, int lo, int hi, double dx)
{
	double xs[NA_PCTS], ys[NA_PCTS];
	bool has[NA_PCTS];
	fprintf(out, "<polyline class=\"latline\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s"
	        " points=\"", na_report_color(c->colors[g]),
	        d && c->n_dirs > 1 ? " stroke-dasharray=\"6 4\"" : "");
	for (int p = 0; p < NA_PCTS; p++) {
		const na_spread *s = &c->pct[(d * c->n_groups + g) * NA_PCTS + p];
		has[p] = s->n && s->median > 0;
		xs[p] = L + PW * (p + 0.5) / NA_PCTS + dx;
		ys[p] = has[p] ? T + PH - PH * (log10_of(s->median) - lo) / (hi - lo) : 0;
		if (has[p])
			fprintf(out, "%.1f,%.1f ", xs[p], ys[p]);
	}
	fputs("\"/>\n", out);
	for (int p = 0; p < NA_PCTS; p++) {
		const na_spread *s = &c->pct[(d * c->n_groups + g) * NA_PCTS + p];
		char v[32];
		if (!has[p])
			continue;
		fputs("<circle class=\"lat\"", out);
		attr(out, "data-profile", c->profile);
		attr(out, "data-group", c->groups[g]);
		fprintf(out, " data-dir=\"%s\" data-pct=\"%s\" data-value=\"%.10g\" cx=\"%.1f\" cy=\"%.1f\""
		        " r=\"3.5\" fill=\"%s\"><title>", c->dirs[d], pct_names[p], s->median, xs[p], ys[p],
		        na_report_color(c->colors[g]));
		na_html_escape(out, c->groups[g]);
		fprintf(out, " %s %s: %s (median of %zu runs)</title></circle>\n", c->dirs[d], pct_names[p],
		        na_report_latency(s->median, v, sizeof(v)), s->n);
	}
}

static void log_grid(FILE *out, int lo, int hi)
{
	static const int steps[] = {1, 2, 5};
	char label[32];
	for (int d = lo; d <= hi; d++)
		for (int i = 0; i < 3 && (d < hi || i == 0); i++) {
			double v = steps[i] * pow10_of(d);
			/* label 2 and 5 only while the axis spans few decades */
			const char *text = i == 0 || hi - lo <= 2 ? na_report_latency(v, label, sizeof(label)) : "";
			grid(out, T + PH - PH * (log10_of(v) - lo) / (hi - lo), text, i == 0);
		}
}

void na_svg_latency(FILE *out, const na_chart *c)
{
	int lo = 0, hi = 1;
	bool any = pct_range(c, &lo, &hi);
	const char *const *styles = c->n_dirs > 1 ? dir_styles : NULL;
	open_svg(out, "latency", c, styles, "Latency percentiles");
	if (any)
		log_grid(out, lo, hi);
	else
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">no latency percentiles"
		        " recorded</text>\n", L + PW / 2, T + PH / 2);
	size_t k = 0, n = c->n_dirs * c->n_groups;
	for (size_t d = 0; any && d < c->n_dirs; d++)
		for (size_t g = 0; g < c->n_groups; g++, k++)
			series(out, c, d, g, lo, hi, 3.0 * ((double)k - (double)(n - 1) / 2));
	for (int p = 0; p < NA_PCTS; p++)
		xlabel(out, L + PW * (p + 0.5) / NA_PCTS, pct_names[p]);
	axes(out, "completion latency (log scale)");
	legend(out, c, LEGEND_Y, styles);
	fputs("</svg>\n", out);
}

/* ---- the pool's writes over time: a line per run, log dashed ---- */

static void timeline_line(FILE *out, const na_chart *c, const na_timeline *t, bool log, double top,
                          double span)
{
	const double *v = log ? t->log_w : t->data_w;
	double max = 0;
	for (size_t i = 0; i < t->n; i++)
		max = v[i] > max ? v[i] : max;
	if (log && max <= 0)
		return;  /* no log device, or no sync writes: no line */
	fprintf(out, "<polyline class=\"poolline\" data-result=\"%lld\" data-class=\"%s\""
	        " data-max=\"%.10g\"", (long long)t->id, log ? "log" : "data", max);
	attr(out, "data-group", c->groups[t->group]);
	fprintf(out, " fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"%s points=\"",
	        na_report_color(c->colors[t->group]), log ? " stroke-dasharray=\"6 4\"" : "");
	for (size_t i = 0; i < t->n; i++)
		fprintf(out, "%.1f,%.1f ", L + PW * t->at[i] / span,
		        T + PH - PH * v[i] / top);
	fputs("\"/>\n", out);
}

void na_svg_timeline(FILE *out, const na_chart *c)
{
	double max = 0, span = 0;
	for (size_t r = 0; r < c->n_runs; r++) {
		const na_timeline *t = &c->runs[r];
		for (size_t i = 0; i < t->n; i++) {
			max = t->data_w[i] > max ? t->data_w[i] : max;
			max = t->log_w[i] > max ? t->log_w[i] : max;
		}
		span = t->n && t->at[t->n - 1] > span ? t->at[t->n - 1] : span;
	}
	static const char *const styles[2] = {"data vdevs", "log"};
	open_svg(out, "timeline", c, styles, "Pool writes over the run");
	double top = linear_grid(out, max, 1);
	char label[32];
	for (size_t r = 0; span > 0 && r < c->n_runs; r++)
		for (int log = 0; log < 2; log++)
			timeline_line(out, c, &c->runs[r], log, top, span);
	double tstep = nice_step(span > 0 ? span : 1);
	for (double s = 0; span > 0 && s <= span * 1.0001; s += tstep) {
		snprintf(label, sizeof(label), "%.0f s", s);
		xlabel(out, L + PW * s / span, label);
	}
	axes(out, "pool writes, MB/s");
	legend(out, c, LEGEND_Y, styles);
	fputs("</svg>\n", out);
}
