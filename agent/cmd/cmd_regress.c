/* nfsagent regress: did a new ESXi build (or anything else) make a datastore
 * slower?  Compares candidate runs with baseline runs of the same datastore,
 * protocol and profile against limits, counts only changes whose whole
 * confidence interval is past the limit, passes only those whose whole
 * interval is within it, and says it cannot tell for the rest; reports
 * when the NFS 4.1 probe verdict changed between the builds.  Exit 1 on a
 * regression, 8 when it cannot tell, for CI. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "output.h"
#include "analysis/compare.h"

static const char usage[] =
	"Usage: nfsagent regress --baseline SELECTOR [--candidate SELECTOR]\n"
	"                        [--max-drop METRIC=PCT] [--max-rise METRIC=PCT]\n"
	"                        [--db FILE|URL] [--junit FILE] [--undecided fail|skip]\n"
	"                        [--json]\n"
	"Compares candidate results with baseline results of the same datastore, protocol\n"
	"and profile. SELECTOR is comma-separated field=value conditions\n"
	"(esxi_build=24022510, campaign=RUN); only ok runs count. Without --candidate the\n"
	"candidate is the newest results: the runs on the ESXi build of the newest ok run\n"
	"that is not in the baseline.\n"
	"  --max-drop iops=10%   highest tolerated drop of iops or mbps\n"
	"                        (default iops=10%)\n"
	"  --max-rise p99=20%    highest tolerated rise of avg or p99 latency\n"
	"                        (default p99=20%)\n"
	"                        Both repeat; giving one replaces that option's default.\n"
	"  --junit FILE          also write JUnit XML, one test case per\n"
	"                        datastore/profile/metric\n"
	"  --undecided fail      a check that cannot tell is a JUnit failure (default),\n"
	"                        or with skip a skipped case; its message says why\n"
	"A regression is a change whose whole 95% confidence interval lies past the\n"
	"limit: a drop of iops=10% needs the interval's top below -10%. A check is ok\n"
	"when its whole interval lies within the limit, and \"cannot tell with these\n"
	"runs\" when the interval reaches both sides of it (or with fewer than 3 runs a\n"
	"side, \"too few runs to tell\"): more runs would tell, and it is never a pass.\n"
	"A probe verdict that newly shows the NFS 4.1 extent-size bug is a regression\n"
	"too. Exit 0 when every check is within its limits, 1 on a regression, 8 when\n"
	"none regressed but some cannot tell, 2 on an error or when there is nothing\n"
	"to compare.\n"
	"Examples:\n"
	"  nfsagent regress --baseline esxi_build=24022510 --junit regress.xml\n"
	"  nfsagent regress --baseline esxi_build=24022510 --max-drop iops=5% \\\n"
	"        --max-rise p99=10% --json\n";

static const char regress_method[] =
	"A regression is a change whose whole 95% confidence interval (from a t test on the runs' "
	"logarithms) lies past its limit, so that the runs prove at least that much of a drop or "
	"rise; a check is ok when its whole interval lies within its limit, and when the interval "
	"reaches both sides of the limit these runs \"cannot tell\" (fewer than 3 runs a side: "
	"\"too few runs to tell\"), which is no pass: more runs a side would tell. Each check is "
	"held to 95% on its own: a candidate that truly sits at the limit shows as a regression "
	"(or as ok) in at most 1 check in 40.";

enum { OPT_BASELINE = NA_OPT_FIRST_COMMAND_OPTION, OPT_CANDIDATE, OPT_DROP, OPT_RISE, OPT_DB, OPT_JUNIT,
       OPT_UNDECIDED };
enum { MAX_LIMITS = 16 };
static const int by_target[] = {NA_FIELD_datastore, NA_FIELD_datastore_type, NA_FIELD_profile};
static const int by_datastore[] = {NA_FIELD_datastore};

typedef struct regress_args {
	const char *baseline, *candidate, *db, *junit;
	na_threshold limits[MAX_LIMITS];
	size_t n_limits;
	bool drops, rises, json;
	bool skip_undecided;    /* --undecided skip: JUnit skips what cannot tell */
} regress_args;

