/* The probe workflow: canary disks on a datastore, each one's flat file
 * read through every host that mounts it, a verdict, everything removed. */
#ifndef NFSAGENT_OPS_PROBE_H
#define NFSAGENT_OPS_PROBE_H

#include "ops/session.h"
#include "ops/verdict.h"
#include "ops/extents.h"

typedef struct na_probe_args {
	const char *host, *datastore, *db;
	long disks;
	int64_t size;
	int recheck_s;
	const char *campaign, *target;  /* recorded with the verdict */
} na_probe_args;

typedef struct na_probe_result {
	/* The host that read short (its ESXi build has the bug), else --host;
	 * and the datastore: pointers into the session's inventory. */
	const vs_host *host;
	const vs_datastore *datastore;
	char verdict[3072];
	const char *extent_case;  /* "host", "export", "unconfirmed", "transient" or NULL */
	size_t disks;             /* canaries created (and removed) */
	na_tally tally;
	bool verdict_made;        /* false: no canary could be read, nothing recorded */
	na_checks checks;
} na_probe_result;

/* Creates a->disks canaries in a new folder on a->datastore, checks them,
 * records the verdict (in s->store, else a->db) and removes them again on
 * every path, Ctrl-C included (err then says how far it got). */
int na_op_probe(na_session *s, const na_probe_args *a, na_probe_result *out, vs_error *err);
/* A finding when the mismatch showed, a problem when a check failed,
 * unchecked when nothing could be read. */
na_verdict na_probe_verdict(const na_probe_result *r);
void na_probe_result_free(na_probe_result *r);

#endif
