/* nfsagent nas: the ZFS dataset behind an NFS datastore, as the NAS itself
 * reports it: its settings and its pool's layout (read-only).  vCenter
 * gives the export path; the NAS is reached with the system's ssh client
 * (nas/ssh.c), so nothing secret is asked for or kept here. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "output.h"
#include "nfsagent/nas.h"

static const char usage[] =
	"Usage: nfsagent nas (--nas [USER@]HOST | --nas-command CMD) --datastore DS\n"
	"                    [OPTIONS]\n"
	"Finds the ZFS dataset behind NFS datastore DS on the NAS (its mountpoint is\n"
	"the export path or a parent of it) and shows the settings a benchmark\n"
	"depends on (recordsize, sync, compression, atime, logbias, primarycache,\n"
	"special_small_blocks) and the pool's layout: vdevs per class (data,\n"
	"special, log, cache), their type and disks.  Reads only.\n\n"
	"  --nas [USER@]HOST     reach the NAS with: ssh -o BatchMode=yes HOST\n"
	"  --nas-command CMD     reach it with CMD instead, e.g. 'ssh -J jump root@nas'\n"
	"                        (split into words, no shell; BatchMode=yes is added\n"
	"                        when CMD runs ssh: no password is ever asked)\n"
	"  --datastore DS        the NFS datastore\n"
	"The NAS must run Linux OpenZFS (TrueNAS SCALE, Proxmox, Debian); ssh's own\n"
	"config, keys, agent and known_hosts apply.  Exit 4 when the NAS cannot be\n"
	"reached, 5 when its host key is refused, 6 when it refuses the key, 1 when\n"
	"zpool or zfs is missing there or it is not Linux, 2 when no dataset holds\n"
	"the export.\n"
	"'nfsagent nas create' and 'nfsagent nas destroy' make and remove a test\n"
	"dataset and its share (see their --help).\n"
	"Examples:\n"
	"  nfsagent nas --nas root@truenas --datastore tank-16k\n"
	"  nfsagent nas --nas-command 'ssh -J jump root@truenas' --datastore tank-16k\n\n"
	NA_CONNECT_HELP;

enum { OPT_NAS = NA_OPT_FIRST_COMMAND_OPTION, OPT_NAS_COMMAND, OPT_DATASTORE };

typedef struct nas_args {
	const char *nas, *nas_command, *datastore;
	nas_target target;
} nas_args;

static int on_option(int opt, const char *arg, void *ud, na_outcome *out)
{
	(void)out;
	nas_args *a = ud;
	if (opt == OPT_NAS)
		a->nas = arg;
	else if (opt == OPT_NAS_COMMAND)
		a->nas_command = arg;
	else if (opt == OPT_DATASTORE)
		a->datastore = arg;
	else
		return 0;
	return 1;
}

static vs_status check(void *args, int argc, char **argv, na_outcome *out)
{
	nas_args *a = args;
	if (argc > 0)
		return na_usage_error(out, "unexpected argument '%s'", argv[0]);
	if (!a->datastore)
		return na_usage_error(out, "--datastore is required");
	if (!a->nas == !a->nas_command)
		return na_usage_error(out, "give exactly one of --nas and --nas-command");
	vs_error err = {0};
	int rc = a->nas ? nas_target_host(&a->target, a->nas, &err)
	                : nas_target_command(&a->target, a->nas_command, &err);
	return rc == VS_OK ? VS_OK : na_usage_error(out, "%s: %s", a->nas ? "--nas" : "--nas-command",
	                                            err.message);
}

/* Data, special, log and cache always (no SLOG is worth seeing when sync
 * writes are measured), dedup and spares when there are any. */
static const nas_class shown[] = {NAS_CLASS_DATA, NAS_CLASS_SPECIAL, NAS_CLASS_DEDUP,
                                  NAS_CLASS_LOG, NAS_CLASS_CACHE, NAS_CLASS_SPARE};

static json_t *layout_json(const nas_view *v)
{
	const nas_layout *l = &v->layout;
	json_t *vdevs = json_array();
	for (size_t i = 0; i < l->n; i++)
		json_array_append_new(vdevs, json_pack("{s:s, s:s, s:s, s:I, s:s}", "name", l->v[i].name,
		                                       "type", l->v[i].type, "class",
		                                       nas_class_name(l->v[i].cls), "disks",
		                                       (json_int_t)l->v[i].n_leaves, "health",
		                                       l->v[i].health));
	char words[256];
	nas_layout_summary(l, words, sizeof(words));
	return json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:b, s:b, s:b, s:o}", "name", l->pool,
	                 "health", l->health, "activity", v->activity.words, "layout", words, "size",
	                 (json_int_t)l->size, "alloc", (json_int_t)l->alloc, "data_vdevs",
	                 (json_int_t)nas_layout_count(l, NAS_CLASS_DATA), "log",
	                 nas_layout_count(l, NAS_CLASS_LOG) > 0, "special",
	                 nas_layout_count(l, NAS_CLASS_SPECIAL) > 0, "cache",
	                 nas_layout_count(l, NAS_CLASS_CACHE) > 0, "vdevs", vdevs);
}

