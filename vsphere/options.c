/* An ESXi host's advanced options, as its OptionManager
 * (configManager.advancedOption) answers QueryOptions: the NFS client's
 * settings (NFS., NFS41., SunRPC.) that a result records as provenance. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The subtrees of the NFS client's settings: a name ending in a dot asks
 * for the whole subtree. */
static const char *const nfs_prefixes[] = {"NFS.", "NFS41.", "SunRPC."};
enum { N_PREFIXES = sizeof(nfs_prefixes) / sizeof(nfs_prefixes[0]) };

/* The options read of each host, by moref: a group or a campaign asks for
 * its hosts' settings once per run, and they do not change under us in a
 * way a run could record. */
struct vs_host_options {
	struct vs_host_options *next;
	char *host;
	vs_option *v;
	size_t n;
};

void vs_options_free(vs_option **v, size_t n)
{
	for (size_t i = 0; *v && i < n; i++) {
		free((*v)[i].key);
		free((*v)[i].value);
	}
	free(*v);
	*v = NULL;
}

void vs_host_options_free(struct vs_host_options **list)
{
	while (*list) {
		struct vs_host_options *h = *list;
		*list = h->next;
		free(h->host);
		vs_options_free(&h->v, h->n);
		free(h);
	}
}

int vs_options_read(const vs_reply *r, vs_option **v, size_t *n)
{
	for (xmlNode *ret = vs_reply_ret(r); ret; ret = vs_xml_next(ret)) {
		char *key = vs_xml_path_text(ret, "key");
		if (!key)
			continue;
		vs_option *grown = realloc(*v, (*n + 1) * sizeof(**v));
		if (!grown) {
			free(key);
			return VS_ERR_NOMEM;
		}
		*v = grown;
		grown[(*n)++] = (vs_option){key, vs_xml_path_text(ret, "value")};
	}
	return VS_OK;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const vs_option *)a)->key, ((const vs_option *)b)->key);
}

static int read_manager(const char *type, const char *moref, const xmlNode *object, void *ud,
                        vs_error *err)
{
	(void)type, (void)moref, (void)err;
	char **manager = ud;
	free(*manager);
	*manager = vs_prop_text(object, "configManager.advancedOption");
	return VS_OK;
}

/* The host's OptionManager: as the inventory read it, else asked now. */
static int option_manager(vs_client *c, const vs_host *host, char **out, vs_error *err)
{
	static const char *const paths[] = {"configManager.advancedOption", NULL};
	*out = host->option_manager ? strdup(host->option_manager) : NULL;
	if (host->option_manager)
		return *out ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	int rc = vs_props_one(c, "HostSystem", host->moref, paths, read_manager, out, err);
	if (rc == VS_OK && !*out)
		rc = vs_fail(err, VS_ERR_NOT_FOUND, "host %s has no advanced option manager", host->name);
	return rc;
}

/* QueryOptions of one subtree: InvalidName says the host has no option
 * under it, which is an answer (none), not a failure. */
static int query_prefix(vs_client *c, const char *manager, const char *prefix, vs_option **v,
                        size_t *n, vs_error *err)
{
	vs_buf p = {0};
	vs_buf_elem(&p, "name", prefix);
	vs_reply r = {0};
	int rc = p.failed ? vs_fail(err, VS_ERR_NOMEM, "out of memory")
	                  : vs_call(c, "QueryOptions", "OptionManager", manager, p.data, VS_RET_LIST,
	                            VS_CALL_SAFE, NULL, &r, err);
	vs_buf_free(&p);
	if (rc == VS_ERR_FAULT && strcmp(err->fault, "InvalidName") == 0) {
		*err = (vs_error){0};
		return VS_OK;
	}
	if (rc == VS_OK && vs_options_read(&r, v, n) != VS_OK)
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	vs_reply_free(&r);
	return rc;
}

static const struct vs_host_options *read_before(const vs_client *c, const char *host)
{
	for (const struct vs_host_options *h = c->host_options; h; h = h->next)
		if (strcmp(h->host, host) == 0)
			return h;
	return NULL;
}

int vs_host_nfs_options(vs_client *c, const vs_host *host, const vs_option **out, size_t *n,
                        vs_error *err)
{
	const struct vs_host_options *known = read_before(c, host->moref);
	if (known) {
		*out = known->v;
		*n = known->n;
		return VS_OK;
	}
	*out = NULL;
	*n = 0;
	struct vs_host_options *h = calloc(1, sizeof(*h));
	char *manager = NULL;
	int rc = h && (h->host = strdup(host->moref)) ? option_manager(c, host, &manager, err)
	                                               : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; rc == VS_OK && i < N_PREFIXES; i++)
		rc = query_prefix(c, manager, nfs_prefixes[i], &h->v, &h->n, err);
	free(manager);
	if (rc != VS_OK) {
		vs_host_options_free(&h);
		vs_error_context(err, "reading the NFS client settings of %s", host->name);
		return rc;
	}
	if (h->n)
		qsort(h->v, h->n, sizeof(*h->v), by_key);
	h->next = c->host_options;
	c->host_options = h;
	*out = h->v;
	*n = h->n;
	return VS_OK;
}
