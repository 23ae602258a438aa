/* fio's completion-latency bins of a result (json+ "bins"), table
 * result_bins: stored once, when the result is recorded, so that compare
 * and report read them as rows instead of parsing fio's JSON again.
 * Recording, the schema step that fills the table for older results and a
 * reader's view of an older file all take the bins from one place, the
 * table-valued SQL function nfsagent_fio_bins(fio_json): what na_fio_parse
 * makes of the stored output, so a run with plain json (no bins) or output
 * that does not parse has none, as compare read them before. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"

/* Each result's bins as rows (result_id, direction, bin_ns, count). */
#define BINS_OF(results)                                     \
	"SELECT r.id AS result_id, b.direction, b.bin_ns, b.count" \
	" FROM " results " r, nfsagent_fio_bins(r.fio_json) b"
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

/* ---- nfsagent_fio_bins(fio_json): rows (direction, bin_ns, count), an
 * eponymous virtual table whose hidden column fio_json is its argument ---- */
enum { COL_DIRECTION, COL_BIN_NS, COL_COUNT, COL_FIO_JSON };

typedef struct bins_cursor {
	sqlite3_vtab_cursor base;
	na_fio_result f;
	const na_fio_dir *d[2];
	int k;       /* the direction read; 2: past the last */
	size_t i;    /* its bin */
	int64_t row;
} bins_cursor;

static int bins_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                        sqlite3_vtab **vtab, char **err)
{
	(void)aux, (void)argc, (void)argv, (void)err;
	int rc = sqlite3_declare_vtab(db, "CREATE TABLE x (direction TEXT, bin_ns INTEGER,"
	                                  " count INTEGER, fio_json HIDDEN)");
	if (rc == SQLITE_OK)
		rc = sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	if (rc == SQLITE_OK && !(*vtab = sqlite3_malloc(sizeof(**vtab))))
		rc = SQLITE_NOMEM;
	if (rc == SQLITE_OK)
		memset(*vtab, 0, sizeof(**vtab));
	return rc;
}

static int bins_disconnect(sqlite3_vtab *vtab)
{
	sqlite3_free(vtab);
	return SQLITE_OK;
}

/* Only with its argument: fio_json = the result's output. */
static int bins_best_index(sqlite3_vtab *vtab, sqlite3_index_info *info)
{
	(void)vtab;
	for (int c = 0; c < info->nConstraint; c++)
		if (info->aConstraint[c].iColumn == COL_FIO_JSON &&
		    info->aConstraint[c].op == SQLITE_INDEX_CONSTRAINT_EQ) {
			if (!info->aConstraint[c].usable)
				return SQLITE_CONSTRAINT;
			info->aConstraintUsage[c].argvIndex = 1;
			info->aConstraintUsage[c].omit = 1;
			info->estimatedCost = 1000;
			return SQLITE_OK;
		}
	return SQLITE_CONSTRAINT;
}

static int bins_open(sqlite3_vtab *vtab, sqlite3_vtab_cursor **cur)
{
	(void)vtab;
	bins_cursor *c = sqlite3_malloc(sizeof(*c));
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->k = 2;
	*cur = &c->base;
	return SQLITE_OK;
}

static int bins_close(sqlite3_vtab_cursor *cur)
{
	na_fio_result_clear(&((bins_cursor *)cur)->f);
	sqlite3_free(cur);
	return SQLITE_OK;
}

static int bins_eof(sqlite3_vtab_cursor *cur)
{
	return ((bins_cursor *)cur)->k >= 2;
}

/* From the cursor's place on to a bin, the write's after the read's. */
static void bins_settle(bins_cursor *c)
{
	while (c->k < 2 && c->i >= c->d[c->k]->n_bins) {
		c->k++;
		c->i = 0;
	}
}

static int bins_filter(sqlite3_vtab_cursor *cur, int plan, const char *plan_text, int argc,
                       sqlite3_value **argv)
{
	(void)plan, (void)plan_text;
	bins_cursor *c = (bins_cursor *)cur;
	na_fio_result_clear(&c->f);
	bool some = argc == 1 && na_bins_of_fio_json((const char *)sqlite3_value_text(argv[0]),
	                                             &c->f, c->d);
	c->k = some ? 0 : 2;
	c->i = 0;
	c->row = 0;
	bins_settle(c);
	return SQLITE_OK;
}

static int bins_next(sqlite3_vtab_cursor *cur)
{
	bins_cursor *c = (bins_cursor *)cur;
	c->i++;
	c->row++;
	bins_settle(c);
	return SQLITE_OK;
}

static int bins_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	const bins_cursor *c = (const bins_cursor *)cur;
	const na_fio_dir *d = c->d[c->k];
	if (col == COL_DIRECTION)
		sqlite3_result_text(ctx, na_bins_directions[c->k], -1, SQLITE_STATIC);
	else if (col == COL_BIN_NS)
		sqlite3_result_int64(ctx, d->bin_ns[c->i]);
	else if (col == COL_COUNT)
		sqlite3_result_int64(ctx, d->bin_count[c->i]);
	else
		sqlite3_result_null(ctx);
	return SQLITE_OK;
}

static int bins_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = ((bins_cursor *)cur)->row;
	return SQLITE_OK;
}

static const sqlite3_module bins_module = {
	.xConnect = bins_connect, .xBestIndex = bins_best_index, .xDisconnect = bins_disconnect,
	.xOpen = bins_open, .xClose = bins_close, .xFilter = bins_filter, .xNext = bins_next,
	.xEof = bins_eof, .xColumn = bins_column, .xRowid = bins_rowid,
};

int na_bins_register(na_store *s, vs_error *err)
{
	int rc = sqlite3_create_module(s->db, "nfsagent_fio_bins", &bins_module, NULL);
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
		size_t cap = n ? 2 * n : 1;
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
