/* Envelope building, reply and fault parsing, streaming, occurrence checks,
 * redaction: all without a server, on golden replies in tests/data. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "golden.h"

#include "internal.h"


static void envelope_escapes_every_value(void **state)
{
	(void)state;
	vs_buf params = {0}, env = {0};
	vs_buf_elem(&params, "userName", "a<b>&\"c'");
	vs_soap_envelope(&env, "Login", "SessionManager", "Session&Manager", params.data);
	assert_false(env.failed);
	assert_non_null(strstr(env.data, "<userName>a&lt;b&gt;&amp;&quot;c&apos;</userName>"));
	assert_non_null(strstr(env.data, "<_this type=\"SessionManager\">Session&amp;Manager</_this>"));
	assert_non_null(strstr(env.data, "<Login xmlns=\"urn:vim25\">"));
	/* The result must be well-formed XML. */
	vs_reply r = {0};
	xmlDoc *doc = xmlReadMemory(env.data, (int)env.len, "e.xml", NULL, XML_PARSE_NONET);
	assert_non_null(doc);
	xmlNode *login = vs_xml_path(xmlDocGetRootElement(doc), "Body/Login");
	char *user = vs_xml_path_text(login, "userName");
	assert_string_equal(user, "a<b>&\"c'");
	free(user);
	xmlFreeDoc(doc);
	vs_reply_free(&r);
	vs_buf_free(&params);
	vs_buf_free(&env);
}

static void moref_and_urlencoding(void **state)
{
	(void)state;
	vs_buf b = {0};
	vs_buf_moref(&b, "obj", "Datastore", "10.0.0.5:/export/bench@folder-5");
	assert_string_equal(b.data, "<obj type=\"Datastore\">10.0.0.5:/export/bench@folder-5</obj>");
	vs_buf_free(&b);
	vs_buf_add_urlencoded(&b, "dir one/ä&x=1", true);
	assert_string_equal(b.data, "dir%20one/%C3%A4%26x%3D1");
	vs_buf_free(&b);
	vs_buf_add_urlencoded(&b, "a/b", false);
	assert_string_equal(b.data, "a%2Fb");
	vs_buf_free(&b);
}

static void fault_type_from_xsi_type(void **state)
{
	(void)state;
	size_t len;
	char *body = golden("soap/fault_not_authenticated.xml", &len);
	vs_error err = {0};
	vs_reply r = {0};
	int rc = vs_soap_parse(body, len, 500, "RetrieveServiceContent", VS_RET_ONE, NULL, &r, &err);
	assert_int_equal(rc, VS_ERR_FAULT);
	assert_string_equal(err.fault, "NotAuthenticated");
	/* No faultstring: the fault's fields stand in for a message. */
	assert_non_null(strstr(err.message, "privilegeId=System.View"));
	assert_null(r.doc);
	free(body);
}

static void fault_message_from_faultstring(void **state)
{
	(void)state;
	size_t len;
	char *body = golden("soap/fault_invalid_login_vcenter.xml", &len);
	vs_error err = {0};
	int rc = vs_soap_parse(body, len, 500, "Login", VS_RET_ONE, NULL, NULL, &err);
	assert_int_equal(rc, VS_ERR_FAULT);
	assert_string_equal(err.fault, "InvalidLogin");
	assert_string_equal(err.message, "Cannot complete login due to an incorrect user name or password.");
	char line[2048];
	vs_error_context(&err, "login to vc.example.com");
	vs_error_format(&err, line, sizeof(line));
	assert_string_equal(line, "login to vc.example.com failed: InvalidLogin: Cannot complete login "
	                          "due to an incorrect user name or password.");
	free(body);
}

static void localized_fault_in_missing_set(void **state)
{
	(void)state;
	size_t len;
	char *body = golden("soap/missingset_not_authenticated.xml", &len);
	xmlDoc *doc = xmlReadMemory(body, (int)len, "m.xml", NULL, XML_PARSE_NONET);
	xmlNode *fault = vs_xml_path(xmlDocGetRootElement(doc),
	                             "Body/RetrievePropertiesExResponse/returnval/objects/missingSet/fault");
	assert_non_null(fault);
	vs_error err = {0};
	vs_fault_from_node(fault, &err);
	assert_string_equal(err.fault, "NotAuthenticated");
	assert_non_null(strstr(err.message, "System.Read"));
	xmlFreeDoc(doc);
	free(body);
}

