/* The results database's schema (store.h): the migrations that take a
 * file from one version to the next, and the temp objects that show an
 * older file as the latest schema to a reader that must not change it
 * (store.c applies both). */
#include <stddef.h>

#include "store/store_internal.h"

/* Whether result r (of table results) is a campaign's result recorded again:
 * an older row has its run, target, repetition and profile.  Step 4 removes
 * such rows; a reader of an older file skips them (na_schema_views). */
#define LATER_TWIN(results) \
	"r.campaign IS NOT NULL AND EXISTS (" \
	" SELECT 1 FROM " results " o WHERE o.campaign = r.campaign AND o.target = r.target" \
	" AND o.repetition = r.repetition AND o.profile = r.profile AND o.id < r.id)"

/* A version 4 UUID, as na_store_make_uuid (store_journal.c) writes one. */
#define RANDOM_UUID                                                                   \
	"lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4'"                   \
	" || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + abs(random() % 4), 1)" \
	" || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))"

/* Each result's link to the NFS server (store.h: link_speed_mbit, in
 * Mb/s, and link_nic); unknown (NULL) for older results. */
/* Where fio ran (store.h: site): every result before it in a guest. */
const char na_schema_site_step[] = "ALTER TABLE results ADD COLUMN site TEXT NOT NULL DEFAULT 'guest';";

const char na_schema_link_step[] = "ALTER TABLE results ADD COLUMN link_speed_mbit INTEGER;"
                                   "ALTER TABLE results ADD COLUMN link_nic TEXT;";

/* Each result's ESXi NFS client settings (store.h: nfs_client); unknown
 * (NULL) for older results. */
const char na_schema_nfs_client_step[] = "ALTER TABLE results ADD COLUMN nfs_client TEXT;";

/* ---- the schema: step i takes a database from version i to i + 1.  A
 * released step never changes (databases in the field ran it); a new schema
 * is a new step at the end. ---- */
