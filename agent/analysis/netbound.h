/* The network ceiling: a datastore's throughput through one host that
 * reaches the host's link to the NFS server is the network's figure, not
 * the storage's (docs/network-ceiling.md). */
#ifndef NFSAGENT_NETBOUND_H
#define NFSAGENT_NETBOUND_H

#include <stdbool.h>
#include <stddef.h>

#include "nfsagent/vsphere.h"

/* Of the link's speed: TCP, NFS and Ethernet framing leave about 94% of it
 * for data, so a run at 90% has no room left. */
#define NA_NETWORK_BOUND_SHARE 0.9
/* Above this share a link cannot have carried it all. */
#define NA_NETWORK_PAST_SHARE 1.05

/* Whether bytes_per_s in one direction through host reaches
 * NA_NETWORK_BOUND_SHARE of its link (a full-duplex link carries its speed
 * each way: reads and writes are each held against it).  If so, line
 * says "network-bound: 1.13 GB/s through DC0_H0's 10 Gb/s link (vmnic0)",
 * adding why when it is more than the link carries.
 * An unknown link (speed_mb 0) is never bound. */
bool na_network_bound(const char *host, const vs_host_link *link, double bytes_per_s, char *line,
                      size_t size);

#endif
