/* nfsagent nas create | destroy: a test dataset and its NFS share, made and
 * removed on the NAS over ssh (nas/dataset.c), outside a campaign: the
 * recordsize migration's new home, or a comparison's second dataset.
 * What it makes carries nfsagent:run=RUN (by default "manual-<uuid>", a new
 * one each time); any dataset carrying an nfsagent mark is nfsagent's, so a
 * second create adopts it and destroy removes it; nothing else is touched. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "output.h"
#include "nfsagent/nas_dataset.h"
#include "store/store.h"

static const char create_usage[] =
	"Usage: nfsagent nas create (--nas [USER@]HOST | --nas-command CMD) --dataset POOL/NAME\n"
	"                           [--recordsize SIZE] [--sync S] [--compression C] [--atime A]\n"
	"                           [--logbias L] [--special-small-blocks SIZE]\n"
	"                           [--share-to CIDR[,CIDR...]] [--run-id ID] [--dry-run] [--json]\n"
	"Makes a ZFS dataset for a test, with the settings given (the others inherit\n"
	"from its parent) and the mark nfsagent:run=ID, and shares it over NFS to the\n"
	"networks given (root not squashed, as ESXi needs).  On TrueNAS (SCALE or\n"
	"CORE) through its middleware (midclt), so that its UI knows both; on plain\n"
	"Linux OpenZFS with zfs create and sharenfs.  The settings shown are read\n"
	"back from the NAS.  A dataset there with an nfsagent mark is adopted\n"
	"(nothing made); one without is refused.  --dry-run reads only and says\n"
	"what it would run, with what the dataset would inherit.\n\n"
	"  --run-id ID           the mark's value (default: manual-<new uuid>)\n"
	"Exit 2 for a bad name or value, a missing parent, a dataset not nfsagent's;\n"
	"1 when the NAS refused a change (a full pool, a share refused); 4, 5, 6 as\n"
	"'nfsagent nas'.\n"
	"Examples:\n"
	"  nfsagent nas create --nas root@truenas --dataset tank/vm16k --recordsize 16K \\\n"
	"      --share-to 10.0.0.0/24\n"
	"  nfsagent nas create --nas root@truenas --dataset tank/vm16k --dry-run\n";

static const char destroy_usage[] =
	"Usage: nfsagent nas destroy (--nas [USER@]HOST | --nas-command CMD) --dataset POOL/NAME\n"
	"                            [--run-id ID] [--busy-wait SECONDS] [--json]\n"
	"Removes a dataset nfsagent made (it carries nfsagent:run; with --run-id,\n"
	"that run's only): its NFS share first, then the dataset.  \"Dataset is busy\"\n"
	"(NFS 4.1 state the server keeps after ESXi unmounted) is retried with backoff\n"
	"for --busy-wait seconds (default 60); past it, the error names the fix and the\n"
	"command that finishes.  nfsagent never restarts the NAS's NFS service.  A\n"
	"dataset not there is no error.\n"
	"Exit 2 for a dataset not nfsagent's (left as it is); 1 when it stayed busy or\n"
	"the NAS refused.\n"
	"Examples:\n"
	"  nfsagent nas destroy --nas root@truenas --dataset tank/vm16k\n";

enum {
	OPT_NAS = NA_OPT_FIRST_COMMAND_OPTION,
	OPT_NAS_COMMAND,
	OPT_DATASET,
	OPT_SHARE_TO,
	OPT_RUN_ID,
	OPT_DRY_RUN,
	OPT_BUSY_WAIT,
	OPT_SETTING, /* + nas_setting */
};

typedef struct dataset_args {
	const char *nas, *nas_command, *dataset, *run_id;
	nas_create_args create;
	long busy_wait;
	nas_target target;
	char run_id_buf[48];
} dataset_args;

static int on_option(int opt, const char *arg, void *ud, na_outcome *out)
{
	dataset_args *a = ud;
	vs_error err = {0};
	if (opt >= OPT_SETTING && opt < OPT_SETTING + NAS_SET_N) {
		if (nas_settings_put(&a->create.settings, nas_setting_name(opt - OPT_SETTING), arg, &err))
			return na_usage_error(out, "%s", err.message), -1;
		return 1;
	}
	switch (opt) {
	case OPT_NAS: a->nas = arg; return 1;
	case OPT_NAS_COMMAND: a->nas_command = arg; return 1;
	case OPT_DATASET: a->dataset = arg; return 1;
	case OPT_RUN_ID: a->run_id = arg; return 1;
	case OPT_DRY_RUN: a->create.dry_run = true; return 1;
	case OPT_SHARE_TO:
		if (nas_networks_parse(arg, &a->create.share_to, &err))
			return na_usage_error(out, "--share-to: %s", err.message), -1;
		return 1;
	case OPT_BUSY_WAIT:
		if (!na_parse_long(arg, 0, 3600, &a->busy_wait))
			return na_usage_error(out, "--busy-wait '%s': want 0 to 3600 seconds", arg), -1;
		return 1;
	default: return 0;
	}
}

