/* Campaigns: an INI file that describes a whole comparison (targets to
 * mount or use, the test VM, profiles, repetitions), and its run. */
#ifndef NFSAGENT_CAMPAIGN_H
#define NFSAGENT_CAMPAIGN_H

#include "nfsagent/nas_dataset.h"
#include "connect.h"
#include "ops/campaign_leftovers.h"
#include "ops/session.h"
#include "store/store.h"
#include "ops/verdict.h"

/* Lengths of a campaign's and a target's name, so that run ids and journal
 * steps ("result:TARGET:REP:PROFILE") are never cut. */
enum { NA_MAX_LABELS = 16, NA_MAX_TARGETS = 16, NA_MAX_CAMPAIGN_PROFILES = 16, NA_MAX_NAME = 64,
       NA_MAX_TARGET_NAME = 40, NA_MAX_CAMPAIGN_VMS = 64 };

typedef struct na_labels {
	na_label v[NA_MAX_LABELS];
	char *text[NA_MAX_LABELS];   /* "key\0value" storage */
	size_t n;
} na_labels;

typedef struct na_target {
	char *name;          /* [target NAME] */
	int line;            /* where it starts, for messages */
	char *datastore;     /* the datastore's name, existing or to mount */
	char *servers;       /* NFS server(s) to mount from; NULL: use an existing datastore */
	char *path;          /* export path */
	char *nfs;           /* "3" or "4.1" */
	char *hosts;         /* "all", "cluster:NAME" or a host; NULL: the VMs' clusters' hosts */
	char *on_extent_bug; /* fail, nfs3, snapshot or cold; default fail */
	/* Probe the datastore before moving the VM there: 1 yes, 0 no; -1 (no
	 * probe key) is resolved by preflight to whether the target runs NFS
	 * 4.1, the only version with the extent-size bug. */
	int probe;
	long connections;    /* nConnect when it mounts (mount --connections); 0: ESXi's one */
	/* baseline = nas (1): after its last repetition, each profile once on
	 * its NAS itself (ops/baseline.h); none (0); -1 until the parser folds
	 * in the [campaign]'s, which only a target with a NAS takes. */
	int baseline;
	na_labels labels;
	/* The NAS behind it, as bench --nas / --nas-command: one of them or
	 * neither; the [campaign]'s when the target gives neither. */
	char *nas, *nas_command;
	/* create = yes: the campaign makes dataset (its mountpoint the path),
	 * with these settings (others inherit), shared to share_to, and
	 * removes it at the end unless keep (campaign_dataset.c). */
	bool create, keep;
	char *dataset;
	nas_settings settings;
	nas_networks share_to;
} na_target;

typedef struct na_campaign {
	char *file;
	char *name, *vm;
	/* vms = a, b, fleet-*: names and fnmatch(3) globs, resolved against the
	 * inventory at preflight (n_vms 0: vm is the one VM, as before); its
	 * rounds run each profile's repetition as one group run in all of them. */
	char *vms[NA_MAX_CAMPAIGN_VMS];
	size_t n_vms;
	int vms_line;
	/* The group's moves (the fleet op's limits; migrate's defaults). */
	long parallel, per_host, per_datastore;
	char *guest_user, *guest_password_file;
	char *profiles[NA_MAX_CAMPAIGN_PROFILES];
	size_t n_profiles;
	long repeat, runtime, ramp, probe_disks;
	long busy_wait;      /* s a made dataset's "busy" is retried at the end; 0: 60 */
	char *size, *dir, *probe_size;
	bool cleanup, allow_power_off;
	na_labels labels;    /* empty: the parser folds the [campaign]'s labels into
	                      * each target's (a target's own value wins) */
	char *nas, *nas_command;  /* [campaign]'s, folded into each target's by the parser */
	int baseline, baseline_line;  /* [campaign]'s baseline = nas (1), and its line */
	char *central;       /* [campaign]'s central database URL (checked, never a password) */
	char *url, *username, *thumbprint, *cacert;  /* [connection]; never a password */
	bool insecure;
	na_target targets[NA_MAX_TARGETS];
	size_t n_targets;
} na_campaign;

