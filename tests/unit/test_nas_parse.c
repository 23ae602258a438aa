/* The NAS parsers on golden copies of OpenZFS 2.1 to 2.3's output
 * (tests/data/zfs, SOURCES.md says where each comes from), cut and damaged
 * copies of them, and ZFS's name grammar. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "golden.h"

#include "nfsagent/nas.h"

static char *load(const char *name, size_t *len)
{
	char path[256];
	snprintf(path, sizeof(path), "zfs/%s", name);
	return golden(path, len);
}

/* A string as parser input of exactly its length (no NUL after it). */
static char *exact(const char *s, size_t *len)
{
	*len = strlen(s);
	char *buf = malloc(*len ? *len : 1);
	assert_non_null(buf);
	memcpy(buf, s, *len);
	return buf;
}

static void test_names(void **state)
{
	(void)state;
	const char *good[] = {"tank", "tank/vmware64k", "boot-pool/ROOT/24.04.2", "t/a:b_c-d.e", "Z"};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_true(nas_name_ok(good[i], false));
	const char *bad[] = {"", "1tank", "-tank", "mirror", "raidz/x", "draid", "tank/a b",
	                     "tank@snap", "tank#bm", "tank//x", "tank/", "/tank", "tank/../x",
	                     "tank/./x", "tank/$(id)", "tank;id", "tank/a'b", "tank/a\nb"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(nas_name_ok(bad[i], false));
	assert_true(nas_name_ok("mirrors", true));  /* only the words themselves are reserved */
	assert_false(nas_name_ok("tank/vmware", true));
	char longname[300];
	memset(longname, 'a', 255);
	longname[255] = '\0';
	assert_false(nas_name_ok(longname, false));
	longname[250] = '\0';
	assert_false(nas_name_ok(longname, true));  /* room for "/$ORIGIN@$ORIGIN" */
}

static void test_zfs_list_and_export_paths(void **state)
{
	(void)state;
	size_t len;
	char *text = load("zfs_list_truenas.txt", &len);
	nas_datasets l;
	vs_error err = {0};
	assert_int_equal(nas_parse_zfs_list(text, len, &l, &err), VS_OK);
	free(text);
	assert_int_equal(l.n, 18);
	assert_string_equal(l.v[0].name, "boot-pool");
	assert_string_equal(l.v[0].mountpoint, "none");
	assert_string_equal(l.v[17].mountpoint, "-");
	static const struct {
		const char *path, *dataset;
	} cases[] = {
		{"/mnt/tank/vmware", "tank/vmware"},
		{"/mnt/tank/vmware/", "tank/vmware"},
		{"/mnt/tank/vmware64k", "tank/vmware64k"},
		{"/mnt/tank/vmware64k/vms/a", "tank/vmware64k"},
		{"/mnt/tank/vm", "tank/vm"},
		{"/mnt/tank/vmx", "tank"},  /* a prefix of a name is not a parent directory */
		{"/mnt/tank", "tank"},
		{"/audit/x", "boot-pool/ROOT/24.04.2/audit"},
		{"/mnt/other", NULL},       /* "legacy", "none" and "-" are no directory */
		{"/", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const nas_dataset *d = nas_dataset_for_path(&l, cases[i].path);
		if (!cases[i].dataset) {
			assert_null(d);
			continue;
		}
		assert_non_null(d);
		assert_string_equal(d->name, cases[i].dataset);
	}
	nas_datasets_free(&l);
}

static void test_zfs_list_root_mount_and_damage(void **state)
{
	(void)state;
	size_t len;
	char *text = exact("rpool\t/\nrpool/data\t/rpool/data\n", &len);
	nas_datasets l;
	vs_error err = {0};
	assert_int_equal(nas_parse_zfs_list(text, len, &l, &err), VS_OK);
	free(text);
	assert_string_equal(nas_dataset_for_path(&l, "/srv/nfs")->name, "rpool");
	assert_string_equal(nas_dataset_for_path(&l, "/rpool/data/x")->name, "rpool/data");
	nas_datasets_free(&l);

	text = exact("tank\t/mnt/tank\ntank/vm /mnt/tank/vm\n", &len);
	assert_int_equal(nas_parse_zfs_list(text, len, &l, &err), VS_ERR_PROTOCOL);
	assert_string_equal(err.message, "line 2 of zfs list is not NAME<tab>MOUNTPOINT");
	assert_null(l.v);
	free(text);
	static const char with_nul[] = {'t', 'a', 'n', 'k', '\t', '/', '\0', '\n'};
	text = malloc(sizeof(with_nul));
	assert_non_null(text);
	memcpy(text, with_nul, sizeof(with_nul));
	len = sizeof(with_nul);
	assert_int_equal(nas_parse_zfs_list(text, len, &l, &err), VS_ERR_PROTOCOL);
	assert_string_equal(err.message, "zfs list printed a NUL byte");
	free(text);
}

static void test_zfs_get(void **state)
{
	(void)state;
	size_t len;
	char *text = load("zfs_get_vmware64k.txt", &len);
	nas_props p;
	vs_error err = {0};
	assert_int_equal(nas_parse_zfs_get(text, len, &p, &err), VS_OK);
	free(text);
	assert_int_equal(p.recordsize, 65536);
	assert_string_equal(p.sync, "standard");
	assert_string_equal(p.compression, "lz4");
	assert_string_equal(p.atime, "off");
	assert_string_equal(p.logbias, "latency");
	assert_string_equal(p.primarycache, "all");
	assert_int_equal(p.special_small_blocks, 0);
	assert_int_equal(p.objsetid, 54);

	text = load("zfs_get_vmware16k.txt", &len);
	assert_int_equal(nas_parse_zfs_get(text, len, &p, &err), VS_OK);
	assert_int_equal(p.recordsize, 16384);
	assert_string_equal(p.sync, "always");
	assert_string_equal(p.compression, "zstd-3");
	assert_string_equal(p.primarycache, "metadata");
	assert_int_equal(p.special_small_blocks, 16384);
	assert_int_equal(p.objsetid, 1027);
	/* Every property is required: the file without its last line. */
	assert_int_equal(nas_parse_zfs_get(text, len - strlen("objsetid\t1027\n"), &p, &err),
	                 VS_ERR_PROTOCOL);
	assert_string_equal(err.message, "zfs get printed no objsetid");
	free(text);

	text = exact("recordsize\t64K\n", &len);
	assert_int_equal(nas_parse_zfs_get(text, len, &p, &err), VS_ERR_PROTOCOL);
	assert_string_equal(err.message, "zfs get: recordsize is '64K'");  /* -p was not used */
	free(text);
	text = exact("recordsize 65536\n", &len);
	assert_int_equal(nas_parse_zfs_get(text, len, &p, &err), VS_ERR_PROTOCOL);
	assert_string_equal(err.message, "line 1 of zfs get is not PROPERTY<tab>VALUE");
	free(text);
}

static void test_zpool_list_mirrors(void **state)
{
	(void)state;
	size_t len;
	char *text = load("zpool_list_mirrors.txt", &len);
	nas_layout l;
	vs_error err = {0};
	assert_int_equal(nas_parse_zpool_list(text, len, &l, &err), VS_OK);
	free(text);
	assert_string_equal(l.pool, "tank");
	assert_string_equal(l.health, "ONLINE");
	assert_int_equal(l.size, 8469414674432);
	assert_int_equal(l.alloc, 1227736330240);
	assert_int_equal(l.n, 5);
	static const struct {
		const char *name, *type;
		nas_class cls;
		size_t leaves;
	} want[] = {
		{"mirror-0", "mirror", NAS_CLASS_DATA, 2}, {"mirror-1", "mirror", NAS_CLASS_DATA, 2},
		{"mirror-2", "mirror", NAS_CLASS_SPECIAL, 2}, {"nvme2n1", "disk", NAS_CLASS_LOG, 1},
		{"nvme3n1", "disk", NAS_CLASS_CACHE, 1},
	};
	for (size_t i = 0; i < l.n; i++) {
		assert_string_equal(l.v[i].name, want[i].name);
		assert_string_equal(l.v[i].type, want[i].type);
		assert_int_equal(l.v[i].cls, want[i].cls);
		assert_int_equal(l.v[i].n_leaves, want[i].leaves);
	}
	assert_int_equal(nas_layout_count(&l, NAS_CLASS_DATA), 2);
	assert_int_equal(nas_layout_count(&l, NAS_CLASS_DEDUP), 0);
	assert_int_equal(nas_layout_count(&l, NAS_CLASS_LOG), 1);
	nas_layout_free(&l);
}

static void test_zpool_list_raidz2_spare(void **state)
{
	(void)state;
	size_t len;
	char *text = load("zpool_list_raidz2.txt", &len);
	nas_layout l;
	vs_error err = {0};
	assert_int_equal(nas_parse_zpool_list(text, len, &l, &err), VS_OK);
	free(text);
	assert_string_equal(l.pool, "rpool");
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[0].type, "raidz2");
	assert_int_equal(l.v[0].n_leaves, 6);
	assert_int_equal(l.v[1].n_leaves, 6);
	assert_string_equal(l.v[2].name, "sdm");
	assert_int_equal(l.v[2].cls, NAS_CLASS_SPARE);
	assert_int_equal(nas_layout_count(&l, NAS_CLASS_LOG), 0);
	nas_layout_free(&l);

	/* The first line of a class is a top-level vdev even without space of
	 * its own (a disk missing): never a leaf of nothing. */
	text = exact("tank\t1\t1\t0\t-\t-\t0\t0\t1.00\tONLINE\t-\n\tsda\t9\t-\t-\t-\t-\t-\t-\t-\tUNAVAIL\n",
	             &len);
	assert_int_equal(nas_parse_zpool_list(text, len, &l, &err), VS_OK);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].type, "disk");
	assert_string_equal(l.v[0].health, "UNAVAIL");
	nas_layout_free(&l);
	free(text);
	text = exact("tank\t1\t1\t0\t-\t-\t0\t0\t1.00\tONLINE\t-\n\tsda\tbig\t-\t-\t-\t-\t-\t-\t-\tONLINE\n",
	             &len);
	assert_int_equal(nas_parse_zpool_list(text, len, &l, &err), VS_ERR_PROTOCOL);
	assert_string_equal(err.message, "line 2 of zpool list is not a vdev's: 'sda'");
	free(text);
	text = exact("", &len);
	assert_int_equal(nas_parse_zpool_list(text, len, &l, &err), VS_ERR_PROTOCOL);
	assert_string_equal(err.message, "zpool list printed no pool");
	free(text);
}

