/* A group's common window (docs/group-window.md), wired into a group run:
 * each member's fio writes its interval logs into the run's staging folder,
 * and the group's figures are cut from them.  Private to ops/bench_op.c
 * and ops/bench_window.c. */
#ifndef NFSAGENT_OPS_BENCH_WINDOW_H
#define NFSAGENT_OPS_BENCH_WINDOW_H

#include "ops/bench.h"

/* Sets why a member leaves the group incomplete (bench_op.c). */
void na_member_why(na_bench_member_run *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The length of one interval of fio's logs for a job (ms): 1 s, or a
 * twentieth of a shorter run (at least 100 ms), since fio logs no partial
 * last interval and the window loses it; a run over 10 minutes, a 600th
 * of it in whole seconds (an hour's histogram log is then about 4 MB, not
 * 27, for each fio job of each VM, fetched and held at once). */
int64_t na_group_log_interval(const char *job);
/* Whether a group's member can run job: 1 to the most fio jobs a window
 * cuts, and none of fio's log settings of its own (they would override the
 * group's and be misread); VS_ERR_USAGE saying why not. */
int na_group_job_check(const char *job, vs_error *err);
/* job (na_group_job_check) with a [global] section put before it that has fio write its IOPS,
 * bandwidth and latency histogram logs into staging, every interval_ms on
 * the epoch's clock (malloc'd in *out).  staging must be this process's own
 * staging folder (/tmp/nfsagent-MARK): nothing else is spliced into a job. */
int na_group_job_logs(const char *job, const char *staging, int64_t interval_ms, char **out,
                      vs_error *err);
/* After every member ended and was recorded: fetches the interval logs of
 * each member that ran the whole job, cuts them to the group's common
 * window and sets r's window, each member's figures in it and the group's
 * (r->fig).  A member whose logs are missing or unreadable, or that bounds
 * an empty window, gets its why, and the window is cut without it.  Fails
 * only when nfsagent cannot go on (memory). */
int na_group_window(na_bench *const *m, size_t n, const char *job, na_bench_group_run *r,
                    vs_error *err);

#endif
