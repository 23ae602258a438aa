/* Where a campaign's VM started, and bringing it back there: journaled by
 * the first run, compared at cleanup with where the VM and each disk really
 * are (never with journaled steps: a failed run's cleanup journals a home
 * that a resumed run leaves again). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/campaign_run.h"

/* The datastore named in a "[ds] dir/file" path (malloc'd), or NULL. */
static char *ds_of(const char *dspath)
{
	char *ds = NULL, *path = NULL;
	vs_error err = {0};
	vs_dspath_split(dspath ? dspath : "", &ds, &path, &err);
	free(path);
	return ds;
}

static void disk_step(char *step, size_t size, const vs_disk *d)
{
	snprintf(step, size, "start-disk:%d", d->key);
}

/* The first run journals where the VM started: the datastore of every disk,
 * its host and power state, and its home last (the "start" step: with it
 * journaled, all of it is).  A resumed run reads them back, wherever the
 * stopped run left the VM. */
int na_run_remember_start(na_run *r)
{
	char *home = NULL;
	if (na_run_done(r, "start", &home)) {
		if (r->journal_failed || !home) {  /* unread: the home found at preflight stays */
			free(home);
			return r->journal_failed;
		}
		free(r->home);
		r->home = home;
		return VS_OK;
	}
	/* A group's VMs start on one datastore with all their files (preflight):
	 * its home is where each goes back to. */
	if (r->n_vms) {
		int rc = na_run_mark_members(r);
		return rc == VS_OK ? na_run_mark(r, "start", r->home) : rc;
	}
	vs_vm *vm = na_run_vm(r);
	vs_vm_layout *l = NULL;
	vs_error err = {0};
	if (vs_vm_layout_read(r->cl, r->vm_moref, &l, &err) != VS_OK)
		return na_run_fail(r, &err);
	int rc = na_run_mark(r, "start-host", na_host_name(&r->inv, vm->host));
	if (rc == VS_OK)
		rc = na_run_mark(r, "start-power", vm->power_state ? vm->power_state : "unknown");
	for (size_t i = 0; rc == VS_OK && i < l->n_disks; i++) {
		char step[64], *ds = ds_of(l->disks[i].file);
		disk_step(step, sizeof(step), &l->disks[i]);
		rc = ds ? na_run_mark(r, step, ds)
		        : na_run_fail(r, &(vs_error){.status = VS_ERR_PROTOCOL, .message = "a disk's path names no datastore"});
		free(ds);
	}
	vs_vm_layout_free(&l);
	return rc == VS_OK ? na_run_mark(r, "start", r->home) : rc;
}

/* Per disk of l, the datastore (moref) it belongs on: where it started, or
 * where it is when that is not known or not there now (every entry set:
 * a relocation moves a disk without one to the VM's datastore); (*off)[i]
 * when it is not there now (malloc'd, as the result), *n how many. */
static const char **disk_homes(na_run *r, const vs_vm_layout *l, bool **off, size_t *n)
{
	const char **to = calloc(l->n_disks + 1, sizeof(char *));
	bool *astray = *off = calloc(l->n_disks + 1, sizeof(bool));
	*n = 0;
	if (!astray) {
		free(to);
		return NULL;
	}
	for (size_t i = 0; to && i < l->n_disks; i++) {
		char step[64], *start = NULL, *now = ds_of(l->disks[i].file);
		disk_step(step, sizeof(step), &l->disks[i]);
		na_run_done(r, step, &start);
		vs_datastore *d = na_run_datastore(r, start ? start : r->home);
		if (!d && now)
			na_say_warning(r->say, "%s of %s started on %s, which is not there now: it stays on %s",
			        l->disks[i].label ? l->disks[i].label : l->disks[i].file, r->c->vm,
			        start ? start : r->home, now);
		astray[i] = d && now && strcmp(now, d->name) != 0;
		to[i] = d ? d->moref : l->disks[i].datastore;
		*n += astray[i];
		free(start);
		free(now);
	}
	return to;
}

