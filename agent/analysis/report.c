/* The HTML report (see report.h): reads the selected results once, groups
 * them, then writes the page section by section.  Every string that came
 * from the database goes through na_html_escape. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "analysis/compare.h"
#include "analysis/report_internal.h"

enum { MAX_DISTINCT = 6 };
/* The statistics shown, by the store's table (p50 to p99.9 in a row). */
enum { M_IOPS = NA_STAT_iops, M_BW = NA_STAT_bw_bytes, M_LAT = NA_STAT_lat_mean_us,
       M_P50 = NA_STAT_p50_us, M_P99 = NA_STAT_p99_us };

static const char *const dir_names[] = {"read", "write"};

/* ---- small helpers ---- */

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int len = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	char *s = len >= 0 ? malloc((size_t)len + 1) : NULL;
	if (s) {
		va_start(ap, f);
		vsnprintf(s, (size_t)len + 1, f, ap);
		va_end(ap);
	}
	return s;
}

static void esc(const na_report_page *r, const char *s)
{
	na_html_escape(r->out, s);
}

/* The index of s in *list, appending a copy when it is new; SIZE_MAX without memory. */
static size_t intern(char ***list, size_t *n, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*list)[i], s) == 0)
			return i;
	char **grown = realloc(*list, (*n + 1) * sizeof(char *));
	if (!grown)
		return SIZE_MAX;
	*list = grown;
	if (!(grown[*n] = strdup(s)))
		return SIZE_MAX;
	return (*n)++;
}

static void free_list(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

/* ---- reading and grouping ---- */

static void free_rows(na_report_page *r)
{
	for (size_t i = 0; i < r->n; i++) {
		for (int f = 0; f < NA_N_FIELDS; f++)
			free(r->rows[i].f[f]);
		for (size_t l = 0; l < r->rows[i].n_labels; l++) {
			free((char *)r->rows[i].labels[l].key);
			free((char *)r->rows[i].labels[l].value);
		}
		free(r->rows[i].labels);
		free(r->rows[i].timeline.data_w);
		free(r->rows[i].timeline.log_w);
		free(r->rows[i].timeline.at);
	}
	free(r->rows);
	for (size_t i = 0; r->picked && i < r->n_profiles * r->n_groups; i++)
		na_cmp_group_free(&r->picked[i]);
	for (size_t i = 0; r->cmps && i < r->n_profiles * r->n_groups; i++)
		na_cmp_free(&r->cmps[i]);
	free(r->picked);
	free(r->cmps);
	na_cmp_group_free(&r->results);
	free_list(r->groups, r->n_groups);
	free_list(r->profiles, r->n_profiles);
}

static bool copy_row(na_report_row *w, const na_result *res)
{
	bool ok = true;
	*w = (na_report_row){.id = res->id, .ok = strcmp(res->status, "ok") == 0, .dir = {res->read, res->write}};
	for (int f = 0; f < NA_N_FIELDS; f++) {
		const char *v = na_field_kept(f) ? na_field_text(res, f) : NULL;
		ok &= !v || (w->f[f] = strdup(v));
	}
	w->labels = calloc(res->n_labels + 1, sizeof(na_label));
	ok &= w->labels != NULL;
	for (size_t l = 0; w->labels && l < res->n_labels; l++, w->n_labels++) {
		w->labels[l] = (na_label){strdup(res->labels[l].key), strdup(res->labels[l].value)};
		ok &= w->labels[l].key && w->labels[l].value;
	}
	return ok;
}

static int collect(const na_result *res, void *ud, vs_error *err)
{
	na_report_page *r = ud;
	if (na_report_skips(r, res))
		return VS_OK;
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		na_report_row *grown = realloc(r->rows, cap * sizeof(na_report_row));
		if (!grown)
			return vs_fail(err, VS_ERR_NOMEM, "out of memory");
		r->rows = grown;
		r->cap = cap;
	}
	na_report_row *w = &r->rows[r->n];
	bool ok = copy_row(w, res);
	r->n++;  /* even half-copied, so that free_rows frees it */
	int rc = ok ? na_report_nas_side(r->store, w, res, err) : VS_OK;
	/* compare's row of it, with the layers its NAS side gave */
	ok &= rc != VS_OK || na_cmp_group_add(&r->results, res) == VS_OK;
	na_cmp_row *c = ok && rc == VS_OK ? &r->results.rows[r->results.n - 1] : NULL;
	if (c)
		rc = na_cmp_row_bins(r->store, c, err);
	if (c && rc == VS_OK) {
		memcpy(c->layer, w->layer, sizeof(w->layer));
		na_report_cache_bins(w, c);
	}
	return ok ? rc : vs_fail(err, VS_ERR_NOMEM, "out of memory");
}

