/* LD_PRELOAD shim for the exactly-once and chaos tests: SIGKILLs nfsagent
 * right after SQLite committed the Nth transaction that inserted a result
 * (KILL_AFTER_RESULT=N), or the Nth that journaled a campaign step, a
 * result's included (KILL_AFTER_STEP=N), or the first that journaled a
 * step whose name starts with KILL_AFTER_STEP_NAMED (e.g. "put-back:"),
 * before nfsagent can print or do anything else: the moment a step is
 * stored and nothing after it has run. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

static bool result_pending;  /* the open transaction inserted a result */
static bool step_pending;    /* ... or journaled a step */
static bool named_pending;   /* ... whose name is KILL_AFTER_STEP_NAMED's */
static int results_committed, steps_committed;

typedef int (*prepare_fn)(sqlite3 *, const char *, int, sqlite3_stmt **, const char **);
typedef int (*exec_fn)(sqlite3 *, const char *, int (*)(void *, int, char **, char **), void *,
                       char **);

static bool is_step_insert(const char *sql)
{
	static const char insert[] = "INSERT OR REPLACE INTO campaign_steps ";
	return sql && strncmp(sql, insert, strlen(insert)) == 0;
}

int sqlite3_prepare_v2(sqlite3 *db, const char *sql, int n, sqlite3_stmt **st, const char **tail)
{
	prepare_fn real = (prepare_fn)dlsym(RTLD_NEXT, "sqlite3_prepare_v2");
	if (strncmp(sql, "INSERT INTO results ", strlen("INSERT INTO results ")) == 0)
		result_pending = true;
	if (is_step_insert(sql))
		step_pending = true;
	return real(db, sql, n, st, tail);
}

typedef int (*bind_fn)(sqlite3_stmt *, int, const char *, int, void (*)(void *));

int sqlite3_bind_text(sqlite3_stmt *st, int i, const char *v, int n, void (*del)(void *))
{
	bind_fn real = (bind_fn)dlsym(RTLD_NEXT, "sqlite3_bind_text");
	const char *want = getenv("KILL_AFTER_STEP_NAMED");
	if (want && v && is_step_insert(sqlite3_sql(st)) && strncmp(v, want, strlen(want)) == 0)
		named_pending = true;
	return real(st, i, v, n, del);
}

int sqlite3_exec(sqlite3 *db, const char *sql, int (*cb)(void *, int, char **, char **), void *ud,
                 char **msg)
{
	exec_fn real = (exec_fn)dlsym(RTLD_NEXT, "sqlite3_exec");
	int rc = real(db, sql, cb, ud, msg);
	bool commit = strcmp(sql, "COMMIT") == 0 && rc == SQLITE_OK;
	const char *n = getenv("KILL_AFTER_RESULT"), *k = getenv("KILL_AFTER_STEP");
	if (commit && result_pending && n && ++results_committed == atoi(n))
		raise(SIGKILL);
	if (commit && step_pending && k && ++steps_committed == atoi(k))
		raise(SIGKILL);
	if (commit && named_pending)
		raise(SIGKILL);
	if (commit || strcmp(sql, "ROLLBACK") == 0)
		result_pending = step_pending = named_pending = false;
	return rc;
}
