/* nfsagent compare: two groups of recorded results side by side, profile by
 * profile, in the seeds' before/after shape (metric | A | B | change), with
 * whether each change is more than run-to-run noise, and the factors in
 * which the groups differ, since a comparison that changes two things at
 * once cannot say which one helped. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "output.h"
#include "analysis/compare.h"
#include "analysis/trap.h"

static const char usage[] =
	"Usage: nfsagent compare --a SELECTOR --b SELECTOR [--db FILE|URL]\n"
	"                        [--min-change PCT] [--runs-needed PCT]\n"
	"                        [--json | --csv | --markdown]\n"
	"Compares two groups of recorded results, profile by profile: IOPS, MB/s, average\n"
	"and p99 latency per direction, as median (min-max, n=runs) of A and of B, the\n"
	"change from A to B with its confidence interval, and whether it is beyond\n"
	"run-to-run noise (IOPS and p99 get verdicts, judged together per profile, the\n"
	"interval at the level its verdict used; MB/s, average latency and a mixed job's\n"
	"write IOPS follow). A \"within noise\" says how large a rise or drop the runs\n"
	"could have seen.\n"
	"  --min-change 5%     count only changes of at least 5% either way: the interval\n"
	"                      must lie wholly above +5% or wholly below -5%\n"
	"  --runs-needed 10%   how many runs a side would see a 10% rise or drop\n"
	"SELECTOR is comma-separated field=value conditions, as results --where takes\n"
	"them (protocol=NFS41,recordsize=64K or campaign=RUN,target=nfs41); only ok\n"
	"runs count.\n"
	"Names the factors (protocol, ESXi build, host, disk, job file, labels, ...) whose\n"
	"mix differs between A and B, and warns when every run of one group ran before\n"
	"every run of the other (drift would look like a change; run interleaves), and\n"
	"when a figure is a ceiling's: a side at 90% of its host's recorded link\n"
	"(network-bound), writes of several block sizes at one SLOG rate (SLOG-bound).\n"
	"Examples:\n"
	"  nfsagent compare --a recordsize=64K --b recordsize=16K\n"
	"  nfsagent compare --a campaign=nfs3-vs-nfs41-20261130T101500,target=nfs3 \\\n"
	"        --b campaign=nfs3-vs-nfs41-20261130T101500,target=nfs41 --markdown\n";

enum { OPT_A = NA_OPT_FIRST_COMMAND_OPTION, OPT_B, OPT_DB, OPT_CSV, OPT_MARKDOWN, OPT_MIN_CHANGE,
       OPT_RUNS_NEEDED };
static const int by_profile[] = {NA_FIELD_profile};

typedef struct compare_args {
	const char *a, *b, *db;
	bool json, csv, markdown;
	double min_change, runs_needed;  /* fractions; 0 = not asked */
} compare_args;

typedef struct comparison {
	const compare_args *args;
	na_cmp_group a, b;
	char *only_a, *only_b;     /* profiles left out, "x, y" or NULL */
	na_cmp cmp;
	na_factor *factors;
	size_t n_factors;
	char *sentence;
	char *time_warning;        /* NULL when the groups' runs interleave */
	char **conflicts;          /* labels contradicting the NAS, A's then B's */
	size_t n_conflicts;
	char **traps;              /* runs on a disk whose dataset's recordsize changed under it */
	size_t n_traps;
	char *fell[2];             /* A's and B's targets that ran as NFS 3 (the extent-size bug) */
	char *not_protocols;       /* why this is no NFS 3 vs NFS 4.1 comparison; NULL */
	na_cmp_hint *net;          /* MB/s lines where a side ran at its host's link */
	size_t n_net;
	char *slog[2];             /* A's and B's SLOG ceiling, NULL: none */
	char **limits;             /* what limited each profile's runs, A's then B's */
	size_t n_limits;
} comparison;

/* ---- building ---- */

/* The profiles of g that other lacks, "x, y" (NULL if none). */
static char *unmatched(const na_cmp_group *g, const na_cmp_group *other)
{
	char *text = NULL;
	size_t size = 0, n = 0;
	FILE *out = open_memstream(&text, &size);
	for (size_t i = 0; out && i < g->n; i++) {
		const na_cmp_row *r = &g->rows[i];
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = na_cmp_same_key(&g->rows[j], r, by_profile, 1);
		if (!seen && !na_cmp_has_key(other, r, by_profile, 1))
			fprintf(out, "%s%s", n++ ? ", " : "", r->field[NA_FIELD_profile] ? r->field[NA_FIELD_profile] : "-");
	}
	if (out)
		fclose(out);
	if (!n) {
		free(text);
		text = NULL;
	}
	return text;
}

