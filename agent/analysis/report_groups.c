/* The report's group runs (bench on several VMs at once, a campaign's
 * vms =): one row per group among the selected results, with the group's
 * own figures.  Its members stay in the comparison as single results, as
 * compare reads them (docs/groups.md); `results --members` lists them. */
#include <stdlib.h>
#include <string.h>

#include "analysis/report_internal.h"

/* Whether a row before row i belongs to group id already (one row per group). */
static bool shown_before(const int64_t *ids, size_t i, int64_t id)
{
	for (size_t k = 0; k < i; k++)
		if (ids[k] == id)
			return true;
	return false;
}

static void figure_cells(FILE *out, const na_dir_stats *d)
{
	char a[32], b[32];
	if (!d->present) {
		fputs("<td>-</td><td>-</td>", out);
		return;
	}
	fprintf(out, "<td>%s</td><td>%s</td>", na_report_grouped(d->iops, a, sizeof(a)),
	        d->p99_us >= 0 ? na_report_latency(d->p99_us, b, sizeof(b)) : "-");
}

static void group_line(const na_report_page *r, const na_report_row *w, const na_group_row *g)
{
	fprintf(r->out, "<tr class=\"group-run\"><td>%lld</td><td>", (long long)g->id);
	na_html_escape(r->out, g->started_at);
	fputs("</td><td>", r->out);
	na_html_escape(r->out, r->profiles[w->profile]);
	fputs("</td><td>", r->out);
	na_html_escape(r->out, r->groups[w->group]);
	fprintf(r->out, "</td><td>%d</td>", g->vms);
	figure_cells(r->out, &g->read);
	figure_cells(r->out, &g->write);
	fprintf(r->out, "<td>%s</td></tr>\n", g->why ? "incomplete" : "complete");
}

int na_report_group_runs(const na_report_page *r, vs_error *err)
{
	size_t shown = 0;
	int64_t *ids = calloc(r->n + 1, sizeof(*ids));
	int rc = ids ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; rc == VS_OK && i < r->n; i++) {
		na_group_row g = {0};
		rc = na_store_group_of(r->store, r->rows[i].id, &g, err);
		ids[i] = g.id;
		if (rc == VS_OK && g.id && !shown_before(ids, i, g.id)) {
			if (!shown++)
				fputs("<section id=\"group-runs\">\n<h2>Group runs: several VMs at once</h2>\n"
				      "<p class=\"note\">One row per group, with the group's own figures (IOPS "
				      "summed, p99 of every member's completions); above, its members count as "
				      "single results. <code>nfsagent results --members</code> lists them.</p>\n"
				      "<table>\n<thead><tr><th>group</th><th>started</th><th>profile</th>"
				      "<th>series</th><th>VMs</th><th>read IOPS</th><th>read p99</th>"
				      "<th>write IOPS</th><th>write p99</th><th></th></tr></thead>\n<tbody>\n",
				      r->out);
			group_line(r, &r->rows[i], &g);
		}
		na_group_row_clear(&g);
	}
	if (shown)
		fputs("</tbody>\n</table>\n</section>\n", r->out);
	free(ids);
	return rc;
}

bool na_report_skips(const na_report_page *r, const na_result *res)
{
	if (!res->site || strcmp(res->site, "nas") != 0)
		return false;
	for (size_t i = 0; i < r->o->n_where; i++)
		if (strncmp(r->o->where[i], "site=", 5) == 0)
			return false;
	return true;
}
