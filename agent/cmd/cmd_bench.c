/* nfsagent bench: fio in the guest through VMware Tools, repeated, every
 * repetition recorded with its provenance, then median and spread. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/limits.h"
#include "analysis/netbound.h"
#include "ops/bench.h"
#include "ops/bench_window.h"
#include "ops/campaign.h"
#include "cmd/cmd_bench_group.h"
#include "analysis/stats.h"
#include "cmd/cmd.h"
#include "interrupts.h"

static const char usage[] =
	"Usage: nfsagent bench --vm VM (--profile P ... | --job FILE) [OPTIONS]\n"
	"Runs fio in VM's guest through VMware Tools (no SSH), records every repetition\n"
	"in the results database with where it came from, and prints median and spread.\n\n"
	"  --vm VM               repeat it (--vm A --vm B) to run the same profile in\n"
	"                        several VMs at once: a group run (docs/groups.md)\n"
	"  --vms GLOB            every VM whose name matches GLOB, e.g. 'fleet-*'\n"
	"  --profile NAME        a built-in profile (nfsagent profiles); repeatable\n"
	"  --job FILE            a fio job file of your own instead\n"
	"  --repeat N            repetitions of each profile, interleaved (default 3)\n"
	"  --label KEY=VALUE     recorded with each result, e.g. recordsize=16K;\n"
	"                        repeatable\n"
	"  --size 8G --runtime 60 --ramp 0   fio overrides (seconds)\n"
	"  --dir /path           where fio writes in the guest (default /var/tmp)\n"
	"  --datastore DS        the VM's datastore under test (default: its home)\n"
	"  --nas [USER@]HOST     also measure the ZFS NAS behind the datastore over\n"
	"                        ssh -o BatchMode=yes HOST: its dataset's settings, and\n"
	"                        what its pool did during each run (see nfsagent nas)\n"
	"  --nas-command CMD     reach the NAS with CMD instead, e.g. 'ssh -J jump nas';\n"
	"                        a NAS that cannot be read is one warning: the runs\n"
	"                        are recorded without the NAS side\n"
	"  --nas-baseline        then run each profile once on the NAS itself, in the\n"
	"                        dataset (site=nas): the pool without ESXi (docs/limits.md)\n"
	"  --guest-user USER     or NFSAGENT_GUEST_USER\n"
	"  --guest-password-file FILE   or NFSAGENT_GUEST_PASSWORD\n"
	"  --db FILE             results database\n"
	"                        (default $XDG_DATA_HOME/nfsagent/results.db)\n"
	"  --central URL         at the end, push the results to this central\n"
	"                        PostgreSQL database (or NFSAGENT_CENTRAL; see push)\n"
	"Examples:\n"
	"  nfsagent bench --vm fiotest --profile randread-4k-qd1 --repeat 5\n"
	"  nfsagent bench --vm fiotest --profile randwrite-4k-qd16 --datastore tank-16k \\\n"
	"        --label recordsize=16K --nas root@truenas\n"
	"  nfsagent bench --vms 'fleet-*' --profile randwrite-4k-qd16 --repeat 3\n\n"
	NA_CONNECT_HELP;

enum { OPT_VM = NA_OPT_FIRST_COMMAND_OPTION, OPT_PROFILE, OPT_JOB, OPT_REPEAT, OPT_LABEL,
       OPT_SIZE, OPT_RUNTIME, OPT_RAMP, OPT_DIR, OPT_DATASTORE, OPT_GUEST_USER,
       OPT_GUEST_PW_FILE, OPT_DB, OPT_NAS, OPT_NAS_COMMAND, OPT_CENTRAL, OPT_VMS, OPT_BASELINE };
enum { MAX_PROFILES = 32, MAX_JOB_FILE = 1 << 20 };

typedef struct bench_args {
	const char *vm;          /* the first --vm */
	/* Every --vm, one past the most a group takes, to say that it is too many. */
	const char *vms[NA_GROUP_MAX_VMS + 1];
	size_t n_vms;
	const char *glob;        /* --vms */
	const char *job_path, *datastore, *guest_user, *guest_pw_file, *db, *central;
	const char *nas, *nas_command;
	bool baseline;           /* --nas-baseline */
	nas_target target;       /* the NAS, when --nas or --nas-command is given */
	const na_profile *profiles[MAX_PROFILES];
	size_t n_profiles;
	na_labels labels;
	long repeat;
	na_job_overrides job;
	char *job_text;          /* --job's content, read before anything runs */
	char job_profile[96];    /* the profile its results are recorded as */
} bench_args;

