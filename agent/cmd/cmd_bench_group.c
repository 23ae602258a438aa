/* bench --vm A --vm B ... / --vms GLOB: the group is resolved and checked
 * whole before any guest is touched, then run by na_op_bench. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd_bench_group.h"
#include "analysis/limits.h"
#include "analysis/netbound.h"
#include "analysis/stats.h"

const char *na_bench_group_twice(const char *const *vms, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < i; k++)
			if (!strcmp(vms[i], vms[k]))
				return vms[i];
	return NULL;
}

/* The members' VMs: the --vm names, then the glob's matches not named
 * already, in the inventory's order. */
static int pick(const na_bench_group_args *g, const na_inventory *inv, const vs_vm **vms, size_t *n,
                vs_error *err)
{
	*n = 0;
	for (size_t i = 0; i < g->n_vms; i++)
		if (!(vms[(*n)++] = na_find_vm(inv, g->vms[i], err)))
			return err->status;
	size_t matched = 0;
	for (size_t i = 0; g->glob && i < inv->n_vms; i++) {
		const vs_vm *v = &inv->vms[i];
		if (fnmatch(g->glob, v->name, 0) != 0)
			continue;
		matched++;
		bool named = false;
		for (size_t k = 0; k < *n && !named; k++)
			named = vms[k] == v;
		if (named)
			continue;
		if (*n < NA_GROUP_MAX_VMS)
			vms[*n] = v;
		(*n)++;
	}
	if (*n > NA_GROUP_MAX_VMS)
		return vs_fail(err, VS_ERR_USAGE, "%zu VMs in one group: at most %d", *n, NA_GROUP_MAX_VMS);
	if (g->glob && !matched)
		return vs_fail(err, VS_ERR_USAGE, "--vms '%s' matches no VM", g->glob);
	return VS_OK;
}

/* The VM's home datastore's name (malloc'd), from its .vmx path. */
static char *home_of(const vs_vm *vm, vs_error *err)
{
	char *home = NULL, *path = NULL;
	if (vs_dspath_split(vm->vmx_path ? vm->vmx_path : "", &home, &path, err) != VS_OK)
		return NULL;
	free(path);
	return home;
}

/* Tools running in each, and one datastore for all: refused with one line. */
static int check_members(const na_bench_group_args *g, const vs_vm **vms, size_t n, char **ds_name,
                         vs_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (!vms[i]->tools_status || strcmp(vms[i]->tools_status, "guestToolsRunning") != 0)
			return vs_fail(err, VS_ERR_USAGE, "%s has no VMware Tools running (%s): a group runs fio "
			               "through Tools in every VM", vms[i]->name,
			               vms[i]->tools_status ? vms[i]->tools_status : "unknown");
	if (g->datastore)
		return (*ds_name = strdup(g->datastore)) ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		char *home = home_of(vms[i], err);
		if (!home)
			return err->status;
		if (*ds_name && strcmp(*ds_name, home) != 0) {
			vs_fail(err, VS_ERR_USAGE, "%s is on datastore '%s' and %s on '%s': give --datastore",
			        vms[0]->name, *ds_name, vms[i]->name, home);
			free(home);
			return err->status;
		}
		if (!*ds_name)
			*ds_name = home;
		else
			free(home);
	}
	return VS_OK;
}

/* Each member: tmpl's settings on its own VM, its host and disks on ds. */
static int members_of(const na_bench *tmpl, const vs_vm **vms, size_t n, const vs_datastore *ds,
                      na_bench *m, size_t *made, vs_error *err)
{
	int rc = VS_OK;
	for (*made = 0; rc == VS_OK && *made < n; (*made)++) {
		na_bench *b = &m[*made];
		*b = *tmpl;
		b->vm = vms[*made];
		b->ds = ds;
		b->host = na_host_by_moref(tmpl->s->inv, b->vm->host);
		if ((rc = na_bench_disks(b, err)) != VS_OK)
			break;
	}
	return rc;
}

/* ---- output ---------------------------------------------------------------------- */

static void print_dirs(const na_fio_result *f)
{
	const na_fio_dir *dirs[] = {f->mixed ? &f->mixed_dir : &f->read, &f->write};
	const char *names[] = {f->mixed ? "mixed" : "read", "write"};
	for (int d = 0; d < 2; d++) {
		if (!dirs[d]->present)
			continue;
		printf("  %s %.0f IOPS  %.1f MB/s", names[d], dirs[d]->iops, dirs[d]->bw_bytes / 1e6);
		if (dirs[d]->p99_us >= 0)
			printf("  p99 %.3f ms", dirs[d]->p99_us / 1000);
		char flag[64];
		if (d == 0)  /* as a lone VM's: reads faster than an NFS round trip */
			printf("%s", na_cache_flag(dirs[d], flag, sizeof(flag)));
	}
}

