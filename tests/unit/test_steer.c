/* SPDX-License-Identifier: BSD-3-Clause
 * lib/port/uf_steer: the rte_flow rules udpfan asks for, checked against a fake PMD that
 * records (by value, at call time) every rule it is shown and answers as each test wants.
 */
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_flow.h>

#include "uf_steer.h"
#include "uf_test.h"
#include "uf_compat.h"

#define MAXQ 64

struct item_rec {
	enum rte_flow_item_type type;
	bool has_spec, has_mask;
	union {
		struct rte_flow_item_eth eth;
		struct rte_flow_item_ipv4 ipv4;
		struct rte_flow_item_ipv6 ipv6;
		struct rte_flow_item_udp udp;
	} spec, mask;
};

struct act_rec {
	enum rte_flow_action_type type;
	struct rte_flow_action_rss rss;
	uint16_t queues[MAXQ];
	uint32_t queue_index;
};

struct rule_rec {
	uint16_t port_id;
	struct rte_flow_attr attr;
	int n_items;
	struct item_rec items[8];
	int n_acts;
	struct act_rec acts[4];
};

static struct {
	int validate_calls;
	int create_calls;
	int destroy_calls;
	int fail_validate_from; /* validate calls with this index and after fail; -1: none */
	int fail_only;          /* this validate call alone fails; -1: none */
	bool fail_create;
	const char *msg; /* the PMD's message on failure */
	struct rule_rec created[8];
} pmd;

static char flow_objs[8]; /* addresses handed out as struct rte_flow * */

static void
record_rule(struct rule_rec *r, uint16_t port_id, const struct rte_flow_attr *attr,
	    const struct rte_flow_item pattern[], const struct rte_flow_action actions[])
{
	int i;

	memset(r, 0, sizeof(*r));
	r->port_id = port_id;
	r->attr = *attr;
	for (i = 0; i < 8; i++) {
		struct item_rec *it = &r->items[i];
		size_t sz = 0;

		it->type = pattern[i].type;
		r->n_items = i + 1;
		if (pattern[i].type == RTE_FLOW_ITEM_TYPE_END)
			break;
		switch (pattern[i].type) {
		case RTE_FLOW_ITEM_TYPE_ETH:
			sz = sizeof(struct rte_flow_item_eth);
			break;
		case RTE_FLOW_ITEM_TYPE_IPV4:
			sz = sizeof(struct rte_flow_item_ipv4);
			break;
		case RTE_FLOW_ITEM_TYPE_IPV6:
			sz = sizeof(struct rte_flow_item_ipv6);
			break;
		case RTE_FLOW_ITEM_TYPE_UDP:
			sz = sizeof(struct rte_flow_item_udp);
			break;
		default:
			break;
		}
		it->has_spec = pattern[i].spec != NULL;
		it->has_mask = pattern[i].mask != NULL;
		if (it->has_spec && sz > 0)
			memcpy(&it->spec, pattern[i].spec, sz);
		if (it->has_mask && sz > 0)
			memcpy(&it->mask, pattern[i].mask, sz);
		CHECK(pattern[i].last == NULL, "no ranges are used");
	}
	for (i = 0; i < 4; i++) {
		struct act_rec *a = &r->acts[i];

		a->type = actions[i].type;
		r->n_acts = i + 1;
		if (actions[i].type == RTE_FLOW_ACTION_TYPE_END)
			break;
		if (actions[i].type == RTE_FLOW_ACTION_TYPE_RSS) {
			const struct rte_flow_action_rss *rss = actions[i].conf;

			a->rss = *rss;
			if (rss->queue != NULL && rss->queue_num <= MAXQ)
				memcpy(a->queues, rss->queue, rss->queue_num * sizeof(uint16_t));
		} else if (actions[i].type == RTE_FLOW_ACTION_TYPE_QUEUE) {
			const struct rte_flow_action_queue *q = actions[i].conf;

			a->queue_index = q->index;
		}
	}
}

static int
fake_validate(uint16_t port_id, const struct rte_flow_attr *attr,
	      const struct rte_flow_item pattern[], const struct rte_flow_action actions[],
	      struct rte_flow_error *error)
{
	int idx = pmd.validate_calls++;

