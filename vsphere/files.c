/* Datastore files: which datacenter a datastore is in (FileManager and
 * VirtualDiskManager want it on vCenter, /folder URLs want its path), the
 * datastore browser, /folder downloads, folders and virtual disks. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct dc_entry {
	char *ds_name;
	char *dc_moref;
	char *dc_path;  /* inventory path, e.g. "Europe/DC1" (the /folder dcPath) */
} dc_entry;

struct vs_dc_cache {
	size_t n;
	dc_entry *entries;  /* one per datastore */
};

void vs_dc_cache_free(struct vs_dc_cache **cp)
{
	struct vs_dc_cache *c = *cp;
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->entries[i].ds_name);
		free(c->entries[i].dc_moref);
		free(c->entries[i].dc_path);
	}
	free(c->entries);
	free(c);
	*cp = NULL;
}

/* What one walk over datacenters and datastores brings back. */
typedef struct dc_walk {
	char **names;    /* moref, name, moref, name ... of both kinds */
	size_t n_names;
	char **members;  /* datacenter moref, datastore moref ... */
	size_t n_members;
	char **parents;  /* datacenter moref, its folder's moref ... */
	size_t n_parents;
} dc_walk;

static int push(char ***v, size_t *n, const char *a, const char *b)
{
	char **grown = realloc(*v, (*n + 2) * sizeof(char *));
	if (!grown)
		return VS_ERR_NOMEM;
	*v = grown;
	grown[(*n)++] = strdup(a);
	grown[(*n)++] = strdup(b);
	return grown[*n - 1] && grown[*n - 2] ? VS_OK : VS_ERR_NOMEM;
}

static int collect_dc(const char *type, const char *moref, const xmlNode *object, void *ud,
                      vs_error *err)
{
	dc_walk *w = ud;
	char *name = vs_read_name(object);
	int rc = name ? push(&w->names, &w->n_names, moref, name) : VS_ERR_NOMEM;
	if (rc == VS_OK && strcmp(type, "Datacenter") == 0) {
		size_t n = 0;
		char **ds = vs_moref_list(vs_prop(object, "datastore"), &n);
		for (size_t i = 0; ds && rc == VS_OK && i < n; i++)
			rc = push(&w->members, &w->n_members, moref, ds[i]);
		vs_strv_free(ds, n);
		char *parent = vs_prop_text(object, "parent");
		if (rc == VS_OK && parent)
			rc = push(&w->parents, &w->n_parents, moref, parent);
		free(parent);
	}
	free(name);
	return rc == VS_OK ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
}

static const char *walk_name(const dc_walk *w, const char *moref)
{
	for (size_t i = 0; i + 1 < w->n_names; i += 2)
		if (strcmp(w->names[i], moref) == 0)
			return w->names[i + 1];
	return NULL;
}

typedef struct folder_step {
	char *name, *parent;
} folder_step;

static int read_folder(const char *type, const char *moref, const xmlNode *object, void *ud,
                       vs_error *err)
{
	(void)type, (void)moref, (void)err;
	folder_step *f = ud;
	f->name = vs_read_name(object);
	f->parent = vs_prop_text(object, "parent");
	return VS_OK;
}

/* A datacenter inside folders is known to /folder URLs by its inventory
 * path: prepend the folders' names up to the root folder. */
static int inventory_path(vs_client *c, char **path, const char *parent, vs_error *err)
{
	static const char *const paths[] = {"name", "parent", NULL};
	char *folder = strdup(parent);
	int rc = folder ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	while (rc == VS_OK && folder && strcmp(folder, c->sc.root_folder) != 0) {
		folder_step f = {0};
		rc = vs_props_one(c, "Folder", folder, paths, read_folder, &f, err);
		/* A folder we may not read, or one deleted meanwhile: a path without
		 * it would name another datacenter or none. */
		if (rc == VS_OK && (!f.name || !f.parent))
			rc = vs_fail(err, VS_ERR_PROTOCOL, "cannot read folder %s above datacenter %s", folder,
			             *path);
		vs_buf full = {0};
		if (rc == VS_OK) {
			vs_buf_addf(&full, "%s/%s", f.name, *path);
			rc = full.failed ? vs_fail(err, VS_ERR_NOMEM, "out of memory") : VS_OK;
		}
		if (full.data) {
			free(*path);
			*path = full.data;
		}
		free(folder);
		folder = f.parent;
		free(f.name);
	}
	free(folder);
	return rc;
}

