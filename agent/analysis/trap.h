/* The seeds' trap: a recordsize applies to blocks written after it is set,
 * so a disk written before a change still holds records of the old size
 * (the seeds moved the VM to a new dataset for this reason).  What nfsagent
 * knows of a disk's stay on a datastore comes from its own results: a VM's
 * results in id order, a disk's stay ending when one ran on it elsewhere
 * (another datastore or file: the disk was moved, so written anew). */
#ifndef NFSAGENT_TRAP_H
#define NFSAGENT_TRAP_H

#include "store/store.h"

typedef struct na_trap {
	int64_t first_id;            /* the stay's first result before this one; 0: none */
	char first_started[32];
	int64_t other_id;            /* the stay's first result that measured another
	                              * recordsize than this one; 0: none */
	char other_started[32], other_recordsize[24];
} na_trap;

/* Called for each result of the walk with what its stay held before it. */
typedef int (*na_trap_fn)(const na_result *r, const na_trap *t, void *ud, vs_error *err);
/* Walks the results of the VMs called vm and then the n_now runs about to
 * be recorded in now (their vcenter, disk, datastore, zfs_recordsize and
 * started_at).  A result names no stable identity of its VM (no moref, no
 * instance uuid): a VM is known by its vCenter and name, so a VM renamed
 * starts anew, and two VMs of one name in two datacenters of one vCenter
 * share their results.  Each disk of a VM (by its label, "disk-1000-0")
 * has a stay of its own: a run on another disk of the VM leaves it be. */
int na_trap_walk(na_store *s, const char *vm, const na_result *now, size_t n_now, na_trap_fn fn,
                 void *ud, vs_error *err);

/* The sentences for the runs of g (called name: "A") whose disk had
 * another recordsize's results earlier in its stay: "2 runs of B measured
 * recordsize 16K on DISK after result 1 measured 128K there: ...", one per
 * disk and pair of sizes, into *out (malloc'd, *n of them). */
struct na_cmp_group;
int na_trap_sentences(na_store *s, const struct na_cmp_group *g, const char *name, char ***out,
                      size_t *n, vs_error *err);

#endif