/* The target and the run id, once the options are read. */
static vs_status prepare(dataset_args *a, bool create, na_outcome *out)
{
	if (!a->dataset)
		return na_usage_error(out, "--dataset is required");
	if (!a->nas == !a->nas_command)
		return na_usage_error(out, "give exactly one of --nas and --nas-command");
	if (a->run_id && !nas_run_id_ok(a->run_id))
		return na_usage_error(out, "--run-id '%s': want 1 to 64 of [A-Za-z0-9._-]", a->run_id);
	if (!a->run_id && create) {
		char uuid[37];
		if (na_store_make_uuid(uuid, &out->err) != VS_OK)
			return out->err.status;
		snprintf(a->run_id_buf, sizeof(a->run_id_buf), "manual-%s", uuid);
		a->run_id = a->run_id_buf;
	}
	vs_error err = {0};
	int rc = a->nas ? nas_target_host(&a->target, a->nas, &err)
	                : nas_target_command(&a->target, a->nas_command, &err);
	return rc == VS_OK ? VS_OK : na_usage_error(out, "%s: %s", a->nas ? "--nas" : "--nas-command",
	                                            err.message);
}

static const char *backend_words(const nas_system *s)
{
	return s->backend == NAS_BACKEND_TRUENAS ? s->version : "Linux OpenZFS";
}

static json_t *steps_json(const char steps[][NAS_STEP_LEN], size_t n)
{
	json_t *j = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(j, json_string(steps[i]));
	return j;
}

/* Each setting: the value and its source as read back; in a plan, the
 * value asked ("set") or the parent's ("inherited"). */
static void setting_of(const dataset_args *a, const nas_create_result *r, nas_setting i,
                       const char **value, char *source, size_t size)
{
	const nas_settings *asked = &a->create.settings;
	if (r->now.exists) {
		*value = r->now.values.v[i];
		snprintf(source, size, "%s", r->now.source[i]);
	} else if (asked->v[i][0]) {
		*value = asked->v[i];
		snprintf(source, size, "to set");
	} else {
		*value = r->parent.values.v[i];
		snprintf(source, size, "to inherit: %s", r->parent.source[i][0] == 'i' ||
		         strcmp(r->parent.source[i], "local") == 0 ? "parent's" : r->parent.source[i]);
	}
}

static const char *what_of(const dataset_args *a, const nas_create_result *r)
{
	return r->made ? "made" : r->adopted ? "adopted (nfsagent's already: nothing made)"
	       : a->create.dry_run ? "to make" : "?";
}

static void print_create_json(const dataset_args *a, const nas_create_result *r)
{
	json_t *settings = json_object();
	for (int i = 0; i < NAS_SET_N; i++) {
		const char *v;
		char source[96];
		setting_of(a, r, (nas_setting)i, &v, source, sizeof(source));
		json_object_set_new(settings, nas_setting_name((nas_setting)i),
		                    json_pack("{s:s, s:s}", "value", v, "source", source));
	}
	na_json_print(json_pack("{s:s, s:s, s:b, s:b, s:b, s:s, s:s, s:b, s:b, s:I, s:o, s:o}",
	                        "dataset", a->dataset, "backend", backend_words(&r->sys), "made",
	                        r->made, "adopted", r->adopted, "dry_run", a->create.dry_run, "run",
	                        r->adopted ? r->found_mark : a->run_id, "mountpoint",
	                        r->now.exists ? r->now.mountpoint : "", "share_made", r->share_made,
	                        "share_found", r->share_found, "available",
	                        (json_int_t)r->parent.available, "settings", settings, "steps",
	                        steps_json(r->steps, r->n_steps)));
}

static void print_create(const dataset_args *a, const nas_create_result *r)
{
	char size[32];
	printf("%-22s%s: %s, run %s\n", "Dataset:", a->dataset, what_of(a, r),
	       r->adopted ? r->found_mark : a->run_id);
	printf("%-22s%s\n", "NAS:", backend_words(&r->sys));
	if (r->now.exists)
		printf("%-22s%s\n", "Mountpoint:", r->now.mountpoint);
	printf("%-22s%s\n", "Share:", r->share_found ? "there already (adopted)"
	       : r->share_made ? "made" : a->create.share_to.n ? "to make" : "none (no --share-to)");
	printf("%-22s%s\n", "Free in parent:", na_size(r->parent.available, size, sizeof(size)));
	for (int i = 0; i < NAS_SET_N; i++) {
		const char *v;
		char label[32], source[96];
		setting_of(a, r, (nas_setting)i, &v, source, sizeof(source));
		snprintf(label, sizeof(label), "%s:", nas_setting_name((nas_setting)i));
		printf("%-22s%s (%s)\n", label, v, source);
	}
	if (r->n_steps)
		printf("%s\n", a->create.dry_run ? "Would run:" : "Ran:");
	for (size_t i = 0; i < r->n_steps; i++)
		printf("  %s\n", r->steps[i]);
}