static int load_dcs(vs_client *c, vs_error *err)
{
	if (c->dcs)
		return VS_OK;
	static const char *const dc_paths[] = {"name", "datastore", "parent", NULL};
	static const char *const ds_paths[] = {"name", NULL};
	const vs_propspec specs[] = {{"Datacenter", dc_paths}, {"Datastore", ds_paths}};
	dc_walk w = {0};
	struct vs_dc_cache *cache = calloc(1, sizeof(*cache));
	int rc = cache ? vs_props_walk(c, specs, 2, collect_dc, &w, err)
	               : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; rc == VS_OK && i + 1 < w.n_parents; i += 2)
		for (size_t j = 0; rc == VS_OK && j + 1 < w.n_names; j += 2)
			if (strcmp(w.names[j], w.parents[i]) == 0)
				rc = inventory_path(c, &w.names[j + 1], w.parents[i + 1], err);
	if (rc == VS_OK && !(cache->entries = calloc(w.n_members / 2 + 1, sizeof(dc_entry))))
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; rc == VS_OK && i + 1 < w.n_members; i += 2) {
		const char *dc = walk_name(&w, w.members[i]), *ds = walk_name(&w, w.members[i + 1]);
		if (!ds || !dc)
			continue;
		dc_entry *e = &cache->entries[cache->n++];
		e->ds_name = strdup(ds);
		e->dc_moref = strdup(w.members[i]);
		e->dc_path = strdup(dc);
	}
	vs_strv_free(w.names, w.n_names);
	vs_strv_free(w.members, w.n_members);
	vs_strv_free(w.parents, w.n_parents);
	if (rc != VS_OK)
		vs_dc_cache_free(&cache);
	c->dcs = cache;
	return rc;
}

/* Splits "[ds] path" and finds the datacenter of ds. */
static int locate(vs_client *c, const char *dspath, char **ds, char **path, const dc_entry **dc,
                  vs_error *err)
{
	int rc = vs_dspath_split(dspath, ds, path, err);
	if (rc == VS_OK)
		rc = load_dcs(c, err);
	for (size_t i = 0; rc == VS_OK && i < c->dcs->n; i++)
		if (strcmp(c->dcs->entries[i].ds_name, *ds) == 0) {
			*dc = &c->dcs->entries[i];
			return VS_OK;
		}
	if (rc == VS_OK)
		rc = vs_fail(err, VS_ERR_NOT_FOUND, "no datastore is named '%s'", *ds);
	free(*ds);
	free(*path);
	*ds = *path = NULL;
	return rc;
}

/* <name>[ds] path</name><datacenter type="Datacenter">..</datacenter> */
static int name_and_dc(vs_client *c, vs_buf *b, const char *elem, const char *dspath,
                       vs_error *err)
{
	char *ds, *path;
	const dc_entry *dc = NULL;
	int rc = locate(c, dspath, &ds, &path, &dc, err);
	if (rc == VS_OK) {
		vs_buf_elem(b, elem, dspath);
		vs_buf_moref(b, "datacenter", "Datacenter", dc->dc_moref);
	}
	free(ds);
	free(path);
	return rc;
}

/* ---- browser --------------------------------------------------------------- */

void vs_files_free(vs_file **files, size_t n)
{
	for (size_t i = 0; *files && i < n; i++)
		free((*files)[i].path);
	free(*files);
	*files = NULL;
}

static int read_search_result(const xmlNode *result, vs_file **files, size_t *n, vs_error *err)
{
	size_t count = 0;
	for (xmlNode *f = vs_xml_child(result, "file"); f; f = vs_xml_next(f))
		count++;
	*files = calloc(count + 1, sizeof(vs_file));
	if (!*files)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (xmlNode *f = vs_xml_child(result, "file"); f; f = vs_xml_next(f)) {
		vs_file *out = &(*files)[(*n)++];
		char *type = vs_xml_xsi_type(f);
		out->path = vs_xml_path_text(f, "path");
		/* A missing fileSize is "not reported" (-1), never taken for zero. */
		out->size = vs_xml_path_int(f, "fileSize", -1);
		out->is_folder = type && strcmp(type, "FolderFileInfo") == 0;
		free(type);
		if (!out->path)
			return vs_fail(err, VS_ERR_PROTOCOL, "a search result without a path");
	}
	return VS_OK;
}

/* SearchDatastore_Task's parameters: files of folder_dspath matching
 * pattern, with their types and sizes. */
static void search_params(vs_buf *params, const char *folder_dspath, const char *pattern)
{
	vs_buf_elem(params, "datastorePath", folder_dspath);
	vs_buf_add(params, "<searchSpec><query xsi:type=\"FileQuery\"/><details><fileType>true</fileType>"
	                   "<fileSize>true</fileSize><modification>false</modification>"
	                   "<fileOwner>false</fileOwner></details>");
	vs_buf_elem(params, "matchPattern", pattern);
	vs_buf_add(params, "</searchSpec>");
}

