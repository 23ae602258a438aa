/* A campaign of several VMs (vms = a, b, fleet-*): the group is resolved
 * and checked at preflight, each round moves every VM to its target with
 * the fleet op (in parallel, within the limits, each verified as it lands),
 * runs each profile's repetition as one group run in all of them, and the
 * cleanup brings every VM home the same way.  Reconcile, never replay: a
 * VM on its target already is not moved, and a group run is journaled with
 * its group's id in the group's own transaction. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/campaign_run.h"
#include "ops/bench.h"
#include "ops/group_lines.h"
#include "ops/fleet.h"

vs_vm *na_run_member(const na_run *r, size_t i)
{
	for (size_t k = 0; i < r->n_vms && k < r->inv.n_vms; k++)
		if (!strcmp(r->inv.vms[k].moref, r->vm_morefs[i]))
			return &r->inv.vms[k];
	return NULL;
}

/* ---- preflight ------------------------------------------------------------------ */

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static bool is_member(const na_run *r, const char *moref)
{
	for (size_t i = 0; i < r->n_vms; i++)
		if (!strcmp(r->vm_morefs[i], moref))
			return true;
	return false;
}

static int add_member(na_run *r, const vs_vm *v)
{
	if (is_member(r, v->moref))
		return VS_OK;  /* named and matched, or matched twice: it runs once */
	if (r->n_vms == NA_MAX_CAMPAIGN_VMS)
		return na_run_failf(r, VS_ERR_USAGE, "%s:%d: vms matches more than %d VMs: a group runs at "
		                    "most %d", r->c->file, r->c->vms_line, NA_MAX_CAMPAIGN_VMS,
		                    NA_MAX_CAMPAIGN_VMS);
	r->vm_morefs[r->n_vms] = strdup(v->moref);
	r->vm_names[r->n_vms] = strdup(v->name);
	if (!r->vm_morefs[r->n_vms++] || !r->vm_names[r->n_vms - 1])
		return na_run_failf(r, VS_ERR_NOMEM, "out of memory");
	return VS_OK;
}

/* One entry of vms =: a name (as vm = finds it) or a glob over the inventory. */
static int resolve_one(na_run *r, const char *spec)
{
	vs_error err = {0};
	if (!is_glob(spec)) {
		const vs_vm *v = na_find_vm(&r->inv, spec, &err);
		return v ? add_member(r, v) : na_run_fail(r, &err);
	}
	size_t matched = 0;
	int rc = VS_OK;
	for (size_t i = 0; rc == VS_OK && i < r->inv.n_vms; i++)
		if (fnmatch(spec, r->inv.vms[i].name, 0) == 0) {
			matched++;
			rc = add_member(r, &r->inv.vms[i]);
		}
	if (rc == VS_OK && !matched)
		rc = na_run_failf(r, VS_ERR_USAGE, "%s:%d: vms: '%s' matches no VM", r->c->file,
		                  r->c->vms_line, spec);
	return rc;
}

/* The datastore of v's .vmx, by name (malloc'd), or NULL. */
static char *home_of(const vs_vm *v)
{
	char *ds = NULL, *path = NULL;
	vs_error err = {0};
	vs_dspath_split(v->vmx_path ? v->vmx_path : "", &ds, &path, &err);
	free(path);
	return ds;
}

/* As bench's group: Tools in each (fio runs through them), and one
 * datastore for all, which is also where each goes home to. */
static int check_member(na_run *r, const vs_vm *v, const char *first_home)
{
	if (!v->tools_status || strcmp(v->tools_status, "guestToolsRunning") != 0)
		return na_run_failf(r, VS_ERR_USAGE, "%s has no VMware Tools running (%s): a group runs "
		                    "fio through Tools in every VM", v->name,
		                    v->tools_status ? v->tools_status : "unknown");
	char *home = home_of(v);
	int rc = VS_OK;
	if (v->n_datastores != 1)
		rc = na_run_failf(r, VS_ERR_USAGE, "%s has files on %zu datastores: a campaign's VMs "
		                  "keep all their files on one", v->name, v->n_datastores);
	else if (!home || strcmp(home, first_home) != 0)
		rc = na_run_failf(r, VS_ERR_USAGE, "%s is on datastore '%s' and %s on '%s': a campaign's "
		                  "VMs start on one datastore", r->vm_names[0], first_home, v->name,
		                  home ? home : "?");
	free(home);
	return rc;
}

