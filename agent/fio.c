/* fio's JSON output, reduced per direction.  Tail latency is combined the only
 * sound way: by summing fio's histograms (json+ "bins") and reading the
 * percentile off the sum, never by averaging per-job or per-VM percentiles. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"

enum { N_PCTS = 4 };
/* What the tables report, as fio names them in clat_ns.percentile ("%f"). */
static const double PCTS[N_PCTS] = {50.0, 95.0, 99.0, 99.9};
static const char *const PCT_KEYS[N_PCTS] = {"50.000000", "95.000000", "99.000000", "99.900000"};

typedef struct bin {
	int64_t ns, count;
} bin;

static double *pct(na_fio_dir *d, size_t i)
{
	double *slots[N_PCTS] = {&d->p50_us, &d->p95_us, &d->p99_us, &d->p999_us};
	return slots[i];
}

static void dir_init(na_fio_dir *d)
{
	memset(d, 0, sizeof(*d));
	for (size_t i = 0; i < N_PCTS; i++)
		*pct(d, i) = -1;
}

static void bins_free(na_fio_dir *d)
{
	free(d->bin_ns);
	free(d->bin_count);
	d->bin_ns = d->bin_count = NULL;
	d->n_bins = 0;
}

void na_fio_dir_clear(na_fio_dir *d)
{
	bins_free(d);
	dir_init(d);
}

/* fio (stat.c, calc_clat_percentiles) walks its buckets upwards and reports
 * the first whose cumulative count reaches p% of the total; the bins' keys are
 * already the values it reports (plat_idx_to_val, the middle of a bucket),
 * and empty buckets, which "bins" leaves out, never reach it first.  Where p%
 * of the total is a whole number, rounding decides, and the source is not the
 * whole story: it says (long double)p / 100.0 * total, but fio is built with
 * -ffast-math (its Makefile's OPTFLAGS), and Debian's x86-64 fio 3.33 computes
 * p * (total * 0.01L) on the x87 (64-bit significands, rounding to nearest
 * even).  With 25 I/Os its p60 is then the 15th, not the 16th; and as the
 * double 99.9 is a hair above 99.9, p99.9 of 1000 I/Os is the 1000th.  We do
 * the same arithmetic in integers, so the answer is fio's on any machine and
 * under valgrind, whose x87 keeps only double precision. */
__extension__ typedef unsigned __int128 u128;

typedef struct x87 {  /* mant * 2^exp, mant's top bit set */
	uint64_t mant;
	int exp;
} x87;

/* v * 2^scale (v > 0) rounded to a 64-bit significand, to nearest even. */
static x87 x87_round(u128 v, int scale)
{
	uint64_t hi = (uint64_t)(v >> 64);
	int lz = hi ? __builtin_clzll(hi) : 64 + __builtin_clzll((uint64_t)v);
	v <<= lz;
	uint64_t mant = (uint64_t)(v >> 64), rest = (uint64_t)v;
	scale += 64 - lz;
	if ((rest > 1ULL << 63 || (rest == 1ULL << 63 && (mant & 1))) && ++mant == 0) {
		mant = 1ULL << 63;
		scale++;
	}
	return (x87){mant, scale};
}

/* p * (total * 0.01L), p a normal positive double. */
static x87 fio_threshold(double p, unsigned long long total)
{
	uint64_t bits;
	memcpy(&bits, &p, sizeof(bits));
	uint64_t mp = (bits & ((1ULL << 52) - 1)) | 1ULL << 52;  /* p = mp * 2^(e - 1075) */
	int e = (int)(bits >> 52 & 0x7ff);
	x87 hundredth = x87_round((u128)total * 0xA3D70A3D70A3D70AULL, -70);  /* 0.01L */
	return x87_round((u128)hundredth.mant * mp, hundredth.exp + e - 1075);
}

