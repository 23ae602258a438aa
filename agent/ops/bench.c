/* One benchmark repetition in the guest through VMware Tools:
 * fio writes JSON to a file (guest operations return no output), we fetch
 * it, parse it, and record it with where it came from.  The host's datastore
 * counters for the same minutes are recorded next to it. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "ops/bench.h"

/* fio is given its job's own time (na_job_seconds: an hour for a job
 * without a runtime) and GRACE_S for laying out its files and writing its
 * output before nfsagent stops it. */
enum { MAX_OUTPUT = 64 << 20, MAX_STDERR = 64 << 10, GRACE_S = 300, GONE_S = 30,
       UNBOUNDED_S = 3600, CHECK_S = 60 };

static const char *const counter_names[] = {
	"datastore.numberReadAveraged.average", "datastore.numberWriteAveraged.average",
	"datastore.totalReadLatency.average",   "datastore.totalWriteLatency.average",
	"datastore.read.average",               "datastore.write.average",
};

static void iso_now(char *buf, size_t size)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int check_fio(na_bench *b, vs_error *err);

/* The guest folders of nfsagent process pid: its staging folder (job file,
 * fio's output) and fio's data folder under dir; snprintf's count for data. */
static int folders(const char *dir, long pid, char *staging, size_t staging_size, char *data,
                   size_t data_size)
{
	snprintf(staging, staging_size, "/tmp/nfsagent-%ld", pid);
	return snprintf(data, data_size, "%s/nfsagent-fio-%ld", dir, pid);
}

int na_bench_begin(na_bench *b, vs_error *err)
{
	int n = folders(b->job.dir, (long)getpid(), b->staging, sizeof(b->staging), b->data,
	                sizeof(b->data));
	int rc;
	if (n < 0 || (size_t)n >= sizeof(b->data))
		rc = vs_fail(err, VS_ERR_USAGE, "the guest folder for fio is too long (%zu bytes, at most %zu)",
		             strlen(b->job.dir), sizeof(b->data) - 32);
	else if (!b->host)  /* the host's counters and every result's provenance name it */
		rc = vs_fail(err, VS_ERR_NOT_FOUND, "%s runs on no host that vCenter lists", b->vm->name);
	else
		rc = vs_guest_check(b->s->client, b->vm->moref, err);
	bool made = rc == VS_OK &&
	            (rc = vs_guest_mkdir(b->s->client, b->vm->moref, &b->auth, b->staging, err)) == VS_OK;
	if (rc == VS_OK)
		rc = check_fio(b, err);
	if (rc == VS_OK)
		rc = vs_perf_counter_ids(b->s->client, counter_names, 6, b->counter_ids, err);
	if (rc != VS_OK && made)  /* the caller ends only a bench that began */
		na_bench_end(b);
	if (rc != VS_OK && !err->context[0])
		vs_error_context(err, "preparing %s for benchmarks", b->vm->name);
	return rc;
}

void na_bench_end(na_bench *b)
{
	vs_error ignored = {0};
	vs_guest_delete(b->s->client, b->vm->moref, &b->auth, b->staging, true, &ignored);
}

char *na_bench_job(const na_bench *b, const na_profile *p)
{
	na_job_overrides o = b->job;
	o.dir = b->data;
	return na_job_file(p, &o);
}

/* ---- the disk under test ---- */

/* The disk under test: the VM's first disk on the datastore. */
char *na_bench_disk(vs_client *c, const vs_vm *vm, const vs_datastore *ds, vs_error *err)
{
	vs_vm_layout *layout = NULL;
	if (vs_vm_layout_read(c, vm->moref, &layout, err) != VS_OK)
		return NULL;
	char *disk = NULL;
	for (size_t i = 0; !disk && i < layout->n_disks; i++)
		if (layout->disks[i].datastore && strcmp(layout->disks[i].datastore, ds->moref) == 0) {
			size_t len = strlen(layout->disks[i].label ? layout->disks[i].label : "disk") +
			             strlen(layout->disks[i].file) + 2;
			if ((disk = malloc(len)))
				snprintf(disk, len, "%s %s", layout->disks[i].label ? layout->disks[i].label : "disk",
				         layout->disks[i].file);
		}
	vs_vm_layout_free(&layout);
	if (!disk)
		vs_fail(err, VS_ERR_USAGE, "%s has no disk on datastore '%s'", vm->name, ds->name);
	return disk;
}

