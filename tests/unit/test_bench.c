/* The benchmark's own checks, before it asks the guest anything. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench.h"

/* A VM whose host is not in the inventory (the campaign found none for it)
 * is a clear error before any call: without a host nothing could be
 * recorded, and the caller's report would say "ok". */
static void no_host_is_an_error(void **state)
{
	(void)state;
	vs_vm vm = {.moref = "vm-42", .name = "fiotest"};
	na_bench b = {.vm = &vm, .host = NULL, .job = {"4M", 1, 0, "/var/tmp"}};
	vs_error err = {0};
	assert_int_equal(na_bench_begin(&b, &err), VS_ERR_NOT_FOUND);
	assert_string_equal(err.message, "fiotest runs on no host that vCenter lists");
	assert_string_equal(err.context, "preparing fiotest for benchmarks");
}

/* fio's folder: one of nfsagent's own under --dir, never --dir itself. */
static void jobs_write_in_our_folder(void **state)
{
	(void)state;
	vs_vm vm = {.moref = "vm-42", .name = "fiotest"};
	vs_host host = {.moref = "host-1", .name = "esx1"};
	char dir[1100];
	memset(dir, 'd', sizeof(dir) - 1);
	dir[0] = '/';
	dir[sizeof(dir) - 1] = '\0';
	na_bench b = {.vm = &vm, .host = &host, .job = {"4M", 1, 0, dir}};
	vs_error err = {0};
	assert_int_equal(na_bench_begin(&b, &err), VS_ERR_USAGE);
	assert_non_null(strstr(err.message, "is too long"));

	snprintf(b.data, sizeof(b.data), "/var/tmp/nfsagent-fio-77");
	b.job.dir = "/var/tmp";
	char *job = na_bench_job(&b, na_profile_find("randwrite-4k-qd1"));
	assert_non_null(strstr(job, "\ndirectory=/var/tmp/nfsagent-fio-77\n"));
	assert_null(strstr(job, "\ndirectory=/var/tmp\n"));
	free(job);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_host_is_an_error),
		cmocka_unit_test(jobs_write_in_our_folder),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
