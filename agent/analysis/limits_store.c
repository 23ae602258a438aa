/* A stored result's verdict (limits.h): its NAS row, its reads' bins and
 * the NAS-local baselines of its export, read from the store. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/limits.h"
#include "analysis/nas_line.h"
#include "profiles.h"

/* A NAS row's figures, kept past the callback (its strings are not, but
 * why, which is copied). */
typedef struct kept_nas {
	bool found;
	na_nas_run n;
	char why[256];
} kept_nas;

static int keep_nas(const na_nas_run *n, void *ud, vs_error *err)
{
	(void)err;
	kept_nas *k = ud;
	k->n = *n;
	snprintf(k->why, sizeof(k->why), "%s", n->why ? n->why : "");
	k->n.why = n->why ? k->why : NULL;
	k->n.dataset = k->n.pool_layout = k->n.sync = k->n.compression = k->n.atime = NULL;
	k->n.logbias = k->n.primarycache = k->n.pool_health = k->n.timeline = NULL;
	return VS_OK;
}

static int nas_of(na_store *s, int64_t id, kept_nas *k, vs_error *err)
{
	*k = (kept_nas){0};
	return na_store_nas_of(s, id, keep_nas, k, &k->found, err);
}

/* The NAS-local results of a store, read once before any verdict: a
 * query is not run inside another's (a central database reads a result
 * listing through one cursor). */
typedef struct na_limit_base {
	char *export_path, *servers, *profile;
	na_dir_stats read, write;
	kept_nas nas;
} na_limit_base;

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int add_base(const na_result *r, void *ud, vs_error *err)
{
	na_limit_bases *b = ud;
	na_limit_base *v = realloc(b->v, (b->n + 1) * sizeof(*v));
	if (!v)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	b->v = v;
	na_limit_base *x = &v[b->n++];
	*x = (na_limit_base){dup_or_null(r->export_path), dup_or_null(r->servers), dup_or_null(r->profile),
	                     r->read, r->write, {0}};
	return nas_of(b->s, r->id, &x->nas, err);
}

int na_limit_bases_load(na_store *s, na_limit_bases *b, vs_error *err)
{
	*b = (na_limit_bases){.s = s};
	static const char *const cond[] = {"site=nas", "status=ok"};
	return na_store_query(s, cond, 2, add_base, b, err);
}

void na_limit_bases_free(na_limit_bases *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->v[i].export_path);
		free(b->v[i].servers);
		free(b->v[i].profile);
	}
	free(b->v);
	*b = (na_limit_bases){0};
}

static bool same(const char *x, const char *y)
{
	return x && y && strcmp(x, y) == 0;
}

/* The ceilings of r's export from the baselines; false: none there. */
static bool local_of(const na_limit_bases *b, const na_result *r, na_limit_local *l)
{
	*l = (na_limit_local){0};
	size_t n = 0;
	for (size_t i = 0; i < b->n; i++) {
		const na_limit_base *x = &b->v[i];
		if (!same(x->export_path, r->export_path) || !same(x->servers, r->servers))
			continue;
		na_result lr = {.read = x->read, .write = x->write};
		na_limit_local_add(l, &lr, x->nas.found ? &x->nas.n : NULL, same(x->profile, r->profile));
		n++;
	}
	return n > 0;
}

/* The bytes the job's file holds: its size= (a profile's job file) or
 * --size= (a baseline's words); 0 unknown. */
static uint64_t working_set(const char *job)
{
	const char *at = job ? strstr(job, "size=") : NULL;
	while (at && at > job && at[-1] != '\n' && at[-1] != '-')
		at = strstr(at + 1, "size=");
	if (!at)
		return 0;
	char v[32];
	size_t n = strcspn(at + 5, " \n");
	snprintf(v, sizeof(v), "%.*s", (int)(n < sizeof(v) - 1 ? n : sizeof(v) - 1), at + 5);
	int64_t bytes = na_parse_size(v);
	return bytes > 0 ? (uint64_t)bytes : 0;
}

