/* The check at the heart of the NFS 4.1 bug: does each extent file hold at
 * least the bytes its descriptor declares, as the ESXi host under test sees
 * it?  The bug lives in one host's NFS 4.1 client: the NAS has the file at
 * its full length while the host that wrote it reads it short.  So the only
 * evidence is the length read through that host (vs_datastore_file_length);
 * what the browser and layoutEx report for a thin disk is the space it has
 * taken, shown for information and never compared.  A short extent is read
 * again after a delay (a transient race heals) and from the other hosts that
 * mount the datastore (short everywhere: the file itself is short). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops/extents.h"
#include "interrupts.h"
#include "output.h"
#include "analysis/stats.h"

enum { MAX_DESCRIPTOR = 64 * 1024 };

/* "[ds] dir/x.vmdk" -> "[ds] dir" (the folder). */
static char *folder_of(const char *dspath)
{
	const char *slash = strrchr(dspath, '/');
	const char *close = strchr(dspath, ']');
	if (!slash || (close && slash < close))
		return strndup(dspath, close ? (size_t)(close - dspath + 1) : 0);
	return strndup(dspath, (size_t)(slash - dspath));
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

static int64_t layout_size(const vs_vm_layout *layout, const char *dspath)
{
	for (size_t i = 0; layout && dspath && i < layout->n_files; i++)
		if (layout->files[i].name && strcmp(layout->files[i].name, dspath) == 0)
			return layout->files[i].size;
	return -1;
}

static int add_check(na_checks *out, na_extent_check check, vs_error *err)
{
	na_extent_check *grown = realloc(out->v, (out->n + 1) * sizeof(*grown));
	if (!grown) {
		free(check.descriptor);
		free(check.extent);
		free(check.why);
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	out->v = grown;
	out->v[out->n++] = check;
	return VS_OK;
}

/* Errors that make checking impossible, as opposed to one file that could
 * not be read. */
static bool fatal(int rc)
{
	return rc == VS_ERR_NOMEM || rc == VS_ERR_AUTH;
}

int na_check_descriptor(vs_client *c, const char *dspath, const vs_vm_layout *layout,
                        na_checks *out, vs_error *err)
{
	char *data = NULL;
	size_t len = 0;
	vs_vmdk *vmdk = NULL;
	vs_error why = {0};
	int rc = vs_datastore_download(c, dspath, MAX_DESCRIPTOR, &data, &len, &why);
	if (rc == VS_OK)
		rc = vs_vmdk_parse(data, len, &vmdk, &why);
	if (fatal(rc) || rc == VS_ERR_CONNECT || rc == VS_ERR_TLS) {
		*err = why;  /* the check could not run at all */
	} else if (rc != VS_OK) {
		char line[1600];
		vs_error_format(&why, line, sizeof(line));
		rc = add_check(out, (na_extent_check){.descriptor = strdup(dspath), .why = strdup(line),
		                                      .state = NA_EXTENT_PROBLEM, .declared = -1,
		                                      .seen = -1, .allocated = -1}, err);
	}
	char *dir = folder_of(dspath);
	if (rc == VS_OK && vmdk && !dir)
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; rc == VS_OK && vmdk && i < vmdk->n_extents; i++) {
		const vs_vmdk_extent *e = &vmdk->extents[i];
		if (!e->file)
			continue;
		na_extent_check k = {.descriptor = strdup(dspath), .extent = na_dspath_child(dir, e->file),
		                     .declared = vs_vmdk_extent_min_bytes(e), .seen = -1};
		k.allocated = layout_size(layout, k.extent);
		k.state = k.declared < 0 ? NA_EXTENT_GROWS : NA_EXTENT_UNKNOWN;
		if (k.descriptor && k.extent) {
			rc = add_check(out, k, err);
		} else {
			free(k.descriptor);
			free(k.extent);
			rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
		}
	}
	vs_vmdk_free(&vmdk);
	free(data);
	free(dir);
	return rc;
}

/* ---- reading lengths through hosts ------------------------------------------ */

enum { MAX_VIEWERS = 64 };

typedef struct host_list {
	const char *morefs[MAX_VIEWERS];
	size_t n, n_test;  /* the first n_test are under test, the rest cross-check */
} host_list;

/* The hosts to read an extent through: the host under test first, then the
 * others that mount its datastore; without a host under test, all of them
 * are under test. */
static void viewers(const na_viewpoint *at, const char *extent, host_list *h)
{
	h->n = 0;
	if (at->host)
		h->morefs[h->n++] = at->host;
	char *ds = NULL, *path = NULL;
	vs_error ignored = {0};
	const vs_datastore *d = vs_dspath_split(extent, &ds, &path, &ignored) == VS_OK
	                            ? na_find_datastore(at->inv, ds, &ignored) : NULL;
	for (size_t i = 0; d && i < d->n_mounts && h->n < MAX_VIEWERS; i++) {
		const vs_ds_mount *m = &d->mounts[i];
		if (m->mounted && (!at->host || strcmp(m->host, at->host) != 0))
			h->morefs[h->n++] = m->host;
	}
	h->n_test = at->host ? 1 : h->n;
	free(ds);
	free(path);
}

const char *na_hosts_word(const char *list)
{
	return list && strchr(list, ',') ? "hosts" : "host";
}

bool na_list_add(char **list, const char *name)
{
	size_t n = *list ? strlen(*list) : 0, more = strlen(name) + 3;
	char *grown = realloc(*list, n + more);
	if (!grown)
		return false;
	snprintf(grown + n, more, "%s%s", n ? ", " : "", name);
	*list = grown;
	return true;
}

/* Reads the extent's length through one host and files the host under
 * short_on or right_on; *seen gets the length (-1: unreadable, why kept in
 * k->why).  Only a fatal error is returned. */
static int read_through(vs_client *c, const na_viewpoint *at, const char *host,
                        na_extent_check *k, int64_t *seen, vs_error *err)
{
	vs_error why = {0};
	int rc = vs_datastore_file_length(c, host, k->extent, seen, &why);
	if (rc == VS_ERR_NOT_FOUND) {  /* a host that finds no file at all sees it short */
		rc = VS_OK;
		*seen = 0;
		k->missing = true;
	}
	if (fatal(rc)) {
		*err = why;
		return rc;
	}
	if (rc == VS_OK) {
		na_list_add(*seen < k->declared ? &k->short_on : &k->right_on, na_host_name(at->inv, host));
	} else if (!k->why) {
		char line[1600];
		vs_error_format(&why, line, sizeof(line));
		k->why = strdup(line);
	}
	return VS_OK;
}

/* Reads through the hosts under test: short on any of them is short; the
 * length kept is the shortest seen. */
static int measure(vs_client *c, const na_viewpoint *at, na_extent_check *k, const host_list *h,
                   vs_error *err)
{
	bool any_known = false;
	k->seen = -1;
	for (size_t i = 0; i < h->n_test; i++) {
		int64_t seen = -1;
		int rc = read_through(c, at, h->morefs[i], k, &seen, err);
		if (rc != VS_OK)
			return rc;
		if (seen >= 0 && (k->seen < 0 || seen < k->seen))
			k->seen = seen;
		any_known |= seen >= 0;
	}
	k->state = k->short_on ? NA_EXTENT_SHORT : any_known ? NA_EXTENT_HOLDS : NA_EXTENT_UNKNOWN;
	return VS_OK;
}

int na_checks_measure(vs_client *c, const na_viewpoint *at, na_checks *checks, vs_error *err)
{
	int rc = VS_OK;
	for (size_t i = 0; rc == VS_OK && i < checks->n; i++) {
		na_extent_check *k = &checks->v[i];
		if (k->state != NA_EXTENT_UNKNOWN || k->measured)
			continue;
		host_list h;
		viewers(at, k->extent, &h);
		vs_hosts_prepare(c, h.morefs, h.n_test);  /* the hosts read first, in one call */
		rc = measure(c, at, k, &h, err);
		k->measured = true;
	}
	return rc;
}

/* A short extent again, through the same hosts: read whole now is a
 * transient race; still short, the other hosts say whose view it is.  A
 * re-read that fails proves nothing: the first reading stands. */
static int confirm(vs_client *c, const na_viewpoint *at, na_extent_check *k, vs_error *err)
{
	host_list h;
	viewers(at, k->extent, &h);
	na_extent_check first = *k;
	k->short_on = k->right_on = NULL;
	int rc = measure(c, at, k, &h, err);
	if (rc == VS_OK && k->state == NA_EXTENT_HOLDS) {
		k->transient = true;
		free(k->short_on);
		k->short_on = first.short_on;  /* who read it short before it healed */
		free(first.right_on);
		return VS_OK;
	}
	if (rc != VS_OK || k->state == NA_EXTENT_UNKNOWN) {
		free(k->short_on);
		free(k->right_on);
		k->short_on = first.short_on;
		k->right_on = first.right_on;
		k->seen = first.seen;
		k->state = NA_EXTENT_SHORT;
		return rc;
	}
	free(first.short_on);
	free(first.right_on);
	for (size_t i = h.n_test; rc == VS_OK && i < h.n; i++) {
		int64_t seen = -1;  /* the length that counts stays the one under test */
		rc = read_through(c, at, h.morefs[i], k, &seen, err);
	}
	return rc;
}

int na_checks_confirm(vs_client *c, const na_viewpoint *at, na_checks *checks, vs_error *err)
{
	bool any_short = false;
	for (size_t i = 0; i < checks->n; i++)
		any_short |= checks->v[i].state == NA_EXTENT_SHORT;
	/* Ctrl-C cuts the wait short, not the reading: a move that finished is
	 * still verified. */
	for (int i = 0; any_short && i < at->recheck_s * 10 && !na_stop_requested; i++)
		nanosleep(&(struct timespec){0, 100000000L}, NULL);
	int rc = VS_OK;
	for (size_t i = 0; rc == VS_OK && any_short && i < checks->n; i++)
		if (checks->v[i].state == NA_EXTENT_SHORT)
			rc = confirm(c, at, &checks->v[i], err);
	return rc;
}

/* ---- what was found ------------------------------------------------------------ */

na_tally na_checks_tally(const na_checks *checks)
{
	na_tally t = {0};
	for (size_t i = 0; i < checks->n; i++) {
		const na_extent_check *k = &checks->v[i];
		t.short_ += k->state == NA_EXTENT_SHORT;
		t.unknown += k->state == NA_EXTENT_UNKNOWN;
		t.problems += k->state == NA_EXTENT_PROBLEM;
		t.transient += k->transient;
		t.checked += k->state == NA_EXTENT_HOLDS || k->state == NA_EXTENT_SHORT;
	}
	return t;
}

/* Whose view a short extent is: "host" (some host read it whole: ESXi's
 * NFS 4.1 view of the file, the bug), "export" (two hosts or more read it
 * short and none whole: the file itself is short), "unconfirmed" (no
 * second host could read it), "transient" (healed when read again). */
const char *na_extent_case(const na_extent_check *k)
{
	if (k->transient)
		return "transient";
	if (k->state != NA_EXTENT_SHORT)
		return NULL;
	if (k->right_on)
		return "host";
	return k->short_on && strchr(k->short_on, ',') ? "export" : "unconfirmed";
}

void na_checks_free(na_checks *checks)
{
	for (size_t i = 0; i < checks->n; i++) {
		free(checks->v[i].descriptor);
		free(checks->v[i].extent);
		free(checks->v[i].why);
		free(checks->v[i].short_on);
		free(checks->v[i].right_on);
	}
	free(checks->v);
	*checks = (na_checks){0};
}

static const char *state_name(na_extent_state s)
{
	static const char *const names[] = {"unknown", "holds", "short", "grows", "problem"};
	return names[s];
}

/* ["a", "b"] for "a, b"; [] for none. */
static json_t *names_json(const char *list)
{
	json_t *a = json_array();
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, ",");
		json_array_append_new(a, json_stringn(p, n));
		p += n;
		p += strspn(p, ", ");
	}
	return a;
}