/* ---- host counters ------------------------------------------------------------ */

/* The datastore's perf instance: its uuid (last part of summary.url) on ESXi,
 * the moref in the simulator. */
static bool our_instance(const vs_datastore *d, const char *instance)
{
	if (strcmp(instance, d->moref) == 0)
		return true;
	const char *url = d->url ? d->url : "";
	size_t n = strlen(url);
	while (n && url[n - 1] == '/')
		n--;
	const char *last = url + n;
	while (last > url && last[-1] != '/')
		last--;
	return n && strlen(instance) == (size_t)(url + n - last) &&
	       strncmp(last, instance, (size_t)(url + n - last)) == 0;
}

static char *host_counters(na_bench *b, time_t started)
{
	int samples = (int)((time(NULL) - started) / 20) + 1;
	vs_perf_sample *v = NULL;
	size_t n = 0;
	vs_error err = {0};
	json_t *out = json_array();
	bool asked = vs_perf_query(b->s->client, b->host->moref, b->counter_ids, 6, samples, &v, &n,
	                           &err) == VS_OK;
	if (!asked)
		na_say_warning(b->s, "no host counters for this run: %s", err.message);
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < 6 && b->counter_ids[k] != v[i].counter)
			k++;
		if (k < 6 && our_instance(b->ds, v[i].instance))
			json_array_append_new(out, json_pack("{s:s, s:s, s:I}", "counter", counter_names[k],
			                                     "time", v[i].timestamp, "value", (json_int_t)v[i].value));
	}
	vs_perf_samples_free(&v, n);
	/* Not measured is NULL, never an empty list that reads as "no I/O". */
	if (asked && !json_array_size(out))
		na_say_warning(b->s, "no host counters for this run: %s gave no samples of datastore %s in "
		               "the run's window (vCenter's statistics level or interval may not keep them)",
		               b->host->name, b->ds->name);
	char *s = json_array_size(out) ? json_dumps(out, JSON_COMPACT) : NULL;
	json_decref(out);
	return s;
}

/* ---- one run ---------------------------------------------------------------------- */

static char *staged(const na_bench *b, const char *name)
{
	size_t len = strlen(b->staging) + strlen(name) + 2;
	char *s = malloc(len);
	if (s)
		snprintf(s, len, "%s/%s", b->staging, name);
	return s;
}

/* Runs the job and waits for fio, showing how long it has run (what names
 * the run) against the job's own time. */
/* Runs fio; started: this machine's time before and after the call that
 * started it (the guest's `date` into clock.txt ran between). */
static int run_fio(na_bench *b, const char *job_text, const char *what, long timeout_s,
                   vs_guest_process *proc, double started[2], vs_error *err)
{
	char *job = staged(b, "job.fio");
	char args[512];
	/* Absolute paths: fio's own command line (after exec) names nfsagent's
	 * folder, by which vs_guest_start knows it after an unknown outcome.
	 * The guest's clock first: fio's window is stamped by it, the NAS's
	 * intervals by the NAS's. */
	snprintf(args, sizeof(args),
	         "-c 'cd %s && { date +%%s.%%N > clock.txt; exec fio --output-format=json+ "
	         "--output=%s/out.json %s/job.fio > stdout.txt 2> stderr.txt; }'",
	         b->staging, b->staging, b->staging);
	int64_t pid = -1;
	int rc = job ? vs_guest_upload(b->s->client, b->vm->moref, &b->auth, job, job_text,
	                               strlen(job_text), err)
	             : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	started[0] = nas_unix_now();
	if (rc == VS_OK)
		rc = vs_guest_start(b->s->client, b->vm->moref, &b->auth, "/bin/sh", args, b->staging, &pid, err);
	started[1] = nas_unix_now();
	na_wait shown;
	na_wait_init(&shown, what, na_job_seconds(job_text, UNBOUNDED_S));
	/* A job without a runtime counts 0 here: the wait knows only the least. */
	long expected_s = na_job_seconds(job_text, 0);
	na_interrupts_note("stopping fio in the guest; the results recorded so far are kept");
	if (rc == VS_OK)
		rc = vs_guest_wait(b->s->client, b->vm->moref, &b->auth, pid, timeout_s, expected_s, b->stop,
		                   na_wait_tick, &shown, proc, err);
	na_wait_done(&shown);
	na_interrupts_note(NULL);
	/* Stopped (Ctrl-C, timeout): its files go only once fio has let go of them. */
	vs_guest_process gone;
	vs_error ignored = {0};
	if (rc == VS_ERR_TASK && pid >= 0)
		vs_guest_wait(b->s->client, b->vm->moref, &b->auth, pid, GONE_S, 0, NULL, NULL, NULL, &gone,
		              &ignored);
	free(job);
	return rc;
}

