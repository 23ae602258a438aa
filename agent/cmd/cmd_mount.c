/* nfsagent mount: an NFS export as an NFS 3 or NFS 4.1 datastore on hosts,
 * through the mount workflow (ops/mount.c): idempotent, all or nothing, and
 * never NFS 3 and NFS 4.1 on one export.  This file parses and renders. */
#include <stdlib.h>
#include <string.h>

#include "ops/mount.h"
#include "cmd/cmd.h"

static const char usage[] =
	"Usage: nfsagent mount (--host H | --cluster C | --all-hosts) --name NAME\n"
	"                      --server S[,S2,...] --path /export --nfs 3|4.1 [OPTIONS]\n"
	"Mounts an NFS export as a datastore named NAME (read-write unless --read-only).\n"
	"Mounting what is already mounted is success. An export that any host mounts\n"
	"with the other NFS version is refused. A mount that fails on one host is\n"
	"undone on the hosts it mounted: all or nothing.\n\n"
	"  --security AUTH_SYS|SEC_KRB5|SEC_KRB5I   NFS 4.1 security (default AUTH_SYS)\n"
	"  --connections N       TCP connections per host to the server (nConnect, 1-8;\n"
	"                        ESXi 8.0 U1 for NFS 3, 8.0 U3 for NFS 4.1)\n"
	"  --read-only\n"
	"Examples:\n"
	"  nfsagent mount --all-hosts --name tank-16k --server 10.0.0.5 \\\n"
	"        --path /mnt/tank/vm16k --nfs 3\n"
	"  nfsagent mount --cluster prod --name tank-41 --server 10.0.0.5,10.0.0.6 \\\n"
	"        --path /mnt/tank/vm --nfs 4.1\n\n"
	NA_CONNECT_HELP;

enum { OPT_NAME = NA_OPT_FIRST_COMMAND_OPTION, OPT_SERVER, OPT_PATH, OPT_NFS, OPT_READ_ONLY,
       OPT_SECURITY, OPT_CONNECTIONS };


static int on_option(int opt, const char *arg, void *ud, na_outcome *out)
{
	(void)out;
	na_mount_args *a = ud;
	switch (opt) {
	case OPT_NAME: a->spec.name = arg; return 1;
	case OPT_SERVER: free(a->server_list); a->server_list = strdup(arg); return 1;
	case OPT_PATH: a->spec.path = arg; return 1;
	case OPT_NFS: a->nfs = arg; return 1;
	case OPT_READ_ONLY: a->spec.read_only = true; return 1;
	case OPT_SECURITY: a->spec.security = arg; return 1;
	case OPT_CONNECTIONS: a->connections = arg; return 1;
	default: return na_host_choice_option(&a->choice, opt, arg);
	}
}

static vs_status check_args(void *args, int argc, char **argv, na_outcome *out)
{
	na_mount_args *a = args;
	if (argc > 0)
		return na_usage_error(out, "unexpected argument '%s'", argv[0]);
	vs_status rc = na_host_choice_check(&a->choice, out);
	if (rc == VS_OK)
		rc = na_mount_check(a, &out->err);
	/* every refusal of na_mount_check is about the command line */
	out->usage = rc != VS_OK;
	return rc;
}

static json_t *host_result(const na_mount_host *h)
{
	char line[1600] = "";
	bool failed = h->err.status != VS_OK;
	if (failed)
		vs_error_format(&h->err, line, sizeof(line));
	return json_pack("{s:s, s:s, s:s?, s:s?}", "host", h->host->name, "result",
	                 na_mount_outcome_name(h->outcome), "error", failed ? line : NULL, "details",
	                 failed && h->err.details[0] ? h->err.details : NULL);
}

static void print_json(const na_mount_args *a, const na_mount_result *r)
{
	char servers[1024];
	json_t *hosts = json_array();
	for (size_t i = 0; i < r->n_hosts; i++)
		json_array_append_new(hosts, host_result(&r->hosts[i]));
	na_json_print(json_pack("{s:s, s:s, s:s, s:s, s:o}", "datastore", a->spec.name, "type",
	                        a->spec.type, "server",
	                        na_servers_text(&a->spec, servers, sizeof(servers)), "path", a->spec.path, "hosts",
	                        hosts));
}

static vs_status run(vs_client *c, void *args, bool json, na_outcome *out)
{
	const na_mount_args *a = args;
	na_inventory inv;
	vs_status rc = na_inventory_load(c, false, &inv, &out->err);
	if (rc != VS_OK)
		return rc;
	na_session s = {.client = c, .inv = &inv, .output = json ? NULL : na_print_line,
	                .warning = na_print_warning};
	na_mount_result r;
	rc = na_op_mount(&s, a, &r, &out->err);
	if (json && r.hosts)
		print_json(a, &r);
	na_mount_result_free(&r);
	na_inventory_free(&inv);
	return rc;
}

vs_status cmd_mount(int argc, char **argv, na_outcome *out)
{
	static const struct option longopts[] = {
		NA_CONNECT_LONGOPTS,
		NA_HOST_CHOICE_LONGOPTS,
		{"name", required_argument, NULL, OPT_NAME},
		{"server", required_argument, NULL, OPT_SERVER},
		{"path", required_argument, NULL, OPT_PATH},
		{"nfs", required_argument, NULL, OPT_NFS},
		{"read-only", no_argument, NULL, OPT_READ_ONLY},
		{"security", required_argument, NULL, OPT_SECURITY},
		{"connections", required_argument, NULL, OPT_CONNECTIONS},
		{0},
	};
	static const na_command_spec spec = {usage, longopts, on_option, check_args, run};
	na_mount_args a = {0};
	vs_status rc = na_command(&spec, &a, argc, argv, out);
	free((void *)a.spec.servers);
	free(a.server_list);
	return rc;
}
