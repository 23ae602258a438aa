/* Datastores: reading summary/info/mounts, and "[ds] path" helpers. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *const vs_datastore_paths[] = {"summary", "info", "host", "browser", NULL};

/* NFS 4.1 lists every server in remoteHostNames; NFS 3 has one remoteHost. */
static char *nas_servers(const xmlNode *nas)
{
	vs_buf b = {0};
	for (xmlNode *n = vs_xml_child(nas, "remoteHostNames"); n; n = vs_xml_next(n)) {
		char *s = vs_xml_text(n);
		if (b.len)
			vs_buf_add(&b, ",");
		vs_buf_add(&b, s ? s : "");
		free(s);
	}
	if (!b.len) {
		vs_buf_free(&b);
		return vs_xml_path_text(nas, "remoteHost");
	}
	if (b.failed)
		vs_buf_free(&b);
	return b.data;
}

static int read_mounts(const xmlNode *val, vs_datastore *d)
{
	size_t n = 0;
	for (xmlNode *m = vs_xml_child(val, "DatastoreHostMount"); m; m = vs_xml_next(m))
		n++;
	d->mounts = calloc(n ? n : 1, sizeof(*d->mounts));
	if (!d->mounts)
		return VS_ERR_NOMEM;
	for (xmlNode *m = vs_xml_child(val, "DatastoreHostMount"); m; m = vs_xml_next(m)) {
		vs_ds_mount *dm = &d->mounts[d->n_mounts++];
		dm->host = vs_xml_path_text(m, "key");
		dm->access_mode = vs_xml_path_text(m, "mountInfo/accessMode");
		dm->mounted = vs_xml_path_bool(m, "mountInfo/mounted", true);
		dm->accessible = vs_xml_path_bool(m, "mountInfo/accessible", true);
		dm->tcp_connections = (int)vs_xml_path_int(m, "mountInfo/numTcpConnections", 0);
	}
	return VS_OK;
}

int vs_datastore_read(const char *moref, const xmlNode *object, vs_datastore *d)
{
	xmlNode *summary = vs_prop(object, "summary");
	xmlNode *nas = vs_xml_child(vs_prop(object, "info"), "nas");
	char *raw = vs_xml_path_text(summary, "name");
	d->moref = strdup(moref);
	d->name = raw ? vs_unescape_name(raw) : NULL;
	free(raw);
	d->type = vs_xml_path_text(summary, "type");
	d->url = vs_xml_path_text(summary, "url");
	d->capacity = vs_xml_path_int(summary, "capacity", -1);
	d->free_space = vs_xml_path_int(summary, "freeSpace", -1);
	d->accessible = vs_xml_path_bool(summary, "accessible", false);
	if (nas) {
		d->remote_host = nas_servers(nas);
		d->remote_path = vs_xml_path_text(nas, "remotePath");
		d->security = vs_xml_path_text(nas, "securityType");
	}
	d->browser = vs_prop_text(object, "browser");
	int rc = read_mounts(vs_prop(object, "host"), d);
	return rc == VS_OK && d->moref && d->name ? VS_OK : VS_ERR_NOMEM;
}

void vs_datastore_clear(vs_datastore *d)
{
	for (size_t i = 0; i < d->n_mounts; i++) {
		free(d->mounts[i].host);
		free(d->mounts[i].access_mode);
	}
	free(d->mounts);
	free(d->moref);
	free(d->name);
	free(d->type);
	free(d->url);
	free(d->remote_host);
	free(d->remote_path);
	free(d->security);
	free(d->browser);
	*d = (vs_datastore){0};
}