/* The members the run journaled when it began (its "vms" step: their
 * morefs): a resumed or aborted run works on those, never on what its
 * globs match today (a VM made or renamed since is not its own). */
static int journaled_members(na_run *r, const char *morefs)
{
	char *copy = strdup(morefs), *save = NULL;
	int rc = copy ? VS_OK : na_run_failf(r, VS_ERR_NOMEM, "out of memory");
	for (char *m = copy ? strtok_r(copy, ",", &save) : NULL; rc == VS_OK && m;
	     m = strtok_r(NULL, ",", &save)) {
		const vs_vm *v = NULL;
		for (size_t k = 0; !v && k < r->inv.n_vms; k++)
			v = !strcmp(r->inv.vms[k].moref, m) ? &r->inv.vms[k] : NULL;
		rc = v ? add_member(r, v)
		       : na_run_failf(r, VS_ERR_NOT_FOUND, "VM %s of run %s is gone from vCenter", m, r->id);
	}
	free(copy);
	return rc;
}

int na_run_mark_members(na_run *r)
{
	size_t len = 1;
	for (size_t i = 0; i < r->n_vms; i++)
		len += strlen(r->vm_morefs[i]) + 1;
	char *morefs = calloc(len, 1);
	if (!morefs)
		return na_run_failf(r, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < r->n_vms; i++)
		strcat(strcat(morefs, i ? "," : ""), r->vm_morefs[i]);
	int rc = na_run_mark(r, "vms", morefs);
	free(morefs);
	return rc;
}

int na_run_resolve_vms(na_run *r)
{
	int rc = VS_OK;
	char *journaled = NULL;
	if ((r->o->resume || r->o->abort) && na_run_done(r, "vms", &journaled) && journaled)
		rc = journaled_members(r, journaled);
	for (size_t i = 0; !journaled && rc == VS_OK && i < r->c->n_vms; i++)
		rc = resolve_one(r, r->c->vms[i]);
	free(journaled);
	vs_vm *first = rc == VS_OK ? na_run_member(r, 0) : NULL;
	if (rc == VS_OK && (!first || !(r->home = home_of(first)) || !(r->vm_moref = strdup(first->moref))))
		rc = na_run_failf(r, VS_ERR_PROTOCOL, "%s: its home datastore is not known", r->vm_names[0]);
	/* A resumed or aborted run finds its VMs wherever it left them. */
	for (size_t i = 0; rc == VS_OK && !r->o->resume && !r->o->abort && i < r->n_vms; i++)
		rc = check_member(r, na_run_member(r, i), r->home);
	return rc;
}

/* ---- moves ------------------------------------------------------------------------ */

static const char *fleet_word(const na_fleet_vm *v)
{
	switch (v->state) {
	case NA_FLEET_DONE:
		return v->already_there ? "there already" : v->verdict == NA_VERDICT_CLEAN ? "moved, verified"
		                                                                           : "moved, NOT verified";
	case NA_FLEET_FAILED: return "FAILED";
	case NA_FLEET_NOT_TRIED: return "not tried";
	default: return "not ended";
	}
}

/* One line per VM that had to move; the count of those that did not. */
static size_t say_moves(const na_run *r, const na_fleet_result *f)
{
	size_t bad = 0;
	for (size_t i = 0; i < f->n; i++) {
		const na_fleet_vm *v = &f->vms[i];
		bool ok = v->state == NA_FLEET_DONE && v->verdict == NA_VERDICT_CLEAN;
		bad += !ok;
		if (v->already_there)
			continue;
		bool why = v->state == NA_FLEET_FAILED && (v->err.message[0] || v->err.fault[0]);
		na_say(r->say, "  %s: %s%s%s (%.1f s)", v->name, fleet_word(v), why ? ": " : "",
		       !why ? "" : v->err.message[0] ? v->err.message : v->err.fault,
		       v->ended_s > v->started_s ? v->ended_s - v->started_s : 0.0);
	}
	return bad;
}

/* What the fleet's end means for the run: a target the bug stopped is
 * broken (its benchmarks skipped), anything else not in place a failure. */
