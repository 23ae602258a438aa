/* Datastore paths, name unescaping, thumbprint validation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

static void dspath_split_and_join(void **state)
{
	(void)state;
	char *ds, *path;
	vs_error err = {0};
	assert_int_equal(vs_dspath_split("[nfs 16k] fio test/fio test.vmdk", &ds, &path, &err), VS_OK);
	assert_string_equal(ds, "nfs 16k");
	assert_string_equal(path, "fio test/fio test.vmdk");
	char *joined = vs_dspath_join(ds, path);
	assert_string_equal(joined, "[nfs 16k] fio test/fio test.vmdk");
	free(ds), free(path), free(joined);

	assert_int_equal(vs_dspath_split("[ds]", &ds, &path, &err), VS_OK);
	assert_string_equal(ds, "ds");
	assert_string_equal(path, "");
	joined = vs_dspath_join(ds, path);
	assert_string_equal(joined, "[ds]");
	free(ds), free(path), free(joined);

	const char *bad[] = {"", "ds] x", "[] x", "[unclosed x", "plain/path.vmdk"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(vs_dspath_split(bad[i], &ds, &path, &err), VS_ERR_USAGE);
		assert_null(ds);
		assert_null(path);
	}
}

static void names_are_unescaped(void **state)
{
	(void)state;
	struct { const char *in, *out; } cases[] = {
		{"web%2fdb", "web/db"}, {"100%25", "100%"}, {"a%5cb", "a\\b"}, {"Bj%C3%B6rn", "Björn"},
		{"plain", "plain"}, {"trail%", "trail%"}, {"bad%zz", "bad%zz"}, {"%2", "%2"}, {"", ""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = vs_unescape_name(cases[i].in);
		assert_string_equal(s, cases[i].out);
		free(s);
	}
}

static void thumbprints_are_validated_before_connecting(void **state)
{
	(void)state;
	vs_options opts = {.url = "127.0.0.1:1", .username = "u", .password = "p"};
	vs_client *c = NULL;
	vs_error err = {0};
	opts.thumbprint = "SHA1:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD";
	assert_int_equal(vs_connect(&opts, &c, &err), VS_ERR_USAGE);
	assert_non_null(strstr(err.message, "SHA-1"));
	assert_null(c);
	opts.thumbprint = "SHA256:zz";
	assert_int_equal(vs_connect(&opts, &c, &err), VS_ERR_USAGE);
	assert_non_null(strstr(err.message, "not a SHA-256"));
	opts.url = "http://[bad";
	opts.thumbprint = NULL;
	assert_int_equal(vs_connect(&opts, &c, &err), VS_ERR_USAGE);
	assert_non_null(strstr(err.message, "not a valid server URL"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dspath_split_and_join),
		cmocka_unit_test(names_are_unescaped),
		cmocka_unit_test(thumbprints_are_validated_before_connecting),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
