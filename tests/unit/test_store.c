/* The results database: creation, rows and labels, queries, migrations,
 * refusing foreign files, locks and crashes.  The raw sqlite3 connections
 * here play the other programs (another nfsagent, another application). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"

static char root[256];

static const char *in_root(const char *name)
{
	static char path[512];
	snprintf(path, sizeof(path), "%s/%s", root, name);
	return path;
}

static void rm_rf(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return;
	DIR *d = S_ISDIR(st.st_mode) ? opendir(path) : NULL;
	for (struct dirent *e; d && (e = readdir(d));) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char child[1024];
		snprintf(child, sizeof(child), "%s/%s", path, e->d_name);
		rm_rf(child);
	}
	if (d)
		closedir(d), rmdir(path);
	else
		unlink(path);
}

static int setup(void **state)
{
	(void)state;
	const char *tmp = getenv("TMPDIR");
	snprintf(root, sizeof(root), "%s/nfsagent-store-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(root);
	return 0;
}

/* ---- the other programs: raw SQLite ---- */

static sqlite3 *raw_open(const char *path)
{
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	return db;
}

static void raw_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
}

/* The first column of the first row, "" if none. */
static const char *raw_text(const char *path, const char *sql)
{
	static char buf[256];
	sqlite3 *db = raw_open(path);
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	buf[0] = '\0';
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, sizeof(buf), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return buf;
}

static int raw_int(const char *path, const char *sql)
{
	return atoi(raw_text(path, sql));
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *buf = malloc(1 << 20);
	assert_non_null(buf);
	*n = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

static int mode_of(const char *path)
{
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	return (int)(st.st_mode & 0777);
}

/* ---- sample results, as the seeds' admins recorded them by hand ---- */

static const na_label labels_64k[] = {{"recordsize", "64K"}, {"slog", "none"}};
static const na_label labels_64k_slog[] = {{"recordsize", "64K"}, {"slog", "HPE-EO000400JWDKP"}};
static const na_label labels_16k[] = {{"recordsize", "16K"}, {"slog", "HPE-EO000400JWDKP"}};

static na_result sample(const char *host, const char *ds, const char *type, const na_label *labels,
                        size_t n_labels)
{
	na_result r = {
		.started_at = "2026-10-03T09:00:00Z", .finished_at = "2026-10-03T09:01:02Z",
		.status = "ok", .repetition = 1,
		.vcenter = "vc.lab.example", .vcenter_version = "8.0.3", .vcenter_build = "24022515",
		.host = host, .esxi_version = "8.0.3", .esxi_build = "24022510",
		.datastore = ds, .datastore_type = type, .servers = "10.0.20.5",
		.export_path = "/mnt/tank/vmware",
		.vm = "fiotest", .guest_os = "Ubuntu 24.04", .disk = "/dev/sdb",
		.profile = "randwrite-4k", .fio_version = "fio-3.36",
		.link_speed_mbit = "10000", .link_nic = "vmnic1",
		.job_file = "[randwrite]\nbs=4k\nrw=randwrite\niodepth=32\nnumjobs=4\ndirect=1\n",
		.write = {true, 37400, 153e6, 3400, 2900, 4100, 5900, 7200, 31000, 2244000, 60000},
		.fio_json = "{\"fio version\": \"fio-3.36\", \"jobs\": []}",
		.host_counters_json = "{\"samples\": [{\"t\": 0, \"write_iops\": 16600}]}",
		.labels = labels, .n_labels = n_labels,
	};
	return r;
}

/* The three samples in a database of the given schema version. */
static na_store *open_version_with_samples(const char *path, int version)
{
	na_store *s = NULL;
	vs_error err = {0};
	assert_int_equal(na_store_open_version(path, version, &s, &err), VS_OK);
	na_result rows[] = {
		sample("esx1", "truenas-vmware", "NFS41", labels_64k, 2),
		sample("esx1", "truenas-vmware", "NFS41", labels_64k_slog, 2),
		sample("esx2", "truenas-vmware16k", "NFS", labels_16k, 2),
	};
	rows[1].repetition = 2;
	rows[2].export_path = "/mnt/tank/vmware16k";
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(na_store_add(s, &rows[i], &err), VS_OK);
		assert_int_equal(rows[i].id, (int64_t)i + 1);
	}
	return s;
}

static na_store *open_with_samples(const char *path)
{
	return open_version_with_samples(path, na_store_schema_version());
}

/* ---- queries: the ids that matched ---- */

typedef struct found {
	int64_t ids[16];
	size_t n;
} found;

static int collect(const na_result *r, void *ud, vs_error *err)
{
	(void)err;
	found *f = ud;
	if (f->n < 16)
		f->ids[f->n] = r->id;
	f->n++;
	return VS_OK;
}

/* The ids matching the conditions, as "1,2,3". */
static const char *ids_where(na_store *s, const char *const *conds, size_t n)
{
	static char out[128];
	found f = {0};
	vs_error err = {0};
	assert_int_equal(na_store_query(s, conds, n, collect, &f, &err), VS_OK);
	out[0] = '\0';
	for (size_t i = 0; i < f.n && i < 16; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%lld", i ? "," : "",
		         (long long)f.ids[i]);
	return out;
}

#define WHERE(s, ...) \
	ids_where(s, (const char *const[]){__VA_ARGS__}, sizeof((const char *const[]){__VA_ARGS__}) / sizeof(char *))

/* ---- tests ---- */

/* The datastore's type is called protocol too: one table says so, for
 * every place that takes or shows the name. */
static void fields_are_named_by_alias(void **state)
{
	(void)state;
	assert_int_equal(na_field_named("protocol", 8), NA_FIELD_datastore_type);
	assert_int_equal(na_field_named("protocol=NFS", 8), NA_FIELD_datastore_type);
	assert_int_equal(na_field_named("datastore_type", 14), NA_FIELD_datastore_type);
	assert_int_equal(na_field_named("zfs_sync", 8), NA_FIELD_zfs_sync);
	assert_int_equal(na_field_named("protoco", 7), -1);
	assert_string_equal(na_field_shown(NA_FIELD_datastore_type), "protocol");
	assert_string_equal(na_field_shown(NA_FIELD_host), "host");
	assert_true(na_store_is_field("protocol"));
}

static void creates_private_wal_database(void **state)
{
	(void)state;
	const char *path = strdup(in_root("create.db"));
	na_store *s = open_with_samples(path);
	assert_string_equal(na_store_path(s), path);
	assert_int_equal(mode_of(path), 0600);
	char side[600];
	snprintf(side, sizeof(side), "%s-wal", path);
	assert_int_equal(mode_of(side), 0600);
	snprintf(side, sizeof(side), "%s-shm", path);
	assert_int_equal(mode_of(side), 0600);
	assert_string_equal(raw_text(path, "PRAGMA journal_mode"), "wal");
	assert_int_equal(raw_int(path, "PRAGMA user_version"), na_store_schema_version());
	assert_true(na_store_schema_version() >= 2);
	assert_string_equal(raw_text(path, "SELECT value FROM nfsagent_meta WHERE key = 'application'"),
	                    "nfsagent");
	na_store_close(&s);
	assert_null(s);
	free((char *)path);
}

