/* The pool's layout from `zpool list -Hpv POOL` and its I/O from `zpool
 * iostat [-T u] -Hpvy -l POOL INTERVAL COUNT`, as OpenZFS 2.2's zpool_main.c
 * prints them with -H (cmd/zpool/zpool_main.c: print_list_stats,
 * print_vdev_stats):
 *  - zpool list: the pool's line, then one line a vdev that begins with a
 *    tab (no indentation); a top-level vdev has its ALLOC, a leaf '-'.  The
 *    classes after the data vdevs get a line of their own even with -H:
 *    their name padded with blanks, then blank-separated dashes.
 *  - zpool iostat: per interval, the pool's line, then every vdev, leaves
 *    after their top-level one, no indentation; each class after the data
 *    vdevs (dedup, special, logs, then cache) after an empty line and no
 *    name: which vdev is which comes from the layout. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "nfsagent/nas.h"

const char *nas_class_name(nas_class c)
{
	static const char *const names[NAS_CLASS_N] = {"data", "dedup", "special",
	                                               "logs", "cache", "spare"};
	return c < NAS_CLASS_N ? names[c] : "?";
}

/* A class's own line in zpool list: "logs      -      -  ...". */
static bool class_line(nas_span line, nas_class *cls)
{
	nas_span f[12];
	size_t n = nas_fields(line, ' ', f, 12);
	if (n < 2 || line.s[0] == '\t')
		return false;
	for (size_t i = 1; i < n; i++)
		if (!nas_span_is(f[i], "-"))
			return false;
	for (int c = NAS_CLASS_DEDUP; c < NAS_CLASS_N; c++)
		if (nas_span_is(f[0], nas_class_name((nas_class)c))) {
			*cls = (nas_class)c;
			return true;
		}
	return false;
}

void nas_layout_free(nas_layout *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	free(l->pool);
	*l = (nas_layout){0};
}

size_t nas_layout_count(const nas_layout *l, nas_class c)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += l->v[i].cls == c;
	return n;
}

static int add_vdev(nas_layout *l, nas_span name, nas_class cls, vs_error *err)
{
	nas_vdev *v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	l->v = v;
	v[l->n] = (nas_vdev){.name = nas_span_dup(name), .cls = cls};
	return v[l->n++].name ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
}

/* "mirror-0" -> "mirror", "draid2:4d:12c:1s-0" -> "draid2"; a vdev without
 * leaves is a disk. */
static void name_type(nas_vdev *v)
{
	if (v->n_leaves == 0) {
		strcpy(v->type, "disk");
		v->n_leaves = 1;
		return;
	}
	size_t n = strcspn(v->name, ":");
	const char *dash = strrchr(v->name, '-');
	if (dash && (size_t)(dash - v->name) < n)
		n = (size_t)(dash - v->name);
	snprintf(v->type, sizeof(v->type), "%.*s", (int)n, v->name);
}

static int pool_line(nas_span line, nas_layout *out, vs_error *err)
{
	nas_span f[12];
	uint64_t size, alloc;
	if (nas_fields(line, '\t', f, 12) != 11 || !nas_span_u64(f[1], &size) ||
	    !nas_span_u64(f[2], &alloc) || size > INT64_MAX || alloc > INT64_MAX ||
	    !nas_span_copy(f[9], out->health, sizeof(out->health)))
		return vs_fail(err, VS_ERR_PROTOCOL, "zpool list's first line is not a pool's");
	out->size = (int64_t)size;
	out->alloc = (int64_t)alloc;
	out->pool = nas_span_dup(f[0]);
	return out->pool ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
}

static int vdev_line(nas_span line, nas_class cls, nas_layout *out, vs_error *err)
{
	nas_span f[12];
	uint64_t alloc;
	if (nas_fields(line, '\t', f, 12) != 11 || f[0].n != 0 || f[1].n == 0)
		return vs_fail(err, VS_ERR_PROTOCOL, "a line of zpool list is not a vdev's");
	/* Cache and spare devices stand alone; elsewhere a vdev without
	 * space of its own is a leaf of the one before it. */
	bool leaf = cls != NAS_CLASS_CACHE && cls != NAS_CLASS_SPARE && !nas_span_u64(f[3], &alloc);
	if (!leaf)
		return add_vdev(out, f[1], cls, err);
	if (out->n == 0 || out->v[out->n - 1].cls != cls)
		return vs_fail(err, VS_ERR_PROTOCOL, "zpool list has a disk outside any vdev");
	out->v[out->n - 1].n_leaves++;
	return VS_OK;
}

int nas_parse_zpool_list(const char *text, size_t len, nas_layout *out, vs_error *err)
{
	*out = (nas_layout){0};
	int rc = nas_text_check(text, len, "zpool list", err);
	nas_lines lines = nas_lines_of(text, len);
	nas_span line;
	nas_class cls = NAS_CLASS_DATA;
	while (rc == VS_OK && nas_next_line(&lines, &line)) {
		if (line.n == 0)
			continue;
		if (!out->pool)
			rc = pool_line(line, out, err);
		else if (!class_line(line, &cls))
			rc = vdev_line(line, cls, out, err);
	}
	if (rc == VS_OK && !out->pool)
		rc = vs_fail(err, VS_ERR_PROTOCOL, "zpool list printed no pool");
	for (size_t i = 0; rc == VS_OK && i < out->n; i++)
		name_type(&out->v[i]);
	if (rc != VS_OK)
		nas_layout_free(out);
	return rc;
}