static bool in_other(const na_cmp_row *r, void *other)
{
	return na_cmp_has_key(other, r, by_profile, 1);
}

int na_selector_none(na_store *s, const char *what, const char *selector, vs_error *err)
{
	na_selector sel = {0};
	vs_error why = {0};
	if (na_selector_parse(selector, &sel, &why) == VS_OK)
		na_store_explain_none(s, sel.conds, sel.n, &why);
	na_selector_free(&sel);
	return vs_fail(err, VS_ERR_NOT_FOUND, "%s has no ok results: %s", what, why.message);
}

/* Moves the n_more sentences of more to the end of *list. */
static int take(char ***list, size_t *n, char **more, size_t n_more)
{
	char **all = realloc(*list, (*n + n_more + 1) * sizeof(char *));
	if (all) {
		if (n_more)  /* more is NULL when there is none */
			memcpy(all + *n, more, n_more * sizeof(char *));
		*list = all;
		*n += n_more;
	}
	for (size_t i = 0; !all && i < n_more; i++)
		free(more[i]);
	free(more);
	return all ? VS_OK : VS_ERR_NOMEM;
}

/* The targets that ran as NFS 3 on the extent-size bug, and then why the
 * comparison is not one of NFS 3 with NFS 4.1 (a fallen-back target keeps
 * its NFS 4.1 name, so its selector reads like one). */
static int name_fallbacks(comparison *c)
{
	c->fell[0] = na_cmp_fallback_text(&c->a);
	c->fell[1] = na_cmp_fallback_text(&c->b);
	if (!c->fell[0] && !c->fell[1])
		return VS_OK;
	size_t size = 0;
	FILE *out = open_memstream(&c->not_protocols, &size);
	if (!out)
		return VS_ERR_NOMEM;
	fputs("no NFS 3 vs NFS 4.1 comparison: ", out);
	for (int g = 0; g < 2; g++)
		if (c->fell[g])
			fprintf(out, "%s%s's %s", g && c->fell[0] ? "; " : "", g ? "B" : "A", c->fell[g]);
	fputs("; add protocol=NFS41 to a selector to compare only what ran as NFS 4.1", out);
	fclose(out);
	return c->not_protocols ? VS_OK : VS_ERR_NOMEM;
}

/* The ceilings a figure may be: the hosts' links, each group's SLOG. */
static int find_ceilings(comparison *c)
{
	char line[600];
	for (int g = 0; g < 2; g++)
		if (na_cmp_slog_hint(g ? &c->b : &c->a, g ? "B" : "A", line, sizeof(line)) &&
		    !(c->slog[g] = strdup(line)))
			return VS_ERR_NOMEM;
	return na_cmp_network_hints(&c->cmp, &c->b, by_profile, 1, "A", "B", &c->net, &c->n_net);
}

static int build(comparison *c, na_store *s, vs_error *err)
{
	int rc = na_cmp_load(s, c->args->a, &c->a, err);
	if (rc == VS_OK)
		rc = na_cmp_load(s, c->args->b, &c->b, err);
	if (rc != VS_OK)
		return rc;
	if (!c->a.n || !c->b.n) {
		char what[256];
		snprintf(what, sizeof(what), "group %s (%s)", c->a.n ? "B" : "A", c->a.n ? c->args->b : c->args->a);
		return na_selector_none(s, what, c->a.n ? c->args->b : c->args->a, err);
	}
	c->only_a = unmatched(&c->a, &c->b);
	c->only_b = unmatched(&c->b, &c->a);
	/* Factors count only the runs compared. */
	na_cmp_group_filter(&c->a, in_other, &c->b);
	na_cmp_group_filter(&c->b, in_other, &c->a);
	rc = na_cmp_run(&c->a, &c->b, by_profile, 1, c->args->min_change, &c->cmp);
	if (rc == VS_OK && !c->cmp.n)
		return vs_fail(err, VS_ERR_NOT_FOUND, "nothing to compare: no profile has comparable ok "
		               "results in both groups (only in A: %s; only in B: %s)",
		               c->only_a ? c->only_a : "none", c->only_b ? c->only_b : "none");
	if (rc == VS_OK)
		rc = na_cmp_factors(&c->a, &c->b, &c->factors, &c->n_factors);
	if (rc == VS_OK && !(c->sentence = na_factors_sentence(c->factors, c->n_factors)))
		rc = VS_ERR_NOMEM;
	if (rc == VS_OK)
		c->time_warning = na_cmp_time_warning(&c->a, &c->b, "A", "B");
	if (rc == VS_OK)
		rc = name_fallbacks(c);
	if (rc == VS_OK)
		rc = find_ceilings(c);
	/* what was measured against what the runs say of themselves */
	for (int g = 0; rc == VS_OK && g < 2; g++) {
		char **more = NULL;
		size_t n_more = 0;
		const na_cmp_group *group = g ? &c->b : &c->a;
		rc = na_cmp_label_conflicts(group, g ? "B" : "A", &more, &n_more);
		if (rc == VS_OK)
			rc = take(&c->conflicts, &c->n_conflicts, more, n_more);
		if (rc == VS_OK)
			rc = na_trap_sentences(s, group, g ? "B" : "A", &more, &n_more, err);
		if (rc == VS_OK)
			rc = take(&c->traps, &c->n_traps, more, n_more);
		if (rc == VS_OK)
			rc = na_cmp_limit_lines(s, group, g ? "B" : "A", &more, &n_more, err);
		if (rc == VS_OK)
			rc = take(&c->limits, &c->n_limits, more, n_more);
	}
	return rc == VS_ERR_NOMEM ? vs_fail(err, rc, "out of memory") : rc;
}

