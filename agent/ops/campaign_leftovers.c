/* A campaign's leftovers on its targets: probe folders of a killed run,
 * copies of failed moves. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ops/campaign_leftovers.h"
#include "analysis/stats.h"
#include "ops/diagnose.h"
#include "ops/extents.h"

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

int na_probe_folders_remove(const na_session *s, const vs_datastore *d, long pid, size_t *removed,
                            vs_error *err)
{
	vs_client *c = s->client;
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
			na_say(s, "Removed %s, left by a probe that was stopped.", path);
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

/* "[ds] folder/name, size (server:/export/folder/name)" */
static int add(na_leftovers *l, const vs_datastore *d, const char *folder, const char *name,
               const char *size)
{
	char line[2048];
	if (d->remote_path)
		snprintf(line, sizeof(line), "[%s] %s/%s, %s (%s:%s/%s/%s)", d->name, folder, name, size,
		         d->remote_host ? d->remote_host : "", d->remote_path, folder, name);
	else
		snprintf(line, sizeof(line), "[%s] %s/%s, %s", d->name, folder, name, size);
	return add_line(l, line);
}

static int add_file(na_leftovers *l, const vs_datastore *d, const char *folder, const vs_file *file)
{
	char size[32] = "size unknown";
	if (file->size >= 0)
		na_size(file->size, size, sizeof(size));
	return add(l, d, folder, file->path, size);
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

static bool in_listing(const vs_file *files, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(files[i].path, name) == 0)
			return true;
	return false;
}

/* An extent's length as the hosts that mount d read it: the longest (the
 * copy holds at least that much), and the shortest beside it where a host
 * reads less (the NFS 4.1 extent-size bug's view). */
static void extent_size(vs_client *c, const vs_datastore *d, const char *extent, char *out,
                        size_t size)
{
	int64_t longest = -1, shortest = -1;
	const char **hosts = calloc(d->n_mounts + 1, sizeof(char *));
	size_t n = 0;
	for (size_t i = 0; hosts && i < d->n_mounts; i++)
		if (d->mounts[i].mounted)
			hosts[n++] = d->mounts[i].host;
	vs_hosts_prepare(c, hosts, n);  /* how to reach them all, read in one call */
	for (size_t i = 0; i < n; i++) {
		int64_t seen = -1;
		vs_error ignored = {0};
		if (vs_datastore_file_length(c, hosts[i], extent, &seen, &ignored) != VS_OK)
			continue;
		longest = seen > longest ? seen : longest;
		shortest = shortest < 0 || seen < shortest ? seen : shortest;
	}
	free(hosts);
	char most[32], least[32];
	if (longest < 0)
		snprintf(out, size, "size unknown");
	else if (shortest == longest)
		snprintf(out, size, "%s", na_size(longest, most, sizeof(most)));
	else
		snprintf(out, size, "%s (a host reads %s)", na_size(longest, most, sizeof(most)),
		         na_size(shortest, least, sizeof(least)));
}

/* The extents a descriptor among files names, each with its length: hostd
 * lists a disk by its descriptor alone (525 bytes), while the copy's bulk
 * is its flat file.  An unreadable descriptor or length adds nothing, or
 * "size unknown"; only running out of memory is an error. */
static int add_extents(vs_client *c, na_leftovers *l, const vs_datastore *d, const char *folder,
                       const vs_file *files, size_t n, const vs_file *descriptor)
{
	size_t len = strlen(descriptor->path);
	if (descriptor->is_folder || len < 5 || strcmp(descriptor->path + len - 5, ".vmdk") != 0)
		return VS_OK;
	char *dir = vs_dspath_join(d->name, folder), *path = dir ? na_dspath_child(dir, descriptor->path) : NULL;
	na_checks extents = {0};
	vs_error why = {0};  /* an unreadable descriptor lists no extents */
	int rc = !path ? VS_ERR_NOMEM : na_check_descriptor(c, path, NULL, &extents, &why);
	rc = rc == VS_ERR_NOMEM ? rc : VS_OK;
	for (size_t i = 0; rc == VS_OK && i < extents.n; i++) {
		const char *extent = extents.v[i].extent, *name = extent ? strrchr(extent, '/') : NULL;
		if (!name || in_listing(files, n, name + 1))
			continue;
		char size[96];
		extent_size(c, d, extent, size, sizeof(size));
		rc = add(l, d, folder, name + 1, size);
	}
	na_checks_free(&extents);
	free(path);
	free(dir);
	return rc;
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
			if (!files[j].is_folder &&
			    (add_file(l, d, folders[i].path, &files[j]) != VS_OK ||
			     add_extents(c, l, d, folders[i].path, files, k, &files[j]) != VS_OK))
				rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
		vs_files_free(&files, k);
	}
	vs_files_free(&folders, n);
	return rc;
}

void na_leftovers_say(const na_session *s, const na_leftovers *l)
{
	if (!l->n)
		return;
	na_say(s, "Left on the targets by failed moves (not deleted; check them, then delete them by hand):");
	for (size_t i = 0; i < l->n; i++)
		na_say(s, "  %s", l->paths[i]);  /* the sink escapes and wraps it under its indent */
}

void na_leftovers_free(na_leftovers *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->paths[i]);
	free(l->paths);
	*l = (na_leftovers){0};
}
