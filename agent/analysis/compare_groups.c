/* Group runs in compare: a group's members are one sample of what the
 * datastore did under N VMs, not N samples of one VM each.  Pooled as
 * single results they would count a 4-VM group as 4 runs and average its
 * VMs' latencies; folded, the group's row carries its own figures (IOPS
 * and MB/s summed over the common window, the window's merged p99), its
 * members' whole-run bins merged for the pooled percentile, and the label
 * vms=N, so that a change of VM count is a factor (docs/groups.md). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"

/* Adds the label vms=N to w. */
static int add_vms_label(na_cmp_row *w, int vms)
{
	char n[16];
	snprintf(n, sizeof(n), "%d", vms);
	char **keys = realloc(w->label_keys, (w->n_labels + 2) * sizeof(char *));
	if (keys)
		w->label_keys = keys;
	char **values = keys ? realloc(w->label_values, (w->n_labels + 2) * sizeof(char *)) : NULL;
	if (values)
		w->label_values = values;
	char *k = strdup("vms"), *v = strdup(n);
	if (!keys || !values || !k || !v) {
		free(k);
		free(v);
		return VS_ERR_NOMEM;
	}
	w->label_keys[w->n_labels] = k;
	w->label_values[w->n_labels++] = v;
	return VS_OK;
}

/* "vm-a, vm-b": the group's VM field, its members in id order. */
static int append_vm(na_cmp_row *first, const na_cmp_row *member)
{
	const char *old = first->field[NA_FIELD_vm] ? first->field[NA_FIELD_vm] : "";
	const char *add = member->field[NA_FIELD_vm] ? member->field[NA_FIELD_vm] : "?";
	size_t len = strlen(old) + strlen(add) + 3;
	char *joined = malloc(len);
	if (!joined)
		return VS_ERR_NOMEM;
	snprintf(joined, len, "%s, %s", old, add);
	free(first->field[NA_FIELD_vm]);
	first->field[NA_FIELD_vm] = joined;
	return VS_OK;
}

/* A group's pools (result_group_nas), as its row's layers take them. */
typedef struct group_pools {
	double *layer;
	int pools;
} group_pools;

/* The pool's layers over the group's window, as a single run's (compare_layers.c):
 * its rates, its amplification against the members' summed guest writes,
 * and the log's share of it.  A pool whose figures are not the window's
 * (a member left out, zpool not placed) gives none. */
static int take_pool(const na_group_nas_row *p, void *ud, vs_error *err)
{
	(void)err;
	group_pools *g = ud;
	double *layer = g->layer, s = p->window_s;
	if (++g->pools > 1 || p->why || !p->pool_known || s <= 0)
		return VS_OK;
	layer[NA_L_POOL_READ] = (double)p->data_read_bytes / s / 1e6;
	layer[NA_L_POOL_WRITE] = (double)p->data_write_bytes / s / 1e6;
	layer[NA_L_SPECIAL_WRITE] = (double)p->special_write_bytes / s / 1e6;
	layer[NA_L_LOG_WRITE] = (double)p->log_write_bytes / s / 1e6;
	layer[NA_L_AMPLIFICATION] = p->amplification;
	if (p->guest_write_bytes > 0)
		layer[NA_L_AMP_LOG_SHARE] = (double)p->log_write_bytes / (double)p->guest_write_bytes;
	return VS_OK;
}

/* The layers of group g: its one pool's (a group over several pools has no
 * one pool to hold against another side's); never ESXi's, since each
 * member's host counters are its whole host's, which a sum would count
 * twice. */
static int group_layers(na_store *s, const na_group_row *g, double *layer, vs_error *err)
{
	for (int l = 0; l < NA_L_COUNT; l++)
		layer[l] = -1;
	group_pools gp = {layer, 0};
	int rc = na_store_group_nas_of(s, g->id, take_pool, &gp, err);
	for (int l = 0; gp.pools > 1 && l < NA_L_COUNT; l++)
		layer[l] = -1;
	return rc;
}

/* w becomes its group's row: the group's figures and its pool's layers. */
static int make_group_row(na_store *s, na_cmp_row *w, const na_group_row *g, vs_error *err)
{
	w->group = g->id;
	w->present[0] = g->read.present;
	w->present[1] = g->write.present;
	na_cmp_row_metrics(w->metric[0], &g->read);
	na_cmp_row_metrics(w->metric[1], &g->write);
	int rc = group_layers(s, g, w->layer, err);
	if (rc == VS_OK && add_vms_label(w, g->vms) != VS_OK)
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	return rc;
}

