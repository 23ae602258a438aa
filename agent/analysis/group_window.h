/* A group's common window: several VMs run one fio job at once, each
 * starting a little apart.  Their figures are compared and summed only over
 * the time all of them were measuring: from the latest start plus the ramp
 * to the earliest end.  Pure: fio's interval logs in (fio_logs.h), each
 * member's figures in the window out; the group's figures are made from
 * those by na_group_figures_of (group.h, called by ops/bench_window.c).
 * See docs/group-window.md. */
#ifndef NFSAGENT_GROUP_WINDOW_H
#define NFSAGENT_GROUP_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "fio.h"
#include "fio_logs.h"

/* A member is one fio job of a VM: 64 VMs of 64 jobs. */
enum { NA_GW_MAX_MEMBERS = 64 * 64 };

typedef struct na_gw_member {
	int64_t start_ms;     /* its fio job's start on the common clock (ms since the epoch) */
	int64_t log_base_ms;  /* added to its logs' times to put them on that clock: 0 with
	                       * log_unix_epoch=1, the start with fio's default relative times */
	int64_t ramp_ms;      /* its ramp_time, excluded from the window */
	int64_t interval_ms;  /* its log_avg_msec and log_hist_msec (they must be equal) */
	/* Its bandwidth log, or NULL when each direction's I/Os are all of the
	 * block size its histogram log names (hist->bs, known to be so by the
	 * caller: na_gw_sizes_fixed): its bytes are then its completions
	 * times that size. */
	const na_fio_log *bw;
	const na_fio_hist_log *hist;
} na_gw_member;

typedef struct na_gw_result {
	int64_t from_ms, to_ms;  /* the window on the common clock */
	/* The member that measures from from_ms (starts last) and the one whose
	 * logs end at to_ms (ends first): set also when the window is empty or
	 * too short, to name who bounds it. */
	size_t starts_last, ends_first;
	size_t n;
	/* Per member and direction (0 read, 1 write, 2 trim), over the window
	 * (runtime_ms its length): iops and bw_bytes the rates (the bytes are
	 * bw_bytes * runtime), the histogram log's completions in
	 * bin_ns/bin_count, rounded, their sum total_ios, and the percentiles
	 * read off them; lat_mean_us and max_us are the buckets'
	 * mean and the highest bucket, within fio's bucket width (1/64 of the
	 * value).  A direction is present when it did I/O in the window. */
	na_fio_dir (*member)[NA_FIO_DIRS];
} na_gw_result;

/* Cuts every member to the common window: out->member.  VS_ERR_USAGE for
 * no members, more than NA_GW_MAX_MEMBERS, a member without its logs (a
 * histogram log, and a bandwidth log unless its block sizes are known)
 * or without an interval; VS_ERR_PROTOCOL, saying the window and which
 * member ends it, when the window is empty or shorter than one interval
 * (out's from_ms, to_ms, starts_last and ends_first then say so too).
 * Call na_gw_result_clear() whatever it returns. */
int na_gw_compute(const na_gw_member *members, size_t n, na_gw_result *out, vs_error *err);
/* Whether a fio job whose I/O sizes cannot vary (no bssplit, bsrange...:
 * the caller's to know) can be cut from its histogram log h alone: each
 * direction's lines name one block size, fio (its whole run, fio) did I/O
 * in each such direction, reads and writes apart, and its bytes per I/O
 * there are that size within 1% (fio counts the I/Os in flight at the
 * ramp's end one way and their bytes another). */
bool na_gw_sizes_fixed(const na_fio_result *fio, const na_fio_hist_log *h);
void na_gw_result_clear(na_gw_result *r);

#endif
