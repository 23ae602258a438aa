/* A group run's verdict (limits.h; docs/limits.md, "Group runs"): the
 * group's own stored figures made into the one input na_limit_of judges,
 * so that a group is held to the same rules and thresholds as one VM. */
#include <stdlib.h>
#include <string.h>

#include "analysis/limits.h"

na_limit_member na_limit_member_of(const na_result *r)
{
	return (na_limit_member){r->id, r->host, r->link_nic, r->nfs_client, r->export_path, r->servers,
	                         r->link_speed_mbit ? strtoll(r->link_speed_mbit, NULL, 10) : 0,
	                         r->read.present ? r->read.bw_bytes : 0,
	                         r->write.present ? r->write.bw_bytes : 0};
}

static bool same_text(const char *x, const char *y)
{
	return x == y || (x && y && strcmp(x, y) == 0);
}

/* The share of direction d's bytes (0 read, 1 write) that the VMs on
 * m[at]'s host moved: their whole-run rates' share, or their count's when
 * no rate is known.  A member's own window rate is not stored, and the
 * group's window sum is what the link had to carry at once. */
static double host_share(const na_limit_member *m, size_t n, size_t at, int d)
{
	double on = 0, all = 0;
	size_t vms = 0;
	for (size_t i = 0; i < n; i++) {
		double v = d ? m[i].write_bps : m[i].read_bps;
		bool here = same_text(m[i].host, m[at].host);
		all += v > 0 ? v : 0;
		on += here && v > 0 ? v : 0;
		vms += here;
	}
	return all > 0 ? on / all : (double)vms / (double)n;
}

/* The bytes/s through m[at]'s host's link: the direction that moved most
 * (a full-duplex link carries its speed each way). */
static double host_bps(const na_group_row *g, const na_limit_member *m, size_t n, size_t at)
{
	double r = g->read.present ? g->read.bw_bytes * host_share(m, n, at, 0) : 0;
	double w = g->write.present ? g->write.bw_bytes * host_share(m, n, at, 1) : 0;
	return r > w ? r : w;
}

/* The member whose host's link the group is held against: one whose link
 * speed is not recorded (the network then cannot be ruled out), else the
 * one its VMs came nearest to. */
static size_t held_link(const na_group_row *g, const na_limit_member *m, size_t n)
{
	size_t best = 0;
	double top = -1;
	for (size_t i = 0; i < n; i++) {
		if (m[i].link_mbit <= 0)
			return i;
		double of_link = host_bps(g, m, n, i) / (double)m[i].link_mbit;
		if (of_link > top)
			top = of_link, best = i;
	}
	return best;
}

static void link_of_group(const na_group_row *g, const na_limit_member *m, size_t n, na_limit_in *in)
{
	size_t at = held_link(g, m, n);
	in->host = m[at].host, in->nic = m[at].nic, in->nfs_client = m[at].nfs_client;
	in->link_mbit = m[at].link_mbit;
	in->link_bps = host_bps(g, m, n, at);
	for (size_t i = 0; i < n; i++)
		in->link_vms += same_text(m[i].host, m[at].host);
}

/* The pool's rates over the group's window: its one pool's, when that
 * pool's figures are the window's (as compare takes a group's layers). */
static void pool_of_group(const na_group_nas_row *p, size_t n_pools, na_limit_in *in)
{
	in->nas = n_pools == 1 && p->pool_known && !p->why && p->window_s > 0;
	if (n_pools > 1)
		in->nas_why = "its VMs' datastores are on several pools";
	else if (n_pools == 1 && !in->nas)
		in->nas_why = p->why ? p->why : "its pool's figures are not the window's";
	if (!in->nas)
		return;
	double s = p->window_s;
	in->log_write_bps = (double)p->log_write_bytes / s;
	in->data_write_bps = (double)(p->data_write_bytes + p->special_write_bytes) / s;
	in->data_read_bps = (double)p->data_read_bytes / s;
	in->amplification = p->amplification;
}

void na_limit_in_of_group(const na_group_row *g, const na_group_nas_row *p, size_t n_pools,
                          const na_limit_member *m, size_t n, double under_floor, na_limit_in *in)
{
	memset(in, 0, sizeof(*in));
	in->reads = g->read.present;
	in->writes = g->write.present;
	in->read_bps = g->read.bw_bytes, in->write_bps = g->write.bw_bytes;
	in->read_iops = g->read.iops, in->write_iops = g->write.iops;
	in->write_lat_us = g->write.present ? g->write.lat_mean_us : -1;
	in->under_floor = under_floor;
	in->arc_hit_ratio = in->log_wait_us = in->amplification = -1;
	in->pool_totals_only = true;
	in->vms = (int)n;
	if (n)
		link_of_group(g, m, n, in);
	pool_of_group(p, n_pools, in);
}

static char *dup_or_null(const char *s, bool *ok)
{
	char *c = s ? strdup(s) : NULL;
	*ok = *ok && (!s || c);
	return c;
}

int na_limit_members_add(na_limit_members *ms, const na_result *r, vs_error *err)
{
	na_limit_member *v = realloc(ms->v, (ms->n + 1) * sizeof(*v));
	if (!v)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	ms->v = v;
	na_limit_member m = na_limit_member_of(r);
	bool ok = true;
	m.host = dup_or_null(m.host, &ok), m.nic = dup_or_null(m.nic, &ok);
	m.nfs_client = dup_or_null(m.nfs_client, &ok), m.export_path = dup_or_null(m.export_path, &ok);
	m.servers = dup_or_null(m.servers, &ok);
	v[ms->n++] = m;
	return ok ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
}

void na_limit_members_free(na_limit_members *ms)
{
	for (size_t i = 0; i < ms->n; i++) {
		const char *owned[] = {ms->v[i].host, ms->v[i].nic, ms->v[i].nfs_client, ms->v[i].export_path,
		                       ms->v[i].servers};
		for (size_t k = 0; k < 5; k++)
			free((char *)owned[k]);
	}
	free(ms->v);
	*ms = (na_limit_members){0};
}