/* fio's files go after every repetition, whatever became of it. */
static void remove_data(na_bench *b)
{
	vs_error err = {0};
	if (vs_guest_delete(b->s->client, b->vm->moref, &b->auth, b->data, true, &err) != VS_OK &&
	    strcmp(err.fault, "FileNotFound") != 0)
		na_say_warning(b->s, "fio's files may remain in %s in the guest: %s", b->data, err.message);
}

/* A file fio did not write leaves *data NULL: fio's failure, recorded as
 * such.  Any other failed download (TLS, an expired session, a file over
 * max) is nfsagent's error: what fio did is unknown, so nothing is recorded. */
static int fetch(na_bench *b, const char *name, size_t max, char **data, size_t *len, vs_error *err)
{
	char *path = staged(b, name);
	vs_error e = {0};
	int rc = path ? vs_guest_download(b->s->client, b->vm->moref, &b->auth, path, max, data, len, &e)
	              : vs_fail(&e, VS_ERR_NOMEM, "out of memory");
	free(path);
	if (rc != VS_OK && strcmp(e.fault, "FileNotFound") == 0)
		return VS_OK;
	if (rc != VS_OK)
		*err = e;
	return rc;
}

/* A fresh test VM often has no fio, or an old one: said before anything
 * runs, rather than a failed result for every repetition. */
static int check_fio(na_bench *b, vs_error *err)
{
	char args[256];
	snprintf(args, sizeof(args),
	         "-c 'cd %s && { fio --version; echo \"fio-exit $?\"; fio --enghelp; } > fio-check.txt 2>&1'",
	         b->staging);
	int64_t pid = -1;
	vs_guest_process proc;
	char *report = NULL;
	size_t len = 0;
	int rc = vs_guest_start(b->s->client, b->vm->moref, &b->auth, "/bin/sh", args, b->staging, &pid,
	                        err);
	if (rc == VS_OK)
		rc = vs_guest_wait(b->s->client, b->vm->moref, &b->auth, pid, CHECK_S, 0, b->stop, NULL, NULL,
		                   &proc, err);
	if (rc == VS_OK)
		rc = fetch(b, "fio-check.txt", MAX_STDERR, &report, &len, err);
	if (rc == VS_OK)
		rc = na_fio_guest_check(b->vm->name, report ? report : "", &b->fio_libaio, err);
	free(report);
	return rc;
}

static void stats_of(const na_fio_dir *d, na_dir_stats *s)
{
	*s = (na_dir_stats){d->present, d->iops, d->bw_bytes, d->lat_mean_us, d->p50_us, d->p95_us,
	                    d->p99_us, d->p999_us, d->max_us, d->total_ios, d->runtime_ms};
}

/* fio's complaint and its stderr: what the admin needs to see why. */
static char *failure_text(const vs_error *parse_err, const char *stderr_text)
{
	size_t len = strlen(parse_err->message) + (stderr_text ? strlen(stderr_text) : 0) + 16;
	char *s = malloc(len);
	if (s)
		snprintf(s, len, "%s%s%s", parse_err->message, stderr_text && *stderr_text ? "; stderr: " : "",
		         stderr_text ? stderr_text : "");
	return s;
}

