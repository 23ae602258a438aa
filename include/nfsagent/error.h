/* The one error type of nfsagent's libraries (vsphere/, nas/) and the
 * agent above them: a status, the server's fault and message, and what was
 * being done.  It travels up to main.c, which prints one line and picks the
 * exit code (docs/exit-codes.md). */
#ifndef NFSAGENT_ERROR_H
#define NFSAGENT_ERROR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum vs_status {
	VS_OK = 0,
	VS_ERR_USAGE = -1,      /* the caller passed something invalid */
	VS_ERR_NOMEM = -2,
	VS_ERR_CONNECT = -3,    /* unreachable, connection reset, timed out */
	VS_ERR_TLS = -4,        /* the server's certificate was refused */
	VS_ERR_AUTH = -5,       /* the server refused our credentials */
	VS_ERR_PROTOCOL = -6,   /* the reply was not the SOAP we expected */
	VS_ERR_FAULT = -7,      /* the server answered with a SOAP fault */
	VS_ERR_TASK = -8,       /* a task ended in error */
	VS_ERR_NOT_FOUND = -9,  /* a name matched nothing (or several things) */
	VS_ERR_HTTP = -10,      /* an HTTP transfer got an unexpected status */
	VS_ERR_SESSION_RENEWED = -11, /* re-logged in: session-bound objects are gone */
	VS_ERR_HOSTKEY = -12,   /* the NAS's ssh host key was refused (unknown or changed) */
} vs_status;

typedef struct vs_error {
	vs_status status;
	char fault[96];      /* vSphere fault type, e.g. "InvalidLogin"; "" if none */
	char message[1024];  /* the server's or the transport's message */
	char context[256];   /* what failed, e.g. "login to vc.example.com" */
	/* Why, when the fault says more than its message: one line per
	 * faultMessage ("reason: TEXT (KEY)") and per faultCause ("cause: TYPE:
	 * TEXT"), the chain in order; "" if none.  Fixed size: vs_error is
	 * copied by value. */
	char details[1024];
	int64_t task_started_ms; /* a failed task's info.startTime, ms since the epoch; 0 unknown */
	long http_status;        /* the HTTP status of a failed SOAP call; 0 none */
} vs_error;

/* Sets status and message (printf-style), clears the fault type, keeps the
 * context; returns status. */
int vs_fail(vs_error *err, vs_status status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Sets what was being done when the error happened ("login to vc"). */
void vs_error_context(vs_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Formats "CONTEXT failed: FAULT: MESSAGE" (parts left out when empty),
 * one line: the details are not part of it. */
void vs_error_format(const vs_error *err, char *out, size_t size);
/* Appends one line (printf-style) to err->details; what does not fit is
 * left out. */
void vs_error_detail(vs_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Zeroes err. */
void vs_error_clear(vs_error *err);
const char *vs_status_name(vs_status status);

#ifdef __cplusplus
}
#endif

#endif
