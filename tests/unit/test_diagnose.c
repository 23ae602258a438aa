/* The diagnosis's pure parts: which vmware.log lines are new since the
 * failed task started, which target folder the attempt used, and what the
 * fault's own texts say. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ops/diagnose.h"

/* 2024-05-01T10:00:00.123Z */
static const int64_t started = 1714557600123LL;

static const char real_log[] =
	"cated line of an older attempt (the tail starts mid-line)\n"
	"2024-05-01T09:58:10.001Z In(05) vmx - DISKLIB-VMFS  : \"/vmfs/volumes/a1b2/fiotest/fiotest-flat.vmdk\" : "
	"failed to open (The file specified is not a virtual disk): Size of extent in descriptor file larger than real size.\n"
	"2024-05-01T09:58:10.002Z In(05) vmx - VmfsExtentCommonOpen: possible extent truncation (?) realSize is 0, size in descriptor 33554432.\n"
	"2024-05-01T10:00:00.122Z In(05) vmx - SVMotion: Enter Phase 1\n"
	"2024-05-01T10:00:00.123Z In(05) vmx - SVMotion: Enter Phase 2\n"
	"  a continuation line without a time\n"
	"2024-05-01T10:00:02.500Z In(05) vmx - DISKLIB-VMFS  : \"/vmfs/volumes/a1b2/fiotest_1/fiotest-flat.vmdk\" : "
	"failed to open (The file specified is not a virtual disk): Size of extent in descriptor file larger than real size.\n";

static void log_lines_since_the_task_started(void **state)
{
	(void)state;
	size_t len = strlen(real_log);
	size_t at = na_log_since(real_log, len, started);
	/* Lines of the same millisecond count: the task began before them. */
	assert_true(strncmp(real_log + at, "2024-05-01T10:00:00.123Z In(05) vmx - SVMotion: Enter Phase 2\n",
	                    62) == 0);
	assert_null(strstr(real_log + at, "fiotest/fiotest-flat"));
	assert_non_null(strstr(real_log + at, "fiotest_1/fiotest-flat"));
	/* Unknown start: everything; a start after every line: nothing. */
	assert_int_equal(na_log_since(real_log, len, 0), 0);
	assert_int_equal(na_log_since(real_log, len, started + 3000), len);
	/* A time zone on the task's side is the same instant. */
	assert_int_equal(na_log_since(real_log, len, vs_time_parse("2024-05-01T12:00:00.123+02:00", NULL)),
	                 at);
}

static void lab_log_format_and_edges(void **state)
{
	(void)state;
	/* tests/sim's appendBugLog: milliseconds, "Z", then " In(05) vmx - ". */
	static const char lab[] = "2026-12-01T10:15:00.000Z In(05) vmx - old\n"
	                          "2026-12-01T10:15:07.250Z In(05) vmx - new\n";
	int64_t t = vs_time_parse("2026-12-01T10:15:07.250123456Z", NULL);
	assert_int_equal(na_log_since(lab, strlen(lab), t), strlen(lab) / 2);
	/* No newline at the end, nothing at all, no time on any line. */
	assert_int_equal(na_log_since(lab, strlen(lab) - 1, t), strlen(lab) / 2);
	assert_int_equal(na_log_since("", 0, t), 0);
	static const char untimed[] = "no time\nat all\n";
	assert_int_equal(na_log_since(untimed, strlen(untimed), t), strlen(untimed));
	/* len bounds the scan: a newer line past it is not seen. */
	assert_int_equal(na_log_since(lab, strlen(lab) / 2, t), strlen(lab) / 2);
}

static void attempt_folder_names(void **state)
{
	(void)state;
	assert_true(na_attempt_name("fiotest", "fiotest"));
	assert_true(na_attempt_name("fiotest", "fiotest_1"));
	assert_true(na_attempt_name("fiotest", "fiotest_12"));
	assert_false(na_attempt_name("fiotest", "fiotest_"));
	assert_false(na_attempt_name("fiotest", "fiotest2"));
	assert_false(na_attempt_name("fiotest", "fiotest_1a"));
	assert_false(na_attempt_name("fiotest", "fio"));
	assert_true(na_attempt_name("Bjørn test", "Bjørn test_2"));
}

