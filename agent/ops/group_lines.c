/* A group run's pools in words (group_lines.h). */
#include <stdio.h>

#include "ops/group_lines.h"
#include "analysis/stats.h"

void na_group_pool_words(const na_bench_group_pool *q, char *buf, size_t size)
{
	const nas_window *w = &q->w;
	const nas_io *t = w->total;
	double secs = w->span, mb = 1e6;
	if (w->incomplete || !w->fio_window || secs <= 0) {
		/* cut to the line's columns, on purpose */
		snprintf(buf, size, " figures incomplete: %.*s", (int)size,
		         w->incomplete ? w->why : "not placed");
		return;
	}
	double data = (double)(t[NAS_CLASS_DATA].write_bytes + t[NAS_CLASS_SPECIAL].write_bytes +
	                       t[NAS_CLASS_DEDUP].write_bytes);
	double log = (double)t[NAS_CLASS_LOG].write_bytes;
	if (q->amplification >= 0)
		snprintf(buf, size, " pool wrote %.1f MB/s + %.1f MB/s (log) for %.1f MB/s from %zu VM%s: %.1fx",
		         data / secs / mb, log / secs / mb, (double)q->guest_written / secs / mb, q->measured,
		         na_s(q->measured), q->amplification);
	else
		snprintf(buf, size, " pool read %.1f MB/s, wrote %.1f MB/s; the VMs wrote nothing",
		         (double)(t[NAS_CLASS_DATA].read_bytes + t[NAS_CLASS_SPECIAL].read_bytes) / secs / mb,
		         (data + log) / secs / mb);
}

void na_group_pool_line(const char *prefix, const na_bench_group_pool *q, char *line, size_t size)
{
	int at = snprintf(line, size, "%sNAS %s:", prefix, q->pool);
	if (at > 0 && (size_t)at < size)
		na_group_pool_words(q, line + at, size - (size_t)at);
}
