/* Named kstats of /proc/spl/kstat/zfs as the SPL of OpenZFS 2.2 prints them
 * (module/os/linux/spl/spl-kstat.c): a line "KID TYPE 0xFLAGS NDATA
 * DATASIZE CRTIME SNAPTIME" (TYPE 1: named), a line "name type data", then
 * one "NAME TYPE VALUE" row each, NAME padded to 31 and TYPE to 4 (4 is
 * uint64, 7 a string, which may hold blanks).  Several files given to one
 * `cat` follow each other, each with its header lines. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "nfsagent/nas.h"

typedef struct block {
	bool is_objset, is_arc, is_zil;
	nas_counters c;
} block;

typedef struct row_field {
	const char *name;
	size_t offset;  /* of a uint64_t in block */
} row_field;

#define F(name, member) {name, offsetof(block, member)}
static const row_field fields[] = {
	F("writes", c.objset.writes),
	F("nwritten", c.objset.nwritten),
	F("reads", c.objset.reads),
	F("nread", c.objset.nread),
	F("hits", c.arc.hits),
	F("misses", c.arc.misses),
	F("demand_data_hits", c.arc.demand_data_hits),
	F("demand_data_misses", c.arc.demand_data_misses),
	F("size", c.arc.size),
	F("c_max", c.arc.c_max),
	F("zil_commit_count", c.zil.commit_count),
	F("zil_itx_count", c.zil.itx_count),
	F("zil_itx_metaslab_normal_bytes", c.zil.normal_bytes),
	F("zil_itx_metaslab_slog_bytes", c.zil.slog_bytes),
};
#undef F

/* "KID TYPE 0xFLAGS NDATA DATASIZE CRTIME SNAPTIME" of a named kstat. */
static bool header_line(nas_span line, bool *named, uint64_t *snaptime)
{
	nas_span f[8];
	uint64_t v;
	if (nas_fields(line, ' ', f, 8) != 7 || f[2].n < 3 || memcmp(f[2].s, "0x", 2) != 0)
		return false;
	for (int i = 0; i < 7; i++)
		if (i != 2 && !nas_span_u64(f[i], &v))
			return false;
	*named = nas_span_is(f[1], "1");
	nas_span_u64(f[6], snaptime);
	return true;
}

static int row(block *b, nas_span line, size_t number, vs_error *err)
{
	nas_span f[3];
	uint64_t type, value;
	if (nas_fields(line, ' ', f, 3) != 3 || !nas_span_u64(f[1], &type))
		return vs_fail(err, VS_ERR_PROTOCOL, "line %zu of the kstats is not NAME TYPE VALUE",
		               number);
	if (nas_span_is(f[0], "dataset_name")) {
		b->is_objset = true;
		if (!nas_span_copy(f[2], b->c.objset.dataset, sizeof(b->c.objset.dataset)))
			return vs_fail(err, VS_ERR_PROTOCOL, "line %zu: dataset_name is too long", number);
		return VS_OK;
	}
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (!nas_span_is(f[0], fields[i].name))
			continue;
		if (type != 4 || !nas_span_u64(f[2], &value))
			return vs_fail(err, VS_ERR_PROTOCOL, "line %zu: %s is not a uint64", number,
			               fields[i].name);
		memcpy((char *)b + fields[i].offset, &value, sizeof(value));
		b->is_arc |= strcmp(fields[i].name, "c_max") == 0;
		b->is_zil |= strcmp(fields[i].name, "zil_commit_count") == 0;
	}
	return VS_OK;
}

/* Keeps what a finished block was (the first of each kind). */
static void keep(const block *b, nas_counters *out)
{
	if (b->is_objset && !out->objset.found) {
		out->objset = b->c.objset;
		out->objset.found = true;
	} else if (b->is_arc && !out->arc.found) {
		out->arc = b->c.arc;
		out->arc.found = true;
	} else if (b->is_zil && !b->is_objset && !out->zil.found) {
		out->zil = b->c.zil;
		out->zil.found = true;
	}
}

int nas_parse_kstats(const char *text, size_t len, nas_counters *out, vs_error *err)
{
	*out = (nas_counters){0};
	int rc = nas_text_check(text, len, "cat of the kstats", err);
	nas_lines lines = nas_lines_of(text, len);
	nas_span line;
	block b = {0};
	bool in_block = false, want_titles = false, named = false;
	uint64_t snaptime = 0;
	while (rc == VS_OK && nas_next_line(&lines, &line)) {
		if (want_titles) {
			nas_span f[4];
			if (nas_fields(line, ' ', f, 4) != 3 || !nas_span_is(f[0], "name") ||
			    !nas_span_is(f[1], "type") || !nas_span_is(f[2], "data"))
				rc = vs_fail(err, VS_ERR_PROTOCOL, "line %zu of the kstats is not 'name type data'",
				             lines.number);
			want_titles = false;
		} else if (header_line(line, &named, &snaptime)) {
			if (in_block)
				keep(&b, out);
			if (!named)
				rc = vs_fail(err, VS_ERR_PROTOCOL, "line %zu: not a named kstat", lines.number);
			b = (block){0};
			in_block = want_titles = true;
		} else if (!in_block) {
			rc = vs_fail(err, VS_ERR_PROTOCOL, "the kstats do not begin with a kstat header");
		} else if (line.n) {
			rc = row(&b, line, lines.number, err);
		}
	}
	if (rc == VS_OK && (!in_block || want_titles))
		rc = vs_fail(err, VS_ERR_PROTOCOL, "no kstat rows");
	if (rc == VS_OK) {
		keep(&b, out);
		out->snaptime = snaptime;
	} else {
		*out = (nas_counters){0};
	}
	return rc;
}

