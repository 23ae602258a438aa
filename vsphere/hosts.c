/* ESXi hosts reached directly while logged in to vCenter: guest file
 * transfers (vCenter's URL names the VM's host) and a datastore file read as
 * one host sees it (a generic service ticket).  vCenter says where the host
 * is and which certificate it has; the transport then trusts exactly that. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The one management address of an ESXi host (what govmomi picks): the
 * selected vnics of the "management" net config; NULL unless exactly one. */
static char *management_address(const xmlNode *net_configs)
{
	char *found = NULL;
	int n = 0;
	for (const xmlNode *nc = vs_xml_child(net_configs, "VirtualNicManagerNetConfig"); nc;
	     nc = vs_xml_next(nc)) {
		char *type = vs_xml_path_text(nc, "nicType");
		bool management = type && strcmp(type, "management") == 0;
		free(type);
		for (const xmlNode *sel = management ? vs_xml_child(nc, "selectedVnic") : NULL; sel;
		     sel = vs_xml_next(sel)) {
			char *key = vs_xml_text(sel);
			for (const xmlNode *v = vs_xml_child(nc, "candidateVnic"); key && v; v = vs_xml_next(v)) {
				char *vkey = vs_xml_path_text(v, "key");
				char *ip = vkey && strcmp(vkey, key) == 0 ? vs_xml_path_text(v, "spec/ip/ipAddress") : NULL;
				if (ip && *ip && n++ == 0)
					found = ip, ip = NULL;
				free(ip);
				free(vkey);
			}
			free(key);
		}
	}
	if (n != 1) {
		free(found);
		found = NULL;
	}
	return found;
}

typedef struct host_endpoint {
	char *name;        /* inventory name */
	char *thumbprint;  /* as vCenter reports it (SHA-1) */
	char *address;
} host_endpoint;

static int read_endpoint(const char *type, const char *moref, const xmlNode *object, void *ud,
                         vs_error *err)
{
	(void)type, (void)moref, (void)err;
	host_endpoint *e = ud;
	e->name = vs_read_name(object);
	e->thumbprint = vs_prop_text(object, "summary.config.sslThumbprint");
	e->address = management_address(vs_prop(object, "config.virtualNicManagerInfo.netConfig"));
	return VS_OK;
}

/* An inventory name as a URL's host: an IPv6 literal goes in brackets. */
static char *url_host(const char *name)
{
	vs_buf b = {0};
	vs_buf_addf(&b, strchr(name, ':') ? "[%s]" : "%s", name);
	return b.data;
}

/* A host the transport was told about, by moref: each file transfer and
 * extent read of a campaign reaches a host, and asking vCenter again each
 * time was a third of a campaign's property reads. */
struct vs_reached_host {
	struct vs_reached_host *next;
	char *moref, *name;
};

void vs_reached_hosts_free(struct vs_reached_host **list)
{
	while (*list) {
		struct vs_reached_host *h = *list;
		*list = h->next;
		free(h->moref);
		free(h->name);
		free(h);
	}
}

static const char *reached_before(const vs_client *c, const char *moref)
{
	for (const struct vs_reached_host *h = c->reached; h; h = h->next)
		if (strcmp(h->moref, moref) == 0 && vs_transport_knows(c->transport, h->name))
			return h->name;
	return NULL;
}

/* Notes host moref as reached by name; a failure to note it costs only a
 * later read. */
static void note_reached(vs_client *c, const char *moref, const char *name)
{
	struct vs_reached_host *h = calloc(1, sizeof(*h));
	if (h && (h->moref = strdup(moref)) && (h->name = strdup(name))) {
		h->next = c->reached;
		c->reached = h;
		return;
	}
	vs_reached_hosts_free(&h);
}

static const char *const endpoint_paths[] = {"name", "summary.config.sslThumbprint",
                                             "config.virtualNicManagerInfo.netConfig", NULL};

