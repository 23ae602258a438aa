/* A NAS view a campaign keeps from round to round for each target (its
 * dataset, settings, pool layout and history), so that reading the NAS is
 * off the rounds' critical path (docs/nas-sampling.md): the campaign reads
 * every target's view ahead, in a thread of its own, while it mounts,
 * probes and moves; each round's bench starts with it and reads the
 * settings and the pool's health again beside the guests' preparation,
 * before its first fio (ops/bench_nas.c). */
#ifndef NFSAGENT_OPS_NAS_MEMO_H
#define NFSAGENT_OPS_NAS_MEMO_H

#include <stdbool.h>
#include <signal.h>
#include <stddef.h>

#include "nfsagent/nas.h"

typedef struct na_read_ahead na_read_ahead;

typedef struct na_nas_memo {
	bool held;            /* view holds a reading */
	nas_view view;
	na_read_ahead *ahead; /* the read-ahead that will fill it, until waited for */
} na_nas_memo;

/* Reads the view of each export, nas[i] at path[i] (NULL nas: none), into
 * memos[i], one after the other in the targets' order, which is the
 * rounds' (a NAS's sshd refuses many handshakes at once), in a thread of
 * its own, until *stop.  The targets and paths must outlive it.  Without a
 * thread, nothing is read ahead (each bench reads its own). */
void na_read_ahead_start(const nas_target *const *nas, const char *const *path,
                         na_nas_memo *memos, size_t n, volatile sig_atomic_t *stop,
                         na_read_ahead **out);
/* Waits until m's reading is in (none coming: at once); a stop asked
 * while it waits ends the wait, without it. */
void na_nas_memo_wait(na_nas_memo *m);
/* Waits for the read-ahead's thread and frees it (NULL: nothing). */
void na_read_ahead_end(na_read_ahead **a);
void na_nas_memo_free(na_nas_memo *m);

#endif
