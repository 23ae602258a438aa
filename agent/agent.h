/* Shared pieces of the nfsagent CLI. */
#ifndef NFSAGENT_AGENT_H
#define NFSAGENT_AGENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "nfsagent/vsphere.h"
#include "interrupts.h"
#include "output.h"
#include "profiles.h"

/* ---- connect.c: the connection a command or a campaign opens ---- */
typedef struct na_conn {
	char *url, *username, *password, *thumbprint, *cacert;
	const char *password_file, *trace_path;
	bool insecure, json;
	long timeout_s;
	int page_size;
	FILE *trace;
} na_conn;
/* The first line of a password file (warns when others may read it), or NULL
 * with err saying why. */
char *na_read_secret(const char *path, vs_error *err);
/* Fills the rest from the environment, asks for the password, connects. */
vs_status na_conn_open(na_conn *conn, vs_client **client, vs_error *err);
void na_conn_close(na_conn *conn, vs_client **client);


#endif