int vs_dspath_split(const char *dspath, char **ds, char **path, vs_error *err)
{
	*ds = *path = NULL;
	const char *close = dspath[0] == '[' ? strchr(dspath, ']') : NULL;
	if (!close || close == dspath + 1)
		return vs_fail(err, VS_ERR_USAGE, "'%s' is not a datastore path like '[ds] dir/file'",
		               dspath);
	const char *rest = close + 1;
	while (*rest == ' ')
		rest++;
	*ds = strndup(dspath + 1, (size_t)(close - dspath - 1));
	*path = strdup(rest);
	if (!*ds || !*path) {
		free(*ds);
		free(*path);
		*ds = *path = NULL;
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	return VS_OK;
}

char *vs_dspath_join(const char *ds, const char *path)
{
	vs_buf b = {0};
	vs_buf_addf(&b, "[%s]", ds);
	if (path && *path)
		vs_buf_addf(&b, " %s", path);
	if (b.failed)
		vs_buf_free(&b);
	return b.data;
}

/* ---- NFS mounts ------------------------------------------------------------ */

/* ---- mounting, checked against the host ------------------------------------ */

/* A host's datastore: by name (a mount to check) or by moref (an unmount). */
typedef struct host_datastore {
	const char *host, *name, *wanted;  /* name or wanted (a moref) */
	char *moref;                       /* by name: the datastore found (malloc'd) */
	bool found;
} host_datastore;

static int read_host_datastores(const char *type, const char *moref, const xmlNode *object,
                                void *ud, vs_error *err)
{
	(void)type, (void)moref;
	vs_morefs *list = ud;
	list->v = vs_moref_list(vs_prop(object, "datastore"), &list->n);
	return list->v ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
}

/* Looks for want among the host's datastores, as the host lists them now. */
static int find_on_host(vs_client *c, host_datastore *want, vs_error *err)
{
	static const char *const host_paths[] = {"datastore", NULL};
	vs_morefs list = {0};
	want->found = false;
	int rc = vs_props_one(c, "HostSystem", want->host, host_paths, read_host_datastores, &list, err);
	for (size_t i = 0; rc == VS_OK && i < list.n && !want->found; i++) {
		if (!want->name) {
			want->found = list.v[i] && strcmp(list.v[i], want->wanted) == 0;
			continue;
		}
		char *raw = NULL, *name = NULL;
		rc = list.v[i] ? vs_props_text(c, "Datastore", list.v[i], "name", &raw, err) : VS_OK;
		if (rc == VS_OK && raw && !(name = vs_unescape_name(raw)))
			rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
		if (rc == VS_OK && name && strcmp(name, want->name) == 0 && (want->moref = strdup(list.v[i])))
			want->found = true;
		free(raw);
		free(name);
	}
	vs_strv_free(list.v, list.n);
	return rc;
}

static int mounted_now(vs_client *c, void *ud, bool *done, vs_error *err)
{
	host_datastore *want = ud;
	int rc = find_on_host(c, want, err);
	*done = rc == VS_OK && want->found;
	return rc;
}

static int unmounted_now(vs_client *c, void *ud, bool *done, vs_error *err)
{
	host_datastore *gone = ud;
	int rc = find_on_host(c, gone, err);
	*done = rc == VS_OK && !gone->found;
	return rc;
}

int vs_nas_mount(vs_client *c, const vs_host *host, const vs_nas_spec *spec, char **datastore,
                 vs_error *err)
{
	*datastore = NULL;
	if (!spec->servers || !spec->servers[0])
		return vs_fail(err, VS_ERR_USAGE, "no NFS server given");
	bool v41 = strcmp(spec->type, "NFS41") == 0;
	vs_buf p = {0};
	vs_buf_add(&p, "<spec>");
	vs_buf_elem(&p, "remoteHost", spec->servers[0]);
	vs_buf_elem(&p, "remotePath", spec->path);
	vs_buf_elem(&p, "localPath", spec->name);
	vs_buf_elem(&p, "accessMode", spec->read_only ? "readOnly" : "readWrite");
	vs_buf_elem(&p, "type", spec->type);
	/* NFS 4.1 names every server of a multipathed export. */
	for (const char *const *s = spec->servers; v41 && *s; s++)
		vs_buf_elem(&p, "remoteHostNames", *s);
	if (v41 && spec->security)
		vs_buf_elem(&p, "securityType", spec->security);
	if (spec->connections > 0)  /* last of the spec's elements, as the WSDL orders them */
		vs_buf_addf(&p, "<connections>%d</connections>", spec->connections);
	vs_buf_add(&p, "</spec>");
	vs_reply r = {0};
	host_datastore want = {host->moref, spec->name, NULL, NULL, false};
	vs_settle settle = {mounted_now, &want};
	bool settled = false;
	int rc = p.failed ? vs_fail(err, VS_ERR_NOMEM, "out of memory")
	                  : vs_call_settled(c, "CreateNasDatastore", "HostDatastoreSystem",
	                                    host->datastore_system, p.data, VS_RET_ONE, &settle, &r,
	                                    &settled, err);
	vs_buf_free(&p);
	if (rc == VS_OK && settled)
		*datastore = want.moref;
	else if (rc == VS_OK && !(*datastore = vs_xml_text(vs_reply_ret(&r))))
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	else
		free(want.moref);
	vs_reply_free(&r);
	if (rc != VS_OK)
		vs_error_context(err, "mounting %s:%s as %s on %s", spec->servers[0], spec->path,
		                 spec->name, host->name);
	return rc;
}

int vs_datastore_unmount(vs_client *c, const vs_host *host, const char *datastore, vs_error *err)
{
	vs_buf p = {0};
	vs_buf_moref(&p, "datastore", "Datastore", datastore);
	host_datastore gone = {host->moref, NULL, datastore, NULL, false};
	vs_settle settle = {unmounted_now, &gone};
	bool settled = false;
	int rc = p.failed ? vs_fail(err, VS_ERR_NOMEM, "out of memory")
	                  : vs_call_settled(c, "RemoveDatastore", "HostDatastoreSystem",
	                                    host->datastore_system, p.data, VS_RET_NONE, &settle, NULL,
	                                    &settled, err);
	vs_buf_free(&p);
	if (rc != VS_OK)
		vs_error_context(err, "unmounting %s from %s", datastore, host->name);
	return rc;
}

/* vSphere HA keeps heartbeat files on shared datastores and vCenter refuses
 * to unmount them from the cluster's hosts; the cluster's advanced runtime
 * info names them.  An empty answer means HA uses none (or is off). */
int vs_cluster_heartbeats_on(vs_client *c, const char *cluster, const char *datastore, bool *used,
                             vs_error *err)
{
	*used = false;
	vs_reply r = {0};
	int rc = vs_call(c, "RetrieveDasAdvancedRuntimeInfo", "ClusterComputeResource", cluster, NULL,
	                 VS_RET_OPTIONAL, VS_CALL_SAFE, NULL, &r, err);
	xmlNode *info = rc == VS_OK ? vs_reply_ret(&r) : NULL;
	for (xmlNode *h = vs_xml_child(info, "heartbeatDatastoreInfo"); h && !*used; h = vs_xml_next(h)) {
		char *ds = vs_xml_path_text(h, "datastore");
		*used = ds && strcmp(ds, datastore) == 0;
		free(ds);
	}
	vs_reply_free(&r);
	if (rc != VS_OK)
		vs_error_context(err, "reading the vSphere HA heartbeat datastores of %s", cluster);
	return rc;
}
