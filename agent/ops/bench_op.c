/* The bench op: each run is one profile's repetition in every member at
 * once, a lone VM being a group of one.  One thread for vSphere, one client
 * (docs/architecture.md; the NAS's settings are read again beside it,
 * ops/bench_nas.c): every fio is started before any is waited for,
 * and the waits poll each guest only from the job's expected end.  A
 * group's run is cut to its members' common window and recorded with them
 * as one (docs/groups.md); a lone VM's is its result, placed on its fio's
 * own window, its failures the op's errors. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops/baseline.h"
#include "ops/bench_group_nas.h"
#include "ops/bench_internal.h"
#include "ops/bench_window.h"
#include "interrupts.h"

/* A member whose fio ran less than this share of the longest member's
 * runtime (or the job's, when the longest overran it) ended early: it did
 * not load the datastore for the group's window. */
#define EARLY_SHARE 0.9

static double monotonic_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void na_member_why(na_bench_member_run *m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char buf[1024];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	free(m->why);
	m->why = strdup(buf);
}

/* Starts fio in every member, one after the other with nothing in
 * between (a kept guest's folders found gone are made again, and the start
 * tried once more); a member that cannot start is named, a lone VM's
 * start that fails is the op's error. */
static int start_all(na_bench *const *m, size_t n, const char *job, na_bench_started *st,
                     na_bench_group_run *r, vs_error *err)
{
	/* Every member's job text in its guest first: the starts then follow
	 * one another one call each, the group's skew that much smaller.  An
	 * upload that fails here is tried again, and said, by its start. */
	if (n > 1)
		for (size_t i = 0; i < n; i++)
			na_bench_stage_job(m[i], job, &(size_t){0}, &(vs_error){0});
	for (size_t i = 0; i < n; i++) {
		vs_error e = {0};
		st[i] = na_bench_started_now();
		int rc = na_bench_fio_start(m[i], job, &st[i], &e);
		if (rc != VS_OK && st[i].pid < 0 && na_bench_kept_folders_remade(m[i], &e)) {
			e = (vs_error){0};
			st[i] = na_bench_started_now();
			rc = na_bench_fio_start(m[i], job, &st[i], &e);
		}
		if (rc == VS_OK)
			r->m[i].start_s = (st[i].asked[0] + st[i].asked[1]) / 2;
		else if (n == 1)
			return *err = e, rc;
		else
			na_member_why(&r->m[i], "never started: %s", e.message);
	}
	return VS_OK;
}

/* The spread of the starts; the guests' own `date` stamps would include
 * each guest's clock error, the start calls' middles only ours. */
static double skew_ms(const na_bench_group_run *r, size_t n)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t started = 0;
	for (size_t i = 0; i < n; i++)
		if (r->m[i].start_s > 0) {
			started++;
			lo = fmin(lo, r->m[i].start_s);
			hi = fmax(hi, r->m[i].start_s);
		}
	return started < 2 ? -1 : (hi - lo) * 1000;
}

/* Waits for every started fio in turn.  They run together, so the first
 * wait covers the job's time (as long as the first member's last run of
 * the profile took to be seen ended: na_bench_learn) and each later one
 * polls from what is left of it (at once, for those that ended with the
 * first); each end seen is noted as that member's finish.  Ctrl-C returns
 * VS_ERR_TASK; a member timed out or refused is named (a lone VM's wait
 * that fails is the op's error). */
