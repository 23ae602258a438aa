/* The common window of a group and each member's figures in it.  fio logs
 * one line per interval per direction, stamped with the interval's end; a
 * line covers the time since the direction's line before it, at most one
 * interval (the first line, or one after a gap, covers one interval back).  An interval that
 * straddles an edge of the window is counted by its overlapping share, as if
 * its I/Os were spread evenly over it: fio logs nothing finer, and a 1 s
 * interval cut at the edge of a 60 s window moves the sums by at most 1/60
 * of one member's second. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/group_window.h"

typedef struct window {
	int64_t from, to;
} window;

static int64_t samples_end(const na_fio_log *log)
{
	int64_t end = INT64_MIN;
	for (size_t i = 0; i < log->n; i++)
		if (log->s[i].t_ms > end)
			end = log->s[i].t_ms;
	return end;
}

static int64_t hist_end(const na_fio_hist_log *h)
{
	int64_t end = INT64_MIN;
	for (size_t i = 0; i < h->n; i++)
		if (h->t_ms[i] > end)
			end = h->t_ms[i];
	return end;
}

/* A member measures until the earlier of its logs ends: fio may stop one
 * log a line before the other, and a log's silence is not a measurement. */
static int64_t member_end(const na_gw_member *m)
{
	int64_t h = hist_end(m->hist), b = m->bw ? samples_end(m->bw) : h;
	return (h < b ? h : b) + m->log_base_ms;
}

/* Whether every direction of the histogram log names one block size. */
static bool sizes_known(const na_fio_hist_log *h)
{
	for (size_t d = 0; d < NA_FIO_DIRS; d++)
		if (h->bs[d] < 0)
			return false;
	return true;
}

static int check_member(const na_gw_member *m, size_t i, vs_error *err)
{
	if (!m->hist || !m->hist->n || (m->bw ? !m->bw->n : !sizes_known(m->hist)))
		return vs_fail(err, VS_ERR_USAGE, "member %zu of the group lacks its histogram log "
		               "(write_hist_log), or its bandwidth log (write_bw_log) with I/O sizes "
		               "that vary", i);
	if (m->interval_ms <= 0 || m->interval_ms > NA_FIO_LOG_MAX_MS || m->ramp_ms < 0 ||
	    m->ramp_ms > NA_FIO_LOG_MAX_MS || llabs(m->start_ms) > NA_FIO_LOG_MAX_MS ||
	    llabs(m->log_base_ms) > NA_FIO_LOG_MAX_MS)
		return vs_fail(err, VS_ERR_USAGE, "member %zu of the group has an interval of %lld ms, a "
		               "ramp of %lld ms, a start at %lld ms and its logs' times from %lld ms",
		               i, (long long)m->interval_ms, (long long)m->ramp_ms, (long long)m->start_ms,
		               (long long)m->log_base_ms);
	return VS_OK;
}

/* [latest start + ramp, earliest end], and at least one interval long. */
static int common_window(const na_gw_member *m, size_t n, na_gw_result *out, vs_error *err)
{
	size_t first = 0, last = 0;
	int64_t interval = 0;
	window w = {INT64_MIN, INT64_MAX};
	for (size_t i = 0; i < n; i++) {
		int rc = check_member(&m[i], i, err);
		if (rc != VS_OK)
			return rc;
		if (m[i].start_ms + m[i].ramp_ms > w.from)
			w.from = m[i].start_ms + m[i].ramp_ms, last = i;
		if (member_end(&m[i]) < w.to)
			w.to = member_end(&m[i]), first = i;
		if (m[i].interval_ms > interval)
			interval = m[i].interval_ms;
	}
	out->from_ms = w.from;
	out->to_ms = w.to;
	out->starts_last = last;
	out->ends_first = first;
	if (w.to <= w.from)
		return vs_fail(err, VS_ERR_PROTOCOL, "the group's common window is empty: member %zu's logs "
		               "end at %lld ms, before member %zu measures from %lld ms (start + ramp)",
		               first, (long long)w.to, last, (long long)w.from);
	if (w.to - w.from < interval)
		return vs_fail(err, VS_ERR_PROTOCOL, "the group's common window, %lld to %lld ms, is %lld ms "
		               "long, shorter than one %lld ms interval: member %zu measures from %lld ms, "
		               "member %zu's logs end at %lld ms", (long long)w.from, (long long)w.to,
		               (long long)(w.to - w.from), (long long)interval, last, (long long)w.from,
		               first, (long long)w.to);
	return VS_OK;
}

