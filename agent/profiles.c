/* The seeds' workloads as fio profiles.  Defaults follow the seeds: 8 GiB
 * files, 60 s, direct I/O with libaio; --size/--runtime/--ramp/--dir
 * override them. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"
#include "profiles.h"

/* The one profile that writes zeros: named, because the profile table's
 * layout is shared with bench's job-file profile. */
#define DD_ZEROS "seqwrite-4m-dd-zeros"

const na_profile na_profiles[] = {
	{"randwrite-4k-qd32x4", "seeds 000/001: 4K random write, queue depth 32, 4 jobs on one file",
	 "randwrite", "4k", 32, 4, -1, "libaio", true, 0},
	{"randread-4k-qd32x4", "seeds 000/001: 4K random read, queue depth 32, 4 jobs on one file",
	 "randread", "4k", 32, 4, -1, "libaio", true, 0},
	{"seqwrite-1m-qd8", "seeds 000/001: 1M sequential write, queue depth 8",
	 "write", "1M", 8, 1, -1, "libaio", true, 0},
	{"randrw-4k-read0", "seed 002: 4K random, 0% read (I/O Analyzer mix)",
	 "randrw", "4k", 16, 1, 0, "libaio", true, 0},
	{"randrw-4k-read50", "seed 002: 4K random, 50% read",
	 "randrw", "4k", 16, 1, 50, "libaio", true, 0},
	{"randrw-4k-read70", "seed 002: 4K random, 70% read",
	 "randrw", "4k", 16, 1, 70, "libaio", true, 0},
	{"randrw-4k-read100", "seed 002: 4K random, 100% read",
	 "randrw", "4k", 16, 1, 100, "libaio", true, 0},
	{"randread-4k-qd1", "seed 003: 4K random read, queue depth 1",
	 "randread", "4k", 1, 1, -1, "libaio", true, 0},
	{"randwrite-4k-qd1", "seed 003: 4K random write, queue depth 1",
	 "randwrite", "4k", 1, 1, -1, "libaio", true, 0},
	{"randwrite-4k-qd16", "seed 003: 4K random write, queue depth 16",
	 "randwrite", "4k", 16, 1, -1, "libaio", true, 0},
	{"randrw-4k-qd16", "seed 003: 4K random read/write 50/50, queue depth 16",
	 "randrw", "4k", 16, 1, 50, "libaio", true, 0},
	{"seqwrite-4m-dd", "seed 004: 4M sequential writes through the page cache, like dd, of "
	 "random data (incompressible)", "write", "4M", 1, 1, -1, "psync", false, 0},
	{DD_ZEROS, "seed 004 as it ran (dd if=/dev/zero): 4M sequential writes of zeros, which "
	 "ZFS compression shrinks to almost nothing",
	 "write", "4M", 1, 1, -1, "psync", false, 0},
	{"metadata-20k-files", "seed 003: create 20,000 small files, read them randomly, then in order",
	 "write", "4k", 1, 1, -1, "psync", false, 20000},
};
const size_t na_n_profiles = sizeof(na_profiles) / sizeof(na_profiles[0]);

const na_profile *na_profile_find(const char *name)
{
	for (size_t i = 0; i < na_n_profiles; i++)
		if (strcmp(na_profiles[i].name, name) == 0)
			return &na_profiles[i];
	return NULL;
}

bool na_profile_zeros(const na_profile *p)
{
	return !strcmp(p->name, DD_ZEROS);
}

int64_t na_profile_footprint(const na_profile *p, const char *size)
{
	return p->nrfiles > 0 ? (int64_t)p->nrfiles * METADATA_FILE_SIZE : na_parse_size(size);
}

const char *na_profile_line(const na_profile *p, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%-20s rw=%s bs=%s iodepth=%d numjobs=%d", p->name, p->rw, p->bs,
	                 p->iodepth, p->numjobs);
	if (p->rwmixread >= 0 && n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " rwmixread=%d", p->rwmixread);
	if (p->nrfiles > 0 && n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " nrfiles=%d", p->nrfiles);
	if (n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " ioengine=%s direct=%d", p->ioengine, p->direct);
	if (na_profile_zeros(p) && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " zero_buffers=1");
	return buf;
}

static char *join(char *a, const char *b)
{
	size_t la = a ? strlen(a) : 0, lb = strlen(b);
	char *s = realloc(a, la + lb + 1);
	if (!s) {
		free(a);
		return NULL;
	}
	memcpy(s + la, b, lb + 1);
	return s;
}