static void default_location_is_xdg_then_home(void **state)
{
	(void)state;
	char *old_xdg = getenv("XDG_DATA_HOME") ? strdup(getenv("XDG_DATA_HOME")) : NULL;
	char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	char want[600];
	na_store *s = NULL;
	vs_error err = {0};

	setenv("XDG_DATA_HOME", in_root("xdg/data"), 1);
	snprintf(want, sizeof(want), "%s/xdg/data/nfsagent/results.db", root);
	assert_int_equal(na_store_open(NULL, &s, &err), VS_OK);
	assert_string_equal(na_store_path(s), want);
	assert_int_equal(mode_of(want), 0600);
	assert_int_equal(mode_of(in_root("xdg")), 0700);
	assert_int_equal(mode_of(in_root("xdg/data/nfsagent")), 0700);
	na_store_close(&s);

	/* the XDG spec ignores a relative XDG_DATA_HOME */
	setenv("XDG_DATA_HOME", "relative/data", 1);
	setenv("HOME", in_root("home"), 1);
	snprintf(want, sizeof(want), "%s/home/.local/share/nfsagent/results.db", root);
	assert_int_equal(na_store_open(NULL, &s, &err), VS_OK);
	assert_string_equal(na_store_path(s), want);
	assert_int_equal(mode_of(in_root("home/.local/share")), 0700);
	na_store_close(&s);

	unsetenv("XDG_DATA_HOME");
	unsetenv("HOME");
	assert_int_equal(na_store_open(NULL, &s, &err), VS_ERR_USAGE);
	assert_null(s);

	old_xdg ? setenv("XDG_DATA_HOME", old_xdg, 1) : unsetenv("XDG_DATA_HOME");
	old_home ? setenv("HOME", old_home, 1) : unsetenv("HOME");
	free(old_xdg), free(old_home);
}

static int check_first_row(const na_result *r, void *ud, vs_error *err)
{
	(void)err;
	const na_result *want = ud;
	assert_int_equal(r->id, 1);
	assert_string_equal(r->started_at, want->started_at);
	assert_string_equal(r->finished_at, want->finished_at);
	assert_string_equal(r->status, "ok");
	assert_null(r->error);
	assert_null(r->campaign);
	assert_null(r->target);
	assert_int_equal(r->repetition, 1);
	assert_string_equal(r->vcenter_build, want->vcenter_build);
	assert_string_equal(r->esxi_build, want->esxi_build);
	assert_string_equal(r->datastore_type, "NFS41");
	assert_string_equal(r->servers, want->servers);
	assert_string_equal(r->export_path, want->export_path);
	assert_string_equal(r->guest_os, want->guest_os);
	assert_string_equal(r->disk, want->disk);
	assert_string_equal(r->job_file, want->job_file);
	assert_string_equal(r->fio_version, want->fio_version);
	assert_string_equal(r->fio_json, want->fio_json);
	assert_string_equal(r->host_counters_json, want->host_counters_json);
	assert_false(r->read.present);
	assert_true(r->write.present);
	assert_true(r->write.iops == want->write.iops && r->write.bw_bytes == want->write.bw_bytes);
	assert_true(r->write.p99_us == want->write.p99_us && r->write.p999_us == want->write.p999_us);
	assert_true(r->write.max_us == want->write.max_us);
	assert_int_equal(r->write.total_ios, want->write.total_ios);
	assert_int_equal(r->write.runtime_ms, 60000);
	assert_int_equal(r->n_labels, 2);
	assert_string_equal(r->labels[0].key, "recordsize");
	assert_string_equal(r->labels[0].value, "64K");
	assert_string_equal(r->labels[1].key, "slog");
	assert_string_equal(r->labels[1].value, "none");
	return VS_OK;
}

static int stop_at_first(const na_result *r, void *ud, vs_error *err)
{
	(void)r, (void)ud;
	return vs_fail(err, VS_ERR_USAGE, "enough");
}

static void queries_by_provenance_and_labels(void **state)
{
	(void)state;
	na_store *s = open_with_samples(in_root("query.db"));
	vs_error err = {0};
	na_result want = sample("esx1", "truenas-vmware", "NFS41", labels_64k, 2);
	const char *first[] = {"id=1"};
	assert_int_equal(na_store_query(s, first, 1, check_first_row, &want, &err), VS_OK);

	assert_string_equal(ids_where(s, NULL, 0), "1,2,3");
	assert_string_equal(WHERE(s, "host=esx1"), "1,2");
	assert_string_equal(WHERE(s, "datastore=truenas-vmware16k"), "3");
	assert_string_equal(WHERE(s, "recordsize=64K"), "1,2");
	assert_string_equal(WHERE(s, "slog=HPE-EO000400JWDKP"), "2,3");
	assert_string_equal(WHERE(s, "host=esx1", "slog=HPE-EO000400JWDKP"), "2");
	assert_string_equal(WHERE(s, "protocol=NFS41"), "1,2");
	assert_string_equal(WHERE(s, "protocol=NFS", "recordsize=16K"), "3");
	assert_string_equal(WHERE(s, "datastore_type=NFS"), "3");
	assert_string_equal(WHERE(s, "repetition=2"), "2");
	assert_string_equal(WHERE(s, "export_path=/mnt/tank/vmware16k"), "3");
	assert_string_equal(WHERE(s, "recordsize=128K"), "");
	assert_string_equal(WHERE(s, "host=esx1", "host=esx2"), "");
	/* vSphere's NFS and NFS41, as people write them */
	assert_string_equal(WHERE(s, "protocol=NFSv4.1"), "1,2");
	assert_string_equal(WHERE(s, "protocol=nfs4.1"), "1,2");
	assert_string_equal(WHERE(s, "protocol=NFS41"), "1,2");
	assert_string_equal(WHERE(s, "protocol=NFS3"), "3");
	assert_string_equal(WHERE(s, "datastore_type=nfsv3"), "3");
	assert_string_equal(WHERE(s, "protocol=NFS4.2"), "");

	/* a field that is neither a column nor a recorded label: refused, naming them */
	const char *unknown[] = {"protcol=NFS"};
	assert_int_equal(na_store_query(s, unknown, 1, collect, NULL, &err), VS_ERR_USAGE);
	assert_string_equal(err.message, "no field or label is called 'protcol': the fields are "
	                    "protocol, id, status, campaign, target, repetition, vcenter, vcenter_version, "
	                    "vcenter_build, host, esxi_version, esxi_build, datastore, datastore_type, "
	                    "servers, export_path, vm, guest_os, disk, profile, fio_version, started_at, "
	                    "finished_at, runner, uuid, link_speed_mbit, link_nic, nfs_client, site, zfs_recordsize, zfs_sync, "
	                    "zfs_compression, zfs_atime, zfs_logbias, zfs_primarycache, zfs_special_small_blocks, zfs_pool_layout, "
	                    "zfs_pool_health; "
	                    "the labels recorded are recordsize, slog");
	assert_string_equal(err.context, "");

	/* why nothing matched, in words */
	const char *none[] = {"host=esx1", "recordsize=128K"};
	err = (vs_error){0};
	assert_int_equal(na_store_explain_none(s, none, 2, &err), VS_ERR_NOT_FOUND);
	assert_string_equal(err.message, "no result has recordsize=128K (recorded: 16K, 64K)");
	const char *nfs3[] = {"protocol=NFSv3", "host=esx1"};
	assert_int_equal(na_store_explain_none(s, nfs3, 2, &err), VS_ERR_NOT_FOUND);
	assert_string_equal(err.message, "no result has protocol=NFSv3 and host=esx1 together, though "
	                    "each of them matches some");
	const char *vm[] = {"vm=db01"};
	assert_int_equal(na_store_explain_none(s, vm, 1, &err), VS_ERR_NOT_FOUND);
	assert_string_equal(err.message, "no result has vm=db01 (recorded: fiotest)");

	found f = {0};
	const char *bad[][1] = {{"host"}, {"=esx1"}, {""}};
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(na_store_query(s, bad[i], 1, collect, &f, &err), VS_ERR_USAGE);
		assert_string_equal(err.context, "query results");
	}
	assert_int_equal(f.n, 0);
	/* the callback's error stops the query and comes back untouched */
	err = (vs_error){0};
	assert_int_equal(na_store_query(s, NULL, 0, stop_at_first, NULL, &err), VS_ERR_USAGE);
	assert_string_equal(err.message, "enough");
	assert_string_equal(err.context, "");
	na_store_close(&s);
}