static int wait_all(na_bench *const *m, size_t n, const na_profile *p, const char *job,
                    const char *what, na_bench_started *st, vs_guest_process *proc,
                    na_bench_group_run *r, vs_error *err)
{
	long timeout = na_bench_timeout(job);
	/* Times count from the first start, as the learned one does (na_bench_learn). */
	size_t first_started = 0;
	while (first_started < n && st[first_started].pid < 0)
		first_started++;
	double t0 = monotonic_s(), expected = -1;
	if (first_started < n)
		t0 -= fmax(0, nas_unix_now() - st[first_started].asked[1]);
	na_wait shown;
	na_wait_init(&shown, what, na_job_seconds(job, UNBOUNDED_S));
	na_interrupts_note(n == 1 ? "stopping fio in the guest; the results recorded so far are kept"
	                          : "stopping fio in every guest; the results recorded so far are kept");
	int rc = VS_OK;
	for (size_t i = 0; rc == VS_OK && i < n; i++) {
		if (st[i].pid < 0)
			continue;
		bool first = expected < 0;
		if (first)
			expected = na_bench_expected_s(m[i], p, job);
		double gone = monotonic_s() - t0;
		vs_error e = {0};
		int w = vs_guest_wait(m[i]->s->client, m[i]->vm->moref, &m[i]->auth, st[i].pid,
		                      (double)timeout > gone ? timeout - (long)gone : 1,
		                      expected > gone ? expected - gone : 0, m[i]->stop, na_wait_tick, &shown,
		                      &proc[i], &e);
		if (w == VS_OK)
			na_bench_note_end(&st[i]);
		if (w == VS_OK && first) {  /* every member knows it: the next run's first may be another */
			na_bench_learn(m[i], p, job, &st[i], expected, proc[i].end_looks);
			for (size_t k = 0; k < n; k++)
				m[k]->took = m[i]->took;
		}
		if (w != VS_OK && n == 1)
			rc = (*err = e, w);
		else if (w != VS_OK && *m[i]->stop)
			rc = vs_fail(err, VS_ERR_TASK, "%s", e.message);
		else if (w != VS_OK)
			na_member_why(&r->m[i], "%s", e.message);
	}
	na_wait_done(&shown);
	na_interrupts_note(NULL);
	return rc;
}

/* The longest fio run of a member that succeeded (ms). */
static int64_t fio_ms(const na_fio_result *f)
{
	int64_t ms = f->read.runtime_ms;
	if (f->write.runtime_ms > ms)
		ms = f->write.runtime_ms;
	return f->mixed_dir.runtime_ms > ms ? f->mixed_dir.runtime_ms : ms;
}

/* Reads and records each member that ran; names those that failed or
 * ended well before the others.  A lone VM's output unread is the op's
 * error, and its fio's failure is its result's. */
static int end_all(na_bench *const *m, size_t n, const na_profile *p, const char *job, int rep,
                   const na_bench_started *st, const vs_guest_process *proc, na_bench_group_run *r,
                   vs_error *err)
{
	if (n == 1)
		return na_bench_fio_end(m[0], p, job, rep, &st[0], &proc[0], &r->m[0].o, err);
	int64_t longest = 0;
	for (size_t i = 0; i < n; i++) {
		na_bench_member_run *x = &r->m[i];
		if (st[i].pid < 0 || x->why)
			continue;
		vs_error e = {0};
		if (m[i]->nas_of) {  /* its NAS row: the settings, its figures in the group's */
			x->o.nas_window.incomplete = true;
			snprintf(x->o.nas_window.why, sizeof(x->o.nas_window.why),
			         "a group's member: the pool's figures are the group run's");
		}
		if (na_bench_fio_end(m[i], p, job, rep, &st[i], &proc[i], &x->o, &e) != VS_OK)
			na_member_why(x, "its fio output could not be read: %s", e.message);
		else if (!x->o.ok)
			na_member_why(x, "fio failed: %s", x->o.error ? x->o.error : "unknown error");
		else if (fio_ms(&x->o.fio) > longest)
			longest = fio_ms(&x->o.fio);
	}
	r->runtime_ms = longest;
	/* A member that ran all the job says to has not ended early, though a
	 * loaded guest's fio overran it (1.2 s of a 1 s job under ASan); fio's
	 * runtime leaves the ramp out, so the job's time does too. */
	double full_ms = (double)longest,
	       job_ms = (double)(na_job_seconds(job, 0) - na_job_ramp_seconds(job)) * 1000;
	if (job_ms > 0 && job_ms < full_ms)
		full_ms = job_ms;
	for (size_t i = 0; i < n; i++) {
		na_bench_member_run *x = &r->m[i];
		if (!x->why && x->o.ok && (double)fio_ms(&x->o.fio) < EARLY_SHARE * full_ms)
			na_member_why(x, "ended early: fio ran %.1f s, the longest member %.1f s",
			        (double)fio_ms(&x->o.fio) / 1000, (double)longest / 1000);
	}
	return VS_OK;
}