/* A check's three outcomes: a pass must be shown by the runs as much as a
 * regression, so what they cannot tell is an outcome of its own. */
typedef enum outcome { WITHIN, REGRESSION, UNDECIDED } outcome;
static const char *const outcome_names[] = {"within limits", "regression", "cannot tell"};

typedef struct check {
	const na_cmp_line *line;
	const na_threshold *limit;
	const char *verdict;
	outcome outcome;
} check;

typedef struct probe_side {
	bool found, bug;
	char build[64];
	char extent_case[16];  /* "host", "export", "transient" or "" */
} probe_side;

typedef struct probe_check {
	const char *datastore;
	probe_side side[2];     /* baseline, candidate */
	char text[512];         /* "" when the verdict did not change */
	bool compared, regression;
} probe_check;

typedef struct regress_state {
	const regress_args *args;
	na_cmp_group base, cand;
	char cand_build[256];   /* the default candidate's build */
	na_cmp cmp;
	check *checks;
	size_t n_checks, n_regressions, n_undecided;
	probe_check *probes;
	size_t n_probes, n_compared;  /* datastores, those with a verdict on both sides */
	char *time_warning;     /* the baseline all ran before the candidate (or after); NULL */
} regress_state;

/* ---- thresholds (declared in compare.h) ---- */

int na_threshold_parse(const char *arg, bool rise, na_threshold *t, vs_error *err)
{
	const char *opt = rise ? "--max-rise" : "--max-drop";
	const char *eq = strchr(arg, '=');
	t->metric = -1;
	t->rise = rise;
	for (int m = 0; eq && m < NA_M_COUNT; m++)
		if (na_metrics[m].lower_is_better == rise && strlen(na_metrics[m].key) == (size_t)(eq - arg) &&
		    strncmp(arg, na_metrics[m].key, (size_t)(eq - arg)) == 0)
			t->metric = m;
	if (t->metric < 0)
		return vs_fail(err, VS_ERR_USAGE, "%s wants %s=PCT, not '%s'", opt,
		               rise ? "avg|p99" : "iops|mbps", arg);
	/* A drop of 100% or more can never be exceeded. */
	if (!na_percent_parse(eq + 1, &t->pct) || t->pct > 1e6 || (!rise && t->pct >= 100))
		return vs_fail(err, VS_ERR_USAGE, "%s %s: the limit is a percentage like 10%%%s", opt, arg,
		               rise ? "" : ", below 100%");
	return VS_OK;
}

bool na_threshold_exceeded(const na_threshold *t, double change_pct)
{
	if (isnan(change_pct))
		return false;
	return t->rise ? change_pct > t->pct : change_pct < -t->pct;
}

/* The interval's near end past the limit: a drop whose whole 95% interval
 * lies below -limit, a rise whose whole interval lies above +limit. */
bool na_threshold_clear(const na_threshold *t, const na_effect *e)
{
	return na_threshold_exceeded(t, ((t->rise ? e->lo : e->hi) - 1) * 100);
}

bool na_threshold_within(const na_threshold *t, const na_effect *e)
{
	return !isnan(e->lo) && !na_threshold_exceeded(t, ((t->rise ? e->hi : e->lo) - 1) * 100);
}

/* ---- the candidate ---- */

typedef struct newest {
	const na_cmp_group *base;
	const char *build;      /* NULL: the newest run's build is not recorded */
} newest;

static bool on_newest_build(const na_cmp_row *r, void *ud)
{
	const newest *n = ud;
	const char *b = r->field[NA_FIELD_esxi_build];
	return !na_cmp_group_has(n->base, r->id) && (b ? n->build && strcmp(b, n->build) == 0 : !n->build);
}

/* The default candidate: every ok run, not in the baseline, on the ESXi
 * build of the newest such run.  "Newest" is the largest id, the order runs
 * were recorded in; a build is what an upgrade changes. */
