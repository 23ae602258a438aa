/* `zpool history -il` (history_parse.c) on a golden copy in OpenZFS 2.2's
 * format: the last record that changed a property of a dataset or of an
 * ancestor it inherits from, commands and kernel records alike, ioctl
 * records' indented lines ignored, and what is no history refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "golden.h"
#include "nfsagent/nas.h"

static int64_t last_of(const char *text, size_t len, const char *dataset, const char *prop)
{
	int64_t last = -1;
	vs_error err = {0};
	assert_int_equal(nas_parse_history(text, len, dataset, prop, &last, &err), VS_OK);
	return last;
}

static void golden_history(void **state)
{
	(void)state;
	size_t len;
	char *text = golden("zfs/zpool_history_il.txt", &len);
	/* 2026-11-20.09:12:44 UTC: zfs set recordsize=64K tank/vmware */
	assert_int_equal(last_of(text, len, "tank/vmware", "recordsize"), 1795165964);
	/* an ioctl's "recordsize: 16384" input line is no record; the set is */
	assert_int_equal(last_of(text, len, "tank/vmware16k", "recordsize"), 1795279209);
	/* set on the pool's root: its children inherit it */
	assert_int_equal(last_of(text, len, "tank/vmware", "compression"), 1793608330);
	assert_int_equal(last_of(text, len, "tank/vmware16k", "sync"), 1796047531);
	assert_int_equal(last_of(text, len, "tank/vmware", "sync"), 0);
	/* neither a sibling whose name it begins, nor a snapshot */
	assert_int_equal(last_of(text, len, "tank/vm", "recordsize"), 0);
	assert_int_equal(last_of(text, len, "tank/vmware", "atime"), 1796047390);
	free(text);
}

static void not_history(void **state)
{
	(void)state;
	int64_t last = 5;
	vs_error err = {0};
	const char junk[] = "cannot open 'tank': no such pool\n";
	assert_int_equal(nas_parse_history(junk, strlen(junk), "tank/vm", "recordsize", &last, &err),
	                 VS_ERR_PROTOCOL);
	assert_int_equal(last, 0);
	assert_string_equal(err.message, "zpool history printed no 'History for' line");
	const char nul[] = "History for 'tank':\n2026-01-01.00:00:00 zfs set recordsize=1M tank\0x\n";
	assert_int_equal(nas_parse_history(nul, sizeof(nul) - 1, "tank", "recordsize", &last, &err),
	                 VS_ERR_PROTOCOL);
	/* dates that are no dates are no records */
	const char odd[] = "History for 'tank':\n2026-13-01.00:00:00 zfs set recordsize=1M tank\n"
	                   "2026-01-01 00:00:00 zfs set recordsize=1M tank\n"
	                   "2026-01-01.00:00:00 zfs set recordsize=1M tank\n";
	assert_int_equal(last_of(odd, strlen(odd), "tank", "recordsize"), 1767225600);
	/* records without the header (the fuzzer's find): none, and no time left */
	last = 5;
	assert_int_equal(nas_parse_history(odd + 20, strlen(odd) - 20, "tank", "recordsize", &last,
	                                   &err), VS_ERR_PROTOCOL);
	assert_int_equal(last, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(golden_history),
		cmocka_unit_test(not_history),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
