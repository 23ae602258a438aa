/* The unmount workflow: a datastore off hosts, never while a VM still has
 * files on it, vSphere HA heartbeats on it or vCLS VMs live there. */
#ifndef NFSAGENT_OPS_UNMOUNT_H
#define NFSAGENT_OPS_UNMOUNT_H

#include "ops/session.h"

typedef enum na_unmount_outcome {
	NA_UNMOUNT_NOT_TRIED,  /* a check refused, or a host before it failed */
	NA_UNMOUNT_ABSENT,     /* it does not mount the datastore: nothing to do */
	NA_UNMOUNT_UNMOUNTED,
	NA_UNMOUNT_FAILED,
} na_unmount_outcome;

typedef struct na_unmount_host {
	vs_host *host;
	na_unmount_outcome outcome;
} na_unmount_host;

typedef struct na_unmount_result {
	na_unmount_host *hosts;
	size_t n_hosts, unmounted;
	/* No datastore has the name: vCenter forgets an NFS datastore no host
	 * mounts, so it is unmounted already.  lookup says so, with near
	 * matches. */
	bool unknown;
	vs_error lookup;
} na_unmount_result;

/* What stops an unmount of d from hosts (VS_ERR_USAGE saying so): vSphere
 * HA heartbeating on it in a cluster of a host that mounts it, vCLS VMs
 * living there, VMs with files there. */
int na_unmount_check(vs_client *c, const na_inventory *inv, const vs_datastore *d,
                     vs_host *const *hosts, size_t n, vs_error *err);
/* Unmounts datastore (a name) from hosts (pointers into the session's
 * inventory; NULL: every host that mounts it), all checked before the
 * first host; stops at the first host that fails.  A datastore none of
 * the hosts mounts is no error, whatever lives there. */
int na_op_unmount(na_session *s, const char *datastore, vs_host *const *hosts, size_t n,
                  na_unmount_result *out, vs_error *err);
void na_unmount_result_free(na_unmount_result *r);

#endif
