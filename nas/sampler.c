/* What the NAS did during one benchmark run: the kstat counters read as it
 * starts, every interval and as it ends (stamped by the NAS's clock, so
 * that their deltas can be cut to fio's window as zpool iostat's intervals
 * are), and `zpool iostat` running beside it (a timeline and the window's
 * totals per class).  Both run in the background over ssh sessions opened
 * ahead of the run and parked until it starts (bench opens the first
 * run's while it reads the NAS's settings, the next run's while one runs),
 * so that a run whose pair was parked waits for no ssh
 * handshake: its first and last readings are asked of sessions open
 * already.  A sampler never fails a run: what it could not read marks the
 * window incomplete, with why. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "nfsagent/nas.h"

/* 4 MiB of output (the target's limit) at some 9 KB a reading, with margin. */
enum { MAX_READINGS = 400 };

struct nas_sampler {
	const nas_target *t;
	const nas_layout *layout;  /* from the start: the pool sampled */
	uint64_t objsetid;
	int interval_s;
	int reading_s;  /* the counters' readings' interval: iostat's, or longer for a long window */
	int iostat_count, readings_count;  /* how many of each, the window and two more */
	nas_job *iostat, *counters;
	bool reopened;  /* ready opened the pair anew once (its connection found dead) */
	vs_error iostat_err;    /* why iostat could not start; status VS_OK if it did */
	vs_error counters_err;  /* the same of the counters' readings */
	bool gave_up;           /* ready waited so long for the first reading in vain: the
	                           stop waits no more */
};

double nas_unix_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The ends of the intervals: zpool's -y interval k ends k intervals after it
 * began, which is known to the sub-second from here (started: in the NAS's
 * clock), and lies within its whole-second stamp. */
static void interval_ends(nas_samples *t, double started, int interval_s)
{
	for (size_t k = 0; k < t->n; k++) {
		double end = started + (double)(k + 1) * interval_s, at = (double)t->v[k].at;
		if (t->v[k].at <= 0)
			continue;
		t->v[k].end = end < at ? at : end >= at + 1 ? at + 0.999 : end;
	}
}

/* Totals of the timeline, interval i counted for share[i] of its length
 * (all of it when share is NULL). */
static void totals(const nas_samples *s, int interval_s, const double *share,
                   nas_io total[NAS_CLASS_N], nas_io *pool)
{
	double sum[NAS_CLASS_N][4] = {{0}}, rwait[NAS_CLASS_N] = {0}, wwait[NAS_CLASS_N] = {0};
	double swait[NAS_CLASS_N] = {0};
	double psum[4] = {0};
	double secs = interval_s > 0 ? interval_s : 1;
	for (size_t i = 0; i < s->n; i++) {
		double k = secs * (share ? share[i] : 1);
		for (int c = 0; c < NAS_CLASS_N; c++) {
			const nas_io *io = &s->v[i].cls[c];
			sum[c][0] += (double)io->read_ops * k;
			sum[c][1] += (double)io->write_ops * k;
			sum[c][2] += (double)io->read_bytes * k;
			sum[c][3] += (double)io->write_bytes * k;
			rwait[c] += (double)io->read_wait_ns * (double)io->read_ops * k;
			wwait[c] += (double)io->write_wait_ns * (double)io->write_ops * k;
			swait[c] += (double)io->sync_write_wait_ns * (double)io->write_ops * k;
		}
		const nas_io *p = &s->v[i].pool;
		psum[0] += (double)p->read_ops * k;
		psum[1] += (double)p->write_ops * k;
		psum[2] += (double)p->read_bytes * k;
		psum[3] += (double)p->write_bytes * k;
	}
	/* Rounded to the nearest: exact for whole intervals (integers below 2^53). */
#define IO_OF(a) (nas_io){(uint64_t)((a)[0] + 0.5), (uint64_t)((a)[1] + 0.5), \
	                      (uint64_t)((a)[2] + 0.5), (uint64_t)((a)[3] + 0.5), 0, 0, 0}
	for (int c = 0; c < NAS_CLASS_N; c++) {
		total[c] = IO_OF(sum[c]);
		total[c].read_wait_ns = sum[c][0] > 0 ? (uint64_t)(rwait[c] / sum[c][0]) : 0;
		total[c].write_wait_ns = sum[c][1] > 0 ? (uint64_t)(wwait[c] / sum[c][1]) : 0;
		total[c].sync_write_wait_ns = sum[c][1] > 0 ? (uint64_t)(swait[c] / sum[c][1]) : 0;
	}
	*pool = IO_OF(psum);
#undef IO_OF
}

