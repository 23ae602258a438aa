/* A target whose dataset the campaign makes (create = yes): read and
 * planned at preflight, made (or adopted: the journal's, carrying this
 * run's mark) before the target is mounted, and removed once every host
 * unmounted it, unless keep = yes.  Only what carries the run's mark is
 * ever removed (nas_dataset_destroy checks it on the NAS itself). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/sha.h>

#include "ops/campaign_run.h"

/* How long "dataset is busy" is retried after the unmount, by default. */
enum { BUSY_BUDGET_S = 60 };

int na_target_dataset_key(na_target *t, const char *name, const char *value, vs_error *err)
{
	if (!strcmp(name, "dataset")) {
		if (!nas_name_ok(value, false) || !strchr(value, '/'))
			return vs_fail(err, VS_ERR_USAGE, "dataset '%s' is not a ZFS dataset name "
			               "(POOL/NAME: letters, digits and _.:- between '/')", value);
		free(t->dataset);
		return (t->dataset = strdup(value)) ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	if (!strcmp(name, "share_to"))
		return nas_networks_parse(value, &t->share_to, err);
	for (int i = 0; i < NAS_SET_N; i++)
		if (!strcmp(name, nas_setting_name((nas_setting)i)))
			return nas_settings_put(&t->settings, name, value, err);
	return VS_ERR_NOT_FOUND;
}

const char *na_target_dataset_check(const na_target *t, bool campaign_nas)
{
	bool settings = false;
	for (int i = 0; i < NAS_SET_N; i++)
		settings = settings || t->settings.v[i][0];
	if (!t->create)
		return t->dataset || settings || t->share_to.n || t->keep
		               ? "dataset, its settings, share_to and keep go with create = yes"
		               : NULL;
	if (!t->dataset || !t->servers || !t->nfs)
		return "create = yes needs dataset, server (the NAS's NFS address) and nfs";
	if (t->path)
		return "create = yes: path is the new dataset's mountpoint, read from the NAS: drop path";
	if (!t->nas && !t->nas_command && !campaign_nas)
		return "create = yes needs nas or nas_command (here or in [campaign])";
	return NULL;
}

/* The mark on what the run makes: its id when the NAS takes it as it is,
 * else a readable part of it and a hash of the whole (never another
 * run's). */
static void run_mark(const na_run *r, char *mark, size_t size)
{
	if (nas_run_id_ok(r->id) || size < 66) {
		snprintf(mark, size, "%s", r->id);
		return;
	}
	unsigned char sum[SHA256_DIGEST_LENGTH];
	SHA256((const unsigned char *)r->id, strlen(r->id), sum);
	size_t n = 0;
	for (const char *p = r->id; *p && n < 39; p++)  /* 39 + '-' + 24 hex: 64, the most */
		mark[n++] = nas_run_id_ok((char[]){*p, 0}) ? *p : '_';
	mark[n++] = '-';
	for (int i = 0; i < 12; i++)
		n += (size_t)snprintf(mark + n, size - n, "%02x", sum[i]);
}

static void step_of(const na_target *t, char *step, size_t size)
{
	snprintf(step, size, "dataset:%s", t->name);
}

/* Makes (or, dry, only reads) t's dataset; t->path becomes its mountpoint. */
static int create(na_run *r, na_target *t, bool dry, nas_create_result *res)
{
	nas_target nas = {0};
	const nas_target *reached = na_run_nas_target(t, &nas);
	char mark[72];
	run_mark(r, mark, sizeof(mark));
	nas_create_args a = {.dataset = t->dataset, .run_id = mark, .settings = t->settings,
	                     .share_to = t->share_to, .dry_run = dry};
	vs_error err = {0};
	int rc = reached ? nas_dataset_create(reached, &a, res, &err)
	                 : vs_fail(&err, VS_ERR_USAGE, "target %s: its NAS cannot be reached as given", t->name);
	nas_target_free(&nas);
	if (rc != VS_OK) {
		vs_error_context(&err, "target %s: dataset %s", t->name, t->dataset);
		return na_run_fail(r, &err);
	}
	const char *mp = res->now.exists ? res->now.mountpoint : NULL;
	char predicted[300];
	if (!mp && res->parent.mountpoint[0] == '/') {
		snprintf(predicted, sizeof(predicted), "%s/%s", res->parent.mountpoint,
		         strrchr(t->dataset, '/') + 1);
		mp = predicted;
	}
	if (!mp || mp[0] != '/')
		return na_run_failf(r, VS_ERR_USAGE, "target %s: dataset %s has no mountpoint to export",
		                    t->name, t->dataset);
	free(t->path);
	return (t->path = strdup(mp)) ? VS_OK : na_run_failf(r, VS_ERR_NOMEM, "out of memory");
}

/* "recordsize 16384, sync always (set); compression lz4, atime off (inherited)" */
static void settings_words(const nas_dataset_state *s, const nas_settings *asked, char *buf,
                           size_t size)
{
	size_t n = 0;
	for (int pass = 0; pass < 2; pass++) {
		bool any = false;
		for (int i = 0; i < NAS_SET_N && n < size; i++)
			if ((asked->v[i][0] != 0) == (pass == 0) && s->values.v[i][0]) {
				n += (size_t)snprintf(buf + n, size - n, "%s%s %s", any ? ", " : pass && n ? "; " : "",
				                      nas_setting_name((nas_setting)i), s->values.v[i]);
				any = true;
			}
		if (any && n < size)
			n += (size_t)snprintf(buf + n, size - n, " (%s)", pass ? "inherited" : "set");
	}
}

/* The target that makes t's dataset: t, or an earlier target on the same
 * dataset (NFS 3 and NFS 4.1 on one export), which t then only follows:
 * its path, made and removed once, by that target. */
static const na_target *maker_of(const na_run *r, const na_target *t)
{
	for (const na_target *m = r->c->targets; m < t; m++)
		if (m->create && !strcmp(m->dataset, t->dataset))
			return m;
	return t;
}

static int follow(na_target *t, const na_target *m)
{
	if (!m->path)
		return VS_OK;
	free(t->path);
	return (t->path = strdup(m->path)) ? VS_OK : VS_ERR_NOMEM;
}

/* share_to unset: the address of each host's vmkernel port that reaches
 * the NFS server (its subnet's, else the default route's), for the hosts
 * the target mounts on. */
static int default_share_to(na_run *r, na_target *t)
{
	vs_host **hosts = NULL;
	size_t n = 0;
	vs_error err = {0};
	int rc = na_run_target_host_list(r, t, &hosts, &n, &err);
	const char **morefs = calloc(n ? n : 1, sizeof(*morefs)), **servers = calloc(n ? n : 1, sizeof(*servers));
	vs_host_link *links = calloc(n ? n : 1, sizeof(*links));
	char server[256];
	snprintf(server, sizeof(server), "%.*s", (int)strcspn(t->servers, ","), t->servers);
	if (rc == VS_OK && (!morefs || !servers || !links))
		rc = vs_fail(&err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; rc == VS_OK && i < n; i++)
		morefs[i] = hosts[i]->moref, servers[i] = server;
	if (rc == VS_OK)
		rc = vs_hosts_link_to(r->cl, morefs, servers, n, links, &err);
	char list[NAS_SHARE_MAX * 48] = "";
	size_t used = 0, kept = 0;
	for (size_t i = 0; rc == VS_OK && i < n; i++) {
		bool twice = false;  /* hosts behind one address (the lab's) */
		for (size_t k = 0; k < i; k++)
			twice = twice || !strcmp(links[k].ip, links[i].ip);
		/* a host left out would be refused by the share: none is */
		if (!links[i].ip[0])
			rc = vs_fail(&err, VS_ERR_NOT_FOUND, "host %s: no address of a vmkernel port to %s "
			             "read: give share_to = CIDR", hosts[i]->name, server);
		else if (!twice && ++kept > NAS_SHARE_MAX)
			rc = vs_fail(&err, VS_ERR_USAGE, "more than %d hosts' addresses: give share_to = "
			             "CIDR", NAS_SHARE_MAX);
		else if (!twice)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", used ? "," : "",
			                         links[i].ip);
	}
	if (rc == VS_OK)
		rc = nas_networks_parse(list, &t->share_to, &err);
	free(hosts);
	free(morefs);
	free(servers);
	free(links);
	if (rc != VS_OK) {
		vs_error_context(&err, "target %s: the hosts' NFS addresses", t->name);
		return na_run_fail(r, &err);
	}
	na_say(r->say, "Target %s: shared to the hosts' NFS vmkernel addresses: %s", t->name, list);
	return VS_OK;
}

