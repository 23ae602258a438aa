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

/* Without p's own, its first run on a datastore is looked at after its
 * job's time plus the least that another profile's run there took beyond
 * its job's (fio's start, its file's layout: alike for one --size on one
 * datastore): not a second look for every profile.  A job without a
 * runtime teaches nothing of that. */
double na_bench_expected_s(const na_bench *b, const na_profile *p, const char *job_text)
{
	double job_s = (double)na_job_seconds(job_text, 0);
	size_t i = took_index(b, p);
	if (i < b->took.n)
		return fmax(job_s, b->took.v[i].s);
	const char *ds = b->ds ? b->ds->name : "";
	double beyond = INFINITY;
	for (size_t k = 0; k < b->took.n; k++)
		if (b->took.v[k].job_s > 0 && strcmp(b->took.v[k].datastore, ds) == 0)
			beyond = fmin(beyond, b->took.v[k].s - b->took.v[k].job_s);
	return job_s + (isfinite(beyond) && job_s > 0 ? fmax(beyond, 0) : 0);
}

void na_bench_learn(na_bench *b, const na_profile *p, const char *job_text,
                    const na_bench_started *st, double looked_at_s, int end_looks)
{
	size_t i = took_index(b, p);
	if (st->took_s <= 0 || i == NA_BENCH_TOOK)
		return;  /* not seen; or so many: the later ones are looked at as first runs */
	/* Ended by the first look: it may have ended well before it, and the
	 * next looks a step sooner; so one slow run is not every later one's. */
	double s = end_looks == 1 ? looked_at_s - SOONER_S : st->took_s;
	b->took.n += i == b->took.n;
	snprintf(b->took.v[i].profile, sizeof(b->took.v[i].profile), "%s", p->name);
	snprintf(b->took.v[i].datastore, sizeof(b->took.v[i].datastore), "%s",
	         b->ds ? b->ds->name : "");
	b->took.v[i].s = s;
	b->took.v[i].job_s = (double)na_job_seconds(job_text, 0);
}