static bool reaches(unsigned long long sum, x87 t)
{
	if (t.exp >= 0)
		return t.exp == 0 && sum >= t.mant;
	if (t.exp <= -64)
		return sum > 0;  /* t < 1 */
	return ((u128)sum << -t.exp) >= t.mant;
}

double na_fio_bins_percentile(const int64_t *bin_ns, const int64_t *bin_count, size_t n, double p)
{
	unsigned long long total = 0, sum = 0;
	if (!bin_ns || !bin_count || !(p >= 1e-300 && p <= 100.0))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (bin_count[i] > 0)
			total += (unsigned long long)bin_count[i];
	if (!total)
		return -1;
	x87 want = fio_threshold(p, total);
	for (size_t i = 0; i < n; i++) {
		if (bin_count[i] <= 0)
			continue;
		sum += (unsigned long long)bin_count[i];
		if (reaches(sum, want))
			return (double)bin_ns[i] / 1000.0;
	}
	return -1;
}

void na_fio_dir_pcts_from_bins(na_fio_dir *d)
{
	for (size_t i = 0; i < N_PCTS; i++)
		*pct(d, i) = na_fio_bins_percentile(d->bin_ns, d->bin_count, d->n_bins, PCTS[i]);
}

static void pcts_from_fio(na_fio_dir *d, const json_t *percentile)
{
	for (size_t i = 0; i < N_PCTS; i++) {
		json_t *x = json_object_get(percentile, PCT_KEYS[i]);
		*pct(d, i) = json_is_integer(x) && json_integer_value(x) >= 0 ?
		             (double)json_integer_value(x) / 1000.0 : -1;
	}
}

static int bin_cmp(const void *a, const void *b)
{
	const bin *x = a, *y = b;
	return (x->ns > y->ns) - (x->ns < y->ns);
}

/* Sorts v (n > 0) by value into d's bins, adding up equal values: "7" and
 * "07" are one bucket, and merging relies on it. */
static int bins_store(na_fio_dir *d, bin *v, size_t n, vs_error *err)
{
	int64_t *ns = malloc(n * sizeof(*ns)), *count = malloc(n * sizeof(*count));
	size_t k = 0;
	if (!ns || !count) {
		free(ns);
		free(count);
		return vs_fail(err, VS_ERR_NOMEM, "out of memory for %zu latency bins", n);
	}
	qsort(v, n, sizeof(*v), bin_cmp);
	for (size_t i = 0; i < n; i++) {
		if (k && ns[k - 1] == v[i].ns) {
			if (!__builtin_add_overflow(count[k - 1], v[i].count, &count[k - 1]))
				continue;
			free(ns);
			free(count);
			return vs_fail(err, VS_ERR_PROTOCOL, "the count of latency bin %lld ns overflows",
			               (long long)v[i].ns);
		}
		ns[k] = v[i].ns;
		count[k++] = v[i].count;
	}
	bins_free(d);
	d->bin_ns = ns;
	d->bin_count = count;
	d->n_bins = k;
	return VS_OK;
}

/* A bins key is the bucket's value in ns, printed by fio with %llu. */
static bool bin_key(const char *key, int64_t *ns)
{
	char *end;
	errno = 0;
	*ns = strtoll(key, &end, 10);
	return *key >= '0' && *key <= '9' && errno == 0 && *end == '\0';
}

static int parse_bins(const json_t *bins, na_fio_dir *d, vs_error *err)
{
	size_t n = json_object_size(bins), k = 0;
	const char *key;
	json_t *val;
	if (n == 0)
		return VS_OK;
	bin *v = malloc(n * sizeof(*v));
	if (!v)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory for %zu latency bins", n);
	json_object_foreach((json_t *)bins, key, val) {
		if (!bin_key(key, &v[k].ns) || !json_is_integer(val) || json_integer_value(val) < 0) {
			free(v);
			return vs_fail(err, VS_ERR_PROTOCOL, "fio's latency bin \"%.40s\" is not a bucket "
			               "value in ns with a count", key);
		}
		v[k++].count = json_integer_value(val);
	}
	int rc = bins_store(d, v, n, err);
	free(v);
	return rc;
}

