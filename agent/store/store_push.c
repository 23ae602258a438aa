/* Pushing the local store's results to the central database (store.h):
 * which results the central database lacks, each sent whole
 * (store_pg.c), then the group runs it lacks (each after its members,
 * store_pg_group.c), and the note in central_pushes (central_group_pushes)
 * that it holds them.  The
 * note comes after the central commit: a kill between the two leaves a
 * result sent and not noted, and the next push finds its UUID there. */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "store/store_internal.h"

typedef enum na_push_kind { NA_PUSH_RESULT, NA_PUSH_FINDING, NA_PUSH_GROUP } na_push_kind;

/* Per kind: which rows there are, and where a push is noted. */
static const struct {
	const char *unpushed, *note;
} kinds[] = {
	[NA_PUSH_RESULT] = {
		"SELECT id FROM results WHERE uuid IS NOT NULL AND id NOT IN (SELECT result_id FROM "
		"central_pushes WHERE ?1 IS NULL OR central = ?1) ORDER BY id",
		"INSERT OR IGNORE INTO central_pushes (result_id, central, at) "
		"VALUES (?1, ?2, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))"},
	[NA_PUSH_FINDING] = {
		"SELECT id FROM findings WHERE uuid IS NOT NULL AND id NOT IN (SELECT finding_id FROM "
		"central_finding_pushes WHERE ?1 IS NULL OR central = ?1) ORDER BY id",
		"INSERT OR IGNORE INTO central_finding_pushes (finding_id, central, at) "
		"VALUES (?1, ?2, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))"},
	[NA_PUSH_GROUP] = {
		"SELECT id FROM result_groups WHERE id NOT IN (SELECT group_id FROM "
		"central_group_pushes WHERE ?1 IS NULL OR central = ?1) ORDER BY id",
		"INSERT OR IGNORE INTO central_group_pushes (group_id, central, at) "
		"VALUES (?1, ?2, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))"},
};

/* The ids of the rows of a kind central (a database_id; NULL: any) lacks,
 * oldest first (malloc'd).  A row without a UUID (written past nfsagent)
 * cannot be known centrally: it is never pushed. */
static int unpushed_ids(na_store *s, na_push_kind kind, const char *central, int64_t **ids,
                        size_t *n, vs_error *err)
{
	sqlite3_stmt *st = NULL;
	*ids = NULL;
	*n = 0;
	int rc = na_sql_prepare(s, kinds[kind].unpushed, &st, err);
	int step = rc == VS_OK ? sqlite3_bind_text(st, 1, central, -1, SQLITE_STATIC) : SQLITE_OK;
	size_t cap = 0;
	while (rc == VS_OK && step == SQLITE_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			int64_t *grown = realloc(*ids, cap * sizeof(**ids));
			if (!grown) {
				rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
				break;
			}
			*ids = grown;
		}
		(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
		step = SQLITE_OK;
	}
	if (rc == VS_OK && step != SQLITE_DONE)
		rc = na_sql_fail(s, step, err);
	sqlite3_finalize(st);
	if (rc != VS_OK) {
		free(*ids);
		*ids = NULL;
		*n = 0;
	}
	return rc;
}

int na_store_unpushed(na_store *s, size_t *n, vs_error *err)
{
	int64_t *ids = NULL;
	int rc = unpushed_ids(s, NA_PUSH_RESULT, NULL, &ids, n, err);
	free(ids);
	return rc;
}

static int note_pushed(na_store *s, na_push_kind kind, int64_t id, const char *central,
                       vs_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = na_sql_begin(s, err);
	if (rc == VS_OK)
		rc = na_sql_prepare(s, kinds[kind].note, &st, err);
	int step = rc == VS_OK ? sqlite3_bind_int64(st, 1, id) : SQLITE_OK;
	if (step == SQLITE_OK && rc == VS_OK)
		step = sqlite3_bind_text(st, 2, central, -1, SQLITE_STATIC);
	if (step == SQLITE_OK && rc == VS_OK)
		step = sqlite3_step(st);
	if (rc == VS_OK && step != SQLITE_DONE)
		rc = na_sql_fail(s, step, err);
	sqlite3_finalize(st);
	return na_sql_finish(s, rc, err);
}

