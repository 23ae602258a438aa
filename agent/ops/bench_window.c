/* A group's common window in a group run: every member's fio writes its
 * interval logs (bandwidth, completion-latency histogram) into the
 * run's staging folder; after every member ended they are fetched with the
 * guest file transfer fio's JSON output uses (the bandwidth log only when
 * I/O sizes may vary: na_gw_sizes_fixed), parsed (fio_logs.c) and cut
 * to the window all members measured in (group_window.c).  The group's sums,
 * merged percentiles and spread are those of the cut members; each member's
 * own result stays its whole fio run.  See docs/group-window.md. */
#include <stdlib.h>
#include <string.h>

#include "fio_logs.h"
#include "analysis/group_window.h"
#include "ops/bench_internal.h"
#include "ops/bench_window.h"

/* The logs' name in the staging folder: fio adds _bw.N.log and
 * _clat_hist.N.log, N the job's number from 1.  No IOPS log: the
 * histogram's completions count the I/Os (group_window.c). */
#define LOG_NAME "gw"
/* A histogram log holds at most NA_FIO_HIST_MAX_CELLS buckets of at least
 * 3 bytes ("0, "): a larger file is refused unread. */
enum { MAX_LOG = 128 << 20 };
enum { LOG_BW, LOG_HIST };
static const char *const KINDS[] = {[LOG_BW] = "bw", [LOG_HIST] = "clat_hist"};
/* What a group run sets for fio's interval logs, and what changes how
 * they read (averaged or max, offsets, compression, one log for all jobs). */
static const char *const OWN_LOG_KEYS[] = {
	"write_iops_log", "write_bw_log", "write_lat_log", "write_hist_log", "log_avg_msec",
	"log_hist_msec", "log_hist_coarseness", "log_unix_epoch", "log_max_value", "log_offset",
	"log_compression", "log_store_compressed", "log_prio", "per_job_logs", "log_alternate_epoch",
	"log_alternate_epoch_clock_id", NULL};
/* What lets fio issue I/Os of more than one size in a direction: without
 * them each is of the job's bs, and the bandwidth log need not be fetched
 * (na_gw_sizes_fixed). */
static const char *const SIZE_KEYS[] = {
	"bsrange", "blocksize_range", "bssplit", "bs_unaligned", "blocksize_unaligned",
	"bs_is_seq_rand", "blocksize_is_seq_rand", NULL};
/* Each job of each member is a member of the window's cut. */
enum { MAX_JOBS = NA_GW_MAX_MEMBERS / NA_GROUP_MAX_VMS };

int64_t na_group_log_interval(const char *job)
{
	int64_t run_ms = (int64_t)na_job_seconds(job, 0) * 1000, ms = run_ms / 20;
	if (ms >= 1000)  /* at most about 600 lines a log: a long run's logs stay megabytes */
		return run_ms / 600 > 1000 ? (run_ms / 600 + 999) / 1000 * 1000 : 1000;
	return ms <= 0 ? 1000 : ms < 100 ? 100 : ms / 100 * 100;
}

/* Whether staging is /tmp/nfsagent-MARK with a mark na_bench_mark makes:
 * then it holds nothing fio's job syntax gives a meaning. */
static bool own_folder(const char *staging)
{
	const char prefix[] = "/tmp/nfsagent-";
	return !strncmp(staging, prefix, sizeof(prefix) - 1) &&
	       na_bench_mark_valid(staging + sizeof(prefix) - 1);
}

int na_group_job_check(const char *job, vs_error *err)
{
	long jobs = na_job_count(job);
	if (jobs < 1 || jobs > MAX_JOBS)
		return vs_fail(err, VS_ERR_USAGE, "the job file runs %ld fio jobs: a group's member runs 1 "
		               "to %d", jobs, MAX_JOBS);
	/* The job's own would override the [global] below (a later one wins in
	 * fio): an interval five times as long read as ours counts a fifth of
	 * the I/O, with no error. */
	const char *own = na_job_sets(job, OWN_LOG_KEYS);
	if (own)
		return vs_fail(err, VS_ERR_USAGE, "the job file sets %s: a group run writes fio's interval "
		               "logs its own way; take it out of the job file", own);
	return VS_OK;
}

int na_group_job_logs(const char *job, const char *staging, int64_t interval_ms, char **out,
                      vs_error *err)
{
	*out = NULL;
	if (!own_folder(staging))
		return vs_fail(err, VS_ERR_USAGE, "'%s' is not nfsagent's own staging folder: no fio log "
		               "is written there", staging);
	int rc = na_group_job_check(job, err);
	if (rc != VS_OK)
		return rc;
	/* A [global] before the file's own: fio applies it to every job after it. */
	char head[512];
	snprintf(head, sizeof(head),
	         "# nfsagent group: fio's interval logs for the common window\n[global]\n"
	         "write_bw_log=%s/" LOG_NAME "\n"
	         "write_hist_log=%s/" LOG_NAME "\nlog_avg_msec=%lld\nlog_hist_msec=%lld\n"
	         "log_unix_epoch=1\n", staging, staging, (long long)interval_ms,
	         (long long)interval_ms);
	size_t hl = strlen(head), jl = strlen(job);
	if (!(*out = malloc(hl + jl + 1)))
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	memcpy(*out, head, hl);
	memcpy(*out + hl, job, jl + 1);
	return VS_OK;
}

