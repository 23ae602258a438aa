/* The probe workflow (ops/probe.h): canaries of varied sizes in a scratch
 * folder, each one's extent checked against its descriptor through every
 * host that mounts the datastore, a verdict, and the canaries removed on
 * every path. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ops/findings.h"
#include "ops/probe.h"
#include "interrupts.h"

enum { MIB = 1024 * 1024 };

/* Sizes from size/N up to size, whole MiB: the bug does not care for one size. */
static int64_t canary_kb(const na_probe_args *a, long i)
{
	int64_t bytes = a->size * (i + 1) / a->disks;
	bytes = bytes < MIB ? MIB : bytes / MIB * MIB;
	return bytes / 1024;
}

typedef struct probe_run {
	char *folder;  /* "[ds] nfsagent-probe-..." */
	char **disks;  /* created, to delete */
	size_t n_disks;
} probe_run;

/* Each canary is read right after its creation (through every host that
 * mounts the datastore: which one creates it is vCenter's choice), the
 * short ones once more at the end. */
static int create_and_check(na_session *s, const na_probe_args *a, probe_run *r, na_checks *checks,
                            vs_error *err)
{
	vs_client *c = s->client;
	na_viewpoint at = {s->inv, NULL, a->recheck_s};
	int rc = vs_datastore_mkdir(c, r->folder, err);
	r->disks = calloc((size_t)a->disks, sizeof(char *));
	for (long i = 0; rc == VS_OK && r->disks && i < a->disks && !na_stop_requested; i++) {
		char name[64];
		snprintf(name, sizeof(name), "canary-%02ld.vmdk", i + 1);
		char *disk = na_dspath_child(r->folder, name);
		rc = disk ? vs_vdisk_create(c, disk, canary_kb(a, i), err) : VS_ERR_NOMEM;
		/* The name is ours, in our own new folder: there already means our
		 * own first go made it before its reply was lost. */
		if (rc != VS_OK && !strcmp(err->fault, "FileAlreadyExists"))
			rc = VS_OK;
		if (rc == VS_OK)
			r->disks[r->n_disks++] = disk;
		else
			free(disk);
		if (rc == VS_OK)
			rc = na_check_descriptor(c, disk, NULL, checks, err);
		if (rc == VS_OK)
			rc = na_checks_measure(c, &at, checks, err);
	}
	if (rc == VS_OK)
		rc = na_checks_confirm(c, &at, checks, err);
	return rc;
}

static void delete_disks(na_session *s, const probe_run *r)
{
	char line[1600];
	for (size_t i = 0; i < r->n_disks; i++) {
		vs_error err = {0};
		if (vs_vdisk_delete(s->client, r->disks[i], &err) != VS_OK) {
			vs_error_format(&err, line, sizeof(line));
			na_say_warning(s, "%s", line);
		}
	}
}

/* Runs on every path: a probe must not leave canaries behind.  The folder
 * goes with its canaries in one task (a folder's delete is recursive);
 * only if that fails are the disks deleted one by one, and the folder then. */
static void clean_up(na_session *s, probe_run *r)
{
	vs_error err = {0};
	if (vs_datastore_delete(s->client, r->folder, &err) != VS_OK) {
		delete_disks(s, r);
		err = (vs_error){0};
		if (vs_datastore_delete(s->client, r->folder, &err) != VS_OK)
			na_say_warning(s, "could not remove %s; delete it by hand", r->folder);
	}
	for (size_t i = 0; i < r->n_disks; i++)
		free(r->disks[i]);
	free(r->disks);
	free(r->folder);
}

