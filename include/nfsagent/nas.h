/* nfsagent's NAS side: fixed commands run over the system's ssh client, and
 * pure parsers of what Linux OpenZFS 2.2 prints (zfs, zpool, kstat files).
 *
 * The library knows nothing of vSphere, fio or SQL; its failures are the
 * one vs_error (nfsagent/error.h), so that they travel to main.c like
 * every other.  It never prints.  Statuses it uses:
 *   VS_ERR_CONNECT   the NAS is unreachable, or did not answer in time
 *   VS_ERR_HOSTKEY   the NAS's host key was refused (unknown or changed)
 *   VS_ERR_AUTH      the NAS refused our key (nothing is ever prompted)
 *   VS_ERR_FAULT     a command failed there: zpool missing, FreeBSD, ...
 *   VS_ERR_NOT_FOUND no dataset holds the path, no such pool
 *   VS_ERR_PROTOCOL  output that is not OpenZFS 2.2's, or too much of it
 *   VS_ERR_USAGE     a name that is not a ZFS name, a bad --nas-command
 * Parsers take text with its length (no NUL needed) and fill caller-owned
 * structs released with the matching nas_*_free().
 */
#ifndef NFSAGENT_NAS_H
#define NFSAGENT_NAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nfsagent/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- ssh.c: reaching the NAS ----------------------------------------- */

/* The clock the NAS side waits by: now (ms, monotonic) and a nap of ms
 * while it waits for a child.  Every wait of ssh.c and the sampler is
 * measured on it, so that a test can drive one of its own instead of the
 * wall's; nas_real_clock is CLOCK_MONOTONIC and nanosleep. */
typedef struct nas_clock {
	int64_t (*now_ms)(void *ctx);
	void (*nap_ms)(void *ctx, int ms);
	void *ctx;
} nas_clock;

extern const nas_clock nas_real_clock;

/* The command line that reaches the NAS: argv words before the remote
 * command ("ssh" "-o" "BatchMode=yes" ... "root@nas"). */
typedef struct nas_target {
	char **argv;
	size_t argc;
	char *display;      /* for messages: the host, or the override as given */
	int timeout_s;      /* a command's budget; the child is killed past it */
	size_t max_output;  /* bytes of stdout kept; more is an error */
	const nas_clock *clock;  /* NULL: nas_real_clock; must outlive the target's jobs */
} nas_target;

enum { NAS_TIMEOUT_DEFAULT_S = 20, NAS_MAX_OUTPUT_DEFAULT = 4 << 20 };

/* `ssh -o BatchMode=yes -o ConnectTimeout=10 HOST`; HOST is one word,
 * "[user@]host", not starting with '-'. */
int nas_target_host(nas_target *t, const char *host, vs_error *err);
/* An override such as "ssh -J jump root@nas", split into words (quotes and
 * backslashes as a shell has them, nothing expanded, no shell run).  When
 * its program is ssh, -o BatchMode=yes is put before its own options. */
int nas_target_command(nas_target *t, const char *command, vs_error *err);
void nas_target_free(nas_target *t);

/* Splits a command line into words: blanks separate, '...' keeps all,
 * "..." keeps all but \" \\ \$ \`, a backslash outside quotes keeps the next
 * character.  NULL-terminated malloc'd array into *words; an unclosed quote,
 * or no word at all, is VS_ERR_USAGE. */
int nas_split_words(const char *line, char ***words, size_t *n, vs_error *err);
void nas_words_free(char ***words, size_t n);

typedef struct nas_output {
	char *out;       /* stdout, NUL-terminated (len bytes before it) */
	size_t len;
	char *errtext;   /* the first KiB or so of stderr, NUL-terminated */
	int status;      /* exit status; -1 if killed or never started */
	bool stopped;    /* a job we stopped (nas_job_finish), not one that failed */
} nas_output;

