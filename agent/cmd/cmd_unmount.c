/* nfsagent unmount: removes an NFS datastore from hosts through the unmount
 * workflow (ops/unmount.c), never while a VM still has files on it, vSphere
 * HA heartbeats on it or vCLS VMs live there.  This file parses and renders. */
#include <stdlib.h>
#include <string.h>

#include "ops/unmount.h"
#include "cmd/cmd.h"

static const char usage[] =
	"Usage: nfsagent unmount (--host H | --cluster C | --all-hosts) --name NAME\n"
	"                        [OPTIONS]\n"
	"Unmounts datastore NAME from the hosts (with --all-hosts: from every host that\n"
	"mounts it). Refused while a VM of those hosts has files there (the VMs are\n"
	"listed), while vSphere HA heartbeats on it, or while vCLS VMs live there.\n"
	"Examples:\n"
	"  nfsagent unmount --all-hosts --name tank-64k\n"
	"  nfsagent unmount --host esx01 --name tank-64k\n\n"
	NA_CONNECT_HELP;

enum { OPT_NAME = NA_OPT_FIRST_COMMAND_OPTION };

typedef struct unmount_args {
	na_host_choice choice;
	const char *name;
} unmount_args;

static int on_option(int opt, const char *arg, void *ud, na_outcome *out)
{
	(void)out;
	unmount_args *a = ud;
	if (opt != OPT_NAME)
		return na_host_choice_option(&a->choice, opt, arg);
	a->name = arg;
	return 1;
}

static const char *outcome_name(na_unmount_outcome o)
{
	switch (o) {
	case NA_UNMOUNT_NOT_TRIED: return "not tried";
	case NA_UNMOUNT_ABSENT: return "not mounted";
	case NA_UNMOUNT_UNMOUNTED: return "unmounted";
	case NA_UNMOUNT_FAILED: return "failed";
	}
	return "?";
}

/* What became of each host; the refusal or fault, if any, is the error line. */
static void print_json(const char *name, const na_unmount_result *r)
{
	json_t *hosts = json_array();
	for (size_t i = 0; i < r->n_hosts; i++)
		json_array_append_new(hosts, json_pack("{s:s, s:s}", "host", r->hosts[i].host->name,
		                                       "result", outcome_name(r->hosts[i].outcome)));
	na_json_print(json_pack("{s:s, s:b, s:I, s:o}", "datastore", name, "known", !r->unknown,
	                        "unmounted", (json_int_t)r->unmounted, "hosts", hosts));
}

static vs_status run(vs_client *c, void *args, bool json, na_outcome *out)
{
	const unmount_args *a = args;
	na_inventory inv;
	vs_error *err = &out->err;
	vs_host **hosts = NULL;
	size_t n = 0;
	na_unmount_result r = {0};
	vs_status rc = na_inventory_load(c, true, &inv, err);
	na_session s = {.client = c, .inv = &inv, .output = json ? NULL : na_print_line,
	                .warning = na_print_warning};
	if (rc == VS_OK)
		rc = na_select_hosts(&inv, &a->choice, &hosts, &n, err);
	if (rc == VS_OK)
		rc = na_op_unmount(&s, a->name, hosts, n, &r, err);
	if (json && (rc == VS_OK || r.n_hosts))
		print_json(a->name, &r);
	else if (rc == VS_OK && r.unknown) {
		/* As mount says of what is mounted; a typo gets its hint. */
		printf("%s is not mounted on any host\n", a->name);
		if (strstr(r.lookup.message, "did you mean"))
			na_warn("%s", r.lookup.message);
	}
	na_unmount_result_free(&r);
	free(hosts);
	na_inventory_free(&inv);
	return rc;
}

static vs_status check(void *args, int argc, char **argv, na_outcome *out)
{
	const unmount_args *a = args;
	if (argc > 0)
		return na_usage_error(out, "unexpected argument '%s'", argv[0]);
	if (na_host_choice_check(&a->choice, out) != VS_OK)
		return VS_ERR_USAGE;
	return a->name ? VS_OK : na_usage_error(out, "--name is required");
}

vs_status cmd_unmount(int argc, char **argv, na_outcome *out)
{
	static const struct option longopts[] = {
		NA_CONNECT_LONGOPTS, NA_HOST_CHOICE_LONGOPTS, {"name", required_argument, NULL, OPT_NAME}, {0},
	};
	static const na_command_spec spec = {usage, longopts, on_option, check, run};
	unmount_args a = {0};
	return na_command(&spec, &a, argc, argv, out);
}
