/* SPDX-License-Identifier: BSD-3-Clause
 * Service addresses (docs/configuration.md#service-addresses): ports[].service in the
 * config (both forms, every error at FILE:LINE:COL, a listener naming one), the reload diff
 * (added and removed: hot; another port key beside it: restart), the plan's table, and the
 * classifier's second look (uf_svc_dst4, uf_classify_svc, uf_classify6_svc): a datagram,
 * an ARP request or an NS for a service address is taken, one for any other address is not,
 * and a checksum redirected to the listener's address is the one computed for it.
 */
#include <stdio.h>
#include <string.h>

#include <rte_arp.h>

#include "uf_config.h"
#include "uf_plan.h"
#include "uf_pkt.h"
#include "uf_ndp.h"
#include "uf_pkt6.h"
#include "uf_test.h"
#include "uf_test_cfg.h"

#define HEAD "ports:\n  - name: wan\n    device: net_ring0\n    ip: 10.0.0.10/24\n"
#define IP6 "    ip6: [\"2001:db8::10/64\"]\n"
#define LISTEN                                    \
	"listen: { port: wan, udp_port: 2055 }\n" \
	"destinations:\n  - { ip: 10.0.0.20, udp_port: 9000 }\n"

static void
test_parse(void)
{
	static const char text[] =
			HEAD IP6 "    service:\n"
				 "      - 192.0.2.100\n"
				 "      - { ip: 192.0.2.101, neighbor: answer }\n"
				 "      - { ip: \"2001:db8:f::100\", neighbor: silent }\n" LISTEN;
	struct uf_config *cfg = parse_ok(__FILE__, __LINE__, text);
	const struct uf_cfg_port *p;

	if (cfg == NULL)
		return;
	p = &cfg->ports[0];
	CHECK_EQ(p->n_svc, 3);
	CHECK(!p->svc[0].is_ip6 && p->svc[0].ip == ip_of("192.0.2.100") && !p->svc[0].answer,
	      "svc[0]");
	CHECK(!p->svc[1].is_ip6 && p->svc[1].ip == ip_of("192.0.2.101") && p->svc[1].answer,
	      "svc[1]");
	CHECK(p->svc[2].is_ip6 && !p->svc[2].answer, "svc[2]");
	CHECK_EQ(uf_config_port_svc(p, false, ip_of("192.0.2.101"), NULL), 1);
	CHECK_EQ(uf_config_port_svc(p, false, ip_of("10.0.0.10"), NULL), -1);
	{
		const struct uf_ip6 a = ip6_of("2001:db8:f::100");

		CHECK_EQ(uf_config_port_svc(p, true, 0, &a), 2);
	}
	uf_config_free(cfg);
}

