/* VMDK descriptor parsing: golden descriptors as ESXi and Workstation write
 * them, malformed ones, and edge cases of the grammar. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "golden.h"

#include "nfsagent/vsphere.h"

static char *load(const char *name, size_t *len)
{
	char path[256];
	snprintf(path, sizeof(path), "vmdk/%s", name);
	return golden(path, len);
}

static vs_vmdk *parse_file(const char *name)
{
	size_t len;
	char *text = load(name, &len);
	vs_vmdk *d = NULL;
	vs_error err = {0};
	int rc = vs_vmdk_parse(text, len, &d, &err);
	free(text);
	if (rc != VS_OK)
		fail_msg("%s: %s", name, err.message);
	assert_non_null(d);
	return d;
}

/* Parses a string given without its NUL (copied to an exact-size buffer). */
static int parse_str(const char *s, vs_vmdk **d, vs_error *err)
{
	size_t len = strlen(s);
	char *buf = malloc(len ? len : 1);
	assert_non_null(buf);
	memcpy(buf, s, len);
	*d = (vs_vmdk *)buf;  /* must be reset to NULL on failure */
	*err = (vs_error){0};
	int rc = vs_vmdk_parse(buf, len, d, err);
	free(buf);
	if (rc != VS_OK)
		assert_null(*d);
	return rc;
}

#define assert_str_or_null(actual, expected) \
	do { \
		if ((expected) == NULL) \
			assert_null(actual); \
		else { \
			assert_non_null(actual); \
			assert_string_equal((actual), (expected)); \
		} \
	} while (0)

static void assert_header(const vs_vmdk *d, const char *create_type, const char *cid,
                          const char *parent_cid, const char *hint, const char *adapter,
                          size_t n_extents, int64_t capacity)
{
	assert_str_or_null(d->create_type, create_type);
	assert_str_or_null(d->cid, cid);
	assert_str_or_null(d->parent_cid, parent_cid);
	assert_str_or_null(d->parent_hint, hint);
	assert_str_or_null(d->adapter_type, adapter);
	assert_int_equal(d->n_extents, n_extents);
	assert_int_equal(d->capacity_sectors, capacity);
}

static void assert_extent(const vs_vmdk_extent *e, const char *access, int64_t sectors,
                          const char *type, const char *file, int64_t offset, int64_t min_bytes)
{
	assert_string_equal(e->access, access);
	assert_int_equal(e->sectors, sectors);
	assert_string_equal(e->type, type);
	assert_str_or_null(e->file, file);
	assert_int_equal(e->offset, offset);
	assert_int_equal(vs_vmdk_extent_min_bytes(e), min_bytes);
}

static void assert_message(const vs_error *err, const char *part)
{
	assert_int_equal(err->status, VS_ERR_PROTOCOL);
	if (!strstr(err->message, part))
		fail_msg("message '%s' does not contain '%s'", err->message, part);
}

static void esxi_thick_and_thin(void **state)
{
	(void)state;
	vs_vmdk *d = parse_file("esxi_thick.vmdk");
	assert_header(d, "vmfs", "1d5e3c7a", "ffffffff", NULL, "lsilogic", 1, 16777216);
	assert_extent(&d->extents[0], "RW", 16777216, "VMFS", "fiotest-flat.vmdk", 0,
	              INT64_C(8589934592));
	vs_vmdk_free(&d);
	assert_null(d);

	d = parse_file("esxi_nfs_thin.vmdk");
	assert_header(d, "vmfs", "8c31f0a2", "ffffffff", NULL, "pvscsi", 1, 83886080);
	assert_extent(&d->extents[0], "RW", 83886080, "VMFS", "nfs41-thin_1-flat.vmdk", 0,
	              INT64_C(42949672960));
	vs_vmdk_free(&d);
}