/* Fetches and parses log kind k of job j.  A log fio did not write, or
 * one that cannot be parsed, is the member's why (x->why set, VS_OK); a
 * failed download (TLS, an expired session) is nfsagent's error, not the
 * member's: returned, so that the group is not recorded (na_bench_fetch). */
static int fetch_log(na_bench *b, long j, size_t k, na_fio_logs *l, na_bench_member_run *x,
                     vs_error *err)
{
	char name[64], *text = NULL;
	size_t len = 0;
	snprintf(name, sizeof(name), LOG_NAME "_%s.%ld.log", KINDS[k], j + 1);
	int rc = na_bench_fetch(b, name, MAX_LOG, &text, &len, err);
	if (rc != VS_OK)
		return rc;
	if (!text) {
		na_member_why(x, "its fio interval log %s is missing", name);
		return VS_OK;
	}
	vs_error e = {0};
	rc = k == LOG_HIST ? na_fio_hist_parse(text, len, &l->hist, &e) : na_fio_log_parse(text, len, &l->bw, &e);
	free(text);
	if (rc == VS_ERR_NOMEM)
		*err = e;
	else if (rc != VS_OK)
		na_member_why(x, "its fio interval log %s could not be read: %s", name, e.message);
	return rc == VS_ERR_NOMEM ? rc : VS_OK;
}

/* The first time of a log's lines (ms). */
static int64_t first_of(const na_fio_log *log)
{
	int64_t first = INT64_MAX;
	for (size_t i = 0; i < log->n; i++)
		first = log->s[i].t_ms < first ? log->s[i].t_ms : first;
	return first;
}

/* Where a fio job began measuring (ms, the guest's clock): one interval
 * before the first line of the log that begins last, since fio stamps a
 * line with its interval's end and logs nothing in its ramp (fio 3.33).
 * Its logs begin apart, the histogram's sampled on ticks of its own (300
 * ms apart under load): from here on both cover it. */
static int64_t measured_from(const na_fio_logs *l, int64_t interval)
{
	int64_t hist = INT64_MAX, bw = l->bw.n ? first_of(&l->bw) : INT64_MIN;
	for (size_t i = 0; i < l->hist.n; i++)
		hist = l->hist.t_ms[i] < hist ? l->hist.t_ms[i] : hist;
	return (hist > bw ? hist : bw) - interval;
}

/* Each fio job of the members still complete, as a member of the window's
 * cut; vm[k] is the member (VM) job k belongs to. */
static size_t cut_members(const na_fio_logs *logs, size_t n, long jobs, int64_t interval,
                          const na_bench_group_run *r, na_gw_member *gm, size_t *vm)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		for (long j = 0; !r->m[i].why && j < jobs; j++, k++) {
			const na_fio_logs *l = &logs[i * (size_t)jobs + (size_t)j];
			gm[k] = (na_gw_member){.start_ms = measured_from(l, interval), .interval_ms = interval,
			                       .bw = l->bw.n ? &l->bw : NULL, .hist = &l->hist};
			vm[k] = i;
		}
	return k;
}

/* How many VMs other than vm[ended] began measuring after its logs end. */
static size_t began_after(const na_gw_member *gm, size_t k, const size_t *vm, size_t ended,
                          int64_t end_ms)
{
	bool seen[NA_GROUP_MAX_VMS] = {false};
	size_t after = 0;
	for (size_t q = 0; q < k; q++)
		if (vm[q] != vm[ended] && vm[q] < NA_GROUP_MAX_VMS && !seen[vm[q]] && gm[q].start_ms >= end_ms) {
			seen[vm[q]] = true;
			after++;
		}
	return after;
}

/* The member that bounds an empty or too short window is left out, named:
 * the one that began measuring last (a guest slow to lay out fio's file,
 * or whose clock is ahead), or, when that one's own jobs are what do not
 * overlap, that one for it; but the one whose logs end first when two or
 * more others began after its end (its logs an earlier run's, or its
 * clock behind): one at fault, not each of the others in turn. */