	(void)port_id;
	(void)attr;
	(void)pattern;
	(void)actions;
	if ((pmd.fail_validate_from >= 0 && idx >= pmd.fail_validate_from) ||
	    idx == pmd.fail_only) {
		if (error != NULL) {
			error->type = RTE_FLOW_ERROR_TYPE_ACTION;
			error->message = pmd.msg;
		}
		return -ENOTSUP;
	}
	return 0;
}

static struct rte_flow *
fake_create(uint16_t port_id, const struct rte_flow_attr *attr,
	    const struct rte_flow_item pattern[], const struct rte_flow_action actions[],
	    struct rte_flow_error *error)
{
	int idx = pmd.create_calls++;

	if (pmd.fail_create) {
		if (error != NULL)
			error->message = pmd.msg;
		return NULL;
	}
	if (idx >= 8)
		return NULL;
	record_rule(&pmd.created[idx], port_id, attr, pattern, actions);
	return (struct rte_flow *)&flow_objs[idx];
}

static int
fake_destroy(uint16_t port_id, struct rte_flow *flow, struct rte_flow_error *error)
{
	(void)port_id;
	(void)flow;
	(void)error;
	pmd.destroy_calls++;
	return 0;
}

static const struct uf_flow_ops fake_ops = {
	.validate = fake_validate,
	.create = fake_create,
	.destroy = fake_destroy,
};

static void
reset(int fail_from, bool fail_create, const char *msg)
{
	memset(&pmd, 0, sizeof(pmd));
	pmd.fail_validate_from = fail_from;
	pmd.fail_only = -1;
	pmd.fail_create = fail_create;
	pmd.msg = msg;
}

#define OUR_IP_BYTES 10, 0, 0, 10

static rte_be32_t
our_ip(void)
{
	static const uint8_t b[4] = { OUR_IP_BYTES };
	rte_be32_t v;

	memcpy(&v, b, 4);
	return v;
}

static bool
all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != 0)
			return false;
	return true;
}

/* the listen-port rule: ETH / IPV4 dst / UDP dst → RSS over queues 0..n-1 */
static void
check_rss_rule(const struct rule_rec *r, uint16_t nq, uint16_t udp_port)
{
	const struct item_rec *ip, *udp;
	static const uint8_t ip_b[4] = { OUR_IP_BYTES };
	uint8_t port_b[2] = { (uint8_t)(udp_port >> 8), (uint8_t)udp_port };
	struct rte_flow_item_ipv4 ipm;
	struct rte_flow_item_udp udpm;
	int i;

	CHECK_EQ(r->port_id, 3);
	CHECK_EQ(r->attr.ingress, 1);
	CHECK_EQ(r->attr.egress, 0);
	CHECK_EQ(r->attr.priority, 0);
	CHECK_EQ(r->n_items, 4);
	CHECK_EQ(r->items[0].type, RTE_FLOW_ITEM_TYPE_ETH);
	CHECK(!r->items[0].has_spec || all_zero(&r->items[0].mask, sizeof(r->items[0].mask.eth)),
	      "any Ethernet header");
	ip = &r->items[1];
	CHECK_EQ(ip->type, RTE_FLOW_ITEM_TYPE_IPV4);
	CHECK(ip->has_spec && ip->has_mask, "IPv4 spec and mask");
	CHECK_MEM(&ip->spec.ipv4.hdr.dst_addr, ip_b, 4);
	CHECK_EQ(ip->mask.ipv4.hdr.dst_addr, 0xffffffff);
	ipm = ip->mask.ipv4;
	ipm.hdr.dst_addr = 0;
	CHECK(all_zero(&ipm, sizeof(ipm)), "only the destination address is matched");
	udp = &r->items[2];
	CHECK_EQ(udp->type, RTE_FLOW_ITEM_TYPE_UDP);
	CHECK(udp->has_spec && udp->has_mask, "UDP spec and mask");
	CHECK_MEM(&udp->spec.udp.hdr.dst_port, port_b, 2); /* network order */
	CHECK_EQ(udp->mask.udp.hdr.dst_port, 0xffff);
	udpm = udp->mask.udp;
	udpm.hdr.dst_port = 0;
	CHECK(all_zero(&udpm, sizeof(udpm)), "only the destination port is matched");
	CHECK_EQ(r->items[3].type, RTE_FLOW_ITEM_TYPE_END);

	CHECK_EQ(r->n_acts, 2);
	CHECK_EQ(r->acts[0].type, RTE_FLOW_ACTION_TYPE_RSS);
	CHECK_EQ(r->acts[0].rss.queue_num, nq);
	for (i = 0; i < nq && i < MAXQ; i++)
		CHECK_EQ(r->acts[0].queues[i], i);
	CHECK(r->acts[0].rss.types & RTE_ETH_RSS_NONFRAG_IPV4_UDP, "hashes on IPv4/UDP");
	CHECK_EQ(r->acts[1].type, RTE_FLOW_ACTION_TYPE_END);
}