static int add_label(bench_args *a, const char *arg, na_outcome *out)
{
	vs_error err = {0};
	if (na_labels_add(&a->labels, arg, &err) == VS_OK)
		return 1;
	na_usage_error(out, "--label: %s", err.message);
	return -1;
}

static int set_dir(bench_args *a, const char *arg, na_outcome *out)
{
	vs_error err = {0};
	if (na_job_dir_check(arg, &err) != VS_OK) {
		na_usage_error(out, "--dir %s", err.message);
		return -1;
	}
	a->job.dir = arg;
	return 1;
}

static int number(const char *arg, const char *flag, long *v, long min, long max, na_outcome *out)
{
	if (na_parse_long(arg, min, max, v))
		return 1;
	na_usage_error(out, "%s wants a whole number from %ld to %ld, not '%s'", flag, min, max, arg);
	return -1;
}

static int on_option(int opt, const char *arg, void *ud, na_outcome *out)
{
	bench_args *a = ud;
	switch (opt) {
	case OPT_VM:
		if (a->n_vms <= NA_GROUP_MAX_VMS)
			a->vms[a->n_vms++] = arg;
		if (!a->vm)
			a->vm = arg;
		return 1;
	case OPT_VMS: a->glob = arg; return 1;
	case OPT_JOB: a->job_path = arg; return 1;
	case OPT_DATASTORE: a->datastore = arg; return 1;
	case OPT_GUEST_USER: a->guest_user = arg; return 1;
	case OPT_GUEST_PW_FILE: a->guest_pw_file = arg; return 1;
	case OPT_DB: a->db = arg; return 1;
	case OPT_CENTRAL: a->central = arg; return 1;
	case OPT_NAS: a->nas = arg; return 1;
	case OPT_NAS_COMMAND: a->nas_command = arg; return 1;
	case OPT_BASELINE: a->baseline = true; return 1;
	case OPT_DIR: return set_dir(a, arg, out);
	case OPT_LABEL: return add_label(a, arg, out);
	case OPT_REPEAT: return number(arg, "--repeat", &a->repeat, 1, NA_MAX_REPEAT, out);
	case OPT_RUNTIME: return number(arg, "--runtime", &a->job.runtime_s, 1, NA_MAX_RUNTIME_S, out);
	case OPT_RAMP: return number(arg, "--ramp", &a->job.ramp_s, 0, NA_MAX_RUNTIME_S, out);
	case OPT_SIZE:
		if (na_parse_size(arg) <= 0) {
			na_usage_error(out, "--size wants a size like 8G, not '%s'", arg);
			return -1;
		}
		a->job.size = arg;
		return 1;
	case OPT_PROFILE:
		if (a->n_profiles == MAX_PROFILES) {
			na_usage_error(out, "too many --profile");
			return -1;
		}
		if (!(a->profiles[a->n_profiles++] = na_profile_find(arg))) {
			na_usage_error(out, "no profile is named '%s' (see nfsagent profiles)", arg);
			return -1;
		}
		return 1;
	default: return 0;
	}
}

/* A job file's results are recorded as its own profile: the file's name
 * (without .fio; other than letters, digits, '.', '-' and '_' become '_')
 * and a hash of its text, so that two different job files are never pooled
 * into one median, whatever their names. */
static void job_profile_name(const char *path, const char *text, char *out, size_t size)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t len = strlen(base);
	if (len > 4 && !strcmp(base + len - 4, ".fio"))
		len -= 4;
	if (len > 64)
		len = 64;
	uint64_t h = 14695981039346656037u;  /* FNV-1a */
	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		h = (h ^ *c) * 1099511628211u;
	size_t n = 0;
	for (; n < len && n + 1 < size; n++)
		out[n] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-",
		                base[n]) ? base[n] : '_';
	snprintf(out + n, size - n, "%s%012llx", n ? "-" : "job-",
	         (unsigned long long)(h >> 16));
}

/* Several VMs at once: more than one --vm, or a glob. */
static bool is_group(const bench_args *a)
{
	return a->n_vms > 1 || a->glob;
}

