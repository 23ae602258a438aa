/* The campaign's datastores: its targets mounted (all or nothing, the
 * intent journaled first), an admin's datastore left the admin's (the hosts
 * the campaign added to it journaled and taken away again at cleanup, a
 * mount a learned NFS 3 switch replaced put back exactly as it was), and
 * what the campaign mounted unmounted. */
#include <stdlib.h>
#include <string.h>

#include "ops/campaign_run.h"
#include "ops/mount.h"
#include "ops/unmount.h"
#include "ops/extents.h"

/* The compute resources the campaign's VMs run in, into r->vm_parents
 * (pointers into the inventory, until its next reload). */
static const char *const *vm_parents(na_run *r)
{
	size_t n = 0;
	for (size_t i = 0; i < na_run_vm_count(r); i++) {
		const vs_vm *vm = na_run_vm_at(r, i);
		const vs_host *h = vm && vm->host ? na_host_by_moref(&r->inv, vm->host) : NULL;
		bool seen = false;
		for (size_t k = 0; h && h->parent && k < n; k++)
			seen |= !strcmp(r->vm_parents[k], h->parent);
		if (h && h->parent && !seen)
			r->vm_parents[n++] = h->parent;
	}
	r->vm_parents[n] = NULL;
	return r->vm_parents;
}

/* The target's hosts: "all", "cluster:NAME", a host's name, or by default
 * the hosts the VM can run on: its cluster's, or its standalone host (the
 * VMs' with vms =).  A test datastore needs no other host, and DRS keeps
 * the VM on the hosts that have it. */
na_host_choice na_run_target_choice(na_run *r, const na_target *t)
{
	const char *h = t->hosts;
	return !h                           ? (na_host_choice){.parents = vm_parents(r)}
	       : !strcmp(h, "all")          ? (na_host_choice){.all = true}
	       : !strncmp(h, "cluster:", 8) ? (na_host_choice){.cluster = h + 8}
	                                    : (na_host_choice){.host = h};
}

int na_run_target_host_list(na_run *r, const na_target *t, vs_host ***hosts, size_t *n,
                            vs_error *err)
{
	na_host_choice choice = na_run_target_choice(r, t);
	return na_select_hosts(&r->inv, &choice, hosts, n, err);
}

/* "put-back:T": the admin's mount of t's export that a learned switch to
 * NFS 3 replaced (put_back_mark), into step (160 bytes). */
static const char *replaced_step(char *step, const na_target *t)
{
	snprintf(step, 160, "put-back:%s", t->name);
	return step;
}

/* The mount op on a's hosts, all or nothing (it undoes its own mounts when
 * a host fails); a's server list (malloc'd) is freed. */
static int mount_checked(na_run *r, na_mount_args *a, size_t *mounted)
{
	*mounted = 0;
	vs_error err = {0};
	int rc = a->server_list ? na_mount_check(a, &err)
	                        : vs_fail(&err, VS_ERR_TASK, "no NFS server is known to mount %s from", a->spec.name);
	if (rc == VS_OK) {
		na_session s = na_run_session(r);
		na_mount_result res;
		double t0 = na_run_clock();
		rc = na_op_mount(&s, a, &res, &err);
		r->t_mount += na_run_clock() - t0;
		*mounted = res.mounted;
		na_mount_result_free(&res);
	}
	if (rc != VS_OK)
		rc = na_run_fail(r, &err);
	free((void *)a->spec.servers);
	free(a->server_list);
	return rc == VS_OK ? na_run_reload(r) : rc;
}

/* Mounts t's export as NFS nfs ("3" or "4.1") on t's hosts. */
int na_run_mount_export(na_run *r, na_target *t, const char *nfs, size_t *mounted)
{
	char conns[24] = "";
	snprintf(conns, sizeof(conns), "%ld", t->connections);
	na_mount_args a = {.server_list = strdup(t->servers), .nfs = nfs,
	                   .connections = t->connections ? conns : NULL};
	a.spec.name = t->datastore;
	a.spec.path = t->path;
	a.choice = na_run_target_choice(r, t);
	return mount_checked(r, &a, mounted);
}

/* Unmounts d from hosts (NULL: every host that mounts it). */
static int unmount_from(na_run *r, const vs_datastore *d, vs_host *const *hosts, size_t n)
{
	vs_error err = {0};
	na_session s = na_run_session(r);
	na_unmount_result res;
	double t0 = na_run_clock();
	int rc = na_op_unmount(&s, d->name, hosts, n, &res, &err);
	r->t_mount += na_run_clock() - t0;
	na_unmount_result_free(&res);
	if (rc != VS_OK) {
		vs_error_context(&err, "unmounting %s", d->name);
		/* The campaign's input passed its preflight: a refusal now (a VM
		 * moved there since) is the world's state, for a resume to finish. */
		if (err.status == VS_ERR_USAGE)
			err.status = VS_ERR_TASK;
		return na_run_fail(r, &err);
	}
	return na_run_reload(r);
}