/* One result on its way: the row's strings live only in the callbacks. */
typedef struct sending {
	na_store *s;
	na_central *c;
	const na_result *r;
	na_fio_dir bins[2];
	char group[37];  /* its group's UUID, "" for none */
	bool sent, done;
} sending;

static int send_with_nas(const na_nas_run *n, void *ud, vs_error *err)
{
	sending *x = ud;
	x->done = true;
	return na_central_insert(x->c, x->r, n, x->bins, x->group, &x->sent, err);
}

static int send_row(const na_result *r, void *ud, vs_error *err)
{
	sending *x = ud;
	bool has_nas = false;
	x->r = r;
	int rc = na_store_bins_of(x->s, r->id, x->bins, err);
	if (rc == VS_OK)
		rc = na_store_group_uuid_of(x->s, r->id, x->group, err);
	if (rc == VS_OK)
		rc = na_store_nas_of(x->s, r->id, send_with_nas, x, &has_nas, err);
	if (rc == VS_OK && !has_nas) {
		x->done = true;
		rc = na_central_insert(x->c, r, NULL, x->bins, x->group, &x->sent, err);
	}
	na_fio_dir_clear(&x->bins[0]);
	na_fio_dir_clear(&x->bins[1]);
	return rc;
}

/* Pushes result id and notes it; *sent or *present says which it was. */
static int push_one(na_store *s, na_central *c, int64_t id, na_push_counts *n, vs_error *err)
{
	char cond[40];
	snprintf(cond, sizeof(cond), "id=%lld", (long long)id);
	const char *const conds[] = {cond};
	sending x = {.s = s, .c = c};
	int rc = na_store_query(s, conds, 1, send_row, &x, err);
	if (rc == VS_OK && x.done)
		rc = note_pushed(s, NA_PUSH_RESULT, id, na_central_id(c), err);
	if (rc == VS_OK && x.done)
		x.sent ? n->sent++ : n->present++;
	return rc;
}

/* Pushes finding id and notes it. */
static int push_finding(na_store *s, na_central *c, int64_t id, na_push_counts *n, vs_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = na_sql_prepare(s, "SELECT " NA_FINDING_PUSHED " FROM findings WHERE id = ?", &st, err);
	int step = rc == VS_OK ? sqlite3_bind_int64(st, 1, id) : SQLITE_OK;
	if (rc == VS_OK && step == SQLITE_OK)
		step = sqlite3_step(st);
	bool sent = false;
	if (rc == VS_OK && step == SQLITE_ROW) {
		const char *v[NA_FINDING_N_PUSHED];
		for (int i = 0; i < NA_FINDING_N_PUSHED; i++)
			v[i] = (const char *)sqlite3_column_text(st, i);
		rc = na_central_insert_finding(c, v, &sent, err);
	} else if (rc == VS_OK && step != SQLITE_DONE) {
		rc = na_sql_fail(s, step, err);
	}
	sqlite3_finalize(st);
	if (rc == VS_OK && step == SQLITE_ROW)
		rc = note_pushed(s, NA_PUSH_FINDING, id, na_central_id(c), err);
	n->findings += rc == VS_OK && sent;
	return rc;
}

/* Pushes group id (its members pushed before) and notes it. */
static int push_group(na_store *s, na_central *c, int64_t id, na_push_counts *n, vs_error *err)
{
	bool sent = false;
	if (s->version < na_schema_version_of(na_store_group_pushes_schema))
		return VS_OK;  /* a file held at an older schema notes no group: it waits */
	int rc = na_group_send(s, c, id, &sent, err);
	if (rc == VS_OK)
		rc = note_pushed(s, NA_PUSH_GROUP, id, na_central_id(c), err);
	n->groups += rc == VS_OK && sent;
	return rc;
}

/* push_one, push_finding or push_group. */
static int push_kind(na_store *s, na_central *c, na_push_kind kind, int64_t id, na_push_counts *n,
                     vs_error *err)
{
	static int (*const push[])(na_store *, na_central *, int64_t, na_push_counts *, vs_error *) = {
		[NA_PUSH_RESULT] = push_one, [NA_PUSH_FINDING] = push_finding, [NA_PUSH_GROUP] = push_group};
	return push[kind](s, c, id, n, err);
}