static void injection_is_only_data(void **state)
{
	(void)state;
	const char *path = strdup(in_root("inject.db"));
	na_store *s = open_with_samples(path);
	assert_string_equal(WHERE(s, "host=x' OR '1'='1"), "");
	assert_string_equal(WHERE(s, "host=esx1'; DROP TABLE results;--"), "");
	/* fields that are no column are label keys, unknown ones refused */
	const char *hostile[] = {"x'; DROP TABLE results;--=1", "host) OR (1=1", "1=1"};
	for (size_t i = 0; i < 3; i++) {
		vs_error e = {0};
		assert_int_equal(na_store_query(s, &hostile[i], 1, collect, NULL, &e), VS_ERR_USAGE);
		assert_non_null(strstr(e.message, "no field or label is called"));
	}

	/* hostile labels are stored and found as plain text */
	na_label evil[] = {{"k'); DROP TABLE result_labels;--", "v' OR 1=1 --"}};
	na_result r = sample("esx3", "x'; DELETE FROM results;--", "NFS", evil, 1);
	vs_error err = {0};
	assert_int_equal(na_store_add(s, &r, &err), VS_OK);
	assert_string_equal(WHERE(s, "k'); DROP TABLE result_labels;--=v' OR 1=1 --"), "4");
	assert_string_equal(WHERE(s, "datastore=x'; DELETE FROM results;--"), "4");
	na_store_close(&s);

	assert_int_equal(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE name IN "
	                         "('results', 'result_labels', 'nfsagent_meta')"), 3);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM results"), 4);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM result_labels"), 7);
	free((char *)path);
}

static void failed_run_keeps_its_error_and_no_stats(void **state)
{
	(void)state;
	const char *path = strdup(in_root("failed.db"));
	na_store *s = open_with_samples(path);
	vs_error err = {0};
	na_result r = sample("esx1", "truenas-vmware", "NFS41", NULL, 0);
	r.status = "failed";
	r.error = "fio: io_u error on file /root/fio.test: No space left on device: write offset=0";
	r.read = (na_dir_stats){true, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};  /* half-parsed output */
	assert_int_equal(na_store_add(s, &r, &err), VS_OK);
	assert_string_equal(WHERE(s, "status=failed"), "4");
	assert_int_equal(raw_int(path, "SELECT count(*) FROM results WHERE id = 4 AND read_iops IS NULL "
	                         "AND write_iops IS NULL AND read_runtime_ms IS NULL"), 1);
	assert_string_equal(raw_text(path, "SELECT error FROM results WHERE id = 4"), r.error);

	/* invalid results are refused and leave nothing behind */
	na_result bad = sample("esx1", "ds", "NFS", NULL, 0);
	bad.status = "failed";
	assert_int_equal(na_store_add(s, &bad, &err), VS_ERR_USAGE);
	bad.status = "maybe";
	assert_int_equal(na_store_add(s, &bad, &err), VS_ERR_USAGE);
	na_label eq[] = {{"a=b", "c"}};
	bad = sample("esx1", "ds", "NFS", eq, 1);
	assert_int_equal(na_store_add(s, &bad, &err), VS_ERR_USAGE);
	assert_string_equal(err.context, "record result");
	/* a label that fails half-way rolls the result back too */
	na_label twice[] = {{"slog", "a"}, {"slog", "b"}};
	bad = sample("esx1", "ds", "NFS", twice, 2);
	assert_int_equal(na_store_add(s, &bad, &err), VS_ERR_FAULT);
	assert_int_equal(bad.id, 0);
	assert_string_equal(ids_where(s, NULL, 0), "1,2,3,4");
	na_store_close(&s);
	free((char *)path);
}

static void reopen_keeps_rows(void **state)
{
	(void)state;
	na_store *s = open_with_samples(in_root("reopen.db"));
	na_store_close(&s);
	vs_error err = {0};
	assert_int_equal(na_store_open(in_root("reopen.db"), &s, &err), VS_OK);
	assert_string_equal(ids_where(s, NULL, 0), "1,2,3");
	assert_string_equal(WHERE(s, "recordsize=16K"), "3");
	na_store_close(&s);
}

static void version_1_is_migrated(void **state)
{
	(void)state;
	const char *path = strdup(in_root("v1.db"));
	const char *index = "SELECT count(*) FROM sqlite_master WHERE type = 'index' "
	                    "AND name = 'result_labels_key_value'";
	na_store *s = NULL;
	vs_error err = {0};
	assert_int_equal(na_store_open_version(path, 1, &s, &err), VS_OK);
	na_result r = sample("esx1", "truenas-vmware", "NFS41", labels_64k, 2);
	assert_int_equal(na_store_add(s, &r, &err), VS_OK);
	na_store_close(&s);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 1);
	assert_int_equal(raw_int(path, index), 0);

	assert_int_equal(na_store_open(path, &s, &err), VS_OK);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), na_store_schema_version());
	assert_int_equal(raw_int(path, index), 1);
	assert_string_equal(WHERE(s, "recordsize=64K"), "1");
	na_store_close(&s);
	free((char *)path);
}

