/* The NAS's fixed commands: the one-off reading's, run over ssh in two
 * rounds of sessions at once, each through its pure parser, and the
 * sampler's background jobs.  Names reach the remote command line only
 * after nas_name_ok, numbers only as we format them.  The sampler's jobs
 * get theirs on stdin: the pool's name, which their shell uses quoted
 * only, and numbers (those it uses unquoted it checks are digits). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfsagent/nas.h"

typedef int (*parse_fn)(const char *text, size_t len, void *out, vs_error *err);

static const char *const zfs_list[] = {"zfs", "list", "-Hp", "-o", "name,mountpoint", NULL};

/* What a command's run (c, by nas_run_all) parses to: its failure as it
 * is, a parse error naming the command and the NAS. */
static int parsed(const nas_target *t, const nas_call *c, const char *what, parse_fn parse,
                  void *out, vs_error *err)
{
	if (c->rc != VS_OK) {
		*err = c->err;
		return c->rc;
	}
	int rc = parse(c->out.out, c->out.len, out, err);
	if (rc != VS_OK)
		vs_error_context(err, "reading %s of %s", what, t->display);
	return rc;
}

static int parse_list(const char *text, size_t len, void *out, vs_error *err)
{
	return nas_parse_zfs_list(text, len, out, err);
}

static int parse_get(const char *text, size_t len, void *out, vs_error *err)
{
	return nas_parse_zfs_get(text, len, out, err);
}

static int parse_layout(const char *text, size_t len, void *out, vs_error *err)
{
	return nas_parse_zpool_list(text, len, out, err);
}

void nas_dataset_clear(nas_dataset *d)
{
	free(d->name);
	free(d->mountpoint);
	*d = (nas_dataset){0};
}

/* rc, and zpool list POOL's layout being POOL's (not when rc failed). */
static int layout_of(const char *pool, int rc, nas_layout *out, vs_error *err)
{
	if (rc == VS_OK && strcmp(out->pool, pool) != 0) {
		rc = vs_fail(err, VS_ERR_PROTOCOL, "zpool list %s printed pool '%s'", pool, out->pool);
		nas_layout_free(out);
	}
	return rc;
}

#define KSTATS                                                                           \
	"cat", "/proc/spl/kstat/zfs/arcstats", "/proc/spl/kstat/zfs/zil",                   \
		"/proc/spl/kstat/zfs/\"$pool\"/objset-0x\"$objset\""
#define KSTAT_READ KSTATS, "&&", "date", "+%s.%N"
/* The first and the last reading add the pool's txg history (a ring of
 * 100 txgs: read twice, not every interval); a history that cannot be
 * read costs the txgs' figures alone, never the reading. */
#define TXG_READ KSTATS, "&&", "{", "cat", "/proc/spl/kstat/zfs/\"$pool\"/txgs", "2>", \
	"/dev/null", ";", "date", "+%s.%N", ";", "}"

/* The words a parked job begins with: it waits for the line "EVERY COUNT
 * OBJSET POOL" (unpark) before it does anything, and ends, 0,
 * when its stdin ends first (nfsagent gone, or a session without stdin:
 * the stop says which).  EVERY and COUNT must be digits, or it ends: the
 * words use them unquoted; OBJSET and POOL only quoted. */
#define PARKED "read", "every", "count", "objset", "pool", "||", "exit", "0", ";", "case", \
	"$every", "in", "''|*[!0-9]*)", "exit", "2", ";;", "esac", ";", "case", "$count", "in", \
	"''|*[!0-9]*)", "exit", "2", ";;", "esac", ";"

int nas_iostat_job(const nas_target *t, nas_job **job, vs_error *err)
{
	/* -T u stamps each interval: nas_window_select keeps fio's own window. */
	const char *const cmd[] = {PARKED, "zpool", "iostat", "-T", "u", "-Hpvy", "-l", "\"$pool\"",
	                           "\"$every\"", "\"$count\"", NULL};
	return nas_job_start(t, cmd, "zpool iostat", true, job, err);
}

