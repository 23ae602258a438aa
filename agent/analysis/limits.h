/* What limited a run: one layer named with its evidence, from what was
 * measured in that run (the guest's fio, the host's link, the NAS side)
 * and the pool measured on its own (a NAS-local baseline, site = nas).
 * Pure: figures in, a verdict out.  Every threshold: docs/limits.md. */
#ifndef NFSAGENT_ANALYSIS_LIMITS_H
#define NFSAGENT_ANALYSIS_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "store/store.h"

/* A layer at this share of its ceiling or more is at it: the link's is
 * netbound.h's 0.9 (framing leaves ~94% of a line for data); the NAS-local
 * ceilings' the same, for a figure measured twice over one window. */
#define NA_LIMIT_AT_CEILING 0.9
/* A layer under this share of its ceiling had room. */
#define NA_LIMIT_ROOM 0.7
/* The guest under this share of the NAS-local figure of its profile: the
 * path lost the rest. */
#define NA_LIMIT_PATH_SHARE 0.5
/* The log device's write wait is this share or more of the guest's mean
 * write latency: every sync write waited for it most of its time. */
#define NA_LIMIT_LOG_WAIT_SHARE 0.5

typedef enum na_limit_layer {
	NA_LIMIT_UNDETERMINED,
	NA_LIMIT_CACHE,
	NA_LIMIT_NETWORK,
	NA_LIMIT_LOG,
	NA_LIMIT_POOL,
	NA_LIMIT_PATH,
} na_limit_layer;
/* "undetermined", "cache", "network", "log device", "pool disks", "path" */
const char *na_limit_name(na_limit_layer l);

/* The NAS-local figures a guest run is held against: the baseline of its
 * profile on its dataset (bps, iops: of the direction that moved most
 * bytes), and the ceilings the pool showed on its own in any baseline of
 * that dataset (bytes/s; 0: not known). */
typedef struct na_limit_local {
	bool profile;              /* the profile's own baseline is known */
	double bps, iops;
	double log_write_bps;      /* the fastest log device writes (the sequential sync write's) */
	double data_write_bps, data_read_bps;  /* the data vdevs' fastest */
} na_limit_local;

/* One run, in the figures the verdict reads (rates per second over fio's
 * window; < 0: not measured). */
typedef struct na_limit_in {
	bool reads, writes;        /* the directions that did I/O */
	double read_bps, write_bps, read_iops, write_iops;
	double write_lat_us;       /* the guest's mean write latency */
	double under_floor;        /* share of reads under NA_CACHE_FLOOR_US (json+ bins); < 0 */
	const char *host, *nic;    /* the link's, for words (may be NULL) */
	const char *nfs_client;    /* the host's NFS client settings (the result's field; may be NULL) */
	int64_t link_mbit;         /* 0: unknown */
	/* the NAS side over the same window: nas false without one */
	bool nas;
	const char *nas_why;       /* why there is none, or why it is partial (may be NULL) */
	bool nas_incomplete;       /* its row marked incomplete: the sampling's totals, not the window's */
	double arc_hit_ratio;      /* < 0 unknown */
	bool fits_arc;             /* the working set fits in the ARC */
	double log_write_bps, data_write_bps, data_read_bps;
	double log_wait_us;        /* < 0 unknown */
	double amplification;      /* < 0 unknown */
	const na_limit_local *local;  /* NULL: no baseline of the dataset */
	/* A group run's (0 for one VM): its VMs that ran the whole job, and
	 * those on the host whose link is held (host, nic, link_mbit), with
	 * the bytes/s through that link (the direction that moved most): a
	 * link carries its own host's VMs, not the group's sum. */
	int vms, link_vms;
	double link_bps;
	/* A group's pool row (result_group_nas) records neither the ARC nor
	 * the log's write wait: its reads cannot rule the cache out, and its
	 * log is held against its ceiling alone. */
	bool pool_totals_only;
} na_limit_in;