static int link_of(const na_result *r, void *ud, vs_error *err)
{
	(void)err;
	snprintf(ud, 64, "%s %s", r->link_speed_mbit ? r->link_speed_mbit : "NULL",
	         r->link_nic ? r->link_nic : "NULL");
	return VS_OK;
}

/* Where fio ran: a file from before the site step reads every result as
 * the guest's, read only and once upgraded; a baseline records "nas". */
static void the_site_is_recorded(void **state)
{
	(void)state;
	const char *path = strdup(in_root("site.db"));
	na_store *s = open_version_with_samples(path, 17);  /* the link, not the site */
	na_store_close(&s);
	vs_error err = {0};
	assert_int_equal(na_store_open_readonly(path, &s, &err), VS_OK);
	assert_string_equal(WHERE(s, "site=guest"), "1,2,3");
	assert_string_equal(WHERE(s, "site=nas"), "");
	na_store_close(&s);
	assert_int_equal(na_store_open(path, &s, &err), VS_OK);
	na_result r = sample("esx1", "truenas-vmware", "NFS41", labels_64k, 2);
	r.repetition = 3;
	r.site = "nas";
	assert_int_equal(na_store_add(s, &r, &err), VS_OK);
	assert_string_equal(WHERE(s, "site=guest"), "1,2,3");
	assert_string_equal(WHERE(s, "site=nas"), "4");
	na_store_close(&s);
	free((char *)path);
}

/* The host's link is recorded with each result (Mb/s and its uplink); a
 * file from before the link step reads it as unknown, and the upgrade
 * leaves older results so. */
static void the_link_is_recorded(void **state)
{
	(void)state;
	const char *path = strdup(in_root("link.db"));
	na_store *s = open_version_with_samples(path, 15);  /* before the link step */
	na_store_close(&s);
	vs_error err = {0};
	char link[64] = "";
	const char *first[] = {"id=1"};
	assert_int_equal(na_store_open_readonly(path, &s, &err), VS_OK);
	assert_string_equal(WHERE(s, "link_speed_mbit=10000"), "");
	assert_int_equal(na_store_query(s, first, 1, link_of, link, &err), VS_OK);
	assert_string_equal(link, "NULL NULL");
	na_store_close(&s);
	assert_int_equal(na_store_open(path, &s, &err), VS_OK);
	na_result r = sample("esx1", "truenas-vmware", "NFS41", labels_64k, 2);
	r.repetition = 3;
	assert_int_equal(na_store_add(s, &r, &err), VS_OK);
	assert_string_equal(WHERE(s, "link_speed_mbit=10000"), "4");
	assert_string_equal(WHERE(s, "link_nic=vmnic1"), "4");
	const char *fourth[] = {"id=4"};
	assert_int_equal(na_store_query(s, fourth, 1, link_of, link, &err), VS_OK);
	assert_string_equal(link, "10000 vmnic1");
	assert_int_equal(raw_int(path, "SELECT link_speed_mbit + 0 FROM results WHERE id = 4"), 10000);
	na_store_close(&s);
	free((char *)path);
}

/* Every result has a UUID of its own: made when it is recorded, and given
 * by the upgrade to results recorded before schema 12 (whose runner stays
 * unknown); a new one names the host it was recorded on. */
static void every_result_gets_a_uuid(void **state)
{
	(void)state;
	const char *path = strdup(in_root("uuid.db"));
	const char *v4 = "SELECT count(*) FROM results WHERE length(uuid) = 36 AND lower(uuid) = uuid"
	                 " AND substr(uuid, 9, 1) || substr(uuid, 14, 1) || substr(uuid, 19, 1)"
	                 " || substr(uuid, 24, 1) = '----' AND substr(uuid, 15, 1) = '4'"
	                 " AND substr(uuid, 20, 1) IN ('8', '9', 'a', 'b')";
	na_store *s = open_version_with_samples(path, 11);
	na_store_close(&s);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM pragma_table_info('results') "
	                               "WHERE name IN ('uuid', 'runner')"), 0);
	vs_error err = {0};
	assert_int_equal(na_store_open(path, &s, &err), VS_OK);
	na_result r = sample("esx1", "truenas-vmware", "NFS41", labels_64k, 2);
	assert_int_equal(na_store_add(s, &r, &err), VS_OK);
	assert_null(r.uuid);  /* the caller's struct keeps no pointer into the store */
	na_store_close(&s);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM results"), 4);
	assert_int_equal(raw_int(path, v4), 4);
	assert_int_equal(raw_int(path, "SELECT count(DISTINCT uuid) FROM results"), 4);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM results WHERE runner IS NULL"), 3);
	char host[256] = "";
	assert_int_equal(gethostname(host, sizeof(host) - 1), 0);
	assert_string_equal(raw_text(path, "SELECT runner FROM results WHERE id = 4"), host);
	/* a finding too */
	assert_int_equal(na_store_open(path, &s, &err), VS_OK);
	na_finding f = {.at = "2026-10-03T09:00:00Z", .kind = "probe", .host = "esx1",
	                .verdict = "the extent bug showed", .extent_bug = true};
	assert_int_equal(na_store_add_finding(s, &f, &err), VS_OK);
	na_store_close(&s);
	assert_string_equal(raw_text(path, "SELECT runner FROM findings"), host);
	assert_int_equal(raw_int(path, "SELECT length(uuid) FROM findings"), 36);
	/* a reader sees them as fields, a reader of an older file as unknown */
	assert_int_equal(na_store_open_readonly(path, &s, &err), VS_OK);
	char cond[300];
	snprintf(cond, sizeof(cond), "runner=%s", host);
	assert_string_equal(WHERE(s, cond), "4");
	snprintf(cond, sizeof(cond), "uuid=%s", raw_text(path, "SELECT uuid FROM results WHERE id = 2"));
	assert_string_equal(WHERE(s, cond), "2");
	na_store_close(&s);
	free((char *)path);
}

/* A central database's URL: PostgreSQL's, without a password (libpq's own
 * ways bring it), and the refusal never repeats the URL. */