static vs_status run_create(dataset_args *a, bool json, na_outcome *out)
{
	nas_create_args *c = &a->create;
	c->dataset = a->dataset;
	c->run_id = a->run_id;
	c->adopt_any = true;
	nas_create_result r;
	int rc = nas_dataset_create(&a->target, c, &r, &out->err);
	if (rc == VS_OK && json)
		print_create_json(a, &r);
	else if (rc == VS_OK)
		print_create(a, &r);
	return rc;
}

static vs_status run_destroy(dataset_args *a, bool json, na_outcome *out)
{
	nas_destroy_args d = {a->dataset, a->run_id, (int)a->busy_wait, NULL};
	nas_destroy_result r;
	int rc = nas_dataset_destroy(&a->target, &d, &r, &out->err);
	if (json && (rc == VS_OK || r.leftover[0]))
		na_json_print(json_pack("{s:s, s:s, s:b, s:b, s:b, s:i, s:s, s:s, s:o}", "dataset",
		                        a->dataset, "run", r.mark, "absent", r.absent, "share_removed",
		                        r.share_removed, "destroyed", r.destroyed, "tries", r.tries,
		                        "leftover", r.leftover, "backend", backend_words(&r.sys), "steps",
		                        steps_json(r.steps, r.n_steps)));
	else if (rc == VS_OK && r.absent)
		printf("%s: not there, nothing to destroy\n", a->dataset);
	else if (rc == VS_OK)
		printf("%s: destroyed (run %s, %s%s, %d tr%s)\n", a->dataset, r.mark,
		       r.share_removed ? "share removed first" : "no share", r.tries > 1 ? ", busy" : "",
		       r.tries, r.tries == 1 ? "y" : "ies");
	return rc;
}

vs_status cmd_nas_dataset(int argc, char **argv, na_outcome *out)
{
	bool create = strcmp(argv[0], "create") == 0;
	static const struct option create_opts[] = {
		{"nas", required_argument, NULL, OPT_NAS},
		{"nas-command", required_argument, NULL, OPT_NAS_COMMAND},
		{"dataset", required_argument, NULL, OPT_DATASET},
		{"run-id", required_argument, NULL, OPT_RUN_ID},
		{"share-to", required_argument, NULL, OPT_SHARE_TO},
		{"dry-run", no_argument, NULL, OPT_DRY_RUN},
		{"recordsize", required_argument, NULL, OPT_SETTING + NAS_SET_RECORDSIZE},
		{"sync", required_argument, NULL, OPT_SETTING + NAS_SET_SYNC},
		{"compression", required_argument, NULL, OPT_SETTING + NAS_SET_COMPRESSION},
		{"atime", required_argument, NULL, OPT_SETTING + NAS_SET_ATIME},
		{"logbias", required_argument, NULL, OPT_SETTING + NAS_SET_LOGBIAS},
		{"special-small-blocks", required_argument, NULL, OPT_SETTING + NAS_SET_SPECIAL_SMALL},
		{"json", no_argument, NULL, NA_OPT_JSON},
		{"help", no_argument, NULL, NA_OPT_HELP},
		{0},
	};
	static const struct option destroy_opts[] = {
		{"nas", required_argument, NULL, OPT_NAS},
		{"nas-command", required_argument, NULL, OPT_NAS_COMMAND},
		{"dataset", required_argument, NULL, OPT_DATASET},
		{"run-id", required_argument, NULL, OPT_RUN_ID},
		{"busy-wait", required_argument, NULL, OPT_BUSY_WAIT},
		{"json", no_argument, NULL, NA_OPT_JSON},
		{"help", no_argument, NULL, NA_OPT_HELP},
		{0},
	};
	dataset_args a = {.busy_wait = 60};
	bool json = false;
	int go = na_parse_local_options(argc, argv, create ? create_opts : destroy_opts,
	                                create ? create_usage : destroy_usage, on_option, &a, &json,
	                                out);
	if (go <= 0)
		return go < 0 ? (out->err.status ? out->err.status : VS_ERR_USAGE) : VS_OK;
	vs_status rc = prepare(&a, create, out);
	if (rc == VS_OK)
		rc = create ? run_create(&a, json, out) : run_destroy(&a, json, out);
	nas_target_free(&a.target);
	return rc;
}