/* The VM's files are at home, and so is every disk that started there. */
static bool home_in_place(const na_run *r, const vs_vm_layout *l, const char **to, const bool *astray)
{
	vs_datastore *home = na_run_datastore(r, r->home);
	char *vmx = ds_of(na_run_vm(r)->vmx_path);
	bool ok = home && vmx && !strcmp(vmx, r->home);
	free(vmx);
	for (size_t i = 0; ok && i < l->n_disks; i++)
		ok = !astray[i] || !to[i] || strcmp(to[i], home->moref) != 0;
	return ok;
}

/* A move may have powered the VM off (allow_power_off): it runs again if it
 * ran at the start.  A VM that changed hosts (DRS) is only named. */
static int restore_power(na_run *r)
{
	char *power = NULL, *host = NULL;
	vs_error err = {0};
	int rc = VS_OK;
	na_run_done(r, "start-power", &power);
	na_run_done(r, "start-host", &host);
	vs_vm *vm = na_run_vm(r);
	if (power && !strcmp(power, "poweredOn") && vm->power_state && strcmp(vm->power_state, power)) {
		na_say(r->say, "Powering %s on: it ran at the start.", r->c->vm);
		rc = vs_vm_power_on(r->cl, r->vm_moref, NULL, NULL, &err) == VS_OK ? na_run_reload(r)
		                                                                   : na_run_fail(r, &err);
		/* The sweep of killed benchmarks' folders needs the guest; Tools that
		 * do not come up leave those folders counted, not the cleanup stopped. */
		na_session s = na_run_session(r);
		vs_error tools = {0};
		if (rc == VS_OK && na_wait_for_tools(&s, r->vm_moref, r->c->vm, &tools) != VS_OK)
			na_say_warning(r->say, "%s", tools.message);
	}
	const char *now = rc == VS_OK ? na_host_name(&r->inv, na_run_vm(r)->host) : NULL;
	if (host && now && strcmp(host, now) != 0)
		na_say_warning(r->say, "%s runs on host %s now; it started on %s", r->c->vm, now, host);
	free(power);
	free(host);
	return rc;
}

int na_run_wait_for_move(na_run *r)
{
	bool waited = false;
	vs_error err = {0};
	if (vs_vm_wait_relocation(r->cl, r->vm_moref, &waited, &err) != VS_OK)
		return na_run_fail(r, &err);
	if (!waited)
		return VS_OK;
	na_say(r->say, "A relocation of %s was still running: waited for it to end.", r->c->vm);
	return na_run_reload(r);
}

/* The VM back where it started, from where it really is (not from the
 * journal: a failed run's cleanup may have journaled steps that a resumed
 * run undid): its home and the disks that started there by a move home (with
 * verification), then every disk that started elsewhere to its own
 * datastore, then its power state. */
