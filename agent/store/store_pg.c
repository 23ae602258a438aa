/* The central database (store.h): PostgreSQL through libpq, where the
 * results of many runners meet.  Its schema, opening it, and recording one
 * result whole in one transaction.  As in the SQLite store, column names
 * come from the store's tables and every value is a parameter ($1, ...),
 * so nothing a user types becomes SQL text. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "store/store_pg.h"

/* ---- the central schema: step i takes it from version i to i + 1, in the
 * transaction that raises nfsagent_schema's version.  A released step never
 * changes; a new schema is a new step at the end.  Plain columns a
 * dashboard can read: times as timestamptz, figures as numbers. ---- */
/* A direction's statistics as results (step 1) and result_groups (step 2)
 * hold them.  Released steps use it: its text never changes. */
#define DIRECTION_COLUMNS(d)                                                          \
	" " d "_iops double precision, " d "_bw_bytes double precision,"                  \
	" " d "_lat_mean_us double precision, " d "_p50_us double precision,"             \
	" " d "_p95_us double precision, " d "_p99_us double precision,"                  \
	" " d "_p999_us double precision, " d "_max_us double precision,"                 \
	" " d "_total_ios bigint, " d "_runtime_ms bigint,"
static const char *const central_migrations[] = {
	/* 1: results with their labels and NAS side, and findings, as the
	 * SQLite store's schema 11 holds them, each known by its UUID */
	"CREATE TABLE nfsagent_schema (version integer NOT NULL);"
	"INSERT INTO nfsagent_schema (version) VALUES (0);"
	"CREATE TABLE nfsagent_meta (key text PRIMARY KEY, value text NOT NULL);"
	"INSERT INTO nfsagent_meta (key, value) VALUES ('application', 'nfsagent'),"
	" ('database_id', gen_random_uuid()::text);"
	"CREATE TABLE results ("
	" id bigserial PRIMARY KEY,"
	" uuid uuid NOT NULL UNIQUE, runner text, pushed_at timestamptz NOT NULL DEFAULT now(),"
	" started_at timestamptz NOT NULL, finished_at timestamptz,"
	" status text NOT NULL CHECK (status IN ('ok', 'failed')),"
	" error text CHECK (status = 'ok' OR error IS NOT NULL),"
	" campaign text, target text, repetition integer NOT NULL,"
	" vcenter text, vcenter_version text, vcenter_build text,"
	" host text, esxi_version text, esxi_build text,"
	" datastore text, datastore_type text, servers text, export_path text,"
	" vm text, guest_os text, disk text,"
	" profile text, job_file text, fio_version text,"
	DIRECTION_COLUMNS("read") DIRECTION_COLUMNS("write")
	" fio_json text, host_counters_json text);"
	"CREATE INDEX results_started_at ON results (started_at);"
	"CREATE TABLE result_labels ("
	" result_id bigint NOT NULL REFERENCES results (id) ON DELETE CASCADE,"
	" key text NOT NULL, value text NOT NULL, PRIMARY KEY (result_id, key));"
	"CREATE INDEX result_labels_key_value ON result_labels (key, value);"
	"CREATE TABLE nas_runs ("
	" result_id bigint PRIMARY KEY REFERENCES results (id) ON DELETE CASCADE,"
	" dataset text NOT NULL, pool_layout text, sync text, compression text, atime text,"
	" logbias text, primarycache text, why text, pool_health text,"
	" recordsize bigint, special_small_blocks bigint, interval_s bigint, intervals bigint,"
	" data_read_ops bigint, data_write_ops bigint, data_read_bytes bigint,"
	" data_write_bytes bigint, special_read_ops bigint, special_write_ops bigint,"
	" special_read_bytes bigint, special_write_bytes bigint, dedup_read_ops bigint,"
	" dedup_write_ops bigint, dedup_read_bytes bigint, dedup_write_bytes bigint,"
	" log_read_ops bigint, log_write_ops bigint, log_read_bytes bigint, log_write_bytes bigint,"
	" cache_read_ops bigint, cache_write_ops bigint, cache_read_bytes bigint,"
	" cache_write_bytes bigint, dataset_writes bigint, dataset_written bigint,"
	" dataset_reads bigint, dataset_read bigint, arc_demand_hits bigint,"
	" arc_demand_misses bigint, arc_size bigint, zil_commits bigint, zil_slog_bytes bigint,"
	" zil_normal_bytes bigint, arc_hit_ratio double precision,"
	" incomplete boolean NOT NULL, timeline text,"
	" measured_s double precision, window_s double precision, amplification double precision,"
	" amp_guest_to_dataset double precision, amp_dataset_to_data double precision,"
	" amp_log_share double precision, clock_shift_s double precision,"
	" clock_err_s double precision, txg_count bigint, log_write_wait_ms double precision,"
	" log_sync_write_wait_ms double precision, txg_sync_mean_ms double precision,"
	" txg_sync_max_ms double precision, txg_dirty_mean_bytes double precision,"
	" CHECK (NOT incomplete OR why IS NOT NULL));"
	"CREATE TABLE findings ("
	" id bigserial PRIMARY KEY,"
	" uuid uuid NOT NULL UNIQUE, runner text, pushed_at timestamptz NOT NULL DEFAULT now(),"
	" at timestamptz NOT NULL, kind text NOT NULL, campaign text, target text, host text,"
	" esxi_version text, esxi_build text, datastore text, datastore_type text, servers text,"
	" export_path text, vm text, extent_bug boolean NOT NULL, verdict text NOT NULL,"
	" evidence_json text, extent_case text);"
	/* a dashboard's (Grafana's) one row per result that ran: its time, its
	 * provenance, the main figures and the labels as one jsonb */
	"CREATE VIEW result_figures AS SELECT r.id, r.uuid, r.started_at AS time, r.finished_at,"
	" r.runner, r.vcenter, r.host, r.esxi_version, r.esxi_build, r.datastore,"
	" r.datastore_type AS protocol, r.export_path, r.vm, r.profile, r.campaign, r.target,"
	" r.repetition, r.read_iops, r.write_iops, r.read_bw_bytes, r.write_bw_bytes,"
	" r.read_lat_mean_us, r.write_lat_mean_us, r.read_p99_us, r.write_p99_us,"
	" n.recordsize AS zfs_recordsize, n.sync AS zfs_sync, n.pool_layout, n.pool_health,"
	" n.amplification AS nas_amplification, n.arc_hit_ratio AS nas_arc_hit_ratio,"
	" coalesce((SELECT jsonb_object_agg(l.key, l.value) FROM result_labels l"
	" WHERE l.result_id = r.id), '{}') AS labels"
	" FROM results r LEFT JOIN nas_runs n ON n.result_id = r.id WHERE r.status = 'ok';",
	/* 2: group runs (the SQLite store's schema 13, store_group.c): the
	 * group's figures and its members, each a result known by its UUID */
	"CREATE TABLE result_groups ("
	" id bigserial PRIMARY KEY, uuid uuid NOT NULL UNIQUE,"
	" pushed_at timestamptz NOT NULL DEFAULT now(), started_at timestamptz NOT NULL,"
	" profile text NOT NULL, repetition integer NOT NULL, vms integer NOT NULL,"
	" start_skew_ms double precision, incomplete boolean NOT NULL, why text,"
	DIRECTION_COLUMNS("read") DIRECTION_COLUMNS("write")
	" iops double precision, slowest_vm text, slowest_share double precision,"
	" CHECK (NOT incomplete OR why IS NOT NULL));"
	"CREATE TABLE result_group_members ("
	" group_id bigint NOT NULL REFERENCES result_groups (id) ON DELETE CASCADE,"
	" vm text NOT NULL, result_id bigint REFERENCES results (id) ON DELETE CASCADE,"
	" why text, PRIMARY KEY (group_id, vm));"
	"CREATE INDEX result_group_members_result ON result_group_members (result_id);",
	/* 3: fio's latency bins of each result (the SQLite store's schema 14,
	 * store_pg_bins.c); the results pushed before get theirs in the same
	 * transaction */
	na_central_bins_schema,
	/* 4: each result's link to the NFS server (the SQLite store's link
	 * step); IF NOT EXISTS: a database set back to an older version keeps it */
	"ALTER TABLE results ADD COLUMN IF NOT EXISTS link_speed_mbit integer,"
	" ADD COLUMN IF NOT EXISTS link_nic text;",
	/* 5: the group a result is a member of, pushed with the result, so that
	 * members whose group has not arrived (a push cut between them) are
	 * known as such, not read as single runs (store_pg_group.c) */
	na_central_group_uuid_step,
	/* 6: each result's ESXi NFS client settings (the SQLite store's
	 * nfs_client step) */
	"ALTER TABLE results ADD COLUMN IF NOT EXISTS nfs_client text;",
	/* 7: where fio ran (the SQLite store's site step): older results ran
	 * in a guest */
	"ALTER TABLE results ADD COLUMN IF NOT EXISTS site text NOT NULL DEFAULT 'guest';",
};
#undef DIRECTION_COLUMNS
enum { CENTRAL_LATEST = sizeof(central_migrations) / sizeof(central_migrations[0]) };