/* `date +%s.%N`: seconds, a dot, nanoseconds. */
static bool stamp_line(nas_span line, double *at)
{
	size_t dot = 0;
	while (dot < line.n && line.s[dot] != '.')
		dot++;
	uint64_t secs, nanos;
	if (dot == 0 || dot + 1 >= line.n || line.n - dot - 1 > 9 ||
	    !nas_span_u64((nas_span){line.s, dot}, &secs) ||
	    !nas_span_u64((nas_span){line.s + dot + 1, line.n - dot - 1}, &nanos))
		return false;
	double frac = (double)nanos;
	for (size_t k = line.n - dot - 1; k > 0; k--)
		frac /= 10;
	*at = (double)secs + frac;
	return true;
}

/* Where the txgs begin in [from, end), else end: their titles line, or
 * the kstat header of a raw kstat before it (ZoL 0.7's form, not read: it
 * costs the txgs alone, never the reading's kstats). */
static const char *txgs_titles(const char *from, const char *end)
{
	nas_lines lines = nas_lines_of(from, (size_t)(end - from));
	nas_span line, f[8], before = {NULL, 0};
	while (nas_next_line(&lines, &line)) {
		if (nas_fields(line, ' ', f, 2) == 2 && nas_span_is(f[0], "txg"))
			return before.s && nas_fields(before, ' ', f, 8) == 7 ? before.s : line.s;
		before = line;
	}
	return end;
}

/* The txgs of reading r, from what follows its kstats; one that cannot be
 * read costs them alone: the first such failure is said in why. */
static int reading_txgs(const char *titles, const char *end, nas_reading *r, nas_readings *out,
                        vs_error *err)
{
	vs_error e = {0};
	int rc = nas_parse_txgs(titles, (size_t)(end - titles), &r->txgs, &e);
	if (rc == VS_ERR_NOMEM)
		*err = e;
	else if (rc != VS_OK && !out->txgs_why[0])
		vs_error_format(&e, out->txgs_why, sizeof(out->txgs_why));
	return rc == VS_ERR_NOMEM ? rc : VS_OK;
}

int nas_parse_kstat_series(const char *text, size_t len, nas_readings *out, vs_error *err)
{
	*out = (nas_readings){0};
	int rc = nas_text_check(text, len, "the kstats' readings", err);
	nas_lines lines = nas_lines_of(text, len);
	nas_span line;
	const char *from = text;  /* where the reading in progress begins */
	while (rc == VS_OK && nas_next_line(&lines, &line)) {
		double at;
		/* The loop's own words between readings (nas_counters_job) */
		if (nas_span_is(line, NAS_FIRST_READING) || nas_span_is(line, NAS_LAST_READING)) {
			from = lines.p;
			continue;
		}
		/* A stamp cut short by the stop has no newline yet: not one. */
		if (lines.p[-1] != '\n' || !stamp_line(line, &at))
			continue;
		nas_reading r = {.at = at};
		const char *titles = txgs_titles(from, line.s);
		rc = nas_parse_kstats(from, (size_t)(titles - from), &r.c, err);
		if (rc == VS_OK && (!r.c.objset.found || !r.c.arc.found || !r.c.zil.found))
			rc = vs_fail(err, VS_ERR_PROTOCOL, "a reading lacks arcstats, zil or the objset's");
		if (rc == VS_OK && titles < line.s)
			rc = reading_txgs(titles, line.s, &r, out, err);
		nas_reading *v = rc == VS_OK ? realloc(out->v, (out->n + 1) * sizeof(*v)) : NULL;
		if (rc == VS_OK && !v)
			rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
		if (rc == VS_OK) {
			out->v = v;
			out->v[out->n++] = r;
		} else {
			nas_txgs_free(&r.txgs);
		}
		from = lines.p;
		if (rc != VS_OK)
			vs_error_context(err, "reading %zu (before line %zu)", out->n + 1, lines.number);
	}
	if (rc != VS_OK)
		nas_readings_free(out);
	return rc;
}

void nas_readings_free(nas_readings *r)
{
	for (size_t i = 0; i < r->n; i++)
		nas_txgs_free(&r->v[i].txgs);
	free(r->v);
	*r = (nas_readings){0};
}
