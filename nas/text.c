/* Lines and fields for the NAS parsers (nas/internal.h). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

bool nas_next_line(nas_lines *l, nas_span *line)
{
	if (l->p >= l->end)
		return false;
	const char *nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
	const char *stop = nl ? nl : l->end;
	line->s = l->p;
	line->n = (size_t)(stop - l->p);
	if (line->n && line->s[line->n - 1] == '\r')
		line->n--;
	l->p = nl ? nl + 1 : l->end;
	l->number++;
	return true;
}

size_t nas_fields(nas_span line, char sep, nas_span *f, size_t max)
{
	const char *p = line.s, *end = line.s + line.n;
	size_t n = 0;
	if (sep == ' ')
		while (p < end && *p == ' ')
			p++;
	if (sep == ' ' && p == end)
		return 0;
	while (n < max) {
		const char *stop = n + 1 == max ? end : memchr(p, sep, (size_t)(end - p));
		if (!stop)
			stop = end;
		f[n++] = (nas_span){p, (size_t)(stop - p)};
		if (stop == end)
			break;
		p = stop + 1;
		if (sep == ' ')
			while (p < end && *p == ' ')
				p++;
		if (sep == ' ' && p == end)
			break;
	}
	return n;
}

bool nas_span_is(nas_span s, const char *word)
{
	return strlen(word) == s.n && memcmp(s.s, word, s.n) == 0;
}

bool nas_span_u64(nas_span s, uint64_t *out)
{
	if (s.n == 0 || s.n > 20)
		return false;
	uint64_t v = 0;
	for (size_t i = 0; i < s.n; i++) {
		if (s.s[i] < '0' || s.s[i] > '9')
			return false;
		unsigned d = (unsigned)(s.s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

bool nas_span_copy(nas_span s, char *buf, size_t size)
{
	if (s.n >= size)
		return false;
	memcpy(buf, s.s, s.n);
	buf[s.n] = '\0';
	return true;
}

char *nas_span_dup(nas_span s)
{
	char *d = malloc(s.n + 1);
	if (d) {
		memcpy(d, s.s, s.n);
		d[s.n] = '\0';
	}
	return d;
}

int nas_text_check(const char *text, size_t len, const char *what, vs_error *err)
{
	if (memchr(text, '\0', len))
		return vs_fail(err, VS_ERR_PROTOCOL, "%s printed a NUL byte", what);
	return VS_OK;
}