/* A dataset key of a target (dataset, share_to, recordsize, sync,
 * compression, atime, logbias, special_small_blocks), checked and set:
 * VS_ERR_NOT_FOUND when name is none of them. */
int na_target_dataset_key(na_target *t, const char *name, const char *value, vs_error *err);
/* What is wrong with t's dataset keys taken together, or NULL; campaign_nas:
 * [campaign] names a NAS (folded into t later). */
const char *na_target_dataset_check(const na_target *t, bool campaign_nas);
/* Two targets on one export with different NFS versions alternate: never
 * mounted together (mixing the protocols on one export can corrupt data),
 * each mounted when its turn comes, with the VM parked at home between. */
bool na_target_alternates(const na_target *a, const na_target *b);
/* Whether the campaign mounts t as NFS 4.1: it names a server and nfs = 4.1. */
bool na_target_nfs41(const na_target *t);
/* t's on_extent_bug ("fail" when unset). */
const char *na_target_policy(const na_target *t);

/* Reads and checks a campaign file (a regular file of at most 1 MiB); errors
 * are "FILE:LINE: what is wrong" in err->message with VS_ERR_USAGE. */
int na_campaign_load(const char *path, na_campaign *c, vs_error *err);
/* The same for text already read (NUL-terminated), named file in messages;
 * na_campaign_free c after either, whatever they return. */
int na_campaign_parse(const char *file, const char *text, na_campaign *c, vs_error *err);

/* Adds "KEY=VALUE" (blanks around either dropped; copied) to l.
 * VS_ERR_USAGE for no '=' or an empty key, a key already in l or that is a
 * result field, a key or value with a control character or that is not
 * UTF-8, or l full. */
int na_labels_add(na_labels *l, const char *kv, vs_error *err);
const na_label *na_labels_find(const na_labels *l, const char *key);
void na_labels_free(na_labels *l);
void na_campaign_free(na_campaign *c);

/* What the campaign does, for its command to show before it starts: the
 * run, its VM or VMs where they are now, and each target's hosts. */
typedef struct na_campaign_plan {
	const na_campaign *c;
	const char *run_id;
	const char *vm, *vm_host;     /* the one VM (n_vms 0), and its host now */
	const char *home;             /* the datastore the VM or VMs start on */
	char *const *vm_names;        /* vms =: the group's VMs */
	size_t n_vms;
	/* per target that mounts on named hosts: "host H" or "hosts H1, H2"
	 * ("": none found) */
	char *target_hosts[NA_MAX_TARGETS];
} na_campaign_plan;

typedef struct na_campaign_args {
	na_campaign *c;      /* preflight resolves each target's probe = */
	bool dry_run, resume;
	bool abort;          /* undo the unfinished run: nothing more runs */
	const char *db;
	const char *central; /* push the results there at the end (na_store_push_at_end); NULL: none */
	na_conn *conn;       /* connection flags from the command line */
	/* Called once preflight passed (not for an abort), before anything
	 * changes: the command shows the plan (NULL: not shown). */
	void (*planned)(void *ud, const na_campaign_plan *plan);
	void *ud;
} na_campaign_args;

/* What the run left for its command to show: the summary is read from
 * store, under run_id. */
typedef struct na_campaign_result {
	char run_id[160];
	bool ran;                /* it ran (no dry run, claimed): there is a summary */
	na_verdict verdict;      /* a finding when the extent-size bug stopped a target */
	na_leftovers leftovers;  /* copies failed moves left on the targets */
	/* Where the time went, in seconds: in all, Storage vMotion, benchmarks,
	 * reading the NAS's settings, probes, mounts and unmounts. */
	double total_s, move_s, bench_s, nas_s, probe_s, mount_s;
	na_store *store;         /* open, or NULL; na_campaign_result_free closes it */
} na_campaign_result;

/* Runs (or with dry_run only plans) a campaign.  The op connects (a->conn)
 * and opens its results database itself (a fresh run only once preflight
 * found all it names); s gives the sinks every line and warning goes to.
 * VS_OK, or the run's first error in err (what failed after it was said
 * as a warning); out is filled whatever it returns. */
int na_op_campaign(na_session *s, const na_campaign_args *a, na_campaign_result *out, vs_error *err);
void na_campaign_result_free(na_campaign_result *out);

#endif
