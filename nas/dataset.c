/* Making and removing a test dataset and its share on the NAS: the reads
 * first, all at once (uname, TrueNAS's version, the dataset and its
 * parent), then the refusals, then the changes one by one, each named in
 * the result's steps.  A dry run stops before the changes with the steps
 * it would take.  Words are fixed tokens, names nas_name_ok accepted and
 * values nas_settings_put checked; midclt's JSON goes on stdin (see
 * nas_dataset.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfsagent/nas_dataset.h"

/* midclt reads its JSON argument from the NAS shell's stdin: "$(cat)" in
 * double quotes is one word whose bytes the shell never reads as syntax. */
#define STDIN_WORD "\"$(cat)\""

static const char *const uname_words[] = {"uname", "-s", NULL};
static const char *const version_words[] = {"midclt", "call", "system.version", NULL};

static bool has(const char *text, const char *what)
{
	return text && strstr(text, what);
}

/* "zfs create -o ... tank/x" for a step; the JSON after a midclt word. */
static void add_step(char steps[][NAS_STEP_LEN], size_t *n, const char *const *words,
                     const char *input)
{
	if (*n >= NAS_STEPS_MAX)
		return;
	char *s = steps[(*n)++];
	size_t len = 0;
	s[0] = '\0';
	for (size_t i = 0; words[i] && len < NAS_STEP_LEN; i++) {
		bool json = input && strcmp(words[i], STDIN_WORD) == 0;
		len += (size_t)snprintf(s + len, NAS_STEP_LEN - len, json ? "%s'%s'" : "%s%s",
		                        i ? " " : "", json ? input : words[i]);
	}
}

static void calls_free(nas_call *calls, size_t n)
{
	for (size_t i = 0; i < n; i++)
		nas_output_free(&calls[i].out);
}

/* Runs one command that changes the NAS; its output into out when given. */
static int change(const nas_target *t, const char *const *words, const char *input,
                  nas_output *out, vs_error *err)
{
	nas_call c = {.remote = words, .input = input, .once = true};
	int rc = nas_run_all(t, &c, 1);
	if (rc != VS_OK)
		*err = c.err;
	/* stopping ssh does not stop zfs or midclt there: it may still land */
	if (rc == VS_ERR_CONNECT && c.out.status < 0)
		vs_fail(err, VS_ERR_CONNECT, "%s (the change may still be made on the NAS: see zfs get "
		        "nfsagent:run there)", c.err.message);
	if (out && rc == VS_OK)
		*out = c.out;
	else
		nas_output_free(&c.out);
	return rc;
}

/* The backend, from uname's run u and midclt's v: TrueNAS when midclt
 * answers; plain OpenZFS on Linux when it is missing. */
static int system_of(const nas_target *t, const nas_call *u, const nas_call *v, nas_system *sys,
                     vs_error *err)
{
	*sys = (nas_system){0};
	if (u->rc != VS_OK) {
		*err = u->err;
		vs_error_context(err, "reaching the NAS");
		return u->rc;
	}
	if (v->rc == VS_OK)
		return nas_parse_truenas_version(v->out.out, sys, err);
	/* only the shell's own "command not found": midclt's answers that say
	 * "not found" come from a TrueNAS, which must never be driven as plain
	 * OpenZFS behind its middleware's back */
	bool missing = v->out.status == 127;
	if (!missing) {
		*err = v->err;
		return v->rc;
	}
	if (strncmp(u->out.out, "Linux", 5) != 0)
		return vs_fail(err, VS_ERR_FAULT, "%s runs neither TrueNAS's middleware nor Linux "
		               "OpenZFS: nfsagent cannot make datasets there", t->display);
	return VS_OK;
}

/* A dataset's state from `zfs get`'s run c: one that does not exist is
 * !exists, not a failure. */
static int state_of(const nas_call *c, nas_dataset_state *s, vs_error *err)
{
	*s = (nas_dataset_state){0};
	if (c->rc != VS_OK && has(c->out.errtext, "does not exist"))
		return VS_OK;
	if (c->rc != VS_OK) {
		*err = c->err;
		return c->rc;
	}
	return nas_parse_dataset_get(c->out.out, c->out.len, s, err);
}

static int read_state(const nas_target *t, const char *dataset, nas_dataset_state *s,
                      vs_error *err)
{
	const char *const get[] = {"zfs", "get", "-Hp", "-o", "property,value,source",
	                           nas_dataset_get_list, dataset, NULL};
	nas_call c = {.remote = get};
	nas_run_all(t, &c, 1);
	int rc = state_of(&c, s, err);
	calls_free(&c, 1);
	return rc;
}

