/* The pool measured on its own (bench --nas-baseline): each profile's fio
 * job run on the NAS over ssh, in the dataset under test, recorded as a
 * result with site = nas and sampled as the guest's runs are
 * (docs/limits.md). */
#ifndef NFSAGENT_OPS_BASELINE_H
#define NFSAGENT_OPS_BASELINE_H

#include "ops/bench.h"

/* fio's job name on the NAS: a killed baseline's fio is found by it. */
#define NA_BASELINE_JOB "nfsagent-baseline"

/* Runs each of plan's profiles (or its local ones) once on b's NAS
 * (b->nas_ready: the dataset read), after fio left by a killed baseline is
 * ended there and its file removed, and the dataset's room checked; each
 * run is recorded as it ends (with the plan's step of repetition 0), into
 * out->local.  A run that could not start is said (plan->not_local), and
 * the next goes on; fio missing on the NAS, or no NAS side, is one warning
 * and VS_OK: the guest's runs stand.  Ctrl-C leaves the run it cut short
 * unrecorded.  A profile of small files or of zeros has no NAS-local twin
 * and is skipped, said once. */
int na_bench_baseline(na_bench *b, const na_bench_plan *plan, na_bench_result *out, vs_error *err);

/* Whether p has a NAS-local twin (not small files, not zeros). */
bool na_bench_baseline_twin(const na_profile *p);
/* What a killed nfsagent's baseline left on nas, before anything else
 * runs there: its fio, ended by its job's name (ending ssh alone leaves
 * it; *ended: one ran), then its file, in the dataset behind export_path
 * (read first).  VS_OK also when none ran. */
int na_bench_baseline_end(const nas_target *nas, const char *export_path, bool *ended, vs_error *err);

#endif