static void
test_errors(void)
{
	EXPECT_ERR(HEAD "    service: [192.0.2.300]\n" LISTEN, "192.0.2.300", "ports[0].service[0]",
		   "is not an IPv4 address");
	EXPECT_ERR(HEAD "    service: [192.0.2.1/32]\n" LISTEN, "192.0.2.1/32",
		   "ports[0].service[0]", "no prefix");
	EXPECT_ERR(HEAD "    service: [224.0.0.5]\n" LISTEN, "224.0.0.5", "ports[0].service[0]",
		   "cannot be a service address");
	EXPECT_ERR(HEAD "    service: [255.255.255.255]\n" LISTEN, "255.255.255.255",
		   "ports[0].service[0]", "cannot be a service address");
	EXPECT_ERR(HEAD "    service: [127.0.0.1]\n" LISTEN, "127.0.0.1", "ports[0].service[0]",
		   "cannot be a service address");
	EXPECT_ERR(HEAD "    service: [0.0.0.0]\n" LISTEN, "0.0.0.0", "ports[0].service[0]",
		   "cannot be a service address");
	EXPECT_ERR_NTH(HEAD "    service: [192.0.2.1, 192.0.2.1]\n" LISTEN, "192.0.2.1,", 1, 11,
		       "ports[0].service[1]", "is also ports[0].service[0]");
	EXPECT_ERR(HEAD "    service: [{ ip: 192.0.2.1, neighbor: loud }]\n" LISTEN, "loud",
		   "ports[0].service[0].neighbor", "expected answer or silent");
	EXPECT_ERR(HEAD "    service: [{ ip: 192.0.2.1, mac: 02:00:00:00:00:01 }]\n" LISTEN, "mac",
		   "ports[0].service[0]", "unknown or repeated key \"mac\"");
	EXPECT_ERR(HEAD "    service: [{ neighbor: answer }]\n" LISTEN, "{ neighbor",
		   "ports[0].service[0]", "needs an ip");
	/* a family the port has; not a port's own address; on one port only */
	EXPECT_ERR(HEAD "    service: [\"2001:db8:f::1\"]\n" LISTEN, "\"2001:db8:f::1\"",
		   "ports[0].service[0]", "the port has no address of that family (ports[].ip6)");
	EXPECT_ERR(HEAD "    service: [10.0.0.10]\n" LISTEN, "10.0.0.10]", "ports[0].service[0]",
		   "is port wan's own address");
	EXPECT_ERR_NTH(HEAD "    service: [192.0.2.1]\n"
			    "  - { name: lan, device: net_ring1, ip: 10.1.0.10/24, service: "
			    "[192.0.2.1] }\n" LISTEN,
		       "192.0.2.1", 2, 0, "ports[1].service[0]",
		       "is also a service address of port wan");
	EXPECT_ERR(HEAD "    service: [10.1.0.10]\n"
			"  - { name: lan, device: net_ring1, ip: 10.1.0.10/24 }\n" LISTEN,
		   "10.1.0.10]", "ports[0].service[0]", "is port lan's own address");
	EXPECT_ERR(HEAD "    service: [1.1.1.1, 1.1.1.2, 1.1.1.3, 1.1.1.4, 1.1.1.5, 1.1.1.6, "
			"1.1.1.7, 1.1.1.8, 1.1.1.9]\n" LISTEN,
		   "[1.1.1.1", "ports[0].service", NULL);
}

/* a listener may name a service address of its port (not of another port) */
static void
test_listener_ip(void)
{
	static const char ok[] = HEAD "    service: [192.0.2.100]\n"
				      "listeners:\n"
				      "  - name: a\n    port: wan\n    udp_port: 2055\n"
				      "    ip: 192.0.2.100\n"
				      "    destinations: [{ ip: 10.0.0.20, udp_port: 9000 }]\n"
				      "  - name: b\n    port: wan\n    udp_port: 2055\n"
				      "    destinations: [{ ip: 10.0.0.21, udp_port: 9000 }]\n";
	struct uf_config *cfg = parse_ok(__FILE__, __LINE__, ok);

	if (cfg != NULL) {
		CHECK_EQ(cfg->listeners[0].ip, ip_of("192.0.2.100"));
		CHECK_EQ(cfg->listeners[1].ip, ip_of("10.0.0.10"));
		uf_config_free(cfg);
	}
	EXPECT_ERR(HEAD "listeners:\n"
			"  - name: a\n    port: wan\n    udp_port: 2055\n"
			"    ip: 192.0.2.100\n"
			"    destinations: [{ ip: 10.0.0.20, udp_port: 9000 }]\n",
		   "192.0.2.100", "listeners[0].ip",
		   "is not a unicast address on port wan's subnet");
}

static struct uf_cfg_diff d;

static int
diff(const char *a, const char *b)
{
	struct uf_err err;
	struct uf_config *x = parse(a, &err), *y = parse(b, &err);
	int n = -1;

	CHECK(x != NULL && y != NULL, "both parse: %s", err.msg);
	if (x != NULL && y != NULL)
		n = uf_config_diff(x, y, &d);
	uf_config_free(x);
	uf_config_free(y);
	return n;
}

/* added, changed, removed: hot; with another port key: that one needs a restart */
static void
test_diff(void)
{
	static const char none[] = HEAD IP6 LISTEN,
			  one[] = HEAD IP6 "    service: [192.0.2.100]\n" LISTEN,
			  ans[] = HEAD IP6
			  "    service: [{ ip: 192.0.2.100, neighbor: answer }]\n" LISTEN,
			  two[] = HEAD IP6 "    service: [192.0.2.100, \"2001:db8:f::1\"]\n" LISTEN,
			  mtu[] = HEAD IP6 "    mtu: 9000\n    service: [192.0.2.100]\n" LISTEN;

	CHECK_EQ(diff(none, one), 1);
	CHECK_EQ(d.n_restart, 0);
	CHECK_STR(d.hot, "ports[0].service");
	CHECK_EQ(diff(one, none), 1);
	CHECK_EQ(d.n_restart, 0);
	CHECK_STR(d.hot, "ports[0].service");
	CHECK_EQ(diff(one, ans), 1);
	CHECK_EQ(d.n_hot, 1);
	CHECK_EQ(diff(one, two), 1);
	CHECK_EQ(d.n_hot, 1);
	CHECK_EQ(diff(one, one), 0);
	CHECK_EQ(diff(none, mtu), 2);
	CHECK_EQ(d.n_restart, 1);
	CHECK_STR(d.restart, "ports[0].mtu");
	CHECK_STR(d.hot, "ports[0].service");
}