/* The field a grouping name stands for (an alias: its field's name), as
 * in queries. */
static const char *field_of(const char *name)
{
	int f = na_field_named(name, strlen(name));
	return f >= 0 ? na_fields[f].name : name;
}

/* A provenance field or a label. */
static const char *value_of(const na_report_row *w, const char *field)
{
	field = field_of(field);
	for (int f = 0; f < NA_N_FIELDS; f++)
		if (na_field_kept(f) && strcmp(field, na_fields[f].name) == 0)
			return w->f[f];
	for (size_t l = 0; l < w->n_labels; l++)
		if (strcmp(w->labels[l].key, field) == 0)
			return w->labels[l].value;
	return NULL;
}

static bool is_label(const char *field)
{
	field = field_of(field);
	for (int f = 0; f < NA_N_FIELDS; f++)
		if (na_field_kept(f) && strcmp(field, na_fields[f].name) == 0)
			return false;
	return true;
}

static bool varies(const na_report_page *r, const char *field)
{
	const char *first = r->n ? value_of(&r->rows[0], field) : NULL;
	for (size_t i = 1; i < r->n; i++) {
		const char *v = value_of(&r->rows[i], field);
		if (!v != !first || (v && strcmp(v, first) != 0))
			return true;
	}
	return false;
}

static void add_by(na_report_page *r, const char *field)
{
	for (size_t i = 0; i < r->n_by; i++)
		if (strcmp(r->by[i], field) == 0)
			return;
	if (r->n_by < NA_REPORT_MAX_BY)
		r->by[r->n_by++] = field;
}

/* Every row is of one campaign, and names its target. */
static bool one_campaign(const na_report_page *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (!r->rows[i].f[NA_FIELD_campaign] || !r->rows[i].f[NA_FIELD_target])
			return false;
	return r->n && !varies(r, "campaign");
}

/* By default what tells the results apart: a campaign's targets (what its
 * file compares); else the protocol and the labels that vary; failing
 * those the datastore, so that a group is one place. */
static void choose_grouping(na_report_page *r)
{
	for (size_t i = 0; i < r->o->n_group_by; i++)
		add_by(r, r->o->group_by[i]);
	if (!r->n_by && one_campaign(r) && varies(r, "target"))
		add_by(r, "target");
	if (r->n_by)
		return;
	if (varies(r, "datastore_type"))
		add_by(r, "datastore_type");
	if (varies(r, "zfs_recordsize"))  /* measured: says more than a label */
		add_by(r, "zfs_recordsize");
	char **seen = NULL;  /* each key is looked at once: varies() reads every na_report_row */
	size_t n_seen = 0;
	for (size_t i = 0; i < r->n; i++)
		for (size_t l = 0; l < r->rows[i].n_labels; l++) {
			const char *key = r->rows[i].labels[l].key;
			size_t before = n_seen;
			if (intern(&seen, &n_seen, key) == before && varies(r, key))
				add_by(r, key);
		}
	free_list(seen, n_seen);
	if (!r->n_by)
		add_by(r, "datastore");
}

/* "NFS 4.1, recordsize=16K": labels with their key, since "16K" alone says
 * little; "no pool label" for a run without one. */
