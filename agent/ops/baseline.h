/* The pool measured on its own (bench --nas-baseline): each profile's fio
 * job run on the NAS over ssh, in the dataset under test, recorded as a
 * result with site = nas and sampled as the guest's runs are
 * (docs/limits.md). */
#ifndef NFSAGENT_OPS_BASELINE_H
#define NFSAGENT_OPS_BASELINE_H

#include "ops/bench.h"

/* fio's job name on the NAS: a killed baseline's fio is found by it. */
#define NA_BASELINE_JOB "nfsagent-baseline"

/* Runs each of plan's profiles once on b's NAS (b->nas_ready: the dataset
 * read), after fio left by a killed baseline is ended there and the
 * dataset's room checked; each run is recorded as it ends, into
 * out->local (a run that could not start is said, and the next goes on).
 * fio missing on the NAS, or no NAS side, is one warning and VS_OK: the
 * guest's runs stand.  A profile of small files or of zeros has no
 * NAS-local twin and is skipped, said once. */
int na_bench_baseline(na_bench *b, const na_bench_plan *plan, na_bench_result *out, vs_error *err);
/* Ends a baseline's fio a killed nfsagent left on b's NAS and removes its
 * file (fixed words: the job's name, the checked mountpoint). */
void na_bench_baseline_sweep(na_bench *b);

#endif