json_t *na_checks_json(const na_checks *checks)
{
	json_t *a = json_array();
	for (size_t i = 0; i < checks->n; i++) {
		const na_extent_check *k = &checks->v[i];
		json_array_append_new(
			a, json_pack("{s:s, s:s?, s:s, s:I, s:I, s:I, s:b, s:s?, s:o, s:o, s:s?}",
			             "descriptor", k->descriptor, "extent", k->extent, "state",
			             state_name(k->state), "declared_bytes", (json_int_t)k->declared,
			             "seen_bytes", (json_int_t)k->seen, "allocated_bytes",
			             (json_int_t)k->allocated, "mismatch", k->state == NA_EXTENT_SHORT, "case",
			             na_extent_case(k), "short_on", names_json(k->short_on), "right_on",
			             names_json(k->right_on),
			             "why", k->why));
	}
	return a;
}

/* ", thin: 2.1 GiB allocated" from layoutEx: information, not evidence. */
static void print_allocated(const na_extent_check *k, FILE *out)
{
	char size[32];
	if (k->allocated >= 0)
		fprintf(out, " (%s allocated)", na_size(k->allocated, size, sizeof(size)));
	fputc('\n', out);
}

static void print_short(const na_extent_check *k, FILE *out)
{
	fprintf(out, "  MISMATCH  %s: descriptor declares %lld bytes, %s %s %s %lld", k->extent,
	        (long long)k->declared, na_hosts_word(k->short_on), k->short_on,
	        k->missing ? "finds it missing:" : "reads", (long long)k->seen);
	const char *kind = na_extent_case(k);
	if (!strcmp(kind, "host"))
		fprintf(out, "; right on %s %s (ESXi's view of the file, not the file)",
		        na_hosts_word(k->right_on), k->right_on);
	else if (!strcmp(kind, "export"))
		fprintf(out, "; every host that read it sees it short (the file itself is short)");
	else
		fprintf(out, "; no other host could read it, so whose view this is stays open");
	print_allocated(k, out);
}