static int newest_results(regress_state *r, na_store *s, vs_error *err)
{
	int rc = na_cmp_load(s, "status=ok", &r->cand, err);
	const na_cmp_row *last = NULL;
	for (size_t i = 0; rc == VS_OK && i < r->cand.n; i++)
		if (!na_cmp_group_has(&r->base, r->cand.rows[i].id))
			last = &r->cand.rows[i];
	if (rc == VS_OK && !last)
		return vs_fail(err, VS_ERR_NOT_FOUND, "nothing to compare: every ok result is in the baseline");
	if (rc != VS_OK)
		return rc;
	const char *build = last->field[NA_FIELD_esxi_build];
	snprintf(r->cand_build, sizeof(r->cand_build), "%s", build ? build : "unknown");
	newest n = {&r->base, build ? r->cand_build : NULL};
	na_cmp_group_filter(&r->cand, on_newest_build, &n);
	return VS_OK;
}

/* ---- checks ---- */

/* The rule: a regression is a change whose whole 95% interval lies past
 * the limit, or a candidate run at 0; ok, one whose whole interval lies
 * within it.  An interval reaching both sides of the limit (a -83.5% drop
 * of 3 noisy runs a side whose interval reaches back to -5%) is neither:
 * these runs cannot tell, and that is said, never passed. */
static const char *judge(const na_cmp_line *l, const na_threshold *t, outcome *o)
{
	/* A candidate run that did nothing (a stall, left out of the test on
	 * logs) is a failure in itself, whatever the others did. */
	*o = REGRESSION;
	if (l->eff.stalled_b > 0)
		return "REGRESSION: a candidate run measured 0";
	if (na_threshold_clear(t, &l->eff))
		return "REGRESSION";
	*o = na_threshold_within(t, &l->eff) ? WITHIN : UNDECIDED;
	if (*o == WITHIN)
		return "ok";
	return l->eff.verdict == NA_NOISE_TOO_FEW ? na_noise_name(l->eff.verdict)
	                                          : "cannot tell with these runs";
}

static int add_checks(regress_state *r)
{
	r->checks = calloc(r->cmp.n * MAX_LIMITS + 1, sizeof(check));
	if (!r->checks)
		return VS_ERR_NOMEM;
	for (size_t i = 0; i < r->cmp.n; i++) {
		/* Each check is held to 95% on its own (regress_method), not to the
		 * profile's family level that compare uses. */
		na_effect_level(&r->cmp.lines[i].eff, NA_ALPHA);
		for (size_t k = 0; k < r->args->n_limits; k++) {
			const na_cmp_line *l = &r->cmp.lines[i];
			if (r->args->limits[k].metric != l->metric)
				continue;
			check *c = &r->checks[r->n_checks++];
			*c = (check){l, &r->args->limits[k], NULL, WITHIN};
			c->verdict = judge(l, c->limit, &c->outcome);
			r->n_regressions += c->outcome == REGRESSION;
			r->n_undecided += c->outcome == UNDECIDED;
		}
	}
	return VS_OK;
}

/* ---- probe verdicts ---- */

typedef struct probe_scan {
	const na_cmp_group *g;
	const na_cmp_row *key;
	probe_side *side;
} probe_scan;

/* A finding counts for a side when the side ran on its build on that
 * datastore and export (an export unknown on either side matches). */
static int on_finding(const na_finding *f, void *ud, vs_error *err)
{
	(void)err;
	probe_scan *p = ud;
	for (size_t i = 0; i < p->g->n; i++) {
		const na_cmp_row *r = &p->g->rows[i];
		const char *build = r->field[NA_FIELD_esxi_build], *exp = r->field[NA_FIELD_export_path];
		if (!na_cmp_same_key(r, p->key, by_datastore, 1) || !build || !f->esxi_build ||
		    strcmp(build, f->esxi_build) != 0 || (exp && f->export_path && strcmp(exp, f->export_path)))
			continue;
		/* Findings come in id order: the newest one wins. */
		*p->side = (probe_side){true, f->extent_bug, "", ""};
		snprintf(p->side->build, sizeof(p->side->build), "%s", f->esxi_build);
		snprintf(p->side->extent_case, sizeof(p->side->extent_case), "%s",
		         f->extent_case ? f->extent_case : "");
		break;
	}
	return VS_OK;
}

