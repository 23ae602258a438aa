/* nfsagent: subcommands dispatched from one table.  A command ends with an
 * na_outcome; here alone its error becomes one line on stderr (a fault's
 * reasons indented under it) and the outcome a documented exit code. */
#include <curl/curl.h>
#include <libxml/parser.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "output.h"

typedef struct command {
	const char *name;
	vs_status (*run)(int argc, char **argv, na_outcome *out);
	const char *summary;
} command;

static vs_status cmd_help(int argc, char **argv, na_outcome *out);

static const command commands[] = {
	{"about", cmd_about, "show the server's product, version, build, certificate thumbprint"},
	{"ls", cmd_ls, "list hosts, datastores or vms"},
	{"mount", cmd_mount, "mount an NFS export as an NFS 3 or NFS 4.1 datastore"},
	{"unmount", cmd_unmount, "unmount an NFS datastore (refused while VMs have files there)"},
	{"migrate", cmd_migrate, "Storage-vMotion VMs, verify disks, work around the NFS 4.1 bug"},
	{"verify", cmd_verify, "check every disk extent of a VM against its descriptor"},
	{"probe", cmd_probe, "canary disks on a datastore: does the NFS 4.1 extent-size bug show?"},
	{"run", cmd_run, "run a campaign file: mount, probe, move, bench, compare, clean up"},
	{"bench", cmd_bench, "run fio in a VM's guest, repeated, and record every result"},
	{"results", cmd_results, "list and export recorded results (--where, --json, --csv)"},
	{"push", cmd_push, "send the results a central PostgreSQL database lacks"},
	{"report", cmd_report, "write an HTML report comparing results, with charts and findings"},
	{"compare", cmd_compare, "compare two result sets: median, spread, change, noise, confounders"},
	{"regress", cmd_regress, "check a candidate against a baseline: noise, limits, probe verdicts"},
	{"nas", cmd_nas, "the ZFS dataset behind an NFS datastore: its settings, its pool (ssh)"},
	{"profiles", cmd_profiles, "list the built-in fio profiles"},
	{"help", cmd_help, "show this help, or a command's help"},
};

static void print_commands(FILE *out)
{
	fprintf(out, "Usage: nfsagent COMMAND [OPTIONS]\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nRun 'nfsagent COMMAND --help' for a command's options.\n");
}

static const command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static const char help_usage[] =
	"Usage: nfsagent help [COMMAND]\n"
	"Lists the commands, or shows COMMAND's help: the same as nfsagent COMMAND --help.\n"
	"Examples:\n"
	"  nfsagent help\n"
	"  nfsagent help migrate\n";

static bool asks_help_of_help(const char *arg)
{
	return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0 || strcmp(arg, "help") == 0;
}

static vs_status cmd_help(int argc, char **argv, na_outcome *out)
{
	if (argc < 2) {
		print_commands(stdout);
		return VS_OK;
	}
	if (asks_help_of_help(argv[1])) {
		fputs(help_usage, stdout);
		return VS_OK;
	}
	const command *c = find_command(argv[1]);
	if (!c)
		return na_usage_error(out, "unknown command '%s'", argv[1]);
	char *help_argv[] = {argv[1], "--help", NULL};
	return c->run(2, help_argv, out);
}

/* Exit codes live here alone; docs/exit-codes.md documents them. */
enum {
	NA_EXIT_OK = 0,
	NA_EXIT_FAIL = 1,      /* the operation failed (vSphere fault, task error) */
	NA_EXIT_USAGE = 2,     /* bad command line or input, or a name matched nothing */
	NA_EXIT_FINDING = 3,   /* a check found the problem it looks for */
	NA_EXIT_CONNECT = 4,   /* server unreachable, or timed out */
	NA_EXIT_TLS = 5,       /* server certificate refused */
	NA_EXIT_AUTH = 6,      /* login refused */
	NA_EXIT_PROTOCOL = 7,  /* the server's reply made no sense */
	NA_EXIT_UNCHECKED = 8, /* a check could not read what it needs, or regress's runs cannot
	                        * tell: neither clean nor a finding */
};
static int verdict_exit(na_verdict v)
{
	switch (v) {
	case NA_VERDICT_FINDING: return NA_EXIT_FINDING;
	case NA_VERDICT_UNCHECKED: return NA_EXIT_UNCHECKED;
	case NA_VERDICT_PROBLEM: return NA_EXIT_FAIL;
	default: return NA_EXIT_OK;
	}
}

static int exit_code(vs_status status)
{
	switch (status) {
	case VS_OK: return NA_EXIT_OK;
	case VS_ERR_USAGE:
	case VS_ERR_NOT_FOUND: return NA_EXIT_USAGE;
	case VS_ERR_CONNECT: return NA_EXIT_CONNECT;
	case VS_ERR_TLS:
	case VS_ERR_HOSTKEY: return NA_EXIT_TLS;
	case VS_ERR_AUTH: return NA_EXIT_AUTH;
	case VS_ERR_PROTOCOL: return NA_EXIT_PROTOCOL;
	default: return NA_EXIT_FAIL;
	}
}

/* cmd NULL: nfsagent's own usage. */
static void try_help(const char *cmd)
{
	fprintf(stderr, "Try 'nfsagent %s%s--help'.\n", cmd ? cmd : "", cmd ? " " : "");
}

/* Prints how c ended and picks its exit code.  An error with neither
 * message nor fault (a help's usage) has been said by the command's own
 * lines: its status still picks the code. */
static int finish(const command *c, vs_status rc, const na_outcome *out)
{
	if (rc != VS_OK && (out->err.message[0] || out->err.fault[0]))
		na_print_error(&out->err);
	/* help's own errors are about nfsagent's commands */
	if (rc != VS_OK && out->usage)
		try_help(c->run == cmd_help ? NULL : c->name);
	/* a move stopped by the extent-size bug is a finding, also beside its error */
	if (out->verdict == NA_VERDICT_FINDING)
		return NA_EXIT_FINDING;
	/* a failure whose error says no status is still a failure */
	return rc != VS_OK ? exit_code(out->err.status != VS_OK ? out->err.status : rc)
	                   : verdict_exit(out->verdict);
}

int main(int argc, char **argv)
{
	/* A line is seen when it is written, also in a pipe or a log (a
	 * campaign's mount lines came after the probe that followed them). */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		print_commands(stderr);
		return NA_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		print_commands(stdout);
		return NA_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("nfsagent %s\n", NFSAGENT_VERSION);
		return NA_EXIT_OK;
	}
	const command *c = find_command(argv[1]);
	if (!c) {
		na_error("unknown command '%s'", argv[1]);
		try_help(NULL);
		return NA_EXIT_USAGE;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	xmlInitParser();
	na_outcome out = {NA_VERDICT_CLEAN};
	vs_status rc = c->run(argc - 1, argv + 1, &out);
	int code = finish(c, rc, &out);
	xmlCleanupParser();
	curl_global_cleanup();
	return code;
}
