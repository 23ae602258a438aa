/* Does each extent hold what its descriptor declares, as the host under
 * test sees it (extents.c). */
#ifndef NFSAGENT_OPS_EXTENTS_H
#define NFSAGENT_OPS_EXTENTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nfsagent/vsphere.h"
#include "ops/inventory.h"

/* Seconds before a short extent is read again (a transient race heals). */
enum { NA_RECHECK_DEFAULT_S = 5 };

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
