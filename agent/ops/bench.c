/* One benchmark repetition in the guest through VMware Tools:
 * fio writes JSON to a file (guest operations return no output), we fetch
 * it, parse it, and record it with where it came from.  The host's datastore
 * counters for the same minutes are recorded next to it. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "ops/bench_internal.h"
#include "analysis/trap.h"

/* fio is given its job's own time (UNBOUNDED_S for a job without a
 * runtime) and GRACE_S for laying out its files and writing its output
 * before nfsagent stops it. */
enum { MAX_OUTPUT = 64 << 20, MAX_STDERR = 64 << 10, GRACE_S = 300, GONE_S = 30, CHECK_S = 60 };
/* When the check of the guest's fio is first read: fio --version and
 * --enghelp take tens of ms.  Its report's last line, once the shell is
 * done: a report read whole needs no look at the guest's processes. */
#define CHECK_LOOK_S 0.25
#define CHECK_END_WORD "nfsagent-check-end"
#define CHECK_END CHECK_END_WORD "\n"


static void iso_now(char *buf, size_t size)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int check_fio(na_bench *b, vs_error *err);

const char *na_bench_mark(void)
{
	static char mark[32];
	if (!mark[0]) {
		uint32_t token = 0;
		if (getrandom(&token, sizeof(token), 0) != (ssize_t)sizeof(token))
			token = (uint32_t)time(NULL) ^ ((uint32_t)clock() << 16);
		snprintf(mark, sizeof(mark), "%ld-%08x", (long)getpid(), (unsigned)token);
	}
	return mark;
}

bool na_bench_mark_valid(const char *mark)
{
	size_t digits = strspn(mark, "0123456789");
	return digits > 0 && digits <= 10 &&
	       (!mark[digits] ||  /* a bare pid: a journal from before the marks */
	        (mark[digits] == '-' && strspn(mark + digits + 1, "0123456789abcdef") == 8 &&
	         !mark[digits + 9]));
}

/* The guest folders of the nfsagent process of mark: its staging folder
 * (job file, fio's output) and fio's data folder under dir; snprintf's
 * count for data. */
static int folders(const char *dir, const char *mark, char *staging, size_t staging_size,
                   char *data, size_t data_size)
{
	snprintf(staging, staging_size, "/tmp/nfsagent-%s", mark);
	return snprintf(data, data_size, "%s/nfsagent-fio-%s", dir, mark);
}

void na_bench_server(const na_bench *b, char *server, size_t size)
{
	const char *servers = b->ds && b->ds->remote_host ? b->ds->remote_host : "";
	snprintf(server, size, "%.*s", (int)strcspn(servers, ","), servers);
}

int na_bench_read_link(na_bench *b)
{
	char server[256];
	na_bench_server(b, server, sizeof(server));
	const char *host = b->host->moref, *to = server;
	vs_error ignored = {0};
	return vs_hosts_link_to(b->s->client, &host, &to, 1, &b->link, &ignored);
}

/* Whether guest operations can run: as na_bench_disks read it just
 * before (once), or read now. */
static int guest_ready(na_bench *b, vs_error *err)
{
	if (!b->guest_read)
		return vs_guest_check(b->s->client, b->vm->moref, err);
	b->guest_read = false;
	if (b->guest_rc != VS_OK)
		*err = b->guest_err;
	return b->guest_rc;
}

/* The staging folder and fio's, unless made (*made: the staging folder
 * was made now).  A staging folder without fio's is stale: made again
 * before use, and removed at the end. */
static int make_folders(na_bench *b, bool *made, vs_error *err)
{
	*made = false;
	if (b->guest.made)
		return VS_OK;
	int rc = vs_guest_mkdir(b->s->client, b->vm->moref, &b->auth, b->staging, err);
	*made = rc == VS_OK;
	/* fio's folder once for all the repetitions: a profile's fio unlinks its
	 * files as each job ends (na_bench_fio_start) */
	if (*made)
		rc = vs_guest_mkdir(b->s->client, b->vm->moref, &b->auth, b->data, err);
	b->guest.made = *made && rc == VS_OK;
	b->guest.stale = *made ? rc != VS_OK : b->guest.stale;
	return rc;
}

