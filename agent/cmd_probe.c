/* nfsagent probe: a canary for the NFS 4.1 extent-size bug that needs no VM.
 * Creates thin disks of varied sizes in a scratch folder, checks each one's
 * extent against its descriptor, and removes them all again, also after an
 * error or Ctrl-C. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "findings.h"

static const char usage[] =
	"Usage: nfsagent probe --host H --datastore DS [--disks 8] [--size 1G]\n"
	"                      [--recheck SECONDS] [OPTIONS]\n"
	"Creates canary virtual disks (thin, sizes up to --size) on DS, reads each flat\n"
	"file's length through every host that mounts DS (vCenter picks the host that\n"
	"creates them), and deletes them. A short one is read again after SECONDS\n"
	"(default 5). DS must be mounted on host H, whose ESXi version the verdict\n"
	"names. The verdict is recorded in the results database (--db FILE) for\n"
	"`nfsagent regress`. Exit 0 when clean, 3 when the extent-size mismatch\n"
	"showed, 8 when no length could be read.\n\n" NA_CONNECT_HELP;

enum { OPT_DATASTORE = NA_OPT_FIRST_COMMAND_OPTION, OPT_DISKS, OPT_SIZE, OPT_DB, OPT_RECHECK };
enum { MIB = 1024 * 1024 };

static int on_option(int opt, const char *arg, void *ud)
{
	na_probe_args *a = ud;
	switch (opt) {
	case NA_OPT_HOST: a->host = arg; return 1;
	case OPT_DATASTORE: a->datastore = arg; return 1;
	case OPT_DB: a->db = arg; return 1;
	case OPT_DISKS:
		if (!na_parse_long(arg, 1, NA_MAX_PROBE_DISKS, &a->disks))
			return -na_usage_error("probe", "--disks is a number from 1 to %d, not '%s'",
			                       NA_MAX_PROBE_DISKS, arg);
		return 1;
	case OPT_RECHECK:
		a->recheck_s = na_parse_recheck("probe", arg);
		return a->recheck_s < 0 ? -NA_EXIT_USAGE : 1;
	case OPT_SIZE:
		if ((a->size = na_parse_size(arg)) < MIB)
			return -na_usage_error("probe", "--size wants a size of 1M or more, like 1G, not '%s'", arg);
		return 1;
	default: return 0;
	}
}

/* Sizes from size/N up to size, whole MiB: the bug does not care for one size. */
static int64_t canary_kb(const na_probe_args *a, long i)
{
	int64_t bytes = a->size * (i + 1) / a->disks;
	bytes = bytes < MIB ? MIB : bytes / MIB * MIB;
	return bytes / 1024;
}

typedef struct probe_run {
	char *folder;         /* "[ds] nfsagent-probe-..." */
	char **disks;         /* created, to delete */
	size_t n_disks;
	na_checks checks;
} probe_run;

/* Each canary is read right after its creation (through every host that
 * mounts the datastore: which one creates it is vCenter's choice), the
 * short ones once more at the end. */
static int create_and_check(vs_client *c, const na_inventory *inv, const na_probe_args *a,
                            probe_run *r, vs_error *err)
{
	na_viewpoint at = {inv, NULL, a->recheck_s};
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
			rc = na_check_descriptor(c, disk, NULL, &r->checks, err);
		if (rc == VS_OK)
			rc = na_checks_measure(c, &at, &r->checks, err);
	}
	if (rc == VS_OK)
		rc = na_checks_confirm(c, &at, &r->checks, err);
	return rc;
}

