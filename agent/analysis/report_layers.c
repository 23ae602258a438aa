/* The report's layers (see report_internal.h): what ESXi's datastore
 * counters and the NAS's pool saw of each run, read with its result, their
 * table under a profile's fio numbers, and the groups' recordsize trap. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "output.h"
#include "profiles.h"
#include "analysis/nas_line.h"
#include "analysis/report_internal.h"
#include "analysis/trap.h"

/* The intervals' ends as t->at: the stored NAS stamps ("end", schema 8)
 * when each interval has one and they grow, else evenly spaced. */
static void timeline_ends(json_t *ends, na_timeline *t, size_t n)
{
	bool stamped = json_array_size(ends) == n;
	double prev = 0;
	for (size_t i = 0; stamped && i < n; i++) {
		double e = json_number_value(json_array_get(ends, i));
		stamped = e > prev;
		prev = e;
	}
	double first = stamped ? json_number_value(json_array_get(ends, 0)) - t->interval_s : 0;
	for (size_t i = 0; i < n; i++)
		t->at[i] = stamped ? json_number_value(json_array_get(ends, i)) - first
		                   : (double)(i + 1) * t->interval_s;
}

/* The stored timeline's series as MB/s into t; false without memory (a
 * timeline that does not parse is none). */
static bool parse_timeline(const char *json, na_timeline *t)
{
	json_t *o = json_loads(json, 0, NULL), *dw = json_object_get(o, "data_write"),
	       *lw = json_object_get(o, "log_write");
	size_t n = json_array_size(dw);
	t->interval_s = (int)json_integer_value(json_object_get(o, "interval_s"));
	bool ok = true;
	if (n && t->interval_s > 0 && json_array_size(lw) == n) {
		t->data_w = calloc(n, sizeof(double));
		t->log_w = calloc(n, sizeof(double));
		t->at = calloc(n, sizeof(double));
		ok = t->data_w && t->log_w && t->at;
		for (size_t i = 0; ok && i < n; i++) {
			t->data_w[i] = (double)json_integer_value(json_array_get(dw, i)) / 1e6;
			t->log_w[i] = (double)json_integer_value(json_array_get(lw, i)) / 1e6;
		}
		if (ok)
			timeline_ends(json_object_get(o, "end"), t, n);
		t->n = ok ? n : 0;
	}
	json_decref(o);
	return ok;
}

typedef struct nas_side {
	na_report_row *w;
	const na_result *res;
	bool ok;
} nas_side;

/* The working set a job file names (its first size= line), 0 for none. */
static uint64_t working_set(const char *job)
{
	for (const char *l = job; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		if (strncmp(l, "size=", 5) != 0)
			continue;
		char v[32];
		snprintf(v, sizeof(v), "%.*s", (int)strcspn(l + 5, "\n"), l + 5);
		int64_t size = na_parse_size(v);
		return size > 0 ? (uint64_t)size : 0;
	}
	return 0;
}

/* A read run whose working set fits in the ARC, with NA_ARC_SERVED of its
 * demand reads hits: the pool's memory answered, as the campaign's summary
 * flags it (na_nas_row_line). */
static void cache_served(na_report_row *w, const na_result *res, const na_nas_run *n)
{
	nas_window win = {.counters = n->counters_known && !n->incomplete,
	                  .arc_size = (uint64_t)n->arc_size, .arc_hit_ratio = n->arc_hit_ratio};
	uint64_t ws = working_set(res->job_file);
	char a[32], b[32];
	if (!res->write.present && res->read.present && nas_cache_served(&win, ws, NA_ARC_SERVED))
		snprintf(w->cache, sizeof(w->cache), "%s fits in the ARC's %s", na_size((int64_t)ws, a, sizeof(a)),
		         na_size(n->arc_size, b, sizeof(b)));
}

void na_report_cache_bins(na_report_row *w, const na_cmp_row *c)
{
	double under = c->present[0] ? na_share_under(&c->bins[0], NA_CACHE_FLOOR_US) : -1;
	if (!w->cache[0] && under >= NA_CACHE_SHARE)
		snprintf(w->cache, sizeof(w->cache), "%.0f%% of reads under %.0f µs", under * 100,
		         NA_CACHE_FLOOR_US);
}

static int nas_of(const na_nas_run *n, void *ud, vs_error *err)
{
	(void)err;
	nas_side *side = ud;
	na_cmp_layers(side->res, n, side->w->layer);
	cache_served(side->w, side->res, n);
	side->w->timeline.id = side->res->id;
	side->ok = !n->timeline || parse_timeline(n->timeline, &side->w->timeline);
	return VS_OK;
}

int na_report_nas_side(na_store *s, na_report_row *w, const na_result *res, vs_error *err)
{
	nas_side side = {w, res, true};
	bool found;
	na_cmp_layers(res, NULL, w->layer);
	int rc = na_store_nas_of(s, res->id, nas_of, &side, &found, err);
	return side.ok ? rc : vs_fail(err, VS_ERR_NOMEM, "out of memory");
}

/* The layer's values among rows (compare's: a group run folded into one
 * row with its pool's figures, since its members have none); malloc'd, *n. */
