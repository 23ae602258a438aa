/* Powers a VM off and on (or only off) through the library, printing each progress value
 * the task waiter reports, one per line: the integration test checks them. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "env_connect.h"

static void on_progress(int percent, void *ud)
{
	(void)ud;
	printf("%d\n", percent);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: task_progress VM [off] (NFSAGENT_URL/USERNAME/PASSWORD/THUMBPRINT set)\n");
		return 2;
	}
	bool off_only = argc == 3;
	vs_client *c = NULL;
	vs_vm *vm = NULL;
	vs_error err = {0};
	int rc = env_connect(&c, &err);
	if (rc == VS_OK)
		rc = vs_find_vm(c, argv[1], &vm, &err);
	if (rc == VS_OK) {
		printf("off\n");
		rc = vs_vm_power_off(c, vm->moref, on_progress, NULL, &err);
	}
	if (rc == VS_OK && !off_only) {
		printf("on\n");
		rc = vs_vm_power_on(c, vm->moref, on_progress, NULL, &err);
	}
	if (rc != VS_OK)
		print_error("task_progress", &err);
	vs_vm_free(&vm);
	vs_disconnect(&c);
	return rc == VS_OK ? 0 : 1;
}
