/* What ran, named: a campaign target that asked for NFS 4.1 and fell back
 * to NFS 3 because of the extent-size bug keeps its NFS 4.1 name in the
 * results.  Its rows are known by the campaign's own finding (the target's
 * NFS 4.1 probe or move showed the bug) and their measured protocol, so
 * that compare, regress and report can say "nfs41 (ran as NFS 3:
 * extent-size bug)" wherever the name appears. */
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"

const char na_cmp_ran_as[] = " (ran as NFS 3: extent-size bug)";

static int on_bug(const na_finding *f, void *ud, vs_error *err)
{
	(void)err;
	*(bool *)ud |= f->extent_bug;
	return VS_OK;
}

/* Whether campaign's finding says its target's NFS 4.1 showed the bug. */
static int target_hit_bug(na_store *s, const char *campaign, const char *target, bool *hit,
                          vs_error *err)
{
	char *conds[3] = {NULL, NULL, strdup("datastore_type=NFS41")};
	size_t size = 0;
	FILE *c = open_memstream(&conds[0], &size), *t = c ? open_memstream(&conds[1], &size) : NULL;
	if (c) {
		fprintf(c, "campaign=%s", campaign);
		fclose(c);
	}
	if (t) {
		fprintf(t, "target=%s", target);
		fclose(t);
	}
	*hit = false;
	int rc = conds[0] && conds[1] && conds[2]
	             ? na_store_findings(s, (const char *const *)conds, 3, on_bug, hit, err)
	             : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (int i = 0; i < 3; i++)
		free(conds[i]);
	return rc;
}

struct na_fallback {
	char *campaign, *target;
	bool hit;
};

int na_ran_as_nfs3(na_store *s, na_fallbacks *known, const char *campaign, const char *target,
                   const char *type, bool *fell, vs_error *err)
{
	*fell = false;
	if (!campaign || !target || !type || strcmp(type, "NFS") != 0)
		return VS_OK;
	for (size_t i = 0; i < known->n; i++)
		if (!strcmp(known->v[i].campaign, campaign) && !strcmp(known->v[i].target, target)) {
			*fell = known->v[i].hit;
			return VS_OK;
		}
	int rc = target_hit_bug(s, campaign, target, fell, err);
	struct na_fallback *grown = rc == VS_OK ? realloc(known->v, (known->n + 1) * sizeof(*grown)) : NULL;
	if (grown) {  /* without memory: asked again next time */
		known->v = grown;
		struct na_fallback *f = &grown[known->n];
		*f = (struct na_fallback){strdup(campaign), strdup(target), *fell};
		if (f->campaign && f->target)
			known->n++;
		else
			free(f->campaign), free(f->target);
	}
	return rc;
}

void na_fallbacks_free(na_fallbacks *known)
{
	for (size_t i = 0; i < known->n; i++) {
		free(known->v[i].campaign);
		free(known->v[i].target);
	}
	free(known->v);
	*known = (na_fallbacks){0};
}

int na_cmp_mark_fallbacks(na_store *s, na_cmp_group *g, vs_error *err)
{
	na_fallbacks known = {0};
	int rc = VS_OK;
	for (size_t i = 0; rc == VS_OK && i < g->n; i++) {
		char *const *f = g->rows[i].field;
		rc = na_ran_as_nfs3(s, &known, f[NA_FIELD_campaign], f[NA_FIELD_target],
		                    f[NA_FIELD_datastore_type], &g->rows[i].fell_back, err);
	}
	na_fallbacks_free(&known);
	return rc;
}

char *na_cmp_fallback_text(const na_cmp_group *g)
{
	char *text = NULL;
	size_t size = 0, fell = 0;
	FILE *out = open_memstream(&text, &size);
	for (size_t i = 0; out && i < g->n; i++) {
		const na_cmp_row *r = &g->rows[i];
		bool seen = false;
		for (size_t k = 0; r->fell_back && k < i && !seen; k++)
			seen = g->rows[k].fell_back &&
			       !strcmp(g->rows[k].field[NA_FIELD_target], r->field[NA_FIELD_target]);
		fell += r->fell_back;
		if (r->fell_back && !seen)
			fprintf(out, "%s%s%s", ftell(out) ? ", " : "", r->field[NA_FIELD_target], na_cmp_ran_as);
	}
	if (out && fell && fell < g->n)
		fprintf(out, " in %zu of %zu results", fell, g->n);
	if (out)
		fclose(out);
	if (!fell) {
		free(text);
		text = NULL;
	}
	return text;
}