/* the plan's table: NULL without service addresses, each port's by family with */
static void
test_plan(void)
{
	static struct rte_ether_addr port_mac[1];
	static uint16_t port_mtu[1] = { 1500 };
	static bool port_chain[1] = { true };
	static struct rte_ether_addr dest_mac[UF_MAX_DESTS];
	static bool dest_res[UF_MAX_DESTS];
	const char *texts[2] = { HEAD IP6 LISTEN,
				 HEAD IP6 "    service: [192.0.2.100, \"2001:db8:f::1\", "
					  "192.0.2.101]\n" LISTEN };
	int t;

	for (t = 0; t < 2; t++) {
		struct uf_config *cfg = parse_ok(__FILE__, __LINE__, texts[t]);
		struct uf_plan_input in = {
			.cfg = cfg,
			.port_mac = port_mac,
			.port_mtu = port_mtu,
			.port_chain_ok = port_chain,
			.dest_mac = dest_mac,
			.dest_resolved = dest_res,
			.version = 1,
			.socket = -1,
		};
		struct uf_plan *plan;

		if (cfg == NULL)
			continue;
		plan = uf_plan_build(&in);
		CHECK(plan != NULL, "plan built");
		if (plan != NULL && t == 0)
			CHECK(plan->svc == NULL, "no table without service addresses");
		if (plan != NULL && t == 1) {
			const struct uf_ip6 a = ip6_of("2001:db8:f::1");

			CHECK(plan->svc != NULL, "a table");
			CHECK_EQ(plan->svc[0].n4, 2);
			CHECK_EQ(plan->svc[0].n6, 1);
			CHECK_EQ(uf_plan_svc4(plan, 0, ip_of("192.0.2.101")), 1);
			CHECK_EQ(uf_plan_svc4(plan, 0, ip_of("10.0.0.10")), -1);
			CHECK_MEM(plan->svc[0].ip6[0].b, a.b, 16);
		}
		uf_plan_free(plan);
		uf_config_free(cfg);
	}
}

/* ---- the classifier ---- */

static const struct rte_ether_addr our_mac = { { 0x02, 0, 0, 0, 0, 0x01 } };
static const struct rte_ether_addr peer_mac = { { 0x02, 0, 0, 0, 0, 0x02 } };

/* the ones-complement sum of n bytes (big-endian words) */
static uint32_t
sum_bytes(const uint8_t *p, size_t n, uint32_t s)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)(p[n - 1] << 8);
	return s;
}

static uint16_t
fold_not(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* the UDP checksum (wire order) of udp[0..ulen) between addresses of alen bytes */
static uint16_t
ref_ck(const uint8_t *src, const uint8_t *dst, int alen, const uint8_t *udp, int ulen)
{
	uint8_t u[2048];
	uint32_t s;
	uint16_t c;

	memcpy(u, udp, (size_t)ulen);
	u[6] = u[7] = 0;
	s = sum_bytes(src, (size_t)alen, 0);
	s = sum_bytes(dst, (size_t)alen, s);
	s += IPPROTO_UDP + (uint32_t)ulen;
	s = sum_bytes(u, (size_t)ulen, s);
	c = fold_not(s);
	if (c == 0)
		c = 0xffff;
	return rte_cpu_to_be_16(c);
}

static const uint8_t payload[] = "a datagram to a service address";

/* Ethernet/IPv4/UDP to dst:2055 from 198.51.100.7:40000; its length */
static uint32_t
udp4(uint8_t *f, rte_be32_t dst)
{
	const uint16_t ulen = (uint16_t)(8 + sizeof(payload));
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + 14);
	uint8_t *udp = f + 34;
	uint16_t ck;

	memset(f, 0, 128);
	memcpy(f, our_mac.addr_bytes, 6);
	memcpy(f + 6, peer_mac.addr_bytes, 6);
	f[12] = 0x08;
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + ulen));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = ip_of("198.51.100.7");
	ip->dst_addr = dst;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp[0] = 40000 >> 8;
	udp[1] = 40000 & 0xff;
	udp[2] = 2055 >> 8;
	udp[3] = 2055 & 0xff;
	udp[4] = (uint8_t)(ulen >> 8);
	udp[5] = (uint8_t)ulen;
	memcpy(udp + 8, payload, sizeof(payload));
	ck = ref_ck((const uint8_t *)&ip->src_addr, (const uint8_t *)&ip->dst_addr, 4, udp, ulen);
	memcpy(udp + 6, &ck, 2);
	return 34 + ulen;
}

