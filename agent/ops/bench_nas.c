/* The NAS side of a benchmark repetition: the NAS sampled around fio
 * (zpool iostat and the kstats), fio's window cut out of it by both clocks,
 * the row recorded with the result, and the lines that show it. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ops/bench_internal.h"

/* ---- the row ------------------------------------------------------------------ */

static char *nas_timeline(const nas_window *w)
{
	if (!w->timeline.n)
		return NULL;
	json_t *series[4] = {json_array(), json_array(), json_array(), json_array()};
	json_t *ends = json_array();
	for (size_t i = 0; i < w->timeline.n; i++) {
		const nas_sample *x = &w->timeline.v[i];
		/* the sampler's estimate, else the middle of zpool's whole second */
		double end = x->end > 0 ? x->end : x->at > 0 ? (double)x->at + 0.5 : 0;
		json_array_append_new(ends, end > 0 ? json_real(end) : json_null());
		const nas_io *c = w->timeline.v[i].cls;
		const uint64_t v[4] = {
			c[NAS_CLASS_DATA].write_bytes + c[NAS_CLASS_DEDUP].write_bytes,
			c[NAS_CLASS_DATA].read_bytes + c[NAS_CLASS_DEDUP].read_bytes +
				c[NAS_CLASS_SPECIAL].read_bytes,
			c[NAS_CLASS_SPECIAL].write_bytes, c[NAS_CLASS_LOG].write_bytes};
		for (int k = 0; k < 4; k++)
			json_array_append_new(series[k], json_integer((json_int_t)v[k]));
	}
	json_t *o = json_pack("{s:i, s:o, s:o, s:o, s:o, s:o}", "interval_s", w->interval_s,
	                      "data_write", series[0], "data_read", series[1],
	                      "special_write", series[2], "log_write", series[3], "end", ends);
	char *text = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(o);
	return text;
}

/* The NAS side of the result being recorded: the settings as measured, the
 * window's figures (layout: its pool layout's buffer; the timeline is
 * malloc'd).  It is recorded in the result's transaction, so a kill never
 * leaves one without the other. */
void na_bench_nas_row(const na_bench *b, const na_bench_outcome *out, na_nas_run *n, char *layout,
                      size_t size)
{
	const nas_view *v = &b->nas_view;
	const nas_window *w = &out->nas_window;
	const nas_io *t = w->total;
	const nas_io *log = &t[NAS_CLASS_LOG];
	/* as the counters: an incomplete row's txgs may be the whole sampling's */
	bool txgs = w->txgs && !w->incomplete;
	nas_layout_summary(&v->layout, layout, size);
	nas_amplification a;
	nas_amplification_of(w, na_guest_written(&out->fio.write), &a);
	bool measured = w->fio_window && !w->incomplete;
	bool wrote = w->timeline.n && out->fio.write.present;
	*n = (na_nas_run){
		.dataset = v->dataset.name, .pool_layout = layout, .pool_health = b->pool_health,
		.sync = v->props.sync, .compression = v->props.compression, .atime = v->props.atime,
		.logbias = v->props.logbias, .primarycache = v->props.primarycache,
		.why = w->incomplete ? w->why : NULL,
		.recordsize = v->props.recordsize, .special_small_blocks = v->props.special_small_blocks,
		.pool_known = w->timeline.n > 0, .interval_s = w->interval_s,
		.intervals = (int64_t)w->timeline.n,
#define CLASS_IO(c, k)                                                                      \
	.c##_read_ops = (int64_t)t[k].read_ops, .c##_write_ops = (int64_t)t[k].write_ops,      \
	.c##_read_bytes = (int64_t)t[k].read_bytes, .c##_write_bytes = (int64_t)t[k].write_bytes,
		CLASS_IO(data, NAS_CLASS_DATA) CLASS_IO(special, NAS_CLASS_SPECIAL)
		CLASS_IO(dedup, NAS_CLASS_DEDUP) CLASS_IO(log, NAS_CLASS_LOG)
		CLASS_IO(cache, NAS_CLASS_CACHE)
#undef CLASS_IO
		/* an incomplete row's counters may be the whole sampling's */
		.counters_known = w->counters && !w->incomplete, .dataset_writes = (int64_t)w->dataset_writes,
		.dataset_written = (int64_t)w->dataset_written, .dataset_reads = (int64_t)w->dataset_reads,
		.dataset_read = (int64_t)w->dataset_read, .arc_demand_hits = (int64_t)w->arc_hits,
		.arc_demand_misses = (int64_t)w->arc_misses, .arc_size = (int64_t)w->arc_size,
		.zil_commits = (int64_t)w->zil_commits, .zil_slog_bytes = (int64_t)w->zil_slog_bytes,
		.zil_normal_bytes = (int64_t)w->zil_normal_bytes, .arc_hit_ratio = w->arc_hit_ratio,
		.incomplete = w->incomplete, .timeline = nas_timeline(w),
		.measured_s = measured ? w->seconds : -1, .window_s = measured ? w->span : -1,
		.amplification = a.known ? a.total : -1,
		.amp_guest_to_dataset = a.known ? a.guest_to_dataset : -1,
		.amp_dataset_to_data = a.known ? a.dataset_to_data : -1,
		.amp_log_share = a.known ? a.log_share : -1,
		.clock_known = out->clock_known, .clock_shift_s = out->clock_shift,
		.clock_err_s = out->clock_err,
		/* a wait is the log's writes': none without them ('-', 0), and
		 * none for a run that did not write (its log writes are other
		 * clients', nas-sampling.md) */
		.log_write_wait_ms = wrote && log->write_ops && log->write_wait_ns
		                         ? (double)log->write_wait_ns / 1e6 : -1,
		.log_sync_write_wait_ms = wrote && log->write_ops && log->sync_write_wait_ns
		                              ? (double)log->sync_write_wait_ns / 1e6 : -1,
		.txgs_known = txgs, .txg_count = (int64_t)w->txg_count,
		.txg_sync_mean_ms = txgs && w->txg_count ? w->txg_sync_mean_ns / 1e6 : -1,
		.txg_sync_max_ms = txgs && w->txg_count ? w->txg_sync_max_ns / 1e6 : -1,
		.txg_dirty_mean_bytes = txgs && w->txg_count ? w->txg_dirty_mean : -1,
	};
}

