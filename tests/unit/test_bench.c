/* The benchmark's own checks, before it asks the guest anything. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ops/bench.h"
#include "ops/bench_internal.h"

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

/* The job's own time, not --runtime's: a job file of 2 h is given 2 h. */
static void timeout_comes_from_the_job(void **state)
{
	(void)state;
	na_job_overrides o = {"8G", 90, 15, "/var/tmp/nfsagent-fio-1"};
	char *job = na_job_file(na_profile_find("randread-4k-qd1"), &o);
	assert_int_equal(na_bench_timeout(job), 90 + 15 + 300);
	free(job);
	/* three stonewalled phases without a runtime: an hour each */
	job = na_job_file(na_profile_find("metadata-20k-files"), &o);
	assert_int_equal(na_bench_timeout(job), 3 * 3600 + 300);
	free(job);
	assert_int_equal(na_bench_timeout("[a]\nrw=read\nruntime=2h\ntime_based=1\n"), 7200 + 300);
	/* [global]'s, each job's own over it, ms rounded up, fio's alias timeout, comments */
	assert_int_equal(na_job_seconds("[global]\nruntime = 10m ; ten minutes\nramp_time=30\n"
	                                "[a]\n[b]\nstonewall\nruntime=1500ms\n"
	                                "[c]\ntimeout=1d\nramp_time=0\n", 3600),
	                 600 + 30 + 2 + 30 + 86400);
	/* the ramps of the same jobs, which fio's runtimes leave out */
	assert_int_equal(na_job_ramp_seconds("[global]\nruntime = 10m ; ten minutes\nramp_time=30\n"
	                                     "[a]\n[b]\nstonewall\nruntime=1500ms\n"
	                                     "[c]\ntimeout=1d\nramp_time=0\n"),
	                 30 + 30);
	/* runtime=0 is no limit to fio; [global] alone is no job */
	assert_int_equal(na_job_seconds("[a]\nruntime=0\n", 3600), 3600);
	assert_int_equal(na_job_seconds("[global]\nruntime=60\n", 3600), 0);
	/* no overflow, however long a job says it is */
	assert_int_equal(na_job_seconds("[a]\nruntime=99999999999999999999999d\n", 1), 366L * 86400);
	/* fio's jobs, numbered as its per-job logs: numjobs, [global]'s for the jobs after it */
	job = na_job_file(na_profile_find("randread-4k-qd32x4"), &o);
	assert_int_equal(na_job_count(job), 4);
	free(job);
	job = na_job_file(na_profile_find("metadata-20k-files"), &o);
	assert_int_equal(na_job_count(job), 3);
	free(job);
	assert_int_equal(na_job_count("[a]\nnumjobs=2\n[global]\nnumjobs = 3 ; three\n[b]\n[c]\nnumjobs=1\n"),
	                 2 + 3 + 1);
	assert_int_equal(na_job_count("[global]\nnumjobs=8\n"), 0);
}

/* A wait first looks at fio when the profile's last run on the datastore
 * was seen to end (fio lays out its file each run), or before one at the
 * job's own time plus the least another profile's run there (before any
 * there: anywhere) took beyond its job's; a step sooner after a run the
 * first look found ended (one slow run does not hold every later one
 * back), but not back into a step where a first look found it running,
 * nor after a first run; never before the job's time. */
static void next_run_is_looked_at_when_the_last_ended(void **state)
{
	(void)state;
	vs_datastore v3 = {.name = "v3"}, v41 = {.name = "v41"};
	na_bench b = {.ds = &v3};
	const na_profile *read = na_profile_find("randread-4k-qd1");
	const na_profile *write = na_profile_find("randwrite-4k-qd1");
	const char *job = "[a]\nrw=randread\nruntime=2\ntime_based=1\n";
	const char *longer = "[a]\nrw=randwrite\nruntime=4\ntime_based=1\n";
	assert_true(na_bench_expected_s(&b, read, job) == 2);
	na_bench_started st = {.took_s = 3.25};  /* seen at the third look */
	na_bench_learn(&b, read, job, &st, 2, 3);
	assert_true(na_bench_expected_s(&b, read, job) == 3.25);
	/* no run of its own yet: its job's time and the 1.25 s read took beyond */
	assert_true(na_bench_expected_s(&b, write, longer) == 5.25);
	b.ds = &v41;      /* none ran on v41 yet: what they took on v3 */
	assert_true(na_bench_expected_s(&b, read, job) == 3.25);
	st.took_s = 5.5;  /* once one ran there, v41's own 1.5 s beyond */
	na_bench_learn(&b, write, longer, &st, 4.25, 2);
	assert_true(na_bench_expected_s(&b, read, job) == 3.5);
	b.ds = &v3;
	/* a job without a runtime: only its own learned time */
	assert_true(na_bench_expected_s(&b, write, "[a]\nrw=write\nsize=1G\n") == 0);
	st.took_s = 3.3;  /* ended by the first look, at 3.25: the next a step sooner */
	na_bench_learn(&b, read, job, &st, 3.25, 1);
	assert_true(na_bench_expected_s(&b, read, job) == 3);
	st.took_s = 3.3;  /* too soon: running at 3, seen ended at the next look */
	na_bench_learn(&b, read, job, &st, 3, 2);
	assert_true(na_bench_expected_s(&b, read, job) == 3.3);
	/* ended by the first look at 3.3: a step sooner is where it ran on */
	na_bench_learn(&b, read, job, &st, 3.3, 1);
	assert_true(na_bench_expected_s(&b, read, job) == 3.3);
	/* a first run ended by its first look: looked at then again */
	na_bench_learn(&b, write, longer, &st, 4.1, 1);
	assert_true(na_bench_expected_s(&b, write, longer) == 4.1);
	na_bench_learn(&b, write, longer, &st, 4.1, 1);  /* never before the job's time */
	assert_true(na_bench_expected_s(&b, write, longer) == 4);
	st.took_s = 0;    /* an end not seen teaches nothing */
	na_bench_learn(&b, write, job, &st, 2, 2);
	assert_true(na_bench_expected_s(&b, write, longer) == 4);
	assert_int_equal(b.took.n, 3);
}

