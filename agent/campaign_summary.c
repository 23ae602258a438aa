/* What a campaign run produced, per target, read back from the results
 * database: how many results, and over which protocol they really ran.  A
 * target that fell back to NFS 3 because of the extent-size bug holds NFS 3
 * results under an NFS 4.1 name; saying so keeps the comparison honest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"

typedef struct target_tally {
	size_t ok, failed, by_type[2];  /* ok results over NFS 3, over NFS 4.1 */
	bool bug_on_move;                /* a Storage vMotion there hit the extent-size bug */
	int *fallback_reps;              /* repetitions over the other protocol, ascending */
	size_t n_fallback_reps;
} target_tally;

typedef struct summary {
	const na_campaign *c;
	target_tally t[NA_MAX_TARGETS];
} summary;

/* "NFS" or "NFS41" as the target asked, or NULL (an existing datastore). */
static const char *asked_type(const na_target *t)
{
	if (!t->servers || !t->nfs)
		return NULL;
	return strcmp(t->nfs, "3") == 0 ? "NFS" : "NFS41";
}

static int tally(const na_result *r, void *ud, vs_error *err)
{
	(void)err;
	summary *s = ud;
	for (size_t i = 0; r->target && i < s->c->n_targets; i++) {
		if (strcmp(s->c->targets[i].name, r->target) != 0)
			continue;
		target_tally *t = &s->t[i];
		bool ok = r->status && strcmp(r->status, "ok") == 0;
		ok ? t->ok++ : t->failed++;
		bool nfs41 = r->datastore_type && strcmp(r->datastore_type, "NFS41") == 0;
		if (ok && r->datastore_type)
			t->by_type[nfs41]++;
		const char *asked = asked_type(&s->c->targets[i]);
		bool fell_back = ok && asked && r->datastore_type && strcmp(asked, r->datastore_type) != 0;
		size_t n = t->n_fallback_reps;
		if (fell_back && (!n || t->fallback_reps[n - 1] != r->repetition)) {
			int *grown = realloc(t->fallback_reps, (n + 1) * sizeof(int));
			if (grown) {
				grown[n] = r->repetition;
				t->fallback_reps = grown;
				t->n_fallback_reps++;
			}
		}
	}
	return VS_OK;
}

static int note_finding(const na_finding *f, void *ud, vs_error *err)
{
	(void)err;
	summary *s = ud;
	for (size_t i = 0; f->target && i < s->c->n_targets; i++)
		if (f->extent_bug && strcmp(f->kind, "migration") == 0 &&
		    strcmp(s->c->targets[i].name, f->target) == 0)
			s->t[i].bug_on_move = true;
	return VS_OK;
}

static void print_target(const na_target *target, const target_tally *t, int width)
{
	printf("  %-*s  ", width, target->name);
	if (!t->ok && !t->failed) {
		printf("no results%s\n", t->bug_on_move ? ": the extent-size bug stopped the move there" : "");
		return;
	}
	printf("%zu ok", t->ok);
	if (t->failed)
		printf(", %zu failed", t->failed);
	if (t->by_type[0] && t->by_type[1])
		printf(", over NFS 3 (%zu) and NFS 4.1 (%zu)", t->by_type[0], t->by_type[1]);
	else if (t->by_type[0] || t->by_type[1])
		printf(", over %s", t->by_type[1] ? "NFS 4.1" : "NFS 3");
	const char *asked = asked_type(target);
	bool none_as_asked = asked && !t->by_type[strcmp(asked, "NFS41") == 0];
	if (t->n_fallback_reps && none_as_asked) {
		printf(": all fell back to NFS 3 (the extent-size bug), so this target tells nothing "
		       "about NFS 4.1");
	} else if (t->n_fallback_reps) {
		printf(": repetition%s", t->n_fallback_reps > 1 ? "s" : "");
		for (size_t i = 0; i < t->n_fallback_reps; i++)
			printf("%s%d", i ? ", " : " ", t->fallback_reps[i]);
		printf(" fell back to NFS 3 (the extent-size bug); add protocol=%s to compare only "
		       "what ran as asked", asked);
	}
	printf("\n");
}

static void print_all(const summary *s, const char *run_id)
{
	const na_campaign *c = s->c;
	int width = 0;
	for (size_t i = 0; i < c->n_targets; i++)
		if ((int)strlen(c->targets[i].name) > width)
			width = (int)strlen(c->targets[i].name);
	printf("Results of run %s:\n", run_id);
	for (size_t i = 0; i < c->n_targets; i++)
		print_target(&c->targets[i], &s->t[i], width);
	if (c->n_targets >= 2)
		printf("Compare: nfsagent compare --a campaign=%s,target=%s --b campaign=%s,target=%s\n",
		       run_id, c->targets[0].name, run_id, c->targets[1].name);
}

void na_campaign_print_summary(na_store *store, const na_campaign *c, const char *run_id)
{
	summary s = {.c = c};
	char cond[200];  /* run ids are shorter than 160 */
	snprintf(cond, sizeof(cond), "campaign=%s", run_id);
	const char *conds[] = {cond};
	vs_error err = {0};
	int rc = na_store_query(store, conds, 1, tally, &s, &err);
	if (rc == VS_OK)
		rc = na_store_findings(store, conds, 1, note_finding, &s, &err);
	if (rc == VS_OK)
		print_all(&s, run_id);
	else
		na_report(&err);
	for (size_t i = 0; i < c->n_targets; i++)
		free(s.t[i].fallback_reps);
}
