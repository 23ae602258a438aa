/* The inventory as one snapshot (one streamed retrieval), and name lookups
 * that say what was meant when a name matches nothing.  Commands resolve
 * every name here before they change anything in vCenter. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ops/inventory.h"

#define GROW(arr, n) ((arr) = realloc((arr), ((n) + 1) * sizeof(*(arr))))

static int take_host(vs_host *h, void *ud, vs_error *err)
{
	na_inventory *inv = ud;
	if (!GROW(inv->hosts, inv->n_hosts))
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	inv->hosts[inv->n_hosts++] = *h;
	*h = (vs_host){0};
	return VS_OK;
}

static int take_datastore(vs_datastore *d, void *ud, vs_error *err)
{
	na_inventory *inv = ud;
	if (!GROW(inv->datastores, inv->n_datastores))
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	inv->datastores[inv->n_datastores++] = *d;
	*d = (vs_datastore){0};
	return VS_OK;
}

static int take_vm(vs_vm *v, void *ud, vs_error *err)
{
	na_inventory *inv = ud;
	if (!GROW(inv->vms, inv->n_vms))
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	inv->vms[inv->n_vms++] = *v;
	*v = (vs_vm){0};
	return VS_OK;
}

static int take_cluster(const char *moref, const char *name, void *ud, vs_error *err)
{
	na_inventory *inv = ud;
	if (!GROW(inv->clusters, inv->n_clusters))
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	na_cluster *cl = &inv->clusters[inv->n_clusters++];
	cl->moref = strdup(moref);
	cl->name = strdup(name);
	return cl->moref && cl->name ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
}

int na_inventory_load(vs_client *c, bool with_vms, na_inventory *inv, vs_error *err)
{
	*inv = (na_inventory){0};
	vs_walk walk = {.host = take_host, .datastore = take_datastore, .cluster = take_cluster,
	                .vm = with_vms ? take_vm : NULL, .vm_detail = VS_VM_SUMMARY, .ud = inv};
	int rc = vs_walk_inventory(c, &walk, err);
	if (rc != VS_OK)
		na_inventory_free(inv);
	return rc;
}

static vs_vm *vm_of(na_inventory *inv, const char *moref)
{
	for (size_t i = 0; moref && i < inv->n_vms; i++)
		if (strcmp(inv->vms[i].moref, moref) == 0)
			return &inv->vms[i];
	return NULL;
}

/* After a move, a mount or an unmount only the datastores (their mounts,
 * free space) and the one VM (its host, datastores, files) have changed:
 * one retrieval of the datastores and the VM, not a whole walk. */
int na_inventory_refresh(vs_client *c, na_inventory *inv, const char *vm_moref, vs_error *err)
{
	na_inventory fresh = {0};
	vs_vm *vm = vm_of(inv, vm_moref);
	vs_walk walk = {.datastore = take_datastore, .vm = vm ? take_vm : NULL,
	                .vm_detail = VS_VM_SUMMARY, .one_vm = vm ? vm_moref : NULL, .ud = &fresh};
	int rc = vs_walk_inventory(c, &walk, err);
	if (rc == VS_OK && vm && fresh.n_vms != 1)
		rc = vs_fail(err, VS_ERR_NOT_FOUND, "VM %s no longer exists", vm_moref);
	if (rc == VS_OK) {
		for (size_t i = 0; i < inv->n_datastores; i++)
			vs_datastore_clear(&inv->datastores[i]);
		free(inv->datastores);
		inv->datastores = fresh.datastores;
		inv->n_datastores = fresh.n_datastores;
		fresh.datastores = NULL;
		fresh.n_datastores = 0;
	}
	if (rc == VS_OK && vm) {
		vs_vm_clear(vm);
		*vm = fresh.vms[0];
		fresh.n_vms = 0;
	}
	na_inventory_free(&fresh);
	return rc;
}

