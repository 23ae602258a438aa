/* The pool measured on its own (baseline.h).  Every word sent to the NAS
 * is fixed, a number, or the mountpoint `zfs list` gave that passed
 * nas_path_ok: ssh joins the words into one remote shell line. */
#include "ops/baseline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops/bench_internal.h"

enum { WORDS = 32, WORD = 320, GRACE_S = 60 };
/* pkill's pattern matches the job's fio, never the shell line that holds
 * it ("baselin[e]" is not "baseline"); quoted for the remote shell. */
static const char *const end_fio[] = {"pkill", "-f", "'" "nfsagent-baselin[e]" "'", NULL};

typedef struct words {
	char buf[WORDS][WORD];
	const char *w[WORDS + 1];
	size_t n;
} words;

/* One word: prefix and s, or prefix and the number v (s NULL). */
static void add(words *x, const char *prefix, const char *s, long long v)
{
	if (x->n >= WORDS)
		return;
	if (s)
		snprintf(x->buf[x->n], WORD, "%s%s", prefix, s);
	else
		snprintf(x->buf[x->n], WORD, "%s%lld", prefix, v);
	x->w[x->n] = x->buf[x->n];
	x->w[++x->n] = NULL;
}

/* A profile's word: letters, digits, '_' and '-' only (they are the
 * built-in profiles' constants; checked all the same). */
static bool fixed_word(const char *s)
{
	return s && *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
	                      strlen(s);
}

/* The job's file in the dataset mounted at mp. */
static int file_in(const char *mp, char *file, size_t size, vs_error *err)
{
	if (!nas_path_ok(mp))
		return vs_fail(err, VS_ERR_USAGE, "the mountpoint %s is not a path nfsagent passes to the NAS",
		               mp);
	snprintf(file, size, "%s/" NA_BASELINE_JOB ".data", mp);
	return VS_OK;
}

/* fio on the NAS as the guest runs it: the same rw, bs, iodepth, numjobs,
 * size, runtime and ramp; writes synchronous (O_SYNC: ESXi's NFS writes
 * are stable), data incompressible, refilled at every write. */
static int job_words(const na_bench *b, const na_profile *p, const char *file, words *x,
                     vs_error *err)
{
	int64_t size = na_parse_size(b->job.size ? b->job.size : "8G");
	if (!fixed_word(p->rw) || !fixed_word(p->bs) || !fixed_word(p->ioengine) || size <= 0)
		return vs_fail(err, VS_ERR_USAGE, "profile %s has no NAS-local job", p->name);
	x->n = 0;
	add(x, "", "fio", 0);
	add(x, "", "--name=" NA_BASELINE_JOB, 0);
	add(x, "--filename=", file, 0);
	add(x, "--rw=", p->rw, 0);
	add(x, "--bs=", p->bs, 0);
	add(x, "--ioengine=", p->ioengine, 0);
	add(x, "--iodepth=", NULL, p->iodepth);
	add(x, "--numjobs=", NULL, p->numjobs);
	add(x, "--size=", NULL, size);
	add(x, "--runtime=", NULL, b->job.runtime_s);
	add(x, "--ramp_time=", NULL, b->job.ramp_s);
	if (p->rwmixread >= 0)
		add(x, "--rwmixread=", NULL, p->rwmixread);
	static const char *const fixed[] = {"--time_based=1", "--sync=1", "--refill_buffers=1",
	                                    "--buffer_compress_percentage=0", "--group_reporting=1",
	                                    "--unlink=1", "--output-format=json+"};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		add(x, "", fixed[i], 0);
	return VS_OK;
}

/* The words as one line: the result's job_file, what ran. */
static char *line_of(const words *x)
{
	size_t len = 1;
	for (size_t i = 0; i < x->n; i++)
		len += strlen(x->w[i]) + 1;
	char *s = calloc(1, len);
	for (size_t i = 0; s && i < x->n; i++)
		strcat(strcat(s, i ? " " : ""), x->w[i]);
	return s;
}

