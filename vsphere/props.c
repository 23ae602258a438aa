/* Property collection: a container view on the root folder, one
 * RetrievePropertiesEx with ContinueRetrievePropertiesEx while a token comes
 * back, each ObjectContent streamed to the caller and freed.
 *
 * If the session expires mid-listing the view and the paging token die with
 * it, so the walk starts over after the re-login; a set of the objects
 * already delivered keeps every object delivered exactly once. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum { MAX_RESTARTS = 3 };

/* ---- the set of objects delivered --------------------------------------
 * 64-bit hashes of "type:moref", not the strings: 8 bytes an object keeps
 * memory flat on a large inventory.  Two morefs colliding is a chance of
 * about 1 in 10^11 on 10,000 objects. */

typedef struct seen_set {
	uint64_t *slots;  /* 0 = empty */
	size_t cap, n;
} seen_set;

static uint64_t hash64(const char *type, const char *moref)
{
	uint64_t h = 1469598103934665603ULL;
	for (const char *s = type; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	h = (h ^ ':') * 1099511628211ULL;
	for (const char *s = moref; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h | 1;  /* never 0, the empty slot */
}

/* Returns 1 if added, 0 if present, -1 on allocation failure. */
static int seen_add(seen_set *set, uint64_t h)
{
	if ((set->n + 1) * 2 > set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 256;
		uint64_t *slots = calloc(cap, sizeof(*slots));
		if (!slots)
			return -1;
		for (size_t i = 0; i < set->cap; i++) {
			if (!set->slots[i])
				continue;
			size_t j = set->slots[i] & (cap - 1);
			while (slots[j])
				j = (j + 1) & (cap - 1);
			slots[j] = set->slots[i];
		}
		free(set->slots);
		set->slots = slots;
		set->cap = cap;
	}
	size_t j = h & (set->cap - 1);
	for (; set->slots[j]; j = (j + 1) & (set->cap - 1))
		if (set->slots[j] == h)
			return 0;
	set->slots[j] = h;
	set->n++;
	return 1;
}

/* ---- values --------------------------------------------------------------- */

xmlNode *vs_prop(const xmlNode *object, const char *name)
{
	for (xmlNode *p = vs_xml_child(object, "propSet"); p; p = vs_xml_next(p)) {
		xmlNode *n = vs_xml_child(p, "name");
		xmlChar *text = n ? xmlNodeGetContent(n) : NULL;
		bool match = text && strcmp((const char *)text, name) == 0;
		xmlFree(text);
		if (match)
			return vs_xml_child(p, "val");
	}
	return NULL;
}

char *vs_prop_text(const xmlNode *object, const char *name)
{
	return vs_xml_text(vs_prop(object, name));
}

char **vs_moref_list(const xmlNode *val, size_t *n)
{
	*n = 0;
	size_t count = 0;
	for (xmlNode *m = vs_xml_child(val, "ManagedObjectReference"); m; m = vs_xml_next(m))
		count++;
	char **v = calloc(count + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (xmlNode *m = vs_xml_child(val, "ManagedObjectReference"); m; m = vs_xml_next(m))
		v[(*n)++] = vs_xml_text(m);
	return v;
}

void vs_strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

/* ---- retrieval ------------------------------------------------------------- */

typedef struct walk_state {
	vs_object_fn fn;
	void *ud;
	seen_set seen;
} walk_state;

/* A property the session may not read comes back in missingSet; when the
 * session itself is gone, every property does, with NotAuthenticated. */
static int check_missing(const xmlNode *object, vs_error *err)
{
	for (xmlNode *m = vs_xml_child(object, "missingSet"); m; m = vs_xml_next(m)) {
		xmlNode *fault = vs_xml_child(m, "fault");
		vs_error e = {0};
		vs_fault_from_node(fault, &e);
		if (strcmp(e.fault, "NotAuthenticated") == 0) {
			snprintf(err->fault, sizeof(err->fault), "%s", e.fault);
			snprintf(err->message, sizeof(err->message), "%s", e.message);
			err->status = VS_ERR_FAULT;
			return VS_ERR_FAULT;
		}
	}
	return VS_OK;
}

static int on_object(xmlNode *object, void *ud, vs_error *err)
{
	walk_state *w = ud;
	int rc = check_missing(object, err);
	if (rc != VS_OK)
		return rc;
	xmlNode *obj = vs_xml_child(object, "obj");
	xmlChar *type = obj ? xmlGetProp(obj, (const xmlChar *)"type") : NULL;
	char *moref = vs_xml_text(obj);
	int added = type && moref ? seen_add(&w->seen, hash64((const char *)type, moref)) : 0;
	if (!type || !moref)
		rc = vs_fail(err, VS_ERR_PROTOCOL, "an ObjectContent without obj");
	else if (added < 0)
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	else if (added == 1)
		rc = w->fn((const char *)type, moref, object, w->ud, err);
	xmlFree(type);
	free(moref);
	return rc;
}

static void add_propsets(vs_buf *b, const vs_propspec *specs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		vs_buf_add(b, "<propSet>");
		vs_buf_elem(b, "type", specs[i].type);
		for (const char *const *p = specs[i].paths; *p; p++)
			vs_buf_elem(b, "pathSet", *p);
		vs_buf_add(b, "</propSet>");
	}
}

static void add_options(vs_buf *b, const vs_client *c)
{
	if (c->opts.page_size > 0)
		vs_buf_addf(b, "<options><maxObjects>%d</maxObjects></options>", c->opts.page_size);
	else
		vs_buf_add(b, "<options/>");
}

/* A container view of the root folder on the given types, made once a
 * session (a re-login drops it). */
static int ensure_view(vs_client *c, char **view, const char *types, vs_error *err)
{
	if (*view)
		return VS_OK;
	vs_buf params = {0};
	vs_buf_moref(&params, "container", "Folder", c->sc.root_folder);
	vs_buf_add(&params, types);
	vs_buf_add(&params, "<recursive>true</recursive>");
	vs_reply r = {0};
	int rc = params.failed ? vs_fail(err, VS_ERR_NOMEM, "out of memory")
	                       : vs_call(c, "CreateContainerView", "ViewManager", c->sc.view_manager,
	                                 params.data, VS_RET_ONE, VS_CALL_SAFE, NULL, &r, err);
	vs_buf_free(&params);
	if (rc == VS_OK && !(*view = vs_xml_text(vs_reply_ret(&r))))
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	vs_reply_free(&r);
	return rc;
}

/* Runs one retrieval and its continuations; the stream delivers objects. */
static int retrieve_pages(vs_client *c, const char *params, unsigned flags, walk_state *w,
                          vs_error *err)
{
	vs_stream stream = {"objects", on_object, w};
	vs_reply r = {0};
	int rc = vs_call(c, "RetrievePropertiesEx", "PropertyCollector", c->sc.property_collector,
	                 params, VS_RET_OPTIONAL, flags, &stream, &r, err);
	while (rc == VS_OK) {
		char *token = vs_xml_path_text(vs_reply_ret(&r), "token");
		vs_reply_free(&r);
		if (!token)
			break;
		vs_buf next = {0};
		vs_buf_elem(&next, "token", token);
		free(token);
		rc = next.failed ? vs_fail(err, VS_ERR_NOMEM, "out of memory")
		                 : vs_call(c, "ContinueRetrievePropertiesEx", "PropertyCollector",
		                           c->sc.property_collector, next.data, VS_RET_ONE,
		                           VS_CALL_SAFE | VS_CALL_SESSION_BOUND, &stream, &r, err);
		vs_buf_free(&next);
	}
	vs_reply_free(&r);
	return rc;
}

/* What one walk through a view reads: the view (which, of what types),
 * and optionally one more object beside the view's. */
typedef struct view_walk {
	char **view;
	const char *types;
	const vs_propspec *specs;
	size_t n_specs;
	const char *one_type, *one_moref;
} view_walk;

static int walk_view(vs_client *c, const view_walk *v, vs_object_fn fn, void *ud, vs_error *err)
{
	walk_state w = {fn, ud, {0}};
	int rc;
	for (int restarts = 0;; restarts++) {
		rc = ensure_view(c, v->view, v->types, err);
		if (rc != VS_OK)
			break;
		vs_buf params = {0};
		vs_buf_add(&params, "<specSet>");
		add_propsets(&params, v->specs, v->n_specs);
		vs_buf_add(&params, "<objectSet>");
		vs_buf_moref(&params, "obj", "ContainerView", *v->view);
		vs_buf_add(&params, "<skip>true</skip><selectSet xsi:type=\"TraversalSpec\">"
		                    "<name>view</name><type>ContainerView</type><path>view</path>"
		                    "<skip>false</skip></selectSet></objectSet>");
		if (v->one_moref) {
			vs_buf_add(&params, "<objectSet>");
			vs_buf_moref(&params, "obj", v->one_type, v->one_moref);
			vs_buf_add(&params, "</objectSet>");
		}
		vs_buf_add(&params, "</specSet>");
		add_options(&params, c);
		rc = params.failed ? vs_fail(err, VS_ERR_NOMEM, "out of memory")
		                   : retrieve_pages(c, params.data, VS_CALL_SAFE | VS_CALL_SESSION_BOUND,
		                                    &w, err);
		vs_buf_free(&params);
		if (rc != VS_ERR_SESSION_RENEWED || restarts == MAX_RESTARTS)
			break;
	}
	free(w.seen.slots);
	return rc;
}

int vs_props_walk(vs_client *c, const vs_propspec *specs, size_t n_specs, vs_object_fn fn,
                  void *ud, vs_error *err)
{
	view_walk v = {&c->container_view,
	               "<type>Datacenter</type><type>ClusterComputeResource</type>"
	               "<type>HostSystem</type><type>Datastore</type><type>VirtualMachine</type>",
	               specs, n_specs, NULL, NULL};
	return walk_view(c, &v, fn, ud, err);
}

int vs_props_datastores_and(vs_client *c, const vs_propspec *datastores, const char *type,
                            const char *moref, const vs_propspec *one, vs_object_fn fn, void *ud,
                            vs_error *err)
{
	/* A view of datastores alone: through the whole inventory's view the
	 * other object's properties would be read of every object of its type. */
	const vs_propspec specs[] = {*datastores, *one};
	view_walk v = {&c->datastore_view, "<type>Datastore</type>", specs, 2, type, moref};
	return walk_view(c, &v, fn, ud, err);
}

/* The object's properties (unless skipped) and those of the objects its
 * property `through` lists (through NULL: none), in one retrieval. */
static int related(vs_client *c, const char *type, const char *const *morefs, size_t n_morefs,
                   const char *through, const vs_propspec *specs, size_t n_specs, bool skip_self,
                   vs_object_fn fn, void *ud, vs_error *err)
{
	walk_state w = {fn, ud, {0}};
	vs_buf params = {0};
	vs_buf_add(&params, "<specSet>");
	add_propsets(&params, specs, n_specs);
	for (size_t i = 0; i < n_morefs; i++) {
		vs_buf_add(&params, "<objectSet>");
		vs_buf_moref(&params, "obj", type, morefs[i]);
		if (through) {
			vs_buf_addf(&params, "<skip>%s</skip><selectSet xsi:type=\"TraversalSpec\">",
			            skip_self ? "true" : "false");
			vs_buf_elem(&params, "name", through);
			vs_buf_elem(&params, "type", type);
			vs_buf_elem(&params, "path", through);
			vs_buf_add(&params, "<skip>false</skip></selectSet>");
		}
		vs_buf_add(&params, "</objectSet>");
	}
	vs_buf_add(&params, "</specSet>");
	add_options(&params, c);
	/* A paging token is the session's: a renewal mid-paging starts over
	 * (the objects delivered already are not delivered twice). */
	int rc = params.failed ? vs_fail(err, VS_ERR_NOMEM, "out of memory") : VS_ERR_SESSION_RENEWED;
	for (int restarts = 0; rc == VS_ERR_SESSION_RENEWED && restarts <= MAX_RESTARTS; restarts++)
		rc = retrieve_pages(c, params.data, VS_CALL_SAFE, &w, err);
	vs_buf_free(&params);
	free(w.seen.slots);
	return rc;
}

int vs_props_related(vs_client *c, const char *type, const char *moref, const char *through,
                     const vs_propspec *spec, vs_object_fn fn, void *ud, vs_error *err)
{
	return related(c, type, &moref, 1, through, spec, 1, true, fn, ud, err);
}

int vs_props_with_related(vs_client *c, const char *type, const char *moref, const char *through,
                          const vs_propspec *own, const vs_propspec *theirs, vs_object_fn fn,
                          void *ud, vs_error *err)
{
	const vs_propspec specs[] = {*own, *theirs};
	return related(c, type, &moref, 1, through, specs, 2, false, fn, ud, err);
}

int vs_props_many(vs_client *c, const char *type, const char *const *morefs, size_t n,
                  const char *const *paths, vs_object_fn fn, void *ud, vs_error *err)
{
	return related(c, type, morefs, n, NULL, &(vs_propspec){type, paths}, 1, false, fn, ud, err);
}

int vs_props_one(vs_client *c, const char *type, const char *moref, const char *const *paths,
                 vs_object_fn fn, void *ud, vs_error *err)
{
	return vs_props_related(c, type, moref, NULL, &(vs_propspec){type, paths}, fn, ud, err);
}

typedef struct one_text {
	const char *path;
	char *text;
} one_text;

static int read_text(const char *type, const char *moref, const xmlNode *object, void *ud,
                     vs_error *err)
{
	(void)type, (void)moref;
	one_text *t = ud;
	t->text = vs_prop_text(object, t->path);
	return vs_prop(object, t->path) && !t->text ? vs_fail(err, VS_ERR_NOMEM, "out of memory") : VS_OK;
}

int vs_props_text(vs_client *c, const char *type, const char *moref, const char *path, char **text,
                  vs_error *err)
{
	const char *const paths[] = {path, NULL};
	one_text t = {path, NULL};
	int rc = vs_props_one(c, type, moref, paths, read_text, &t, err);
	*text = t.text;
	return rc;
}