static void
test_validate_refused(void)
{
	struct uf_steer_result res;

	reset(0, false, "RSS action not supported here");
	uf_steer_flows(3, 4, 5000, our_ip(), false, &fake_ops, &res);
	CHECK_EQ(res.kind, UF_STEER_RSS);
	CHECK_EQ(res.n_flows, 0);
	CHECK_EQ(pmd.create_calls, 0);
	CHECK(pmd.validate_calls >= 1, "validated first");
	CHECK(res.refused && !res.blind, "refused, not blind: plain RSS, logged at NOTICE");
	CHECK_HAS(res.why, "refused");
	CHECK_HAS(res.why, "RSS action not supported here");
	CHECK_HAS(res.why, "5000");

	/* a PMD that gives no message */
	reset(0, false, NULL);
	uf_steer_flows(3, 4, 5000, our_ip(), true, &fake_ops, &res);
	CHECK_EQ(res.kind, UF_STEER_RSS);
	CHECK_EQ(res.n_flows, 0);
	CHECK_HAS(res.why, "refused");

	/* validated but not created */
	reset(-1, true, "out of flow resources");
	uf_steer_flows(3, 4, 5000, our_ip(), false, &fake_ops, &res);
	CHECK_EQ(res.kind, UF_STEER_RSS);
	CHECK_EQ(res.n_flows, 0);
	CHECK_HAS(res.why, "out of flow resources");
}

static void
test_flow_not_isolated(void)
{
	struct uf_steer_result res;
	const struct rule_rec *r;

	reset(-1, false, NULL);
	uf_steer_flows(3, 4, 5000, our_ip(), false, &fake_ops, &res);
	CHECK_EQ(res.kind, UF_STEER_FLOW);
	CHECK(!res.refused, "nothing refused");
	CHECK_EQ(pmd.create_calls, 2);
	CHECK_EQ(res.n_flows, 2);
	CHECK(res.flows[0] == (struct rte_flow *)&flow_objs[0], "the RSS rule first");
	CHECK(res.flows[1] == (struct rte_flow *)&flow_objs[1], "then the catch-all");
	check_rss_rule(&pmd.created[0], 4, 5000);

	/* the catch-all: lowest priority, any Ethernet frame, queue 0 */
	r = &pmd.created[1];
	CHECK_EQ(r->attr.ingress, 1);
	CHECK_EQ(r->attr.priority, 1);
	CHECK_EQ(r->n_items, 2);
	CHECK_EQ(r->items[0].type, RTE_FLOW_ITEM_TYPE_ETH);
	CHECK(!r->items[0].has_spec, "matches every frame");
	CHECK_EQ(r->items[1].type, RTE_FLOW_ITEM_TYPE_END);
	CHECK_EQ(r->acts[0].type, RTE_FLOW_ACTION_TYPE_QUEUE);
	CHECK_EQ(r->acts[0].queue_index, 0);
	CHECK_EQ(r->acts[1].type, RTE_FLOW_ACTION_TYPE_END);
	CHECK_HAS(res.why, "the rest to queue 0");
	CHECK_EQ(pmd.destroy_calls, 0);

	/* a PMD without priorities refuses the catch-all: the RSS rule alone */
	reset(1, false, "priorities not supported");
	uf_steer_flows(3, 8, 6000, our_ip(), false, &fake_ops, &res);
	CHECK_EQ(res.kind, UF_STEER_FLOW);
	CHECK_EQ(res.n_flows, 1);
	CHECK_EQ(pmd.create_calls, 1);
	check_rss_rule(&pmd.created[0], 8, 6000);
	CHECK(strstr(res.why, "the rest to queue 0") == NULL, "no catch-all: %s", res.why);
}