/* Every runner takes this lock (pg_advisory_xact_lock) before it reads or
 * changes the schema, so two that start at once create it once. */
static const char schema_lock[] = "SELECT pg_advisory_xact_lock(7306226105310523187)";

/* ---- errors: one line each ---- */

/* The first line of libpq's text, without its "FATAL:  " (s may be NULL). */
static void first_line(const char *s, char *buf, size_t size)
{
	const char *severity = s ? strstr(s, ":  ") : NULL;
	if (severity && severity - s <= (ptrdiff_t)strlen("WARNING"))
		s = severity + strlen(":  ");
	snprintf(buf, size, "%s", s && *s ? s : "no reason given");
	buf[strcspn(buf, "\n")] = '\0';
}

/* Fills err for what res (or the connection, res NULL) reports; doing:
 * what was refused, in words ("record results"). */
static int pg_fail(const na_central *c, const PGresult *res, const char *doing, vs_error *err)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *primary = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	char why[512];
	first_line(primary ? primary : PQerrorMessage(c->pg), why, sizeof(why));
	if (PQstatus(c->pg) == CONNECTION_BAD)
		return vs_fail(err, VS_ERR_CONNECT, "the central database went away: %s", why);
	if (state && strcmp(state, "42501") == 0)
		return vs_fail(err, VS_ERR_AUTH, "role %s may not %s in the central database (%s): "
		               "GRANT it SELECT on nfsagent_schema and nfsagent_meta, INSERT and SELECT "
		               "on results, result_labels, nas_runs, result_bins, result_groups, "
		               "result_group_members and findings, and USAGE on their id sequences", PQuser(c->pg), doing, why);
	return vs_fail(err, VS_ERR_FAULT, "the central database refused to %s: %s", doing, why);
}