static void comparison_free(comparison *c)
{
	na_cmp_group_free(&c->a);
	na_cmp_group_free(&c->b);
	na_cmp_free(&c->cmp);
	na_factors_free(c->factors, c->n_factors);
	free(c->only_a);
	free(c->only_b);
	free(c->sentence);
	free(c->time_warning);
	free(c->fell[0]);
	free(c->fell[1]);
	free(c->not_protocols);
	na_cmp_hints_free(c->net, c->n_net);
	free(c->slog[0]);
	free(c->slog[1]);
	char **lists[] = {c->conflicts, c->traps, c->limits};
	size_t n[] = {c->n_conflicts, c->n_traps, c->n_limits};
	for (size_t l = 0; l < 3; free(lists[l++]))
		for (size_t i = 0; i < n[l]; i++)
			free(lists[l][i]);
}

/* ---- text and markdown ---- */

static const char *profile_of(const na_cmp_line *l)
{
	return l->key->field[NA_FIELD_profile] ? l->key->field[NA_FIELD_profile] : "-";
}

/* ", over NFS 3", or ", over NFS 3 (4) and NFS 4.1 (2)": what the group's
 * runs ran over, whatever its selector's names say (a campaign target that
 * fell back to NFS 3 on the extent-size bug keeps its NFS 4.1 name). */
static void print_protocols(FILE *out, const na_cmp_group *g)
{
	enum { MAX = 8 };
	const char *type[MAX];
	size_t count[MAX], n = 0;
	for (size_t i = 0; i < g->n; i++) {
		const char *t = g->rows[i].field[NA_FIELD_datastore_type];
		size_t k = 0;
		while (k < n && strcmp(type[k], t ? t : "-") != 0)
			k++;
		if (k == n && n < MAX) {
			type[n] = t ? t : "-";
			count[n++] = 0;
		}
		if (k < n)
			count[k]++;
	}
	for (size_t k = 0; k < n; k++) {
		fprintf(out, "%s%s", !k ? ", over " : k + 1 == n ? " and " : ", ", na_nfs_label(type[k]));
		if (n > 1)
			fprintf(out, " (%zu)", count[k]);
	}
}

/* Markdown's own paragraph, or wrapped to the terminal's width. */
static void warn(const char *text, bool md)
{
	if (md)
		printf("\nwarning: %s\n", text);
	else
		na_warn_wrapped(text);
}

/* "A: SELECTOR (6 ok results, over NFS 3): nfs41 (ran as NFS 3: extent-size
 * bug)", wrapped on a terminal. */
static void print_group(const comparison *c, int g, bool md)
{
	const char *quote = md ? "`" : "", *bold = md ? "**" : "";
	char *line = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&line, &size);
	if (!out)
		return;
	fprintf(out, "%s%c%s: %s%s%s (%zu ok results", bold, g ? 'B' : 'A', bold, quote,
	        g ? c->args->b : c->args->a, quote, g ? c->b.n : c->a.n);
	print_protocols(out, g ? &c->b : &c->a);
	fprintf(out, ")%s%s", c->fell[g] ? ": " : "", c->fell[g] ? c->fell[g] : "");
	fclose(out);
	if (md)
		printf("%s%s\n", line, g ? "" : "  ");
	else if (line)
		na_print_wrapped(stdout, line, NA_TEXT_WIDTH, 0, 3);
	free(line);
}

