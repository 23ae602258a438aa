/* The seeds' trap (trap.h): a disk's stay from nfsagent's own results, and
 * bench's warning before a run on a disk whose dataset changed its
 * recordsize under it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops/bench.h"
#include "compare.h"
#include "trap.h"

enum { MAX_SIZES = 8 };  /* distinct recordsizes a stay remembers */

typedef struct walk {
	na_trap_fn fn;
	void *ud;
	char disk[512], datastore[256];  /* the stay's; "" before the first result */
	int64_t first_id;
	char first_started[32];
	/* the first result of each recordsize the stay measured */
	struct {
		int64_t id;
		char started[32], recordsize[24];
	} seen[MAX_SIZES];
	size_t n_seen;
} walk;

static void copy(char *to, size_t size, const char *from)
{
	snprintf(to, size, "%s", from ? from : "");
}

static int step(const na_result *r, void *ud, vs_error *err)
{
	walk *w = ud;
	if (!r->disk || !r->datastore || strcmp(r->disk, w->disk) != 0 ||
	    strcmp(r->datastore, w->datastore) != 0) {
		copy(w->disk, sizeof(w->disk), r->disk);
		copy(w->datastore, sizeof(w->datastore), r->datastore);
		w->first_id = 0;
		w->n_seen = 0;
	}
	na_trap t = {.first_id = w->first_id};
	copy(t.first_started, sizeof(t.first_started), w->first_started);
	for (size_t i = 0; r->zfs_recordsize && !t.other_id && i < w->n_seen; i++)
		if (na_zfs_contradicts(NA_FIELD_zfs_recordsize, w->seen[i].recordsize, r->zfs_recordsize)) {
			t.other_id = w->seen[i].id;
			copy(t.other_started, sizeof(t.other_started), w->seen[i].started);
			copy(t.other_recordsize, sizeof(t.other_recordsize), w->seen[i].recordsize);
		}
	int rc = w->fn(r, &t, w->ud, err);
	if (!w->first_id) {
		w->first_id = r->id;
		copy(w->first_started, sizeof(w->first_started), r->started_at);
	}
	bool known = !r->zfs_recordsize;
	for (size_t i = 0; !known && i < w->n_seen; i++)
		known = !na_zfs_contradicts(NA_FIELD_zfs_recordsize, w->seen[i].recordsize,
		                            r->zfs_recordsize);
	if (!known && w->n_seen < MAX_SIZES) {
		w->seen[w->n_seen].id = r->id;
		copy(w->seen[w->n_seen].started, sizeof(w->seen[0].started), r->started_at);
		copy(w->seen[w->n_seen].recordsize, sizeof(w->seen[0].recordsize), r->zfs_recordsize);
		w->n_seen++;
	}
	return rc;
}

int na_trap_walk(na_store *s, const char *vm, const na_result *now, na_trap_fn fn, void *ud,
                 vs_error *err)
{
	walk w = {.fn = fn, .ud = ud};
	char cond[600];
	snprintf(cond, sizeof(cond), "vm=%s", vm);
	const char *conds[] = {cond};
	int rc = na_store_query(s, conds, 1, step, &w, err);
	return rc == VS_OK && now ? step(now, &w, err) : rc;
}

/* ---- compare: the groups' runs ---- */

typedef struct trapped {
	char *text;   /* the sentence but its count: "DISK\told\tid\tnew" while collecting */
	size_t runs;
} trapped;

typedef struct group_check {
	const struct na_cmp_group *g;
	trapped *v;
	size_t n;
} group_check;

static int check_row(const na_result *r, const na_trap *t, void *ud, vs_error *err)
{
	group_check *c = ud;
	if (!t->other_id || !na_cmp_group_has(c->g, r->id))
		return VS_OK;
	char key[1024];
	snprintf(key, sizeof(key), "%s\t%s\t%lld\t%s", r->disk, t->other_recordsize,
	         (long long)t->other_id, r->zfs_recordsize);
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i].text, key) == 0)
			return c->v[i].runs++, VS_OK;
	trapped *grown = realloc(c->v, (c->n + 1) * sizeof(*grown));
	char *text = grown ? strdup(key) : NULL;
	if (grown)
		c->v = grown;
	if (!text)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	c->v[c->n++] = (trapped){text, 1};
	return VS_OK;
}

