/* What every layer shares of output.c: messages on stderr, checked numbers,
 * tables, JSON, progress bars and waits, sizes, the clock. */
#ifndef NFSAGENT_OUTPUT_H
#define NFSAGENT_OUTPUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nfsagent/error.h"

/* ---- messages ---- */
/* Prints "nfsagent: MESSAGE" on stderr. */
void na_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void na_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The offset of the first byte that is a control character (C0, DEL, C1)
 * or not part of valid UTF-8 (overlong forms, surrogates and code points
 * past U+10FFFF are not), or -1 when there is none. */
long na_bad_text_at(const char *text);
/* s with its control characters (C0, DEL, C1) written \x1b-style, so that a
 * hostile name cannot drive the terminal (malloc'd).  Messages and tables
 * escape what they print. */
char *na_escaped(const char *s);
/* Prints the error's one line, its reasons indented under it: main.c's
 * rendering of how a command ended, and a command's of an error it goes on
 * after (one VM of a batch). */
void na_print_error(const vs_error *err);
/* The same as a warning: an error something goes on after. */
void na_print_warning_error(const vs_error *err);
/* Hands each of err's detail lines (a fault's reason, its cause) to each. */
void na_error_details(const vs_error *err, void (*each)(void *ud, const char *line), void *ud);
/* A detail line on stderr, indented under its error (na_print_error's). */
void na_print_detail(void *ud, const char *line);
/* A whole decimal number in [min, max] (no blanks, no '+', nothing after
 * it, nothing that overflows a long) into *out; false otherwise. */
bool na_parse_long(const char *s, long min, long max, long *out);
/* Bounds of the numbers bench, probe and a campaign take: a day of runtime
 * or ramp, the repetitions bench's summary can hold, probe's disks. */
enum { NA_MAX_RUNTIME_S = 86400, NA_MAX_REPEAT = 64, NA_MAX_PROBE_DISKS = 100 };

/* ---- tables, JSON, progress ---- */
typedef struct na_table na_table;
na_table *na_table_new(size_t ncols, const char *const *headers);
void na_table_add(na_table *t, const char *const *cells);
/* A line of text under the last row added, wrapped to NA_TEXT_WIDTH and
 * indented: a row's detail that would make the table too wide.  It takes
 * no part in the columns' widths.  Tables of 2 columns or more. */
void na_table_note(na_table *t, const char *text);
/* Columns that may be left out, first to last, while the table would pass
 * NA_TEXT_WIDTH; a line under it names them (a command's --wide does not
 * call this).  droppable must outlive the table. */
void na_table_fit(na_table *t, const size_t *droppable, size_t n);
void na_table_print(const na_table *t, FILE *out);
void na_table_free(na_table **t);
void na_json_print(json_t *json);
typedef struct na_progress {
	const char *what;
	int last;
	bool tty;
} na_progress;
void na_progress_init(na_progress *p, const char *what);
void na_progress_cb(int percent, void *ud);  /* a vs_progress_fn */
void na_progress_done(na_progress *p);
/* A wait with no percent to tell (fio running in a guest): after 2 s, on
 * a terminal, a bar with the time gone and the time left of expected_s;
 * in a pipe or a log, a line every 10 s. */
typedef struct na_wait {
	const char *what;
	long expected_s, last_line_s;
	bool tty, shown;
} na_wait;
void na_wait_init(na_wait *w, const char *what, long expected_s);
void na_wait_tick(long elapsed_s, void *ud);  /* a vs_tick_fn */
void na_wait_done(na_wait *w);
/* s as one shell word, quoted only when it needs it (malloc'd; NULL: no
 * memory): every command nfsagent prints for pasting goes through it. */
char *na_shell_quote(const char *s);
/* "1.5 TiB"-style size into buf. */
const char *na_size(int64_t bytes, char *buf, size_t size);
/* "NFS 3" / "NFS 4.1" for a datastore type. */
const char *na_nfs_label(const char *type);
/* Monotonic seconds: durations that a clock's step does not skew. */
double na_run_clock(void);
/* The plural's "s" of a count: "1 group", "2 groups". */
static inline const char *na_s(size_t n)
{
	return n == 1 ? "" : "s";
}

#endif