int na_run_dataset_plan(na_run *r, na_target *t)
{
	if (!t->create)
		return VS_OK;
	const na_target *m = maker_of(r, t);
	if (m != t) {
		na_say(r->say, "Target %s: dataset %s, made for target %s, at %s", t->name, t->dataset,
		       m->name, m->path ? m->path : "?");
		return follow(t, m) == VS_OK ? VS_OK : na_run_failf(r, VS_ERR_NOMEM, "out of memory");
	}
	nas_create_result res = {0};
	int rc = t->share_to.n ? VS_OK : default_share_to(r, t);
	if (rc == VS_OK)
		rc = create(r, t, true, &res);
	if (rc != VS_OK)
		return rc;
	/* not made yet: what it asks, the parent's for the rest */
	nas_dataset_state will = res.now.exists ? res.now : res.parent;
	for (int i = 0; !res.now.exists && i < NAS_SET_N; i++)
		if (t->settings.v[i][0])
			memcpy(will.values.v[i], t->settings.v[i], sizeof(will.values.v[i]));
	char words[512] = "", free_text[32];
	settings_words(&will, &t->settings, words, sizeof(words));
	na_size(res.parent.available, free_text, sizeof(free_text));
	na_say(r->say, "Target %s: dataset %s %s at %s: %s; %s free", t->name, t->dataset,
	       res.now.exists ? "made already (this run's), kept" : "to make", t->path, words, free_text);
	return VS_OK;
}