/* The files of a search's result; on failure none, and err says which folder. */
static int search_files(int rc, xmlDoc *result, const char *folder_dspath, vs_file **files,
                        size_t *n, vs_error *err)
{
	if (rc == VS_OK && result)
		rc = read_search_result(xmlDocGetRootElement(result), files, n, err);
	xmlFreeDoc(result);
	if (rc != VS_OK) {
		vs_files_free(files, *n);
		*n = 0;
		vs_error_context(err, "listing %s", folder_dspath);
	}
	return rc;
}

int vs_datastore_list(vs_client *c, const char *browser, const char *folder_dspath,
                      const char *pattern, vs_file **files, size_t *n, vs_error *err)
{
	*files = NULL;
	*n = 0;
	vs_buf params = {0};
	search_params(&params, folder_dspath, pattern);
	xmlDoc *result = NULL;
	int rc = params.failed ? vs_fail(err, VS_ERR_NOMEM, "out of memory")
	                       : vs_task_run(c, "SearchDatastore_Task", "HostDatastoreBrowser", browser,
	                                     params.data, VS_CALL_SAFE, NULL, NULL, &result, err);
	vs_buf_free(&params);
	return search_files(rc, result, folder_dspath, files, n, err);
}

int vs_datastore_list_start(vs_client *c, const char *browser, const char *folder_dspath,
                            const char *pattern, char **task, vs_error *err)
{
	*task = NULL;
	vs_buf params = {0};
	search_params(&params, folder_dspath, pattern);
	vs_reply r = {0};
	int rc = params.failed ? vs_fail(err, VS_ERR_NOMEM, "out of memory")
	                       : vs_call(c, "SearchDatastore_Task", "HostDatastoreBrowser", browser,
	                                 params.data, VS_RET_ONE, VS_CALL_SAFE, NULL, &r, err);
	if (rc == VS_OK && !(*task = vs_xml_text(vs_reply_ret(&r))))
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	vs_reply_free(&r);
	vs_buf_free(&params);
	if (rc != VS_OK)
		vs_error_context(err, "listing %s", folder_dspath);
	return rc;
}

int vs_datastore_list_take(vs_task_set *s, const char *task, const char *folder_dspath,
                           vs_file **files, size_t *n, vs_error *err)
{
	*files = NULL;
	*n = 0;
	xmlDoc *result = NULL;
	int rc = vs_task_set_take_result(s, task, &result, err);
	return search_files(rc, result, folder_dspath, files, n, err);
}

/* ---- /folder --------------------------------------------------------------- */