static void print_header(const comparison *c, bool md)
{
	const char *gap = md ? "\n" : "";
	print_group(c, 0, md);
	print_group(c, 1, md);
	if (md)
		printf("\n%s\n", c->sentence);
	else
		na_print_wrapped(stdout, c->sentence, NA_TEXT_WIDTH, 0, 2);
	if (c->not_protocols)
		warn(c->not_protocols, md);
	if (c->time_warning)
		warn(c->time_warning, md);
	for (size_t i = 0; i < c->n_conflicts; i++)
		warn(c->conflicts[i], md);
	for (size_t i = 0; i < c->n_traps; i++)
		warn(c->traps[i], md);
	for (size_t i = 0; i < 2 + c->n_limits; i++) {
		const char *t = i < 2 ? c->slog[i] : c->limits[i - 2];
		if (t && md)
			printf("\n%s\n", t);
		else if (t)
			na_print_wrapped(stdout, t, NA_TEXT_WIDTH, 0, 2);
	}
	if (c->only_a)
		printf("%snot compared, only in A: %s\n", gap, c->only_a);
	if (c->only_b)
		printf("%snot compared, only in B: %s\n", gap, c->only_b);
}

/* Line l's network ceiling, "read: network-bound: ...", wrapped. */
static void print_network(const comparison *c, const na_cmp_line *l, const char *indent)
{
	for (size_t k = 0; k < c->n_net; k++) {
		char line[700];
		if (c->net[k].line != l)
			continue;
		snprintf(line, sizeof(line), "%s%s: %s", indent, na_dir_names[l->dir], c->net[k].text);
		na_print_wrapped(stdout, line, NA_TEXT_WIDTH, 0, 2);
	}
}

/* The notes under a profile's table: p99 pooled from the fio bins, a
 * direction at its host's link, and the runs a side --runs-needed asks
 * about. */
static void print_notes(const comparison *c, size_t from, size_t to, const char *indent)
{
	for (size_t i = from; i < to; i++) {
		const na_cmp_line *l = &c->cmp.lines[i];
		na_cmp_cells s;
		na_cmp_cells_of(l, &s);
		print_network(c, l, indent);
		if (s.pooled[0])
			printf("%s%s %s (no verdict of its own)\n", indent, s.metric, s.pooled);
		if (!c->args->runs_needed || !l->eff.judged || l->eff.verdict == NA_NOISE_TOO_FEW)
			continue;
		size_t n = na_runs_needed(l->eff.sd, c->args->runs_needed, l->eff.alpha, l->eff.band);
		if (n)
			printf("%s%s: %zu runs a side would see a %.0f%% rise or drop at this spread\n", indent,
			       s.metric, n, c->args->runs_needed * 100);
		else
			printf("%s%s: no number of runs would see a %.0f%% change inside the --min-change "
			       "band\n", indent, s.metric, c->args->runs_needed * 100);
	}
}

/* The size of the Holm family of the key starting at line i: its lines
 * judged (none: 0, too few runs). */
static size_t family_at(const comparison *c, size_t i)
{
	for (size_t j = i; j < c->cmp.n && c->cmp.lines[j].key == c->cmp.lines[i].key; j++) {
		const na_effect *e = &c->cmp.lines[j].eff;
		if (e->judged && e->verdict != NA_NOISE_TOO_FEW)
			return e->family;
	}
	return 0;
}

/* What this comparison controlled: " Here 2 profiles were judged, with 3
 * and 2 verdict lines: ..." (the Holm families, in the profiles' order). */
static void print_families(const comparison *c, FILE *out)
{
	size_t profiles = 0, k = 0, last = 0;
	for (size_t i = 0; i < c->cmp.n; i++)
		profiles += (i == 0 || c->cmp.lines[i].key != c->cmp.lines[i - 1].key) && family_at(c, i);
	if (!profiles)
		return;
	fprintf(out, " Here %zu profile%s judged, with ", profiles, profiles == 1 ? " was" : "s were");
	for (size_t i = 0; i < c->cmp.n; i++)
		if ((i == 0 || c->cmp.lines[i].key != c->cmp.lines[i - 1].key) && (last = family_at(c, i)))
			fprintf(out, "%s%zu", !k++ ? "" : k == profiles ? " and " : ", ", last);
	if (profiles == 1)
		fputs(last == 1 ? " verdict line." : " verdict lines.", out);
	else
		fprintf(out, " verdict lines: over all %zu, groups alike show some change up to %zu "
		        "times in 20.", profiles, profiles);
}