static void
test_flow_isolated(void)
{
	struct uf_steer_result res;
	const struct rule_rec *r;
	int i;

	reset(-1, false, NULL);
	uf_steer_flows(3, 2, 0x1388, our_ip(), true, &fake_ops, &res);
	CHECK_EQ(res.kind, UF_STEER_FLOW);
	CHECK_EQ(pmd.create_calls, 3);
	CHECK_EQ(res.n_flows, 3);
	check_rss_rule(&pmd.created[0], 2, 0x1388);

	/* ARP to queue 0 */
	r = &pmd.created[1];
	CHECK_EQ(r->attr.priority, 0);
	CHECK_EQ(r->items[0].type, RTE_FLOW_ITEM_TYPE_ETH);
	CHECK(r->items[0].has_spec && r->items[0].has_mask, "ethertype matched");
	{
		static const uint8_t arp_b[2] = { 0x08, 0x06 };

		CHECK_MEM(&r->items[0].spec.eth.type, arp_b, 2);
		CHECK_EQ(r->items[0].mask.eth.type, 0xffff);
	}
	CHECK_EQ(r->items[1].type, RTE_FLOW_ITEM_TYPE_END);
	CHECK_EQ(r->acts[0].type, RTE_FLOW_ACTION_TYPE_QUEUE);
	CHECK_EQ(r->acts[0].queue_index, 0);

	/* ICMP to queue 0 */
	r = &pmd.created[2];
	CHECK_EQ(r->attr.priority, 0);
	CHECK_EQ(r->items[0].type, RTE_FLOW_ITEM_TYPE_ETH);
	CHECK_EQ(r->items[1].type, RTE_FLOW_ITEM_TYPE_IPV4);
	CHECK_EQ(r->items[1].spec.ipv4.hdr.next_proto_id, 1);
	CHECK_EQ(r->items[1].mask.ipv4.hdr.next_proto_id, 0xff);
	CHECK_EQ(r->items[2].type, RTE_FLOW_ITEM_TYPE_END);
	CHECK_EQ(r->acts[0].type, RTE_FLOW_ACTION_TYPE_QUEUE);
	CHECK_EQ(r->acts[0].queue_index, 0);

	/* isolated: no catch-all at a lower priority */
	for (i = 0; i < pmd.create_calls; i++)
		CHECK_EQ(pmd.created[i].attr.priority, 0);
}

static void
test_single_queue(void)
{
	struct uf_steer_result res;

	reset(-1, false, NULL);
	uf_steer_flows(3, 1, 5000, our_ip(), false, &fake_ops, &res);
	CHECK_EQ(res.kind, UF_STEER_SINGLE);
	CHECK_EQ(res.n_flows, 0);
	CHECK_EQ(pmd.validate_calls, 0);
	CHECK_EQ(pmd.create_calls, 0);
	/* isolated (mlx5): even one queue needs rules, or nothing reaches it */
	uf_steer_flows(3, 1, 5000, our_ip(), true, &fake_ops, &res);
	CHECK_EQ(res.kind, UF_STEER_FLOW);
	CHECK_EQ(res.n_flows, 3);
	CHECK_EQ(pmd.validate_calls, 3);
	reset(-1, false, NULL);
	/* no UDP port to steer: RSS, nothing asked of the PMD */
	uf_steer_flows(3, 4, 0, our_ip(), false, &fake_ops, &res);
	CHECK_EQ(res.kind, UF_STEER_RSS);
	CHECK_EQ(res.n_flows, 0);
	CHECK_EQ(pmd.validate_calls, 0);
}