int na_pg_exec(na_central *c, const char *sql, int n, const char *const *values,
               const char *doing, PGresult **out, vs_error *err)
{
	/* without parameters, a migration's several statements in one call */
	PGresult *res = n ? PQexecParams(c->pg, sql, n, NULL, values, NULL, NULL, 0) : PQexec(c->pg, sql);
	ExecStatusType st = PQresultStatus(res);
	int rc = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? VS_OK
	                                                       : pg_fail(c, res, doing, err);
	if (rc == VS_OK && out)
		*out = res;
	else
		PQclear(res);
	return rc;
}

/* Ends the transaction: commits if rc is VS_OK, else rolls back. */
int na_pg_finish(na_central *c, int rc, const char *doing, vs_error *err)
{
	if (rc == VS_OK)
		return na_pg_exec(c, "COMMIT", 0, NULL, doing, NULL, err);
	if (PQstatus(c->pg) == CONNECTION_OK)
		PQclear(PQexec(c->pg, "ROLLBACK"));
	return rc;
}

/* ---- opening ---- */

/* The schema's version under the schema lock: 0 in a database without
 * nfsagent's tables; a database with a results table of another kind is
 * refused. */
static int read_version(na_central *c, int *version, vs_error *err)
{
	PGresult *res = NULL;
	int rc = na_pg_exec(c, "SELECT to_regclass('nfsagent_schema') IS NOT NULL, "
	                 "to_regclass('results') IS NOT NULL", 0, NULL, "read its schema", &res, err);
	if (rc != VS_OK)
		return rc;
	bool ours = strcmp(PQgetvalue(res, 0, 0), "t") == 0;
	bool results = strcmp(PQgetvalue(res, 0, 1), "t") == 0;
	PQclear(res);
	res = NULL;  /* a refused read below leaves it untouched */
	*version = 0;
	if (!ours)
		return results ? vs_fail(err, VS_ERR_USAGE, "the central database has a results table "
		                         "that is not nfsagent's (no nfsagent_schema); refusing to use it")
		               : VS_OK;
	rc = na_pg_exec(c, "SELECT max(version) FROM nfsagent_schema", 0, NULL, "read its schema", &res,
	             err);
	if (rc == VS_OK)
		*version = atoi(PQgetvalue(res, 0, 0));
	PQclear(res);
	return rc;
}

/* Creates or upgrades the schema in one transaction. */
static int ensure_schema(na_central *c, vs_error *err)
{
	int version = 0;
	int rc = na_pg_exec(c, "BEGIN", 0, NULL, "start a transaction", NULL, err);
	if (rc == VS_OK)
		rc = na_pg_exec(c, schema_lock, 0, NULL, "lock its schema", NULL, err);
	if (rc == VS_OK)
		rc = read_version(c, &version, err);
	if (rc == VS_OK && version > CENTRAL_LATEST)
		rc = vs_fail(err, VS_ERR_USAGE, "the central database has schema version %d, newer than "
		             "this nfsagent's %d: use a newer nfsagent", version, CENTRAL_LATEST);
	/* A refusal by a step is a role that may not change the schema; one
	 * before (reading the version) is said as refused. */
	bool migrating = rc == VS_OK;
	for (int v = version; rc == VS_OK && v < CENTRAL_LATEST; v++) {
		rc = na_pg_exec(c, central_migrations[v], 0, NULL, "create or upgrade the schema", NULL, err);
		if (rc == VS_OK && v + 1 == NA_CENTRAL_BINS)
			rc = na_central_backfill_bins(c, err);
	}
	if (migrating && rc == VS_ERR_AUTH && version)
		rc = vs_fail(err, VS_ERR_AUTH, "the central database has schema version %d and this "
		             "nfsagent writes %d, but role %s may not upgrade it: run 'nfsagent push' "
		             "once as the role that owns its tables", version, CENTRAL_LATEST, PQuser(c->pg));
	else if (migrating && rc == VS_ERR_AUTH)
		rc = vs_fail(err, VS_ERR_AUTH, "the central database has no nfsagent schema yet and role "
		             "%s may not create it: run 'nfsagent push' once as a role that may create "
		             "tables there", PQuser(c->pg));
	char v[16];
	snprintf(v, sizeof(v), "%d", CENTRAL_LATEST);
	const char *const args[] = {v};
	if (rc == VS_OK && version < CENTRAL_LATEST)
		rc = na_pg_exec(c, "UPDATE nfsagent_schema SET version = $1", 1, args, "record its schema",
		             NULL, err);
	return na_pg_finish(c, rc, "create or upgrade the schema", err);
}