void nas_output_free(nas_output *o);
/* A command run in the background, e.g. `zpool iostat` for a benchmark's
 * window: started, then finished by nas_job_finish.  what names it in
 * messages (its first word the program: "cat ..."); NULL, the words do.  A
 * fed job reads lines we send it (nas_job_say) on its stdin; another's
 * stdin is /dev/null. */
typedef struct nas_job nas_job;
int nas_job_start(const nas_target *t, const char *const *remote, const char *what, bool fed,
                  nas_job **job, vs_error *err);
/* Names it anew in messages: a parked job, once it knows what it runs. */
void nas_job_name(nas_job *job, const char *what);
/* The longest line a job is sent: room for a pool's name (nas_name_ok) and
 * three numbers. */
enum { NAS_LINE_MAX = 320 };
/* Sends line and a newline to a fed job's stdin; VS_ERR_USAGE for a line
 * longer than NAS_LINE_MAX or a job not fed, VS_ERR_CONNECT when it takes
 * no more (it ended). */
int nas_job_say(nas_job *job, const char *line, vs_error *err);
/* Whether it still runs (false once it ended: nas_job_finish says how). */
bool nas_job_running(nas_job *job);
/* Its exit status once it ended by itself (255: ssh's own failure, the
 * connection's); -1 while it runs or when a signal ended it. */
int nas_job_exit(nas_job *job);
/* Waits up to wait_ms for a line equal to line in what the job printed
 * after the last line sent to it (since it began, when none was): its
 * answer, not an earlier line; false when the wait ran out or the job
 * ended without it. */
bool nas_job_await(nas_job *job, const char *line, int wait_ms);
/* Waits up to wait_ms for the job to end, else stops it (SIGTERM, SIGKILL
 * 2 s later); *out gets what it printed (at most the target's max_output)
 * and out->stopped whether we stopped it.  VS_OK when it exited 0 or was
 * stopped, else the reason it failed.  Frees the job (*job = NULL). */
int nas_job_finish(nas_job **job, int wait_ms, nas_output *out, vs_error *err);
/* One command of several run at once (nas_run_all): remote[], then what
 * it printed (out, nas_output_free it) and rc, VS_OK or the reason in err. */
typedef struct nas_call {
	const char *const *remote;
	const char *input;  /* what its stdin reads, then its end; NULL: /dev/null */
	nas_output out;
	int rc;
	vs_error err;
	int tries;  /* how many times it was run: 2 when the first gave no answer in time */
	bool once;  /* a change: never run twice (a timed-out one may have been made) */
} nas_call;
/* Runs the calls' commands at once, each in its own session: target +
 * "--" + remote[] (NULL-terminated; each word a fixed token or a checked
 * name: ssh joins them into one remote shell line), stdin the call's input
 * (a few KiB at most) or /dev/null, the
 * target's timeout from their start and its output limit (a command past it
 * is stopped at once); the time of the slowest, not of all of them.  A
 * command that gave no answer in its time (a busy NAS) is run once more
 * (unless once),
 * the ones that did so together, with the same time: at most twice the
 * timeout in all, then "no answer from NAS in N s (asked twice)".  Each
 * call's rc is VS_OK only when its command exited 0; otherwise its err
 * holds one clear reason (nas_explain) and its out what came back.
 * Returns VS_OK when every one did, else the first failed call's rc in the
 * order given. */
int nas_run_all(const nas_target *t, nas_call *calls, size_t n);
/* The reason a failed command gives, from its exit status and stderr:
 * ssh's own failures (255), a missing program (127), else the first line
 * of stderr.  what names the command ("zpool list"). */
int nas_explain(const char *where, const char *what, int status, const char *errtext,
                vs_error *err);

/* ---- zfs_parse.c: names and zfs's tables ------------------------------ */

/* Whether name is a ZFS filesystem name nfsagent passes to a remote shell:
 * ZFS's grammar (pool starting with a letter, not a reserved word;
 * components of [A-Za-z0-9_.:-] between '/') minus the blank ZFS allows
 * (ssh would split on it). No snapshots, no bookmarks. */