int na_run_dataset_make(na_run *r, na_target *t)
{
	if (!t->create)
		return VS_OK;
	const na_target *m = maker_of(r, t);
	if (m != t)
		return follow(t, m) == VS_OK ? VS_OK : na_run_failf(r, VS_ERR_NOMEM, "out of memory");
	char step[160], *was = NULL;
	step_of(t, step, sizeof(step));
	bool made = na_run_done(r, step, &was) && was && strcmp(was, "made") == 0;
	/* removed by a failed run's cleanup: made again while work is left */
	bool removed = was && strcmp(was, "removed") == 0;
	free(was);
	if (removed && !na_run_has_work(r, t))
		return VS_OK;
	/* "making" first: a cleanup then asks the NAS about a dataset whose
	 * create may have landed, and only about those */
	int rc = made ? VS_OK : na_run_mark(r, step, "making");
	nas_create_result res = {0};
	if (rc == VS_OK)
		rc = create(r, t, false, &res);
	if (rc != VS_OK)
		return rc;
	char words[512] = "";
	settings_words(&res.now, &t->settings, words, sizeof(words));
	if (res.made)
		na_say(r->say, "Made dataset %s for target %s (%s), shared%s at %s", t->dataset, t->name,
		       words, res.share_found ? " already" : "", t->path);
	return made ? VS_OK : na_run_mark(r, step, "made");
}

/* Still busy: the leftover, why, and the fix; the journal keeps the step,
 * so that --abort or --resume tries again. */
static int still_busy(na_run *r, const na_target *t, const vs_error *err)
{
	na_say_warning(r->say, "target %s: dataset %s was not removed: %s", t->name, t->dataset,
	               err->message);
	for (const char *d = err->details; *d;) {
		size_t n = strcspn(d, "\n");
		na_say_warning(r->say, "  %.*s", (int)n, d);
		d += n + (d[n] == '\n');
	}
	return na_run_failf(r, err->status, "dataset %s of target %s is left on the NAS (named above): "
	                    "nfsagent run %s --abort tries again", t->dataset, t->name, r->c->file);
}

int na_run_dataset_remove(na_run *r, const na_target *t)
{
	if (!t->create || maker_of(r, t) != t)
		return VS_OK;  /* a follower's dataset goes with its maker */
	char step[160], *was = NULL;
	step_of(t, step, sizeof(step));
	/* "making": a kill may have come between the create on the NAS and
	 * "made", so the NAS is asked (nothing without the run's mark goes);
	 * never tried, removed or kept: nothing to do */
	bool tried = na_run_done(r, step, &was);
	bool made = tried && was && strcmp(was, "made") == 0;
	bool making = tried && was && strcmp(was, "making") == 0;
	free(was);
	if (!made && !making)
		return VS_OK;
	if (t->keep && made) {
		na_say(r->say, "  %s: kept (keep = yes)", t->dataset);
		return na_run_mark(r, step, "kept");
	}
	if (t->keep)
		return VS_OK;  /* asked to be kept, made or not: left as it is */
	nas_target nas = {0};
	const nas_target *reached = na_run_nas_target(t, &nas);
	char mark[72];
	run_mark(r, mark, sizeof(mark));
	nas_destroy_args a = {.dataset = t->dataset, .run_id = mark,
	                      .busy_budget_s = r->c->busy_wait ? (int)r->c->busy_wait : BUSY_BUDGET_S};
	nas_destroy_result res = {0};
	vs_error err = {0};
	int rc = reached ? nas_dataset_destroy(reached, &a, &res, &err)
	                 : vs_fail(&err, VS_ERR_USAGE, "its NAS cannot be reached as given");
	nas_target_free(&nas);
	if (rc == VS_ERR_USAGE && !made)
		return VS_OK;  /* there, but not this run's: never touched */
	if (rc == VS_ERR_FAULT && res.leftover[0])
		return still_busy(r, t, &err);
	if (rc != VS_OK) {
		vs_error_context(&err, "remove dataset %s of target %s", t->dataset, t->name);
		return na_run_fail(r, &err);
	}
	if (made || !res.absent)
		na_say(r->say, "  %s: %s", t->dataset, res.absent ? "gone already"
		       : res.tries > 1 ? "removed (the NAS said busy first)" : "removed");
	return na_run_mark(r, step, "removed");
}