/* ---- zpool iostat -Hpvy -l -------------------------------------------- */

void nas_samples_free(nas_samples *s)
{
	free(s->v);
	*s = (nas_samples){0};
}

/* One interval being read: sums, and waits weighted by their ops. */
typedef struct interval {
	nas_sample s;
	double rwait[NAS_CLASS_N], wwait[NAS_CLASS_N];
	size_t seen;  /* top-level vdevs read */
	bool open;
} interval;

/* name, alloc, free, read and write ops, read and write bytes, then with -l
 * total_wait read and write first ('-' when nothing waited). */
static bool io_fields(nas_span line, nas_span *name, nas_io *io)
{
	nas_span f[19];
	size_t n = nas_fields(line, '\t', f, 19);
	uint64_t skip;
	*name = f[0];
	if (n < 7 || !nas_span_u64(f[1], &skip) || !nas_span_u64(f[2], &skip) ||
	    !nas_span_u64(f[3], &io->read_ops) || !nas_span_u64(f[4], &io->write_ops) ||
	    !nas_span_u64(f[5], &io->read_bytes) || !nas_span_u64(f[6], &io->write_bytes))
		return false;
	/* No pool moves 2^53 bytes or ops a second (9 PB/s): such a rate is a
	 * counter gone wrong, and the window's sums stay exact below it. */
	const uint64_t most = 1ULL << 53;
	if (io->read_ops > most || io->write_ops > most || io->read_bytes > most ||
	    io->write_bytes > most)
		return false;
	io->read_wait_ns = io->write_wait_ns = 0;
	if (n >= 9) {
		if (!nas_span_is(f[7], "-") && !nas_span_u64(f[7], &io->read_wait_ns))
			return false;
		if (!nas_span_is(f[8], "-") && !nas_span_u64(f[8], &io->write_wait_ns))
			return false;
	}
	return true;
}

static const nas_vdev *top_level(const nas_layout *l, nas_span name)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].cls != NAS_CLASS_SPARE && nas_span_is(name, l->v[i].name))
			return &l->v[i];
	return NULL;
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
}

/* Ends the interval: kept when every top-level vdev was in it. */
static int close_interval(interval *in, size_t expected, bool last, nas_samples *out,
                          vs_error *err)
{
	if (!in->open)
		return VS_OK;
	in->open = false;
	if (in->seen < expected)
		return last ? VS_OK
		            : vs_fail(err, VS_ERR_PROTOCOL,
		                      "interval %zu of zpool iostat lacks vdevs of the layout", out->n + 1);
	for (int c = 0; c < NAS_CLASS_N; c++) {
		nas_io *io = &in->s.cls[c];
		io->read_wait_ns = io->read_ops ? (uint64_t)(in->rwait[c] / (double)io->read_ops) : 0;
		io->write_wait_ns = io->write_ops ? (uint64_t)(in->wwait[c] / (double)io->write_ops) : 0;
	}
	nas_sample *v = realloc(out->v, (out->n + 1) * sizeof(*v));
	if (!v)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	out->v = v;
	v[out->n++] = in->s;
	return VS_OK;
}

int nas_parse_iostat(const char *text, size_t len, const nas_layout *layout, nas_samples *out,
                     vs_error *err)
{
	*out = (nas_samples){0};
	int rc = nas_text_check(text, len, "zpool iostat", err);
	size_t expected = layout->n - nas_layout_count(layout, NAS_CLASS_SPARE);
	/* A last line without its newline was cut by the sampler's stop. */
	size_t whole = len;
	while (whole > 0 && text[whole - 1] != '\n')
		whole--;
	nas_lines lines = nas_lines_of(text, whole);
	nas_span line, name;
	interval in = {0};
	int64_t at = 0;  /* the -T u line waiting for its interval */
	while (rc == VS_OK && nas_next_line(&lines, &line)) {
		nas_io io;
		uint64_t stamp;
		if (line.n == 0)
			continue;
		if (nas_span_u64(line, &stamp) && stamp <= INT64_MAX) {
			at = (int64_t)stamp;
		} else if (!io_fields(line, &name, &io)) {
			rc = vs_fail(err, VS_ERR_PROTOCOL, "line %zu of zpool iostat is not a vdev's figures",
			             lines.number);
		} else if (nas_span_is(name, layout->pool)) {
			rc = close_interval(&in, expected, false, out, err);
			in = (interval){.open = true};
			in.s.pool = io;
			in.s.at = at;
			at = 0;
		} else if (!in.open) {
			rc = vs_fail(err, VS_ERR_PROTOCOL, "zpool iostat printed a vdev before its pool");
		} else {
			const nas_vdev *v = top_level(layout, name);
			if (v) {
				add_io(&in, v->cls, &io);
				in.seen++;
			}
		}
	}
	if (rc == VS_OK)
		rc = close_interval(&in, expected, true, out, err);
	if (rc != VS_OK)
		nas_samples_free(out);
	return rc;
}