static double num(const json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));  /* 0 if absent */
}

static int64_t i64(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);  /* fio writes counts as integers */
	return json_is_integer(v) ? json_integer_value(v) : 0;
}

/* clat_ns is what fio and admins call latency; lat_ns (submission included)
 * only stands in when fio measured no completion latency (disable_clat). */
static const json_t *latency_of(const json_t *dir)
{
	const json_t *clat = json_object_get(dir, "clat_ns");
	const json_t *lat = json_object_get(dir, "lat_ns");
	if (json_is_object(clat) && (!json_object_get(clat, "N") || i64(clat, "N") > 0))
		return clat;
	return json_is_object(lat) ? lat : clat;
}

static int parse_dir(const json_t *o, na_fio_dir *d, vs_error *err)
{
	dir_init(d);
	if (!json_is_object(o) || i64(o, "total_ios") <= 0)
		return VS_OK;
	d->present = true;
	d->total_ios = i64(o, "total_ios");
	d->runtime_ms = i64(o, "runtime");
	d->iops = num(o, "iops");
	d->bw_bytes = json_object_get(o, "bw_bytes") ? num(o, "bw_bytes") : num(o, "bw") * 1024.0;
	const json_t *lat = latency_of(o);
	d->lat_mean_us = num(lat, "mean") / 1000.0;
	d->max_us = num(lat, "max") / 1000.0;
	pcts_from_fio(d, json_object_get(lat, "percentile"));
	return parse_bins(json_object_get(lat, "bins"), d, err);
}

static void bins_put(bin *v, size_t *k, const na_fio_dir *d)
{
	for (size_t i = 0; i < d->n_bins; i++)
		v[(*k)++] = (bin){d->bin_ns[i], d->bin_count[i]};
}

/* into's bins become a's plus b's (b may be NULL); a and b hold some. */
static int bins_union(na_fio_dir *into, const na_fio_dir *a, const na_fio_dir *b, vs_error *err)
{
	size_t n = a->n_bins + (b ? b->n_bins : 0), k = 0;
	bin *v = malloc(n * sizeof(*v));
	if (!v)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory for %zu latency bins", n);
	bins_put(v, &k, a);
	if (b)
		bins_put(v, &k, b);
	int rc = bins_store(into, v, n, err);
	free(v);
	return rc;
}

static int dir_copy(na_fio_dir *dst, const na_fio_dir *src, vs_error *err)
{
	na_fio_dir d = *src;
	d.bin_ns = d.bin_count = NULL;
	d.n_bins = 0;
	if (src->n_bins) {
		int rc = bins_union(&d, src, NULL, err);
		if (rc != VS_OK)
			return rc;
		na_fio_dir_pcts_from_bins(&d);
	}
	bins_free(dst);
	*dst = d;
	return VS_OK;
}

int na_fio_dir_merge(na_fio_dir *dst, const na_fio_dir *src, vs_error *err)
{
	int64_t ios;
	if (!src->present)
		return VS_OK;
	if (!dst->present)
		return dir_copy(dst, src, err);
	if (__builtin_add_overflow(dst->total_ios, src->total_ios, &ios))
		return vs_fail(err, VS_ERR_PROTOCOL, "the total of fio's I/O counts overflows");
	/* Only a histogram covering every I/O gives a true merged percentile. */
	int rc = dst->n_bins && src->n_bins ? bins_union(dst, dst, src, err) : VS_OK;
	if (rc != VS_OK)
		return rc;
	if (!src->n_bins)
		bins_free(dst);
	dst->lat_mean_us = (dst->lat_mean_us * (double)dst->total_ios +
	                    src->lat_mean_us * (double)src->total_ios) / (double)ios;
	dst->total_ios = ios;
	dst->iops += src->iops;
	dst->bw_bytes += src->bw_bytes;
	if (src->max_us > dst->max_us)
		dst->max_us = src->max_us;
	if (src->runtime_ms > dst->runtime_ms)
		dst->runtime_ms = src->runtime_ms;
	na_fio_dir_pcts_from_bins(dst);
	return VS_OK;
}

