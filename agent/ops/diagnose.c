/* Why did a Storage vMotion fail?  Evidence from the task's fault (its
 * faultMessage and faultCause texts too), the lines the VM's newest
 * vmware.log got since the task started (source folder and the target
 * folder this attempt used) and the descriptors left in that folder, then
 * one verdict: the NFS 4.1 extent-size mismatch, or the real other cause. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ops/diagnose.h"
#include "ops/extents.h"
#include "output.h"

enum { LOG_TAIL = 256 * 1024, MAX_LOG_LINES = 4 };

/* What ESXi writes when it reads back a flat file smaller than declared;
 * the first three say so, the last (disklib's NOTVMDK) follows them but
 * also comes with any broken disk: quoted, never evidence alone. */
static const char *const signatures[] = {
	"Size of extent in descriptor file larger than real size",
	"possible extent truncation",
	"realSize is 0",
	"The file specified is not a virtual disk",
};
enum { TELLING_SIGNATURES = 3 };

static void add_evidence(na_diagnosis *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_evidence(na_diagnosis *d, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	char **grown = realloc(d->evidence, (d->n_evidence + 1) * sizeof(char *));
	if (!grown)
		return;
	d->evidence = grown;
	if ((grown[d->n_evidence] = strdup(line)))
		d->n_evidence++;
}

/* 2: one of the bug's own signatures, 1: the generic one, 0: none. */
static int signature_in(const char *line)
{
	for (size_t i = 0; i < sizeof(signatures) / sizeof(*signatures); i++)
		if (strstr(line, signatures[i]))
			return i < TELLING_SIGNATURES ? 2 : 1;
	return 0;
}

/* vmware.log is the running log; vmware-N.log are older ones. */
static const char *newest_log(const vs_file *files, size_t n)
{
	const char *best = NULL;
	for (size_t i = 0; i < n; i++) {
		const char *p = files[i].path;
		if (strncmp(p, "vmware", 6) != 0 || strlen(p) < 10 || strcmp(p + strlen(p) - 4, ".log") != 0)
			continue;
		if (strcmp(p, "vmware.log") == 0)
			return p;
		if (!best || strcmp(p, best) > 0)
			best = p;
	}
	return best;
}

/* Files of "[ds] dir" matching pattern; none when the folder is not there. */
static vs_file *list_folder(vs_client *c, const na_inventory *inv, const char *folder,
                            const char *pattern, size_t *n)
{
	char *ds = NULL, *path = NULL;
	vs_error err = {0};
	vs_file *files = NULL;
	vs_datastore *store = NULL;
	*n = 0;
	if (vs_dspath_split(folder, &ds, &path, &err) == VS_OK && (store = na_find_datastore(inv, ds, &err)))
		vs_datastore_list(c, store->browser, folder, pattern, &files, n, &err);
	free(ds);
	free(path);
	return files;
}

size_t na_log_since(const char *text, size_t len, int64_t since_ms)
{
	if (since_ms <= 0)
		return 0;
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len;
		char stamp[40];
		size_t n = end - at < sizeof(stamp) - 1 ? end - at : sizeof(stamp) - 1;
		memcpy(stamp, text + at, n);
		stamp[n] = '\0';
		/* The log is in time order: the first new line starts the rest. */
		int64_t t = vs_time_parse(stamp, NULL);
		if (t >= since_ms)
			return at;
		at = end + 1;
	}
	return len;
}

/* The signature lines of the folder's newest log written since the task
 * started: an earlier attempt's lines are no evidence about this one. */
