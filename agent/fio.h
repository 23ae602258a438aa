/* fio's JSON results (--output-format=json or json+), reduced to what
 * admins compare datastores by: IOPS, MB/s, average and tail latency.
 * Pure: no I/O, so the parser is unit-tested on real fio output and fuzzed. */
#ifndef NFSAGENT_FIO_H
#define NFSAGENT_FIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nfsagent/vsphere.h"

typedef struct na_fio_dir {        /* one direction: read, write or mixed */
	bool present;                  /* fio reported it and it did I/O (total_ios > 0) */
	double iops;
	double bw_bytes;               /* bytes/s (from bw_bytes, else bw KiB/s * 1024) */
	double lat_mean_us;            /* mean completion latency (clat_ns.mean / 1000); lat_ns if clat missing */
	double p50_us, p95_us, p99_us, p999_us;   /* completion latency percentiles; -1 if unknown */
	double max_us;
	int64_t total_ios;
	int64_t runtime_ms;
	/* json+ latency histogram (clat_ns.bins): bucket value in ns -> count, sorted by value */
	size_t n_bins;
	int64_t *bin_ns;
	int64_t *bin_count;
} na_fio_dir;

typedef struct na_fio_result {
	char *fio_version;             /* "fio-3.33" */
	size_t n_jobs;                 /* job entries in the output */
	bool mixed;                    /* unified_rw_reporting: only `mixed` */
	na_fio_dir read, write, mixed_dir;
	int64_t timestamp_ms;          /* when fio wrote it (ms since the epoch): its jobs' end; 0 if absent */
	int error;                     /* first non-zero job "error", 0 if none */
	char *error_job;               /* its jobname */
} na_fio_result;

/* Parses fio --output-format=json or json+ text: skips noise before the first '{',
 * takes the LAST complete top-level object when several are concatenated
 * (--status-interval), sums IOPS/bandwidth/IOs across jobs per direction, weights
 * mean latency by IOs, takes max of max, merges bins across jobs and computes the
 * percentiles from the merged bins when bins exist (json+); with plain json and one
 * job uses fio's own percentiles; with plain json and several jobs the merged
 * percentiles are unknown (-1) — never average percentiles.  Returns
 * VS_ERR_PROTOCOL with a clear message for text that has no JSON object, truncated
 * JSON, a JSON object without "jobs", or jobs whose "error" is non-zero (message
 * names the job and the error number; *out is still filled so the caller can record
 * the failure).  A final object cut short after complete ones is also an error: the
 * earlier ones are interim --status-interval reports, not the result.  Call
 * na_fio_result_clear() whatever it returns. */
int na_fio_parse(const char *text, size_t len, na_fio_result *out, vs_error *err);
void na_fio_result_clear(na_fio_result *r);
/* Frees d's bins and makes it a direction that did no I/O. */
void na_fio_dir_clear(na_fio_dir *d);
/* Merges src's bins into dst (same direction from several VMs or runs) and recomputes
 * dst's percentiles from the merged bins; sums iops/bw/ios, IO-weighted mean.  When
 * only one side has bins the merged percentiles are unknown (-1). */
int na_fio_dir_merge(na_fio_dir *dst, const na_fio_dir *src, vs_error *err);
/* The value (us) at percentile p (0-100] of a histogram: the smallest bucket value
 * whose cumulative count reaches p% of the total, the way fio computes them.
 * bin_ns must be sorted ascending; -1 if p is out of range or the histogram empty. */
double na_fio_bins_percentile(const int64_t *bin_ns, const int64_t *bin_count, size_t n, double p);
/* Sets d's p50, p95, p99 and p99.9 from its bins (na_fio_bins_percentile):
 * -1 when it has none. */
void na_fio_dir_pcts_from_bins(na_fio_dir *d);

/* What the guest's "fio --version; echo fio-exit $?; fio --enghelp" wrote
 * (report): VS_OK when fio is there and 3.0 or newer (nfsagent reads its
 * latencies in ns, clat_ns, which fio writes since 3.0), *libaio telling
 * whether it has the libaio engine; else VS_ERR_USAGE naming vm, what is
 * missing and how to install it. */
int na_fio_guest_check(const char *vm, const char *report, bool *libaio, vs_error *err);
/* The libaio refusal of na_fio_guest_check, for a job that needs the engine. */
int na_fio_no_libaio(const char *vm, vs_error *err);

#endif
