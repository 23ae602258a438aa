/* Internals of the vSphere client library, shared by its files only. */
#ifndef VSPHERE_INTERNAL_H
#define VSPHERE_INTERNAL_H

#include <curl/curl.h>
#include <libxml/tree.h>

#include "nfsagent/vsphere.h"

#define VS_NS_VIM25 "urn:vim25"
#define VS_NS_XSI "http://www.w3.org/2001/XMLSchema-instance"
#define VS_NS_SOAPENV "http://schemas.xmlsoap.org/soap/envelope/"

/* ---- buf.c: growable strings ----------------------------------------- */

typedef struct vs_buf {
	char *data;
	size_t len, cap;
	bool failed;  /* an allocation failed; the content is incomplete */
} vs_buf;

void vs_buf_add(vs_buf *b, const char *s);
void vs_buf_addn(vs_buf *b, const char *s, size_t n);
void vs_buf_addf(vs_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s with &, <, >, " and ' escaped for XML text and attributes. */
void vs_buf_add_escaped(vs_buf *b, const char *s);
/* <name>escaped value</name> */
void vs_buf_elem(vs_buf *b, const char *name, const char *value);
/* <name type="TYPE">escaped id</name> */
void vs_buf_moref(vs_buf *b, const char *name, const char *type, const char *id);
/* Appends s with every byte outside [A-Za-z0-9-._~/] %-encoded (URL path/query). */
void vs_buf_add_urlencoded(vs_buf *b, const char *s, bool keep_slash);
void vs_buf_free(vs_buf *b);

/* ---- xml.c: reading replies ------------------------------------------ */

/* Keeps libxml2 from printing to stderr what a bad reply makes it say (an
 * encoding error bypasses XML_PARSE_NOERROR): the caller reports one line.
 * The handler is libxml2's (per thread): vs_xml_restore gives back the
 * embedding program's. */
typedef struct vs_xml_errors {
	xmlGenericErrorFunc func;
	void *ctx;
} vs_xml_errors;
void vs_xml_quiet(vs_xml_errors *saved);
void vs_xml_restore(const vs_xml_errors *saved);

/* First element child of parent with that local name (any namespace). */
xmlNode *vs_xml_child(const xmlNode *parent, const char *name);
/* Next element sibling of node with the same local name. */
xmlNode *vs_xml_next(const xmlNode *node);
/* Follows "a/b/c" through first matching children. */
xmlNode *vs_xml_path(const xmlNode *node, const char *path);
/* Text of the node as a malloc'd string (NULL if node is NULL). */
char *vs_xml_text(const xmlNode *node);
/* Text of the child at path, malloc'd, or NULL when absent. */
char *vs_xml_path_text(const xmlNode *node, const char *path);
bool vs_xml_path_bool(const xmlNode *node, const char *path, bool fallback);
int64_t vs_xml_path_int(const xmlNode *node, const char *path, int64_t fallback);
/* Local name of the xsi:type attribute (resolved by namespace URI), malloc'd. */
char *vs_xml_xsi_type(const xmlNode *node);
bool vs_xml_is(const xmlNode *node, const char *name);

/* ---- transport.c: HTTPS ----------------------------------------------- */

typedef struct vs_http_sink {
	/* Receives the body as it arrives; returns false to abort the transfer. */
	bool (*write)(const char *data, size_t len, long status, void *ud);
	void *ud;
} vs_http_sink;

typedef struct vs_transport vs_transport;

int vs_transport_new(const vs_options *opts, vs_transport **out, vs_error *err);
void vs_transport_free(vs_transport **t);
/* One POST of a SOAP body; status is the HTTP status.  No retry here. */
int vs_transport_post(vs_transport *t, const char *soap_action, const char *body,
                      long timeout_ms, const vs_http_sink *sink, long *status, bool *retryable,
                      vs_error *err);
/* One GET or HEAD. */
typedef struct vs_fetch {
	const char *url;      /* absolute, or a path on the server */
	const char *range;    /* an HTTP byte range such as "1000-" or NULL */
	const char *cookie;   /* an extra "name=value" (a service ticket) or NULL */
	bool head;            /* HEAD: no body, the length from Content-Length */
	size_t max_bytes;     /* a longer body fails the fetch... */
	bool keep_tail;       /* ...unless only its last max_bytes are wanted */
	long timeout_ms;
} vs_fetch;
typedef struct vs_fetched {
	long status;
	int64_t length;  /* Content-Length; -1 if not sent */
	int64_t total;   /* the whole file's length from Content-Range; -1 if not sent */
} vs_fetched;
int vs_transport_fetch(vs_transport *t, const vs_fetch *req, vs_buf *body, vs_fetched *got,
                       vs_error *err);
/* PUT data to an absolute URL with Content-Length. */
int vs_transport_put(vs_transport *t, const char *url, const char *data, size_t len,
                     long timeout_ms, long *status, vs_error *err);
/* Where a guest transfer URL goes (*out, malloc'd): "*" is the server we
 * called; a known ESXi host stays named as vCenter named it.  A URL naming a
 * host we do not know yet sets *unknown_host (malloc'd) instead: learn it
 * with vs_transport_add_host and ask again. */
int vs_transport_transfer_url(const vs_transport *t, const char *url, char **out,
                              char **unknown_host, vs_error *err);
/* Requests to host name connect to address (NULL: the name itself) and
 * trust exactly the certificate with that SHA-1 or SHA-256 thumbprint (NULL
 * or "": the CA policy). */
int vs_transport_add_host(vs_transport *t, const char *name, const char *address,
                          const char *thumbprint, vs_error *err);
/* How a request to url is made: to the server we log in to under the
 * user's TLS policy, or to a known host (at address, if any) pinned by a
 * thumbprint of pin_len bytes (0: none): the decision every request makes. */
typedef struct vs_route {
	bool server;
	const char *address;
	int pin_len;
} vs_route;
vs_route vs_transport_route(const vs_transport *t, const char *url);
/* Whether vs_transport_add_host was told about this URL host already. */
bool vs_transport_knows(const vs_transport *t, const char *name);
const char *vs_transport_thumbprint(const vs_transport *t);
const char *vs_transport_host(const vs_transport *t);

/* ---- soap.c: one place where every call goes out --------------------- */

/* How many returnval elements a method answers with (libvirt's occurrence). */
typedef enum vs_occurs {
	VS_RET_NONE,          /* void */
	VS_RET_ONE,           /* exactly one */
	VS_RET_OPTIONAL,      /* zero or one */
	VS_RET_LIST,          /* zero or more */
} vs_occurs;

typedef enum vs_call_flags {
	VS_CALL_SAFE = 1,          /* a read: may be repeated after a transient failure */
	VS_CALL_SESSION_BOUND = 2, /* _this or an argument lives in the session (view,
	                              collector, token): after a re-login the caller
	                              must recreate it, so return VS_ERR_SESSION_RENEWED */
	VS_CALL_NO_RELOGIN = 4,    /* the login family itself */
	VS_CALL_REPEATABLE = 8,    /* changes something, but a second go does no harm (the
	                              caller takes "already there" / "already gone" as done):
	                              may go again after HTTP 503 */
} vs_call_flags;

/* Streams elements named `element` directly under each returnval to a
 * callback and frees them, so a large reply never sits in memory whole. */
typedef struct vs_stream {
	const char *element;
	int (*on_element)(xmlNode *node, void *ud, vs_error *err);
	void *ud;
} vs_stream;

typedef struct vs_reply {
	xmlDoc *doc;
	xmlNode *response;  /* the METHODResponse element */
} vs_reply;

/* The first returnval element, or NULL. */
xmlNode *vs_reply_ret(const vs_reply *r);
void vs_reply_free(vs_reply *r);

/* Sends METHOD with `params` (XML of the parameters after _this, already
 * escaped) to the managed object this_type:this_id.  On success fills
 * *reply (may be NULL for callers that do not need it). */
int vs_call(vs_client *c, const char *method, const char *this_type, const char *this_id,
            const char *params, vs_occurs occurs, unsigned flags, const vs_stream *stream,
            vs_reply *reply, vs_error *err);

/* A change that can be read back: done() tells whether it is in place now. */
typedef struct vs_settle {
	int (*done)(vs_client *c, void *ud, bool *done, vs_error *err);
	void *ud;
} vs_settle;

/* A changing call made safe to retry by checking the world first: after an
 * answer that leaves its outcome unknown (the front proxy's HTTP 502, 503 or
 * 504: the service may or may not have got it), settle->done reads whether
 * the change is in place.  In place: VS_OK with *settled (no reply).  Not:
 * the call goes again, until the call's time (--timeout) is up.  Never a
 * blind repeat: a change found in place is never made twice (one accepted
 * but not yet in place, a task still running, is not seen yet: the second
 * go then fails with the service's fault). */
int vs_call_settled(vs_client *c, const char *method, const char *this_type, const char *this_id,
                    const char *params, vs_occurs occurs, const vs_settle *settle,
                    vs_reply *reply, bool *settled, vs_error *err);

/* Parses a whole reply body (unit-testable without a server). */
int vs_soap_parse(const char *body, size_t len, long http_status, const char *method,
                  vs_occurs occurs, const vs_stream *stream, vs_reply *reply, vs_error *err);
/* Builds the request envelope for METHOD. */
void vs_soap_envelope(vs_buf *b, const char *method, const char *this_type, const char *this_id,
                      const char *params);
/* Fills err from a LocalizedMethodFault or MethodFault element. */
void vs_fault_from_node(const xmlNode *fault_or_localized, vs_error *err);
/* Replaces the text of password elements (and of the session key in Login
 * replies) with "***" so a trace never holds a secret. */
void vs_redact(vs_buf *b, const char *method);

/* ---- session.c -------------------------------------------------------- */

typedef struct vs_service {
	char *root_folder;
	char *property_collector;
	char *view_manager;
	char *session_manager;
	char *search_index;
	char *perf_manager;
	char *event_manager;
	char *file_manager;
	char *virtual_disk_manager;
	char *guest_operations_manager;
} vs_service;

struct vs_client {
	vs_options opts;      /* strings below are our own copies */
	char *username;
	char *password;
	vs_transport *transport;
	char *api_version;
	vs_service sc;
	vs_about about;
	bool logged_in;
	unsigned logins;        /* sessions so far: what a holder of session-bound objects compares */
	/* session-bound objects, recreated after a re-login */
	char *container_view;
	char *datastore_view;   /* a view of the datastores alone */
	char *task_collector;
	char *guest_files;      /* GuestOperationsManager's file and process managers */
	char *guest_processes;
	/* datacenters and the datastores in each, read once on first need */
	struct vs_dc_cache *dcs;
	/* performance counter names and ids, read once on first need */
	struct vs_perf_names *perf_names;
	/* the hosts vs_host_reach has read, by moref: read once per client */
	struct vs_reached_host *reached;
	/* each host's NFS client settings (options.c): read once per client */
	struct vs_host_options *host_options;
};

/* Logs in again after NotAuthenticated; drops session-bound objects. */
int vs_session_relogin(vs_client *c, vs_error *err);

/* ---- hosts.c: ESXi hosts reached directly ----------------------------- */

/* Learns from vCenter where ESXi host `host` (moref) is and which certificate
 * it has, so that the transport can reach it; *name (malloc'd) is the
 * host's name as a URL's host.  Asked once per client: a host whose
 * certificate changes later is refused by the transport, not trusted. */
int vs_host_reach(vs_client *c, const char *host, char **name, vs_error *err);
void vs_reached_hosts_free(struct vs_reached_host **list);

/* ---- props.c ----------------------------------------------------------- */

/* Called for each ObjectContent (obj + propSet*) delivered exactly once. */
typedef int (*vs_object_fn)(const char *type, const char *moref, const xmlNode *object,
                            void *ud, vs_error *err);

typedef struct vs_propspec {
	const char *type;          /* "VirtualMachine" */
	const char *const *paths;  /* NULL-terminated */
} vs_propspec;

/* Retrieves the properties of every object of the given types in the
 * inventory (through a container view on the root folder), paging. */
int vs_props_walk(vs_client *c, const vs_propspec *specs, size_t n_specs, vs_object_fn fn,
                  void *ud, vs_error *err);
/* Retrieves the properties of every datastore and, in the same call, of
 * one more object (type, moref) per its own spec. */
int vs_props_datastores_and(vs_client *c, const vs_propspec *datastores, const char *type,
                            const char *moref, const vs_propspec *one, vs_object_fn fn, void *ud,
                            vs_error *err);
/* Retrieves properties of one object. */
int vs_props_one(vs_client *c, const char *type, const char *moref, const char *const *paths,
                 vs_object_fn fn, void *ud, vs_error *err);
/* Retrieves properties (spec) of the objects that one object's property
 * `through` lists, e.g. a VM's recentTask, in one call (through NULL: of
 * the object itself). */
int vs_props_related(vs_client *c, const char *type, const char *moref, const char *through,
                     const vs_propspec *spec, vs_object_fn fn, void *ud, vs_error *err);
/* Retrieves the same properties of several objects of one type. */
int vs_props_many(vs_client *c, const char *type, const char *const *morefs, size_t n,
                  const char *const *paths, vs_object_fn fn, void *ud, vs_error *err);
/* The object's own properties (own) and, in the same call, those
 * (theirs) of the objects its property `through` lists. */
int vs_props_with_related(vs_client *c, const char *type, const char *moref, const char *through,
                          const vs_propspec *own, const vs_propspec *theirs, vs_object_fn fn,
                          void *ud, vs_error *err);
/* One property of one object as text (malloc'd; NULL when unset). */
int vs_props_text(vs_client *c, const char *type, const char *moref, const char *path, char **text,
                  vs_error *err);
/* The val element of propSet `name` in an ObjectContent, or NULL. */
xmlNode *vs_prop(const xmlNode *object, const char *name);
char *vs_prop_text(const xmlNode *object, const char *name);
/* Morefs of an ArrayOfManagedObjectReference value, malloc'd array of malloc'd strings. */
char **vs_moref_list(const xmlNode *val, size_t *n);
typedef struct vs_morefs {
	char **v;
	size_t n;
} vs_morefs;
void vs_strv_free(char **v, size_t n);

/* ---- guest.c ----------------------------------------------------------- */

/* What vs_guest_check reads of a VM, and its verdict on an object read. */
extern const char *const vs_guest_readiness_paths[];
int vs_guest_readiness(const char *moref, const xmlNode *object, vs_error *err);

/* ---- task.c ------------------------------------------------------------ */

/* Waits for the task with WaitForUpdatesEx; fills err from info.error.
 * If result is non-NULL it receives a copy of info.result (xmlFreeDoc it). */
int vs_task_wait(vs_client *c, const char *task, vs_progress_fn progress, void *ud,
                 xmlDoc **result, vs_error *err);
/* Waits for a queued or running task of the entity whose info.descriptionId
 * is description_id ("VirtualMachine.relocate"), if its recentTask lists
 * one: a change another process (or a killed nfsagent) started is waited
 * for, not started again. *waited tells whether there was one; its outcome
 * is left to the caller to read from the world. */
/* The queued or running task of that kind in the entity's recentTask, or
 * *task NULL. */
int vs_task_find_running(vs_client *c, const char *entity_type, const char *entity,
                         const char *description_id, char **task, vs_error *err);
/* What vs_task_find_running reads of a task, and whether that task (an
 * object read so) is queued or running and of that kind. */
extern const char *const vs_task_running_paths[];
bool vs_task_is_running(const xmlNode *object, const char *description_id);
/* Whether that task is of that kind and in one of states (NULL-ended). */
bool vs_task_is(const xmlNode *object, const char *description_id, const char *const *states);
/* Waits for a task another started; its outcome is left to the caller
 * to read from the world (a failure of the wait itself is returned). */
int vs_task_wait_other(vs_client *c, const char *task, vs_progress_fn progress, void *ud,
                       vs_error *err);
int vs_task_wait_running(vs_client *c, const char *entity_type, const char *entity,
                         const char *description_id, vs_progress_fn progress, void *ud,
                         bool *waited, vs_error *err);
/* vs_task_set_take, with the ended task's info.result (NULL: none). */
int vs_task_set_take_result(vs_task_set *s, const char *task, xmlDoc **result, vs_error *err);
/* Calls a *_Task method and waits for it. */
int vs_task_run(vs_client *c, const char *method, const char *this_type, const char *this_id,
                const char *params, unsigned flags, vs_progress_fn progress, void *ud,
                xmlDoc **result, vs_error *err);

/* ---- files.c ------------------------------------------------------------- */

void vs_dc_cache_free(struct vs_dc_cache **cache);
/* Appends "/folder/PATH?dcPath=DC&dsName=DS" for "[DS] PATH"; dc_path NULL:
 * the datastore's own datacenter (an ESXi host knows only "ha-datacenter"). */
int vs_folder_url(vs_client *c, const char *dspath, const char *dc_path, vs_buf *url,
                  vs_error *err);
/* A GET or HEAD of a /folder URL on the server, logging in again on a 401. */
int vs_folder_fetch(vs_client *c, const char *url, vs_fetch *req, vs_buf *body, vs_fetched *got,
                    vs_error *err);
/* perf.c */
void vs_perf_names_free(struct vs_perf_names **names);

/* ---- inventory readers -------------------------------------------------- */

/* The object's "name" property, %-unescaped, malloc'd. */
char *vs_read_name(const xmlNode *object);
int vs_host_read(const char *moref, const xmlNode *object, vs_host *h);
int vs_datastore_read(const char *moref, const xmlNode *object, vs_datastore *d);
int vs_vm_read(const char *moref, const xmlNode *object, vs_vm *v);
extern const char *const vs_host_paths[];
extern const char *const vs_datastore_paths[];
extern const char *const vs_vm_summary_paths[];

/* guest.c: the seconds from a poll of a guest process, elapsed seconds
 * into a wait for one expected to take expected_s (0: unknown), to the next
 * poll: at the expected end (a job over LONG_JOB_S also at 1 s, and at most
 * LONG_GAP_S apart), then half the overrun (at least 0.25 s); at most 10 s. */
enum { LONG_JOB_S = 30, LONG_GAP_S = 120 };
double vs_guest_next_poll(double elapsed, double expected_s);

/* options.c: appends the OptionValues of a QueryOptions reply to *v (n
 * entries), each key with its value's text (NULL: none sent); an option
 * without a key is skipped.  VS_ERR_NOMEM, else VS_OK. */
int vs_options_read(const vs_reply *r, vs_option **v, size_t *n);
void vs_options_free(vs_option **v, size_t n);
void vs_host_options_free(struct vs_host_options **list);

/* hostnet.c: vs_hosts_link_to's reading of a HostNetworkInfo (NULL: none). */
void vs_host_link_read(const xmlNode *net, const char *server, vs_host_link *out);

#endif