int na_run_go_home(na_run *r)
{
	vs_error err = {0};
	vs_vm_layout *l = NULL;
	size_t astray = 0;
	const char **to = NULL;
	bool *off = NULL;  /* per disk: not where it belongs */
	/* Where the VM is now, and where it started: without either, moving
	 * anything would be a guess. */
	if (r->journal_failed)
		return r->journal_failed;
	int rc = na_run_vm(r) ? VS_OK : na_run_reload(r);
	if (rc == VS_OK && !na_run_vm(r))
		rc = na_run_fail(r, &(vs_error){.status = VS_ERR_NOT_FOUND,
		                           .message = "the campaign's VM is not in the inventory: nothing to "
		                                      "move home"});
	if (rc == VS_OK)
		rc = na_run_wait_for_move(r);
	if (rc == VS_OK)
		rc = vs_vm_layout_read(r->cl, r->vm_moref, &l, &err) == VS_OK ? VS_OK : na_run_fail(r, &err);
	if (rc == VS_OK && !(to = disk_homes(r, l, &off, &astray)))
		rc = na_run_fail(r, &(vs_error){.status = VS_ERR_NOMEM, .message = "out of memory"});
	if (rc == VS_OK && !home_in_place(r, l, to, off)) {
		rc = na_run_move(r, NA_MAX_TARGETS, r->home, "fail");
		free(to);
		free(off);
		to = NULL;
		off = NULL;
		vs_vm_layout_free(&l);
		if (rc == VS_OK && vs_vm_layout_read(r->cl, r->vm_moref, &l, &err) != VS_OK)
			rc = na_run_fail(r, &err);
		if (rc == VS_OK && !(to = disk_homes(r, l, &off, &astray)))
			rc = na_run_fail(r, &(vs_error){.status = VS_ERR_NOMEM, .message = "out of memory"});
	}
	vs_datastore *home = na_run_datastore(r, r->home);
	if (rc == VS_OK && astray && home) {
		na_say(r->say, "Moving %zu disk%s of %s back to %s own datastore%s.", astray, na_s(astray),
		       r->c->vm, astray == 1 ? "its" : "their", na_s(astray));
		rc = na_run_move_disks(r, to, l->n_disks);
	}
	free(to);
	free(off);
	vs_vm_layout_free(&l);
	return rc == VS_OK ? restore_power(r) : rc;
}

/* Prints where the VM and each disk are now, read again from vCenter, and
 * whether that is where they started; a failure when something is not. */
int na_run_check_home(na_run *r)
{
	vs_error err = {0};
	vs_vm_layout *l = NULL;
	int rc = na_run_reload(r);
	vs_vm *vm = rc == VS_OK ? na_run_vm(r) : NULL;
	if (rc == VS_OK && !vm)
		return na_run_fail(r, &(vs_error){.status = VS_ERR_NOT_FOUND,
		                             .message = "the campaign's VM is not in the inventory"});
	if (rc == VS_OK && vs_vm_layout_read(r->cl, r->vm_moref, &l, &err) != VS_OK)
		rc = na_run_fail(r, &err);
	if (rc != VS_OK)
		return rc;
	char *power = NULL, *host = NULL, *vmx = ds_of(vm->vmx_path);
	na_run_done(r, "start-power", &power);
	na_run_done(r, "start-host", &host);
	const char *host_now = na_host_name(&r->inv, vm->host);
	bool home = vmx && !strcmp(vmx, r->home);
	bool same_power = !power || (vm->power_state && !strcmp(vm->power_state, power));
	na_say(r->say, "End state, read from vCenter:");
	na_say(r->say, "  %s: files on %s, host %s, %s: %s", r->c->vm, vmx ? vmx : "?", host_now,
	       vm->power_state ? vm->power_state : "power state unknown",
	       home && same_power ? "as it started" : "NOT as it started");
	if (host && strcmp(host, host_now) != 0)
		na_say(r->say, "    (it started on host %s)", host);
	size_t astray = !home || !same_power;
	for (size_t i = 0; i < l->n_disks; i++) {
		char step[64], *start = NULL, *now = ds_of(l->disks[i].file);
		disk_step(step, sizeof(step), &l->disks[i]);
		na_run_done(r, step, &start);
		const char *want = start ? start : r->home;
		bool there = now && !strcmp(now, want);
		astray += !there;
		na_say(r->say, "  %s: on %s: %s", l->disks[i].label ? l->disks[i].label : l->disks[i].file,
		       now ? now : "?", there ? "as it started" : "NOT as it started");
		if (!there)
			na_say(r->say, "    (it started on %s)", want);
		free(start);
		free(now);
	}
	free(power);
	free(host);
	free(vmx);
	vs_vm_layout_free(&l);
	return astray ? na_run_fail(r, &(vs_error){.status = VS_ERR_TASK,
	                                     .message = "the VM is not back where it started"})
	              : VS_OK;
}