static char *group_name(const na_report_page *r, const na_report_row *w)
{
	char *name = strdup("");
	for (size_t b = 0; name && b < r->n_by; b++) {
		const char *v = value_of(w, r->by[b]), *sep = b ? ", " : "";
		if (v && strcmp(field_of(r->by[b]), "datastore_type") == 0)
			v = na_nfs_label(v);
		/* a target that fell back is named so (na_cmp_ran_as) */
		bool fell = !strcmp(r->by[b], "target") && (size_t)(w - r->rows) < r->results.n &&
		            r->results.rows[w - r->rows].fell_back;
		char *next = !is_label(r->by[b]) ? fmt("%s%s%s%s", name, sep, v ? v : "(unknown)",
		                                       fell ? na_cmp_ran_as : "")
		             : v                 ? fmt("%s%s%s=%s", name, sep, r->by[b], v)
		                                 : fmt("%s%sno %s label", name, sep, r->by[b]);
		free(name);
		name = next;
	}
	return name;
}

static int assign_groups(na_report_page *r, vs_error *err)
{
	choose_grouping(r);
	for (size_t i = 0; i < r->n; i++) {
		na_report_row *w = &r->rows[i];
		char *name = group_name(r, w);
		w->group = name ? intern(&r->groups, &r->n_groups, name) : SIZE_MAX;
		const char *profile = w->f[NA_FIELD_profile] ? w->f[NA_FIELD_profile] : "(job file)";
		w->profile = intern(&r->profiles, &r->n_profiles, profile);
		free(name);
		if (w->group == SIZE_MAX || w->profile == SIZE_MAX)
			return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	for (size_t b = 0; b < r->o->n_group_by; b++)
		if (r->n && !varies(r, r->o->group_by[b]) && !value_of(&r->rows[0], r->o->group_by[b]))
			na_warn("no selected result has '%s' to group by", r->o->group_by[b]);
	return VS_OK;
}

/* ---- numbers ---- */

static double metric(const na_dir_stats *d, int m)
{
	return na_stat_value(d, m);
}

/* The values of one metric over the runs of a profile in a group that
 * succeeded (malloc'd, *n of them; NULL without memory). */
static double *values(const na_report_page *r, size_t p, size_t g, int dir, int m, size_t *n)
{
	double *v = malloc((r->n + 1) * sizeof(double));
	*n = 0;
	for (size_t i = 0; v && i < r->n; i++) {
		const na_report_row *w = &r->rows[i];
		if (w->ok && w->profile == p && w->group == g && w->dir[dir].present)
			v[(*n)++] = metric(&w->dir[dir], m);
	}
	return v;
}

/* The spread of one metric over the runs of a profile in a group that succeeded. */
static na_spread spread(const na_report_page *r, size_t p, size_t g, int dir, int m)
{
	size_t n;
	double *v = values(r, p, g, dir, m, &n);
	na_spread s = na_spread_of(v, v ? n : 0);
	free(v);
	return s;
}

static size_t runs(const na_report_page *r, size_t p, size_t g, bool ok)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++)
		n += r->rows[i].profile == p && r->rows[i].group == g && r->rows[i].ok == ok;
	return n;
}

static bool has_dir(const na_report_page *r, size_t p, int dir)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->rows[i].ok && r->rows[i].profile == p && r->rows[i].dir[dir].present)
			return true;
	return false;
}

static const char *show(int m, double v, char *buf, size_t size)
{
	if (v < 0)
		return "–";
	if (m == M_IOPS)
		return na_report_grouped(v, buf, size);
	if (m == M_BW)
		return na_report_grouped(v / 1e6, buf, size);
	return na_report_latency(v, buf, size);
}

/* ---- the page ---- */

/* A provenance line: field a, or "a SEP b"; -1 for the labels. */
typedef struct prov_line {
	const char *name;
	int a, b;
	const char *sep;
} prov_line;

static char *prov_text(const na_report_row *w, const prov_line *p)
{
	if (p->a < 0) {
		char *s = strdup("");
		for (size_t l = 0; s && l < w->n_labels; l++) {
			char *next = fmt("%s%s%s=%s", s, l ? ", " : "", w->labels[l].key, w->labels[l].value);
			free(s);
			s = next;
		}
		return s;
	}
	const char *a = w->f[p->a], *b = p->b >= 0 ? w->f[p->b] : NULL;
	if (p->a == NA_FIELD_started_at)  /* the day is enough to place a run */
		return a ? strndup(a, 10) : NULL;
	if (p->b < 0)
		return a ? strdup(a) : NULL;
	return fmt("%s%s%s", a ? a : "?", p->sep, b ? b : "?");
}

