/* The mount workflow: an NFS export as a datastore on hosts, all or nothing. */
#ifndef NFSAGENT_OPS_MOUNT_H
#define NFSAGENT_OPS_MOUNT_H

#include "ops/session.h"

/* The most NFS connections (nConnect) ESXi takes for a datastore, raised
 * from its default 4 (mount --connections, a target's connections =). */
enum { NA_MAX_CONNECTIONS = 8 };

typedef struct na_mount_args {
	na_host_choice choice;
	/* Instead of choice, these hosts (pointers into the session's
	 * inventory), each read-only or not as read_only[i] says (NULL:
	 * spec.read_only for all). */
	vs_host *const *hosts;
	const bool *read_only;
	size_t n_hosts;
	vs_nas_spec spec;
	char *server_list;  /* "a,b" as given; spec.servers points into it */
	const char *nfs;    /* "3" or "4.1" */
	const char *connections;  /* "1" to "8" as given, NULL: ESXi's one (na_mount_check reads it) */
} na_mount_args;

/* cmd_mount.c: the command line's shape of a mount (NFS version, servers,
 * path): VS_OK when it is right, else VS_ERR_USAGE with err saying why. */
vs_status na_mount_check(na_mount_args *a, vs_error *err);
/* Splits "a,b" in place into a NULL-terminated array (free the array only). */
char **na_split_servers(char *list, size_t *n);

typedef enum na_mount_outcome {
	NA_MOUNT_NOT_TRIED,    /* a host before it failed: nothing done here */
	NA_MOUNT_PRESENT,      /* it had the datastore already (not ours to undo) */
	NA_MOUNT_MOUNTED,      /* mounted by this op (and, after a failure, left: undo failed) */
	NA_MOUNT_FAILED,       /* its mount failed */
	NA_MOUNT_ROLLED_BACK,  /* mounted by this op, unmounted again after another host failed */
} na_mount_outcome;

typedef struct na_mount_host {
	const vs_host *host;
	na_mount_outcome outcome;
	char *datastore;  /* the datastore's moref where mounted by this op and left */
	vs_error err;     /* FAILED: why; MOUNTED after a failure: why it could not be undone */
} na_mount_host;

typedef struct na_mount_result {
	na_mount_host *hosts;
	size_t n_hosts, mounted, present, rolled_back;
} na_mount_result;

/* Mounts a->spec on the chosen hosts that lack it.  An export another
 * datastore name holds, or that any host mounts with the other protocol,
 * is refused before anything changes.  All or nothing: at the first host
 * that fails, the hosts this op mounted are unmounted again; err then is
 * that host's fault.  out tells each host's outcome either way. */
int na_op_mount(na_session *s, const na_mount_args *a, na_mount_result *out, vs_error *err);
void na_mount_result_free(na_mount_result *r);
/* "a,b": every server of spec, into buf. */
const char *na_servers_text(const vs_nas_spec *spec, char *buf, size_t size);
/* "mounted", "already mounted", "failed", "rolled back", "not tried". */
const char *na_mount_outcome_name(na_mount_outcome o);

#endif
