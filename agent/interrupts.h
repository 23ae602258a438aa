/* interrupts.c: Ctrl-C and SIGTERM ask for a stop at the next safe point. */
#ifndef NFSAGENT_INTERRUPTS_H
#define NFSAGENT_INTERRUPTS_H

#include <signal.h>

extern volatile sig_atomic_t na_stop_requested;
typedef struct na_interrupts {
	struct sigaction old_int, old_term;
} na_interrupts;
void na_interrupts_catch(na_interrupts *saved);
void na_interrupts_release(const na_interrupts *saved);
/* What a stop lets finish or undoes, said at once when Ctrl-C comes
 * ("stopping fio in the guest"); NULL: "stopping at the next safe point".
 * The text must outlive the wait. */
void na_interrupts_note(const char *doing);
/* While set, a second Ctrl-C or SIGTERM writes last_words and ends the
 * process at once (exit 130): for work that goes on without us (vCenter's
 * tasks).  NULL: a second one is ignored, as by default. */
void na_interrupts_second(const char *last_words);

#endif