/* Writes items, escaped, with sep between them (at most max of them). */
static void join(const na_report_page *r, const char *const *items, size_t n, const char *sep, size_t max)
{
	for (size_t i = 0; i < n && i < max; i++) {
		fputs(i ? sep : "", r->out);
		esc(r, items[i]);
	}
	if (n > max)
		fprintf(r->out, "%sand %zu more", sep, n - max);
	if (!n)
		fputs("–", r->out);
}

/* Writes the distinct texts of a line over the rows of group g (SIZE_MAX: all). */
static void distinct(const na_report_page *r, size_t g, const prov_line *line)
{
	char **seen = NULL;
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++) {
		bool in = g == SIZE_MAX || r->rows[i].group == g;
		char *t = in ? prov_text(&r->rows[i], line) : NULL;
		if (t && t[0])
			intern(&seen, &n, t);
		free(t);
	}
	join(r, (const char *const *)seen, n, "; ", MAX_DISTINCT);
	free_list(seen, n);
}

/* Whether group g has runs of profile p (SIZE_MAX: of any profile). */
bool na_report_in_profile(const na_report_page *r, size_t p, size_t g)
{
	for (size_t i = 0; p != SIZE_MAX && i < r->n; i++)
		if (r->rows[i].profile == p && r->rows[i].group == g)
			return true;
	return p == SIZE_MAX;
}

/* The group a profile's ratios compare with: its first. */
size_t na_report_first_group(const na_report_page *r, size_t p)
{
	size_t g = 0;
	while (g < r->n_groups && !na_report_in_profile(r, p, g))
		g++;
	return g;
}

void na_report_group_header(const na_report_page *r, size_t p, const char *first)
{
	fprintf(r->out, "<thead><tr><th>%s</th>", first);
	for (size_t g = 0; g < r->n_groups; g++) {
		if (!na_report_in_profile(r, p, g))
			continue;
		fprintf(r->out, "<th><span class=\"sw\" style=\"background:%s\"></span>", na_report_color(g));
		esc(r, r->groups[g]);
		fputs("</th>", r->out);
	}
	fputs("</tr></thead>\n<tbody>\n", r->out);
}

static void title(const na_report_page *r, const char *generated)
{
	static const prov_line vcenter = {"vCenter", NA_FIELD_vcenter, -1, NULL};
	fputs("<header>\n<h1>NFS datastore benchmarks</h1>\n<p class=\"meta\">Generated ", r->out);
	esc(r, generated);
	fputs(" by nfsagent " NFSAGENT_VERSION " from results of vCenter ", r->out);
	distinct(r, SIZE_MAX, &vcenter);
	fputs(".</p>\n<p class=\"meta\">Selection: ", r->out);
	if (r->o->n_where)
		join(r, r->o->where, r->o->n_where, ", ", r->o->n_where);
	else
		fputs("every result", r->out);
	fputs("; grouped by ", r->out);
	join(r, r->by, r->n_by, ", ", r->n_by);
	fprintf(r->out, ". %zu run%s in %zu group%s, %zu profile%s.</p>\n", r->n, na_s(r->n),
	        r->n_groups, na_s(r->n_groups), r->n_profiles, na_s(r->n_profiles));
	char *fell = na_cmp_fallback_text(&r->results);
	if (fell) {  /* its NFS 4.1 name would mislead */
		fputs("<p class=\"note fellback\"><span class=\"few\">What ran:</span> ", r->out);
		esc(r, fell);
		fputs(". Its results ran over NFS 3, not the NFS 4.1 its name says: no NFS 3 vs NFS 4.1 "
		      "comparison.</p>\n", r->out);
	}
	free(fell);
	fputs("<p class=\"meta\" id=\"method\">How changes are judged: ", r->out);
	esc(r, na_noise_method);
	fputs("</p>\n</header>\n", r->out);
}