/* "clean", or "extent-size mismatch (one host's view)" and the like. */
static void side_verdict(const probe_side *p, char *out, size_t size)
{
	const char *why = !strcmp(p->extent_case, "host")       ? " (one host's view of the file)"
	                  : !strcmp(p->extent_case, "export")    ? " (the file itself short)"
	                  : !strcmp(p->extent_case, "transient") ? " (transient)"
	                  : !strcmp(p->extent_case, "unconfirmed") ? " (unconfirmed by a second host)"
	                                                         : "";
	snprintf(out, size, "%s%s", p->bug ? "extent-size mismatch" : "clean", p->bug ? why : "");
}

static int probe_one(regress_state *r, na_store *s, const na_cmp_row *key, vs_error *err)
{
	probe_check *p = &r->probes[r->n_probes++];
	*p = (probe_check){.datastore = key->field[NA_FIELD_datastore]};
	char cond[600];
	snprintf(cond, sizeof(cond), "datastore=%s", p->datastore ? p->datastore : "");
	const char *conds[] = {"kind=probe", cond};
	const na_cmp_group *groups[2] = {&r->base, &r->cand};
	int rc = VS_OK;
	for (int i = 0; rc == VS_OK && i < 2; i++) {
		probe_scan scan = {groups[i], key, &p->side[i]};
		rc = na_store_findings(s, conds, 2, on_finding, &scan, err);
	}
	p->compared = p->side[0].found && p->side[1].found;
	r->n_compared += p->compared;
	char said[2][64];
	for (int i = 0; i < 2; i++)
		side_verdict(&p->side[i], said[i], sizeof(said[i]));
	if (p->compared && p->side[0].bug != p->side[1].bug)
		snprintf(p->text, sizeof(p->text), "probe verdict changed on %s: %s on build %s, %s on build %s",
		         p->datastore ? p->datastore : "-", said[0], p->side[0].build, said[1],
		         p->side[1].build);
	/* The bug newly showing is a regression; it going away is news. */
	p->regression = p->text[0] && p->side[1].bug;
	r->n_regressions += p->regression;
	return rc;
}

/* Each datastore compared, once. */
static int probe_all(regress_state *r, na_store *s, vs_error *err)
{
	r->probes = calloc(r->cmp.n + 1, sizeof(probe_check));
	int rc = r->probes ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; rc == VS_OK && i < r->cmp.n; i++) {
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = na_cmp_same_key(r->cmp.lines[j].key, r->cmp.lines[i].key, by_datastore, 1);
		if (!seen)
			rc = probe_one(r, s, r->cmp.lines[i].key, err);
	}
	return rc;
}

/* ---- building ---- */

static int build(regress_state *r, na_store *s, vs_error *err)
{
	const regress_args *a = r->args;
	int rc = na_cmp_load(s, a->baseline, &r->base, err);
	char what[256];
	snprintf(what, sizeof(what), "nothing to compare: the baseline (%s)", a->baseline);
	if (rc == VS_OK && !r->base.n)
		return na_selector_none(s, what, a->baseline, err);
	if (rc == VS_OK)
		rc = a->candidate ? na_cmp_load(s, a->candidate, &r->cand, err) : newest_results(r, s, err);
	if (rc == VS_OK && !r->cand.n && a->candidate) {
		snprintf(what, sizeof(what), "nothing to compare: the candidate (%s)", a->candidate);
		return na_selector_none(s, what, a->candidate, err);
	}
	if (rc == VS_OK && !r->cand.n)
		return vs_fail(err, VS_ERR_NOT_FOUND, "nothing to compare: the candidate (the newest "
		               "results) has no ok results");
	if (rc == VS_OK && (rc = na_cmp_run(&r->base, &r->cand, by_target, 3, 0, &r->cmp)) != VS_OK)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	if (rc == VS_OK && !r->cmp.n)
		return vs_fail(err, VS_ERR_NOT_FOUND, "nothing to compare: no datastore, protocol and "
		               "profile has ok results in both the baseline and the candidate");
	if (rc == VS_OK && add_checks(r) != VS_OK)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	if (rc == VS_OK)
		r->time_warning = na_cmp_time_warning(&r->base, &r->cand, "the baseline", "the candidate");
	return rc == VS_OK ? probe_all(r, s, err) : rc;
}

