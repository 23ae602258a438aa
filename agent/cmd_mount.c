/* nfsagent mount: an NFS export as an NFS 3 or NFS 4.1 datastore on hosts.
 * Idempotent, and it refuses to mix NFS 3 and NFS 4.1 on one export:
 * VMware warns that the two lock differently and data can be corrupted, and
 * ESXi does not stop you. */
#include <stdlib.h>
#include <string.h>

#include "agent.h"

static const char usage[] =
	"Usage: nfsagent mount (--host H | --cluster C | --all-hosts) --name NAME\n"
	"                      --server S[,S2,...] --path /export --nfs 3|4.1 [OPTIONS]\n"
	"Mounts an NFS export as a datastore named NAME (read-write unless --read-only).\n"
	"Mounting what is already mounted is success. An export that any host mounts\n"
	"with the other NFS version is refused.\n\n"
	"  --security AUTH_SYS|SEC_KRB5|SEC_KRB5I   NFS 4.1 security (default AUTH_SYS)\n"
	"  --read-only\n\n" NA_CONNECT_HELP;

enum { OPT_NAME = NA_OPT_FIRST_COMMAND_OPTION, OPT_SERVER, OPT_PATH, OPT_NFS, OPT_READ_ONLY,
       OPT_SECURITY };


static int on_option(int opt, const char *arg, void *ud)
{
	na_mount_args *a = ud;
	switch (opt) {
	case OPT_NAME: a->spec.name = arg; return 1;
	case OPT_SERVER: free(a->server_list); a->server_list = strdup(arg); return 1;
	case OPT_PATH: a->spec.path = arg; return 1;
	case OPT_NFS: a->nfs = arg; return 1;
	case OPT_READ_ONLY: a->spec.read_only = true; return 1;
	case OPT_SECURITY: a->spec.security = arg; return 1;
	default: return na_host_choice_option(&a->choice, opt, arg);
	}
}

char **na_split_servers(char *list, size_t *n)
{
	char **v = calloc(strlen(list) + 2, sizeof(char *));
	char *save = NULL;
	*n = 0;
	for (char *s = strtok_r(list, ",", &save); v && s; s = strtok_r(NULL, ",", &save))
		v[(*n)++] = s;
	return v;
}

static int check_args(void *args, int argc, char **argv)
{
	na_mount_args *a = args;
	if (argc > 0)
		return na_usage_error("mount", "unexpected argument '%s'", argv[0]);
	if (na_host_choice_check("mount", &a->choice) >= 0)
		return NA_EXIT_USAGE;
	return na_mount_check(a);
}

int na_mount_check(na_mount_args *a)
{
	if (!a->spec.name || !a->server_list || !a->spec.path || !a->nfs)
		return na_usage_error("mount", "--name, --server, --path and --nfs are required");
	if (strcmp(a->nfs, "3") == 0)
		a->spec.type = "NFS";
	else if (strcmp(a->nfs, "4.1") == 0 || strcmp(a->nfs, "41") == 0)
		a->spec.type = "NFS41";
	else
		return na_usage_error("mount", "--nfs is 3 or 4.1, not '%s'", a->nfs);
	if (a->spec.path[0] != '/')
		return na_usage_error("mount", "--path must be absolute, like /mnt/tank/vmware");
	size_t n = 0;
	char **servers = na_split_servers(a->server_list, &n);
	a->spec.servers = (const char *const *)servers;
	if (n == 0)
		return na_usage_error("mount", "--server names no server");
	if (n > 1 && strcmp(a->spec.type, "NFS") == 0)
		return na_usage_error("mount", "NFS 3 takes one server; several are for NFS 4.1 multipathing");
	if (a->spec.security && strcmp(a->spec.type, "NFS41") != 0)
		return na_usage_error("mount", "--security is for NFS 4.1");
	if (a->spec.security && strcmp(a->spec.security, "AUTH_SYS") != 0 &&
	    strcmp(a->spec.security, "SEC_KRB5") != 0 && strcmp(a->spec.security, "SEC_KRB5I") != 0)
		return na_usage_error("mount", "--security is AUTH_SYS, SEC_KRB5 or SEC_KRB5I");
	return -1;
}

const char *na_nfs_label(const char *type)
{
	if (!type)
		return "-";
	return strcmp(type, "NFS41") == 0 ? "NFS 4.1" : strcmp(type, "NFS") == 0 ? "NFS 3" : type;
}

/* Refuses a name taken by another export, and an export mounted with the
 * other protocol anywhere.  Returns the datastore already named so, if any. */