static void blame(na_bench *const *m, const na_gw_result *g, const na_gw_member *gm, size_t k,
                  const size_t *vm, int64_t interval, na_bench_group_run *r)
{
	size_t late = vm[g->starts_last], early = vm[g->ends_first];
	size_t after = began_after(gm, k, vm, g->ends_first, g->to_ms);
	if (late != early && after > 1)
		na_member_why(&r->m[early], "no common window: its fio logs end before %zu other VMs began "
		              "measuring (an earlier run's logs, or its clock behind)", after);
	else if (late == early)
		na_member_why(&r->m[late], "its fio jobs did not measure at the same time: no common window");
	else if (g->to_ms <= g->from_ms)
		na_member_why(&r->m[late], "no common window: it began measuring %.3f s after %s's fio logs "
		              "end", (double)(g->from_ms - g->to_ms) / 1000, m[early]->vm->name);
	else
		na_member_why(&r->m[late], "no common window: it began measuring %lld ms before %s's fio "
		              "logs end, less than one %lld ms interval", (long long)(g->to_ms - g->from_ms),
		              m[early]->vm->name, (long long)interval);
}

/* A member's figures in the window: its jobs' reads and writes merged. */
static int member_cut(const na_gw_result *g, const size_t *vm, size_t k, size_t i,
                      na_fio_result *out, vs_error *err)
{
	int rc = VS_OK;
	for (size_t q = 0; rc == VS_OK && q < k; q++)
		if (vm[q] == i && (rc = na_fio_dir_merge(&out->read, &g->member[q][0], err)) == VS_OK)
			rc = na_fio_dir_merge(&out->write, &g->member[q][1], err);
	return rc;
}

/* The group's figures from its members cut to the window g. */
static int group_cut(na_bench *const *m, size_t n, const na_gw_result *g, const size_t *vm, size_t k,
                     na_bench_group_run *r, vs_error *err)
{
	const na_fio_result *cut[NA_GROUP_MAX_VMS];
	const char *names[NA_GROUP_MAX_VMS];
	size_t c = 0;
	int rc = VS_OK;
	for (size_t i = 0; rc == VS_OK && i < n; i++)
		if (!r->m[i].why && (rc = member_cut(g, vm, k, i, &r->m[i].window, err)) == VS_OK) {
			cut[c] = &r->m[i].window;
			names[c++] = m[i]->vm->name;
		}
	r->window_from_ms = g->from_ms;
	r->window_to_ms = g->to_ms;
	return rc == VS_OK && c ? na_group_figures_of(cut, names, c, &r->fig, err) : rc;
}

/* Cuts the complete members to their common window, leaving out (named)
 * each that bounds an empty one, until one is found or none is left. */
static int cut(na_bench *const *m, size_t n, const na_fio_logs *logs, long jobs, int64_t interval,
               na_bench_group_run *r, vs_error *err)
{
	na_gw_member *gm = calloc(n * (size_t)jobs, sizeof(*gm));
	size_t *vm = calloc(n * (size_t)jobs, sizeof(*vm));
	int rc = gm && vm ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	size_t k;
	while (rc == VS_OK && (k = cut_members(logs, n, jobs, interval, r, gm, vm)) > 0) {
		na_gw_result g;
		vs_error e = {0};
		int cutrc = na_gw_compute(gm, k, &g, &e);
		if (cutrc == VS_OK)
			rc = group_cut(m, n, &g, vm, k, r, err);
		else if (cutrc == VS_ERR_PROTOCOL && g.to_ms - g.from_ms < interval)
			blame(m, &g, gm, k, vm, interval, r);
		else
			rc = vs_fail(err, cutrc, "%s", e.message);
		na_gw_result_clear(&g);
		if (cutrc == VS_OK)
			break;
	}
	free(gm);
	free(vm);
	return rc;
}

/* Fetches the logs of member i's fio job j: the histogram log, and the
 * bandwidth log unless its I/O sizes are known to be fixed. */
static int fetch_logs(na_bench *b, long j, bool sizes_fixed, na_fio_logs *l, na_bench_member_run *x,
                      vs_error *err)
{
	int rc = fetch_log(b, j, LOG_HIST, l, x, err);
	if (rc == VS_OK && !x->why && !(sizes_fixed && na_gw_sizes_fixed(&x->o.fio, &l->hist)))
		rc = fetch_log(b, j, LOG_BW, l, x, err);
	return rc;
}

int na_group_window(na_bench *const *m, size_t n, const char *job, na_bench_group_run *r,
                    vs_error *err)
{
	long jobs = na_job_count(job);  /* 1 to MAX_JOBS: na_group_job_logs made the job */
	bool sizes_fixed = !na_job_sets(job, SIZE_KEYS) && !na_job_includes(job);
	na_fio_logs *logs = calloc(n * (size_t)jobs, sizeof(*logs));
	int rc = logs ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; rc == VS_OK && i < n; i++)
		for (long j = 0; rc == VS_OK && !r->m[i].why && j < jobs; j++)
			rc = fetch_logs(m[i], j, sizes_fixed, &logs[i * (size_t)jobs + (size_t)j], &r->m[i], err);
	if (rc == VS_OK)
		rc = cut(m, n, logs, jobs, na_group_log_interval(job), r, err);
	for (size_t i = 0; logs && i < n * (size_t)jobs; i++)
		na_fio_logs_clear(&logs[i]);
	free(logs);
	return rc;
}
