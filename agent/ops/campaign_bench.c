/* A campaign's round on one target: each profile's repetition not yet
 * journaled, run by the bench op in the one VM (vm =) or in every VM of
 * the group at once (vms =), each journaled in its result's transaction (a
 * group's: its group's); in the last round, then the target's NAS-local
 * baselines not yet journaled (campaign_baseline.c).  Reconcile, never
 * replay: a kill anywhere leaves a run and its step both or neither, and a
 * resume runs what is missing. */
#include <stdlib.h>
#include <string.h>

#include "ops/campaign_run.h"
#include "ops/group_lines.h"
#include "interrupts.h"

/* A round's runs: the campaign, its target and repetition. */
typedef struct bench_round {
	na_run *r;
	const na_target *t;
} bench_round;

/* Repetition 0: the profile's NAS-local baseline. */
static void journal_step(void *ud, const na_profile *p, int repetition, char *buf, size_t size)
{
	const bench_round *g = ud;
	if (repetition)
		na_run_result_step(g->r, buf, size, g->t, repetition, p->name);
	else
		na_run_baseline_step(buf, size, g->t, p->name);
}

static void say_local(void *ud, const na_bench *b, const na_profile *p, const na_bench_run_entry *e)
{
	(void)b;
	const bench_round *g = ud;
	na_say(g->r->say, "  %s on the NAS of %s: %s (result %lld)", p->name, g->t->name,
	       e->o.ok ? "ok" : "FAILED", (long long)e->o.row);
}

static void not_local(void *ud, const na_profile *p, const vs_error *why)
{
	const bench_round *g = ud;
	na_run_baseline_not_run(g->r, g->t, p, why);
}

static void say_group(const na_session *say, na_bench *const *m, size_t n,
                      const na_bench_group_run *g)
{
	for (size_t i = 0; i < n; i++)
		if (g->m[i].why)
			na_say(say, "    %s: %s", m[i]->vm->name, g->m[i].why);
	for (size_t k = 0; k < g->n_pools; k++) {
		char line[121];
		na_group_pool_line("    ", &g->pools[k], line, sizeof(line));
		na_say(say, "%s", line);
	}
}

/* Each run as it ends, after its commit. */
static void say_run(void *ud, na_bench *const *m, size_t n, const na_profile *p,
                    const na_bench_group_run *g)
{
	const bench_round *round = ud;
	const na_session *say = round->r->say;
	const char *target = round->t->name;
	if (!round->r->n_vms) {
		const na_bench_outcome *o = &g->m[0].o;
		na_say(say, "  %s #%d on %s: %s (result %lld)", p->name, g->repetition, target,
		       o->ok ? "ok" : "FAILED", (long long)o->row);
		return;
	}
	na_say(say, "  %s #%d on %s: group of %zu %s (group %lld)", p->name, g->repetition, target, n,
	       g->incomplete ? "INCOMPLETE" : "ok", (long long)g->group_id);
	say_group(say, m, n, g);
}

/* The host's link to the target's server, recorded with each result: read
 * once a run for each host and server, as read (a target's datastore may
 * have another server); a failed read is tried again next round.  The op
 * reads a group's links in one call each round. */
static void read_link(na_run *r, na_bench *b)
{
	char server[256];
	na_bench_server(b, server, sizeof(server));
	b->link_read = true;
	na_run_link *l = &r->links[0];
	while (l < r->links + r->n_links && (strcmp(l->host, b->host->moref) || strcmp(l->server, server)))
		l++;
	if (l == r->links + r->n_links) {
		if (na_bench_read_link(b) != VS_OK || r->n_links == NA_MAX_TARGETS)
			return;
		snprintf(l->host, sizeof(l->host), "%s", b->host->moref);
		snprintf(l->server, sizeof(l->server), "%s", server);
		l->link = b->link;
		r->n_links++;
	}
	b->link = l->link;
}

/* The profiles of t's repetition rep not journaled yet. */
static size_t todo_of(na_run *r, const na_target *t, long rep, const na_profile **todo)
{
	size_t n = 0;
	for (size_t i = 0; i < r->c->n_profiles && n < NA_MAX_CAMPAIGN_PROFILES; i++) {
		char step[256];
		na_run_result_step(r, step, sizeof(step), t, rep, r->c->profiles[i]);
		if (!na_run_done(r, step, NULL))
			todo[n++] = na_profile_find(r->c->profiles[i]);
	}
	return n;
}