/* "fleet-03: fio failed: ...; fleet-04: never started: ..." (malloc'd), or NULL. */
static char *whys(na_bench *const *m, size_t n, const na_bench_group_run *r)
{
	size_t len = 1;
	for (size_t i = 0; i < n; i++)
		len += r->m[i].why ? strlen(m[i]->vm->name) + strlen(r->m[i].why) + 4 : 0;
	char *s = r->incomplete ? calloc(len, 1) : NULL;
	for (size_t i = 0, at = 0; s && i < n; i++)
		if (r->m[i].why)
			at += (size_t)snprintf(s + at, len - at, "%s%s: %s", at ? "; " : "", m[i]->vm->name,
			                       r->m[i].why);
	return s;
}

/* The group's row and its members' links, committing the members' results
 * recorded since na_store_group_begin. */
static int record_group(na_bench *const *m, size_t n, const na_profile *p, const char *started_at,
                        na_bench_group_run *r, int rc, vs_error *err)
{
	na_group_member links[NA_GROUP_MAX_VMS];
	na_group_nas_row pools[NA_GROUP_MAX_VMS];
	na_group_nas_rows(r, pools);
	for (size_t i = 0; i < n && i < NA_GROUP_MAX_VMS; i++)
		links[i] = (na_group_member){m[i]->vm->name, r->m[i].o.row, r->m[i].why};
	char *why = whys(m, n, r);
	na_group_row g = {.started_at = started_at, .profile = p->name, .repetition = r->repetition,
	                  .vms = (int)n, .start_skew_ms = r->skew_ms, .why = why, .iops = r->fig.iops,
	                  .slowest_vm = r->fig.n ? r->fig.slowest.name : NULL,
	                  .slowest_share = r->fig.slowest_share, .nas = pools, .n_nas = r->n_pools};
	const na_fio_result *f = &r->fig.merged;
	na_bench_dir_stats(f->mixed ? &f->mixed_dir : &f->read, &g.read);
	na_bench_dir_stats(&f->write, &g.write);
	if (rc == VS_OK && r->incomplete && !why)
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	rc = na_store_group_end(m[0]->s->store, rc, &g, links, n, err);
	r->group_id = g.id;
	free(why);
	return rc;
}

/* fio in every member, the pools sampled around all of them. */
static int run_fio(na_bench *const *m, size_t n, const na_group_nas *gn, const na_profile *p,
                   const char *job, int rep, na_bench_started *st, vs_guest_process *proc,
                   na_bench_group_run *r, vs_error *err)
{
	char what[160];
	if (n == 1)
		snprintf(what, sizeof(what), "%s #%d: fio in %s", p->name, rep, m[0]->vm->name);
	else
		snprintf(what, sizeof(what), "%s #%d: fio in %zu VMs", p->name, rep, n);
	/* A kept view's settings, read again beside the guests' preparation,
	 * are in before sampling starts: the sampler reads the dataset's objset
	 * as it is now, and the recheck's ssh sessions never load the NAS in a
	 * measured window. */
	for (size_t i = 0; i < n; i++)
		na_bench_nas_settle(m[i]);
	nas_sampler *samplers[NA_GROUP_MAX_VMS] = {0};
	int rc = na_group_nas_start(gn, m, n, job, r, samplers, err);
	if (rc == VS_OK)
		rc = start_all(m, n, job, st, r, err);
	r->skew_ms = skew_ms(r, n);
	if (rc == VS_OK)
		rc = wait_all(m, n, p, job, what, st, proc, r, err);
	na_group_nas_stop(m, n, r, samplers);
	return rc;
}

