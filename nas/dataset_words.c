/* The pure part of making a dataset: values checked and normalised before
 * anything runs, the words and the JSON the NAS gets, its answers parsed,
 * and the busy retry with its clock a parameter. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "internal.h"
#include "nfsagent/nas_dataset.h"

static const char *const setting_names[NAS_SET_N] = {
	"recordsize", "sync", "compression", "atime", "logbias", "special_small_blocks",
};

const char *nas_setting_name(nas_setting s)
{
	return s < NAS_SET_N ? setting_names[s] : "?";
}

/* zfs_nicestrtonum's sizes: "16K", "16k", "16KB", "16384"; -1 when not one. */
static int64_t size_of(const char *s)
{
	char *end;
	if (!isdigit((unsigned char)s[0]))
		return -1;
	unsigned long long n = strtoull(s, &end, 10);
	int shift = 0;
	switch (toupper((unsigned char)*end)) {
	case '\0': break;
	case 'K': shift = 10; end++; break;
	case 'M': shift = 20; end++; break;
	case 'G': shift = 30; end++; break;
	default: return -1;
	}
	if (shift && toupper((unsigned char)*end) == 'B')
		end++;
	if (*end || n > (1ULL << 34) >> shift)
		return -1;
	return (int64_t)(n << shift);
}

static bool power_of_two(int64_t n, int64_t lo, int64_t hi)
{
	return n >= lo && n <= hi && (n & (n - 1)) == 0;
}

static bool one_of(const char *v, const char *const *words)
{
	for (; *words; words++)
		if (strcmp(v, *words) == 0)
			return true;
	return false;
}

/* zfs_prop.c's compression table: on, off, lz4, lzjb, zle, gzip[-1..9],
 * zstd[-1..19], zstd-fast[-1..10, 20..100 by 10, 500, 1000]. */
static bool compression_ok(const char *v)
{
	static const char *const plain[] = {"on", "off", "lz4", "lzjb", "zle", "gzip", "zstd",
	                                    "zstd-fast", NULL};
	if (one_of(v, plain))
		return true;
	const char *num = NULL;
	int lo = 1, hi = 0;
	if (strncmp(v, "gzip-", 5) == 0)
		num = v + 5, hi = 9;
	else if (strncmp(v, "zstd-fast-", 10) == 0)
		num = v + 10, hi = 1000;
	else if (strncmp(v, "zstd-", 5) == 0)
		num = v + 5, hi = 19;
	if (!num || !isdigit((unsigned char)num[0]) || num[0] == '0')
		return false;
	char *end;
	long n = strtol(num, &end, 10);
	if (*end || n < lo || n > hi)
		return false;
	return hi != 1000 || n <= 10 || (n <= 100 && n % 10 == 0) || n == 500 || n == 1000;
}

int nas_settings_put(nas_settings *s, const char *name, const char *value, vs_error *err)
{
	static const char *const sync[] = {"standard", "always", "disabled", NULL},
	                         *const onoff[] = {"on", "off", NULL},
	                         *const logbias[] = {"latency", "throughput", NULL};
	char v[24];
	size_t len = strlen(value);
	if (len == 0 || len >= sizeof(v))
		return vs_fail(err, VS_ERR_USAGE, "%s '%s': no such value", name, value);
	for (size_t i = 0; i <= len; i++)
		v[i] = (char)tolower((unsigned char)value[i]);
	int which = -1;
	for (int i = 0; i < NAS_SET_N; i++)
		if (strcmp(name, setting_names[i]) == 0)
			which = i;
	bool ok = false;
	const char *allowed = "";
	int64_t bytes = size_of(v);
	switch (which) {
	case NAS_SET_RECORDSIZE:
		ok = power_of_two(bytes, 512, 1 << 20), allowed = "a power of 2 from 512 to 1M";
		break;
	case NAS_SET_SPECIAL_SMALL:
		ok = bytes == 0 || power_of_two(bytes, 512, 1 << 20),
		allowed = "0 or a power of 2 from 512 to 1M";
		break;
	case NAS_SET_SYNC: ok = one_of(v, sync), allowed = "standard, always, disabled"; break;
	case NAS_SET_ATIME: ok = one_of(v, onoff), allowed = "on, off"; break;
	case NAS_SET_LOGBIAS: ok = one_of(v, logbias), allowed = "latency, throughput"; break;
	case NAS_SET_COMPRESSION:
		ok = compression_ok(v), allowed = "off, on, lz4, lzjb, zle, gzip[-N], zstd[-N], zstd-fast[-N]";
		break;
	default:
		return vs_fail(err, VS_ERR_USAGE,
		               "'%s' is not a setting nfsagent sets (recordsize, sync, compression, atime, "
		               "logbias, special_small_blocks)", name);
	}
	if (!ok)
		return vs_fail(err, VS_ERR_USAGE, "%s '%s': want %s", name, value, allowed);
	if (which == NAS_SET_RECORDSIZE || which == NAS_SET_SPECIAL_SMALL)
		snprintf(v, sizeof(v), "%" PRId64, bytes);
	snprintf(s->v[which], sizeof(s->v[which]), "%s", v);
	return VS_OK;
}