/* The rule, what was controlled, and the band when there is one. */
static void print_method(const comparison *c, bool wrap)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	if (out) {
		fputs(na_noise_method, out);
		print_families(c, out);
		if (c->args->min_change)
			fprintf(out, " With --min-change %g%%, a change counts only when its interval lies "
			        "wholly above +%g%% or wholly below -%g%%.", c->args->min_change * 100,
			        c->args->min_change * 100, c->args->min_change * 100);
		fclose(out);
	}
	if (text && wrap)
		na_print_wrapped(stdout, text, 80, 0, 0);
	else if (text)
		printf("%s\n", text);
	free(text);
}

/* A side's column: what its figures are (the change is the ratio of the
 * first, so it is named). */
static const char *const md_side[2] = {"A: geometric mean (min-max, n)",
                                       "B: geometric mean (min-max, n)"};

/* Markdown text: '|' would end a table cell. */
static void md_text(const char *s)
{
	for (; *s; s++)
		fputs(*s == '|' ? "\\|" : (char[2]){*s, '\0'}, stdout);
}

/* The runs of one side behind every line of key in lines, or 0 when they
 * differ (then each cell says its own). */
static size_t same_n(const na_cmp_line *lines, size_t n, const na_cmp_row *key, bool b)
{
	size_t runs = 0;
	for (size_t i = 0; i < n; i++) {
		size_t here = b ? lines[i].sb.n : lines[i].sa.n;
		if (lines[i].key != key)
			continue;
		if (runs && here != runs)
			return 0;
		runs = here;
	}
	return runs;
}

/* key's lines of one kind (fio's metrics, or the layers) as a table of at
 * most 120 columns: each side's runs in its header when all lines agree,
 * each line's interval and the rest of its verdict in a note under it. */
static void print_table(const na_cmp_line *lines, size_t n, const na_cmp_row *key, bool layers)
{
	size_t na = same_n(lines, n, key, false), nb = same_n(lines, n, key, true);
	char ha[48] = "A GEOMEAN", hb[48] = "B GEOMEAN";
	if (na && nb) {
		snprintf(ha, sizeof(ha), "A GEOMEAN (n=%zu)", na);
		snprintf(hb, sizeof(hb), "B GEOMEAN (n=%zu)", nb);
	}
	const char *headers[] = {layers ? "LAYER" : "METRIC", ha, hb, "CHANGE B/A", "VERDICT"};
	na_table *t = na_table_new(5, headers);
	bool any = false, no_side = false;
	for (size_t i = 0; t && i < n; i++) {
		if (lines[i].key != key)
			continue;
		na_cmp_cells s;
		if (layers)
			na_cmp_layer_cells_of(&lines[i], &s);
		else
			na_cmp_cells_of(&lines[i], &s);
		const char *row[] = {s.metric, na && nb ? s.a_bare : s.a, na && nb ? s.b_bare : s.b,
		                     s.change_bare, s.verdict_bare};
		na_table_add(t, row);
		if (s.note[0])
			na_table_note(t, s.note);
		no_side |= layers && !na_layers[lines[i].metric].judged && !s.note[0];
		any = true;
	}
	if (t && any) {
		if (layers)
			putchar('\n');
		na_table_print(t, stdout);
	}
	if (no_side)
		printf("no verdict: neither side of these is better by itself\n");
	na_table_free(&t);
}

/* Under a key's fio rows: what ESXi and the pool saw of the same runs. */
static void print_layers_md(const comparison *c, const na_cmp_row *key)
{
	bool any = false;
	for (size_t i = 0; i < c->cmp.n_layers; i++) {
		if (c->cmp.layers[i].key != key)
			continue;
		na_cmp_cells s;
		na_cmp_layer_cells_of(&c->cmp.layers[i], &s);
		const char *row[] = {s.metric, s.a, s.b, s.change, s.verdict};
		if (!any)
			printf("\n| Layer | %s | %s | Change B/A | Verdict |\n|---|---|---|---|---|\n",
			       md_side[0], md_side[1]);
		for (size_t k = 0; k < 5; k++) {
			fputs("| ", stdout);
			md_text(row[k]);
			fputs(k == 4 ? " |\n" : " ", stdout);
		}
		any = true;
	}
	if (any)
		putchar('\n');
}