bool nas_name_ok(const char *name, bool pool_only);

typedef struct nas_dataset {
	char *name;        /* "tank/vmware" */
	char *mountpoint;  /* "/mnt/tank/vmware", or "none", "legacy", "-" */
} nas_dataset;

typedef struct nas_datasets {
	nas_dataset *v;
	size_t n;
} nas_datasets;

/* `zfs list -Hp -o name,mountpoint`: one "NAME\tMOUNTPOINT" line each. */
int nas_parse_zfs_list(const char *text, size_t len, nas_datasets *out, vs_error *err);
/* The dataset whose mountpoint is path or its longest parent directory
 * ("/mnt/tank/vmware/sub" is in the one at "/mnt/tank/vmware", never in
 * "/mnt/tank/vm"); NULL if none. */
const nas_dataset *nas_dataset_for_path(const nas_datasets *l, const char *path);
void nas_datasets_free(nas_datasets *l);

/* The settings a result depends on, as measured. */
typedef struct nas_props {
	int64_t recordsize;            /* bytes */
	char sync[16];                 /* standard | always | disabled */
	char compression[24];          /* off | lz4 | zstd-3 | ... */
	char atime[8];                 /* on | off */
	char logbias[16];              /* latency | throughput */
	char primarycache[16];         /* all | metadata | none */
	int64_t special_small_blocks;  /* bytes; 0 = none */
	uint64_t objsetid;             /* names its kstat, objset-0x<hex> */
} nas_props;

/* The property list nas_parse_zfs_get expects, for `zfs get -Hp -o
 * property,value LIST DATASET`. */
extern const char nas_zfs_get_list[];
/* Every property of the list is required; one missing or not a number
 * where one is due is VS_ERR_PROTOCOL naming it. */
int nas_parse_zfs_get(const char *text, size_t len, nas_props *out, vs_error *err);

/* ---- history_parse.c: `zpool history -il POOL` run with TZ=UTC --------- */
/* *last: the Unix time of the last record that set or inherited prop on
 * dataset or one of its ancestors (0: none in the history, which is a ring
 * buffer: the oldest records go).  VS_ERR_PROTOCOL without its "History
 * for" line. */
int nas_parse_history(const char *text, size_t len, const char *dataset, const char *prop,
                      int64_t *last, vs_error *err);

/* ---- zpool_parse.c: the pool's layout and its I/O --------------------- */

/* Allocation classes in the order zpool prints them. */
typedef enum nas_class {
	NAS_CLASS_DATA,
	NAS_CLASS_DEDUP,
	NAS_CLASS_SPECIAL,
	NAS_CLASS_LOG,
	NAS_CLASS_CACHE,
	NAS_CLASS_SPARE,
	NAS_CLASS_N,
} nas_class;
const char *nas_class_name(nas_class c);  /* "data", "dedup", "special", "logs", "cache", "spare" */

typedef struct nas_vdev {
	char *name;       /* "mirror-0", "raidz2-1", "draid2:4d:12c:1s-0", "indirect-0", a disk's */
	/* "mirror", "raidz2", "draid2:4d:12c:1s", "disk" (a lone disk, also one
	 * being replaced or spared at the top), "indirect" (a removed vdev: no
	 * disks, no I/O of its own), "dspare" (a dRAID's distributed spare in
	 * the spare class: no disk either) */
	char type[32];
	nas_class cls;
	/* Its disks: its width, each replacing-N or spare-N under it counted
	 * once (for the disk it stands in for), never an interior vdev; 1 for
	 * a lone disk, 0 for indirect and dspare. */
	size_t n_leaves;
	char health[16];  /* as zpool list prints it: ONLINE, DEGRADED, ...; a spare's INUSE, AVAIL */
} nas_vdev;

