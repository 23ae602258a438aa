/* nfsagent push: sends the local results a central PostgreSQL database
 * lacks (docs/central.md).  The local file is the outbox: nothing is
 * removed from it, and a push that fails costs nothing but the wait. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "store/store.h"

static const char usage[] =
	"Usage: nfsagent push [--db FILE] --central URL\n"
	"Sends every local result the central database does not have yet, each with\n"
	"its labels and NAS side in one transaction. URL is a libpq URI\n"
	"(postgresql://HOST/DB, or NFSAGENT_CENTRAL); its password comes from\n"
	"PGPASSWORD, ~/.pgpass (PGPASSFILE) or a service file, never from the URL.\n"
	"Pushing again, or from two runners at once, records each result once.\n"
	"Examples:\n"
	"  nfsagent push --central postgresql://nfsagent@db.example.com/results?sslmode=verify-full\n"
	"  nfsagent push --db ci.db --central 'postgresql:///results?host=/run/postgresql'\n";

enum { OPT_DB = NA_OPT_FIRST_COMMAND_OPTION, OPT_CENTRAL };

typedef struct push_args {
	const char *db, *central;
} push_args;

static int on_option(int opt, const char *arg, void *ud, na_outcome *out)
{
	push_args *a = ud;
	(void)out;
	switch (opt) {
	case OPT_DB: a->db = arg; return 1;
	case OPT_CENTRAL: a->central = arg; return 1;
	default: return 0;
	}
}

/* Adds to err's message how many results wait, so that its one line says
 * what the failure left to do. */
static void say_waiting(vs_error *err, size_t waiting)
{
	char more[128];
	snprintf(more, sizeof(more), "; %zu result%s wait%s for the central database: run nfsagent "
	         "push again", waiting, waiting == 1 ? "" : "s", waiting == 1 ? "s" : "");
	/* a message cut short still says what failed */
	strncat(err->message, more, sizeof(err->message) - strlen(err->message) - 1);
}

const char *na_central_url(const char *flag, const char *file)
{
	const char *env = getenv("NFSAGENT_CENTRAL");
	return flag ? flag : env && env[0] ? env : file;
}

vs_status cmd_push(int argc, char **argv, na_outcome *out)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, OPT_DB},
		{"central", required_argument, NULL, OPT_CENTRAL},
		{"help", no_argument, NULL, NA_OPT_HELP},
		{0},
	};
	push_args a = {0};
	int go = na_parse_local_options(argc, argv, longopts, usage, on_option, &a, NULL, out);
	if (go <= 0)
		return go < 0 ? out->err.status : VS_OK;
	a.central = na_central_url(a.central, NULL);
	if (!a.central || !a.central[0])
		return na_usage_error(out, "give the central database: --central URL or NFSAGENT_CENTRAL");
	vs_error *err = &out->err;
	vs_status rc = na_central_check_url(a.central, err);
	if (rc != VS_OK)
		return rc;
	na_store *store = NULL;
	na_central *central = NULL;
	na_push_counts n = {0};
	rc = na_store_open(a.db, &store, err);
	if (rc == VS_OK)
		rc = na_central_open(a.central, &central, err);
	/* not reached: every result not yet pushed anywhere waits */
	if (rc != VS_OK && store && na_store_unpushed(store, &n.waiting, &(vs_error){0}) != VS_OK)
		n.waiting = 0;
	if (rc == VS_OK)
		rc = na_store_push(store, central, &n, err);
	/* what the admin can mend (the server, a right) and push again; a bad
	 * input or a newer schema is not a wait */
	if (rc != VS_OK && rc != VS_ERR_USAGE && n.waiting)
		say_waiting(err, n.waiting);
	if (rc == VS_OK)
		printf("pushed %zu result%s", n.sent, n.sent == 1 ? "" : "s");
	if (rc == VS_OK && n.groups)
		printf("%s %zu group run%s", n.findings ? "," : " and", n.groups, n.groups == 1 ? "" : "s");
	if (rc == VS_OK && n.findings)
		printf(" and %zu finding%s", n.findings, n.findings == 1 ? "" : "s");
	if (rc == VS_OK)
		printf(" to the central database%s", n.present ? "" : "\n");
	if (rc == VS_OK && n.present)
		printf(" (%zu there already)\n", n.present);
	na_central_close(&central);
	na_store_close(&store);
	return rc;
}
