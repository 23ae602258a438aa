/* The mount workflow (mount.h): it refuses to mix NFS 3 and NFS 4.1 on one
 * export (VMware warns that the two lock differently and data can be
 * corrupted, and ESXi does not stop you), and a mount that fails on one
 * host is undone on the others, so that no target is half mounted. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/mount.h"
#include "ops/extents.h"

const char *na_mount_outcome_name(na_mount_outcome o)
{
	switch (o) {
	case NA_MOUNT_PRESENT: return "already mounted";
	case NA_MOUNT_MOUNTED: return "mounted";
	case NA_MOUNT_FAILED: return "failed";
	case NA_MOUNT_ROLLED_BACK: return "rolled back";
	default: return "not tried";
	}
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

const char *na_servers_text(const vs_nas_spec *spec, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; spec->servers[i] && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? "," : "", spec->servers[i]);
	return buf;
}

/* After out->hosts[failed] failed: unmounts the datastore again from every
 * host this op mounted it on.  A host that cannot let go is named in err's
 * context, so that the one error line tells what is left. */
static void roll_back(na_session *s, const na_mount_args *a, na_mount_result *out, size_t failed,
                      vs_error *err)
{
	char *undo = NULL, *left = NULL;
	for (size_t i = 0; i < out->n_hosts; i++)
		if (out->hosts[i].outcome == NA_MOUNT_MOUNTED)
			na_list_add(&undo, out->hosts[i].host->name);
	if (!undo)
		return;
	na_say(s, "%s: mounting %s failed; unmounting it again from %s (all or nothing)",
	       out->hosts[failed].host->name, a->spec.name, undo);
	free(undo);
	for (size_t i = 0; i < out->n_hosts; i++) {
		na_mount_host *h = &out->hosts[i];
		if (h->outcome != NA_MOUNT_MOUNTED)
			continue;
		if (vs_datastore_unmount(s->client, h->host, h->datastore, &h->err) != VS_OK) {
			char line[1600];
			vs_error_format(&h->err, line, sizeof(line));
			na_say(s, "%s: could not unmount %s again: %s", h->host->name, a->spec.name, line);
			na_list_add(&left, h->host->name);
			continue;
		}
		na_say(s, "%s: unmounted %s (%s)", h->host->name, a->spec.name, na_nfs_label(a->spec.type));
		h->outcome = NA_MOUNT_ROLLED_BACK;
		free(h->datastore);
		h->datastore = NULL;
		out->mounted--;
		out->rolled_back++;
	}
	if (left) {
		char was[sizeof(err->context)];
		snprintf(was, sizeof(was), "%s", err->context);
		vs_error_context(err, "%s (left mounted on %s: unmounting it again failed)", was, left);
	}
	free(left);
}

/* Mounts on each host that lacks it, in order, up to the first failure. */
static int mount_hosts(na_session *s, const na_mount_args *a, const vs_datastore *same,
                       na_mount_result *out, vs_error *err)
{
	char servers[1024];
	na_servers_text(&a->spec, servers, sizeof(servers));
	for (size_t i = 0; i < out->n_hosts; i++) {
		na_mount_host *h = &out->hosts[i];
		if (same && na_mounted_on(same, h->host->moref)) {
			h->outcome = NA_MOUNT_PRESENT;
			out->present++;
			/* vSphere's API sets connections only when it mounts */
			na_say(s, "%s: %s is already mounted%s", h->host->name, a->spec.name,
			       a->spec.connections ? " (with the connections it has: --connections is for a "
			                             "new mount)" : "");
			continue;
		}
		vs_nas_spec spec = a->spec;
		if (a->read_only)
			spec.read_only = a->read_only[i];
		/* Even a mount that fails (a reply lost) may have changed the host. */
		s->stale = true;
		if (vs_nas_mount(s->client, h->host, &spec, &h->datastore, &h->err) != VS_OK) {
			h->outcome = NA_MOUNT_FAILED;
			*err = h->err;
			roll_back(s, a, out, i, err);
			return err->status;
		}
		h->outcome = NA_MOUNT_MOUNTED;
		out->mounted++;
		char conns[32] = "";
		if (spec.connections)
			snprintf(conns, sizeof(conns), ", %d connections", spec.connections);
		na_say(s, "%s: mounted %s (%s %s:%s, %s%s)", h->host->name, a->spec.name,
		       na_nfs_label(a->spec.type), servers, a->spec.path,
		       spec.read_only ? "read-only" : "read-write", conns);
	}
	return VS_OK;
}

/* ESXi takes connections (nConnect) for NFS 3 from 8.0 U1, for NFS 4.1
 * from 8.0 U3; an older host would refuse the spec mid-mount. */
