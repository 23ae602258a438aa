/* fio's per-interval logs: the IOPS and bandwidth logs written with
 * write_iops_log / write_bw_log and log_avg_msec (a group run writes only
 * the bandwidth log), and the completion-latency
 * histogram log written with write_hist_log and log_hist_msec.  Pure: text in,
 * arrays out, so the parsers are unit-tested on real fio output and fuzzed.
 * Strict: a line that is not what fio writes is an error naming its number. */
#ifndef NFSAGENT_FIO_LOGS_H
#define NFSAGENT_FIO_LOGS_H

#include <stddef.h>
#include <stdint.h>

#include "nfsagent/vsphere.h"

/* fio's histogram layout since 3.0 (stat.h): 29 groups of 2^6 buckets. */
enum {
	NA_FIO_PLAT_BITS = 6,
	NA_FIO_PLAT_VAL = 1 << NA_FIO_PLAT_BITS,
	NA_FIO_PLAT_NR = 29 * NA_FIO_PLAT_VAL,
	NA_FIO_MAX_COARSENESS = 6,      /* log_hist_coarseness ranges 0..6 */
	NA_FIO_DIRS = 3,                /* 0 read, 1 write, 2 trim */
};
/* Bounds on what one log may hold, so a huge or hostile file cannot exhaust
 * memory: 2^20 samples is 6 days of 1 s intervals in both directions; 2^25
 * histogram buckets (128 MiB) is 2.5 hours of 1 s intervals in both
 * directions at coarseness 0, 20 hours at coarseness 3. */
#define NA_FIO_LOG_MAX_SAMPLES ((size_t)1 << 20)
#define NA_FIO_HIST_MAX_CELLS ((size_t)1 << 25)
/* Times beyond 10^15 ms (31,000 years) are refused, so that adding offsets
 * and ramps to them cannot overflow. */
#define NA_FIO_LOG_MAX_MS ((int64_t)1000000000000000)

typedef struct na_fio_sample {
	int64_t t_ms;   /* when fio wrote it: the end of its interval */
	int64_t value;  /* IOPS, or KiB/s for a bandwidth log: the interval's average */
	int dir;        /* 0 read, 1 write, 2 trim */
} na_fio_sample;

typedef struct na_fio_log {  /* an IOPS or bandwidth log */
	na_fio_sample *s;
	size_t n;
} na_fio_log;

typedef struct na_fio_hist_log {
	size_t n;            /* intervals (lines) */
	size_t n_bins;       /* buckets per interval: NA_FIO_PLAT_NR >> coarseness */
	int coarseness;
	int64_t *t_ms;       /* [n]: the end of each interval */
	int *dir;            /* [n] */
	uint32_t *counts;    /* [n * n_bins]: completions per bucket */
	/* Per direction, the block size every one of its lines names (fio
	 * writes the size of the I/O whose completion closed the interval):
	 * -1 when its lines name several, 0 when it has none. */
	int64_t bs[NA_FIO_DIRS];
} na_fio_hist_log;

/* One fio job's two logs, as a group's window takes them. */
typedef struct na_fio_logs {
	na_fio_log bw;
	na_fio_hist_log hist;
} na_fio_logs;
void na_fio_logs_clear(na_fio_logs *l);

/* Parses an IOPS or bandwidth log: "msec, value, direction, blocksize,
 * offset[, priority[, issue time]]" per line, integers, times never going
 * back within a direction.  VS_ERR_PROTOCOL naming the line for anything
 * else, an empty log, or more than NA_FIO_LOG_MAX_SAMPLES lines.  Call
 * na_fio_log_clear() whatever it returns. */
int na_fio_log_parse(const char *text, size_t len, na_fio_log *out, vs_error *err);
void na_fio_log_clear(na_fio_log *log);

/* Parses a histogram log: "msec, direction, blocksize, bucket0, ..." with
 * NA_FIO_PLAT_NR >> c buckets per line (c its coarseness, the same on every
 * line), each count below 2^32.  Errors as na_fio_log_parse; the bound is
 * NA_FIO_HIST_MAX_CELLS buckets in all.  Call na_fio_hist_clear() whatever
 * it returns. */
int na_fio_hist_parse(const char *text, size_t len, na_fio_hist_log *out, vs_error *err);
void na_fio_hist_clear(na_fio_hist_log *h);

/* The latency (ns) that bucket i of a log at this coarseness stands for.
 * At coarseness 0 it is fio's plat_idx_to_val: the middle of the bucket (its
 * lower edge below 128 ns, where buckets are 1 ns wide), the value json+
 * prints as a bin's key.  A coarser bucket merges 2^c of those, all of one
 * group and so of one width; it stands for their mean. */
int64_t na_fio_hist_bucket_ns(size_t i, int coarseness);

#endif
