/* Text that commands and the campaign both show: a probe's verdict, the
 * extents a verify checked, and a move with where the VM ended up.  Here,
 * not in a command, so that the campaign calls nothing above it. */
#include <stdlib.h>
#include <string.h>

#include "cmd/render.h"
#include "analysis/stats.h"

/* Each check's line ("  STATE     what") wrapped to a terminal's width,
 * its continuation under the what. */
static void checks_wrapped(const na_checks *checks)
{
	char *text = NULL;
	size_t size = 0;
	FILE *lines = open_memstream(&text, &size);
	if (!lines) {
		na_checks_print(checks, stdout);
		return;
	}
	na_checks_print(checks, lines);
	fclose(lines);
	for (char *line = text; line && *line;) {
		char *end = strchr(line, '\n');
		if (end)
			*end = '\0';
		na_print_wrapped(stdout, line + strspn(line, " "), NA_TEXT_WIDTH, 2, 12);
		line = end ? end + 1 : NULL;
	}
	free(text);
}

/* The verdict, then each canary's check, within NA_TEXT_WIDTH columns (the
 * verdict names hosts and the datastore: escaped). */
void na_probe_print(const na_probe_result *r)
{
	char *shown = na_escaped(r->verdict);
	na_print_wrapped(stdout, shown ? shown : r->verdict, NA_TEXT_WIDTH, 0, 2);
	free(shown);
	checks_wrapped(&r->checks);
	fflush(stdout);
}

/* The verdict line, then each extent's check. */
void na_verify_print(const char *vm, const na_checks *checks)
{
	na_tally t = na_checks_tally(checks);
	char *shown = na_escaped(vm);  /* a name cannot drive the terminal */
	printf("%s: %zu extent%s checked: ", shown ? shown : vm, checks->n, na_s(checks->n));
	free(shown);
	if (t.short_)
		printf("%zu SMALLER than their descriptors say\n", t.short_);
	else if (t.problems)
		printf("%zu descriptor%s could not be read\n", t.problems, na_s(t.problems));
	else if (t.unknown)
		printf("could not check %zu: nothing short seen, but no verdict either\n", t.unknown);
	else if (t.transient)
		printf("all hold what their descriptors declare (%zu only when read again: transient)\n",
		       t.transient);
	else
		printf("all hold what their descriptors declare\n");
	na_checks_print(checks, stdout);
}

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

vs_status na_migrate_shown(na_session *s, const na_migrate_args *a, bool json, json_t **record,
                           na_verdict *verdict, na_leftovers *left, vs_error *err)
{
	na_migrate_result r;
	vs_status rc = na_op_migrate(s, a, &r, err);
	*verdict = na_migrate_verdict(&r, rc);
	/* A VM already in place was not moved, and nothing of it checked. */
	if (rc == VS_OK && s->output && r.checks.n)
		na_verify_print(r.now ? r.now->name : a->vm, &r.checks);
	json_t *out = record_of(a, &r, err);
	if (r.now)
		where_is(s, &r, out);
	if (record)
		*record = out;
	else if (json)
		na_json_print(out);
	else
		json_decref(out);
	if (left) {
		*left = r.leftovers;
		r.leftovers = (na_leftovers){0};
	}
	na_migrate_result_free(&r);
	return rc;
}
