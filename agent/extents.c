/* The check at the heart of the NFS 4.1 bug: does each extent file hold at
 * least the bytes its descriptor declares?  Sizes come from the datastore
 * browser (what the NFS server has) and from the VM's layoutEx (what ESXi
 * believes), side by side. */
#include <stdlib.h>
#include <string.h>

#include "agent.h"

enum { MAX_DESCRIPTOR = 64 * 1024 };

typedef struct folder {
	char *dspath;  /* "[ds] dir" */
	vs_file *files;
	size_t n;
} folder;

struct na_folder_cache {
	folder *v;
	size_t n;
};

na_folder_cache *na_folder_cache_new(void)
{
	return calloc(1, sizeof(na_folder_cache));
}

void na_folder_cache_free(na_folder_cache **cp)
{
	na_folder_cache *c = *cp;
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].dspath);
		vs_files_free(&c->v[i].files, c->v[i].n);
	}
	free(c->v);
	free(c);
	*cp = NULL;
}

/* Lists "[ds] dir" once; later calls use the listing. */
static int list_folder(vs_client *c, const na_inventory *inv, na_folder_cache *cache,
                       const char *dspath, const folder **out, vs_error *err)
{
	for (size_t i = 0; i < cache->n; i++)
		if (strcmp(cache->v[i].dspath, dspath) == 0) {
			*out = &cache->v[i];
			return VS_OK;
		}
	char *ds = NULL, *path = NULL;
	int rc = vs_dspath_split(dspath, &ds, &path, err);
	vs_datastore *d = rc == VS_OK ? na_find_datastore(inv, ds, err) : NULL;
	folder f = {strdup(dspath), NULL, 0};
	if (rc == VS_OK && !d)
		rc = VS_ERR_NOT_FOUND;
	if (rc == VS_OK)
		rc = vs_datastore_list(c, d->browser, dspath, "*", &f.files, &f.n, err);
	folder *grown = rc == VS_OK ? realloc(cache->v, (cache->n + 1) * sizeof(folder)) : NULL;
	if (rc == VS_OK && !grown)
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	free(ds);
	free(path);
	if (rc != VS_OK) {
		free(f.dspath);
		vs_files_free(&f.files, f.n);
		return rc;
	}
	cache->v = grown;
	cache->v[cache->n] = f;
	*out = &cache->v[cache->n++];
	return VS_OK;
}

static int64_t listed_size(const folder *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->files[i].path, name) == 0)
			return f->files[i].size;
	return -1;
}

static int64_t layout_size(const vs_vm_layout *layout, const char *dspath)
{
	for (size_t i = 0; layout && i < layout->n_files; i++)
		if (layout->files[i].name && strcmp(layout->files[i].name, dspath) == 0)
			return layout->files[i].size;
	return -1;
}

static int add_check(na_checks *out, na_extent_check check, vs_error *err)
{
	na_extent_check *grown = realloc(out->v, (out->n + 1) * sizeof(*grown));
	if (!grown)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	out->v = grown;
	out->v[out->n++] = check;
	out->mismatches += check.mismatch;
	out->problems += check.problem != NULL;
	return VS_OK;
}

/* "[ds] dir/x.vmdk" -> "[ds] dir" (the folder) and "x.vmdk" (the name). */
static void split_folder(const char *dspath, char **dir, const char **base)
{
	const char *slash = strrchr(dspath, '/');
	const char *close = strchr(dspath, ']');
	if (!slash || (close && slash < close)) {
		*dir = strndup(dspath, close ? (size_t)(close - dspath + 1) : 0);
		*base = close ? close + 1 + (close[1] == ' ') : dspath;
	} else {
		*dir = strndup(dspath, (size_t)(slash - dspath));
		*base = slash + 1;
	}
}

/* "[ds] dir" + "x" -> "[ds] dir/x"; "[ds]" + "x" -> "[ds] x". */
char *na_dspath_child(const char *dir, const char *name)
{
	size_t n = strlen(dir), len = n + strlen(name) + 2;
	char *s = malloc(len);
	/* "[ds]" takes a space, "[ds] dir" a slash, "[ds] dir/" nothing more. */
	const char *sep = n && dir[n - 1] == ']' ? " " : n && dir[n - 1] == '/' ? "" : "/";
	if (s)
		snprintf(s, len, "%s%s%s", dir, sep, name);
	return s;
}

