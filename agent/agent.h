/* Shared pieces of the nfsagent CLI. */
#ifndef NFSAGENT_AGENT_H
#define NFSAGENT_AGENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "nfsagent/vsphere.h"
#include "interrupts.h"
#include "output.h"
#include "profiles.h"

/* Seconds before a short extent is read again (a transient race heals). */
enum { NA_RECHECK_DEFAULT_S = 5 };

/* ---- connect.c: the connection a command or a campaign opens ---- */
typedef struct na_conn {
	char *url, *username, *password, *thumbprint, *cacert;
	const char *password_file, *trace_path;
	bool insecure, json;
	long timeout_s;
	int page_size;
	FILE *trace;
} na_conn;
/* The first line of a password file (warns when others may read it), or NULL
 * with err saying why. */
char *na_read_secret(const char *path, vs_error *err);
/* Fills the rest from the environment, asks for the password, connects. */
vs_status na_conn_open(na_conn *conn, vs_client **client, vs_error *err);
void na_conn_close(na_conn *conn, vs_client **client);

/* ---- inventory.c: one snapshot of the inventory, name lookups ---- */
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

/* ---- extents.c: does each extent hold what its descriptor declares, as the host under test sees it ---- */
typedef enum na_extent_state {
	NA_EXTENT_UNKNOWN,  /* not read yet, or no host could read its length (why says why) */
	NA_EXTENT_HOLDS,    /* the hosts under test see at least the declared bytes */
	NA_EXTENT_SHORT,    /* a host under test sees fewer: the mismatch */
	NA_EXTENT_GROWS,    /* sparse and delta formats: no size to check */
	NA_EXTENT_PROBLEM,  /* the descriptor could not be read (why) */
} na_extent_state;

typedef struct na_extent_check {
	char *descriptor;   /* "[ds] dir/x.vmdk" */
	char *extent;       /* "[ds] dir/x-flat.vmdk"; NULL when the descriptor was unreadable */
	int64_t declared;   /* bytes the descriptor needs; -1 for formats that grow */
	int64_t seen;       /* the shortest length a host under test read; -1 if none could */
	int64_t allocated;  /* layoutEx: the space a thin disk has taken (information only); -1 */
	na_extent_state state;
	bool missing;       /* a host found no file at all */
	bool transient;     /* short at first, whole when read again */
	bool measured;
	char *short_on;     /* hosts that read it short (", "), NULL if none */
	char *right_on;     /* hosts that read it whole */
	char *why;          /* PROBLEM, or UNKNOWN: why */
} na_extent_check;

typedef struct na_checks {
	na_extent_check *v;
	size_t n;
} na_checks;

typedef struct na_tally {
	size_t checked, short_, unknown, problems, transient;
} na_tally;

/* Through which hosts extents are read. */
typedef struct na_viewpoint {
	const na_inventory *inv;  /* datastores' mounts, host names */
	const char *host;         /* the host under test (moref); NULL: every host that mounts it */
	int recheck_s;            /* a short extent is read again after this delay */
} na_viewpoint;

/* Downloads and parses the descriptor; appends one check per extent (not
 * read yet).  Returns an error only when checking is impossible. */
int na_check_descriptor(vs_client *c, const char *dspath, const vs_vm_layout *layout,
                        na_checks *out, vs_error *err);
/* Reads each new extent's length through the hosts under test. */
int na_checks_measure(vs_client *c, const na_viewpoint *at, na_checks *checks, vs_error *err);
/* After at->recheck_s, reads the short extents again, and through the other
 * hosts that mount their datastores. */
int na_checks_confirm(vs_client *c, const na_viewpoint *at, na_checks *checks, vs_error *err);
na_tally na_checks_tally(const na_checks *checks);
/* "host", "export" or "transient" (see extents.c); NULL when it holds. */
const char *na_extent_case(const na_extent_check *k);
void na_checks_free(na_checks *checks);
json_t *na_checks_json(const na_checks *checks);
void na_checks_print(const na_checks *checks, FILE *out);
char *na_dspath_child(const char *dir, const char *name);
/* Appends name to a malloc'd ", "-separated list (*list NULL: empty);
 * false when out of memory. */
bool na_list_add(char **list, const char *name);
/* "host" or "hosts" for a ", "-separated list of names. */
const char *na_hosts_word(const char *list);


#endif