/* ---- the NAS side --------------------------------------------------------------- */

/* Whether text is "SECONDS.FRACTION" and a newline at most, as date +%s.%N
 * prints it (not "inf", hex or an exponent; a date without %N prints
 * "1764600000.%N", no sub-second reading). */
static bool clock_reading(const char *text, double *at)
{
	size_t whole = strspn(text, "0123456789");
	size_t part = whole && text[whole] == '.' ? strspn(text + whole + 1, "0123456789") : 0;
	const char *end = text + whole + 1 + part;
	if (!part || (*end && strcmp(end, "\n") != 0))
		return false;
	*at = strtod(text, NULL);
	return *at > 0;
}

/* The guest's clock against ours: clock.txt, written by its shell between
 * asked[0] and asked[1].  Not read, the offset stays unknown; a file that
 * could not be fetched leaves the NAS side incomplete (with why), never the
 * result unrecorded. */
void na_bench_guest_clock(na_bench *b, const double asked[2], na_bench_outcome *out)
{
	char *text = NULL;
	size_t len = 0;
	double at = 0;
	vs_error err = {0};
	out->guest_clock_err = -1;
	if (na_bench_fetch(b, "clock.txt", 64, &text, &len, &err) != VS_OK) {
		nas_window *w = &out->nas_window;
		if (!w->incomplete) {
			w->incomplete = true;
			snprintf(w->why, sizeof(w->why), "the guest's clock could not be read: %.400s", err.message);
		}
	} else if (text && clock_reading(text, &at)) {
		out->guest_clock_offset = at - (asked[0] + asked[1]) / 2;
		out->guest_clock_err = (asked[1] - asked[0]) / 2;
	}
	free(text);
}

/* The interval of `zpool iostat` beside a job of job_s seconds: fine for a
 * short run, a few seconds for a long one (the NAS's own cost). */
static int nas_interval(long job_s)
{
	return job_s <= 30 ? 1 : job_s <= 300 ? 2 : 5;
}