static bool same_host(const na_bench *x, const na_bench *y)
{
	return strcmp(x->host->moref, y->host->moref) == 0;
}

/* The group's window sums through each host, each direction held against
 * that host's link: its network-bound lines ("esx01 write: network-bound:
 * ..."), into a JSON array. */
static json_t *bound_lines(na_bench *const *m, size_t n, const na_bench_group_run *r)
{
	json_t *lines = json_array();
	for (size_t i = 0; i < n; i++) {
		size_t first = 0;
		while (!same_host(m[first], m[i]))
			first++;
		if (first < i)
			continue;  /* its host was summed with an earlier member */
		double sum[2] = {0, 0};
		for (size_t j = i; j < n; j++)
			if (same_host(m[j], m[i]) && !r->m[j].why) {
				sum[0] += r->m[j].window.read.present ? r->m[j].window.read.bw_bytes : 0;
				sum[1] += r->m[j].window.write.present ? r->m[j].window.write.bw_bytes : 0;
			}
		char line[256], text[300];
		for (int d = 0; d < 2; d++)
			if (na_network_bound(m[i]->host->name, &m[i]->link, sum[d], line, sizeof(line))) {
				snprintf(text, sizeof(text), "%s: %s", d ? "writes" : "reads", line);
				json_array_append_new(lines, json_string(text));
			}
	}
	return lines;
}

void na_group_print_pools(const char *prefix, const na_bench_group_run *r)
{
	for (size_t k = 0; k < r->n_pools; k++) {
		char line[121];
		na_group_pool_line(prefix, &r->pools[k], line, sizeof(line));
		printf("%s\n", line);
	}
}

static void print_run(void *ud, na_bench *const *m, size_t n, const na_profile *p,
                      const na_bench_group_run *r)
{
	(void)ud;
	for (size_t i = 0; i < n; i++) {
		const na_bench_member_run *x = &r->m[i];
		printf("%s #%d %s:", p->name, r->repetition, m[i]->vm->name);
		if (x->why)
			printf("  INCOMPLETE: %s", x->why);
		else
			print_dirs(&x->o.fio);
		if (x->o.row)
			printf("  (result %lld)", (long long)x->o.row);
		printf("\n");
	}
	const na_group_figures *g = &r->fig;
	printf("%s #%d group of %zu%s:", p->name, r->repetition, n, r->incomplete ? " (INCOMPLETE)" : "");
	if (g->n)
		print_dirs(&g->merged);
	else
		printf("  no VM ran the whole job");
	printf("  (group %lld)\n", (long long)r->group_id);
	/* The window and the spread on a line of their own: 120 columns. */
	if (g->n) {
		printf("%s #%d group window %.1f s of %.1f s", p->name, r->repetition,
		       (double)(r->window_to_ms - r->window_from_ms) / 1000, (double)r->runtime_ms / 1000);
		if (r->skew_ms >= 0)
			printf(", skew %.0f ms", r->skew_ms);
		printf("; slowest %s %.0f IOPS (%.2f of a fair share)", g->slowest.name, g->slowest.iops,
		       g->slowest_share);
		if (r->incomplete)
			printf("  [%zu of %zu VMs]", g->n, n);
		printf("\n");
	}
	json_t *bound = bound_lines(m, n, r);
	for (size_t i = 0; i < json_array_size(bound); i++)
		printf("%s #%d group %s\n", p->name, r->repetition,
		       json_string_value(json_array_get(bound, i)));
	json_decref(bound);
	char prefix[160];
	snprintf(prefix, sizeof(prefix), "%s #%d group ", p->name, r->repetition);
	na_group_print_pools(prefix, r);
	fflush(stdout);
}

static json_t *dir_json(const na_fio_dir *d)
{
	if (!d->present)
		return json_null();
	return json_pack("{s:f, s:f, s:f, s:o?, s:o?, s:o?, s:o?}", "iops", d->iops, "mb_s",
	                 d->bw_bytes / 1e6, "lat_avg_ms", d->lat_mean_us / 1000,
	                 "p50_ms", d->p50_us >= 0 ? json_real(d->p50_us / 1000) : NULL,
	                 "p95_ms", d->p95_us >= 0 ? json_real(d->p95_us / 1000) : NULL,
	                 "p99_ms", d->p99_us >= 0 ? json_real(d->p99_us / 1000) : NULL,
	                 "p999_ms", d->p999_us >= 0 ? json_real(d->p999_us / 1000) : NULL);
}