static void central_urls_are_checked(void **state)
{
	(void)state;
	const char *good[] = {"postgresql://ci@db.example.com/results?sslmode=verify-full",
	                      "postgres:///results?host=/run/postgresql", "postgresql://[::1]:5432/r",
	                      "postgresql://ci@[::1]/r?service=nfsagent", "postgresql:///r?user=a:b",
	                      /* an empty password is none to libpq: its own ways bring one */
	                      "postgres://ci:@db/r"};
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++) {
		vs_error err = {0};
		assert_int_equal(na_central_check_url(good[i], &err), VS_OK);
	}
	const char *secret[] = {"postgresql://ci:hunter2@db/r",
	                        "postgresql:///r?password=hunter2", "postgresql:///r?user=ci&password=hunter2",
	                        /* what libpq reads as a password, though no text says "password=" */
	                        "postgresql:///r?pass%77ord=hunter2", "postgresql://ci:hun?ter2@db/r"};
	for (size_t i = 0; i < sizeof(secret) / sizeof(*secret); i++) {
		vs_error err = {0};
		assert_int_equal(na_central_check_url(secret[i], &err), VS_ERR_USAGE);
		assert_string_equal(err.message, "do not put the password in the central database's URL: "
		                    "use PGPASSWORD, ~/.pgpass (PGPASSFILE) or a service file (PGSERVICE)");
	}
	const char *other[] = {"mysql://ci:hunter2@db/r", "db.example.com", "postgresql:/r", ""};
	for (size_t i = 0; i < sizeof(other) / sizeof(*other); i++) {
		vs_error err = {0};
		assert_int_equal(na_central_check_url(other[i], &err), VS_ERR_USAGE);
		assert_string_equal(err.message, "the central database's URL must start with postgresql:// "
		                    "or postgres:// (a libpq URI)");
	}
	/* libpq takes these at parse and refuses them only when it connects */
	const char *values[][2] = {
		{"postgresql://ci@db/r?sslmode=bogus", "sslmode a value libpq does not know: give one of "
		 "disable, allow, prefer, require, verify-ca, verify-full"},
		{"postgresql:///r?sslmode=verify-full&gssencmode=", "gssencmode a value libpq does not know: "
		 "give one of disable, prefer, require"},
		{"postgres:///r?channel_binding=Require", "channel_binding a value libpq does not know: give "
		 "one of disable, prefer, require"},
	};
	for (size_t i = 0; i < sizeof(values) / sizeof(*values); i++) {
		vs_error err = {0};
		char expected[256];
		snprintf(expected, sizeof(expected), "the central database's URL gives %s", values[i][1]);
		assert_int_equal(na_central_check_url(values[i][0], &err), VS_ERR_USAGE);
		assert_string_equal(err.message, expected);
	}
}

/* Opening must fail and leave the file byte for byte as it was. */
static void assert_refused_unchanged(const char *path, const char *why)
{
	size_t before_n, after_n;
	char *before = slurp(path, &before_n);
	na_store *s = NULL;
	vs_error err = {0};
	assert_int_not_equal(na_store_open(path, &s, &err), VS_OK);
	assert_null(s);
	assert_string_equal(err.context, "open results database");
	if (!strstr(err.message, why))
		fail_msg("'%s' lacks '%s'", err.message, why);
	char *after = slurp(path, &after_n);
	assert_int_equal(before_n, after_n);
	assert_memory_equal(before, after, before_n);
	char wal[600];
	snprintf(wal, sizeof(wal), "%s-wal", path);
	assert_int_not_equal(access(wal, F_OK), 0);
	free(before), free(after);
}

static void foreign_files_are_refused_unchanged(void **state)
{
	(void)state;
	const char *path = strdup(in_root("foreign.db"));
	sqlite3 *db = raw_open(path);
	raw_exec(db, "CREATE TABLE x (a TEXT); INSERT INTO x VALUES ('keep me')");
	sqlite3_close(db);
	assert_refused_unchanged(path, "is not an nfsagent database");
	free((char *)path);

	/* a look-alike with the table but not the row */
	path = strdup(in_root("lookalike.db"));
	db = raw_open(path);
	raw_exec(db, "CREATE TABLE nfsagent_meta (key TEXT, value TEXT); PRAGMA user_version = 1");
	sqlite3_close(db);
	assert_refused_unchanged(path, "is not an nfsagent database");
	free((char *)path);

	path = strdup(in_root("notes.txt"));
	FILE *f = fopen(path, "w");
	for (int i = 0; i < 100; i++)
		fprintf(f, "4K random write 37,400 IOPS with SLOG, line %d\n", i);
	fclose(f);
	assert_refused_unchanged(path, "not a database");
	free((char *)path);

	/* ours, but from a newer nfsagent */
	path = strdup(in_root("newer.db"));
	na_store *s = open_with_samples(path);
	na_store_close(&s);
	db = raw_open(path);
	raw_exec(db, "PRAGMA user_version = 99; PRAGMA journal_mode = DELETE");
	sqlite3_close(db);
	assert_refused_unchanged(path, "newer than this nfsagent");
	free((char *)path);
}

/* Reading opens nothing new, changes nothing, and says what is wrong. */
static void assert_not_read(const char *path, int status, const char *message)
{
	struct stat before, after;
	bool existed = stat(path, &before) == 0;
	na_store *s = NULL;
	vs_error err = {0};
	assert_int_equal(na_store_open_readonly(path, &s, &err), status);
	assert_null(s);
	assert_string_equal(err.context, "open results database");
	assert_string_equal(err.message, message);
	assert_int_equal(stat(path, &after) == 0, existed);
	if (existed)
		assert_int_equal(before.st_size, after.st_size);
}