/* The group's hosts, each once, asked for their counters together. */
static void add_host(na_perf_memo *memo, const char *host)
{
	size_t i = 0;
	while (i < memo->n_hosts && strcmp(memo->hosts[i], host) != 0)
		i++;
	if (i == memo->n_hosts && i < NA_GROUP_MAX_VMS)
		memo->hosts[memo->n_hosts++] = host;
}

/* Host counters: a group's hosts asked for together (each member keeps
 * its own host's), a lone VM's alone. */
static na_perf_memo *share_counters(na_bench *const *m, size_t n)
{
	na_perf_memo *memo = n > 1 ? calloc(1, sizeof(*memo)) : NULL;
	for (size_t i = 0; memo && i < n; i++)
		add_host(memo, m[i]->host->moref);
	for (size_t i = 0; i < n; i++)
		m[i]->perf_memo = memo;  /* none: each member asks alone */
	return memo;
}

static void unshare_counters(na_bench *const *m, size_t n, na_perf_memo *memo)
{
	for (size_t i = 0; i < n; i++)
		m[i]->perf_memo = NULL;
	if (memo)
		na_perf_memo_clear(memo);
	free(memo);
}

/* A group's members and its row, one transaction (opened before them),
 * its figures cut to the common window first; rolled back when rc, or
 * the cut (memory), failed. */
static int record_cut(na_bench *const *m, size_t n, const na_group_nas *gn, const na_profile *p,
                      const char *job, const na_bench_started *st, na_bench_group_run *r, int rc,
                      vs_error *err)
{
	int cut = rc == VS_OK ? na_group_window(m, n, job, r, err) : rc;
	if (cut == VS_OK)
		na_group_nas_cut(gn, m, n, st, r);
	for (size_t i = 0; i < n; i++)
		r->incomplete += r->m[i].why != NULL;
	return record_group(m, n, p, st[0].started_at, r, cut, err);
}

static int run_group(na_bench *const *m, size_t n, const na_group_nas *gn, const na_bench_plan *plan,
                     const na_profile *p, const char *job, int rep, na_bench_group_run *r,
                     vs_error *err)
{
	na_bench_started *st = calloc(n, sizeof(*st));
	vs_guest_process *proc = calloc(n, sizeof(*proc));
	if (!st || !proc) {
		free(st);
		free(proc);
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		st[i].pid = -1;  /* none started, should the samplers' start fail */
		r->m[i].o = (na_bench_outcome){.guest_clock_err = -1};
	}
	char step[256] = "";
	if (plan->step_of)
		plan->step_of(plan->ud, p, rep, step, sizeof(step));
	int rc = run_fio(m, n, gn, p, job, rep, st, proc, r, err);
	/* Interrupted, or one timed out: Tools signalled only the fio it started, not its jobs. */
	for (size_t i = 0; i < n; i++)
		if (st[i].pid >= 0 && (rc != VS_OK || r->m[i].why))
			na_bench_stop_fio(m[i]);
	for (size_t i = 0; i < n; i++)
		na_bench_renew_data(m[i], st[i].pid < 0 || (rc == VS_OK && !r->m[i].why && proc[i].exit_code == 0));
	/* A group and its members are recorded together or not at all, with
	 * the campaign's step; a lone VM's result with it. */
	bool open = rc == VS_OK && n > 1 && (rc = na_store_group_begin(m[0]->s->store, err)) == VS_OK;
	if (open && step[0])
		rc = na_store_group_journal(m[0]->s->store, m[0]->campaign, step, err);
	m[0]->step = n == 1 && step[0] ? step : NULL;
	na_perf_memo *memo = rc == VS_OK ? share_counters(m, n) : NULL;
	if (rc == VS_OK)
		rc = end_all(m, n, p, job, rep, st, proc, r, err);
	unshare_counters(m, n, memo);
	m[0]->step = NULL;
	if (open)
		rc = record_cut(m, n, gn, p, job, st, r, rc, err);
	free(st);
	free(proc);
	return rc;
}