void nas_samples_total(const nas_samples *s, int interval_s, nas_io total[NAS_CLASS_N],
                       nas_io *pool)
{
	totals(s, interval_s, NULL, total, pool);
}

/* The counters that grow, which a reading between two is interpolated for. */
static const size_t grows[] = {
	offsetof(nas_counters, objset.writes),        offsetof(nas_counters, objset.nwritten),
	offsetof(nas_counters, objset.reads),         offsetof(nas_counters, objset.nread),
	offsetof(nas_counters, arc.demand_data_hits), offsetof(nas_counters, arc.demand_data_misses),
	offsetof(nas_counters, zil.commit_count),     offsetof(nas_counters, zil.slog_bytes),
	offsetof(nas_counters, zil.normal_bytes),
};

/* The counters at NAS time t, from the two readings around it (linear
 * within an interval); false when the readings do not hold t within an
 * interval's slack, or the two around it are further apart than two
 * intervals (a reading missed there: a straight line would guess). */
static bool counters_at(const nas_readings *r, double t, double slack, nas_counters *c)
{
	if (r->n < 2 || t < r->v[0].at - slack || t > r->v[r->n - 1].at + slack)
		return false;
	size_t k = 1;
	while (k + 1 < r->n && r->v[k].at < t)
		k++;
	const nas_reading *a = &r->v[k - 1], *b = &r->v[k];
	if (b->at - a->at > 2 * slack + 1 && t > a->at && t < b->at)
		return false;
	double f = b->at > a->at ? (t - a->at) / (b->at - a->at) : 1;
	f = f < 0 ? 0 : f > 1 ? 1 : f;
	*c = b->c;
	for (size_t i = 0; i < sizeof(grows) / sizeof(grows[0]); i++) {
		uint64_t va, vb;
		memcpy(&va, (const char *)&a->c + grows[i], sizeof(va));
		memcpy(&vb, (const char *)&b->c + grows[i], sizeof(vb));
		/* In doubles: a counter that went back is caught by the delta. */
		double v = (double)va + ((double)vb - (double)va) * f;
		uint64_t u = v <= 0 ? 0 : (uint64_t)(v + 0.5);
		memcpy((char *)c + grows[i], &u, sizeof(u));
	}
	return true;
}

/* The counters' deltas over [from, to]; without readings that hold it,
 * none (their whole-span deltas would mix windows). */
static void counters_select(nas_window *w, double from, double to)
{
	double slack = w->reading_s > w->interval_s ? w->reading_s : w->interval_s > 0 ? w->interval_s : 1;
	nas_counters a, b;
	vs_error err;
	if (!w->counters)
		return;
	w->counters = counters_at(&w->readings, from, slack, &a) &&
	              counters_at(&w->readings, to, slack, &b) &&
	              nas_counters_delta(&a, &b, w, &err) == VS_OK;
	if (!w->counters && !w->counters_why[0])
		snprintf(w->counters_why, sizeof(w->counters_why), "no reading near its edges");
	if (!w->counters) {  /* nothing of the whole span's deltas stays to be shown or stored */
		w->dataset_writes = w->dataset_written = w->dataset_reads = w->dataset_read = 0;
		w->arc_hits = w->arc_misses = w->zil_commits = w->zil_slog_bytes = w->zil_normal_bytes = 0;
		w->arc_hit_ratio = -1;
	}
}

bool nas_window_select(nas_window *w, double from, double to)
{
	const nas_samples *s = &w->timeline;
	double len = w->interval_s > 0 ? w->interval_s : 1;
	if (s->n == 0 || to <= from)
		return false;
	double *share = malloc(s->n * sizeof(*share));
	if (!share)
		return false;
	double seconds = 0;
	bool stamped = true;
	for (size_t i = 0; i < s->n && stamped; i++) {
		stamped = s->v[i].at > 0;
		double end = s->v[i].end > 0 ? s->v[i].end : (double)s->v[i].at + 0.5, start = end - len;
		double inside = (end < to ? end : to) - (start > from ? start : from);
		share[i] = inside <= 0 ? 0 : inside >= len ? 1 : inside / len;
		seconds += share[i] * len;
	}
	/* The seconds of the window no interval covers (the one in flight when
	 * the run ended is not waited for) are taken at the covered ones' rate,
	 * when they measured a quarter of it at least (else the totals stay
	 * what was measured: the NAS line says how little). */
	bool scale = seconds >= (to - from) / 4 && seconds < to - from;
	for (size_t i = 0; stamped && scale && i < s->n; i++)
		share[i] *= (to - from) / seconds;
	if (stamped) {
		totals(s, w->interval_s, share, w->total, &w->pool_total);
		w->fio_window = true;
		w->seconds = seconds;
		w->span = to - from;
		counters_select(w, from, to);
		nas_txgs_select(w, from, to);
	}
	free(share);
	return stamped;
}

