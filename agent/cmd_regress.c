/* nfsagent regress: did a new ESXi build (or anything else) make a datastore
 * slower?  Compares candidate runs with baseline runs of the same datastore,
 * protocol and profile against limits, counts only changes whose whole
 * confidence interval is past the limit, and reports when the NFS 4.1
 * probe verdict changed between the builds.  Exit 1 on a regression, for
 * CI. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"
#include "compare.h"

static const char usage[] =
	"Usage: nfsagent regress --baseline SELECTOR [--candidate SELECTOR]\n"
	"                        [--max-drop METRIC=PCT] [--max-rise METRIC=PCT]\n"
	"                        [--db FILE|URL] [--junit FILE] [--json]\n"
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
	"A regression is a change whose whole 95% confidence interval lies past the\n"
	"limit: a drop of iops=10% needs the interval's top below -10%. An estimate past\n"
	"the limit whose interval reaches back inside is \"over the limit, within noise\";\n"
	"with fewer than 3 runs a side it is \"too few runs to tell\" and not counted.\n"
	"A probe verdict that newly shows the NFS 4.1 extent-size bug is a regression\n"
	"too. Exit 0 without regressions, 1 with, 2 on an error or when there is\n"
	"nothing to compare.\n"
	"Examples:\n"
	"  nfsagent regress --baseline esxi_build=24022510 --junit regress.xml\n"
	"  nfsagent regress --baseline esxi_build=24022510 --max-drop iops=5% \\\n"
	"        --max-rise p99=10% --json\n";

static const char regress_method[] =
	"A regression is a change whose whole 95% confidence interval (from a t test on the runs' "
	"logarithms) lies past its limit, so that the runs prove at least that much of a drop or "
	"rise; an estimate past the limit whose interval reaches back inside it is \"over the "
	"limit, within noise\", and fewer than 3 runs a side are \"too few runs to tell\". Each "
	"check is held to 95% on its own: a candidate that truly sits at the limit shows as a "
	"regression in at most 1 check in 40.";

enum { OPT_BASELINE = NA_OPT_FIRST_COMMAND_OPTION, OPT_CANDIDATE, OPT_DROP, OPT_RISE, OPT_DB, OPT_JUNIT };
enum { MAX_LIMITS = 16 };
static const int by_target[] = {NA_FIELD_datastore, NA_FIELD_datastore_type, NA_FIELD_profile};
static const int by_datastore[] = {NA_FIELD_datastore};

typedef struct regress_args {
	const char *baseline, *candidate, *db, *junit;
	na_threshold limits[MAX_LIMITS];
	size_t n_limits;
	bool drops, rises, json;
} regress_args;

typedef struct check {
	const na_cmp_line *line;
	const na_threshold *limit;
	const char *verdict;
	bool regression;
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
	size_t n_checks, n_regressions, n_too_few;
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
 * the limit, or a candidate run at 0; an estimate past it with an interval
 * reaching back inside is "over the limit, within noise". */