static void print_text(const comparison *c)
{
	print_header(c, false);
	for (size_t i = 0; i < c->cmp.n;) {
		const na_cmp_line *first = &c->cmp.lines[i];
		size_t from = i;
		while (i < c->cmp.n && c->cmp.lines[i].key == first->key)
			i++;
		printf("\n%s\n", profile_of(first));
		print_table(c->cmp.lines + from, i - from, first->key, false);
		print_notes(c, from, i, "");
		print_table(c->cmp.layers, c->cmp.n_layers, first->key, true);
	}
	putchar('\n');
	print_method(c, true);
}

static void print_markdown(const comparison *c)
{
	print_header(c, true);
	for (size_t i = 0; i < c->cmp.n; i++) {
		const na_cmp_line *l = &c->cmp.lines[i];
		if (i == 0 || l->key != c->cmp.lines[i - 1].key) {
			fputs("\n### ", stdout);
			md_text(profile_of(l));
			printf("\n\n| Metric | %s | %s | Change B/A | Verdict |\n|---|---|---|---|---|\n",
			       md_side[0], md_side[1]);
		}
		na_cmp_cells s;
		na_cmp_cells_of(l, &s);
		const char *cells[] = {s.metric, s.a, s.b, s.change, s.verdict};
		for (size_t k = 0; k < 5; k++) {
			fputs("| ", stdout);
			md_text(cells[k]);
			fputs(" ", stdout);
		}
		fputs("|\n", stdout);
		if (i + 1 == c->cmp.n || c->cmp.lines[i + 1].key != l->key) {
			size_t from = i;
			while (from && c->cmp.lines[from - 1].key == l->key)
				from--;
			putchar('\n');
			print_notes(c, from, i + 1, "- ");
			print_layers_md(c, l->key);
		}
	}
	putchar('\n');
	print_method(c, false);
}

/* ---- CSV and JSON ---- */

/* RFC 4180: quote every field, double the quotes. */
static void csv_field(const char *s, bool last)
{
	putchar('"');
	for (; s && *s; s++)
		fputs(*s == '"' ? "\"\"" : (char[2]){*s, '\0'}, stdout);
	fputs(last ? "\"\n" : "\",", stdout);
}

/* center first, the figure the change is the ratio of (the effect's). */
static void csv_spread(const na_spread *s, double center)
{
	char v[5][48] = {""};
	if (!isnan(center))
		snprintf(v[0], sizeof(v[0]), "%.3f", center);
	snprintf(v[1], sizeof(v[1]), "%.3f", s->median);
	snprintf(v[2], sizeof(v[2]), "%.3f", s->min);
	snprintf(v[3], sizeof(v[3]), "%.3f", s->max);
	snprintf(v[4], sizeof(v[4]), "%zu", s->n);
	for (size_t i = 0; i < 5; i++)
		csv_field(v[i], false);
}

static const char *bool_text(bool b)
{
	return b ? "true" : "false";
}

/* One line's row: its direction (or layer), metric, unit and figures. */
static void csv_line(const na_cmp_line *l, const char *direction, const char *metric,
                     const char *unit, const char *lower_is_better, const char *verdict)
{
	const na_effect *e = &l->eff;
	const double v[] = {na_effect_pct(e), (e->lo - 1) * 100, (e->hi - 1) * 100,
	                    isnan(e->lo) ? NAN : (1 - e->alpha) * 100, e->p,
	                    e->judged ? e->p_holm : NAN, e->mde * 100, e->mde_drop * 100,
	                    e->judged ? (double)e->family : NAN, (double)e->stalled_a,
	                    (double)e->stalled_b};
	csv_field(profile_of(l), false);
	csv_field(direction, false);
	csv_field(metric, false);
	csv_field(unit, false);
	csv_field(lower_is_better, false);
	csv_spread(&l->sa, l->eff.center_a);
	csv_spread(&l->sb, l->eff.center_b);
	for (size_t k = 0; k < sizeof(v) / sizeof(*v); k++) {
		char num[48] = "";
		if (!isnan(v[k]))
			snprintf(num, sizeof(num), k < 3 || k == 6 || k == 7 ? "%.2f" : "%.6g", v[k]);
		csv_field(num, false);
	}
	csv_field(verdict, true);
}

