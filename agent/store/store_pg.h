/* What store_pg.c shares with store_pg_bins.c and store_pg_group.c: the central database's
 * handle and running SQL there. */
#ifndef NFSAGENT_STORE_PG_H
#define NFSAGENT_STORE_PG_H

#include <libpq-fe.h>

#include "store/store_internal.h"

struct na_central {
	PGconn *pg;
	char id[64];        /* nfsagent_meta's database_id */
	char *insert_sql;   /* INSERT INTO results ... RETURNING id */
	int version;        /* its schema version, as a reader opened it */
};

/* The central schema step that added result_bins (store_pg_bins.c). */
enum { NA_CENTRAL_BINS = 3, NA_CENTRAL_LINK = 4, NA_CENTRAL_GROUP_UUID = 5, NA_CENTRAL_NFS_CLIENT = 6,
       NA_CENTRAL_SITE = 7 };
/* Step 5 (store_pg_group.c): results.group_uuid. */
extern const char na_central_group_uuid_step[];
extern const char na_central_bins_schema[];
/* In step 3's transaction: the bins of the results pushed before it, from
 * their stored fio output as the SQLite store's step 14 makes them. */
int na_central_backfill_bins(na_central *c, vs_error *err);
/* Records result id's bins (bins[0] read, bins[1] write) in the caller's
 * transaction. */
int na_central_insert_bins(na_central *c, const char *id, const na_fio_dir bins[2], vs_error *err);

/* Runs sql with n text parameters (NULL: SQL NULL); *out (may be NULL)
 * takes the result to read rows from.  doing: what was refused, in words
 * ("record results"). */
int na_pg_exec(na_central *c, const char *sql, int n, const char *const *values, const char *doing,
               PGresult **out, vs_error *err);
/* Ends the transaction: commits if rc is VS_OK, else rolls back. */
int na_pg_finish(na_central *c, int rc, const char *doing, vs_error *err);

#endif