/* The bytes fio wrote over its window (0 without writes). */
static uint64_t guest_written(const na_fio_dir *write)
{
	return write && write->present ? (uint64_t)(write->bw_bytes * (double)write->runtime_ms / 1000)
	                               : 0;
}

/* The window's timeline as store.h's JSON (malloc'd; NULL without one). */
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
static void nas_row(const na_bench *b, const na_bench_outcome *out, na_nas_run *n, char *layout,
                    size_t size)
{
	const nas_view *v = &b->nas_view;
	const nas_window *w = &out->nas_window;
	const nas_io *t = w->total;
	nas_layout_summary(&v->layout, layout, size);
	nas_amplification a;
	nas_amplification_of(w, guest_written(&out->fio.write), &a);
	bool measured = w->fio_window && !w->incomplete;
	*n = (na_nas_run){
		.dataset = v->dataset.name, .pool_layout = layout,
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
	};
}

static int record(na_bench *b, const na_profile *p, const char *job_text, int repetition,
                  const char *started_at, const char *fio_json, const char *counters,
                  na_bench_outcome *out, vs_error *err)
{
	char finished_at[32];
	iso_now(finished_at, sizeof(finished_at));
	const vs_about *about = vs_client_about(b->s->client);
	na_result r = {
		.started_at = started_at, .finished_at = finished_at,
		.status = out->ok ? "ok" : "failed", .error = out->error,
		.campaign = b->campaign, .target = b->target, .repetition = repetition,
		.vcenter = vs_client_host(b->s->client), .vcenter_version = about->version,
		.vcenter_build = about->build,
		.host = b->host->name, .esxi_version = b->host->version, .esxi_build = b->host->build,
		.datastore = b->ds->name, .datastore_type = b->ds->type, .servers = b->ds->remote_host,
		.export_path = b->ds->remote_path,
		.vm = b->vm->name, .guest_os = b->vm->guest_os, .disk = b->disk,
		.profile = p->name, .job_file = job_text, .fio_version = out->fio.fio_version,
		.fio_json = fio_json, .host_counters_json = counters,
		.labels = b->labels, .n_labels = b->n_labels,
	};
	if (out->ok) {
		stats_of(out->fio.mixed ? &out->fio.mixed_dir : &out->fio.read, &r.read);
		stats_of(&out->fio.write, &r.write);
	}
	na_nas_run nas;
	char layout[96];
	if (out->nas) {
		nas_row(b, out, &nas, layout, sizeof(layout));
		r.nas = &nas;
	}
	int rc = na_store_add_journaled(b->s->store, &r, b->step, err);
	out->row = r.id;
	if (out->nas)
		free((char *)nas.timeline);
	return rc;
}

static nas_sampler *sampling_start(na_bench *b, const char *job_text, na_bench_outcome *out);
static void guest_clock(na_bench *b, const double asked[2], na_bench_outcome *out);
static void nas_fio_window(na_bench_outcome *out);

long na_bench_timeout(const char *job_text)
{
	return na_job_seconds(job_text, UNBOUNDED_S) + GRACE_S;
}