/* The groups' provenance, and under it their recordsize trap warnings. */
static int provenance(const na_report_page *r, vs_error *err)
{
	static const prov_line lines[] = {
		{"vCenter", NA_FIELD_vcenter, -1, NULL}, {"vCenter version", NA_FIELD_vcenter_version, NA_FIELD_vcenter_build, " build "},
		{"Host", NA_FIELD_host, -1, NULL},
		{"ESXi", NA_FIELD_esxi_version, NA_FIELD_esxi_build, " build "}, {"Datastore", NA_FIELD_datastore, -1, NULL},
		{"Type", NA_FIELD_datastore_type, -1, NULL}, {"Servers:export", NA_FIELD_servers, NA_FIELD_export_path, ":"},
		{"VM", NA_FIELD_vm, -1, NULL}, {"Guest OS", NA_FIELD_guest_os, -1, NULL}, {"fio", NA_FIELD_fio_version, -1, NULL},
		{"Labels", -1, -1, NULL}, {"Run dates", NA_FIELD_started_at, -1, NULL},
	};
	fputs("<section id=\"groups\">\n<h2>Groups and where their results came from</h2>\n"
	      "<table>\n", r->out);
	na_report_group_header(r, SIZE_MAX, "");
	for (size_t f = 0; f < sizeof(lines) / sizeof(*lines); f++) {
		fprintf(r->out, "<tr><th>%s</th>", lines[f].name);
		for (size_t g = 0; g < r->n_groups; g++) {
			fputs("<td>", r->out);
			distinct(r, g, &lines[f]);
			fputs("</td>", r->out);
		}
		fputs("</tr>\n", r->out);
	}
	fputs("<tr><th>Runs</th>", r->out);
	for (size_t g = 0; g < r->n_groups; g++) {
		size_t ok = 0, failed = 0;
		for (size_t p = 0; p < r->n_profiles; p++)
			ok += runs(r, p, g, true), failed += runs(r, p, g, false);
		fprintf(r->out, "<td>%zu ok, %zu failed</td>", ok, failed);
	}
	fputs("</tr>\n</tbody>\n</table>\n", r->out);
	int rc = na_report_traps(r, err);
	fputs("</section>\n", r->out);
	return rc;
}

/* The report's statistic of each of compare's metrics (NA_M_*). */
static const int stat_of[NA_M_COUNT] = {M_IOPS, M_BW, M_LAT, M_P99};

int na_report_pick(const na_report_page *r, size_t p, size_t g, na_cmp_group *out, vs_error *err)
{
	int rc = (out->rows = malloc((r->n + 1) * sizeof(na_cmp_row)))
	             ? VS_OK
	             : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; rc == VS_OK && i < r->n; i++)
		if (r->rows[i].ok && (p == SIZE_MAX || r->rows[i].profile == p) && r->rows[i].group == g)
			rc = na_cmp_row_copy(&out->rows[out->n++], &r->results.rows[i], err);
	return rc == VS_OK ? na_cmp_fold_groups(r->store, out, err) : rc;
}

/* Each group of each profile against the profile's first, by compare's
 * engine: the report shows compare's verdicts, never its own. */
static int compare_pairs(na_report_page *r, vs_error *err)
{
	static const int by_profile[] = {NA_FIELD_profile};
	size_t n = r->n_profiles * r->n_groups;
	r->picked = calloc(n + 1, sizeof(na_cmp_group));
	r->cmps = calloc(n + 1, sizeof(na_cmp));
	int rc = r->results.n == r->n && r->picked && r->cmps ? VS_OK
	                                                      : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; rc == VS_OK && i < n; i++)
		if (na_report_in_profile(r, i / r->n_groups, i % r->n_groups))
			rc = na_report_pick(r, i / r->n_groups, i % r->n_groups, &r->picked[i], err);
	for (size_t i = 0; rc == VS_OK && i < n; i++) {
		size_t p = i / r->n_groups, g = i % r->n_groups, first = na_report_first_group(r, p);
		if (g != first && na_report_in_profile(r, p, g) &&
		    na_cmp_run(&r->picked[p * r->n_groups + first], &r->picked[i], by_profile, 1, 0,
		               &r->cmps[i]) != VS_OK)
			rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	return rc;
}

const na_cmp_line *na_report_line(const na_report_page *r, size_t p, size_t g, int dir, int metric,
                                  bool layer)
{
	const na_cmp *c = &r->cmps[p * r->n_groups + g];
	const na_cmp_line *lines = layer ? c->layers : c->lines;
	for (size_t i = 0; i < (layer ? c->n_layers : c->n); i++)
		if (lines[i].metric == metric && (layer || lines[i].dir == dir))
			return &lines[i];
	return NULL;
}