static void platform_config_fault_keeps_its_reasons(void **state)
{
	(void)state;
	size_t len;
	char *body = golden("soap/fault_platform_config_nfs.xml", &len);
	vs_error err = {0};
	int rc = vs_soap_parse(body, len, 500, "CreateNasDatastore", VS_RET_ONE, NULL, NULL, &err);
	assert_int_equal(rc, VS_ERR_FAULT);
	assert_string_equal(err.fault, "PlatformConfigFault");
	/* The faultstring is generic; the reason is only in faultMessage[]. */
	assert_string_equal(err.message, "An error occurred during host configuration.");
	assert_string_equal(err.details,
	                    "reason: NFS mount 10.0.0.5:/mnt/tank/nope failed: The mount request was denied "
	                    "by the NFS server. Check that the export exists and that the client is "
	                    "permitted to mount it. (vob.vmfs.nfs.mount.error.perm.denied)\n"
	                    "reason: An unknown error has occurred. (vob.vmfs.nfs.mount.error.unknown)");
	/* The headline stays one line. */
	char line[2048];
	vs_error_context(&err, "mount 10.0.0.5:/mnt/tank/nope on DC0_H0");
	vs_error_format(&err, line, sizeof(line));
	assert_string_equal(line, "mount 10.0.0.5:/mnt/tank/nope on DC0_H0 failed: PlatformConfigFault: "
	                          "An error occurred during host configuration.");
	/* A new error forgets the old one's reasons. */
	vs_fail(&err, VS_ERR_USAGE, "something else");
	assert_string_equal(err.details, "");
	free(body);
}

/* The changeSet named name of the first objectSet of a WaitForUpdatesEx reply. */
static xmlNode *change_val(const vs_reply *r, const char *name)
{
	xmlNode *set = vs_xml_path(vs_reply_ret(r), "filterSet/objectSet");
	for (xmlNode *ch = vs_xml_child(set, "changeSet"); ch; ch = vs_xml_next(ch)) {
		char *n = vs_xml_path_text(ch, "name");
		bool match = n && strcmp(n, name) == 0;
		free(n);
		if (match)
			return vs_xml_child(ch, "val");
	}
	return NULL;
}

static void task_error_keeps_messages_and_cause_chain(void **state)
{
	(void)state;
	size_t len;
	char *body = golden("soap/task_update_fault_cause.xml", &len);
	vs_error err = {0};
	vs_reply r = {0};
	int rc = vs_soap_parse(body, len, 200, "WaitForUpdatesEx", VS_RET_OPTIONAL, NULL, &r, &err);
	assert_int_equal(rc, VS_OK);
	xmlNode *error = change_val(&r, "info.error");
	assert_non_null(error);
	vs_fault_from_node(error, &err);
	assert_string_equal(err.fault, "GenericVmConfigFault");
	assert_string_equal(err.message, "Failed to load one or more destination disks");
	/* The faultMessage that repeats the headline is left out. */
	assert_string_equal(err.details,
	                    "reason: Cannot open the disk '/vmfs/volumes/a1b2c3d4-e5f6a7b8/fiotest_1/"
	                    "fiotest.vmdk' or one of the snapshot disks it depends on. (msg.disk.noBackEnd)\n"
	                    "reason: The file specified is not a virtual disk (msg.disklib.NOTVMDK)\n"
	                    "cause: CannotAccessFile: Unable to access file [truenas-vmware16k] "
	                    "fiotest_1/fiotest.vmdk\n"
	                    "cause: FileNotFound: File [truenas-vmware16k] fiotest_1/fiotest-flat.vmdk "
	                    "was not found");
	char *started = vs_xml_text(change_val(&r, "info.startTime"));
	assert_int_equal(vs_time_parse(started, NULL), 1714557600123LL);
	free(started);
	vs_reply_free(&r);
	free(body);
}