/* Three timed phases over many small files: create, random read, sequential
 * read (stonewall makes each wait for the one before). */
static char *metadata_jobs(const na_profile *p, char *job)
{
	char buf[512];
	snprintf(buf, sizeof(buf),
	         "\n[create]\nrw=write\nnrfiles=%d\nfilesize=%d\nsize=%lld\nfile_service_type=sequential\n"
	         "openfiles=64\n"
	         "\n[read-random]\nstonewall=1\nrw=read\nnrfiles=%d\nfilesize=%d\nsize=%lld\n"
	         "file_service_type=random\nopenfiles=64\n"
	         "\n[read-sequential]\nstonewall=1\nrw=read\nnrfiles=%d\nfilesize=%d\nsize=%lld\n"
	         "file_service_type=sequential\nopenfiles=64\n",
	         p->nrfiles, METADATA_FILE_SIZE, (long long)na_profile_footprint(p, NULL), p->nrfiles,
	         METADATA_FILE_SIZE, (long long)na_profile_footprint(p, NULL), p->nrfiles,
	         METADATA_FILE_SIZE, (long long)na_profile_footprint(p, NULL));
	return join(job, buf);
}

char *na_job_file(const na_profile *p, const na_job_overrides *o)
{
	char buf[1024];
	int n = snprintf(buf, sizeof(buf),
	                 "# nfsagent profile %s: %s\n[global]\nioengine=%s\ndirect=%d\nbs=%s\n"
	                 "directory=%s\ngroup_reporting=1\n",
	                 p->name, p->summary, p->ioengine, p->direct, p->bs, o->dir);
	/* One file for all the jobs, as the seeds' --filename: numjobs=4 works
	 * on one working set of size, not four (what the NAS's cache holds). */
	if (p->nrfiles == 0 && n > 0 && (size_t)n < sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n,
		              "filename=" NA_PROFILE_FILE "\nsize=%s\ntime_based=1\nruntime=%ld\n"
		              "ramp_time=%ld\n%s",
		              o->size, o->runtime_s, o->ramp_s, na_profile_zeros(p) ? "zero_buffers=1\n" : "");
	char *job = join(NULL, buf);
	if (job && p->nrfiles > 0)
		return metadata_jobs(p, job);
	snprintf(buf, sizeof(buf), "\n[%s]\nrw=%s\niodepth=%d\nnumjobs=%d\n", p->name, p->rw,
	         p->iodepth, p->numjobs);
	job = job ? join(job, buf) : NULL;
	if (job && p->rwmixread >= 0) {
		snprintf(buf, sizeof(buf), "rwmixread=%d\n", p->rwmixread);
		job = join(job, buf);
	}
	return job;
}

/* fio's sizes (its "int" options, kb_base=1024 as by default): decimal
 * digits, then K, M, G, T or P in either case, each 1024 times the one
 * before, with an optional 'i' and an optional 'B' (Ki, KB); fio swaps the
 * standards' meaning there, so only "KiB" (i and B) counts in powers of
 * 1000.  A bare 'B' is bytes.  fio itself stops reading at a '.', an 'e', a
 * blank or after "0x" and takes the number before it, silently: 1.5M is 1
 * byte, 0x10M is 16 bytes, " 16M" is 16 bytes; so those are refused here,
 * as are unknown suffixes (fio ignores them too), 0 and what overflows. */
int64_t na_parse_size(const char *s)
{
	int64_t v = 0;
	const char *c = s;
	for (; *c >= '0' && *c <= '9'; c++) {
		if (v > (INT64_MAX - (*c - '0')) / 10)
			return -1;
		v = v * 10 + (*c - '0');
	}
	if (c == s || v == 0)
		return -1;
	const char *prefix = *c ? strchr("kmgtp", *c | 0x20) : NULL;
	int power = prefix ? (int)(prefix - "kmgtp") + 1 : 0;
	c += power > 0;
	bool iec = power > 0 && (*c | 0x20) == 'i';
	c += iec;
	bool unit = (*c | 0x20) == 'b';
	c += unit;
	if (*c)
		return -1;
	int64_t mult = iec && unit ? 1000 : 1024;
	for (int i = 0; i < power; i++) {
		if (v > INT64_MAX / mult)
			return -1;
		v *= mult;
	}
	return v;
}