static void readers_never_create_or_convert(void **state)
{
	(void)state;
	char want[1400];
	const char *path = strdup(in_root("absent.db"));
	snprintf(want, sizeof(want), "there is no results database at %s: 'nfsagent bench' and "
	         "'nfsagent run' record results there (or give --db FILE)", path);
	assert_not_read(path, VS_ERR_USAGE, want);
	free((char *)path);

	path = strdup(in_root("empty.db"));
	fclose(fopen(path, "w"));
	snprintf(want, sizeof(want), "%s is empty: no results are recorded there ('nfsagent bench' "
	         "and 'nfsagent run' record them)", path);
	assert_not_read(path, VS_ERR_USAGE, want);
	free((char *)path);

	/* a database nobody may write is read */
	path = strdup(in_root("archive.db"));
	na_store *s = open_with_samples(path);
	na_store_close(&s);
	assert_int_equal(chmod(path, 0444), 0);
	vs_error err = {0};
	assert_int_equal(na_store_open_readonly(path, &s, &err), VS_OK);
	assert_string_equal(ids_where(s, NULL, 0), "1,2,3");
	na_store_close(&s);
	assert_int_equal(mode_of(path), 0444);

	/* damage is called damage, with the check to run */
	char *bytes;
	size_t n;
	assert_int_equal(chmod(path, 0600), 0);
	bytes = slurp(path, &n);
	const char *broken = strdup(in_root("broken it's.db"));
	for (size_t i = 200; i + 200 < n; i++)
		bytes[i] = (char)(i * 131);
	FILE *f = fopen(broken, "w");
	fwrite(bytes, 1, n, f);
	fclose(f);
	free(bytes);
	s = NULL;
	err = (vs_error){0};
	assert_int_not_equal(na_store_open_readonly(broken, &s, &err), VS_OK);
	assert_null(s);
	snprintf(want, sizeof(want), "check it with sqlite3 '%s/broken it'\\''s.db' "
	         "'PRAGMA integrity_check', and restore it from a backup", root);
	if (!strstr(err.message, want) || !strstr(err.message, "damaged"))
		fail_msg("'%s' lacks '%s'", err.message, want);
	free((char *)broken);
	free((char *)path);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void lock_is_reported_after_the_timeout(void **state)
{
	(void)state;
	const char *path = strdup(in_root("lock.db"));
	na_store *s = open_with_samples(path);
	sqlite3 *other = raw_open(path);
	raw_exec(other, "BEGIN EXCLUSIVE; INSERT INTO nfsagent_meta VALUES ('other', 'writer')");

	/* readers are not blocked: opening and querying still work */
	na_store *reader = NULL;
	vs_error err = {0};
	assert_int_equal(na_store_open(path, &reader, &err), VS_OK);
	assert_string_equal(ids_where(reader, NULL, 0), "1,2,3");
	na_store_close(&reader);

	na_store_set_busy_timeout(s, 300);
	na_result r = sample("esx1", "truenas-vmware", "NFS41", labels_64k, 2);
	double t0 = now_s();
	assert_int_equal(na_store_add(s, &r, &err), VS_ERR_FAULT);
	double waited = now_s() - t0;
	assert_true(waited >= 0.25 && waited < 3.0);
	char want[700];
	snprintf(want, sizeof(want), "database is locked by another nfsagent (%s)", path);
	assert_string_equal(err.message, want);
	assert_string_equal(err.context, "record result");

	raw_exec(other, "ROLLBACK");
	sqlite3_close(other);
	assert_int_equal(na_store_add(s, &r, &err), VS_OK);
	assert_string_equal(ids_where(s, NULL, 0), "1,2,3,4");
	na_store_close(&s);
	free((char *)path);
}

static void die(void)
{
	raise(SIGKILL);
}

/* A child killed -9 inside na_store_add's transaction, after it wrote
 * megabytes into the WAL, must cost nothing but its own row. */
static void crash_mid_write_keeps_earlier_rows(void **state)
{
	(void)state;
	const char *path = strdup(in_root("crash.db"));
	na_store *s = open_with_samples(path);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		na_store *child = NULL;
		vs_error err = {0};
		size_t big = 8 << 20;
		char *json = malloc(big + 1);
		if (!json || na_store_open(path, &child, &err) != VS_OK)
			_exit(2);
		memset(json, 'x', big);
		json[big] = '\0';
		na_result r = sample("esx9", "doomed", "NFS41", labels_64k, 2);
		r.fio_json = json;
		na_store_midwrite_hook = die;
		na_store_add(child, &r, &err);
		_exit(3);  /* the hook did not fire */
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	char wal[600];
	snprintf(wal, sizeof(wal), "%s-wal", path);
	struct stat st;
	assert_int_equal(stat(wal, &st), 0);
	assert_true(st.st_size > (1 << 20));  /* the child got well into its write */

	assert_string_equal(ids_where(s, NULL, 0), "1,2,3");
	assert_string_equal(WHERE(s, "host=esx9"), "");
	na_result r = sample("esx1", "truenas-vmware", "NFS41", NULL, 0);
	vs_error err = {0};
	assert_int_equal(na_store_add(s, &r, &err), VS_OK);
	na_store_close(&s);
	assert_string_equal(raw_text(path, "PRAGMA integrity_check"), "ok");
	assert_int_equal(raw_int(path, "SELECT count(*) FROM results"), 4);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM result_labels"), 6);
	free((char *)path);
}

/* ---- campaign results: once each, with their journal step ---- */

static na_result campaign_sample(const char *run)
{
	na_result r = sample("esx1", "bench-v3", "NFS", labels_64k, 2);
	r.campaign = run;
	r.target = "v3";
	return r;
}

static bool step_done(na_store *s, const char *run, const char *step, char **detail)
{
	bool done = true;
	vs_error err = {0};
	assert_int_equal(na_store_step_is_done(s, run, step, &done, detail, &err), VS_OK);
	return done;
}

static void campaign_result_is_recorded_once_with_its_step(void **state)
{
	(void)state;
	const char *path = strdup(in_root("once.db"));
	na_store *s = open_with_samples(path);
	vs_error err = {0};
	assert_int_equal(na_store_run_claim(s, "t-1", "t", "t.ini", "2026-10-03T09:00:00Z", false, &err),
	                 VS_OK);
	na_result r = campaign_sample("t-1");
	assert_int_equal(na_store_add_journaled(s, &r, "result:v3:1:randwrite-4k", &err), VS_OK);
	assert_int_equal(r.id, 4);
	char *detail = NULL;
	assert_true(step_done(s, "t-1", "result:v3:1:randwrite-4k", &detail));
	assert_string_equal(detail, "4");
	free(detail);

	/* the same repetition again, journaled or not: refused, nothing added */
	na_result again = campaign_sample("t-1");
	assert_int_equal(na_store_add_journaled(s, &again, "result:v3:1:randwrite-4k", &err), VS_ERR_USAGE);
	assert_string_equal(err.message, "run t-1 has a result for target v3, repetition 1, "
	                                 "profile randwrite-4k already");
	assert_string_equal(err.context, "record result");
	assert_int_equal(again.id, 0);
	assert_int_equal(na_store_add(s, &again, &err), VS_ERR_USAGE);
	/* another repetition, target or run is another result; outside campaigns
	 * (no run) nothing is unique */
	again.repetition = 2;
	assert_int_equal(na_store_add(s, &again, &err), VS_OK);
	na_result plain = sample("esx1", "truenas-vmware", "NFS41", NULL, 0);
	assert_int_equal(na_store_add(s, &plain, &err), VS_OK);
	assert_string_equal(WHERE(s, "campaign=t-1"), "4,5");
	assert_string_equal(ids_where(s, NULL, 0), "1,2,3,4,5,6");
	na_store_close(&s);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM result_labels WHERE result_id > 3"), 4);
	free((char *)path);
}

/* A failure after the result row, at the journal step (here: a run that was
 * never claimed, which its foreign key refuses), takes the row back too. */
static void result_and_step_are_one_transaction(void **state)
{
	(void)state;
	const char *path = strdup(in_root("onetx.db"));
	na_store *s = open_with_samples(path);
	vs_error err = {0};
	na_result r = campaign_sample("never-claimed");
	assert_int_equal(na_store_add_journaled(s, &r, "result:v3:1:randwrite-4k", &err), VS_ERR_FAULT);
	assert_string_equal(err.context, "record result");
	assert_int_equal(r.id, 0);
	assert_false(step_done(s, "never-claimed", "result:v3:1:randwrite-4k", NULL));
	assert_string_equal(WHERE(s, "campaign=never-claimed"), "");
	/* a journaled result needs its run */
	na_result orphan = sample("esx1", "truenas-vmware", "NFS41", NULL, 0);
	assert_int_equal(na_store_add_journaled(s, &orphan, "result:v3:1:x", &err), VS_ERR_USAGE);
	na_store_close(&s);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM results"), 3);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM result_labels"), 6);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM campaign_steps"), 0);
	free((char *)path);
}

