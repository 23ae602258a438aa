/* nfsagent compare: two groups of recorded results side by side, profile by
 * profile, in the seeds' before/after shape (metric | A | B | change), with
 * whether each change is more than run-to-run noise, and the factors in
 * which the groups differ, since a comparison that changes two things at
 * once cannot say which one helped. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "compare.h"

static const char usage[] =
	"Usage: nfsagent compare --a SELECTOR --b SELECTOR [--db FILE]\n"
	"                        [--json | --csv | --markdown]\n"
	"Compares two groups of recorded results, profile by profile: IOPS, MB/s, average\n"
	"and p99 latency per direction, as median (min-max, n=runs) of A and of B, the\n"
	"change from A to B, and whether it is beyond run-to-run noise.\n"
	"SELECTOR is comma-separated field=value conditions, as results --where takes\n"
	"them (protocol=NFS41,recordsize=64K or campaign=RUN,target=nfs41); only ok\n"
	"runs count.\n"
	"Names the factors (protocol, ESXi build, host, labels, ...) in which A and B\n"
	"differ.\n";

enum { OPT_A = NA_OPT_FIRST_COMMAND_OPTION, OPT_B, OPT_DB, OPT_CSV, OPT_MARKDOWN };
static const int by_profile[] = {NA_F_PROFILE};

typedef struct compare_args {
	const char *a, *b, *db;
	bool json, csv, markdown;
} compare_args;

typedef struct comparison {
	const compare_args *args;
	na_cmp_group a, b;
	char *only_a, *only_b;     /* profiles left out, "x, y" or NULL */
	na_cmp cmp;
	na_factor *factors;
	size_t n_factors;
	char *sentence;
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
			fprintf(out, "%s%s", n++ ? ", " : "", r->field[NA_F_PROFILE] ? r->field[NA_F_PROFILE] : "-");
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
	rc = na_cmp_run(&c->a, &c->b, by_profile, 1, &c->cmp);
	if (rc == VS_OK && !c->cmp.n)
		return vs_fail(err, VS_ERR_NOT_FOUND, "nothing to compare: no profile has comparable ok "
		               "results in both groups (only in A: %s; only in B: %s)",
		               c->only_a ? c->only_a : "none", c->only_b ? c->only_b : "none");
	if (rc == VS_OK)
		rc = na_cmp_factors(&c->a, &c->b, &c->factors, &c->n_factors);
	if (rc == VS_OK && !(c->sentence = na_factors_sentence(c->factors, c->n_factors)))
		rc = VS_ERR_NOMEM;
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
}

/* ---- text and markdown ---- */

static const char *profile_of(const na_cmp_line *l)
{
	return l->key->field[NA_F_PROFILE] ? l->key->field[NA_F_PROFILE] : "-";
}

static void print_header(const comparison *c, bool md)
{
	const char *quote = md ? "`" : "", *bold = md ? "**" : "", *gap = md ? "\n" : "";
	printf("%sA%s: %s%s%s (%zu ok results)%s\n", bold, bold, quote, c->args->a, quote, c->a.n, md ? "  " : "");
	printf("%sB%s: %s%s%s (%zu ok results)\n", bold, bold, quote, c->args->b, quote, c->b.n);
	printf("%s%s\n", gap, c->sentence);
	if (c->only_a)
		printf("%snot compared, only in A: %s\n", gap, c->only_a);
	if (c->only_b)
		printf("%snot compared, only in B: %s\n", gap, c->only_b);
}

static void print_text(const comparison *c)
{
	static const char *const headers[] = {"METRIC", "A", "B", "CHANGE", "NOISE"};
	print_header(c, false);
	for (size_t i = 0; i < c->cmp.n;) {
		const na_cmp_line *first = &c->cmp.lines[i];
		na_table *t = na_table_new(5, headers);
		for (; i < c->cmp.n && c->cmp.lines[i].key == first->key; i++) {
			na_cmp_cells s;
			na_cmp_cells_of(&c->cmp.lines[i], &s);
			const char *row[] = {s.metric, s.a, s.b, s.change, na_noise_name(c->cmp.lines[i].noise)};
			if (t)
				na_table_add(t, row);
		}
		printf("\n%s\n", profile_of(first));
		if (t)
			na_table_print(t, stdout);
		na_table_free(&t);
	}
	putchar('\n');
	na_print_wrapped(stdout, na_noise_method, 80);
}

