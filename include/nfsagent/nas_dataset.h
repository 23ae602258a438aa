/* Making and removing a test dataset on the NAS, and its NFS share
 * (nas/dataset.c, nas/dataset_words.c).
 *
 * Two backends, told apart on the NAS itself: TrueNAS (its middleware,
 * `midclt call ...`, so that its UI and configuration know what we made)
 * and plain OpenZFS on Linux (`zfs create`, `zfs set sharenfs=...`).
 * What nfsagent makes carries the ZFS user property nfsagent:run=RUN_ID;
 * a create that finds a dataset with that mark adopts it, one without it
 * is refused, and a destroy removes only a dataset that carries it.
 *
 * Names reach the NAS as checked words (nas_name_ok), values only as we
 * format them after a strict check; JSON for midclt goes on stdin and
 * reaches midclt as the one word "$(cat)": the NAS's shell substitutes
 * what cat read inside double quotes, where nothing in it is expanded or
 * split, so no byte of it is ever read as shell syntax.
 *
 * Failures (vs_error): VS_ERR_USAGE a bad name, value, run id or network,
 * a dataset not nfsagent's (create and destroy alike); VS_ERR_NOT_FOUND a
 * parent that does not exist; VS_ERR_FAULT a command that failed there (a
 * full pool, a share refused, a dataset still busy); the connection's
 * as nas_run_all gives them. */
#ifndef NFSAGENT_NAS_DATASET_H
#define NFSAGENT_NAS_DATASET_H

#include "nfsagent/nas.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The settings nfsagent may set on a dataset it makes; others inherit. */
typedef enum nas_setting {
	NAS_SET_RECORDSIZE,
	NAS_SET_SYNC,
	NAS_SET_COMPRESSION,
	NAS_SET_ATIME,
	NAS_SET_LOGBIAS,
	NAS_SET_SPECIAL_SMALL,
	NAS_SET_N,
} nas_setting;

/* ZFS's name of the setting: "recordsize", ..., "special_small_blocks". */
const char *nas_setting_name(nas_setting s);

/* Values as zfs get -p prints them: sizes in bytes ("16384"), words in
 * lower case ("standard", "zstd-3"); "" is not set (inherits). */
typedef struct nas_settings {
	char v[NAS_SET_N][24];
} nas_settings;

/* Checks value for the setting named name (sizes as "16K", "16k", "16384";
 * words in any case) and stores it normalised; VS_ERR_USAGE saying what is
 * allowed, before anything runs. */
int nas_settings_put(nas_settings *s, const char *name, const char *value, vs_error *err);
/* A size in bytes as TrueNAS's recordsize choices spell it: "512", "16K", "1M". */
void nas_size_word(int64_t bytes, char *buf, size_t size);

/* The mark's value: 1 to 64 of [A-Za-z0-9._-]. */
bool nas_run_id_ok(const char *run_id);

/* Networks a share is limited to: "10.0.0.0/24,10.0.1.5" (IPv4, a bare
 * address is /32), at most NAS_SHARE_MAX, normalised. */
enum { NAS_SHARE_MAX = 16 };
typedef struct nas_networks {
	char v[NAS_SHARE_MAX][19];
	size_t n;
} nas_networks;
int nas_networks_parse(const char *list, nas_networks *out, vs_error *err);
/* sharenfs for OpenZFS's libshare: "rw=@10.0.0.0/24:@10.0.1.5/32,no_root_squash". */
void nas_sharenfs_value(const nas_networks *n, char *buf, size_t size);

typedef enum nas_backend { NAS_BACKEND_OPENZFS, NAS_BACKEND_TRUENAS } nas_backend;

typedef struct nas_system {
	nas_backend backend;
	char version[64];  /* TrueNAS's system.version, "TrueNAS-SCALE-22.12.3"; "" for OpenZFS */
	bool share_path;   /* sharing.nfs takes "path" (SCALE 22.12 and later), else "paths" */
	bool core;         /* TrueNAS CORE (FreeBSD): root's group is wheel */
} nas_system;

/* What midclt call system.version printed (a string, quoted or not):
 * TrueNAS's version and its share schema; VS_ERR_PROTOCOL when it is not
 * "TrueNAS-[SCALE-]MAJOR.MINOR...". */
int nas_parse_truenas_version(const char *text, nas_system *out, vs_error *err);

/* A dataset as `zfs get -Hp -o property,value,source` of nas_dataset_get_list
 * shows it. */
typedef struct nas_dataset_state {
	bool exists;
	char mark[72];          /* nfsagent:run's value; "" unmarked */
	char mountpoint[256];
	char sharenfs[256];     /* "off" when not shared that way */
	int64_t available;      /* bytes free to it */
	nas_settings values;    /* as read, normalised as nas_settings_put does */
	char source[NAS_SET_N][72];  /* "local", "default", "inherited from tank" */
} nas_dataset_state;