typedef struct nas_layout {
	char *pool;
	char health[16];
	int64_t size, alloc;  /* bytes */
	nas_vdev *v;          /* top-level vdevs (and cache, spare devices) in zpool's order */
	size_t n;
} nas_layout;

/* `zpool list -Hpv POOL` of OpenZFS 2.1 to 2.3.  -H prints no depth: a
 * vdev with space of its own (ALLOC a number) is top-level, an
 * indirect-N too, the first of each class as well; every other line is
 * under the top-level one before it.  A line it cannot place is
 * VS_ERR_PROTOCOL naming it. */
int nas_parse_zpool_list(const char *text, size_t len, nas_layout *out, vs_error *err);
/* Top-level vdevs of a class (removed ones included), and whether the class has any. */
size_t nas_layout_count(const nas_layout *l, nas_class c);
void nas_layout_free(nas_layout *l);

/* The layout named as it is, classes in zpool's order: "2 raidz2 +
 * special mirror + log mirror + cache", "mixed: mirror, raidz1, disk",
 * "11 mirror + 2 log + spare", "1 draid2:4d:12c:1s (1 removed)": a
 * class's count when more than one, its type unless a lone disk; vdevs
 * removed (indirect) and distributed spares are no vdevs of a class. */
void nas_layout_summary(const nas_layout *l, char *buf, size_t size);
/* The data vdevs alone in the same words: "2 raidz2", "mixed: mirror, disk". */
void nas_layout_data_words(const nas_layout *l, char *buf, size_t size);

/* What the pool is doing besides serving I/O, from `zpool status POOL`
 * (print_scan_status, print_removal_status, print_raidz_expand_status):
 * "resilver 43%", "scrub 12%", "removal 5%", "expansion 80%", joined by ", "
 * when several; "" when none is in progress (a paused scrub is none). */
typedef struct nas_activity {
	char words[96];
} nas_activity;
/* Never fails: text that says nothing it knows is no activity. */
void nas_parse_zpool_status(const char *text, size_t len, nas_activity *out);
/* The pool's health as a result's provenance: "ONLINE", "DEGRADED",
 * "ONLINE (scrub 12%)", "DEGRADED (resilver 43%)".  *healthy: ONLINE with
 * nothing in progress. */
void nas_health_words(const char *state, const nas_activity *a, char *buf, size_t size,
                      bool *healthy);

/* One class's I/O over one interval, per second as zpool prints it. */
typedef struct nas_io {
	uint64_t read_ops, write_ops, read_bytes, write_bytes;
	uint64_t read_wait_ns, write_wait_ns;  /* total_wait, ops-weighted; 0 = none */
	/* syncq_wait write, weighted by the writes: the time a sync write
	 * queued before it went to the disk (a log device's writes are all
	 * sync); 0 = none */
	uint64_t sync_write_wait_ns;
} nas_io;

typedef struct nas_sample {
	int64_t at;                /* -T u: the Unix second zpool printed it (its end); 0 without */
	double end;                /* the sampler's estimate of its end (Unix s); 0 unknown */
	nas_io pool;               /* the pool's own line */
	nas_io cls[NAS_CLASS_N];   /* sums of the top-level vdevs of each class */
} nas_sample;

typedef struct nas_samples {
	nas_sample *v;
	size_t n;
} nas_samples;

/* `zpool iostat [-T u] -Hpvy -l POOL INTERVAL COUNT`, using the layout to tell
 * classes apart (-H prints no section names) and to count top-level vdevs
 * only: their figures already hold mirror copies and parity, the leaves'
 * lines that follow are never added.  A last interval cut short (the
 * sampler stopped) is left out.  With -T u, the Unix time line before an
 * interval is its `at`. */
int nas_parse_iostat(const char *text, size_t len, const nas_layout *layout, nas_samples *out,
                     vs_error *err);
void nas_samples_free(nas_samples *s);

/* ---- kstat_parse.c: /proc/spl/kstat/zfs files ------------------------- */