static vs_status read_job(bench_args *a, vs_error *err)
{
	vs_error why = {0};
	if (na_read_text_file(a->job_path, "job file", MAX_JOB_FILE, &a->job_text, &why) != VS_OK)
		return vs_fail(err, VS_ERR_USAGE, "%s", why.message);
	if (!a->job_text[strspn(a->job_text, " \t\r\n")])
		return vs_fail(err, VS_ERR_USAGE, "job file %s is empty", a->job_path);
	job_profile_name(a->job_path, a->job_text, a->job_profile, sizeof(a->job_profile));
	return is_group(a) ? na_group_job_check(a->job_text, err) : VS_OK;
}

static vs_status check(void *args, int argc, char **argv, na_outcome *out)
{
	bench_args *a = args;
	if (argc > 0)
		return na_usage_error(out, "unexpected argument '%s'", argv[0]);
	if (!a->vm && !a->glob)
		return na_usage_error(out, "--vm or --vms is required");
	if (a->n_vms > NA_GROUP_MAX_VMS)
		return na_usage_error(out, "more than %d VMs in one group", NA_GROUP_MAX_VMS);
	const char *twice = na_bench_group_twice(a->vms, a->n_vms);
	if (twice)
		return na_usage_error(out, "--vm %s is named twice", twice);
	if (!a->n_profiles == !a->job_path)
		return na_usage_error(out, "give --profile (one or more) or --job, not both");
	if (a->nas && a->nas_command)
		return na_usage_error(out, "give one of --nas and --nas-command");
	if (a->baseline && ((!a->nas && !a->nas_command) || is_group(a)))
		return na_usage_error(out, "--nas-baseline needs --nas or --nas-command and one --vm");
	vs_error err = {0};
	if ((a->nas && nas_target_host(&a->target, a->nas, &err) != VS_OK) ||
	    (a->nas_command && nas_target_command(&a->target, a->nas_command, &err) != VS_OK))
		return na_usage_error(out, "%s: %s", a->nas ? "--nas" : "--nas-command", err.message);
	/* A busy NAS's time, bounded: one stuck NAS never holds a run long. */
	a->target.timeout_s = NA_BENCH_NAS_TIMEOUT_S;
	/* Its URL is input: refused before connecting, not after the runs. */
	a->central = na_central_url(a->central, NULL);
	if (a->central && na_central_check_url(a->central, &err) != VS_OK)
		return vs_fail(&out->err, VS_ERR_USAGE, "%s", err.message);
	return a->job_path ? read_job(a, &out->err) : VS_OK;
}

/* ---- guest credentials, never from argv ---------------------------------------- */

static char *guest_password(const bench_args *a, vs_error *err)
{
	if (a->guest_pw_file)
		return na_read_secret(a->guest_pw_file, err);
	const char *env = getenv("NFSAGENT_GUEST_PASSWORD");
	if (!env)
		vs_fail(err, VS_ERR_USAGE,
		        "no guest password: set NFSAGENT_GUEST_PASSWORD or use --guest-password-file");
	return env ? strdup(env) : NULL;
}

/* ---- where the benchmark runs ------------------------------------------------------- */

static int resolve(const bench_args *a, na_inventory *inv, na_bench *b, vs_error *err)
{
	vs_vm *vm = na_find_vm(inv, a->vm, err);
	if (!vm)
		return VS_ERR_NOT_FOUND;
	char *home = NULL, *path = NULL;
	if (!a->datastore && vs_dspath_split(vm->vmx_path ? vm->vmx_path : "", &home, &path, err) != VS_OK)
		return VS_ERR_PROTOCOL;
	vs_datastore *ds = na_find_datastore(inv, a->datastore ? a->datastore : home, err);
	free(home);
	free(path);
	b->vm = vm;
	b->ds = ds;
	b->host = na_host_by_moref(inv, vm->host);
	if (!ds)
		return VS_ERR_NOT_FOUND;
	return na_bench_disks(b, err);
}

/* ---- output ---------------------------------------------------------------------- */

static void print_dir(const char *name, const na_fio_dir *d)
{
	if (!d->present)
		return;
	printf("  %s %.0f IOPS  %.1f MB/s  avg %.3f ms", name, d->iops, d->bw_bytes / 1e6,
	       d->lat_mean_us / 1000);
	if (d->p99_us >= 0)
		printf("  p99 %.3f ms", d->p99_us / 1000);
}