extern const char nas_dataset_get_list[];
/* Every property of the list is required (VS_ERR_PROTOCOL naming one
 * missing); out->exists is set. */
int nas_parse_dataset_get(const char *text, size_t len, nas_dataset_state *out, vs_error *err);

/* TrueNAS's NFS shares at path (sharing.nfs.query's JSON: "path", or
 * "paths" of older ones): their ids into ids (up to max), how many in *n. */
int nas_parse_shares(const char *text, size_t len, const char *path, int64_t *ids, size_t max,
                     size_t *n, vs_error *err);

/* The JSON midclt gets on stdin (malloc'd, free()): pool.dataset.create
 * with the settings and the mark as a user property; sharing.nfs.create
 * for mountpoint and the networks, root mapped to root (CORE: wheel). */
char *nas_truenas_dataset_json(const char *dataset, const nas_settings *s, const char *run_id);
char *nas_truenas_share_json(const nas_system *sys, const char *mountpoint,
                             const nas_networks *n, const char *run_id);
/* OpenZFS's create: "zfs" "create" "-o" "recordsize=16384" ... "-o"
 * "nfsagent:run=RUN" DATASET, NULL-terminated, into words (room for
 * NAS_CREATE_WORDS pointers); the values live in buf. */
enum { NAS_CREATE_WORDS = 4 + 2 * (NAS_SET_N + 1) };
void nas_zfs_create_words(const char *dataset, const nas_settings *s, const char *run_id,
                          char buf[NAS_SET_N + 1][100], const char **words);

/* ---- the busy retry, its clock a parameter (nas.h's nas_clock) ---------- */

/* One try: VS_OK done, else err and *busy when the failure is "dataset is
 * busy" (worth another try). */
typedef int (*nas_try_fn)(void *ud, bool *busy, vs_error *err);
/* Tries fn until it succeeds, fails otherwise than busy, or budget_s has
 * passed, sleeping 1, 2, 4 ... (at most 15) seconds between tries, never
 * past the budget; *tries counts them.  The last failure's rc and err. */
int nas_retry_busy(nas_try_fn fn, void *ud, const nas_clock *c, int budget_s, int *tries,
                   vs_error *err);

/* ---- making and removing -------------------------------------------------- */

enum { NAS_STEPS_MAX = 8, NAS_STEP_LEN = 512 };

typedef struct nas_create_args {
	const char *dataset;     /* POOL/NAME..., never a pool itself */
	const char *run_id;      /* the mark (nas_run_id_ok) */
	nas_settings settings;   /* checked by nas_settings_put */
	nas_networks share_to;   /* n 0: no share */
	bool dry_run;            /* reads only: the plan in steps */
	bool adopt_any;          /* adopt one marked by another run too (the commands do) */
} nas_create_args;

typedef struct nas_create_result {
	nas_system sys;
	bool made;               /* the dataset made now */
	bool adopted;            /* it was there with nfsagent's mark: nothing made */
	char found_mark[72];     /* the mark of the one adopted */
	bool share_made, share_found;
	nas_dataset_state parent;  /* what the new one inherits, and the space free */
	nas_dataset_state now;     /* read back after (dry run: as found, or nothing) */
	/* What it ran, or would run (dry run), that changes the NAS, in order. */
	char steps[NAS_STEPS_MAX][NAS_STEP_LEN];
	size_t n_steps;
} nas_create_result;

int nas_dataset_create(const nas_target *t, const nas_create_args *a, nas_create_result *r,
                       vs_error *err);

typedef struct nas_destroy_args {
	const char *dataset;
	const char *run_id;      /* NULL: any nfsagent mark */
	int busy_budget_s;       /* how long "dataset is busy" is retried */
	const nas_clock *clock;  /* NULL: nas_real_clock */
} nas_destroy_args;

typedef struct nas_destroy_result {
	nas_system sys;
	bool absent;             /* there was nothing to destroy */
	bool share_removed, destroyed;
	int tries;               /* of the destroy */
	char mark[72];
	char mountpoint[256];
	/* When it could not: the NAS command that finishes it. */
	char leftover[NAS_STEP_LEN];
	char steps[NAS_STEPS_MAX][NAS_STEP_LEN];
	size_t n_steps;
} nas_destroy_result;

/* Removes the share, then the dataset, when it carries nfsagent's mark
 * (run_id's when given).  Still busy past the budget: VS_ERR_FAULT saying
 * why (NFS 4.1 state the server holds after the unmount) and the fix, and
 * r->leftover the command to finish.  Never restarts a service. */
int nas_dataset_destroy(const nas_target *t, const nas_destroy_args *a, nas_destroy_result *r,
                        vs_error *err);

#ifdef __cplusplus
}
#endif

#endif