static int hosts_take_connections(const vs_nas_spec *spec, vs_host *const *hosts, size_t n,
                                  vs_error *err)
{
	bool v41 = strcmp(spec->type, "NFS41") == 0;
	int update = v41 ? 3 : 1;  /* 8.0 U3, 8.0 U1: "8.0.3", "8.0.1" */
	for (size_t i = 0; spec->connections && i < n; i++) {
		int major = 0, minor = 0, patch = 0;
		if (hosts[i]->version)
			sscanf(hosts[i]->version, "%d.%d.%d", &major, &minor, &patch);
		if (major < 8 || (major == 8 && minor == 0 && patch < update))
			return vs_fail(err, VS_ERR_USAGE, "--connections needs ESXi 8.0 U%d for %s; %s runs %s",
			               update, v41 ? "NFS 4.1" : "NFS 3", hosts[i]->name,
			               hosts[i]->version ? hosts[i]->version : "an unknown version");
	}
	return VS_OK;
}

int na_op_mount(na_session *s, const na_mount_args *a, na_mount_result *out, vs_error *err)
{
	*out = (na_mount_result){0};
	vs_host **chosen = NULL;
	size_t n = a->n_hosts;
	vs_datastore *same = NULL;
	int rc = na_session_fresh(s, err);
	if (rc == VS_OK && !a->hosts)
		rc = na_select_hosts(s->inv, &a->choice, &chosen, &n, err);
	vs_host *const *hosts = a->hosts ? a->hosts : chosen;
	if (rc == VS_OK)
		rc = hosts_take_connections(&a->spec, hosts, n, err);
	if (rc == VS_OK)
		rc = check_existing(s->inv, &a->spec, &same, err);
	if (rc == VS_OK && !(out->hosts = calloc(n + 1, sizeof(*out->hosts))))
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	if (rc == VS_OK) {
		out->n_hosts = n;
		for (size_t i = 0; i < n; i++)
			out->hosts[i].host = hosts[i];
		rc = mount_hosts(s, a, same, out, err);
	}
	free(chosen);
	return rc;
}

void na_mount_result_free(na_mount_result *r)
{
	for (size_t i = 0; i < r->n_hosts; i++)
		free(r->hosts[i].datastore);
	free(r->hosts);
	*r = (na_mount_result){0};
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

/* --connections: ESXi takes 1 to 8 (more than 4 once an advanced option
 * is raised: docs/mount-and-migrate.md). */
static vs_status check_connections(na_mount_args *a, vs_error *err)
{
	if (!a->connections)
		return VS_OK;
	char *end = NULL;
	errno = 0;
	long n = strtol(a->connections, &end, 10);
	if (errno || end == a->connections || *end || n < 1 || n > NA_MAX_CONNECTIONS)
		return vs_fail(err, VS_ERR_USAGE, "--connections is a whole number from 1 to %d, not '%s'",
		               NA_MAX_CONNECTIONS, a->connections);
	a->spec.connections = (int)n;
	return VS_OK;
}

vs_status na_mount_check(na_mount_args *a, vs_error *err)
{
	if (!a->spec.name || !a->server_list || !a->spec.path || !a->nfs)
		return vs_fail(err, VS_ERR_USAGE, "--name, --server, --path and --nfs are required");
	if (strcmp(a->nfs, "3") == 0)
		a->spec.type = "NFS";
	else if (strcmp(a->nfs, "4.1") == 0 || strcmp(a->nfs, "41") == 0)
		a->spec.type = "NFS41";
	else
		return vs_fail(err, VS_ERR_USAGE, "--nfs is 3 or 4.1, not '%s'", a->nfs);
	if (a->spec.path[0] != '/')
		return vs_fail(err, VS_ERR_USAGE, "--path must be absolute, like /mnt/tank/vmware");
	size_t n = 0;
	char **servers = na_split_servers(a->server_list, &n);
	a->spec.servers = (const char *const *)servers;
	if (n == 0)
		return vs_fail(err, VS_ERR_USAGE, "--server names no server");
	if (n > 1 && strcmp(a->spec.type, "NFS") == 0)
		return vs_fail(err, VS_ERR_USAGE, "NFS 3 takes one server; several are for NFS 4.1 multipathing");
	if (a->spec.security && strcmp(a->spec.type, "NFS41") != 0)
		return vs_fail(err, VS_ERR_USAGE, "--security is for NFS 4.1");
	if (a->spec.security && strcmp(a->spec.security, "AUTH_SYS") != 0 &&
	    strcmp(a->spec.security, "SEC_KRB5") != 0 && strcmp(a->spec.security, "SEC_KRB5I") != 0)
		return vs_fail(err, VS_ERR_USAGE, "--security is AUTH_SYS, SEC_KRB5 or SEC_KRB5I");
	return check_connections(a, err);
}
