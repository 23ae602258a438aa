/* The seeds' trap (trap.h): a disk's stay from nfsagent's own results, and
 * bench's warning before a run on a disk whose dataset changed its
 * recordsize under it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "output.h"
#include "analysis/compare.h"
#include "analysis/trap.h"

enum { MAX_SIZES = 8 };  /* distinct recordsizes a stay remembers */

/* One disk's stay on a datastore, the disk known by its VM's vCenter and its
 * label (the device, "disk-1000-0"), the stay by the rest ("[ds]
 * dir/x.vmdk") and the datastore. */
typedef struct stay {
	char vcenter[256];
	bool no_vcenter;  /* results that name none */
	char disk[512], datastore[256];
	int64_t first_id;
	char first_started[32];
	/* the first result of each recordsize the stay measured */
	struct {
		int64_t id;
		char started[32], recordsize[24];
	} seen[MAX_SIZES];
	size_t n_seen;
} stay;

typedef struct walk {
	na_trap_fn fn;
	void *ud;
	stay *stays;  /* one per vCenter and disk of the VM its results named */
	size_t n;
} walk;

static void copy(char *to, size_t size, const char *from)
{
	snprintf(to, size, "%s", from ? from : "");
}

/* The stay of r's disk: the one of its label, begun anew when the disk is
 * elsewhere now (moved: written anew); NULL when out of memory. */
static stay *stay_of(walk *w, const na_result *r)
{
	size_t label = strcspn(r->disk, "[");
	stay *st = NULL;
	for (size_t i = 0; !st && i < w->n; i++)
		if (strncmp(w->stays[i].disk, r->disk, label) == 0 &&
		    w->stays[i].disk[label] == r->disk[label] && w->stays[i].no_vcenter == !r->vcenter &&
		    (!r->vcenter || strcmp(w->stays[i].vcenter, r->vcenter) == 0))
			st = &w->stays[i];
	if (!st) {
		stay *grown = realloc(w->stays, (w->n + 1) * sizeof(*grown));
		if (!grown)
			return NULL;
		w->stays = grown;
		st = &w->stays[w->n++];
		st->disk[0] = '\0';
	}
	if (strcmp(st->disk, r->disk) != 0 || strcmp(st->datastore, r->datastore) != 0) {
		*st = (stay){.no_vcenter = !r->vcenter};
		copy(st->vcenter, sizeof(st->vcenter), r->vcenter);
		copy(st->disk, sizeof(st->disk), r->disk);
		copy(st->datastore, sizeof(st->datastore), r->datastore);
	}
	return st;
}

static int step(const na_result *r, void *ud, vs_error *err)
{
	walk *w = ud;
	na_trap t = {0};
	stay *st = r->disk && r->datastore ? stay_of(w, r) : NULL;
	if (r->disk && r->datastore && !st)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	if (!st)
		return w->fn(r, &t, w->ud, err);
	t.first_id = st->first_id;
	copy(t.first_started, sizeof(t.first_started), st->first_started);
	for (size_t i = 0; r->zfs_recordsize && !t.other_id && i < st->n_seen; i++)
		if (na_zfs_contradicts(NA_FIELD_zfs_recordsize, st->seen[i].recordsize, r->zfs_recordsize)) {
			t.other_id = st->seen[i].id;
			copy(t.other_started, sizeof(t.other_started), st->seen[i].started);
			copy(t.other_recordsize, sizeof(t.other_recordsize), st->seen[i].recordsize);
		}
	int rc = w->fn(r, &t, w->ud, err);
	if (!st->first_id) {
		st->first_id = r->id;
		copy(st->first_started, sizeof(st->first_started), r->started_at);
	}
	bool known = !r->zfs_recordsize;
	for (size_t i = 0; !known && i < st->n_seen; i++)
		known = !na_zfs_contradicts(NA_FIELD_zfs_recordsize, st->seen[i].recordsize,
		                            r->zfs_recordsize);
	if (!known && st->n_seen < MAX_SIZES) {
		st->seen[st->n_seen].id = r->id;
		copy(st->seen[st->n_seen].started, sizeof(st->seen[0].started), r->started_at);
		copy(st->seen[st->n_seen].recordsize, sizeof(st->seen[0].recordsize), r->zfs_recordsize);
		st->n_seen++;
	}
	return rc;
}

int na_trap_walk(na_store *s, const char *vm, const na_result *now, size_t n_now, na_trap_fn fn,
                 void *ud, vs_error *err)
{
	walk w = {.fn = fn, .ud = ud};
	char cond[600];
	snprintf(cond, sizeof(cond), "vm=%s", vm);
	const char *conds[] = {cond};
	int rc = na_store_query(s, conds, 1, step, &w, err);
	for (size_t i = 0; rc == VS_OK && i < n_now; i++)
		rc = step(&now[i], &w, err);
	free(w.stays);
	return rc;
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
	/* each VM name's results once (the walk tells their vCenters apart) */
	for (size_t i = 0; rc == VS_OK && i < g->n; i++) {
		const char *vm = g->rows[i].field[NA_FIELD_vm];
		bool seen = !vm;
		for (size_t j = 0; !seen && j < i; j++)
			seen = g->rows[j].field[NA_FIELD_vm] && strcmp(g->rows[j].field[NA_FIELD_vm], vm) == 0;
		if (!seen)
			rc = na_trap_walk(s, vm, NULL, 0, check_row, &c, err);
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
			        "blocks written after it is set", c.v[i].runs, na_s(c.v[i].runs),
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