void na_inventory_free(na_inventory *inv)
{
	for (size_t i = 0; i < inv->n_hosts; i++)
		vs_host_clear(&inv->hosts[i]);
	for (size_t i = 0; i < inv->n_datastores; i++)
		vs_datastore_clear(&inv->datastores[i]);
	for (size_t i = 0; i < inv->n_vms; i++)
		vs_vm_clear(&inv->vms[i]);
	for (size_t i = 0; i < inv->n_clusters; i++) {
		free(inv->clusters[i].moref);
		free(inv->clusters[i].name);
	}
	free(inv->hosts);
	free(inv->datastores);
	free(inv->vms);
	free(inv->clusters);
	*inv = (na_inventory){0};
}

/* ---- names ----------------------------------------------------------------- */

/* Edit distance, capped: names further apart than that are not "near". */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 99;
	size_t row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t sub = prev + ((a[i - 1] | 32) != (b[j - 1] | 32));
			size_t del = row[j] + 1, ins = row[j - 1] + 1;
			row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
			prev = cur;
		}
	}
	return row[lb];
}

static bool contains_nocase(const char *have, const char *want)
{
	size_t n = strlen(want);
	for (; n && *have; have++)
		if (strncasecmp(have, want, n) == 0)
			return true;
	return false;
}

static bool near(const char *want, const char *have)
{
	return distance(want, have) <= 2 || contains_nocase(have, want);
}

/* Fills err with "no KIND is named 'X'" plus up to three near matches. */
static int not_found(const char *kind, const char *want, const char *const *names, size_t n,
                     vs_error *err)
{
	char hint[512] = "";
	size_t shown = 0, len = 0;
	for (size_t i = 0; i < n && shown < 3; i++) {
		if (!near(want, names[i]))
			continue;
		len += (size_t)snprintf(hint + len, sizeof(hint) - len, "%s'%s'", shown ? ", " : "; did you mean ",
		                        names[i]);
		if (len >= sizeof(hint))
			break;
		shown++;
	}
	if (shown)
		snprintf(hint + (len < sizeof(hint) ? len : sizeof(hint) - 1),
		         sizeof(hint) - (len < sizeof(hint) ? len : sizeof(hint) - 1), "?");
	return vs_fail(err, VS_ERR_NOT_FOUND, "no %s is named '%s'%s", kind, want, hint);
}

/* Finds the element of arr (n elements of `size` bytes) whose char* at
 * name_off equals want. */
static void *find_named(void *arr, size_t n, size_t size, size_t name_off, const char *kind,
                        const char *want, vs_error *err)
{
	const char **names = calloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		char *elem = (char *)arr + i * size;
		const char *name = *(const char **)(elem + name_off);
		if (strcmp(name, want) == 0) {
			free(names);
			return elem;
		}
		if (names)
			names[i] = name;
	}
	not_found(kind, want, names, names ? n : 0, err);
	free(names);
	return NULL;
}

vs_host *na_find_host(const na_inventory *inv, const char *name, vs_error *err)
{
	return find_named(inv->hosts, inv->n_hosts, sizeof(vs_host), offsetof(vs_host, name), "host",
	                  name, err);
}

vs_datastore *na_find_datastore(const na_inventory *inv, const char *name, vs_error *err)
{
	return find_named(inv->datastores, inv->n_datastores, sizeof(vs_datastore),
	                  offsetof(vs_datastore, name), "datastore", name, err);
}

vs_vm *na_find_vm(const na_inventory *inv, const char *name, vs_error *err)
{
	return find_named(inv->vms, inv->n_vms, sizeof(vs_vm), offsetof(vs_vm, name), "VM", name, err);
}

na_cluster *na_find_cluster(const na_inventory *inv, const char *name, vs_error *err)
{
	return find_named(inv->clusters, inv->n_clusters, sizeof(na_cluster),
	                  offsetof(na_cluster, name), "cluster", name, err);
}

vs_host *na_host_by_moref(const na_inventory *inv, const char *moref)
{
	for (size_t i = 0; moref && i < inv->n_hosts; i++)
		if (strcmp(inv->hosts[i].moref, moref) == 0)
			return &inv->hosts[i];
	return NULL;
}