bool na_bench_label_conflict(const nas_props *p, const char *key, const char *value, char *why,
                             size_t size)
{
	static const struct {
		const char *name;
		size_t off;  /* of the word in nas_props */
	} words[] = {
		{"sync", offsetof(nas_props, sync)},       {"compression", offsetof(nas_props, compression)},
		{"atime", offsetof(nas_props, atime)},     {"logbias", offsetof(nas_props, logbias)},
		{"primarycache", offsetof(nas_props, primarycache)},
	};
	int64_t measured = -1;
	if (strcasecmp(key, "recordsize") == 0)
		measured = p->recordsize;
	else if (strcasecmp(key, "special_small_blocks") == 0)
		measured = p->special_small_blocks;
	if (measured >= 0) {
		int64_t labelled = strcmp(value, "0") == 0 ? 0 : na_parse_size(value);
		char shown[32];
		snprintf(why, size, "%s is %lld (%s) on the dataset", key, (long long)measured,
		         na_size(measured, shown, sizeof(shown)));
		return labelled != measured;
	}
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcasecmp(key, words[i].name) == 0) {
			const char *m = (const char *)p + words[i].off;
			snprintf(why, size, "%s is %s on the dataset", key, m);
			return strcasecmp(value, m) != 0;
		}
	return false;
}

/* Opens the sampler of the bench's next run, parked, when a run is left
 * (one not opened is opened by that run). */
static void park_next(na_bench *b)
{
	vs_error err = {0};
	if (b->nas_runs > 0 && !b->nas_next &&
	    nas_sampler_open(b->nas, &b->nas_next, &err) != VS_OK)
		b->nas_next = NULL;
}

/* What a view's reading is checked for before a bench's runs: the pool's
 * health, the labels against the settings, the recordsize trap. */
static void check_view(na_bench *b)
{
	bool healthy;
	nas_health_words(b->nas_view.layout.health, &b->nas_view.activity, b->pool_health,
	                 sizeof(b->pool_health), &healthy);
	if (!healthy)
		na_say_warning(b->s, "pool %s is %s: these figures are not the healthy pool's",
		               b->nas_view.layout.pool, b->pool_health);
	for (size_t i = 0; i < b->n_labels; i++) {
		char why[160];
		if (na_bench_label_conflict(&b->nas_view.props, b->labels[i].key, b->labels[i].value, why,
		                            sizeof(why)))
			na_say_warning(b->s, "--label %s=%s contradicts the NAS: %s %s (both are recorded)",
			               b->labels[i].key, b->labels[i].value, why, b->nas_view.dataset.name);
	}
	na_bench_recordsize_trap(b);
}

/* The whole view read again (a recordsize changed since the last reading:
 * the pool's history too); one that cannot be read keeps the rechecked. */
static void reread_view(na_bench *b)
{
	nas_view v;
	vs_error ignored = {0};
	double t0 = na_run_clock();
	if (nas_read_view(b->nas, b->ds->remote_path, &v, &ignored) == VS_OK) {
		nas_view_free(&b->nas_view);
		b->nas_view = v;
	}
	b->nas_read_s += na_run_clock() - t0;
}

/* What the recheck read (rc), taken into b's view; said when the settings
 * changed or could not be read; then the view is checked. */
static void take_recheck(na_bench *b, int rc, const nas_props *now, const nas_activity *activity,
                         const vs_error *err)
{
	nas_props *p = &b->nas_view.props;
	if (rc != VS_OK) {
		char why[600];
		vs_error_format(err, why, sizeof(why));
		na_say_warning(b->s, "%s's settings were not read again (recorded as first read): %s",
		               b->nas_view.dataset.name, why);
	} else {
		/* both read whole into zeroed structs of plain values: bytes compare */
		if (memcmp(p, now, sizeof(*p)) != 0)
			na_say_warning(b->s, "%s's settings changed since the campaign's last reading of "
			               "them: recorded as now read", b->nas_view.dataset.name);
		if (now->objsetid != p->objsetid)
			na_say_warning(b->s, "%s was made again since (objset %llu, now %llu)",
			               b->nas_view.dataset.name, (unsigned long long)p->objsetid,
			               (unsigned long long)now->objsetid);
		bool resized = now->recordsize != p->recordsize;
		*p = *now;
		b->nas_view.activity = *activity;
		if (resized)  /* the history dates the change the recordsize trap warns of */
			reread_view(b);
	}
	check_view(b);
}

/* Starts with the campaign's kept view (read ahead, or by an earlier
 * round), its settings read again beside the round's move (the campaign
 * started it) or from now, beside the guests' preparation; taken by
 * na_bench_nas_settle.  No thread: the view as kept, checked. */