typedef struct nas_objset {
	bool found;
	char dataset[256];
	uint64_t writes, nwritten, reads, nread;
} nas_objset;

typedef struct nas_arc {
	bool found;
	uint64_t hits, misses, demand_data_hits, demand_data_misses, size, c_max;
} nas_arc;

typedef struct nas_zil {
	bool found;
	uint64_t commit_count, itx_count, normal_bytes, slog_bytes;
} nas_zil;

typedef struct nas_counters {
	nas_objset objset;
	nas_arc arc;
	nas_zil zil;
	/* The SNAPTIME of the last kstat's header: the NAS's gethrtime() (ns
	 * since boot, CLOCK_MONOTONIC_RAW) as it was read, which places the
	 * txgs' times, in that clock, on the reading's `date`. */
	uint64_t snaptime;
} nas_counters;

/* One or several named kstats (`cat arcstats zil POOL/objset-0x36`: each
 * begins with its two header lines), each told by its rows: dataset_name
 * for an objset, c_max for arcstats, zil_commit_count for zil.  A file not
 * of kstat's format is VS_ERR_PROTOCOL; a kind not present stays !found. */
int nas_parse_kstats(const char *text, size_t len, nas_counters *out, vs_error *err);

/* One txg of the pool's history, /proc/spl/kstat/zfs/POOL/txgs
 * (spa_txg_history_show: a procfs list, its titles "txg birth state ndirty
 * nread nwritten reads writes otime qtime wtime stime", no kstat header;
 * times in ns of gethrtime(), oldest txg first). */
typedef struct nas_txg {
	uint64_t txg;
	uint64_t ndirty;   /* bytes of dirty data it synced */
	uint64_t stime;    /* ns its sync took */
	uint64_t synced;   /* gethrtime() its sync ended (birth + otime + qtime + wtime +
	                      stime); 0 for one not committed yet (state other than C) */
} nas_txg;

typedef struct nas_txgs {
	bool found;  /* the reading held the file (its titles) */
	nas_txg *v;
	size_t n;
} nas_txgs;

/* The txgs file from its titles line on; a line that is not a txg's is
 * VS_ERR_PROTOCOL naming it. */
int nas_parse_txgs(const char *text, size_t len, nas_txgs *out, vs_error *err);
void nas_txgs_free(nas_txgs *t);

/* The counters at one moment of the NAS's clock. */
typedef struct nas_reading {
	double at;  /* Unix s on the NAS: `date +%s.%N` right after the cat */
	nas_counters c;
	nas_txgs txgs;  /* the first and the last reading only */
} nas_reading;

typedef struct nas_readings {
	nas_reading *v;
	size_t n;
	char txgs_why[200];  /* why a reading's txgs could not be read ("" when they could) */
} nas_readings;

/* `cat FILES && date +%s.%N`, once or repeated: kstats, then the stamp
 * line ("1764600000.123456789") that closes the reading.  A last reading
 * without its stamp (the job was stopped inside it) is left out, never
 * taken with counters cut short.  Each reading needs all three kstats.
 * The pool's txgs may follow them (nas_counters_job's first and last
 * readings): ones that cannot be read cost those alone, said in
 * txgs_why. */
int nas_parse_kstat_series(const char *text, size_t len, nas_readings *out, vs_error *err);
void nas_readings_free(nas_readings *r);

/* ---- query.c: the fixed commands, run and parsed -------------------- */

void nas_dataset_clear(nas_dataset *d);
/* The sampler's two background jobs, each parked: it waits for its line
 * (nas_iostat_start, nas_counters_start) before it runs, so that its ssh
 * handshake can be paid ahead of the run that starts it, before even the
 * pool is known; a parked job whose stdin ends (nfsagent gone) ends.
 * Fixed words only: what they sample comes on the line. */
