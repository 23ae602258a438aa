/* The link an ESXi host reaches an NFS server through, as vSphere says it:
 * the vmkernel port on the server's subnet (else the one with the default
 * route), its switch's uplinks, and their negotiated speeds.  One TCP flow
 * uses one uplink, so the usable speed is the fastest uplink's. */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static bool text_is(const xmlNode *node, const char *path, const char *want)
{
	char *t = vs_xml_path_text(node, path);
	bool same = t && want && strcmp(t, want) == 0;
	free(t);
	return same;
}

/* Whether vnic's IPv4 subnet holds the server's address. */
static bool on_subnet(const xmlNode *vnic, const struct in_addr *server)
{
	char *ip = vs_xml_path_text(vnic, "spec/ip/ipAddress");
	char *mask = vs_xml_path_text(vnic, "spec/ip/subnetMask");
	struct in_addr a, m;
	bool on = ip && mask && inet_pton(AF_INET, ip, &a) == 1 && inet_pton(AF_INET, mask, &m) == 1 &&
	          m.s_addr != 0 && (a.s_addr & m.s_addr) == (server->s_addr & m.s_addr);
	free(ip);
	free(mask);
	return on;
}

/* The vmkernel port NFS traffic to server leaves by: the one on its subnet,
 * else the default route's device, else the first on the default stack. */
static const xmlNode *nfs_vnic(const xmlNode *net, const char *server, bool *by_subnet)
{
	struct in_addr addr;
	bool literal = server && inet_pton(AF_INET, server, &addr) == 1;
	*by_subnet = false;
	for (const xmlNode *v = vs_xml_child(net, "vnic"); literal && v; v = vs_xml_next(v))
		if (on_subnet(v, &addr))
			return *by_subnet = true, v;
	char *gw = vs_xml_path_text(net, "ipRouteConfig/gatewayDevice");
	const xmlNode *first = NULL, *found = NULL;
	for (const xmlNode *v = vs_xml_child(net, "vnic"); v && !found; v = vs_xml_next(v)) {
		char *stack = vs_xml_path_text(v, "spec/netStackInstanceKey");
		bool default_stack = !stack || strcmp(stack, "defaultTcpipStack") == 0;
		free(stack);
		if (gw && text_is(v, "device", gw))
			found = v;
		else if (default_stack && !first)
			first = v;
	}
	free(gw);
	return found ? found : first;
}

/* Whether key is one of the pnic keys listed under parent's children named name. */
static bool lists(const xmlNode *parent, const char *name, const char *key)
{
	for (const xmlNode *p = vs_xml_child(parent, name); p; p = vs_xml_next(p)) {
		char *t = vs_xml_text(p);
		bool same = t && strcmp(t, key) == 0;
		free(t);
		if (same)
			return true;
	}
	return false;
}

/* The switch vnic is on: a standard vSwitch through its port group's
 * name, or a distributed switch's host proxy through the port's switch. */
static const xmlNode *uplink_switch(const xmlNode *net, const xmlNode *vnic)
{
	char *dvs = vs_xml_path_text(vnic, "spec/distributedVirtualPort/switchUuid");
	char *pg = vs_xml_path_text(vnic, "portgroup");
	const xmlNode *sw = NULL;
	for (const xmlNode *p = vs_xml_child(net, "proxySwitch"); dvs && p && !sw; p = vs_xml_next(p))
		if (text_is(p, "dvsUuid", dvs))
			sw = p;
	char *vswitch = NULL;
	for (const xmlNode *p = vs_xml_child(net, "portgroup"); !dvs && pg && p && !vswitch;
	     p = vs_xml_next(p))
		if (text_is(p, "spec/name", pg))
			vswitch = vs_xml_path_text(p, "spec/vswitchName");
	for (const xmlNode *s = vs_xml_child(net, "vswitch"); vswitch && s && !sw; s = vs_xml_next(s))
		if (text_is(s, "name", vswitch))
			sw = s;
	free(dvs);
	free(pg);
	free(vswitch);
	return sw;
}

void vs_host_link_read(const xmlNode *net, const char *server, vs_host_link *out)
{
	*out = (vs_host_link){0};
	const xmlNode *vnic = net ? nfs_vnic(net, server, &out->by_subnet) : NULL;
	const xmlNode *sw = vnic ? uplink_switch(net, vnic) : NULL;
	if (!sw)
		return;
	char *vmk = vs_xml_path_text(vnic, "device"), *ip = vs_xml_path_text(vnic, "spec/ip/ipAddress");
	snprintf(out->vmk, sizeof(out->vmk), "%s", vmk ? vmk : "");
	snprintf(out->ip, sizeof(out->ip), "%s", ip ? ip : "");
	free(vmk);
	free(ip);
	for (const xmlNode *p = vs_xml_child(net, "pnic"); p; p = vs_xml_next(p)) {
		char *key = vs_xml_path_text(p, "key");
		/* no linkSpeed: the link is down */
		int64_t mb = key && lists(sw, "pnic", key) ? vs_xml_path_int(p, "linkSpeed/speedMb", 0) : 0;
		char *dev = mb > out->speed_mb ? vs_xml_path_text(p, "device") : NULL;
		if (dev) {
			out->speed_mb = mb;
			snprintf(out->pnic, sizeof(out->pnic), "%s", dev);
		}
		free(dev);
		free(key);
	}
}

typedef struct link_ask {
	const char *const *hosts;
	const char *const *servers;
	size_t n;
	vs_host_link *out;
} link_ask;

static int read_network(const char *type, const char *moref, const xmlNode *object, void *ud,
                        vs_error *err)
{
	(void)type, (void)err;
	link_ask *ask = ud;
	for (size_t i = 0; i < ask->n; i++)
		if (strcmp(ask->hosts[i], moref) == 0)
			vs_host_link_read(vs_prop(object, "config.network"), ask->servers[i], &ask->out[i]);
	return VS_OK;
}

int vs_hosts_link_to(vs_client *c, const char *const *hosts, const char *const *servers, size_t n,
                     vs_host_link *out, vs_error *err)
{
	static const char *const paths[] = {"config.network", NULL};
	for (size_t i = 0; i < n; i++)
		out[i] = (vs_host_link){0};
	link_ask ask = {hosts, servers, n, out};
	return vs_props_many(c, "HostSystem", hosts, n, paths, read_network, &ask, err);
}