int na_run_unmount_all(na_run *r, const vs_datastore *d)
{
	return unmount_from(r, d, NULL, 0);
}

/* Whether the campaign added host (a name) to t's datastore ("adding:T"). */
static bool added_host(na_run *r, const na_target *t, const char *host)
{
	char step[160], *list = NULL;
	snprintf(step, sizeof(step), "adding:%s", t->name);
	na_run_done(r, step, &list);
	bool added = false;
	for (char *p = list, *save = NULL, *h; list && !added && (h = strtok_r(p, ",", &save)); p = NULL)
		added = strcmp(h + strspn(h, " "), host) == 0;
	free(list);
	return added;
}

/* "adding:T": the hosts of t that lack its datastore, which was there
 * before the campaign (an admin's): journaled before the campaign mounts it
 * on them, so that cleanup takes exactly those mounts away again. */
static int mark_adding(na_run *r, const na_target *t)
{
	char step[160];
	snprintf(step, sizeof(step), "adding:%s", t->name);
	vs_datastore *d = na_run_datastore(r, t->datastore);
	vs_host **hosts = NULL;
	size_t n = 0;
	vs_error err = {0};
	if (!d || na_run_target_host_list(r, t, &hosts, &n, &err) != VS_OK) {
		free(hosts);
		return d ? na_run_fail(r, &err) : VS_OK;
	}
	/* A stopped run's additions stay listed (they have it now). */
	char *list = NULL;
	na_run_done(r, step, &list);
	bool ok = true, more = false;
	for (size_t i = 0; ok && i < n; i++)
		if (!na_mounted_on(d, hosts[i]->moref) && !added_host(r, t, hosts[i]->name)) {
			ok = na_list_add(&list, hosts[i]->name);
			more = true;
		}
	free(hosts);
	int rc = !ok ? na_run_fail(r, &(vs_error){.status = VS_ERR_NOMEM, .message = "out of memory"})
	         : more ? na_run_mark(r, step, list)
	                : VS_OK;
	free(list);
	return rc;
}

/* Cleanup of a datastore that was there before: the hosts the campaign
 * added to it lose it again; the admin's keep it. */
int na_run_remove_added(na_run *r, const na_target *t)
{
	vs_datastore *d = na_run_datastore(r, t->datastore);
	vs_host **hosts = d ? calloc(d->n_mounts + 1, sizeof(*hosts)) : NULL;
	size_t n = 0;
	for (size_t i = 0; hosts && i < d->n_mounts; i++) {
		vs_host *h = na_host_by_moref(&r->inv, d->mounts[i].host);
		if (h && added_host(r, t, h->name))
			hosts[n++] = h;
	}
	int rc = n ? unmount_from(r, d, hosts, n) : VS_OK;
	free(hosts);
	return rc;
}

/* Whether a host of t lacks its datastore d: an admin unmounted it there,
 * or the VM ran in another cluster when an earlier run mounted it. */
static bool lacking_hosts(na_run *r, const na_target *t, const vs_datastore *d)
{
	vs_host **hosts = NULL;
	size_t n = 0;
	bool lacking = false;
	if (na_run_target_host_list(r, t, &hosts, &n, &(vs_error){0}) == VS_OK)
		for (size_t i = 0; i < n; i++)
			lacking |= !na_mounted_on(d, hosts[i]->moref);
	free(hosts);
	return lacking;
}

/* The campaign mounts t: "mounting:T" is journaled before the first host
 * mounts it, so a run killed between a host's mount and the "mount:T" step
 * still knows the datastore is its own.  A mount that fails on one host is
 * undone on the others (all or nothing). */
