/* Comparing two groups of results (see compare.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"

const na_metric_info na_metrics[NA_M_COUNT] = {
	{"iops", "IOPS", false, true},
	{"mbps", "MB/s", false, false},
	{"avg", "avg latency", true, false},
	{"p99", "p99 latency", true, true},
};

const char *const na_dir_names[2] = {"read", "write"};

/* ---- selectors ---- */

void na_selector_free(na_selector *sel)
{
	free(sel->text);
	free(sel->conds);
	*sel = (na_selector){0};
}

/* Splits at commas, in place; a part without '=' gets its comma back. */
static int split(na_selector *sel, const char *selector, vs_error *err)
{
	char *prev = NULL;
	for (char *p = sel->text;; p++) {
		char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char *eq = memchr(p, '=', len);
		if (!len)
			return vs_fail(err, VS_ERR_USAGE, "selector '%s' has an empty condition", selector);
		if (eq == p || (!eq && !sel->n))
			return vs_fail(err, VS_ERR_USAGE, "selector '%s': '%.*s' is not a field=value "
			               "condition", selector, (int)len, p);
		if (eq && prev)
			*prev = '\0';
		if (eq)
			sel->conds[sel->n++] = p;
		if (!comma)
			return VS_OK;
		prev = p = comma;
	}
}

int na_selector_parse(const char *selector, na_selector *sel, vs_error *err)
{
	size_t parts = 3;
	for (const char *p = selector; *p; p++)
		parts += *p == ',';
	*sel = (na_selector){strdup(selector), calloc(parts, sizeof(char *)), 0};
	int rc = sel->text && sel->conds ? split(sel, selector, err)
	                                 : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	/* Failed runs are records of failure, never numbers to compare. */
	if (rc == VS_OK)
		sel->conds[sel->n++] = "status=ok";
	else
		na_selector_free(sel);
	/* The pool on its own (a baseline) is compared only when asked for. */
	bool site = false;
	for (size_t i = 0; rc == VS_OK && i < sel->n; i++)
		site |= strncmp(sel->conds[i], "site=", 5) == 0;
	if (rc == VS_OK && !site)
		sel->conds[sel->n++] = "site=guest";
	return rc;
}

/* ---- groups ---- */

void na_cmp_row_free(na_cmp_row *r)
{
	for (size_t i = 0; i < NA_N_FIELDS; i++)
		free(r->field[i]);
	for (size_t i = 0; i < r->n_labels; i++) {
		free(r->label_keys[i]);
		free(r->label_values[i]);
	}
	free(r->label_keys);
	free(r->label_values);
	na_fio_dir_clear(&r->bins[0]);
	na_fio_dir_clear(&r->bins[1]);
}

int na_cmp_row_copy(na_cmp_row *dst, const na_cmp_row *src, vs_error *err)
{
	*dst = *src;
	memset(dst->field, 0, sizeof(dst->field));
	dst->n_labels = 0;
	dst->label_keys = calloc(src->n_labels + 1, sizeof(char *));
	dst->label_values = calloc(src->n_labels + 1, sizeof(char *));
	dst->bins[0] = dst->bins[1] = (na_fio_dir){0};
	bool ok = dst->label_keys && dst->label_values;
	for (size_t i = 0; i < NA_N_FIELDS; i++)
		ok &= !src->field[i] || (dst->field[i] = strdup(src->field[i]));
	for (size_t i = 0; ok && i < src->n_labels; i++, dst->n_labels++) {
		dst->label_keys[i] = strdup(src->label_keys[i]);
		dst->label_values[i] = strdup(src->label_values[i]);
		ok &= dst->label_keys[i] && dst->label_values[i];
	}
	int rc = ok ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (int d = 0; rc == VS_OK && d < 2; d++)
		rc = na_fio_dir_merge(&dst->bins[d], &src->bins[d], err);
	return rc;
}