static void mirrors_layout(nas_layout *l)
{
	size_t len;
	char *text = load("zpool_list_mirrors.txt", &len);
	vs_error err = {0};
	assert_int_equal(nas_parse_zpool_list(text, len, l, &err), VS_OK);
	free(text);
}

/* A rate no pool can have (a counter that wrapped: 2^64 less a little) is
 * refused, never summed into a window's totals. */
static void test_iostat_refuses_wrapped_rates(void **state)
{
	(void)state;
	nas_layout l;
	mirrors_layout(&l);
	size_t len;
	char *text = load("zpool_iostat_mirrors.txt", &len);
	char *at = strstr(text, "\t1756364800\t");
	assert_non_null(at);
	size_t keep = (size_t)(at - text) + 1, rest = len - keep - strlen("1756364800");
	char *bad = malloc(len + 16);
	memcpy(bad, text, keep);
	memcpy(bad + keep, "18446744073709551000", 20);
	memcpy(bad + keep + 20, at + 1 + strlen("1756364800"), rest);
	nas_samples s;
	vs_error err = {0};
	assert_int_equal(nas_parse_iostat(bad, keep + 20 + rest, &l, &s, &err), VS_ERR_PROTOCOL);
	assert_non_null(strstr(err.message, "is not a vdev's figures"));
	free(bad);
	free(text);
	nas_layout_free(&l);
}