/* The round's members, each with its disks on ds (*made of them, to free). */
static int members_of(na_run *r, na_session *s, const na_target *t, const vs_datastore *ds,
                      const nas_target *nas, na_bench *m, size_t *made, vs_error *err)
{
	for (*made = 0; *made < na_run_vm_count(r); (*made)++) {
		vs_vm *vm = na_run_vm_at(r, *made);
		if (!vm)
			return vs_fail(err, VS_ERR_TASK, "the VM %s disappeared", na_run_vm_name_at(r, *made));
		m[*made] = na_run_bench_in(r, s, vm);
		na_bench *b = &m[*made];
		b->ds = ds;
		b->campaign = r->id;
		b->target = t->name;
		b->nas = nas;
		/* the members share the first's view of the one datastore: kept by it */
		b->nas_memo = *made ? NULL : &r->nas_memo[t - r->c->targets];
		int rc = na_bench_disks(b, err);
		if (rc != VS_OK)
			return rc;
		if (!r->n_vms && b->host)
			read_link(r, b);
	}
	return VS_OK;
}

/* Runs todo in every member, then local's baselines; the time its NAS
 * readings took is the NAS's. */
static int run_todo(na_run *r, na_bench **mp, size_t n, const na_target *t, long rep,
                    const na_profile **todo, size_t n_todo, const na_profile **local,
                    size_t n_local, vs_error *err)
{
	bench_round g = {r, t};
	na_bench_plan plan = {.profiles = todo, .n = n_todo, .repeat = 1, .repetition_base = rep - 1,
	                      .baseline = n_local > 0, .local = local, .n_local = n_local,
	                      .on_run = say_run, .on_local = say_local, .not_local = not_local,
	                      .step_of = journal_step, .ud = &g};
	na_bench_result res = {0};
	double t0 = na_run_clock();
	int rc = na_op_bench(mp, n, &plan, &res, err);
	double nas_s = 0;  /* each pool's NAS read before the runs */
	for (size_t i = 0; i < n; i++)
		nas_s += mp[i]->nas_read_s;
	r->t_nas += nas_s;
	r->t_bench += na_run_clock() - t0 - nas_s;
	na_bench_result_free(&res);
	return rc;
}

int na_run_bench_round(na_run *r, na_target *t, long rep)
{
	const na_profile *todo[NA_MAX_CAMPAIGN_PROFILES], *local[NA_MAX_CAMPAIGN_PROFILES];
	size_t n_todo = todo_of(r, t, rep, todo);
	/* After the target's last runs in the guest, the pool on its own. */
	bool last = rep == r->c->repeat;
	if (!n_todo && !(last && na_run_baselines_left(r, t, NULL)))
		return VS_OK;
	na_label labels[2 * NA_MAX_LABELS];
	size_t n_labels = na_run_labels(r, t, labels);
	vs_error err = {0};
	vs_datastore *ds = na_find_datastore(&r->inv, t->datastore, &err);
	if (!ds)
		return na_run_fail(r, &err);
	na_session s = na_run_session(r);
	na_bench m[NA_MAX_CAMPAIGN_VMS];
	na_bench *mp[NA_MAX_CAMPAIGN_VMS];
	size_t made = 0, n = na_run_vm_count(r);
	nas_target nas = {0};
	const nas_target *reached = na_run_nas_target(t, &nas);
	double t0 = na_run_clock();
	int rc = members_of(r, &s, t, ds, reached, m, &made, &err);
	for (size_t i = 0; i < made; i++) {
		m[i].labels = labels;
		m[i].n_labels = n_labels;
		mp[i] = &m[i];
	}
	r->t_bench += na_run_clock() - t0;
	size_t n_local = rc == VS_OK && last ? na_run_baselines_start(r, t, ds, local) : 0;
	if (rc == VS_OK && (n_todo || n_local) && !na_stop_requested)
		rc = run_todo(r, mp, n, t, rep, todo, n_todo, local, n_local, &err);
	if (made == n) {  /* what the round learned and kept, for the next */
		r->took = m[0].took;
		if (!r->n_vms)
			na_run_bench_done(r, &m[0]);
	}
	for (size_t i = 0; i < made; i++)
		na_bench_disks_free(&m[i]);
	nas_target_free(&nas);
	/* Stopped by Ctrl-C: the stop is what is said. */
	return rc == VS_OK || na_stop_requested ? rc : na_run_fail(r, &err);
}

void na_run_read_ahead(na_run *r)
{
	size_t n = r->c->n_targets;
	for (size_t i = 0; i < n; i++) {
		const na_target *t = &r->c->targets[i];
		bool wanted = na_run_has_work(r, t) && !r->nas_memo[i].held;
		r->ahead_of[i] = wanted ? na_run_nas_target(t, &r->ahead_nas[i]) : NULL;
		r->ahead_path[i] = t->path;
	}
	na_read_ahead_start(r->ahead_of, r->ahead_path, r->nas_memo, n, &na_stop_requested, &r->ahead);
}
