/* The report's top: what each group's runs say against the first group of
 * their profile, in compare's own lines (the ones with a verdict), and the
 * caveats a reader needs before trusting a figure. */
#include <string.h>

#include "report_internal.h"

/* compare's verdict lines of group g of profile p against the first group,
 * each "write IOPS: +30.2% better (96% CI +25.4% to +35.3%); beyond noise". */
static void verdict_lines(const na_report_page *r, size_t p, size_t g)
{
	const na_cmp *c = &r->pairs[p * r->n_groups + g].cmp;
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
	fputs("</section>\n", r->out);
}
