/* The unmount workflow (unmount.h). */
#include <stdlib.h>
#include <string.h>

#include "ops/unmount.h"
#include "ops/extents.h"

/* vSphere Cluster Services agent VMs: "vCLS-<uuid>" since 7.0 U3, "vCLS (N)"
 * in 7.0 U1 and U2. */
static bool is_vcls(const vs_vm *vm)
{
	return strncmp(vm->name, "vCLS-", 5) == 0 || strncmp(vm->name, "vCLS (", 6) == 0;
}

/* "fiotest, db01" of the VMs with files on d, the vCLS agents or the others;
 * NULL if none. */
static char *vms_on(const vs_vm *vms, size_t n, bool vcls)
{
	char *list = NULL;
	for (size_t i = 0; i < n; i++)
		if (is_vcls(&vms[i]) == vcls && !na_list_add(&list, vms[i].name))
			break;
	return list;
}

/* The cluster of a host (moref), NULL for a standalone host. */
static const na_cluster *cluster_of(const na_inventory *inv, const char *host)
{
	const vs_host *h = na_host_by_moref(inv, host);
	for (size_t i = 0; h && h->parent && i < inv->n_clusters; i++)
		if (strcmp(inv->clusters[i].moref, h->parent) == 0)
			return &inv->clusters[i];
	return NULL;
}

/* vCenter refuses to unmount a datastore vSphere HA heartbeats on from a host
 * of that cluster: ask each cluster of the hosts concerned once. */
static int check_heartbeats(vs_client *c, const na_inventory *inv, const vs_datastore *d,
                            vs_host *const *hosts, size_t n, vs_error *err)
{
	for (size_t i = 0; i < n; i++) {
		const na_cluster *cl = na_mounted_on(d, hosts[i]->moref) ? cluster_of(inv, hosts[i]->moref)
		                                                         : NULL;
		bool asked = false;
		for (size_t j = 0; cl && j < i; j++)
			asked |= na_mounted_on(d, hosts[j]->moref) && cluster_of(inv, hosts[j]->moref) == cl;
		if (!cl || asked)
			continue;
		bool used = false;
		int rc = vs_cluster_heartbeats_on(c, cl->moref, d->moref, &used, err);
		if (rc != VS_OK) {
			vs_error_context(err, "checking whether vSphere HA of cluster %s heartbeats on %s",
			                 cl->name, d->name);
			return rc;
		}
		if (used)
			return vs_fail(err, VS_ERR_USAGE,
			               "cannot unmount %s: vSphere HA uses it for heartbeating in cluster %s; "
			               "pick other heartbeat datastores (cluster > Configure > vSphere "
			               "Availability > Heartbeat Datastores) and retry",
			               d->name, cl->name);
	}
	return VS_OK;
}

/* vCenter places vCLS agent VMs itself and recreates them when they go, so
 * the way out is retreat mode, set per cluster: name the clusters. */
static int check_vcls(const na_inventory *inv, const vs_datastore *d, const vs_vm *vms, size_t n,
                      vs_error *err)
{
	char *agents = vms_on(vms, n, true);
	if (!agents)
		return VS_OK;
	char *clusters = NULL;
	for (size_t k = 0; k < inv->n_clusters; k++)
		for (size_t i = 0; i < n; i++) {
			if (is_vcls(&vms[i]) && cluster_of(inv, vms[i].host) == &inv->clusters[k]) {
				na_list_add(&clusters, inv->clusters[k].name);
				break;
			}
		}
	vs_fail(err, VS_ERR_USAGE,
	        "cannot unmount %s: vSphere Cluster Services VMs %s live there; enable retreat mode for "
	        "%s %s or move them",
	        d->name, agents, clusters && strchr(clusters, ',') ? "clusters" : "cluster",
	        clusters ? clusters : "(their cluster)");
	free(agents);
	free(clusters);
	return VS_ERR_USAGE;
}

/* Moves the VMs registered on one of the hosts (or on none) to the front:
 * vCenter refuses a host's unmount for that host's VMs; another host's VMs
 * do not stop it.  Returns how many. */
static size_t on_hosts(vs_vm *vms, size_t n, vs_host *const *hosts, size_t n_hosts)
{
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		bool ours = !vms[i].host;
		for (size_t h = 0; !ours && h < n_hosts; h++)
			ours = strcmp(vms[i].host, hosts[h]->moref) == 0;
		if (!ours)
			continue;
		vs_vm first = vms[kept];
		vms[kept++] = vms[i];
		vms[i] = first;
	}
	return kept;
}

