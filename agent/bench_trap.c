/* The seeds' trap: a recordsize applies to blocks written after it is set,
 * so a disk written before a change still holds records of the old size
 * (the seeds moved the VM to a new dataset for this reason).  Before a
 * bench --nas, the disk's stay on this datastore is read from nfsagent's
 * own results (since the VM's last result elsewhere, the disk has been
 * here); a result of that stay from before the dataset's last recordsize
 * change (zpool history), or one that measured another recordsize, means
 * the disk was there when it changed. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench.h"

typedef struct stay {
	const na_bench *b;
	char set_at[32];      /* the last change, ISO-8601 UTC; "" unknown */
	char measured[24];    /* the dataset's recordsize now, in bytes */
	/* the evidence: the stay's first result before the change or of another recordsize */
	int64_t id;
	char started[32], recordsize[24];
	bool before_change;
} stay;

static int on_result(const na_result *r, void *ud, vs_error *err)
{
	(void)err;
	stay *s = ud;
	bool here = r->disk && strcmp(r->disk, s->b->disk) == 0 && r->datastore &&
	            strcmp(r->datastore, s->b->ds->name) == 0;
	if (!here) {
		s->id = 0;  /* the disk was elsewhere: it came back whole, written anew */
		return VS_OK;
	}
	if (s->id || !r->started_at)
		return VS_OK;
	/* ISO-8601 UTC times of one format compare as text */
	bool before = s->set_at[0] && strcmp(r->started_at, s->set_at) < 0;
	bool other = na_zfs_contradicts(NA_FIELD_zfs_recordsize, r->zfs_recordsize, s->measured);
	if (before || other) {
		s->id = r->id;
		s->before_change = before;
		snprintf(s->started, sizeof(s->started), "%s", r->started_at);
		snprintf(s->recordsize, sizeof(s->recordsize), "%s", r->zfs_recordsize ? r->zfs_recordsize : "");
	}
	return VS_OK;
}

void na_bench_recordsize_trap(const na_bench *b)
{
	stay s = {.b = b};
	const char *dataset = b->nas_view.dataset.name;
	snprintf(s.measured, sizeof(s.measured), "%lld", (long long)b->nas_view.props.recordsize);
	int64_t set = 0;
	vs_error err = {0};
	/* an unreadable history leaves the measured recordsizes as the only sign */
	if (nas_read_history(b->nas, dataset, "recordsize", &set, &err) == VS_OK && set > 0) {
		time_t t = (time_t)set;
		struct tm tm;
		strftime(s.set_at, sizeof(s.set_at), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	}
	char cond[600];
	snprintf(cond, sizeof(cond), "vm=%s", b->vm->name);
	const char *conds[] = {cond};
	if (na_store_query(b->store, conds, 1, on_result, &s, &err) != VS_OK || !s.id)
		return;
	char now[32];
	na_size(b->nas_view.props.recordsize, now, sizeof(now));
	if (s.before_change)
		na_warn("the recordsize of %s was last changed at %s (zpool history), after result %lld "
		        "ran on %s there (%s): the disk may still hold records of the old size, since a "
		        "recordsize applies to blocks written after it is set; for results of %s records, "
		        "move the VM to a dataset that had it before the disk arrived",
		        dataset, s.set_at, (long long)s.id, b->disk, s.started, now);
	else
		na_warn("result %lld measured recordsize %s on %s (%s) and %s has %s now: the disk may "
		        "still hold records of the old size, since a recordsize applies to blocks written "
		        "after it is set; for results of %s records, move the VM to a dataset that had it "
		        "before the disk arrived", (long long)s.id, s.recordsize, b->disk, s.started,
		        dataset, now, now);
}