/* Tells the transport how to reach the host e describes (moref host):
 * *name is its URL name. */
static int note_endpoint(vs_client *c, const char *host, const host_endpoint *e, char **name,
                         vs_error *err)
{
	*name = NULL;
	int rc = e->name ? VS_OK : vs_fail(err, VS_ERR_NOT_FOUND, "host %s no longer exists", host);
	if (rc == VS_OK && !(*name = url_host(e->name)))
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	if (rc == VS_OK && !vs_transport_knows(c->transport, *name))
		rc = vs_transport_add_host(c->transport, *name, e->address, e->thumbprint, err);
	if (rc == VS_OK)
		note_reached(c, host, *name);
	if (rc != VS_OK) {
		free(*name);
		*name = NULL;
	}
	return rc;
}

static void endpoint_free(host_endpoint *e)
{
	free(e->name);
	free(e->thumbprint);
	free(e->address);
}

int vs_host_reach(vs_client *c, const char *host, char **name, vs_error *err)
{
	const char *known = reached_before(c, host);
	if (known)
		return (*name = strdup(known)) ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	*name = NULL;
	host_endpoint e = {0};
	int rc = vs_props_one(c, "HostSystem", host, endpoint_paths, read_endpoint, &e, err);
	if (rc == VS_OK)
		rc = note_endpoint(c, host, &e, name, err);
	endpoint_free(&e);
	return rc;
}

static int reach_read(const char *type, const char *moref, const xmlNode *object, void *ud,
                      vs_error *err)
{
	host_endpoint e = {0};
	char *name = NULL;
	int rc = read_endpoint(type, moref, object, &e, err);
	if (rc == VS_OK)
		rc = note_endpoint(ud, moref, &e, &name, err);
	free(name);
	endpoint_free(&e);
	return rc;
}

void vs_hosts_prepare(vs_client *c, const char *const *hosts, size_t n)
{
	bool vcenter = c->about.api_type && strcmp(c->about.api_type, "VirtualCenter") == 0;
	const char *unknown[64];
	size_t k = 0;
	for (size_t i = 0; vcenter && i < n && k < sizeof(unknown) / sizeof(*unknown); i++)
		if (!reached_before(c, hosts[i]))
			unknown[k++] = hosts[i];
	/* One host is read as well when it is reached; a failed read of many
	 * leaves each to be read (and its error told) when it is reached. */
	vs_error ignored = {0};
	if (k > 1)
		vs_props_many(c, "HostSystem", unknown, k, endpoint_paths, reach_read, c, &ignored);
}

/* SessionManager.AcquireGenericServiceTicket: a one-time cookie value that
 * lets the host at url serve that one request (method "httpHead"...). */
static int acquire_ticket(vs_client *c, const char *url, const char *method, char **id,
                          vs_error *err)
{
	vs_buf params = {0};
	vs_buf_add(&params, "<spec xsi:type=\"SessionManagerHttpServiceRequestSpec\">");
	vs_buf_elem(&params, "method", method);
	vs_buf_elem(&params, "url", url);
	vs_buf_add(&params, "</spec>");
	vs_reply r = {0};
	/* A ticket nobody uses changes nothing: safe to ask again. */
	int rc = params.failed ? vs_fail(err, VS_ERR_NOMEM, "out of memory")
	                       : vs_call(c, "AcquireGenericServiceTicket", "SessionManager",
	                                 c->sc.session_manager, params.data, VS_RET_ONE, VS_CALL_SAFE,
	                                 NULL, &r, err);
	*id = rc == VS_OK ? vs_xml_path_text(vs_reply_ret(&r), "id") : NULL;
	if (rc == VS_OK && !*id)
		rc = vs_fail(err, VS_ERR_PROTOCOL, "vCenter gave a service ticket without an id");
	vs_buf_free(&params);
	vs_reply_free(&r);
	return rc;
}