static void print_outcome(const na_bench *b, const na_profile *p, int repetition,
                          const na_bench_outcome *o)
{
	printf("%s%s #%d:", b->site ? "on the NAS: " : "", p->name, repetition);
	const na_fio_dir *read = o->fio.mixed ? &o->fio.mixed_dir : &o->fio.read;
	if (!o->ok) {
		printf("  FAILED: %s", o->error ? o->error : "unknown error");
	} else {
		print_dir(o->fio.mixed ? "mixed" : "read", read);
		/* Without NAS access too: reads faster than an NFS round trip. */
		char flag[64];
		printf("%s", na_cache_flag(read, flag, sizeof(flag)));
		print_dir("write", &o->fio.write);
	}
	printf("  (result %lld)\n", (long long)o->row);
	if (o->ok && o->nas) {
		char line[768];
		int64_t size = b->job.size ? na_parse_size(b->job.size) : 0;
		na_nas_line(&o->nas_window, &b->nas_view.layout, read, &o->fio.write,
		                  size > 0 ? (uint64_t)size : 0, line, sizeof(line));
		printf("  NAS: %s\n", line);
	}
	fflush(stdout);
}

static void print_local(void *ud, const na_bench *b, const na_profile *p, const na_bench_run_entry *e)
{
	(void)ud;
	print_outcome(b, p, e->repetition, &e->o);
}

static void print_run(void *ud, na_bench *const *m, size_t n, const na_profile *p,
                      const na_bench_group_run *r)
{
	(void)ud;
	(void)n;
	print_outcome(m[0], p, r->repetition, &r->m[0].o);
}

/* Per profile and direction: values[rep][metric] of the runs that succeeded. */
typedef struct tally {
	double v[2][4][64];  /* [read|write][iops, MB/s, avg ms, p99 ms][repetition] */
	size_t n[2];
	bool mixed;          /* read is a mixed job's both directions (unified_rw_reporting) */
} tally;

static void tally_add(tally *t, const na_bench_outcome *o)
{
	const na_fio_dir *dirs[2] = {o->fio.mixed ? &o->fio.mixed_dir : &o->fio.read, &o->fio.write};
	t->mixed |= o->ok && o->fio.mixed;
	for (int d = 0; d < 2; d++) {
		if (!o->ok || !dirs[d]->present || t->n[d] == 64)
			continue;
		size_t i = t->n[d]++;
		t->v[d][0][i] = dirs[d]->iops;
		t->v[d][1][i] = dirs[d]->bw_bytes / 1e6;
		t->v[d][2][i] = dirs[d]->lat_mean_us / 1000;
		t->v[d][3][i] = dirs[d]->p99_us >= 0 ? dirs[d]->p99_us / 1000 : -1;
	}
}

/* "median (min-max)" with `digits` decimals. */
static void cell(char *buf, size_t size, const double *v, size_t n, int digits)
{
	na_spread s = na_spread_of(v, n);
	if (!s.n)
		snprintf(buf, size, "-");
	else if (s.n == 1)
		snprintf(buf, size, "%.*f", digits, s.median);
	else
		snprintf(buf, size, "%.*f (%.*f-%.*f)", digits, s.median, digits, s.min, digits, s.max);
}

/* The engine's word on the IOPS runs: "±4.1%, sees ±9%" (their spread,
 * from the logs as compare uses it, and the change compare could see against
 * as many runs), or "too few runs to tell". */
static void noise_cell(char *buf, size_t size, const double *v, size_t n)
{
	na_group g = na_group_of(v, n);
	if (g.n < NA_NOISE_MIN_RUNS)
		snprintf(buf, size, "%s", na_noise_name(NA_NOISE_TOO_FEW));
	else
		snprintf(buf, size, "±%.1f%%, sees +%.0f%%/-%.0f%%", na_group_spread_pct(&g),
		         na_mde(g.sd, g.n, g.n, NA_ALPHA, 0) * 100,
		         na_mde_drop(g.sd, g.n, g.n, NA_ALPHA, 0) * 100);
}

/* A profile's median MB/s in a direction that the host's link holds up
 * (docs/network-ceiling.md): said under the table, once per row; not for
 * a mixed job, whose figure is both directions. */
