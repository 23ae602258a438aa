/* The NAS side of a run (docs/groups.md): the members whose datastores are
 * exports of one pool share one sampler, started before the first fio and
 * stopped after the last; a group's pool figures are cut to the group's
 * common window and held against the sum of the bytes its members wrote
 * in it, a lone VM's to its fio's window, as its result's NAS side.  Private to ops/bench_op.c and
 * ops/bench_group_nas.c. */
#ifndef NFSAGENT_OPS_BENCH_GROUP_NAS_H
#define NFSAGENT_OPS_BENCH_GROUP_NAS_H

#include "ops/bench.h"
#include "ops/bench_internal.h"

enum { NA_NO_POOL = NA_GROUP_MAX_VMS };

/* The group's pools, found once before its runs. */
typedef struct na_group_nas {
	size_t n;                          /* pools */
	size_t leader[NA_GROUP_MAX_VMS];   /* the member that samples each pool */
	size_t pool_of[NA_GROUP_MAX_VMS];  /* each member's pool; NA_NO_POOL: no NAS side */
	size_t view_of[NA_GROUP_MAX_VMS];  /* the member whose NAS view is each member's */
} na_group_nas;

/* Pure: members i and j share a pool when nas[i] and nas[j] name one NAS
 * and pool[i] and pool[j] one pool (their datasets may differ); a NULL
 * pool is none (NA_NO_POOL).  Each pool's leader is its first member;
 * returns the pools. */
size_t na_group_pools(const char *const *nas, const char *const *pool, size_t n, size_t *pool_of,
                      size_t *leader);
/* Reads each member's NAS view once per datastore and NAS (a NAS that
 * cannot be read is warned about, as bench --nas does), finds the pools,
 * and says once which members have no NAS given while others have. */
void na_group_nas_begin(na_bench *const *m, size_t n, na_group_nas *g);
void na_group_nas_end(na_bench *const *m, size_t n);
/* Before a repetition's first fio: r's pools, each one's sampler started
 * (s[k]; NULL when it could not be, its window saying why) and its first
 * reading waited for; a lone VM's (n 1) into its outcome's NAS window, no
 * pool in r.  Fails only for memory. */
int na_group_nas_start(const na_group_nas *g, na_bench *const *m, size_t n, const char *job,
                       na_bench_group_run *r, nas_sampler **s, vs_error *err);
/* After every fio ended: each pool's readings into its window. */
void na_group_nas_stop(na_bench *const *m, size_t n, na_bench_group_run *r, nas_sampler **s);
/* Once the common window was cut (r's window and members' figures): each
 * pool's window placed on it, by its complete members' guest clocks
 * (clock.txt), and its amplification. */
void na_group_nas_cut(const na_group_nas *g, na_bench *const *m, size_t n,
                      const na_bench_started *st, na_bench_group_run *r);

#endif
