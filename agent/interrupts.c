/* Ctrl-C and SIGTERM ask a long command to stop at its next safe point (fio
 * stopped in the guest, a running Storage vMotion left to finish, canary
 * disks removed).  One flag for all: work nested in other work (a probe in a
 * campaign) sees the same request as its caller. */
#include <string.h>
#include <unistd.h>

#include "interrupts.h"

volatile sig_atomic_t na_stop_requested;

static const char *volatile note;  /* what stopping does now */
static volatile size_t note_len;
static volatile sig_atomic_t tty;  /* a progress bar may hold the line */
static const char *volatile second;  /* said before a second signal ends the process */
static volatile size_t second_len;

void na_interrupts_second(const char *last_words)
{
	second_len = 0;
	second = last_words;
	second_len = last_words ? strlen(last_words) : 0;
}

void na_interrupts_note(const char *doing)
{
	note_len = 0;  /* never a text and a length that do not match */
	note = doing;
	note_len = doing ? strlen(doing) : 0;
}

/* Said at once, from the handler (write(2) only: async-signal-safe), so that
 * a second Ctrl-C is not needed to learn that the first one was heard. */
static void on_signal(int sig)
{
	(void)sig;
	if (na_stop_requested && second_len) {
		ssize_t ignored = write(STDERR_FILENO, second, second_len);
		(void)ignored;
		_exit(130);  /* 128 + SIGINT, as a shell reports it */
	}
	if (na_stop_requested)
		return;
	na_stop_requested = 1;
	static const char head[] = "\nnfsagent: stopping: ", fallback[] = "at the next safe point";
	size_t len = note_len;
	const char *text = len ? note : fallback;
	ssize_t ignored = write(STDERR_FILENO, head + !tty, sizeof(head) - 1 - !tty);
	ignored = write(STDERR_FILENO, text, len ? len : sizeof(fallback) - 1);
	ignored = write(STDERR_FILENO, "\n", 1);
	(void)ignored;
}

void na_interrupts_catch(na_interrupts *saved)
{
	tty = isatty(STDERR_FILENO);
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
