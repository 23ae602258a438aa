/* A campaign's NAS-local baselines (baseline = nas; ops/baseline.h): each
 * profile once per campaign on the NAS of each such target, run by the
 * bench op after the guest's runs of the target's last round
 * (campaign_bench.c), while its datastore and a dataset the campaign made
 * are still there.  Each is journaled as "baseline:TARGET:PROFILE" in its
 * result's transaction, or with why it could not run (a resume does not
 * move the VM back for it); "baselining:TARGET" (the export), journaled
 * before the first, has a resume or an abort end the fio a kill left
 * running on the NAS, and remove its file, before anything else runs there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/campaign_run.h"
#include "ops/baseline.h"

void na_run_baseline_step(char *step, size_t size, const na_target *t, const char *profile)
{
	snprintf(step, size, "baseline:%s:%s", t->name, profile);
}

static void started_step(char *step, size_t size, const na_target *t)
{
	snprintf(step, size, "baselining:%s", t->name);
}

size_t na_run_baselines_left(na_run *r, const na_target *t, const na_profile **left)
{
	size_t n = 0;
	for (size_t i = 0; t->baseline > 0 && i < r->c->n_profiles; i++) {
		const na_profile *p = na_profile_find(r->c->profiles[i]);
		char step[256];
		na_run_baseline_step(step, sizeof(step), t, p->name);
		if (!na_bench_baseline_twin(p) || na_run_done(r, step, NULL))
			continue;
		if (left)
			left[n] = p;
		n++;
	}
	return n;
}

/* What a killed baseline of t left on its NAS, in the dataset behind export. */
static void end_killed(na_run *r, const na_target *t, const char *export)
{
	nas_target nas = {0};
	const nas_target *n = na_run_nas_target(t, &nas);
	bool ended = false;
	vs_error err = {0};
	if (n && na_bench_baseline_end(n, export, &ended, &err) != VS_OK)
		na_say_warning(r->say, "target %s: a killed baseline's fio or file may be left on NAS %s: %s",
		               t->name, n->display, err.message);
	else if (ended)
		na_say(r->say, "Target %s: ended the fio a killed baseline left running on NAS %s.", t->name,
		       n->display);
	nas_target_free(&nas);
}

void na_run_baselines_sweep(na_run *r)
{
	for (size_t i = 0; i < r->c->n_targets; i++) {
		const na_target *t = &r->c->targets[i];
		char step[160], *export = NULL;
		started_step(step, sizeof(step), t);
		if (t->baseline && na_run_done(r, step, &export) && na_run_baselines_left(r, t, NULL))
			end_killed(r, t, export ? export : "");
		free(export);
	}
}

/* A baseline that could not run is journaled with why: the next run of the
 * campaign does not come back for it. */
static void not_run(na_run *r, const na_target *t, const na_profile *p, const vs_error *why)
{
	char step[256], detail[sizeof(why->message) + 16];
	na_run_baseline_step(step, sizeof(step), t, p->name);
	snprintf(detail, sizeof(detail), "not run: %s", why->message);
	na_run_mark(r, step, detail);  /* failed: the run's error, said at its end */
}

void na_run_baseline_not_run(na_run *r, const na_target *t, const na_profile *p, const vs_error *why)
{
	const na_profile *left[NA_MAX_CAMPAIGN_PROFILES];
	size_t n = p ? 0 : na_run_baselines_left(r, t, left);
	if (p)
		not_run(r, t, p, why);
	else  /* none can: fio missing there is said once for every target on that NAS */
		r->no_fio[t - r->c->targets] = why->status == VS_ERR_NOT_FOUND;
	for (size_t i = 0; i < n; i++)
		not_run(r, t, left[i], why);
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* An earlier target on t's NAS found no fio there. */
static bool fio_missing_before(const na_run *r, const na_target *t)
{
	for (const na_target *k = r->c->targets; k < t; k++)
		if (r->no_fio[k - r->c->targets] && same_text(k->nas, t->nas) &&
		    same_text(k->nas_command, t->nas_command))
			return true;
	return false;
}

size_t na_run_baselines_start(na_run *r, const na_target *t, const vs_datastore *ds,
                              const na_profile **left)
{
	char started[160];
	started_step(started, sizeof(started), t);
	size_t n = na_run_baselines_left(r, t, left);
	if (n && fio_missing_before(r, t)) {
		vs_error why = {0};
		vs_fail(&why, VS_ERR_NOT_FOUND, "fio is not installed on NAS %s", t->nas ? t->nas : t->nas_command);
		na_run_baseline_not_run(r, t, NULL, &why);
		return 0;
	}
	bool marked = !n || na_run_done(r, started, NULL) ||
	              na_run_mark(r, started, ds->remote_path ? ds->remote_path : "") == VS_OK;
	return marked ? n : 0;
}