static int bad_json(const json_error_t *je, size_t at, size_t done, vs_error *err)
{
	const char *what = json_error_code(je) == json_error_premature_end_of_input ?
	                   "is truncated" : "is not valid JSON";
	return vs_fail(err, VS_ERR_PROTOCOL, "fio's output %s (byte %zu: %s)%s", what,
	               at + (size_t)(je->position > 0 ? je->position : 0), je->text,
	               done ? "; the complete objects before it are only interim reports" : "");
}

/* fio may print errors before its JSON and, with --status-interval, several
 * objects one after another: the last one is the result. */
static int last_object(const char *text, size_t len, json_t **root, vs_error *err)
{
	const char *p = len ? memchr(text, '{', len) : NULL;
	size_t done = 0;
	if (len >= INT_MAX)  /* jansson reports positions as int */
		return vs_fail(err, VS_ERR_PROTOCOL, "fio's output is too large (%zu bytes)", len);
	if (!p)
		return vs_fail(err, VS_ERR_PROTOCOL, "fio's output holds no JSON object (%zu bytes)", len);
	while (p) {
		size_t off = (size_t)(p - text);
		json_error_t je;
		json_t *obj = json_loadb(p, len - off, JSON_DISABLE_EOF_CHECK, &je);
		if (!obj)
			return bad_json(&je, off, done, err);
		json_decref(*root);
		*root = obj;
		done++;
		off += je.position > 0 ? (size_t)je.position : 1;
		p = off < len ? memchr(text + off, '{', len - off) : NULL;
	}
	return VS_OK;
}

static int parse_job(const json_t *job, size_t i, na_fio_result *out, bool seen[2], vs_error *err)
{
	static const char *const names[] = {"read", "write", "mixed"};
	na_fio_dir *dirs[] = {&out->read, &out->write, &out->mixed_dir};
	if (!json_is_object(job))
		return vs_fail(err, VS_ERR_PROTOCOL, "fio's job %zu is not a JSON object", i + 1);
	for (size_t k = 0; k < 3; k++) {
		na_fio_dir d;
		const json_t *o = json_object_get(job, names[k]);
		int rc = parse_dir(o, &d, err);
		if (rc == VS_OK)
			rc = na_fio_dir_merge(dirs[k], &d, err);
		bins_free(&d);
		if (rc != VS_OK)
			return rc;
		seen[k == 2] |= o != NULL;
	}
	int64_t e = i64(job, "error");
	const char *name = json_string_value(json_object_get(job, "jobname"));
	if (e == 0 || out->error)
		return VS_OK;
	out->error = e > INT_MAX ? INT_MAX : e < INT_MIN ? INT_MIN : (int)e;
	out->error_job = strdup(name ? name : "");
	return out->error_job ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
}

/* Jobs sharing a name (numjobs without group_reporting) are told apart by position. */
static int job_failed(const na_fio_result *r, size_t at, vs_error *err)
{
	char msg[96], why[100] = "";
	if (r->error > 0 && strerror_r(r->error, msg, sizeof(msg)) == 0)
		snprintf(why, sizeof(why), " (%s)", msg);  /* fio's errors are errno values */
	return vs_fail(err, VS_ERR_PROTOCOL, "fio job \"%.200s\" (%zu of %zu) failed with error %d%s",
	               r->error_job, at, r->n_jobs, r->error, why);
}

