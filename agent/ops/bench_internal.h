/* Shared by ops/bench.c (one repetition in a guest), ops/bench_nas.c (its
 * NAS side) and ops/bench_op.c (the op: every run in every member);
 * private to the bench's files. */
#ifndef NFSAGENT_OPS_BENCH_INTERNAL_H
#define NFSAGENT_OPS_BENCH_INTERNAL_H

#include <time.h>

#include "ops/bench.h"

/* The seconds a job without a runtime is taken to run (na_job_seconds). */
enum { UNBOUNDED_S = 3600 };

/* bench.c: a file of the run's staging folder in the guest, at most max bytes. */
int na_bench_fetch(na_bench *b, const char *name, size_t max, char **data, size_t *len, vs_error *err);

/* One repetition in two halves: the op starts fio in every VM before it
 * waits for any (ops/bench_op.c). */
typedef struct na_bench_started {
	char started_at[32];        /* recorded as the result's start */
	time_t started;             /* the host counters' window opens here */
	double asked[2];            /* this machine's time around StartProgramInGuest */
	int64_t pid;                /* the guest's shell; -1 not started */
	/* When the wait saw fio end ("": not seen), recorded as the result's
	 * finish: compare's ESXi layer takes fio's runtime before it, which the
	 * fetching and recording after it would shift. */
	char ended_at[32];
	double took_s;              /* from asked[1] to that end; 0 not seen */
} na_bench_started;
na_bench_started na_bench_started_now(void);
/* Notes now as st's ended_at, and how long fio took to be seen ended. */
void na_bench_note_end(na_bench_started *st);
/* When a wait for p's fio first looks: when its last run here was seen to
 * end (fio lays out its file each run: its time is the job's and more),
 * or before one was at the job's own time plus the least another
 * profile's run on this datastore (none there: on any; a job with a
 * runtime) took beyond its job's (none: nothing).  na_bench_learn notes a
 * run's end, seen after end_looks looks at or after its expected end, the
 * first of which was at looked_at_s (vs_guest_process: a long job's look
 * after a second is not one): a run ended by that first look teaches a
 * look a step sooner, unless a first look found it running there. */
double na_bench_expected_s(const na_bench *b, const na_profile *p, const char *job_text);
void na_bench_learn(na_bench *b, const na_profile *p, const char *job_text,
                    const na_bench_started *st, double looked_at_s, int end_looks);
/* The job's text in the guest's staging folder, uploaded once a text:
 * text-K.fio (*k). */
int na_bench_stage_job(na_bench *b, const char *job_text, size_t *k, vs_error *err);
/* Uploads the job (unless staged) and starts fio in b's data folder (na_bench_begin's). */
int na_bench_fio_start(na_bench *b, const char *job_text, na_bench_started *st, vs_error *err);
/* Whether a start that failed with err found a kept guest's folders gone
 * (a reboot by HA, a tmp cleaner: nfsagent cannot know) and made them
 * again, its texts to go up again: then the start is worth one more try. */
bool na_bench_kept_folders_remade(na_bench *b, const vs_error *err);
/* After fio ended (proc) and its files went: fetches, parses and records
 * its output (a fio failure is recorded as failed and is not an error
 * here; nfsagent failing to read fio's output is, and records nothing). */
int na_bench_fio_end(na_bench *b, const na_profile *p, const char *job_text, int repetition,
                     const na_bench_started *st, const vs_guest_process *proc,
                     na_bench_outcome *out, vs_error *err);
/* Ends fio and its job processes (a fio stopped by Tools can leave its
 * jobs running); what could not be ended is said. */
void na_bench_stop_fio(na_bench *b);
/* fio's files go after every repetition, whatever became of it: a
 * profile's job has fio unlink them as it ends (--unlink=1); after a fio that
 * did not (clean false: stopped, timed out, or an exit status other than
 * 0) the data folder is removed and made again, so that no half-written
 * file is the next run's. */
void na_bench_renew_data(na_bench *b, bool clean);

/* bench_counters.c */
/* The perf counters a run records, by name (b->counter_ids, in this order). */
extern const char *const na_bench_counter_names[6];
/* Its host's counters over the run started at started (JSON, malloc'd;
 * NULL when none were measured, said once per host). */
char *na_bench_host_counters(na_bench *b, time_t started);

/* A direction's figures as the store records them (a result's, a group's). */
void na_bench_dir_stats(const na_fio_dir *d, na_dir_stats *s);
/* Records one run with its provenance, in one transaction with b->step
 * (b->site "nas": a baseline's, without the guest's VM, host and link). */
int na_bench_record(na_bench *b, const na_profile *p, const char *job_text, int repetition,
                    const na_bench_started *st, const char *fio_json, const char *counters,
                    na_bench_outcome *out, vs_error *err);

/* bench_nas.c */
/* Right before fio: b's pool's sampler for the job, started, with the
 * one parked for it (else one opened now: this run waits for its
 * handshakes), and the next run's parked; NULL when it could not start, w
 * (reset) then incomplete, saying why. */
nas_sampler *na_bench_sampling_start(na_bench *b, const char *job_text, nas_window *w);
/* Right after it: the window into w (a NAS that gave not one reading
 * is warned about once). */
void na_bench_sampling_stop(na_bench *b, nas_sampler **s, nas_window *w);
/* The guest's clock against ours, from clock.txt written between asked[0]
 * and asked[1]; one that cannot be read leaves the NAS side incomplete. */
void na_bench_guest_clock(na_bench *b, const double asked[2], na_bench_outcome *out);
/* Cuts the NAS's figures to fio's measured window, moved by the clocks'
 * difference. */
void na_bench_fio_window(na_bench_outcome *out);
/* The clocks' difference that placed a window (known false: a clock not read). */
typedef struct na_nas_clock {
	bool known;
	double shift, err;
} na_nas_clock;
/* Cuts w to the window of ms ending at to_ms on a guest's clock, that
 * clock guest_offset (+- guest_err, < 0: not read) from ours: the totals
 * are the window's, or w is incomplete saying why. */
void na_bench_nas_place(nas_window *w, double guest_offset, double guest_err, int64_t to_ms,
                        int64_t ms, na_nas_clock *c);
/* The NAS row recorded in the result's transaction (layout: a buffer for
 * the pool's layout in words, NA_LAYOUT_WORDS bytes will do; the timeline is
 * malloc'd). */
enum { NA_LAYOUT_WORDS = 256 };
void na_bench_nas_row(const na_bench *b, const na_bench_outcome *out, na_nas_run *n, char *layout,
                      size_t size);

#endif