/* `zpool iostat -T u -Hpvy -l POOL EVERY COUNT`. */
int nas_iostat_job(const nas_target *t, nas_job **job, vs_error *err);
/* The kstat counters with the NAS's time, `cat /proc/spl/kstat/zfs/arcstats
 * /proc/spl/kstat/zfs/zil /proc/spl/kstat/zfs/POOL/objset-0xID && date
 * +%s.%N`: at once (then the line NAS_FIRST_READING), every EVERY seconds
 * COUNT times, and once more when a line is sent to the job or its stdin
 * ends, after which it prints NAS_LAST_READING and ends.  These are the
 * readings that put the kstat deltas on fio's window;
 * nas_parse_kstat_series skips the two words.  The first and the last
 * reading also `cat /proc/spl/kstat/zfs/POOL/txgs` before the date (its
 * failure, the file missing, is theirs alone). */
#define NAS_FIRST_READING "begun"
#define NAS_LAST_READING "end"
int nas_counters_job(const nas_target *t, nas_job **job, vs_error *err);
/* Starts a parked job of nas_iostat_job, of nas_counters_job (the
 * dataset's objset objsetid), on pool every EVERY seconds COUNT times, and
 * names it so; VS_ERR_USAGE for a pool name that is not one (nothing sent),
 * VS_ERR_CONNECT when the job takes no more input. */
int nas_iostat_start(nas_job *job, const char *pool, int every, int count, vs_error *err);
int nas_counters_start(nas_job *job, const char *pool, uint64_t objsetid, int every, int count,
                       vs_error *err);

/* What the NAS says about the dataset behind one export: the dataset, its
 * settings, its pool's layout and when its recordsize last changed. */
typedef struct nas_view {
	nas_dataset dataset;  /* malloc'd name and mountpoint */
	nas_props props;
	nas_layout layout;
	/* The last record of the pool's history that set the recordsize of the
	 * dataset or of an ancestor (Unix s; 0: none in it, a ring buffer),
	 * when the history could be read: one that cannot is no failure. */
	bool history_read;
	int64_t recordsize_set;
	/* What `zpool status POOL` says is in progress (resilver, scrub,
	 * ...); when it could not be read, nothing: one that cannot is no
	 * failure either. */
	nas_activity activity;
} nas_view;
/* In two rounds of commands run at once (nas_run_all): `uname -s` and `zfs
 * list -Hp -o name,mountpoint`, then, for the dataset whose mountpoint is
 * path or its longest parent directory, `zfs get` of nas_zfs_get_list,
 * `zpool list -Hpv POOL`, `env TZ=UTC zpool history -il POOL` and `zpool
 * status POOL` (the pool: the dataset's name up to the first '/').  A failure is the one the
 * commands run one by one in that order would meet first:
 *   uname's run failing: the NAS not reached ("reaching the NAS");
 *   not Linux: VS_ERR_FAULT, FreeBSD (TrueNAS CORE) "not supported yet"
 *   ("checking the NAS");
 *   no mountpoint holding path: VS_ERR_NOT_FOUND ("finding the dataset
 *   behind PATH");
 *   else a command's run ("running 'CMD' on NAS") or its output ("reading
 *   CMD of NAS"), the history's and the status's excepted. */
int nas_read_view(const nas_target *t, const char *path, nas_view *v, vs_error *err);
void nas_view_free(nas_view *v);
/* v's dataset's settings and its pool's activity read again (`zfs get` and
 * `zpool status`, at once), into props and activity: what a kept view
 * rechecks before each bench.  Takes only v's names; safe beside another
 * thread's NAS work on other jobs.  A status that cannot be read is no
 * failure (no activity), as in nas_read_view. */
int nas_reread_settings(const nas_target *t, const nas_view *v, nas_props *props,
                        nas_activity *activity, vs_error *err);

/* ---- local.c: a job run on the NAS itself (the pool on its own) ------- */

