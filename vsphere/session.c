/* Session: service content, API version, login, re-login, logout. */
#include <libxml/parser.h>
#include <openssl/crypto.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* The newest urn:vim25 version the server speaks, from vimServiceVersions.xml;
 * NULL when the file is missing or unreadable (then about.apiVersion is used). */
static char *fetch_service_version(vs_client *c, vs_error *err, int *rc)
{
	vs_buf body = {0};
	vs_fetched got;
	const vs_fetch req = {.url = "/sdk/vimServiceVersions.xml", .max_bytes = 64 * 1024,
	                      .timeout_ms = c->opts.call_timeout_s * 1000L};
	*rc = vs_transport_fetch(c->transport, &req, &body, &got, err);
	char *version = NULL;
	if (*rc == VS_ERR_HTTP)
		*rc = VS_OK;  /* an oversized file is no reason to give up: use about.apiVersion */
	if (*rc == VS_OK && got.status == 200 && body.data) {
		vs_xml_errors quiet;
		vs_xml_quiet(&quiet);
		xmlDoc *doc = xmlReadMemory(body.data, (int)body.len, "versions.xml", NULL,
		                            XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
		vs_xml_restore(&quiet);
		xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
		for (xmlNode *ns = vs_xml_child(root, "namespace"); ns && !version; ns = vs_xml_next(ns)) {
			char *name = vs_xml_path_text(ns, "name");
			if (name && strcmp(name, "urn:vim25") == 0)
				version = vs_xml_path_text(ns, "version");
			free(name);
		}
		xmlFreeDoc(doc);
	}
	vs_buf_free(&body);
	return version;
}

static void read_about(const xmlNode *a, vs_about *about)
{
	about->name = vs_xml_path_text(a, "name");
	about->full_name = vs_xml_path_text(a, "fullName");
	about->version = vs_xml_path_text(a, "version");
	about->build = vs_xml_path_text(a, "build");
	about->api_type = vs_xml_path_text(a, "apiType");
	about->api_version = vs_xml_path_text(a, "apiVersion");
	about->instance_uuid = vs_xml_path_text(a, "instanceUuid");
}

static void free_about(vs_about *a)
{
	free(a->name);
	free(a->full_name);
	free(a->version);
	free(a->build);
	free(a->api_type);
	free(a->api_version);
	free(a->instance_uuid);
	*a = (vs_about){0};
}

static int retrieve_service_content(vs_client *c, vs_error *err)
{
	vs_reply r = {0};
	int rc = vs_call(c, "RetrieveServiceContent", "ServiceInstance", "ServiceInstance", NULL,
	                 VS_RET_ONE, VS_CALL_SAFE | VS_CALL_NO_RELOGIN, NULL, &r, err);
	if (rc != VS_OK)
		return rc;
	xmlNode *sc = vs_reply_ret(&r);
	vs_service *s = &c->sc;
	s->root_folder = vs_xml_path_text(sc, "rootFolder");
	s->property_collector = vs_xml_path_text(sc, "propertyCollector");
	s->view_manager = vs_xml_path_text(sc, "viewManager");
	s->session_manager = vs_xml_path_text(sc, "sessionManager");
	s->search_index = vs_xml_path_text(sc, "searchIndex");
	s->perf_manager = vs_xml_path_text(sc, "perfManager");
	s->event_manager = vs_xml_path_text(sc, "eventManager");
	s->file_manager = vs_xml_path_text(sc, "fileManager");
	s->virtual_disk_manager = vs_xml_path_text(sc, "virtualDiskManager");
	s->guest_operations_manager = vs_xml_path_text(sc, "guestOperationsManager");
	read_about(vs_xml_child(sc, "about"), &c->about);
	vs_reply_free(&r);
	if (!s->root_folder || !s->property_collector || !s->session_manager || !c->about.api_version)
		return vs_fail(err, VS_ERR_PROTOCOL, "the service content lacks required members");
	return VS_OK;
}

static int login(vs_client *c, vs_error *err)
{
	vs_buf params = {0};
	vs_buf_elem(&params, "userName", c->username);
	vs_buf_elem(&params, "password", c->password);
	int rc = params.failed ? vs_fail(err, VS_ERR_NOMEM, "out of memory")
	                       : vs_call(c, "Login", "SessionManager", c->sc.session_manager,
	                                 params.data, VS_RET_ONE, VS_CALL_SAFE | VS_CALL_NO_RELOGIN,
	                                 NULL, NULL, err);
	OPENSSL_cleanse(params.data, params.len);
	vs_buf_free(&params);
	if (rc == VS_ERR_FAULT && (strcmp(err->fault, "InvalidLogin") == 0 ||
	                           strcmp(err->fault, "NoPermission") == 0))
		err->status = rc = VS_ERR_AUTH;
	if (rc != VS_OK) {
		vs_error_context(err, "login to %s as %s", vs_transport_host(c->transport), c->username);
		return rc;
	}
	c->logged_in = true;
	c->logins++;
	return VS_OK;
}

static void drop_session_objects(vs_client *c)
{
	free(c->container_view);
	c->container_view = NULL;
	free(c->datastore_view);
	c->datastore_view = NULL;
	free(c->task_collector);
	c->task_collector = NULL;
}

static void drop_guest_managers(vs_client *c)
{
	free(c->guest_files);
	free(c->guest_processes);
	c->guest_files = c->guest_processes = NULL;
}

int vs_session_relogin(vs_client *c, vs_error *err)
{
	c->logged_in = false;
	drop_session_objects(c);
	return login(c, err);
}

static int client_new(const vs_options *opts, vs_client **out, vs_error *err)
{
	vs_client *c = calloc(1, sizeof(*c));
	if (!c)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	c->opts = *opts;
	c->opts.url = NULL;
	c->opts.username = c->opts.password = c->opts.cacert = c->opts.thumbprint = NULL;
	if (c->opts.call_timeout_s <= 0)
		c->opts.call_timeout_s = 60;
	if (c->opts.max_retries == 0)
		c->opts.max_retries = 4;
	else if (c->opts.max_retries < 0)
		c->opts.max_retries = 0;
	c->username = dup_or_null(opts->username);
	c->password = dup_or_null(opts->password);
	*out = c;
	if (!c->username || !c->password)
		return vs_fail(err, VS_ERR_USAGE, "a user name and a password are needed");
	/* Every call's deadline is call_timeout_s * 1000 ms in a long. */
	if (c->opts.call_timeout_s > VS_MAX_CALL_TIMEOUT_S)
		return vs_fail(err, VS_ERR_USAGE, "a call timeout is at most %d s, not %ld",
		               VS_MAX_CALL_TIMEOUT_S, (long)c->opts.call_timeout_s);
	return vs_transport_new(opts, &c->transport, err);
}

int vs_connect(const vs_options *opts, vs_client **out, vs_error *err)
{
	vs_error_clear(err);
	*out = NULL;
	if (!opts->url || !*opts->url) {
		vs_error_context(err, "connect");
		return vs_fail(err, VS_ERR_USAGE, "no server URL given");
	}
	vs_client *c = NULL;
	int rc = client_new(opts, &c, err);
	if (rc == VS_OK) {
		c->api_version = fetch_service_version(c, err, &rc);
		if (rc == VS_OK)
			rc = retrieve_service_content(c, err);
		if (rc != VS_OK)
			vs_error_context(err, "connect to %s", vs_transport_host(c->transport));
	} else {
		vs_error_context(err, "connect to %s", opts->url);
	}
	if (rc == VS_OK && !c->api_version)
		c->api_version = strdup(c->about.api_version);
	if (rc == VS_OK)
		rc = login(c, err);
	if (rc != VS_OK) {
		vs_disconnect(&c);
		return rc;
	}
	*out = c;
	return VS_OK;
}

static void free_service(vs_service *s)
{
	char **fields[] = {&s->root_folder, &s->property_collector, &s->view_manager,
	                   &s->session_manager, &s->search_index, &s->perf_manager,
	                   &s->event_manager, &s->file_manager, &s->virtual_disk_manager,
	                   &s->guest_operations_manager};
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		free(*fields[i]);
		*fields[i] = NULL;
	}
}