static void times_parse_as_utc_milliseconds(void **state)
{
	(void)state;
	const char *end = NULL;
	assert_int_equal(vs_time_parse("1970-01-01T00:00:00Z", NULL), 0);
	assert_int_equal(vs_time_parse("1969-12-31T23:59:59Z", NULL), -1000);
	assert_int_equal(vs_time_parse("2024-02-29T00:00:00Z", NULL), 1709164800000LL);
	assert_int_equal(vs_time_parse("2024-05-01T12:00:00.123+02:00", NULL), 1714557600123LL);
	assert_int_equal(vs_time_parse("2024-05-01T06:30:00.1234-0330", NULL), 1714557600123LL);
	/* vmware.log: no zone (ESXi logs UTC), then the rest of the line. */
	const char *line = "2024-05-01T10:00:00.123 In(05) vmx - DISKLIB-VMFS";
	assert_int_equal(vs_time_parse(line, &end), 1714557600123LL);
	assert_string_equal(end, " In(05) vmx - DISKLIB-VMFS");
	assert_int_equal(vs_time_parse("2024-05-01T10:00:00.123Z In(05)", &end), 1714557600123LL);
	assert_string_equal(end, " In(05)");
	const char *bad[] = {"", "In(05) vmx", "2024-13-01T00:00:00Z", "2024-05-01 10:00:00Z",
	                     "2024-05-01T10:00Z", "2024-05-01T10:00:00.Z", "2024-05-01T10:00:00+0x:00"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_int_equal(vs_time_parse(bad[i], NULL), -1);
}

static const char service_content_twice[] =
	"<?xml version=\"1.0\"?><soapenv:Envelope xmlns:soapenv=\"" VS_NS_SOAPENV "\"><soapenv:Body>"
	"<RetrieveServiceContentResponse xmlns=\"urn:vim25\"><returnval/><returnval/>"
	"</RetrieveServiceContentResponse></soapenv:Body></soapenv:Envelope>";

static void occurrence_is_checked(void **state)
{
	(void)state;
	vs_error err = {0};
	vs_reply r = {0};
	int rc = vs_soap_parse(service_content_twice, strlen(service_content_twice), 200,
	                       "RetrieveServiceContent", VS_RET_ONE, NULL, &r, &err);
	assert_int_equal(rc, VS_ERR_PROTOCOL);
	assert_non_null(strstr(err.message, "2 returnval"));
	rc = vs_soap_parse(service_content_twice, strlen(service_content_twice), 200,
	                   "RetrieveServiceContent", VS_RET_LIST, NULL, &r, &err);
	assert_int_equal(rc, VS_OK);
	vs_reply_free(&r);
	rc = vs_soap_parse(service_content_twice, strlen(service_content_twice), 200, "Logout",
	                   VS_RET_NONE, NULL, &r, &err);
	assert_int_equal(rc, VS_ERR_PROTOCOL);
	assert_non_null(strstr(err.message, "no LogoutResponse"));
}

static void bad_replies_are_errors_not_crashes(void **state)
{
	(void)state;
	const char *bodies[] = {
		"",
		"<html><body>502 Bad Gateway</body></html>",
		"not xml at all \x01\x02",
		"<?xml version=\"1.0\"?><soapenv:Envelope xmlns:soapenv=\"" VS_NS_SOAPENV "\"><soapenv:Body>"
		"<LoginResponse xmlns=\"urn:vim25\"><returnval><key>",  /* truncated */
		"<?xml version=\"1.0\"?><a><b/></a>",
	};
	for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		vs_error err = {0};
		vs_reply r = {0};
		int rc = vs_soap_parse(bodies[i], strlen(bodies[i]), 200, "Login", VS_RET_ONE, NULL, &r, &err);
		assert_int_equal(rc, VS_ERR_PROTOCOL);
		assert_true(strlen(err.message) > 0);
		assert_null(r.doc);
	}
	vs_error err = {0};
	int rc = vs_soap_parse("Service Unavailable", 19, 503, "Login", VS_RET_ONE, NULL, NULL, &err);
	assert_int_equal(rc, VS_ERR_HTTP);
	assert_string_equal(err.message, "HTTP 503: Service Unavailable");
}

