/* A result's layers under its fio rows (see compare.h): ESXi's datastore
 * counters and the NAS's pool over the same run, and how a layer's line
 * prints; compare.c judges them as it judges the fio lines. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "analysis/compare.h"
#include "nfsagent/nas.h"
#include "nfsagent/vsphere.h"

const na_layer_info na_layers[NA_L_COUNT] = {
	{"esxi_read_mbps", "ESXi datastore read", " MB/s", false, false},
	{"esxi_write_mbps", "ESXi datastore write", " MB/s", false, false},
	{"pool_read_mbps", "pool data read", " MB/s", false, false},
	{"pool_write_mbps", "pool data write", " MB/s", false, false},
	{"pool_special_write_mbps", "pool special write", " MB/s", false, false},
	{"pool_log_write_mbps", "pool log write", " MB/s", false, false},
	{"amplification", "write amplification", "x", true, true},
	{"amp_guest_to_dataset", "amplification, guest to dataset", "x", true, true},
	{"amp_dataset_to_data", "amplification, dataset to data vdevs", "x", true, true},
	{"amp_log_share", "amplification, log share", "x", true, true},
	{"arc_hits_pct", "ARC demand hits", "%", false, false},
	{"log_write_wait_us", "log write wait", " us", true, true},
	{"log_sync_write_wait_us", "log sync queue wait", " us", true, true},
	{"zil_commits_per_s", "ZIL commits", "/s", false, false},
	{"zil_slog_mbps", "ZIL to the SLOG", " MB/s", false, false},
	{"zil_normal_mbps", "ZIL to the pool", " MB/s", false, false},
	{"txg_sync_ms", "txg sync time, mean", " ms", false, false},
	{"txg_sync_max_ms", "txg sync time, max", " ms", false, false},
	{"txg_dirty_mb", "txg dirty data, mean", " MB", false, false},
};

static bool has_zero(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == 0)
			return true;
	return false;
}

na_effect na_cmp_layer_effect(int m, const double *a, size_t na, const double *b, size_t nb,
                              double band)
{
	if (!has_zero(a, na) && !has_zero(b, nb))
		return na_effect_of(a, na, b, nb, band, na_layers[m].judged);
	/* The engine's effect without its logs: no runs left out, no test. */
	na_effect e = na_effect_of(a, 0, b, 0, band, false);
	na_spread sa = na_spread_of(a, na), sb = na_spread_of(b, nb);
	e.na = sa.n;
	e.nb = sb.n;
	e.ratio = sa.median > 0 ? sb.median / sa.median : NAN;
	e.center_a = sa.median;  /* printed beside the change they make */
	e.center_b = sb.median;
	e.verdict = NA_NOISE_SHOWN;
	return e;
}

/* A line with a 0 on either side: not tested (na_cmp_layer_effect). */
static bool zero_line(const na_cmp_line *l)
{
	return has_zero(l->a, l->sa.n) || has_zero(l->b, l->sb.n);
}

const char *na_cmp_layer_verdict(const na_cmp_line *l)
{
	return l->eff.judged ? na_noise_name(l->eff.verdict)
	       : zero_line(l) ? "not tested: a run measured 0"
	                      : "no verdict";
}

/* Seconds since 1970 of a UTC stamp (vCenter's and the store's), or -1. */
static double utc_seconds(const char *iso)
{
	int64_t ms = iso ? vs_time_parse(iso, NULL) : -1;
	return ms < 0 ? -1 : (double)ms / 1000;
}

/* ESXi's datastore read and write rates over the run (KBps samples, as
 * bench stored them), in MB/s, from the realtime samples whose 20 s lie
 * wholly inside fio's I/O: the runtime_ms before the result's finish (when
 * bench saw fio end; the start is no anchor, as fio lays out its file and
 * ramps first).  A sample that reaches outside
 * averages in other time, and a run shorter than 20 s has none of its own,
 * so it is not measured (two runs in one sample showed the same figure);
 * -1 then, or when none came back. */