/* b - a of a counter that only grows; false when it went back (the pool
 * was exported and imported, the module reloaded). */
static bool grew(uint64_t a, uint64_t b, uint64_t *d)
{
	*d = b - a;
	return b >= a;
}

int nas_counters_delta(const nas_counters *a, const nas_counters *b, nas_window *w, vs_error *err)
{
	if (!a->objset.found || !b->objset.found || !a->arc.found || !b->arc.found || !a->zil.found ||
	    !b->zil.found)
		return vs_fail(err, VS_ERR_PROTOCOL, "a kstat is missing before or after the run");
	if (strcmp(a->objset.dataset, b->objset.dataset) != 0)
		return vs_fail(err, VS_ERR_PROTOCOL, "the objset kstat was %s before the run, %s after",
		               a->objset.dataset, b->objset.dataset);
	bool ok = grew(a->objset.writes, b->objset.writes, &w->dataset_writes) &&
	          grew(a->objset.nwritten, b->objset.nwritten, &w->dataset_written) &&
	          grew(a->objset.reads, b->objset.reads, &w->dataset_reads) &&
	          grew(a->objset.nread, b->objset.nread, &w->dataset_read) &&
	          grew(a->arc.demand_data_hits, b->arc.demand_data_hits, &w->arc_hits) &&
	          grew(a->arc.demand_data_misses, b->arc.demand_data_misses, &w->arc_misses) &&
	          grew(a->zil.commit_count, b->zil.commit_count, &w->zil_commits) &&
	          grew(a->zil.slog_bytes, b->zil.slog_bytes, &w->zil_slog_bytes) &&
	          grew(a->zil.normal_bytes, b->zil.normal_bytes, &w->zil_normal_bytes);
	if (!ok)
		return vs_fail(err, VS_ERR_PROTOCOL, "a counter went back during the run (pool reimported?)");
	w->arc_hit_ratio = w->arc_hits + w->arc_misses
	                           ? (double)w->arc_hits / (double)(w->arc_hits + w->arc_misses)
	                           : -1;
	w->arc_size = b->arc.size;
	w->arc_c_max = b->arc.c_max;
	w->counters = true;
	return VS_OK;
}

/* The two jobs, parked; one that could not start keeps why. */
static void open_jobs(nas_sampler *s)
{
	if (nas_iostat_job(s->t, &s->iostat, &s->iostat_err) != VS_OK)
		s->iostat = NULL;
	if (nas_counters_job(s->t, &s->counters, &s->counters_err) != VS_OK)
		s->counters = NULL;
}

int nas_sampler_open(const nas_target *t, nas_sampler **out, vs_error *err)
{
	*out = NULL;
	nas_sampler *s = calloc(1, sizeof(*s));
	if (!s)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	*s = (nas_sampler){.t = t};
	open_jobs(s);
	*out = s;
	return VS_OK;
}

/* Stops a job (NULL: none) whose output nobody reads. */
static void drop(nas_job **job)
{
	nas_output o;
	vs_error ignored = {0};
	if (!*job)
		return;
	nas_job_finish(job, 0, &o, &ignored);
	nas_output_free(&o);
}

/* Sends the parked jobs what to sample; VS_ERR_USAGE, sending nothing,
 * for a pool name that is not one.  A job that takes it no more has ended:
 * how (ssh's refused key, a session without stdin) is the stop's to say,
 * from its end. */
static int unpark(nas_sampler *s, vs_error *err)
{
	vs_error e = {0};
	int rc = VS_OK;
	if (s->iostat)
		rc = nas_iostat_start(s->iostat, s->layout->pool, s->interval_s, s->iostat_count, &e);
	if (rc != VS_ERR_USAGE && s->counters)
		rc = nas_counters_start(s->counters, s->layout->pool, s->objsetid, s->reading_s,
		                        s->readings_count, &e);
	if (rc != VS_ERR_USAGE)
		return VS_OK;
	*err = e;
	return rc;
}