enum { NAS_PATH_MAX = 240 };
/* Whether path can be one word of a remote shell line and of a program's
 * options: absolute, at most NAS_PATH_MAX bytes, of the characters ZFS
 * names take and '/', without "//", "." or ".." components, a trailing '/'
 * or a leading '-' after the first '/'. */
bool nas_path_ok(const char *path);
/* The bytes dataset has left (`zfs get -Hp -o value available DATASET`);
 * VS_ERR_USAGE for a name that is not one (nothing is run). */
int nas_available(const nas_target *t, const char *dataset, int64_t *bytes, vs_error *err);

/* ---- sampler.c: what the NAS did during one run --------------------- */

/* One run's window as the NAS saw it. */
typedef struct nas_window {
	int interval_s;
	int reading_s;              /* the counters' readings' interval (>= interval_s) */
	nas_samples timeline;       /* per interval, per second, as zpool printed them */
	nas_io total[NAS_CLASS_N];  /* ops and bytes over the window (rate x interval); waits: mean */
	nas_io pool_total;          /* the pool's own line (data, special, dedup and log) */
	/* The totals' span: the whole timeline (seconds = intervals x interval_s)
	 * until nas_window_select cut it to fio's measured window. */
	bool fio_window;            /* the totals are fio's window's */
	double seconds;             /* of the window zpool's intervals measured */
	double span;                /* fio's window (s), when fio_window: the totals are scaled
	                               up to it when seconds fall short (the interval in flight
	                               when the run ended is not waited for) */
	/* The kstats' deltas, over the same span as the totals: the sampler's
	 * (first reading to last) until nas_window_select put them on fio's window
	 * from the readings around its edges (or dropped them, counters false,
	 * when no readings held an edge). */
	bool counters;
	nas_readings readings;      /* at the start, every interval, at the end: the NAS's time
	                               order (one not later than the one before is left out) */
	uint64_t dataset_writes, dataset_written, dataset_reads, dataset_read;  /* the objset's */
	uint64_t arc_hits, arc_misses;  /* demand data */
	double arc_hit_ratio;           /* hits / (hits + misses); -1 without demand reads */
	uint64_t arc_size, arc_c_max;   /* after the run */
	uint64_t zil_commits, zil_slog_bytes, zil_normal_bytes;
	/* The txgs whose sync ended in the same span (the last reading's
	 * history, its times put on the NAS's clock by the reading's snaptime
	 * and date), when the history reaches back to the first reading: how
	 * many, their sync time (stime) mean and max, their dirty data mean
	 * (bytes; -1 when none ended in it).  txgs false: not known, txgs_why
	 * says why. */
	bool txgs;
	uint64_t txg_count;
	double txg_sync_mean_ns, txg_sync_max_ns, txg_dirty_mean;
	char txgs_why[200];
	/* The NAS's clock minus this machine's (s), from the last reading,
	 * bracketed by our clock: right to within clock_err, half the time
	 * between asking for it and seeing it; clock_err < 0: not measured. */
	double clock_offset, clock_err;
	char counters_why[256];     /* why the counters are not fio's window's, when they are dropped */
	bool lost;                  /* the readings failed or never came: the NAS lost or not reached */
	bool unreadable;            /* zpool iostat printed what the layout cannot place (why names
	                               the line): a shape nfsagent cannot read */
	bool incomplete;            /* something was not read: the figures are partial, never wrong */
	char why[512];              /* the first reason, when incomplete */
} nas_window;

/* Totals of a timeline of interval_s intervals. */
void nas_samples_total(const nas_samples *s, int interval_s, nas_io total[NAS_CLASS_N],
                       nas_io *pool);
/* after - before into w's counter fields (and arc_size, c_max after);
 * VS_ERR_PROTOCOL when a kstat is missing, the objset is another dataset's,
 * or a counter went back. */
int nas_counters_delta(const nas_counters *before, const nas_counters *after, nas_window *w,
                       vs_error *err);

/* This machine's clock (Unix s, sub-second): the one the NAS's and the
 * guest's are measured against. */