int na_bench_begin(na_bench *b, vs_error *err)
{
	int n = folders(b->job.dir, na_bench_mark(), b->staging, sizeof(b->staging), b->data,
	                sizeof(b->data));
	int rc;
	if (n < 0 || (size_t)n >= sizeof(b->data))
		rc = vs_fail(err, VS_ERR_USAGE, "the guest folder for fio is too long (%zu bytes, at most %zu)",
		             strlen(b->job.dir), sizeof(b->data) - 32);
	else if (!b->host)  /* the host's counters and every result's provenance name it */
		rc = vs_fail(err, VS_ERR_NOT_FOUND, "%s runs on no host that vCenter lists", b->vm->name);
	else
		rc = guest_ready(b, err);
	bool made = false;
	if (rc == VS_OK)
		rc = make_folders(b, &made, err);
	if (rc == VS_OK && !b->fio_checked)
		rc = check_fio(b, err);
	if (rc == VS_OK)
		rc = vs_perf_counter_ids(b->s->client, na_bench_counter_names, 6, b->counter_ids, err);
	if (rc != VS_OK && made)  /* what it made goes (unless kept): the caller's end may not come */
		na_bench_end(b);
	if (rc != VS_OK && !err->context[0])
		vs_error_context(err, "preparing %s for benchmarks", b->vm->name);
	return rc;
}

static void remove_data(na_bench *b)
{
	vs_error err = {0};
	if (vs_guest_delete(b->s->client, b->vm->moref, &b->auth, b->data, true, &err) != VS_OK &&
	    strcmp(err.fault, "FileNotFound") != 0)
		na_say_warning(b->s, "fio's files may remain in %s in the guest: %s", b->data, err.message);
}

void na_bench_end(na_bench *b)
{
	if (b->guest.keep)
		return;
	remove_data(b);
	vs_error ignored = {0};
	vs_guest_delete(b->s->client, b->vm->moref, &b->auth, b->staging, true, &ignored);
	na_bench_guest_free(&b->guest);
}

void na_bench_guest_free(na_bench_guest *g)
{
	for (size_t i = 0; i < g->n_uploaded; i++)
		free(g->uploaded[i]);
	free(g->uploaded);
	*g = (na_bench_guest){0};
}

void na_bench_end_kept(na_bench *b)
{
	b->guest.keep = false;
	if (b->guest.made || b->guest.stale || b->guest.n_uploaded) {  /* texts: staging is there */
		folders(b->job.dir, na_bench_mark(), b->staging, sizeof(b->staging), b->data, sizeof(b->data));
		na_bench_end(b);
	}
}

char *na_bench_job(const na_bench *b, const na_profile *p)
{
	na_job_overrides o = b->job;
	o.dir = b->data;
	return na_job_file(p, &o);
}

/* ---- the disk under test ---- */

/* "LABEL [ds] dir/x.vmdk", as a result names its disk (malloc'd). */
static char *disk_name(const vs_disk *d)
{
	const char *label = d->label ? d->label : "disk";
	size_t len = strlen(label) + strlen(d->file) + 2;
	char *name = malloc(len);
	if (name)
		snprintf(name, len, "%s %s", label, d->file);
	return name;
}

int na_bench_disks(na_bench *b, vs_error *err)
{
	vs_vm_layout *layout = NULL;
	b->disks = NULL;
	b->n_disks = 0;
	if (vs_vm_layout_read_ready(b->s->client, b->vm->moref, &layout, &b->guest_rc, &b->guest_err,
	                            err) != VS_OK)
		return err->status;
	b->guest_read = true;
	int rc = VS_OK;
	if (layout->n_disks && !(b->disks = calloc(layout->n_disks, sizeof(*b->disks))))
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; rc == VS_OK && i < layout->n_disks; i++) {
		const vs_disk *d = &layout->disks[i];
		if (!d->datastore || strcmp(d->datastore, b->ds->moref) != 0)
			continue;
		if (!(b->disks[b->n_disks] = disk_name(d)))
			rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
		else
			b->n_disks++;
	}
	vs_vm_layout_free(&layout);
	if (rc == VS_OK && !b->n_disks)
		rc = vs_fail(err, VS_ERR_USAGE, "%s has no disk on datastore '%s'", b->vm->name, b->ds->name);
	if (rc != VS_OK)
		na_bench_disks_free(b);
	return rc;
}