/* A latency of 0 is a NULL column read back: unknown, not instantaneous. */
void na_cmp_row_metrics(double *m, const na_dir_stats *d)
{
	m[NA_M_IOPS] = d->iops;
	m[NA_M_MBPS] = d->bw_bytes >= 0 ? d->bw_bytes / 1e6 : -1;
	m[NA_M_AVG] = d->lat_mean_us > 0 ? d->lat_mean_us : -1;
	m[NA_M_P99] = d->p99_us > 0 ? d->p99_us : -1;
}

/* The length of the process mark (na_bench_mark: digits, '-', hex) that
 * names nfsagent's own folder at p ("nfsagent-fio-4242-0badcafe" under
 * --dir, "nfsagent-4242-0badcafe" in /tmp), else 0. */
static size_t folder_mark(const char *p, size_t *prefix)
{
	static const char *const names[] = {"nfsagent-fio-", "nfsagent-"};
	for (size_t i = 0; i < 2; i++) {
		*prefix = strlen(names[i]);
		if (!strncmp(p, names[i], *prefix) && isdigit((unsigned char)p[*prefix]))
			return strspn(p + *prefix, "0123456789abcdef-");
	}
	return 0;
}

/* The job file by content, short enough to read: FNV-1a, 32 bits, over its
 * text without the marks of nfsagent's own folders, which every process
 * names anew: the same job run by two (a resume, a rerun after an ESXi
 * upgrade) is one job file, not a factor. */
static char *job_hash(const char *job)
{
	uint32_t h = 2166136261u;
	for (const char *p = job; *p;) {
		size_t prefix, mark = folder_mark(p, &prefix), take = mark ? prefix : 1;
		for (size_t i = 0; i < take; i++)
			h = (h ^ (unsigned char)p[i]) * 16777619u;
		p += take + mark;
	}
	char text[16];
	snprintf(text, sizeof(text), "%08x", h);
	return strdup(text);
}

static bool row_fill(na_cmp_row *w, const na_result *r)
{
	bool ok = true;
	w->id = r->id;
	na_cmp_layers(r, NULL, w->layer);
	for (int i = 0; i < NA_N_FIELDS; i++) {
		const char *v = na_field_kept(i) ? na_field_text(r, i) : NULL;
		ok &= !v || (w->field[i] = strdup(v)) != NULL;
	}
	ok &= !r->job_file || (w->field[NA_FIELD_job_file] = job_hash(r->job_file)) != NULL;
	w->label_keys = calloc(r->n_labels + 1, sizeof(char *));
	w->label_values = calloc(r->n_labels + 1, sizeof(char *));
	ok &= w->label_keys && w->label_values;
	for (size_t i = 0; ok && i < r->n_labels; i++, w->n_labels++) {
		/* the store guarantees both; a hand-made result may not */
		w->label_keys[i] = strdup(r->labels[i].key ? r->labels[i].key : "");
		w->label_values[i] = strdup(r->labels[i].value ? r->labels[i].value : "");
		ok &= w->label_keys[i] && w->label_values[i];
	}
	w->present[0] = r->read.present;
	w->present[1] = r->write.present;
	na_cmp_row_metrics(w->metric[0], &r->read);
	na_cmp_row_metrics(w->metric[1], &r->write);
	return ok;
}

int na_cmp_group_add(na_cmp_group *g, const na_result *r)
{
	na_cmp_row *grown = realloc(g->rows, (g->n + 1) * sizeof(*grown));
	if (!grown)
		return VS_ERR_NOMEM;
	g->rows = grown;
	na_cmp_row *w = &g->rows[g->n];
	*w = (na_cmp_row){0};
	if (!row_fill(w, r)) {
		na_cmp_row_free(w);
		return VS_ERR_NOMEM;
	}
	g->n++;
	return VS_OK;
}

typedef struct loading {
	na_store *store;
	na_cmp_group *g;
	const na_result *r;  /* the result whose NAS side is read */
} loading;