double nas_unix_now(void);

typedef struct nas_sampler nas_sampler;
/* Opens a sampler's two jobs (nas_iostat_job, nas_counters_job), parked:
 * a bench opens the first run's while it reads the NAS's settings, and the
 * next run's while one runs, so that no run waits for an ssh handshake.
 * Waits for neither: what they could not do is found at the stop.  t must
 * outlive the sampler. */
int nas_sampler_open(const nas_target *t, nas_sampler **s, vs_error *err);
/* Before a run: starts both jobs on layout's pool (the dataset's objset
 * objsetid) for a window of window_s, iostat every interval_s (COUNT covers
 * the window and two intervals more, so both end by themselves).  Fails
 * only on bad arguments (a pool name that is not one is found by a job
 * that runs: nothing is sent), leaving it not started: ready then gets no
 * reading, and the stop says so.  layout must outlive the sampler. */
int nas_sampler_start(nas_sampler *s, const nas_layout *layout, uint64_t objsetid, int interval_s,
                      int window_s, vs_error *err);
/* Whether both of a sampler's jobs still run: one parked long before its
 * run may have lost its session (sshd restarted) and is better opened
 * anew.  A connection that died unseen is found by nas_sampler_ready,
 * which then opens the pair anew once. */
bool nas_sampler_parked(nas_sampler *s);
/* Ends a sampler without reading it (one parked for a run that never
 * came); NULL does nothing. */
void nas_sampler_close(nas_sampler **s);
/* Waits (up to the target's timeout) for the first reading, so that the
 * NAS is sampled before the run begins; a pair whose connection is found
 * cut at its line (ssh's own failure, not a refused connection or key) is
 * opened anew, once, and waited for as long again.  false when it did not
 * come (the stop says why). */
bool nas_sampler_ready(nas_sampler *s);
/* Right after it: asks the readings' job for its last reading (the NAS's
 * clock against ours), stops iostat (the interval in flight is dropped),
 * fills w; never fails: what could not be read marks w incomplete.  Frees
 * the sampler. */
void nas_sampler_stop(nas_sampler **s, nas_window *w);
/* Cuts w's totals to fio's measured window [from, to] (Unix seconds, ramp
 * and file layout excluded): an interval ending at `end` (else at + 0.5:
 * zpool stamps whole seconds, the true end lies in [at, at + 1)) covers
 * (end - interval_s, end]; one inside counts whole, one across an edge for
 * its share inside (its rate x the seconds inside), one outside not; the
 * totals are then scaled by span / seconds when the intervals measured
 * a quarter of the window or more, but not all of it.  The counters' deltas
 * are taken between the edges, each interpolated between the readings
 * around it.  A timeline without stamps keeps its whole-span totals and
 * deltas (false).  from and to are in the NAS's clock (a caller with
 * another clock's corrects them by the clocks' difference, clock_offset). */
bool nas_window_select(nas_window *w, double from, double to);
void nas_window_free(nas_window *w);

/* Write amplification over a window, for guest_written bytes fio wrote:
 * (pool data + log writes) / guest, split into dataset / guest (NFS and
 * ESXi), pool data / dataset (records, copies, parity) and log / guest
 * (the ZIL): total = guest_to_dataset x dataset_to_data + log_share.  known
 * is false without guest bytes, dataset bytes, counters or a whole window; the pool's
 * totals and the counters' deltas are over one span (fio's window once
 * nas_window_select placed them). */
typedef struct nas_amplification {
	bool known;
	double total, guest_to_dataset, dataset_to_data, log_share;
} nas_amplification;
void nas_amplification_of(const nas_window *w, uint64_t guest_written, nas_amplification *a);
/* Reads the ARC served: the working set fits in the ARC and the demand
 * hit ratio reached min_hit_ratio. */
bool nas_cache_served(const nas_window *w, uint64_t working_set, double min_hit_ratio);

#ifdef __cplusplus
}
#endif

#endif