double na_report_center(const na_report_page *r, size_t p, size_t g, int dir, int metric,
                        bool layer, double geomean, na_spread *spread)
{
	const na_cmp_line *l = na_report_line(r, p, g, dir, metric, layer);
	/* the first group has no line of its own: it is every pair's A */
	for (size_t k = 0; !l && g == na_report_first_group(r, p) && k < r->n_groups; k++)
		if ((l = na_report_line(r, p, k, dir, metric, layer))) {
			*spread = l->sa;
			return l->eff.center_a;
		}
	if (l)
		*spread = l->sb;
	return l && !isnan(l->eff.center_b) ? l->eff.center_b : geomean;
}

void na_report_ratio(const na_report_page *r, const char *change, const char *verdict)
{
	fprintf(r->out, "<span class=\"ratio\">%s vs first</span><span class=\"ratio\">", change);
	esc(r, verdict);
	fputs("</span>", r->out);
}

/* Group g's cell of metric m: its spread, and compare's line against the
 * profile's first group in compare's words. */
static void cell(const na_report_page *r, size_t p, size_t g, int dir, int m)
{
	char a[48], b[48], c[48], d[48];
	size_t n;
	double *v = values(r, p, g, dir, stat_of[m], &n);
	na_spread s = na_spread_of(v, v ? n : 0);
	/* the store's bytes a second against compare's MB/s: in compare's units */
	double scale = m == NA_M_MBPS ? 1e6 : 1;
	s.median /= scale, s.min /= scale, s.max /= scale;
	double center = na_report_center(r, p, g, dir, m, false, v ? na_geomean(v, n) / scale : NAN, &s);
	free(v);
	if (!s.n) {
		fputs("<td class=\"num\">–</td>", r->out);
		return;
	}
	fprintf(r->out, "<td class=\"num\"><b>%s</b><span class=\"sp\">median %s · %s–%s · n=%zu</span>",
	        show(stat_of[m], (isnan(center) ? s.median : center) * scale, a, sizeof(a)),
	        show(stat_of[m], s.median * scale, d, sizeof(d)), show(stat_of[m], s.min * scale, b, sizeof(b)),
	        show(stat_of[m], s.max * scale, c, sizeof(c)), s.n);
	const na_cmp_line *l = na_report_line(r, p, g, dir, m, false);
	na_cmp_cells cells;
	if (l) {
		na_cmp_cells_of(l, &cells);
		na_report_ratio(r, cells.change, cells.verdict);
	}
	fputs("</td>", r->out);
}

static void comparison(const na_report_page *r, size_t p)
{
	fputs("<table class=\"cmp\">\n", r->out);
	na_report_group_header(r, p, "Geometric mean (median · min–max · runs)");
	for (int d = 0; d < 2; d++)
		for (int m = 0; has_dir(r, p, d) && m < NA_M_COUNT; m++) {
			fprintf(r->out, "<tr><th>%s %s%s</th>", dir_names[d], na_metrics[m].label,
			        m == NA_M_P99 ? " (of each run)" : "");
			for (size_t g = 0; g < r->n_groups; g++)
				if (na_report_in_profile(r, p, g))
					cell(r, p, g, d, m);
			fputs("</tr>\n", r->out);
		}
	fputs("<tr><th>runs</th>", r->out);
	for (size_t g = 0; g < r->n_groups; g++) {
		size_t ok = runs(r, p, g, true), failed = runs(r, p, g, false);
		if (!ok && !failed)
			continue;
		fprintf(r->out, "<td>%zu ok", ok);
		if (failed)
			fprintf(r->out, ", %zu failed", failed);
		if (ok < NA_NOISE_MIN_RUNS)
			fprintf(r->out, "<span class=\"few\">%s</span>", na_noise_name(NA_NOISE_TOO_FEW));
		fputs("</td>", r->out);
	}
	fputs("</tr>\n</tbody>\n</table>\n", r->out);
	if (na_report_first_group(r, p) + 1 < r->n_groups)
		fputs("<p class=\"cap\">Changes compare each group with the first group, judged as "
		      "nfsagent compare judges them (see how changes are judged, above).</p>\n", r->out);
}