/* The layers of the row just added, its NAS side's included. */
static int row_pool(const na_nas_run *n, void *ud, vs_error *err)
{
	(void)err;
	const loading *l = ud;
	na_cmp_layers(l->r, n, l->g->rows[l->g->n - 1].layer);
	return VS_OK;
}

int na_cmp_row_bins(na_store *s, na_cmp_row *w, vs_error *err)
{
	na_fio_dir_clear(&w->bins[0]);
	na_fio_dir_clear(&w->bins[1]);
	return na_store_bins_of(s, w->id, w->bins, err);
}

static int on_result(const na_result *r, void *ud, vs_error *err)
{
	loading *l = ud;
	if (na_cmp_group_add(l->g, r) != VS_OK)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	l->r = r;
	bool found;
	int rc = na_cmp_row_bins(l->store, &l->g->rows[l->g->n - 1], err);
	return rc == VS_OK ? na_store_nas_of(l->store, r->id, row_pool, l, &found, err) : rc;
}

int na_cmp_load(na_store *s, const char *selector, na_cmp_group *g, vs_error *err)
{
	na_selector sel;
	loading l = {s, g, NULL};
	int rc = na_selector_parse(selector, &sel, err);
	if (rc == VS_OK)
		rc = na_store_query(s, sel.conds, sel.n, on_result, &l, err);
	if (rc == VS_OK)
		rc = na_cmp_fold_groups(s, g, err);
	if (rc == VS_OK)
		rc = na_cmp_mark_fallbacks(s, g, err);
	na_selector_free(&sel);
	return rc;
}

void na_cmp_group_filter(na_cmp_group *g, bool (*keep)(const na_cmp_row *r, void *ud), void *ud)
{
	size_t kept = 0;
	for (size_t i = 0; i < g->n; i++) {
		if (keep(&g->rows[i], ud))
			g->rows[kept++] = g->rows[i];
		else
			na_cmp_row_free(&g->rows[i]);
	}
	g->n = kept;
}

void na_cmp_group_free(na_cmp_group *g)
{
	for (size_t i = 0; i < g->n; i++)
		na_cmp_row_free(&g->rows[i]);
	free(g->rows);
	*g = (na_cmp_group){0};
}

const char *na_cmp_label(const na_cmp_row *r, const char *key)
{
	for (size_t i = 0; i < r->n_labels; i++)
		if (strcmp(r->label_keys[i], key) == 0)
			return r->label_values[i];
	return NULL;
}

static bool same_text(const char *x, const char *y)
{
	return x == y || (x && y && strcmp(x, y) == 0);
}

bool na_cmp_same_key(const na_cmp_row *x, const na_cmp_row *y, const int *key, size_t n_key)
{
	for (size_t i = 0; i < n_key; i++)
		if (!same_text(x->field[key[i]], y->field[key[i]]))
			return false;
	return true;
}

bool na_cmp_group_has(const na_cmp_group *g, int64_t id)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->rows[i].id == id)
			return true;
	return false;
}

bool na_cmp_has_key(const na_cmp_group *g, const na_cmp_row *r, const int *key, size_t n_key)
{
	for (size_t i = 0; i < g->n; i++)
		if (na_cmp_same_key(&g->rows[i], r, key, n_key))
			return true;
	return false;
}

/* ---- lines ---- */

/* The values of one metric over the rows of g with key that did I/O in dir. */
static size_t collect(const na_cmp_group *g, const na_cmp_row *k, const int *key, size_t n_key,
                      int dir, int metric, double *out)
{
	size_t n = 0;
	for (size_t i = 0; i < g->n; i++) {
		const na_cmp_row *r = &g->rows[i];
		if (r->present[dir] && r->metric[dir][metric] >= 0 && na_cmp_same_key(r, k, key, n_key))
			out[n++] = r->metric[dir][metric];
	}
	return n;
}