int na_run_mount_target(na_run *r, na_target *t)
{
	char step[160], intent[160], *detail = NULL;
	snprintf(step, sizeof(step), "mount:%s", t->name);
	snprintf(intent, sizeof(intent), "mounting:%s", t->name);
	if (!t->servers || na_run_alternating(r, t))
		return VS_OK;
	/* Journaled, and there: done.  Journaled but gone (a failed run's
	 * cleanup unmounted it), or the campaign's own mount, as it mounts now,
	 * missing on a host of t (the VM moved to another cluster while the run
	 * was stopped): mounted there if the target has work left, the
	 * campaign's to unmount unless it was the admin's (below).  An admin's
	 * mount a learned switch replaced ("put-back:T") stays the admin's, also
	 * when a kill left it unmounted. */
	bool journaled = na_run_done(r, step, &detail);
	bool journaled_ours = journaled && detail && !strcmp(detail, "mounted");
	free(detail);
	char put_back[160];
	bool replaced = na_run_done(r, replaced_step(put_back, t), NULL);
	const vs_datastore *present = na_run_datastore(r, t->datastore);
	bool there = present != NULL;
	bool grows = there && journaled_ours && !replaced && present->type &&
	             !strcmp(present->type, na_run_ds_type(r, t)) && lacking_hosts(r, t, present);
	if (journaled && ((there && !grows) || !na_run_has_work(r, t)))
		return VS_OK;
	bool ours = !replaced && (!there || (journaled ? journaled_ours : na_run_done(r, intent, NULL)));
	int rc = !there ? na_run_mark(r, intent, "absent") : ours ? VS_OK : mark_adding(r, t);
	size_t mounted = 0;
	if (rc == VS_OK)
		rc = na_run_mount_export(r, t, na_run_nfs_of(r, t), &mounted);
	/* A mount of its own that failed on a host goes, unless it was there
	 * (growing) before: the mount op undid its own part. */
	if (rc != VS_OK && ours && !grows && na_run_reload(r) == VS_OK) {
		vs_datastore *d = na_run_datastore(r, t->datastore);
		if (d) {
			na_say(r->say, "Target %s: unmounting %s from the hosts that did mount it.", t->name,
			       t->datastore);
			na_run_unmount_all(r, d);
		}
		return rc;
	}
	/* A datastore that was there before (an admin's, on some hosts) stays the
	 * admin's; cleanup unmounts it only from the hosts the campaign added. */
	if (rc == VS_OK && mounted && !ours)
		na_say(r->say, "Target %s: %s was mounted before the campaign; cleanup unmounts it again from the "
		       "%zu host%s the campaign added.", t->name, t->datastore, mounted,
		       na_s(mounted));
	return rc == VS_OK ? na_run_mark(r, step, ours ? "mounted" : "present") : rc;
}

/* Whether the campaign mounted t's datastore (else it was there before). */
bool na_run_mounted_by_campaign(na_run *r, const na_target *t)
{
	char step[160], intent[160], *detail = NULL;
	snprintf(step, sizeof(step), "mount:%s", t->name);
	snprintf(intent, sizeof(intent), "mounting:%s", t->name);
	if (!t->servers)
		return false;
	if (na_run_alternating(r, t))
		return true;
	char replaced[160];
	if (na_run_done(r, replaced_step(replaced, t), NULL))
		return false;  /* the admin's, put back at cleanup */
	bool journaled = na_run_done(r, step, &detail);
	bool ours = journaled ? detail && !strcmp(detail, "mounted") : na_run_done(r, intent, NULL);
	free(detail);
	return ours;
}

/* "put-back:T" holds the admin's mount of t's export that a switch to NFS 3
 * replaces (a learned one, or migrate's nfs3 policy on a move), as JSON:
 * its type, servers, path, security and each host with its access mode, so
 * that cleanup mounts exactly that again. */
int na_run_put_back_mark(na_run *r, const na_target *t, const vs_datastore *d)
{
	char step[160];
	replaced_step(step, t);
	/* The first record holds it whole: a resume after a kill during the
	 * unmount would see only the hosts left. */
	if (na_run_done(r, step, NULL) || r->journal_failed)
		return r->journal_failed;
	json_t *hosts = json_array();
	for (size_t i = 0; i < d->n_mounts; i++) {
		const char *mode = d->mounts[i].access_mode, *host = na_host_name(&r->inv, d->mounts[i].host);
		if (!added_host(r, t, host))  /* the campaign's addition is not the admin's */
			json_array_append_new(hosts, json_pack("{s:s, s:b}", "host", host, "read_only",
			                                       mode && !strcmp(mode, "readOnly")));
	}
	json_t *was = json_pack("{s:s, s:s?, s:s?, s:s?, s:o}", "type", d->type, "servers",
	                        d->remote_host, "path", d->remote_path, "security", d->security,
	                        "hosts", hosts);
	char *detail = was ? json_dumps(was, JSON_COMPACT) : NULL;
	json_decref(was);
	int rc = detail ? na_run_mark(r, step, detail)
	                : na_run_fail(r, &(vs_error){.status = VS_ERR_NOMEM, .message = "out of memory"});
	free(detail);
	return rc;
}


