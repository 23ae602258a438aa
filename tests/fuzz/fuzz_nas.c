/* libFuzzer target for the NAS parsers (the nas/ parse files): every input goes
 * through all of them, as zfs list, zfs get, zpool list (and its words),
 * zpool iostat (with a fixed layout, and with the input's own when it is
 * one), zpool status, kstats (with the pool's txgs) and zpool history.
 * Besides "does not crash" it checks what callers rely on: on success the
 * structures are whole (names set, every vdev with a type and its disks,
 * none only for a removed vdev or a distributed spare, a dataset found for
 * a path really holds it); on failure nothing is left and the error says
 * why. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nfsagent/nas.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char mirrors[] =
	"tank\t100\t10\t90\t-\t-\t3\t14\t1.00\tONLINE\t-\n"
	"\tmirror-0\t50\t5\t45\t-\t-\t3\t15\t-\tONLINE\n\tsda\t60\t-\t-\t-\t-\t-\t-\t-\tONLINE\n"
	"\tsdb\t60\t-\t-\t-\t-\t-\t-\t-\tONLINE\n"
	"logs       -      -      -        -         -      -      -      -         -\n"
	"\tnvme2n1\t50\t0\t50\t-\t-\t0\t0\t-\tONLINE\n";

static void failed(int rc, const vs_error *err)
{
	if ((rc != VS_ERR_PROTOCOL && rc != VS_ERR_NOMEM) || !err->message[0])
		abort();
}

static void datasets(const char *text, size_t size)
{
	nas_datasets l;
	vs_error err = {0};
	int rc = nas_parse_zfs_list(text, size, &l, &err);
	if (rc != VS_OK) {
		failed(rc, &err);
		if (l.v || l.n)
			abort();
		return;
	}
	for (size_t i = 0; i < l.n; i++) {
		if (!l.v[i].name[0] || !l.v[i].mountpoint[0])
			abort();
		const char *mp = l.v[i].mountpoint;
		const nas_dataset *d = nas_dataset_for_path(&l, mp);
		if (mp[0] != '/')
			continue;
		/* Some dataset holds its own mountpoint: one whose mountpoint,
		 * trailing slashes aside, begins it. */
		size_t m = d ? strlen(d->mountpoint) : 0;
		while (m > 1 && d->mountpoint[m - 1] == '/')
			m--;
		if (!d || strncmp(d->mountpoint, mp, m) != 0)
			abort();
	}
	nas_datasets_free(&l);
}

static void props(const char *text, size_t size)
{
	nas_props p;
	vs_error err = {0};
	int rc = nas_parse_zfs_get(text, size, &p, &err);
	if (rc != VS_OK)
		failed(rc, &err);
	else if (p.recordsize <= 0 || p.special_small_blocks < 0 || !p.sync[0] || !p.compression[0])
		abort();
}

static void samples(const char *text, size_t size, const nas_layout *l)
{
	nas_samples s;
	vs_error err = {0};
	int rc = nas_parse_iostat(text, size, l, &s, &err);
	if (rc != VS_OK) {
		failed(rc, &err);
		if (s.v || s.n)
			abort();
		return;
	}
	nas_samples_free(&s);
}

static void layout(const char *text, size_t size)
{
	nas_layout l;
	vs_error err = {0};
	int rc = nas_parse_zpool_list(text, size, &l, &err);
	if (rc != VS_OK) {
		failed(rc, &err);
		if (l.v || l.pool)
			abort();
		return;
	}
	size_t total = 0;
	for (int c = 0; c < NAS_CLASS_N; c++)
		total += nas_layout_count(&l, (nas_class)c);
	if (!l.pool || total != l.n)
		abort();
	for (size_t i = 0; i < l.n; i++) {
		const nas_vdev *v = &l.v[i];
		bool diskless = !strcmp(v->type, "indirect") || !strcmp(v->type, "dspare");
		if (!v->name[0] || !v->type[0] || !v->health[0] || (v->n_leaves == 0) != diskless)
			abort();
	}
	char words[64];
	nas_layout_summary(&l, words, sizeof(words));
	if (strlen(words) >= sizeof(words))
		abort();
	samples(text, size, &l);
	nas_layout_free(&l);
}

static void counters(const char *text, size_t size)
{
	nas_counters c;
	vs_error err = {0};
	int rc = nas_parse_kstats(text, size, &c, &err);
	if (rc != VS_OK) {
		failed(rc, &err);
		if (c.arc.found || c.zil.found || c.objset.found)
			abort();
	}
	/* Readings: none kept on failure; each one whole. */
	nas_readings r;
	rc = nas_parse_kstat_series(text, size, &r, &err);
	if (rc != VS_OK && (r.n || r.v))
		abort();
	for (size_t i = 0; i < r.n; i++)
		if (!r.v[i].c.arc.found || !r.v[i].c.zil.found || !r.v[i].c.objset.found ||
		    (!r.v[i].txgs.found && r.v[i].txgs.n))
			abort();
	nas_readings_free(&r);
}

/* The txgs: none kept on failure; a committed one synced after its birth. */
static void txgs(const char *text, size_t size)
{
	nas_txgs t;
	vs_error err = {0};
	int rc = nas_parse_txgs(text, size, &t, &err);
	if (rc != VS_OK) {
		failed(rc, &err);
		if (t.found || t.n || t.v)
			abort();
	}
	for (size_t i = 0; i < t.n; i++)
		if (t.v[i].synced && t.v[i].synced < t.v[i].stime)
			abort();
	nas_txgs_free(&t);
}

/* The activity's words always end within their buffer. */
static void status(const char *text, size_t size)
{
	nas_activity a;
	nas_parse_zpool_status(text, size, &a);
	if (!memchr(a.words, '\0', sizeof(a.words)))
		abort();
}

/* A time is never before 1970 nor left set on failure. */
static void history(const char *text, size_t size)
{
	int64_t last = -1;
	vs_error err = {0};
	int rc = nas_parse_history(text, size, "tank/vmware", "recordsize", &last, &err);
	if (rc != VS_OK)
		failed(rc, &err);
	if (last < 0 || (rc != VS_OK && last != 0))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	nas_layout fixed;
	vs_error err = {0};
	if (nas_parse_zpool_list(mirrors, sizeof(mirrors) - 1, &fixed, &err) != VS_OK)
		abort();
	datasets(text, size);
	props(text, size);
	layout(text, size);
	samples(text, size, &fixed);
	counters(text, size);
	txgs(text, size);
	status(text, size);
	history(text, size);
	nas_layout_free(&fixed);
	return 0;
}