static void print_bound(const na_bench *b, const char *profile, int d, const tally *t)
{
	char line[256];
	na_spread s = na_spread_of(t->v[d][1], t->n[d]);
	if (s.n && !t->mixed && na_network_bound(b->host->name, &b->link, s.median * 1e6, line, sizeof(line)))
		printf("%s %s: %s\n", profile, d ? "write" : "read", line);
}

static void print_summary(const bench_args *a, const na_bench *b, const na_profile *const *profiles,
                          tally *t)
{
	static const char *const headers[] = {"PROFILE", "DIR", "RUNS", "IOPS", "MB/s", "AVG ms",
	                                      "P99 ms", "RUN-TO-RUN"};
	static const int digits[] = {0, 1, 3, 3};
	na_table *table = na_table_new(8, headers);
	size_t rows = 0;
	for (size_t p = 0; table && p < a->n_profiles + !!a->job_path; p++)
		for (int d = 0; d < 2; d++) {
			if (!t[p].n[d])
				continue;
			rows++;
			char runs[24], cells[4][96], noise[48];
			snprintf(runs, sizeof(runs), "%zu", t[p].n[d]);
			for (int m = 0; m < 4; m++)
				cell(cells[m], sizeof(cells[m]), t[p].v[d][m], t[p].n[d], digits[m]);
			noise_cell(noise, sizeof(noise), t[p].v[d][0], t[p].n[d]);
			const char *row[] = {profiles[p]->name, d ? "write" : "read", runs, cells[0], cells[1],
			                     cells[2], cells[3], noise};
			na_table_add(table, row);
		}
	/* Nothing succeeded (or nothing ran): the lines above said why. */
	if (rows) {
		printf("\nMedian (min-max) over the repetitions that succeeded:\n");
		na_table_print(table, stdout);
		printf("RUN-TO-RUN: the IOPS runs' typical spread, and the rise/drop nfsagent compare "
		       "could see\nagainst as many runs of something else (80%% of the time).\n");
		for (size_t p = 0; p < a->n_profiles + !!a->job_path; p++)
			for (int d = 0; d < 2; d++)
				print_bound(b, profiles[p]->name, d, &t[p]);
	}
	na_table_free(&table);
}

/* What limited each run. */
static void print_limits(const na_bench *b, const na_profile *const *profiles, const na_bench_result *r)
{
	bool said = false;
	na_limit_bases bases;
	vs_error err = {0};
	if (na_limit_bases_load(b->s->store, &bases, &err) != VS_OK)
		na_limit_bases_free(&bases);  /* none: each run's verdict says so */
	for (size_t i = 0; i < r->n; i++) {
		const na_bench_group_run *e = &r->runs[i];
		na_limit l;
		if (!e->m[0].o.row || na_limit_of_id(b->s->store, &bases, e->m[0].o.row, &l, &err) != VS_OK)
			continue;
		printf("%s  %s #%d: limited by %s: %s\n", said ? "" : "\nWhat limited each run:\n",
		       profiles[e->profile]->name, e->repetition, na_limit_name(l.layer), l.evidence);
		said = true;
	}
	na_limit_bases_free(&bases);
}

/* The summary table of the runs that succeeded, per profile and direction. */
static void print_result(const bench_args *a, const na_bench *b, const na_profile *const *profiles,
                         size_t n, const na_bench_result *r)
{
	tally *t = calloc(n + 1, sizeof(tally));
	if (!t)
		return;
	for (size_t i = 0; i < r->n; i++)
		tally_add(&t[r->runs[i].profile], &r->runs[i].m[0].o);
	print_summary(a, b, profiles, t);
	free(t);
	print_limits(b, profiles, r);
}

static json_t *dir_json(const na_fio_dir *d)
{
	if (!d->present)
		return json_null();
	return json_pack("{s:f, s:f, s:f, s:o?}", "iops", d->iops, "mb_s", d->bw_bytes / 1e6,
	                 "lat_avg_ms", d->lat_mean_us / 1000, "p99_ms",
	                 d->p99_us >= 0 ? json_real(d->p99_us / 1000) : NULL);
}

/* The run's network-bound line, reads before writes; NULL if neither is,
 * or for a mixed job (unified_rw_reporting): its one figure is both
 * directions, and a link carries its speed each way. */