/* A journal that cannot be read is an error, never "not done". */
static void journal_read_errors_are_errors(void **state)
{
	(void)state;
	const char *path = strdup(in_root("journal.db"));
	na_store *s = open_with_samples(path);
	vs_error err = {0};
	assert_int_equal(na_store_run_claim(s, "t-1", "t", "t.ini", "2026-10-03T09:00:00Z", false, &err),
	                 VS_OK);
	assert_int_equal(na_store_step_done(s, "t-1", "start", "truenas-vmware", "2026-10-03T09:00:00Z",
	                                    &err), VS_OK);
	char *run = NULL;
	assert_int_equal(na_store_run_unfinished(s, "t", &run, &err), VS_OK);
	assert_string_equal(run, "t-1");
	free(run);
	assert_int_equal(na_store_run_unfinished(s, "other", &run, &err), VS_OK);
	assert_null(run);

	sqlite3 *other = raw_open(path);
	raw_exec(other, "ALTER TABLE campaign_steps RENAME TO broken_steps;"
	                "ALTER TABLE campaign_runs RENAME TO broken_runs");
	sqlite3_close(other);
	bool done = true;
	char *detail = (char *)"untouched";
	assert_int_equal(na_store_step_is_done(s, "t-1", "start", &done, &detail, &err), VS_ERR_FAULT);
	assert_false(done);
	assert_null(detail);
	assert_string_equal(err.context, "read campaign journal");
	assert_non_null(strstr(err.message, "campaign_steps"));
	err = (vs_error){0};
	run = (char *)"untouched";
	assert_int_equal(na_store_run_unfinished(s, "t", &run, &err), VS_ERR_FAULT);
	assert_null(run);
	assert_string_equal(err.context, "read campaign journal");
	na_store_close(&s);
	free((char *)path);
}

/* The file as a reader must leave it: its bytes, its mtime, its schema. */
typedef struct file_state {
	char *bytes;
	size_t n;
	struct timespec mtime;
	int version;
} file_state;

static file_state state_of(const char *path)
{
	file_state f = {0};
	f.version = raw_int(path, "PRAGMA user_version");
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	f.mtime = st.st_mtim;
	f.bytes = slurp(path, &f.n);
	return f;
}

static void assert_same_state(const char *path, file_state *before)
{
	file_state after = state_of(path);
	assert_int_equal(after.version, before->version);
	assert_int_equal(after.n, before->n);
	assert_memory_equal(after.bytes, before->bytes, before->n);
	assert_int_equal(after.mtime.tv_sec, before->mtime.tv_sec);
	assert_int_equal(after.mtime.tv_nsec, before->mtime.tv_nsec);
	free(after.bytes), free(before->bytes);
}

static int count_finding(const na_finding *f, void *ud, vs_error *err)
{
	(void)err;
	assert_null(f->extent_case);  /* recorded before there was one */
	++*(int *)ud;
	return VS_OK;
}

/* The findings a selection gave, and how many of them a host's view was. */
typedef struct seen {
	int n, host_cases;
} seen;

static int count_case(const na_finding *f, void *ud, vs_error *err)
{
	(void)err;
	seen *c = ud;
	c->n++;
	c->host_cases += f->extent_case && strcmp(f->extent_case, "host") == 0;
	return VS_OK;
}

static int findings_in(na_store *s)
{
	int n = 0;
	vs_error err = {0};
	assert_int_equal(na_store_findings(s, NULL, 0, count_finding, &n, &err), VS_OK);
	return n;
}

/* Findings are selected by their provenance, a protocol as people write it,
 * and nothing else. */
static void findings_are_selected_by_provenance(void **state)
{
	(void)state;
	const char *path = strdup(in_root("findings.db"));
	na_store *s = NULL;
	vs_error err = {0};
	assert_int_equal(na_store_open(path, &s, &err), VS_OK);
	na_finding f[] = {
		{.at = "2026-10-03T09:00:00Z", .kind = "probe", .host = "esx1", .datastore = "bench-v41",
		 .datastore_type = "NFS41", .extent_bug = true, .verdict = "the extent bug showed",
		 .extent_case = "host"},
		{.at = "2026-10-03T09:05:00Z", .kind = "migration", .host = "esx2", .datastore = "bench-v3",
		 .datastore_type = "NFS", .verdict = "the move failed"},
	};
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(na_store_add_finding(s, &f[i], &err), VS_OK);
		assert_int_equal(f[i].id, (int64_t)i + 1);
	}
	seen c = {0};
	assert_int_equal(na_store_findings(s, NULL, 0, count_case, &c, &err), VS_OK);
	assert_true(c.n == 2 && c.host_cases == 1);
	c = (seen){0};
	assert_int_equal(na_store_findings(s, (const char *const[]){"protocol=NFSv4.1"}, 1, count_case,
	                                   &c, &err), VS_OK);
	assert_true(c.n == 1 && c.host_cases == 1);
	c = (seen){0};
	assert_int_equal(na_store_findings(s, (const char *const[]){"datastore_type=nfs3", "host=esx2"},
	                                   2, count_case, &c, &err), VS_OK);
	assert_true(c.n == 1 && c.host_cases == 0);
	c = (seen){0};
	assert_int_equal(na_store_findings(s, (const char *const[]){"kind=probe", "host=esx2"}, 2,
	                                   count_case, &c, &err), VS_OK);
	assert_int_equal(c.n, 0);
	const char *bad[] = {"size=1", "kind", "=probe"};
	for (size_t i = 0; i < 3; i++) {
		char want[64];
		snprintf(want, sizeof(want), "findings cannot be selected by '%s'", bad[i]);
		assert_int_equal(na_store_findings(s, &bad[i], 1, count_case, &c, &err), VS_ERR_USAGE);
		assert_string_equal(err.message, want);
	}
	na_store_close(&s);
	free((char *)path);
}

/* A reader never upgrades: a writable database of an older schema is read
 * as it is (the oldest, 1, and 3, from before a campaign result was unique
 * and findings had their extent case), and the file stays as it was. */
