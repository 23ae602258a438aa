/* Text an op's caller shows, line by line (lines.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/lines.h"
#include "analysis/stats.h"

/* Each line of text (lines ending in '\n'), to emit; text is modified. */
static void each_line(char *text, void (*emit)(void *ud, const char *line), void *ud)
{
	for (char *line = text; line && *line;) {
		char *end = strchr(line, '\n');
		if (end)
			*end = '\0';
		emit(ud, line);
		line = end ? end + 1 : NULL;
	}
}

void na_wrapped_lines(const char *text, size_t indent, size_t cont, na_output_fn emit, void *ud)
{
	char *lines = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&lines, &size);
	if (!out)
		return;
	na_print_wrapped(out, text, NA_TEXT_WIDTH, indent, cont);
	fclose(out);
	each_line(lines, emit, ud);
	free(lines);
}

/* na_checks_print's text, malloc'd (NULL: out of memory). */
static char *checks_text(const na_checks *checks)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	if (!out)
		return NULL;
	na_checks_print(checks, out);
	fclose(out);
	return text;
}

typedef struct sink {
	na_output_fn emit;
	void *ud;
} sink;

/* A check's line wrapped again, its continuation under the what. */
static void check_wrapped(void *ud, const char *line)
{
	const sink *to = ud;
	na_wrapped_lines(line + strspn(line, " "), 2, 12, to->emit, to->ud);
}

void na_probe_lines(const na_probe_result *r, na_output_fn emit, void *ud)
{
	char *shown = na_escaped(r->verdict);
	na_wrapped_lines(shown ? shown : r->verdict, 0, 2, emit, ud);
	free(shown);
	char *checks = checks_text(&r->checks);
	each_line(checks, check_wrapped, &(sink){emit, ud});
	free(checks);
}

void na_verify_lines(const char *vm, const na_checks *checks, na_output_fn emit, void *ud)
{
	na_tally t = na_checks_tally(checks);
	char *shown = na_escaped(vm);  /* a name cannot drive the terminal */
	char head[1024], verdict[200];
	if (t.short_)
		snprintf(verdict, sizeof(verdict), "%zu SMALLER than their descriptors say", t.short_);
	else if (t.problems)
		snprintf(verdict, sizeof(verdict), "%zu descriptor%s could not be read", t.problems,
		         na_s(t.problems));
	else if (t.unknown)
		snprintf(verdict, sizeof(verdict), "could not check %zu: nothing short seen, but no verdict either",
		         t.unknown);
	else if (t.transient)
		snprintf(verdict, sizeof(verdict),
		         "all hold what their descriptors declare (%zu only when read again: transient)", t.transient);
	else
		snprintf(verdict, sizeof(verdict), "all hold what their descriptors declare");
	snprintf(head, sizeof(head), "%s: %zu extent%s checked: %s", shown ? shown : vm, checks->n,
	         na_s(checks->n), verdict);
	free(shown);
	emit(ud, head);
	char *text = checks_text(checks);
	each_line(text, emit, ud);
	free(text);
}