const char *const na_schema_migrations[] = {
	/* 1: results, their labels, and the row that marks the file as ours */
	"CREATE TABLE nfsagent_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"INSERT INTO nfsagent_meta (key, value) VALUES ('application', 'nfsagent');"
	"CREATE TABLE results ("
	" id INTEGER PRIMARY KEY,"
	" started_at TEXT NOT NULL, finished_at TEXT,"
	" status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),"
	" error TEXT CHECK (status = 'ok' OR error IS NOT NULL),"
	" campaign TEXT, target TEXT, repetition INTEGER NOT NULL,"
	" vcenter TEXT, vcenter_version TEXT, vcenter_build TEXT,"
	" host TEXT, esxi_version TEXT, esxi_build TEXT,"
	" datastore TEXT, datastore_type TEXT, servers TEXT, export_path TEXT,"
	" vm TEXT, guest_os TEXT, disk TEXT,"
	" profile TEXT, job_file TEXT, fio_version TEXT,"
	" read_iops REAL, read_bw_bytes REAL, read_lat_mean_us REAL, read_p50_us REAL,"
	" read_p95_us REAL, read_p99_us REAL, read_p999_us REAL, read_max_us REAL,"
	" read_total_ios INTEGER, read_runtime_ms INTEGER,"
	" write_iops REAL, write_bw_bytes REAL, write_lat_mean_us REAL, write_p50_us REAL,"
	" write_p95_us REAL, write_p99_us REAL, write_p999_us REAL, write_max_us REAL,"
	" write_total_ios INTEGER, write_runtime_ms INTEGER,"
	" fio_json TEXT, host_counters_json TEXT);"
	"CREATE TABLE result_labels ("
	" result_id INTEGER NOT NULL REFERENCES results (id) ON DELETE CASCADE,"
	" key TEXT NOT NULL, value TEXT NOT NULL,"
	" PRIMARY KEY (result_id, key));",
	/* 2: queries find results by label */
	"CREATE INDEX result_labels_key_value ON result_labels (key, value);",
	/* 3: findings (probe verdicts, failed moves) and the campaign journal */
	"CREATE TABLE findings ("
	" id INTEGER PRIMARY KEY, at TEXT NOT NULL, kind TEXT NOT NULL,"
	" campaign TEXT, target TEXT, host TEXT, esxi_version TEXT, esxi_build TEXT,"
	" datastore TEXT, datastore_type TEXT, servers TEXT, export_path TEXT, vm TEXT,"
	" extent_bug INTEGER NOT NULL, verdict TEXT NOT NULL, evidence_json TEXT);"
	"CREATE TABLE campaign_runs ("
	" run TEXT PRIMARY KEY, name TEXT NOT NULL, file TEXT, state TEXT NOT NULL,"
	" pid INTEGER, started_at TEXT NOT NULL, updated_at TEXT NOT NULL);"
	"CREATE TABLE campaign_steps ("
	" run TEXT NOT NULL REFERENCES campaign_runs (run) ON DELETE CASCADE,"
	" step TEXT NOT NULL, at TEXT NOT NULL, detail TEXT, PRIMARY KEY (run, step));",
	/* 4: a campaign records a result once per (run, target, repetition,
	 * profile).  Before, a kill between a result and its journal step made
	 * --resume record it again: the oldest row of each is kept (the others go
	 * with their labels), a journal step naming a removed row names the kept
	 * one, and nfsagent_meta notes how many went.  A result the kill left
	 * without its step gets it: the row is whole, and without the step a
	 * resume would run that repetition again, only to be refused. */
	"CREATE TEMP TABLE dup AS SELECT r.id FROM results r WHERE " LATER_TWIN("results") ";"
	"INSERT INTO nfsagent_meta (key, value) SELECT 'duplicates_removed', (SELECT count(*) FROM dup)"
	" WHERE EXISTS (SELECT 1 FROM dup);"
	"DELETE FROM result_labels WHERE result_id IN (SELECT id FROM dup);"
	"DELETE FROM results WHERE id IN (SELECT id FROM dup);"
	"UPDATE campaign_steps SET detail = (SELECT CAST(min(r.id) AS TEXT) FROM results r"
	" WHERE r.campaign = campaign_steps.run"
	" AND campaign_steps.step = 'result:' || r.target || ':' || r.repetition || ':' || r.profile)"
	" WHERE detail IN (SELECT CAST(id AS TEXT) FROM dup);"
	"DROP TABLE dup;"
	"INSERT OR IGNORE INTO campaign_steps (run, step, at, detail)"
	" SELECT r.campaign, 'result:' || r.target || ':' || r.repetition || ':' || r.profile,"
	" coalesce(r.finished_at, r.started_at), CAST(r.id AS TEXT) FROM results r"
	" WHERE r.target IS NOT NULL AND r.profile IS NOT NULL"
	" AND r.campaign IN (SELECT run FROM campaign_runs);"
	"CREATE UNIQUE INDEX results_once ON results (campaign, target, repetition, profile);",
	/* 5: whose view a mismatch was: one host's ("host"), the file's
	 * ("export"), or a race that healed ("transient"); older rows: unknown */
	"ALTER TABLE findings ADD COLUMN extent_case TEXT;",
	/* 6: the NAS side of a result (bench --nas): store_nas.c */
	na_store_nas_schema,
	/* 7: its zpool iostat timeline */
	na_store_nas_timeline,
	/* 8: the seconds of fio's window the pool measured, the amplification's split */
	na_store_nas_window,
	/* 9: the clocks' difference that placed fio's window, and its error */
	na_store_nas_clock,
	/* 10: the pool's health (a resilver, a scrub) as the results' provenance */
	na_store_nas_health,
	/* 11: the txgs and the log's waits over fio's window */
	na_store_nas_zfs,
	/* 12: a central database (nfsagent push) knows a result or a finding
	 * by its UUID, made when it is recorded; older ones get theirs here
	 * (version 4, random).  Who recorded one, the runner's host name, is
	 * unknown before.  central_pushes and central_finding_pushes: which
	 * central database (its database_id) has each, so a push sends only
	 * what it lacks. */
	"ALTER TABLE results ADD COLUMN runner TEXT;"
	"ALTER TABLE results ADD COLUMN uuid TEXT;"
	"UPDATE results SET uuid = " RANDOM_UUID ";"
	"CREATE UNIQUE INDEX results_uuid ON results (uuid);"
	"CREATE TABLE central_pushes ("
	" result_id INTEGER NOT NULL REFERENCES results (id) ON DELETE CASCADE,"
	" central TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (result_id, central));"
	"ALTER TABLE findings ADD COLUMN runner TEXT;"
	"ALTER TABLE findings ADD COLUMN uuid TEXT;"
	"UPDATE findings SET uuid = " RANDOM_UUID ";"
	"CREATE UNIQUE INDEX findings_uuid ON findings (uuid);"
	"CREATE TABLE central_finding_pushes ("
	" finding_id INTEGER NOT NULL REFERENCES findings (id) ON DELETE CASCADE,"
	" central TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (finding_id, central));",
	/* 13: a group run (bench on several VMs at once, docs/groups.md): its
	 * start skew, whether a member failed, and its figures (sums, merged
	 * bins' percentiles, the slowest VM); its members are ordinary results,
	 * linked by result_group_members (result_id NULL: nothing recorded) */
	na_store_group_schema,
	/* 14: fio's latency bins of each result (json+), stored once so that
	 * compare and report read rows instead of fio's JSON; older results
	 * get theirs from their stored output here (store_bins.c) */
	na_store_bins_schema,
	/* 15: a campaign of several VMs (vms =) records each group run's
	 * members, one result per VM, under one run, target, repetition and
	 * profile: the VM is part of what is recorded once */
	"DROP INDEX results_once;"
	"CREATE UNIQUE INDEX results_once ON results (campaign, target, repetition, profile, vm);",
	/* 16: a group run's NAS side (docs/groups.md): one row per pool, its
	 * bytes over the group's common window and the amplification against
	 * the sum of its members' guest bytes (store_group_nas.c) */
	na_store_group_nas_schema,
	/* 17: the host's link to the NFS server with each result, so that
	 * compare and report can say a change is the network's */
	na_schema_link_step,
	/* 18: which central database holds each group run (store_group.c) */
	na_store_group_pushes_schema,
	/* 19: the host's NFS client settings with each result, so that compare
	 * names a difference in them as a confounder */
	na_schema_nfs_client_step,
	/* 20: where fio ran: the guest, or the NAS itself (a baseline) */
	na_schema_site_step,
};
const int na_schema_latest = (int)(sizeof(na_schema_migrations) / sizeof(na_schema_migrations[0]));