static struct uf_port_id
port4(void)
{
	struct uf_port_id p;

	memset(&p, 0, sizeof(p));
	p.mac = our_mac;
	p.ip = ip_of("10.0.0.10");
	p.listen = true;
	p.listen_udp = rte_cpu_to_be_16(2055);
	p.max_len = uf_port_max_len(1500);
	return p;
}

static void
test_classify4(void)
{
	const struct uf_port_id p = port4();
	const rte_be32_t svc = ip_of("192.0.2.100"), other = ip_of("192.0.2.99");
	struct uf_rx_info info;
	enum uf_drop why = UF_DROP_MALFORMED;
	uint8_t f[128];
	uint32_t len;
	uint8_t want[128];
	uint16_t ck;

	/* to the service address: not_for_us the first time, a datagram the second */
	len = udp4(f, svc);
	CHECK_EQ(uf_classify_dp(f, len, 0, &p, &info, &why), UF_V_DROP);
	CHECK_EQ(why, UF_DROP_NOT_FOR_US);
	CHECK_EQ(uf_svc_dst4(f, len), svc);
	CHECK_EQ(uf_classify_svc(f, len, 0, &p, svc, &info, &why, false), UF_V_FORWARD);
	CHECK_EQ(info.payload_len, sizeof(payload));
	CHECK_EQ(uf_classify_svc(f, len, 0, &p, svc, &info, &why, true), UF_V_FORWARD);
	/* its checksum redirected to the port's address is the one computed for it */
	ck = uf_udp_ck_redirect4(info.udp_cksum, svc, p.ip);
	len = udp4(want, p.ip);
	CHECK_EQ(ck, *(const uint16_t *)(want + 40));
	CHECK_EQ(uf_udp_ck_redirect4(0, svc, p.ip), 0); /* none stays none */
	CHECK_EQ(uf_udp_ck_redirect4(0x1234, svc, svc), 0x1234);

	/* to another address: refused either way */
	len = udp4(f, other);
	CHECK_EQ(uf_classify_svc(f, len, 0, &p, svc, &info, &why, false), UF_V_DROP);
	CHECK_EQ(why, UF_DROP_NOT_FOR_US);
	/* the wrong UDP port stays not_for_us with the one listener (any_dst false) */
	len = udp4(f, svc);
	f[36] = 0x12;
	CHECK_EQ(uf_classify_svc(f, len, 0, &p, svc, &info, &why, false), UF_V_DROP);
	CHECK_EQ(why, UF_DROP_NOT_FOR_US);
}

