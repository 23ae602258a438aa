/* A NAS view a campaign keeps from round to round for each target (its
 * dataset, settings, pool layout and history), so that reading the NAS is
 * off the rounds' critical path (docs/nas-sampling.md): the campaign reads
 * every target's view ahead, in a thread of its own, while it mounts,
 * probes and moves; each round reads the settings and the pool's health
 * again beside its Storage vMotion (or, without one, the guests'
 * preparation), taken before its first sampler starts (ops/bench_nas.c). */
#ifndef NFSAGENT_OPS_NAS_MEMO_H
#define NFSAGENT_OPS_NAS_MEMO_H

#include <stdbool.h>
#include <signal.h>
#include <stddef.h>

#include "nfsagent/nas.h"

typedef struct na_read_ahead na_read_ahead;
typedef struct na_recheck na_recheck;

typedef struct na_nas_memo {
	bool held;            /* view holds a reading */
	nas_view view;
	na_read_ahead *ahead; /* the read-ahead that will fill it, until waited for */
	na_recheck *recheck;  /* its settings being read again, until taken */
} na_nas_memo;

/* Reads the view of each export, nas[i] at path[i] (NULL nas: none), into
 * memos[i], one after the other in the targets' order, which is the
 * rounds' (one view's sessions at a time, not every target's at once: a
 * NAS's sshd refuses many handshakes at once), in a thread of its own,
 * until *stop.  The targets and paths must outlive it.  Without a
 * thread, nothing is read ahead (each bench reads its own). */
void na_read_ahead_start(const nas_target *const *nas, const char *const *path,
                         na_nas_memo *memos, size_t n, volatile sig_atomic_t *stop,
                         na_read_ahead **out);
/* Waits until m's reading is in (none coming: at once); a stop asked
 * while it waits ends the wait, without it. */
void na_nas_memo_wait(na_nas_memo *m);
/* Starts reading m's dataset's settings and its pool's status again
 * (nas_reread_settings) in a thread of its own, beside what the campaign
 * does meanwhile (the round's Storage vMotion); nothing when m holds no
 * view, is still awaited, is being read again already, or no thread
 * starts.  nas must outlive it. */
void na_nas_memo_recheck(na_nas_memo *m, const nas_target *nas);
/* Waits for a recheck taken from a memo (*k NULL after): what it read into
 * props and activity, or its error. */
int na_recheck_join(na_recheck **k, nas_props *props, nas_activity *activity, vs_error *err);
/* Waits for a recheck and forgets what it read (NULL: nothing). */
void na_recheck_drop(na_recheck **k);
/* Waits for the read-ahead's thread and frees it (NULL: nothing). */
void na_read_ahead_end(na_read_ahead **a);
/* Frees m, a recheck still running waited for first. */
void na_nas_memo_free(na_nas_memo *m);

#endif
