/* Probe verdicts and failed moves are findings: recorded with where they
 * came from, so that a regression check can tell when the NFS 4.1 bug
 * appeared or went away between ESXi builds. */
#include <jansson.h>
#include <stdlib.h>
#include <time.h>

#include "ops/findings.h"

int na_record_finding(na_store *store, const char *db, const na_finding_source *src,
                      bool extent_bug, const char *extent_case, const char *verdict,
                      char *const *evidence, size_t n_evidence, vs_error *err)
{
	char at[32];
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(at, sizeof(at), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_t *ev = json_array();
	for (size_t i = 0; i < n_evidence; i++)
		json_array_append_new(ev, json_string(evidence[i]));
	char *ev_text = json_dumps(ev, JSON_COMPACT);
	json_decref(ev);
	const vs_host *h = src->host;
	const vs_datastore *d = src->datastore;
	na_finding f = {0, at, src->kind, src->campaign, src->target, h->name, h->version, h->build,
	                d->name, d->type, d->remote_host, d->remote_path, src->vm, extent_bug, verdict,
	                ev_text, extent_case};
	na_store *opened = NULL;
	int rc = store ? VS_OK : na_store_open(db, &opened, err);
	if (rc == VS_OK)
		rc = na_store_add_finding(store ? store : opened, &f, err);
	na_store_close(&opened);
	free(ev_text);
	return rc;
}
