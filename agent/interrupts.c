/* Ctrl-C and SIGTERM ask a long command to stop at its next safe point (fio
 * stopped in the guest, a running Storage vMotion left to finish, canary
 * disks removed).  One flag for all: work nested in other work (a probe in a
 * campaign) sees the same request as its caller. */
#include "agent.h"

volatile sig_atomic_t na_stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	na_stop_requested = 1;
}

void na_interrupts_catch(na_interrupts *saved)
{
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &saved->old_int);
	sigaction(SIGTERM, &sa, &saved->old_term);
}

void na_interrupts_release(const na_interrupts *saved)
{
	sigaction(SIGINT, &saved->old_int, NULL);
	sigaction(SIGTERM, &saved->old_term, NULL);
}