static int read_id(na_central *c, vs_error *err)
{
	PGresult *res = NULL;
	int rc = na_pg_exec(c, "SELECT value FROM nfsagent_meta WHERE key = 'database_id'", 0, NULL,
	                 "read its database_id", &res, err);
	if (rc == VS_OK && PQntuples(res) != 1)
		rc = vs_fail(err, VS_ERR_FAULT, "the central database has no database_id in nfsagent_meta");
	if (rc == VS_OK)
		snprintf(c->id, sizeof(c->id), "%s", PQgetvalue(res, 0, 0));
	PQclear(res);
	return rc;
}

/* INSERT INTO results: every column of na_columns, then group_uuid (the
 * push's own: a member knows its group before the group arrives). */
static int build_insert(na_central *c, vs_error *err)
{
	size_t size = 96;
	for (size_t i = 0; i < na_n_columns; i++)
		size += strlen(na_columns[i].name) + 12;
	if (!(c->insert_sql = malloc(size)))
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	size_t len = (size_t)snprintf(c->insert_sql, size, "INSERT INTO results (");
	for (size_t i = 0; i < na_n_columns; i++)
		len += (size_t)snprintf(c->insert_sql + len, size - len, "%s, ", na_columns[i].name);
	len += (size_t)snprintf(c->insert_sql + len, size - len, "group_uuid) VALUES (");
	for (size_t i = 0; i <= na_n_columns; i++)
		len += (size_t)snprintf(c->insert_sql + len, size - len, "%s$%zu", i ? ", " : "", i + 1);
	snprintf(c->insert_sql + len, size - len, ") ON CONFLICT (uuid) DO NOTHING RETURNING id");
	return VS_OK;
}

/* libpq would print the server's notices on stderr: nfsagent's lines are its own. */
static void quiet(void *ud, const char *message)
{
	(void)ud;
	(void)message;
}

