/* The results database (see store.h): querying results by provenance
 * field or label, and saying in words why a query matched nothing.  The
 * column a condition names always comes from the store's tables, never
 * from the user's text, and every value is a bound parameter. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "store/store_internal.h"

/* id or a query field, by its name or its alias (protocol). */
const char *na_condition_column(const char *cond, size_t len)
{
	if (len == strlen("id") && strncmp(cond, "id", len) == 0)
		return "id";
	int f = na_field_named(cond, len);
	if (f < 0 || !na_fields[f].query)
		return NULL;
	return f >= NA_FIELD_FIRST_ZFS ? na_zfs_columns[f - NA_FIELD_FIRST_ZFS].compared : na_fields[f].name;
}

int na_zfs_of(const char *col)
{
	for (int i = 0; col && i < NA_N_ZFS; i++)
		if (col == na_zfs_columns[i].compared)
			return i;
	return -1;
}

bool na_store_is_field(const char *name)
{
	return na_condition_column(name, strlen(name)) != NULL;
}

/* vSphere records NFS 3 as "NFS" and NFS 4.1 as "NFS41"; people write
 * NFS3, NFSv3, nfs4.1, NFSv4.1...  Any other value is taken as typed. */
const char *na_protocol_value(const char *v)
{
	static const char *const nfs3[] = {"nfs", "nfs3", "nfsv3", "v3", "3"};
	static const char *const nfs41[] = {"nfs41", "nfsv41", "nfs4", "nfsv4", "v41", "41", "4"};
	char k[16];
	size_t n = 0;
	for (const char *p = v; *p && n < sizeof(k) - 1; p++)
		if (!strchr(" ._-", *p))
			k[n++] = (char)tolower((unsigned char)*p);
	k[n] = '\0';
	for (size_t i = 0; strlen(v) < sizeof(k) && i < sizeof(nfs3) / sizeof(*nfs3); i++)
		if (strcmp(k, nfs3[i]) == 0)
			return "NFS";
	for (size_t i = 0; strlen(v) < sizeof(k) && i < sizeof(nfs41) / sizeof(*nfs41); i++)
		if (strcmp(k, nfs41[i]) == 0)
			return "NFS41";
	return v;
}

/* its text after '=' */
const char *na_condition_value(const char *cond, const char *col)
{
	const char *v = strchr(cond, '=') + 1;
	return col && strcmp(col, "datastore_type") == 0 ? na_protocol_value(v) : v;
}

bool na_values_add(char *buf, size_t size, size_t *len, size_t *n, size_t max, const char *v)
{
	if (v && *len < size)
		*len += (size_t)snprintf(buf + *len, size - *len, "%s%s", *n ? ", " : "",
		                         *n < max ? v : "...");
	return ++*n <= max;
}

/* Up to max distinct values of sql's first column, ", "-separated, into buf
 * ("" if none; "..." after the max-th).  key: bound to $1 when not NULL.
 * The SQL is the same for both engines. */
static int list_values(na_store *s, const char *sql, const char *key, size_t keylen, size_t max,
                       char *buf, size_t size, vs_error *err)
{
	if (s->reader)
		return na_central_list_values(s, sql, key, keylen, max, buf, size, err);
	sqlite3_stmt *st = NULL;
	int rc = na_sql_prepare(s, sql, &st, err);
	int step = rc == VS_OK && key ? sqlite3_bind_text(st, 1, key, (int)keylen, SQLITE_STATIC)
	                              : SQLITE_OK;
	size_t len = 0, n = 0;
	buf[0] = '\0';
	while (rc == VS_OK && step == SQLITE_OK && (step = sqlite3_step(st)) == SQLITE_ROW)
		step = na_values_add(buf, size, &len, &n, max, (const char *)sqlite3_column_text(st, 0))
		               ? SQLITE_OK
		               : SQLITE_DONE;
	if (rc == VS_OK && step != SQLITE_DONE)
		rc = na_sql_fail(s, step, err);
	sqlite3_finalize(st);
	return rc;
}

