/* nfsagent report: the selected results as one self-contained HTML page. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "output.h"
#include "analysis/report.h"
#include "store/store.h"

static const char usage[] =
	"Usage: nfsagent report --html FILE [--where KEY=VALUE ...]\n"
	"                       [--group-by FIELD ...] [--db FILE|URL]\n"
	"Writes one self-contained HTML page (mode 0600, opens offline) comparing the\n"
	"selected results: each group's provenance, per profile a table and charts of\n"
	"median IOPS, throughput and latency with their spread, and the probe verdicts\n"
	"and failed moves. KEY and FIELD are provenance fields (protocol, datastore,\n"
	"host, esxi_build, vm, profile, ...) or your labels (recordsize). By default\n"
	"results are grouped by the protocol and the labels that vary, else by\n"
	"datastore.\n"
	"Examples:\n"
	"  nfsagent report --html report.html --group-by recordsize --group-by host\n"
	"  nfsagent report --html r.html --where campaign=nfs3-vs-nfs41-20261130T101500\n";

enum { OPT_HTML = NA_OPT_FIRST_COMMAND_OPTION, OPT_WHERE, OPT_GROUP_BY, OPT_DB };
enum { MAX_WHERE = 32, MAX_GROUP_BY = 8 };

typedef struct report_args {
	const char *html, *db;
	const char *where[MAX_WHERE], *group_by[MAX_GROUP_BY];
	size_t n_where, n_group_by;
} report_args;

/* A temporary file beside path, so that the page appears whole or not at
 * all; mkstemp creates it mode 0600. */
static int open_temp(const char *path, char **tmp, FILE **out, vs_error *err)
{
	size_t len = strlen(path) + sizeof(".XXXXXX");
	*tmp = malloc(len);
	if (!*tmp)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	snprintf(*tmp, len, "%s.XXXXXX", path);
	int fd = mkstemp(*tmp);
	if (fd < 0) {
		int rc = vs_fail(err, VS_ERR_FAULT, "cannot create %s: %s", path, strerror(errno));
		free(*tmp);
		*tmp = NULL;
		return rc;
	}
	if (!(*out = fdopen(fd, "w"))) {
		close(fd);
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	return VS_OK;
}

static int finish_file(const char *path, char *tmp, FILE *out, int rc, vs_error *err)
{
	bool failed = out && (ferror(out) != 0);
	if (out && fclose(out) != 0)
		failed = true;
	if (rc == VS_OK && failed)
		rc = vs_fail(err, VS_ERR_FAULT, "cannot write %s: %s", path, strerror(errno));
	if (rc == VS_OK && rename(tmp, path) != 0)
		rc = vs_fail(err, VS_ERR_FAULT, "cannot create %s: %s", path, strerror(errno));
	if (rc != VS_OK && tmp)
		unlink(tmp);
	free(tmp);
	return rc;
}

static vs_status write_report(const report_args *a, na_outcome *out)
{
	char now[32];
	time_t t = time(NULL);
	struct tm tm;
	strftime(now, sizeof(now), "%Y-%m-%d %H:%M UTC", gmtime_r(&t, &tm));
	na_report_opts o = {a->where, a->n_where, a->group_by, a->n_group_by, now};
	na_report_counts counts = {0};
	na_store *store = NULL;
	vs_error *err = &out->err;
	char *tmp = NULL;
	FILE *html = NULL;
	vs_status rc = na_store_open_readonly(a->db, &store, err);
	if (rc == VS_OK)
		rc = open_temp(a->html, &tmp, &html, err);
	if (rc == VS_OK)
		rc = na_report_html(store, &o, html, &counts, err);
	if (tmp)
		rc = finish_file(a->html, tmp, html, rc, err);
	vs_error why = {0};
	if (rc == VS_OK && !counts.results)
		na_store_explain_none(store, a->where, a->n_where, &why);
	na_store_close(&store);
	if (rc != VS_OK)
		return rc;
	if (!counts.results)
		na_warn("%s; %s holds only the findings", why.message, a->html);
	printf("%s: %zu run%s (%zu failed) in %zu group%s, %zu profile%s, %zu finding%s\n", a->html,
	       counts.results, na_s(counts.results), counts.failed, counts.groups, na_s(counts.groups),
	       counts.profiles, na_s(counts.profiles), counts.findings, na_s(counts.findings));
	return VS_OK;
}

static int on_option(int opt, const char *arg, void *ud, na_outcome *out)
{
	report_args *a = ud;
	switch (opt) {
	case OPT_HTML:
		if (!arg[0]) {
			na_usage_error(out, "--html wants a file name");
			return -1;
		}
		a->html = arg;
		return 1;
	case OPT_DB: a->db = arg; return 1;
	case OPT_WHERE:
		if (!strchr(arg, '=') || arg[0] == '=' || a->n_where == MAX_WHERE) {
			na_usage_error(out, "--where wants KEY=VALUE, not '%s'", arg);
			return -1;
		}
		a->where[a->n_where++] = arg;
		return 1;
	case OPT_GROUP_BY:
		if (!arg[0] || strchr(arg, '=') || a->n_group_by == MAX_GROUP_BY) {
			na_usage_error(out, "--group-by wants a field or label key, not '%s'", arg);
			return -1;
		}
		a->group_by[a->n_group_by++] = arg;
		return 1;
	default: return 0;
	}
}

vs_status cmd_report(int argc, char **argv, na_outcome *out)
{
	static const struct option longopts[] = {
		{"html", required_argument, NULL, OPT_HTML},
		{"where", required_argument, NULL, OPT_WHERE},
		{"group-by", required_argument, NULL, OPT_GROUP_BY},
		{"db", required_argument, NULL, OPT_DB},
		{"help", no_argument, NULL, NA_OPT_HELP},
		{0},
	};
	report_args a = {0};
	int go = na_parse_local_options(argc, argv, longopts, usage, on_option, &a, NULL, out);
	if (go <= 0)
		return go < 0 ? out->err.status : VS_OK;
	if (!a.html)
		return na_usage_error(out, "give --html FILE");
	return write_report(&a, out);
}