static json_t *bound_json(const na_bench *b, const na_fio_result *f)
{
	const na_fio_dir *dirs[] = {&f->read, &f->write};
	char line[256];
	for (int d = 0; !f->mixed && d < 2; d++)
		if (dirs[d]->present &&
		    na_network_bound(b->host->name, &b->link, dirs[d]->bw_bytes, line, sizeof(line)))
			return json_string(line);
	return NULL;
}

/* What limited the run recorded as row (null: none recorded). */
static json_t *limit_json(const na_bench *b, int64_t row)
{
	na_limit l;
	na_limit_bases bases;
	vs_error err = {0};
	bool known = row && na_limit_bases_load(b->s->store, &bases, &err) == VS_OK &&
	             na_limit_of_id(b->s->store, &bases, row, &l, &err) == VS_OK;
	na_limit_bases_free(&bases);
	return known ? na_limit_json(&l) : json_null();
}

/* The runs of r (the NAS-local ones: local) as JSON. */
static json_t *runs_json(const na_bench *b, const na_profile *const *profiles, const na_bench_result *r,
                         bool local)
{
	json_t *runs = json_array();
	for (size_t i = 0; i < (local ? r->n_local : r->n); i++) {
		size_t profile = local ? r->local[i].profile : r->runs[i].profile;
		int repetition = local ? r->local[i].repetition : r->runs[i].repetition;
		const na_bench_outcome *e = local ? &r->local[i].o : &r->runs[i].m[0].o;
		const na_fio_result *f = &e->fio;
		json_t *o = json_pack("{s:s, s:i, s:b, s:s?, s:I, s:o, s:o, s:o?}", "profile",
		                      profiles[profile]->name, "repetition", repetition, "ok", e->ok,
		                      "error", e->error, "result", (json_int_t)e->row,
		                      f->mixed ? "mixed" : "read", dir_json(f->mixed ? &f->mixed_dir : &f->read),
		                      "write", dir_json(&f->write), "network_bound",
		                      e->ok && !local ? bound_json(b, f) : NULL);
		json_object_set_new(o, "limited_by", limit_json(b, e->row));
		json_array_append_new(runs, o);
	}
	return runs;
}

static void print_json(const na_bench *b, const na_profile *const *profiles, const na_bench_result *r)
{
	json_t *runs = runs_json(b, profiles, r, false);
	/* no host: nothing ran (na_bench_begin refused it) */
	json_t *link = b->host ? json_pack("{s:s, s:I, s:s, s:s}", "host", b->host->name, "speed_mb",
	                                   (json_int_t)b->link.speed_mb, "pnic", b->link.pnic, "vmk",
	                                   b->link.vmk)
	                       : NULL;
	na_json_print(json_pack("{s:s, s:s, s:o, s:o, s:I, s:b, s:o?}", "vm", b->vm->name, "datastore",
	                        b->ds->name, "runs", runs, "nas_local", runs_json(b, profiles, r, true),
	                        "failed", (json_int_t)r->failed, "interrupted", r->interrupted, "link", link));
}

