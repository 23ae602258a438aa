/* The report's top: what each group's runs say against the first group of
 * their profile, in compare's own lines (the ones with a verdict), and the
 * caveats a reader needs before trusting a figure: reads from a cache, a
 * figure at its host's link or at the SLOG's rate. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report_internal.h"

/* compare's verdict lines of group g of profile p against the first group,
 * each "write IOPS: +30.2% better (96% CI +25.4% to +35.3%); beyond noise". */
static void verdict_lines(const na_report_page *r, size_t p, size_t g)
{
	const na_cmp *c = &r->cmps[p * r->n_groups + g];
	fputs("<li><b>", r->out);
	na_html_escape(r->out, r->profiles[p]);
	fputs("</b>: ", r->out);
	na_html_escape(r->out, r->groups[g]);
	fputs(" against ", r->out);
	na_html_escape(r->out, r->groups[na_report_first_group(r, p)]);
	fputs("\n<ul>\n", r->out);
	for (size_t i = 0; i < c->n + c->n_layers; i++) {
		const na_cmp_line *l = i < c->n ? &c->lines[i] : &c->layers[i - c->n];
		na_cmp_cells s;
		if (i < c->n && (!na_metrics[l->metric].judged || l->eff.verdict == NA_NOISE_SHOWN))
			continue;  /* follows IOPS */
		if (i >= c->n && !l->eff.judged)
			continue;  /* a layer with no better side */
		if (i < c->n)
			na_cmp_cells_of(l, &s);
		else
			na_cmp_layer_cells_of(l, &s);
		fputs("<li class=\"verdict\">", r->out);
		na_html_escape(r->out, s.metric);
		fputs(": ", r->out);
		na_html_escape(r->out, s.change);
		fputs("; ", r->out);
		na_html_escape(r->out, s.verdict);
		fputs("</li>\n", r->out);
	}
	fputs("</ul></li>\n", r->out);
}

/* Group g's runs of profile p whose reads came from a cache, and the first
 * one's why. */
static size_t cached(const na_report_page *r, size_t p, size_t g, const char **why)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++) {
		const na_report_row *w = &r->rows[i];
		if (w->ok && w->profile == p && w->group == g && w->cache[0] && !n++)
			*why = w->cache;
	}
	return n;
}

void na_report_cache_notes(const na_report_page *r, size_t p, const char *tag)
{
	for (size_t g = 0; g < r->n_groups; g++) {
		const char *why = NULL;
		size_t n = cached(r, p, g, &why), ok = 0;
		for (size_t i = 0; i < r->n; i++)
			ok += r->rows[i].ok && r->rows[i].profile == p && r->rows[i].group == g;
		if (!n)
			continue;
		fprintf(r->out, "<%s class=\"note cache\" data-group=\"", tag);
		na_html_escape(r->out, r->groups[g]);
		fputs("\"><span class=\"few\">Cache-served reads in ", r->out);
		na_html_escape(r->out, r->groups[g]);
		fputs(", ", r->out);
		na_html_escape(r->out, r->profiles[p]);
		fprintf(r->out, ":</span> %zu of %zu runs [cache-served: ", n, ok);
		na_html_escape(r->out, why);
		fprintf(r->out, "]: their figures are a cache's, not the disks'.</%s>\n", tag);
	}
}

/* A caveat of kind ("network", "slog"): "what: text", escaped. */
static void caveat(const na_report_page *r, const char *kind, const char *what, const char *text)
{
	fprintf(r->out, "<li class=\"note %s\">", kind);
	if (what) {
		na_html_escape(r->out, what);
		fputs(": ", r->out);
	}
	na_html_escape(r->out, text);
	fputs("</li>\n", r->out);
}

/* compare's network ceilings of group g of profile p against the
 * profile's first group (none without memory). */
static void network_notes(const na_report_page *r, size_t p, size_t g)
{
	static const int by_profile[] = {NA_FIELD_profile};
	size_t at = p * r->n_groups + g;
	na_cmp_hint *h = NULL;
	size_t n = 0;
	if (na_cmp_network_hints(&r->cmps[at], &r->picked[at], by_profile, 1, r->groups[na_report_first_group(r, p)],
	                         r->groups[g], &h, &n) != VS_OK)
		n = 0;
	for (size_t i = 0; i < n; i++) {
		char what[256];
		snprintf(what, sizeof(what), "%s %s", r->profiles[p], na_dir_names[h[i].line->dir]);
		caveat(r, "network", what, h[i].text);
	}
	na_cmp_hints_free(h, n);
}

/* Group g's writes at its log device's one rate (compare's SLOG hint). */
static void slog_note(const na_report_page *r, size_t g)
{
	na_cmp_group rows = {0};
	char line[600];
	vs_error err = {0};  /* without memory: no hint */
	if (na_report_pick(r, SIZE_MAX, g, &rows, &err) == VS_OK &&
	    na_cmp_slog_hint(&rows, r->groups[g], line, sizeof(line)))
		caveat(r, "slog", NULL, line);
	na_cmp_group_free(&rows);
}

/* What limited each profile's runs of group g (docs/limits.md). */
static void limit_notes(const na_report_page *r, size_t g)
{
	na_cmp_group rows = {0};
	char **lines = NULL;
	size_t n = 0;
	vs_error err = {0};  /* a verdict that cannot be read: none */
	bool read = na_report_pick(r, SIZE_MAX, g, &rows, &err) == VS_OK &&
	            na_cmp_limit_lines(r->store, &rows, r->groups[g], &lines, &n, &err) == VS_OK;
	for (size_t i = 0; i < n; i++) {
		if (read)
			caveat(r, "limit", NULL, lines[i]);
		free(lines[i]);
	}
	free(lines);
	na_cmp_group_free(&rows);
}

void na_report_summary(const na_report_page *r)
{
	bool any = false;
	fputs("<section id=\"summary\">\n<h2>Summary</h2>\n", r->out);
	for (size_t p = 0; p < r->n_profiles; p++)
		for (size_t g = 0; g < r->n_groups; g++) {
			if (g == na_report_first_group(r, p) || !na_report_in_profile(r, p, g))
				continue;
			if (!any)
				fputs("<p class=\"cap\">Each group against the first group of its profile, as "
				      "nfsagent compare judges them: the lines with a verdict.</p>\n<ul>\n", r->out);
			any = true;
			verdict_lines(r, p, g);
		}
	fputs(any ? "</ul>\n" : "<p>One group: nothing to compare.</p>\n", r->out);
	fputs("<ul class=\"caveats\">\n", r->out);
	for (size_t p = 0; p < r->n_profiles; p++) {
		na_report_cache_notes(r, p, "li");
		for (size_t g = 0; g < r->n_groups; g++)
			if (g != na_report_first_group(r, p) && na_report_in_profile(r, p, g))
				network_notes(r, p, g);
	}
	for (size_t g = 0; g < r->n_groups; g++) {
		slog_note(r, g);
		limit_notes(r, g);
	}
	fputs("</ul>\n</section>\n", r->out);
}
