/* fio's per-interval logs.  fio writes every field as an unsigned integer
 * followed by ", " (stat.c, iolog.c); anything else here means a truncated,
 * mixed-up or foreign file, which must not be cut into a group's window. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fio_logs.h"

enum {
	SAMPLE_MIN_FIELDS = 5,  /* msec, value, direction, blocksize, offset */
	SAMPLE_MAX_FIELDS = 7,  /* and priority, issue time (log_issue_time) */
	HIST_HEAD = 3,          /* msec, direction, blocksize before the buckets */
};

typedef struct lines {
	const char *p, *end;
	size_t no;              /* the number of the line last returned, from 1 */
} lines;

/* The next line without its "\n" (nor a "\r" before it); false at the end. */
static bool next_line(lines *it, const char **line, size_t *len)
{
	if (it->p >= it->end)
		return false;
	const char *nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
	const char *stop = nl ? nl : it->end;
	*line = it->p;
	*len = (size_t)(stop - it->p);
	if (*len && (*line)[*len - 1] == '\r')
		(*len)--;
	it->p = nl ? nl + 1 : it->end;
	it->no++;
	return true;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Reads comma-separated unsigned integers into out[max]: their number, or -1
 * when the line is anything else or holds more than max. */
static long fields(const char *s, size_t len, int64_t *out, size_t max)
{
	size_t i = 0, n = 0;
	for (;;) {
		while (i < len && blank(s[i]))
			i++;
		if (i == len || s[i] < '0' || s[i] > '9' || n == max)
			return -1;
		int64_t v = 0;
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
			if (v > (INT64_MAX - (s[i] - '0')) / 10)
				return -1;
			v = v * 10 + (s[i] - '0');
		}
		out[n++] = v;
		while (i < len && blank(s[i]))
			i++;
		if (i == len)
			return (long)n;
		if (s[i++] != ',')
			return -1;
	}
}

/* The window is cut by time, so a log whose time goes back within a
 * direction (two logs concatenated, a clock change) cannot be cut. */
static int check_time(int64_t last[NA_FIO_DIRS], int64_t dir, int64_t t, const char *what,
                      size_t no, vs_error *err)
{
	if (dir >= NA_FIO_DIRS)
		return vs_fail(err, VS_ERR_PROTOCOL, "fio's %s, line %zu: direction %lld is not 0, 1 or 2",
		               what, no, (long long)dir);
	if (t > NA_FIO_LOG_MAX_MS)
		return vs_fail(err, VS_ERR_PROTOCOL, "fio's %s, line %zu: time %lld ms is past any clock",
		               what, no, (long long)t);
	if (t < last[dir])
		return vs_fail(err, VS_ERR_PROTOCOL, "fio's %s, line %zu: time %lld ms goes back from %lld ms",
		               what, no, (long long)t, (long long)last[dir]);
	last[dir] = t;
	return VS_OK;
}

static int grow(na_fio_log *log, size_t *cap)
{
	if (log->n < *cap)
		return VS_OK;
	size_t want = *cap ? *cap * 2 : 64;
	na_fio_sample *s = realloc(log->s, want * sizeof(*s));
	if (!s)
		return VS_ERR_NOMEM;
	log->s = s;
	*cap = want;
	return VS_OK;
}

static int parse_sample(const char *line, size_t len, size_t no, int64_t last[NA_FIO_DIRS],
                        na_fio_sample *s, vs_error *err)
{
	int64_t f[SAMPLE_MAX_FIELDS];
	long n = fields(line, len, f, SAMPLE_MAX_FIELDS);
	if (n < SAMPLE_MIN_FIELDS)
		return vs_fail(err, VS_ERR_PROTOCOL, "fio's IOPS or bandwidth log, line %zu: not "
		               "\"msec, value, direction, blocksize, offset\" in unsigned integers", no);
	int rc = check_time(last, f[2], f[0], "IOPS or bandwidth log", no, err);
	*s = (na_fio_sample){.t_ms = f[0], .value = f[1], .dir = (int)(rc == VS_OK ? f[2] : 0)};
	return rc;
}