static double *copy_values(const double *v, size_t n)
{
	double *c = malloc((n ? n : 1) * sizeof(double));
	if (c && n)
		memcpy(c, v, n * sizeof(double));
	return c;
}

static int add_line(na_cmp *c, const na_cmp_line *l)
{
	na_cmp_line *grown = realloc(c->lines, (c->n + 1) * sizeof(*grown));
	if (!grown)
		return VS_ERR_NOMEM;
	c->lines = grown;
	na_cmp_line *w = &c->lines[c->n];
	*w = *l;
	w->a = copy_values(l->a, l->sa.n);
	w->b = copy_values(l->b, l->sb.n);
	if (!w->a || !w->b) {
		free(w->a);
		free(w->b);
		return VS_ERR_NOMEM;
	}
	c->n++;
	return VS_OK;
}

/* The p99 of the merged latency bins of g's runs with key that did I/O in
 * dir: the tail of all their I/Os together; -1 when a run has no bins. */
static double pooled_p99(const na_cmp_group *g, const na_cmp_row *k, const int *key,
                         size_t n_key, int dir)
{
	na_fio_result all = {0};
	vs_error err = {0};
	bool every = true;
	for (size_t i = 0; every && i < g->n; i++) {
		const na_cmp_row *r = &g->rows[i];
		if (!r->present[dir] || !na_cmp_same_key(r, k, key, n_key))
			continue;
		const na_fio_dir *f = &r->bins[dir];
		every = f->n_bins && na_fio_dir_merge(&all.read, f, &err) == VS_OK;
	}
	double p99 = every && all.read.n_bins ? all.read.p99_us : -1;
	na_fio_result_clear(&all);
	return p99;
}

/* The lines of one key: buffers va and vb hold up to a->n and b->n values. */
static int key_lines(const na_cmp_group *a, const na_cmp_group *b, const na_cmp_row *k,
                     const int *key, size_t n_key, double band, double *va, double *vb,
                     na_cmp *out)
{
	int rc = VS_OK;
	bool read_iops = false;
	for (int d = 0; rc == VS_OK && d < 2; d++)
		for (int m = 0; rc == VS_OK && m < NA_M_COUNT; m++) {
			na_cmp_line l = {.key = k, .dir = d, .metric = m, .a = va, .b = vb,
			                 .pooled_a = -1, .pooled_b = -1};
			l.sa = na_spread_of(va, collect(a, k, key, n_key, d, m, va));
			l.sb = na_spread_of(vb, collect(b, k, key, n_key, d, m, vb));
			if (!l.sa.n || !l.sb.n)
				continue;
			/* A mixed job's write IOPS follow its read IOPS: fio issues its I/Os
			 * in the job's mix, so the two carry one piece of evidence. */
			bool judged = na_metrics[m].judged && !(m == NA_M_IOPS && d == 1 && read_iops);
			read_iops |= m == NA_M_IOPS && d == 0;
			l.eff = na_effect_of(va, l.sa.n, vb, l.sb.n, band, judged);
			l.eff.weight = m == NA_M_IOPS ? NA_IOPS_WEIGHT : 1;
			if (m == NA_M_P99) {
				l.pooled_a = pooled_p99(a, k, key, n_key, d);
				l.pooled_b = pooled_p99(b, k, key, n_key, d);
			}
			rc = add_line(out, &l);
		}
	return rc;
}

/* Whether an earlier row of a has the same key (the key was done then). */
static bool seen_before(const na_cmp_group *a, size_t i, const int *key, size_t n_key)
{
	for (size_t j = 0; j < i; j++)
		if (na_cmp_same_key(&a->rows[j], &a->rows[i], key, n_key))
			return true;
	return false;
}

/* Holm's correction within each key (one profile): its IOPS and p99 lines
 * answer one question, "did this workload change?", and a comparison of
 * many profiles keeps each one's power (stats.h, na_verdicts). */