static void scan_log(vs_client *c, const na_inventory *inv, const char *folder, int64_t since_ms,
                     na_diagnosis *d)
{
	vs_error err = {0};
	size_t n_files = 0;
	vs_file *files = list_folder(c, inv, folder, "vmware*.log", &n_files);
	const char *log = newest_log(files, n_files);
	char *dspath = log ? na_dspath_child(folder, log) : NULL;
	char *text = NULL, *newest[MAX_LOG_LINES] = {0};
	size_t len = 0, n = 0;
	bool telling = false;
	if (dspath && vs_datastore_download_tail(c, dspath, LOG_TAIL, &text, &len, &err) == VS_OK) {
		char *save = NULL;
		/* Keep the last matches: the newest lines when there are many. */
		for (char *line = strtok_r(text + na_log_since(text, len, since_ms), "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			if (signature_in(line)) {
				telling |= signature_in(line) == 2;
				newest[n++ % MAX_LOG_LINES] = line;
			}
	}
	d->log_signature = d->log_signature || telling;
	for (size_t i = n > MAX_LOG_LINES ? n - MAX_LOG_LINES : 0; i < n; i++)
		add_evidence(d, "%s: %s", dspath, newest[i % MAX_LOG_LINES]);
	free(text);
	free(dspath);
	vs_files_free(&files, n_files);
}

static bool is_descriptor(const char *name)
{
	static const char *const data_suffixes[] = {"-flat.vmdk", "-delta.vmdk", "-sesparse.vmdk",
	                                             "-ctk.vmdk", "-rdm.vmdk", "-rdmp.vmdk"};
	size_t n = strlen(name);
	if (n < 5 || strcmp(name + n - 5, ".vmdk") != 0)
		return false;
	for (size_t i = 0; i < sizeof(data_suffixes) / sizeof(*data_suffixes); i++) {
		size_t k = strlen(data_suffixes[i]);
		if (n > k && strcmp(name + n - k, data_suffixes[i]) == 0)
			return false;
	}
	return true;
}

/* Descriptors a failed move left in the target folder, checked like verify
 * through the VM's host (the host whose view failed the move). */
static void check_target(vs_client *c, const na_inventory *inv, const char *host,
                         const char *folder, na_diagnosis *d)
{
	vs_error err = {0};
	size_t n = 0;
	vs_file *files = list_folder(c, inv, folder, "*.vmdk", &n);
	na_checks checks = {0};
	for (size_t i = 0; i < n; i++) {
		char *desc = is_descriptor(files[i].path) ? na_dspath_child(folder, files[i].path) : NULL;
		if (desc)
			na_check_descriptor(c, desc, NULL, &checks, &err);
		free(desc);
	}
	na_viewpoint at = {inv, host, 0};
	const char *host_name = na_host_name(inv, host);
	if (na_checks_measure(c, &at, &checks, &err) == VS_OK)
		na_checks_confirm(c, &at, &checks, &err);
	for (size_t i = 0; i < checks.n; i++) {
		const na_extent_check *k = &checks.v[i];
		if (k->state != NA_EXTENT_SHORT)
			continue;
		d->target_mismatch = true;
		d->extent_case = na_extent_case(k);
		if (k->right_on)
			add_evidence(d, "target: %s reads as %lld bytes through host %s but whole through %s; "
			             "%s declares %lld bytes", k->extent, (long long)k->seen, host_name,
			             k->right_on, k->descriptor, (long long)k->declared);
		else
			add_evidence(d, "target: %s reads as %lld bytes through every host that mounts it; "
			             "%s declares %lld bytes", k->extent, (long long)k->seen, k->descriptor,
			             (long long)k->declared);
	}
	na_checks_free(&checks);
	vs_files_free(&files, n);
}

bool na_attempt_name(const char *folder, const char *name)
{
	size_t n = strlen(folder);
	if (strncmp(name, folder, n) != 0)
		return false;
	if (!name[n])
		return true;
	if (name[n] != '_' || !name[n + 1])
		return false;
	for (const char *p = name + n + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

static bool listed(const char *name, char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

const char *na_attempt_folder(const char *folder, char *const *before, size_t n_before,
                              char *const *after, size_t n_after)
{
	if (!before)
		return NULL;  /* not listed before the move: any of them may be its */
	for (size_t i = 0; i < n_after; i++)
		if (na_attempt_name(folder, after[i]) && !listed(after[i], before, n_before))
			return after[i];
	/* No new folder: this attempt's is the VM's own name, unless that one
	 * was there before, when it may hold an earlier attempt's files. */
	return listed(folder, before, n_before) ? NULL : folder;
}

/* The names of folder among a listing of the target's root (folders only). */
static char **folder_names(const char *folder, const vs_file *files, size_t n_files, size_t *n)
{
	*n = 0;
	char **names = calloc(n_files + 1, sizeof(char *));
	for (size_t i = 0; names && i < n_files; i++)
		if (files[i].is_folder && na_attempt_name(folder, files[i].path) &&
		    (names[*n] = strdup(files[i].path)))
			(*n)++;
	return names;
}

/* The names of folder on the target now (folders only). */
static char **attempt_names(vs_client *c, const na_inventory *inv, const vs_datastore *target,
                            const char *folder, size_t *n)
{
	char *root = vs_dspath_join(target->name, NULL);
	size_t n_files = 0;
	vs_file *files = root ? list_folder(c, inv, root, "*", &n_files) : NULL;
	char **names = folder_names(folder, files, n_files, n);
	vs_files_free(&files, n_files);
	free(root);
	return names;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

/* "[ds] dir/vm.vmx" -> "dir" */
static char *vm_folder(const vs_vm *vm)
{
	char *ds = NULL, *path = NULL;
	vs_error err = {0};
	if (!vm->vmx_path || vs_dspath_split(vm->vmx_path, &ds, &path, &err) != VS_OK)
		return NULL;
	char *slash = strrchr(path, '/');
	if (slash)
		*slash = '\0';
	free(ds);
	return path;
}

void na_attempt_begin(vs_client *c, const na_inventory *inv, const vs_vm *vm,
                      const vs_datastore *target, na_attempt *a)
{
	*a = (na_attempt){0};
	if ((a->folder = vm_folder(vm)))
		a->before = attempt_names(c, inv, target, a->folder, &a->n_before);
}

void na_attempt_from(const vs_vm *vm, const vs_file *root, size_t n_root, na_attempt *a)
{
	*a = (na_attempt){0};
	if ((a->folder = vm_folder(vm)))
		a->before = folder_names(a->folder, root, n_root, &a->n_before);
}

void na_attempt_free(na_attempt *a)
{
	free_names(a->before, a->n_before);
	free(a->folder);
	*a = (na_attempt){0};
}

void na_diagnose_fault(const vs_error *task_err, na_diagnosis *d)
{
	d->fault_signature = signature_in(task_err->message) == 2;
	for (const char *p = task_err->details; *p;) {
		size_t n = strcspn(p, "\n");
		char line[sizeof(task_err->details)];
		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		add_evidence(d, "task %s", line);
		d->fault_signature = d->fault_signature || signature_in(line) == 2;
		p += n + (p[n] == '\n');
	}
}

void na_diagnose_move(vs_client *c, const na_inventory *inv, const vs_vm *vm, const char *log_dir,
                      const vs_datastore *target, const na_attempt *attempt,
                      const vs_error *task_err, na_diagnosis *d)
{
	*d = (na_diagnosis){0};
	add_evidence(d, "task: %s%s%s", task_err->fault[0] ? task_err->fault : "error",
	             task_err->message[0] ? ": " : "", task_err->message);
	na_diagnose_fault(task_err, d);
	size_t n_after = 0;
	char **after = attempt->folder ? attempt_names(c, inv, target, attempt->folder, &n_after) : NULL;
	const char *used = attempt->folder ? na_attempt_folder(attempt->folder, attempt->before,
	                                                       attempt->n_before, after, n_after)
	                                   : NULL;
	char *target_folder = used ? vs_dspath_join(target->name, used) : NULL;
	if (log_dir)
		scan_log(c, inv, log_dir, task_err->task_started_ms, d);
	if (target_folder) {
		scan_log(c, inv, target_folder, task_err->task_started_ms, d);
		check_target(c, inv, vm->host, target_folder, d);
	}
	d->extent_bug = d->log_signature || d->target_mismatch || d->fault_signature;
	na_diagnosis_verdict(inv, vm->host, target, task_err, d);
	free_names(after, n_after);
	free(target_folder);
}

void na_diagnosis_verdict(const na_inventory *inv, const char *host_moref, const vs_datastore *ds,
                          const vs_error *task_err, na_diagnosis *d)
{
	const vs_host *h = na_host_by_moref(inv, host_moref);
	char line[1536];  /* room for a whole vs_error message */
	if (d->extent_bug)
		snprintf(line, sizeof(line), "%s extent-size mismatch on datastore %s (host %s, ESXi %s build %s)",
		         na_nfs_label(ds->type), ds->name, h ? h->name : "?", h && h->version ? h->version : "?",
		         h && h->build ? h->build : "?");
	else
		snprintf(line, sizeof(line), "Storage vMotion to %s failed, not the extent-size bug: %s%s%s",
		         ds->name, task_err->fault, task_err->fault[0] && task_err->message[0] ? ": " : "",
		         task_err->message);
	free(d->verdict);
	d->verdict = strdup(line);
}

void na_diagnosis_free(na_diagnosis *d)
{
	free(d->verdict);
	for (size_t i = 0; i < d->n_evidence; i++)
		free(d->evidence[i]);
	free(d->evidence);
	*d = (na_diagnosis){0};
}

json_t *na_diagnosis_json(const na_diagnosis *d)
{
	json_t *ev = json_array();
	for (size_t i = 0; i < d->n_evidence; i++)
		json_array_append_new(ev, json_string(d->evidence[i]));
	return json_pack("{s:s, s:b, s:o}", "verdict", d->verdict ? d->verdict : "", "extent_bug",
	                 d->extent_bug, "evidence", ev);
}