void nas_size_word(int64_t bytes, char *buf, size_t size)
{
	if (bytes >= 1 << 20 && bytes % (1 << 20) == 0)
		snprintf(buf, size, "%" PRId64 "M", bytes >> 20);
	else if (bytes >= 1024 && bytes % 1024 == 0)
		snprintf(buf, size, "%" PRId64 "K", bytes >> 10);
	else
		snprintf(buf, size, "%" PRId64, bytes);
}

bool nas_run_id_ok(const char *run_id)
{
	size_t n = strlen(run_id);
	if (n == 0 || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)run_id[i]) && !strchr("._-", run_id[i]))
			return false;
	return true;
}

/* ---- networks ------------------------------------------------------------ */

/* "10.0.0.0/24" or "10.0.0.5" (/32) into buf, normalised; false when not one. */
static bool network_ok(const char *s, size_t len, char *buf, size_t size)
{
	unsigned a[4], bits = 32;
	char tail;
	char in[32];
	if (len == 0 || len >= sizeof(in))
		return false;
	memcpy(in, s, len);
	in[len] = '\0';
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)in[i]) && in[i] != '.' && in[i] != '/')
			return false;
	int got = sscanf(in, "%3u.%3u.%3u.%3u/%2u%c", &a[0], &a[1], &a[2], &a[3], &bits, &tail);
	if (got != 4 && got != 5)
		return false;
	if (got == 4 && strchr(in, '/'))
		return false;
	if (a[0] > 255 || a[1] > 255 || a[2] > 255 || a[3] > 255 || bits > 32)
		return false;
	snprintf(buf, size, "%u.%u.%u.%u/%u", a[0], a[1], a[2], a[3], bits);
	/* sscanf takes "1.2.3.4/" as 4 fields: the slash must have digits after it */
	return got == 5 || !strchr(in, '/');
}

int nas_networks_parse(const char *list, nas_networks *out, vs_error *err)
{
	*out = (nas_networks){0};
	for (const char *p = list;;) {
		size_t n = strcspn(p, ",");
		if (out->n == NAS_SHARE_MAX)
			return vs_fail(err, VS_ERR_USAGE, "more than %d networks to share to", NAS_SHARE_MAX);
		if (!network_ok(p, n, out->v[out->n], sizeof(out->v[0])))
			return vs_fail(err, VS_ERR_USAGE,
			               "'%.*s' is not an IPv4 network (10.0.0.0/24) or address", (int)n, p);
		out->n++;
		if (!p[n])
			return VS_OK;
		p += n + 1;
	}
}

