/* The session the ops share (session.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ops/session.h"
#include "analysis/stats.h"
#include "interrupts.h"

static void say_to(na_output_fn sink, void *ud, const char *fmt, va_list ap)
{
	if (!sink)
		return;
	char line[2048];
	vsnprintf(line, sizeof(line), fmt, ap);
	sink(ud, line);
}

void na_say(const na_session *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say_to(s->output, s->output_ud, fmt, ap);
	va_end(ap);
}

void na_say_warning(const na_session *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say_to(s->warning, s->output_ud, fmt, ap);
	va_end(ap);
}

void na_say_warning_error(const na_session *s, const vs_error *err)
{
	if (!s->warning)
		return;
	char line[1600];
	vs_error_format(err, line, sizeof(line));
	s->warning(s->output_ud, line);
	if (s->detail)
		na_error_details(err, s->detail, s->output_ud);
}

int na_session_fresh(na_session *s, vs_error *err)
{
	if (!s->stale)
		return VS_OK;
	int rc = na_inventory_refresh(s->client, s->inv, NULL, err);
	s->stale = rc != VS_OK;
	return rc;
}

/* A line longer than the output's width (a vmware.log line quoted as
 * evidence) goes on under its own indent, two columns further in. */
void na_print_line(void *ud, const char *line)
{
	(void)ud;
	char *shown = na_escaped(line);
	const char *text = shown ? shown : line;
	size_t indent = strspn(text, " ");
	if (strlen(text) > NA_TEXT_WIDTH)
		na_print_wrapped(stdout, text + indent, NA_TEXT_WIDTH, indent, indent + 2);
	else
		printf("%s\n", text);
	free(shown);
	fflush(stdout);
}

void na_print_warning(void *ud, const char *line)
{
	(void)ud;
	na_warn("%s", line);
}

int na_wait_for_tools(const na_session *s, const char *vm, const char *name, vs_error *err)
{
	int rc;
	for (int waited = 0; (rc = vs_guest_check(s->client, vm, err)) != VS_OK; waited += 2) {
		if (waited >= NA_TOOLS_BOOT_S || na_stop_requested)
			break;
		if (waited == 0)
			na_say(s, "Waiting for VMware Tools in %s (up to %d s).", name, NA_TOOLS_BOOT_S);
		*err = (vs_error){0};
		sleep(2);
	}
	return rc;
}