int nas_sampler_start(nas_sampler *s, const nas_layout *layout, uint64_t objsetid, int interval_s,
                      int window_s, vs_error *err)
{
	if (interval_s < 1 || window_s < 0)
		return vs_fail(err, VS_ERR_USAGE, "a sampling interval of %d s over %d s", interval_s,
		               window_s);
	s->layout = layout;
	s->objsetid = objsetid;
	s->interval_s = interval_s;
	/* At most MAX_READINGS readings (one is some 9 KB: arcstats), spaced
	 * out over a long window only; the window's edges are interpolated
	 * between them. */
	s->reading_s = window_s / interval_s > MAX_READINGS ? (window_s + MAX_READINGS - 1) / MAX_READINGS
	                                                         : interval_s;
	/* Enough for the window and two more: both end by themselves soon
	 * after, even when nobody stops them. */
	s->iostat_count = window_s / interval_s + 2;
	s->readings_count = window_s / s->reading_s + 2;
	int rc = unpark(s, err);
	if (rc != VS_OK)
		s->layout = NULL;  /* not started */
	return rc;
}

bool nas_sampler_parked(nas_sampler *s)
{
	return s->iostat && s->counters && nas_job_running(s->iostat) && nas_job_running(s->counters);
}

void nas_sampler_close(nas_sampler **sp)
{
	if (!*sp)
		return;
	drop(&(*sp)->iostat);
	drop(&(*sp)->counters);
	free(*sp);
	*sp = NULL;
}

static void incomplete(nas_window *w, const vs_error *err)
{
	if (w->incomplete)
		return;
	w->incomplete = true;
	vs_error_format(err, w->why, sizeof(w->why));
}

static bool first_reading(nas_sampler *s)
{
	return s->counters && nas_job_await(s->counters, NAS_FIRST_READING, s->t->timeout_s * 1000);
}

/* Whether the readings' job, ended by ssh's own failure (255), lost a
 * connection that was up: a parked pair's, cut unseen (the NAS rebooted or
 * failed over) and found at its line.  Not a connection refused or timed
 * out now, nor a key or host key refused.  The job is finished, why kept
 * for the stop. */
static bool connection_cut(nas_sampler *s)
{
	if (!s->counters || nas_job_exit(s->counters) != 255)
		return false;
	nas_output o;
	int rc = nas_job_finish(&s->counters, 0, &o, &s->counters_err);
	nas_output_free(&o);
	return rc == VS_ERR_CONNECT && !strstr(s->counters_err.message, "connect to host");
}

bool nas_sampler_ready(nas_sampler *s)
{
	if (!s->layout)  /* not started: no reading will come */
		return false;
	bool came = first_reading(s);
	/* opened anew, once: the NAS may be back */
	if (!came && !s->reopened && connection_cut(s)) {
		s->reopened = true;
		drop(&s->iostat);
		open_jobs(s);
		vs_error ignored = {0};  /* the pool was checked at the start */
		unpark(s, &ignored);
		came = first_reading(s);
	}
	s->gave_up = !came;
	return came;
}

/* The last reading, asked of the readings' job as the run ends and
 * bracketed by our clock (the NAS's clock against ours, to within half the
 * wait), then all the job's readings into w->readings, also those of a job
 * that failed on the way.  false, with why in err, when the job failed or
 * the last reading did not come. */
static bool last_reading(nas_sampler *s, nas_window *w, vs_error *err)
{
	double asked = nas_unix_now();
	int said = nas_job_say(s->counters, NAS_LAST_READING, err);
	bool answered = said == VS_OK &&
	                nas_job_await(s->counters, NAS_LAST_READING, s->gave_up ? 0 : s->t->timeout_s * 1000);
	double now = nas_unix_now();
	nas_output o = {0};
	vs_error job_err = {0}, parse_err = {0};
	int rc = nas_job_finish(&s->counters, 0, &o, &job_err);
	int parsed = nas_parse_kstat_series(o.out, o.len, &w->readings, &parse_err);
	bool ended = rc == VS_OK && !o.stopped;  /* exited 0 by itself */
	nas_output_free(&o);
	/* the answer's stamp, before the time order below may leave it out */
	double last = w->readings.n ? w->readings.v[w->readings.n - 1].at : 0;
	/* in time order for the window's cut, whatever the NAS's clock did */
	size_t kept = 0;
	for (size_t i = 0; i < w->readings.n; i++)
		if (!kept || w->readings.v[i].at > w->readings.v[kept - 1].at)
			w->readings.v[kept++] = w->readings.v[i];
		else
			nas_txgs_free(&w->readings.v[i].txgs);
	w->readings.n = kept;
	if (rc != VS_OK || parsed != VS_OK) {
		*err = rc != VS_OK ? job_err : parse_err;
		return false;
	}
	if (answered && w->readings.n) {
		w->clock_offset = last - (asked + now) / 2;
		w->clock_err = (now - asked) / 2;
		return true;
	}
	if (ended)  /* it ended by itself before we asked: no stdin, or not a POSIX shell */
		vs_fail(err, VS_ERR_CONNECT, "the NAS's readings ended before the run did: their session "
		        "gave them no input (--nas-command must pass stdin through, as ssh without -n does; "
		        "the NAS account's login shell must be a POSIX shell)");
	else if (said == VS_OK)
		vs_fail(err, VS_ERR_CONNECT, "the NAS gave no %s reading in %d s",
		        s->gave_up ? "first" : "last", s->t->timeout_s);
	return false;
}