static const char *judge(const na_cmp_line *l, const na_threshold *t, bool *regression)
{
	/* A candidate run that did nothing (a stall, left out of the test on
	 * logs) is a failure in itself, whatever the others did. */
	*regression = l->eff.stalled_b > 0;
	if (*regression)
		return "REGRESSION: a candidate run measured 0";
	if (l->eff.verdict == NA_NOISE_TOO_FEW)
		return na_noise_name(l->eff.verdict);
	if (!na_threshold_exceeded(t, na_effect_pct(&l->eff)))
		return "ok";
	if (!na_threshold_clear(t, &l->eff))
		return "over the limit, within noise";
	*regression = true;
	return "REGRESSION";
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
			*c = (check){l, &r->args->limits[k], NULL, false};
			c->verdict = judge(l, c->limit, &c->regression);
			r->n_regressions += c->regression;
			r->n_too_few += l->eff.verdict == NA_NOISE_TOO_FEW;
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
	char hb[40] = "BASELINE", hc[40] = "CANDIDATE";
	if (same) {
		snprintf(hb, sizeof(hb), "BASELINE (n=%zu)", na);
		snprintf(hc, sizeof(hc), "CANDIDATE (n=%zu)", nb);
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
		/* "(median of runs)" said once under the table */
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
		printf("p99 latency: the median of the runs' own p99s\n");
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
	if (r->n_regressions)
		printf("\n%zu regression%s: the whole interval past the limit\n", r->n_regressions,
		       na_s(r->n_regressions));
	else
		printf("\nno regression (%zu check%s, %zu with too few runs to tell)\n", r->n_checks,
		       na_s(r->n_checks), r->n_too_few);
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
		    "datastore", field(c->line, NA_FIELD_datastore), "protocol", field(c->line, NA_FIELD_datastore_type),
		    "profile", field(c->line, NA_FIELD_profile), "limit_pct", c->limit->rise ? c->limit->pct : -c->limit->pct,
		    "verdict", c->verdict, "regression", c->regression));
		json_array_append_new(checks, o);
	}
	for (size_t i = 0; i < r->n_probes; i++)
		json_array_append_new(probes, probe_json(&r->probes[i]));
	na_json_print(json_pack("{s:{s:s, s:I}, s:{s:s?, s:s?, s:I}, s:s?, s:o, s:o, s:o, s:I, s:s}",
	                        "baseline", "selector", r->args->baseline, "results", (json_int_t)r->base.n,
	                        "candidate", "selector", r->args->candidate, "esxi_build",
	                        r->args->candidate ? NULL : r->cand_build, "results", (json_int_t)r->cand.n,
	                        "time_warning", r->time_warning, "limits", limits, "checks", checks, "probes", probes,
	                        "regressions", (json_int_t)r->n_regressions, "noise_method", regress_method));
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

/* One test case; failure NULL for a pass. */
static void junit_case(FILE *out, const char *classname, const char *name, bool skipped,
                       const char *failure, const char *message, const char *body)
{
	fputs("  <testcase classname=\"", out);
	xml_text(out, classname);
	fputs("\" name=\"", out);
	xml_text(out, name);
	fputs(skipped || failure ? "\">\n" : "\"/>\n", out);
	if (skipped)
		fputs("    <skipped message=\"too few runs to tell\"/>\n", out);
	if (failure) {
		fprintf(out, "    <failure type=\"%s\" message=\"", failure);
		xml_text(out, message);
		fputs("\">", out);
		xml_text(out, body);
		fputs("</failure>\n", out);
	}
	if (skipped || failure)
		fputs("  </testcase>\n", out);
}

static void junit_check(FILE *out, const check *c)
{
	const na_cmp_line *l = c->line;
	na_cmp_cells s;
	char classname[600], name[400], limit[32], message[400], body[256];
	na_cmp_cells_of(l, &s);
	snprintf(classname, sizeof(classname), "%s (%s)", field(l, NA_FIELD_datastore), field(l, NA_FIELD_datastore_type));
	snprintf(name, sizeof(name), "%s %s %s %s", field(l, NA_FIELD_profile), na_dir_names[l->dir],
	         na_metrics[l->metric].key, c->limit->rise ? "rise" : "drop");
	limit_text(c->limit, limit, sizeof(limit));
	snprintf(message, sizeof(message), "%s %s (limit %s): the whole interval is past the limit",
	         s.metric, s.change, limit);
	snprintf(body, sizeof(body), "baseline %s; candidate %s", s.a, s.b);
	junit_case(out, classname, name, l->eff.verdict == NA_NOISE_TOO_FEW, c->regression ? "regression" : NULL,
	           message, body);
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
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<testsuite name=\"nfsagent regress\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n",
	        r->n_checks + r->n_compared, r->n_regressions, r->n_too_few);
	for (size_t i = 0; i < r->n_checks; i++)
		junit_check(out, &r->checks[i]);
	for (size_t i = 0; i < r->n_probes; i++)
		if (r->probes[i].compared)
			junit_case(out, r->probes[i].datastore ? r->probes[i].datastore : "-",
			           "NFS 4.1 probe verdict", false, r->probes[i].regression ? "probe" : NULL,
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
	 * broken check: every error is 2 (VS_ERR_USAGE). */
	out->verdict = r.n_regressions ? NA_VERDICT_PROBLEM : NA_VERDICT_CLEAN;
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