static void test_iostat_classes_apart_leaves_never_added(void **state)
{
	(void)state;
	nas_layout l;
	mirrors_layout(&l);
	size_t len;
	char *text = load("zpool_iostat_mirrors.txt", &len);
	nas_samples s;
	vs_error err = {0};
	assert_int_equal(nas_parse_iostat(text, len, &l, &s, &err), VS_OK);
	assert_int_equal(s.n, 3);
	const nas_sample *a = &s.v[0];
	/* mirror-0 + mirror-1: each already holds both copies; sda..sdd are not added. */
	assert_int_equal(a->cls[NAS_CLASS_DATA].write_bytes, 2 * 1756364800ULL);
	assert_int_equal(a->cls[NAS_CLASS_DATA].write_ops, 2 * 13400);
	assert_int_equal(a->cls[NAS_CLASS_DATA].read_bytes, 11468800 + 11141120);
	assert_int_equal(a->cls[NAS_CLASS_SPECIAL].write_bytes, 68812800);
	assert_int_equal(a->cls[NAS_CLASS_LOG].write_ops, 16600);
	assert_int_equal(a->cls[NAS_CLASS_LOG].write_bytes, 1087897600);
	assert_int_equal(a->cls[NAS_CLASS_CACHE].read_bytes, 1310720);
	assert_int_equal(a->cls[NAS_CLASS_DEDUP].write_bytes, 0);
	/* The pool's own line is data + special + log (the cache is no pool I/O). */
	assert_int_equal(a->pool.write_bytes, a->cls[NAS_CLASS_DATA].write_bytes +
	                                          a->cls[NAS_CLASS_SPECIAL].write_bytes +
	                                          a->cls[NAS_CLASS_LOG].write_bytes);
	assert_int_equal(a->cls[NAS_CLASS_DATA].write_wait_ns, 1830000);
	assert_int_equal(a->cls[NAS_CLASS_LOG].read_wait_ns, 0);  /* '-': nothing waited */
	assert_int_equal(a->cls[NAS_CLASS_LOG].write_wait_ns, 96000);
	assert_int_equal(a->cls[NAS_CLASS_LOG].sync_write_wait_ns, 4000);  /* syncq_wait write */
	assert_int_equal(a->cls[NAS_CLASS_DATA].sync_write_wait_ns, 0);    /* '-' */
	assert_int_equal(s.v[2].cls[NAS_CLASS_DATA].write_bytes, 2 * 1758364800ULL);
	nas_samples_free(&s);

	/* The sampler stopped inside the third interval, then inside a line. */
	const char *third = strstr(strstr(strstr(text, "\ntank\t") + 1, "\ntank\t") + 1, "mirror-2");
	assert_non_null(third);
	assert_int_equal(nas_parse_iostat(text, (size_t)(third - text), &l, &s, &err), VS_OK);
	assert_int_equal(s.n, 2);
	nas_samples_free(&s);
	assert_int_equal(nas_parse_iostat(text, (size_t)(third - text) + 12, &l, &s, &err), VS_OK);
	assert_int_equal(s.n, 2);
	nas_samples_free(&s);
	free(text);
	nas_layout_free(&l);
}

static void test_iostat_damage(void **state)
{
	(void)state;
	nas_layout l;
	mirrors_layout(&l);
	size_t len;
	nas_samples s;
	vs_error err = {0};
	char *text = exact("mirror-0\t1\t1\t1\t1\t1\t1\n", &len);
	assert_int_equal(nas_parse_iostat(text, len, &l, &s, &err), VS_ERR_PROTOCOL);
	assert_string_equal(err.message, "zpool iostat printed a vdev before its pool");
	free(text);
	text = exact("tank\t1\t1\t1\t1\t1\t1\nmirror-0\t1\t1\tx\t1\t1\t1\n", &len);
	assert_int_equal(nas_parse_iostat(text, len, &l, &s, &err), VS_ERR_PROTOCOL);
	assert_string_equal(err.message, "line 2 of zpool iostat is not a vdev's figures");
	free(text);
	/* An interval that lacks vdevs, followed by another: not a cut, a change. */
	text = exact("tank\t1\t1\t1\t1\t1\t1\nmirror-0\t1\t1\t1\t1\t1\t1\ntank\t1\t1\t1\t1\t1\t1\n", &len);
	assert_int_equal(nas_parse_iostat(text, len, &l, &s, &err), VS_ERR_PROTOCOL);
	assert_string_equal(err.message, "interval 1 of zpool iostat lacks vdev mirror-1 of the layout");
	assert_null(s.v);
	free(text);
	nas_layout_free(&l);
}

static void test_kstats_each_file(void **state)
{
	(void)state;
	size_t len;
	nas_counters c;
	vs_error err = {0};
	char *text = load("arcstats", &len);
	assert_int_equal(nas_parse_kstats(text, len, &c, &err), VS_OK);
	free(text);
	assert_true(c.arc.found);
	assert_false(c.zil.found);
	assert_false(c.objset.found);
	assert_int_equal(c.arc.hits, 918273645);
	assert_int_equal(c.arc.misses, 20318475);
	assert_int_equal(c.arc.demand_data_hits, 402117730);
	assert_int_equal(c.arc.demand_data_misses, 9120334);
	assert_int_equal(c.arc.size, 58506035200);
	assert_int_equal(c.arc.c_max, 67444088832);

	text = load("zil", &len);
	assert_int_equal(nas_parse_kstats(text, len, &c, &err), VS_OK);
	free(text);
	assert_true(c.zil.found);
	assert_int_equal(c.zil.commit_count, 7712093);
	assert_int_equal(c.zil.itx_count, 9013442);
	assert_int_equal(c.zil.normal_bytes, 0);
	assert_int_equal(c.zil.slog_bytes, 301989888000);

	text = load("objset-0x36", &len);
	assert_int_equal(nas_parse_kstats(text, len, &c, &err), VS_OK);
	free(text);
	assert_true(c.objset.found);
	assert_false(c.zil.found);  /* an objset's own zil_* sums are not the pool-wide file */
	assert_string_equal(c.objset.dataset, "tank/vmware64k");
	assert_int_equal(c.objset.writes, 48213377);
	assert_int_equal(c.objset.nwritten, 3159869964288);
	assert_int_equal(c.objset.reads, 1204411);
	assert_int_equal(c.objset.nread, 78931476480);
}

