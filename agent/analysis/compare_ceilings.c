/* Ceilings under a comparison (compare.h): a side whose throughput reached
 * its host's recorded link (na_network_bound decides), and a group whose
 * writes of different block sizes all ran at the log device's one rate
 * (the SLOG).  Either way a figure is the ceiling's, not the change's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/netbound.h"

/* ---- the network ---- */

/* The link a row recorded: its speed in Mb/s (decimal text), 0 unknown. */
static vs_host_link link_of(const char *speed_mbit, const char *nic)
{
	vs_host_link link = {0};
	char *end = NULL;
	long long mb = speed_mbit ? strtoll(speed_mbit, &end, 10) : 0;
	link.speed_mb = end && end != speed_mbit && !*end && mb > 0 ? mb : 0;
	snprintf(link.pnic, sizeof(link.pnic), "%s", nic ? nic : "?");
	return link;
}

/* na_network_bound's line for side s without its "network-bound: ". */
static bool side_bound(const na_net_side *s, char *text, size_t size)
{
	static const char prefix[] = "network-bound: ";
	vs_host_link link = link_of(s->speed_mbit, s->nic);
	char line[256];
	if (!s->host || !na_network_bound(s->host, &link, s->bytes_per_s, line, sizeof(line)))
		return false;
	size_t skip = strncmp(line, prefix, strlen(prefix)) == 0 ? strlen(prefix) : 0;
	snprintf(text, size, "%s", line + skip);
	return true;
}

int na_cmp_network_bound(const na_net_side *a, const na_net_side *b, char *line, size_t size)
{
	char ta[256], tb[256];
	bool in_a = side_bound(a, ta, sizeof(ta)), in_b = side_bound(b, tb, sizeof(tb));
	if (in_a && in_b && strcmp(ta, tb) == 0)
		snprintf(line, size, "network-bound: both sides at %s: a change between them is not a "
		         "storage change", ta);
	else if (in_a && in_b)
		snprintf(line, size, "network-bound: %s at %s, %s at %s: a change between them is not a "
		         "storage change", a->name, ta, b->name, tb);
	else if (in_a || in_b)
		snprintf(line, size, "network-bound: %s only, at %s: %s's figure is its link's, not its "
		         "storage's", in_a ? a->name : b->name, in_a ? ta : tb, in_a ? a->name : b->name);
	return (in_a ? NA_NET_A : 0) | (in_b ? NA_NET_B : 0);
}

/* The first row of g with r's key, or NULL. */
static const na_cmp_row *same_key(const na_cmp_group *g, const na_cmp_row *r, const int *key,
                                  size_t n_key)
{
	for (size_t i = 0; i < g->n; i++)
		if (na_cmp_same_key(&g->rows[i], r, key, n_key))
			return &g->rows[i];
	return NULL;
}

static na_net_side side_of(const char *name, const na_cmp_row *r, double mbps)
{
	return (na_net_side){name, r->field[NA_FIELD_host], r->field[NA_FIELD_link_speed_mbit],
	                     r->field[NA_FIELD_link_nic], mbps * 1e6};
}

int na_cmp_network_hints(const na_cmp *c, const na_cmp_group *b, const int *key, size_t n_key,
                         const char *name_a, const char *name_b, na_cmp_hint **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < c->n; i++) {
		const na_cmp_line *l = &c->lines[i];
		const na_cmp_row *rb = l->metric == NA_M_MBPS ? same_key(b, l->key, key, n_key) : NULL;
		if (!rb)
			continue;
		na_net_side sa = side_of(name_a, l->key, l->sa.median), sb = side_of(name_b, rb, l->sb.median);
		char line[600];
		int sides = na_cmp_network_bound(&sa, &sb, line, sizeof(line));
		if (!sides)
			continue;
		na_cmp_hint *grown = realloc(*out, (*n + 1) * sizeof(**out));
		char *text = grown ? strdup(line) : NULL;
		if (grown)
			*out = grown;
		if (!text)
			return VS_ERR_NOMEM;
		(*out)[(*n)++] = (na_cmp_hint){l, sides, text};
	}
	return VS_OK;
}

