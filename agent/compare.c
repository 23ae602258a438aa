/* Comparing two groups of results (see compare.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

const char *const na_cmp_field_names[NA_CMP_N_FIELDS] = {
	"protocol", "esxi_build", "esxi_version", "host", "datastore", "export_path", "servers",
	"vm", "guest_os", "fio_version", "profile",
};

const na_metric_info na_metrics[NA_M_COUNT] = {
	{"iops", "IOPS", false},
	{"mbps", "MB/s", false},
	{"avg", "avg latency", true},
	{"p99", "p99 latency", true},
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
	size_t parts = 2;
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
	return rc;
}

/* ---- groups ---- */

static void row_free(na_cmp_row *r)
{
	for (size_t i = 0; i < NA_CMP_N_FIELDS; i++)
		free(r->field[i]);
	for (size_t i = 0; i < r->n_labels; i++) {
		free(r->label_keys[i]);
		free(r->label_values[i]);
	}
	free(r->label_keys);
	free(r->label_values);
}

/* A latency of 0 is a NULL column read back: unknown, not instantaneous. */
static void row_metrics(double *m, const na_dir_stats *d)
{
	m[NA_M_IOPS] = d->iops;
	m[NA_M_MBPS] = d->bw_bytes >= 0 ? d->bw_bytes / 1e6 : -1;
	m[NA_M_AVG] = d->lat_mean_us > 0 ? d->lat_mean_us : -1;
	m[NA_M_P99] = d->p99_us > 0 ? d->p99_us : -1;
}

static bool row_fill(na_cmp_row *w, const na_result *r)
{
	const char *const f[NA_CMP_N_FIELDS] = {
		r->datastore_type, r->esxi_build, r->esxi_version, r->host, r->datastore,
		r->export_path, r->servers, r->vm, r->guest_os, r->fio_version, r->profile,
	};
	bool ok = true;
	w->id = r->id;
	for (size_t i = 0; i < NA_CMP_N_FIELDS; i++)
		ok &= !f[i] || (w->field[i] = strdup(f[i])) != NULL;
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
	row_metrics(w->metric[0], &r->read);
	row_metrics(w->metric[1], &r->write);
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
		row_free(w);
		return VS_ERR_NOMEM;
	}
	g->n++;
	return VS_OK;
}

static int on_result(const na_result *r, void *ud, vs_error *err)
{
	return na_cmp_group_add(ud, r) == VS_OK ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
}

int na_cmp_load(na_store *s, const char *selector, na_cmp_group *g, vs_error *err)
{
	na_selector sel;
	int rc = na_selector_parse(selector, &sel, err);
	if (rc == VS_OK)
		rc = na_store_query(s, sel.conds, sel.n, on_result, g, err);
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
			row_free(&g->rows[i]);
	}
	g->n = kept;
}

void na_cmp_group_free(na_cmp_group *g)
{
	for (size_t i = 0; i < g->n; i++)
		row_free(&g->rows[i]);
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

/* The lines of one key: buffers va and vb hold up to a->n and b->n values. */
static int key_lines(const na_cmp_group *a, const na_cmp_group *b, const na_cmp_row *k,
                     const int *key, size_t n_key, double *va, double *vb, na_cmp *out)
{
	int rc = VS_OK;
	for (int d = 0; rc == VS_OK && d < 2; d++)
		for (int m = 0; rc == VS_OK && m < NA_M_COUNT; m++) {
			na_cmp_line l = {.key = k, .dir = d, .metric = m, .a = va, .b = vb};
			l.sa = na_spread_of(va, collect(a, k, key, n_key, d, m, va));
			l.sb = na_spread_of(vb, collect(b, k, key, n_key, d, m, vb));
			if (!l.sa.n || !l.sb.n)
				continue;
			l.change_pct = na_change_pct(&l.sa, &l.sb);
			l.noise = na_noise_of(&l.sa, &l.sb);
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

int na_cmp_run(const na_cmp_group *a, const na_cmp_group *b, const int *key, size_t n_key,
               na_cmp *out)
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
		rc = key_lines(a, b, k, key, n_key, va, vb, out);
	}
	free(va);
	free(vb);
	return rc;
}

void na_cmp_free(na_cmp *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->lines[i].a);
		free(c->lines[i].b);
	}
	free(c->lines);
	*c = (na_cmp){0};
}