void nas_sampler_stop(nas_sampler **sp, nas_window *w)
{
	nas_sampler *s = *sp;
	if (!s->layout) {  /* never started: its jobs sampled nothing */
		vs_error e = {0};
		vs_fail(&e, VS_ERR_USAGE, "the NAS's sampler was not started");
		*w = (nas_window){.arc_hit_ratio = -1, .clock_err = -1};
		incomplete(w, &e);
		nas_sampler_close(sp);
		return;
	}
	*w = (nas_window){.interval_s = s->interval_s, .reading_s = s->reading_s, .arc_hit_ratio = -1,
	                  .clock_err = -1};
	/* The counters first: their last reading is the run's end.  A first
	 * reading that came after ready gave up on it is waited for as usual. */
	if (s->counters && s->gave_up)
		s->gave_up = !nas_job_await(s->counters, NAS_FIRST_READING, 0);
	vs_error err = s->counters_err;
	bool read = s->counters && last_reading(s, w, &err);
	/* Readings that could not be had leave the pool's totals standing: the
	 * window's cut then finds no reading near its edges and drops the
	 * counters alone; without the last one, neither the run's end nor the
	 * clocks' difference is known: incomplete. */
	if (!read) {
		vs_error_format(&err, w->counters_why, sizeof(w->counters_why));
		w->lost = true;
		incomplete(w, &err);
	}
	nas_output o = {0};
	if (!s->iostat)
		incomplete(w, &s->iostat_err);
	/* The interval in flight when the run ended is cut: not waited for. */
	else if (nas_job_finish(&s->iostat, 0, &o, &err) != VS_OK)
		incomplete(w, &err);
	else if (nas_parse_iostat(o.out, o.len, s->layout, &w->timeline, &err) != VS_OK) {
		w->unreadable = !w->incomplete;
		incomplete(w, &err);
	}
	nas_output_free(&o);
	/* iostat began as the first reading was taken: both were started by
	 * a line each, sent together (to sessions open already when the pair
	 * was parked; else each began at its own handshake's end, apart by the
	 * difference of the two). */
	if (w->readings.n)
		interval_ends(&w->timeline, w->readings.v[0].at, s->interval_s);
	nas_samples_total(&w->timeline, s->interval_s, w->total, &w->pool_total);
	w->seconds = (double)w->timeline.n * s->interval_s;
	if (read && nas_counters_delta(&w->readings.v[0].c, &w->readings.v[w->readings.n - 1].c, w,
	                               &err) != VS_OK)
		incomplete(w, &err);
	/* the txgs over the same span as the deltas, till the window's cut */
	size_t n = w->readings.n;
	nas_txgs_select(w, n ? w->readings.v[0].at : 0, n ? w->readings.v[n - 1].at : 0);
	free(s);
	*sp = NULL;
}

void nas_window_free(nas_window *w)
{
	nas_samples_free(&w->timeline);
	nas_readings_free(&w->readings);
}

void nas_amplification_of(const nas_window *w, uint64_t guest_written, nas_amplification *a)
{
	*a = (nas_amplification){0};
	double data = (double)(w->total[NAS_CLASS_DATA].write_bytes +
	                       w->total[NAS_CLASS_SPECIAL].write_bytes +
	                       w->total[NAS_CLASS_DEDUP].write_bytes);
	double log = (double)w->total[NAS_CLASS_LOG].write_bytes, g = (double)guest_written;
	/* no dataset bytes: no split to make (a 0 would pass for a measured one) */
	if (guest_written == 0 || w->incomplete || !w->counters || !w->dataset_written)
		return;
	a->known = true;
	a->total = (data + log) / g;
	a->guest_to_dataset = (double)w->dataset_written / g;
	a->dataset_to_data = data / (double)w->dataset_written;
	a->log_share = log / g;
}

bool nas_cache_served(const nas_window *w, uint64_t working_set, double min_hit_ratio)
{
	return w->counters && working_set > 0 && working_set <= w->arc_size &&
	       w->arc_hit_ratio >= min_hit_ratio;
}
