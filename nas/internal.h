/* What the NAS parsers share: lines and fields of text that has a length
 * and may hold anything (a NUL, no final newline). */
#ifndef NFSAGENT_NAS_INTERNAL_H
#define NFSAGENT_NAS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nfsagent/error.h"

typedef struct nas_span {
	const char *s;
	size_t n;
} nas_span;

typedef struct nas_lines {
	const char *p, *end;
	size_t number;  /* of the line last returned, from 1 */
} nas_lines;

static inline nas_lines nas_lines_of(const char *text, size_t len)
{
	return (nas_lines){text, text + len, 0};
}
/* The next line without its "\n" (or "\r\n"); false at the end. */
bool nas_next_line(nas_lines *l, nas_span *line);
/* Splits line at each sep (empty fields kept when sep is '\t'; runs of
 * blanks are one separator when sep is ' '); returns the number of fields,
 * at most max (the last then holds the rest). */
size_t nas_fields(nas_span line, char sep, nas_span *f, size_t max);
bool nas_span_is(nas_span s, const char *word);
/* A whole decimal number without sign or blanks. */
bool nas_span_u64(nas_span s, uint64_t *out);
/* s into buf as a string; false when it does not fit. */
bool nas_span_copy(nas_span s, char *buf, size_t size);
/* A malloc'd copy, NULL when out of memory. */
char *nas_span_dup(nas_span s);
/* VS_OK, or VS_ERR_PROTOCOL when text holds a NUL byte (no command of the
 * NAS prints one; every parser refuses it first, so that spans are strings). */
int nas_text_check(const char *text, size_t len, const char *what, vs_error *err);

/* txgs.c: w's txgs over [from, to] of the NAS's clock, from its readings'
 * first and last (nas_window's txg fields). */
typedef struct nas_window nas_window;
void nas_txgs_select(nas_window *w, double from, double to);

#endif