/* The share of the reads under the floor of results ids[0..n), their
 * read bins merged (a group's members: every completion counts once). */
static double reads_under_floor(na_store *s, const int64_t *ids, size_t n, vs_error *err)
{
	na_fio_dir merged = {0};
	for (size_t i = 0; i < n; i++) {
		na_fio_dir bins[2] = {0};
		if (na_store_bins_of(s, ids[i], bins, err) == VS_OK && bins[0].present)
			na_fio_dir_merge(&merged, &bins[0], err);
		na_fio_dir_clear(&bins[0]);
		na_fio_dir_clear(&bins[1]);
	}
	double under = merged.present ? na_share_under(&merged, NA_CACHE_FLOOR_US) : -1;
	na_fio_dir_clear(&merged);
	*err = (vs_error){0};  /* without bins, no sign: not a failure */
	return under;
}

int na_limit_of_stored(na_store *s, const na_limit_bases *bases, const na_result *r, na_limit *out,
                       vs_error *err)
{
	*out = (na_limit){.share = -1};
	if (r->site && strcmp(r->site, "nas") == 0) {
		snprintf(out->evidence, sizeof(out->evidence), "the pool on its own: the ceiling the "
		         "guests' runs are held against");
		return VS_OK;
	}
	kept_nas k;
	int rc = nas_of(s, r->id, &k, err);
	if (rc != VS_OK)
		return rc;
	na_limit_local local;
	bool known = local_of(bases, r, &local);
	na_limit_in in;
	na_limit_in_of_row(r, k.found ? &k.n : NULL, working_set(r->job_file),
	                   r->read.present ? reads_under_floor(s, &r->id, 1, err) : -1, &in);
	in.local = known ? &local : NULL;
	na_limit_of(&in, out);
	return VS_OK;
}

typedef struct by_id {
	na_store *s;
	const na_limit_bases *bases;
	na_limit *out;
	bool found;
} by_id;

static int verdict_of_row(const na_result *r, void *ud, vs_error *err)
{
	by_id *b = ud;
	b->found = true;
	return na_limit_of_stored(b->s, b->bases, r, b->out, err);
}

int na_limit_of_id(na_store *s, const na_limit_bases *bases, int64_t id, na_limit *out, vs_error *err)
{
	char cond[32];
	snprintf(cond, sizeof(cond), "id=%lld", (long long)id);
	const char *const where[] = {cond};
	by_id b = {s, bases, out, false};
	*out = (na_limit){.share = -1};
	int rc = na_store_query(s, where, 1, verdict_of_row, &b, err);
	if (rc == VS_OK && !b.found)
		snprintf(out->evidence, sizeof(out->evidence), "result %lld is not recorded", (long long)id);
	return rc;
}

/* ---- a group run's verdict ---- */

/* A group's pool rows: the first kept (its why copied), all counted. */
typedef struct kept_pools {
	na_group_nas_row first;
	char why[256];
	size_t n;
} kept_pools;

static int keep_pool(const na_group_nas_row *p, void *ud, vs_error *err)
{
	(void)err;
	kept_pools *k = ud;
	if (k->n++)
		return VS_OK;
	k->first = *p;
	snprintf(k->why, sizeof(k->why), "%s", p->why ? p->why : "");
	k->first.why = p->why ? k->why : NULL;
	k->first.nas = k->first.pool = k->first.datasets = k->first.vms = NULL;
	return VS_OK;
}

/* The results of a group's members that ran the whole job. */
typedef struct whole_ids {
	int64_t *v;
	size_t n;
} whole_ids;

static int keep_whole(const na_group_member *m, const char *uuid, void *ud, vs_error *err)
{
	(void)uuid;
	whole_ids *w = ud;
	if (m->why || !m->result_id)
		return VS_OK;
	int64_t *v = realloc(w->v, (w->n + 1) * sizeof(*v));
	if (!v)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	w->v = v;
	w->v[w->n++] = m->result_id;
	return VS_OK;
}