/* Connects to url (checked first); VS_ERR_AUTH for a login refused. */
static int pg_connect(const char *url, na_central **out, vs_error *err)
{
	*out = NULL;
	int rc = na_central_check_url(url, err);
	na_central *c = rc == VS_OK ? calloc(1, sizeof(*c)) : NULL;
	if (rc == VS_OK && !c)
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	if (rc == VS_OK) {
		/* The URL comes last, so that its own settings win.  A server that
		 * stops answering over TCP mid-push is given up after 30 s
		 * (tcp_user_timeout, keepalives) rather than waited on for ever. */
		const char *const keys[] = {"connect_timeout", "tcp_user_timeout", "keepalives_idle",
		                            "keepalives_interval", "keepalives_count",
		                            "application_name", "dbname", NULL};
		const char *const values[] = {"10", "30000", "10", "5", "4", "nfsagent", url, NULL};
		c->pg = PQconnectdbParams(keys, values, 1);
		if (!c->pg)
			rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	if (rc == VS_OK && PQstatus(c->pg) != CONNECTION_OK) {
		char why[512];
		first_line(PQerrorMessage(c->pg), why, sizeof(why));
		bool login = strstr(why, "authentication failed") || strstr(why, "no password supplied") ||
		             strstr(why, "does not exist");
		rc = vs_fail(err, login ? VS_ERR_AUTH : VS_ERR_CONNECT, "%s", why);
	}
	if (rc == VS_OK)
		PQsetNoticeProcessor(c->pg, quiet, NULL);
	if (rc != VS_OK)
		na_central_close(&c);
	*out = c;
	return rc;
}

int na_central_open(const char *url, na_central **out, vs_error *err)
{
	na_central *c = NULL;
	int rc = pg_connect(url, &c, err);
	if (rc == VS_OK)
		rc = ensure_schema(c, err);
	if (rc == VS_OK)
		rc = read_id(c, err);
	if (rc == VS_OK)
		rc = build_insert(c, err);
	if (rc != VS_OK) {
		vs_error_context(err, "open the central database");
		na_central_close(&c);
	}
	*out = c;
	return rc;
}

void na_central_close(na_central **cp)
{
	na_central *c = *cp;
	if (!c)
		return;
	PQfinish(c->pg);
	free(c->insert_sql);
	free(c);
	*cp = NULL;
}

const char *na_central_id(const na_central *c)
{
	return c->id;
}

/* ---- recording a result ---- */

/* v as the text PostgreSQL reads it (NULL for NULL); buf holds a number's. */
static const char *text_of(const na_value *v, char buf[32])
{
	if (v->null)
		return NULL;
	if (v->type == NA_TYPE_TEXT)
		return v->text;
	/* %.17g: a double read back is the double written; a flag's 0 or 1
	 * reads as boolean (nas_runs.incomplete) */
	if (v->type == NA_TYPE_REAL)
		snprintf(buf, 32, "%.17g", v->d);
	else
		snprintf(buf, 32, "%lld", (long long)v->i);
	return buf;
}

static int insert_labels(na_central *c, const na_result *r, const char *id, vs_error *err)
{
	int rc = VS_OK;
	for (size_t i = 0; rc == VS_OK && i < r->n_labels; i++) {
		const char *const args[] = {id, r->labels[i].key, r->labels[i].value};
		rc = na_pg_exec(c, "INSERT INTO result_labels (result_id, key, value) VALUES ($1, $2, $3)", 3,
		             args, "record results", NULL, err);
	}
	return rc;
}

static int insert_nas(na_central *c, const na_nas_run *n, const char *id, vs_error *err)
{
	na_value v[NA_NAS_N_COLUMNS];
	int rc = na_nas_values(n, 0, v, err);
	char nums[NA_NAS_N_COLUMNS][32];
	const char *args[NA_NAS_N_COLUMNS];
	char sql[2048] = "INSERT INTO nas_runs (" NA_NAS_COLUMNS ") VALUES ($1";
	for (int i = 0; rc == VS_OK && i < NA_NAS_N_COLUMNS; i++) {
		args[i] = i ? text_of(&v[i], nums[i]) : id;
		if (i)
			snprintf(sql + strlen(sql), sizeof(sql) - strlen(sql), ", $%d", i + 1);
	}
	strcat(sql, ")");
	return rc == VS_OK ? na_pg_exec(c, sql, NA_NAS_N_COLUMNS, args, "record results", NULL, err) : rc;
}

int na_central_insert_finding(na_central *c, const char *const v[NA_FINDING_N_PUSHED], bool *sent,
                              vs_error *err)
{
	char sql[512] = "INSERT INTO findings (" NA_FINDING_PUSHED ") VALUES ($1";
	for (int i = 1; i < NA_FINDING_N_PUSHED; i++)
		snprintf(sql + strlen(sql), sizeof(sql) - strlen(sql), ", $%d", i + 1);
	strcat(sql, ") ON CONFLICT (uuid) DO NOTHING");
	/* one statement: whole or not at all without a transaction of its own */
	PGresult *res = NULL;
	int rc = na_pg_exec(c, sql, NA_FINDING_N_PUSHED, v, "record findings", &res, err);
	*sent = rc == VS_OK && strcmp(PQcmdTuples(res), "1") == 0;
	PQclear(res);
	return rc;
}

int na_central_insert(na_central *c, const na_result *r, const na_nas_run *nas,
                      const na_fio_dir bins[2], const char *group, bool *sent, vs_error *err)
{
	*sent = false;
	const char **args = calloc(na_n_columns + 1, sizeof(*args));
	char (*nums)[32] = calloc(na_n_columns, sizeof(*nums));
	int rc = args && nums ? na_pg_exec(c, "BEGIN", 0, NULL, "start a transaction", NULL, err)
	                      : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; rc == VS_OK && i < na_n_columns; i++) {
		na_value v = na_column_value(r, &na_columns[i]);
		args[i] = text_of(&v, nums[i]);
	}
	if (args)
		args[na_n_columns] = group[0] ? group : NULL;
	PGresult *res = NULL;
	if (rc == VS_OK)
		rc = na_pg_exec(c, c->insert_sql, (int)na_n_columns + 1, args, "record results", &res, err);
	/* no row: another push recorded this UUID first */
	*sent = rc == VS_OK && PQntuples(res) == 1;
	char id[32] = "";
	if (*sent)
		snprintf(id, sizeof(id), "%s", PQgetvalue(res, 0, 0));
	PQclear(res);
	if (*sent)
		rc = insert_labels(c, r, id, err);
	if (*sent && rc == VS_OK && nas)
		rc = insert_nas(c, nas, id, err);
	if (*sent && rc == VS_OK)
		rc = na_central_insert_bins(c, id, bins, err);
	rc = na_pg_finish(c, rc, "record results", err);
	if (rc != VS_OK)
		*sent = false;
	free(args);
	free(nums);
	return rc;
}