void nas_sharenfs_value(const nas_networks *n, char *buf, size_t size)
{
	size_t len = (size_t)snprintf(buf, size, "rw=");
	for (size_t i = 0; i < n->n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s@%s", i ? ":" : "", n->v[i]);
	if (len < size)
		snprintf(buf + len, size - len, ",no_root_squash");
}

/* ---- TrueNAS ------------------------------------------------------------- */

int nas_parse_truenas_version(const char *text, nas_system *out, vs_error *err)
{
	char v[64];
	const char *p = text + strspn(text, " \t\r\n\"");
	snprintf(v, sizeof(v), "%.*s", (int)strcspn(p, "\"\r\n"), p);
	unsigned major = 0, minor = 0;
	const char *num = strncmp(v, "TrueNAS-", 8) == 0 ? v + 8 : NULL;
	if (num && strncmp(num, "SCALE-", 6) == 0)
		num += 6;
	if (!num || sscanf(num, "%u.%u", &major, &minor) != 2)
		return vs_fail(err, VS_ERR_PROTOCOL, "midclt call system.version printed '%s', not "
		               "TrueNAS-[SCALE-]VERSION", v);
	*out = (nas_system){.backend = NAS_BACKEND_TRUENAS};
	snprintf(out->version, sizeof(out->version), "%s", v);
	out->core = major < 20;
	out->share_path = !out->core && (major > 22 || (major == 22 && minor >= 12));
	return VS_OK;
}

static json_t *upper(const char *v)
{
	char buf[24];
	size_t i = 0;
	for (; v[i] && i + 1 < sizeof(buf); i++)
		buf[i] = (char)toupper((unsigned char)v[i]);
	buf[i] = '\0';
	return json_string(buf);
}

static char *dumped(json_t *j)
{
	char *s = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(j);
	return s;
}

char *nas_truenas_dataset_json(const char *dataset, const nas_settings *s, const char *run_id)
{
	json_t *j = json_pack("{s:s, s:s, s:[{s:s, s:s}]}", "name", dataset, "type", "FILESYSTEM",
	                      "user_properties", "key", "nfsagent:run", "value", run_id);
	if (!j)
		return NULL;
	char word[16];
	if (s->v[NAS_SET_RECORDSIZE][0]) {
		nas_size_word(strtoll(s->v[NAS_SET_RECORDSIZE], NULL, 10), word, sizeof(word));
		json_object_set_new(j, "recordsize", json_string(word));
	}
	if (s->v[NAS_SET_SPECIAL_SMALL][0])
		json_object_set_new(j, "special_small_block_size",
		                    json_integer(strtoll(s->v[NAS_SET_SPECIAL_SMALL], NULL, 10)));
	/* logbias is no field of the middleware's: set with zfs after it */
	static const nas_setting words[] = {NAS_SET_SYNC, NAS_SET_COMPRESSION, NAS_SET_ATIME};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (s->v[words[i]][0])
			json_object_set_new(j, setting_names[words[i]], upper(s->v[words[i]]));
	return dumped(j);
}

char *nas_truenas_share_json(const nas_system *sys, const char *mountpoint,
                             const nas_networks *n, const char *run_id)
{
	json_t *nets = json_array();
	for (size_t i = 0; i < n->n; i++)
		json_array_append_new(nets, json_string(n->v[i]));
	char comment[96];
	snprintf(comment, sizeof(comment), "nfsagent run %s", run_id);
	json_t *j = json_pack("{s:o, s:s, s:s, s:s}", "networks", nets, "maproot_user", "root",
	                      "maproot_group", sys->core ? "wheel" : "root", "comment", comment);
	if (j && sys->share_path)
		json_object_set_new(j, "path", json_string(mountpoint));
	else if (j)
		json_object_set_new(j, "paths", json_pack("[s]", mountpoint));
	return dumped(j);
}

static bool share_at(json_t *share, const char *path)
{
	const char *p = json_string_value(json_object_get(share, "path"));
	if (p && strcmp(p, path) == 0)
		return true;
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(share, "paths"), i, v)
		if (json_string_value(v) && strcmp(json_string_value(v), path) == 0)
			return true;
	return false;
}

int nas_parse_shares(const char *text, size_t len, const char *path, int64_t *ids, size_t max,
                     size_t *n, vs_error *err)
{
	*n = 0;
	json_error_t je;
	json_t *all = json_loadb(text, len, 0, &je);
	if (!json_is_array(all)) {
		json_decref(all);
		return vs_fail(err, VS_ERR_PROTOCOL, "sharing.nfs.query printed no list: %s", je.text);
	}
	size_t i;
	json_t *share;
	json_array_foreach(all, i, share)
		if (share_at(share, path) && json_is_integer(json_object_get(share, "id")) && *n < max)
			ids[(*n)++] = json_integer_value(json_object_get(share, "id"));
	json_decref(all);
	return VS_OK;
}

/* ---- OpenZFS ------------------------------------------------------------- */