static void check_extent(const vs_vmdk_extent *e, const char *dir, const folder *f,
                         const vs_vm_layout *layout, na_extent_check *check)
{
	check->extent = na_dspath_child(dir, e->file);
	check->declared = vs_vmdk_extent_min_bytes(e);
	check->actual = listed_size(f, e->file);
	check->layout = check->extent ? layout_size(layout, check->extent) : -1;
	bool missing = check->actual < 0 && check->declared >= 0;
	check->mismatch = missing || (check->declared >= 0 && check->actual < check->declared) ||
	                  (check->declared >= 0 && check->layout >= 0 && check->layout < check->declared);
}

int na_check_descriptor(vs_client *c, const na_inventory *inv, na_folder_cache *cache,
                        const char *dspath, const vs_vm_layout *layout, na_checks *out,
                        vs_error *err)
{
	char *data = NULL, *dir = NULL;
	const char *base;
	size_t len = 0;
	vs_vmdk *vmdk = NULL;
	const folder *f = NULL;
	vs_error why = {0};
	split_folder(dspath, &dir, &base);
	int rc = vs_datastore_download(c, dspath, MAX_DESCRIPTOR, &data, &len, &why);
	if (rc == VS_OK)
		rc = vs_vmdk_parse(data, len, &vmdk, &why);
	if (rc == VS_OK)
		rc = list_folder(c, inv, cache, dir, &f, &why);
	if (rc == VS_ERR_NOMEM || rc == VS_ERR_CONNECT || rc == VS_ERR_TLS || rc == VS_ERR_AUTH) {
		*err = why;  /* the check could not run at all */
	} else if (rc != VS_OK) {
		char line[1600];
		vs_error_format(&why, line, sizeof(line));
		rc = add_check(out, (na_extent_check){.descriptor = strdup(dspath), .problem = strdup(line),
		                                      .declared = -1, .actual = -1, .layout = -1}, err);
	}
	for (size_t i = 0; rc == VS_OK && vmdk && i < vmdk->n_extents; i++) {
		if (!vmdk->extents[i].file)
			continue;
		na_extent_check check = {.descriptor = strdup(dspath)};
		check_extent(&vmdk->extents[i], dir, f, layout, &check);
		rc = add_check(out, check, err);
	}
	vs_vmdk_free(&vmdk);
	free(data);
	free(dir);
	return rc;
}

void na_checks_free(na_checks *checks)
{
	for (size_t i = 0; i < checks->n; i++) {
		free(checks->v[i].descriptor);
		free(checks->v[i].extent);
		free(checks->v[i].problem);
	}
	free(checks->v);
	*checks = (na_checks){0};
}

json_t *na_checks_json(const na_checks *checks)
{
	json_t *a = json_array();
	for (size_t i = 0; i < checks->n; i++) {
		const na_extent_check *k = &checks->v[i];
		json_array_append_new(a, json_pack("{s:s, s:s?, s:I, s:I, s:I, s:b, s:s?}", "descriptor",
		                                   k->descriptor, "extent", k->extent, "declared_bytes",
		                                   (json_int_t)k->declared, "datastore_bytes",
		                                   (json_int_t)k->actual, "layout_bytes",
		                                   (json_int_t)k->layout, "mismatch", k->mismatch,
		                                   "problem", k->problem));
	}
	return a;
}

void na_checks_print(const na_checks *checks, FILE *out)
{
	for (size_t i = 0; i < checks->n; i++) {
		const na_extent_check *k = &checks->v[i];
		if (k->problem) {
			fprintf(out, "  PROBLEM   %s: %s\n", k->descriptor, k->problem);
		} else if (k->declared < 0) {
			fprintf(out, "  ok        %s (grows as needed, %lld bytes now)\n", k->extent,
			        (long long)k->actual);
		} else if (k->actual < 0) {
			fprintf(out, "  MISMATCH  %s: missing, descriptor declares %lld bytes\n", k->extent,
			        (long long)k->declared);
		} else {
			fprintf(out, "  %-9s %s: descriptor %lld bytes, datastore %lld bytes",
			        k->mismatch ? "MISMATCH" : "ok", k->extent, (long long)k->declared,
			        (long long)k->actual);
			if (k->layout >= 0)
				fprintf(out, ", ESXi layout %lld bytes", (long long)k->layout);
			fputc('\n', out);
		}
	}
}
