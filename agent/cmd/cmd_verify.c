/* nfsagent verify: every disk of a VM, every descriptor of its chain, every
 * extent against the size the descriptor declares. */
#include <stdlib.h>
#include <string.h>

#include "ops/verify.h"
#include "cmd/render.h"
#include "cmd/cmd.h"

static const char usage[] =
	"Usage: nfsagent verify --vm VM [--recheck SECONDS] [OPTIONS]\n"
	"Reads each disk descriptor of VM and checks that every extent file holds the\n"
	"bytes the descriptor declares, as the ESXi host the VM runs on reads it (the\n"
	"NFS 4.1 'Size of extent in descriptor file larger than real size' failure).\n"
	"A short extent is read again after SECONDS (default 5) and through the other\n"
	"hosts that mount its datastore. Exit 0 when all hold, 3 on a mismatch, 8 when\n"
	"an extent could not be read (locked, host unreachable) and none was short.\n"
	"Examples:\n"
	"  nfsagent verify --vm db01\n"
	"  nfsagent verify --vm db01 --recheck 30 --json\n\n"
	NA_CONNECT_HELP;

enum { OPT_VM = NA_OPT_FIRST_COMMAND_OPTION, OPT_RECHECK };

typedef struct verify_args {
	const char *vm;
	int recheck_s;
} verify_args;

int na_parse_recheck(const char *arg, na_outcome *out)
{
	long v;
	if (na_parse_long(arg, 0, 600, &v))
		return (int)v;
	na_usage_error(out, "--recheck is a number of seconds from 0 to 600, not '%s'", arg);
	return -1;
}

static int on_option(int opt, const char *arg, void *ud, na_outcome *out)
{
	verify_args *a = ud;
	if (opt == OPT_VM) {
		a->vm = arg;
		return 1;
	}
	if (opt != OPT_RECHECK)
		return 0;
	a->recheck_s = na_parse_recheck(arg, out);
	return a->recheck_s < 0 ? -1 : 1;
}

static vs_status run(vs_client *c, void *args, bool json, na_outcome *out)
{
	const verify_args *a = args;
	na_inventory inv;
	na_checks checks = {0};
	vs_status rc = na_inventory_load(c, true, &inv, &out->err);
	na_session s = {.client = c, .inv = &inv};
	vs_vm *vm = rc == VS_OK ? na_find_vm(&inv, a->vm, &out->err) : NULL;
	if (rc == VS_OK)
		rc = vm ? na_op_verify(&s, vm, a->recheck_s, &checks, &out->err) : VS_ERR_NOT_FOUND;
	if (rc == VS_OK)
		out->verdict = na_verify_verdict(&checks);
	if (rc == VS_OK && json)
		na_json_print(json_pack("{s:s, s:b, s:b, s:o}", "vm", vm->name, "mismatch",
		                        out->verdict == NA_VERDICT_FINDING, "checked",
		                        out->verdict != NA_VERDICT_UNCHECKED,
		                        "extents", na_checks_json(&checks)));
	else if (rc == VS_OK)
		na_verify_print(vm->name, &checks);
	na_checks_free(&checks);
	na_inventory_free(&inv);
	return rc;
}

static vs_status check(void *args, int argc, char **argv, na_outcome *out)
{
	if (argc > 0)
		return na_usage_error(out, "unexpected argument '%s'", argv[0]);
	return ((const verify_args *)args)->vm ? VS_OK : na_usage_error(out, "--vm is required");
}

vs_status cmd_verify(int argc, char **argv, na_outcome *out)
{
	static const struct option longopts[] = {
		NA_CONNECT_LONGOPTS,
		{"vm", required_argument, NULL, OPT_VM},
		{"recheck", required_argument, NULL, OPT_RECHECK},
		{0},
	};
	static const na_command_spec spec = {usage, longopts, on_option, check, run};
	verify_args a = {.recheck_s = NA_RECHECK_DEFAULT_S};
	return na_command(&spec, &a, argc, argv, out);
}