/* The start of the interval a line at t closes, given the direction's line
 * before it (prev, updated). */
static int64_t line_start(int64_t prev[NA_FIO_DIRS], int dir, int64_t t, int64_t interval)
{
	int64_t lo = prev[dir] > t - interval ? prev[dir] : t - interval;
	prev[dir] = t;
	return lo;
}

/* The share of the interval (lo, hi] inside the window.  A line of no length
 * (fio's final flush may repeat a time) is wholly in or out. */
static double share(int64_t lo, int64_t hi, window w)
{
	if (hi == lo)
		return hi > w.from && hi <= w.to;
	int64_t a = lo > w.from ? lo : w.from, b = hi < w.to ? hi : w.to;
	return b > a ? (double)(b - a) / (double)(hi - lo) : 0;
}

/* The bytes a bandwidth log (KiB/s) adds up to in the window, per direction. */
static void byte_sums(const na_fio_log *log, const na_gw_member *m, window w, double sum[NA_FIO_DIRS])
{
	int64_t prev[NA_FIO_DIRS] = {INT64_MIN, INT64_MIN, INT64_MIN};
	for (size_t i = 0; i < log->n; i++) {
		const na_fio_sample *s = &log->s[i];
		int64_t hi = s->t_ms + m->log_base_ms;
		int64_t lo = line_start(prev, s->dir, hi, m->interval_ms);
		sum[s->dir] += (double)s->value * 1024.0 * (double)(hi - lo) / 1000.0 * share(lo, hi, w);
	}
}

/* Each member's histogram lines in the window, per direction: acc[dir * n_bins + bucket]. */
static void hist_sums(const na_fio_hist_log *h, const na_gw_member *m, window w, double *acc)
{
	int64_t prev[NA_FIO_DIRS] = {INT64_MIN, INT64_MIN, INT64_MIN};
	for (size_t i = 0; i < h->n; i++) {
		int64_t hi = h->t_ms[i] + m->log_base_ms;
		double f = share(line_start(prev, h->dir[i], hi, m->interval_ms), hi, w);
		const uint32_t *row = h->counts + i * h->n_bins;
		double *a = acc + (size_t)h->dir[i] * h->n_bins;
		for (size_t b = 0; f > 0 && b < h->n_bins; b++)
			a[b] += f * row[b];
	}
}

typedef struct bucket_part {
	double part;
	size_t bucket;
} bucket_part;

/* The larger part first; of equal parts, the slower bucket. */
static int by_part(const void *a, const void *b)
{
	const bucket_part *x = a, *y = b;
	if (x->part != y->part)
		return x->part > y->part ? -1 : 1;
	return x->bucket > y->bucket ? -1 : x->bucket < y->bucket;
}

/* Whole completions per bucket that add up to the direction's own total,
 * rounded (largest remainders, a tie to the slower bucket: the tail is not
 * understated): rounding each bucket alone loses the shares an edge
 * interval spreads thin, and a direction with a few I/Os over many buckets
 * could vanish.  false without memory. */
static bool whole_counts(const double *acc, size_t n, int64_t *count)
{
	bucket_part *r = malloc((n + 1) * sizeof(*r));
	if (!r)
		return false;
	size_t parts = 0;
	double total = 0;
	int64_t whole = 0;
	for (size_t b = 0; b < n; b++) {
		count[b] = (int64_t)floor(acc[b]);
		whole += count[b];
		total += acc[b];
		if (acc[b] > (double)count[b])
			r[parts++] = (bucket_part){acc[b] - (double)count[b], b};
	}
	qsort(r, parts, sizeof(*r), by_part);
	int64_t left = llround(total) - whole;
	for (size_t i = 0; i < parts && (int64_t)i < left; i++)
		count[r[i].bucket]++;
	free(r);
	return true;
}

/* The non-empty buckets in whole completions (whole_counts), as json+
 * bins; their sum is the direction's I/Os. */
