/* Datastore paths, name unescaping, thumbprint validation, where guest
 * transfer URLs go. */
#include <limits.h>
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
	/* Each call's deadline is the budget in ms: a larger one would overflow. */
	opts.url = "127.0.0.1:1";
	opts.call_timeout_s = LONG_MAX;
	assert_int_equal(vs_connect(&opts, &c, &err), VS_ERR_USAGE);
	assert_string_equal(err.message, "a call timeout is at most 86400 s, not 9223372036854775807");
	assert_null(c);
}

/* Transfer URL for url: *out when it can go somewhere, else NULL and the
 * host to learn in *unknown. */
static char *transfer(vs_transport *t, const char *url, char **unknown)
{
	char *out = NULL;
	vs_error err = {0};
	assert_int_equal(vs_transport_transfer_url(t, url, &out, unknown, &err), VS_OK);
	return out;
}

static void expect_url(vs_transport *t, const char *url, const char *expected)
{
	char *unknown = NULL;
	char *out = transfer(t, url, &unknown);
	assert_null(unknown);
	assert_non_null(out);
	assert_string_equal(out, expected);
	free(out);
}

static void expect_route(vs_transport *t, const char *url, bool server, const char *address,
                         int pin_len)
{
	vs_route r = vs_transport_route(t, url);
	assert_int_equal(r.server, server);
	if (address)
		assert_string_equal(r.address, address);
	else
		assert_null(r.address);
	assert_int_equal(r.pin_len, pin_len);
}

static void transfer_urls_reach_the_right_server(void **state)
{
	(void)state;
	vs_options opts = {.url = "vc.example.com"};
	vs_transport *t = NULL;
	vs_error err = {0};
	assert_int_equal(vs_transport_new(&opts, &t, &err), VS_OK);
	/* "*" and our own name (default port or not) are the server we call. */
	expect_url(t, "https://*/guestFile?id=1&token=a", "https://vc.example.com/guestFile?id=1&token=a");
	expect_url(t, "https://*:443/guestFile?id=2", "https://vc.example.com/guestFile?id=2");
	expect_url(t, "https://vc.example.com:443/guestFile?id=3", "https://vc.example.com:443/guestFile?id=3");
	expect_route(t, "https://vc.example.com:443/guestFile?id=3", true, NULL, 0);
	/* An ESXi host's name must be learnt first; until then the user's policy. */
	char *unknown = NULL;
	assert_null(transfer(t, "https://esx01:443/guestFile?id=4", &unknown));
	assert_string_equal(unknown, "esx01");
	free(unknown);
	expect_route(t, "https://esx01:443/guestFile?id=4", true, NULL, 0);
	/* Then the URL keeps the name, the connection goes to the management
	 * address, and exactly the certificate vCenter reported is trusted. */
	assert_int_equal(vs_transport_add_host(t, "esx01", "10.0.0.21",
	                                       "AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01",
	                                       &err), VS_OK);
	expect_url(t, "https://esx01:443/guestFile?id=4", "https://esx01:443/guestFile?id=4");
	expect_route(t, "https://esx01:443/guestFile?id=4", false, "10.0.0.21", 20);
	assert_int_equal(vs_transport_add_host(t, "esx02", "fd00::22", NULL, &err), VS_OK);
	expect_route(t, "https://esx02/guestFile?id=5", false, "fd00::22", 0);
	/* A host named by an IPv6 address, as curl writes it. */
	assert_int_equal(vs_transport_add_host(t, "[fd00::23]", NULL,
	                                       "SHA256:" "00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:"
	                                       "00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF", &err), VS_OK);
	expect_route(t, "https://[fd00::23]:443/guestFile?id=6", false, NULL, 32);
	/* vCenter's thumbprint for a host must be SHA-1 or SHA-256. */
	assert_int_equal(vs_transport_add_host(t, "esx04", "10.0.0.24", "AB:CD", &err), VS_ERR_PROTOCOL);
	assert_non_null(strstr(err.message, "neither SHA-1 nor SHA-256"));
	expect_route(t, "https://esx04/guestFile?id=7", true, NULL, 0);
	vs_transport_free(&t);
}

/* A wait for a guest process looks at a short job at its end, and at a
 * long one after a second (a failing start), then every 5 minutes and at
 * its end; past the end every 0.25 s, then half the overrun, never more
 * than 10 s apart: a 30 s job ending 0.6 s late is seen in 4 polls. */
static void guest_polls_follow_the_expected_end(void **state)
{
	(void)state;
	assert_true(vs_guest_next_poll(0.25, 0) == 0.25);   /* unknown length: soon again */
	assert_true(vs_guest_next_poll(0, 2) == 2);         /* a short job: at its end */
	assert_true(vs_guest_next_poll(0, 1.75) == 1.75);   /* what the last run took */
	assert_true(vs_guest_next_poll(2, 2) == 0.25);      /* and soon after it */
	assert_true(vs_guest_next_poll(2.5, 2) == 0.25);
	assert_true(vs_guest_next_poll(0, 60) == 1);        /* a long job's failing start */
	assert_true(vs_guest_next_poll(1, 60) == 59);       /* then its end */
	assert_true(vs_guest_next_poll(1, 3600) == 120);    /* 2 minutes apart before it: vSphere
	                                                       keeps an exit code 5 minutes */
	assert_true(vs_guest_next_poll(40, 0) == 10);       /* never more than 10 s apart after */
	assert_true(vs_guest_next_poll(34, 30) == 2);       /* half the overrun */
	int polls = 1;
	double t = vs_guest_next_poll(0, 30);
	for (; t < 30.6; polls++)
		t += vs_guest_next_poll(t, 30);
	assert_int_equal(polls, 4);
	assert_true(t - 30.6 <= 0.25);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dspath_split_and_join),
		cmocka_unit_test(names_are_unescaped),
		cmocka_unit_test(thumbprints_are_validated_before_connecting),
		cmocka_unit_test(transfer_urls_reach_the_right_server),
		cmocka_unit_test(guest_polls_follow_the_expected_end),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