/* Mounts the admin's mount `was` (put_back_mark's JSON) again: the same
 * hosts, each read-only or not as it was, the same servers and security. */
static int mount_as_was(na_run *r, na_target *t, const json_t *was)
{
	const json_t *hosts = json_object_get(was, "hosts");
	size_t n = json_array_size(hosts);
	vs_host **on = calloc(n + 1, sizeof(*on));
	bool *read_only = calloc(n + 1, sizeof(*read_only));
	const char *servers = json_string_value(json_object_get(was, "servers"));
	const char *type = json_string_value(json_object_get(was, "type"));
	const char *path = json_string_value(json_object_get(was, "path"));
	na_mount_args a = {.server_list = servers || t->servers ? strdup(servers ? servers : t->servers) : NULL,
	                   .nfs = type && !strcmp(type, "NFS41") ? "4.1" : "3", .read_only = read_only};
	a.spec.name = t->datastore;
	a.spec.path = path ? path : t->path;  /* a target may name the datastore alone */
	a.spec.security = json_string_value(json_object_get(was, "security"));
	vs_error err = {0};
	for (size_t i = 0; on && read_only && i < n; i++) {
		const json_t *h = json_array_get(hosts, i);
		vs_host *host = na_find_host(&r->inv, json_string_value(json_object_get(h, "host")), &err);
		if (!host) {  /* gone since: the others get theirs back */
			na_say_warning(r->say, "%s is not put back on a host: %s", t->datastore, err.message);
			continue;
		}
		read_only[a.n_hosts] = json_is_true(json_object_get(h, "read_only"));
		on[a.n_hosts++] = host;
	}
	/* A journal of an earlier version holds only the type: t's hosts. */
	if (n)
		a.hosts = on;
	else
		a.choice = na_run_target_choice(r, t);
	size_t mounted = 0;
	int rc = !on || !read_only ? na_run_fail(r, &(vs_error){.status = VS_ERR_NOMEM, .message = "out of memory"})
	         /* every host of the admin's mount is gone from vCenter: the end
	          * state is not as it started */
	         : n && !a.n_hosts ? na_run_failf(r, VS_ERR_TASK, "%s: no host of the admin's mount is left "
	                                          "to put it back on", t->datastore)
	                           : mount_checked(r, &a, &mounted);
	if (!on || !read_only || (n && !a.n_hosts))
		free(a.server_list);
	free(on);
	free(read_only);
	return rc;
}

/* Whether every host of the admin's mount (put_back_mark's list, of the
 * hosts still in vCenter) mounts d: a put-back a kill cut short is not. */
static bool on_every_host(na_run *r, const vs_datastore *d, const json_t *hosts)
{
	for (size_t i = 0; i < json_array_size(hosts); i++) {
		const char *name = json_string_value(json_object_get(json_array_get(hosts, i), "host"));
		vs_error ignored = {0};
		vs_host *h = name ? na_find_host(&r->inv, name, &ignored) : NULL;
		if (h && !na_mounted_on(d, h->moref))
			return false;
	}
	return true;
}

/* Cleanup of a target whose admin mount a learned switch replaced: the
 * campaign's NFS 3 mount goes and the admin's NFS 4.1 one comes back,
 * unless it is back already. */
int na_run_put_back(na_run *r, na_target *t)
{
	char step[160], *detail = NULL;
	if (!na_run_done(r, replaced_step(step, t), &detail) || !detail) {
		free(detail);
		return VS_OK;
	}
	json_t *was = json_loads(detail, 0, NULL);
	if (!was)  /* an earlier version's: the type alone */
		was = json_pack("{s:s}", "type", detail);
	free(detail);
	const char *type = json_string_value(json_object_get(was, "type"));
	if (!type) {
		json_decref(was);
		return na_run_fail(r, &(vs_error){.status = VS_ERR_PROTOCOL,
		                             .message = "the journal's put-back step is not readable"});
	}
	vs_datastore *d = na_run_datastore(r, t->datastore);
	/* Decided before the unmount: it reads the inventory again, and d goes. */
	bool other = d && d->type && strcmp(d->type, type) != 0;
	bool back = d && !other && on_every_host(r, d, json_object_get(was, "hosts"));
	int rc = other ? na_run_unmount_all(r, d) : VS_OK;
	if (rc == VS_OK && !back) {
		na_say(r->say, "Target %s: mounting %s as %s again, as it was before the campaign.", t->name,
		       t->datastore, na_nfs_label(type));
		rc = mount_as_was(r, t, was);
	}
	json_decref(was);
	return rc;
}
