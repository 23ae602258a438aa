/* What a campaign leaves on its targets' datastores: the scratch folders
 * of probes a kill stopped (removed on resume), and the copies failed
 * Storage vMotions left (listed, never deleted: nfsagent did not make them
 * by name, and one may be the only whole copy of a disk). */
#ifndef NFSAGENT_CAMPAIGN_LEFTOVERS_H
#define NFSAGENT_CAMPAIGN_LEFTOVERS_H

#include "ops/session.h"

/* Removes the folders on d that a probe run by process pid made
 * ("nfsagent-probe-TIME-PID"), saying each; *removed counts them. */
int na_probe_folders_remove(const na_session *s, const vs_datastore *d, long pid, size_t *removed,
                            vs_error *err);

typedef struct na_leftovers {
	char **paths;   /* "[ds] folder/file (server:/export/folder/file)" */
	size_t n;
} na_leftovers;

/* Adds the files in d's folders named for the VM's folder (vm_folder,
 * vm_folder_1, ...: where vCenter puts a move's copies) to l (those it
 * lists already once), but not a folder that holds a VM of inv (that VM's
 * home). */
int na_move_leftovers(vs_client *c, const na_inventory *inv, const vs_datastore *d,
                      const char *vm_folder, na_leftovers *l, vs_error *err);
/* Adds from's copies to into, each once (VS_OK, or out of memory). */
int na_leftovers_add(na_leftovers *into, const na_leftovers *from);
/* "Left on the targets by failed moves (not deleted): ..." when l has any. */
void na_leftovers_say(const na_session *s, const na_leftovers *l);
void na_leftovers_free(na_leftovers *l);

#endif
