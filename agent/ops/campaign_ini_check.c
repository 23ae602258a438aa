/* A campaign file checked whole once read (campaign_ini.c): each target
 * against the others, what a campaign of several VMs cannot do yet, and
 * the [campaign]'s labels, NAS and baseline folded into each target. */
#include <stdlib.h>
#include <string.h>

#include "ops/campaign_ini.h"

bool na_target_nfs41(const na_target *t)
{
	return t->servers && t->nfs && strcmp(t->nfs, "4.1") == 0;
}

/* Whether a and b name one export: one path, or (before the NAS gave the
 * path) one dataset that both make. */
static bool one_export(const na_target *a, const na_target *b)
{
	if (a->path && b->path)
		return !strcmp(a->path, b->path);
	return !a->path && !b->path && a->create && b->create && a->dataset && b->dataset &&
	       !strcmp(a->dataset, b->dataset);
}

bool na_target_alternates(const na_target *a, const na_target *b)
{
	return a != b && a->servers && b->servers && a->nfs && b->nfs && !strcmp(a->servers, b->servers) &&
	       one_export(a, b) && strcmp(a->nfs, b->nfs) != 0;
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Two targets that make one dataset are NFS 3 and 4.1 on it, through one
 * NAS and one set of hosts, and ask the same of it: the first makes it,
 * the second only follows. */
static bool same_asks(const na_target *a, const na_target *b)
{
	if (!na_target_alternates(a, b) || !same_text(a->nas, b->nas) ||
	    !same_text(a->nas_command, b->nas_command) || !same_text(a->hosts, b->hosts))
		return false;
	if (a->keep != b->keep || a->share_to.n != b->share_to.n)
		return false;
	for (int i = 0; i < NAS_SET_N; i++)
		if (strcmp(a->settings.v[i], b->settings.v[i]) != 0)
			return false;
	for (size_t i = 0; i < a->share_to.n; i++)
		if (strcmp(a->share_to.v[i], b->share_to.v[i]) != 0)
			return false;
	return true;
}

static int check_target(parse *p, const na_target *t, size_t index)
{
	const na_campaign *c = p->c;
	p->line = t->line;
	const char *dataset = na_target_dataset_check(t, c->nas || c->nas_command);
	if (dataset)
		na_ini_fail_at(p, "[target %s] %s", t->name, dataset);
	else if (!t->datastore)
		na_ini_fail_at(p, "[target %s] needs datastore = NAME", t->name);
	else if (t->servers && (!(t->path || t->create) || !t->nfs))
		na_ini_fail_at(p, "[target %s] mounts an export: it needs path and nfs too", t->name);
	else if (!t->servers && (t->path || t->nfs))
		na_ini_fail_at(p, "[target %s] names an export: give server too", t->name);
	else if (t->connections && !t->servers)
		na_ini_fail_at(p, "[target %s] connections = N is set when nfsagent mounts: give server, path "
		                  "and nfs too", t->name);
	else if (t->on_extent_bug && !strcmp(t->on_extent_bug, "cold") && !c->allow_power_off)
		na_ini_fail_at(p, "[target %s] on_extent_bug = cold needs allow_power_off = yes in [campaign]",
		               t->name);
	for (size_t i = 0; i < index && !p->error[0]; i++)
		if (!strcmp(c->targets[i].datastore, t->datastore) && !na_target_alternates(&c->targets[i], t))
			na_ini_fail_at(p, "targets %s and %s use the same datastore", c->targets[i].name, t->name);
	for (size_t i = 0; i < index && !p->error[0]; i++)
		if (t->create && c->targets[i].create && !strcmp(c->targets[i].dataset, t->dataset) &&
		    !same_asks(&c->targets[i], t))
			na_ini_fail_at(p, "targets %s and %s make dataset %s: only NFS 3 and NFS 4.1 on it, with the "
			                  "same server, nas, hosts, settings, share_to and keep", c->targets[i].name,
			               t->name, t->dataset);
	return p->error[0] ? -1 : 0;
}

/* What a campaign of several VMs (vms =) cannot do yet, said before
 * anything is touched. */
static void check_group(parse *p)
{
	na_campaign *c = p->c;
	p->line = c->vms_line;
	if (c->vm)
		na_ini_fail_at(p, "give vm or vms, not both");
	p->line = c->baseline ? c->baseline_line : p->line;
	if (!p->error[0] && c->baseline)
		na_ini_fail_at(p, "baseline = nas is not done yet with vms");
	for (size_t i = 0; i < c->n_targets && !p->error[0]; i++) {
		const na_target *t = &c->targets[i];
		p->line = t->line;
		for (size_t k = 0; k < c->n_targets && !p->error[0]; k++)
			if (na_target_alternates(&c->targets[k], t))
				na_ini_fail_at(p, "[target %s] alternates NFS versions with [target %s]: not done "
				                  "yet with vms", t->name, c->targets[k].name);
		if (!p->error[0] && t->servers && t->on_extent_bug && !strcmp(t->on_extent_bug, "nfs3"))
			na_ini_fail_at(p, "[target %s]: on_extent_bug = nfs3 on a datastore the campaign mounts "
			                  "is not done yet with vms", t->name);
		if (!p->error[0] && t->baseline > 0)
			na_ini_fail_at(p, "[target %s]: baseline = nas is not done yet with vms", t->name);
	}
}

static void check_campaign(parse *p)
{
	na_campaign *c = p->c;
	p->line = 1;
	if (!p->seen_campaign)
		na_ini_fail_at(p, "no [campaign] section");
	else if (!c->name || (!c->vm && !c->n_vms))
		na_ini_fail_at(p, "[campaign] needs name and vm (or vms)");
	else if (!c->n_profiles)
		na_ini_fail_at(p, "[campaign] needs profiles = P1, P2 (see nfsagent profiles)");
	else if (c->n_targets < 1)
		na_ini_fail_at(p, "no [target NAME] section");
	for (size_t i = 0; i < c->n_targets && !p->error[0]; i++)
		check_target(p, &c->targets[i], i);
	if (!p->error[0] && c->n_vms)
		check_group(p);
}

/* A target's results carry the campaign's labels too; a key the target
 * sets itself keeps the target's value. */
static void fold_labels(parse *p)
{
	const na_labels *from = &p->campaign_labels;
	for (size_t i = 0; i < p->c->n_targets && !p->error[0]; i++) {
		na_target *t = &p->c->targets[i];
		vs_error err = {0};
		for (size_t k = 0; k < from->n && !p->error[0]; k++) {
			const na_label *l = &from->v[k];
			if (na_labels_find(&t->labels, l->key))
				continue;
			size_t len = strlen(l->key) + strlen(l->value) + 2;
			char *kv = malloc(len);
			if (kv)
				snprintf(kv, len, "%s=%s", l->key, l->value);
			p->line = t->line;
			if (!kv)
				na_ini_fail_at(p, "out of memory");
			else if (na_labels_add(&t->labels, kv, &err) != VS_OK)
				na_ini_fail_at(p, "[target %s]: %s with the campaign's", t->name, err.message);
			free(kv);
		}
	}
}

/* A target's results carry what the campaign mounted it with as the label
 * connections=N, which compare holds as a factor ("NFS 3 with 4
 * connections against NFS 4.1"); nfsagent does not read back vSphere
 * 8.0 U1's numTcpConnections yet, and preflight refuses connections on a
 * datastore mounted before the campaign. */
static void label_connections(parse *p)
{
	for (size_t i = 0; i < p->c->n_targets && !p->error[0]; i++) {
		na_target *t = &p->c->targets[i];
		char kv[32];
		snprintf(kv, sizeof(kv), "connections=%ld", t->connections);
		vs_error err = {0};
		p->line = t->line;
		if (t->connections && na_labels_add(&t->labels, kv, &err) != VS_OK)
			na_ini_fail_at(p, "[target %s]: connections = %ld: %s", t->name, t->connections, err.message);
	}
}

/* A target that names no NAS of its own samples the campaign's. */
static void fold_nas(parse *p)
{
	na_campaign *c = p->c;
	for (size_t i = 0; i < c->n_targets && !p->error[0]; i++) {
		na_target *t = &c->targets[i];
		if (t->nas || t->nas_command || (!c->nas && !c->nas_command))
			continue;
		char **field = c->nas ? &t->nas : &t->nas_command;
		if (!(*field = strdup(c->nas ? c->nas : c->nas_command)))
			na_ini_fail_at(p, "out of memory");
	}
}

/* A target runs its NAS-local baselines when it says so, or when
 * [campaign] does and it has a NAS (its own or the campaign's): one
 * without a NAS has nothing to run them on. */
static void fold_baseline(parse *p)
{
	na_campaign *c = p->c;
	bool any = false;
	for (size_t i = 0; i < c->n_targets && !p->error[0]; i++) {
		na_target *t = &c->targets[i];
		bool nas = t->nas || t->nas_command;
		if (t->baseline < 0)
			t->baseline = c->baseline && nas;
		p->line = t->line;
		if (t->baseline && !nas)
			na_ini_fail_at(p, "[target %s] baseline = nas needs nas or nas_command (here or in "
			                  "[campaign])", t->name);
		any = any || t->baseline;
	}
	p->line = c->baseline_line;
	if (c->baseline && !any && !p->error[0])
		na_ini_fail_at(p, "baseline = nas, but no target has a NAS to run it on: give nas or "
		                  "nas_command");
}

void na_ini_check(parse *p)
{
	check_campaign(p);
	if (!p->error[0])
		label_connections(p);
	if (!p->error[0])
		fold_labels(p);
	if (!p->error[0])
		fold_nas(p);
	if (!p->error[0])
		fold_baseline(p);
}