void na_bench_disks_free(na_bench *b)
{
	for (size_t i = 0; i < b->n_disks; i++)
		free(b->disks[i]);
	free(b->disks);
	b->disks = NULL;
	b->n_disks = 0;
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

/* Ends what still runs from a staging folder: its name is in the command
 * line of fio (the process Tools started: the shell exec'd it) and of fio's
 * job processes, which Tools does not signal and which outlive a fio
 * killed outright. */
static int end_staged(vs_client *c, const vs_vm *vm, const vs_guest_auth *auth, const char *staging,
                      vs_guest_programs *ended, vs_error *err)
{
	char mark[72];
	snprintf(mark, sizeof(mark), "%s/", staging);
	return vs_guest_stop_named(c, vm->moref, auth, mark, GONE_S, ended, err);
}

void na_bench_stop_fio(na_bench *b)
{
	vs_guest_programs ended = {0};
	vs_error err = {0};
	if (end_staged(b->s->client, b->vm, &b->auth, b->staging, &ended, &err) != VS_OK) {
		char why[1200];
		vs_error_format(&err, why, sizeof(why));
		na_say_warning(b->s, "fio may still run in %s: %s", b->vm->name, why);
	}
	vs_guest_programs_free(&ended);
}

void na_bench_note_end(na_bench_started *st)
{
	iso_now(st->ended_at, sizeof(st->ended_at));
	st->took_s = nas_unix_now() - st->asked[1];
}

na_bench_started na_bench_started_now(void)
{
	na_bench_started st = {.started = time(NULL), .pid = -1};
	iso_now(st.started_at, sizeof(st.started_at));
	return st;
}

/* The number k of job_text's file in the staging folder, text-k.fio,
 * uploaded now if it was not before: a profile's repetitions run one text. */
int na_bench_stage_job(na_bench *b, const char *job_text, size_t *k, vs_error *err)
{
	na_bench_guest *g = &b->guest;
	for (*k = 1; *k <= g->n_uploaded; (*k)++)
		if (strcmp(g->uploaded[*k - 1], job_text) == 0)
			return VS_OK;
	char name[32], *path, *text = strdup(job_text);
	char **grown = realloc(g->uploaded, (g->n_uploaded + 1) * sizeof(*grown));
	if (grown)
		g->uploaded = grown;
	snprintf(name, sizeof(name), "text-%zu.fio", *k);
	if (!text || !grown || !(path = staged(b, name))) {
		free(text);
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	int rc = vs_guest_upload(b->s->client, b->vm->moref, &b->auth, path, job_text, strlen(job_text),
	                         err);
	free(path);
	if (rc == VS_OK)
		g->uploaded[g->n_uploaded++] = text;
	else
		free(text);
	return rc;
}

/* Starts fio; st->asked: this machine's time before and after the call
 * that started it (the guest's `date` into clock.txt ran between). */
int na_bench_fio_start(na_bench *b, const char *job_text, na_bench_started *st, vs_error *err)
{
	/* A job file of its own: its absolute path, in fio's command line after
	 * exec, is a mark no earlier process had (test_chaos: lost answers), by which vs_guest_start knows
	 * it after an unknown outcome without listing the guest's processes
	 * first.  It is a copy, made by the shell that runs fio, of the text's
	 * file uploaded once (na_bench_stage_job).  The guest's clock first: fio's
	 * window is stamped by it, the NAS's intervals by the NAS's. */
	char name[64];
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	/* The time too: a campaign's rounds are benches of one process, whose
	 * ended fio the guest still lists for minutes. */
	snprintf(name, sizeof(name), "job-%lld%03ld-%u.fio", (long long)now.tv_sec,
	         now.tv_nsec / 1000000, ++b->fio_starts);
	char *job = staged(b, name);
	size_t k = 0;
	int rc = job ? na_bench_stage_job(b, job_text, &k, err) : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	/* A profile's job (it writes in b->data, whose name no job file of the
	 * user's can know) has fio remove its files as each job ends: the
	 * folder is made once for all the runs (na_bench_begin), and the job's
	 * text, its recorded identity, stays as before.  A job file of the
	 * user's keeps its files, which may be the user's own. */
	char ours[sizeof(b->data) + 16];
	snprintf(ours, sizeof(ours), "\ndirectory=%s\n", b->data);
	/* The last run's output goes first: a copy that fails starts no fio,
	 * whose output would then be the last run's.  The copy's name is
	 * relative: only the shell and fio bear the mark. */
	char args[640];
	snprintf(args, sizeof(args),
	         "-c 'cd %s && rm -f out.json job-*.fio && cp text-%zu.fio %s 2> stderr.txt && "
	         "{ date +%%s.%%N > clock.txt; exec fio --output-format=json+ --output=%s/out.json %s%s "
	         "> stdout.txt 2> stderr.txt; }'",
	         b->staging, k, name, b->staging, strstr(job_text, ours) ? "--unlink=1 " : "",
	         job ? job : "");
	st->asked[0] = nas_unix_now();
	if (rc == VS_OK)
		rc = vs_guest_start(b->s->client, b->vm->moref, &b->auth, "/bin/sh", args, b->staging, job,
		                    &st->pid, err);
	st->asked[1] = nas_unix_now();
	free(job);
	return rc;
}

void na_bench_renew_data(na_bench *b, bool clean)
{
	if (clean)
		return;
	remove_data(b);
	vs_error err = {0};
	if (vs_guest_mkdir(b->s->client, b->vm->moref, &b->auth, b->data, &err) != VS_OK) {
		na_say_warning(b->s, "fio's folder %s could not be made again in the guest: %s", b->data,
		               err.message);
		b->guest.made = false;  /* a campaign's next round makes the folders again */
	}
}

bool na_bench_kept_folders_remade(na_bench *b, const vs_error *err)
{
	if (!b->guest.keep || !b->guest.made || strcmp(err->fault, "FileNotFound") != 0)
		return false;
	na_bench_guest_free(&b->guest);
	b->guest.keep = true;
	b->guest.stale = true;  /* removed at the end all the same, made or not */
	bool made;
	vs_error e = {0};
	return make_folders(b, &made, &e) == VS_OK;
}

/* A file fio did not write leaves *data NULL: fio's failure, recorded as
 * such.  Any other failed download (TLS, an expired session, a file over
 * max) is nfsagent's error: what fio did is unknown, so nothing is recorded. */
int na_bench_fetch(na_bench *b, const char *name, size_t max, char **data, size_t *len, vs_error *err)
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

/* Whether the check's report is whole: then without its last line. */
static bool check_whole(char *report)
{
	size_t n = report ? strlen(report) : 0, end = strlen(CHECK_END);
	bool whole = n >= end && strcmp(report + n - end, CHECK_END) == 0;
	if (whole)
		report[n - end] = '\0';
	return whole;
}

/* A fresh test VM often has no fio, or an old one: said before anything
 * runs, rather than a failed result for every repetition. */
static int check_fio(na_bench *b, vs_error *err)
{
	/* The report's name is the start's mark: no listing before it (as a
	 * job file's name, na_bench_fio_start). */
	char report_name[64], args[384], mark[128];
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(report_name, sizeof(report_name), "fio-check-%lld%03ld.txt", (long long)now.tv_sec,
	         now.tv_nsec / 1000000);
	/* the absolute path: it holds this process's mark, which another's lacks */
	snprintf(mark, sizeof(mark), "%s/%s", b->staging, report_name);
	snprintf(args, sizeof(args),
	         "-c 'cd %s && { fio --version; echo \"fio-exit $?\"; fio --enghelp; echo " CHECK_END_WORD
	         "; } > %s 2>&1'",
	         b->staging, mark);
	int64_t pid = -1;
	vs_guest_process proc;
	char *report = NULL;
	size_t len = 0;
	int rc = vs_guest_start(b->s->client, b->vm->moref, &b->auth, "/bin/sh", args, b->staging, mark,
	                        &pid, err);
	if (rc == VS_OK) {
		nanosleep(&(struct timespec){0, (long)(CHECK_LOOK_S * 1e9)}, NULL);
		rc = na_bench_fetch(b, report_name, MAX_STDERR, &report, &len, err);
	}
	if (rc == VS_OK && !check_whole(report)) {  /* not yet written: waited for, read again */
		free(report);
		report = NULL;
		rc = vs_guest_wait(b->s->client, b->vm->moref, &b->auth, pid, CHECK_S, 0, b->stop, NULL,
		                   NULL, &proc, err);
		if (rc == VS_OK)
			rc = na_bench_fetch(b, report_name, MAX_STDERR, &report, &len, err);
		check_whole(report);
	}
	if (rc == VS_OK)
		rc = na_fio_guest_check(b->vm->name, report ? report : "", &b->fio_libaio, err);
	b->fio_checked = rc == VS_OK;
	free(report);
	return rc;
}

void na_bench_dir_stats(const na_fio_dir *d, na_dir_stats *s)
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

int na_bench_record(na_bench *b, const na_profile *p, const char *job_text, int repetition,
                  const na_bench_started *st, const char *fio_json, const char *counters,
                  na_bench_outcome *out, vs_error *err)
{
	char finished_at[32];
	if (st->ended_at[0])
		snprintf(finished_at, sizeof(finished_at), "%s", st->ended_at);
	else
		iso_now(finished_at, sizeof(finished_at));
	const vs_about *about = vs_client_about(b->s->client);
	char speed[24];
	snprintf(speed, sizeof(speed), "%lld", (long long)b->link.speed_mb);
	bool link = b->link.speed_mb > 0;
	na_result r = {
		.started_at = st->started_at, .finished_at = finished_at,
		.status = out->ok ? "ok" : "failed", .error = out->error,
		.campaign = b->campaign, .target = b->target, .repetition = repetition,
		.vcenter = vs_client_host(b->s->client), .vcenter_version = about->version,
		.vcenter_build = about->build,
		.host = b->host->name, .esxi_version = b->host->version, .esxi_build = b->host->build,
		.datastore = b->ds->name, .datastore_type = b->ds->type, .servers = b->ds->remote_host,
		.export_path = b->ds->remote_path,
		.vm = b->vm->name, .guest_os = b->vm->guest_os, .disk = b->disks[0],
		.profile = p->name, .job_file = job_text, .fio_version = out->fio.fio_version,
		.fio_json = fio_json, .host_counters_json = counters,
		.link_speed_mbit = link ? speed : NULL, .link_nic = link && b->link.pnic[0] ? b->link.pnic : NULL,
		.nfs_client = b->nfs_client[0] ? b->nfs_client : NULL,
		.labels = b->labels, .n_labels = b->n_labels, .site = b->site,
	};
	if (b->site)  /* fio ran on the NAS: no guest, host or link took part */
		r.vm = r.guest_os = r.disk = r.host = r.link_speed_mbit = r.link_nic = NULL;
	if (out->ok) {
		na_bench_dir_stats(out->fio.mixed ? &out->fio.mixed_dir : &out->fio.read, &r.read);
		na_bench_dir_stats(&out->fio.write, &r.write);
	}
	na_nas_run nas;
	char layout[NA_LAYOUT_WORDS];
	const na_bench *view = out->nas ? b : b->nas_of;  /* a group member's: the settings alone */
	if (view) {
		na_bench_nas_row(view, out, &nas, layout, sizeof(layout));
		r.nas = &nas;
	}
	int rc = na_store_add_journaled(b->s->store, &r, b->step, err);
	out->row = r.id;
	if (view)
		free((char *)nas.timeline);
	return rc;
}


long na_bench_timeout(const char *job_text)
{
	return na_job_seconds(job_text, UNBOUNDED_S) + GRACE_S;
}

int na_bench_fio_end(na_bench *b, const na_profile *p, const char *job_text, int repetition,
                     const na_bench_started *st, const vs_guest_process *proc,
                     na_bench_outcome *out, vs_error *err)
{
	char *json = NULL, *stderr_text = NULL;
	size_t json_len = 0, stderr_len = 0;
	int rc = na_bench_fetch(b, "out.json", MAX_OUTPUT, &json, &json_len, err);
	if (rc == VS_OK && out->nas)
		na_bench_guest_clock(b, st->asked, out);
	vs_error parse_err = {0};
	out->ok = rc == VS_OK && json && na_fio_parse(json, json_len, &out->fio, &parse_err) == VS_OK;
	/* fio's stderr says why it failed; a run that worked needs no look at it. */
	if (rc == VS_OK && !out->ok)
		rc = na_bench_fetch(b, "stderr.txt", MAX_STDERR, &stderr_text, &stderr_len, err);
	if (rc != VS_OK) {
		free(json);
		free(stderr_text);
		return rc;
	}
	if (!json)
		vs_fail(&parse_err, VS_ERR_PROTOCOL, "fio wrote no output (exit status %d)", proc->exit_code);
	if (!out->ok)
		out->error = failure_text(&parse_err, stderr_text);
	if (out->ok && out->nas)
		na_bench_fio_window(out);
	char *counters = na_bench_host_counters(b, st->started);
	rc = na_bench_record(b, p, job_text, repetition, st, json, counters, out, err);
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
                   const char *mark, vs_guest_programs *ended, vs_error *err)
{
	char staging[64], data[sizeof(((na_bench *)0)->data)];
	if (!na_bench_mark_valid(mark))
		return vs_fail(err, VS_ERR_USAGE, "'%s' is not an nfsagent process's mark", mark);
	folders(dir, mark, staging, sizeof(staging), data, sizeof(data));
	/* Its fio may still run: ended first, or it would write into the
	 * folders again and load the datastore under the next measurement. */
	int rc = end_staged(c, vm, auth, staging, ended, err);
	const char *paths[] = {data, staging};
	for (size_t i = 0; rc == VS_OK && i < 2; i++) {
		rc = vs_guest_delete(c, vm->moref, auth, paths[i], true, err);
		if (rc == VS_ERR_FAULT && strcmp(err->fault, "FileNotFound") == 0)
			rc = VS_OK;
	}
	return rc;
}
