/* The inventory walk (hosts, datastores and VMs in one retrieval), host
 * reading, and finding a VM by name. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *const vs_host_paths[] = {
	"name", "config.product", "runtime.connectionState", "runtime.inMaintenanceMode",
	"configManager.datastoreSystem", "parent", "configManager.advancedOption", NULL,
};

static const char *const name_path[] = {"name", NULL};

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

char *vs_unescape_name(const char *name)
{
	char *out = malloc(strlen(name) + 1);
	if (!out)
		return NULL;
	char *o = out;
	for (const char *p = name; *p; p++) {
		int hi = p[0] == '%' ? hexval(p[1]) : -1;
		int lo = hi >= 0 ? hexval(p[2]) : -1;
		if (lo >= 0) {
			*o++ = (char)(hi << 4 | lo);
			p += 2;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return out;
}

char *vs_read_name(const xmlNode *object)
{
	char *raw = vs_prop_text(object, "name");
	char *name = raw ? vs_unescape_name(raw) : NULL;
	free(raw);
	return name;
}

int vs_host_read(const char *moref, const xmlNode *object, vs_host *h)
{
	xmlNode *product = vs_prop(object, "config.product");
	h->moref = strdup(moref);
	h->name = vs_read_name(object);
	h->version = vs_xml_path_text(product, "version");
	h->build = vs_xml_path_text(product, "build");
	h->connection_state = vs_prop_text(object, "runtime.connectionState");
	h->maintenance = vs_xml_path_bool(vs_prop(object, "runtime.inMaintenanceMode"), "", false);
	h->datastore_system = vs_prop_text(object, "configManager.datastoreSystem");
	h->parent = vs_prop_text(object, "parent");
	h->option_manager = vs_prop_text(object, "configManager.advancedOption");
	return h->moref && h->name ? VS_OK : VS_ERR_NOMEM;
}

void vs_host_clear(vs_host *h)
{
	free(h->moref);
	free(h->name);
	free(h->version);
	free(h->build);
	free(h->connection_state);
	free(h->datastore_system);
	free(h->parent);
	free(h->option_manager);
	*h = (vs_host){0};
}

/* ---- the walk ------------------------------------------------------------- */

static int deliver(const char *type, const char *moref, const xmlNode *object, void *ud,
                   vs_error *err)
{
	const vs_walk *walk = ud;
	int rc = VS_OK;
	if (strcmp(type, "HostSystem") == 0 && walk->host) {
		vs_host h = {0};
		rc = vs_host_read(moref, object, &h);
		rc = rc == VS_OK ? walk->host(&h, walk->ud, err) : vs_fail(err, rc, "out of memory");
		vs_host_clear(&h);
	} else if (strcmp(type, "Datastore") == 0 && walk->datastore) {
		vs_datastore d = {0};
		rc = vs_datastore_read(moref, object, &d);
		rc = rc == VS_OK ? walk->datastore(&d, walk->ud, err) : vs_fail(err, rc, "out of memory");
		vs_datastore_clear(&d);
	} else if (strcmp(type, "VirtualMachine") == 0 && walk->vm) {
		vs_vm v = {0};
		rc = vs_vm_read(moref, object, &v);
		rc = rc == VS_OK ? walk->vm(&v, walk->ud, err) : vs_fail(err, rc, "out of memory");
		vs_vm_clear(&v);
	} else if (strcmp(type, "ClusterComputeResource") == 0 && walk->cluster) {
		char *name = vs_read_name(object);
		rc = name ? walk->cluster(moref, name, walk->ud, err) : vs_fail(err, VS_ERR_NOMEM, "out of memory");
		free(name);
	}
	return rc;
}

int vs_walk_inventory(vs_client *c, const vs_walk *walk, vs_error *err)
{
	vs_propspec specs[4];
	size_t n = 0;
	if (walk->cluster)
		specs[n++] = (vs_propspec){"ClusterComputeResource", name_path};
	if (walk->host)
		specs[n++] = (vs_propspec){"HostSystem", vs_host_paths};
	if (walk->datastore)
		specs[n++] = (vs_propspec){"Datastore", vs_datastore_paths};
	if (walk->vm)
		specs[n++] = (vs_propspec){"VirtualMachine",
		                           walk->vm_detail == VS_VM_NAME ? name_path : vs_vm_summary_paths};
	if (n == 0)
		return VS_OK;
	int rc = walk->one_vm && n == 2 && walk->datastore && walk->vm
	                 ? vs_props_datastores_and(c, &specs[0], "VirtualMachine", walk->one_vm,
	                                           &specs[1], deliver, (void *)walk, err)
	                 : vs_props_walk(c, specs, n, deliver, (void *)walk, err);
	if (rc != VS_OK && !err->context[0])
		vs_error_context(err, "reading the inventory of %s", vs_client_host(c));
	return rc;
}

/* ---- finding a VM by name --------------------------------------------------- */

typedef struct find_state {
	const char *name;
	char **matches;    /* VM morefs with that name */
	size_t n;
	char **names;      /* moref, name pairs of hosts and datastores */
	size_t n_names;
} find_state;

