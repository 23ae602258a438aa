/* The ESXi NFS client's settings as provenance: the field's text from the
 * host's options, and the nfs_client column across schema versions (an
 * older file reads it as unknown; the upgrade leaves older results so). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <unistd.h>

#include "ops/nfs_client.h"
#include "raw_sql.h"
#include "store/store.h"

static void the_text_keeps_what_shapes_throughput_sorted(void **state)
{
	(void)state;
	/* as vs_host_nfs_options gives them: sorted by key */
	const vs_option v[] = {
		{"NFS.HeartbeatTimeout", "5"},   {"NFS.MaxQueueDepth", "64"},
		{"NFS.MaxVolumes", "32"},        {"NFS.ReceiveBufferSize", NULL},  /* no value sent */
		{"NFS41.MaxRead", "1048576"},    {"SunRPC.MaxConnPerIP", "4"},
	};
	char out[512];
	na_nfs_client_text(v, 6, 0, out, sizeof(out));
	assert_string_equal(out, "NFS.MaxQueueDepth=64 NFS.MaxVolumes=32 NFS41.MaxRead=1048576 "
	                         "SunRPC.MaxConnPerIP=4");
	na_nfs_client_text(v, 6, 4, out, sizeof(out));
	assert_string_equal(out, "NFS.MaxQueueDepth=64 NFS.MaxVolumes=32 NFS41.MaxRead=1048576 "
	                         "SunRPC.MaxConnPerIP=4 nconnect=4");
	/* a host without any of the keys: nothing known */
	na_nfs_client_text(v, 1, 0, out, sizeof(out));
	assert_string_equal(out, "");
	na_nfs_client_text(NULL, 0, 0, out, sizeof(out));
	assert_string_equal(out, "");
	/* what does not fit is left out whole */
	char small[40];
	na_nfs_client_text(v, 6, 0, small, sizeof(small));
	assert_string_equal(small, "NFS.MaxQueueDepth=64 NFS.MaxVolumes=32");
}

static void nconnect_is_the_hosts_mount(void **state)
{
	(void)state;
	vs_ds_mount m[] = {{.host = "host-1", .tcp_connections = 0}, {.host = "host-2", .tcp_connections = 4}};
	vs_datastore ds = {.n_mounts = 2, .mounts = m};
	assert_int_equal(na_nfs_connections(&ds, "host-2"), 4);
	assert_int_equal(na_nfs_connections(&ds, "host-1"), 0);
	assert_int_equal(na_nfs_connections(&ds, "host-9"), 0);
	assert_int_equal(na_nfs_connections(NULL, "host-2"), 0);
}

static char dir[] = "/tmp/nfsagent-nfs-client-XXXXXX";
static char path[512];

static na_result row(const char *client)
{
	return (na_result){
		.started_at = "2026-10-03T09:00:00Z", .status = "ok", .repetition = 1,
		.host = "esx01", .datastore = "truenas-vmware", .datastore_type = "NFS",
		.vm = "fiotest", .profile = "randwrite-4k", .nfs_client = client,
		.write = {true, 37400, 153e6, 3400, 2900, 4100, 5900, 7200, 31000, 2244000, 60000},
	};
}

static int client_of(const na_result *r, void *ud, vs_error *err)
{
	(void)err;
	snprintf(ud, 128, "%s", r->nfs_client ? r->nfs_client : "NULL");
	return VS_OK;
}

/* The nfs_client of result id in the file, read as results reads it. */
static const char *read_client(const char *id)
{
	static char got[128];
	na_store *s = NULL;
	vs_error err = {0};
	const char *cond[] = {id};
	assert_int_equal(na_store_open_readonly(path, &s, &err), VS_OK);
	assert_int_equal(na_store_query(s, cond, 1, client_of, got, &err), VS_OK);
	na_store_close(&s);
	return got;
}

/* A file at schema version (17: the link's step, 18: the one before the
 * NFS client's) records without the column and reads it as unknown. */
static void an_older_file_reads_it_as_unknown(int version)
{
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.db", dir);
	na_store *s = NULL;
	vs_error err = {0};
	assert_int_equal(na_store_open_version(path, version, &s, &err), VS_OK);
	na_result r = row("NFS.MaxQueueDepth=64");
	assert_int_equal(na_store_add(s, &r, &err), VS_OK);
	na_store_close(&s);
	assert_string_equal(read_client("id=1"), "NULL");
	/* the upgrade keeps the older result unknown; a new one has its own */
	assert_int_equal(na_store_open(path, &s, &err), VS_OK);
	r = row("NFS.MaxQueueDepth=64 SunRPC.MaxConnPerIP=4");
	r.repetition = 2;
	assert_int_equal(na_store_add(s, &r, &err), VS_OK);
	na_store_close(&s);
	assert_string_equal(read_client("id=1"), "NULL");
	assert_string_equal(read_client("id=2"), "NFS.MaxQueueDepth=64 SunRPC.MaxConnPerIP=4");
	assert_int_equal(raw_int(path, "SELECT count(*) FROM results WHERE nfs_client IS NULL"), 1);
	assert_int_equal(remove_db(dir, path), 0);
	strcpy(dir, "/tmp/nfsagent-nfs-client-XXXXXX");
}

static void before_the_link_step(void **state)
{
	(void)state;
	an_older_file_reads_it_as_unknown(15);
}

static void between_the_link_and_the_client(void **state)
{
	(void)state;
	an_older_file_reads_it_as_unknown(18);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_text_keeps_what_shapes_throughput_sorted),
		cmocka_unit_test(nconnect_is_the_hosts_mount),
		cmocka_unit_test(before_the_link_step),
		cmocka_unit_test(between_the_link_and_the_client),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
