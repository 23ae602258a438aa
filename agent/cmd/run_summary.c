/* What a campaign run produced, per target, read back from the results
 * database: how many results, and over which protocol they really ran, and
 * for each result with a NAS side what the pool did (bench's NAS line).  A
 * target that fell back to NFS 3 because of the extent-size bug holds NFS 3
 * results under an NFS 4.1 name; saying so keeps the comparison honest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/bench.h"
#include "cmd/run_render.h"
#include "analysis/stats.h"

enum { MAX_TYPES = 4 };

typedef struct target_tally {
	size_t ok, failed;
	struct {
		char *type;                  /* datastore type: "NFS", "NFS41", "VMFS", ... */
		size_t n;                    /* ok results over it */
	} types[MAX_TYPES];
	bool bug_on_move;                /* a Storage vMotion there hit the extent-size bug */
	int *fallback_reps;              /* repetitions NFS 4.1 asked, NFS 3 ran; ascending */
	size_t n_fallback_reps;
	/* under its line: each result's NAS side ("randwrite-4k-qd1 #1 (result
	 * 7): pool wrote ..."), or each group run (vms =) */
	char **lines;
	size_t n_lines;
	size_t groups, incomplete;       /* group runs (vms =), and those a member left incomplete */
	size_t baselines, baselines_failed;  /* NAS-local baselines (site nas), apart from the guest's */
} target_tally;

typedef struct summary {
	const na_campaign *c;
	na_store *store;
	target_tally t[NA_MAX_TARGETS];
} summary;

/* One result's NAS side as a line of its target's. */
typedef struct nas_note {
	target_tally *t;
	const na_result *r;
	uint64_t working_set;
} nas_note;

/* fio ran on the NAS itself (baseline = nas): the ceiling, not a guest's run. */
static bool is_baseline(const na_result *r)
{
	return r->site && strcmp(r->site, "nas") == 0;
}