static json_t *fio_json(const na_fio_result *f)
{
	return json_pack("{s:o, s:o}", f->mixed ? "mixed" : "read",
	                 dir_json(f->mixed ? &f->mixed_dir : &f->read), "write", dir_json(&f->write));
}

json_t *na_group_nas_json(const na_group_nas_row *p)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:i, s:b, s:s?}", "nas", p->nas, "pool", p->pool,
	                      "datasets", p->datasets, "vms", p->vms, "members", p->members,
	                      "complete", !p->why, "why", p->why);
	const char *keys[] = {"measured_s", "window_s", "amplification"};
	const double v[] = {p->measured_s, p->window_s, p->amplification};
	for (size_t i = 0; i < 3; i++)
		json_object_set_new(o, keys[i], v[i] >= 0 ? json_real(v[i]) : json_null());
	const char *bytes[] = {"data_write_bytes", "special_write_bytes", "log_write_bytes",
	                       "data_read_bytes"};
	const int64_t b[] = {p->data_write_bytes, p->special_write_bytes, p->log_write_bytes,
	                     p->data_read_bytes};
	for (size_t i = 0; i < 4; i++)
		json_object_set_new(o, bytes[i], p->pool_known ? json_integer((json_int_t)b[i]) : json_null());
	json_object_set_new(o, "guest_write_bytes", json_integer((json_int_t)p->guest_write_bytes));
	return o;
}

static json_t *pools_json(const na_bench_group_run *r)
{
	na_group_nas_row rows[NA_GROUP_MAX_VMS];
	na_group_nas_rows(r, rows);
	json_t *a = json_array();
	for (size_t k = 0; k < r->n_pools; k++)
		json_array_append_new(a, na_group_nas_json(&rows[k]));
	return a;
}

static json_t *run_json(na_bench *const *m, size_t n, const na_profile *p,
                        const na_bench_group_run *r)
{
	json_t *members = json_array();
	for (size_t i = 0; i < n; i++) {
		const na_bench_member_run *x = &r->m[i];
		json_t *o = json_pack("{s:s, s:b, s:s?, s:I}", "vm", m[i]->vm->name, "complete", !x->why,
		                      "why", x->why, "result", (json_int_t)x->o.row);
		if (!x->why) {
			json_object_update_new(o, fio_json(&x->o.fio));
			json_object_set_new(o, "window", fio_json(&x->window));
		}
		json_array_append_new(members, o);
	}
	json_t *run = json_pack("{s:s, s:i, s:i, s:b, s:o, s:I, s:o}", "profile", p->name, "repetition",
	                        r->repetition, "vms", (int)n, "complete", !r->incomplete, "start_skew_ms",
	                        r->skew_ms >= 0 ? json_real(r->skew_ms) : json_null(), "group_id",
	                        (json_int_t)r->group_id, "members", members);
	json_object_set_new(run, "nas", pools_json(r));
	const na_group_figures *g = &r->fig;
	if (g->n) {
		json_t *group = fio_json(&g->merged);
		json_object_set_new(group, "vms_measured", json_integer((json_int_t)g->n));
		json_object_set_new(group, "iops", json_real(g->iops));
		json_object_set_new(group, "window", json_pack("{s:I, s:I, s:I, s:I}", "ms",
		                    (json_int_t)(r->window_to_ms - r->window_from_ms), "of_ms",
		                    (json_int_t)r->runtime_ms, "from_ms", (json_int_t)r->window_from_ms,
		                    "to_ms", (json_int_t)r->window_to_ms));
		json_object_set_new(group, "spread", json_pack("{s:s, s:f, s:s, s:f, s:s, s:f, s:f}",
		                    "slowest", g->slowest.name, "slowest_iops", g->slowest.iops,
		                    "median", g->median.name, "median_iops", g->median.iops,
		                    "fastest", g->fastest.name, "fastest_iops", g->fastest.iops,
		                    "slowest_share", g->slowest_share));
		json_object_set_new(group, "network_bound", bound_lines(m, n, r));
		json_object_set_new(run, "group", group);
	}
	return run;
}

/* ---- what limited each run (docs/limits.md) ---------------------------------------- */

