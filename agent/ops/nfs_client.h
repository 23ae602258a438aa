/* The ESXi NFS client's settings as a result's provenance (the nfs_client
 * field, docs/bench-and-results.md): those of the host's advanced options
 * that shape throughput, and the datastore's TCP connections (nConnect)
 * where vSphere reports them. */
#ifndef NFSAGENT_OPS_NFS_CLIENT_H
#define NFSAGENT_OPS_NFS_CLIENT_H

#include <stddef.h>

#include "nfsagent/vsphere.h"

/* Room for the field's text. */
enum { NA_NFS_CLIENT_MAX = 512 };

/* The field's text into out: "KEY=VALUE" of each option of v (sorted by
 * key, as vs_host_nfs_options gives them) that shapes throughput, then
 * "nconnect=N" when connections > 0, separated by one space.  A key the
 * host lacks, or sent without a value, is left out; "" when nothing is
 * known.  What does not fit is left out whole, never cut. */
void na_nfs_client_text(const vs_option *v, size_t n, int connections, char *out, size_t size);

/* The datastore's TCP connections from host (its mount's
 * numTcpConnections), 0 when vSphere does not say. */
int na_nfs_connections(const vs_datastore *ds, const char *host);

#endif