/* ---- reading: results, compare, report and regress on the central database ---- */

int na_central_open_reader(na_store *s, const char *url, vs_error *err)
{
	na_central *c = NULL;
	int rc = pg_connect(url, &c, err);
	int version = 0;
	if (rc == VS_OK)
		rc = read_version(c, &version, err);
	if (rc == VS_OK && version == 0)
		rc = vs_fail(err, VS_ERR_USAGE, "the central database holds no nfsagent results yet "
		             "('nfsagent push' records them there)");
	if (rc == VS_OK && version > CENTRAL_LATEST)
		rc = vs_fail(err, VS_ERR_USAGE, "the central database has schema version %d, newer than "
		             "this nfsagent's %d: use a newer nfsagent", version, CENTRAL_LATEST);
	/* A database from before the link step is read with the link unknown,
	 * one from before the NFS client's with that unknown, one from before
	 * the site with every result a guest's, as the SQLite store reads an
	 * older file: the reader does not upgrade. */
	if (rc == VS_OK && version < NA_CENTRAL_SITE)
		rc = na_pg_exec(c, version < NA_CENTRAL_LINK
		                       ? "CREATE TEMP VIEW results AS SELECT *, NULL::integer AS link_speed_mbit,"
		                         " NULL::text AS link_nic, NULL::text AS nfs_client,"
		                         " 'guest'::text AS site FROM public.results"
		                   : version < NA_CENTRAL_NFS_CLIENT
		                       ? "CREATE TEMP VIEW results AS SELECT *, NULL::text AS nfs_client,"
		                         " 'guest'::text AS site FROM public.results"
		                       : "CREATE TEMP VIEW results AS SELECT *, 'guest'::text AS site"
		                         " FROM public.results",
		                0, NULL, "read results", NULL, err);
	if (rc == VS_OK)
		c->version = version;
	if (rc != VS_OK)
		na_central_close(&c);
	s->reader = c;
	return rc;
}

/* A time column of results as the SQLite store gives it, ISO-8601 UTC,
 * into out (false: name is no time), so that a time `results` shows is
 * one --where matches. */
static bool time_text(char *out, size_t size, const char *name)
{
	if (strcmp(name, "started_at") != 0 && strcmp(name, "finished_at") != 0)
		return false;
	snprintf(out, size, "to_char(results.%s AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')",
	         name);
	return true;
}

static void select_column(char *sql, size_t size, const char *name)
{
	char time[128];
	size_t len = strlen(sql);
	if (time_text(time, sizeof(time), name))
		snprintf(sql + len, size - len, ", %s", time);
	else
		snprintf(sql + len, size - len, ", results.%s", name);
}

/* The query of na_store_query, its conditions as $1...; args: their
 * values, in buf when made here (a label's key, a size's bytes; n of 256). */
static int build_select(const char *const *conds, size_t n, char *sql, size_t size,
                        const char **args, char (*buf)[256], int *n_args, vs_error *err)
{
	snprintf(sql, size, "SELECT results.id");
	for (size_t i = 0; i < na_n_columns; i++)
		select_column(sql, size, na_columns[i].name);
	for (int i = 0; i < NA_N_ZFS; i++)
		snprintf(sql + strlen(sql), size - strlen(sql), ", %s", na_zfs_columns[i].shown);
	snprintf(sql + strlen(sql), size - strlen(sql), " FROM" NA_RESULTS_AND_NAS " WHERE true");
	*n_args = 0;
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(conds[i], '=');
		if (!eq || eq == conds[i])
			return vs_fail(err, VS_ERR_USAGE, "'%s' is not a field=value condition", conds[i]);
		size_t len = (size_t)(eq - conds[i]);
		const char *col = na_condition_column(conds[i], len);
		const char *v = na_condition_value(conds[i], col);
		int z = na_zfs_of(col);
		size_t at = strlen(sql);
		if (!col && len >= sizeof(buf[i]))
			return vs_fail(err, VS_ERR_USAGE, "a label's key is at most 255 bytes");
		if (!col) {
			/* a label: its key is the text before '=' */
			snprintf(buf[i], sizeof(buf[i]), "%.*s", (int)len, conds[i]);
			args[(*n_args)++] = buf[i];
			args[(*n_args)++] = v;
			snprintf(sql + at, size - at, " AND EXISTS (SELECT 1 FROM result_labels l WHERE "
			         "l.result_id = results.id AND l.key = $%d AND l.value = $%d)", *n_args - 1,
			         *n_args);
			continue;
		}
		/* a size by its bytes; a value that is no size matches none */
		if (z >= 0 && na_zfs_columns[z].size) {
			snprintf(buf[i], sizeof(buf[i]), "%lld", (long long)na_zfs_size_of(v));
			v = buf[i];
		}
		args[(*n_args)++] = v;
		char time[128];
		if (time_text(time, sizeof(time), col))
			snprintf(sql + at, size - at, " AND %s = $%d", time, *n_args);
		else
			snprintf(sql + at, size - at, " AND %s%s::text = $%d", z >= 0 ? "" : "results.", col,
			         *n_args);
	}
	snprintf(sql + strlen(sql), size - strlen(sql), " ORDER BY results.id");
	return VS_OK;
}