int vs_folder_url(vs_client *c, const char *dspath, const char *dc_path, vs_buf *url,
                  vs_error *err)
{
	char *ds, *path;
	const dc_entry *dc = NULL;
	int rc = locate(c, dspath, &ds, &path, &dc, err);
	if (rc == VS_OK) {
		vs_buf_add(url, "/folder/");
		vs_buf_add_urlencoded(url, path, true);
		vs_buf_add(url, "?dcPath=");
		vs_buf_add_urlencoded(url, dc_path ? dc_path : dc->dc_path, true);
		vs_buf_add(url, "&dsName=");
		vs_buf_add_urlencoded(url, ds, false);
		if (url->failed)
			rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	free(ds);
	free(path);
	return rc;
}

int vs_folder_fetch(vs_client *c, const char *url, vs_fetch *req, vs_buf *body, vs_fetched *got,
                    vs_error *err)
{
	req->url = url;
	int rc = VS_OK;
	for (int attempt = 0; rc == VS_OK && attempt < 2; attempt++) {
		body->len = 0;
		rc = vs_transport_fetch(c->transport, req, body, got, err);
		if (rc != VS_OK || got->status != 401 || attempt == 1)
			break;
		rc = vs_session_relogin(c, err);  /* the session expired: /folder says 401 */
	}
	return rc;
}

static int download(vs_client *c, const char *dspath, vs_fetch *req, char **data, size_t *len,
                    vs_error *err)
{
	*data = NULL;
	*len = 0;
	vs_buf url = {0}, body = {0};
	vs_fetched got = {0};
	int rc = vs_folder_url(c, dspath, NULL, &url, err);
	if (rc == VS_OK)
		rc = vs_folder_fetch(c, url.data, req, &body, &got, err);
	if (rc == VS_OK && got.status == 404)
		rc = vs_fail(err, VS_ERR_NOT_FOUND, "%s does not exist", dspath);
	else if (rc == VS_OK && got.status != 200 && got.status != 206)
		rc = vs_fail(err, VS_ERR_HTTP, "HTTP %ld reading %s", got.status, dspath);
	if (rc == VS_OK) {
		*len = body.len;
		*data = body.data ? body.data : strdup("");
		body.data = NULL;
	}
	vs_buf_free(&url);
	vs_buf_free(&body);
	return rc;
}

int vs_datastore_download(vs_client *c, const char *dspath, size_t max_bytes, char **data,
                          size_t *len, vs_error *err)
{
	vs_fetch req = {.max_bytes = max_bytes, .timeout_ms = c->opts.call_timeout_s * 1000L};
	return download(c, dspath, &req, data, len, err);
}

/* A suffix range ("bytes=-N") is not known to work on hostd or vCenter:
 * ask for the length, then from there on; a server that ignores the range
 * sends the whole file, of which only the last max_bytes are kept. */
int vs_datastore_download_tail(vs_client *c, const char *dspath, size_t max_bytes, char **data,
                               size_t *len, vs_error *err)
{
	int64_t length = -1;
	int rc = vs_datastore_file_length(c, NULL, dspath, &length, err);
	char range[32];
	snprintf(range, sizeof(range), "%lld-", (long long)(length > (int64_t)max_bytes
	                                                    ? length - (int64_t)max_bytes : 0));
	vs_fetch req = {.range = range, .max_bytes = max_bytes, .keep_tail = true,
	                .timeout_ms = c->opts.call_timeout_s * 1000L};
	return rc == VS_OK ? download(c, dspath, &req, data, len, err) : rc;
}

/* ---- folders and virtual disks ------------------------------------------------ */

/* Runs METHOD on a manager with "<name>[ds] path</name><datacenter/>" and
 * the extra parameters after them.  Each of these makes or removes one named
 * file or folder, so a second go after an HTTP 503 is harmless: it finds the
 * folder there or the file gone (the fault `done`, taken as success), or a
 * disk there (FileAlreadyExists, for the caller, who knows whether the name
 * was its own). */
static int dc_call(vs_client *c, const char *method, const char *mgr_type, const char *mgr,
                   const char *dspath, const char *extra, bool task, const char *done,
                   const char *doing, vs_error *err)
{
	vs_buf params = {0};
	int rc = name_and_dc(c, &params, "name", dspath, err);
	vs_buf_add(&params, extra ? extra : "");
	if (rc == VS_OK && params.failed)
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	if (rc == VS_OK && task)
		rc = vs_task_run(c, method, mgr_type, mgr, params.data, VS_CALL_REPEATABLE, NULL, NULL,
		                 NULL, err);
	else if (rc == VS_OK)
		rc = vs_call(c, method, mgr_type, mgr, params.data, VS_RET_NONE, VS_CALL_REPEATABLE, NULL,
		             NULL, err);
	vs_buf_free(&params);
	if (rc != VS_OK && done && strcmp(err->fault, done) == 0)
		return VS_OK;
	if (rc != VS_OK)
		vs_error_context(err, "%s %s", doing, dspath);
	return rc;
}

int vs_datastore_mkdir(vs_client *c, const char *dspath, vs_error *err)
{
	return dc_call(c, "MakeDirectory", "FileManager", c->sc.file_manager, dspath,
	               "<createParentDirectories>true</createParentDirectories>", false,
	               "FileAlreadyExists", "creating folder", err);
}

int vs_datastore_delete(vs_client *c, const char *dspath, vs_error *err)
{
	return dc_call(c, "DeleteDatastoreFile_Task", "FileManager", c->sc.file_manager, dspath, NULL,
	               true, "FileNotFound", "deleting", err);
}

int vs_vdisk_create(vs_client *c, const char *dspath, int64_t capacity_kb, vs_error *err)
{
	char spec[256];
	snprintf(spec, sizeof(spec),
	         "<spec xsi:type=\"FileBackedVirtualDiskSpec\"><diskType>thin</diskType>"
	         "<adapterType>lsiLogic</adapterType><capacityKb>%lld</capacityKb></spec>",
	         (long long)capacity_kb);
	return dc_call(c, "CreateVirtualDisk_Task", "VirtualDiskManager", c->sc.virtual_disk_manager,
	               dspath, spec, true, NULL, "creating virtual disk", err);
}

int vs_vdisk_delete(vs_client *c, const char *dspath, vs_error *err)
{
	return dc_call(c, "DeleteVirtualDisk_Task", "VirtualDiskManager", c->sc.virtual_disk_manager,
	               dspath, NULL, true, "FileNotFound", "deleting virtual disk", err);
}