int na_unmount_check(vs_client *c, const na_inventory *inv, const vs_datastore *d,
                     vs_host *const *hosts, size_t n, vs_error *err)
{
	/* Which VMs have files there is read now, not from the inventory: DRS,
	 * vCLS or an admin may have put one there since.  Only those of the
	 * hosts it leaves matter. */
	vs_vm *vms = NULL;
	size_t n_vms = 0;
	int rc = check_heartbeats(c, inv, d, hosts, n, err);
	if (rc == VS_OK)
		rc = vs_datastore_vms(c, d->moref, &vms, &n_vms, err);
	size_t here = on_hosts(vms, n_vms, hosts, n);
	if (rc == VS_OK)
		rc = check_vcls(inv, d, vms, here, err);
	char *users = rc == VS_OK ? vms_on(vms, here, false) : NULL;
	if (users) {
		rc = vs_fail(err, VS_ERR_USAGE, "refusing to unmount '%s': VMs have files there: %s", d->name,
		             users);
		free(users);
	}
	vs_vms_free(vms, n_vms);
	return rc;
}

/* Whether any datastore has this name (na_find_datastore also fails on
 * several). */
static bool named(const na_inventory *inv, const char *name)
{
	for (size_t i = 0; i < inv->n_datastores; i++)
		if (strcmp(inv->datastores[i].name, name) == 0)
			return true;
	return false;
}

/* out->hosts: the hosts given, or every host that mounts d. */
static int take_hosts(const na_inventory *inv, const vs_datastore *d, vs_host *const *hosts,
                      size_t n, na_unmount_result *out, vs_error *err)
{
	if (!(out->hosts = calloc((hosts ? n : inv->n_hosts) + 1, sizeof(*out->hosts))))
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; hosts && i < n; i++)
		out->hosts[out->n_hosts++].host = hosts[i];
	for (size_t i = 0; !hosts && i < inv->n_hosts; i++)
		if (na_mounted_on(d, inv->hosts[i].moref))
			out->hosts[out->n_hosts++].host = &inv->hosts[i];
	return VS_OK;
}

int na_op_unmount(na_session *s, const char *datastore, vs_host *const *hosts, size_t n,
                  na_unmount_result *out, vs_error *err)
{
	*out = (na_unmount_result){0};
	int rc = na_session_fresh(s, err);
	vs_datastore *d = rc == VS_OK ? na_find_datastore(s->inv, datastore, &out->lookup) : NULL;
	if (rc == VS_OK && !d && !named(s->inv, datastore)) {
		out->unknown = true;
		return VS_OK;
	}
	if (rc == VS_OK && !d) {
		*err = out->lookup;
		return err->status;
	}
	if (rc == VS_OK)
		rc = take_hosts(s->inv, d, hosts, n, out, err);
	vs_host **checked = rc == VS_OK ? calloc(out->n_hosts + 1, sizeof(vs_host *)) : NULL;
	bool mounted = false;
	for (size_t i = 0; checked && i < out->n_hosts; i++) {
		checked[i] = out->hosts[i].host;
		mounted |= na_mounted_on(d, checked[i]->moref);
	}
	if (rc == VS_OK && !checked)
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	/* Not mounted on these hosts: nothing to do, whatever lives there. */
	if (rc == VS_OK && mounted)
		rc = na_unmount_check(s->client, s->inv, d, checked, out->n_hosts, err);
	free(checked);
	for (size_t i = 0; rc == VS_OK && i < out->n_hosts; i++) {
		na_unmount_host *h = &out->hosts[i];
		if (!na_mounted_on(d, h->host->moref)) {
			h->outcome = NA_UNMOUNT_ABSENT;
			na_say(s, "%s: %s is not mounted", h->host->name, d->name);
			continue;
		}
		s->stale = true;
		rc = vs_datastore_unmount(s->client, h->host, d->moref, err);
		h->outcome = rc == VS_OK ? NA_UNMOUNT_UNMOUNTED : NA_UNMOUNT_FAILED;
		out->unmounted += rc == VS_OK;
		if (rc == VS_OK)
			na_say(s, "%s: unmounted %s", h->host->name, d->name);
	}
	return rc;
}

void na_unmount_result_free(na_unmount_result *r)
{
	free(r->hosts);
	*r = (na_unmount_result){0};
}