static void print_json(const vs_datastore *d, const nas_view *v)
{
	const nas_props *p = &v->props;
	json_t *settings = json_pack(
		"{s:I, s:s, s:s, s:s, s:s, s:s, s:I}", "recordsize", (json_int_t)p->recordsize, "sync",
		p->sync, "compression", p->compression, "atime", p->atime, "logbias", p->logbias,
		"primarycache", p->primarycache, "special_small_blocks", (json_int_t)p->special_small_blocks);
	na_json_print(json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "datastore", d->name, "server",
	                        d->remote_host, "export", d->remote_path, "dataset", v->dataset.name,
	                        "mountpoint", v->dataset.mountpoint, "settings", settings, "pool",
	                        layout_json(v)));
}

/* "2: mirror-0 (mirror, 2 disks), mirror-1 (mirror, 2 disks)" or "none". */
static void print_class(const nas_layout *l, nas_class c)
{
	size_t n = nas_layout_count(l, c);
	char label[16];
	snprintf(label, sizeof(label), "%s:", c == NAS_CLASS_LOG ? "log" : nas_class_name(c));
	printf("%-22s", label);
	if (n == 0) {
		printf("none\n");
		return;
	}
	printf("%zu:", n);
	const char *sep = " ";
	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].cls != c)
			continue;
		const nas_vdev *v = &l->v[i];
		if (strcmp(v->type, "indirect") == 0)
			printf("%s%s (removed", sep, v->name);
		else if (strcmp(v->type, "dspare") == 0)
			printf("%s%s (distributed spare", sep, v->name);
		else
			printf("%s%s (%s, %zu disk%s", sep, v->name, v->type, v->n_leaves, na_s(v->n_leaves));
		printf(strcmp(v->health, "ONLINE") != 0 ? ", %s)" : ")", v->health);
		sep = ", ";
	}
	printf("\n");
}

static void print_text(const vs_datastore *d, const nas_view *v)
{
	const nas_props *p = &v->props;
	char size[32], alloc[32];
	printf("%-22s%s\n", "Datastore:", d->name);
	printf("%-22s%s:%s\n", "Export:", d->remote_host, d->remote_path);
	printf("%-22s%s (mountpoint %s)\n", "Dataset:", v->dataset.name, v->dataset.mountpoint);
	printf("%-22s%lld (%s)\n", "recordsize:", (long long)p->recordsize,
	       na_size(p->recordsize, size, sizeof(size)));
	printf("%-22s%s\n", "sync:", p->sync);
	printf("%-22s%s\n", "compression:", p->compression);
	printf("%-22s%s\n", "atime:", p->atime);
	printf("%-22s%s\n", "logbias:", p->logbias);
	printf("%-22s%s\n", "primarycache:", p->primarycache);
	printf("%-22s%lld\n", "special_small_blocks:", (long long)p->special_small_blocks);
	char health[160], words[256];
	bool healthy;
	nas_health_words(v->layout.health, &v->activity, health, sizeof(health), &healthy);
	printf("%-22s%s, %s, %s, %s allocated\n", "Pool:", v->layout.pool, health,
	       na_size(v->layout.size, size, sizeof(size)),
	       na_size(v->layout.alloc, alloc, sizeof(alloc)));
	nas_layout_summary(&v->layout, words, sizeof(words));
	printf("%-22s%s\n", "Layout:", words);
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++)
		if ((shown[i] != NAS_CLASS_DEDUP && shown[i] != NAS_CLASS_SPARE) ||
		    nas_layout_count(&v->layout, shown[i]))
			print_class(&v->layout, shown[i]);
}

static vs_status run(vs_client *c, void *args, bool json, na_outcome *out)
{
	const nas_args *a = args;
	na_inventory inv;
	vs_error *err = &out->err;
	nas_view v = {0};
	vs_status rc = na_inventory_load(c, false, &inv, err);
	vs_datastore *d = rc == VS_OK ? na_find_datastore(&inv, a->datastore, err) : NULL;
	if (rc == VS_OK && !d)
		rc = VS_ERR_NOT_FOUND;
	else if (rc == VS_OK && (!d->remote_path || !d->remote_host))
		rc = vs_fail(err, VS_ERR_USAGE, "datastore %s is %s, not NFS: no NAS behind it", d->name,
		             d->type ? d->type : "of no known type");
	if (rc == VS_OK)
		rc = nas_read_view(&a->target, d->remote_path, &v, err);
	if (rc == VS_OK && json)
		print_json(d, &v);
	else if (rc == VS_OK)
		print_text(d, &v);
	nas_view_free(&v);
	na_inventory_free(&inv);
	return rc;
}

vs_status cmd_nas(int argc, char **argv, na_outcome *out)
{
	static const struct option longopts[] = {
		NA_CONNECT_LONGOPTS,
		{"nas", required_argument, NULL, OPT_NAS},
		{"nas-command", required_argument, NULL, OPT_NAS_COMMAND},
		{"datastore", required_argument, NULL, OPT_DATASTORE},
		{0},
	};
	static const na_command_spec spec = {usage, longopts, on_option, check, run};
	if (argc > 1 && (strcmp(argv[1], "create") == 0 || strcmp(argv[1], "destroy") == 0))
		return cmd_nas_dataset(argc - 1, argv + 1, out);
	nas_args a = {0};
	vs_status rc = na_command(&spec, &a, argc, argv, out);
	nas_target_free(&a.target);
	return rc;
}