/* ---- factors ---- */

typedef struct strset {
	char **v;
	size_t n;
} strset;

static bool set_has(const strset *s, const char *x)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], x) == 0)
			return true;
	return false;
}

static int set_add(strset *s, const char *x)
{
	if (set_has(s, x))
		return VS_OK;
	char **grown = realloc(s->v, (s->n + 1) * sizeof(char *));
	if (!grown)
		return VS_ERR_NOMEM;
	s->v = grown;
	return (s->v[s->n] = strdup(x)) ? (s->n++, VS_OK) : VS_ERR_NOMEM;
}

static void set_free(strset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	*s = (strset){0};
}

/* The values of a provenance field (label NULL) or of a label over g. */
static int values_of(const na_cmp_group *g, size_t f, const char *label, strset *out)
{
	int rc = VS_OK;
	for (size_t i = 0; rc == VS_OK && i < g->n; i++) {
		const char *v = label ? na_cmp_label(&g->rows[i], label) : g->rows[i].field[f];
		rc = set_add(out, v ? v : "unset");
	}
	return rc;
}

static bool sets_equal(const strset *x, const strset *y)
{
	for (size_t i = 0; i < x->n; i++)
		if (!set_has(y, x->v[i]))
			return false;
	return x->n == y->n;
}

/* Moves the value sets into a new factor. */
static int push_factor(na_factor **out, size_t *n, const char *name, strset *a, strset *b)
{
	na_factor *grown = realloc(*out, (*n + 1) * sizeof(**out));
	if (!grown)
		return VS_ERR_NOMEM;
	*out = grown;
	char *copy = strdup(name);
	if (!copy)
		return VS_ERR_NOMEM;
	grown[(*n)++] = (na_factor){copy, a->v, b->v, a->n, b->n};
	*a = *b = (strset){0};
	return VS_OK;
}

/* A factor when its values differ between the groups. */
static int check_factor(const na_cmp_group *a, const na_cmp_group *b, size_t f, const char *label,
                        na_factor **out, size_t *n)
{
	strset sa = {0}, sb = {0};
	int rc = values_of(a, f, label, &sa);
	if (rc == VS_OK)
		rc = values_of(b, f, label, &sb);
	if (rc == VS_OK && !sets_equal(&sa, &sb))
		rc = push_factor(out, n, label ? label : na_cmp_field_names[f], &sa, &sb);
	set_free(&sa);
	set_free(&sb);
	return rc;
}

int na_cmp_factors(const na_cmp_group *a, const na_cmp_group *b, na_factor **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	strset keys = {0};
	int rc = VS_OK;
	const na_cmp_group *both[2] = {a, b};
	for (size_t g = 0; g < 2; g++)
		for (size_t i = 0; rc == VS_OK && i < both[g]->n; i++)
			for (size_t l = 0; rc == VS_OK && l < both[g]->rows[i].n_labels; l++)
				rc = set_add(&keys, both[g]->rows[i].label_keys[l]);
	for (size_t f = 0; rc == VS_OK && f < NA_CMP_N_FACTORS; f++)
		rc = check_factor(a, b, f, NULL, out, n);
	for (size_t k = 0; rc == VS_OK && k < keys.n; k++)
		rc = check_factor(a, b, 0, keys.v[k], out, n);
	set_free(&keys);
	return rc;
}

void na_factors_free(na_factor *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		strset a = {f[i].a, f[i].na}, b = {f[i].b, f[i].nb};
		set_free(&a);
		set_free(&b);
		free(f[i].name);
	}
	free(f);
}

static void join(FILE *out, char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? "/" : "", v[i]);
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
		fprintf(out, "%s%s (", i ? ", " : "", f[i].name);
		join(out, f[i].a, f[i].na);
		fputs(" vs ", out);
		join(out, f[i].b, f[i].nb);
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
	snprintf(c->metric, sizeof(c->metric), "%s %s", na_dir_names[l->dir], na_metrics[l->metric].label);
	na_spread_text(&l->sa, scale, unit, c->a, sizeof(c->a));
	na_spread_text(&l->sb, scale, unit, c->b, sizeof(c->b));
	na_change_text(l->change_pct, latency, c->change, sizeof(c->change));
}
