/* nfsagent unmount: removes an NFS datastore from hosts, never while a VM
 * still has files on it. */
#include <stdlib.h>
#include <string.h>

#include "agent.h"

static const char usage[] =
	"Usage: nfsagent unmount (--host H | --cluster C | --all-hosts) --name NAME\n"
	"                        [OPTIONS]\n"
	"Unmounts datastore NAME from the hosts (with --all-hosts: from every host that\n"
	"mounts it). Refused while any VM has files there; the VMs are listed.\n\n" NA_CONNECT_HELP;

enum { OPT_NAME = NA_OPT_FIRST_COMMAND_OPTION };

typedef struct unmount_args {
	na_host_choice choice;
	const char *name;
} unmount_args;

static int on_option(int opt, const char *arg, void *ud)
{
	unmount_args *a = ud;
	if (opt != OPT_NAME)
		return na_host_choice_option(&a->choice, opt, arg);
	a->name = arg;
	return 1;
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

static int run(vs_client *c, void *args, bool json)
{
	(void)json;
	const unmount_args *a = args;
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

static int check(void *args, int argc, char **argv)
{
	const unmount_args *a = args;
	if (argc > 0)
		return na_usage_error("unmount", "unexpected argument '%s'", argv[0]);
	if (na_host_choice_check("unmount", &a->choice) >= 0)
		return NA_EXIT_USAGE;
	return a->name ? -1 : na_usage_error("unmount", "--name is required");
}

int cmd_unmount(int argc, char **argv)
{
	static const struct option longopts[] = {
		NA_CONNECT_LONGOPTS, NA_HOST_CHOICE_LONGOPTS, {"name", required_argument, NULL, OPT_NAME}, {0},
	};
	static const na_command_spec spec = {"unmount", usage, longopts, on_option, check, run};
	unmount_args a = {0};
	return na_command(&spec, &a, argc, argv);
}