/* isolated (mlx5): every port gets ARP and ICMP rules, a port that only sends included; a
 * refused listen rule leaves the port deaf, and the result says so */
static void
test_isolated_edges(void)
{
	struct uf_steer_result res;

	reset(-1, false, NULL);
	uf_steer_flows(3, 1, 0, our_ip(), true, &fake_ops, &res);
	CHECK_EQ(res.n_flows, 2);
	CHECK_EQ(pmd.validate_calls, 2);
	CHECK_EQ(res.blind, false);

	reset(-1, false, "no UDP match here");
	pmd.fail_only = 0;
	uf_steer_flows(3, 2, 5000, our_ip(), true, &fake_ops, &res);
	CHECK_EQ(res.blind, true);
	CHECK_EQ(res.n_flows, 2);
	CHECK_HAS(res.why, "no UDP match here");
	CHECK_HAS(res.why, "would receive no datagram");

	/* not isolated, refused: plain RSS, nothing blind about it */
	reset(-1, false, "no");
	pmd.fail_only = 0;
	uf_steer_flows(3, 2, 5000, our_ip(), false, &fake_ops, &res);
	CHECK_EQ(res.blind, false);
	CHECK_EQ(res.kind, UF_STEER_RSS);
	CHECK_EQ(res.n_flows, 0);
}

/* several listeners on one port: one RSS rule each (its address and UDP port), then the
 * catch-all; a refused one takes the others back out (not isolated) or leaves it blind */
static void
test_listeners(void)
{
	const struct uf_steer_listen ls[3] = {
		{ .udp_port = 2055, .dst_ip = our_ip() },
		{ .udp_port = 6343, .dst_ip = our_ip() },
		{ .udp_port = 514, .dst_ip = our_ip() ^ rte_cpu_to_be_32(4) }, /* its own IP */
	};
	struct uf_steer_result res;

	reset(-1, false, NULL);
	uf_steer_flows_multi(3, 4, ls, 3, our_ip(), false, false, &fake_ops, &res);
	CHECK_EQ(res.kind, UF_STEER_FLOW);
	CHECK_EQ(res.n_flows, 4);
	check_rss_rule(&pmd.created[0], 4, 2055);
	check_rss_rule(&pmd.created[1], 4, 6343);
	CHECK_EQ(pmd.created[2].items[1].spec.ipv4.hdr.dst_addr, ls[2].dst_ip);
	CHECK_EQ(pmd.created[2].items[2].spec.udp.hdr.dst_port, rte_cpu_to_be_16(514));
	CHECK_EQ(pmd.created[3].attr.priority, 1); /* the catch-all last */
	CHECK_HAS(res.why, "3 listeners");

	/* the second refused, not isolated: the first is taken back, plain RSS for all */
	reset(-1, false, "too many rules");
	pmd.fail_only = 1;
	uf_steer_flows_multi(3, 4, ls, 3, our_ip(), false, false, &fake_ops, &res);
	CHECK_EQ(res.kind, UF_STEER_RSS);
	CHECK_EQ(res.n_flows, 0);
	CHECK_EQ(pmd.destroy_calls, 1);
	CHECK_HAS(res.why, "6343");
	CHECK(!res.blind, "not isolated: never blind");

	/* isolated (mlx5): a refused listener would be deaf */
	reset(-1, false, "too many rules");
	pmd.fail_only = 2;
	uf_steer_flows_multi(3, 2, ls, 3, our_ip(), false, true, &fake_ops, &res);
	CHECK(res.blind, "isolated and a listener's rule refused: blind");
	CHECK_HAS(res.why, "514");
	/* isolated, all taken: one rule per listener, then ARP and ICMP to queue 0 */
	reset(-1, false, NULL);
	uf_steer_flows_multi(3, 1, ls, 3, our_ip(), false, true, &fake_ops, &res);
	CHECK(!res.blind, "all taken");
	CHECK_EQ(res.n_flows, 5);
	CHECK_EQ(pmd.created[4].items[1].spec.ipv4.hdr.dst_addr, our_ip()); /* ICMP: port IP */
}

static const uint8_t our_ip6_b[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x18, 0, 0,
				       0,    0,    0,    0,    0, 0,    0, 0x10 };

