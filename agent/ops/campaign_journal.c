/* A campaign run's errors (the first kept for main.c, later ones said as
 * warnings), its journal of finished steps, and its claim on the run: the
 * bookkeeping every step of campaign*.c goes through. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops/campaign_run.h"
#include "interrupts.h"

/* ISO-8601 UTC; compact for run names ("20261130T101500"). */
void na_run_now(char *buf, size_t size, bool compact)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, size, compact ? "%Y%m%dT%H%M%S" : "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- errors ------------------------------------------------------------------ */

int na_run_fail(na_run *r, const vs_error *err)
{
	vs_status status = err->status != VS_OK ? err->status : VS_ERR_TASK;
	if (r->err.status == VS_OK) {
		r->err = *err;
		r->err.status = status;
	} else {
		na_say_warning_error(r->say, err);  /* a cleanup after the failure failed too: the first error stays */
	}
	return status;
}

int na_run_failf(na_run *r, vs_status status, const char *fmt, ...)
{
	vs_error err = {.status = status};
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err.message, sizeof(err.message), fmt, ap);
	va_end(ap);
	return na_run_fail(r, &err);
}

/* ---- journal ---------------------------------------------------------------- */

/* Whether step is journaled.  A journal that cannot be read (locked by
 * another nfsagent, say) is no answer: the error is reported once, the run
 * stops at its next safe point as after Ctrl-C (resumable), the step counts
 * as done so that nothing is done on a guess, and nothing more is journaled. */
bool na_run_done(na_run *r, const char *step, char **detail)
{
	bool yes = false;
	vs_error err = {0};
	if (na_store_step_is_done(r->store, r->id, step, &yes, detail, &err) == VS_OK)
		return yes;
	if (!r->journal_failed)
		r->journal_failed = na_run_fail(r, &err);
	na_stop_requested = 1;
	return true;
}

int na_run_mark(na_run *r, const char *step, const char *detail)
{
	char at[32];
	vs_error err = {0};
	if (r->journal_failed)
		return r->journal_failed;
	na_run_now(at, sizeof(at), false);
	return na_store_step_done(r->store, r->id, step, detail, at, &err) == VS_OK ? VS_OK
	                                                                           : na_run_fail(r, &err);
}

void na_run_set_state(na_run *r, const char *state)
{
	char at[32];
	vs_error err = {0};
	na_run_now(at, sizeof(at), false);
	if (na_store_run_state(r->store, r->id, state, at, &err) != VS_OK)
		na_say_warning_error(r->say, &err);  /* the results and steps are kept: only the state's label is not */
}

/* ---- the claim ------------------------------------------------------------------ */

/* A run a live process holds is the state things are in, not bad input. */
static int held(na_run *r, vs_error *err)
{
	if (err->status == VS_ERR_USAGE)
		err->status = VS_ERR_TASK;
	return na_run_fail(r, err);
}

int na_run_claim(na_run *r)
{
	vs_error err = {0};
	char at[32];
	na_run_now(at, sizeof(at), false);
	char *prev = NULL;
	if (na_store_run_unfinished(r->store, r->c->name, &prev, &err) != VS_OK)
		return na_run_fail(r, &err);
	bool resume = r->o->resume || r->o->abort;
	int rc = VS_OK;
	if (prev && !resume && na_store_run_claim(r->store, prev, r->c->name, r->c->file, at, true,
	                                          &err) != VS_OK)
		rc = held(r, &err);  /* it is running right now */
	else if (prev && !resume)
		rc = na_run_failf(r, VS_ERR_TASK,
		                  "campaign %s has an unfinished run (%s): continue it with --resume or "
		                  "undo it with --abort", r->c->name, prev);
	else if (!prev && resume)
		rc = na_run_failf(r, VS_ERR_TASK, "campaign %s has no unfinished run to %s", r->c->name,
		                  r->o->abort ? "abort" : "resume");
	if (rc == VS_OK && prev)
		snprintf(r->id, sizeof(r->id), "%s", prev);
	if (rc == VS_OK &&
	    na_store_run_claim(r->store, r->id, r->c->name, r->c->file, at, resume, &err) != VS_OK)
		rc = held(r, &err);
	free(prev);
	return rc;
}

/* What an earlier run of this campaign learned about its targets. */
void na_run_recall(na_run *r)
{
	for (size_t i = 0; i < r->c->n_targets; i++) {
		char step[160];
		snprintf(step, sizeof(step), "nfs3:%s", r->c->targets[i].name);
		r->nfs3[i] = na_run_done(r, step, NULL);
		snprintf(step, sizeof(step), "broken:%s", r->c->targets[i].name);
		r->broken[i] = na_run_done(r, step, NULL);
	}
}