/* A group over several hosts went through no one link: its row has none
 * (the sums through each host are bench's to judge). */
static void drop_other_link(na_cmp_row *first, const na_cmp_row *member)
{
	const char *h = first->field[NA_FIELD_host], *m = member->field[NA_FIELD_host];
	if (h && m && strcmp(h, m) == 0)
		return;
	free(first->field[NA_FIELD_link_speed_mbit]);
	free(first->field[NA_FIELD_link_nic]);
	first->field[NA_FIELD_link_speed_mbit] = first->field[NA_FIELD_link_nic] = NULL;
}

/* Nor one NFS client's settings, when its hosts' differ. */
static void drop_other_client(na_cmp_row *first, const na_cmp_row *member)
{
	const char *f = first->field[NA_FIELD_nfs_client], *m = member->field[NA_FIELD_nfs_client];
	if (f && m && strcmp(f, m) == 0)
		return;
	free(first->field[NA_FIELD_nfs_client]);
	first->field[NA_FIELD_nfs_client] = NULL;
}

/* Folds a member into its group's row, first: its VM and its bins. */
static int fold_member(na_cmp_row *first, const na_cmp_row *member, vs_error *err)
{
	drop_other_link(first, member);
	drop_other_client(first, member);
	int rc = append_vm(first, member) == VS_OK ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (int d = 0; rc == VS_OK && d < 2; d++)
		rc = na_fio_dir_merge(&first->bins[d], &member->bins[d], err);
	return rc;
}

/* Takes row i of g: folded into the kept row of an earlier member of its
 * group (then freed), or kept as g's next row (a group's first member
 * becomes the group's row).  gr[] holds each row's group (id 0: none, or
 * not folded). */
static int take_row(na_store *s, na_cmp_group *g, size_t i, const na_group_row *gr, size_t *first,
                    size_t *kept, vs_error *err)
{
	size_t k = 0;
	while (gr[i].id && k < *kept && gr[first[k]].id != gr[i].id)
		k++;
	if (gr[i].id && k < *kept) {
		int rc = fold_member(&g->rows[k], &g->rows[i], err);
		na_cmp_row_free(&g->rows[i]);
		return rc;
	}
	first[*kept] = i;
	g->rows[(*kept)++] = g->rows[i];
	return gr[i].id ? make_group_row(s, &g->rows[*kept - 1], &gr[i], err) : VS_OK;
}

/* Each row's group, kept only where the rows hold the whole of a complete
 * group: a selector that picks some of its VMs (vm=a), or a group a member
 * of which failed, leaves its members single results. */
static int groups_of(na_store *s, const na_cmp_group *g, na_group_row *gr, vs_error *err)
{
	int64_t *ids = calloc(g->n + 1, sizeof(*ids));
	for (size_t i = 0; ids && i < g->n; i++)
		ids[i] = g->rows[i].id;
	/* members whose group a central database lacks are no single runs */
	int rc = ids ? na_store_check_groups(s, ids, g->n, err) : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	free(ids);
	for (size_t i = 0; rc == VS_OK && i < g->n; i++)
		rc = na_store_group_of(s, g->rows[i].id, &gr[i], err);
	/* a group's rows counted before any is let go: a group is whole or not */
	bool *whole = calloc(g->n + 1, sizeof(*whole));
	for (size_t i = 0; rc == VS_OK && whole && i < g->n; i++) {
		int rows = 0;
		for (size_t j = 0; gr[i].id && j < g->n; j++)
			rows += gr[j].id == gr[i].id;
		whole[i] = !gr[i].why && rows == gr[i].vms;
	}
	for (size_t i = 0; rc == VS_OK && whole && i < g->n; i++)
		gr[i].id = whole[i] ? gr[i].id : 0;
	if (rc == VS_OK && !whole)
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	free(whole);
	return rc;
}

int na_cmp_fold_groups(na_store *s, na_cmp_group *g, vs_error *err)
{
	na_group_row *gr = calloc(g->n + 1, sizeof(*gr));
	size_t *first = calloc(g->n + 1, sizeof(*first));
	int rc = gr && first ? groups_of(s, g, gr, err) : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	size_t kept = 0, next = 0;  /* next: the first row not taken */
	while (rc == VS_OK && next < g->n)
		rc = take_row(s, g, next++, gr, first, &kept, err);
	for (size_t j = next; j < g->n; j++)  /* after a failure: what was not taken */
		na_cmp_row_free(&g->rows[j]);
	for (size_t j = 0; gr && j < g->n; j++)
		na_group_row_clear(&gr[j]);
	g->n = kept;
	free(gr);
	free(first);
	return rc;
}
