/* Campaigns: an INI file that describes a whole comparison (targets to
 * mount or use, the test VM, profiles, repetitions), and its run. */
#ifndef NFSAGENT_CAMPAIGN_H
#define NFSAGENT_CAMPAIGN_H

#include "agent.h"
#include "store/store.h"

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
	na_labels labels;
	/* The NAS behind it, as bench --nas / --nas-command: one of them or
	 * neither; the [campaign]'s when the target gives neither. */
	char *nas, *nas_command;
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
	char *size, *dir, *probe_size;
	bool cleanup, allow_power_off;
	na_labels labels;    /* empty: the parser folds the [campaign]'s labels into
	                      * each target's (a target's own value wins) */
	char *nas, *nas_command;  /* [campaign]'s, folded into each target's by the parser */
	char *central;       /* [campaign]'s central database URL (checked, never a password) */
	char *url, *username, *thumbprint, *cacert;  /* [connection]; never a password */
	bool insecure;
	na_target targets[NA_MAX_TARGETS];
	size_t n_targets;
} na_campaign;

/* Two targets on one export with different NFS versions alternate: never
 * mounted together (mixing the protocols on one export can corrupt data),
 * each mounted when its turn comes, with the VM parked at home between. */
bool na_target_alternates(const na_target *a, const na_target *b);
/* Whether the campaign mounts t as NFS 4.1: it names a server and nfs = 4.1. */
bool na_target_nfs41(const na_target *t);

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

typedef struct na_run_options {
	bool dry_run, resume;
	bool abort;          /* undo the unfinished run: nothing more runs */
	const char *db;
	const char *central; /* push the results there at the end (na_store_push_at_end); NULL: none */
	na_conn *conn;       /* connection flags from the command line */
} na_run_options;

/* Runs (or with dry_run only plans) a campaign: VS_OK, with *verdict a
 * finding when the extent-size bug stopped a target, or the run's first
 * error in err (what failed after it was said as a warning). */
int na_campaign_run(na_campaign *c, const na_run_options *o, na_verdict *verdict, vs_error *err);

/* Per target: results ok/failed, the protocol they really ran over, and
 * whether the extent-size bug stopped a move there (from the findings). */
/* What limited each target's profile, a line each (campaign_limits.c). */
void na_campaign_print_limits(na_store *store, const na_campaign *c, const char *run_id);
int na_campaign_print_summary(na_store *store, const na_campaign *c, const char *run_id,
                              vs_error *err);

#endif
