#ifndef NFSAGENT_FINDINGS_H
#define NFSAGENT_FINDINGS_H

#include "store/store.h"

typedef struct na_finding_source {
	const char *kind;          /* "probe" or "migration" */
	const char *campaign, *target;
	const vs_host *host;
	const vs_datastore *datastore;
	const char *vm;            /* NULL for a probe */
} na_finding_source;

/* Records a verdict in store, or (NULL) in the results database db (NULL =
 * default).  A failure to record is for the caller to warn about: the
 * verdict stands all the same. */
int na_record_finding(na_store *store, const char *db, const na_finding_source *src,
                      bool extent_bug, const char *extent_case, const char *verdict,
                      char *const *evidence, size_t n_evidence, vs_error *err);

#endif
