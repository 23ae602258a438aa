/* What a job run on the NAS itself needs checked first (nas.h, "local.c"):
 * the path it writes in, as one word of a remote shell line, and the room
 * the dataset has left. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nfsagent/nas.h"

bool nas_path_ok(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	if (n < 2 || n > NAS_PATH_MAX || path[0] != '/' || path[n - 1] == '/')
		return false;
	/* the characters ZFS names take, and '/': nothing a shell, a glob or
	 * fio's option syntax (':' separates its files) gives a meaning */
	if (strspn(path, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-/") != n)
		return false;
	if (strstr(path, "//") || strstr(path, "/./") || strstr(path, "/../"))
		return false;
	const char *last = strrchr(path, '/');
	return strcmp(last, "/.") != 0 && strcmp(last, "/..") != 0 && path[1] != '-';
}

int nas_available(const nas_target *t, const char *dataset, int64_t *bytes, vs_error *err)
{
	*bytes = -1;
	if (!nas_name_ok(dataset, false))
		return vs_fail(err, VS_ERR_USAGE, "'%s' is not a dataset name nfsagent passes to the NAS",
		               dataset);
	const char *const get[] = {"zfs", "get", "-Hp", "-o", "value", "available", dataset, NULL};
	nas_call c = {.remote = get};
	int rc = nas_run_all(t, &c, 1);
	if (rc != VS_OK) {
		*err = c.err;
		nas_output_free(&c.out);
		return rc;
	}
	char *end = NULL;
	errno = 0;
	long long v = strtoll(c.out.out, &end, 10);
	bool ok = end != c.out.out && errno == 0 && v >= 0 && (*end == '\n' || *end == '\0');
	nas_output_free(&c.out);
	if (!ok)
		return vs_fail(err, VS_ERR_PROTOCOL, "zfs get available %s on NAS %s printed no number",
		               dataset, t->display);
	*bytes = v;
	return VS_OK;
}