/* Pushes every row of kind that c lacks (fresh: that no central database
 * has), oldest first; stops at the first failure with *waiting the rows
 * left (may be NULL). */
static int push_all(na_store *s, na_central *c, bool fresh, na_push_kind kind, na_push_counts *n,
                    size_t *waiting, vs_error *err)
{
	int64_t *ids = NULL;
	size_t count = 0, i = 0;
	int rc = unpushed_ids(s, kind, fresh ? NULL : na_central_id(c), &ids, &count, err);
	for (; rc == VS_OK && i < count; i += rc == VS_OK)
		rc = push_kind(s, c, kind, ids[i], n, err);
	if (waiting)
		*waiting = count - i;  /* i: the first not pushed */
	free(ids);
	return rc;
}

static int push_every(na_store *s, na_central *c, bool fresh, na_push_counts *n, vs_error *err)
{
	*n = (na_push_counts){0};
	/* groups after results: a group's members are linked by their UUIDs;
	 * a group that waits is said as one result more */
	int rc = push_all(s, c, fresh, NA_PUSH_RESULT, n, &n->waiting, err);
	size_t groups = 0;
	if (rc == VS_OK && s->version >= na_schema_version_of(na_store_group_pushes_schema))
		rc = push_all(s, c, fresh, NA_PUSH_GROUP, n, &groups, err);
	n->waiting += groups;
	if (rc == VS_OK)
		rc = push_all(s, c, fresh, NA_PUSH_FINDING, n, NULL, err);
	if (rc != VS_OK)
		vs_error_context(err, "push results");
	return rc;
}

int na_store_push(na_store *s, na_central *c, na_push_counts *n, vs_error *err)
{
	return push_every(s, c, false, n, err);
}

/* ---- the push a command makes at its end (bench, run --central) ---- */

/* How many records of a kind no central database has. */
static size_t waiting(na_store *s, na_push_kind kind)
{
	int64_t *ids = NULL;
	size_t n = 0;
	vs_error err = {0};
	if (unpushed_ids(s, kind, NULL, &ids, &n, &err) != VS_OK)
		n = 1;  /* the one that failed, at least */
	free(ids);
	return n;
}

int na_store_push_to(na_store *s, const char *url, na_push_counts *n, vs_error *err)
{
	na_central *c = NULL;
	*n = (na_push_counts){0};
	int rc = na_central_open(url, &c, err);
	if (rc == VS_OK)
		rc = push_every(s, c, true, n, err);
	if (rc != VS_OK) {
		n->waiting = waiting(s, NA_PUSH_RESULT);
		if (s->version >= na_schema_version_of(na_store_group_pushes_schema))
			n->waiting_groups = waiting(s, NA_PUSH_GROUP);
	}
	na_central_close(&c);
	return rc;
}

static void waiting_line(const na_push_counts *n, const vs_error *why, char *buf, size_t size)
{
	char reason[sizeof(why->message) + sizeof(why->context) + 16], and[48] = "";
	vs_error_format(why, reason, sizeof(reason));
	size_t r = n->waiting, g = n->waiting_groups;
	if (g)
		snprintf(and, sizeof(and), " and %zu group run%s", g, g == 1 ? "" : "s");
	if (!r && !g)  /* findings, or nothing left: the failure is still said */
		snprintf(buf, size, "the push to the central database failed (%s); run nfsagent push", reason);
	else
		snprintf(buf, size, "%zu result%s%s wait%s for the central database (%s); run nfsagent push", r,
	         r == 1 ? "" : "s", and, r == 1 && !g ? "s" : "", reason);
}

bool na_store_push_at_end(na_store *s, const char *url, char *line, size_t size)
{
	na_push_counts n;
	vs_error why = {0};
	if (!s || !url || na_store_push_to(s, url, &n, &why) == VS_OK)
		return false;
	waiting_line(&n, &why, line, size);
	return true;
}
