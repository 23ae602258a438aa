/* One run as the pool saw it, in words: the NAS line that bench, the
 * campaign's summary and the report show beside a result, and the signs of
 * cache-served reads.  Pure: figures in, text out. */
#ifndef NFSAGENT_ANALYSIS_NAS_LINE_H
#define NFSAGENT_ANALYSIS_NAS_LINE_H

#include <stdint.h>

#include "nfsagent/nas.h"
#include "fio.h"
#include "store/store.h"

/* The bytes fio wrote (0 without a write direction). */
uint64_t na_guest_written(const na_fio_dir *write);
/* One run as the pool saw it, in a line: "pool wrote 3.5 GB/s (mirrors) +
 * 0.9 GB/s (log) for 138 MB/s from the guest: 32x" (data vdevs, special and
 * log apart), "pool read ... for ... from the guest, ARC demand hits 97%",
 * or why the figures are incomplete.  guest: fio's write (or read)
 * direction.  A read run whose working_set bytes fit in the ARC with a
 * demand hit ratio of NA_ARC_SERVED or more is flagged cache-served. */
void na_nas_line(const nas_window *w, const nas_layout *l, const na_fio_dir *read,
                       const na_fio_dir *write, uint64_t working_set, char *buf, size_t size);
/* The same line for a stored result and its NAS row (whose totals are
 * over fio's window: the result's longest direction's runtime). */
void na_nas_row_line(const na_result *r, const na_nas_run *n, uint64_t working_set,
                           char *buf, size_t size);
#define NA_ARC_SERVED 0.9
/* The share of a direction's completions faster than floor_us, from fio's
 * json+ latency bins; -1 without bins. */
double na_share_under(const na_fio_dir *d, double floor_us);
/* Reads under the NFS round-trip floor: something closer than the NAS's
 * disks answered (NA_CACHE_FLOOR_US, NA_CACHE_SHARE: a quarter or more). */
#define NA_CACHE_FLOOR_US 50.0
#define NA_CACHE_SHARE 0.25
/* "  [cache-served: 87% under 50 us]" when a run's reads were, else "":
 * said without a NAS side too, for a lone VM and a group's members alike. */
const char *na_cache_flag(const na_fio_dir *read, char *buf, size_t size);

#endif