static int append(char ***v, size_t *n, const char *s, vs_error *err)
{
	char **grown = realloc(*v, (*n + 1) * sizeof(char *));
	if (!grown)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	*v = grown;
	if (!(grown[*n] = strdup(s)))
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	(*n)++;
	return VS_OK;
}

static int collect_names(const char *type, const char *moref, const xmlNode *object, void *ud,
                         vs_error *err)
{
	find_state *f = ud;
	char *name = vs_read_name(object);
	int rc = VS_OK;
	if (!name)
		rc = vs_fail(err, VS_ERR_PROTOCOL, "%s has no name", moref);
	else if (strcmp(type, "VirtualMachine") != 0) {
		rc = append(&f->names, &f->n_names, moref, err);
		if (rc == VS_OK)
			rc = append(&f->names, &f->n_names, name, err);
	} else if (strcmp(name, f->name) == 0) {
		rc = append(&f->matches, &f->n, moref, err);
	}
	free(name);
	return rc;
}

static const char *name_of(const find_state *f, const char *moref)
{
	for (size_t i = 0; i + 1 < f->n_names; i += 2)
		if (strcmp(f->names[i], moref) == 0)
			return f->names[i + 1];
	return moref;
}

static int read_one_vm(const char *type, const char *moref, const xmlNode *object, void *ud,
                       vs_error *err)
{
	(void)type;
	vs_vm *v = ud;
	vs_vm_clear(v);
	return vs_vm_read(moref, object, v) == VS_OK ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
}

int vs_vm_lookup(vs_client *c, const char *moref, vs_vm **out, vs_error *err)
{
	vs_vm *v = calloc(1, sizeof(*v));
	if (!v)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	int rc = vs_props_one(c, "VirtualMachine", moref, vs_vm_summary_paths, read_one_vm, v, err);
	if (rc == VS_OK && !v->moref)
		rc = vs_fail(err, VS_ERR_NOT_FOUND, "VM %s no longer exists", moref);
	if (rc != VS_OK)
		vs_vm_free(&v);
	*out = v;
	return rc;
}

typedef struct vm_list {
	vs_vm *v;
	size_t n, cap;
} vm_list;

static int add_vm(const char *type, const char *moref, const xmlNode *object, void *ud,
                  vs_error *err)
{
	(void)type;
	vm_list *l = ud;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		vs_vm *grown = realloc(l->v, cap * sizeof(*grown));
		if (!grown)
			return vs_fail(err, VS_ERR_NOMEM, "out of memory");
		l->v = grown;
		l->cap = cap;
	}
	l->v[l->n] = (vs_vm){0};
	if (vs_vm_read(moref, object, &l->v[l->n]) != VS_OK) {
		vs_vm_clear(&l->v[l->n]);
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	l->n++;
	return VS_OK;
}

int vs_datastore_vms(vs_client *c, const char *datastore, vs_vm **vms, size_t *n, vs_error *err)
{
	vm_list l = {0};
	int rc = vs_props_related(c, "Datastore", datastore, "vm",
	                          &(vs_propspec){"VirtualMachine", vs_vm_summary_paths}, add_vm, &l, err);
	if (rc != VS_OK) {
		vs_vms_free(l.v, l.n);
		l = (vm_list){0};
	}
	*vms = l.v;
	*n = l.n;
	return rc;
}

void vs_vms_free(vs_vm *vms, size_t n)
{
	for (size_t i = 0; i < n; i++)
		vs_vm_clear(&vms[i]);
	free(vms);
}

static int name_references(const find_state *f, vs_vm *v, vs_error *err)
{
	v->host_name = strdup(v->host ? name_of(f, v->host) : "");
	v->datastore_names = calloc(v->n_datastores + 1, sizeof(char *));
	for (size_t i = 0; v->datastore_names && i < v->n_datastores; i++)
		v->datastore_names[i] = strdup(name_of(f, v->datastores[i]));
	for (size_t i = 0; v->datastore_names && i < v->n_datastores; i++)
		if (!v->datastore_names[i])
			return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	return v->host_name && v->datastore_names ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
}

int vs_find_vm(vs_client *c, const char *name, vs_vm **out, vs_error *err)
{
	*out = NULL;
	find_state f = {name, NULL, 0, NULL, 0};
	const vs_propspec specs[] = {
		{"VirtualMachine", name_path}, {"HostSystem", name_path}, {"Datastore", name_path},
	};
	int rc = vs_props_walk(c, specs, 3, collect_names, &f, err);
	if (rc == VS_OK && f.n == 0)
		rc = vs_fail(err, VS_ERR_NOT_FOUND, "no VM is named '%s'", name);
	else if (rc == VS_OK && f.n > 1)
		rc = vs_fail(err, VS_ERR_NOT_FOUND, "%zu VMs are named '%s' (%s, %s%s)", f.n, name,
		             f.matches[0], f.matches[1], f.n > 2 ? ", ..." : "");
	if (rc == VS_OK)
		rc = vs_vm_lookup(c, f.matches[0], out, err);
	if (rc == VS_OK && (rc = name_references(&f, *out, err)) != VS_OK)
		vs_vm_free(out);
	if (rc != VS_OK)
		vs_error_context(err, "finding VM '%s'", name);
	vs_strv_free(f.matches, f.n);
	vs_strv_free(f.names, f.n_names);
	return rc;
}
