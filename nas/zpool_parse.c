/* The pool's layout from `zpool list -Hpv POOL` as OpenZFS 2.1 to 2.3 print
 * it (cmd/zpool/zpool_main.c: print_list_stats, collect_list_stats in 2.3;
 * names from lib/libzfs/libzfs_pool.c: zpool_vdev_name):
 *  - the pool's line, then one line a vdev, each beginning with a tab and
 *    no indentation: -H prints no depth.  A top-level vdev has space of
 *    its own (ALLOC a number); an interior vdev (replacing-N, spare-N) and
 *    a leaf print '-' there, and a leaf its SIZE (2.2; '-' in 2.1 and for a
 *    missing disk, named then by its guid).  A removed vdev stays as
 *    indirect-N, all '-', anywhere among the data vdevs.
 *  - the classes after the data vdevs (dedup, special, logs, then cache and
 *    spare) get a line of their own even with -H: their name padded with
 *    blanks, then blank-separated dashes.
 *  - a dRAID vdev is named draidP:Dd:Cc:Ss-ID; its distributed spares
 *    draidP-ID-N, listed as spares and, once in use, under a spare-N in
 *    the place of the disk they stand in for.
 * The tree is read back from that: a line is top-level when it has space,
 * is an indirect-N or begins its class; any other line is under the
 * top-level one before it.  A replacing-N or spare-N holds two vdevs
 * (the disk and its replacement or spare), so that the disks of a
 * top-level vdev, its width, are its leaves less its interior vdevs. */
#include <stdio.h>
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

static bool all_digits(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* "TYPE-ID", as zpool_vdev_name names a vdev that is no disk. */
static bool type_id(nas_span name, const char *type)
{
	size_t t = strlen(type);
	return name.n > t + 1 && memcmp(name.s, type, t) == 0 && name.s[t] == '-' &&
	       all_digits(name.s + t + 1, name.n - t - 1);
}

/* A dRAID's distributed spare: "draidP-ID-N" (vdev_draid_spare's path). */
static bool dspare_name(nas_span name)
{
	if (name.n < 10 || memcmp(name.s, "draid", 5) != 0)
		return false;
	size_t at = 5, parts = 0;
	while (parts < 3) {
		size_t k = at;
		while (k < name.n && name.s[k] >= '0' && name.s[k] <= '9')
			k++;
		if (k == at || (parts < 2 && (k == name.n || name.s[k] != '-')))
			return false;
		parts++;
		at = k + 1;
	}
	return at == name.n + 1;
}

/* The reading of the list: the class being read and what the top-level
 * vdev being read holds so far. */
typedef struct reading {
	nas_layout *out;
	nas_class cls;
	bool open;          /* a top-level vdev of cls is being read */
	bool stand_in;      /* it is a replacing-N or spare-N itself: a lone disk's */
	size_t leaves;      /* lines under it that are leaves */
	size_t interiors;   /* replacing-N and spare-N under it, and itself */
} reading;

static bool interior(nas_span name)
{
	return type_id(name, "replacing") || type_id(name, "spare");
}

/* The type and disks of the top-level vdev just read. */
static void close_vdev(reading *r)
{
	if (!r->open)
		return;
	r->open = false;
	nas_vdev *v = &r->out->v[r->out->n - 1];
	nas_span name = {v->name, strlen(v->name)};
	snprintf(v->type, sizeof(v->type), "disk");
	v->n_leaves = 1;
	if (r->leaves == 0 && type_id(name, "indirect")) {
		snprintf(v->type, sizeof(v->type), "indirect");
		v->n_leaves = 0;
	} else if (v->cls == NAS_CLASS_SPARE && dspare_name(name)) {
		snprintf(v->type, sizeof(v->type), "dspare");
		v->n_leaves = 0;
	} else if (r->leaves > 0) {
		v->n_leaves = r->leaves > r->interiors ? r->leaves - r->interiors : 1;
		/* "mirror-0" -> "mirror", "draid2:4d:12c:1s-0" -> "draid2:4d:12c:1s" */
		const char *dash = strrchr(v->name, '-');
		if (!r->stand_in)
			snprintf(v->type, sizeof(v->type), "%.*s",
			         (int)(dash ? (size_t)(dash - v->name) : name.n), v->name);
	}
}

static int add_vdev(reading *r, nas_span name, nas_span health, vs_error *err)
{
	close_vdev(r);
	nas_layout *l = r->out;
	nas_vdev *v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	l->v = v;
	v[l->n] = (nas_vdev){.name = nas_span_dup(name), .cls = r->cls};
	nas_span_copy(health, v[l->n].health, sizeof(v[l->n].health));
	if (!v[l->n++].name)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	r->open = true;
	r->stand_in = interior(name);
	r->leaves = 0;
	r->interiors = r->stand_in;
	return VS_OK;
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

/* A figure of zpool list: a number, or '-' where it does not apply. */
static bool figure(nas_span f)
{
	uint64_t v;
	return nas_span_is(f, "-") || nas_span_u64(f, &v);
}

static int vdev_line(reading *r, nas_span line, size_t number, vs_error *err)
{
	nas_span f[12];
	uint64_t alloc;
	char health[16];
	size_t n = nas_fields(line, '\t', f, 12);
	if (n != 11 || f[0].n != 0 || f[1].n == 0 || !figure(f[2]) || !figure(f[3]) || f[10].n == 0 ||
	    !nas_span_copy(f[10], health, sizeof(health))) {
		nas_span shown = n > 1 && f[0].n == 0 ? f[1] : f[0];
		return vs_fail(err, VS_ERR_PROTOCOL, "line %zu of zpool list is not a vdev's: '%.*s'",
		               number, (int)(shown.n > 80 ? 80 : shown.n), shown.s);
	}
	/* Cache and spare devices stand alone; elsewhere a vdev with space of
	 * its own, a removed one or the first of its class is top-level. */
	if (r->cls == NAS_CLASS_CACHE || r->cls == NAS_CLASS_SPARE || !r->open ||
	    nas_span_u64(f[3], &alloc) || (type_id(f[1], "indirect") && nas_span_is(f[3], "-")))
		return add_vdev(r, f[1], f[10], err);
	const char *top = r->out->v[r->out->n - 1].name;
	if (type_id((nas_span){top, strlen(top)}, "indirect"))
		return vs_fail(err, VS_ERR_PROTOCOL,
		               "line %zu of zpool list ('%.*s') is under %s, a removed vdev that holds nothing",
		               number, (int)(f[1].n > 80 ? 80 : f[1].n), f[1].s, top);
	if (interior(f[1]))
		r->interiors++;
	else
		r->leaves++;
	return VS_OK;
}

int nas_parse_zpool_list(const char *text, size_t len, nas_layout *out, vs_error *err)
{
	*out = (nas_layout){0};
	int rc = nas_text_check(text, len, "zpool list", err);
	nas_lines lines = nas_lines_of(text, len);
	nas_span line;
	reading r = {.out = out, .cls = NAS_CLASS_DATA};
	while (rc == VS_OK && nas_next_line(&lines, &line)) {
		nas_class cls;
		if (line.n == 0)
			continue;
		if (!out->pool) {
			rc = pool_line(line, out, err);
		} else if (class_line(line, &cls)) {
			close_vdev(&r);
			r.cls = cls;
		} else {
			rc = vdev_line(&r, line, lines.number, err);
		}
	}
	close_vdev(&r);
	if (rc == VS_OK && !out->pool)
		rc = vs_fail(err, VS_ERR_PROTOCOL, "zpool list printed no pool");
	if (rc != VS_OK)
		nas_layout_free(out);
	return rc;
}