typedef struct seen {
	int n;
	char names[8][64];
} seen;

static int count_object(xmlNode *node, void *ud, vs_error *err)
{
	(void)err;
	seen *s = ud;
	char *moref = vs_xml_path_text(node, "obj");
	snprintf(s->names[s->n++ % 8], 64, "%s", moref);
	free(moref);
	return VS_OK;
}

static void streamed_objects_are_delivered_and_freed(void **state)
{
	(void)state;
	size_t len;
	char *body = golden("soap/retrieve_vms_page.xml", &len);
	seen s = {0};
	vs_stream stream = {"objects", count_object, &s};
	vs_error err = {0};
	vs_reply r = {0};
	int rc = vs_soap_parse(body, len, 200, "RetrievePropertiesEx", VS_RET_OPTIONAL, &stream, &r, &err);
	assert_int_equal(rc, VS_OK);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.names[0], "vm-51");
	/* Objects were freed as they were delivered; the token stays. */
	assert_null(vs_xml_child(vs_reply_ret(&r), "objects"));
	char *token = vs_xml_path_text(vs_reply_ret(&r), "token");
	assert_string_equal(token, "page-2");
	free(token);
	vs_reply_free(&r);
	free(body);
}

static int stop_at_second(xmlNode *node, void *ud, vs_error *err)
{
	seen *s = ud;
	count_object(node, ud, err);
	return s->n == 2 ? vs_fail(err, VS_ERR_NOT_FOUND, "stop") : VS_OK;
}

static void stream_callback_error_stops_parse(void **state)
{
	(void)state;
	size_t len;
	char *body = golden("soap/retrieve_vms_page.xml", &len);
	seen s = {0};
	vs_stream stream = {"objects", stop_at_second, &s};
	vs_error err = {0};
	int rc = vs_soap_parse(body, len, 200, "RetrievePropertiesEx", VS_RET_OPTIONAL, &stream, NULL, &err);
	assert_int_equal(rc, VS_ERR_NOT_FOUND);
	assert_int_equal(s.n, 2);
	free(body);
}

static void xsi_type_resolved_by_namespace(void **state)
{
	(void)state;
	const char *xml = "<r xmlns:XMLSchema-instance=\"" VS_NS_XSI "\" xmlns:x=\"urn:other\">"
	                  "<a XMLSchema-instance:type=\"xsd:string\">s</a>"
	                  "<b x:type=\"Nope\">t</b><c XMLSchema-instance:type=\"ArrayOfManagedObjectReference\"/></r>";
	xmlDoc *doc = xmlReadMemory(xml, (int)strlen(xml), "x.xml", NULL, 0);
	xmlNode *root = xmlDocGetRootElement(doc);
	char *a = vs_xml_xsi_type(vs_xml_child(root, "a"));
	char *b = vs_xml_xsi_type(vs_xml_child(root, "b"));
	char *c = vs_xml_xsi_type(vs_xml_child(root, "c"));
	assert_string_equal(a, "string");
	assert_null(b);
	assert_string_equal(c, "ArrayOfManagedObjectReference");
	free(a);
	free(c);
	xmlFreeDoc(doc);
}

static void redaction_hides_passwords_and_session_keys(void **state)
{
	(void)state;
	vs_buf b = {0};
	vs_buf_add(&b, "<userName>root</userName><password>hunter2-long</password><password></password>");
	vs_redact(&b, "Login");
	assert_string_equal(b.data, "<userName>root</userName><password>***</password><password></password>");
	assert_int_equal(b.len, strlen(b.data));
	vs_buf_free(&b);
	vs_buf_add(&b, "<returnval><key>52a8-secret-e1</key><userName>u</userName></returnval>");
	vs_redact(&b, "Login");
	assert_null(strstr(b.data, "secret"));
	vs_buf_free(&b);
	vs_buf_add(&b, "<key>2000</key>");
	vs_redact(&b, "RetrievePropertiesEx");
	assert_string_equal(b.data, "<key>2000</key>");
	vs_buf_free(&b);
	/* guest file transfers: the URL's token is a bearer credential */
	vs_buf_add(&b, "<returnval>https://esx01:443/guestFile?id=7&amp;token=52f0a1c9e3</returnval>");
	vs_redact(&b, "InitiateFileTransferToGuest");
	assert_string_equal(b.data, "<returnval>https://esx01:443/guestFile?id=7&amp;token=***</returnval>");
	assert_int_equal(b.len, strlen(b.data));
	vs_buf_free(&b);
	vs_buf_add(&b, "<url>https://esx01/guestFile?token=a1b2c3d4&amp;id=8</url><size>5</size>");
	vs_redact(&b, "InitiateFileTransferFromGuest");
	assert_string_equal(b.data, "<url>https://esx01/guestFile?token=***&amp;id=8</url><size>5</size>");
	vs_buf_free(&b);
}