/* Run e's verdict from its stored rows (false: it recorded nothing): the
 * group's, or a lone VM's own when the group was of one (no group row). */
static bool run_limit(na_store *s, const na_limit_bases *bases, const na_bench_group_run *e,
                      size_t n, na_limit *l)
{
	vs_error err = {0};
	for (size_t j = 0; j < n; j++)
		if (e->m[j].o.row)
			return (e->group_id ? na_limit_of_group(s, bases, e->m[j].o.row, NULL, l, &err)
			                    : na_limit_of_id(s, bases, e->m[j].o.row, l, &err)) == VS_OK;
	return false;
}

/* Each run's verdict, the baselines read once: a line each for the text,
 * else into each of runs' objects as "limited_by". */
static void limits(na_store *s, const na_bench_plan *plan, const na_bench_result *r, size_t n,
                   json_t *runs)
{
	na_limit_bases bases;
	vs_error err = {0};
	bool said = false;
	if (na_limit_bases_load(s, &bases, &err) != VS_OK)
		na_limit_bases_free(&bases);  /* none: each run's verdict says so */
	for (size_t i = 0; i < r->n; i++) {
		const na_bench_group_run *e = &r->runs[i];
		na_limit l;
		bool known = run_limit(s, &bases, e, n, &l);
		if (runs)
			json_object_set_new(json_array_get(runs, i), "limited_by",
			                    known ? na_limit_json(&l) : json_null());
		if (runs || !known)
			continue;
		char line[640];  /* within 120 columns, as all of bench's text */
		snprintf(line, sizeof(line), "%s #%d group of %zu: limited by %s: %s",
		         plan->profiles[e->profile]->name, e->repetition, n, na_limit_name(l.layer), l.evidence);
		fputs(said ? "" : "\nWhat limited each run:\n", stdout);
		na_print_wrapped(stdout, line, NA_TEXT_WIDTH, 2, 6);
		said = true;
	}
	na_limit_bases_free(&bases);
}

static void print_json(na_bench *const *m, size_t n, const na_bench_plan *plan,
                       const na_bench_result *r)
{
	json_t *runs = json_array(), *vms = json_array();
	for (size_t i = 0; i < r->n; i++)
		json_array_append_new(runs, run_json(m, n, plan->profiles[r->runs[i].profile], &r->runs[i]));
	for (size_t i = 0; i < n; i++)
		json_array_append_new(vms, json_string(m[i]->vm->name));
	limits(m[0]->s->store, plan, r, n, runs);
	na_json_print(json_pack("{s:o, s:s, s:o, s:b}", "vms", vms, "datastore", m[0]->ds->name, "runs",
	                        runs, "interrupted", r->interrupted));
}

/* ---- the command ---------------------------------------------------------------- */

int na_bench_group_resolve(const na_bench_group_args *g, const na_bench *tmpl, na_bench_group *grp,
                           vs_error *err)
{
	const vs_vm *vms[NA_GROUP_MAX_VMS];
	char *ds_name = NULL;
	int rc = pick(g, tmpl->s->inv, vms, &grp->n, err);
	if (rc == VS_OK)
		rc = check_members(g, vms, grp->n, &ds_name, err);
	const vs_datastore *ds = rc == VS_OK ? na_find_datastore(tmpl->s->inv, ds_name, err) : NULL;
	if (rc == VS_OK && !ds)
		rc = err->status;
	if (rc == VS_OK)
		rc = members_of(tmpl, vms, grp->n, ds, grp->m, &grp->made, err);
	free(ds_name);
	return rc;
}

int na_bench_group_cmd(na_bench_group *grp, const na_bench_plan *plan, bool json, size_t *incomplete,
                       vs_error *err)
{
	na_bench *mp[NA_GROUP_MAX_VMS];
	size_t n = grp->n;
	for (size_t i = 0; i < n; i++)
		mp[i] = &grp->m[i];
	na_bench_result r = {0};
	na_bench_plan group = *plan;
	group.on_run = json ? NULL : print_run;
	int rc = na_op_bench(mp, n, &group, &r, err);
	if (json && r.runs)
		print_json(mp, n, plan, &r);
	else if (r.runs)
		limits(mp[0]->s->store, plan, &r, n, NULL);
	*incomplete = r.incomplete;
	na_bench_result_free(&r);
	return rc;
}

void na_bench_group_free(na_bench_group *grp)
{
	for (size_t i = 0; i < grp->made; i++)
		na_bench_disks_free(&grp->m[i]);
	grp->made = 0;
}
