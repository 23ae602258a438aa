/* What limited each profile's runs of a group, one line per profile, for
 * compare and the report (limits.h; docs/limits.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/limits.h"

/* The verdicts of g's runs of profile: how many each layer got, and the
 * run whose share is the median of the most common layer's. */
typedef struct profile_limits {
	size_t count[NA_LIMIT_PATH + 1], runs;
	na_limit v[64];
	size_t n;
} profile_limits;

static int verdicts_of(na_store *s, const na_limit_bases *bases, const na_cmp_group *g,
                       const char *profile, profile_limits *p, vs_error *err)
{
	*p = (profile_limits){0};
	for (size_t i = 0; i < g->n && p->n < 64; i++) {
		const char *x = g->rows[i].field[NA_FIELD_profile];
		if (!x || strcmp(x, profile) != 0 || g->rows[i].id <= 0)
			continue;
		/* a folded group is one run with a verdict of its own */
		int rc = g->rows[i].group ? na_limit_of_group(s, bases, g->rows[i].id, NULL, &p->v[p->n], err)
		                          : na_limit_of_id(s, bases, g->rows[i].id, &p->v[p->n], err);
		if (rc != VS_OK)
			return rc;
		p->count[p->v[p->n++].layer]++;
	}
	return VS_OK;
}

static int by_share(const void *x, const void *y)
{
	double a = ((const na_limit *)x)->share, b = ((const na_limit *)y)->share;
	return (a > b) - (a < b);
}

/* "A randwrite-4k-qd16: limited by path in 3 of 3 runs: EVIDENCE (the
 * guest at 20% of the pool's own MB/s)", or the runs' disagreement. */
static void line_of(const char *name, const char *profile, profile_limits *p, char *buf, size_t size)
{
	size_t top = 0;
	for (size_t l = 0; l <= NA_LIMIT_PATH; l++)
		if (p->count[l] > p->count[top])
			top = l;
	if (p->count[top] * 2 <= p->n) {
		int k = snprintf(buf, size, "%s %s: undetermined: the runs disagree (", name, profile);
		for (size_t l = 0; l <= NA_LIMIT_PATH && k > 0 && (size_t)k < size; l++)
			if (p->count[l])
				k += snprintf(buf + k, size - (size_t)k, "%s%s %zu", buf[k - 1] == '(' ? "" : ", ",
				              na_limit_name((na_limit_layer)l), p->count[l]);
		if (k > 0 && (size_t)k < size)
			snprintf(buf + k, size - (size_t)k, ")");
		return;
	}
	na_limit same[64];
	size_t m = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].layer == (na_limit_layer)top)
			same[m++] = p->v[i];
	qsort(same, m, sizeof(same[0]), by_share);
	const na_limit *mid = &same[m / 2];
	int k = snprintf(buf, size, "%s %s: limited by %s in %zu of %zu run%s: %s", name, profile,
	                 na_limit_name(mid->layer), m, p->n, p->n == 1 ? "" : "s", mid->evidence);
	if (mid->local_share >= 0 && mid->layer != NA_LIMIT_PATH && k > 0 && (size_t)k < size)
		snprintf(buf + k, size - (size_t)k, " (the guest at %.0f%% of the pool's own MB/s)",
		         mid->local_share * 100);
}

int na_cmp_limit_lines(na_store *s, const na_cmp_group *g, const char *name, char ***out, size_t *n,
                       vs_error *err)
{
	*out = NULL;
	*n = 0;
	na_limit_bases bases;
	int rc = na_limit_bases_load(s, &bases, err);
	for (size_t i = 0; rc == VS_OK && i < g->n; i++) {
		const char *profile = g->rows[i].field[NA_FIELD_profile];
		const char *site = g->rows[i].field[NA_FIELD_site];
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = g->rows[j].field[NA_FIELD_profile] && profile &&
			       strcmp(g->rows[j].field[NA_FIELD_profile], profile) == 0;
		if (seen || !profile || (site && strcmp(site, "nas") == 0))
			continue;
		profile_limits p;
		rc = verdicts_of(s, &bases, g, profile, &p, err);
		char line[640];
		if (rc != VS_OK || !p.n)
			continue;
		line_of(name, profile, &p, line, sizeof(line));
		char **v = realloc(*out, (*n + 1) * sizeof(char *));
		if (!v || !(v[*n] = strdup(line)))
			rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
		if (v)
			*out = v, *n += v[*n] != NULL;
	}
	na_limit_bases_free(&bases);
	return rc;
}
