/* Connects test tools the way the integration scripts set up nfsagent:
 * NFSAGENT_URL, NFSAGENT_USERNAME, NFSAGENT_PASSWORD, NFSAGENT_THUMBPRINT. */
#ifndef NFSAGENT_TESTS_ENV_CONNECT_H
#define NFSAGENT_TESTS_ENV_CONNECT_H

#include <stdio.h>
#include <stdlib.h>

#include "nfsagent/vsphere.h"

static inline int env_connect(vs_client **c, vs_error *err)
{
	vs_options opts = {
		.url = getenv("NFSAGENT_URL"),
		.username = getenv("NFSAGENT_USERNAME"),
		.password = getenv("NFSAGENT_PASSWORD"),
		.thumbprint = getenv("NFSAGENT_THUMBPRINT"),
	};
	return vs_connect(&opts, c, err);
}

static inline void print_error(const char *tool, const vs_error *err)
{
	char line[1600];
	vs_error_format(err, line, sizeof(line));
	fprintf(stderr, "%s: %s\n", tool, line);
}

#endif
