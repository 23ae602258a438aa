/* nfsagent verify: every disk of a VM, every descriptor of its chain, every
 * extent against the size the descriptor declares. */
#include <stdlib.h>
#include <string.h>

#include "agent.h"

static const char usage[] =
	"Usage: nfsagent verify --vm VM [OPTIONS]\n"
	"Downloads each disk descriptor of VM and checks that every extent file holds\n"
	"the bytes the descriptor declares (the NFS 4.1 'Size of extent in descriptor\n"
	"file larger than real size' failure). Exit 0 when all match, 3 on a mismatch.\n\n"
	NA_CONNECT_HELP;

enum { OPT_VM = NA_OPT_FIRST_COMMAND_OPTION };

int na_verify_vm(vs_client *c, const na_inventory *inv, const vs_vm *vm, na_checks *checks,
                 vs_error *err)
{
	vs_vm_layout *layout = NULL;
	na_folder_cache *cache = na_folder_cache_new();
	int rc = cache ? vs_vm_layout_read(c, vm->moref, &layout, err)
	               : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t d = 0; rc == VS_OK && d < layout->n_disks; d++)
		for (size_t l = 0; rc == VS_OK && l < layout->disks[d].n_chain; l++)
			rc = na_check_descriptor(c, inv, cache, layout->disks[d].chain[l], layout, checks, err);
	if (rc != VS_OK)
		vs_error_context(err, "verifying the disks of %s", vm->name);
	vs_vm_layout_free(&layout);
	na_folder_cache_free(&cache);
	return rc;
}

int na_verify_exit(const na_checks *checks)
{
	return checks->mismatches ? NA_EXIT_FINDING : checks->problems ? NA_EXIT_FAIL : NA_EXIT_OK;
}

void na_verify_report(const char *vm, const na_checks *checks)
{
	printf("%s: %zu extent%s checked: ", vm, checks->n, checks->n == 1 ? "" : "s");
	if (checks->mismatches)
		printf("%zu SMALLER than their descriptors say\n", checks->mismatches);
	else if (checks->problems)
		printf("%zu descriptor%s could not be read\n", checks->problems,
		       checks->problems == 1 ? "" : "s");
	else
		printf("all hold what their descriptors declare\n");
	na_checks_print(checks, stdout);
}

static int on_option(int opt, const char *arg, void *ud)
{
	if (opt != OPT_VM)
		return 0;
	*(const char **)ud = arg;
	return 1;
}

static int run(vs_client *c, void *args, bool json)
{
	const char *vm_name = *(const char **)args;
	na_inventory inv;
	na_checks checks = {0};
	vs_error err = {0};
	int rc = na_inventory_load(c, true, &inv, &err);
	vs_vm *vm = rc == VS_OK ? na_find_vm(&inv, vm_name, &err) : NULL;
	if (rc == VS_OK)
		rc = vm ? na_verify_vm(c, &inv, vm, &checks, &err) : VS_ERR_NOT_FOUND;
	int code = rc == VS_OK ? na_verify_exit(&checks) : na_report(&err);
	if (rc == VS_OK && json)
		na_json_print(json_pack("{s:s, s:b, s:o}", "vm", vm->name, "mismatch",
		                        checks.mismatches > 0, "extents", na_checks_json(&checks)));
	else if (rc == VS_OK)
		na_verify_report(vm->name, &checks);
	na_checks_free(&checks);
	na_inventory_free(&inv);
	return code;
}

static int check(void *args, int argc, char **argv)
{
	if (argc > 0)
		return na_usage_error("verify", "unexpected argument '%s'", argv[0]);
	return *(const char **)args ? -1 : na_usage_error("verify", "--vm is required");
}

int cmd_verify(int argc, char **argv)
{
	static const struct option longopts[] = {
		NA_CONNECT_LONGOPTS, {"vm", required_argument, NULL, OPT_VM}, {0},
	};
	static const na_command_spec spec = {"verify", usage, longopts, on_option, check, run};
	const char *vm = NULL;
	return na_command(&spec, &vm, argc, argv);
}