static int correct(na_cmp *c)
{
	na_effect **lines = malloc((c->n ? c->n : 1) * sizeof(*lines));
	if (!lines)
		return VS_ERR_NOMEM;
	for (size_t i = 0; i < c->n;) {
		size_t m = 0;
		for (const na_cmp_row *k = c->lines[i].key; i < c->n && c->lines[i].key == k; i++) {
			lines[m] = &c->lines[i].eff;
			c->judged += lines[m]->judged && lines[m]->verdict != NA_NOISE_TOO_FEW;
			m++;
		}
		na_verdicts(lines, m);
	}
	free(lines);
	return VS_OK;
}

/* The values of one layer over the rows of g with key (known ones only). */
static size_t collect_layer(const na_cmp_group *g, const na_cmp_row *k, const int *key,
                            size_t n_key, int layer, double *out, bool *nonzero)
{
	size_t n = 0;
	for (size_t i = 0; i < g->n; i++) {
		const na_cmp_row *r = &g->rows[i];
		if (r->layer[layer] >= 0 && na_cmp_same_key(r, k, key, n_key)) {
			*nonzero |= r->layer[layer] > 0;
			out[n++] = r->layer[layer];
		}
	}
	return n;
}

/* The layers' lines of one key, judged as one family (Holm). */
static int layer_lines(const na_cmp_group *a, const na_cmp_group *b, const na_cmp_row *k,
                       const int *key, size_t n_key, double band, double *va, double *vb,
                       na_cmp *out)
{
	int rc = VS_OK;
	size_t from = out->n_layers;
	for (int m = 0; rc == VS_OK && m < NA_L_COUNT; m++) {
		bool nonzero = false;
		na_cmp_line l = {.key = k, .metric = m, .a = va, .b = vb, .pooled_a = -1, .pooled_b = -1};
		l.sa = na_spread_of(va, collect_layer(a, k, key, n_key, m, va, &nonzero));
		l.sb = na_spread_of(vb, collect_layer(b, k, key, n_key, m, vb, &nonzero));
		if (!l.sa.n || !l.sb.n || !nonzero)
			continue;
		l.eff = na_cmp_layer_effect(m, va, l.sa.n, vb, l.sb.n, band);
		na_cmp_line *grown = realloc(out->layers, (out->n_layers + 1) * sizeof(*grown));
		if (!grown)
			return VS_ERR_NOMEM;
		out->layers = grown;
		na_cmp_line *w = &out->layers[out->n_layers];
		*w = l;
		w->a = copy_values(va, l.sa.n);
		w->b = copy_values(vb, l.sb.n);
		rc = w->a && w->b ? VS_OK : VS_ERR_NOMEM;
		out->n_layers++;  /* freed with the others even when a copy failed */
	}
	na_effect **family = malloc((out->n_layers - from + 1) * sizeof(*family));
	for (size_t i = from; family && i < out->n_layers; i++)
		family[i - from] = &out->layers[i].eff;
	if (family)
		na_verdicts(family, out->n_layers - from);
	free(family);
	return rc == VS_OK && !family ? VS_ERR_NOMEM : rc;
}

int na_cmp_run(const na_cmp_group *a, const na_cmp_group *b, const int *key, size_t n_key,
               double band, na_cmp *out)
{
	*out = (na_cmp){0};
	double *va = malloc((a->n ? a->n : 1) * sizeof(double));
	double *vb = malloc((b->n ? b->n : 1) * sizeof(double));
	int rc = va && vb ? VS_OK : VS_ERR_NOMEM;
	for (size_t i = 0; rc == VS_OK && i < a->n; i++) {
		const na_cmp_row *k = &a->rows[i];
		if (seen_before(a, i, key, n_key) || !na_cmp_has_key(b, k, key, n_key))
			continue;
		out->keys++;
		rc = key_lines(a, b, k, key, n_key, band, va, vb, out);
		if (rc == VS_OK)
			rc = layer_lines(a, b, k, key, n_key, band, va, vb, out);
	}
	free(va);
	free(vb);
	return rc == VS_OK ? correct(out) : rc;
}

