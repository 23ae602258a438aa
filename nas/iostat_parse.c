/* The pool's I/O from `zpool iostat [-T u] -Hpvy -l POOL INTERVAL COUNT`
 * as OpenZFS 2.1 to 2.3 print it (cmd/zpool/zpool_main.c:
 * print_vdev_stats, print_iostat_default, print_iostat_latency):
 *  - per interval, with -T u the Unix time alone on a line, then the
 *    pool's line, then every vdev under it in zpool list's order, no
 *    indentation: a top-level vdev, then what is under it (interior
 *    vdevs, leaves); the removed ones (indirect-N) among them, all zero;
 *  - each class after the data vdevs (dedup, special, logs, then cache)
 *    after an empty line and no name; spares are not printed;
 *  - name, alloc, free, read and write ops, read and write bytes, then
 *    with -l the waits: 10 in 2.1, 11 from 2.2 (rebuild), total_wait read
 *    and write first, '-' where nothing waited.  Only a top-level vdev has
 *    capacity: with -p anything under one prints 0 for alloc and free.
 * Which line is which comes from the layout: the next top-level vdev it
 * has is named by a line with capacity, or by the first line of a class;
 * every other line is under the top-level vdev before it and never added
 * (a top-level vdev's figures already hold its copies and parity).  What
 * is under a vdev may change during a run (a resilver ends, a spare
 * comes in): it is not read. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "nfsagent/nas.h"

void nas_samples_free(nas_samples *s)
{
	free(s->v);
	*s = (nas_samples){0};
}

/* One interval being read: sums, and waits weighted by their ops. */
typedef struct interval {
	nas_sample s;
	double rwait[NAS_CLASS_N], wwait[NAS_CLASS_N], swait[NAS_CLASS_N];
	size_t next;      /* the layout's next top-level vdev */
	bool class_open;  /* the line after the pool's or an empty one: a top-level vdev's */
	bool open;
} interval;

/* No pool moves 2^53 bytes or ops a second (9 PB/s): such a rate is a
 * counter gone wrong, and the window's sums stay exact below it. */
static bool sane(uint64_t v)
{
	return v <= 1ULL << 53;
}

/* A top-level vdev's or the pool's figures: name, alloc, free, read and
 * write ops, read and write bytes, then with -l total_wait read and write,
 * disk_wait read and write, syncq_wait read and write. */
static bool io_fields(const nas_span *f, size_t n, nas_io *io)
{
	uint64_t skip;
	if (n < 7 || !nas_span_u64(f[1], &skip) || !nas_span_u64(f[2], &skip) ||
	    !nas_span_u64(f[3], &io->read_ops) || !nas_span_u64(f[4], &io->write_ops) ||
	    !nas_span_u64(f[5], &io->read_bytes) || !nas_span_u64(f[6], &io->write_bytes) ||
	    !sane(io->read_ops) || !sane(io->write_ops) || !sane(io->read_bytes) ||
	    !sane(io->write_bytes))
		return false;
	io->read_wait_ns = io->write_wait_ns = io->sync_write_wait_ns = 0;
	uint64_t *wait[] = {&io->read_wait_ns, &io->write_wait_ns, &io->sync_write_wait_ns};
	const size_t at[] = {7, 8, 12};
	for (size_t i = 0; i < 3; i++)
		if (n > at[i] && !nas_span_is(f[at[i]], "-") && !nas_span_u64(f[at[i]], wait[i]))
			return false;
	return true;
}

/* A line under a top-level vdev: a name and six figures, numbers or '-'. */
static bool under_fields(const nas_span *f, size_t n, bool *capacity)
{
	uint64_t v[7] = {0};
	if (n < 7 || f[0].n == 0)
		return false;
	for (size_t i = 1; i < 7; i++)
		if (!nas_span_is(f[i], "-") && !nas_span_u64(f[i], &v[i]))
			return false;
	*capacity = v[1] || v[2];
	return true;
}

static void add_io(interval *in, nas_class c, const nas_io *io)
{
	nas_io *sum = &in->s.cls[c];
	sum->read_ops += io->read_ops;
	sum->write_ops += io->write_ops;
	sum->read_bytes += io->read_bytes;
	sum->write_bytes += io->write_bytes;
	in->rwait[c] += (double)io->read_wait_ns * (double)io->read_ops;
	in->wwait[c] += (double)io->write_wait_ns * (double)io->write_ops;
	in->swait[c] += (double)io->sync_write_wait_ns * (double)io->write_ops;
}

/* The layout's vdevs zpool iostat prints: all but spares. */
static size_t printed(const nas_layout *l)
{
	return l->n - nas_layout_count(l, NAS_CLASS_SPARE);
}

static bool removed(const nas_vdev *v)
{
	return strcmp(v->type, "indirect") == 0;
}

/* Passes removed vdevs the interval did not print (an older zpool may
 * not), up to the one named, or to the end. */
static void skip_removed(interval *in, const nas_layout *l, nas_span name)
{
	size_t k = in->next;
	while (k < printed(l) && removed(&l->v[k]) && !nas_span_is(name, l->v[k].name))
		k++;
	if (k == printed(l) || nas_span_is(name, l->v[k].name))
		in->next = k;
}