/* A failed job still leaves out filled, so that the caller can record it. */
static int parse_root(const json_t *root, na_fio_result *out, vs_error *err)
{
	const json_t *jobs = json_object_get(root, "jobs");
	const char *version = json_string_value(json_object_get(root, "fio version"));
	bool seen[2] = {false, false};  /* read or write; mixed */
	size_t failed = 0;
	if (!json_is_array(jobs) || json_array_size(jobs) == 0)
		return vs_fail(err, VS_ERR_PROTOCOL, "fio's JSON output has no \"jobs\"");
	if (version && !(out->fio_version = strdup(version)))
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	out->n_jobs = json_array_size(jobs);
	out->timestamp_ms = i64(root, "timestamp_ms");
	for (size_t i = 0; i < out->n_jobs; i++) {
		int rc = parse_job(json_array_get(jobs, i), i, out, seen, err);
		if (rc != VS_OK)
			return rc;
		if (out->error && !failed)
			failed = i + 1;
	}
	out->mixed = seen[1] && !seen[0];
	return failed ? job_failed(out, failed, err) : VS_OK;
}

int na_fio_parse(const char *text, size_t len, na_fio_result *out, vs_error *err)
{
	json_t *root = NULL;
	memset(out, 0, sizeof(*out));
	dir_init(&out->read);
	dir_init(&out->write);
	dir_init(&out->mixed_dir);
	int rc = last_object(text, len, &root, err);
	if (rc == VS_OK)
		rc = parse_root(root, out, err);
	if (rc != VS_OK && !(rc == VS_ERR_PROTOCOL && out->error))
		na_fio_result_clear(out);
	json_decref(root);
	return rc;
}

void na_fio_result_clear(na_fio_result *r)
{
	free(r->fio_version);
	free(r->error_job);
	bins_free(&r->read);
	bins_free(&r->write);
	bins_free(&r->mixed_dir);
	memset(r, 0, sizeof(*r));
}

/* ---- the guest's fio ---- */

enum { FIO_MIN_MAJOR = 3 };
#define FIO_INSTALL "apt-get install fio, dnf install fio"

int na_fio_guest_check(const char *vm, const char *report, bool *libaio, vs_error *err)
{
	int exit_code = -1, major = -1;
	const char *version = NULL;
	size_t version_len = 0;
	*libaio = false;
	for (const char *line = report; *line;) {
		size_t len = strcspn(line, "\n");
		const char *word = line + strspn(line, " \t");
		size_t wlen = strcspn(word, " \t\r\n");
		if (!strncmp(line, "fio-exit ", 9)) {
			long v = strtol(line + 9, NULL, 10);  /* clamped: only 0 and 127 matter */
			exit_code = v > 255 || v < 0 ? 255 : (int)v;
		} else if (!version && !strncmp(line, "fio-", 4)) {
			version = line;
			version_len = strcspn(line, " \t\r\n");
			long v = line[4] >= '0' && line[4] <= '9' ? strtol(line + 4, NULL, 10) : -1;
			major = v > INT_MAX ? INT_MAX : (int)v;  /* clamped by strtol, then by int */
		} else if (wlen == 6 && !strncmp(word, "libaio", 6)) {
			*libaio = true;
		}
		line += len + (line[len] == '\n');
	}
	if (exit_code == 127)
		return vs_fail(err, VS_ERR_USAGE, "%s has no fio: install it in the guest (" FIO_INSTALL
		               "), then run again", vm);
	if (!version || exit_code != 0)
		return vs_fail(err, VS_ERR_USAGE, "%s: fio --version says no version (exit %d): "
		               "reinstall fio in the guest (" FIO_INSTALL ")", vm, exit_code);
	if (major < FIO_MIN_MAJOR)
		return vs_fail(err, VS_ERR_USAGE, "%s has %.*s; nfsagent needs fio 3.0 or newer (its "
		               "latencies in ns): update it in the guest (" FIO_INSTALL ")", vm,
		               (int)(version_len > 32 ? 32 : version_len), version);
	return VS_OK;
}

int na_fio_no_libaio(const char *vm, vs_error *err)
{
	return vs_fail(err, VS_ERR_USAGE, "%s's fio has no libaio engine (fio --enghelp): install "
	               "libaio in the guest (apt-get install libaio1, dnf install libaio)", vm);
}