static void print_csv(const comparison *c)
{
	static const char *const headers[] = {"profile", "direction", "metric", "unit", "lower_is_better",
	                                      "a_geomean", "a_median", "a_min", "a_max", "a_n",
	                                      "b_geomean", "b_median", "b_min", "b_max", "b_n", "change_pct", "ci_low_pct", "ci_high_pct",
	                                      "ci_level_pct", "p", "p_holm", "mde_rise_pct",
	                                      "mde_drop_pct", "family_lines", "left_out_a",
	                                      "left_out_b", "verdict"};
	enum { N_HEADERS = sizeof(headers) / sizeof(*headers) };
	for (size_t i = 0; i < N_HEADERS; i++)
		csv_field(headers[i], i + 1 == N_HEADERS);
	for (size_t i = 0; i < c->cmp.n; i++) {
		const na_cmp_line *l = &c->cmp.lines[i];
		csv_line(l, na_dir_names[l->dir], na_metrics[l->metric].key, na_cmp_unit(l->metric),
		         bool_text(na_metrics[l->metric].lower_is_better), na_noise_name(l->eff.verdict));
	}
	/* the layers' lines: direction "esxi" or "pool" */
	for (size_t i = 0; i < c->cmp.n_layers; i++) {
		const na_cmp_line *l = &c->cmp.layers[i];
		const na_layer_info *m = &na_layers[l->metric];
		/* a layer without a better side has no direction and no verdict */
		csv_line(l, l->metric <= NA_L_ESXI_WRITE ? "esxi" : "pool", m->key,
		         m->unit[0] == ' ' ? m->unit + 1 : m->unit,
		         m->judged ? bool_text(m->lower_is_better) : "", na_cmp_layer_verdict(l));
	}
}

/* A layer's line: the guest's figures' neighbours, judged the same way. */
static json_t *layer_json(const na_cmp_line *l)
{
	const na_layer_info *m = &na_layers[l->metric];
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:b}", "profile", profile_of(l),
	                      "layer", l->metric <= NA_L_ESXI_WRITE ? "esxi" : "pool", "metric", m->key,
	                      "unit", m->unit[0] == ' ' ? m->unit + 1 : m->unit,
	                      "lower_is_better", m->lower_is_better);
	json_object_update_new(o, na_cmp_effect_json(l, m->lower_is_better));
	/* Only a layer with a better side has a verdict (and a "better"). */
	json_object_set_new(o, "verdict", json_string(na_cmp_layer_verdict(l)));
	if (!m->judged) {
		json_object_set_new(o, "better", json_null());
		json_object_set_new(o, "lower_is_better", json_null());
		json_object_set_new(o, "method", json_string("no test: neither side is better by itself"));
	}
	return o;
}

/* The values, and how many runs had each. */
static json_t *strings_json(char *const *v, const size_t *count, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, count ? json_pack("{s:s, s:I}", "value", v[i], "runs", (json_int_t)count[i])
		                               : json_string(v[i]));
	return a;
}

static json_t *group_json(const char *selector, const na_cmp_group *g, const char *only,
                          const char *fell)
{
	size_t n = 0;
	for (size_t i = 0; i < g->n; i++)
		n += g->rows[i].fell_back;
	return json_pack("{s:s, s:I, s:s?, s:I, s:s?}", "selector", selector, "results", (json_int_t)g->n,
	                 "only_profiles", only, "ran_as_nfs3", (json_int_t)n, "ran_as_text", fell);
}

/* Each MB/s line at a host's link: its profile, direction, which sides. */
static json_t *network_json(const comparison *c)
{
	json_t *v = json_array();
	for (size_t i = 0; i < c->n_net; i++) {
		const na_cmp_hint *h = &c->net[i];
		json_array_append_new(v, json_pack("{s:s, s:s, s:b, s:b, s:s}", "profile", profile_of(h->line),
		                                   "direction", na_dir_names[h->line->dir],
		                                   "a", (h->sides & NA_NET_A) != 0, "b", (h->sides & NA_NET_B) != 0,
		                                   "text", h->text));
	}
	return v;
}

