/* Group runs in the central database (store_group.c holds them the same
 * way in the SQLite store): a push records a group and the links to its
 * members in one transaction, after the members themselves, each of which
 * carries its group's UUID; a reader reads a group back as a file's, and
 * refuses members whose group has not arrived rather than count each VM
 * as a run of its own (docs/central.md). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_pg.h"

/* Step 2 made result_groups and result_group_members. */
enum { CENTRAL_GROUPS = 2 };

/* Step 5: the members pushed before it get their group's UUID from the
 * groups that are there. */
const char na_central_group_uuid_step[] =
	"ALTER TABLE results ADD COLUMN IF NOT EXISTS group_uuid uuid;"
	"CREATE INDEX IF NOT EXISTS results_group_uuid ON results (group_uuid);"
	"UPDATE results r SET group_uuid = g.uuid FROM result_group_members m"
	" JOIN result_groups g ON g.id = m.group_id WHERE m.result_id = r.id;";

/* Links member m to group id: its result by UUID, which an earlier
 * transaction of this push recorded; a member whose result is not there
 * fails the group rather than link it to nothing. */
static int insert_member(na_central *c, const char *id, const na_group_member *m, const char *uuid,
                         vs_error *err)
{
	const char *const args[] = {id, m->vm, uuid, m->why};
	PGresult *res = NULL;
	int rc = na_pg_exec(c, "INSERT INTO result_group_members (group_id, vm, result_id, why)"
	                    " SELECT $1::bigint, $2::text, r.id, $4::text FROM (SELECT $3::uuid AS u) x"
	                    " LEFT JOIN results r ON r.uuid = x.u WHERE x.u IS NULL OR r.id IS NOT NULL",
	                    4, args, "record group runs", &res, err);
	if (rc == VS_OK && strcmp(PQcmdTuples(res), "1") != 0)
		rc = vs_fail(err, VS_ERR_FAULT, "the central database lacks result %s, %s's in a group run",
		             uuid, m->vm);
	PQclear(res);
	return rc;
}

int na_central_insert_group(na_central *c, const char *const v[NA_GROUP_N_COLUMNS + 1],
                            const na_group_member *m, const char *const *uuid, size_t n, bool *sent,
                            vs_error *err)
{
	char sql[2048] = "INSERT INTO result_groups (" NA_GROUP_COLUMNS ", started_at) VALUES ($1";
	for (int i = 1; i <= NA_GROUP_N_COLUMNS; i++)
		snprintf(sql + strlen(sql), sizeof(sql) - strlen(sql), ", $%d", i + 1);
	strcat(sql, ") ON CONFLICT (uuid) DO NOTHING RETURNING id");
	PGresult *res = NULL;
	*sent = false;
	int rc = na_pg_exec(c, "BEGIN", 0, NULL, "start a transaction", NULL, err);
	if (rc == VS_OK)
		rc = na_pg_exec(c, sql, NA_GROUP_N_COLUMNS + 1, v, "record group runs", &res, err);
	/* no row: another push recorded this group first, its members too */
	*sent = rc == VS_OK && PQntuples(res) == 1;
	char id[32] = "";
	if (*sent)
		snprintf(id, sizeof(id), "%s", PQgetvalue(res, 0, 0));
	PQclear(res);
	for (size_t i = 0; *sent && rc == VS_OK && i < n; i++)
		rc = insert_member(c, id, &m[i], uuid[i], err);
	rc = na_pg_finish(c, rc, "record group runs", err);
	if (rc != VS_OK)
		*sent = false;
	return rc;
}

/* ---- reading ---- */

