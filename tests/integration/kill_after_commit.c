/* LD_PRELOAD shim for the exactly-once and chaos tests: SIGKILLs nfsagent
 * right after SQLite committed the Nth transaction that inserted a result
 * (KILL_AFTER_RESULT=N), or the Nth that journaled a campaign step, a
 * result's included (KILL_AFTER_STEP=N), before nfsagent can print or do
 * anything else: the moment a step is stored and nothing after it has run. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

static bool result_pending;  /* the open transaction inserted a result */
static bool step_pending;    /* ... or journaled a step */
static int results_committed, steps_committed;

typedef int (*prepare_fn)(sqlite3 *, const char *, int, sqlite3_stmt **, const char **);
typedef int (*exec_fn)(sqlite3 *, const char *, int (*)(void *, int, char **, char **), void *,
                       char **);

int sqlite3_prepare_v2(sqlite3 *db, const char *sql, int n, sqlite3_stmt **st, const char **tail)
{
	prepare_fn real = (prepare_fn)dlsym(RTLD_NEXT, "sqlite3_prepare_v2");
	if (strncmp(sql, "INSERT INTO results ", strlen("INSERT INTO results ")) == 0)
		result_pending = true;
	if (strncmp(sql, "INSERT OR REPLACE INTO campaign_steps ",
	            strlen("INSERT OR REPLACE INTO campaign_steps ")) == 0)
		step_pending = true;
	return real(db, sql, n, st, tail);
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
	if (commit || strcmp(sql, "ROLLBACK") == 0)
		result_pending = step_pending = false;
	return rc;
}