int na_job_dir_check(const char *dir, vs_error *err)
{
	if (dir[0] != '/')
		return vs_fail(err, VS_ERR_USAGE, "must be an absolute path, such as /var/tmp");
	for (const unsigned char *c = (const unsigned char *)dir; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return vs_fail(err, VS_ERR_USAGE, "has a control character (0x%02x): remove it", *c);
		else if (strchr(":;#=$\\", *c))
			return vs_fail(err, VS_ERR_USAGE, "has '%c', which fio's job files give a meaning: "
			               "choose a folder without it", *c);
	if (dir[strlen(dir) - 1] == ' ')
		return vs_fail(err, VS_ERR_USAGE, "ends in a blank, which fio would drop: remove it");
	return VS_OK;
}

static const char *file_kind(mode_t mode)
{
	return S_ISDIR(mode) ? "a directory" : S_ISCHR(mode) ? "a character device"
	       : S_ISBLK(mode) ? "a block device" : S_ISFIFO(mode) ? "a FIFO"
	       : S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

int na_read_text_file(const char *path, const char *what, size_t max, char **text,
                      vs_error *err)
{
	*text = NULL;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer before the
	 * check below refuses it. */
	int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return vs_fail(err, VS_ERR_USAGE, "cannot read %s %s: %s", what, path, strerror(errno));
	struct stat st;
	int rc = VS_OK;
	if (fstat(fd, &st) != 0)
		rc = vs_fail(err, VS_ERR_USAGE, "cannot read %s %s: %s", what, path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		rc = vs_fail(err, VS_ERR_USAGE, "%s is %s, not a %s", path, file_kind(st.st_mode), what);
	char *buf = rc == VS_OK ? malloc(max + 2) : NULL;
	if (rc == VS_OK && !buf)
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	size_t n = 0;
	/* One byte past max tells a file that is too large. */
	while (rc == VS_OK && n <= max) {
		ssize_t got = read(fd, buf + n, max + 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			rc = vs_fail(err, VS_ERR_USAGE, "cannot read %s %s: %s", what, path, strerror(errno));
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	if (rc == VS_OK && n > max)
		rc = vs_fail(err, VS_ERR_USAGE, "%s is larger than %zu MiB: too large for a %s", path,
		             max >> 20, what);
	const char *nul = rc == VS_OK ? memchr(buf, '\0', n) : NULL;
	if (nul) {
		int line = 1;
		for (const char *c = buf; c < nul; c++)
			line += *c == '\n';
		rc = vs_fail(err, VS_ERR_USAGE, "%s:%d: a NUL byte: not a text %s", path, line, what);
	}
	if (rc != VS_OK) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*text = buf;
	return VS_OK;
}

/* ---- how long a job file runs ---- */

/* fio's time value in seconds, rounded up: a number with s, m, h or d, or
 * ms or us (no unit: seconds); -1 when it is none.  At most a year. */
static long time_value(const char *v)
{
	static const struct {
		const char *unit;
		long per_s, s;  /* seconds = n * s, or n / per_s rounded up */
	} units[] = {{"", 1, 1},    {"s", 1, 1},    {"sec", 1, 1},     {"m", 1, 60},  {"min", 1, 60},
	             {"h", 1, 3600}, {"hr", 1, 3600}, {"d", 1, 86400}, {"ms", 1000, 0}, {"msec", 1000, 0},
	             {"us", 1000000, 0}, {"usec", 1000000, 0}};
	enum { YEAR_S = 366L * 86400 };
	long n;
	size_t digits = strspn(v, "0123456789");
	char number[24];
	if (!digits || digits >= sizeof(number))
		return digits ? YEAR_S : -1;
	memcpy(number, v, digits);
	number[digits] = '\0';
	if (!na_parse_long(number, 0, YEAR_S, &n))
		n = YEAR_S;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcasecmp(v + digits, units[i].unit))
			return units[i].s ? (n > YEAR_S / units[i].s ? YEAR_S : n * units[i].s)
			                  : (n + units[i].per_s - 1) / units[i].per_s;
	return -1;
}

/* One job's seconds: its runtime and ramp_time; no runtime, or 0 (which
 * fio takes as no limit): unbounded_s. */
static long job_seconds(long runtime, long ramp, long unbounded_s)
{
	return (runtime > 0 ? runtime : unbounded_s) + (ramp > 0 ? ramp : 0);
}

/* Calls fn for each "[section]" (key NULL, value the name), each
 * "key=value" and each bare "key" (value "": a boolean set) of a job file,
 * blanks and comments (';', '#') taken off as fio does; a line is read up
 * to 255 bytes. */
static void each_option(const char *text, void (*fn)(void *ud, const char *key, const char *value),
                        void *ud)
{
	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n");
		char buf[256];
		size_t n = len < sizeof(buf) - 1 ? len : sizeof(buf) - 1;
		memcpy(buf, line, n);
		buf[n] = '\0';
		line += len + (line[len] == '\n');
		char *s = buf + strspn(buf, " \t");
		s[strcspn(s, "\r;#")] = '\0';
		for (size_t end = strlen(s); end && strchr(" \t", s[end - 1]); end--)
			s[end - 1] = '\0';
		char *eq = strchr(s, '=');
		if (*s == '[' && s[strlen(s) - 1] == ']') {
			s[strlen(s) - 1] = '\0';
			fn(ud, NULL, s + 1);
		} else if (eq) {
			char *value = eq + 1 + strspn(eq + 1, " \t");
			while (eq > s && strchr(" \t", eq[-1]))
				eq--;
			*eq = '\0';
			fn(ud, s, value);
		} else if (*s) {
			fn(ud, s, "");
		}
	}
}

typedef struct job_time {
	long unbounded_s, total, ramps, global_runtime, global_ramp, runtime, ramp;
	bool in_job, in_global;
} job_time;

/* The job before is complete: its time counts. */
static void job_done(job_time *t)
{
	long ramp = t->ramp >= 0 ? t->ramp : t->global_ramp;
	if (t->in_job) {
		t->total += job_seconds(t->runtime >= 0 ? t->runtime : t->global_runtime, ramp, t->unbounded_s);
		t->ramps += ramp > 0 ? ramp : 0;
	}
}

static void time_option(void *ud, const char *key, const char *value)
{
	job_time *t = ud;
	if (!key) {
		job_done(t);
		t->in_global = !strcmp(value, "global");
		t->in_job = !t->in_global;
		t->runtime = t->ramp = -1;
		return;
	}
	bool is_runtime = !strcmp(key, "runtime") || !strcmp(key, "timeout");
	if (is_runtime || !strcmp(key, "ramp_time"))
		*(t->in_global ? (is_runtime ? &t->global_runtime : &t->global_ramp)
		               : (is_runtime ? &t->runtime : &t->ramp)) = time_value(value);
}

static job_time job_times(const char *text, long unbounded_s)
{
	job_time t = {unbounded_s, 0, 0, -1, -1, -1, -1, false, false};
	each_option(text, time_option, &t);
	job_done(&t);
	return t;
}

long na_job_seconds(const char *text, long unbounded_s)
{
	return job_times(text, unbounded_s).total;
}

long na_job_ramp_seconds(const char *text)
{
	return job_times(text, 0).ramps;
}

typedef struct job_count {
	long total, global_numjobs, numjobs;
	bool in_job, in_global;
} job_count;

static void count_done(job_count *c)
{
	if (c->in_job)
		c->total += c->numjobs > 0 ? c->numjobs : c->global_numjobs > 0 ? c->global_numjobs : 1;
}

static void count_option(void *ud, const char *key, const char *value)
{
	job_count *c = ud;
	if (!key) {
		count_done(c);
		c->in_global = !strcmp(value, "global");
		c->in_job = !c->in_global;
		c->numjobs = -1;
	} else if (!strcmp(key, "numjobs")) {
		*(c->in_global ? &c->global_numjobs : &c->numjobs) = strtol(value, NULL, 10);
	}
}

long na_job_count(const char *text)
{
	job_count c = {0, -1, -1, false, false};
	each_option(text, count_option, &c);
	count_done(&c);
	return c.total;
}

static void libaio_option(void *ud, const char *key, const char *value)
{
	if (key && !strcmp(key, "ioengine") && !strcmp(value, "libaio"))
		*(bool *)ud = true;
}

typedef struct job_sets {
	const char *const *keys;
	const char *found;
} job_sets;

static void sets_option(void *ud, const char *key, const char *value)
{
	(void)value;
	job_sets *j = ud;
	for (size_t i = 0; key && !j->found && j->keys[i]; i++)
		if (!strcmp(key, j->keys[i]))
			j->found = j->keys[i];
}

const char *na_job_sets(const char *text, const char *const *keys)
{
	job_sets j = {keys, NULL};
	each_option(text, sets_option, &j);
	return j.found;
}

static void include_option(void *ud, const char *key, const char *value)
{
	(void)value;
	if (key && !strncmp(key, "include", 7) && (key[7] == ' ' || key[7] == '\t'))
		*(bool *)ud = true;
}

bool na_job_includes(const char *text)
{
	bool includes = false;
	each_option(text, include_option, &includes);
	return includes;
}

bool na_job_uses_libaio(const char *text)
{
	bool uses = false;
	each_option(text, libaio_option, &uses);
	return uses;
}