int na_central_group_of(na_store *s, int64_t result_id, na_group_row *g, vs_error *err)
{
	*g = (na_group_row){0};
	if (s->reader->version < CENTRAL_GROUPS)
		return VS_OK;
	char key[24];
	snprintf(key, sizeof(key), "%" PRId64, result_id);
	const char *const args[] = {key};
	PGresult *res = NULL;
	int rc = na_pg_exec(s->reader, "SELECT id, " NA_GROUP_COLUMNS ", to_char(started_at AT TIME ZONE"
	                    " 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') FROM result_groups WHERE id ="
	                    " (SELECT group_id FROM result_group_members WHERE result_id = $1)", 1, args,
	                    "read group runs", &res, err);
	if (rc == VS_OK && PQntuples(res) == 1) {
		const char *v[NA_GROUP_N_COLUMNS + 1];
		for (int i = 0; i <= NA_GROUP_N_COLUMNS; i++)
			v[i] = PQgetisnull(res, 0, i + 1) ? NULL : PQgetvalue(res, 0, i + 1);
		rc = na_group_from_text(g, strtoll(PQgetvalue(res, 0, 0), NULL, 10), v, err);
	}
	PQclear(res);
	return rc;
}

int na_central_group_members(na_store *s, int64_t group, na_member_fn fn, void *ud, vs_error *err)
{
	char key[24];
	snprintf(key, sizeof(key), "%" PRId64, group);
	const char *const args[] = {key};
	PGresult *res = NULL;
	int rc = s->reader->version < CENTRAL_GROUPS
	             ? VS_OK
	             : na_pg_exec(s->reader, "SELECT m.vm, m.result_id, m.why, r.uuid"
	                          " FROM result_group_members m LEFT JOIN results r ON r.id = m.result_id"
	                          " WHERE m.group_id = $1 ORDER BY m.vm", 1, args, "read group runs",
	                          &res, err);
	for (int row = 0; rc == VS_OK && res && row < PQntuples(res); row++) {
		const char *v[4];
		for (int i = 0; i < 4; i++)
			v[i] = PQgetisnull(res, row, i) ? NULL : PQgetvalue(res, row, i);
		na_group_member m = {v[0], v[1] ? strtoll(v[1], NULL, 10) : 0, v[2]};
		rc = fn(&m, v[3], ud, err);
	}
	PQclear(res);
	return rc;
}

/* "{1,2,3}": ids as a PostgreSQL array (malloc'd). */
static char *id_array(const int64_t *ids, size_t n)
{
	size_t size = 24 * n + 3, len = 1;
	char *a = malloc(size);
	if (!a)
		return NULL;
	strcpy(a, "{");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(a + len, size - len, "%s%" PRId64, i ? "," : "", ids[i]);
	strcpy(a + len, "}");
	return a;
}

int na_central_check_groups(na_store *s, const int64_t *ids, size_t n, vs_error *err)
{
	if (s->reader->version < NA_CENTRAL_GROUP_UUID || !n)
		return VS_OK;  /* an older database knows no member before its group */
	char *array = id_array(ids, n);
	const char *const args[] = {array};
	PGresult *res = NULL;
	int rc = array ? na_pg_exec(s->reader, "SELECT r.group_uuid, count(*) FROM results r"
	                            " WHERE r.id = ANY ($1::bigint[]) AND r.group_uuid IS NOT NULL"
	                            " AND NOT EXISTS (SELECT 1 FROM result_groups g"
	                            " WHERE g.uuid = r.group_uuid) GROUP BY 1 ORDER BY 1", 1, args,
	                            "read group runs", &res, err)
	               : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	int groups = rc == VS_OK ? PQntuples(res) : 0;
	char names[512] = "";
	size_t len = 0, shown = 0;
	long long members = 0;
	for (int i = 0; i < groups; i++) {
		members += strtoll(PQgetvalue(res, i, 1), NULL, 10);
		na_values_add(names, sizeof(names), &len, &shown, 5, PQgetvalue(res, i, 0));
	}
	if (groups)
		rc = vs_fail(err, VS_ERR_FAULT, "incomplete group run%s in the central database: %s (%lld "
		             "member%s there, the group%s not): push again from the runner that recorded "
		             "%s; %s members are not counted as single runs", groups == 1 ? "" : "s",
		             names, members, members == 1 ? "" : "s", groups == 1 ? "" : "s",
		             groups == 1 ? "it" : "them", groups == 1 ? "its" : "their");
	PQclear(res);
	free(array);
	return rc;
}