static void regression_free(regress_state *r)
{
	na_cmp_group_free(&r->base);
	na_cmp_group_free(&r->cand);
	na_cmp_free(&r->cmp);
	free(r->checks);
	free(r->probes);
	free(r->time_warning);
}

/* ---- output ---- */

static const char *field(const na_cmp_line *l, int f)
{
	return l->key->field[f] ? l->key->field[f] : "-";
}

static void limit_text(const na_threshold *t, char *buf, size_t size)
{
	snprintf(buf, size, "%s%g%%", t->rise ? "+" : "-", t->pct);
}

static void candidate_text(const regress_state *r, char *buf, size_t size)
{
	if (r->args->candidate)
		snprintf(buf, size, "%s", r->args->candidate);
	else
		snprintf(buf, size, "esxi_build=%s, the newest results not in the baseline", r->cand_build);
}

/* The checks of one key (datastore, protocol, profile) from checks[from],
 * as a table of at most 120 columns under a line naming the key; returns
 * where the next key starts.  The runs a side are in the header when every
 * check agrees, each interval in a note under its line. */
static size_t print_key(const regress_state *r, size_t from)
{
	const na_cmp_line *first = r->checks[from].line;
	size_t to = from, na = first->sa.n, nb = first->sb.n;
	bool same = true, p99 = false;
	for (; to < r->n_checks && r->checks[to].line->key == first->key; to++)
		same &= r->checks[to].line->sa.n == na && r->checks[to].line->sb.n == nb;
	/* the change is the ratio of the geometric means: they are the figures */
	char hb[48] = "BASELINE GEOMEAN", hc[48] = "CANDIDATE GEOMEAN";
	if (same) {
		snprintf(hb, sizeof(hb), "BASELINE GEOMEAN (n=%zu)", na);
		snprintf(hc, sizeof(hc), "CANDIDATE GEOMEAN (n=%zu)", nb);
	}
	const char *headers[] = {"METRIC", hb, hc, "CHANGE", "LIMIT", "VERDICT"};
	na_table *t = na_table_new(6, headers);
	for (size_t i = from; t && i < to; i++) {
		const check *c = &r->checks[i];
		const na_cmp_line *l = c->line;
		na_cmp_cells s;
		char limit[32], metric[64], note[sizeof(s.change)];
		na_cmp_cells_of(l, &s);
		limit_text(c->limit, limit, sizeof(limit));
		/* "(of each run)" said once under the table */
		snprintf(metric, sizeof(metric), "%s %s", na_dir_names[l->dir], na_metrics[l->metric].label);
		p99 |= l->metric == NA_M_P99;
		const char *row[] = {metric, same ? s.a_bare : s.a, same ? s.b_bare : s.b, s.change_bare,
		                     limit, c->verdict};
		na_table_add(t, row);
		/* the check's verdict is its own: of the line's note, the interval */
		snprintf(note, sizeof(note), "%.*s", (int)strcspn(s.note, ";"), s.note);
		if (note[0])
			na_table_note(t, note);
	}
	printf("\n%s (%s), %s\n", field(first, NA_FIELD_datastore),
	       na_nfs_label(field(first, NA_FIELD_datastore_type)), field(first, NA_FIELD_profile));
	if (t)
		na_table_print(t, stdout);
	na_table_free(&t);
	if (p99)
		printf("p99 latency: the geometric mean of the runs' own p99s\n");
	return to;
}

/* "baseline: SELECTOR (6 ok results): nfs41 (ran as NFS 3: extent-size
 * bug)", wrapped. */
static void print_group(const char *name, const char *selector, const na_cmp_group *g)
{
	char *fell = na_cmp_fallback_text(g), *line = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&line, &size);
	if (out) {
		fprintf(out, "%s: %s (%zu ok results)%s%s", name, selector, g->n, fell ? ": " : "",
		        fell ? fell : "");
		fclose(out);
	}
	if (line)
		na_print_wrapped(stdout, line, NA_TEXT_WIDTH, 0, 2);
	free(line);
	free(fell);
}