static void print_json(const comparison *c)
{
	json_t *factors = json_array(), *lines = json_array();
	for (size_t i = 0; i < c->n_factors; i++) {
		const na_factor *f = &c->factors[i];
		json_array_append_new(factors, json_pack("{s:s, s:o, s:o}", "name", f->name,
		                                         "a", strings_json(f->a, f->ca, f->na),
		                                         "b", strings_json(f->b, f->cb, f->nb)));
	}
	for (size_t i = 0; i < c->cmp.n; i++) {
		json_t *o = na_cmp_line_json(&c->cmp.lines[i]);
		json_object_set_new(o, "profile", json_string(profile_of(&c->cmp.lines[i])));
		json_array_append_new(lines, o);
	}
	json_t *root = json_pack("{s:o, s:o, s:o, s:s, s:s?, s:o, s:I, s:s}",
	                         "a", group_json(c->args->a, &c->a, c->only_a, c->fell[0]),
	                         "b", group_json(c->args->b, &c->b, c->only_b, c->fell[1]), "factors", factors,
	                         "factors_text", c->sentence, "time_warning", c->time_warning,
	                         "comparisons", lines, "verdict_lines", (json_int_t)c->cmp.judged,
	                         "noise_method", na_noise_method);
	json_t *layers = json_array();
	for (size_t i = 0; i < c->cmp.n_layers; i++)
		json_array_append_new(layers, layer_json(&c->cmp.layers[i]));
	json_object_set_new(root, "recordsize_changed_under_disk", strings_json(c->traps, NULL, c->n_traps));
	json_object_set_new(root, "not_nfs3_vs_nfs41", c->not_protocols ? json_string(c->not_protocols)
	                                                                 : json_null());
	json_object_set_new(root, "layers", layers);
	json_object_set_new(root, "label_conflicts", strings_json(c->conflicts, NULL, c->n_conflicts));
	json_object_set_new(root, "network_bound", network_json(c));
	json_object_set_new(root, "slog_bound", json_pack("{s:s?, s:s?}", "a", c->slog[0], "b", c->slog[1]));
	json_object_set_new(root, "limited_by", strings_json(c->limits, NULL, c->n_limits));
	na_json_print(root);
}

/* ---- the command ---- */

static vs_status compare(const compare_args *a, na_outcome *out)
{
	na_store *store = NULL;
	comparison c = {.args = a};
	vs_status rc = na_store_open_readonly(a->db, &store, &out->err);
	if (rc == VS_OK)
		rc = build(&c, store, &out->err);
	if (rc == VS_OK && a->json)
		print_json(&c);
	else if (rc == VS_OK && a->csv)
		print_csv(&c);
	else if (rc == VS_OK && a->markdown)
		print_markdown(&c);
	else if (rc == VS_OK)
		print_text(&c);
	comparison_free(&c);
	na_store_close(&store);
	return rc;
}

static int on_option(int opt, const char *arg, void *ud, na_outcome *out)
{
	compare_args *a = ud;
	switch (opt) {
	case OPT_A: a->a = arg; return 1;
	case OPT_B: a->b = arg; return 1;
	case OPT_DB: a->db = arg; return 1;
	case OPT_CSV: a->csv = true; return 1;
	case OPT_MARKDOWN: a->markdown = true; return 1;
	case OPT_MIN_CHANGE:
	case OPT_RUNS_NEEDED: {
		double *v = opt == OPT_MIN_CHANGE ? &a->min_change : &a->runs_needed;
		bool ok = na_percent_parse(arg, v) && *v < 1000 && (opt == OPT_MIN_CHANGE || *v > 0);
		*v /= 100;
		if (ok)
			return 1;
		na_usage_error(out, "--%s wants a percentage like 10%%, not '%s'",
		               opt == OPT_MIN_CHANGE ? "min-change" : "runs-needed", arg);
		return -1;
	}
	default: return 0;
	}
}

vs_status cmd_compare(int argc, char **argv, na_outcome *out)
{
	static const struct option longopts[] = {
		{"a", required_argument, NULL, OPT_A},       {"b", required_argument, NULL, OPT_B},
		{"db", required_argument, NULL, OPT_DB},     {"csv", no_argument, NULL, OPT_CSV},
		{"markdown", no_argument, NULL, OPT_MARKDOWN}, {"json", no_argument, NULL, NA_OPT_JSON},
		{"min-change", required_argument, NULL, OPT_MIN_CHANGE},
		{"runs-needed", required_argument, NULL, OPT_RUNS_NEEDED},
		{"help", no_argument, NULL, NA_OPT_HELP},    {0},
	};
	compare_args a = {0};
	int go = na_parse_local_options(argc, argv, longopts, usage, on_option, &a, &a.json, out);
	if (go <= 0)
		return go < 0 ? out->err.status : VS_OK;
	if (!a.a || !a.b)
		return na_usage_error(out, "give both groups: --a SELECTOR --b SELECTOR");
	if (a.json + a.csv + a.markdown > 1)
		return na_usage_error(out, "choose one of --json, --csv and --markdown");
	return compare(&a, out);
}