int na_fio_log_parse(const char *text, size_t len, na_fio_log *out, vs_error *err)
{
	*out = (na_fio_log){0};
	lines it = {text, text + len, 0};
	int64_t last[NA_FIO_DIRS] = {0, 0, 0};
	size_t cap = 0;
	const char *line;
	size_t n;
	while (next_line(&it, &line, &n)) {
		if (out->n == NA_FIO_LOG_MAX_SAMPLES)
			return vs_fail(err, VS_ERR_PROTOCOL, "fio's IOPS or bandwidth log, line %zu: more than "
			               "%zu samples; use a longer log_avg_msec", it.no, NA_FIO_LOG_MAX_SAMPLES);
		if (grow(out, &cap) != VS_OK)
			return vs_fail(err, VS_ERR_NOMEM, "out of memory reading fio's IOPS or bandwidth log");
		int rc = parse_sample(line, n, it.no, last, &out->s[out->n], err);
		if (rc != VS_OK)
			return rc;
		out->n++;
	}
	return out->n ? VS_OK : vs_fail(err, VS_ERR_PROTOCOL, "fio's IOPS or bandwidth log is empty");
}

void na_fio_log_clear(na_fio_log *log)
{
	free(log->s);
	*log = (na_fio_log){0};
}

/* The coarseness whose bucket count is n, or -1 if none is. */
static int coarseness_of(long n)
{
	for (int c = 0; c <= NA_FIO_MAX_COARSENESS; c++)
		if (n == NA_FIO_PLAT_NR >> c)
			return c;
	return -1;
}

/* The first line fixes the layout every later line must have. */
static int hist_layout(na_fio_hist_log *h, long n_buckets, size_t no, vs_error *err)
{
	int c = coarseness_of(n_buckets);
	if (h->n && (size_t)n_buckets == h->n_bins)
		return VS_OK;
	if (h->n)
		return vs_fail(err, VS_ERR_PROTOCOL, "fio's histogram log, line %zu: %ld buckets where the "
		               "lines before have %zu", no, n_buckets, h->n_bins);
	if (c < 0)
		return vs_fail(err, VS_ERR_PROTOCOL, "fio's histogram log, line %zu: %ld buckets, not fio 3's "
		               "%d halved 0 to 6 times (log_hist_coarseness)", no, n_buckets, NA_FIO_PLAT_NR);
	h->coarseness = c;
	h->n_bins = (size_t)n_buckets;
	return VS_OK;
}

/* Room for one more line: the three arrays grow together, never past the bound. */
static int hist_grow(na_fio_hist_log *h, size_t *cap, size_t no, vs_error *err)
{
	size_t max_lines = NA_FIO_HIST_MAX_CELLS / h->n_bins;
	if (h->n == max_lines)
		return vs_fail(err, VS_ERR_PROTOCOL, "fio's histogram log, line %zu: more than %zu buckets "
		               "in all; use a longer log_hist_msec or a coarser log_hist_coarseness",
		               no, NA_FIO_HIST_MAX_CELLS);
	if (h->n < *cap)
		return VS_OK;
	size_t want = *cap ? *cap * 2 : 64;
	if (want > max_lines)
		want = max_lines;
	int64_t *t = realloc(h->t_ms, want * sizeof(*t));
	if (t)
		h->t_ms = t;
	int *d = realloc(h->dir, want * sizeof(*d));
	if (d)
		h->dir = d;
	uint32_t *c = realloc(h->counts, want * h->n_bins * sizeof(*c));
	if (c)
		h->counts = c;
	if (!t || !d || !c)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory reading fio's histogram log");
	*cap = want;
	return VS_OK;
}