static void print_text(const regress_state *r)
{
	char cand[320];
	candidate_text(r, cand, sizeof(cand));
	print_group("baseline", r->args->baseline, &r->base);
	print_group("candidate", cand, &r->cand);
	if (r->time_warning)
		na_warn_wrapped(r->time_warning);
	for (size_t i = 0; i < r->n_checks;)
		i = print_key(r, i);
	for (size_t i = 0; i < r->n_probes; i++)
		if (r->probes[i].text[0])
			printf("\n%s%s\n", r->probes[i].text, r->probes[i].regression ? " (REGRESSION)" : "");
	putchar('\n');
	if (r->n_regressions)
		printf("%zu regression%s: the whole interval past the limit\n", r->n_regressions,
		       na_s(r->n_regressions));
	else if (!r->n_undecided)
		printf("no regression: every check's interval within its limit (%zu check%s)\n",
		       r->n_checks, na_s(r->n_checks));
	if (r->n_undecided) {
		char line[400];
		snprintf(line, sizeof(line), "%s%zu check%s cannot tell with these runs (the interval "
		         "reaches both sides of the limit, or too few runs): no pass; more runs a side "
		         "would tell", r->n_regressions ? "" : "no regression shown, but ", r->n_undecided,
		         na_s(r->n_undecided));
		na_print_wrapped(stdout, line, NA_TEXT_WIDTH, 0, 2);
	}
	putchar('\n');
	na_print_wrapped(stdout, regress_method, 80, 0, 0);
}

static json_t *probe_json(const probe_check *p)
{
	json_t *sides[2];
	for (int i = 0; i < 2; i++)
		sides[i] = p->side[i].found
		               ? json_pack("{s:s, s:b, s:s?}", "esxi_build", p->side[i].build, "extent_bug",
		                           p->side[i].bug, "case",
		                           p->side[i].extent_case[0] ? p->side[i].extent_case : NULL)
		               : json_null();
	return json_pack("{s:s?, s:o, s:o, s:b, s:s?, s:b}", "datastore", p->datastore,
	                 "baseline", sides[0], "candidate", sides[1], "changed", p->text[0] != 0,
	                 "text", p->text[0] ? p->text : NULL, "regression", p->regression);
}

static void print_json(const regress_state *r)
{
	json_t *checks = json_array(), *probes = json_array(), *limits = json_array();
	for (size_t i = 0; i < r->args->n_limits; i++) {
		const na_threshold *t = &r->args->limits[i];
		json_array_append_new(limits, json_pack("{s:s, s:s, s:f}", "metric", na_metrics[t->metric].key,
		                                        "kind", t->rise ? "rise" : "drop", "pct", t->pct));
	}
	for (size_t i = 0; i < r->n_checks; i++) {
		const check *c = &r->checks[i];
		json_t *o = na_cmp_line_json(c->line);
		/* The check's verdict replaces the line's, kept as "noise". */
		json_object_set_new(o, "noise", json_string(na_noise_name(c->line->eff.verdict)));
		json_object_update_new(o, json_pack("{s:s, s:s, s:s, s:f, s:s, s:b}",
		    "datastore", field(c->line, NA_FIELD_datastore),
		    na_field_shown(NA_FIELD_datastore_type), field(c->line, NA_FIELD_datastore_type),
		    "profile", field(c->line, NA_FIELD_profile), "limit_pct", c->limit->rise ? c->limit->pct : -c->limit->pct,
		    "verdict", c->verdict, "regression", c->outcome == REGRESSION));
		json_object_set_new(o, "outcome", json_string(outcome_names[c->outcome]));
		json_array_append_new(checks, o);
	}
	for (size_t i = 0; i < r->n_probes; i++)
		json_array_append_new(probes, probe_json(&r->probes[i]));
	json_t *root = json_pack("{s:{s:s, s:I}, s:{s:s?, s:s?, s:I}, s:s?, s:o, s:o, s:o, s:I, s:s}",
	                        "baseline", "selector", r->args->baseline, "results", (json_int_t)r->base.n,
	                        "candidate", "selector", r->args->candidate, "esxi_build",
	                        r->args->candidate ? NULL : r->cand_build, "results", (json_int_t)r->cand.n,
	                        "time_warning", r->time_warning, "limits", limits, "checks", checks, "probes", probes,
	                        "regressions", (json_int_t)r->n_regressions, "noise_method", regress_method);
	json_object_set_new(root, "cannot_tell", json_integer((json_int_t)r->n_undecided));
	na_json_print(root);
}