/* `cat arcstats zil objset-0x36`, as each reading of nas_counters_job asks for them. */
static void test_kstats_concatenated(void **state)
{
	(void)state;
	size_t a, z, o;
	char *arc = load("arcstats", &a), *zil = load("zil", &z), *os = load("objset-0x36", &o);
	char *all = malloc(a + z + o);
	assert_non_null(all);
	memcpy(all, arc, a);
	memcpy(all + a, zil, z);
	memcpy(all + a + z, os, o);
	nas_counters c;
	vs_error err = {0};
	assert_int_equal(nas_parse_kstats(all, a + z + o, &c, &err), VS_OK);
	assert_true(c.arc.found && c.zil.found && c.objset.found);
	assert_int_equal(c.arc.c_max, 67444088832);
	assert_int_equal(c.zil.slog_bytes, 301989888000);
	assert_int_equal(c.objset.nwritten, 3159869964288);
	/* Without the objset's header line its rows would be arcstats': refused. */
	assert_int_equal(nas_parse_kstats(all + 1, a + z + o - 1, &c, &err), VS_ERR_PROTOCOL);
	assert_string_equal(err.message, "the kstats do not begin with a kstat header");
	free(all);
	free(arc);
	free(zil);
	free(os);
}

/* `cat arcstats zil objset-0x36 && date +%s.%N` every interval, as
 * nas_counters_job prints it: each reading closed by the NAS's time; the
 * last one, stopped inside its cat or its stamp, left out. */
static void test_kstat_series(void **state)
{
	(void)state;
	size_t a, z, o;
	char *arc = load("arcstats", &a), *zil = load("zil", &z), *os = load("objset-0x36", &o);
	size_t size = 3 * (a + z + o) + 128, len = 0;
	char *all = malloc(size);
	assert_non_null(all);
	for (int k = 0; k < 3; k++) {
		memcpy(all + len, arc, a);
		memcpy(all + len + a, zil, z);
		memcpy(all + len + a + z, os, o);
		len += a + z + o;
		len += (size_t)snprintf(all + len, size - len, k == 0 ? "1764600000.250000000\n"
		                                              : k == 1 ? "1764600002.5\n"
		                                                       : "1764600004.75");
	}
	nas_readings r;
	vs_error err = {0};
	assert_int_equal(nas_parse_kstat_series(all, len, &r, &err), VS_OK);
	assert_int_equal(r.n, 2);  /* the third's stamp has no newline yet */
	assert_true(r.v[0].at == 1764600000.25);
	assert_true(r.v[1].at == 1764600002.5);
	assert_int_equal(r.v[1].c.objset.nwritten, 3159869964288);
	assert_int_equal(r.v[1].c.zil.slog_bytes, 301989888000);
	nas_readings_free(&r);
	/* Cut inside the second reading's objset: only the first. */
	assert_int_equal(nas_parse_kstat_series(all, a + z + o + 21 + a + z + 40, &r, &err), VS_OK);
	assert_int_equal(r.n, 1);
	nas_readings_free(&r);
	/* A reading without the objset's kstat is refused, not taken as zeros. */
	memcpy(all, arc, a);
	memcpy(all + a, zil, z);
	len = a + z + (size_t)snprintf(all + a + z, size - a - z, "1764600000.25\n");
	assert_int_equal(nas_parse_kstat_series(all, len, &r, &err), VS_ERR_PROTOCOL);
	assert_string_equal(err.message, "a reading lacks arcstats, zil or the objset's");
	assert_int_equal(r.n, 0);
	assert_int_equal(nas_parse_kstat_series("", 0, &r, &err), VS_OK);
	assert_int_equal(r.n, 0);
	free(all);
	free(arc);
	free(zil);
	free(os);
}

static void test_kstats_damage(void **state)
{
	(void)state;
	size_t len;
	nas_counters c;
	vs_error err = {0};
	char *text = exact("9 1 0x01 1 272 1 2\nname                            type data\n"
	                   "c_max                           7    big\n", &len);
	assert_int_equal(nas_parse_kstats(text, len, &c, &err), VS_ERR_PROTOCOL);
	assert_string_equal(err.message, "line 3: c_max is not a uint64");
	assert_false(c.arc.found);
	free(text);
	text = exact("9 1 0x01 1 272 1 2\nfoo\n", &len);
	assert_int_equal(nas_parse_kstats(text, len, &c, &err), VS_ERR_PROTOCOL);
	assert_string_equal(err.message, "line 2 of the kstats is not 'name type data'");
	free(text);
	text = exact("9 3 0x01 1 272 1 2\nname type data\n", &len);
	assert_int_equal(nas_parse_kstats(text, len, &c, &err), VS_ERR_PROTOCOL);
	assert_string_equal(err.message, "line 1: not a named kstat");
	free(text);
	text = exact("cat: /proc/spl/kstat/zfs/arcstats: No such file or directory\n", &len);
	assert_int_equal(nas_parse_kstats(text, len, &c, &err), VS_ERR_PROTOCOL);
	free(text);
}

/* ---- the shapes of real pools (SOURCES.md) ---- */

typedef struct want_vdev {
	const char *name, *type;
	nas_class cls;
	size_t disks;
	const char *health;
} want_vdev;

/* Parses golden file and checks the pool, every vdev and the words. */
static void check_layout(const char *file, nas_layout *l, const char *pool, const char *health,
                         const want_vdev *want, size_t n, const char *words)
{
	size_t len;
	char *text = load(file, &len);
	vs_error err = {0};
	assert_int_equal(nas_parse_zpool_list(text, len, l, &err), VS_OK);
	free(text);
	assert_string_equal(l->pool, pool);
	assert_string_equal(l->health, health);
	assert_int_equal(l->n, n);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(l->v[i].name, want[i].name);
		assert_string_equal(l->v[i].type, want[i].type);
		assert_int_equal(l->v[i].cls, want[i].cls);
		assert_int_equal(l->v[i].n_leaves, want[i].disks);
		assert_string_equal(l->v[i].health, want[i].health);
	}
	char buf[256];
	nas_layout_summary(l, buf, sizeof(buf));
	assert_string_equal(buf, words);
}

static void iostat_of(const char *file, const nas_layout *l, nas_samples *s)
{
	size_t len;
	char *text = load(file, &len);
	vs_error err = {0};
	assert_int_equal(nas_parse_iostat(text, len, l, s, &err), VS_OK);
	free(text);
}

/* Removed vdevs stay as indirect-N, first or after a live one: no disks,
 * no class of their own, zeros in iostat, never a leaf of the one before. */