static int add_member(const na_result *r, void *ud, vs_error *err)
{
	return na_limit_members_add(ud, r, err);
}

/* Member id's fields: from known, else read into got. */
static int member_of(na_store *s, const na_limit_members *known, int64_t id, na_limit_members *got,
                     na_limit_member *out, vs_error *err)
{
	for (size_t i = 0; known && i < known->n; i++)
		if (known->v[i].id == id)
			return *out = known->v[i], VS_OK;
	char cond[32];
	snprintf(cond, sizeof(cond), "id=%lld", (long long)id);
	const char *const where[] = {cond};
	size_t before = got->n;
	int rc = na_store_query(s, where, 1, add_member, got, err);
	if (rc == VS_OK && got->n == before)
		rc = vs_fail(err, VS_ERR_NOT_FOUND, "result %lld of a group is not recorded", (long long)id);
	if (rc == VS_OK)
		*out = got->v[before];
	return rc;
}

/* Group g's verdict from its complete members m[0..n) (ids[0..n)). */
static int judge_group(na_store *s, const na_limit_bases *bases, const na_group_row *g,
                       const na_limit_member *m, const int64_t *ids, size_t n, na_limit *out,
                       vs_error *err)
{
	kept_pools pools = {0};
	int rc = na_store_group_nas_of(s, g->id, keep_pool, &pools, err);
	if (rc != VS_OK)
		return rc;
	/* one datastore, one export: a group's baselines are its first VM's export's */
	na_result key = {.profile = g->profile, .export_path = n ? m[0].export_path : NULL,
	                 .servers = n ? m[0].servers : NULL};
	na_limit_local local;
	bool known = local_of(bases, &key, &local);
	na_limit_in in;
	na_limit_in_of_group(g, &pools.first, pools.n, m, n,
	                     g->read.present ? reads_under_floor(s, ids, n, err) : -1, &in);
	in.local = known ? &local : NULL;
	na_limit_of(&in, out);
	return VS_OK;
}

static int group_verdict(na_store *s, const na_limit_bases *bases, const na_group_row *g,
                         const na_limit_members *known, na_limit *out, vs_error *err)
{
	whole_ids ids = {0};
	na_limit_members got = {0};
	int rc = na_store_group_members(s, g->id, keep_whole, &ids, err);
	na_limit_member *m = rc == VS_OK ? calloc(ids.n + 1, sizeof(*m)) : NULL;
	if (rc == VS_OK && !m)
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; rc == VS_OK && i < ids.n; i++)
		rc = member_of(s, known, ids.v[i], &got, &m[i], err);
	if (rc == VS_OK)
		rc = judge_group(s, bases, g, m, ids.v, ids.n, out, err);
	free(m);
	free(ids.v);
	na_limit_members_free(&got);
	return rc;
}

int na_limit_of_group(na_store *s, const na_limit_bases *bases, int64_t result_id,
                      const na_limit_members *known, na_limit *out, vs_error *err)
{
	*out = (na_limit){.share = -1, .local_share = -1};
	na_group_row g;
	int rc = na_store_group_of(s, result_id, &g, err);
	if (rc == VS_OK && !g.id)
		snprintf(out->evidence, sizeof(out->evidence), "result %lld is in no group run",
		         (long long)result_id);
	else if (rc == VS_OK && g.why)
		snprintf(out->evidence, sizeof(out->evidence), "the group is incomplete (%s): its "
		         "figures are not all its VMs'", g.why);
	else if (rc == VS_OK)
		rc = group_verdict(s, bases, &g, known, out, err);
	na_group_row_clear(&g);
	return rc;
}

json_t *na_limit_json(const na_limit *l)
{
	return json_pack("{s:s, s:o, s:o, s:s}", "layer", na_limit_name(l->layer), "share",
	                 l->layer != NA_LIMIT_UNDETERMINED && l->share >= 0 ? json_real(l->share) : json_null(),
	                 "of_nas_local", l->local_share >= 0 ? json_real(l->local_share) : json_null(),
	                 "evidence", l->evidence);
}
