/* One benchmark in several VMs at once: the same profile, the same
 * repetitions, fio started in every guest before any is waited for. */
#ifndef NFSAGENT_OPS_BENCH_GROUP_H
#define NFSAGENT_OPS_BENCH_GROUP_H

#include "analysis/group.h"
#include "ops/bench.h"

/* One member's part of a group's repetition. */
typedef struct na_bench_member_run {
	na_bench_outcome o;         /* o.row 0: nothing recorded (never started, or unread) */
	/* Why the member leaves the group incomplete (malloc'd): "never
	 * started: ...", "fio failed: ...", "ended early: ...", "timed out";
	 * NULL when it ran the whole job. */
	char *why;
	/* When its guest's shell ran fio, on this machine's clock (s): the
	 * middle of its StartProgramInGuest call; 0 when it never started. */
	double start_s;
	/* Its figures over the group's common window (read and write, from its
	 * fio's interval logs, every job of it together): what the group's sum
	 * is made of.  Nothing present when it was not cut. */
	na_fio_result window;
} na_bench_member_run;

/* A NAS pool during a group's repetition: sampled once for every member
 * whose datastore is an export of it (ops/bench_group_nas.c). */
typedef struct na_bench_group_pool {
	size_t leader;              /* the member whose NAS target and view sample it */
	char nas[256], pool[256];   /* the leader's NAS (as reached) and pool */
	size_t members;             /* on it, complete or not */
	size_t measured;            /* of them, those that ran the whole job: guest_written's */
	char datasets[256], vms[512];  /* its members', ", " between */
	/* What the pool did, cut to the group's common window once placed
	 * (else incomplete, saying why), and the bytes its complete members
	 * wrote in that window, summed. */
	nas_window w;
	uint64_t guest_written;
	double amplification;       /* pool's writes / guest_written; -1 not known */
} na_bench_group_pool;

typedef struct na_bench_group_run {
	size_t profile;             /* index into the plan's profiles */
	int repetition;             /* from 1 */
	na_bench_member_run *m;     /* one per member, in the members' order */
	size_t incomplete;          /* members with a why */
	/* The spread of the members' starts (ms), right to within the longest
	 * StartProgramInGuest call's half; -1 when fewer than two started. */
	double skew_ms;
	/* The common window, from the latest start of the members' measuring
	 * to the earliest end of their logs, on the guests' clock (ms since the
	 * epoch; equal when it was not cut), and the longest complete member's
	 * own fio runtime (ms), which it is shorter than. */
	int64_t window_from_ms, window_to_ms, runtime_ms;
	/* The group's figures over its complete members (fig.n of them; 0:
	 * none ran the whole job), cut to the common window, and its row in the
	 * store (0: not recorded). */
	na_group_figures fig;
	int64_t group_id;
	na_bench_group_pool *pools; /* one per pool sampled (none without a NAS side) */
	size_t n_pools;
} na_bench_group_run;

typedef struct na_bench_group_result {
	na_bench_group_run *runs;   /* in the order they ran */
	size_t n;
	size_t members;             /* each run's m has as many */
	bool interrupted;
} na_bench_group_result;

/* Called after each repetition of the group, for a caller that shows them
 * as they come; may be NULL. */
typedef void (*na_bench_group_fn)(void *ud, na_bench *const *members, size_t n,
                                  const na_profile *p, const na_bench_group_run *r);

/* The whole benchmark on n members (each resolved as for na_op_bench; a
 * member with a NAS target has a NAS side, its pool sampled once for all
 * members on it): prepares every guest, then runs
 * each profile plan->repeat times, interleaved, in every guest at once,
 * each repetition recorded with its members in one transaction.  A member that fails, ends early or
 * never starts is named in its run, never left out; Ctrl-C stops fio in
 * every guest. */
int na_op_bench_group(na_bench *const *members, size_t n, const na_bench_plan *plan,
                      na_bench_group_fn on_run, void *ud, na_bench_group_result *out,
                      vs_error *err);
void na_bench_group_result_free(na_bench_group_result *r);
/* The store's rows of r's pools, r->n_pools of them (the strings point
 * into r; ops/bench_group_nas.c). */
void na_group_nas_rows(const na_bench_group_run *r, na_group_nas_row *rows);

#endif