static void esxi_deltas(void **state)
{
	(void)state;
	vs_vmdk *d = parse_file("esxi_vmfssparse_delta.vmdk");
	assert_header(d, "vmfsSparse", "5b9e3c71", "1d5e3c7a", "fiotest.vmdk", NULL, 1, 16777216);
	assert_extent(&d->extents[0], "RW", 16777216, "VMFSSPARSE", "fiotest-000001-delta.vmdk", 0, -1);
	vs_vmdk_free(&d);

	d = parse_file("esxi_sesparse_delta.vmdk");
	assert_header(d, "seSparse", "e83b4c6f", "2a9d7f14",
	              "/vmfs/volumes/64f1c2a8-5e3b9d70-1a2b-0050569a1c2d/golden/golden.vmdk", NULL, 1,
	              62914560);
	assert_extent(&d->extents[0], "RW", 62914560, "SESPARSE", "clone01-000001-sesparse.vmdk", 0, -1);
	vs_vmdk_free(&d);
}

static void workstation_flat(void **state)
{
	(void)state;
	vs_vmdk *d = parse_file("ws_monolithic_flat.vmdk");
	assert_header(d, "monolithicFlat", "4a7c2e19", "ffffffff", NULL, "lsilogic", 1, 41943040);
	assert_extent(&d->extents[0], "RW", 41943040, "FLAT", "ubuntu-22.04-flat.vmdk", 0,
	              INT64_C(21474836480));
	vs_vmdk_free(&d);

	d = parse_file("ws_twogb_flat.vmdk");
	assert_header(d, "twoGbMaxExtentFlat", "c6d1a8f3", "ffffffff", NULL, "lsisas1068", 3, 8388608);
	assert_extent(&d->extents[0], "RW", 4192256, "FLAT", "Windows 10 x64-f001.vmdk", 0,
	              INT64_C(2146435072));
	assert_extent(&d->extents[1], "RW", 4192256, "FLAT", "Windows 10 x64-f002.vmdk", 0,
	              INT64_C(2146435072));
	assert_extent(&d->extents[2], "RW", 4096, "FLAT", "Windows 10 x64-f003.vmdk", 0, 2097152);
	vs_vmdk_free(&d);
}

static void zero_extent_and_offset(void **state)
{
	(void)state;
	vs_vmdk *d = parse_file("zero_extent.vmdk");
	assert_header(d, "monolithicFlat", "fffffffe", "ffffffff", NULL, "ide", 3, 1051624);
	assert_extent(&d->extents[0], "RW", 2048, "FLAT", "mbr-and-gap.img", 0, 1048576);
	assert_extent(&d->extents[1], "RDONLY", 1000, "ZERO", NULL, 0, -1);
	/* The data starts 2048 sectors into sdb.img: the file holds both. */
	assert_extent(&d->extents[2], "RW", 1048576, "FLAT", "sdb.img", 2048,
	              (INT64_C(1048576) + 2048) * 512);
	vs_vmdk_free(&d);
}

static void crlf_bom_and_case(void **state)
{
	(void)state;
	vs_vmdk *d = parse_file("crlf_edited.vmdk");
	assert_header(d, "monolithicFlat", "0f3e9a21", "ffffffff", NULL, "lsisas1068", 1, 20971520);
	assert_extent(&d->extents[0], "RW", 20971520, "FLAT", "Server 2019-flat.vmdk", 0,
	              INT64_C(10737418240));
	vs_vmdk_free(&d);
}

static void utf8_file_name(void **state)
{
	(void)state;
	vs_vmdk *d = parse_file("esxi_utf8_space.vmdk");
	assert_header(d, "vmfs", "71be04d9", "ffffffff", NULL, "lsilogic", 1, 4194304);
	assert_extent(&d->extents[0], "RW", 4194304, "VMFS", "J\xC3\xB6rg B\xC3\xBCro_1-flat.vmdk", 0,
	              INT64_C(2147483648));
	vs_vmdk_free(&d);
}