vs_datastore *na_datastore_by_moref(const na_inventory *inv, const char *moref)
{
	for (size_t i = 0; moref && i < inv->n_datastores; i++)
		if (strcmp(inv->datastores[i].moref, moref) == 0)
			return &inv->datastores[i];
	return NULL;
}

const char *na_host_name(const na_inventory *inv, const char *moref)
{
	vs_host *h = na_host_by_moref(inv, moref);
	return h ? h->name : moref;
}

bool na_mounted_on(const vs_datastore *d, const char *host_moref)
{
	for (size_t i = 0; i < d->n_mounts; i++)
		if (strcmp(d->mounts[i].host, host_moref) == 0)
			return true;
	return false;
}

bool na_vm_uses(const vs_vm *v, const char *datastore_moref)
{
	for (size_t i = 0; i < v->n_datastores; i++)
		if (strcmp(v->datastores[i], datastore_moref) == 0)
			return true;
	return false;
}

/* ---- host selection ------------------------------------------------------------ */

/* Whether h belongs to one of parents (compute resource morefs, NULL-terminated). */
static bool in_parent(const vs_host *h, const char *const *parents)
{
	for (size_t i = 0; h->parent && parents[i]; i++)
		if (!strcmp(h->parent, parents[i]))
			return true;
	return false;
}

int na_select_hosts(const na_inventory *inv, const na_host_choice *choice, vs_host ***out,
                    size_t *n, vs_error *err)
{
	*out = calloc(inv->n_hosts + 1, sizeof(vs_host *));
	*n = 0;
	if (!*out)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	const na_cluster *cl = NULL;
	if (choice->host) {
		vs_host *h = na_find_host(inv, choice->host, err);
		if (!h)
			return VS_ERR_NOT_FOUND;
		(*out)[(*n)++] = h;
		return VS_OK;
	}
	if (choice->cluster && !(cl = na_find_cluster(inv, choice->cluster, err)))
		return VS_ERR_NOT_FOUND;
	for (size_t i = 0; i < inv->n_hosts; i++)
		if (cl ? in_parent(&inv->hosts[i], (const char *[]){cl->moref, NULL})
		       : !choice->parents || in_parent(&inv->hosts[i], choice->parents))
			(*out)[(*n)++] = &inv->hosts[i];
	if (*n == 0 && cl)
		return vs_fail(err, VS_ERR_NOT_FOUND, "cluster '%s' has no hosts", choice->cluster);
	if (*n == 0)
		return vs_fail(err, VS_ERR_NOT_FOUND, choice->parents ? "no host of the VM's cluster is in the inventory"
		                                                      : "vCenter lists no hosts");
	return VS_OK;
}

/* ---- NFS exports ----------------------------------------------------------------- */

/* "/mnt/tank/x/" and "/mnt/tank/x" are one export to the NFS server, but
 * two datastores to ESXi: compare without trailing slashes. */
static size_t path_len(const char *p)
{
	size_t n = strlen(p);
	while (n > 1 && p[n - 1] == '/')
		n--;
	return n;
}

bool na_same_export(const vs_datastore *d, const char *const *servers, const char *path)
{
	if (!d->remote_host || !d->remote_path)
		return false;
	size_t a = path_len(d->remote_path), b = path_len(path);
	if (a != b || strncmp(d->remote_path, path, a) != 0)
		return false;
	for (const char *const *s = servers; *s; s++) {
		size_t n = strlen(*s);
		for (const char *h = d->remote_host; h; h = strchr(h, ',') ? strchr(h, ',') + 1 : NULL)
			if (strncasecmp(h, *s, n) == 0 && (h[n] == ',' || h[n] == '\0'))
				return true;
	}
	return false;
}

/* "esx1, esx2" for the hosts that mount d, into buf. */
const char *na_mount_hosts(const na_inventory *inv, const vs_datastore *d, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < d->n_mounts && len + 1 < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
		                        na_host_name(inv, d->mounts[i].host));
	return buf;
}
