/* The ESXi NFS client's settings recorded with each result. */
#include <stdio.h>
#include <string.h>

#include "ops/bench.h"
#include "ops/nfs_client.h"

/* The settings that shape an NFS datastore's throughput: the outstanding
 * I/Os per datastore, the mounts allowed, the socket buffers, the TCP
 * connections (per server address; per datastore, nConnect's cap) and NFS
 * 4.1's largest read and write.  Sorted, as the host's list is. */
static const char *const shaping[] = {
	"NFS.MaxConnectionsPerDatastore", "NFS.MaxQueueDepth", "NFS.MaxVolumes",
	"NFS.ReceiveBufferSize",          "NFS.SendBufferSize", "NFS41.MaxNConnectConns",
	"NFS41.MaxRead",                  "NFS41.MaxWrite",     "SunRPC.MaxConnPerIP",
};

static bool shapes(const char *key)
{
	for (size_t i = 0; i < sizeof(shaping) / sizeof(shaping[0]); i++)
		if (strcmp(shaping[i], key) == 0)
			return true;
	return false;
}

/* Appends " word" (no space first) to out when it fits whole. */
static void add_word(char *out, size_t size, size_t *len, const char *word)
{
	size_t need = strlen(word) + (*len ? 1 : 0);
	if (*len + need >= size)
		return;
	*len += (size_t)snprintf(out + *len, size - *len, "%s%s", *len ? " " : "", word);
}

void na_nfs_client_text(const vs_option *v, size_t n, int connections, char *out, size_t size)
{
	size_t len = 0;
	char word[NA_NFS_CLIENT_MAX];
	if (size)
		out[0] = '\0';
	for (size_t i = 0; size && i < n; i++)
		if (v[i].key && v[i].value && shapes(v[i].key)) {
			snprintf(word, sizeof(word), "%s=%s", v[i].key, v[i].value);
			add_word(out, size, &len, word);
		}
	if (size && connections > 0) {
		snprintf(word, sizeof(word), "nconnect=%d", connections);
		add_word(out, size, &len, word);
	}
}

int na_nfs_connections(const vs_datastore *ds, const char *host)
{
	for (size_t i = 0; ds && host && i < ds->n_mounts; i++)
		if (ds->mounts[i].host && strcmp(ds->mounts[i].host, host) == 0)
			return ds->mounts[i].tcp_connections;
	return 0;
}

void na_bench_read_client(na_bench *b)
{
	const vs_option *v = NULL;
	size_t n = 0;
	vs_error ignored = {0};
	if (vs_host_nfs_options(b->s->client, b->host, &v, &n, &ignored) != VS_OK)
		n = 0;
	na_nfs_client_text(v, n, na_nfs_connections(b->ds, b->host->moref), b->nfs_client,
	                   sizeof(b->nfs_client));
}