void na_cmp_free(na_cmp *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->lines[i].a);
		free(c->lines[i].b);
	}
	for (size_t i = 0; i < c->n_layers; i++) {
		free(c->layers[i].a);
		free(c->layers[i].b);
	}
	free(c->lines);
	free(c->layers);
	*c = (na_cmp){0};
}

/* ---- time order ---- */

/* The group's start times; NULL without memory. */
static const char **times_of(const na_cmp_group *g)
{
	const char **t = malloc((g->n ? g->n : 1) * sizeof(char *));
	for (size_t i = 0; t && i < g->n; i++)
		t[i] = g->rows[i].field[NA_FIELD_started_at];
	return t;
}

/* "2026-01-01T10:00:00Z to 2026-01-01T11:30:00Z" */
static void time_range(FILE *out, const char **t, size_t n)
{
	const char *first = t[0], *last = t[0];
	for (size_t i = 1; i < n; i++) {
		first = strcmp(t[i], first) < 0 ? t[i] : first;
		last = strcmp(t[i], last) > 0 ? t[i] : last;
	}
	fprintf(out, "%s to %s", first, last);
}

char *na_cmp_time_warning(const na_cmp_group *a, const na_cmp_group *b, const char *name_a,
                          const char *name_b)
{
	const char **ta = times_of(a), **tb = times_of(b);
	int order = ta && tb ? na_time_order(ta, a->n, tb, b->n) : 0;
	char *text = NULL;
	size_t size = 0;
	FILE *out = order ? open_memstream(&text, &size) : NULL;
	if (out) {
		fprintf(out, "%s ran ", name_a);
		time_range(out, ta, a->n);
		fprintf(out, ", %s ran ", name_b);
		time_range(out, tb, b->n);
		fprintf(out, ": every run of %s came before every run of %s, so a drift over time "
		        "(other load, a cache warming, a pool filling) would look like this change; "
		        "nfsagent run interleaves the groups' runs", order < 0 ? name_a : name_b,
		        order < 0 ? name_b : name_a);
		fclose(out);
	}
	free(ta);
	free(tb);
	return text;
}

/* ---- factors ---- */

/* Distinct values with how many runs had each. */
typedef struct tally {
	char **v;
	size_t *count;
	size_t n;
} tally;

static size_t tally_find(const tally *s, const char *x)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], x) == 0)
			return i;
	return SIZE_MAX;
}

static int tally_add(tally *s, const char *x)
{
	size_t at = tally_find(s, x);
	if (at != SIZE_MAX)
		return s->count[at]++, VS_OK;
	char **grown = realloc(s->v, (s->n + 1) * sizeof(char *));
	if (grown)
		s->v = grown;
	size_t *counts = grown ? realloc(s->count, (s->n + 1) * sizeof(size_t)) : NULL;
	if (counts)
		s->count = counts;
	if (!counts || !(s->v[s->n] = strdup(x)))
		return VS_ERR_NOMEM;
	s->count[s->n++] = 1;
	return VS_OK;
}

static void tally_free(tally *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	free(s->count);
	*s = (tally){0};
}

/* The values of a provenance field (label NULL) or of a label over g. */
static int values_of(const na_cmp_group *g, size_t f, const char *label, tally *out)
{
	int rc = VS_OK;
	for (size_t i = 0; rc == VS_OK && i < g->n; i++) {
		const char *v = label ? na_cmp_label(&g->rows[i], label) : g->rows[i].field[f];
		rc = tally_add(out, v ? v : "unset");
	}
	return rc;
}

