/* VMDK descriptor files ("Virtual Disk Format 1.1" and what ESXi writes).
 *
 * nfsagent reads them to check that each flat extent really holds the bytes
 * its descriptor declares: ESXi 8 over NFS 4.1 has been seen reading back
 * extents shorter than that.  Pure parsing: no I/O, no global state.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nfsagent/vsphere.h"

/* Real descriptors are about 1 KB; anything this big is something else. */
#define VMDK_MAX_BYTES (64 * 1024)
#define SECTOR 512
/* Every count is kept below this so that sectors * 512 never overflows. */
#define MAX_SECTORS (INT64_MAX / SECTOR)

/* Not isspace(): the locale must not change what a descriptor means. */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static char *trim(char *s)
{
	while (is_blank(*s))
		s++;
	size_t n = strlen(s);
	while (n && is_blank(s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* Cuts the next blank-separated token off *s; NULL when none is left. */
static char *next_token(char **s)
{
	char *p = *s;
	while (is_blank(*p))
		p++;
	if (!*p)
		return NULL;
	char *tok = p;
	while (*p && !is_blank(*p))
		p++;
	if (*p)
		*p++ = '\0';
	*s = p;
	return tok;
}

/* Replaces *slot by a copy of value; an empty value counts as absent. */
static int set_str(char **slot, const char *value, vs_error *err)
{
	free(*slot);
	*slot = NULL;
	if (!*value)
		return VS_OK;
	*slot = strdup(value);
	return *slot ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
}

/* Decimal digits only: strtoll would also take "+", "0x" and blanks, none of
 * which VMware writes.  Bounded by MAX_SECTORS so byte counts fit int64. */
static int parse_count(const char *tok, const char *what, unsigned no, int64_t *out,
                       vs_error *err)
{
	const char *digits = tok + (tok[0] == '-'), *p = digits;
	int64_t v = 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (MAX_SECTORS - (*p - '0')) / 10)
			return vs_fail(err, VS_ERR_PROTOCOL,
			               "line %u: %s '%.32s' overflows a 64-bit byte count", no, what, tok);
		v = v * 10 + (*p - '0');
	}
	const char *bad = *p || p == digits ? "is not a number" : tok[0] == '-' ? "is negative" : NULL;
	if (bad)
		return vs_fail(err, VS_ERR_PROTOCOL, "line %u: %s '%.32s' %s", no, what, tok, bad);
	*out = v;
	return VS_OK;
}

/* The header and DDB keys we keep; the rest (version, encoding, geometry,
 * uuid, changeTrackPath, ...) is ignored.  Keys are matched ignoring case:
 * hand-edited descriptors spell them in every way. */
static char **key_slot(vs_vmdk *d, const char *key)
{
	struct { const char *key; char **slot; } keys[] = {
		{"createType", &d->create_type}, {"CID", &d->cid}, {"parentCID", &d->parent_cid},
		{"parentFileNameHint", &d->parent_hint}, {"ddb.adapterType", &d->adapter_type},
	};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcasecmp(key, keys[i].key))
			return keys[i].slot;
	return NULL;
}

static int parse_key_value(vs_vmdk *d, char *line, char *eq, unsigned no, vs_error *err)
{
	*eq = '\0';
	const char *key = trim(line);
	char **slot = key_slot(d, key);
	if (!slot)
		return VS_OK;
	char *v = trim(eq + 1);
	if (*v == '"') {
		char *end = strrchr(v, '"');
		if (end == v)
			return vs_fail(err, VS_ERR_PROTOCOL,
			               "line %u: value of %s has no closing quote (truncated?)", no, key);
		*end = '\0';
		v++;
	}
	return set_str(slot, v, err);
}

static const char *access_mode(const char *tok)
{
	const char *modes[] = {"RW", "RDONLY", "NOACCESS"};
	for (size_t i = 0; tok && i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcasecmp(tok, modes[i]))
			return modes[i];
	return NULL;
}

/* A line that is not key=value is taken for an extent when it starts with an
 * access mode or its second word is a number (so "RX 100 FLAT" is reported,
 * not skipped); other stray text is ignored. */