static void malformed_files(void **state)
{
	(void)state;
	struct { const char *file, *part1, *part2; } cases[] = {
		{"bad_no_extents.vmdk", "no extent lines", "not a VMDK descriptor"},
		{"bad_access.vmdk", "line 9:", "bad access mode 'WR'"},
		{"bad_negative_size.vmdk", "line 9:", "sector count '-16777216' is negative"},
		{"bad_truncated.vmdk", "line 9:", "file name has no closing quote (truncated?)"},
		{"bad_huge.vmdk", "71701 bytes", "larger than 64 KiB"},
		{"bad_binary.vmdk", "not a text descriptor (binary data", "sparse extent header"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len;
		char *text = load(cases[i].file, &len);
		vs_vmdk *d = (vs_vmdk *)text;
		vs_error err = {0};
		assert_int_equal(vs_vmdk_parse(text, len, &d, &err), VS_ERR_PROTOCOL);
		assert_null(d);
		assert_message(&err, cases[i].part1);
		assert_message(&err, cases[i].part2);
		free(text);
	}
}

static void malformed_extent_lines(void **state)
{
	(void)state;
	struct { const char *text, *part; } cases[] = {
		{"RX 100 VMFS \"x.vmdk\"\n", "line 1: bad access mode 'RX'"},
		{"# c\nRW 12a VMFS \"x.vmdk\"\n", "line 2: sector count '12a' is not a number"},
		{"RW +5 VMFS \"x.vmdk\"\n", "sector count '+5' is not a number"},
		{"RW - VMFS \"x.vmdk\"\n", "sector count '-' is not a number"},
		{"RW\n", "line 1: extent has no sector count"},
		{"RW 100\n", "line 1: extent has no type"},
		{"RW 100 VMFS\n", "line 1: VMFS extent has no quoted file name"},
		{"RW 100 FLAT x-flat.vmdk 0\n", "line 1: FLAT extent has no quoted file name"},
		{"RW 100 VMFS \"\"\n", "line 1: VMFS extent has an empty file name"},
		{"RW 100 FLAT \"x\" abc\n", "line 1: offset 'abc' is not a number"},
		{"RW 100 FLAT \"x\" -1\n", "line 1: offset '-1' is negative"},
		/* INT64_MAX / 512 + 1 sectors: the byte count would overflow. */
		{"RW 18014398509481984 FLAT \"x\"\n", "'18014398509481984' overflows a 64-bit byte count"},
		{"RW 99999999999999999999999999 FLAT \"x\"\n", "overflows a 64-bit byte count"},
		{"RW 18014398509481983 FLAT \"x\" 1\n", "line 1: extent sizes overflow"},
		{"RW 9007199254740992 FLAT \"a\"\nRW 9007199254740992 FLAT \"b\"\n",
		 "line 2: extent sizes overflow"},
		{"createType=\"vmfs\nRW 1 VMFS \"x\"\n", "line 1: value of createType has no closing quote"},
		{"a\r\nb\r\nRW x ZERO\r\n", "line 3: sector count 'x'"},
		{"a\rb\rRW x ZERO\r", "line 3: sector count 'x'"},
		{"", "no extent lines"},
		{"<html><body>404 Not Found</body></html>\n", "no extent lines"},
		{"RW 1 VMFS \"x\"\n\x01\x02\x03" "abc\xff\n", NULL},  /* stray bytes: ignored */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		vs_vmdk *d;
		vs_error err;
		int rc = parse_str(cases[i].text, &d, &err);
		if (!cases[i].part) {
			assert_int_equal(rc, VS_OK);
			vs_vmdk_free(&d);
			continue;
		}
		if (rc != VS_ERR_PROTOCOL)
			fail_msg("case %zu parsed (rc %d)", i, rc);
		assert_message(&err, cases[i].part);
	}
}

static void grammar_edge_cases(void **state)
{
	(void)state;
	vs_vmdk *d;
	vs_error err;
	/* Quotes are not escaped: the name runs to the last quote; '=' in a name
	 * does not make a key; modes and types are case-insensitive; stray
	 * text is skipped; a later key wins; empty values count as absent. */
	assert_int_equal(parse_str("junk line here\n"
	                           "  parentFileNameHint = \"old.vmdk\"  \n"
	                           "parentFileNameHint=\"\"\n"
	                           "cid=aaaa0001\nCID=aaaa0002\n"
	                           "createType=vmfs\n"
	                           "\trw\t100 vmfs \"a \"quoted\" name.vmdk\"\n"
	                           "rdonly 200 VmFs \"a=b.vmdk\"\n"
	                           "NOACCESS 300 VMFSRDM \"lun-rdmp.vmdk\"\n"
	                           "RW 400 FLAT \"raw.img\" 100 extra words\n"
	                           "RW 0 VMFS \"empty-flat.vmdk\"",  /* no final line end */
	                           &d, &err), VS_OK);
	assert_header(d, "vmfs", "aaaa0002", NULL, NULL, NULL, 5, 1000);
	assert_extent(&d->extents[0], "RW", 100, "VMFS", "a \"quoted\" name.vmdk", 0, 51200);
	assert_extent(&d->extents[1], "RDONLY", 200, "VMFS", "a=b.vmdk", 0, 102400);
	assert_extent(&d->extents[2], "NOACCESS", 300, "VMFSRDM", "lun-rdmp.vmdk", 0, -1);
	assert_extent(&d->extents[3], "RW", 400, "FLAT", "raw.img", 100, 256000);
	assert_extent(&d->extents[4], "RW", 0, "VMFS", "empty-flat.vmdk", 0, 0);
	vs_vmdk_free(&d);

	/* The largest extent whose byte count still fits int64_t. */
	assert_int_equal(parse_str("RW 18014398509481983 FLAT \"big\"\n", &d, &err), VS_OK);
	assert_int_equal(vs_vmdk_extent_min_bytes(&d->extents[0]), INT64_C(9223372036854775296));
	vs_vmdk_free(&d);

	/* A ZERO extent ignores a file name. */
	assert_int_equal(parse_str("RW 8 ZERO \"ignored\" 5\n", &d, &err), VS_OK);
	assert_extent(&d->extents[0], "RW", 8, "ZERO", NULL, 0, -1);
	vs_vmdk_free(&d);
}

static void size_limit_and_binary(void **state)
{
	(void)state;
	/* Exactly 64 KiB is accepted, one byte more is not. */
	size_t len = 64 * 1024;
	char *text = malloc(len + 1);
	assert_non_null(text);
	memset(text, '#', len + 1);
	memcpy(text, "RW 1 ZERO\n", 10);
	vs_vmdk *d = NULL;
	vs_error err = {0};
	assert_int_equal(vs_vmdk_parse(text, len, &d, &err), VS_OK);
	vs_vmdk_free(&d);
	assert_int_equal(vs_vmdk_parse(text, len + 1, &d, &err), VS_ERR_PROTOCOL);
	assert_message(&err, "65537 bytes, larger than 64 KiB");
	assert_null(d);
	/* A NUL anywhere, even after a complete descriptor. */
	text[20] = '\0';
	assert_int_equal(vs_vmdk_parse(text, 30, &d, &err), VS_ERR_PROTOCOL);
	assert_message(&err, "not a text descriptor (binary data)");
	free(text);
}

static void api_misuse(void **state)
{
	(void)state;
	vs_vmdk *d = NULL;
	vs_error err = {0};
	assert_int_equal(vs_vmdk_parse(NULL, 5, &d, &err), VS_ERR_USAGE);
	assert_int_equal(vs_vmdk_parse("RW 1 ZERO", 9, NULL, &err), VS_ERR_USAGE);
	assert_int_equal(vs_vmdk_parse(NULL, 0, &d, &err), VS_ERR_PROTOCOL);
	assert_message(&err, "no extent lines");
	assert_int_equal(vs_vmdk_parse("RW 1 ZERO", 9, &d, NULL), VS_OK);  /* err is optional */
	vs_vmdk_free(&d);
	vs_vmdk_free(&d);
	vs_vmdk_free(NULL);

	assert_int_equal(vs_vmdk_extent_min_bytes(NULL), -1);
	vs_vmdk_extent e = {.access = "RW", .type = "flat", .file = "x", .sectors = 2, .offset = 1};
	assert_int_equal(vs_vmdk_extent_min_bytes(&e), 1536);
	e.sectors = INT64_MAX;  /* hand-filled: must not overflow */
	assert_int_equal(vs_vmdk_extent_min_bytes(&e), -1);
	e.sectors = -1;
	assert_int_equal(vs_vmdk_extent_min_bytes(&e), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(esxi_thick_and_thin),
		cmocka_unit_test(esxi_deltas),
		cmocka_unit_test(workstation_flat),
		cmocka_unit_test(zero_extent_and_offset),
		cmocka_unit_test(crlf_bom_and_case),
		cmocka_unit_test(utf8_file_name),
		cmocka_unit_test(malformed_files),
		cmocka_unit_test(malformed_extent_lines),
		cmocka_unit_test(grammar_edge_cases),
		cmocka_unit_test(size_limit_and_binary),
		cmocka_unit_test(api_misuse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
