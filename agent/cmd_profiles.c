/* nfsagent profiles: the built-in fio workloads, one a line. */
#include <stdio.h>

#include "agent.h"
#include "profiles.h"

static const char usage[] =
	"Usage: nfsagent profiles [--json]\n"
	"Lists the built-in fio profiles: the name first, then its parameters.\n";

int cmd_profiles(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, NA_OPT_JSON}, {"help", no_argument, NULL, NA_OPT_HELP}, {0},
	};
	na_conn conn = {.cmd = "profiles"};
	int rc = na_parse_options(&conn, argc, argv, longopts, usage, NULL, NULL);
	if (rc < 0 && optind < argc)
		rc = na_usage_error("profiles", "unexpected argument '%s'", argv[optind]);
	bool json = conn.json;
	na_conn_close(&conn, NULL);
	if (rc >= 0)
		return rc;
	json_t *all = json_array();
	for (size_t i = 0; i < na_n_profiles; i++) {
		const na_profile *p = &na_profiles[i];
		char line[256];
		if (!json)
			printf("%s\n", na_profile_line(p, line, sizeof(line)));
		json_array_append_new(all, json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:s, s:b, s:i}",
		                                     "name", p->name, "summary", p->summary, "rw", p->rw,
		                                     "bs", p->bs, "iodepth", p->iodepth, "numjobs",
		                                     p->numjobs, "rwmixread", p->rwmixread, "ioengine",
		                                     p->ioengine, "direct", p->direct, "nrfiles", p->nrfiles));
	}
	if (json)
		na_json_print(all);
	else
		json_decref(all);
	return NA_EXIT_OK;
}