/* The first round, all reads at once: the backend, dataset's state and,
 * when parent is given, its parent's. */
static int first_reads(const nas_target *t, const char *dataset, const char *parent,
                       nas_system *sys, nas_dataset_state *ds, nas_dataset_state *ps,
                       vs_error *err)
{
	const char *const get[] = {"zfs", "get", "-Hp", "-o", "property,value,source",
	                           nas_dataset_get_list, dataset, NULL};
	const char *const get_parent[] = {"zfs", "get", "-Hp", "-o", "property,value,source",
	                                  nas_dataset_get_list, parent, NULL};
	nas_call c[] = {{.remote = uname_words}, {.remote = version_words}, {.remote = get},
	                {.remote = get_parent}};
	size_t n = parent ? 4 : 3;
	nas_run_all(t, c, n);
	int rc = system_of(t, &c[0], &c[1], sys, err);
	if (rc == VS_OK)
		rc = state_of(&c[2], ds, err);
	if (rc == VS_OK && parent)
		rc = state_of(&c[3], ps, err);
	calls_free(c, n);
	return rc;
}

static int name_check(const char *dataset, vs_error *err)
{
	if (!nas_name_ok(dataset, false) || !strchr(dataset, '/'))
		return vs_fail(err, VS_ERR_USAGE, "'%s' is not a ZFS dataset name inside a pool "
		               "(POOL/NAME, of [A-Za-z0-9_.:-])", dataset);
	return VS_OK;
}

/* ---- shares on TrueNAS --------------------------------------------------- */

enum { SHARES_MAX = 8 };

static int truenas_shares(const nas_target *t, const char *path, int64_t *ids, size_t *n,
                          vs_error *err)
{
	static const char *const query[] = {"midclt", "call", "sharing.nfs.query", NULL};
	nas_output out;
	int rc = change(t, query, NULL, &out, err);
	if (rc != VS_OK)
		return rc;
	rc = nas_parse_shares(out.out, out.len, path, ids, SHARES_MAX, n, err);
	nas_output_free(&out);
	return rc;
}

/* ---- create ---------------------------------------------------------------- */

/* The refusals, before anything changes: the parent missing, a dataset
 * there that is not nfsagent's (or, unless adopt_any, another run's). */
static int refusals(const nas_target *t, const nas_create_args *a, const char *parent,
                    nas_create_result *r, vs_error *err)
{
	if (!r->parent.exists)
		return vs_fail(err, VS_ERR_NOT_FOUND, "the parent %s of %s does not exist on %s", parent,
		               a->dataset, t->display);
	if (!r->now.exists)
		return VS_OK;
	if (!r->now.mark[0])
		return vs_fail(err, VS_ERR_USAGE, "%s exists on %s and is not nfsagent's (no "
		               "nfsagent:run mark): nothing made; to test on it, use it as an existing "
		               "export", a->dataset, t->display);
	if (!a->adopt_any && strcmp(r->now.mark, a->run_id) != 0)
		return vs_fail(err, VS_ERR_USAGE, "%s on %s was made by nfsagent run %s, not this one: "
		               "nothing made", a->dataset, t->display, r->now.mark);
	r->adopted = true;
	snprintf(r->found_mark, sizeof(r->found_mark), "%s", r->now.mark);
	return VS_OK;
}

/* The commands that make the dataset, into steps (and run unless dry). */
static int make_dataset(const nas_target *t, const nas_create_args *a, nas_create_result *r,
                        vs_error *err)
{
	int rc = VS_OK;
	const nas_settings *s = &a->settings;
	if (r->sys.backend == NAS_BACKEND_OPENZFS) {
		char buf[NAS_SET_N + 1][100];
		const char *words[NAS_CREATE_WORDS];
		nas_zfs_create_words(a->dataset, s, a->run_id, buf, words);
		add_step(r->steps, &r->n_steps, words, NULL);
		return a->dry_run ? VS_OK : change(t, words, NULL, NULL, err);
	}
	char *json = nas_truenas_dataset_json(a->dataset, s, a->run_id);
	if (!json)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	const char *const create[] = {"midclt", "call", "pool.dataset.create", STDIN_WORD, NULL};
	add_step(r->steps, &r->n_steps, create, json);
	if (!a->dry_run)
		rc = change(t, create, json, NULL, err);
	free(json);
	if (rc == VS_OK && s->v[NAS_SET_LOGBIAS][0]) {
		char set[64];
		snprintf(set, sizeof(set), "logbias=%s", s->v[NAS_SET_LOGBIAS]);
		const char *const words[] = {"zfs", "set", set, a->dataset, NULL};
		add_step(r->steps, &r->n_steps, words, NULL);
		if (!a->dry_run)
			rc = change(t, words, NULL, NULL, err);
	}
	return rc;
}