static void begin_kept(na_bench *b)
{
	if (!b->nas_memo->recheck)
		na_nas_memo_recheck(b->nas_memo, b->nas);
	b->recheck = b->nas_memo->recheck;
	b->nas_memo->recheck = NULL;
	b->nas_view = b->nas_memo->view;
	b->nas_memo->held = false;
	b->nas_ready = true;
	if (b->recheck)
		return;
	/* no thread: read again here, never recorded unchecked */
	nas_props props;
	nas_activity activity;
	vs_error err = {0};
	double t0 = na_run_clock();
	int rc = nas_reread_settings(b->nas, &b->nas_view, &props, &activity, &err);
	b->nas_read_s += na_run_clock() - t0;
	take_recheck(b, rc, &props, &activity, &err);
}

void na_bench_nas_begin(na_bench *b)
{
	if (!b->nas)
		return;
	vs_error err = {0};
	/* the first run's handshakes while the NAS's settings are read */
	if (b->ds->remote_path)
		park_next(b);
	double t0 = na_run_clock();
	if (b->nas_memo)
		na_nas_memo_wait(b->nas_memo);  /* read ahead: only the wait is the runs' */
	b->nas_read_s = na_run_clock() - t0;
	if (*b->stop) {
		nas_sampler_close(&b->nas_next);
		return;
	}
	/* a memo still awaited (a stop cut the wait) is the read-ahead's */
	bool kept = b->nas_memo && !b->nas_memo->ahead;
	if (kept && b->nas_memo->held && b->ds->remote_path) {
		begin_kept(b);
		return;
	}
	t0 = na_run_clock();
	int rc = b->ds->remote_path
	             ? nas_read_view(b->nas, b->ds->remote_path, &b->nas_view, &err)
	             : vs_fail(&err, VS_ERR_USAGE, "datastore %s is not NFS", b->ds->name);
	b->nas_read_s += na_run_clock() - t0;
	if (rc != VS_OK) {
		char why[600];
		vs_error_format(&err, why, sizeof(why));
		na_say_warning(b->s, "the results are recorded without the NAS side: %s", why);
		nas_sampler_close(&b->nas_next);
		return;
	}
	b->nas_ready = true;
	check_view(b);
}

void na_bench_nas_settle(na_bench *b)
{
	if (!b->recheck)
		return;
	nas_props props;
	nas_activity activity;
	vs_error err = {0};
	double t0 = na_run_clock();
	int rc = na_recheck_join(&b->recheck, &props, &activity, &err);
	b->nas_read_s += na_run_clock() - t0;  /* only the wait is the runs' */
	take_recheck(b, rc, &props, &activity, &err);
}

void na_bench_nas_end(na_bench *b)
{
	na_recheck_drop(&b->recheck);  /* no run took it: nothing to say */
	nas_sampler_close(&b->nas_next);
	if (b->nas_memo && !b->nas_memo->ahead && b->nas_ready) {  /* kept for the next round */
		b->nas_memo->view = b->nas_view;
		b->nas_memo->held = true;
		b->nas_view = (nas_view){0};
	} else {
		nas_view_free(&b->nas_view);
	}
	b->nas_ready = false;
}

nas_sampler *na_bench_sampling_start(na_bench *b, const char *job_text, nas_window *w)
{
	nas_sampler *s = b->nas_next;
	b->nas_next = NULL;
	if (s && !nas_sampler_parked(s))  /* its session lost while parked: a new one may connect */
		nas_sampler_close(&s);
	long job_s = na_job_seconds(job_text, UNBOUNDED_S);
	vs_error err = {0};
	*w = (nas_window){.arc_hit_ratio = -1};
	int rc = s ? VS_OK : nas_sampler_open(b->nas, &s, &err);
	/* iostat lasts as long as fio may (its file's layout included: a seed's
	 * 8 GiB file takes minutes to lay out before fio's window opens), ending
	 * by itself a minute after fio's timeout; the stop ends it sooner. */
	if (rc == VS_OK)
		rc = nas_sampler_start(s, &b->nas_view.layout, b->nas_view.props.objsetid, nas_interval(job_s),
		                       (int)na_bench_timeout(job_text) + 60, &err);
	if (rc != VS_OK) {
		nas_sampler_close(&s);
		w->incomplete = true;
		vs_error_format(&err, w->why, sizeof(w->why));
	}
	b->nas_runs -= b->nas_runs > 0;
	park_next(b);
	return s;
}