/* libxml2 reports encoding errors on stderr whatever the parse options:
 * a bad reply must still come out as one line from the caller. */
static void bad_encoding_says_nothing_on_stderr(void **state)
{
	(void)state;
	static const char body[] =
		"<?xml version=\"1.0\" encoding=\"EUC-JP\"?><soapenv:Envelope xmlns:soapenv="
		"\"http://schemas.xmlsoap.org/soap/envelope/\"><soapenv:Body>\xdd\x6e\x76\x61"
		"</soapenv:Body></soapenv:Envelope>";
	char path[] = "/tmp/nfsagent-stderr-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	vs_reply r = {0};
	vs_error err = {0};
	int rc = vs_soap_parse(body, sizeof(body) - 1, 200, "RetrievePropertiesEx", VS_RET_OPTIONAL,
	                       NULL, &r, &err);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	off_t written = lseek(fd, 0, SEEK_END);
	close(fd);
	unlink(path);
	assert_int_equal(rc, VS_ERR_PROTOCOL);
	assert_true(err.message[0] != '\0');
	assert_int_equal(written, 0);
	vs_reply_free(&r);
}

static int xml_errors_seen;

static void count_xml_error(void *ctx, const char *msg, ...)
{
	(void)ctx, (void)msg;
	xml_errors_seen++;
}

/* Silencing libxml2 lasts the parse only: a program embedding the library
 * keeps its own handler. */
static void embedding_program_keeps_its_xml_error_handler(void **state)
{
	(void)state;
	static const char body[] =
		"<?xml version=\"1.0\" encoding=\"EUC-JP\"?><a>\xdd\x6e\x76\x61</a>";
	xmlSetGenericErrorFunc(NULL, count_xml_error);
	vs_reply r = {0};
	vs_error err = {0};
	assert_int_not_equal(vs_soap_parse(body, sizeof(body) - 1, 200, "RetrievePropertiesEx",
	                                   VS_RET_OPTIONAL, NULL, &r, &err), VS_OK);
	assert_int_equal(xml_errors_seen, 0);
	assert_ptr_equal(xmlGenericError, count_xml_error);
	xmlSetGenericErrorFunc(NULL, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(envelope_escapes_every_value),
		cmocka_unit_test(moref_and_urlencoding),
		cmocka_unit_test(fault_type_from_xsi_type),
		cmocka_unit_test(fault_message_from_faultstring),
		cmocka_unit_test(localized_fault_in_missing_set),
		cmocka_unit_test(platform_config_fault_keeps_its_reasons),
		cmocka_unit_test(task_error_keeps_messages_and_cause_chain),
		cmocka_unit_test(times_parse_as_utc_milliseconds),
		cmocka_unit_test(occurrence_is_checked),
		cmocka_unit_test(bad_replies_are_errors_not_crashes),
		cmocka_unit_test(streamed_objects_are_delivered_and_freed),
		cmocka_unit_test(stream_callback_error_stops_parse),
		cmocka_unit_test(xsi_type_resolved_by_namespace),
		cmocka_unit_test(redaction_hides_passwords_and_session_keys),
		cmocka_unit_test(bad_encoding_says_nothing_on_stderr),
		cmocka_unit_test(embedding_program_keeps_its_xml_error_handler),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	xmlCleanupParser();
	return rc;
}