static vs_status run(vs_client *c, void *args, bool json, na_outcome *out)
{
	bench_args *a = args;
	na_inventory inv = {0};
	vs_error err = {0};
	na_session s = {.client = c, .inv = &inv, .warning = na_print_warning};
	na_bench b = {.s = &s, .labels = a->labels.v, .n_labels = a->labels.n, .stop = &na_stop_requested,
	              .job = a->job};
	const char *user = a->guest_user ? a->guest_user : getenv("NFSAGENT_GUEST_USER");
	if (!user)
		return vs_fail(&out->err, VS_ERR_USAGE,
		               "no guest user: give --guest-user or set NFSAGENT_GUEST_USER");
	char *password = guest_password(a, &out->err);
	if (!password)
		return out->err.status;
	b.auth = (vs_guest_auth){user, password};
	na_profile custom = {a->job_profile, "your job file", "", "", 0, 0, -1, "", false, 0};
	const na_profile *profiles[MAX_PROFILES];
	size_t n = a->job_path ? 1 : a->n_profiles;
	if (a->job_path)
		profiles[0] = &custom;
	for (size_t i = 0; !a->job_path && i < n; i++)
		profiles[i] = a->profiles[i];
	b.nas = a->nas || a->nas_command ? &a->target : NULL;
	bool group = is_group(a);
	na_bench_group_args g = {a->vms, a->n_vms, a->glob, a->datastore};
	na_bench_group members = {0};
	int rc = na_inventory_load(c, true, &inv, &err);
	if (rc == VS_OK)
		rc = group ? na_bench_group_resolve(&g, &b, &members, &err) : resolve(a, &inv, &b, &err);
	/* Only now, with every name found: a name that matches nothing leaves
	 * no results database behind (docs/safety.md). */
	if (rc == VS_OK)
		rc = na_store_open(a->db, &s.store, &err);
	if (rc == VS_OK && a->central)
		rc = na_central_check_url(a->central, &err);
	na_bench_plan plan = {.profiles = profiles, .n = n, .job = a->job_text, .repeat = a->repeat,
	                      .on_run = json ? NULL : print_run, .on_local = json ? NULL : print_local,
	                      .baseline = a->baseline};
	na_bench_result r = {0};
	size_t incomplete = 0;
	na_bench *lone = &b;
	if (rc == VS_OK && group)
		rc = na_bench_group_cmd(&members, &plan, json, &incomplete, &err);
	else if (rc == VS_OK)
		rc = na_op_bench(&lone, 1, &plan, &r, &err);
	na_bench_group_free(&members);
	if (json && s.store && b.vm && b.ds)
		print_json(&b, profiles, &r);
	else if (r.n)
		print_result(a, &b, profiles, n, &r);
	size_t failed = r.failed;
	na_bench_result_free(&r);
	/* One line ends the command: the error, else the interruption, else
	 * the runs that failed (each was said as it ended). */
	if (rc != VS_OK)
		out->err = err;
	else if (na_stop_requested)
		rc = vs_fail(&out->err, VS_ERR_TASK,
		             "interrupted: fio was stopped in the guest; earlier results are kept");
	else if (failed)
		rc = vs_fail(&out->err, VS_ERR_TASK, "%zu repetition%s failed (recorded as failed)", failed,
		             na_s(failed));
	else if (incomplete)
		rc = vs_fail(&out->err, VS_ERR_TASK, "%zu group run%s incomplete: a VM did not run the "
		             "whole job (named above)", incomplete, na_s(incomplete));
	na_inventory_free(&inv);
	char waiting[1024];
	if (na_store_push_at_end(s.store, a->central, waiting, sizeof(waiting)))
		na_warn("%s", waiting);
	na_store_close(&s.store);
	na_bench_disks_free(&b);
	free(password);
	return rc;
}

vs_status cmd_bench(int argc, char **argv, na_outcome *out)
{
	static const struct option longopts[] = {
		NA_CONNECT_LONGOPTS,
		{"vm", required_argument, NULL, OPT_VM},
		{"vms", required_argument, NULL, OPT_VMS},
		{"profile", required_argument, NULL, OPT_PROFILE},
		{"job", required_argument, NULL, OPT_JOB},
		{"repeat", required_argument, NULL, OPT_REPEAT},
		{"label", required_argument, NULL, OPT_LABEL},
		{"size", required_argument, NULL, OPT_SIZE},
		{"runtime", required_argument, NULL, OPT_RUNTIME},
		{"ramp", required_argument, NULL, OPT_RAMP},
		{"dir", required_argument, NULL, OPT_DIR},
		{"datastore", required_argument, NULL, OPT_DATASTORE},
		{"guest-user", required_argument, NULL, OPT_GUEST_USER},
		{"guest-password-file", required_argument, NULL, OPT_GUEST_PW_FILE},
		{"db", required_argument, NULL, OPT_DB},
		{"central", required_argument, NULL, OPT_CENTRAL},
		{"nas", required_argument, NULL, OPT_NAS},
		{"nas-command", required_argument, NULL, OPT_NAS_COMMAND},
		{"nas-baseline", no_argument, NULL, OPT_BASELINE},
		{0},
	};
	static const na_command_spec spec = {usage, longopts, on_option, check, run};
	bench_args a = {.repeat = 3, .job = {"8G", 60, 0, "/var/tmp"}};
	vs_status rc = na_command(&spec, &a, argc, argv, out);
	na_labels_free(&a.labels);
	nas_target_free(&a.target);
	free(a.job_text);
	return rc;
}