static int run_all(na_bench *const *m, size_t n, const na_group_nas *gn, const na_bench_plan *plan,
                   char **jobs, na_bench_result *out, vs_error *err)
{
	int rc = VS_OK;
	volatile sig_atomic_t *stop = m[0]->stop;
	/* Repetitions interleave the profiles (A B A B), so drift spreads over all. */
	for (long rep = 1; rc == VS_OK && rep <= plan->repeat && !*stop; rep++)
		for (size_t p = 0; rc == VS_OK && p < plan->n && !*stop; p++) {
			na_bench_group_run *r = &out->runs[out->n];
			int number = (int)(plan->repetition_base + rep);
			*r = (na_bench_group_run){.profile = p, .repetition = number,
			                          .m = calloc(n, sizeof(*r->m))};
			if (!r->m)
				return vs_fail(err, VS_ERR_NOMEM, "out of memory");
			out->n++;  /* freed with the result, also when interrupted */
			rc = run_group(m, n, gn, plan, plan->profiles[p], jobs[p], number, r, err);
			if (rc != VS_OK && n == 1 && !r->m[0].o.row) {  /* a lone VM's: no run, as before */
				na_bench_outcome_clear(&r->m[0].o);
				free(r->m);
				out->n--;
				break;
			}
			for (size_t i = 0; i < n; i++)
				out->failed += r->m[i].o.row && !r->m[i].o.ok;
			out->incomplete += r->incomplete > 0;
			if (rc == VS_OK && plan->on_run)
				plan->on_run(plan->ud, m, n, plan->profiles[p], r);
		}
	return rc;
}

/* Each member's host link, all hosts in one call, each host's to its
 * first member's server: the group's sums through a host are held against
 * it (netbound.h).  Best effort; not again when each member has it (a
 * campaign's, read once a run). */
static void read_links(na_bench *const *m, size_t n)
{
	size_t known = 0;
	while (known < n && m[known]->link_read)
		known++;
	if (known == n)
		return;
	const char *hosts[NA_GROUP_MAX_VMS] = {0}, *servers[NA_GROUP_MAX_VMS] = {0};
	char server[NA_GROUP_MAX_VMS][256];
	vs_host_link links[NA_GROUP_MAX_VMS];
	size_t host_of[NA_GROUP_MAX_VMS], k = 0;
	if (n > NA_GROUP_MAX_VMS)  /* refused by the commands before */
		return;
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;
		while (j < k && strcmp(hosts[j], m[i]->host->moref) != 0)
			j++;
		if (j == k) {
			hosts[k] = m[i]->host->moref;
			na_bench_server(m[i], server[k], sizeof(server[k]));
			servers[k] = server[k];
			k++;
		}
		host_of[i] = j;
	}
	vs_error ignored = {0};
	bool read = vs_hosts_link_to(m[0]->s->client, hosts, servers, k, links, &ignored) == VS_OK;
	for (size_t i = 0; i < n; i++) {
		size_t f = 0;  /* the first member on i's host */
		while (host_of[f] != host_of[i])
			f++;
		if (read)
			m[i]->link = links[host_of[i]];
		else if (f == i && k > 1)  /* one host gone fails them all: each read alone */
			na_bench_read_link(m[i]);
		else
			m[i]->link = m[f]->link;
		m[i]->link_read = true;
	}
}

/* Every guest prepared, or none: a member that cannot run fio is said
 * before any fio starts. */
static int begin_all(na_bench *const *m, size_t n, size_t *begun, vs_error *err)
{
	int rc = VS_OK;
	for (*begun = 0; rc == VS_OK && *begun < n; (*begun)++) {
		if ((rc = na_bench_begin(m[*begun], err)) != VS_OK)
			break;
	}
	if (rc == VS_OK)
		read_links(m, n);
	for (size_t i = 0; rc == VS_OK && i < n; i++)
		na_bench_read_client(m[i]);
	return rc;
}