static void the_folder_the_attempt_made(void **state)
{
	(void)state;
	char *none[] = {NULL};
	char *one[] = {"fiotest"};
	char *two[] = {"fiotest", "fiotest_1"};
	char *three[] = {"fiotest", "fiotest_1", "fiotest_2"};
	/* First move: vCenter makes fiotest/. */
	assert_string_equal(na_attempt_folder("fiotest", none, 0, one, 1), "fiotest");
	/* A retry next to the first attempt's leftovers: fiotest_1/, then fiotest_2/. */
	assert_string_equal(na_attempt_folder("fiotest", one, 1, two, 2), "fiotest_1");
	assert_string_equal(na_attempt_folder("fiotest", two, 2, three, 3), "fiotest_2");
	/* Nothing new, and the VM's name was there before: it may hold an
	 * earlier attempt's files, so no folder is this attempt's for sure. */
	assert_null(na_attempt_folder("fiotest", two, 2, two, 2));
	/* Not listed before the move (a fleet's listing ended after it began):
	 * even a single new-looking folder is not told as this attempt's. */
	assert_null(na_attempt_folder("fiotest", NULL, 0, one, 1));
	/* Folders of other VMs are not this attempt's. */
	char *other[] = {"fiotest", "fiotest2"};
	assert_null(na_attempt_folder("fiotest", one, 1, other, 2));
	assert_string_equal(na_attempt_folder("fiotest", none, 0, other, 2), "fiotest");
}

static void fault_texts_are_evidence(void **state)
{
	(void)state;
	vs_error err = {.status = VS_ERR_TASK, .fault = "GenericVmConfigFault",
	                .message = "Failed to load one or more destination disks",
	                .details = "reason: Cannot open the disk '/vmfs/volumes/a1b2/fiotest_1/fiotest.vmdk' "
	                           "or one of the snapshot disks it depends on. (msg.disk.noBackEnd)\n"
	                           "reason: The file specified is not a virtual disk (msg.disklib.NOTVMDK)\n"
	                           "cause: FileNotFound: File [ds] fiotest_1/fiotest-flat.vmdk was not found"};
	na_diagnosis d = {0};
	na_diagnose_fault(&err, &d);
	/* disklib's NOTVMDK comes with any broken disk: evidence, not proof. */
	assert_false(d.fault_signature);
	assert_int_equal(d.n_evidence, 3);
	assert_string_equal(d.evidence[1], "task reason: The file specified is not a virtual disk "
	                                   "(msg.disklib.NOTVMDK)");
	assert_string_equal(d.evidence[2], "task cause: FileNotFound: File [ds] fiotest_1/fiotest-flat.vmdk "
	                                   "was not found");
	na_diagnosis_free(&d);
	vs_error told = {.status = VS_ERR_TASK, .fault = "GenericVmConfigFault",
	                 .message = "Failed to load one or more destination disks",
	                 .details = "reason: Size of extent in descriptor file larger than real size."};
	na_diagnose_fault(&told, &d);
	assert_true(d.fault_signature);
	na_diagnosis_free(&d);
	/* vCenter's usual answer says nothing of the bug by itself. */
	vs_error plain = {.status = VS_ERR_TASK, .fault = "GenericVmConfigFault",
	                  .message = "Failed to load one or more destination disks"};
	na_diagnose_fault(&plain, &d);
	assert_false(d.fault_signature);
	assert_int_equal(d.n_evidence, 0);
	na_diagnosis_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(log_lines_since_the_task_started),
		cmocka_unit_test(lab_log_format_and_edges),
		cmocka_unit_test(attempt_folder_names),
		cmocka_unit_test(the_folder_the_attempt_made),
		cmocka_unit_test(fault_texts_are_evidence),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