/* Where a dataset not made yet will be mounted: under its parent's mountpoint. */
static void predicted_mountpoint(const nas_create_args *a, const nas_create_result *r, char *buf,
                                 size_t size)
{
	if (r->now.exists || r->parent.mountpoint[0] != '/')
		snprintf(buf, size, "%s", r->now.exists ? r->now.mountpoint : "(its mountpoint)");
	else if (snprintf(buf, size, "%s/%s", r->parent.mountpoint, strrchr(a->dataset, '/') + 1) >=
	         (int)size)
		snprintf(buf, size, "(its mountpoint)");  /* no path of that length is shown cut */
}

/* The share: adopted when one is there, else made for share_to. */
static int make_share(const nas_target *t, const nas_create_args *a, nas_create_result *r,
                      vs_error *err)
{
	char mountpoint[256];
	predicted_mountpoint(a, r, mountpoint, sizeof(mountpoint));
	if (r->sys.backend == NAS_BACKEND_OPENZFS) {
		if (r->now.exists && strcmp(r->now.sharenfs, "off") != 0) {
			r->share_found = true;
			return VS_OK;
		}
		char value[512];
		nas_sharenfs_value(&a->share_to, value + 9, sizeof(value) - 9);
		memcpy(value, "sharenfs=", 9);
		const char *const words[] = {"zfs", "set", value, a->dataset, NULL};
		add_step(r->steps, &r->n_steps, words, NULL);
		int rc = a->dry_run ? VS_OK : change(t, words, NULL, NULL, err);
		r->share_made = rc == VS_OK && !a->dry_run;
		return rc;
	}
	int64_t ids[SHARES_MAX];
	size_t n = 0;
	int rc = r->now.exists ? truenas_shares(t, mountpoint, ids, &n, err) : VS_OK;
	if (rc != VS_OK || n > 0) {
		r->share_found = n > 0;
		return rc;
	}
	char *json = nas_truenas_share_json(&r->sys, mountpoint, &a->share_to, a->run_id);
	if (!json)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	const char *const create[] = {"midclt", "call", "sharing.nfs.create", STDIN_WORD, NULL};
	add_step(r->steps, &r->n_steps, create, json);
	if (!a->dry_run)
		rc = change(t, create, json, NULL, err);
	r->share_made = rc == VS_OK && !a->dry_run;
	free(json);
	return rc;
}

int nas_dataset_create(const nas_target *t, const nas_create_args *a, nas_create_result *r,
                       vs_error *err)
{
	*r = (nas_create_result){0};
	int rc = name_check(a->dataset, err);
	if (rc == VS_OK && !nas_run_id_ok(a->run_id))
		rc = vs_fail(err, VS_ERR_USAGE, "run id '%s' is not 1 to 64 of [A-Za-z0-9._-]", a->run_id);
	if (rc != VS_OK)
		return rc;
	char parent[256];
	snprintf(parent, sizeof(parent), "%.*s", (int)(strrchr(a->dataset, '/') - a->dataset),
	         a->dataset);
	rc = first_reads(t, a->dataset, parent, &r->sys, &r->now, &r->parent, err);
	if (rc == VS_OK)
		rc = refusals(t, a, parent, r, err);
	if (rc == VS_OK && !r->now.exists)
		rc = make_dataset(t, a, r, err);
	r->made = rc == VS_OK && !r->now.exists && !a->dry_run;
	/* what was made, as the NAS has it now: its settings and mountpoint */
	if (r->made)
		rc = read_state(t, a->dataset, &r->now, err);
	if (r->made && rc == VS_OK && strcmp(r->now.mark, a->run_id) != 0)
		rc = vs_fail(err, VS_ERR_FAULT, "%s was made but carries no mark nfsagent:run=%s",
		             a->dataset, a->run_id);
	if (rc == VS_OK && a->share_to.n)
		rc = make_share(t, a, r, err);
	if (rc != VS_OK)
		vs_error_context(err, "%s %s on %s", a->dry_run ? "planning" : "making", a->dataset,
		                 t->display);
	return rc;
}

/* ---- destroy --------------------------------------------------------------- */

typedef struct destroy_try {
	const nas_target *t;
	const char *const *words;
} destroy_try;

static int try_destroy(void *ud, bool *busy, vs_error *err)
{
	const destroy_try *d = ud;
	nas_call c = {.remote = d->words, .once = true};
	int rc = nas_run_all(d->t, &c, 1);
	if (rc != VS_OK) {
		*err = c.err;
		*busy = has(c.out.errtext, "dataset is busy");
	}
	calls_free(&c, 1);
	return rc;
}