void nas_zfs_create_words(const char *dataset, const nas_settings *s, const char *run_id,
                          char buf[NAS_SET_N + 1][100], const char **words)
{
	size_t n = 0, k = 0;
	words[n++] = "zfs";
	words[n++] = "create";
	for (int i = 0; i < NAS_SET_N; i++) {
		if (!s->v[i][0])
			continue;
		snprintf(buf[k], 100, "%s=%s", setting_names[i], s->v[i]);
		words[n++] = "-o";
		words[n++] = buf[k++];
	}
	snprintf(buf[k], 100, "nfsagent:run=%s", run_id);
	words[n++] = "-o";
	words[n++] = buf[k];
	words[n++] = dataset;
	words[n] = NULL;
}

const char nas_dataset_get_list[] = "mountpoint,available,sharenfs,nfsagent:run,recordsize,sync,"
                                    "compression,atime,logbias,special_small_blocks";

/* One row's property into out; false for one not of the list. */
static bool take_row(nas_span *f, nas_dataset_state *out, unsigned *seen)
{
	char value[256], source[72];
	if (!nas_span_copy(f[1], value, sizeof(value)) || !nas_span_copy(f[2], source, sizeof(source)))
		return false;
	static const char *const extra[] = {"mountpoint", "available", "sharenfs", "nfsagent:run"};
	for (unsigned i = 0; i < 4; i++) {
		if (!nas_span_is(f[0], extra[i]))
			continue;
		*seen |= 1u << (NAS_SET_N + i);
		if (i == 0)
			snprintf(out->mountpoint, sizeof(out->mountpoint), "%s", value);
		else if (i == 1)
			out->available = strtoll(value, NULL, 10);
		/* The share and the mark count only when set on the dataset itself:
		 * user properties and sharenfs are inherited, and a child an admin
		 * made under a kept dataset of nfsagent's is not nfsagent's. */
		else if (i == 2)
			snprintf(out->sharenfs, sizeof(out->sharenfs), "%s",
			         strcmp(source, "local") == 0 ? value : "off");
		else
			snprintf(out->mark, sizeof(out->mark), "%.*s", (int)sizeof(out->mark) - 1,
			         strcmp(source, "local") == 0 ? value : "");
		return true;
	}
	for (unsigned i = 0; i < NAS_SET_N; i++) {
		if (!nas_span_is(f[0], setting_names[i]))
			continue;
		*seen |= 1u << i;
		snprintf(out->values.v[i], sizeof(out->values.v[i]), "%.*s",
		         (int)sizeof(out->values.v[i]) - 1, value);
		snprintf(out->source[i], sizeof(out->source[i]), "%s", source);
		return true;
	}
	return false;
}

int nas_parse_dataset_get(const char *text, size_t len, nas_dataset_state *out, vs_error *err)
{
	*out = (nas_dataset_state){.exists = true};
	int rc = nas_text_check(text, len, "zfs get", err);
	nas_lines l = nas_lines_of(text, len);
	nas_span line, f[3];
	unsigned seen = 0;
	while (rc == VS_OK && nas_next_line(&l, &line)) {
		if (nas_fields(line, '\t', f, 3) != 3 || !take_row(f, out, &seen))
			rc = vs_fail(err, VS_ERR_PROTOCOL, "zfs get line %zu is not PROPERTY\tVALUE\tSOURCE "
			             "of the list asked: '%.*s'", l.number, (int)line.n, line.s);
	}
	for (unsigned i = 0; rc == VS_OK && i < NAS_SET_N + 4; i++)
		if (!(seen & (1u << i)))
			rc = vs_fail(err, VS_ERR_PROTOCOL, "zfs get printed no %s",
			             i < NAS_SET_N ? setting_names[i]
			                           : (const char *[]){"mountpoint", "available", "sharenfs",
			                                              "nfsagent:run"}[i - NAS_SET_N]);
	return rc;
}

/* ---- the busy retry ------------------------------------------------------ */

int nas_retry_busy(nas_try_fn fn, void *ud, const nas_clock *c, int budget_s, int *tries,
                   vs_error *err)
{
	int64_t start = c->now_ms(c->ctx), wait = 1000;
	*tries = 0;
	for (;;) {
		bool busy = false;
		(*tries)++;
		int rc = fn(ud, &busy, err);
		int64_t left = (int64_t)budget_s * 1000 - (c->now_ms(c->ctx) - start);
		if (rc == VS_OK || !busy || left <= 0)
			return rc;
		c->nap_ms(c->ctx, (int)(wait < left ? wait : left));
		wait = wait * 2 > 15000 ? 15000 : wait * 2;
	}
}