static void layers_esxi(double *layer, const na_result *r)
{
	static const char *const counter[2] = {"datastore.read.average", "datastore.write.average"};
	enum { SAMPLE_S = 20 };
	json_t *samples = r->host_counters_json ? json_loads(r->host_counters_json, 0, NULL) : NULL;
	int64_t ms = r->read.runtime_ms > r->write.runtime_ms ? r->read.runtime_ms : r->write.runtime_ms;
	double to = utc_seconds(r->finished_at), from = to - (double)ms / 1000;
	for (int d = 0; d < 2; d++) {
		double sum = 0;
		size_t n = 0, i;
		json_t *v;
		json_array_foreach(samples, i, v) {
			const char *name = json_string_value(json_object_get(v, "counter"));
			json_t *value = json_object_get(v, "value");
			double at = utc_seconds(json_string_value(json_object_get(v, "time")));
			if (name && strcmp(name, counter[d]) == 0 && json_is_integer(value) && from >= 0 &&
			    at - SAMPLE_S >= from && at <= to) {
				sum += (double)json_integer_value(value);
				n++;
			}
		}
		layer[d ? NA_L_ESXI_WRITE : NA_L_ESXI_READ] = n ? sum / (double)n * 1024 / 1e6 : -1;
	}
	json_decref(samples);
}

/* The pool's layers from result r's NAS side n. */
static void layers_pool(double *layer, const na_result *r, const na_nas_run *n)
{
	/* the stored totals are over fio's window: as stored (schema 8), else
	 * its longest direction's runtime (na_nas_row_line's rates) */
	int64_t ms = r->read.runtime_ms > r->write.runtime_ms ? r->read.runtime_ms : r->write.runtime_ms;
	double secs = n->window_s > 0 ? n->window_s : (double)ms / 1000;
	/* an incomplete row's figures are not fio's window's */
	bool whole = n->pool_known && !n->incomplete;
	if (whole && secs > 0) {
		layer[NA_L_POOL_READ] =
			(double)(n->data_read_bytes + n->dedup_read_bytes + n->special_read_bytes) / secs / 1e6;
		layer[NA_L_POOL_WRITE] = (double)(n->data_write_bytes + n->dedup_write_bytes) / secs / 1e6;
		layer[NA_L_SPECIAL_WRITE] = (double)n->special_write_bytes / secs / 1e6;
		layer[NA_L_LOG_WRITE] = (double)n->log_write_bytes / secs / 1e6;
	}
	/* The amplification and its split as bench stored them (schema 8; a
	 * NULL is -1 there as here).  A row from before has no split, only the
	 * total its stored totals give, through the window bench's NAS line
	 * reads it from, so that the formula is one. */
	if (whole && n->amplification >= 0) {
		layer[NA_L_AMPLIFICATION] = n->amplification;
		layer[NA_L_AMP_GUEST_TO_DATASET] = n->amp_guest_to_dataset;
		layer[NA_L_AMP_DATASET_TO_DATA] = n->amp_dataset_to_data;
		layer[NA_L_AMP_LOG_SHARE] = n->amp_log_share;
	} else if (whole) {
		nas_window win = {.counters = n->counters_known,
		                  .dataset_written = (uint64_t)n->dataset_written};
		win.total[NAS_CLASS_DATA].write_bytes = (uint64_t)n->data_write_bytes;
		win.total[NAS_CLASS_SPECIAL].write_bytes = (uint64_t)n->special_write_bytes;
		win.total[NAS_CLASS_DEDUP].write_bytes = (uint64_t)n->dedup_write_bytes;
		win.total[NAS_CLASS_LOG].write_bytes = (uint64_t)n->log_write_bytes;
		const na_dir_stats *wr = &r->write;
		nas_amplification a;
		nas_amplification_of(&win, wr->present ? (uint64_t)(wr->bw_bytes * (double)wr->runtime_ms /
		                                                    1000) : 0, &a);
		if (a.known)
			layer[NA_L_AMPLIFICATION] = a.total;
	}
	/* a row incomplete may hold counters of the whole sampling, not fio's window */
	if (n->counters_known && !n->incomplete && n->arc_hit_ratio >= 0)
		layer[NA_L_ARC_HITS] = n->arc_hit_ratio * 100;
	if (n->counters_known && !n->incomplete && secs > 0 && n->zil_commits > 0) {
		layer[NA_L_ZIL_COMMITS] = (double)n->zil_commits / secs;
		layer[NA_L_ZIL_SLOG] = (double)n->zil_slog_bytes / secs / 1e6;
		layer[NA_L_ZIL_NORMAL] = (double)n->zil_normal_bytes / secs / 1e6;
	}
	/* the ZFS figures of schema 11, each -1 (NULL) when not measured */
	if (whole && n->log_write_wait_ms >= 0)
		layer[NA_L_LOG_WAIT] = n->log_write_wait_ms * 1000;
	if (whole && n->log_sync_write_wait_ms >= 0)
		layer[NA_L_LOG_SYNC_WAIT] = n->log_sync_write_wait_ms * 1000;
	if (!n->incomplete && n->txg_sync_mean_ms >= 0) {
		layer[NA_L_TXG_SYNC] = n->txg_sync_mean_ms;
		layer[NA_L_TXG_SYNC_MAX] = n->txg_sync_max_ms;
		layer[NA_L_TXG_DIRTY] = n->txg_dirty_mean_bytes / 1e6;
	}
}