/* A reader never migrates: it shows an older file as the latest schema
 * through objects in its connection's temp schema, which SQLite searches
 * before the file's own.  Each applies to the versions from..to-1; a new
 * step that changes what the queries read adds its view here. */
#define NO_UUID ", NULL AS runner, NULL AS uuid"
#define NO_CLIENT ", NULL AS nfs_client"
#define NO_SITE ", 'guest' AS site"
#define NO_LINK ", NULL AS link_speed_mbit, NULL AS link_nic" NO_CLIENT NO_SITE
const na_schema_view na_schema_views[] = {
	/* before 3 no finding was recorded */
	{1, 3, "CREATE TEMP TABLE findings (id INTEGER PRIMARY KEY, at TEXT, kind TEXT,"
	       " campaign TEXT, target TEXT, host TEXT, esxi_version TEXT, esxi_build TEXT,"
	       " datastore TEXT, datastore_type TEXT, servers TEXT, export_path TEXT, vm TEXT,"
	       " extent_bug INTEGER, verdict TEXT, evidence_json TEXT, extent_case TEXT)"},
	/* before 4 a campaign's result could be recorded twice: the oldest is
	 * read, as step 4 keeps it, with its own labels only; before 12 no
	 * result had its runner nor its UUID, nor its link before the link step */
	{1, 4, "CREATE TEMP VIEW results AS SELECT *" NO_UUID NO_LINK " FROM main.results r"
	       " WHERE NOT (" LATER_TWIN("main.results") ");"
	       "CREATE TEMP VIEW result_labels AS SELECT * FROM main.result_labels"
	       " WHERE result_id IN (SELECT id FROM temp.results)"},
	/* before 5 a finding had no extent case: unknown */
	{3, 5, "CREATE TEMP VIEW findings AS SELECT id, at, kind, campaign, target, host,"
	       " esxi_version, esxi_build, datastore, datastore_type, servers, export_path, vm,"
	       " extent_bug, verdict, evidence_json, NULL AS extent_case FROM main.findings"},
	/* before 6 no result had a NAS side, before 7 no timeline, before 8
	 * no window's seconds nor split, before 9 no clocks, before 10 no
	 * pool health, before 11 no txgs nor log waits */
	{1, 6, na_store_nas_none},
	{6, 7, na_store_nas_no_timeline},
	{7, 8, na_store_nas_no_window},
	{8, 9, na_store_nas_no_clock},
	{9, 10, na_store_nas_no_health},
	{10, 11, na_store_nas_no_zfs},
	{4, NA_SCHEMA_UUID, "CREATE TEMP VIEW results AS SELECT *" NO_UUID NO_LINK " FROM main.results"},
	/* before 13 no group was recorded */
	{1, NA_SCHEMA_GROUPS, na_store_group_none},
	/* before 14 the bins are made from the stored output as they are read */
	{1, NA_SCHEMA_BINS, na_store_bins_view},
	/* before 16 no group had a NAS side */
	{1, NA_SCHEMA_GROUP_NAS, na_store_group_nas_none},
};
const size_t na_schema_n_views = sizeof(na_schema_views) / sizeof(na_schema_views[0]);

/* From NA_SCHEMA_UUID to the link step (whose number is its place, not a
 * constant: steps added on other branches may come before it). */
const char na_schema_no_link[] = "CREATE TEMP VIEW results AS SELECT *" NO_LINK " FROM main.results";
/* From the link step to the NFS client's (both known by their text): no
 * client settings, and every result ran in a guest. */
const char na_schema_no_nfs_client[] = "CREATE TEMP VIEW results AS SELECT *" NO_CLIENT NO_SITE " FROM main.results";
/* From the NFS client's step to the site step: every result ran in a guest. */
const char na_schema_no_site[] = "CREATE TEMP VIEW results AS SELECT *" NO_SITE " FROM main.results";
#undef NO_SITE
#undef NO_UUID
#undef NO_LINK
#undef NO_CLIENT

int na_schema_version_of(const char *step)
{
	for (int i = 0; i < na_schema_latest; i++)
		if (na_schema_migrations[i] == step)
			return i + 1;
	return 0;
}