static double *layer_values(const na_cmp_group *rows, int layer, size_t *n)
{
	double *v = malloc((rows->n + 1) * sizeof(double));
	*n = 0;
	for (size_t i = 0; v && i < rows->n; i++)
		if (rows->rows[i].layer[layer] >= 0)
			v[(*n)++] = rows->rows[i].layer[layer];
	return v;
}

/* Group g's cell of layer m: its spread, and compare's line against the
 * profile's first group in compare's words. */
static void layer_cell(const na_report_page *r, size_t p, size_t g, const na_cmp_group *rows, int m)
{
	size_t n;
	double *v = layer_values(rows, m, &n);
	na_spread s = v ? na_spread_of(v, n) : (na_spread){0};
	double center = na_report_center(r, p, g, 0, m, true, v ? na_geomean(v, n) : NAN, &s);
	free(v);
	if (!s.n) {
		fputs("<td class=\"num\">–</td>", r->out);
		return;
	}
	const char *unit = na_layers[m].unit[0] == ' ' ? "" : na_layers[m].unit;
	char a[32], b[32], c[32], d[32];
	fprintf(r->out, "<td class=\"num\"><b>%s%s</b><span class=\"sp\">median %s · %s–%s · n=%zu</span>",
	        na_report_grouped(isnan(center) ? s.median : center, a, sizeof(a)), unit,
	        na_report_grouped(s.median, d, sizeof(d)), na_report_grouped(s.min, b, sizeof(b)),
	        na_report_grouped(s.max, c, sizeof(c)), s.n);
	const na_cmp_line *l = na_report_line(r, p, g, 0, m, true);
	na_cmp_cells cells;
	if (l && !isnan(l->eff.ratio)) {
		na_cmp_layer_cells_of(l, &cells);
		na_report_ratio(r, cells.change, cells.verdict);
	}
	fputs("</td>", r->out);
}

/* Under the fio numbers: what ESXi and the pool saw of the same runs, the
 * write amplification among them, each group against the first with
 * compare's lines for the pair. */
void na_report_layers(const na_report_page *r, size_t p)
{
	const na_cmp_group *picked = &r->picked[p * r->n_groups];
	bool shown[NA_L_COUNT] = {false}, any = false;
	for (int m = 0; m < NA_L_COUNT; m++)
		for (size_t g = 0; g < r->n_groups; g++)
			for (size_t i = 0; i < picked[g].n; i++)
				if (picked[g].rows[i].layer[m] > 0)
					shown[m] = any = true;
	if (!any)
		return;
	fputs("<table class=\"cmp layers\">\n", r->out);
	na_report_group_header(r, p, "ESXi and the pool (geometric mean; median · min–max · runs)");
	for (int m = 0; m < NA_L_COUNT; m++) {
		if (!shown[m])
			continue;
		fprintf(r->out, "<tr data-layer=\"%s\"><th>%s%s</th>", na_layers[m].key, na_layers[m].label,
		        na_layers[m].unit[0] == ' ' ? na_layers[m].unit : "");
		for (size_t g = 0; g < r->n_groups; g++)
			if (na_report_in_profile(r, p, g))
				layer_cell(r, p, g, &picked[g], m);
		fputs("</tr>\n", r->out);
	}
	fputs("</tbody>\n</table>\n", r->out);
}

/* ---- the recordsize trap, as compare warns of it ---- */

/* Group g's ok runs as compare's group, with what the trap reads of them:
 * the result and its VM; false without memory (out is freed either way). */
static bool trap_group(const na_report_page *r, size_t g, na_cmp_group *out)
{
	*out = (na_cmp_group){.rows = calloc(r->n + 1, sizeof(na_cmp_row))};
	for (size_t i = 0; out->rows && i < r->n; i++) {
		const na_report_row *w = &r->rows[i];
		if (!w->ok || w->group != g)
			continue;
		na_cmp_row *c = &out->rows[out->n++];
		c->id = w->id;
		if (w->f[NA_FIELD_vm] && !(c->field[NA_FIELD_vm] = strdup(w->f[NA_FIELD_vm])))
			return false;
	}
	return out->rows != NULL;
}

int na_report_traps(const na_report_page *r, vs_error *err)
{
	int rc = VS_OK;
	for (size_t g = 0; rc == VS_OK && g < r->n_groups; g++) {
		na_cmp_group group;
		char **text = NULL;
		size_t n = 0;
		rc = trap_group(r, g, &group)
			? na_trap_sentences(r->store, &group, "the group", &text, &n, err)
			: vs_fail(err, VS_ERR_NOMEM, "out of memory");
		for (size_t i = 0; i < n; i++) {
			fputs("<p class=\"note trap\" data-group=\"", r->out);
			na_html_escape(r->out, r->groups[g]);
			fputs("\"><span class=\"few\">Recordsize trap in ", r->out);
			na_html_escape(r->out, r->groups[g]);
			fputs(":</span> ", r->out);
			na_html_escape(r->out, text[i]);
			fputs(".</p>\n", r->out);
			free(text[i]);
		}
		free(text);
		na_cmp_group_free(&group);
	}
	return rc;
}
