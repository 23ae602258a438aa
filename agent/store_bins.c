/* fio's completion-latency bins of a result (json+ "bins"), table
 * result_bins: stored once, when the result is recorded, so that compare
 * and report read them as rows instead of parsing fio's JSON again.
 * Recording, the schema step that fills the table for older results and a
 * reader's view of an older file all take the bins from one place, SQL
 * function nfsagent_fio_bins: what na_fio_parse makes of the stored output,
 * so a run with plain json (no bins) or output that does not parse has
 * none, as compare read them before. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

/* Each result's bins as rows (result_id, direction, bin_ns, count). */
#define BINS_OF(results)                                                                  \
	"SELECT r.id AS result_id, json_extract(b.value, '$[0]') AS direction,"               \
	" json_extract(b.value, '$[1]') AS bin_ns, json_extract(b.value, '$[2]') AS count"    \
	" FROM " results " r, json_each(nfsagent_fio_bins(r.fio_json)) b"
#define INSERT_BINS "INSERT INTO result_bins (result_id, direction, bin_ns, count) "

/* Step 14: the table, filled for the results recorded before it. */
const char na_store_bins_schema[] =
	"CREATE TABLE result_bins ("
	" result_id INTEGER NOT NULL REFERENCES results (id) ON DELETE CASCADE,"
	" direction TEXT NOT NULL CHECK (direction IN ('read', 'write')),"
	" bin_ns INTEGER NOT NULL, count INTEGER NOT NULL,"
	" PRIMARY KEY (result_id, direction, bin_ns)) WITHOUT ROWID;"
	INSERT_BINS BINS_OF("results") ";";
/* A reader of an older file: the same rows, made as they are read (the
 * temp schema's results first, so a twin hidden there has none). */
const char na_store_bins_view[] = "CREATE TEMP VIEW result_bins AS " BINS_OF("results");

const char *const na_bins_directions[2] = {"read", "write"};

bool na_bins_of_fio_json(const char *json, na_fio_result *f, const na_fio_dir *d[2])
{
	vs_error ignored = {0};
	*f = (na_fio_result){0};
	if (!json || na_fio_parse(json, strlen(json), f, &ignored) != VS_OK) {
		na_fio_result_clear(f);  /* a failed job leaves it filled */
		return false;
	}
	d[0] = f->mixed ? &f->mixed_dir : &f->read;
	d[1] = &f->write;
	return true;
}

/* nfsagent_fio_bins(fio_json): [["read", ns, count], ...] or NULL. */
static void fio_bins_sql(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	na_fio_result f;
	const na_fio_dir *d[2];
	if (!na_bins_of_fio_json((const char *)sqlite3_value_text(argv[0]), &f, d)) {
		sqlite3_result_null(ctx);
		return;
	}
	sqlite3_str *t = sqlite3_str_new(sqlite3_context_db_handle(ctx));
	sqlite3_str_appendchar(t, 1, '[');
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < d[k]->n_bins; i++)
			sqlite3_str_appendf(t, "%s[\"%s\",%lld,%lld]", sqlite3_str_length(t) > 1 ? "," : "",
			                    na_bins_directions[k], (long long)d[k]->bin_ns[i],
			                    (long long)d[k]->bin_count[i]);
	sqlite3_str_appendchar(t, 1, ']');
	na_fio_result_clear(&f);
	int len = sqlite3_str_length(t);
	char *text = sqlite3_str_finish(t);
	if (text)
		sqlite3_result_text(ctx, text, len, sqlite3_free);
	else
		sqlite3_result_error_nomem(ctx);
}

int na_bins_register(na_store *s, vs_error *err)
{
	int rc = sqlite3_create_function(s->db, "nfsagent_fio_bins", 1,
	                                 SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
	                                 fio_bins_sql, NULL, NULL);
	return rc == SQLITE_OK ? VS_OK : na_sql_fail(s, rc, err);
}

int na_bins_insert(na_store *s, int64_t result_id, vs_error *err)
{
	if (s->version < NA_SCHEMA_BINS)
		return VS_OK;  /* a file held at an older schema (tests) */
	char id[24];
	snprintf(id, sizeof(id), "%lld", (long long)result_id);
	const char *const args[] = {id};
	return na_sql_exec_args(s, INSERT_BINS BINS_OF("results") " WHERE r.id = ?", args, 1, err);
}

int na_bins_append(na_fio_dir out[2], const char *direction, int64_t ns, int64_t count,
                   vs_error *err)
{
	na_fio_dir *d = &out[direction && strcmp(direction, "write") == 0];
	size_t n = d->n_bins;
	if ((n & (n - 1)) == 0) {  /* 0, 1, 2, 4...: full, doubled */
		size_t cap = n ? 2 * n : 64;
		int64_t *ns_grown = realloc(d->bin_ns, cap * sizeof(int64_t));
		if (ns_grown)
			d->bin_ns = ns_grown;
		int64_t *count_grown = ns_grown ? realloc(d->bin_count, cap * sizeof(int64_t)) : NULL;
		if (!count_grown)
			return vs_fail(err, VS_ERR_NOMEM, "out of memory for %zu latency bins", cap);
		d->bin_count = count_grown;
	}
	d->bin_ns[n] = ns;
	d->bin_count[n] = count;
	d->n_bins = n + 1;
	d->present = true;
	d->total_ios += count;
	return VS_OK;
}

int na_store_bins_of(na_store *s, int64_t result_id, na_fio_dir out[2], vs_error *err)
{
	sqlite3_stmt *st = NULL;
	memset(out, 0, 2 * sizeof(*out));
	if (s->reader)
		return na_central_bins_of(s, result_id, out, err);
	int rc = na_sql_prepare(s, "SELECT direction, bin_ns, count FROM result_bins"
	                        " WHERE result_id = ? ORDER BY direction, bin_ns", &st, err);
	int step = rc == VS_OK ? sqlite3_bind_int64(st, 1, result_id) : SQLITE_OK;
	while (rc == VS_OK && step == SQLITE_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		rc = na_bins_append(out, (const char *)sqlite3_column_text(st, 0),
		                    sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2), err);
		step = SQLITE_OK;
	}
	if (rc == VS_OK && step != SQLITE_DONE)
		rc = na_sql_fail(s, step, err);
	sqlite3_finalize(st);
	for (int k = 0; rc != VS_OK && k < 2; k++)
		na_fio_dir_clear(&out[k]);
	return rc;
}