/* ---- JUnit ---- */

static void xml_text(FILE *out, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default: fputc(*s, out);
		}
}

/* One test case: a pass (how NULL), a <failure type="how">, or with how
 * "skipped" a <skipped>; either with its message, so none is silent. */
static void junit_case(FILE *out, const char *classname, const char *name, const char *how,
                       const char *message, const char *body)
{
	fputs("  <testcase classname=\"", out);
	xml_text(out, classname);
	fputs("\" name=\"", out);
	xml_text(out, name);
	fputs(how ? "\">\n" : "\"/>\n", out);
	if (!how)
		return;
	bool skipped = strcmp(how, "skipped") == 0;
	if (skipped)
		fputs("    <skipped message=\"", out);
	else
		fprintf(out, "    <failure type=\"%s\" message=\"", how);
	xml_text(out, message);
	fputs(skipped ? "\"/>\n" : "\">", out);
	if (!skipped) {
		xml_text(out, body);
		fputs("</failure>\n", out);
	}
	fputs("  </testcase>\n", out);
}

static void junit_check(FILE *out, const check *c, bool skip_undecided)
{
	const na_cmp_line *l = c->line;
	na_cmp_cells s;
	char classname[600], name[400], limit[32], message[400], body[256];
	na_cmp_cells_of(l, &s);
	snprintf(classname, sizeof(classname), "%s (%s)", field(l, NA_FIELD_datastore), field(l, NA_FIELD_datastore_type));
	snprintf(name, sizeof(name), "%s %s %s %s", field(l, NA_FIELD_profile), na_dir_names[l->dir],
	         na_metrics[l->metric].key, c->limit->rise ? "rise" : "drop");
	limit_text(c->limit, limit, sizeof(limit));
	const char *why = c->outcome == REGRESSION ? "the whole interval is past the limit"
	                  : l->eff.verdict == NA_NOISE_TOO_FEW
	                      ? "too few runs to tell (fewer than 3 a side); more runs would tell"
	                      : "cannot tell with these runs: the interval reaches both sides of the "
	                        "limit; more runs a side would tell";
	snprintf(message, sizeof(message), "%s %s (limit %s): %s", s.metric, s.change, limit, why);
	snprintf(body, sizeof(body), "baseline %s; candidate %s", s.a, s.b);
	const char *how = c->outcome == REGRESSION ? "regression"
	                  : c->outcome == WITHIN   ? NULL
	                  : skip_undecided         ? "skipped"
	                                           : "undecided";
	junit_case(out, classname, name, how, message, body);
}

/* Created 0600 like the database: it names hosts, datastores and servers. */
static int write_junit(const regress_state *r, const char *path, vs_error *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	FILE *out = fd >= 0 && fchmod(fd, 0600) == 0 ? fdopen(fd, "w") : NULL;
	if (!out) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return vs_fail(err, VS_ERR_FAULT, "cannot write %s: %s", path, strerror(e));
	}
	bool skip = r->args->skip_undecided;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<testsuite name=\"nfsagent regress\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n",
	        r->n_checks + r->n_compared, r->n_regressions + (skip ? 0 : r->n_undecided),
	        skip ? r->n_undecided : 0);
	for (size_t i = 0; i < r->n_checks; i++)
		junit_check(out, &r->checks[i], skip);
	for (size_t i = 0; i < r->n_probes; i++)
		if (r->probes[i].compared)
			junit_case(out, r->probes[i].datastore ? r->probes[i].datastore : "-",
			           "NFS 4.1 probe verdict", r->probes[i].regression ? "probe" : NULL,
			           r->probes[i].text, "");
	fputs("</testsuite>\n", out);
	return fclose(out) == 0 ? VS_OK : vs_fail(err, VS_ERR_FAULT, "cannot write %s: %s", path, strerror(errno));
}