static int dir_bins(na_fio_dir *d, const double *acc, const na_fio_hist_log *h, vs_error *err)
{
	d->bin_ns = malloc(h->n_bins * sizeof(*d->bin_ns));
	d->bin_count = malloc(h->n_bins * sizeof(*d->bin_count));
	int64_t *count = malloc(h->n_bins * sizeof(*count));
	if (!d->bin_ns || !d->bin_count || !count || !whole_counts(acc, h->n_bins, count)) {
		free(count);
		return vs_fail(err, VS_ERR_NOMEM, "out of memory merging fio's histograms");
	}
	double sum = 0, total = 0;
	for (size_t b = 0; b < h->n_bins; b++) {
		if (count[b] <= 0)
			continue;
		d->bin_ns[d->n_bins] = na_fio_hist_bucket_ns(b, h->coarseness);
		d->bin_count[d->n_bins++] = count[b];
		sum += (double)count[b] * (double)na_fio_hist_bucket_ns(b, h->coarseness);
		total += (double)count[b];
	}
	free(count);
	if (!d->n_bins) {  /* the I/O fell in intervals the window cuts to less than one completion */
		free(d->bin_ns);
		free(d->bin_count);
		d->bin_ns = d->bin_count = NULL;
		return VS_OK;
	}
	d->total_ios = (int64_t)total;
	d->lat_mean_us = sum / total / 1000.0;
	d->max_us = (double)d->bin_ns[d->n_bins - 1] / 1000.0;
	na_fio_dir_pcts_from_bins(d);
	return VS_OK;
}

/* A member's I/Os in the window are its histogram's completions there:
 * fio counts each completion in it, as in the IOPS log, so that log is not
 * fetched (one guest file transfer fewer per member and run); its bytes are
 * its bandwidth log's, or, when every I/O of a direction has one size, its
 * completions times that size (one transfer fewer again). */
static int member_figures(const na_gw_member *m, window w, na_fio_dir dirs[NA_FIO_DIRS], vs_error *err)
{
	double bytes[NA_FIO_DIRS] = {0}, secs = (double)(w.to - w.from) / 1000.0;
	double *acc = calloc(NA_FIO_DIRS * m->hist->n_bins, sizeof(*acc));
	if (!acc)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory merging fio's histograms");
	if (m->bw)
		byte_sums(m->bw, m, w, bytes);
	hist_sums(m->hist, m, w, acc);
	int rc = VS_OK;
	for (size_t d = 0; d < NA_FIO_DIRS && rc == VS_OK; d++) {
		na_fio_dir_clear(&dirs[d]);
		rc = dir_bins(&dirs[d], acc + d * m->hist->n_bins, m->hist, err);
		if (rc != VS_OK || !dirs[d].n_bins)
			continue;
		dirs[d].present = true;
		dirs[d].iops = (double)dirs[d].total_ios / secs;
		if (!m->bw)
			bytes[d] = (double)dirs[d].total_ios * (double)m->hist->bs[d];
		dirs[d].bw_bytes = bytes[d] / secs;
		dirs[d].runtime_ms = w.to - w.from;
	}
	free(acc);
	return rc;
}

int na_gw_compute(const na_gw_member *members, size_t n, na_gw_result *out, vs_error *err)
{
	*out = (na_gw_result){0};
	if (!members || !n || n > NA_GW_MAX_MEMBERS)
		return vs_fail(err, VS_ERR_USAGE, "a group has 1 to %d members, not %zu", NA_GW_MAX_MEMBERS,
		               members ? n : 0);
	int rc = common_window(members, n, out, err);
	if (rc != VS_OK)
		return rc;
	window w = {out->from_ms, out->to_ms};
	out->member = calloc(n, sizeof(*out->member));
	if (!out->member)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory cutting the group's window");
	out->n = n;
	for (size_t i = 0; i < n && rc == VS_OK; i++)
		rc = member_figures(&members[i], w, out->member[i], err);
	return rc;
}

bool na_gw_sizes_fixed(const na_fio_result *fio, const na_fio_hist_log *h)
{
	const na_fio_dir *dirs[NA_FIO_DIRS] = {&fio->read, &fio->write, NULL};  /* trim: not read */
	if (!sizes_known(h))
		return false;
	for (size_t d = 0; d < NA_FIO_DIRS; d++) {
		const na_fio_dir *f = fio->mixed ? NULL : dirs[d];
		if (!h->bs[d])
			continue;
		if (!f || !f->present || f->total_ios <= 0)
			return false;
		double per_io = f->bw_bytes * (double)f->runtime_ms / 1000.0 / (double)f->total_ios;
		if (fabs(per_io - (double)h->bs[d]) > 0.01 * (double)h->bs[d])
			return false;
	}
	return true;
}

void na_gw_result_clear(na_gw_result *r)
{
	for (size_t i = 0; i < r->n; i++)
		for (size_t d = 0; d < NA_FIO_DIRS; d++)
			na_fio_dir_clear(&r->member[i][d]);
	free(r->member);
	*r = (na_gw_result){0};
}
