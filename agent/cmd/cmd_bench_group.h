/* bench on several VMs at once (--vm A --vm B, --vms GLOB): which VMs, the
 * checks that refuse a group before anything starts, and its output. */
#ifndef NFSAGENT_CMD_BENCH_GROUP_H
#define NFSAGENT_CMD_BENCH_GROUP_H

#include "ops/bench.h"
#include "ops/group_lines.h"

typedef struct na_bench_group_args {
	const char *const *vms;     /* the --vm names, in order */
	size_t n_vms;
	const char *glob;           /* --vms, or NULL */
	const char *datastore;      /* --datastore, or NULL: the VMs' one home */
} na_bench_group_args;

/* "--vm X is named twice", or NULL: checked before connecting. */
const char *na_bench_group_twice(const char *const *vms, size_t n);
/* A group resolved: each member is tmpl's settings on its own VM. */
typedef struct na_bench_group {
	na_bench m[NA_GROUP_MAX_VMS];
	size_t n, made;  /* members; those with their disks read (to free) */
} na_bench_group;

/* Resolves the group in tmpl's inventory (VS_ERR_USAGE for a group that
 * cannot run).  It only reads, so a refused group leaves nothing behind:
 * the caller opens the results database after it. */
int na_bench_group_resolve(const na_bench_group_args *g, const na_bench *tmpl, na_bench_group *grp,
                           vs_error *err);
/* Runs plan in every member of grp at once as tmpl would in one, and
 * renders it; *incomplete counts the runs that lost a member. */
int na_bench_group_cmd(na_bench_group *grp, const na_bench_plan *plan, bool json, size_t *incomplete,
                       vs_error *err);
void na_bench_group_free(na_bench_group *grp);

/* "PREFIX NAS tank: <its words>" on stdout, one line per pool of r, at most
 * 120 columns. */
void na_group_print_pools(const char *prefix, const na_bench_group_run *r);
/* A group's NAS row as JSON (bench --json's "nas", results --json's
 * "group_nas"): figures not known are null. */
json_t *na_group_nas_json(const na_group_nas_row *p);

#endif