static void readers_read_older_schemas_unchanged(void **state)
{
	(void)state;
	const char *path = strdup(in_root("v1-read.db"));
	na_store *s = open_version_with_samples(path, 1);
	na_store_close(&s);
	file_state before = state_of(path);
	assert_int_equal(before.version, 1);
	vs_error err = {0};
	assert_int_equal(na_store_open_readonly(path, &s, &err), VS_OK);
	assert_string_equal(ids_where(s, NULL, 0), "1,2,3");
	assert_string_equal(WHERE(s, "recordsize=16K"), "3");
	assert_string_equal(WHERE(s, "protocol=nfs4.1", "slog=none"), "1");
	assert_int_equal(na_store_explain_none(s, (const char *const[]){"recordsize=1M"}, 1, &err),
	                 VS_ERR_NOT_FOUND);
	assert_string_equal(err.message, "no result has recordsize=1M (recorded: 16K, 64K)");
	assert_int_equal(findings_in(s), 0);  /* no findings before schema 3 */
	na_store_close(&s);
	assert_same_state(path, &before);
	/* nor does an archive nobody may write need an upgrade to be read */
	assert_int_equal(chmod(path, 0444), 0);
	assert_int_equal(na_store_open_readonly(path, &s, &err), VS_OK);
	assert_string_equal(WHERE(s, "recordsize=64K"), "1,2");
	na_store_close(&s);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 1);
	free((char *)path);

	/* schema 3: a campaign result recorded twice is read once, the oldest,
	 * as the upgrade keeps it; a finding reads without its extent case */
	path = strdup(in_root("v3-read.db"));
	s = open_version_with_samples(path, 3);
	assert_int_equal(na_store_run_claim(s, "t-1", "t", "t.ini", "2026-10-03T09:00:00Z", false, &err),
	                 VS_OK);
	na_result twice[] = {campaign_sample("t-1"), campaign_sample("t-1")};
	twice[1].labels = labels_16k;
	for (size_t i = 0; i < 2; i++)
		assert_int_equal(na_store_add(s, &twice[i], &err), VS_OK);
	na_store_close(&s);
	sqlite3 *db = raw_open(path);
	raw_exec(db, "INSERT INTO findings (at, kind, host, extent_bug, verdict) VALUES "
	             "('2026-10-03T09:00:00Z', 'probe', 'esx1', 1, 'the extent bug showed')");
	sqlite3_close(db);
	before = state_of(path);
	assert_int_equal(before.version, 3);
	assert_int_equal(na_store_open_readonly(path, &s, &err), VS_OK);
	assert_string_equal(ids_where(s, NULL, 0), "1,2,3,4");
	assert_string_equal(WHERE(s, "campaign=t-1"), "4");
	assert_string_equal(WHERE(s, "campaign=t-1", "recordsize=16K"), "");
	assert_int_equal(findings_in(s), 1);
	na_store_close(&s);
	assert_same_state(path, &before);
	free((char *)path);

	/* an SQLite file with nothing in it is no results database either */
	path = strdup(in_root("blank.db"));
	db = raw_open(path);
	raw_exec(db, "CREATE TABLE x (a TEXT); DROP TABLE x");
	sqlite3_close(db);
	before = state_of(path);
	char want[700];
	snprintf(want, sizeof(want), "%s is empty: no results are recorded there ('nfsagent bench' "
	         "and 'nfsagent run' record them)", path);
	assert_not_read(path, VS_ERR_USAGE, want);
	assert_same_state(path, &before);
	free((char *)path);
}

/* A database from before the rule, with a result recorded twice (the kill
 * between result and step, then --resume), opens: the oldest row stays, and
 * a row such a kill left without its step is journaled. */
static void duplicates_are_migrated_keeping_the_oldest(void **state)
{
	(void)state;
	const char *path = strdup(in_root("dups.db"));
	na_store *s = NULL;
	vs_error err = {0};
	assert_int_equal(na_store_open_version(path, 3, &s, &err), VS_OK);
	assert_int_equal(na_store_run_claim(s, "t-1", "t", "t.ini", "2026-10-03T09:00:00Z", false, &err),
	                 VS_OK);
	na_result rows[] = {campaign_sample("t-1"), campaign_sample("t-1"), campaign_sample("t-1"),
	                    campaign_sample("t-1")};
	rows[2].profile = "randread-4k";
	rows[3].labels = labels_16k;
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(na_store_add(s, &rows[i], &err), VS_OK);
	/* killed after this row's commit, before its step: the row is whole */
	na_result orphan = campaign_sample("t-1");
	orphan.repetition = 2;
	assert_int_equal(na_store_add(s, &orphan, &err), VS_OK);
	/* the resumed run journaled its own, newer, row */
	assert_int_equal(na_store_step_done(s, "t-1", "result:v3:1:randwrite-4k", "4",
	                                    "2026-10-03T09:05:00Z", &err), VS_OK);
	assert_int_equal(na_store_step_done(s, "t-1", "result:v3:1:randread-4k", "3",
	                                    "2026-10-03T09:06:00Z", &err), VS_OK);
	na_store_close(&s);

	assert_int_equal(na_store_open(path, &s, &err), VS_OK);
	assert_string_equal(ids_where(s, NULL, 0), "1,3,5");
	assert_string_equal(WHERE(s, "recordsize=16K"), "");
	char *detail = NULL;
	assert_true(step_done(s, "t-1", "result:v3:1:randwrite-4k", &detail));
	assert_string_equal(detail, "1");
	free(detail);
	assert_true(step_done(s, "t-1", "result:v3:1:randread-4k", &detail));
	assert_string_equal(detail, "3");
	free(detail);
	assert_true(step_done(s, "t-1", "result:v3:2:randwrite-4k", &detail));
	assert_string_equal(detail, "5");
	free(detail);
	na_result again = campaign_sample("t-1");
	assert_int_equal(na_store_add(s, &again, &err), VS_ERR_USAGE);
	na_store_close(&s);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), na_store_schema_version());
	assert_string_equal(raw_text(path, "SELECT value FROM nfsagent_meta WHERE key = 'duplicates_removed'"),
	                    "2");
	assert_int_equal(raw_int(path, "SELECT count(*) FROM result_labels"), 6);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM campaign_steps"), 3);
	assert_string_equal(raw_text(path, "PRAGMA integrity_check"), "ok");
	free((char *)path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fields_are_named_by_alias),
		cmocka_unit_test(creates_private_wal_database),
		cmocka_unit_test(default_location_is_xdg_then_home),
		cmocka_unit_test(queries_by_provenance_and_labels),
		cmocka_unit_test(injection_is_only_data),
		cmocka_unit_test(failed_run_keeps_its_error_and_no_stats),
		cmocka_unit_test(reopen_keeps_rows),
		cmocka_unit_test(version_1_is_migrated),
		cmocka_unit_test(foreign_files_are_refused_unchanged),
		cmocka_unit_test(readers_never_create_or_convert),
		cmocka_unit_test(lock_is_reported_after_the_timeout),
		cmocka_unit_test(crash_mid_write_keeps_earlier_rows),
		cmocka_unit_test(campaign_result_is_recorded_once_with_its_step),
		cmocka_unit_test(result_and_step_are_one_transaction),
		cmocka_unit_test(journal_read_errors_are_errors),
		cmocka_unit_test(duplicates_are_migrated_keeping_the_oldest),
		cmocka_unit_test(readers_read_older_schemas_unchanged),
		cmocka_unit_test(every_result_gets_a_uuid),
		cmocka_unit_test(the_link_is_recorded),
		cmocka_unit_test(the_site_is_recorded),
		cmocka_unit_test(central_urls_are_checked),
		cmocka_unit_test(findings_are_selected_by_provenance),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
