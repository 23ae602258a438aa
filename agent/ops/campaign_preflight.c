/* A campaign's preflight (see campaign.c): the VM found and its home, each
 * target checked against what vSphere holds before anything is touched, and
 * the plan handed to the command to show. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/campaign_run.h"
#include "analysis/stats.h"

static int check_target(na_run *r, na_target *t)
{
	vs_error err = {0};
	vs_host **hosts = NULL;
	size_t n_hosts = 0;
	int chosen = na_run_target_host_list(r, t, &hosts, &n_hosts, &err);
	free(hosts);
	if (chosen != VS_OK)
		return na_run_fail(r, &err);
	na_host_choice choice = na_run_target_choice(r, t);
	vs_datastore *d = NULL;
	for (size_t i = 0; i < r->inv.n_datastores; i++)
		if (!strcmp(r->inv.datastores[i].name, t->datastore))
			d = &r->inv.datastores[i];
	if (!d && !t->servers)
		return na_run_failf(r, VS_ERR_USAGE, "target %s: no datastore is named '%s' and the target names no export to mount",
		                 t->name, t->datastore);
	if (d && t->servers && na_run_alternating(r, t) && !r->o->resume)
		return na_run_failf(r, VS_ERR_USAGE, "target %s alternates NFS versions on %s:%s: datastore '%s' must not be "
		                 "mounted before the campaign", t->name, t->servers, t->path, t->datastore);
	if (d && t->servers) {
		const char *servers[] = {t->servers, NULL};
		if (!na_same_export(d, servers, t->path))
			return na_run_failf(r, VS_ERR_USAGE, "target %s: datastore '%s' exists for another export", t->name, t->datastore);
	}
	/* A mount the campaign does not make keeps its own connections: its
	 * results would carry a label connections=N that is not so. */
	if (d && t->connections && !r->o->resume)
		return na_run_failf(r, VS_ERR_USAGE, "target %s: connections = %ld, but datastore '%s' is "
		                    "mounted already with the connections it has: unmount it first, or "
		                    "drop connections", t->name, t->connections, t->datastore);
	/* The export mounted already under the other NFS version: the run would
	 * measure that one, or fail to mount.  (A resumed run may have switched
	 * it to NFS 3 itself; alternating targets unmount it in turn.) */
	for (size_t i = 0; t->servers && !na_run_alternating(r, t) && !r->o->resume && i < r->inv.n_datastores; i++) {
		const vs_datastore *e = &r->inv.datastores[i];
		const char *servers[] = {t->servers, NULL};
		if (na_same_export(e, servers, t->path) && e->type && strcmp(e->type, na_run_ds_type(r, t)) != 0)
			return na_run_failf(r, VS_ERR_USAGE, "target %s: %s:%s is mounted as %s already (datastore '%s'); the target asks "
			                 "for NFS %s: unmount it first, or set nfs = %s",
			                 t->name, t->servers, t->path, na_nfs_label(e->type), e->name, t->nfs,
			                 strcmp(e->type, "NFS41") == 0 ? "4.1" : "3");
	}
	for (size_t i = 0; choice.host && i < na_run_vm_count(r); i++) {
		const vs_vm *v = na_run_vm_at(r, i);
		const char *host = v ? na_host_name(&r->inv, v->host) : NULL;  /* powered off: none */
		if (!host || strcmp(host, choice.host) != 0)
			return na_run_failf(r, VS_ERR_USAGE, "target %s: %s runs on %s", t->name,
			                    v ? v->name : "a VM of the campaign",
			                    host ? "another host" : "no host");
	}
	/* Only NFS 4.1 has the extent-size bug: without a probe key, a target
	 * probes where it runs 4.1 (an NFS 3 one is probed on request). */
	if (t->probe < 0)
		t->probe = t->servers ? na_target_nfs41(t) : d->type && !strcmp(d->type, "NFS41");
	return VS_OK;
}

/* A dataset the campaign makes is read first: its mountpoint is t's path. */
static int check_dataset_target(na_run *r, na_target *t)
{
	int rc = na_run_dataset_plan(r, t);
	return rc == VS_OK ? check_target(r, t) : rc;
}