static bool looks_like_extent(const char *acc, const char *num)
{
	return access_mode(acc) ||
	       (num && ((num[0] >= '0' && num[0] <= '9') || num[0] == '-' || num[0] == '+'));
}

static int add_extent(vs_vmdk *d, const vs_vmdk_extent *e, unsigned no, vs_error *err)
{
	if (e->sectors + e->offset > MAX_SECTORS || d->capacity_sectors > MAX_SECTORS - e->sectors)
		return vs_fail(err, VS_ERR_PROTOCOL, "line %u: extent sizes overflow a 64-bit byte count", no);
	size_t n = d->n_extents;
	if ((n & (n - 1)) == 0) {  /* capacity doubles at each power of two */
		vs_vmdk_extent *grown = realloc(d->extents, (n ? 2 * n : 1) * sizeof(*grown));
		if (!grown)
			return vs_fail(err, VS_ERR_NOMEM, "out of memory");
		d->extents = grown;
	}
	vs_vmdk_extent *x = &d->extents[n];
	*x = (vs_vmdk_extent){.sectors = e->sectors, .offset = e->offset};
	x->access = strdup(e->access);
	x->type = strdup(e->type);
	x->file = e->file ? strdup(e->file) : NULL;
	if (!x->access || !x->type || (e->file && !x->file)) {
		free(x->access), free(x->type), free(x->file);
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	for (char *p = x->type; *p; p++)  /* "vmfs" and "VMFS" are one type */
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
	d->n_extents++;
	d->capacity_sectors += e->sectors;
	return VS_OK;
}

/* "FILE" [OFFSET] of a non-ZERO extent, between the quotes q1 and q2 (the
 * first and last of the line: VMware does not escape quotes in names). */
static int parse_file_part(char *q1, char *q2, unsigned no, vs_vmdk_extent *e, vs_error *err)
{
	if (!q1)
		return vs_fail(err, VS_ERR_PROTOCOL, "line %u: %.32s extent has no quoted file name",
		               no, e->type);
	if (q2 == q1)
		return vs_fail(err, VS_ERR_PROTOCOL,
		               "line %u: file name has no closing quote (truncated?)", no);
	if (q2 == q1 + 1)
		return vs_fail(err, VS_ERR_PROTOCOL, "line %u: %.32s extent has an empty file name",
		               no, e->type);
	*q2 = '\0';
	e->file = q1 + 1;
	char *rest = q2 + 1;
	const char *off = next_token(&rest);  /* words after the offset are ignored */
	return off ? parse_count(off, "offset", no, &e->offset, err) : VS_OK;
}

/* ACCESS SECTORS TYPE ["FILE" [OFFSET]] */
static int parse_extent(vs_vmdk *d, char *line, unsigned no, vs_error *err)
{
	char *q1 = strchr(line, '"'), *q2 = q1 ? strrchr(line, '"') : NULL;
	if (q1)
		*q1 = '\0';  /* the words before the name are tokenized alone */
	char *rest = line;
	char *acc = next_token(&rest), *num = next_token(&rest), *type = next_token(&rest);
	if (!looks_like_extent(acc, num))
		return VS_OK;
	vs_vmdk_extent e = {.access = (char *)access_mode(acc), .type = type};
	if (!e.access)
		return vs_fail(err, VS_ERR_PROTOCOL,
		               "line %u: bad access mode '%.32s' (expected RW, RDONLY or NOACCESS)", no, acc);
	if (!num)
		return vs_fail(err, VS_ERR_PROTOCOL, "line %u: extent has no sector count", no);
	int rc = parse_count(num, "sector count", no, &e.sectors, err);
	if (rc == VS_OK && !type)
		rc = vs_fail(err, VS_ERR_PROTOCOL, "line %u: extent has no type", no);
	/* A ZERO extent reads as zeroes: no file behind it. */
	if (rc == VS_OK && strcasecmp(type, "ZERO"))
		rc = parse_file_part(q1, q2, no, &e, err);
	return rc == VS_OK ? add_extent(d, &e, no, err) : rc;
}

static int parse_line(vs_vmdk *d, char *line, unsigned no, vs_error *err)
{
	line = trim(line);
	if (!*line || *line == '#')
		return VS_OK;
	char *eq = strchr(line, '='), *quote = strchr(line, '"');
	if (eq && (!quote || eq < quote))  /* an '=' inside a file name is no key */
		return parse_key_value(d, line, eq, no, err);
	return parse_extent(d, line, no, err);
}

/* Lines end in LF, CRLF (edited on Windows) or a lone CR. */
static int parse_lines(vs_vmdk *d, char *text, vs_error *err)
{
	unsigned no = 0;
	for (char *line = text; line;) {
		size_t n = strcspn(line, "\r\n");
		char *next = line[n] ? line + n + 1 + (line[n] == '\r' && line[n + 1] == '\n') : NULL;
		line[n] = '\0';
		int rc = parse_line(d, line, ++no, err);
		if (rc != VS_OK)
			return rc;
		line = next;
	}
	return d->n_extents ? VS_OK
	                    : vs_fail(err, VS_ERR_PROTOCOL, "no extent lines: not a VMDK descriptor");
}

static int check_text(const char *text, size_t len, vs_error *err)
{
	size_t head = len < VMDK_MAX_BYTES ? len : VMDK_MAX_BYTES;
	/* Checked first so that a sparse extent or flat image fetched by
	 * mistake is named as such rather than as "too large". */
	if (head && memchr(text, '\0', head))
		return vs_fail(err, VS_ERR_PROTOCOL, "not a text descriptor (binary data%s)",
		               len >= 4 && !memcmp(text, "KDMV", 4) ? ": a sparse extent header" : "");
	if (len > VMDK_MAX_BYTES)
		return vs_fail(err, VS_ERR_PROTOCOL,
		               "descriptor is %zu bytes, larger than 64 KiB: not a text descriptor", len);
	return VS_OK;
}

int vs_vmdk_parse(const char *text, size_t len, vs_vmdk **out, vs_error *err)
{
	if (!out || (!text && len))
		return vs_fail(err, VS_ERR_USAGE, "vs_vmdk_parse: no descriptor or no result pointer");
	*out = NULL;
	int rc = check_text(text, len, err);
	if (rc != VS_OK)
		return rc;
	/* A NUL-terminated copy that the line parser may cut up in place. */
	char *copy = malloc(len + 1);
	vs_vmdk *d = calloc(1, sizeof(*d));
	if (!copy || !d) {
		free(copy), free(d);
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	if (len)
		memcpy(copy, text, len);
	copy[len] = '\0';
	/* Notepad may put a UTF-8 byte order mark in front. */
	rc = parse_lines(d, copy + (len >= 3 && !memcmp(copy, "\xEF\xBB\xBF", 3) ? 3 : 0), err);
	free(copy);
	if (rc != VS_OK)
		vs_vmdk_free(&d);
	*out = d;
	return rc;
}

void vs_vmdk_free(vs_vmdk **d)
{
	if (!d || !*d)
		return;
	vs_vmdk *v = *d;
	for (size_t i = 0; i < v->n_extents; i++) {
		free(v->extents[i].access);
		free(v->extents[i].type);
		free(v->extents[i].file);
	}
	free(v->extents);
	free(v->create_type), free(v->cid), free(v->parent_cid);
	free(v->parent_hint), free(v->adapter_type);
	free(v);
	*d = NULL;
}

int64_t vs_vmdk_extent_min_bytes(const vs_vmdk_extent *e)
{
	/* Only flat extents have a size fixed by the descriptor: sparse and
	 * delta files grow, ZERO has no file, RDMs map a LUN. */
	if (!e || !e->type || !e->file || (strcasecmp(e->type, "FLAT") && strcasecmp(e->type, "VMFS")))
		return -1;
	/* The struct is public: do not trust a hand-filled one not to overflow. */
	if (e->sectors < 0 || e->offset < 0 || e->sectors > MAX_SECTORS - e->offset)
		return -1;
	return (e->sectors + e->offset) * SECTOR;
}