/* The same values in the same proportions (the groups may differ in size). */
static bool same_mix(const tally *x, size_t nx, const tally *y, size_t ny)
{
	for (size_t i = 0; i < x->n; i++) {
		size_t at = tally_find(y, x->v[i]);
		if (at == SIZE_MAX || x->count[i] * ny != y->count[at] * nx)
			return false;
	}
	return x->n == y->n;
}

/* Moves the tallies into a new factor. */
static int push_factor(na_factor **out, size_t *n, const char *name, tally *a, tally *b)
{
	na_factor *grown = realloc(*out, (*n + 1) * sizeof(**out));
	if (!grown)
		return VS_ERR_NOMEM;
	*out = grown;
	char *copy = strdup(name);
	if (!copy)
		return VS_ERR_NOMEM;
	grown[(*n)++] = (na_factor){copy, a->v, b->v, a->count, b->count, a->n, b->n};
	*a = *b = (tally){0};
	return VS_OK;
}

/* A factor when its mix of values differs between the groups. */
static int check_factor(const na_cmp_group *a, const na_cmp_group *b, size_t f, const char *label,
                        na_factor **out, size_t *n)
{
	tally sa = {0}, sb = {0};
	int rc = values_of(a, f, label, &sa);
	if (rc == VS_OK)
		rc = values_of(b, f, label, &sb);
	if (rc == VS_OK && !same_mix(&sa, a->n, &sb, b->n))
		rc = push_factor(out, n, label ? label : na_field_shown((int)f), &sa, &sb);
	tally_free(&sa);
	tally_free(&sb);
	return rc;
}

int na_cmp_factors(const na_cmp_group *a, const na_cmp_group *b, na_factor **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	tally keys = {0};
	int rc = VS_OK;
	const na_cmp_group *both[2] = {a, b};
	for (size_t g = 0; g < 2; g++)
		for (size_t i = 0; rc == VS_OK && i < both[g]->n; i++)
			for (size_t l = 0; rc == VS_OK && l < both[g]->rows[i].n_labels; l++)
				rc = tally_add(&keys, both[g]->rows[i].label_keys[l]);
	for (size_t f = 0; rc == VS_OK && f < NA_N_FIELDS; f++)
		if (na_fields[f].factor)
			rc = check_factor(a, b, f, NULL, out, n);
	for (size_t k = 0; rc == VS_OK && k < keys.n; k++)
		rc = check_factor(a, b, 0, keys.v[k], out, n);
	tally_free(&keys);
	return rc;
}

void na_factors_free(na_factor *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		tally a = {f[i].a, f[i].ca, f[i].na}, b = {f[i].b, f[i].cb, f[i].nb};
		tally_free(&a);
		tally_free(&b);
		free(f[i].name);
	}
	free(f);
}

/* "NFS41", or "esx01 x4 + esx02 x1" when the counts matter (a mix on either side). */
static void join(FILE *out, char *const *v, const size_t *count, size_t n, bool counts)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s%s", i ? " + " : "", v[i]);
		if (counts)
			fprintf(out, " x%zu", count[i]);
	}
}

char *na_factors_sentence(const na_factor *f, size_t n)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	if (!out)
		return NULL;
	if (n == 0)
		fputs("the groups differ in no recorded factor", out);
	else if (n == 1)
		fputs("differs in: ", out);
	else
		fprintf(out, "the groups differ in %zu factors: ", n);
	for (size_t i = 0; i < n; i++) {
		bool counts = f[i].na > 1 || f[i].nb > 1;
		fprintf(out, "%s%s (", i ? ", " : "", f[i].name);
		join(out, f[i].a, f[i].ca, f[i].na, counts);
		fputs(" vs ", out);
		join(out, f[i].b, f[i].cb, f[i].nb, counts);
		fputc(')', out);
	}
	if (n > 1)
		fputs("; a change cannot be pinned on one of them", out);
	fclose(out);
	return text;
}

/* ---- text ---- */