/* The jobs, from the first member (the profiles' name the folder
 * na_bench_begin chose for fio), a group's each writing fio's interval
 * logs for its window: every member's fio and staging folders are named
 * alike (the same --dir and the same nfsagent process). */
static int make_jobs(na_bench *const *m, size_t n, const na_bench_plan *plan, char **jobs,
                     vs_error *err)
{
	for (size_t i = 0; i < plan->n; i++) {
		char *job = plan->job ? strdup(plan->job) : na_bench_job(m[0], plan->profiles[i]);
		int rc = !job ? vs_fail(err, VS_ERR_NOMEM, "out of memory")
		         : n == 1 ? (jobs[i] = job, VS_OK)
		                  : na_group_job_logs(job, m[0]->staging, na_group_log_interval(job), &jobs[i], err);
		if (n > 1)
			free(job);
		if (rc != VS_OK)
			return rc;
	}
	for (size_t j = 0; j < plan->n; j++)
		for (size_t i = 0; i < n; i++)
			if (!m[i]->fio_libaio && na_job_uses_libaio(jobs[j]))
				return na_fio_no_libaio(m[i]->vm->name, err);
	return VS_OK;
}

int na_op_bench(na_bench *const *members, size_t n, const na_bench_plan *plan, na_bench_result *out,
                vs_error *err)
{
	*out = (na_bench_result){.members = n};
	char **jobs = calloc(plan->n + 1, sizeof(char *));
	out->runs = calloc(plan->n * (size_t)plan->repeat + 1, sizeof(*out->runs));
	if (!jobs || !out->runs) {
		free(jobs);
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	na_interrupts saved;
	na_interrupts_catch(&saved);
	size_t local = plan->baseline ? (plan->local ? plan->n_local : plan->n) : 0;
	size_t begun = 0, runs = plan->n * (size_t)plan->repeat + local;
	na_group_nas *gn = calloc(1, sizeof(*gn));
	for (size_t i = 0; i < n; i++)
		members[i]->nas_runs = runs;  /* the NAS samplings each may lead */
	/* A campaign's kept view first, its settings read again beside the
	 * guests' preparation; a view to read whole after it, whose errors
	 * (a guest refused) come before any NAS's. */
	bool kept = members[0]->nas_memo;
	if (gn && kept)
		na_group_nas_begin(members, n, gn);
	int rc = gn ? begin_all(members, n, &begun, err) : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	if (rc == VS_OK && !kept)
		na_group_nas_begin(members, n, gn);
	if (rc == VS_OK)
		rc = make_jobs(members, n, plan, jobs, err);
	if (rc == VS_OK)
		rc = run_all(members, n, gn, plan, jobs, out, err);
	if (rc == VS_OK && plan->baseline && n == 1 && !*members[0]->stop) {
		na_bench_nas_settle(members[0]);  /* a round of baselines alone */
		rc = na_bench_baseline(members[0], plan, out, err);
	}
	for (size_t i = 0; i < begun; i++)
		na_bench_end(members[i]);
	if (gn)
		na_group_nas_end(members, n);
	free(gn);
	na_interrupts_release(&saved);
	out->interrupted = *members[0]->stop;
	for (size_t i = 0; i < plan->n; i++)
		free(jobs[i]);
	free(jobs);
	return rc;
}

void na_bench_result_free(na_bench_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		for (size_t k = 0; k < r->members; k++) {
			na_bench_outcome_clear(&r->runs[i].m[k].o);
			na_fio_result_clear(&r->runs[i].m[k].window);
			free(r->runs[i].m[k].why);
		}
		na_group_figures_clear(&r->runs[i].fig);
		for (size_t k = 0; k < r->runs[i].n_pools; k++)
			nas_window_free(&r->runs[i].pools[k].w);
		free(r->runs[i].pools);
		free(r->runs[i].m);
	}
	for (size_t i = 0; i < r->n_local; i++)
		na_bench_outcome_clear(&r->local[i].o);
	free(r->runs);
	free(r->local);
	*r = (na_bench_result){0};
}
