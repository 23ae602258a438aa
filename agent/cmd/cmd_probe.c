/* nfsagent probe: a canary for the NFS 4.1 extent-size bug that needs no VM.
 * Creates thin disks of varied sizes in a scratch folder, checks each one's
 * extent against its descriptor, and removes them all again, also after an
 * error or Ctrl-C. */
#include <stdio.h>

#include "ops/probe.h"
#include "cmd/render.h"
#include "cmd/cmd.h"
#include "profiles.h"

static const char usage[] =
	"Usage: nfsagent probe --host H --datastore DS [--disks 8] [--size 1G]\n"
	"                      [--recheck SECONDS] [OPTIONS]\n"
	"Creates canary virtual disks (thin, sizes up to --size) on DS, reads each flat\n"
	"file's length through every host that mounts DS (vCenter picks the host that\n"
	"creates them), and deletes them. A short one is read again after SECONDS\n"
	"(default 5). DS must be mounted on host H, whose ESXi version the verdict\n"
	"names. The verdict is recorded in the results database (--db FILE) for\n"
	"`nfsagent regress`. Exit 0 when clean, 3 when the extent-size mismatch\n"
	"showed, 8 when no length could be read.\n"
	"Examples:\n"
	"  nfsagent probe --host esx01 --datastore tank-41\n"
	"  nfsagent probe --host esx01 --datastore tank-41 --disks 16 --size 4G\n\n"
	NA_CONNECT_HELP;

enum { OPT_DATASTORE = NA_OPT_FIRST_COMMAND_OPTION, OPT_DISKS, OPT_SIZE, OPT_DB, OPT_RECHECK };
enum { MIB = 1024 * 1024 };

static int on_option(int opt, const char *arg, void *ud, na_outcome *out)
{
	na_probe_args *a = ud;
	switch (opt) {
	case NA_OPT_HOST: a->host = arg; return 1;
	case OPT_DATASTORE: a->datastore = arg; return 1;
	case OPT_DB: a->db = arg; return 1;
	case OPT_DISKS:
		if (na_parse_long(arg, 1, NA_MAX_PROBE_DISKS, &a->disks))
			return 1;
		na_usage_error(out, "--disks is a number from 1 to %d, not '%s'", NA_MAX_PROBE_DISKS, arg);
		return -1;
	case OPT_RECHECK:
		a->recheck_s = na_parse_recheck(arg, out);
		return a->recheck_s < 0 ? -1 : 1;
	case OPT_SIZE:
		if ((a->size = na_parse_size(arg)) >= MIB)
			return 1;
		na_usage_error(out, "--size wants a size of 1M or more, like 1G, not '%s'", arg);
		return -1;
	default: return 0;
	}
}

static void print_json(const na_probe_result *r)
{
	const vs_host *h = r->host;
	size_t bad = r->tally.short_ + r->tally.transient;
	na_json_print(json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:b, s:b, s:s?, s:s, s:o}",
	                        "datastore", r->datastore->name, "type", r->datastore->type, "host",
	                        h->name, "esxi_version", h->version, "esxi_build", h->build, "disks",
	                        (int)r->disks, "mismatches", (int)bad, "unchecked", (int)r->tally.unknown,
	                        "extent_bug", bad > 0, "checked", r->verdict_made, "case",
	                        r->extent_case, "verdict", r->verdict, "checks",
	                        na_checks_json(&r->checks)));
}

static vs_status run(vs_client *c, void *args, bool json, na_outcome *out)
{
	na_inventory inv;
	na_probe_result r = {0};
	vs_status rc = na_inventory_load(c, false, &inv, &out->err);
	na_session s = {.client = c, .inv = &inv, .output = na_print_line, .warning = na_print_warning};
	if (rc == VS_OK)
		rc = na_op_probe(&s, args, &r, &out->err);
	if (rc == VS_OK && json)
		print_json(&r);
	else if (rc == VS_OK)
		na_probe_print(&r);
	if (rc == VS_OK)
		out->verdict = na_probe_verdict(&r);
	na_probe_result_free(&r);
	na_inventory_free(&inv);
	return rc;
}

static vs_status check(void *args, int argc, char **argv, na_outcome *out)
{
	const na_probe_args *a = args;
	if (argc > 0)
		return na_usage_error(out, "unexpected argument '%s'", argv[0]);
	return a->host && a->datastore ? VS_OK : na_usage_error(out, "--host and --datastore are required");
}

vs_status cmd_probe(int argc, char **argv, na_outcome *out)
{
	static const struct option longopts[] = {
		NA_CONNECT_LONGOPTS,
		{"host", required_argument, NULL, NA_OPT_HOST},
		{"datastore", required_argument, NULL, OPT_DATASTORE},
		{"disks", required_argument, NULL, OPT_DISKS},
		{"size", required_argument, NULL, OPT_SIZE},
		{"db", required_argument, NULL, OPT_DB},
		{"recheck", required_argument, NULL, OPT_RECHECK},
		{0},
	};
	static const na_command_spec spec = {usage, longopts, on_option, check, run};
	na_probe_args a = {.disks = 8, .size = 1024LL * MIB, .recheck_s = NA_RECHECK_DEFAULT_S};
	return na_command(&spec, &a, argc, argv, out);
}
