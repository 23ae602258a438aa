/* Finds one VM with its host and datastores through the library, for the
 * benchmark's call count (the CLI commands that take --vm use the same call). */
#include <stdio.h>
#include <stdlib.h>

#include "env_connect.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: find_vm NAME (NFSAGENT_URL/USERNAME/PASSWORD/THUMBPRINT set)\n");
		return 2;
	}
	vs_client *c = NULL;
	vs_vm *vm = NULL;
	vs_error err = {0};
	int rc = env_connect(&c, &err);
	if (rc == VS_OK)
		rc = vs_find_vm(c, argv[1], &vm, &err);
	if (rc == VS_OK)
		printf("%s %s %zu\n", vm->name, vm->host_name, vm->n_datastores);
	else
		print_error("find_vm", &err);
	vs_vm_free(&vm);
	vs_disconnect(&c);
	return rc == VS_OK ? 0 : 1;
}