/* an ARP request for the service address: for the control lcore the second time */
static void
test_arp4(void)
{
	const struct uf_port_id p = port4();
	const rte_be32_t svc = ip_of("192.0.2.100");
	struct uf_rx_info info;
	enum uf_drop why = UF_DROP_MALFORMED;
	uint8_t f[64];
	uint32_t len;

	len = uf_arp_build(f, RTE_ARP_OP_REQUEST,
			   &(struct rte_ether_addr){ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
			   &peer_mac, ip_of("10.0.0.1"), &(struct rte_ether_addr){ { 0 } }, svc);
	CHECK_EQ(uf_classify_dp(f, len, 0, &p, &info, &why), UF_V_DROP);
	CHECK_EQ(why, UF_DROP_NOT_FOR_US);
	CHECK_EQ(uf_svc_dst4(f, len), svc);
	CHECK_EQ(uf_classify_svc(f, len, 0, &p, svc, &info, &why, false), UF_V_CONTROL);
	/* a reply is not a request about it */
	len = uf_arp_build(f, RTE_ARP_OP_REPLY, &our_mac, &peer_mac, ip_of("10.0.0.1"), &our_mac,
			   svc);
	CHECK_EQ(uf_svc_dst4(f, len), 0);
}

/* Ethernet/IPv6/UDP from 2001:db8::7 to dst:2055 */
static uint32_t
udp6(uint8_t *f, const struct uf_ip6 *dst)
{
	const uint16_t ulen = (uint16_t)(8 + sizeof(payload));
	const struct uf_ip6 src = ip6_of("2001:db8::7");
	uint8_t *ip = f + 14, *udp = f + 54;
	uint16_t ck;

	memset(f, 0, 160);
	memcpy(f, our_mac.addr_bytes, 6);
	memcpy(f + 6, peer_mac.addr_bytes, 6);
	f[12] = 0x86;
	f[13] = 0xdd;
	ip[0] = 0x60;
	ip[4] = (uint8_t)(ulen >> 8);
	ip[5] = (uint8_t)ulen;
	ip[6] = IPPROTO_UDP;
	ip[7] = 64;
	memcpy(ip + 8, src.b, 16);
	memcpy(ip + 24, dst->b, 16);
	udp[0] = 40000 >> 8;
	udp[1] = 40000 & 0xff;
	udp[2] = 2055 >> 8;
	udp[3] = 2055 & 0xff;
	udp[4] = (uint8_t)(ulen >> 8);
	udp[5] = (uint8_t)ulen;
	memcpy(udp + 8, payload, sizeof(payload));
	ck = ref_ck(src.b, dst->b, 16, udp, ulen);
	memcpy(udp + 6, &ck, 2);
	return 54 + ulen;
}

static void
test_classify6(void)
{
	const struct uf_ip6 own = ip6_of("2001:db8::10"), svc = ip6_of("2001:db8:f::100"),
			    other = ip6_of("2001:db8:f::99");
	struct uf_port6_id p;
	struct uf_rx6_info info;
	enum uf_drop why = UF_DROP_MALFORMED;
	enum uf_verdict v = UF_V_DROP;
	uint8_t f[160], want[160];
	uint32_t len;

	memset(&p, 0, sizeof(p));
	p.mac = our_mac;
	p.n_ip6 = 1;
	p.ip6[0] = own;
	p.listen = true;
	p.max_len = uf_port_max_len(1500);

	len = udp6(f, &svc);
	CHECK_EQ(uf_classify6(f, len, 0, &p, &info, &why), UF_V_DROP);
	CHECK_EQ(why, UF_DROP_NOT_FOR_US);
	CHECK(uf_classify6_svc(f, len, 0, &p, &svc, &info, &why, &v), "looked at");
	CHECK_EQ(v, UF_V_FORWARD);
	CHECK_EQ(info.dst_idx, 0);
	udp6(want, &own);
	CHECK_EQ(uf_udp_ck_redirect6(info.udp_cksum, &svc, &own), *(const uint16_t *)(want + 60));
	/* another address: not looked at */
	len = udp6(f, &other);
	CHECK(!uf_classify6_svc(f, len, 0, &p, &svc, &info, &why, &v), "not its address");
	/* an NS for it, to its solicited-node group: for the control lcore */
	{
		const struct uf_ip6 src = ip6_of("2001:db8::7");
		struct uf_ip6 grp;
		struct rte_ether_addr gmac;
		uint16_t n;

		uf_ip6_solicited_node(&svc, &grp);
		uf_ip6_mcast_mac(&grp, &gmac);
		n = uf_ndp_ns_build(f, &peer_mac, &src, &svc, &grp, &gmac);
		CHECK_EQ(uf_classify6(f, n, 0, &p, &info, &why), UF_V_DROP);
		CHECK(uf_classify6_svc(f, n, 0, &p, &svc, &info, &why, &v), "looked at");
		CHECK_EQ(v, UF_V_CONTROL);
	}
}

int
main(void)
{
	RUN(test_parse);
	RUN(test_errors);
	RUN(test_listener_ip);
	RUN(test_diff);
	RUN(test_plan);
	RUN(test_classify4);
	RUN(test_arp4);
	RUN(test_classify6);
	return uf_t_summary();
}