/* an IPv6 listener's rule: ETH / IPV6 dst (all 128 bits, nothing else) / UDP dst, hashed on
 * IPv6/UDP (docs/pmd-quirks.md#ipv6: mlx5 derives the hash fields from the pattern's L3) */
static void
check_rss_rule6(const struct rule_rec *r, uint16_t nq, uint16_t udp_port, const uint8_t *dst)
{
	const struct item_rec *ip = &r->items[1], *udp = &r->items[2];
	struct rte_flow_item_ipv6 ipm;
	int i;

	CHECK_EQ(r->attr.ingress, 1);
	CHECK_EQ(r->attr.priority, 0);
	CHECK_EQ(r->n_items, 4);
	CHECK_EQ(r->items[0].type, RTE_FLOW_ITEM_TYPE_ETH);
	CHECK_EQ(ip->type, RTE_FLOW_ITEM_TYPE_IPV6);
	CHECK(ip->has_spec && ip->has_mask, "IPv6 spec and mask");
	CHECK_MEM(UF_IP6_CBYTES(ip->spec.ipv6.hdr.dst_addr), dst, 16);
	for (i = 0; i < 16; i++)
		CHECK_EQ(UF_IP6_CBYTES(ip->mask.ipv6.hdr.dst_addr)[i], 0xff);
	ipm = ip->mask.ipv6;
	memset(UF_IP6_BYTES(ipm.hdr.dst_addr), 0, 16);
	CHECK(all_zero(&ipm, sizeof(ipm)), "only the destination address is matched");
	CHECK_EQ(udp->type, RTE_FLOW_ITEM_TYPE_UDP);
	CHECK_EQ(udp->spec.udp.hdr.dst_port, rte_cpu_to_be_16(udp_port));
	CHECK_EQ(udp->mask.udp.hdr.dst_port, 0xffff);
	CHECK_EQ(r->items[3].type, RTE_FLOW_ITEM_TYPE_END);
	CHECK_EQ(r->acts[0].type, RTE_FLOW_ACTION_TYPE_RSS);
	CHECK_EQ(r->acts[0].rss.queue_num, nq);
	for (i = 0; i < nq && i < MAXQ; i++)
		CHECK_EQ(r->acts[0].queues[i], i);
	CHECK_EQ(r->acts[0].rss.types, RTE_ETH_RSS_NONFRAG_IPV6_UDP);
	CHECK_EQ(r->acts[1].type, RTE_FLOW_ACTION_TYPE_END);
}

/* the ICMPv6 rule of an isolated port: ETH / IPV6 next header 58, any address, queue 0 */
static void
check_icmp6_rule(const struct rule_rec *r)
{
	const struct item_rec *ip = &r->items[1];
	struct rte_flow_item_ipv6 ipm;

	CHECK_EQ(r->attr.priority, 0);
	CHECK_EQ(r->items[0].type, RTE_FLOW_ITEM_TYPE_ETH);
	CHECK_EQ(ip->type, RTE_FLOW_ITEM_TYPE_IPV6);
	CHECK_EQ(ip->spec.ipv6.hdr.proto, 58);
	CHECK_EQ(ip->mask.ipv6.hdr.proto, 0xff);
	ipm = ip->mask.ipv6;
	ipm.hdr.proto = 0;
	CHECK(all_zero(&ipm, sizeof(ipm)), "no address matched: NS go to solicited-node groups");
	CHECK_EQ(r->items[2].type, RTE_FLOW_ITEM_TYPE_END);
	CHECK_EQ(r->acts[0].type, RTE_FLOW_ACTION_TYPE_QUEUE);
	CHECK_EQ(r->acts[0].queue_index, 0);
}

