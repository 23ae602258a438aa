/* Before a bench's runs: the seeds' recordsize trap (analysis/trap.h) said
 * as a warning when the disk under test may still hold records of an older
 * recordsize. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/trap.h"
#include "ops/bench.h"

typedef struct bench_check {
	const na_bench *b;
	char set_at[32];  /* the dataset's last recordsize change, ISO-8601 UTC; "" unknown */
} bench_check;

static int check_now(const na_result *r, const na_trap *t, void *ud, vs_error *err)
{
	(void)err;
	const bench_check *c = ud;
	const na_bench *b = c->b;
	if (r->id)
		return VS_OK;  /* a recorded result: only the run to come is checked */
	char now[32];
	na_size(b->nas_view.props.recordsize, now, sizeof(now));
	const char *dataset = b->nas_view.dataset.name;
	/* The history says when (ISO-8601 UTC times of one format compare as
	 * text); without it, a recordsize measured before says that it changed. */
	if (t->first_id && c->set_at[0] && strcmp(t->first_started, c->set_at) < 0)
		na_say_warning(b->s, "the recordsize of %s was last changed at %s (zpool history), after "
		               "result %lld ran on %s there (%s): the disk may still hold records of the "
		               "old size, since a recordsize applies to blocks written after it is set; "
		               "for results of %s records, move the VM to a dataset that had it before "
		               "the disk arrived",
		               dataset, c->set_at, (long long)t->first_id, r->disk, t->first_started, now);
	else if (t->other_id)
		na_say_warning(b->s, "result %lld measured recordsize %s on %s (%s) and %s has %s now: "
		               "the disk may still hold records of the old size, since a recordsize "
		               "applies to blocks written after it is set; for results of %s records, "
		               "move the VM to a dataset that had it before the disk arrived",
		               (long long)t->other_id, t->other_recordsize, r->disk, t->other_started,
		               dataset, now, now);
	return VS_OK;
}

void na_bench_recordsize_trap(const na_bench *b)
{
	bench_check c = {.b = b};
	vs_error err = {0};
	/* an unreadable history leaves the measured recordsizes as the only sign */
	if (b->nas_view.history_read && b->nas_view.recordsize_set > 0) {
		time_t t = (time_t)b->nas_view.recordsize_set;
		struct tm tm;
		strftime(c.set_at, sizeof(c.set_at), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	}
	char measured[24], started[32];
	snprintf(measured, sizeof(measured), "%lld", (long long)b->nas_view.props.recordsize);
	time_t t = time(NULL);
	struct tm tm;
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	/* Every disk of the VM on the datastore: fio's file is on one of them. */
	na_result *now = calloc(b->n_disks, sizeof(*now));
	for (size_t i = 0; now && i < b->n_disks; i++)
		now[i] = (na_result){.disk = b->disks[i], .datastore = b->ds->name, .started_at = started,
		                     .zfs_recordsize = measured, .vcenter = vs_client_host(b->s->client)};
	if (now)
		na_trap_walk(b->s->store, b->vm->name, now, b->n_disks, check_now, &c, &err);
	free(now);
}