/* A condition on a label key that no result has is a typo far more often
 * than a real question: say which fields and labels there are. */
static int check_fields(na_store *s, const char *const *conds, size_t n, vs_error *err)
{
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(conds[i], '=');
		size_t len = eq ? (size_t)(eq - conds[i]) : 0;
		if (!eq || !len || na_condition_column(conds[i], len))
			continue;
		char found[8], labels[512];
		int rc = list_values(s, "SELECT 1 FROM result_labels WHERE key = $1 LIMIT 1", conds[i], len,
		                     1, found, sizeof(found), err);
		if (rc == VS_OK && found[0])
			continue;
		if (rc == VS_OK)
			rc = list_values(s, "SELECT DISTINCT key FROM result_labels ORDER BY key", NULL, 0, 20,
			                 labels, sizeof(labels), err);
		if (rc != VS_OK)
			return rc;
		char fields[512] = "";
		size_t flen = 0;
		for (size_t k = 0; k < NA_N_FIELDS && flen < sizeof(fields); k++)
			if (na_fields[k].query && na_fields[k].alias)
				flen += (size_t)snprintf(fields + flen, sizeof(fields) - flen, "%s, ",
				                         na_fields[k].alias);
		if (flen < sizeof(fields))
			flen += (size_t)snprintf(fields + flen, sizeof(fields) - flen, "id");
		for (size_t k = 0; k < NA_N_FIELDS && flen < sizeof(fields); k++)
			if (na_fields[k].query)
				flen += (size_t)snprintf(fields + flen, sizeof(fields) - flen, ", %s",
				                         na_fields[k].name);
		return vs_fail(err, VS_ERR_USAGE, "no field or label is called '%.*s': the fields are %s; "
		               "%s%s", (int)len, conds[i], fields,
		               labels[0] ? "the labels recorded are " : "no result has labels", labels);
	}
	return VS_OK;
}

/* Whether any result meets every condition of conds (n of them). */
static int any_match(na_store *s, const char *const *conds, size_t n, bool *any, vs_error *err);

int na_store_explain_none(na_store *s, const char *const *conds, size_t n, vs_error *err)
{
	if (!n)
		return vs_fail(err, VS_ERR_NOT_FOUND, "no results are recorded in %s yet", s->path);
	for (size_t i = 0; i < n; i++) {
		bool any = false;
		int rc = any_match(s, &conds[i], 1, &any, err);
		if (rc != VS_OK)
			return rc;
		if (any)
			continue;
		size_t len = (size_t)(strchr(conds[i], '=') - conds[i]);
		const char *col = na_condition_column(conds[i], len);
		int z = na_zfs_of(col);
		char sql[512], values[512];
		/* a size in its bytes' order (DISTINCT sorts by what it selects) */
		if (z >= 0)
			snprintf(sql, sizeof(sql), "SELECT v FROM (SELECT DISTINCT %s AS v, %s AS k FROM"
			         NA_RESULTS_AND_NAS " WHERE %s IS NOT NULL) t ORDER BY k",
			         na_zfs_columns[z].shown, col, col);
		else if (col)
			snprintf(sql, sizeof(sql), "SELECT DISTINCT %s FROM results WHERE %s IS NOT NULL "
			         "ORDER BY 1", col, col);
		else
			snprintf(sql, sizeof(sql), "SELECT DISTINCT value FROM result_labels WHERE key = $1 "
			         "ORDER BY 1");
		rc = list_values(s, sql, col ? NULL : conds[i], len, 10, values, sizeof(values), err);
		if (rc != VS_OK)
			return rc;
		return vs_fail(err, VS_ERR_NOT_FOUND, "no result has %s%s%.*s%s", conds[i],
		               values[0] ? " (recorded: " : "", (int)sizeof(values), values,
		               values[0] ? ")" : "");
	}
	char all[1024];
	size_t len = 0;
	for (size_t i = 0; i < n && len < sizeof(all); i++)
		len += (size_t)snprintf(all + len, sizeof(all) - len, "%s%s", i ? " and " : "", conds[i]);
	return vs_fail(err, VS_ERR_NOT_FOUND, "no result has %s together, though each of them matches "
	               "some", all);
}