/* One request to the host, with a ticket of its own. */
static int ticketed_fetch(vs_client *c, const char *url, vs_fetch *req, vs_buf *body,
                          vs_fetched *got, vs_error *err)
{
	char *id = NULL;
	vs_buf cookie = {0};
	int rc = acquire_ticket(c, url, req->head ? "httpHead" : "httpGet", &id, err);
	if (rc == VS_OK) {
		vs_buf_addf(&cookie, "vmware_cgi_ticket=%s", id);
		rc = cookie.failed ? vs_fail(err, VS_ERR_NOMEM, "out of memory") : VS_OK;
	}
	if (rc == VS_OK) {
		req->url = url;
		req->cookie = cookie.data;
		rc = vs_transport_fetch(c->transport, req, body, got, err);
	}
	free(id);
	vs_buf_free(&cookie);
	return rc;
}

/* The length a reply tells: HEAD's Content-Length, or a one-byte range's
 * Content-Range total (416: the file is empty, or shorter than the range). */
static int64_t told_length(const vs_fetched *got)
{
	if (got->status == 200)
		return got->length;
	if (got->status == 206 || got->status == 416)
		return got->total >= 0 ? got->total : got->status == 416 ? 0 : -1;
	return -1;
}

/* "HTTP 500 (Device or resource busy)" from the body's first line. */
static int refused(const vs_fetched *got, const vs_buf *body, const char *who, const char *dspath,
                   vs_error *err)
{
	if (got->status == 404)
		return vs_fail(err, VS_ERR_NOT_FOUND, "%s does not exist on %s", dspath, who);
	int n = body->data ? (int)strcspn(body->data, "\r\n") : 0;
	return vs_fail(err, VS_ERR_HTTP, "%s answered HTTP %ld%s%.*s%s reading %s", who, got->status,
	               n ? " (" : "", n > 200 ? 200 : n, n ? body->data : "", n ? ")" : "", dspath);
}

int vs_datastore_file_length(vs_client *c, const char *host, const char *dspath,
                             int64_t *length, vs_error *err)
{
	*length = -1;
	bool vcenter = c->about.api_type && strcmp(c->about.api_type, "VirtualCenter") == 0;
	char *name = NULL;
	vs_buf url = {0}, body = {0};
	int rc = host && vcenter ? vs_host_reach(c, host, &name, err) : VS_OK;
	if (rc == VS_OK && name)
		vs_buf_addf(&url, "https://%s", name);
	if (rc == VS_OK)
		rc = vs_folder_url(c, dspath, name ? "ha-datacenter" : NULL, &url, err);
	/* HEAD first; a host that answers it without a length, or refuses it,
	 * gets a one-byte read, whose reply says the whole length (or why not). */
	vs_fetch req = {.head = true, .max_bytes = 256, .timeout_ms = c->opts.call_timeout_s * 1000L};
	vs_fetched got = {0};
	for (int attempt = 0; rc == VS_OK && attempt < 2 && *length < 0; attempt++) {
		if (attempt == 1)
			req = (vs_fetch){.range = "0-0", .max_bytes = 256, .timeout_ms = req.timeout_ms};
		vs_buf_free(&body);
		rc = name ? ticketed_fetch(c, url.data, &req, &body, &got, err)
		          : vs_folder_fetch(c, url.data, &req, &body, &got, err);
		/* A server that ignores the range sends the whole file: its length
		 * is all we wanted, so stopping it early is no failure. */
		if (rc == VS_ERR_HTTP && got.status == 200 && got.length >= 0)
			rc = VS_OK;
		*length = rc == VS_OK ? told_length(&got) : -1;
		if (rc == VS_OK && got.status == 404)
			break;
	}
	if (rc == VS_OK && *length < 0)
		rc = refused(&got, &body, name ? name : vs_client_host(c), dspath, err);
	vs_buf_free(&url);
	vs_buf_free(&body);
	free(name);
	return rc;
}