void na_cmp_hints_free(na_cmp_hint *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(h[i].text);
	free(h);
}

/* ---- the SLOG ---- */

/* Whether x and y are within share of the larger. */
static bool near(double x, double y, double share)
{
	double hi = x > y ? x : y, lo = x > y ? y : x;
	return hi > 0 && (hi - lo) <= share * hi;
}

/* Whether the log device carried the bulk of p's writes. */
static bool log_carries(const na_slog_profile *p)
{
	return p->log_mbps > 0 && p->write_mbps > 0 && p->block_bytes > 0 &&
	       p->log_mbps >= NA_SLOG_BULK_SHARE * p->write_mbps;
}

bool na_slog_bound(const na_slog_profile *p, size_t n, const char *group, char *line, size_t size)
{
	/* the ceiling is the fastest log rate: the profiles near it */
	double top = 0;
	for (size_t i = 0; i < n; i++)
		if (log_carries(&p[i]) && p[i].log_mbps > top)
			top = p[i].log_mbps;
	size_t at = 0, k = 0;
	double sum = 0, bs_lo = 0, bs_hi = 0;
	char names[400] = "";
	for (size_t i = 0; i < n; i++) {
		if (!log_carries(&p[i]) || !near(p[i].log_mbps, top, NA_SLOG_SAME_SHARE))
			continue;
		bs_lo = !k || p[i].block_bytes < bs_lo ? p[i].block_bytes : bs_lo;
		bs_hi = !k || p[i].block_bytes > bs_hi ? p[i].block_bytes : bs_hi;
		sum += p[i].log_mbps;
		k++;
		if (at < sizeof(names))  /* a long list is cut, never overrun */
			at += (size_t)snprintf(names + at, sizeof(names) - at, "%s%s", k > 1 ? ", " : "", p[i].profile);
	}
	/* one block size at one rate says nothing of a ceiling */
	if (k < 2 || near(bs_lo, bs_hi, NA_SLOG_SAME_SHARE))
		return false;
	snprintf(line, size, "SLOG-bound: the log device wrote ~%.0f MB/s in each of %s (%s): the SLOG "
	         "is the ceiling for these writes", sum / (double)k, names, group);
	return true;
}

/* The median of g's rows of profile: of the layer (layer >= 0) or of the
 * write direction's metric; a value not measured (-1) is left out. */
static double median_of(const na_cmp_group *g, const char *profile, int layer, int metric)
{
	double *v = calloc(g->n + 1, sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; v && i < g->n; i++) {
		const na_cmp_row *r = &g->rows[i];
		const char *p = r->field[NA_FIELD_profile];
		double x = layer >= 0 ? r->layer[layer] : r->metric[1][metric];
		if (p && strcmp(p, profile) == 0 && r->present[1] && x >= 0)
			v[k++] = x;
	}
	na_spread s = na_spread_of(v, k);
	free(v);
	return s.n ? s.median : -1;
}

/* Whether g's rows before i have profile p. */
static bool seen(const na_cmp_group *g, size_t i, const char *p)
{
	for (size_t j = 0; j < i; j++)
		if (g->rows[j].field[NA_FIELD_profile] && strcmp(g->rows[j].field[NA_FIELD_profile], p) == 0)
			return true;
	return false;
}

bool na_cmp_slog_hint(const na_cmp_group *g, const char *group, char *line, size_t size)
{
	na_slog_profile *p = calloc(g->n + 1, sizeof(*p));
	size_t n = 0;
	for (size_t i = 0; p && i < g->n; i++) {
		const char *name = g->rows[i].field[NA_FIELD_profile];
		if (!name || !g->rows[i].present[1] || seen(g, i, name))
			continue;
		double mbps = median_of(g, name, -1, NA_M_MBPS), iops = median_of(g, name, -1, NA_M_IOPS);
		p[n++] = (na_slog_profile){name, median_of(g, name, NA_L_LOG_WRITE, 0), mbps,
		                           iops > 0 ? mbps * 1e6 / iops : 0};
	}
	bool bound = p && na_slog_bound(p, n, group, line, size);
	free(p);
	return bound;
}
