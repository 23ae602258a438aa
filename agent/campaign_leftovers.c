/* A campaign's leftovers on its targets: probe folders of a killed run,
 * copies of failed moves. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "campaign_leftovers.h"

/* Whether name is "nfsagent-probe-TIME-PID" for this pid. */
static bool probe_folder_of(const char *name, long pid)
{
	static const char prefix[] = "nfsagent-probe-";
	if (strncmp(name, prefix, sizeof(prefix) - 1) != 0)
		return false;
	const char *stamp = name + sizeof(prefix) - 1, *dash = strchr(stamp, '-');
	if (!dash || dash == stamp || strspn(stamp, "0123456789") != (size_t)(dash - stamp))
		return false;
	long got = 0;
	return na_parse_long(dash + 1, 1, LONG_MAX, &got) && got == pid;
}

static int list_root(vs_client *c, const vs_datastore *d, const char *folder, vs_file **files,
                     size_t *n, vs_error *err)
{
	char *path = vs_dspath_join(d->name, folder);
	int rc = path ? vs_datastore_list(c, d->browser, path, "*", files, n, err)
	              : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	free(path);
	return rc;
}

int na_probe_folders_remove(vs_client *c, const vs_datastore *d, long pid, size_t *removed,
                            vs_error *err)
{
	vs_file *files = NULL;
	size_t n = 0;
	*removed = 0;
	int rc = list_root(c, d, NULL, &files, &n, err);
	for (size_t i = 0; rc == VS_OK && i < n; i++) {
		if (!files[i].is_folder || !probe_folder_of(files[i].path, pid))
			continue;
		char *path = vs_dspath_join(d->name, files[i].path);
		/* The folder goes with the canaries in it. */
		rc = path ? vs_datastore_delete(c, path, err) : vs_fail(err, VS_ERR_NOMEM, "out of memory");
		if (rc == VS_OK) {
			char *shown = na_escaped(path);
			printf("Removed %s, left by a probe that was stopped.\n", shown ? shown : "?");
			free(shown);
			(*removed)++;
		}
		free(path);
	}
	vs_files_free(&files, n);
	return rc;
}

static bool listed(const na_leftovers *l, const char *line)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->paths[i], line))
			return true;
	return false;
}

/* Adds line (a copy) to l unless l lists it already: VS_OK, or out of memory. */
static int add_line(na_leftovers *l, const char *line)
{
	if (listed(l, line))
		return VS_OK;
	char **grown = realloc(l->paths, (l->n + 1) * sizeof(char *));
	if (!grown)
		return VS_ERR_NOMEM;
	l->paths = grown;
	if (!(l->paths[l->n] = strdup(line)))
		return VS_ERR_NOMEM;
	l->n++;
	return VS_OK;
}

static int add(na_leftovers *l, const vs_datastore *d, const char *folder, const vs_file *file)
{
	char size[32] = "size unknown", line[2048];
	if (file->size >= 0)
		na_size(file->size, size, sizeof(size));
	if (d->remote_path)
		snprintf(line, sizeof(line), "[%s] %s/%s, %s (%s:%s/%s/%s)", d->name, folder, file->path, size,
		         d->remote_host ? d->remote_host : "", d->remote_path, folder, file->path);
	else
		snprintf(line, sizeof(line), "[%s] %s/%s, %s", d->name, folder, file->path, size);
	return add_line(l, line);
}

int na_leftovers_add(na_leftovers *into, const na_leftovers *from)
{
	int rc = VS_OK;
	for (size_t i = 0; rc == VS_OK && i < from->n; i++)
		rc = add_line(into, from->paths[i]);
	return rc;
}

/* Whether a VM in inv has its files in d's folder: then the folder is that
 * VM's home (another VM called NAME_1, say), not a move's copy. */
static bool registered_in(const na_inventory *inv, const vs_datastore *d, const char *folder)
{
	char prefix[1024];
	snprintf(prefix, sizeof(prefix), "[%s] %s/", d->name, folder);
	for (size_t i = 0; i < inv->n_vms; i++)
		if (inv->vms[i].vmx_path && strncmp(inv->vms[i].vmx_path, prefix, strlen(prefix)) == 0)
			return true;
	return false;
}

int na_move_leftovers(vs_client *c, const na_inventory *inv, const vs_datastore *d,
                      const char *vm_folder, na_leftovers *l, vs_error *err)
{
	vs_file *folders = NULL;
	size_t n = 0;
	int rc = list_root(c, d, NULL, &folders, &n, err);
	for (size_t i = 0; rc == VS_OK && i < n; i++) {
		if (!folders[i].is_folder || !na_attempt_name(vm_folder, folders[i].path) ||
		    registered_in(inv, d, folders[i].path))
			continue;
		vs_file *files = NULL;
		size_t k = 0;
		rc = list_root(c, d, folders[i].path, &files, &k, err);
		for (size_t j = 0; rc == VS_OK && j < k; j++)
			if (!files[j].is_folder && add(l, d, folders[i].path, &files[j]) != VS_OK)
				rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
		vs_files_free(&files, k);
	}
	vs_files_free(&folders, n);
	return rc;
}

void na_leftovers_print(const na_leftovers *l)
{
	if (!l->n)
		return;
	printf("Left on the targets by failed moves (not deleted; check them, then delete them by hand):\n");
	for (size_t i = 0; i < l->n; i++) {
		char *shown = na_escaped(l->paths[i]);  /* file names come from the datastore */
		printf("  %s\n", shown ? shown : "?");
		free(shown);
	}
}

void na_leftovers_free(na_leftovers *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->paths[i]);
	free(l->paths);
	*l = (na_leftovers){0};
}