static int hist_line(na_fio_hist_log *h, const int64_t *f, long n, size_t *cap, size_t no,
                     int64_t last[NA_FIO_DIRS], vs_error *err)
{
	if (n < HIST_HEAD + 1)
		return vs_fail(err, VS_ERR_PROTOCOL, "fio's histogram log, line %zu: not \"msec, direction, "
		               "blocksize, bucket0, ...\" in unsigned integers", no);
	int rc = hist_layout(h, n - HIST_HEAD, no, err);
	if (rc == VS_OK)
		rc = check_time(last, f[1], f[0], "histogram log", no, err);
	if (rc == VS_OK)
		rc = hist_grow(h, cap, no, err);
	if (rc != VS_OK)
		return rc;
	uint32_t *row = h->counts + h->n * h->n_bins;
	for (size_t i = 0; i < h->n_bins; i++) {
		if (f[HIST_HEAD + i] > UINT32_MAX)
			return vs_fail(err, VS_ERR_PROTOCOL, "fio's histogram log, line %zu: bucket %zu counts "
			               "%lld completions in one interval", no, i, (long long)f[HIST_HEAD + i]);
		row[i] = (uint32_t)f[HIST_HEAD + i];
	}
	h->t_ms[h->n] = f[0];
	h->dir[h->n] = (int)f[1];
	int64_t *bs = &h->bs[f[1]];
	*bs = f[2] > 0 && (!*bs || *bs == f[2]) ? f[2] : -1;
	h->n++;
	return VS_OK;
}

int na_fio_hist_parse(const char *text, size_t len, na_fio_hist_log *out, vs_error *err)
{
	*out = (na_fio_hist_log){0};
	int64_t *f = malloc((HIST_HEAD + NA_FIO_PLAT_NR) * sizeof(*f));
	if (!f)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory reading fio's histogram log");
	lines it = {text, text + len, 0};
	int64_t last[NA_FIO_DIRS] = {0, 0, 0};
	size_t cap = 0, n;
	const char *line;
	int rc = VS_OK;
	while (rc == VS_OK && next_line(&it, &line, &n))
		rc = hist_line(out, f, fields(line, n, f, HIST_HEAD + NA_FIO_PLAT_NR), &cap, it.no, last, err);
	free(f);
	if (rc == VS_OK && !out->n)
		rc = vs_fail(err, VS_ERR_PROTOCOL, "fio's histogram log is empty");
	return rc;
}

void na_fio_hist_clear(na_fio_hist_log *h)
{
	free(h->t_ms);
	free(h->dir);
	free(h->counts);
	*h = (na_fio_hist_log){0};
}

/* fio's plat_idx_to_val: below 2 * 2^6 ns a bucket is 1 ns wide and stands
 * for itself; above, group g's buckets are 2^(g-1) ns wide from 2^(g+5) ns,
 * and fio takes the middle, base + (k + 0.5) * width: (2k + 1) * width / 2,
 * a whole number since width >= 2 there. */
static int64_t plat_val(size_t idx)
{
	if (idx < 2 * NA_FIO_PLAT_VAL)
		return (int64_t)idx;
	unsigned error_bits = (unsigned)(idx >> NA_FIO_PLAT_BITS) - 1;
	int64_t base = (int64_t)1 << (error_bits + NA_FIO_PLAT_BITS);
	int64_t k = (int64_t)(idx % NA_FIO_PLAT_VAL);
	return base + ((2 * k + 1) << (error_bits - 1));
}

int64_t na_fio_hist_bucket_ns(size_t i, int coarseness)
{
	if (coarseness < 0 || coarseness > NA_FIO_MAX_COARSENESS || i >= (size_t)(NA_FIO_PLAT_NR >> coarseness))
		return -1;
	size_t m = (size_t)1 << coarseness;
	int64_t sum = 0;
	for (size_t j = i * m; j < (i + 1) * m; j++)
		sum += plat_val(j);
	return sum / (int64_t)m;
}

void na_fio_logs_clear(na_fio_logs *l)
{
	na_fio_log_clear(&l->bw);
	na_fio_hist_clear(&l->hist);
}
