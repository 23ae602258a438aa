/* fio's latency bins of a result in the central database (store_bins.c
 * holds them the same way in the SQLite store): table result_bins, filled
 * by each push in the result's transaction and, for results pushed before
 * it existed, from their stored fio output. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_pg.h"

/* Step 3 (na_central_backfill_bins fills it in the same transaction). */
const char na_central_bins_schema[] =
	"CREATE TABLE result_bins ("
	" result_id bigint NOT NULL REFERENCES results (id) ON DELETE CASCADE,"
	" direction text NOT NULL CHECK (direction IN ('read', 'write')),"
	" bin_ns bigint NOT NULL, count bigint NOT NULL,"
	" PRIMARY KEY (result_id, direction, bin_ns));";

/* One array literal each: "{read,write}", "{1000,2000}", "{99,1}". */
typedef struct bin_arrays {
	char *dirs, *ns, *counts;
} bin_arrays;

static void arrays_free(bin_arrays *a)
{
	free(a->dirs);
	free(a->ns);
	free(a->counts);
}

static bool arrays_of(const na_fio_dir bins[2], bin_arrays *a)
{
	size_t n = bins[0].n_bins + bins[1].n_bins, size = 24 * n + 3;
	a->dirs = malloc(size);
	a->ns = malloc(size);
	a->counts = malloc(size);
	if (!a->dirs || !a->ns || !a->counts)
		return false;
	size_t at[3] = {1, 1, 1};
	strcpy(a->dirs, "{");
	strcpy(a->ns, "{");
	strcpy(a->counts, "{");
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < bins[k].n_bins; i++) {
			const char *sep = at[0] > 1 ? "," : "";
			at[0] += (size_t)snprintf(a->dirs + at[0], size - at[0], "%s%s", sep, na_bins_directions[k]);
			at[1] += (size_t)snprintf(a->ns + at[1], size - at[1], "%s%" PRId64, sep, bins[k].bin_ns[i]);
			at[2] += (size_t)snprintf(a->counts + at[2], size - at[2], "%s%" PRId64, sep,
			                          bins[k].bin_count[i]);
		}
	strcpy(a->dirs + at[0], "}");
	strcpy(a->ns + at[1], "}");
	strcpy(a->counts + at[2], "}");
	return true;
}

int na_central_insert_bins(na_central *c, const char *id, const na_fio_dir bins[2], vs_error *err)
{
	if (!bins[0].n_bins && !bins[1].n_bins)
		return VS_OK;
	bin_arrays a = {0};
	int rc = arrays_of(bins, &a) ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	const char *const args[] = {id, a.dirs, a.ns, a.counts};
	if (rc == VS_OK)
		rc = na_pg_exec(c, "INSERT INTO result_bins (result_id, direction, bin_ns, count)"
		                " SELECT $1, u.d, u.n, u.c FROM unnest($2::text[], $3::bigint[],"
		                " $4::bigint[]) AS u (d, n, c)", 4, args, "record results", NULL, err);
	arrays_free(&a);
	return rc;
}

/* Result row's bins from its fio output (column 1), when it has some. */
static int backfill_row(na_central *c, const PGresult *res, int row, vs_error *err)
{
	na_fio_result f;
	const na_fio_dir *d[2];
	if (!na_bins_of_fio_json(PQgetvalue(res, row, 1), &f, d))
		return VS_OK;
	const na_fio_dir bins[2] = {*d[0], *d[1]};
	int rc = na_central_insert_bins(c, PQgetvalue(res, row, 0), bins, err);
	na_fio_result_clear(&f);
	return rc;
}

/* A cursor, 200 results at a time: a fio JSON is large. */
int na_central_backfill_bins(na_central *c, vs_error *err)
{
	const char *doing = "create or upgrade the schema";
	int rc = na_pg_exec(c, "DECLARE older NO SCROLL CURSOR FOR SELECT id, fio_json FROM results"
	                    " WHERE fio_json IS NOT NULL", 0, NULL, doing, NULL, err);
	for (bool more = rc == VS_OK; more;) {
		PGresult *res = NULL;
		rc = na_pg_exec(c, "FETCH 200 FROM older", 0, NULL, doing, &res, err);
		int rows = rc == VS_OK ? PQntuples(res) : 0;
		for (int i = 0; rc == VS_OK && i < rows; i++)
			rc = backfill_row(c, res, i, err);
		more = rc == VS_OK && rows == 200;
		PQclear(res);
	}
	return rc == VS_OK ? na_pg_exec(c, "CLOSE older", 0, NULL, doing, NULL, err) : rc;
}

int na_central_bins_of(na_store *s, int64_t id, na_fio_dir out[2], vs_error *err)
{
	na_central *c = s->reader;
	if (c->version < NA_CENTRAL_BINS)
		return VS_OK;  /* none until a push upgrades it (and fills them) */
	char key[24];
	snprintf(key, sizeof(key), "%" PRId64, id);
	const char *const args[] = {key};
	PGresult *res = NULL;
	int rc = na_pg_exec(c, "SELECT direction, bin_ns, count FROM result_bins WHERE result_id = $1"
	                    " ORDER BY direction, bin_ns", 1, args, "read results", &res, err);
	int rows = rc == VS_OK ? PQntuples(res) : 0;
	for (int i = 0; rc == VS_OK && i < rows; i++)
		rc = na_bins_append(out, PQgetvalue(res, i, 0), strtoll(PQgetvalue(res, i, 1), NULL, 10),
		                    strtoll(PQgetvalue(res, i, 2), NULL, 10), err);
	PQclear(res);
	return rc;
}