/* Whether a ", "-separated list names the host. */
static bool lists(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p && (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* What the hosts that mount the datastore read of the canaries. */
typedef struct readers {
	char short_on[1024];  /* read some canary short */
	char right_on[1024];  /* read every canary they could read whole */
	size_t unread;        /* read none of them */
	const vs_host *first_short;
} readers;

static void add_to(char *list, size_t size, const char *name)
{
	size_t len = strlen(list);
	snprintf(list + len, size - len, "%s%s", len ? ", " : "", name);
}

static void sort_readers(const na_inventory *inv, const vs_datastore *d, const na_checks *checks,
                         readers *out)
{
	*out = (readers){0};
	for (size_t i = 0; i < d->n_mounts; i++) {
		const char *name = na_host_name(inv, d->mounts[i].host);
		bool read_short = false, read_whole = false;
		for (size_t j = 0; j < checks->n; j++) {
			read_short |= lists(checks->v[j].short_on, name);
			read_whole |= lists(checks->v[j].right_on, name);
		}
		if (read_short && !out->first_short)
			out->first_short = na_host_by_moref(inv, d->mounts[i].host);
		if (read_short)
			add_to(out->short_on, sizeof(out->short_on), name);
		else if (read_whole)
			add_to(out->right_on, sizeof(out->right_on), name);
		else
			out->unread++;
	}
}

/* How many canaries are of that case. */
static size_t of_case(const na_checks *checks, const char *kind)
{
	size_t n = 0;
	for (size_t i = 0; i < checks->n; i++) {
		const char *c = na_extent_case(&checks->v[i]);
		n += c && !strcmp(c, kind);
	}
	return n;
}

/* The probe's case, in order of weight: one host's view, the files' own
 * shortness, a short read no second host could check, a race that healed. */
static const char *probe_case(const na_checks *checks)
{
	static const char *const order[] = {"host", "export", "unconfirmed", "transient"};
	for (size_t i = 0; i < sizeof(order) / sizeof(*order); i++)
		if (of_case(checks, order[i]))
			return order[i];
	return NULL;
}

/* The verdict line: which case, through which hosts.  h is the host that
 * read short (its ESXi build is the one with the bug), else --host. */
static void verdict_line(const na_probe_args *a, const na_probe_result *r, const readers *who,
                         char *out, size_t size)
{
	const vs_host *h = r->host;
	const vs_datastore *d = r->datastore;
	na_tally t = r->tally;
	const char *kind = r->extent_case;
	char head[512], right[1100] = "each whole on the other hosts";
	snprintf(head, sizeof(head), "%s extent-size mismatch on datastore %s (host %s, ESXi %s build %s)",
	         na_nfs_label(d->type), d->name, h->name, h->version, h->build);
	if (*who->right_on)
		snprintf(right, sizeof(right), "right on %s %s", na_hosts_word(who->right_on), who->right_on);
	const char *short_word = na_hosts_word(who->short_on);
	if (kind && !strcmp(kind, "host"))
		snprintf(out, size, "%s: %zu of %zu canary disks read short by %s %s, %s: ESXi's NFS 4.1 "
		         "view of the files, not the files", head, t.short_, r->disks, short_word,
		         who->short_on, right);
	else if (kind && !strcmp(kind, "export"))
		snprintf(out, size, "%s: %zu of %zu canary disks read short by every host that could read "
		         "them (%s): the files on the export are short", head, t.short_, r->disks,
		         who->short_on);
	else if (kind && !strcmp(kind, "unconfirmed"))
		snprintf(out, size, "%s: %zu of %zu canary disks read short by %s %s; no other host could "
		         "read them, so whether the files themselves are short stays open", head, t.short_,
		         r->disks, short_word, who->short_on);
	else if (kind)
		snprintf(out, size, "%s: %zu of %zu canary disks read short by %s %s at first, whole "
		         "%d s later: transient (a Storage vMotion in that window fails)", head, t.transient,
		         r->disks, short_word, who->short_on, a->recheck_s);
	else if (t.unknown || t.problems)
		snprintf(out, size, "could not check datastore %s (%s, host %s): %zu of %zu canary disks "
		         "could not be read through any host", d->name, na_nfs_label(d->type), h->name,
		         t.unknown + t.problems, r->disks);
	else
		snprintf(out, size, "clean: %zu of %ld canary disks on datastore %s (%s, host %s, ESXi %s "
		         "build %s) hold what their descriptors declare on %zu of the %zu hosts that mount "
		         "it%s", r->disks, a->disks, d->name, na_nfs_label(d->type), h->name, h->version,
		         h->build, d->n_mounts - who->unread, d->n_mounts,
		         who->unread ? " (the others could not read them)" : "");
}

static void record(na_session *s, const na_probe_args *a, const na_probe_result *out)
{
	char count[128];
	snprintf(count, sizeof(count), "%zu of %zu canary disks short, %zu transient, %zu unreadable",
	         out->tally.short_, out->disks, out->tally.transient, out->tally.unknown);
	char *evidence[1] = {count};
	na_finding_source src = {"probe", a->campaign, a->target, out->host, out->datastore, NULL};
	vs_error err = {0};
	if (na_record_finding(s->store, a->db, &src, out->tally.short_ + out->tally.transient > 0,
	                      out->extent_case, out->verdict, evidence, 1, &err) != VS_OK) {
		char line[1600];
		vs_error_format(&err, line, sizeof(line));
		na_say_warning(s, "the verdict was not recorded: %s", line);
	}
}

/* The verdict from the checks, recorded when there is one. */
static void judge(na_session *s, const na_probe_args *a, const probe_run *r, na_probe_result *out)
{
	readers who;
	sort_readers(s->inv, out->datastore, &out->checks, &who);
	if (who.first_short)
		out->host = who.first_short;
	out->disks = r->n_disks;
	out->tally = na_checks_tally(&out->checks);
	out->extent_case = probe_case(&out->checks);
	verdict_line(a, out, &who, out->verdict, sizeof(out->verdict));
	size_t bad = out->tally.short_ + out->tally.transient;
	out->verdict_made = bad || (!out->tally.unknown && !out->tally.problems);
	if (out->verdict_made)
		record(s, a, out);
}

int na_op_probe(na_session *s, const na_probe_args *a, na_probe_result *out, vs_error *err)
{
	*out = (na_probe_result){0};
	int rc = na_session_fresh(s, err);
	vs_host *h = rc == VS_OK ? na_find_host(s->inv, a->host, err) : NULL;
	vs_datastore *d = h ? na_find_datastore(s->inv, a->datastore, err) : NULL;
	if (rc == VS_OK && (!h || !d))
		return VS_ERR_NOT_FOUND;
	if (rc == VS_OK && !na_mounted_on(d, h->moref))
		rc = vs_fail(err, VS_ERR_USAGE, "datastore '%s' is not mounted on host '%s'", d->name, h->name);
	if (rc != VS_OK)
		return rc;
	out->host = h;
	out->datastore = d;
	probe_run r = {0};
	char folder[128];
	snprintf(folder, sizeof(folder), "nfsagent-probe-%ld-%d", (long)time(NULL), (int)getpid());
	r.folder = vs_dspath_join(d->name, folder);
	na_interrupts saved;
	na_interrupts_catch(&saved);
	rc = r.folder ? create_and_check(s, a, &r, &out->checks, err)
	              : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	if (rc == VS_OK && na_stop_requested)
		rc = vs_fail(err, VS_ERR_TASK, "interrupted after %zu canary disks", r.n_disks);
	if (rc == VS_OK)
		judge(s, a, &r, out);
	clean_up(s, &r);
	na_interrupts_release(&saved);
	return rc;
}

na_verdict na_probe_verdict(const na_probe_result *r)
{
	return r->tally.short_ + r->tally.transient ? NA_VERDICT_FINDING
	       : r->tally.problems                  ? NA_VERDICT_PROBLEM
	       : r->tally.unknown                   ? NA_VERDICT_UNCHECKED
	                                            : NA_VERDICT_CLEAN;
}

void na_probe_result_free(na_probe_result *r)
{
	na_checks_free(&r->checks);
}