static int run_words(const nas_target *nas, const char *const *w, nas_output *out, vs_error *err)
{
	nas_call c = {.remote = w};
	int rc = nas_run_all(nas, &c, 1);
	*err = c.err;
	if (out)
		*out = c.out;
	else
		nas_output_free(&c.out);
	return rc;
}

/* Ends a killed baseline's fio on nas by its job's name (*ended: one ran). */
static int end_fio_on(const nas_target *nas, bool *ended, vs_error *err)
{
	nas_output out = {0};
	int rc = run_words(nas, end_fio, &out, err);
	*ended = rc == VS_OK;
	if (out.status == 1)  /* pkill: none was running */
		rc = VS_OK, *err = (vs_error){0};
	nas_output_free(&out);
	return rc;
}

/* Removes the job's file from the dataset mounted at mp. */
static int remove_file(const nas_target *nas, const char *mp, vs_error *err)
{
	char file[NAS_PATH_MAX + 64];
	int rc = file_in(mp, file, sizeof(file), err);
	const char *const rm[] = {"rm", "-f", file, NULL};
	return rc == VS_OK ? run_words(nas, rm, NULL, err) : rc;
}

int na_bench_baseline_end(const nas_target *nas, const char *export_path, bool *ended, vs_error *err)
{
	nas_view v = {0};
	int rc = end_fio_on(nas, ended, err);
	if (rc == VS_OK)
		rc = nas_read_view(nas, export_path, &v, err);
	if (rc == VS_OK)
		rc = remove_file(nas, v.dataset.mountpoint, err);
	nas_view_free(&v);
	return rc;
}

/* What a killed baseline left on b's NAS (fixed words: the job's name, the
 * checked mountpoint). */
static void sweep(na_bench *b)
{
	vs_error err = {0};
	bool ended;
	int rc = end_fio_on(b->nas, &ended, &err);
	if (rc == VS_OK)
		rc = remove_file(b->nas, b->nas_view.dataset.mountpoint, &err);
	if (rc != VS_OK)
		na_say_warning(b->s, "a killed baseline's fio or file may be left on NAS %s: %s",
		               b->nas->display, err.message);
}

/* fio there, or why not in err. */
static int fio_there(na_bench *b, vs_error *err)
{
	static const char *const version[] = {"fio", "--version", NULL};
	nas_output out = {0};
	int rc = run_words(b->nas, version, &out, err);
	bool missing = out.status == 127;
	nas_output_free(&out);
	if (rc != VS_OK && missing)
		return vs_fail(err, VS_ERR_NOT_FOUND, "fio is not installed on NAS %s: install it there "
		               "(apt-get install fio; TrueNAS SCALE ships it); no NAS-local baseline",
		               b->nas->display);
	if (rc != VS_OK) {
		char why[sizeof(err->message)];
		snprintf(why, sizeof(why), "%s", err->message);
		vs_fail(err, rc, "no NAS-local baseline: %s", why);
	}
	return rc;
}

/* Before b's baselines: what a killed baseline left on the NAS ended and
 * removed, then fio looked for there; why they cannot run in err (fio
 * missing: VS_ERR_NOT_FOUND, and its fix). */
static int ready(na_bench *b, vs_error *err)
{
	if (!b->nas_ready)
		return vs_fail(err, VS_ERR_CONNECT, "no NAS-local baseline: the NAS side could not be read");
	sweep(b);
	return fio_there(b, err);
}

static int room_for(na_bench *b, const na_profile *p, vs_error *err)
{
	int64_t need = na_profile_footprint(p, b->job.size ? b->job.size : "8G"), left = -1;
	int rc = nas_available(b->nas, b->nas_view.dataset.name, &left, err);
	/* the file and a tenth more: ZFS refuses writes near a full pool */
	if (rc == VS_OK && left < need + need / 10)
		rc = vs_fail(err, VS_ERR_USAGE, "%s has %lld bytes left on NAS %s, too few for the %s "
		             "baseline's %lld", b->nas_view.dataset.name, (long long)left, b->nas->display,
		             p->name, (long long)need);
	return rc;
}