int na_trap_sentences(na_store *s, const na_cmp_group *g, const char *name, char ***out,
                      size_t *n, vs_error *err)
{
	*out = NULL;
	*n = 0;
	group_check c = {.g = g};
	int rc = VS_OK;
	/* each VM's results once */
	for (size_t i = 0; rc == VS_OK && i < g->n; i++) {
		const char *vm = g->rows[i].field[NA_FIELD_vm];
		bool seen = !vm;
		for (size_t j = 0; !seen && j < i; j++)
			seen = g->rows[j].field[NA_FIELD_vm] && strcmp(g->rows[j].field[NA_FIELD_vm], vm) == 0;
		if (!seen)
			rc = na_trap_walk(s, vm, NULL, check_row, &c, err);
	}
	*out = rc == VS_OK ? calloc(c.n + 1, sizeof(char *)) : NULL;
	if (rc == VS_OK && !*out)
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < c.n; i++) {
		char *disk = c.v[i].text, *old = strchr(disk, '\t'), *id = strchr(old + 1, '\t'),
		     *now = strchr(id + 1, '\t');
		*old++ = *id++ = *now++ = '\0';
		char *text = NULL;
		size_t size = 0;
		FILE *m = rc == VS_OK ? open_memstream(&text, &size) : NULL;
		if (m) {
			fprintf(m, "%zu run%s of %s measured recordsize %s on %s after result %s measured %s "
			        "there: the disk may still hold %s records, since a recordsize applies to "
			        "blocks written after it is set", c.v[i].runs, c.v[i].runs == 1 ? "" : "s",
			        name, now, disk, id, old, old);
			fclose(m);
		}
		if (rc == VS_OK && text)
			(*out)[(*n)++] = text;
		else if (rc == VS_OK)
			rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
		free(c.v[i].text);
	}
	free(c.v);
	if (rc != VS_OK) {
		for (size_t i = 0; i < *n; i++)
			free((*out)[i]);
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

/* ---- bench: before the runs ---- */

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
	/* ISO-8601 UTC times of one format compare as text */
	if (t->other_id)
		na_say_warning(b->s, "result %lld measured recordsize %s on %s (%s) and %s has %s now: "
		               "the disk may still hold records of the old size, since a recordsize "
		               "applies to blocks written after it is set; for results of %s records, "
		               "move the VM to a dataset that had it before the disk arrived",
		               (long long)t->other_id, t->other_recordsize, b->disk, t->other_started,
		               dataset, now, now);
	else if (t->first_id && c->set_at[0] && strcmp(t->first_started, c->set_at) < 0)
		na_say_warning(b->s, "the recordsize of %s was last changed at %s (zpool history), after "
		               "result %lld ran on %s there (%s): the disk may still hold records of the "
		               "old size, since a recordsize applies to blocks written after it is set; "
		               "for results of %s records, move the VM to a dataset that had it before "
		               "the disk arrived",
		               dataset, c->set_at, (long long)t->first_id, b->disk, t->first_started, now);
	return VS_OK;
}

void na_bench_recordsize_trap(const na_bench *b)
{
	bench_check c = {.b = b};
	int64_t set = 0;
	vs_error err = {0};
	/* an unreadable history leaves the measured recordsizes as the only sign */
	if (nas_read_history(b->nas, b->nas_view.dataset.name, "recordsize", &set, &err) == VS_OK &&
	    set > 0) {
		time_t t = (time_t)set;
		struct tm tm;
		strftime(c.set_at, sizeof(c.set_at), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	}
	char measured[24], started[32];
	snprintf(measured, sizeof(measured), "%lld", (long long)b->nas_view.props.recordsize);
	time_t t = time(NULL);
	struct tm tm;
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	na_result now = {.disk = b->disk, .datastore = b->ds->name, .started_at = started,
	                 .zfs_recordsize = measured};
	na_trap_walk(b->s->store, b->vm->name, &now, check_now, &c, &err);
}
