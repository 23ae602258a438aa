/* The session the ops share (session.h). */
#include <stdarg.h>
#include <stdlib.h>

#include "ops/session.h"

void na_say(const na_session *s, const char *fmt, ...)
{
	if (!s->output)
		return;
	char line[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	s->output(s->output_ud, line);
}

int na_session_fresh(na_session *s, vs_error *err)
{
	if (!s->stale)
		return VS_OK;
	int rc = na_inventory_refresh(s->client, s->inv, NULL, err);
	s->stale = rc != VS_OK;
	return rc;
}

void na_print_line(void *ud, const char *line)
{
	(void)ud;
	char *shown = na_escaped(line);
	printf("%s\n", shown ? shown : line);
	free(shown);
	fflush(stdout);
}