/* One check's line (a na_extent_check), as na_checks_print shows it unwrapped. */
static void print_check(FILE *out, const void *check)
{
	const na_extent_check *k = check;
	switch (k->state) {
	case NA_EXTENT_PROBLEM:
		fprintf(out, "  PROBLEM   %s: %s\n", k->descriptor, k->why);
		break;
	case NA_EXTENT_GROWS:
		fprintf(out, "  ok        %s (grows as needed)", k->extent);
		print_allocated(k, out);
		break;
	case NA_EXTENT_UNKNOWN:
		fprintf(out, "  UNKNOWN   %s: could not check: %s\n", k->extent,
		        k->why ? k->why : "no host to read it through");
		break;
	case NA_EXTENT_SHORT:
		print_short(k, out);
		break;
	case NA_EXTENT_HOLDS:
		fprintf(out, "  ok        %s: descriptor %lld bytes, read whole through %s %s",
		        k->extent, (long long)k->declared, na_hosts_word(k->right_on), k->right_on);
		if (k->transient)
			fprintf(out, "; read short at first by %s %s (transient)",
			        na_hosts_word(k->short_on), k->short_on);
		print_allocated(k, out);
		break;
	}
}

void na_checks_print(const na_checks *checks, FILE *out)
{
	/* each wrapped to the terminal, its rest under the text after the state */
	for (size_t i = 0; i < checks->n; i++)
		na_print_wrapped_by(out, print_check, &checks->v[i], 2, 12);
}