/* The hosts t mounts on, by name: "hosts DC0_C0_H0, DC0_C0_H1" (malloc'd). */
static char *hosts_text(na_run *r, const na_target *t)
{
	vs_host **hosts = NULL;
	size_t n = 0, size = 0;
	char *text = NULL;
	FILE *out = open_memstream(&text, &size);
	if (out && na_run_target_host_list(r, t, &hosts, &n, &(vs_error){0}) == VS_OK)
		for (size_t i = 0; i < n; i++)
			fprintf(out, "%s%s", i ? ", " : n > 1 ? "hosts " : "host ", hosts[i]->name);
	free(hosts);
	if (out)
		fclose(out);
	return text;
}

void na_run_show_plan(na_run *r, const vs_vm *vm)
{
	if (!r->o->planned)
		return;
	na_campaign_plan p = {.c = r->c, .run_id = r->id, .home = r->home, .vm_names = r->vm_names,
	                      .n_vms = r->n_vms};
	if (!r->n_vms) {
		p.vm = vm->name;
		p.vm_host = na_host_name(&r->inv, vm->host);
	}
	for (size_t i = 0; i < r->c->n_targets; i++) {
		const na_target *t = &r->c->targets[i];
		if (t->servers && !(t->hosts && !strcmp(t->hosts, "all")))
			p.target_hosts[i] = hosts_text(r, t);
	}
	r->o->planned(r->o->ud, &p);
	for (size_t i = 0; i < r->c->n_targets; i++)
		free(p.target_hosts[i]);
}

int na_run_find_vm(na_run *r)
{
	vs_error err = {0};
	int rc = na_run_reload(r);
	vs_vm *vm = NULL;
	if (rc == VS_OK && r->c->n_vms)
		return na_run_resolve_vms(r);
	if (rc == VS_OK && !(vm = na_find_vm(&r->inv, r->c->vm, &err)))
		return na_run_fail(r, &err);
	if (rc != VS_OK)
		return rc;
	r->vm_moref = strdup(vm->moref);
	char *path = NULL;
	rc = vs_dspath_split(vm->vmx_path ? vm->vmx_path : "", &r->home, &path, &err) == VS_OK
	             ? VS_OK
	             : na_run_fail(r, &err);
	free(path);
	return rc;
}

/* A group's VMs: a relocation a killed run left is waited for (a move would
 * adopt it anyway), and each guest is checked. */
static int group_preflight(na_run *r)
{
	vs_error err = {0};
	int rc = VS_OK;
	for (size_t i = 0; rc == VS_OK && i < r->n_vms; i++) {
		bool waited = false;
		if (r->o->resume && vs_vm_wait_relocation(r->cl, r->vm_morefs[i], &waited, &err) != VS_OK)
			rc = na_run_fail(r, &err);
		if (rc == VS_OK && waited)
			na_say(r->say, "A relocation of %s was still running: waited for it to end.", r->vm_names[i]);
		if (rc == VS_OK && waited)
			rc = na_run_reload(r);
		if (rc == VS_OK && vs_guest_check(r->cl, r->vm_morefs[i], &err) != VS_OK)
			rc = na_run_fail(r, &err);
	}
	for (size_t i = 0; rc == VS_OK && i < r->c->n_targets; i++)
		rc = check_dataset_target(r, &r->c->targets[i]);
	return rc;
}

int na_run_preflight(na_run *r)
{
	vs_error err = {0};
	if (r->n_vms)
		return group_preflight(r);
	int rc = r->o->resume ? na_run_wait_for_move(r) : VS_OK;
	if (rc != VS_OK)
		return rc;
	vs_vm *vm = na_run_vm(r);
	/* A run that stopped during a cold move left the VM off: a resume
	 * powers it on again if it ran at the start (na_run_go_home's rule). */
	char *power = NULL;
	bool powered = false;
	if (r->o->resume && vm->power_state && strcmp(vm->power_state, "poweredOn") != 0 &&
	    na_run_done(r, "start-power", &power) && power && !strcmp(power, "poweredOn")) {
		na_say(r->say, "Powering %s on: it ran when the campaign started.", r->c->vm);
		if (vs_vm_power_on(r->cl, vm->moref, NULL, NULL, &err) != VS_OK) {
			free(power);
			return na_run_fail(r, &err);
		}
		powered = true;
	}
	free(power);
	na_session s = na_run_session(r);
	if (powered ? na_wait_for_tools(&s, vm->moref, r->c->vm, &err) != VS_OK
	            : vs_guest_check(r->cl, vm->moref, &err) != VS_OK)
		return na_run_fail(r, &err);
	for (size_t i = 0; rc == VS_OK && i < r->c->n_targets; i++)
		rc = check_dataset_target(r, &r->c->targets[i]);
	return rc;
}