/* Runs on every path: a probe must not leave canaries behind. */
static void clean_up(vs_client *c, probe_run *r)
{
	vs_error err = {0};
	for (size_t i = 0; i < r->n_disks; i++)
		if (vs_vdisk_delete(c, r->disks[i], &err) != VS_OK)
			na_report(&err);
	if (vs_datastore_delete(c, r->folder, &err) != VS_OK)
		na_warn("could not remove %s; delete it by hand", r->folder);
	for (size_t i = 0; i < r->n_disks; i++)
		free(r->disks[i]);
	free(r->disks);
	free(r->folder);
	na_checks_free(&r->checks);
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
static void verdict_line(const na_probe_args *a, const vs_host *h, const vs_datastore *d,
                         const probe_run *r, const readers *who, char *out, size_t size)
{
	na_tally t = na_checks_tally(&r->checks);
	const char *kind = probe_case(&r->checks);
	char head[512], right[1100] = "each whole on the other hosts";
	snprintf(head, sizeof(head), "%s extent-size mismatch on datastore %s (host %s, ESXi %s build %s)",
	         na_nfs_label(d->type), d->name, h->name, h->version, h->build);
	if (*who->right_on)
		snprintf(right, sizeof(right), "right on %s %s", na_hosts_word(who->right_on), who->right_on);
	const char *short_word = na_hosts_word(who->short_on);
	if (kind && !strcmp(kind, "host"))
		snprintf(out, size, "%s: %zu of %zu canary disks read short by %s %s, %s: ESXi's NFS 4.1 "
		         "view of the files, not the files", head, t.short_, r->n_disks, short_word,
		         who->short_on, right);
	else if (kind && !strcmp(kind, "export"))
		snprintf(out, size, "%s: %zu of %zu canary disks read short by every host that could read "
		         "them (%s): the files on the export are short", head, t.short_, r->n_disks,
		         who->short_on);
	else if (kind && !strcmp(kind, "unconfirmed"))
		snprintf(out, size, "%s: %zu of %zu canary disks read short by %s %s; no other host could "
		         "read them, so whether the files themselves are short stays open", head, t.short_,
		         r->n_disks, short_word, who->short_on);
	else if (kind)
		snprintf(out, size, "%s: %zu of %zu canary disks read short by %s %s at first, whole "
		         "%d s later: transient (a Storage vMotion in that window fails)", head, t.transient,
		         r->n_disks, short_word, who->short_on, a->recheck_s);
	else if (t.unknown || t.problems)
		snprintf(out, size, "could not check datastore %s (%s, host %s): %zu of %zu canary disks "
		         "could not be read through any host", d->name, na_nfs_label(d->type), h->name,
		         t.unknown + t.problems, r->n_disks);
	else
		snprintf(out, size, "clean: %zu of %ld canary disks on datastore %s (%s, host %s, ESXi %s "
		         "build %s) hold what their descriptors declare on %zu of the %zu hosts that mount "
		         "it%s", r->n_disks, a->disks, d->name, na_nfs_label(d->type), h->name, h->version,
		         h->build, d->n_mounts - who->unread, d->n_mounts,
		         who->unread ? " (the others could not read them)" : "");
}

/* Prints the verdict; returns the exit code. */
static int report(const na_inventory *inv, const na_probe_args *a, const vs_host *h,
                  const vs_datastore *d, const probe_run *r, bool json)
{
	na_tally t = na_checks_tally(&r->checks);
	size_t bad = t.short_ + t.transient;
	readers who;
	sort_readers(inv, d, &r->checks, &who);
	if (who.first_short)
		h = who.first_short;
	char verdict[3072], count[128];
	verdict_line(a, h, d, r, &who, verdict, sizeof(verdict));
	snprintf(count, sizeof(count), "%zu of %zu canary disks short, %zu transient, %zu unreadable",
	         t.short_, r->n_disks, t.transient, t.unknown);
	char *evidence[1] = {count};
	na_finding_source src = {"probe", a->campaign, a->target, h, d, NULL};
	bool verdict_made = bad || (!t.unknown && !t.problems);  /* else: no verdict to record */
	if (verdict_made)
		na_record_finding(a->db, &src, bad > 0, probe_case(&r->checks), verdict, evidence, 1);
	if (json) {
		na_json_print(json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:b, s:b, s:s?, s:s, s:o}",
		                        "datastore", d->name, "type", d->type, "host", h->name,
		                        "esxi_version", h->version, "esxi_build", h->build, "disks",
		                        (int)r->n_disks, "mismatches", (int)bad, "unchecked", (int)t.unknown,
		                        "extent_bug", bad > 0, "checked", verdict_made, "case",
		                        probe_case(&r->checks), "verdict", verdict, "checks",
		                        na_checks_json(&r->checks)));
	} else {
		printf("%s\n", verdict);
		na_checks_print(&r->checks, stdout);
	}
	return bad ? NA_EXIT_FINDING : t.problems ? NA_EXIT_FAIL : t.unknown ? NA_EXIT_UNCHECKED : NA_EXIT_OK;
}

int na_probe(vs_client *c, const na_probe_args *a, bool json)
{
	na_inventory inv;
	vs_error err = {0};
	int rc = na_inventory_load(c, false, &inv, &err);
	vs_host *h = rc == VS_OK ? na_find_host(&inv, a->host, &err) : NULL;
	vs_datastore *d = h ? na_find_datastore(&inv, a->datastore, &err) : NULL;
	if (rc == VS_OK && (!h || !d))
		rc = VS_ERR_NOT_FOUND;
	if (rc == VS_OK && !na_mounted_on(d, h->moref))
		rc = vs_fail(&err, VS_ERR_USAGE, "datastore '%s' is not mounted on host '%s'", d->name, h->name);
	if (rc != VS_OK) {
		na_inventory_free(&inv);
		return na_report(&err);
	}
	probe_run r = {0};
	char folder[128];
	snprintf(folder, sizeof(folder), "nfsagent-probe-%ld-%d", (long)time(NULL), (int)getpid());
	r.folder = vs_dspath_join(d->name, folder);
	na_interrupts saved;
	na_interrupts_catch(&saved);
	rc = create_and_check(c, &inv, a, &r, &err);
	int code = rc != VS_OK          ? na_report(&err)
	           : !na_stop_requested ? report(&inv, a, h, d, &r, json)
	                                : NA_EXIT_FAIL;
	if (na_stop_requested)
		na_error("interrupted after %zu canary disks; removing them", r.n_disks);
	clean_up(c, &r);
	na_interrupts_release(&saved);
	na_inventory_free(&inv);
	return code;
}

static int run(vs_client *c, void *args, bool json)
{
	return na_probe(c, args, json);
}

static int check(void *args, int argc, char **argv)
{
	const na_probe_args *a = args;
	if (argc > 0)
		return na_usage_error("probe", "unexpected argument '%s'", argv[0]);
	return a->host && a->datastore ? -1 : na_usage_error("probe", "--host and --datastore are required");
}

int cmd_probe(int argc, char **argv)
{
	static const struct option longopts[] = {
		NA_CONNECT_LONGOPTS,
		{"host", required_argument, NULL, NA_OPT_HOST},
		{"datastore", required_argument, NULL, OPT_DATASTORE},
		{"disks", required_argument, NULL, OPT_DISKS},
		{"size", required_argument, NULL, OPT_SIZE},
		{"db", required_argument, NULL, OPT_DB},
		{"recheck", required_argument, NULL, OPT_RECHECK},
		{0},
	};
	static const na_command_spec spec = {"probe", usage, longopts, on_option, check, run};
	na_probe_args a = {.disks = 8, .size = 1024LL * MIB, .recheck_s = NA_RECHECK_DEFAULT_S};
	return na_command(&spec, &a, argc, argv);
}
