/* Built-in fio profiles (the seeds' workloads) and job-file generation. */
#ifndef NFSAGENT_PROFILES_H
#define NFSAGENT_PROFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nfsagent/vsphere.h"

typedef struct na_profile {
	const char *name;
	const char *summary;  /* where it comes from, for `nfsagent profiles` */
	const char *rw;       /* fio rw= */
	const char *bs;
	int iodepth;
	int numjobs;
	int rwmixread;        /* -1 when not a mixed workload */
	const char *ioengine;
	bool direct;
	int nrfiles;          /* > 0: a metadata test over that many small files */
} na_profile;

typedef struct na_job_overrides {
	const char *size;     /* "8G" */
	long runtime_s;       /* 60 */
	long ramp_s;          /* 0 */
	const char *dir;      /* where fio writes in the guest */
} na_job_overrides;

/* The file a profile's jobs share in fio's folder; the metadata profile's
 * small files are METADATA_FILE_SIZE bytes each. */
#define NA_PROFILE_FILE "fio.test"
enum { METADATA_FILE_SIZE = 4096 };

extern const na_profile na_profiles[];
extern const size_t na_n_profiles;
const na_profile *na_profile_find(const char *name);
/* The fio job file for a profile (malloc'd).  Flags are written name=1 so
 * that fio echoes them in "job options". */
char *na_job_file(const na_profile *p, const na_job_overrides *o);
/* Whether dir can be fio's folder in the guest (VS_ERR_USAGE, saying why,
 * when not): it must be absolute, without control characters and without
 * the characters fio's job syntax gives meaning (':' separates folders, '$'
 * expands variables, ';' and '#' start comments, '=' and '\\'), and fio
 * would drop a trailing blank.  The message names the first bad character. */
int na_job_dir_check(const char *dir, vs_error *err);
/* Reads a text file of at most max bytes (malloc'd, NUL-terminated) into
 * *text; refuses, in err as VS_ERR_USAGE, what is not a regular file (a
 * directory, /dev/zero, a FIFO: opened without blocking, then checked on
 * the opened file), a file over max and one with a NUL byte (FILE:LINE).
 * what names the file in messages ("job file"). */
int na_read_text_file(const char *path, const char *what, size_t max, char **text,
                      vs_error *err);
/* How long fio runs a job file at most, in seconds: each job's runtime (or
 * fio's alias timeout) plus its ramp_time, [global]'s when it sets none,
 * summed over the jobs (stonewalled jobs run one after the other); a job
 * without a runtime runs until its I/O is done and counts unbounded_s. */
long na_job_seconds(const char *text, long unbounded_s);
/* The ramp_time of na_job_seconds, summed the same way: time fio runs but
 * does not count in a direction's runtime. */
long na_job_ramp_seconds(const char *text);
/* How many jobs fio runs for a job file: each section's numjobs ([global]'s
 * when it sets none, else 1), summed; fio numbers them from 1 in this
 * order, as its per-job logs' names show (NAME_iops.3.log). */
long na_job_count(const char *text);
/* The first of keys (NULL-terminated) the job file sets, with a value or
 * bare; NULL when it sets none. */
const char *na_job_sets(const char *text, const char *const *keys);
/* Whether a job of the file has ioengine=libaio. */
bool na_job_uses_libaio(const char *text);
/* Whether the job file includes another (fio's "include FILE" line),
 * whose options none of these functions read. */
bool na_job_includes(const char *text);
/* Whether the profile writes zeros (dd if=/dev/zero) rather than fio's
 * random, incompressible data. */
bool na_profile_zeros(const na_profile *p);
/* The bytes the profile puts on the datastore with --size size: one file
 * of that size shared by its jobs, or the metadata profile's small files. */
int64_t na_profile_footprint(const na_profile *p, const char *size);
/* One line: "name  rw=... bs=... iodepth=... numjobs=..." into buf. */
const char *na_profile_line(const na_profile *p, char *buf, size_t size);
/* A size as fio reads one ("8G", "512m", "4KiB"): its bytes, or -1 for
 * anything fio would misread or refuse. */
int64_t na_parse_size(const char *s);

#endif
