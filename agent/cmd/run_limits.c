/* The campaign's summary's verdicts: what limited each target's profile
 * (analysis/limits.h, docs/limits.md), one line each. */
#include <stdio.h>
#include <stdlib.h>

#include "analysis/compare.h"
#include "analysis/stats.h"
#include "cmd/run_render.h"

/* Target t's guest runs of run run_id, a line per profile (none read: no line). */
static void target_limits(na_store *store, const na_target *t, const char *run_id, bool *said)
{
	char selector[1024];
	snprintf(selector, sizeof(selector), "campaign=%s,target=%s", run_id, t->name);
	na_cmp_group g = {0};
	char **lines = NULL;
	size_t n = 0;
	vs_error err = {0};
	if (na_cmp_load(store, selector, &g, &err) == VS_OK)
		na_cmp_limit_lines(store, &g, t->name, &lines, &n, &err);
	for (size_t i = 0; i < n; i++) {
		fputs(*said ? "" : "What limited each target's runs:\n", stdout);
		na_print_wrapped(stdout, lines[i], NA_TEXT_WIDTH, 2, 6);
		*said = true;
		free(lines[i]);
	}
	free(lines);
	na_cmp_group_free(&g);
}

void na_campaign_print_limits(na_store *store, const na_campaign *c, const char *run_id)
{
	bool said = false;
	for (size_t i = 0; i < c->n_targets; i++)
		target_limits(store, &c->targets[i], run_id, &said);
}