static void few_runs_note(const na_report_page *r, size_t p)
{
	bool any = false;
	for (size_t g = 0; g < r->n_groups; g++) {
		size_t ok = runs(r, p, g, true);
		if (ok >= NA_NOISE_MIN_RUNS || !na_report_in_profile(r, p, g))
			continue;
		fputs(any ? "; " : "<p class=\"note\"><span class=\"few\">Too few runs to tell:</span> ", r->out);
		esc(r, r->groups[g]);
		fprintf(r->out, " has %zu successful run%s", ok, na_s(ok));
		any = true;
	}
	if (any)
		fprintf(r->out, ". With fewer than %d runs a side no change is judged.</p>\n",
		        NA_NOISE_MIN_RUNS);
}

/* The profile's groups as the charts' series, keeping each group's colour. */
static void charts(const na_report_page *r, size_t p)
{
	const char *dirs[2];
	size_t n_dirs = 0, n = 0, g;
	for (int d = 0; d < 2; d++)
		if (has_dir(r, p, d))
			dirs[n_dirs++] = dir_names[d];
	const char **names = calloc(r->n_groups + 1, sizeof(char *));
	size_t *colors = calloc(r->n_groups + 1, sizeof(size_t));
	na_spread *iops = calloc(2 * r->n_groups + 1, sizeof(na_spread));
	na_spread *pct = calloc(2 * r->n_groups * NA_PCTS + 1, sizeof(na_spread));
	bool ok = names && colors && iops && pct;
	for (g = 0; ok && g < r->n_groups; g++)
		if (na_report_in_profile(r, p, g))
			names[n] = r->groups[g], colors[n++] = g;
	for (size_t d = 0; ok && d < n_dirs; d++)
		for (size_t i = 0; i < n; i++) {
			int dir = strcmp(dirs[d], "write") == 0;
			iops[d * n + i] = spread(r, p, colors[i], dir, M_IOPS);
			for (int k = 0; k < NA_PCTS; k++)
				pct[(d * n + i) * NA_PCTS + k] = spread(r, p, colors[i], dir, M_P50 + k);
		}
	/* the runs that wrote and have a pool timeline, their group as the
	 * chart's index (a read profile's chart of pool writes is empty) */
	na_timeline *runs = calloc(r->n + 1, sizeof(na_timeline));
	size_t n_runs = 0;
	for (size_t i = 0; ok && runs && i < r->n; i++) {
		const na_report_row *w = &r->rows[i];
		bool wrote = w->dir[1].present;
		for (size_t k = 0; w->ok && wrote && w->profile == p && w->timeline.n && k < n; k++)
			if (colors[k] == w->group) {
				runs[n_runs] = w->timeline;
				runs[n_runs++].group = k;
			}
	}
	na_chart c = {r->profiles[p], names, colors, n, dirs, n_dirs, iops, pct, runs, n_runs};
	if (ok && n_dirs) {
		fputs("<div class=\"charts\">\n<figure><figcaption>Median IOPS; whiskers span min–max"
		      "</figcaption>\n", r->out);
		na_svg_iops(r->out, &c);
		fputs("</figure>\n<figure><figcaption>Latency percentiles (median of runs)"
		      "</figcaption>\n", r->out);
		na_svg_latency(r->out, &c);
		fputs("</figure>\n", r->out);
		if (n_runs) {
			fputs("<figure><figcaption>Pool writes over each run (zpool iostat)</figcaption>\n",
			      r->out);
			na_svg_timeline(r->out, &c);
			fputs("</figure>\n", r->out);
		}
		fputs("</div>\n", r->out);
	}
	free(runs);
	free(names);
	free(colors);
	free(iops);
	free(pct);
}

static void profile_section(const na_report_page *r, size_t p)
{
	fprintf(r->out, "<section class=\"profile\" id=\"profile-%zu\" data-profile=\"", p + 1);
	esc(r, r->profiles[p]);
	fputs("\">\n<h2>Profile ", r->out);
	esc(r, r->profiles[p]);
	fputs("</h2>\n", r->out);
	few_runs_note(r, p);
	na_report_cache_notes(r, p, "p");
	comparison(r, p);
	na_report_layers(r, p);
	charts(r, p);
	fputs("</section>\n", r->out);
}

