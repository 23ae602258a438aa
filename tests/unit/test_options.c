/* A host's advanced options (QueryOptions): the parser on golden replies,
 * a key without its value, and the fault that says a subtree is empty. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "golden.h"

#include "internal.h"

static int parse(const char *name, long status, vs_reply *r, vs_error *err)
{
	size_t len;
	char *body = golden(name, &len);
	int rc = vs_soap_parse(body, len, status, "QueryOptions", VS_RET_LIST, NULL, r, err);
	free(body);
	return rc;
}

static void options_keep_their_keys_and_values_as_text(void **state)
{
	(void)state;
	vs_reply r = {0};
	vs_error err = {0};
	assert_int_equal(parse("soap/query_options_nfs.xml", 200, &r, &err), VS_OK);
	vs_option *v = NULL;
	size_t n = 0;
	assert_int_equal(vs_options_read(&r, &v, &n), VS_OK);
	/* the option without a key is skipped */
	assert_int_equal(n, 4);
	assert_string_equal(v[0].key, "NFS.MaxQueueDepth");
	assert_string_equal(v[0].value, "64");
	assert_string_equal(v[1].key, "NFS.MaxVolumes");
	assert_string_equal(v[1].value, "32");
	assert_string_equal(v[2].value, "false");
	/* no value sent: the key is there, its value unknown */
	assert_string_equal(v[3].key, "NFS.VolumeRemountFrequency");
	assert_null(v[3].value);
	vs_options_free(&v, n);
	assert_null(v);
	vs_reply_free(&r);
}

static void an_empty_answer_is_no_option(void **state)
{
	(void)state;
	static const char body[] =
		"<soapenv:Envelope xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\">"
		"<soapenv:Body><QueryOptionsResponse xmlns=\"urn:vim25\"/></soapenv:Body></soapenv:Envelope>";
	vs_reply r = {0};
	vs_error err = {0};
	assert_int_equal(vs_soap_parse(body, sizeof(body) - 1, 200, "QueryOptions", VS_RET_LIST, NULL,
	                               &r, &err), VS_OK);
	vs_option *v = NULL;
	size_t n = 0;
	assert_int_equal(vs_options_read(&r, &v, &n), VS_OK);
	assert_int_equal(n, 0);
	assert_null(v);
	vs_reply_free(&r);
}

/* What vs_host_nfs_options takes as "none under this prefix". */
static void an_unknown_subtree_is_the_invalid_name_fault(void **state)
{
	(void)state;
	vs_reply r = {0};
	vs_error err = {0};
	assert_int_equal(parse("soap/fault_invalid_name.xml", 500, &r, &err), VS_ERR_FAULT);
	assert_string_equal(err.fault, "InvalidName");
	assert_non_null(strstr(err.message, "NFS41."));
	assert_null(r.doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(options_keep_their_keys_and_values_as_text),
		cmocka_unit_test(an_empty_answer_is_no_option),
		cmocka_unit_test(an_unknown_subtree_is_the_invalid_name_fault),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