/* Waits for fio there until its time and a grace are up, or Ctrl-C: then
 * its fio is ended by name on the NAS (ending ssh would leave it). */
static int wait_fio(na_bench *b, nas_job **job, long timeout_s, nas_output *out, vs_error *err)
{
	const struct timespec tick = {0, 200 * 1000 * 1000};
	for (long i = 0; i < timeout_s * 5 && nas_job_running(*job) && !*b->stop; i++)
		nanosleep(&tick, NULL);
	bool cut = nas_job_running(*job);
	if (cut) {
		vs_error e = {0};
		run_words(b->nas, end_fio, NULL, &e);
	}
	int rc = nas_job_finish(job, cut ? 2000 : 1000, out, err);
	if (cut && rc == VS_OK)
		rc = vs_fail(err, VS_ERR_CONNECT, "fio on NAS %s %s", b->nas->display,
		             *b->stop ? "was stopped" : "ran past its time and was stopped");
	return rc;
}

/* fio's output recorded as a result of site nas, its NAS window placed on
 * fio's own stamp (the NAS's clock). */
static int record_local(na_bench *b, const na_profile *p, const char *line,
                        const na_bench_started *st, const nas_output *out, na_bench_outcome *o,
                        bool *unrecorded, vs_error *err)
{
	vs_error perr = {0};
	o->ok = na_fio_parse(out->out ? out->out : "", out->len, &o->fio, &perr) == VS_OK;
	if (!o->ok) {
		size_t len = strlen(perr.message) + (out->errtext ? strlen(out->errtext) : 0) + 16;
		if ((o->error = malloc(len)))
			snprintf(o->error, len, "%s; stderr: %s", perr.message, out->errtext ? out->errtext : "");
	}
	if (o->ok && o->nas) {
		const na_fio_result *f = &o->fio;
		int64_t ms = f->read.runtime_ms > f->write.runtime_ms ? f->read.runtime_ms : f->write.runtime_ms;
		if (f->mixed_dir.runtime_ms > ms)
			ms = f->mixed_dir.runtime_ms;
		na_nas_clock c;
		/* fio ran by the NAS's clock: no other clock to move it by */
		na_bench_nas_place(&o->nas_window, o->nas_window.clock_offset, 0, f->timestamp_ms, ms, &c);
	}
	b->site = "nas";
	int rc = na_bench_record(b, p, line, 1, st, out->out, NULL, o, err);
	b->site = NULL;
	*unrecorded = rc != VS_OK;
	return rc;
}

/* One run with its job words made, its output recorded: fio's failure
 * too, not a run Ctrl-C cut short (a part of a run is no ceiling). */
static int run_one(na_bench *b, const na_profile *p, const char *job_text, na_bench_outcome *o,
                   bool *unrecorded, vs_error *err)
{
	char file[NAS_PATH_MAX + 64];
	words x;
	int rc = file_in(b->nas_view.dataset.mountpoint, file, sizeof(file), err);
	if (rc == VS_OK)
		rc = job_words(b, p, file, &x, err);
	if (rc == VS_OK)
		rc = room_for(b, p, err);
	char *line = rc == VS_OK ? line_of(&x) : NULL;
	if (rc != VS_OK || !line)
		return rc != VS_OK ? rc : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	na_bench_started st = na_bench_started_now();
	o->nas = true;  /* b->nas_ready: na_bench_baseline's */
	nas_sampler *s = na_bench_sampling_start(b, job_text, &o->nas_window);
	nas_job *job = NULL;
	nas_output out = {0};
	rc = nas_job_start(b->nas, x.w, "fio on the NAS", false, &job, err);
	if (rc == VS_OK)
		rc = wait_fio(b, &job, na_bench_timeout(job_text), &out, err);
	na_bench_note_end(&st);
	if (s)
		na_bench_sampling_stop(b, &s, &o->nas_window);
	if (rc == VS_OK || (out.len && !*b->stop))
		rc = record_local(b, p, line, &st, &out, o, unrecorded, err);
	nas_output_free(&out);
	free(line);
	return rc;
}