/* ---- the command ---- */

static vs_status regress(regress_args *a, na_outcome *out)
{
	na_store *store = NULL;
	vs_error *err = &out->err;
	regress_state r = {.args = a};
	vs_status rc = na_store_open_readonly(a->db, &store, err);
	if (rc == VS_OK)
		rc = build(&r, store, err);
	if (rc == VS_OK && a->junit)
		rc = write_junit(&r, a->junit, err);
	if (rc == VS_OK && a->json)
		print_json(&r);
	else if (rc == VS_OK)
		print_text(&r);
	/* 1 means a regression and nothing else, so that CI can tell it from a
	 * broken check: every error is 2 (VS_ERR_USAGE); 8 (unchecked) that no
	 * check regressed but some cannot tell, whatever --undecided says of
	 * the JUnit file. */
	out->verdict = r.n_regressions ? NA_VERDICT_PROBLEM
	               : r.n_undecided ? NA_VERDICT_UNCHECKED
	                               : NA_VERDICT_CLEAN;
	if (rc != VS_OK)
		rc = err->status = VS_ERR_USAGE;
	regression_free(&r);
	na_store_close(&store);
	return rc;
}

static int on_option(int opt, const char *arg, void *ud, na_outcome *out)
{
	regress_args *a = ud;
	vs_error err = {0};
	switch (opt) {
	case OPT_BASELINE: a->baseline = arg; return 1;
	case OPT_CANDIDATE: a->candidate = arg; return 1;
	case OPT_DB: a->db = arg; return 1;
	case OPT_JUNIT: a->junit = arg; return 1;
	case OPT_UNDECIDED:
		if (strcmp(arg, "skip") && strcmp(arg, "fail")) {
			na_usage_error(out, "--undecided wants fail or skip, not '%s'", arg);
			return -1;
		}
		a->skip_undecided = strcmp(arg, "skip") == 0;
		return 1;
	case OPT_DROP:
	case OPT_RISE:
		/* two places stay free for the defaults */
		if (a->n_limits + 2 == MAX_LIMITS) {
			na_usage_error(out, "at most %d limits", MAX_LIMITS - 2);
			return -1;
		}
		if (na_threshold_parse(arg, opt == OPT_RISE, &a->limits[a->n_limits], &err) != VS_OK) {
			na_usage_error(out, "%s", err.message);
			return -1;
		}
		a->n_limits++;
		*(opt == OPT_RISE ? &a->rises : &a->drops) = true;
		return 1;
	default: return 0;
	}
}

/* The defaults, iops=10% and p99=20%, for the options not given. */
static void default_limits(regress_args *a)
{
	if (!a->drops)
		a->limits[a->n_limits++] = (na_threshold){NA_M_IOPS, 10, false};
	if (!a->rises)
		a->limits[a->n_limits++] = (na_threshold){NA_M_P99, 20, true};
}

vs_status cmd_regress(int argc, char **argv, na_outcome *out)
{
	static const struct option longopts[] = {
		{"baseline", required_argument, NULL, OPT_BASELINE},
		{"candidate", required_argument, NULL, OPT_CANDIDATE},
		{"max-drop", required_argument, NULL, OPT_DROP}, {"max-rise", required_argument, NULL, OPT_RISE},
		{"db", required_argument, NULL, OPT_DB},         {"junit", required_argument, NULL, OPT_JUNIT},
		{"undecided", required_argument, NULL, OPT_UNDECIDED},
		{"json", no_argument, NULL, NA_OPT_JSON},        {"help", no_argument, NULL, NA_OPT_HELP},
		{0},
	};
	regress_args a = {0};
	int go = na_parse_local_options(argc, argv, longopts, usage, on_option, &a, &a.json, out);
	if (go <= 0)
		return go < 0 ? out->err.status : VS_OK;
	if (!a.baseline)
		return na_usage_error(out, "give the baseline: --baseline SELECTOR");
	default_limits(&a);
	return regress(&a, out);
}