/* Whether the line's latencies read better in ms than in us. */
static bool line_ms(const na_cmp_line *l)
{
	return na_metrics[l->metric].lower_is_better && (l->sa.median >= 1000 || l->sb.median >= 1000);
}

void na_cmp_cells_of(const na_cmp_line *l, na_cmp_cells *c)
{
	bool latency = na_metrics[l->metric].lower_is_better, ms = line_ms(l);
	const char *unit = latency ? (ms ? " ms" : " µs") : l->metric == NA_M_MBPS ? " MB/s" : "";
	double scale = latency && ms ? 1e-3 : 1;
	/* Runs are the replicates: p99 is the runs' own p99s, not one pooled. */
	snprintf(c->metric, sizeof(c->metric), "%s %s%s", na_dir_names[l->dir],
	         na_metrics[l->metric].label, l->metric == NA_M_P99 ? " (of each run)" : "");
	na_spread_text(&l->sa, l->eff.center_a, scale, unit, c->a, sizeof(c->a));
	na_spread_text(&l->sb, l->eff.center_b, scale, unit, c->b, sizeof(c->b));
	na_effect_text(&l->eff, latency, c->change, sizeof(c->change));
	na_verdict_text(&l->eff, c->verdict, sizeof(c->verdict));
	if (l->metric == NA_M_IOPS && l->eff.verdict == NA_NOISE_SHOWN)
		snprintf(c->verdict, sizeof(c->verdict), "follows read IOPS (the job's mix)");
	na_cmp_cells_narrow(l, scale, unit, c);
	c->pooled[0] = '\0';
	if (l->pooled_a > 0 && l->pooled_b > 0) {
		char pa[32], pb[32];
		snprintf(c->pooled, sizeof(c->pooled), "pooled from fio bins: %s vs %s%s",
		         na_number_text(l->pooled_a * scale, pa, sizeof(pa)),
		         na_number_text(l->pooled_b * scale, pb, sizeof(pb)), unit);
	}
}

/* ---- labels against what was measured ---- */

int na_cmp_label_conflicts(const na_cmp_group *g, const char *name, char ***out, size_t *n)
{
	*out = NULL;
	*n = 0;
	tally seen = {0};  /* "key=label\tfield\tmeasured" */
	int rc = VS_OK;
	for (size_t i = 0; rc == VS_OK && i < g->n; i++)
		for (size_t k = 0; rc == VS_OK && k < g->rows[i].n_labels; k++) {
			const na_cmp_row *r = &g->rows[i];
			int f = na_zfs_field_of(r->label_keys[k]);
			const char *measured = f >= 0 ? r->field[f] : NULL;
			if (!na_zfs_contradicts(f, r->label_values[k], measured))
				continue;
			char *key = NULL;
			size_t size = 0;
			FILE *m = open_memstream(&key, &size);
			if (m) {
				fprintf(m, "%s=%s\t%s\t%s", r->label_keys[k], r->label_values[k], na_fields[f].name,
				        measured);
				fclose(m);
			}
			rc = key ? tally_add(&seen, key) : VS_ERR_NOMEM;
			free(key);
		}
	for (size_t i = 0; rc == VS_OK && i < seen.n; i++) {
		char *label = seen.v[i], *field = strchr(label, '\t'), *measured = strchr(field + 1, '\t');
		*field++ = *measured++ = '\0';
		char *text = NULL;
		size_t size = 0;
		FILE *m = open_memstream(&text, &size);
		if (m) {
			fprintf(m, "label %s contradicts the NAS in %s: %s is %s (%zu run%s)", label, name, field,
			        measured, seen.count[i], seen.count[i] == 1 ? "" : "s");
			fclose(m);
		}
		char **grown = text ? realloc(*out, (*n + 1) * sizeof(char *)) : NULL;
		if (grown)
			(*out = grown)[(*n)++] = text;
		else
			free(text);
		rc = grown ? VS_OK : VS_ERR_NOMEM;
	}
	tally_free(&seen);
	return rc;
}