static int build_query(na_store *s, const char *const *conds, size_t n, char **sql,
                       vs_error *err)
{
	sqlite3_str *t = sqlite3_str_new(s->db);
	sqlite3_str_appendall(t, "SELECT results.id, ");
	na_sql_columns(t);
	for (int i = 0; i < NA_N_ZFS; i++)
		sqlite3_str_appendf(t, ", %s", na_zfs_columns[i].shown);
	sqlite3_str_appendall(t, " FROM" NA_RESULTS_AND_NAS " WHERE 1 = 1");
	int rc = VS_OK;
	for (size_t i = 0; rc == VS_OK && i < n; i++) {
		const char *eq = strchr(conds[i], '=');
		const char *col = eq ? na_condition_column(conds[i], (size_t)(eq - conds[i])) : NULL;
		if (!eq || eq == conds[i])
			rc = vs_fail(err, VS_ERR_USAGE, "'%s' is not a field=value condition", conds[i]);
		else if (col)
			sqlite3_str_appendf(t, " AND %s = ?", col);
		else
			sqlite3_str_appendall(t, " AND EXISTS (SELECT 1 FROM result_labels l WHERE "
			                      "l.result_id = results.id AND l.key = ? AND l.value = ?)");
	}
	sqlite3_str_appendall(t, " ORDER BY results.id");
	*sql = sqlite3_str_finish(t);
	return rc == VS_OK && !*sql ? vs_fail(err, VS_ERR_NOMEM, "out of memory") : rc;
}

static int bind_conditions(na_store *s, sqlite3_stmt *st, const char *const *conds, size_t n,
                           vs_error *err)
{
	int at = 1, rc = SQLITE_OK;
	for (size_t i = 0; rc == SQLITE_OK && i < n; i++) {
		const char *eq = strchr(conds[i], '=');
		int len = (int)(eq - conds[i]);
		const char *col = na_condition_column(conds[i], (size_t)len);
		if (!col)
			rc = sqlite3_bind_text(st, at++, conds[i], len, SQLITE_STATIC);
		const char *v = na_condition_value(conds[i], col);
		int z = na_zfs_of(col);
		/* a size by its bytes; a value that is no size matches none */
		int64_t bytes = z >= 0 && na_zfs_columns[z].size ? na_zfs_size_of(v) : -1;
		if (rc == SQLITE_OK && bytes >= 0)
			rc = sqlite3_bind_int64(st, at++, bytes);
		else if (rc == SQLITE_OK)
			rc = sqlite3_bind_text(st, at++, v, -1, SQLITE_STATIC);
	}
	return rc == SQLITE_OK ? VS_OK : na_sql_fail(s, rc, err);
}

static void read_columns(sqlite3_stmt *st, na_result *r)
{
	r->id = sqlite3_column_int64(st, 0);
	for (size_t i = 0; i < na_n_columns; i++) {
		const na_column *c = &na_columns[i];
		char *field = (char *)r + c->off;
		int at = (int)i + 1;
		if (c->dir && sqlite3_column_type(st, at) != SQLITE_NULL)
			((na_dir_stats *)((char *)r + c->dir))->present = true;
		if (c->type == NA_TYPE_TEXT)
			*(const char **)field = (const char *)sqlite3_column_text(st, at);
		else if (c->type == NA_TYPE_INT)
			*(int *)field = sqlite3_column_int(st, at);
		else if (c->type == NA_TYPE_REAL)
			*(double *)field = sqlite3_column_double(st, at);
		else
			*(int64_t *)field = sqlite3_column_int64(st, at);
	}
	for (int i = 0; i < NA_N_ZFS; i++)
		*(const char **)((char *)r + na_fields[NA_FIELD_FIRST_ZFS + i].off) =
			(const char *)sqlite3_column_text(st, (int)na_n_columns + 1 + i);
}