/* Row row of res as a na_result (its strings res's); labels not read. */
static void read_row(const PGresult *res, int row, na_result *r)
{
	r->id = strtoll(PQgetvalue(res, row, 0), NULL, 10);
	for (size_t i = 0; i < na_n_columns; i++) {
		const na_column *c = &na_columns[i];
		int at = (int)i + 1;
		bool null = PQgetisnull(res, row, at);
		const char *v = PQgetvalue(res, row, at);
		char *field = (char *)r + c->off;
		if (c->dir && !null)
			((na_dir_stats *)((char *)r + c->dir))->present = true;
		if (c->type == NA_TYPE_TEXT)
			*(const char **)field = null ? NULL : v;
		else if (c->type == NA_TYPE_INT)
			*(int *)field = atoi(v);
		else if (c->type == NA_TYPE_REAL)
			*(double *)field = strtod(v, NULL);
		else
			*(int64_t *)field = strtoll(v, NULL, 10);
	}
	for (int i = 0; i < NA_N_ZFS; i++) {
		int at = (int)na_n_columns + 1 + i;
		*(const char **)((char *)r + na_fields[NA_FIELD_FIRST_ZFS + i].off) =
			PQgetisnull(res, row, at) ? NULL : PQgetvalue(res, row, at);
	}
}

/* Calls fn for the row with its labels (read while the cursor waits). */
static int each_result(na_central *c, const PGresult *res, int row, na_result_fn fn, void *ud,
                       vs_error *err)
{
	na_result r = {0};
	read_row(res, row, &r);
	PGresult *labels = NULL;
	const char *const args[] = {PQgetvalue(res, row, 0)};
	int rc = na_pg_exec(c, "SELECT key, value FROM result_labels WHERE result_id = $1 ORDER BY key", 1,
	                 args, "read results", &labels, err);
	int n = rc == VS_OK ? PQntuples(labels) : 0;
	na_label *l = n ? calloc((size_t)n, sizeof(*l)) : NULL;
	if (n && !l)
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (int i = 0; l && i < n; i++)
		l[i] = (na_label){PQgetvalue(labels, i, 0), PQgetvalue(labels, i, 1)};
	r.labels = l;
	r.n_labels = l ? (size_t)n : 0;
	if (rc == VS_OK)
		rc = fn(&r, ud, err);
	free(l);
	PQclear(labels);
	return rc;
}

/* A cursor, 200 rows at a time: a fio JSON is large, and fn may query. */
int na_central_query(na_store *s, const char *const *conds, size_t n, na_result_fn fn, void *ud,
                     vs_error *err)
{
	na_central *c = s->reader;
	char sql[8192] = "DECLARE rows NO SCROLL CURSOR FOR ";
	const char **args = calloc(2 * n + 1, sizeof(*args));
	char (*buf)[256] = calloc(n + 1, sizeof(*buf));
	int n_args = 0;
	int rc = args && buf ? build_select(conds, n, sql + strlen(sql), sizeof(sql) - strlen(sql), args,
	                                    buf, &n_args, err)
	                     : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	if (rc == VS_OK)
		rc = na_pg_exec(c, "BEGIN READ ONLY", 0, NULL, "read results", NULL, err);
	if (rc == VS_OK)
		rc = n_args ? na_pg_exec(c, sql, n_args, args, "read results", NULL, err)
		            : na_pg_exec(c, sql, 0, NULL, "read results", NULL, err);
	for (bool more = rc == VS_OK; more;) {
		PGresult *res = NULL;
		rc = na_pg_exec(c, "FETCH 200 FROM rows", 0, NULL, "read results", &res, err);
		int rows = rc == VS_OK ? PQntuples(res) : 0;
		for (int i = 0; rc == VS_OK && i < rows; i++)
			rc = each_result(c, res, i, fn, ud, err);
		more = rc == VS_OK && rows == 200;
		PQclear(res);
	}
	rc = na_pg_finish(c, rc, "read results", err);
	free(args);
	free(buf);
	return rc;
}

