/* A comparison's line as JSON, for compare and regress: the runs'
 * values and spreads, the estimate, interval, p, MDE, verdict and how it
 * was reached. */
#include <math.h>

#include "output.h"
#include "analysis/compare.h"

const char *na_cmp_unit(int metric)
{
	return na_metrics[metric].lower_is_better ? "us" : metric == NA_M_MBPS ? "MB/s" : "IOPS";
}

/* A number, or null when it is unknown. */
static json_t *num_json(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

/* center first, the figure the change is the ratio of (the effect's: the
 * geometric mean of the runs above 0). */
static json_t *spread_json(const na_spread *s, const double *v, double center)
{
	json_t *values = json_array();
	for (size_t i = 0; i < s->n; i++)
		json_array_append_new(values, json_real(v[i]));
	return json_pack("{s:o, s:f, s:f, s:f, s:I, s:o}", "geomean", num_json(center),
	                 "median", s->median, "min", s->min, "max", s->max, "n", (json_int_t)s->n,
	                 "values", values);
}

/* How the line's verdict was reached, in words. */
static json_t *method_json(const na_effect *e)
{
	if (e->verdict == NA_NOISE_TOO_FEW)
		return json_string("fewer than 3 runs a side: no verdict");
	char text[256];
	char holm[128] = "";
	if (e->judged)
		snprintf(holm, sizeof(holm), "; Holm across the profile's %zu verdict line%s (IOPS weighs "
		         "%g), this line at %.4g%%", e->family, na_s(e->family), NA_IOPS_WEIGHT,
		         e->alpha * 100);
	snprintf(text, sizeof(text), "t test on log values, pooled variance, df=%zu%s%s",
	         e->na + e->nb - 2,
	         !e->judged ? "; no verdict of its own (follows IOPS)" : holm,
	         e->judged && e->band > 0 ? "; the interval must clear the --min-change band" : "");
	return json_string(text);
}

/* A line's figures and verdict, for a metric where lower is better or not:
 * the spreads, estimate, interval, p, MDE, verdict and method. */
json_t *na_cmp_effect_json(const na_cmp_line *l, bool lower_is_better)
{
	const na_effect *e = &l->eff;
	double pct = na_effect_pct(e);
	bool known = !isnan(pct) && pct != 0;
	bool better = (pct > 0) != lower_is_better;
	json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:{s:f, s:o, s:o}}",
	                      "a", spread_json(&l->sa, l->a, l->eff.center_a),
	                      "b", spread_json(&l->sb, l->b, l->eff.center_b), "estimate_pct", num_json(pct),
	                      "ratio", num_json(e->ratio),
	                      "better", known ? json_boolean(better) : json_null(),
	                      "interval", "level", 1 - e->alpha, "low_pct", num_json((e->lo - 1) * 100),
	                      "high_pct", num_json((e->hi - 1) * 100));
	json_object_update_new(o, json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:{s:I, s:I}, s:s, s:b, "
	                                    "s:o, s:o, s:o, s:b}",
	    "p", num_json(e->p), "p_holm", e->judged ? num_json(e->p_holm) : json_null(),
	    "mde_rise_pct", num_json(e->mde * 100), "mde_drop_pct", num_json(e->mde_drop * 100),
	    "min_change_pct", num_json(e->band * 100),
	    "family_lines", e->judged ? json_integer((json_int_t)e->family) : json_null(),
	    "left_out_at_zero", "a", (json_int_t)e->stalled_a, "b", (json_int_t)e->stalled_b,
	    "verdict", na_noise_name(e->verdict), "judged", e->judged, "method", method_json(e),
	    "mann_whitney_p", num_json(e->mw_p), "hodges_lehmann_pct", num_json((e->hl_ratio - 1) * 100),
	    "depends_on_one_run", e->fragile));
	return o;
}

json_t *na_cmp_line_json(const na_cmp_line *l)
{
	bool lower = na_metrics[l->metric].lower_is_better;
	json_t *o = json_pack("{s:s, s:s, s:s, s:b}", "direction", na_dir_names[l->dir],
	                      "metric", na_metrics[l->metric].key, "unit", na_cmp_unit(l->metric),
	                      "lower_is_better", lower);
	json_object_update_new(o, na_cmp_effect_json(l, lower));
	if (l->metric == NA_M_P99)
		json_object_set_new(o, "pooled_p99_us", json_pack("{s:o, s:o}",
		    "a", l->pooled_a > 0 ? json_real(l->pooled_a) : json_null(),
		    "b", l->pooled_b > 0 ? json_real(l->pooled_b) : json_null()));
	return o;
}
