/* nfsagent unmount: removes an NFS datastore from hosts, never while a VM
 * still has files on it, vSphere HA heartbeats on it or vCLS VMs live there. */
#include <stdlib.h>
#include <string.h>

#include "agent.h"

static const char usage[] =
	"Usage: nfsagent unmount (--host H | --cluster C | --all-hosts) --name NAME\n"
	"                        [OPTIONS]\n"
	"Unmounts datastore NAME from the hosts (with --all-hosts: from every host that\n"
	"mounts it). Refused while any VM has files there (the VMs are listed), while\n"
	"vSphere HA heartbeats on it, or while vCLS VMs live there.\n\n" NA_CONNECT_HELP;

enum { OPT_NAME = NA_OPT_FIRST_COMMAND_OPTION };

typedef struct unmount_args {
	na_host_choice choice;
	const char *name;
} unmount_args;

static int on_option(int opt, const char *arg, void *ud)
{
	unmount_args *a = ud;
	if (opt != OPT_NAME)
		return na_host_choice_option(&a->choice, opt, arg);
	a->name = arg;
	return 1;
}

/* vSphere Cluster Services agent VMs: "vCLS-<uuid>" since 7.0 U3, "vCLS (N)"
 * in 7.0 U1 and U2. */
static bool is_vcls(const vs_vm *vm)
{
	return strncmp(vm->name, "vCLS-", 5) == 0 || strncmp(vm->name, "vCLS (", 6) == 0;
}

/* "fiotest, db01" of the VMs with files on d, the vCLS agents or the others;
 * NULL if none. */
static char *vms_on(const na_inventory *inv, const vs_datastore *d, bool vcls)
{
	char *list = NULL;
	for (size_t i = 0; i < inv->n_vms; i++)
		if (na_vm_uses(&inv->vms[i], d->moref) && is_vcls(&inv->vms[i]) == vcls &&
		    !na_list_add(&list, inv->vms[i].name))
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
                            vs_host **hosts, size_t n, vs_error *err)
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
static int check_vcls(const na_inventory *inv, const vs_datastore *d, vs_error *err)
{
	char *agents = vms_on(inv, d, true);
	if (!agents)
		return VS_OK;
	char *clusters = NULL;
	for (size_t k = 0; k < inv->n_clusters; k++)
		for (size_t i = 0; i < inv->n_vms; i++) {
			const vs_vm *vm = &inv->vms[i];
			if (is_vcls(vm) && na_vm_uses(vm, d->moref) &&
			    cluster_of(inv, vm->host) == &inv->clusters[k]) {
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

int na_unmount_check(vs_client *c, const na_inventory *inv, const vs_datastore *d,
                     vs_host **hosts, size_t n, vs_error *err)
{
	int rc = check_heartbeats(c, inv, d, hosts, n, err);
	if (rc == VS_OK)
		rc = check_vcls(inv, d, err);
	char *users = rc == VS_OK ? vms_on(inv, d, false) : NULL;
	if (users) {
		rc = vs_fail(err, VS_ERR_USAGE, "refusing to unmount '%s': VMs have files there: %s", d->name,
		             users);
		free(users);
	}
	return rc;
}

int na_unmount_hosts(vs_client *c, const na_inventory *inv, const vs_datastore *d, vs_host **hosts,
                     size_t n, bool quiet, bool *unmounted, vs_error *err)
{
	/* Not mounted on these hosts: nothing to do, whatever lives there. */
	bool mounted = false;
	for (size_t i = 0; i < n; i++)
		mounted |= na_mounted_on(d, hosts[i]->moref);
	int rc = mounted ? na_unmount_check(c, inv, d, hosts, n, err) : VS_OK;
	for (size_t i = 0; rc == VS_OK && i < n; i++) {
		if (!na_mounted_on(d, hosts[i]->moref)) {
			if (!quiet)
				printf("%s: %s is not mounted\n", hosts[i]->name, d->name);
			continue;
		}
		rc = vs_datastore_unmount(c, hosts[i], d->moref, err);
		if (rc == VS_OK && unmounted)
			unmounted[i] = true;
		if (rc == VS_OK && !quiet)
			printf("%s: unmounted %s\n", hosts[i]->name, d->name);
	}
	return rc;
}

int na_unmount_everywhere(vs_client *c, const na_inventory *inv, const vs_datastore *d,
                          vs_host **hosts, size_t n, bool quiet, vs_error *err)
{
	return na_unmount_hosts(c, inv, d, hosts, n, quiet, NULL, err);
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

static int run(vs_client *c, void *args, bool json)
{
	(void)json;
	const unmount_args *a = args;
	na_inventory inv;
	vs_error err = {0};
	vs_host **hosts = NULL;
	size_t n = 0;
	int rc = na_inventory_load(c, true, &inv, &err);
	vs_datastore *d = rc == VS_OK ? na_find_datastore(&inv, a->name, &err) : NULL;
	if (rc == VS_OK && !d && !named(&inv, a->name)) {
		/* vCenter forgets an NFS datastore no host mounts: unmounted already,
		 * as mount says of what is mounted (a typo gets its hint). */
		printf("%s is not mounted on any host\n", a->name);
		if (strstr(err.message, "did you mean"))
			na_warn("%s", err.message);
		na_inventory_free(&inv);
		return NA_EXIT_OK;
	}
	if (rc == VS_OK && !d)
		rc = VS_ERR_NOT_FOUND;
	if (rc == VS_OK)
		rc = na_select_hosts(&inv, &a->choice, &hosts, &n, &err);
	if (rc == VS_OK)
		rc = na_unmount_everywhere(c, &inv, d, hosts, n, false, &err);
	free(hosts);
	na_inventory_free(&inv);
	return rc == VS_OK ? NA_EXIT_OK : na_report(&err);
}

static int check(void *args, int argc, char **argv)
{
	const unmount_args *a = args;
	if (argc > 0)
		return na_usage_error("unmount", "unexpected argument '%s'", argv[0]);
	if (na_host_choice_check("unmount", &a->choice) >= 0)
		return NA_EXIT_USAGE;
	return a->name ? -1 : na_usage_error("unmount", "--name is required");
}

int cmd_unmount(int argc, char **argv)
{
	static const struct option longopts[] = {
		NA_CONNECT_LONGOPTS, NA_HOST_CHOICE_LONGOPTS, {"name", required_argument, NULL, OPT_NAME}, {0},
	};
	static const na_command_spec spec = {"unmount", usage, longopts, on_option, check, run};
	unmount_args a = {0};
	return na_command(&spec, &a, argc, argv);
}
