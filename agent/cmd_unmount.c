/* nfsagent unmount: removes an NFS datastore from hosts, never while a VM
 * still has files on it. */
#include <stdlib.h>
#include <string.h>

#include "agent.h"

static const char usage[] =
	"Usage: nfsagent unmount (--host H | --cluster C | --all-hosts) --name NAME [OPTIONS]\n"
	"Unmounts datastore NAME from the hosts (with --all-hosts: from every host that\n"
	"mounts it). Refused while any VM has files there; the VMs are listed.\n\n" NA_CONNECT_HELP;

enum { OPT_HOST = NA_OPT_FIRST_COMMAND_OPTION, OPT_CLUSTER, OPT_ALL, OPT_NAME };

typedef struct unmount_args {
	na_host_choice choice;
	const char *name;
} unmount_args;

static int on_option(int opt, const char *arg, void *ud)
{
	unmount_args *a = ud;
	switch (opt) {
	case OPT_HOST: a->choice.host = arg; return 1;
	case OPT_CLUSTER: a->choice.cluster = arg; return 1;
	case OPT_ALL: a->choice.all = true; return 1;
	case OPT_NAME: a->name = arg; return 1;
	default: return 0;
	}
}

/* "fiotest, db01" of the VMs with files on d; NULL if none. */
static char *vms_on(const na_inventory *inv, const vs_datastore *d)
{
	size_t len = 0;
	char *list = NULL;
	for (size_t i = 0; i < inv->n_vms; i++) {
		if (!na_vm_uses(&inv->vms[i], d->moref))
			continue;
		size_t add = strlen(inv->vms[i].name) + 3;
		char *grown = realloc(list, len + add);
		if (!grown)
			break;
		list = grown;
		len += (size_t)sprintf(list + len, "%s%s", len ? ", " : "", inv->vms[i].name);
	}
	return list;
}

int na_unmount_everywhere(vs_client *c, const na_inventory *inv, const vs_datastore *d,
                          vs_host **hosts, size_t n, bool quiet, vs_error *err)
{
	char *users = vms_on(inv, d);
	if (users) {
		vs_fail(err, VS_ERR_USAGE, "refusing to unmount '%s': VMs have files there: %s", d->name,
		        users);
		free(users);
		return VS_ERR_USAGE;
	}
	for (size_t i = 0; i < n; i++) {
		if (!na_mounted_on(d, hosts[i]->moref)) {
			if (!quiet)
				printf("%s: %s is not mounted\n", hosts[i]->name, d->name);
			continue;
		}
		int rc = vs_datastore_unmount(c, hosts[i], d->moref, err);
		if (rc != VS_OK)
			return rc;
		if (!quiet)
			printf("%s: unmounted %s\n", hosts[i]->name, d->name);
	}
	return VS_OK;
}

static int run(vs_client *c, const unmount_args *a)
{
	na_inventory inv;
	vs_error err = {0};
	vs_host **hosts = NULL;
	size_t n = 0;
	int rc = na_inventory_load(c, true, &inv, &err);
	vs_datastore *d = rc == VS_OK ? na_find_datastore(&inv, a->name, &err) : NULL;
	if (rc == VS_OK && !d)
		rc = VS_ERR_NOT_FOUND;
	if (rc == VS_OK)
		rc = na_select_hosts(&inv, &a->choice, &hosts, &n, &err);
	if (rc == VS_OK)
		rc = na_unmount_everywhere(c, &inv, d, hosts, n, false, &err);
	free(hosts);
	na_inventory_free(&inv);
	return rc == VS_OK ? NA_EXIT_OK : na_report(&err);
}

int cmd_unmount(int argc, char **argv)
{
	static const struct option longopts[] = {
		NA_CONNECT_LONGOPTS,
		{"host", required_argument, NULL, OPT_HOST},
		{"cluster", required_argument, NULL, OPT_CLUSTER},
		{"all-hosts", no_argument, NULL, OPT_ALL},
		{"name", required_argument, NULL, OPT_NAME},
		{0},
	};
	na_conn conn = {.cmd = "unmount"};
	unmount_args a = {0};
	vs_client *c = NULL;
	int rc = na_parse_options(&conn, argc, argv, longopts, usage, on_option, &a);
	if (rc < 0 && optind < argc)
		rc = na_usage_error("unmount", "unexpected argument '%s'", argv[optind]);
	if (rc < 0 && !!a.choice.host + !!a.choice.cluster + a.choice.all != 1)
		rc = na_usage_error("unmount", "say where: one of --host, --cluster or --all-hosts");
	if (rc < 0 && !a.name)
		rc = na_usage_error("unmount", "--name is required");
	if (rc < 0)
		rc = na_conn_open(&conn, &c);
	if (rc == NA_EXIT_OK && c)
		rc = run(c, &a);
	na_conn_close(&conn, &c);
	return rc;
}