static int remove_share(const nas_target *t, const nas_dataset_state *s, const char *dataset,
                        nas_destroy_result *r, vs_error *err)
{
	if (r->sys.backend == NAS_BACKEND_OPENZFS) {
		if (strcmp(s->sharenfs, "off") == 0)
			return VS_OK;
		const char *const words[] = {"zfs", "set", "sharenfs=off", dataset, NULL};
		add_step(r->steps, &r->n_steps, words, NULL);
		r->share_removed = true;
		return change(t, words, NULL, NULL, err);
	}
	int64_t ids[SHARES_MAX];
	size_t n = 0;
	int rc = truenas_shares(t, s->mountpoint, ids, &n, err);
	for (size_t i = 0; rc == VS_OK && i < n; i++) {
		char id[24];
		snprintf(id, sizeof(id), "%lld", (long long)ids[i]);
		const char *const words[] = {"midclt", "call", "sharing.nfs.delete", id, NULL};
		add_step(r->steps, &r->n_steps, words, NULL);
		rc = change(t, words, NULL, NULL, err);
		r->share_removed = rc == VS_OK;
	}
	return rc;
}

/* Still busy: why, the fix, and the command that finishes. */
static int still_busy(const nas_destroy_args *a, const nas_destroy_result *r, vs_error *err)
{
	vs_fail(err, VS_ERR_FAULT, "%s is still busy after %d tries in %d s: the NFS server on "
	        "the NAS still holds NFS 4.1 state (opens, locks, delegations) for it after the "
	        "unmount; its share is removed, the dataset is left", a->dataset, r->tries,
	        a->busy_budget_s);
	snprintf(err->details, sizeof(err->details),
	         "fix: restart the NAS's NFS service (nfsagent never does), or on Linux: echo %s > "
	         "/proc/fs/nfsd/unlock_filesystem\nthen finish with: %s", r->mountpoint, r->leftover);
	return VS_ERR_FAULT;
}

static int destroy_marked(const nas_target *t, const nas_destroy_args *a,
                          const nas_dataset_state *s, nas_destroy_result *r, vs_error *err)
{
	int rc = remove_share(t, s, a->dataset, r, err);
	if (rc != VS_OK)
		return rc;
	const char *const zfs[] = {"zfs", "destroy", a->dataset, NULL};
	const char *const mid[] = {"midclt", "call", "pool.dataset.delete", a->dataset, NULL};
	const char *const *words = r->sys.backend == NAS_BACKEND_TRUENAS ? mid : zfs;
	add_step(r->steps, &r->n_steps, words, NULL);
	destroy_try d = {t, words};
	rc = nas_retry_busy(try_destroy, &d, a->clock ? a->clock : &nas_real_clock, a->busy_budget_s,
	                    &r->tries, err);
	r->destroyed = rc == VS_OK;
	if (rc != VS_OK)
		snprintf(r->leftover, sizeof(r->leftover), "%s", r->steps[r->n_steps - 1]);
	if (rc != VS_OK && has(err->message, "dataset is busy"))
		rc = still_busy(a, r, err);
	return rc;
}

int nas_dataset_destroy(const nas_target *t, const nas_destroy_args *a, nas_destroy_result *r,
                        vs_error *err)
{
	*r = (nas_destroy_result){0};
	int rc = name_check(a->dataset, err);
	if (rc != VS_OK)
		return rc;
	nas_dataset_state s;
	rc = first_reads(t, a->dataset, NULL, &r->sys, &s, NULL, err);
	r->absent = rc == VS_OK && !s.exists;
	snprintf(r->mark, sizeof(r->mark), "%s", rc == VS_OK ? s.mark : "");
	snprintf(r->mountpoint, sizeof(r->mountpoint), "%s", rc == VS_OK ? s.mountpoint : "");
	if (rc == VS_OK && s.exists && !s.mark[0])
		rc = vs_fail(err, VS_ERR_USAGE, "%s on %s is not nfsagent's (no nfsagent:run mark): not "
		             "destroyed", a->dataset, t->display);
	else if (rc == VS_OK && s.exists && a->run_id && strcmp(s.mark, a->run_id) != 0)
		rc = vs_fail(err, VS_ERR_USAGE, "%s on %s was made by nfsagent run %s, not %s: not "
		             "destroyed", a->dataset, t->display, s.mark, a->run_id);
	else if (rc == VS_OK && s.exists)
		rc = destroy_marked(t, a, &s, r, err);
	if (rc != VS_OK)
		vs_error_context(err, "destroying %s on %s", a->dataset, t->display);
	return rc;
}