int nas_counters_job(const nas_target *t, nas_job **job, vs_error *err)
{
	/* The shell's own words: ssh joins them into one line for the NAS's
	 * shell.  Parked until its line, then a reading at once, then
	 * NAS_FIRST_READING, then one every EVERY seconds COUNT times.  A line
	 * on stdin, or its end (nfsagent gone), is read by a helper in the
	 * background, which signals the loop; the trap kills the sleep (POSIX's
	 * wait also returns on a trapped signal) for one last reading, taken
	 * after the signal, and NAS_LAST_READING after it.  The helper and the
	 * sleep write nowhere, so neither holds the session open after the
	 * loop; a reading that fails ends it at once, and the helper with it
	 * (it signals nobody later).  The trap kills only a sleep still waited
	 * for, never a reaped one's number. */
	const char *const cmd[] = {
		PARKED, "exec", "3<&0", ";", "s=", ";", "last=", ";",
		"trap", "'last=1 ; test -z \"$s\" || kill $s 2> /dev/null'", "USR1", ";",
		"{", "read", "x", "<&3", ";", "kill", "-USR1", "$$", ";", "}", ">", "/dev/null", "2>&1",
		"&", "h=$!", ";", "trap", "'test -n \"$last\" || kill $h 2> /dev/null'", "EXIT", ";",
		TXG_READ, "||", "exit", ";", "echo", NAS_FIRST_READING, ";",
		"for", "i", "in", "$(seq", "1", "$count)", ";", "do", "test", "-z", "\"$last\"", "||",
		"break", ";", "sleep", "$every", ">", "/dev/null", "2>&1", "&", "s=$!", ";",
		"test", "-z", "\"$last\"", "&&", "wait", "$s", ";", "s=", ";",
		"test", "-z", "\"$last\"", "||", "break", ";", KSTAT_READ, "||", "exit", ";", "done", ";",
		"test", "-z", "\"$last\"", "||", "{", TXG_READ, "&&", "echo", NAS_LAST_READING, ";",
		"}", NULL};
	return nas_job_start(t, cmd, "cat /proc/spl/kstat/zfs/arcstats /proc/spl/kstat/zfs/zil", true,
	                     job, err);
}
#undef PARKED
#undef KSTAT_READ
#undef TXG_READ
#undef KSTATS

/* Sends a parked job its line, and names it what in messages from here
 * on (their first word the program). */
static int unpark(nas_job *job, const char *what, const char *pool, uint64_t objsetid, int every,
                  int count, vs_error *err)
{
	if (!nas_name_ok(pool, true))
		return vs_fail(err, VS_ERR_USAGE, "'%s' is not a ZFS pool name", pool);
	char line[NAS_LINE_MAX + 2];  /* one too long is cut past the most nas_job_say takes: refused */
	snprintf(line, sizeof(line), "%d %d %" PRIx64 " %s", every, count, objsetid, pool);
	nas_job_name(job, what);
	return nas_job_say(job, line, err);
}

int nas_iostat_start(nas_job *job, const char *pool, int every, int count, vs_error *err)
{
	char what[400];  /* the command an admin would run again */
	snprintf(what, sizeof(what), "zpool iostat -T u -Hpvy -l %s %d %d", pool, every, count);
	return unpark(job, what, pool, 0, every, count, err);
}

int nas_counters_start(nas_job *job, const char *pool, uint64_t objsetid, int every, int count,
                       vs_error *err)
{
	char what[400];  /* what each reading runs, and how often */
	snprintf(what, sizeof(what), "cat /proc/spl/kstat/zfs/arcstats /proc/spl/kstat/zfs/zil "
	         "/proc/spl/kstat/zfs/%s/objset-0x%" PRIx64 " && date +%%s.%%N, every %d s", pool, objsetid,
	         every);
	return unpark(job, what, pool, objsetid, every, count, err);
}

typedef struct history_query {
	const char *dataset, *prop;
	int64_t *last;
} history_query;

static int parse_history(const char *text, size_t len, void *out, vs_error *err)
{
	const history_query *q = out;
	return nas_parse_history(text, len, q->dataset, q->prop, q->last, err);
}

/* `uname -s`'s run c: Linux, else not supported (FreeBSD: TrueNAS CORE, not
 * yet).  The first contact: its run failing says the NAS was not reached. */
static int system_of(const nas_target *t, const nas_call *c, vs_error *err)
{
	if (c->rc != VS_OK) {
		*err = c->err;
		vs_error_context(err, "reaching the NAS");
		return c->rc;
	}
	char os[65];
	snprintf(os, sizeof(os), "%.*s", (int)strcspn(c->out.out, "\r\n"), c->out.out);
	int rc = VS_OK;
	if (strcmp(os, "FreeBSD") == 0)
		rc = vs_fail(err, VS_ERR_FAULT,
		             "%s runs FreeBSD (TrueNAS CORE): not supported yet, only Linux OpenZFS",
		             t->display);
	else if (strcmp(os, "Linux") != 0)
		rc = vs_fail(err, VS_ERR_FAULT, "%s runs '%s': not supported, only Linux OpenZFS",
		             t->display, os);
	if (rc != VS_OK)
		vs_error_context(err, "checking the NAS");
	return rc;
}

/* The dataset behind path in `zfs list`'s run c, with a name that can go
 * over ssh. */