/* Ends the interval: kept when every top-level vdev was in it. */
static int close_interval(interval *in, const nas_layout *l, bool last, nas_samples *out,
                          vs_error *err)
{
	if (!in->open)
		return VS_OK;
	in->open = false;
	skip_removed(in, l, (nas_span){"", 0});
	if (in->next < printed(l))
		return last ? VS_OK
		            : vs_fail(err, VS_ERR_PROTOCOL,
		                      "interval %zu of zpool iostat lacks vdev %s of the layout", out->n + 1,
		                      l->v[in->next].name);
	for (int c = 0; c < NAS_CLASS_N; c++) {
		nas_io *io = &in->s.cls[c];
		io->read_wait_ns = io->read_ops ? (uint64_t)(in->rwait[c] / (double)io->read_ops) : 0;
		io->write_wait_ns = io->write_ops ? (uint64_t)(in->wwait[c] / (double)io->write_ops) : 0;
		io->sync_write_wait_ns = io->write_ops ? (uint64_t)(in->swait[c] / (double)io->write_ops) : 0;
	}
	nas_sample *v = realloc(out->v, (out->n + 1) * sizeof(*v));
	if (!v)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	out->v = v;
	v[out->n++] = in->s;
	return VS_OK;
}

/* The layout's next top-level vdev to be printed, NULL past the last. */
static const nas_vdev *next_vdev(const interval *in, const nas_layout *l)
{
	return in->next < printed(l) ? &l->v[in->next] : NULL;
}

/* The pool's line begins an interval: named as the pool, with capacity
 * (a line under a vdev has none), and not the vdev expected next. */
static bool pool_line(const nas_span *f, size_t n, const nas_layout *l, const interval *in)
{
	bool capacity;
	const nas_vdev *v = next_vdev(in, l);
	return nas_span_is(f[0], l->pool) &&
	       (!in->open ||
	        (under_fields(f, n, &capacity) && capacity && !(v && nas_span_is(f[0], v->name))));
}

/* A line of an open interval: the next top-level vdev, or a line under
 * the one before it. */
static int vdev_line(interval *in, const nas_layout *l, const nas_span *f, size_t n,
                     size_t number, vs_error *err)
{
	bool capacity;
	if (!under_fields(f, n, &capacity))
		return vs_fail(err, VS_ERR_PROTOCOL, "line %zu of zpool iostat is not a vdev's figures",
		               number);
	skip_removed(in, l, f[0]);
	const nas_vdev *v = next_vdev(in, l);
	bool named = v && nas_span_is(f[0], v->name);
	/* under a vdev: no capacity, and not the removed vdev the layout has next */
	if (!in->class_open && !capacity && !(named && removed(v)))
		return VS_OK;
	nas_io io;
	if (!named)
		return vs_fail(err, VS_ERR_PROTOCOL,
		               "line %zu of zpool iostat ('%.*s') is not the vdev zpool list has there (%s)",
		               number, (int)(f[0].n > 80 ? 80 : f[0].n), f[0].s, v ? v->name : "none");
	if (!io_fields(f, n, &io))
		return vs_fail(err, VS_ERR_PROTOCOL, "line %zu of zpool iostat is not a vdev's figures",
		               number);
	if (!removed(v))
		add_io(in, v->cls, &io);
	in->next++;
	in->class_open = false;
	return VS_OK;
}

int nas_parse_iostat(const char *text, size_t len, const nas_layout *layout, nas_samples *out,
                     vs_error *err)
{
	*out = (nas_samples){0};
	int rc = nas_text_check(text, len, "zpool iostat", err);
	/* A last line without its newline was cut by the sampler's stop. */
	size_t whole = len;
	while (whole > 0 && text[whole - 1] != '\n')
		whole--;
	nas_lines lines = nas_lines_of(text, whole);
	nas_span line;
	interval in = {0};
	int64_t at = 0;  /* the -T u line waiting for its interval */
	while (rc == VS_OK && nas_next_line(&lines, &line)) {
		nas_span f[19];
		size_t n = nas_fields(line, '\t', f, 19);
		uint64_t stamp;
		nas_io io;
		if (line.n == 0) {
			in.class_open = in.open;
		} else if (nas_span_u64(line, &stamp) && stamp <= INT64_MAX) {
			at = (int64_t)stamp;
		} else if (pool_line(f, n, layout, &in)) {
			if (!io_fields(f, n, &io))
				rc = vs_fail(err, VS_ERR_PROTOCOL,
				             "line %zu of zpool iostat is not a vdev's figures", lines.number);
			else
				rc = close_interval(&in, layout, false, out, err);
			in = (interval){.open = true, .class_open = true, .s = {.pool = io, .at = at}};
			at = 0;
		} else if (!in.open) {
			rc = vs_fail(err, VS_ERR_PROTOCOL, "zpool iostat printed a vdev before its pool");
		} else {
			rc = vdev_line(&in, layout, f, n, lines.number, err);
		}
	}
	if (rc == VS_OK)
		rc = close_interval(&in, layout, true, out, err);
	if (rc != VS_OK)
		nas_samples_free(out);
	return rc;
}
