/* ZFS names, and the tables `zfs list -Hp` and `zfs get -Hp` print (one
 * row a line, columns separated by one tab, exact numbers). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "nfsagent/nas.h"

/* zfs_namecheck.c's valid_char without the blank: ssh joins the remote
 * words with blanks, so a name holding one would reach zfs as two. */
static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c == '.' || c == ':';
}

bool nas_name_ok(const char *name, bool pool_only)
{
	size_t len = strlen(name), pool_len = strcspn(name, "/");
	/* ZFS_MAX_DATASET_NAME_LEN, and the pool's room for "/$ORIGIN@$ORIGIN". */
	if (len == 0 || len >= 256 || pool_len >= 256 - 2 - 14 || (pool_only && name[pool_len]))
		return false;
	if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z')))
		return false;
	static const char *const reserved[] = {"mirror", "raidz", "draid"};
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (pool_len == strlen(reserved[i]) && strncmp(name, reserved[i], pool_len) == 0)
			return false;
	for (const char *c = name; *c;) {
		size_t n = strcspn(c, "/");
		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		for (size_t i = 0; i < n; i++)
			if (!name_char(c[i]))
				return false;
		c += n;
		if (*c == '/' && !*++c)
			return false;
	}
	return true;
}

/* ---- zfs list -Hp -o name,mountpoint ----------------------------------- */

void nas_datasets_free(nas_datasets *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].mountpoint);
	}
	free(l->v);
	*l = (nas_datasets){0};
}

static int add_dataset(nas_datasets *l, size_t *cap, nas_span name, nas_span mountpoint,
                       vs_error *err)
{
	if (l->n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		nas_dataset *v = realloc(l->v, c * sizeof(*v));
		if (!v)
			return vs_fail(err, VS_ERR_NOMEM, "out of memory");
		l->v = v;
		*cap = c;
	}
	nas_dataset *d = &l->v[l->n];
	d->name = nas_span_dup(name);
	d->mountpoint = nas_span_dup(mountpoint);
	l->n++;
	return d->name && d->mountpoint ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
}

int nas_parse_zfs_list(const char *text, size_t len, nas_datasets *out, vs_error *err)
{
	*out = (nas_datasets){0};
	int rc = nas_text_check(text, len, "zfs list", err);
	size_t cap = 0;
	nas_lines lines = nas_lines_of(text, len);
	nas_span line, f[3];
	while (rc == VS_OK && nas_next_line(&lines, &line)) {
		if (line.n == 0)
			continue;
		if (nas_fields(line, '\t', f, 3) != 2 || f[0].n == 0 || f[1].n == 0)
			rc = vs_fail(err, VS_ERR_PROTOCOL,
			             "line %zu of zfs list is not NAME<tab>MOUNTPOINT", lines.number);
		else
			rc = add_dataset(out, &cap, f[0], f[1], err);
	}
	if (rc != VS_OK)
		nas_datasets_free(out);
	return rc;
}

/* The length of a mountpoint without its trailing slashes ("/" stays 1). */
static size_t mount_len(const char *mp)
{
	size_t n = strlen(mp);
	while (n > 1 && mp[n - 1] == '/')
		n--;
	return n;
}

const nas_dataset *nas_dataset_for_path(const nas_datasets *l, const char *path)
{
	const nas_dataset *best = NULL;
	size_t best_len = 0, plen = mount_len(path);
	for (size_t i = 0; i < l->n; i++) {
		const char *mp = l->v[i].mountpoint;
		size_t m = mount_len(mp);
		/* "none", "legacy" and a volume's "-" are no directory. */
		if (mp[0] != '/' || m > plen || strncmp(path, mp, m) != 0)
			continue;
		bool below = m == plen || path[m] == '/' || m == 1;
		if (below && (!best || m > best_len)) {
			best = &l->v[i];
			best_len = m;
		}
	}
	return best;
}

/* ---- zfs get -Hp -o property,value LIST DATASET ------------------------ */

const char nas_zfs_get_list[] =
	"recordsize,sync,compression,atime,logbias,primarycache,special_small_blocks,objsetid";

enum { P_RECORDSIZE, P_SYNC, P_COMPRESSION, P_ATIME, P_LOGBIAS, P_PRIMARYCACHE, P_SMALL,
       P_OBJSETID, P_N };

static const char *const prop_names[P_N] = {
	"recordsize", "sync", "compression", "atime", "logbias", "primarycache",
	"special_small_blocks", "objsetid",
};

static bool set_prop(nas_props *p, int which, nas_span v)
{
	uint64_t n;
	switch (which) {
	case P_RECORDSIZE:
		if (!nas_span_u64(v, &n) || n == 0 || n > (16u << 20))
			return false;
		p->recordsize = (int64_t)n;
		return true;
	case P_SMALL:
		if (!nas_span_u64(v, &n) || n > (16u << 20))
			return false;
		p->special_small_blocks = (int64_t)n;
		return true;
	case P_OBJSETID:
		return nas_span_u64(v, &p->objsetid);
	case P_SYNC: return v.n && nas_span_copy(v, p->sync, sizeof(p->sync));
	case P_COMPRESSION: return v.n && nas_span_copy(v, p->compression, sizeof(p->compression));
	case P_ATIME: return v.n && nas_span_copy(v, p->atime, sizeof(p->atime));
	case P_LOGBIAS: return v.n && nas_span_copy(v, p->logbias, sizeof(p->logbias));
	default: return v.n && nas_span_copy(v, p->primarycache, sizeof(p->primarycache));
	}
}

int nas_parse_zfs_get(const char *text, size_t len, nas_props *out, vs_error *err)
{
	*out = (nas_props){0};
	int rc = nas_text_check(text, len, "zfs get", err);
	bool seen[P_N] = {false};
	nas_lines lines = nas_lines_of(text, len);
	nas_span line, f[3];
	while (rc == VS_OK && nas_next_line(&lines, &line)) {
		if (line.n == 0)
			continue;
		if (nas_fields(line, '\t', f, 3) != 2) {
			rc = vs_fail(err, VS_ERR_PROTOCOL, "line %zu of zfs get is not PROPERTY<tab>VALUE",
			             lines.number);
			break;
		}
		for (int i = 0; i < P_N; i++) {
			if (!nas_span_is(f[0], prop_names[i]))
				continue;
			if (!set_prop(out, i, f[1]))
				rc = vs_fail(err, VS_ERR_PROTOCOL, "zfs get: %s is '%.*s'", prop_names[i],
				             (int)(f[1].n > 64 ? 64 : f[1].n), f[1].s);
			seen[i] = true;
		}
	}
	for (int i = 0; rc == VS_OK && i < P_N; i++)
		if (!seen[i])
			rc = vs_fail(err, VS_ERR_PROTOCOL, "zfs get printed no %s", prop_names[i]);
	return rc;
}