static int dataset_of(const nas_target *t, const char *path, const nas_call *c, nas_dataset *out,
                      vs_error *err)
{
	nas_datasets all;
	*out = (nas_dataset){0};
	int rc = parsed(t, c, "zfs list", parse_list, &all, err);
	if (rc != VS_OK)
		return rc;
	const nas_dataset *d = nas_dataset_for_path(&all, path);
	if (!d)
		rc = vs_fail(err, VS_ERR_NOT_FOUND, "no dataset of %s is mounted at %s or above it",
		             t->display, path);
	else if (!nas_name_ok(d->name, false))
		rc = vs_fail(err, VS_ERR_FAULT,
		             "the dataset '%s' at %s has a name nfsagent cannot pass over ssh (a blank?)",
		             d->name, d->mountpoint);
	else if (!(out->name = strdup(d->name)) || !(out->mountpoint = strdup(d->mountpoint)))
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	if (rc != VS_OK) {
		nas_dataset_clear(out);
		vs_error_context(err, "finding the dataset behind %s", path);
	}
	nas_datasets_free(&all);
	return rc;
}

static void calls_free(nas_call *calls, size_t n)
{
	for (size_t i = 0; i < n; i++)
		nas_output_free(&calls[i].out);
}

/* Two rounds of sessions at once, not six one after another: each is a
 * whole ssh handshake (a WAN's round trips to a real NAS), and a bench
 * waits for them all before its first run.  The second round needs the
 * dataset the first finds.  Failures are taken in the order of the
 * commands, as if each had waited for the one before. */
int nas_read_view(const nas_target *t, const char *path, nas_view *v, vs_error *err)
{
	*v = (nas_view){0};
	static const char *const uname[] = {"uname", "-s", NULL};
	nas_call first[] = {{.remote = uname}, {.remote = zfs_list}};
	nas_run_all(t, first, 2);
	int rc = system_of(t, &first[0], err);
	if (rc == VS_OK)
		rc = dataset_of(t, path, &first[1], &v->dataset, err);
	calls_free(first, 2);
	if (rc != VS_OK)
		return rc;
	/* dataset_of checked the name: its pool's is one too (nas_name_ok) */
	const char *dataset = v->dataset.name;
	char pool[256];
	snprintf(pool, sizeof(pool), "%.*s", (int)strcspn(dataset, "/"), dataset);
	/* zpool prints local time: UTC makes it one */
	const char *const get[] = {"zfs", "get", "-Hp", "-o", "property,value", nas_zfs_get_list,
	                           dataset, NULL},
	                  *const list[] = {"zpool", "list", "-Hpv", pool, NULL},
	                  *const history[] = {"env", "TZ=UTC", "zpool", "history", "-il", pool, NULL},
	                  *const status[] = {"zpool", "status", pool, NULL};
	nas_call second[] = {{.remote = get}, {.remote = list}, {.remote = history}, {.remote = status}};
	nas_run_all(t, second, 4);
	rc = parsed(t, &second[0], "zfs get", parse_get, &v->props, err);
	if (rc == VS_OK)
		rc = layout_of(pool, parsed(t, &second[1], "zpool list", parse_layout, &v->layout, err),
		               &v->layout, err);
	/* The history only dates a change of recordsize: without it, bench
	 * warns by the recordsizes its results measured. */
	history_query q = {dataset, "recordsize", &v->recordsize_set};
	vs_error ignored;
	v->history_read = rc == VS_OK && parsed(t, &second[2], "zpool history", parse_history, &q,
	                                        &ignored) == VS_OK;
	/* What is in progress (a resilver, a scrub) is the results' provenance;
	 * a status that cannot be read says none. */
	if (rc == VS_OK && second[3].rc == VS_OK)
		nas_parse_zpool_status(second[3].out.out, second[3].out.len, &v->activity);
	calls_free(second, 4);
	if (rc != VS_OK)
		nas_view_free(v);
	return rc;
}

int nas_reread_settings(const nas_target *t, const nas_view *v, nas_props *props,
                        nas_activity *activity, vs_error *err)
{
	const char *dataset = v->dataset.name, *pool = v->layout.pool;
	const char *const get[] = {"zfs", "get", "-Hp", "-o", "property,value", nas_zfs_get_list,
	                           dataset, NULL},
	                  *const status[] = {"zpool", "status", pool, NULL};
	nas_call calls[] = {{.remote = get}, {.remote = status}};
	nas_run_all(t, calls, 2);
	*props = (nas_props){0};
	*activity = (nas_activity){0};
	int rc = parsed(t, &calls[0], "zfs get", parse_get, props, err);
	if (rc == VS_OK && calls[1].rc == VS_OK)
		nas_parse_zpool_status(calls[1].out.out, calls[1].out.len, activity);
	calls_free(calls, 2);
	return rc;
}

void nas_view_free(nas_view *v)
{
	nas_dataset_clear(&v->dataset);
	nas_layout_free(&v->layout);
}