static void free_labels(na_label *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)v[i].key);
		free((char *)v[i].value);
	}
	free(v);
}

/* Copies the labels of result id: the row's own strings are SQLite's. */
static int read_labels(na_store *s, sqlite3_stmt *st, na_result *r, vs_error *err)
{
	na_label *v = NULL;
	size_t n = 0;
	int step = sqlite3_reset(st);
	if (step == SQLITE_OK)
		step = sqlite3_bind_int64(st, 1, r->id);
	while (step == SQLITE_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 0);
		const char *value = (const char *)sqlite3_column_text(st, 1);
		na_label *grown = realloc(v, (n + 1) * sizeof(*v));
		step = grown ? SQLITE_OK : SQLITE_NOMEM;
		v = grown ? grown : v;
		if (grown) {
			v[n++] = (na_label){strdup(key ? key : ""), strdup(value ? value : "")};
			step = v[n - 1].key && v[n - 1].value ? SQLITE_OK : SQLITE_NOMEM;
		}
	}
	r->labels = v;
	r->n_labels = n;
	return step == SQLITE_DONE ? VS_OK : na_sql_fail(s, step, err);
}

static int each_row(na_store *s, sqlite3_stmt *rows, sqlite3_stmt *labels, na_result_fn fn,
                    void *ud, vs_error *err)
{
	int step;
	while ((step = sqlite3_step(rows)) == SQLITE_ROW) {
		na_result r = {0};
		read_columns(rows, &r);
		int rc = read_labels(s, labels, &r, err);
		if (rc != VS_OK)
			vs_error_context(err, "query results");
		else
			rc = fn(&r, ud, err);
		free_labels((na_label *)r.labels, r.n_labels);
		if (rc != VS_OK)
			return rc;
	}
	if (step == SQLITE_DONE)
		return VS_OK;
	vs_error_context(err, "query results");
	return na_sql_fail(s, step, err);
}

static int any_match(na_store *s, const char *const *conds, size_t n, bool *any, vs_error *err)
{
	if (s->reader)
		return na_central_any_match(s, conds, n, any, err);
	char *sql = NULL;
	sqlite3_stmt *rows = NULL;
	int rc = build_query(s, conds, n, &sql, err);
	if (rc == VS_OK)
		rc = na_sql_prepare(s, sql, &rows, err);
	if (rc == VS_OK)
		rc = bind_conditions(s, rows, conds, n, err);
	int step = rc == VS_OK ? sqlite3_step(rows) : SQLITE_DONE;
	*any = step == SQLITE_ROW;
	if (rc == VS_OK && step != SQLITE_ROW && step != SQLITE_DONE)
		rc = na_sql_fail(s, step, err);
	sqlite3_finalize(rows);
	sqlite3_free(sql);
	return rc;
}

int na_store_query(na_store *s, const char *const *conditions, size_t n, na_result_fn fn,
                   void *ud, vs_error *err)
{
	char *sql = NULL;
	sqlite3_stmt *rows = NULL, *labels = NULL;
	int rc = check_fields(s, conditions, n, err);
	if (rc != VS_OK)
		return rc;  /* a whole sentence, about the user's words */
	if (s->reader)
		return na_central_query(s, conditions, n, fn, ud, err);
	rc = build_query(s, conditions, n, &sql, err);
	if (rc == VS_OK)
		rc = na_sql_prepare(s, sql, &rows, err);
	if (rc == VS_OK)
		rc = na_sql_prepare(s, "SELECT key, value FROM result_labels WHERE result_id = ? ORDER BY key",
		                    &labels, err);
	if (rc == VS_OK)
		rc = bind_conditions(s, rows, conditions, n, err);
	if (rc != VS_OK)
		vs_error_context(err, "query results");
	else
		rc = each_row(s, rows, labels, fn, ud, err);
	sqlite3_finalize(rows);
	sqlite3_finalize(labels);
	sqlite3_free(sql);
	return rc;
}
