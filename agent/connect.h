/* connect.c: the connection to vSphere that a command or a campaign opens
 * (the flags that fill it are the command line's: cmd/cmd.h). */
#ifndef NFSAGENT_CONNECT_H
#define NFSAGENT_CONNECT_H

#include <stdbool.h>
#include <stdio.h>

#include "nfsagent/vsphere.h"

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
