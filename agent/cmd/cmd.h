/* The command line's: how a command ended, its options (connect.c), the
 * commands' entry points.  Included by agent/cmd/ and by main.c, connect.c
 * and output.c only: no lower layer sees it (tests/layers.py). */
#ifndef NFSAGENT_CMD_H
#define NFSAGENT_CMD_H

#include <getopt.h>
#include <stdbool.h>

#include "nfsagent/vsphere.h"
#include "connect.h"
#include "ops/verdict.h"
#include "ops/inventory.h"

/* How a command ended.  A command returns VS_OK or err's status; main.c
 * prints err's one line (its reasons under it, then "Try 'nfsagent CMD
 * --help'." when usage is set) and picks the exit code. */
typedef struct na_outcome {
	na_verdict verdict;
	vs_error err;
	bool usage;  /* err is the command line's */
} na_outcome;

/* ---- output.c: messages ---- */
/* A bad command line: fills out->err (VS_ERR_USAGE, the message) and sets
 * out->usage, so that main.c points at CMD --help; prints nothing. */
vs_status na_usage_error(na_outcome *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- connect.c: connection flags shared by every command that talks to vSphere ---- */
enum {
	NA_OPT_URL = 1000, NA_OPT_USERNAME, NA_OPT_PASSWORD_FILE, NA_OPT_THUMBPRINT, NA_OPT_CACERT,
	NA_OPT_INSECURE, NA_OPT_TIMEOUT, NA_OPT_TRACE, NA_OPT_PAGE_SIZE, NA_OPT_JSON, NA_OPT_HELP,
	NA_OPT_HOST, NA_OPT_CLUSTER, NA_OPT_ALL_HOSTS,
	NA_OPT_FIRST_COMMAND_OPTION,
};
#define NA_CONNECT_LONGOPTS                                          \
	{"url", required_argument, NULL, NA_OPT_URL},                      \
	{"username", required_argument, NULL, NA_OPT_USERNAME},            \
	{"password-file", required_argument, NULL, NA_OPT_PASSWORD_FILE},  \
	{"thumbprint", required_argument, NULL, NA_OPT_THUMBPRINT},        \
	{"cacert", required_argument, NULL, NA_OPT_CACERT},                \
	{"insecure", no_argument, NULL, NA_OPT_INSECURE},                  \
	{"timeout", required_argument, NULL, NA_OPT_TIMEOUT},              \
	{"trace", required_argument, NULL, NA_OPT_TRACE},                  \
	{"page-size", required_argument, NULL, NA_OPT_PAGE_SIZE},          \
	{"json", no_argument, NULL, NA_OPT_JSON},                          \
	{"help", no_argument, NULL, NA_OPT_HELP}
#define NA_CONNECT_HELP                                                                     \
	"Connection (flags override NFSAGENT_* environment, which overrides GOVC_*):\n"          \
	"  --url URL             vCenter or ESXi, e.g. vc.example.com or https://vc/sdk\n"      \
	"  --username USER\n"                                                                   \
	"  --password-file FILE  read the password from FILE (else NFSAGENT_PASSWORD\n"         \
	"                        or a prompt)\n"                                                \
	"  --thumbprint SHA256:..  accept exactly this server certificate\n"                    \
	"  --cacert FILE         trust the CAs in FILE\n"                                       \
	"  --insecure            do not verify the certificate (not recommended)\n"             \
	"  --timeout SECONDS     give up on a call after this long (default 60)\n"              \
	"  --trace FILE          write every request and reply to FILE, secrets redacted\n"     \
	"  --json                machine-readable output\n"

/* Handles a connection option; returns 1 if it was one, 0 if not, -1 on a
 * bad value (out filled). */
int na_conn_option(na_conn *conn, int opt, const char *arg, na_outcome *out);
/* Parses a command's options: connection ones into conn, the rest to
 * `other` (may be NULL; 1/0/-1 as na_conn_option).  Returns 1 to go on, 0
 * after printing --help (nothing more to do), -1 on an error (out filled).
 * Positional arguments are left at argv[optind...]. */
int na_parse_options(na_conn *conn, int argc, char **argv, const struct option *longopts,
                     const char *usage,
                     int (*other)(int opt, const char *arg, void *ud, na_outcome *out), void *ud,
                     na_outcome *out);
/* The options of a command that needs no connection (it reads the store):
 * its own to other, --json into *json (json may be NULL), no positional
 * argument.  1 to go on, 0 after --help, -1 on an error (out filled). */
int na_parse_local_options(int argc, char **argv, const struct option *longopts,
                           const char *usage,
                           int (*other)(int opt, const char *arg, void *ud, na_outcome *out),
                           void *ud, bool *json, na_outcome *out);
/* A subcommand: its options, checks and work.  na_command parses, checks,
 * connects, runs and disconnects, so each cmd_*.c holds only its own logic. */
typedef struct na_command_spec {
	const char *usage;
	const struct option *longopts;
	/* 1 if opt was its own, 0 if unknown, -1 on a bad value (out filled); may be NULL */
	int (*option)(int opt, const char *arg, void *args, na_outcome *out);
	/* checks the options and the positional arguments: VS_OK to go on */
	vs_status (*check)(void *args, int argc, char **argv, na_outcome *out);
	vs_status (*run)(vs_client *c, void *args, bool json, na_outcome *out);
} na_command_spec;
vs_status na_command(const na_command_spec *spec, void *args, int argc, char **argv,
                     na_outcome *out);

/* ---- connect.c: --host, --cluster, --all-hosts ---- */
#define NA_HOST_CHOICE_LONGOPTS                                  \
	{"host", required_argument, NULL, NA_OPT_HOST},                \
	{"cluster", required_argument, NULL, NA_OPT_CLUSTER},          \
	{"all-hosts", no_argument, NULL, NA_OPT_ALL_HOSTS}
/* Takes --host/--cluster/--all-hosts: 1 if opt was one of them. */
int na_host_choice_option(na_host_choice *choice, int opt, const char *arg);
/* Exactly one of them must be given: VS_OK if so, else a usage error. */
vs_status na_host_choice_check(const na_host_choice *choice, na_outcome *out);

/* ---- commands: each returns VS_OK (out->verdict says what its checks
 * found) or a failure with out->err filled, for main.c to print ---- */
vs_status cmd_about(int argc, char **argv, na_outcome *out);
vs_status cmd_ls(int argc, char **argv, na_outcome *out);
vs_status cmd_mount(int argc, char **argv, na_outcome *out);
vs_status cmd_unmount(int argc, char **argv, na_outcome *out);
vs_status cmd_verify(int argc, char **argv, na_outcome *out);
vs_status cmd_probe(int argc, char **argv, na_outcome *out);
vs_status cmd_migrate(int argc, char **argv, na_outcome *out);
vs_status cmd_profiles(int argc, char **argv, na_outcome *out);
vs_status cmd_bench(int argc, char **argv, na_outcome *out);
vs_status cmd_results(int argc, char **argv, na_outcome *out);
vs_status cmd_push(int argc, char **argv, na_outcome *out);
/* ---- cmd_push.c: the central database for the commands that record ---- */
/* Where results go after they are recorded: the flag's URL, else
 * NFSAGENT_CENTRAL's, else the campaign file's (each may be NULL): flags
 * and the environment come before a file, as for the connection. */
const char *na_central_url(const char *flag, const char *file);
vs_status cmd_report(int argc, char **argv, na_outcome *out);
vs_status cmd_run(int argc, char **argv, na_outcome *out);
vs_status cmd_compare(int argc, char **argv, na_outcome *out);
vs_status cmd_regress(int argc, char **argv, na_outcome *out);
vs_status cmd_nas(int argc, char **argv, na_outcome *out);
/* nas create | nas destroy (argv[0] the subcommand): cmd_nas_dataset.c */
vs_status cmd_nas_dataset(int argc, char **argv, na_outcome *out);
/* --recheck SECONDS (verify, probe): the delay, or -1 with a usage error in out. */
int na_parse_recheck(const char *arg, na_outcome *out);

#endif
