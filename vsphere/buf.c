/* Growable strings for building SOAP envelopes and URLs.  An allocation
 * failure marks the buffer failed instead of returning an error from every
 * append; the caller checks `failed` once before using the result. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static bool buf_reserve(vs_buf *b, size_t extra)
{
	if (b->failed)
		return false;
	if (b->len + extra + 1 <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + extra + 1)
		cap *= 2;
	char *p = realloc(b->data, cap);
	if (!p) {
		b->failed = true;
		return false;
	}
	b->data = p;
	b->cap = cap;
	return true;
}

void vs_buf_addn(vs_buf *b, const char *s, size_t n)
{
	if (!buf_reserve(b, n))
		return;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void vs_buf_add(vs_buf *b, const char *s)
{
	vs_buf_addn(b, s, strlen(s));
}

void vs_buf_addf(vs_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !buf_reserve(b, (size_t)n)) {
		b->failed = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void vs_buf_add_escaped(vs_buf *b, const char *s)
{
	for (const char *p = s; *p; p++) {
		switch (*p) {
		case '&': vs_buf_add(b, "&amp;"); break;
		case '<': vs_buf_add(b, "&lt;"); break;
		case '>': vs_buf_add(b, "&gt;"); break;
		case '"': vs_buf_add(b, "&quot;"); break;
		case '\'': vs_buf_add(b, "&apos;"); break;
		default: vs_buf_addn(b, p, 1);
		}
	}
}

void vs_buf_elem(vs_buf *b, const char *name, const char *value)
{
	vs_buf_addf(b, "<%s>", name);
	vs_buf_add_escaped(b, value);
	vs_buf_addf(b, "</%s>", name);
}

void vs_buf_moref(vs_buf *b, const char *name, const char *type, const char *id)
{
	vs_buf_addf(b, "<%s type=\"", name);
	vs_buf_add_escaped(b, type);
	vs_buf_add(b, "\">");
	vs_buf_add_escaped(b, id);
	vs_buf_addf(b, "</%s>", name);
}

void vs_buf_add_urlencoded(vs_buf *b, const char *s, bool keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		unsigned char ch = *p;
		bool plain = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
		             (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' || ch == '_' ||
		             ch == '~' || (keep_slash && ch == '/');
		if (plain) {
			vs_buf_addn(b, (const char *)p, 1);
		} else {
			char enc[3] = {'%', hex[ch >> 4], hex[ch & 15]};
			vs_buf_addn(b, enc, 3);
		}
	}
}

void vs_buf_free(vs_buf *b)
{
	free(b->data);
	*b = (vs_buf){0};
}