int na_bench_run(na_bench *b, const na_profile *p, const char *job_text, int repetition,
                 na_bench_outcome *out, vs_error *err)
{
	*out = (na_bench_outcome){.guest_clock_err = -1};
	char started_at[32];
	iso_now(started_at, sizeof(started_at));
	time_t started = time(NULL);
	vs_guest_process proc;
	long timeout = na_bench_timeout(job_text);
	char what[160];
	snprintf(what, sizeof(what), "%s #%d: fio in %s", p->name, repetition, b->vm->name);
	if (!b->fio_libaio && na_job_uses_libaio(job_text))
		return na_fio_no_libaio(b->vm->name, err);
	int rc = vs_guest_mkdir(b->s->client, b->vm->moref, &b->auth, b->data, err);
	/* The NAS's window is fio's: started right before it, stopped right after. */
	nas_sampler *sampler = rc == VS_OK ? sampling_start(b, job_text, out) : NULL;
	double asked[2] = {0};
	if (rc == VS_OK)
		rc = run_fio(b, job_text, what, timeout, &proc, asked, err);
	if (sampler)
		nas_sampler_stop(&sampler, &out->nas_window);
	remove_data(b);
	if (rc != VS_OK)
		return rc;  /* interrupted, timed out, or the guest refused: not a fio result */
	char *json = NULL, *stderr_text = NULL;
	size_t json_len = 0, stderr_len = 0;
	rc = fetch(b, "out.json", MAX_OUTPUT, &json, &json_len, err);
	if (rc == VS_OK)
		rc = fetch(b, "stderr.txt", MAX_STDERR, &stderr_text, &stderr_len, err);
	if (rc == VS_OK && out->nas)
		guest_clock(b, asked, out);
	if (rc != VS_OK) {
		free(json);
		free(stderr_text);
		return rc;
	}
	vs_error parse_err = {0};
	out->ok = json && na_fio_parse(json, json_len, &out->fio, &parse_err) == VS_OK;
	if (!json)
		vs_fail(&parse_err, VS_ERR_PROTOCOL, "fio wrote no output (exit status %d)", proc.exit_code);
	if (!out->ok)
		out->error = failure_text(&parse_err, stderr_text);
	if (out->ok && out->nas)
		nas_fio_window(out);
	char *counters = host_counters(b, started);
	rc = record(b, p, job_text, repetition, started_at, json, counters, out, err);
	free(counters);
	free(json);
	free(stderr_text);
	return rc;
}

void na_bench_outcome_clear(na_bench_outcome *o)
{
	na_fio_result_clear(&o->fio);
	free(o->error);
	nas_window_free(&o->nas_window);
	*o = (na_bench_outcome){0};
}