/* IPv6 and mixed-family listeners (docs/architecture.md#steering) */
static void
test_listeners_ip6(void)
{
	struct uf_steer_listen ls[2] = {
		{ .udp_port = 2055, .dst_ip = our_ip() },
		{ .udp_port = 6343, .is_ip6 = true },
	};
	struct uf_steer_result res;

	memcpy(ls[1].dst_ip6.b, our_ip6_b, 16);
	reset(-1, false, NULL);
	uf_steer_flows_multi(3, 4, ls, 2, our_ip(), true, false, &fake_ops, &res);
	CHECK_EQ(res.kind, UF_STEER_FLOW);
	CHECK_EQ(res.n_flows, 3);
	check_rss_rule(&pmd.created[0], 4, 2055);
	CHECK_EQ(pmd.created[0].acts[0].rss.types, RTE_ETH_RSS_NONFRAG_IPV4_UDP);
	check_rss_rule6(&pmd.created[1], 4, 6343, our_ip6_b);
	CHECK_EQ(pmd.created[2].attr.priority, 1); /* the catch-all, as for IPv4 */

	/* one IPv6 listener alone: the log line says which family */
	reset(-1, false, NULL);
	uf_steer_flows_multi(3, 2, &ls[1], 1, 0, true, false, &fake_ops, &res);
	CHECK_EQ(res.kind, UF_STEER_FLOW);
	check_rss_rule6(&pmd.created[0], 2, 6343, our_ip6_b);
	CHECK_HAS(res.why, "IPv6 UDP port 6343 spread over 2 queues");

	/* the IPv6 rule refused (a PMD without an IPv6 pattern): the IPv4 one is taken back and
	 * plain RSS spreads both, and the reason names the IPv6 listener */
	reset(-1, false, "IPv6 pattern not supported");
	pmd.fail_only = 1;
	uf_steer_flows_multi(3, 4, ls, 2, our_ip(), true, false, &fake_ops, &res);
	CHECK_EQ(res.kind, UF_STEER_RSS);
	CHECK_EQ(res.n_flows, 0);
	CHECK_EQ(pmd.destroy_calls, 1);
	CHECK_HAS(res.why, "IPv6 UDP port 6343 refused");
	CHECK_HAS(res.why, "IPv6 pattern not supported");

	/* isolated, both families on the port: the two listeners, ARP, ICMP, ICMPv6 */
	reset(-1, false, NULL);
	uf_steer_flows_multi(3, 1, ls, 2, our_ip(), true, true, &fake_ops, &res);
	CHECK(!res.blind, "all taken");
	CHECK_EQ(res.n_flows, 5);
	check_rss_rule6(&pmd.created[1], 1, 6343, our_ip6_b);
	CHECK_EQ(pmd.created[2].items[0].spec.eth.type, rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP));
	CHECK_EQ(pmd.created[3].items[1].type, RTE_FLOW_ITEM_TYPE_IPV4);
	check_icmp6_rule(&pmd.created[4]);

	/* isolated, an IPv6-only port: no ARP, no ICMP, its listener and ICMPv6 */
	reset(-1, false, NULL);
	uf_steer_flows_multi(3, 2, &ls[1], 1, 0, true, true, &fake_ops, &res);
	CHECK_EQ(res.n_flows, 2);
	CHECK_EQ(pmd.validate_calls, 2);
	check_rss_rule6(&pmd.created[0], 2, 6343, our_ip6_b);
	check_icmp6_rule(&pmd.created[1]);
	/* ... and one that only sends still gets ICMPv6 (NDP) */
	reset(-1, false, NULL);
	uf_steer_flows_multi(3, 1, NULL, 0, 0, true, true, &fake_ops, &res);
	CHECK_EQ(res.n_flows, 1);
	CHECK_EQ(res.kind, UF_STEER_FLOW);
	check_icmp6_rule(&pmd.created[0]);
	/* isolated and the IPv6 listener's rule refused: deaf, and said */
	reset(-1, false, "no");
	pmd.fail_only = 0;
	uf_steer_flows_multi(3, 2, &ls[1], 1, 0, true, true, &fake_ops, &res);
	CHECK(res.blind, "blind");
	CHECK_HAS(res.why, "would receive no datagram");
}

int
main(void)
{
	RUN(test_validate_refused);
	RUN(test_flow_not_isolated);
	RUN(test_flow_isolated);
	RUN(test_single_queue);
	RUN(test_isolated_edges);
	RUN(test_listeners);
	RUN(test_listeners_ip6);
	return uf_t_summary();
}
