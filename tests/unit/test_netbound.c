/* The network ceiling: which uplink a host reaches the NFS server through,
 * as its config.network says, and when a figure is the link's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <libxml/parser.h>

#include "analysis/netbound.h"
#include "internal.h"

/* Two standard switches and a distributed one: vmk0 (management, default
 * route) on vSwitch0 over a 1 Gb/s vmnic0; vmk1 on 10.0.0.0/24 on vSwitch1
 * over vmnic1 (10 Gb/s) and vmnic2 (down); vmk2 on 10.0.1.0/24 on a
 * distributed switch over vmnic3 (25 Gb/s). */
static const char network[] =
	"<val>"
	"<vswitch><name>vSwitch0</name><pnic>key-vmnic0</pnic></vswitch>"
	"<vswitch><name>vSwitch1</name><pnic>key-vmnic1</pnic><pnic>key-vmnic2</pnic></vswitch>"
	"<proxySwitch><dvsUuid>50 1a</dvsUuid><pnic>key-vmnic3</pnic></proxySwitch>"
	"<portgroup><spec><name>Management Network</name><vswitchName>vSwitch0</vswitchName></spec></portgroup>"
	"<portgroup><spec><name>NFS</name><vswitchName>vSwitch1</vswitchName></spec></portgroup>"
	"<pnic><key>key-vmnic0</key><device>vmnic0</device><linkSpeed><speedMb>1000</speedMb></linkSpeed></pnic>"
	"<pnic><key>key-vmnic1</key><device>vmnic1</device><linkSpeed><speedMb>10000</speedMb></linkSpeed></pnic>"
	"<pnic><key>key-vmnic2</key><device>vmnic2</device></pnic>"
	"<pnic><key>key-vmnic3</key><device>vmnic3</device><linkSpeed><speedMb>25000</speedMb></linkSpeed></pnic>"
	"<vnic><device>vmk1</device><portgroup>NFS</portgroup><spec><ip><ipAddress>10.0.0.21</ipAddress>"
	"<subnetMask>255.255.255.0</subnetMask></ip></spec></vnic>"
	"<vnic><device>vmk0</device><portgroup>Management Network</portgroup><spec><ip>"
	"<ipAddress>192.168.1.21</ipAddress><subnetMask>255.255.255.0</subnetMask></ip></spec></vnic>"
	"<vnic><device>vmk2</device><portgroup></portgroup><spec><ip><ipAddress>10.0.1.21</ipAddress>"
	"<subnetMask>255.255.255.0</subnetMask></ip><distributedVirtualPort><switchUuid>50 1a</switchUuid>"
	"</distributedVirtualPort></spec></vnic>"
	"<ipRouteConfig><gatewayDevice>vmk0</gatewayDevice></ipRouteConfig>"
	"</val>";

static void link_to(const char *server, vs_host_link *l)
{
	xmlDoc *doc = xmlReadMemory(network, (int)strlen(network), "n.xml", NULL, XML_PARSE_NONET);
	assert_non_null(doc);
	vs_host_link_read(xmlDocGetRootElement(doc), server, l);
	xmlFreeDoc(doc);
}

static void the_server_subnets_port_and_its_fastest_uplink(void **state)
{
	(void)state;
	vs_host_link l;
	link_to("10.0.0.5", &l);  /* vmk1's subnet: vmnic1, vmnic2's link is down */
	assert_int_equal(l.speed_mb, 10000);
	assert_string_equal(l.pnic, "vmnic1");
	assert_string_equal(l.vmk, "vmk1");
	assert_string_equal(l.ip, "10.0.0.21");  /* what a share is limited to */
	assert_true(l.by_subnet);
	link_to("10.0.1.9", &l);  /* on the distributed switch */
	assert_int_equal(l.speed_mb, 25000);
	assert_string_equal(l.pnic, "vmnic3");
	link_to("172.16.0.9", &l);  /* routed: the default route's vmk0 */
	assert_int_equal(l.speed_mb, 1000);
	assert_string_equal(l.vmk, "vmk0");
	assert_false(l.by_subnet);
	link_to("truenas.lab", &l);  /* a name: the default route too */
	assert_string_equal(l.vmk, "vmk0");
	vs_host_link_read(NULL, "10.0.0.5", &l);  /* vSphere said nothing */
	assert_int_equal(l.speed_mb, 0);
}

static void a_figure_near_the_link_is_the_links(void **state)
{
	(void)state;
	vs_host_link ten = {.speed_mb = 10000, .pnic = "vmnic1"}, unknown = {0};
	char line[256] = "";
	/* 10 Gb/s = 1.25 GB/s: 1.13 GB/s is 90.4% of it */
	assert_true(na_network_bound("esx01", &ten, 1.13e9, line, sizeof(line)));
	assert_string_equal(line, "network-bound: 1.13 GB/s through esx01's 10 Gb/s link (vmnic1)");
	assert_false(na_network_bound("esx01", &ten, 1.1e9, line, sizeof(line)));  /* 88% */
	assert_true(na_network_bound("esx01", &ten, 1.4e9, line, sizeof(line)));
	assert_string_equal(line, "network-bound: 1.40 GB/s through esx01's 10 Gb/s link (vmnic1), "
	                          "more than it carries: several links, or a cache");
	assert_false(na_network_bound("esx01", &unknown, 5e9, line, sizeof(line)));
	vs_host_link slow = {.speed_mb = 100, .pnic = "vmnic0"};
	assert_true(na_network_bound("esx02", &slow, 11.5e6, line, sizeof(line)));
	assert_string_equal(line, "network-bound: 12 MB/s through esx02's 100 Mb/s link (vmnic0)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_server_subnets_port_and_its_fastest_uplink),
		cmocka_unit_test(a_figure_near_the_link_is_the_links),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