typedef struct na_limit {
	na_limit_layer layer;
	/* The number behind it: the share of the ceiling reached (network,
	 * log, pool), of the NAS-local figure (path), the ARC's hit ratio or
	 * the reads' share under the floor (cache); < 0 for undetermined. */
	double share;
	/* Side by side: the guest's MB/s over its profile's NAS-local, -1
	 * without that baseline (whatever the verdict). */
	double local_share;
	char evidence[400];
} na_limit;

void na_limit_of(const na_limit_in *in, na_limit *out);

/* The figures of a stored result and its NAS row (n NULL: none) into in
 * (local not set); under_floor as the caller read it from the bins. */
void na_limit_in_of_row(const na_result *r, const struct na_nas_run *n, uint64_t working_set,
                        double under_floor, na_limit_in *in);
/* Adds a NAS-local result and its row to l (the profile's own when same is
 * true): the ceilings are the fastest any baseline showed. */
void na_limit_local_add(na_limit_local *l, const na_result *r, const struct na_nas_run *n, bool same);

/* ---- a group run (limits_group.c; docs/limits.md, "Group runs") ---- */
/* A member of a group run as its group's verdict reads it: its result's
 * fields (the strings the caller's). */
typedef struct na_limit_member {
	int64_t id;                 /* its result */
	const char *host, *nic, *nfs_client, *export_path, *servers;
	int64_t link_mbit;          /* 0: not recorded */
	double read_bps, write_bps; /* its whole run's (its window's are not stored) */
} na_limit_member;
/* r's fields, pointing into r. */
na_limit_member na_limit_member_of(const na_result *r);
/* Group g's figures into in (local not set), for na_limit_of to judge as
 * one run: its window's sums; its pool's rates over the window (pools
 * p[0..n_pools): none, several, or one whose figures are not the window's
 * leave no NAS side); the link of the host whose VMs came nearest to it,
 * m[0..n) the VMs that ran the whole job, the group's window bytes of each
 * direction split among its hosts by their VMs' whole-run shares;
 * under_floor from the members' merged read bins (< 0: none). */
void na_limit_in_of_group(const na_group_row *g, const na_group_nas_row *p, size_t n_pools,
                          const na_limit_member *m, size_t n, double under_floor, na_limit_in *in);
/* Members' fields copied (results --json gathers them as its listing reads
 * them: no query may run inside it). */
typedef struct na_limit_members {
	na_limit_member *v;
	size_t n;
} na_limit_members;
int na_limit_members_add(na_limit_members *ms, const na_result *r, vs_error *err);
void na_limit_members_free(na_limit_members *ms);

/* limits_store.c: stored result r's verdict, from its NAS row, its reads'
 * bins and the NAS-local baselines (site = nas, status ok) of its export
 * among bases; a baseline's own says it is the ceiling. */
/* The NAS-local results of s, read before any verdict (no query runs
 * inside another's: a central database lists through one cursor). */
typedef struct na_limit_bases {
	na_store *s;
	struct na_limit_base *v;
	size_t n;
} na_limit_bases;
int na_limit_bases_load(na_store *s, na_limit_bases *b, vs_error *err);
void na_limit_bases_free(na_limit_bases *b);
int na_limit_of_stored(na_store *s, const na_limit_bases *bases, const na_result *r, na_limit *out,
                       vs_error *err);
/* The same for result id (none: an "undetermined" saying so). */
int na_limit_of_id(na_store *s, const na_limit_bases *bases, int64_t id, na_limit *out, vs_error *err);
/* The verdict of the group run result_id is a member of, from the group's
 * row, its pool rows, its complete members' results (those in known, the
 * others read: known NULL or partial only outside a listing) and bins, and
 * the baselines of their export; an incomplete group's is undetermined. */
int na_limit_of_group(na_store *s, const na_limit_bases *bases, int64_t result_id,
                      const na_limit_members *known, na_limit *out, vs_error *err);
/* {"layer": "network", "share": 0.96, "evidence": "..."}; share null when
 * undetermined. */
json_t *na_limit_json(const na_limit *l);

#endif
