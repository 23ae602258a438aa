/* nfsagent run CAMPAIGN.ini: a whole comparison in one command. */
#include <stdlib.h>
#include <string.h>

#include "cmd/run_render.h"
#include "cmd/render.h"
#include "cmd/cmd.h"

static const char usage[] =
	"Usage: nfsagent run CAMPAIGN.ini [--dry-run | --resume | --abort] [--db FILE]\n"
	"                    [--central URL] [OPTIONS]\n"
	"Runs a campaign: preflight and plan (--dry-run stops there and changes nothing),\n"
	"then per target mount, probe, Storage vMotion of the test VM, verify, and the\n"
	"profiles x repetitions interleaved across targets; at the end the VM goes home\n"
	"and what the campaign mounted is unmounted. Ctrl-C stops safely; --resume\n"
	"continues after Ctrl-C, a kill or a failed run, from where things really are;\n"
	"--abort runs nothing more and brings everything back instead: the VM and each\n"
	"disk where they started, the campaign's mounts and probe folders removed.\n"
	"Exit 3 when the extent-size bug stopped a target. With --central URL (or\n"
	"NFSAGENT_CENTRAL, or central = in [campaign]) the results are pushed to that\n"
	"PostgreSQL database at the end (see nfsagent push). See examples/*.ini.\n"
	"Examples:\n"
	"  nfsagent run examples/nfs3-vs-nfs41.ini --dry-run\n"
	"  nfsagent run examples/nfs3-vs-nfs41.ini --resume\n\n"
	NA_CONNECT_HELP;

enum { OPT_DRY_RUN = NA_OPT_FIRST_COMMAND_OPTION, OPT_RESUME, OPT_ABORT, OPT_DB, OPT_CENTRAL };

typedef struct run_args {
	bool dry_run, resume, abort;
	const char *db, *central;
} run_args;

static int on_option(int opt, const char *arg, void *ud, na_outcome *out)
{
	(void)out;
	run_args *a = ud;
	switch (opt) {
	case OPT_DRY_RUN: a->dry_run = true; return 1;
	case OPT_RESUME: a->resume = true; return 1;
	case OPT_ABORT: a->abort = true; return 1;
	case OPT_DB: a->db = arg; return 1;
	case OPT_CENTRAL: a->central = arg; return 1;
	default: return 0;
	}
}

/* Connection settings in the campaign file are defaults: flags and the
 * environment come first. */
static void connection_defaults(na_conn *conn, const na_campaign *c)
{
	bool env_url = getenv("NFSAGENT_URL") || getenv("GOVC_URL");
	if (!conn->url && !env_url && c->url)
		conn->url = strdup(c->url);
	if (!conn->username && !getenv("NFSAGENT_USERNAME") && !getenv("GOVC_USERNAME") && c->username)
		conn->username = strdup(c->username);
	if (!conn->thumbprint && !getenv("NFSAGENT_THUMBPRINT") && c->thumbprint)
		conn->thumbprint = strdup(c->thumbprint);
	if (!conn->cacert && !getenv("NFSAGENT_CACERT") && c->cacert)
		conn->cacert = strdup(c->cacert);
	conn->insecure = conn->insecure || c->insecure;
}

/* The campaign op, its lines on stdout, then what it ran: the summary,
 * what failed moves left, and where the time went. */
static vs_status run_campaign(na_campaign *c, const na_campaign_args *a, na_outcome *out)
{
	na_session s = {.output = na_print_line, .warning = na_print_warning, .detail = na_print_detail};
	na_campaign_result r;
	vs_status rc = na_op_campaign(&s, a, &r, &out->err);
	out->verdict = r.verdict;
	vs_error e = {0};
	/* A summary that cannot be read is said; it fails a run that had not. */
	if (r.ran && !a->abort && na_campaign_print_summary(r.store, c, r.run_id, &e) != VS_OK) {
		if (rc != VS_OK) {
			na_print_warning_error(&e);
		} else {
			out->err = e;
			rc = out->err.status = e.status != VS_OK ? e.status : VS_ERR_TASK;
			out->verdict = NA_VERDICT_CLEAN;
		}
	}
	na_leftovers_print(&r.leftovers);
	if (r.ran && !a->abort)
		na_campaign_print_time(&r);
	char waiting[1024];
	if (r.ran && na_store_push_at_end(r.store, a->central, waiting, sizeof(waiting)))
		na_warn("%s", waiting);
	na_campaign_result_free(&r);
	return rc;
}

vs_status cmd_run(int argc, char **argv, na_outcome *out)
{
	static const struct option longopts[] = {
		NA_CONNECT_LONGOPTS,
		{"dry-run", no_argument, NULL, OPT_DRY_RUN},
		{"resume", no_argument, NULL, OPT_RESUME},
		{"abort", no_argument, NULL, OPT_ABORT},
		{"db", required_argument, NULL, OPT_DB},
		{"central", required_argument, NULL, OPT_CENTRAL},
		{0},
	};
	na_conn conn = {0};
	run_args a = {0};
	int go = na_parse_options(&conn, argc, argv, longopts, usage, on_option, &a, out);
	vs_status rc = go < 0 ? out->err.status : VS_OK;
	if (go > 0 && optind != argc - 1)
		rc = na_usage_error(out, optind < argc ? "give one campaign file" : "which campaign file?");
	if (go > 0 && rc == VS_OK && a.dry_run + a.resume + a.abort > 1)
		rc = na_usage_error(out, "--dry-run, --resume and --abort exclude each other");
	na_campaign c = {0};
	vs_error err = {0};
	if (go > 0 && rc == VS_OK && na_campaign_load(argv[optind], &c, &err) != VS_OK)
		rc = vs_fail(&out->err, VS_ERR_USAGE, "%s", err.message);
	/* The flag's or NFSAGENT_CENTRAL's URL is input as the file's is
	 * (checked as it was read): refused before anything is touched. */
	const char *central = go > 0 && rc == VS_OK ? na_central_url(a.central, c.central) : NULL;
	if (central && na_central_check_url(central, &err) != VS_OK)
		rc = vs_fail(&out->err, VS_ERR_USAGE, "%s", err.message);
	if (go > 0 && rc == VS_OK) {
		connection_defaults(&conn, &c);
		na_campaign_args o = {.c = &c, .dry_run = a.dry_run, .resume = a.resume, .abort = a.abort,
		                      .db = a.db, .central = central, .conn = &conn,
		                      .planned = na_campaign_print_plan};
		rc = run_campaign(&c, &o, out);
	}
	na_campaign_free(&c);
	na_conn_close(&conn, NULL);
	return rc;
}