void vs_disconnect(vs_client **cp)
{
	vs_client *c = *cp;
	if (!c)
		return;
	if (c->logged_in) {
		vs_error ignored = {0};
		c->opts.call_timeout_s = 10;  /* do not hang at exit on a dead server */
		vs_call(c, "Logout", "SessionManager", c->sc.session_manager, NULL, VS_RET_NONE,
		        VS_CALL_NO_RELOGIN, NULL, NULL, &ignored);
	}
	drop_session_objects(c);
	drop_guest_managers(c);
	vs_dc_cache_free(&c->dcs);
	vs_perf_names_free(&c->perf_names);
	vs_reached_hosts_free(&c->reached);
	vs_host_options_free(&c->host_options);
	vs_transport_free(&c->transport);
	free_service(&c->sc);
	free_about(&c->about);
	free(c->api_version);
	free(c->username);
	if (c->password) {
		OPENSSL_cleanse(c->password, strlen(c->password));
		free(c->password);
	}
	free(c);
	*cp = NULL;
}

const vs_about *vs_client_about(const vs_client *c)
{
	return &c->about;
}

const char *vs_client_api_version(const vs_client *c)
{
	return c->api_version;
}

const char *vs_client_thumbprint(const vs_client *c)
{
	return vs_transport_thumbprint(c->transport);
}

const char *vs_client_host(const vs_client *c)
{
	return vs_transport_host(c->transport);
}