static void test_removed_vdevs(void **state)
{
	(void)state;
	static const want_vdev want[] = {
		{"indirect-0", "indirect", NAS_CLASS_DATA, 0, "ONLINE"},
		{"mirror-1", "mirror", NAS_CLASS_DATA, 2, "ONLINE"},
		{"indirect-3", "indirect", NAS_CLASS_DATA, 0, "ONLINE"},
		{"mirror-2", "mirror", NAS_CLASS_LOG, 2, "ONLINE"},
	};
	nas_layout l;
	check_layout("zpool_list_removed.txt", &l, "tank", "ONLINE", want, 4,
	             "1 mirror (2 removed) + log mirror");
	char data[64];
	nas_layout_data_words(&l, data, sizeof(data));
	assert_string_equal(data, "1 mirror (2 removed)");
	nas_samples s;
	iostat_of("zpool_iostat_removed.txt", &l, &s);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.v[0].at, 1764600002);
	assert_int_equal(s.v[1].cls[NAS_CLASS_DATA].write_bytes, 820000001);
	assert_int_equal(s.v[1].cls[NAS_CLASS_DATA].write_ops, 6201);
	assert_int_equal(s.v[1].cls[NAS_CLASS_LOG].write_bytes, 360000000);
	assert_int_equal(s.v[1].pool.write_bytes, s.v[1].cls[NAS_CLASS_DATA].write_bytes +
	                                              s.v[1].cls[NAS_CLASS_LOG].write_bytes);
	nas_samples_free(&s);
	/* Nothing is ever under a removed vdev (found by fuzz_nas): refused,
	 * never taken for its disks. */
	size_t bad_len;
	char *bad = exact("tank\t100\t10\t90\t-\t-\t3\t14\t1.00\tONLINE\t-\n"
	                  "\tindirect-0\t-\t-\t-\t-\t-\t-\t-\t-\tONLINE\n"
	                  "\tsdf\t500107862016\t-\t-\t-\t-\t-\t-\t-\tONLINE\n", &bad_len);
	nas_layout odd;
	vs_error bad_err = {0};
	assert_int_equal(nas_parse_zpool_list(bad, bad_len, &odd, &bad_err), VS_ERR_PROTOCOL);
	assert_string_equal(bad_err.message, "line 3 of zpool list ('sdf') is under indirect-0, a "
	                                     "removed vdev that holds nothing");
	free(bad);
	/* A zpool that prints no indirect-N line: the same figures. */
	size_t len;
	char *text = load("zpool_iostat_removed.txt", &len), *out = malloc(len);
	size_t n = 0;
	for (char *line = text; line < text + len;) {
		char *nl = memchr(line, '\n', (size_t)(text + len - line));
		size_t k = (size_t)(nl - line) + 1;
		if (strncmp(line, "indirect-", 9) != 0)
			memcpy(out + n, line, k), n += k;
		line += k;
	}
	vs_error err = {0};
	assert_int_equal(nas_parse_iostat(out, n, &l, &s, &err), VS_OK);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.v[1].cls[NAS_CLASS_DATA].write_bytes, 820000001);
	nas_samples_free(&s);
	free(out);
	free(text);
	nas_layout_free(&l);
}

/* A degraded pool: replacing-N and spare-N stand for the disk they
 * replace (a 3-way mirror with one disk being replaced is 3 disks), a
 * disk named by its guid, REMOVED, OFFLINE, FAULTED; spares INUSE, AVAIL.
 * In iostat only the top-level vdevs are added, whatever is under them. */
static void test_degraded_pool(void **state)
{
	(void)state;
	static const want_vdev want[] = {
		{"mirror-0", "mirror", NAS_CLASS_DATA, 3, "DEGRADED"},
		{"mirror-1", "mirror", NAS_CLASS_DATA, 2, "DEGRADED"},
		{"mirror-2", "mirror", NAS_CLASS_DATA, 2, "DEGRADED"},
		{"mirror-3", "mirror", NAS_CLASS_DATA, 2, "DEGRADED"},
		{"mirror-4", "mirror", NAS_CLASS_LOG, 2, "DEGRADED"},
		{"sdm", "disk", NAS_CLASS_SPARE, 1, "INUSE"},
		{"sdn", "disk", NAS_CLASS_SPARE, 1, "AVAIL"},
	};
	nas_layout l;
	check_layout("zpool_list_degraded.txt", &l, "tank", "DEGRADED", want, 7,
	             "4 mirror + log mirror + 2 spare");
	nas_samples s;
	iostat_of("zpool_iostat_degraded.txt", &l, &s);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.v[1].cls[NAS_CLASS_DATA].write_ops, 4 * 5500 + 1);
	assert_int_equal(s.v[1].cls[NAS_CLASS_DATA].write_bytes, 4 * 700000000ULL + 1);
	assert_int_equal(s.v[1].cls[NAS_CLASS_LOG].write_bytes, 600000000);
	assert_int_equal(s.v[1].pool.write_bytes, s.v[1].cls[NAS_CLASS_DATA].write_bytes +
	                                              s.v[1].cls[NAS_CLASS_LOG].write_bytes);
	assert_int_equal(s.v[0].cls[NAS_CLASS_DATA].write_wait_ns, 3100000);
	nas_samples_free(&s);
	nas_layout_free(&l);
}

/* What is under a vdev changes during a run (the resilver ends, a spare
 * comes in) and a line under one may bear the name of the top-level vdev
 * that comes next (ids count within their parent): it has no capacity. */
