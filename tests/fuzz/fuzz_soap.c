/* libFuzzer target for the SOAP reply parser, the first code to see what a
 * server sends.  Whatever arrives (as an HTTP 200 and as a 500): either a
 * reply whose document the caller owns, or an error that says why; never a
 * crash.  Objects streamed out of an accepted reply are read the way the
 * inventory walk reads them. */
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int read_object(xmlNode *object, void *ud, vs_error *err)
{
	(void)ud, (void)err;
	size_t n = 0;
	char **datastores = vs_moref_list(vs_prop(object, "datastore"), &n);
	char *name = vs_read_name(object);
	char *power = vs_prop_text(object, "runtime.powerState");
	char *type = vs_xml_xsi_type(vs_prop(object, "config.product"));
	vs_strv_free(datastores, n);
	free(name);
	free(power);
	free(type);
	return VS_OK;
}

static void parse(const uint8_t *data, size_t size, long status, const vs_stream *stream)
{
	vs_reply reply = {0};
	vs_error err = {0};
	int rc = vs_soap_parse((const char *)data, size, status, "RetrievePropertiesEx",
	                       VS_RET_OPTIONAL, stream, &reply, &err);
	if (rc == VS_OK) {
		if (!reply.doc || !reply.response)
			abort();
		free(vs_xml_path_text(vs_reply_ret(&reply), "token"));
	} else if (reply.doc || (!err.message[0] && !err.fault[0])) {
		abort();
	}
	vs_reply_free(&reply);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	vs_stream objects = {"objects", read_object, NULL};
	parse(data, size, 200, &objects);
	parse(data, size, 500, NULL);
	return 0;
}