bool na_bench_baseline_twin(const na_profile *p)
{
	return p->nrfiles == 0 && !na_profile_zeros(p);
}

/* p's baseline (a twin, after ready), recorded into o with b->step in one
 * transaction; o->row 0: nothing recorded, err says why. */
static int run_profile(na_bench *b, const na_profile *p, na_bench_outcome *o, bool *unrecorded,
                       vs_error *err)
{
	*o = (na_bench_outcome){.guest_clock_err = -1};
	char *job_text = na_bench_job(b, p);
	int rc = job_text ? run_one(b, p, job_text, o, unrecorded, err)
	                  : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	free(job_text);
	return rc;
}

/* A baseline that could not run (p NULL: none can): said, the others go on. */
static void not_run(na_bench *b, const na_bench_plan *plan, const na_profile *p, vs_error *why)
{
	if (p)
		na_say_warning(b->s, "no NAS-local baseline of %s: %s", p->name, why->message);
	else
		na_say_warning(b->s, "%s", why->message);
	if (plan->not_local)
		plan->not_local(plan->ud, p, why);
	*why = (vs_error){0};
}

/* One profile's baseline, recorded with the plan's journal step, shown. */
static int run_local(na_bench *b, const na_bench_plan *plan, const na_profile *p,
                     na_bench_run_entry *e, vs_error *err)
{
	char step[256] = "";
	if (plan->step_of)
		plan->step_of(plan->ud, p, 0, step, sizeof(step));
	b->step = step[0] ? step : NULL;
	bool unrecorded = false;  /* the store failed: the run's error, never "not run" */
	int rc = run_profile(b, p, &e->o, &unrecorded, err);
	b->step = NULL;
	if (e->o.row && plan->on_local) {
		b->site = "nas";  /* the caller shows it as the NAS's */
		plan->on_local(plan->ud, b, p, e);
		b->site = NULL;
	}
	if (e->o.row)
		return VS_OK;
	na_bench_outcome_clear(&e->o);
	if (rc != VS_OK && rc != VS_ERR_NOMEM && !unrecorded && !*b->stop)  /* cut short: left to be made */
		not_run(b, plan, p, err), rc = VS_OK;
	return *b->stop && rc != VS_ERR_NOMEM ? VS_OK : rc;
}

int na_bench_baseline(na_bench *b, const na_bench_plan *plan, na_bench_result *out, vs_error *err)
{
	const na_profile *const *list = plan->local ? plan->local : plan->profiles;
	size_t n = plan->local ? plan->n_local : plan->n;
	out->local = calloc(n + 1, sizeof(*out->local));
	if (!out->local)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	vs_error why = {0};
	if (ready(b, &why) != VS_OK) {
		not_run(b, plan, NULL, &why);
		return VS_OK;
	}
	int rc = VS_OK;
	for (size_t i = 0; rc == VS_OK && i < n && !*b->stop; i++) {
		const na_profile *p = list[i];
		if (!na_bench_baseline_twin(p) || plan->job) {
			na_say_warning(b->s, "%s has no NAS-local baseline (a job file, small files or zeros)",
			               plan->job ? "a --job" : p->name);
			continue;
		}
		na_bench_run_entry *e = &out->local[out->n_local];
		*e = (na_bench_run_entry){.profile = i, .repetition = 1};
		rc = run_local(b, plan, p, e, err);
		out->n_local += e->o.row != 0;
	}
	return rc;
}
