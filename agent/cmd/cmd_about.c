/* nfsagent about: what the server is, and its certificate thumbprint to pin. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "output.h"

static const char usage[] =
	"Usage: nfsagent about [OPTIONS]\n"
	"Shows the server's product, version, build, API version and type, and the\n"
	"SHA-256 thumbprint of its certificate (pin it with --thumbprint).\n"
	"Examples:\n"
	"  nfsagent about --url vc.example.com --username administrator@vsphere.local\n"
	"  nfsagent about --cacert /etc/ssl/vc-ca.pem --json\n\n"
	NA_CONNECT_HELP;

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static vs_status print_about(vs_client *c, void *args, bool json, na_outcome *out)
{
	(void)args;
	(void)out;
	const vs_about *a = vs_client_about(c);
	if (json) {
		na_json_print(json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s}",
		                        "name", jstr(a->name), "full_name", jstr(a->full_name),
		                        "version", jstr(a->version), "build", jstr(a->build),
		                        "api_type", jstr(a->api_type), "api_version", jstr(a->api_version),
		                        "instance_uuid", jstr(a->instance_uuid),
		                        "soap_version", jstr(vs_client_api_version(c)),
		                        "thumbprint", vs_client_thumbprint(c)));
		return VS_OK;
	}
	printf("Name:          %s\n", a->name ? a->name : "-");
	printf("Full name:     %s\n", a->full_name ? a->full_name : "-");
	printf("Version:       %s\n", a->version ? a->version : "-");
	printf("Build:         %s\n", a->build ? a->build : "-");
	printf("API type:      %s\n", a->api_type ? a->api_type : "-");
	printf("API version:   %s\n", a->api_version ? a->api_version : "-");
	if (a->instance_uuid)
		printf("Instance UUID: %s\n", a->instance_uuid);
	printf("Thumbprint:    %s\n", vs_client_thumbprint(c));
	return VS_OK;
}

vs_status cmd_about(int argc, char **argv, na_outcome *out)
{
	static const struct option longopts[] = {NA_CONNECT_LONGOPTS, {0}};
	static const na_command_spec spec = {usage, longopts, NULL, NULL, print_about};
	return na_command(&spec, NULL, argc, argv, out);
}