static void test_iostat_under_vdevs(void **state)
{
	(void)state;
	size_t len;
	char *text = exact("tank\t100\t10\t90\t-\t-\t3\t14\t1.00\tONLINE\t-\n"
	                   "\tmirror-0\t50\t5\t45\t-\t-\t3\t15\t-\tONLINE\n\tsda\t60\t-\t-\t-\t-\t-\t-\t-\tONLINE\n"
	                   "\treplacing-1\t-\t-\t-\t-\t-\t-\t-\t-\tONLINE\n\tsdb\t60\t-\t-\t-\t-\t-\t-\t-\tONLINE\n"
	                   "\tsdc\t60\t-\t-\t-\t-\t-\t-\t-\tONLINE\n"
	                   "\treplacing-1\t50\t5\t45\t-\t-\t3\t15\t-\tONLINE\n\tsdd\t60\t-\t-\t-\t-\t-\t-\t-\tONLINE\n"
	                   "\tsde\t60\t-\t-\t-\t-\t-\t-\t-\tONLINE\n", &len);
	nas_layout l;
	vs_error err = {0};
	assert_int_equal(nas_parse_zpool_list(text, len, &l, &err), VS_OK);
	free(text);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.v[0].n_leaves, 2);
	assert_string_equal(l.v[1].type, "disk");  /* a lone disk being replaced */
	assert_int_equal(l.v[1].n_leaves, 1);
	text = exact("tank\t10\t90\t2\t20\t2\t20\n"
	             "mirror-0\t5\t45\t1\t10\t1\t10\nsda\t0\t0\t1\t5\t1\t5\n"
	             "replacing-1\t0\t0\t0\t5\t0\t5\nsdb\t0\t0\t-\t-\t-\t-\nsdc\t0\t0\t0\t5\t0\t5\n"
	             "replacing-1\t5\t45\t1\t10\t1\t10\nsdd\t0\t0\t1\t10\t1\t10\n"
	             /* the resilver ended: sdb left, replacing-1 with it */
	             "tank\t10\t90\t2\t20\t2\t20\n"
	             "mirror-0\t5\t45\t1\t10\t1\t10\nsda\t0\t0\t1\t5\t1\t5\nsdc\t0\t0\t0\t5\t0\t5\n"
	             "replacing-1\t5\t45\t1\t10\t1\t10\nsdd\t0\t0\t1\t10\t1\t10\n", &len);
	nas_samples s;
	assert_int_equal(nas_parse_iostat(text, len, &l, &s, &err), VS_OK);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.v[0].cls[NAS_CLASS_DATA].write_bytes, 20);
	assert_int_equal(s.v[1].cls[NAS_CLASS_DATA].write_bytes, 20);
	nas_samples_free(&s);
	free(text);
	/* A top-level vdev the layout does not have there: named, refused. */
	text = exact("tank\t10\t90\t2\t20\t2\t20\nmirror-0\t5\t45\t1\t10\t1\t10\nmirror-9\t5\t45\t1\t10\t1\t10\n",
	             &len);
	assert_int_equal(nas_parse_iostat(text, len, &l, &s, &err), VS_ERR_PROTOCOL);
	assert_string_equal(err.message, "line 3 of zpool iostat ('mirror-9') is not the vdev zpool "
	                                 "list has there (replacing-1)");
	free(text);
	nas_layout_free(&l);
}

/* dRAID (ZFS's test suite, redundancy_draid_spare2.ksh): file vdevs named
 * by their path, two disks replaced by distributed spares under spare-N;
 * the spares are no disks. */
static void test_draid(void **state)
{
	(void)state;
	static const want_vdev want[] = {
		{"draid1:2d:10c:3s-0", "draid1:2d:10c:3s", NAS_CLASS_DATA, 10, "DEGRADED"},
		{"draid1-0-0", "dspare", NAS_CLASS_SPARE, 0, "INUSE"},
		{"draid1-0-1", "dspare", NAS_CLASS_SPARE, 0, "INUSE"},
		{"draid1-0-2", "dspare", NAS_CLASS_SPARE, 0, "AVAIL"},
	};
	nas_layout l;
	check_layout("zpool_list_draid.txt", &l, "testpool", "DEGRADED", want, 4, "1 draid1:2d:10c:3s");
	nas_layout_free(&l);
}

/* TrueNAS SCALE: altroot /mnt, disks named by partition uuid. */
static void test_truenas(void **state)
{
	(void)state;
	static const want_vdev want[] = {
		{"raidz2-0", "raidz2", NAS_CLASS_DATA, 6, "ONLINE"},
		{"raidz2-1", "raidz2", NAS_CLASS_DATA, 6, "ONLINE"},
		{"mirror-2", "mirror", NAS_CLASS_SPECIAL, 2, "ONLINE"},
		{"mirror-3", "mirror", NAS_CLASS_LOG, 2, "ONLINE"},
		{"5e1f00d0-0000-4000-8000-000000019998", "disk", NAS_CLASS_CACHE, 1, "ONLINE"},
	};
	nas_layout l;
	check_layout("zpool_list_truenas.txt", &l, "tank", "ONLINE", want, 5,
	             "2 raidz2 + special mirror + log mirror + cache");
	nas_layout_free(&l);
}

/* Mixed data vdevs, every class, several logs and caches (2.3). */
static void test_mixed(void **state)
{
	(void)state;
	static const want_vdev want[] = {
		{"mirror-0", "mirror", NAS_CLASS_DATA, 2, "ONLINE"},
		{"raidz1-1", "raidz1", NAS_CLASS_DATA, 3, "ONLINE"},
		{"sdf", "disk", NAS_CLASS_DATA, 1, "ONLINE"},
		{"replacing-3", "disk", NAS_CLASS_DATA, 1, "ONLINE"},
		{"mirror-4", "mirror", NAS_CLASS_DEDUP, 2, "ONLINE"},
		{"mirror-5", "mirror", NAS_CLASS_SPECIAL, 2, "ONLINE"},
		{"nvme4n1", "disk", NAS_CLASS_LOG, 1, "ONLINE"},
		{"mirror-7", "mirror", NAS_CLASS_LOG, 2, "ONLINE"},
		{"nvme7n1", "disk", NAS_CLASS_CACHE, 1, "ONLINE"},
		{"nvme8n1", "disk", NAS_CLASS_CACHE, 1, "ONLINE"},
		{"sdi", "disk", NAS_CLASS_SPARE, 1, "AVAIL"},
		{"sdj", "disk", NAS_CLASS_SPARE, 1, "AVAIL"},
	};
	nas_layout l;
	check_layout("zpool_list_mixed.txt", &l, "tank", "ONLINE", want, 12,
	             "mixed: mirror, raidz1, 2 disk + dedup mirror + special mirror + 2 log: disk, "
	             "mirror + 2 cache + 2 spare");
	char data[64];
	nas_layout_data_words(&l, data, sizeof(data));
	assert_string_equal(data, "mixed: mirror, raidz1, 2 disk");
	nas_layout_free(&l);
}

