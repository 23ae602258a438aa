/* Finds one VM with its host and datastores through the library, for the
 * benchmark's call count (the CLI commands that take --vm use the same call). */
#include <stdio.h>
#include <stdlib.h>

#include "nfsagent/vsphere.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: find_vm NAME (NFSAGENT_URL/USERNAME/PASSWORD/THUMBPRINT set)\n");
		return 2;
	}
	vs_options opts = {
		.url = getenv("NFSAGENT_URL"),
		.username = getenv("NFSAGENT_USERNAME"),
		.password = getenv("NFSAGENT_PASSWORD"),
		.thumbprint = getenv("NFSAGENT_THUMBPRINT"),
	};
	vs_client *c = NULL;
	vs_vm *vm = NULL;
	vs_error err = {0};
	int rc = vs_connect(&opts, &c, &err);
	if (rc == VS_OK)
		rc = vs_find_vm(c, argv[1], &vm, &err);
	if (rc == VS_OK)
		printf("%s %s %zu\n", vm->name, vm->host_name, vm->n_datastores);
	else {
		char line[1600];
		vs_error_format(&err, line, sizeof(line));
		fprintf(stderr, "find_vm: %s\n", line);
	}
	vs_vm_free(&vm);
	vs_disconnect(&c);
	return rc == VS_OK ? 0 : 1;
}