/* Adds a line (malloc'd, taken; NULL: out of memory) under t's. */
static int add_line(target_tally *t, char *text, vs_error *err)
{
	char **grown = text ? realloc(t->lines, (t->n_lines + 1) * sizeof(char *)) : NULL;
	if (!grown) {
		free(text);
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	t->lines = grown;
	t->lines[t->n_lines++] = text;
	return VS_OK;
}

static int note_nas(const na_nas_run *n, void *ud, vs_error *err)
{
	nas_note *note = ud;
	char line[768], *text = NULL;
	na_nas_row_line(note->r, n, note->working_set, line, sizeof(line));
	size_t len = strlen(line) + strlen(note->r->profile ? note->r->profile : "") + 64;
	const char *profile = note->r->profile ? note->r->profile : "";
	if ((text = malloc(len)) && is_baseline(note->r))
		snprintf(text, len, "on the NAS: %s (result %lld): %s", profile, (long long)note->r->id, line);
	else if (text)
		snprintf(text, len, "%s #%d (result %lld): %s", profile, note->r->repetition,
		         (long long)note->r->id, line);
	return add_line(note->t, text, err);
}

/* One group run (vms =) as a line of its target's. */
static int note_group(const char *target, const na_group_row *g, void *ud, vs_error *err)
{
	summary *s = ud;
	for (size_t i = 0; target && i < s->c->n_targets; i++) {
		if (strcmp(s->c->targets[i].name, target) != 0)
			continue;
		target_tally *t = &s->t[i];
		char line[512];
		int n = snprintf(line, sizeof(line), "%s #%d (group %lld): %d VMs", g->profile, g->repetition,
		                 (long long)g->id, g->vms);
		if (g->slowest_vm)
			snprintf(line + n, sizeof(line) - (size_t)n, ", %.0f IOPS, slowest %s at %.2f of a fair "
			         "share%s", g->iops, g->slowest_vm, g->slowest_share,
			         g->why ? ": INCOMPLETE (results --members)" : "");
		else
			snprintf(line + n, sizeof(line) - (size_t)n, ": no VM ran the whole job");
		t->groups++;
		t->incomplete += g->why != NULL;
		int rc = add_line(t, strdup(line), err);
		if (rc != VS_OK)
			return rc;
	}
	return VS_OK;
}

static void count_type(target_tally *t, const char *type)
{
	for (size_t i = 0; i < MAX_TYPES; i++) {
		if (!t->types[i].type && !(t->types[i].type = strdup(type)))
			return;
		if (strcmp(t->types[i].type, type) == 0) {
			t->types[i].n++;
			return;
		}
	}
}

static void note_fallback(target_tally *t, int repetition)
{
	size_t n = t->n_fallback_reps;
	if (n && t->fallback_reps[n - 1] == repetition)
		return;
	int *grown = realloc(t->fallback_reps, (n + 1) * sizeof(int));
	if (grown) {
		grown[n] = repetition;
		t->fallback_reps = grown;
		t->n_fallback_reps++;
	}
}

static int tally(const na_result *r, void *ud, vs_error *err)
{
	summary *s = ud;
	for (size_t i = 0; r->target && i < s->c->n_targets; i++) {
		if (strcmp(s->c->targets[i].name, r->target) != 0)
			continue;
		target_tally *t = &s->t[i];
		bool ok = r->status && strcmp(r->status, "ok") == 0;
		if (is_baseline(r))
			ok ? t->baselines++ : t->baselines_failed++;
		else
			ok ? t->ok++ : t->failed++;
		if (ok && r->datastore_type && !is_baseline(r))
			count_type(t, r->datastore_type);
		if (ok && !is_baseline(r) && na_target_nfs41(&s->c->targets[i]) && r->datastore_type &&
		    strcmp(r->datastore_type, "NFS") == 0)
			note_fallback(t, r->repetition);
		int64_t size = s->c->size ? na_parse_size(s->c->size) : 0;
		nas_note note = {t, r, size > 0 ? (uint64_t)size : 0};
		bool found;
		/* a group member's NAS row holds its settings; the pool's lines are the group's */
		if (ok && !s->c->n_vms && na_store_nas_of(s->store, r->id, note_nas, &note, &found, err) != VS_OK)
			return err->status;
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

static size_t over(const target_tally *t, const char *type)
{
	for (size_t i = 0; i < MAX_TYPES && t->types[i].type; i++)
		if (strcmp(t->types[i].type, type) == 0)
			return t->types[i].n;
	return 0;
}

/* ", over NFS 3 (4) and NFS 4.1 (2)" or ", over NFS 3". */
static void print_types(FILE *out, const target_tally *t)
{
	size_t n = 0;
	while (n < MAX_TYPES && t->types[n].type)
		n++;
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s%s", i == 0 ? ", over " : i + 1 == n ? " and " : ", ",
		        na_nfs_label(t->types[i].type));
		if (n > 1)
			fprintf(out, " (%zu)", t->types[i].n);
	}
}

static bool all_fell_back(const target_tally *t)
{
	return t->n_fallback_reps && !over(t, "NFS41");
}

/* "6 ok, over NFS 3: all fell back ...": what a target with results holds. */
static void print_counts(FILE *out, const target_tally *t)
{
	if (t->groups)
		fprintf(out, "%zu group run%s (%zu incomplete) of ", t->groups, t->groups == 1 ? "" : "s",
		        t->incomplete);
	fprintf(out, "%zu ok", t->ok);
	if (t->failed)
		fprintf(out, ", %zu failed", t->failed);
	if (t->groups)
		fprintf(out, " member results");
	print_types(out, t);
	if (all_fell_back(t)) {
		fprintf(out, ": all fell back to NFS 3 (the extent-size bug), so this target tells nothing "
		        "about NFS 4.1");
	} else if (t->n_fallback_reps) {
		fprintf(out, ": repetition%s", t->n_fallback_reps > 1 ? "s" : "");
		for (size_t i = 0; i < t->n_fallback_reps; i++)
			fprintf(out, "%s%d", i ? ", " : " ", t->fallback_reps[i]);
		fprintf(out, " fell back to NFS 3 (the extent-size bug); add protocol=NFS41 to compare only "
		        "what ran as asked");
	}
	size_t local = t->baselines + t->baselines_failed;
	if (local)
		fprintf(out, "; %zu NAS-local baseline%s", local, local == 1 ? "" : "s");
	if (t->baselines_failed)
		fprintf(out, " (%zu failed)", t->baselines_failed);
}

/* One target's line, and its results' NAS lines under it, each wrapped to
 * the terminal's width (a NAS line alone is some 370 columns). */
static void print_target(const na_target *target, const target_tally *t, int width)
{
	char *line = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&line, &size);
	if (!out)
		return;
	fprintf(out, "%-*s  ", width, target->name);
	if (t->ok || t->failed || t->baselines || t->baselines_failed)
		print_counts(out, t);
	else
		fprintf(out, "no results%s", t->bug_on_move ? ": the extent-size bug stopped the move there" : "");
	fclose(out);
	if (line)
		na_print_wrapped(stdout, line, NA_TEXT_WIDTH, 2, 4 + (size_t)width);
	free(line);
	for (size_t i = 0; i < t->n_lines; i++)
		na_print_wrapped(stdout, t->lines[i], NA_TEXT_WIDTH, 4, 6);
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
	/* The first two targets with results; one that fell back to NFS 3 in
	 * every repetition holds nothing of the protocol its name stands for. */
	const char *with[2] = {NULL, NULL};
	for (size_t i = 0, n = 0; i < c->n_targets && n < 2; i++)
		if (s->t[i].ok && !all_fell_back(&s->t[i]))
			with[n++] = c->targets[i].name;
	char *group[2] = {NULL, NULL};  /* pasted into a shell: quoted */
	for (int i = 0; i < 2 && with[1]; i++) {
		char text[1024];
		snprintf(text, sizeof(text), "campaign=%s,target=%s", run_id, with[i]);
		group[i] = na_shell_quote(text);
	}
	/* each group on a line of its own: a run id makes one line too wide */
	if (group[0] && group[1])
		printf("Compare: nfsagent compare --a %s \\\n           --b %s\n", group[0], group[1]);
	free(group[0]);
	free(group[1]);
	char where[200], *quoted;  /* run ids are shorter than 160 */
	snprintf(where, sizeof(where), "campaign=%s", run_id);
	if ((quoted = na_shell_quote(where)))
		printf("Report: nfsagent report --html report.html --where %s\n", quoted);
	free(quoted);
}

int na_campaign_print_summary(na_store *store, const na_campaign *c, const char *run_id,
                              vs_error *err)
{
	summary s = {.c = c, .store = store};
	char cond[200];  /* run ids are shorter than 160 */
	snprintf(cond, sizeof(cond), "campaign=%s", run_id);
	const char *conds[] = {cond};
	int rc = na_store_query(store, conds, 1, tally, &s, err);
	if (rc == VS_OK)
		rc = na_store_findings(store, conds, 1, note_finding, &s, err);
	if (rc == VS_OK && c->n_vms)
		rc = na_store_run_groups(store, run_id, note_group, &s, err);
	if (rc == VS_OK)
		print_all(&s, run_id);
	if (rc == VS_OK)
		na_campaign_print_limits(store, c, run_id);
	for (size_t i = 0; i < c->n_targets; i++) {
		free(s.t[i].fallback_reps);
		for (size_t k = 0; k < s.t[i].n_lines; k++)
			free(s.t[i].lines[k]);
		free(s.t[i].lines);
		for (size_t k = 0; k < MAX_TYPES; k++)
			free(s.t[i].types[k].type);
	}
	return rc;
}