/* Markdown text: '|' would end a table cell. */
static void md_text(const char *s)
{
	for (; *s; s++)
		fputs(*s == '|' ? "\\|" : (char[2]){*s, '\0'}, stdout);
}

static void print_markdown(const comparison *c)
{
	print_header(c, true);
	for (size_t i = 0; i < c->cmp.n; i++) {
		const na_cmp_line *l = &c->cmp.lines[i];
		if (i == 0 || l->key != c->cmp.lines[i - 1].key) {
			fputs("\n### ", stdout);
			md_text(profile_of(l));
			fputs("\n\n| Metric | A | B | Change | Noise |\n|---|---|---|---|---|\n", stdout);
		}
		na_cmp_cells s;
		na_cmp_cells_of(l, &s);
		const char *cells[] = {s.metric, s.a, s.b, s.change, na_noise_name(l->noise)};
		for (size_t k = 0; k < 5; k++) {
			fputs("| ", stdout);
			md_text(cells[k]);
			fputs(" ", stdout);
		}
		fputs("|\n", stdout);
	}
	printf("\n%s\n", na_noise_method);
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

static const char *unit_of(int metric)
{
	return na_metrics[metric].lower_is_better ? "us" : metric == NA_M_MBPS ? "MB/s" : "IOPS";
}

static void csv_spread(const na_spread *s)
{
	char v[4][48];
	snprintf(v[0], sizeof(v[0]), "%.3f", s->median);
	snprintf(v[1], sizeof(v[1]), "%.3f", s->min);
	snprintf(v[2], sizeof(v[2]), "%.3f", s->max);
	snprintf(v[3], sizeof(v[3]), "%zu", s->n);
	for (size_t i = 0; i < 4; i++)
		csv_field(v[i], false);
}

static void print_csv(const comparison *c)
{
	static const char *const headers[] = {"profile", "direction", "metric", "unit", "lower_is_better",
	                                      "a_median", "a_min", "a_max", "a_n", "b_median", "b_min",
	                                      "b_max", "b_n", "change_pct", "noise"};
	for (size_t i = 0; i < 15; i++)
		csv_field(headers[i], i == 14);
	for (size_t i = 0; i < c->cmp.n; i++) {
		const na_cmp_line *l = &c->cmp.lines[i];
		char change[48] = "";
		if (!isnan(l->change_pct))
			snprintf(change, sizeof(change), "%.2f", l->change_pct);
		csv_field(profile_of(l), false);
		csv_field(na_dir_names[l->dir], false);
		csv_field(na_metrics[l->metric].key, false);
		csv_field(unit_of(l->metric), false);
		csv_field(na_metrics[l->metric].lower_is_better ? "true" : "false", false);
		csv_spread(&l->sa);
		csv_spread(&l->sb);
		csv_field(change, false);
		csv_field(na_noise_name(l->noise), true);
	}
}

static json_t *spread_json(const na_spread *s, const double *v)
{
	json_t *values = json_array();
	for (size_t i = 0; i < s->n; i++)
		json_array_append_new(values, json_real(v[i]));
	return json_pack("{s:f, s:f, s:f, s:I, s:o}", "median", s->median, "min", s->min, "max", s->max,
	                 "n", (json_int_t)s->n, "values", values);
}

json_t *na_cmp_line_json(const na_cmp_line *l)
{
	bool extreme = l->sa.n && l->sb.n && !na_ranges_overlap(&l->sa, &l->sb);
	double p = na_mann_whitney_extreme_p(l->sa.n, l->sb.n);
	bool known = !isnan(l->change_pct) && l->change_pct != 0;
	bool better = (l->change_pct > 0) != na_metrics[l->metric].lower_is_better;
	return json_pack("{s:s, s:s, s:s, s:b, s:o, s:o, s:o, s:o, s:s, s:b, s:o}",
	                 "direction", na_dir_names[l->dir], "metric", na_metrics[l->metric].key,
	                 "unit", unit_of(l->metric), "lower_is_better", na_metrics[l->metric].lower_is_better,
	                 "a", spread_json(&l->sa, l->a), "b", spread_json(&l->sb, l->b),
	                 "change_pct", isnan(l->change_pct) ? json_null() : json_real(l->change_pct),
	                 "better", known ? json_boolean(better) : json_null(),
	                 "noise", na_noise_name(l->noise), "ranges_overlap", !extreme,
	                 "mann_whitney_p", extreme ? json_real(p) : json_null());
}

static json_t *strings_json(char *const *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static json_t *group_json(const char *selector, const na_cmp_group *g, const char *only)
{
	return json_pack("{s:s, s:I, s:s?}", "selector", selector, "results", (json_int_t)g->n,
	                 "only_profiles", only);
}

static void print_json(const comparison *c)
{
	json_t *factors = json_array(), *lines = json_array();
	for (size_t i = 0; i < c->n_factors; i++) {
		const na_factor *f = &c->factors[i];
		json_array_append_new(factors, json_pack("{s:s, s:o, s:o}", "name", f->name,
		                                         "a", strings_json(f->a, f->na),
		                                         "b", strings_json(f->b, f->nb)));
	}
	for (size_t i = 0; i < c->cmp.n; i++) {
		json_t *o = na_cmp_line_json(&c->cmp.lines[i]);
		json_object_set_new(o, "profile", json_string(profile_of(&c->cmp.lines[i])));
		json_array_append_new(lines, o);
	}
	na_json_print(json_pack("{s:o, s:o, s:o, s:s, s:o, s:s}",
	                        "a", group_json(c->args->a, &c->a, c->only_a),
	                        "b", group_json(c->args->b, &c->b, c->only_b), "factors", factors,
	                        "factors_text", c->sentence, "comparisons", lines,
	                        "noise_method", na_noise_method));
}

/* ---- the command ---- */

/* Our own refusals are whole sentences; the store's errors say what failed. */
static int report(const vs_error *err)
{
	if (err->context[0])
		return na_report(err);
	na_error("%s", err->message);
	return na_exit_code(err);
}

static int compare(const compare_args *a)
{
	na_store *store = NULL;
	vs_error err = {0};
	comparison c = {.args = a};
	int rc = na_store_open_readonly(a->db, &store, &err);
	if (rc == VS_OK)
		rc = build(&c, store, &err);
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
	return rc == VS_OK ? NA_EXIT_OK : report(&err);
}

static int on_option(int opt, const char *arg, void *ud)
{
	compare_args *a = ud;
	switch (opt) {
	case OPT_A: a->a = arg; return 1;
	case OPT_B: a->b = arg; return 1;
	case OPT_DB: a->db = arg; return 1;
	case OPT_CSV: a->csv = true; return 1;
	case OPT_MARKDOWN: a->markdown = true; return 1;
	default: return 0;
	}
}

int cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"a", required_argument, NULL, OPT_A},       {"b", required_argument, NULL, OPT_B},
		{"db", required_argument, NULL, OPT_DB},     {"csv", no_argument, NULL, OPT_CSV},
		{"markdown", no_argument, NULL, OPT_MARKDOWN}, {"json", no_argument, NULL, NA_OPT_JSON},
		{"help", no_argument, NULL, NA_OPT_HELP},    {0},
	};
	na_conn conn = {.cmd = "compare"};
	compare_args a = {0};
	int rc = na_parse_options(&conn, argc, argv, longopts, usage, on_option, &a);
	a.json = conn.json;
	na_conn_close(&conn, NULL);
	if (rc < 0 && optind < argc)
		rc = na_usage_error("compare", "unexpected argument '%s'", argv[optind]);
	if (rc < 0 && (!a.a || !a.b))
		rc = na_usage_error("compare", "give both groups: --a SELECTOR --b SELECTOR");
	if (rc < 0 && a.json + a.csv + a.markdown > 1)
		rc = na_usage_error("compare", "choose one of --json, --csv and --markdown");
	return rc < 0 ? compare(&a) : rc;
}