int na_central_nas_of(na_store *s, int64_t id, na_nas_fn fn, void *ud, bool *found, vs_error *err)
{
	char key[24];
	snprintf(key, sizeof(key), "%lld", (long long)id);
	const char *const args[] = {key};
	PGresult *res = NULL;
	*found = false;
	int rc = na_pg_exec(s->reader, "SELECT " NA_NAS_COLUMNS " FROM nas_runs WHERE result_id = $1", 1,
	                 args, "read results", &res, err);
	if (rc == VS_OK && PQntuples(res) == 1) {
		na_nas_run n = {.result_id = id};
		na_value v[NA_NAS_N_COLUMNS];
		for (int i = 0; i < NA_NAS_N_COLUMNS; i++)
			v[i] = (na_value){.null = PQgetisnull(res, 0, i), .text = PQgetvalue(res, 0, i)};
		na_nas_from_text(&n, v);
		*found = true;
		rc = fn(&n, ud, err);
	}
	PQclear(res);
	return rc;
}

int na_central_findings(na_store *s, const char *const *conds, size_t n, na_finding_fn fn,
                        void *ud, vs_error *err)
{
	char sql[2048] = "SELECT id, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), "
	                 "kind, campaign, target, host, esxi_version, esxi_build, datastore, "
	                 "datastore_type, servers, export_path, vm, extent_bug, verdict, evidence_json, "
	                 "extent_case FROM findings WHERE true";
	const char **args = calloc(n + 1, sizeof(*args));
	int rc = args ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; rc == VS_OK && i < n; i++) {
		const char *col = na_finding_column(conds[i]);
		size_t len = strlen(sql);
		if (!col)
			rc = vs_fail(err, VS_ERR_USAGE, "findings cannot be selected by '%s'", conds[i]);
		else if (len + 64 > sizeof(sql))  /* this condition and the ORDER BY must fit */
			rc = vs_fail(err, VS_ERR_USAGE, "findings are selected by at most %zu conditions", i);
		else
			snprintf(sql + len, sizeof(sql) - len, " AND %s = $%zu", col, i + 1);
		const char *v = col ? strchr(conds[i], '=') + 1 : NULL;
		args[i] = col && !strcmp(col, "datastore_type") ? na_protocol_value(v) : v;
	}
	snprintf(sql + strlen(sql), sizeof(sql) - strlen(sql), " ORDER BY id");
	PGresult *res = NULL;
	if (rc == VS_OK)
		rc = n ? na_pg_exec(s->reader, sql, (int)n, args, "read findings", &res, err)
		       : na_pg_exec(s->reader, sql, 0, NULL, "read findings", &res, err);
	for (int row = 0; rc == VS_OK && row < PQntuples(res); row++) {
		const char *v[17];
		for (int i = 1; i < 17; i++)
			v[i] = PQgetisnull(res, row, i) ? NULL : PQgetvalue(res, row, i);
		na_finding f = {strtoll(PQgetvalue(res, row, 0), NULL, 10), v[1], v[2], v[3], v[4], v[5],
		                v[6], v[7], v[8], v[9], v[10], v[11], v[12], !strcmp(v[13], "t"), v[14],
		                v[15], v[16]};
		rc = fn(&f, ud, err);
	}
	PQclear(res);
	free(args);
	return rc;
}

int na_central_any_match(na_store *s, const char *const *conds, size_t n, bool *any, vs_error *err)
{
	char sql[8192] = "SELECT EXISTS (";
	const char **args = calloc(2 * n + 1, sizeof(*args));
	char (*buf)[256] = calloc(n + 1, sizeof(*buf));
	int n_args = 0;
	int rc = args && buf ? build_select(conds, n, sql + strlen(sql), sizeof(sql) - strlen(sql) - 2,
	                                    args, buf, &n_args, err)
	                     : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	strcat(sql, ")");
	PGresult *res = NULL;
	if (rc == VS_OK)
		rc = na_pg_exec(s->reader, sql, n_args, args, "read results", &res, err);
	*any = rc == VS_OK && !strcmp(PQgetvalue(res, 0, 0), "t");
	PQclear(res);
	free(args);
	free(buf);
	return rc;
}

int na_central_list_values(na_store *s, const char *sql, const char *key, size_t keylen,
                           size_t max, char *buf, size_t size, vs_error *err)
{
	char k[256];
	snprintf(k, sizeof(k), "%.*s", (int)(keylen < sizeof(k) ? keylen : sizeof(k) - 1),
	         key ? key : "");
	const char *const args[] = {k};
	PGresult *res = NULL;
	int rc = na_pg_exec(s->reader, sql, key ? 1 : 0, args, "read results", &res, err);
	size_t len = 0, n = 0;
	buf[0] = '\0';
	for (int row = 0; rc == VS_OK && row < PQntuples(res); row++)
		if (!na_values_add(buf, size, &len, &n, max,
		                 PQgetisnull(res, row, 0) ? NULL : PQgetvalue(res, row, 0)))
			break;
	PQclear(res);
	return rc;
}