void na_cmp_layers(const na_result *r, const na_nas_run *n, double layer[NA_L_COUNT])
{
	for (int i = 0; i < NA_L_COUNT; i++)
		layer[i] = -1;
	layers_esxi(layer, r);
	if (n)
		layers_pool(layer, r, n);
}

void na_cmp_layer_cells_of(const na_cmp_line *l, na_cmp_cells *c)
{
	const na_layer_info *m = &na_layers[l->metric];
	snprintf(c->metric, sizeof(c->metric), "%s", m->label);
	na_spread_text(&l->sa, l->eff.center_a, 1, m->unit, c->a, sizeof(c->a));
	na_spread_text(&l->sb, l->eff.center_b, 1, m->unit, c->b, sizeof(c->b));
	double pct = na_effect_pct(&l->eff);
	if (l->eff.judged)
		na_effect_text(&l->eff, m->lower_is_better, c->change, sizeof(c->change));
	else if (m->judged)  /* judged but not tested: the medians' change, its direction said */
		na_change_text(pct, m->lower_is_better, c->change, sizeof(c->change));
	else if (isnan(pct))
		snprintf(c->change, sizeof(c->change), "n/a");
	else  /* no better side: the change alone */
		snprintf(c->change, sizeof(c->change), "%+.1f%%", pct);
	if (l->eff.judged)
		na_verdict_text(&l->eff, c->verdict, sizeof(c->verdict));
	else
		snprintf(c->verdict, sizeof(c->verdict), "%s%s", na_cmp_layer_verdict(l),
		         zero_line(l) ? ", which has no ratio of logs; the figures and change are medians"
		                      : ": neither side is better by itself");
	na_cmp_cells_narrow(l, 1, m->unit, c);
	/* said once under the table, not on each line without a better side */
	if (!m->judged && !zero_line(l))
		c->note[0] = '\0';
	c->pooled[0] = '\0';
}

void na_cmp_cells_narrow(const na_cmp_line *l, double scale, const char *unit, na_cmp_cells *c)
{
	na_spread_bare_text(&l->sa, l->eff.center_a, scale, unit, c->a_bare, sizeof(c->a_bare));
	na_spread_bare_text(&l->sb, l->eff.center_b, scale, unit, c->b_bare, sizeof(c->b_bare));
	/* the wide cells are the narrow ones with more said: cut there */
	size_t change = strcspn(c->change, "(");
	snprintf(c->change_bare, sizeof(c->change_bare), "%.*s", (int)(change && c->change[change] ?
	         change - 1 : change), c->change);
	size_t name = strcspn(c->verdict, ":;(,");
	snprintf(c->verdict_bare, sizeof(c->verdict_bare), "%.*s",
	         (int)(name && c->verdict[name] == '(' ? name - 1 : name), c->verdict);
	const char *ci = c->change[change] ? c->change + change + 1 : "";
	size_t skip = c->verdict[name] == '(' ? 0 : strspn(c->verdict + name, ":;, ");
	const char *more = c->verdict + name + skip;
	snprintf(c->note, sizeof(c->note), "%.*s%s%s", (int)(*ci ? strlen(ci) - 1 : 0), ci,
	         *ci && *more ? "; " : "", more);
}