/* Stops it as the run ends; a NAS lost or not reached (the readings
 * failed) is said once, beside the run's own "figures incomplete". */
void na_bench_sampling_stop(na_bench *b, nas_sampler **s, nas_window *w)
{
	nas_sampler_stop(s, w);
	if (w->lost && !b->nas_lost_said)
		na_say_warning(b->s, "the NAS could not be sampled: %s", w->why);
	b->nas_lost_said |= w->lost;
	/* A shape of the pool nfsagent cannot read costs that run's NAS side,
	 * never its result: said once, with the line it could not place. */
	if (w->unreadable && !b->nas_shape_said)
		na_say_warning(b->s, "the NAS side of this run is lost: %s", w->why);
	b->nas_shape_said |= w->unreadable;
	/* A txgs file nfsagent cannot read costs those figures alone. */
	bool txgs_unread = w->readings.txgs_why[0] != '\0';
	if (txgs_unread && !b->nas_txgs_said)
		na_say_warning(b->s, "the pool's txgs are not shown: %s", w->readings.txgs_why);
	b->nas_txgs_said |= txgs_unread;
}

/* The pool's totals over fio's measured window: it ended when fio wrote its
 * result and lasted the longest direction's runtime (which leaves out the
 * file's layout and ramp_time, both inside the sampler's span).  fio's
 * stamp is the guest's clock, the intervals' the NAS's: the window moves by
 * their difference, both measured against ours; known to less than an
 * interval, or the NAS's figures are not this window's (incomplete). */
void na_bench_nas_place(nas_window *w, double guest_offset, double guest_err, int64_t to_ms,
                        int64_t ms, na_nas_clock *c)
{
	*c = (na_nas_clock){0};
	/* Without both clocks, fio's stamp cannot be put on the NAS's: a
	 * window placed as if they agreed could be off by their whole skew.
	 * The totals stay the whole sampling's, in a row marked incomplete (a
	 * NAS's clock not read is a last reading that failed: said already). */
	if (guest_err < 0 || w->clock_err < 0) {
		if (!w->incomplete)
			snprintf(w->why, sizeof(w->why),
			         "the guest's clock was not read (clock.txt): fio's window cannot be placed");
		w->incomplete = true;
		return;
	}
	double shift = w->clock_offset - guest_offset;
	double err = w->clock_err + guest_err;
	/* kept even when too uncertain to place the window: it says why not */
	*c = (na_nas_clock){true, shift, err};
	double to = (double)to_ms / 1000 + shift, span = (double)ms / 1000;
	/* An edge misplaced by more than an interval can take in the file's
	 * layout or the ramp, at full speed: not this window's figures. */
	if (!w->incomplete && err > w->interval_s) {
		w->incomplete = true;
		snprintf(w->why, sizeof(w->why),
		         "the NAS's clock and the guest's differ by %.1f s, known to %.1f s only: more "
		         "than a %d s interval", shift, err, w->interval_s);
		return;
	}
	bool placed = to_ms > 0 && ms > 0 && nas_window_select(w, to - span, to);
	/* Too little of fio's window measured, or the window not placed: the
	 * totals are not fio's, and the stored row must not pass for them. */
	if (w->incomplete || (placed && w->seconds >= span / 4))
		return;
	w->incomplete = true;
	if (placed && w->seconds > 0)
		snprintf(w->why, sizeof(w->why), "zpool iostat measured %.1f s of fio's %.1f s window",
		         w->seconds, span);
	else
		snprintf(w->why, sizeof(w->why), "%s",
		         placed || w->timeline.n ? "no zpool iostat interval in fio's window"
		                                 : "no zpool iostat interval in the run");
}

void na_bench_fio_window(na_bench_outcome *out)
{
	const na_fio_result *f = &out->fio;
	int64_t ms = f->read.runtime_ms;
	if (f->write.runtime_ms > ms)
		ms = f->write.runtime_ms;
	if (f->mixed_dir.runtime_ms > ms)
		ms = f->mixed_dir.runtime_ms;
	na_nas_clock c;
	na_bench_nas_place(&out->nas_window, out->guest_clock_offset, out->guest_clock_err,
	                   f->timestamp_ms, ms, &c);
	out->clock_known = c.known;
	out->clock_shift = c.shift;
	out->clock_err = c.err;
}
