/* A move as its callers show it: the migrate op, then the extents it
 * checked and where the VM is, said on the session, or as JSON. */
#include <stdio.h>

#include "ops/migrate.h"
#include "ops/lines.h"

static void where_is(const na_session *s, const na_migrate_result *r, json_t *out)
{
	const vs_vm *now = r->now;
	json_t *ds = json_array();
	char names[512] = "";
	size_t len = 0;
	for (size_t i = 0; i < now->n_datastores; i++) {
		vs_datastore *d = na_datastore_by_moref(s->inv, now->datastores[i]);
		const char *name = d ? d->name : now->datastores[i];
		json_array_append_new(ds, json_string(name));
		if (len < sizeof(names))
			len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", i ? ", " : "", name);
	}
	const char *host = na_host_name(s->inv, now->host);
	na_say(s, "%s is on datastore %s (host %s), %s.", now->name, names, host, now->power_state);
	json_object_set_new(out, "location", json_pack("{s:o, s:s, s:s}", "datastores", ds, "host", host,
	                                               "power_state", now->power_state));
}

static json_t *record_of(const na_migrate_args *a, const na_migrate_result *r, const vs_error *err)
{
	json_t *out = json_pack("{s:s, s:s, s:b, s:b, s:s?}", "vm", a->vm, "datastore", a->datastore,
	                        "moved", r->moved, "already_there", r->already_there, "workaround",
	                        r->workaround);
	if (r->diag.verdict)
		json_object_set_new(out, "diagnosis", na_diagnosis_json(&r->diag));
	if (r->checks.n)
		json_object_set_new(out, "verify", na_checks_json(&r->checks));
	json_t *left = json_array();
	for (size_t i = 0; i < r->leftovers.n; i++)
		json_array_append_new(left, json_string(r->leftovers.paths[i]));
	json_object_set_new(out, "leftovers", left);
	if (!r->moved)
		json_object_set_new(out, "error", json_pack("{s:s, s:s}", "fault", err->fault,
		                                            "message", err->message));
	return out;
}

vs_status na_migrate_shown(na_session *s, const na_migrate_args *a, json_t **record,
                           na_verdict *verdict, na_leftovers *left, vs_error *err)
{
	na_migrate_result r;
	vs_status rc = na_op_migrate(s, a, &r, err);
	*verdict = na_migrate_verdict(&r, rc);
	/* A VM already in place was not moved, and nothing of it checked. */
	if (rc == VS_OK && s->output && r.checks.n)
		na_verify_lines(r.now ? r.now->name : a->vm, &r.checks, s->output, s->output_ud);
	json_t *out = record_of(a, &r, err);
	if (r.now)
		where_is(s, &r, out);
	if (record)
		*record = out;
	else
		json_decref(out);
	if (left) {
		*left = r.leftovers;
		r.leftovers = (na_leftovers){0};
	}
	na_migrate_result_free(&r);
	return rc;
}
