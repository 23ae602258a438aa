/* nfsagent profiles: the built-in fio workloads, one a line. */
#include <stdio.h>

#include "cmd/cmd.h"
#include "output.h"
#include "profiles.h"

/* bench's and a campaign's default --size: what the footprints assume. */
#define DEFAULT_SIZE "8G"

static const char usage[] =
	"Usage: nfsagent profiles [--json]\n"
	"Lists the built-in fio profiles: the name first, then its parameters and the\n"
	"space it takes on the datastore at bench's default --size 8G; below it, where\n"
	"it comes from and what it writes.\n"
	"Examples:\n"
	"  nfsagent profiles\n"
	"  nfsagent profiles --json\n";

vs_status cmd_profiles(int argc, char **argv, na_outcome *out)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, NA_OPT_JSON}, {"help", no_argument, NULL, NA_OPT_HELP}, {0},
	};
	bool json = false;
	int go = na_parse_local_options(argc, argv, longopts, usage, NULL, NULL, &json, out);
	if (go <= 0)
		return go < 0 ? out->err.status : VS_OK;
	json_t *all = json_array();
	for (size_t i = 0; i < na_n_profiles; i++) {
		const na_profile *p = &na_profiles[i];
		char line[256], footprint[32];
		int64_t bytes = na_profile_footprint(p, DEFAULT_SIZE);
		if (!json)
			printf("%s  footprint %s\n    %s\n", na_profile_line(p, line, sizeof(line)),
			       na_size(bytes, footprint, sizeof(footprint)), p->summary);
		json_array_append_new(all, json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:s, s:b, s:i, "
		                                     "s:b, s:I}",
		                                     "name", p->name, "summary", p->summary, "rw", p->rw,
		                                     "bs", p->bs, "iodepth", p->iodepth, "numjobs",
		                                     p->numjobs, "rwmixread", p->rwmixread, "ioengine",
		                                     p->ioengine, "direct", p->direct, "nrfiles", p->nrfiles,
		                                     "zeros", na_profile_zeros(p), "footprint_bytes",
		                                     (json_int_t)bytes));
	}
	if (json)
		na_json_print(all);
	else
		json_decref(all);
	return VS_OK;
}
