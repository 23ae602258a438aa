/* LD_PRELOAD shim for test_central.sh: acts inside the Nth central
 * transaction that records a result, right after the server took the
 * label numbered MID_PUSH_AT=N (counting every label pushed) and before
 * COMMIT: the moment a result is half written in the central database.
 * MID_PUSH_ON names another statement to count instead ("INSERT INTO
 * result_group_members ": a group run half written; test_group_central.sh).
 * MID_PUSH_DO=kill SIGKILLs nfsagent there; any other value is a shell
 * command run there (the test stops the server with it). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

typedef PGresult *(*exec_params_fn)(PGconn *, const char *, int, const Oid *, const char *const *,
                                    const int *, const int *, int);

static int labels;

PGresult *PQexecParams(PGconn *conn, const char *sql, int n, const Oid *types,
                       const char *const *values, const int *lengths, const int *formats,
                       int result_format)
{
	exec_params_fn real = (exec_params_fn)dlsym(RTLD_NEXT, "PQexecParams");
	PGresult *res = real(conn, sql, n, types, values, lengths, formats, result_format);
	const char *at = getenv("MID_PUSH_AT"), *what = getenv("MID_PUSH_DO");
	const char *insert = getenv("MID_PUSH_ON") ? getenv("MID_PUSH_ON") : "INSERT INTO result_labels ";
	if (at && what && strncmp(sql, insert, strlen(insert)) == 0 &&
	    PQresultStatus(res) == PGRES_COMMAND_OK && ++labels == atoi(at)) {
		/* the command is no nfsagent: it runs without this shim (and
		 * without ASan's runtime, which an instrumented shim would need) */
		unsetenv("LD_PRELOAD");
		if (strcmp(what, "kill") == 0)
			raise(SIGKILL);
		else if (system(what) != 0)
			abort();
	}
	return res;
}