/* 2.1: leaves' SIZE '-', its class line, 10 wait columns in iostat. */
static void test_openzfs_21(void **state)
{
	(void)state;
	static const want_vdev want[] = {
		{"raidz1-0", "raidz1", NAS_CLASS_DATA, 3, "ONLINE"},
		{"sdd", "disk", NAS_CLASS_LOG, 1, "ONLINE"},
		{"sde", "disk", NAS_CLASS_LOG, 1, "ONLINE"},
		{"sdf", "disk", NAS_CLASS_CACHE, 1, "ONLINE"},
	};
	nas_layout l;
	check_layout("zpool_list_21.txt", &l, "data", "ONLINE", want, 4, "1 raidz1 + 2 log + cache");
	nas_samples s;
	iostat_of("zpool_iostat_21.txt", &l, &s);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.v[0].at, 0);
	assert_int_equal(s.v[1].cls[NAS_CLASS_DATA].write_bytes, 60000001);
	assert_int_equal(s.v[1].cls[NAS_CLASS_LOG].write_bytes, 30000000);
	/* the logs' waits, weighted by their writes: (80 + 90) / 2 us */
	assert_int_equal(s.v[1].cls[NAS_CLASS_LOG].write_wait_ns, 85000);
	assert_int_equal(s.v[1].cls[NAS_CLASS_CACHE].read_bytes, 1900000);
	nas_samples_free(&s);
	nas_layout_free(&l);
}

/* A pool's name as long as ZFS allows (239 characters: room for
 * "/$ORIGIN@$ORIGIN" in 256), through zpool list and iostat. */
static void test_longest_pool_name(void **state)
{
	(void)state;
	char name[240];
	memset(name, 'p', 239);
	name[239] = '\0';
	assert_true(nas_name_ok(name, true));
	char list[1024], io[1024];
	snprintf(list, sizeof(list), "%s\t100\t10\t90\t-\t-\t3\t14\t1.00\tONLINE\t-\n"
	                             "\tsda\t100\t10\t90\t-\t-\t3\t14\t-\tONLINE\n", name);
	snprintf(io, sizeof(io), "%s\t10\t90\t1\t2\t3\t4\nsda\t10\t90\t1\t2\t3\t4\n", name);
	size_t len;
	char *text = exact(list, &len);
	nas_layout l;
	vs_error err = {0};
	assert_int_equal(nas_parse_zpool_list(text, len, &l, &err), VS_OK);
	free(text);
	assert_string_equal(l.pool, name);
	text = exact(io, &len);
	nas_samples s;
	assert_int_equal(nas_parse_iostat(text, len, &l, &s, &err), VS_OK);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.v[0].cls[NAS_CLASS_DATA].write_bytes, 4);
	nas_samples_free(&s);
	free(text);
	nas_layout_free(&l);
}

static void status_says(const char *file, const char *words)
{
	size_t len;
	char *text = load(file, &len);
	nas_activity a;
	nas_parse_zpool_status(text, len, &a);
	free(text);
	assert_string_equal(a.words, words);
}

/* What is in progress, from zpool status; a paused scrub is nothing. */
static void test_zpool_status(void **state)
{
	(void)state;
	status_says("zpool_status_resilver.txt", "resilver 43%");
	status_says("zpool_status_issue7537.txt", "resilver 66%");
	status_says("zpool_status_draid.txt", "resilver 78%");
	status_says("zpool_status_removing.txt", "removal 34%");
	size_t len;
	char *text = exact("  pool: tank\n state: ONLINE\n  scan: scrub repaired 0B in 07:12:57 with 0 "
	                   "errors on Tue Jan 17 18:12:00 2023\nconfig:\n", &len);
	nas_activity a;
	nas_parse_zpool_status(text, len, &a);
	assert_string_equal(a.words, "");
	free(text);
	text = exact("  scan: scrub in progress since Sat Dec  5 05:12:40 2026\n", &len);
	nas_parse_zpool_status(text, len, &a);
	assert_string_equal(a.words, "scrub");  /* cut before its figures */
	free(text);
	char words[160];
	bool healthy;
	strcpy(a.words, "resilver 43%");
	nas_health_words("DEGRADED", &a, words, sizeof(words), &healthy);
	assert_string_equal(words, "DEGRADED (resilver 43%)");
	assert_false(healthy);
	a.words[0] = '\0';
	nas_health_words("ONLINE", &a, words, sizeof(words), &healthy);
	assert_string_equal(words, "ONLINE");
	assert_true(healthy);
}

/* 2.1's objset kstat (7 rows, node_exporter's fixture) and 2.3's zil
 * rows (telegraf's): the rows known are read, the others passed. */
static void test_kstats_21_and_23(void **state)
{
	(void)state;
	size_t len;
	nas_counters c;
	vs_error err = {0};
	char *text = load("objset-1_21", &len);
	assert_int_equal(nas_parse_kstats(text, len, &c, &err), VS_OK);
	free(text);
	assert_true(c.objset.found);
	assert_string_equal(c.objset.dataset, "pool1");
	assert_int_equal(c.objset.nwritten, 0);
	text = load("zil_23", &len);
	assert_int_equal(nas_parse_kstats(text, len, &c, &err), VS_OK);
	free(text);
	assert_true(c.zil.found);
	assert_int_equal(c.zil.commit_count, 52922839);
	assert_int_equal(c.zil.itx_count, 233503943);
	assert_int_equal(c.zil.normal_bytes, 373878414872);
	assert_int_equal(c.zil.slog_bytes, 0);
	text = load("objset-0x196_23", &len);
	assert_int_equal(nas_parse_kstats(text, len, &c, &err), VS_OK);
	free(text);
	assert_true(c.objset.found);
	assert_false(c.zil.found);
	assert_string_equal(c.objset.dataset, "zroot-nas/000196");
}

/* The pool's txg history (spa_txg_history_show @ zfs-2.2.0): ten txgs
 * committed, one syncing, one open. */
