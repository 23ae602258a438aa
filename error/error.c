#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nfsagent/error.h"

int vs_fail(vs_error *err, vs_status status, const char *fmt, ...)
{
	if (!err)
		return status;
	err->status = status;
	err->fault[0] = '\0';
	/* A new error: what explained an earlier fault does not explain it. */
	err->details[0] = '\0';
	err->task_started_ms = 0;
	err->http_status = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return status;
}

void vs_error_context(vs_error *err, const char *fmt, ...)
{
	if (!err)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->context, sizeof(err->context), fmt, ap);
	va_end(ap);
}

void vs_error_detail(vs_error *err, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* Each detail is one line of its own: a newline in a server's text
	 * would make two. */
	for (char *p = line; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	size_t len = strlen(err->details);
	if (len + 2 < sizeof(err->details))
		snprintf(err->details + len, sizeof(err->details) - len, "%s%s", len ? "\n" : "", line);
}

void vs_error_clear(vs_error *err)
{
	if (err)
		*err = (vs_error){0};
}

void vs_error_format(const vs_error *err, char *out, size_t size)
{
	char what[1200];
	const char *msg = err->message[0] ? err->message : vs_status_name(err->status);
	if (err->fault[0] && err->message[0] && strcmp(err->fault, err->message) != 0)
		snprintf(what, sizeof(what), "%s: %s", err->fault, err->message);
	else
		snprintf(what, sizeof(what), "%s", err->fault[0] ? err->fault : msg);
	/* Without a context the message says it all ("refusing to unmount ..."). */
	if (err->context[0])
		snprintf(out, size, "%s failed: %s", err->context, what);
	else
		snprintf(out, size, "%s", what);
}

const char *vs_status_name(vs_status status)
{
	switch (status) {
	case VS_OK: return "ok";
	case VS_ERR_USAGE: return "invalid argument";
	case VS_ERR_NOMEM: return "out of memory";
	case VS_ERR_CONNECT: return "connection failed";
	case VS_ERR_TLS: return "certificate refused";
	case VS_ERR_AUTH: return "authentication failed";
	case VS_ERR_PROTOCOL: return "unexpected reply";
	case VS_ERR_FAULT: return "server fault";
	case VS_ERR_TASK: return "task failed";
	case VS_ERR_NOT_FOUND: return "not found";
	case VS_ERR_HTTP: return "HTTP error";
	case VS_ERR_SESSION_RENEWED: return "session renewed";
	case VS_ERR_HOSTKEY: return "host key refused";
	}
	return "error";
}
