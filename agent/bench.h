/* One benchmark in one guest: upload the job, run fio, wait, fetch, parse,
 * record with full provenance. */
#ifndef NFSAGENT_BENCH_H
#define NFSAGENT_BENCH_H

#include <signal.h>

#include "agent.h"
#include "fio.h"
#include "profiles.h"
#include "store.h"

typedef struct na_bench {
	vs_client *c;
	const vs_vm *vm;
	const vs_host *host;
	const vs_datastore *ds;
	char *disk;                 /* "Hard disk 1 [ds] dir/x.vmdk" */
	vs_guest_auth auth;
	na_job_overrides job;       /* job.dir is the user's --dir: fio writes in b->data under it */
	const na_label *labels;
	size_t n_labels;
	const char *campaign, *target;
	na_store *store;
	const char *step;           /* the campaign's journal step, recorded with the result */
	volatile sig_atomic_t *stop;
	int counter_ids[6];
	char staging[64];           /* our folder in the guest: job, output, logs */
	char data[1024];            /* fio's folder under job.dir: made and removed for
	                             * each repetition */
	bool fio_libaio;            /* the guest's fio has the libaio engine */
} na_bench;

typedef struct na_bench_outcome {
	bool ok;
	na_fio_result fio;
	int64_t row;                /* database id, 0 when not recorded */
	char *error;
} na_bench_outcome;

/* "Hard disk 1 [ds] dir/x.vmdk": the VM's first disk on ds (malloc'd). */
char *na_bench_disk(vs_client *c, const vs_vm *vm, const vs_datastore *ds, vs_error *err);
/* Prepares the guest (checks, staging folder, fio: there, 3.0 or newer)
 * and looks up the counters. */
int na_bench_begin(na_bench *b, vs_error *err);
/* A profile's job file (malloc'd) with fio's files in b's own folder, not
 * in job.dir itself; after na_bench_begin. */
char *na_bench_job(const na_bench *b, const na_profile *p);
/* The seconds a job file is given before fio is stopped: what the job
 * says it runs (na_job_seconds) and a grace for fio's setup and output. */
long na_bench_timeout(const char *job_text);
/* Runs one repetition of a profile and records it, with b->step if set, in
 * one transaction (a fio failure is recorded as failed and is not an error
 * here; nfsagent failing to read fio's output is, and records nothing). */
int na_bench_run(na_bench *b, const na_profile *p, const char *job_text, int repetition,
                 na_bench_outcome *out, vs_error *err);
void na_bench_outcome_clear(na_bench_outcome *o);
/* Removes what the benchmark put in the guest. */
void na_bench_end(na_bench *b);
/* Removes what a benchmark of nfsagent process pid (killed: it could not)
 * left in the guest: its staging folder and fio's folder under dir. */
int na_bench_sweep(vs_client *c, const vs_vm *vm, const vs_guest_auth *auth, const char *dir,
                   long pid, vs_error *err);

#endif
