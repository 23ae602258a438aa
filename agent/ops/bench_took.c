/* When a wait first looks at a run's fio: each look is a vCenter call, so
 * the first comes when fio is likely over, learned from the runs before
 * (bench_internal.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/bench_internal.h"

/* How much sooner a run's first look comes after the last one's found fio ended. */
#define SOONER_S 0.25

/* p's entry on b's datastore in b->took, or its count if none. */
static size_t took_index(const na_bench *b, const na_profile *p)
{
	const char *ds = b->ds ? b->ds->name : "";
	size_t i = 0;
	while (i < b->took.n &&
	       (strcmp(b->took.v[i].profile, p->name) != 0 || strcmp(b->took.v[i].datastore, ds) != 0))
		i++;
	return i;
}

/* The least a run of a job with a runtime took beyond its job's time, on
 * datastore ds (NULL: on any); INFINITY when none ran. */
static double least_beyond(const na_bench_took *took, const char *ds)
{
	double beyond = INFINITY;
	for (size_t k = 0; k < took->n; k++)
		if (took->v[k].job_s > 0 && (!ds || strcmp(took->v[k].datastore, ds) == 0))
			beyond = fmin(beyond, took->v[k].s - took->v[k].job_s);
	return beyond;
}

/* Without p's own, its first run on a datastore is looked at after its
 * job's time plus the least that another profile's run there took beyond
 * its job's (fio's start, its file's layout: alike for one --size on one
 * datastore), or before any ran there, on another datastore (the same
 * guest starts fio): not a second look for every profile and datastore.
 * A job without a runtime teaches nothing of that. */
double na_bench_expected_s(const na_bench *b, const na_profile *p, const char *job_text)
{
	double job_s = (double)na_job_seconds(job_text, 0);
	size_t i = took_index(b, p);
	if (i < b->took.n)
		return fmax(job_s, b->took.v[i].s);
	double beyond = least_beyond(&b->took, b->ds ? b->ds->name : "");
	if (!isfinite(beyond))
		beyond = least_beyond(&b->took, NULL);
	return job_s + (isfinite(beyond) && job_s > 0 ? fmax(beyond, 0) : 0);
}

void na_bench_learn(na_bench *b, const na_profile *p, const char *job_text,
                    const na_bench_started *st, double looked_at_s, int end_looks)
{
	size_t i = took_index(b, p);
	if (st->took_s <= 0 || i == NA_BENCH_TOOK)
		return;  /* not seen; or so many: the later ones are looked at as first runs */
	/* Ended by the first look: it may have ended well before it, and the
	 * next looks a step sooner, so one slow run is not every later one's;
	 * but not back into the step where a first look found it running (a
	 * look each run, not two every other run), nor after a first run
	 * looked at when others ended. */
	bool known = i < b->took.n;
	double running = known ? b->took.v[i].running_s : 0;
	double s = st->took_s;
	if (end_looks == 1)
		s = known && looked_at_s - SOONER_S >= running + SOONER_S ? looked_at_s - SOONER_S
		                                                          : looked_at_s;
	else if (end_looks > 1)
		running = looked_at_s;
	b->took.n += !known;
	snprintf(b->took.v[i].profile, sizeof(b->took.v[i].profile), "%s", p->name);
	snprintf(b->took.v[i].datastore, sizeof(b->took.v[i].datastore), "%s",
	         b->ds ? b->ds->name : "");
	b->took.v[i].s = s;
	b->took.v[i].running_s = running;
	b->took.v[i].job_s = (double)na_job_seconds(job_text, 0);
}