/* ---- findings and failures ---- */

static int finding(const na_finding *f, void *ud, vs_error *err)
{
	(void)err;
	na_report_page *r = ud;
	r->n_findings++;
	na_report_finding(r->out, f);
	return VS_OK;
}

/* Findings know only provenance fields: the conditions on those apply. */
static int findings(na_report_page *r, na_store *s, vs_error *err)
{
	static const char *const known[] = {"campaign", "target", "host", "esxi_version", "esxi_build",
	                                    "datastore", "datastore_type", "servers", "export_path", "vm"};
	const char *conds[64];
	size_t n = 0;
	for (size_t i = 0; i < r->o->n_where && n < 64; i++) {
		const char *w = r->o->where[i];
		int f = na_field_named(w, strcspn(w, "="));
		for (size_t k = 0; f >= 0 && w[strcspn(w, "=")] && k < sizeof(known) / sizeof(*known); k++)
			if (strcmp(na_fields[f].name, known[k]) == 0)
				conds[n++] = w;
	}
	fputs("<section id=\"findings\">\n<h2>Probe verdicts and failed moves</h2>\n", r->out);
	if (n < r->o->n_where)
		fputs("<p class=\"cap\">Findings have no labels or profiles: only the selection's"
		      " provenance conditions apply to them.</p>\n", r->out);
	int rc = na_store_findings(s, conds, n, finding, r, err);
	if (rc == VS_OK && !r->n_findings)
		fputs("<p>None recorded for this selection.</p>\n", r->out);
	fputs("</section>\n", r->out);
	return rc;
}

static void failures(const na_report_page *r)
{
	bool any = false;
	for (size_t i = 0; i < r->n; i++) {
		const na_report_row *w = &r->rows[i];
		if (w->ok)
			continue;
		if (!any)
			fputs("<section id=\"failed\">\n<h2>Failed runs</h2>\n<table>\n<thead><tr><th>id</th>"
			      "<th>started</th><th>profile</th><th>group</th><th>error</th></tr></thead>\n"
			      "<tbody>\n", r->out);
		any = true;
		fprintf(r->out, "<tr><td>%lld</td><td>", (long long)w->id);
		esc(r, w->f[NA_FIELD_started_at]);
		fputs("</td><td>", r->out);
		esc(r, r->profiles[w->profile]);
		fputs("</td><td>", r->out);
		esc(r, r->groups[w->group]);
		fputs("</td><td><code>", r->out);
		esc(r, w->f[NA_FIELD_error]);
		fputs("</code></td></tr>\n", r->out);
	}
	if (any)
		fputs("</tbody>\n</table>\n</section>\n", r->out);
}

int na_report_html(na_store *s, const na_report_opts *o, FILE *out, na_report_counts *counts,
                   vs_error *err)
{
	na_report_page r = {.o = o, .out = out, .store = s};
	int rc = na_store_query(s, o->where, o->n_where, collect, &r, err);
	if (rc == VS_OK)
		rc = na_cmp_mark_fallbacks(s, &r.results, err);
	if (rc == VS_OK)
		rc = assign_groups(&r, err);
	if (rc == VS_OK)
		rc = compare_pairs(&r, err);
	if (rc == VS_OK) {
		na_report_head(out);
		title(&r, o->generated_at ? o->generated_at : "");
		if (!r.n)
			fputs("<p class=\"note\">No results match this selection.</p>\n", out);
		else
			na_report_summary(&r);
		rc = r.n ? provenance(&r, err) : rc;
		for (size_t p = 0; p < r.n_profiles; p++)
			profile_section(&r, p);
		if (rc == VS_OK)
			rc = findings(&r, s, err);
		if (rc == VS_OK)
			rc = na_report_group_runs(&r, err);
		failures(&r);
		fputs("</body>\n</html>\n", out);
	}
	counts->results = r.n;
	counts->groups = r.n_groups;
	counts->profiles = r.n_profiles;
	counts->findings = r.n_findings;
	for (size_t i = 0; i < r.n; i++)
		counts->failed += !r.rows[i].ok;
	free_rows(&r);
	return rc;
}