static int check_existing(const na_inventory *inv, const vs_nas_spec *spec, vs_datastore **same,
                          vs_error *err)
{
	char hosts[512];
	*same = NULL;
	for (size_t i = 0; i < inv->n_datastores; i++) {
		vs_datastore *d = &inv->datastores[i];
		bool export = na_same_export(d, spec->servers, spec->path);
		bool same_type = d->type && strcmp(d->type, spec->type) == 0;
		if (strcmp(d->name, spec->name) == 0) {
			if (export && !same_type)
				return vs_fail(err, VS_ERR_USAGE,
				               "datastore '%s' is this export already, mounted as %s on %s: the same "
				               "export, other protocol; unmount it first to mount it as %s",
				               d->name, na_nfs_label(d->type),
				               na_mount_hosts(inv, d, hosts, sizeof(hosts)), na_nfs_label(spec->type));
			if (!export)
				return vs_fail(err, VS_ERR_USAGE,
				               "datastore '%s' already exists for another export: %s:%s (%s); "
				               "choose another --name",
				               d->name, d->remote_host ? d->remote_host : "-",
				               d->remote_path ? d->remote_path : "-", na_nfs_label(d->type));
			*same = d;
		} else if (export && !same_type && d->n_mounts > 0) {
			return vs_fail(err, VS_ERR_USAGE,
			               "refusing to mount %s:%s as %s: the same export is mounted as %s (datastore "
			               "'%s') on %s; mixing NFS 3 and NFS 4.1 on one export can corrupt data",
			               spec->servers[0], spec->path, na_nfs_label(spec->type),
			               na_nfs_label(d->type), d->name, na_mount_hosts(inv, d, hosts, sizeof(hosts)));
		}
	}
	return VS_OK;
}

static json_t *host_result(const char *host, const char *result, const vs_error *err)
{
	char line[1600] = "";
	if (err)
		vs_error_format(err, line, sizeof(line));
	return json_pack("{s:s, s:s, s:s?, s:s?}", "host", host, "result", result, "error",
	                 err ? line : NULL, "details", err && err->details[0] ? err->details : NULL);
}

/* "a,b": every server of the spec (na_split_servers cut server_list). */
static const char *servers_text(const vs_nas_spec *spec, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; spec->servers[i] && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? "," : "", spec->servers[i]);
	return buf;
}

/* Mounts on every chosen host that lacks it; returns how many failed. */
static size_t mount_hosts(vs_client *c, const na_mount_args *a, vs_host **hosts, size_t n,
                          const vs_datastore *same, json_t *results, bool json, size_t *mounted)
{
	size_t failed = 0;
	char servers[1024];
	servers_text(&a->spec, servers, sizeof(servers));
	for (size_t i = 0; i < n; i++) {
		if (same && na_mounted_on(same, hosts[i]->moref)) {
			json_array_append_new(results, host_result(hosts[i]->name, "already mounted", NULL));
			if (!json)
				printf("%s: %s is already mounted\n", hosts[i]->name, a->spec.name);
			continue;
		}
		char *ds = NULL;
		vs_error err = {0};
		if (vs_nas_mount(c, hosts[i], &a->spec, &ds, &err) == VS_OK) {
			(*mounted)++;
			json_array_append_new(results, host_result(hosts[i]->name, "mounted", NULL));
			if (!json)
				printf("%s: mounted %s (%s %s:%s, %s)\n", hosts[i]->name, a->spec.name,
				       na_nfs_label(a->spec.type), servers, a->spec.path,
				       a->spec.read_only ? "read-only" : "read-write");
		} else {
			failed++;
			json_array_append_new(results, host_result(hosts[i]->name, "failed", &err));
			if (!json)
				na_report(&err);
		}
		free(ds);
	}
	return failed;
}

int na_mount(vs_client *c, const na_mount_args *a, bool json, size_t *mounted)
{
	na_inventory inv;
	vs_error err = {0};
	vs_host **hosts = NULL;
	size_t n = 0;
	vs_datastore *same = NULL;
	int rc = na_inventory_load(c, false, &inv, &err);
	if (rc == VS_OK)
		rc = na_select_hosts(&inv, &a->choice, &hosts, &n, &err);
	if (rc == VS_OK)
		rc = check_existing(&inv, &a->spec, &same, &err);
	if (rc != VS_OK) {
		free(hosts);
		na_inventory_free(&inv);
		return na_report(&err);
	}
	json_t *results = json_array();
	*mounted = 0;
	size_t failed = mount_hosts(c, a, hosts, n, same, results, json, mounted);
	char servers[1024];
	if (json)
		na_json_print(json_pack("{s:s, s:s, s:s, s:s, s:o}", "datastore", a->spec.name, "type",
		                        a->spec.type, "server", servers_text(&a->spec, servers, sizeof(servers)),
		                        "path", a->spec.path, "hosts", results));
	else
		json_decref(results);
	free(hosts);
	na_inventory_free(&inv);
	if (failed)
		na_error("%s is not mounted on %zu of %zu hosts", a->spec.name, failed, n);
	return failed ? NA_EXIT_FAIL : NA_EXIT_OK;
}

static int run(vs_client *c, void *args, bool json)
{
	size_t mounted;
	return na_mount(c, args, json, &mounted);
}

int cmd_mount(int argc, char **argv)
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
		{0},
	};
	static const na_command_spec spec = {"mount", usage, longopts, on_option, check_args, run};
	na_mount_args a = {0};
	int rc = na_command(&spec, &a, argc, argv);
	free((void *)a.spec.servers);
	free(a.server_list);
	return rc;
}