/* As the seeds ran them: the 4 jobs of a qd32x4 profile share one file of
 * --size (one working set for the NAS's cache, not four); the dd-zeros
 * profile writes zeros as dd if=/dev/zero did, the other dd profile not. */
static void profiles_are_the_seeds(void **state)
{
	(void)state;
	na_job_overrides o = {"8G", 60, 0, "/var/tmp/nfsagent-fio-1"};
	const na_profile *qd32x4 = na_profile_find("randread-4k-qd32x4");
	char *job = na_job_file(qd32x4, &o);
	assert_non_null(strstr(job, "\nfilename=fio.test\nsize=8G\n"));
	assert_non_null(strstr(job, "\nnumjobs=4\n"));
	assert_null(strstr(job, "zero_buffers"));
	assert_int_equal(na_profile_footprint(qd32x4, "8G"), 8LL << 30);
	free(job);
	const na_profile *zeros = na_profile_find("seqwrite-4m-dd-zeros");
	assert_non_null(zeros);
	assert_true(na_profile_zeros(zeros));
	assert_false(na_profile_zeros(na_profile_find("seqwrite-4m-dd")));
	job = na_job_file(zeros, &o);
	assert_non_null(strstr(job, "\nzero_buffers=1\n"));
	assert_non_null(strstr(job, "ioengine=psync\ndirect=0\nbs=4M\n"));
	free(job);
	job = na_job_file(na_profile_find("seqwrite-4m-dd"), &o);
	assert_null(strstr(job, "zero_buffers"));
	free(job);
	assert_int_equal(na_profile_footprint(na_profile_find("metadata-20k-files"), "8G"), 20000 * 4096);
}

/* A mark names this process's guest folders and, read back from a
 * campaign's journal, the folders a sweep removes: nothing else passes. */
static void marks_are_unique_and_checked(void **state)
{
	(void)state;
	const char *me = na_bench_mark();
	char pid[16];
	snprintf(pid, sizeof(pid), "%ld-", (long)getpid());
	assert_int_equal(strncmp(me, pid, strlen(pid)), 0);
	assert_int_equal(strlen(me), strlen(pid) + 8);
	assert_string_equal(na_bench_mark(), me);  /* made once */
	assert_true(na_bench_mark_valid(me));
	assert_true(na_bench_mark_valid("4242"));  /* a journal from before the marks */
	assert_true(na_bench_mark_valid("4242-0123abcd"));
	const char *bad[] = {"", "-0123abcd", "4242-", "4242-0123abc", "4242-0123abcde", "4242-0123ABCD",
	                     "4242-../../x", "42 42", "4242/", "12345678901-0123abcd", "4242-0123abcd;"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_false(na_bench_mark_valid(bad[i]));
}

/* A job that includes a file has options no parser here reads: a group
 * run then reads its bandwidth log (ops/bench_window.c). */
static void includes_are_seen(void **state)
{
	(void)state;
	assert_true(na_job_includes("[a]\nrw=read\n  include\tmore.fio\n"));
	assert_true(na_job_includes("include base.fio\n[a]\nrw=read\n"));
	assert_false(na_job_includes("[a]\n# include more.fio\nrw=read\n"));
	assert_false(na_job_includes("[include]\nrw=read\n"));
	assert_false(na_job_includes("[a]\nincluded=1\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_host_is_an_error),
		cmocka_unit_test(jobs_write_in_our_folder),
		cmocka_unit_test(timeout_comes_from_the_job),
		cmocka_unit_test(next_run_is_looked_at_when_the_last_ended),
		cmocka_unit_test(profiles_are_the_seeds),
		cmocka_unit_test(marks_are_unique_and_checked),
		cmocka_unit_test(includes_are_seen),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