static int fleet_outcome(na_run *r, size_t ti, const char *ds, const na_fleet_result *f, size_t bad,
                         int rc, vs_error *err)
{
	if (na_fleet_verdict(f) == NA_VERDICT_FINDING && ti < NA_MAX_TARGETS) {
		char step[160];
		snprintf(step, sizeof(step), "broken:%s", r->c->targets[ti].name);
		r->broken[ti] = true;
		na_say_warning(r->say, "target %s: the NFS 4.1 extent-size bug stopped the moves; its benchmarks are "
		        "skipped", r->c->targets[ti].name);
		return na_run_mark(r, step, "extent-size mismatch");
	}
	if (rc != VS_OK)
		return na_run_fail(r, err);
	if (f->interrupted)
		return VS_OK;  /* the stop is what is said */
	if (bad)
		return na_run_failf(r, VS_ERR_TASK, "%zu of %zu VMs are not on %s, verified (above)", bad,
		                    f->n, ds);
	return VS_OK;
}

int na_run_group_move(na_run *r, size_t ti, const char *ds, const char *policy)
{
	const vs_vm *vms[NA_MAX_CAMPAIGN_VMS];
	for (size_t i = 0; i < r->n_vms; i++)
		if (!(vms[i] = na_run_member(r, i)))
			return na_run_failf(r, VS_ERR_TASK, "the VM %s disappeared", r->vm_names[i]);
	const char *target = ti < NA_MAX_TARGETS ? r->c->targets[ti].name : "home";
	na_migrate_args one = {.datastore = ds, .policy = policy, .db = r->o->db,
	                       .allow_power_off = r->c->allow_power_off, .campaign = r->id,
	                       .target = target};
	na_fleet_args a = {.one = &one, .parallel = (int)r->c->parallel, .per_host = (int)r->c->per_host,
	                   .per_datastore = (int)r->c->per_datastore};
	na_session s = na_run_session(r);
	na_fleet_result f = {0};
	vs_error err = {0};
	double t0 = na_run_clock();
	int rc = na_fleet_plan(&s, &a, vms, r->n_vms, &f, &err);
	size_t to_move = 0;
	for (size_t i = 0; i < f.n; i++)
		to_move += !f.vms[i].already_there;
	if (rc == VS_OK && to_move) {
		na_say(r->say, "Moving %zu of %zu VMs to %s (%ld at once at most):", to_move, f.n, ds,
		       r->c->parallel);
		rc = na_op_fleet(&s, &a, &f, &err);
	}
	r->t_move += na_run_clock() - t0;
	size_t bad = rc == VS_OK || f.n ? say_moves(r, &f) : 0;
	na_leftovers_say(r->say, &f.leftovers);
	rc = fleet_outcome(r, ti, ds, &f, bad, rc, &err);
	na_fleet_result_free(&f);
	int reloaded = na_run_reload(r);
	return rc != VS_OK ? rc : reloaded;
}

/* ---- home ------------------------------------------------------------------------- */

int na_run_group_check_home(na_run *r)
{
	int rc = na_run_reload(r);
	vs_datastore *home = rc == VS_OK ? na_run_datastore(r, r->home) : NULL;
	if (rc != VS_OK)
		return rc;
	size_t astray = 0;
	na_say(r->say, "End state, read from vCenter:");
	for (size_t i = 0; i < r->n_vms; i++) {
		const vs_vm *v = na_run_member(r, i);
		char *vmx = v ? home_of(v) : NULL;
		bool there = v && home && vmx && !strcmp(vmx, r->home);
		for (size_t d = 0; there && d < v->n_datastores; d++)
			there = !strcmp(v->datastores[d], home->moref);
		astray += !there;
		na_say(r->say, "  %s: files on %s, %zu datastore%s: %s", r->vm_names[i], vmx ? vmx : "?",
		       v ? v->n_datastores : 0, v && v->n_datastores == 1 ? "" : "s",
		       there ? "as it started" : "NOT as it started");
		free(vmx);
	}
	return astray ? na_run_failf(r, VS_ERR_TASK, "%zu of %zu VMs are not back on %s", astray,
	                             r->n_vms, r->home)
	              : VS_OK;
}