int na_bench_sweep(vs_client *c, const vs_vm *vm, const vs_guest_auth *auth, const char *dir,
                   long pid, vs_error *err)
{
	char staging[64], data[sizeof(((na_bench *)0)->data)];
	folders(dir, pid, staging, sizeof(staging), data, sizeof(data));
	/* Its fio may still run (its command line names the staging folder):
	 * stopped first, or it would write into the folders again. */
	char mark[sizeof(staging) + 1];
	snprintf(mark, sizeof(mark), "%s/", staging);
	int rc = vs_guest_stop_named(c, vm->moref, auth, mark, GONE_S, err);
	const char *paths[] = {data, staging};
	for (size_t i = 0; rc == VS_OK && i < 2; i++) {
		rc = vs_guest_delete(c, vm->moref, auth, paths[i], true, err);
		if (rc == VS_ERR_FAULT && strcmp(err->fault, "FileNotFound") == 0)
			rc = VS_OK;
	}
	return rc;
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
static void guest_clock(na_bench *b, const double asked[2], na_bench_outcome *out)
{
	char *text = NULL;
	size_t len = 0;
	double at = 0;
	vs_error err = {0};
	out->guest_clock_err = -1;
	if (fetch(b, "clock.txt", 64, &text, &len, &err) != VS_OK) {
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

void na_bench_nas_begin(na_bench *b)
{
	if (!b->nas)
		return;
	vs_error err = {0};
	int rc = b->ds->remote_path
	             ? nas_read_view(b->nas, b->ds->remote_path, &b->nas_view, &err)
	             : vs_fail(&err, VS_ERR_USAGE, "datastore %s is not NFS", b->ds->name);
	if (rc != VS_OK) {
		char why[600];
		vs_error_format(&err, why, sizeof(why));
		na_say_warning(b->s, "the results are recorded without the NAS side: %s", why);
		return;
	}
	b->nas_ready = true;
	for (size_t i = 0; i < b->n_labels; i++) {
		char why[160];
		if (na_bench_label_conflict(&b->nas_view.props, b->labels[i].key, b->labels[i].value, why,
		                            sizeof(why)))
			na_say_warning(b->s, "--label %s=%s contradicts the NAS: %s %s (both are recorded)",
			               b->labels[i].key, b->labels[i].value, why, b->nas_view.dataset.name);
	}
	na_bench_recordsize_trap(b);
}

void na_bench_nas_end(na_bench *b)
{
	nas_view_free(&b->nas_view);
	b->nas_ready = false;
}

/* Starts sampling for a job (NULL when there is no NAS side); a NAS lost
 * since na_bench_nas_begin makes this run's window incomplete, with why. */
static nas_sampler *sampling_start(na_bench *b, const char *job_text, na_bench_outcome *out)
{
	if (!b->nas_ready)
		return NULL;
	long job_s = na_job_seconds(job_text, UNBOUNDED_S);
	nas_sampler *s = NULL;
	vs_error err = {0};
	out->nas = true;
	out->nas_window = (nas_window){.arc_hit_ratio = -1};
	/* iostat lasts as long as fio may (its file's layout included: a seed's
	 * 8 GiB file takes minutes to lay out before fio's window opens), ending
	 * by itself a minute after fio's timeout; the stop ends it sooner. */
	if (nas_sampler_start(b->nas, &b->nas_view.layout, b->nas_view.props.objsetid,
	                      nas_interval(job_s), (int)na_bench_timeout(job_text) + 60, &s, &err) !=
	    VS_OK) {
		out->nas_window.incomplete = true;
		vs_error_format(&err, out->nas_window.why, sizeof(out->nas_window.why));
		if (!b->nas_lost_said)
			na_say_warning(b->s, "the NAS could not be sampled: %s", out->nas_window.why);
		b->nas_lost_said = true;
	}
	return s;
}

/* The pool's totals over fio's measured window: it ended when fio wrote its
 * result and lasted the longest direction's runtime (which leaves out the
 * file's layout and ramp_time, both inside the sampler's span).  fio's
 * stamp is the guest's clock, the intervals' the NAS's: the window moves by
 * their difference, both measured against ours; known to less than an
 * interval, or the NAS's figures are not this window's (incomplete). */
static void nas_fio_window(na_bench_outcome *out)
{
	const na_fio_result *f = &out->fio;
	int64_t ms = f->read.runtime_ms;
	if (f->write.runtime_ms > ms)
		ms = f->write.runtime_ms;
	if (f->mixed_dir.runtime_ms > ms)
		ms = f->mixed_dir.runtime_ms;
	nas_window *w = &out->nas_window;
	bool clocked = out->guest_clock_err >= 0 && w->clock_err >= 0;
	double shift = clocked ? w->clock_offset - out->guest_clock_offset : 0;
	double err = clocked ? w->clock_err + out->guest_clock_err : 0;
	double to = (double)f->timestamp_ms / 1000 + shift, span = (double)ms / 1000;
	/* An edge misplaced by more than an interval can take in the file's
	 * layout or the ramp, at full speed: not this window's figures. */
	if (!w->incomplete && err > w->interval_s) {
		w->incomplete = true;
		snprintf(w->why, sizeof(w->why),
		         "the NAS's clock and the guest's differ by %.1f s, known to %.1f s only: more "
		         "than a %d s interval", shift, err, w->interval_s);
		return;
	}
	bool placed = f->timestamp_ms > 0 && ms > 0 && nas_window_select(w, to - span, to);
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

double na_bench_share_under(const na_fio_dir *d, double floor_us)
{
	int64_t total = 0, under = 0;
	for (size_t i = 0; i < d->n_bins; i++) {
		total += d->bin_count[i];
		if ((double)d->bin_ns[i] < floor_us * 1000)
			under += d->bin_count[i];
	}
	return total ? (double)under / (double)total : -1;
}

/* Decimal rates, as disks and networks are sold: "3.5 GB/s", "138 MB/s". */
static const char *rate(double bps, char *buf, size_t size)
{
	if (bps >= 1e9)
		snprintf(buf, size, "%.1f GB/s", bps / 1e9);
	else if (bps >= 1e6)
		snprintf(buf, size, "%.0f MB/s", bps / 1e6);
	else if (bps >= 1e3)
		snprintf(buf, size, "%.0f kB/s", bps / 1e3);
	else
		snprintf(buf, size, "%.0f B/s", bps);
	return buf;
}

/* A ratio as the NAS line says it: "9.0x", "33x" (buf: 16 bytes). */
static const char *times(double x, char *buf)
{
	snprintf(buf, 16, "%.*fx", x < 10 ? 1 : 0, x);
	return buf;
}

/* "mirrors", "disks", "raidz2 vdevs": what the data vdevs are. */
static void data_word(const nas_layout *l, char *buf, size_t size)
{
	const char *type = NULL;
	for (size_t i = 0; i < l->n && !type; i++)
		if (l->v[i].cls == NAS_CLASS_DATA)
			type = l->v[i].type;
	if (type && (!strcmp(type, "mirror") || !strcmp(type, "disk")))
		snprintf(buf, size, "%ss", type);
	else
		snprintf(buf, size, "%s vdevs", type ? type : "data");
}

static void nas_line_body(const nas_window *w, const nas_layout *l, const na_fio_dir *read,
                          const na_fio_dir *write, uint64_t working_set, char *buf, size_t size)
{
	double secs = w->fio_window ? (w->seconds > 0 ? w->span : 0)
	                            : (double)w->timeline.n * (w->interval_s > 0 ? w->interval_s : 1);
	if (w->incomplete || secs <= 0) {
		snprintf(buf, size, "figures incomplete: %s",
		         w->incomplete       ? w->why
		         : w->fio_window ? "no zpool iostat interval in fio's window"
		                         : "no whole zpool iostat interval in the run");
		return;
	}
	const nas_io *t = w->total;
	double data_w = (double)(t[NAS_CLASS_DATA].write_bytes + t[NAS_CLASS_DEDUP].write_bytes);
	double data_r = (double)(t[NAS_CLASS_DATA].read_bytes + t[NAS_CLASS_DEDUP].read_bytes +
	                         t[NAS_CLASS_SPECIAL].read_bytes);
	char word[32], a[24], s[24], lg[24], g[24], r[24];
	data_word(l, word, sizeof(word));
	int n;
	if (write && write->present) {
		n = snprintf(buf, size, "pool wrote %s (%s)", rate(data_w / secs, a, sizeof(a)), word);
		if (nas_layout_count(l, NAS_CLASS_SPECIAL) && n >= 0 && (size_t)n < size)
			n += snprintf(buf + n, size - (size_t)n, " + %s (special)",
			              rate((double)t[NAS_CLASS_SPECIAL].write_bytes / secs, s, sizeof(s)));
		if (nas_layout_count(l, NAS_CLASS_LOG) && n >= 0 && (size_t)n < size)
			n += snprintf(buf + n, size - (size_t)n, " + %s (log)",
			              rate((double)t[NAS_CLASS_LOG].write_bytes / secs, lg, sizeof(lg)));
		nas_amplification a_of;
		nas_amplification_of(w, guest_written(write), &a_of);
		char x[4][16];
		if (n >= 0 && (size_t)n < size && a_of.known)
			n += snprintf(buf + n, size - (size_t)n,
			              " for %s from the guest: %s (dataset %s, data vdevs %s, log %s)",
			              rate(write->bw_bytes, g, sizeof(g)), times(a_of.total, x[0]),
			              times(a_of.guest_to_dataset, x[1]), times(a_of.dataset_to_data, x[2]),
			              times(a_of.log_share, x[3]));
		else if (n >= 0 && (size_t)n < size)
			n += snprintf(buf + n, size - (size_t)n, " for %s from the guest",
			              rate(write->bw_bytes, g, sizeof(g)));
		if ((!read || !read->present) && data_r > 0 && n >= 0 && (size_t)n < size)
			snprintf(buf + n, size - (size_t)n, "; pool read %s (read-modify-write)",
			         rate(data_r / secs, r, sizeof(r)));
		return;
	}
	n = snprintf(buf, size, "pool read %s (%s) for %s from the guest", rate(data_r / secs, a, sizeof(a)),
	             word, rate(read && read->present ? read->bw_bytes : 0, g, sizeof(g)));
	if (w->arc_hit_ratio >= 0 && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, ", ARC demand hits %.0f%%", w->arc_hit_ratio * 100);
	char ws[32], arc[32];
	if (nas_cache_served(w, working_set, NA_ARC_SERVED) && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " [cache-served: %s fits in the ARC's %s]",
		         na_size((int64_t)working_set, ws, sizeof(ws)),
		         na_size((int64_t)w->arc_size, arc, sizeof(arc)));
}

void na_bench_nas_line(const nas_window *w, const nas_layout *l, const na_fio_dir *read,
                       const na_fio_dir *write, uint64_t working_set, char *buf, size_t size)
{
	nas_line_body(w, l, read, write, working_set, buf, size);
	size_t n = strlen(buf);
	/* Totals taken up from part of fio's window: said, with how much. */
	if (!w->incomplete && w->fio_window && w->seconds > 0 && w->seconds < 0.95 * w->span &&
	    n < size)
		n += (size_t)snprintf(buf + n, size - n, " [pool measured %.1f s of fio's %.1f s]",
		                      w->seconds, w->span);
	/* The counters dropped by the window's cut: no ARC share, no split. */
	if (!w->incomplete && w->fio_window && !w->counters && n < size)
		snprintf(buf + n, size - n, " [no kstats around fio's window: %s]",
		         w->counters_why[0] ? w->counters_why : "not read");
}

static na_fio_dir fio_dir_of(const na_dir_stats *d)
{
	return (na_fio_dir){.present = d->present, .bw_bytes = d->bw_bytes, .runtime_ms = d->runtime_ms};
}

void na_bench_nas_row_line(const na_result *r, const na_nas_run *n, uint64_t working_set,
                           char *buf, size_t size)
{
	/* The stored totals are over fio's window: the seconds the pool
	 * measured of it as stored (schema 8), else its longest direction's
	 * runtime, taken as wholly measured. */
	int64_t ms = r->read.runtime_ms > r->write.runtime_ms ? r->read.runtime_ms : r->write.runtime_ms;
	bool stored = n->measured_s >= 0 && n->window_s > 0;
	nas_window w = {.fio_window = true, .seconds = stored ? n->measured_s : (double)ms / 1000,
	                .span = stored ? n->window_s : (double)ms / 1000,
	                .counters = n->counters_known, .incomplete = n->incomplete,
	                .dataset_written = (uint64_t)n->dataset_written,
	                .arc_hit_ratio = n->counters_known ? n->arc_hit_ratio : -1,
	                .arc_size = (uint64_t)n->arc_size};
	snprintf(w.why, sizeof(w.why), "%s", n->why ? n->why : "");
	if (!n->pool_known)
		w.seconds = 0;
	nas_io *t = w.total;
#define CLASS_OF(c, k) t[k].read_bytes = (uint64_t)n->c##_read_bytes, \
	                   t[k].write_bytes = (uint64_t)n->c##_write_bytes
	CLASS_OF(data, NAS_CLASS_DATA);
	CLASS_OF(special, NAS_CLASS_SPECIAL);
	CLASS_OF(dedup, NAS_CLASS_DEDUP);
	CLASS_OF(log, NAS_CLASS_LOG);
#undef CLASS_OF
	/* The layout as the row words it ("2 mirror + log"): the data vdevs'
	 * type, and which classes exist. */
	char type[16] = "";
	const char *words = n->pool_layout ? n->pool_layout : "";
	sscanf(words, "%*s %15s", type);
	nas_vdev v[3] = {{.type = "", .cls = NAS_CLASS_DATA}};
	snprintf(v[0].type, sizeof(v[0].type), "%s", type);
	nas_layout l = {.v = v, .n = 1};
	if (strstr(words, " + special"))
		v[l.n++].cls = NAS_CLASS_SPECIAL;
	if (strstr(words, " + log"))
		v[l.n++].cls = NAS_CLASS_LOG;
	na_fio_dir rd = fio_dir_of(&r->read), wr = fio_dir_of(&r->write);
	na_bench_nas_line(&w, &l, &rd, &wr, working_set, buf, size);
}