static void test_txgs(void **state)
{
	(void)state;
	size_t len;
	nas_txgs t;
	vs_error err = {0};
	char *text = load("txgs", &len);
	assert_int_equal(nas_parse_txgs(text, len, &t, &err), VS_OK);
	assert_true(t.found);
	assert_int_equal(t.n, 12);
	assert_int_equal(t.v[0].txg, 1840201);
	assert_int_equal(t.v[0].ndirty, 12582912);
	assert_int_equal(t.v[0].stime, 48210337);
	/* birth + otime + qtime + wtime + stime */
	assert_int_equal(t.v[0].synced, 2589029959677ULL + 5000123456ULL + 4130 + 9870 + 48210337);
	assert_int_equal(t.v[9].txg, 1840210);
	assert_int_equal(t.v[9].synced, 2618493302100ULL - 1200000000ULL);
	assert_int_equal(t.v[9].stime, 1466010870);
	assert_int_equal(t.v[10].synced, 0);  /* S: syncing, not committed */
	assert_int_equal(t.v[11].synced, 0);  /* O: open */
	nas_txgs_free(&t);
	/* zfs_txg_history = 0: the titles alone */
	char *end = strchr(text, '\n');
	assert_int_equal(nas_parse_txgs(text, (size_t)(end + 1 - text), &t, &err), VS_OK);
	assert_true(t.found);
	assert_int_equal(t.n, 0);
	/* A line that is not a txg's is named, and nothing is kept. */
	char *bad = malloc(len);
	memcpy(bad, text, len);
	bad[strstr(text, "1840205  ") - text + 30] = 'X';
	assert_int_equal(nas_parse_txgs(bad, len, &t, &err), VS_ERR_PROTOCOL);
	assert_string_equal(err.message, "line 6 of the txgs is not a txg's: '1840205  2606634819775    C   X "
	                                 "1476395008   0            2952790016   9        '");
	assert_false(t.found);
	assert_null(t.v);
	bad[0] = 'T';  /* not OpenZFS's titles */
	assert_int_equal(nas_parse_txgs(bad, len, &t, &err), VS_ERR_PROTOCOL);
	assert_non_null(strstr(err.message, "the txgs' titles are not OpenZFS's"));
	free(bad);
	free(text);
}

/* A reading with the txgs after its kstats (the first and the last of
 * nas_counters_job); txgs it cannot read cost them alone. */
static void test_kstat_series_with_txgs(void **state)
{
	(void)state;
	size_t a, z, o, t;
	char *arc = load("arcstats", &a), *zil = load("zil", &z), *os = load("objset-0x36", &o),
	     *txgs = load("txgs", &t);
	size_t size = 2 * (a + z + o + t) + 128, len = 0;
	char *all = malloc(size);
	assert_non_null(all);
	for (int k = 0; k < 2; k++) {
		memcpy(all + len, arc, a);
		memcpy(all + len + a, zil, z);
		memcpy(all + len + a + z, os, o);
		memcpy(all + len + a + z + o, txgs, t);
		len += a + z + o + t;
		len += (size_t)snprintf(all + len, size - len, "1764600000.%d\n", k + 1);
	}
	nas_readings r;
	vs_error err = {0};
	assert_int_equal(nas_parse_kstat_series(all, len, &r, &err), VS_OK);
	assert_int_equal(r.n, 2);
	assert_true(r.v[0].c.objset.found);
	assert_int_equal(r.v[0].c.snaptime, 2618493302100ULL);  /* the objset's, the last header */
	assert_true(r.v[1].txgs.found);
	assert_int_equal(r.v[1].txgs.n, 12);
	assert_string_equal(r.txgs_why, "");
	nas_readings_free(&r);
	/* The second reading's txgs damaged: both readings kept, its txgs not. */
	char *second = all + a + z + o + t + strlen("1764600000.1\n") + a + z + o;
	second[strstr(second, "1840203") - second] = 'x';
	assert_int_equal(nas_parse_kstat_series(all, len, &r, &err), VS_OK);
	assert_int_equal(r.n, 2);
	assert_true(r.v[0].txgs.found);
	assert_false(r.v[1].txgs.found);
	assert_true(r.v[1].c.objset.found);
	assert_non_null(strstr(r.txgs_why, "line 4 of the txgs is not a txg's: 'x840203 "));
	nas_readings_free(&r);
	/* ZoL 0.7's raw kstat header before the titles: the txgs alone lost. */
	static const char raw[] = "13 0 0x01 12 1344 5327563469 2618493302100\n";
	len = 0;
	memcpy(all, arc, a);
	memcpy(all + a, zil, z);
	memcpy(all + a + z, os, o);
	memcpy(all + a + z + o, raw, strlen(raw));
	memcpy(all + a + z + o + strlen(raw), txgs, t);
	len = a + z + o + strlen(raw) + t;
	len += (size_t)snprintf(all + len, size - len, "1764600000.5\n");
	assert_int_equal(nas_parse_kstat_series(all, len, &r, &err), VS_OK);
	assert_int_equal(r.n, 1);
	assert_true(r.v[0].c.objset.found);
	assert_false(r.v[0].txgs.found);
	assert_string_equal(r.txgs_why, "the txgs' titles are not OpenZFS's: '13 0 0x01 12 1344 "
	                                "5327563469 2618493302100'");
	nas_readings_free(&r);
	free(all);
	free(arc);
	free(zil);
	free(os);
	free(txgs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_zfs_list_and_export_paths),
		cmocka_unit_test(test_zfs_list_root_mount_and_damage),
		cmocka_unit_test(test_zfs_get),
		cmocka_unit_test(test_zpool_list_mirrors),
		cmocka_unit_test(test_zpool_list_raidz2_spare),
		cmocka_unit_test(test_iostat_classes_apart_leaves_never_added),
		cmocka_unit_test(test_iostat_refuses_wrapped_rates),
		cmocka_unit_test(test_iostat_damage),
		cmocka_unit_test(test_kstats_each_file),
		cmocka_unit_test(test_kstats_concatenated),
		cmocka_unit_test(test_kstats_damage),
		cmocka_unit_test(test_kstat_series),
		cmocka_unit_test(test_removed_vdevs),
		cmocka_unit_test(test_degraded_pool),
		cmocka_unit_test(test_iostat_under_vdevs),
		cmocka_unit_test(test_draid),
		cmocka_unit_test(test_truenas),
		cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_openzfs_21),
		cmocka_unit_test(test_longest_pool_name),
		cmocka_unit_test(test_zpool_status),
		cmocka_unit_test(test_kstats_21_and_23),
		cmocka_unit_test(test_txgs),
		cmocka_unit_test(test_kstat_series_with_txgs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
