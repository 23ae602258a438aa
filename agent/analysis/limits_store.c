/* A stored result's verdict (limits.h): its NAS row, its reads' bins and
 * the NAS-local baselines of its export, read from the store. */
#include <stdio.h>
#include <string.h>

#include "analysis/limits.h"
#include "analysis/nas_line.h"
#include "agent.h"

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

static double reads_under_floor(na_store *s, const na_result *r, vs_error *err)
{
	na_fio_dir bins[2] = {0};
	double under = -1;
	if (r->read.present && na_store_bins_of(s, r->id, bins, err) == VS_OK && bins[0].present)
		under = na_share_under(&bins[0], NA_CACHE_FLOOR_US);
	na_fio_dir_clear(&bins[0]);
	na_fio_dir_clear(&bins[1]);
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
	                   reads_under_floor(s, r, err), &in);
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

json_t *na_limit_json(const na_limit *l)
{
	return json_pack("{s:s, s:o, s:o, s:s}", "layer", na_limit_name(l->layer), "share",
	                 l->layer != NA_LIMIT_UNDETERMINED && l->share >= 0 ? json_real(l->share) : json_null(),
	                 "of_nas_local", l->local_share >= 0 ? json_real(l->local_share) : json_null(),
	                 "evidence", l->evidence);
}
