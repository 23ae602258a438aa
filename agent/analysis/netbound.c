#include "analysis/netbound.h"

#include <stdio.h>

/* "1.13 GB/s", "940 MB/s": as the link's speed is read, decimal. */
static void rate(char *buf, size_t size, double bytes_per_s)
{
	if (bytes_per_s >= 1e9)
		snprintf(buf, size, "%.2f GB/s", bytes_per_s / 1e9);
	else
		snprintf(buf, size, "%.0f MB/s", bytes_per_s / 1e6);
}

/* "10 Gb/s", "2.5 Gb/s", "100 Mb/s" */
static void speed(char *buf, size_t size, int64_t mb)
{
	if (mb >= 1000)
		snprintf(buf, size, "%g Gb/s", (double)mb / 1000);
	else
		snprintf(buf, size, "%lld Mb/s", (long long)mb);
}

bool na_network_bound(const char *host, const vs_host_link *link, double bytes_per_s, char *line,
                      size_t size)
{
	double ceiling = (double)link->speed_mb * 1e6 / 8;
	if (link->speed_mb <= 0 || bytes_per_s < NA_NETWORK_BOUND_SHARE * ceiling)
		return false;
	char r[32], s[32];
	rate(r, sizeof(r), bytes_per_s);
	speed(s, sizeof(s), link->speed_mb);
	/* More than one link carries: it spread over several uplinks (NFS 4.1
	 * trunking, nConnect over a team), or part never crossed (a cache). */
	bool past = bytes_per_s > NA_NETWORK_PAST_SHARE * ceiling;
	snprintf(line, size, "network-bound: %s through %s's %s link (%s)%s", r, host, s, link->pnic,
	         past ? ", more than it carries: several links, or a cache" : "");
	return true;
}
