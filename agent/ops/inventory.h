/* One snapshot of the inventory (hosts, datastores, VMs, clusters) and
 * name lookups (inventory.c). */
#ifndef NFSAGENT_OPS_INVENTORY_H
#define NFSAGENT_OPS_INVENTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "nfsagent/vsphere.h"

typedef struct na_cluster {
	char *moref, *name;
} na_cluster;

typedef struct na_inventory {
	vs_host *hosts;
	size_t n_hosts;
	vs_datastore *datastores;
	size_t n_datastores;
	vs_vm *vms;
	size_t n_vms;
	na_cluster *clusters;
	size_t n_clusters;
} na_inventory;

int na_inventory_load(vs_client *c, bool with_vms, na_inventory *inv, vs_error *err);
/* Reads the datastores and the VM vm_moref (NULL: none) again, in place;
 * hosts and clusters stay as loaded. */
int na_inventory_refresh(vs_client *c, na_inventory *inv, const char *vm_moref, vs_error *err);
void na_inventory_free(na_inventory *inv);
/* Lookups by name; on a miss err says so and names near matches. */
vs_host *na_find_host(const na_inventory *inv, const char *name, vs_error *err);
vs_datastore *na_find_datastore(const na_inventory *inv, const char *name, vs_error *err);
vs_vm *na_find_vm(const na_inventory *inv, const char *name, vs_error *err);
na_cluster *na_find_cluster(const na_inventory *inv, const char *name, vs_error *err);
vs_host *na_host_by_moref(const na_inventory *inv, const char *moref);
vs_datastore *na_datastore_by_moref(const na_inventory *inv, const char *moref);
const char *na_host_name(const na_inventory *inv, const char *moref);
bool na_mounted_on(const vs_datastore *d, const char *host_moref);
/* --host H | --cluster C | --all-hosts, or (a campaign's default) the
 * hosts of the compute resources in parents (morefs, NULL-terminated). */
typedef struct na_host_choice {
	const char *host, *cluster;
	bool all;
	const char *const *parents;
} na_host_choice;
/* The chosen hosts (pointers into inv; free the array). */
int na_select_hosts(const na_inventory *inv, const na_host_choice *choice, vs_host ***out,
                    size_t *n, vs_error *err);
/* Whether d is NFS export path on one of servers (NULL-terminated). */
bool na_same_export(const vs_datastore *d, const char *const *servers, const char *path);
const char *na_mount_hosts(const na_inventory *inv, const vs_datastore *d, char *buf, size_t size);
bool na_vm_uses(const vs_vm *v, const char *datastore_moref);

#endif
