/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include "uf_port.h"
#include "uf_steer.h"
#include "uf_compat.h"

const struct uf_flow_ops uf_flow_ops_rte = {
	.validate = rte_flow_validate,
	.create = rte_flow_create,
	.destroy = rte_flow_destroy,
};

static struct rte_flow *
try_rule(uint16_t port_id, const struct uf_flow_ops *ops, const struct rte_flow_attr *attr,
	 const struct rte_flow_item *pat, const struct rte_flow_action *act, char *why, size_t len)
{
	struct rte_flow_error fe;
	struct rte_flow *f;

	memset(&fe, 0, sizeof(fe));
	if (ops->validate(port_id, attr, pat, act, &fe) != 0) {
		snprintf(why, len, "%s", fe.message != NULL ? fe.message : "validation failed");
		return NULL;
	}
	f = ops->create(port_id, attr, pat, act, &fe);
	if (f == NULL)
		snprintf(why, len, "%s", fe.message != NULL ? fe.message : "creation failed");
	return f;
}

/* a control rule: ETH (eth_spec, or any frame where NULL) / l3 (END where none) / END to
 * act, kept in res where the PMD takes it */
static bool
add_rule(uint16_t port_id, const struct uf_flow_ops *ops, const struct rte_flow_attr *attr,
	 const struct rte_flow_item_eth *eth_spec, const struct rte_flow_item_eth *eth_mask,
	 enum rte_flow_item_type l3, const void *spec, const void *mask,
	 const struct rte_flow_action *act, struct uf_steer_result *res)
{
	struct rte_flow_item pat[3];
	struct rte_flow *f;
	char why[128];

	memset(pat, 0, sizeof(pat));
	pat[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	pat[0].spec = eth_spec;
	pat[0].mask = eth_mask;
	pat[1].type = l3;
	pat[1].spec = spec;
	pat[1].mask = mask;
	pat[2].type = RTE_FLOW_ITEM_TYPE_END;
	f = try_rule(port_id, ops, attr, pat, act, why, sizeof(why));
	if (f == NULL)
		return false;
	res->flows[res->n_flows++] = f;
	return true;
}

void
uf_steer_flows(uint16_t port_id, uint16_t nb_queues, uint16_t udp_port, uint32_t dst_ip,
	       bool isolated, const struct uf_flow_ops *ops, struct uf_steer_result *res)
{
	const struct uf_steer_listen l = { .udp_port = udp_port, .dst_ip = dst_ip };

	uf_steer_flows_multi(port_id, nb_queues, &l, udp_port != 0 ? 1 : 0, dst_ip, false, isolated,
			     ops, res);
}

/* the items of ETH / IPV4|IPV6 / UDP for one listener: its address and UDP port, nothing
 * else matched */
struct listen_items {
	struct rte_flow_item_ipv4 ip4_spec, ip4_mask;
	struct rte_flow_item_ipv6 ip6_spec, ip6_mask;
	struct rte_flow_item_udp udp_spec, udp_mask;
};

static void
listen_pattern(const struct uf_steer_listen *l, struct listen_items *it, struct rte_flow_item *pat)
{
	memset(it, 0, sizeof(*it));
	memset(pat, 0, 4 * sizeof(*pat));
	pat[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	if (l->is_ip6) {
		memcpy(UF_IP6_BYTES(it->ip6_spec.hdr.dst_addr), l->dst_ip6.b, 16);
		memset(UF_IP6_BYTES(it->ip6_mask.hdr.dst_addr), 0xff, 16);
		pat[1].type = RTE_FLOW_ITEM_TYPE_IPV6;
		pat[1].spec = &it->ip6_spec;
		pat[1].mask = &it->ip6_mask;
	} else {
		it->ip4_spec.hdr.dst_addr = l->dst_ip;
		it->ip4_mask.hdr.dst_addr = 0xffffffff;
		pat[1].type = RTE_FLOW_ITEM_TYPE_IPV4;
		pat[1].spec = &it->ip4_spec;
		pat[1].mask = &it->ip4_mask;
	}
	it->udp_spec.hdr.dst_port = rte_cpu_to_be_16(l->udp_port);
	it->udp_mask.hdr.dst_port = 0xffff;
	pat[2].type = RTE_FLOW_ITEM_TYPE_UDP;
	pat[2].spec = &it->udp_spec;
	pat[2].mask = &it->udp_mask;
	pat[3].type = RTE_FLOW_ITEM_TYPE_END;
}

void
uf_steer_flows_multi(uint16_t port_id, uint16_t nb_queues, const struct uf_steer_listen *ls,
		     int n_ls, uint32_t dst_ip, bool port_ip6, bool isolated,
		     const struct uf_flow_ops *ops, struct uf_steer_result *res)
{
	uint16_t queues[RTE_MAX_QUEUES_PER_PORT];
	struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_item_ipv4 ip_spec, ip_mask;
	struct rte_flow_item_ipv6 ip6_spec, ip6_mask;
	struct rte_flow_item_eth eth_spec, eth_mask;
	struct listen_items li;
	struct rte_flow_action_rss rss = {
		.func = RTE_ETH_HASH_FUNCTION_DEFAULT,
		.types = RTE_ETH_RSS_NONFRAG_IPV4_UDP,
		.queue_num = nb_queues,
		.queue = queues,
	};
	struct rte_flow_action_queue q0 = { .index = 0 };
	struct rte_flow_item pat[4];
	struct rte_flow_action act[2];
	char why[128];
	struct rte_flow *f;
	uint16_t i;
	int k;

	memset(res, 0, sizeof(*res));
	res->kind = nb_queues > 1 ? UF_STEER_RSS : UF_STEER_SINGLE;
	for (i = 0; i < nb_queues; i++)
		queues[i] = i;
	memset(act, 0, sizeof(act));
	act[1].type = RTE_FLOW_ACTION_TYPE_END;

	/* the listen port's datagrams spread over the worker queues; isolated, even one queue
	 * needs the rule, or nothing reaches it */
	for (k = 0; k < n_ls && k < UF_STEER_MAX_LISTEN && (nb_queues > 1 || isolated); k++) {
		const uint16_t udp_port = ls[k].udp_port;

		listen_pattern(&ls[k], &li, pat);
		/* the hash types of the listener's family (docs/pmd-quirks.md#ipv6) */
		rss.types = ls[k].is_ip6 ? RTE_ETH_RSS_NONFRAG_IPV6_UDP
					 : RTE_ETH_RSS_NONFRAG_IPV4_UDP;
		act[0].type = RTE_FLOW_ACTION_TYPE_RSS;
		act[0].conf = &rss;
		f = try_rule(port_id, ops, &attr, pat, act, why, sizeof(why));
		if (f != NULL) {
			res->kind = UF_STEER_FLOW;
			res->flows[res->n_flows++] = f;
			if (n_ls == 1)
				snprintf(res->why, sizeof(res->why),
					 "rte_flow: %sUDP port %u spread over %u queues by RSS",
					 ls[k].is_ip6 ? "IPv6 " : "", udp_port, nb_queues);
			else
				snprintf(res->why, sizeof(res->why),
					 "rte_flow: %d listeners' UDP ports spread over %u queues "
					 "by RSS",
					 k + 1, nb_queues);
			continue;
		}
		res->blind = isolated;
		res->refused = true;
		snprintf(res->why, sizeof(res->why),
			 "rte_flow RSS rule for %sUDP port %u refused "
			 "(%s): %s",
			 ls[k].is_ip6 ? "IPv6 " : "", udp_port, why,
			 isolated ? "isolated, the port would receive no datagram" : "plain RSS");
		if (!isolated) {
			/* all or none: plain RSS spreads every listener alike */
			struct rte_flow_error fe;

			while (res->n_flows > 0)
				ops->destroy(port_id, res->flows[--res->n_flows], &fe);
			res->kind = nb_queues > 1 ? UF_STEER_RSS : UF_STEER_SINGLE;
		}
		break;
	}

	act[0].type = RTE_FLOW_ACTION_TYPE_QUEUE;
	act[0].conf = &q0;
	if (isolated) {
		/* nothing but what rules match reaches an isolated port: ARP and ICMP for our
		 * address go to queue 0, on every port with an IPv4 address (a port that only
		 * sends needs ARP too), and ICMPv6 on every port with ip6 */
		if (dst_ip != 0) {
			memset(&eth_spec, 0, sizeof(eth_spec));
			memset(&eth_mask, 0, sizeof(eth_mask));
			eth_spec.type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
			eth_mask.type = 0xffff;
			add_rule(port_id, ops, &attr, &eth_spec, &eth_mask, RTE_FLOW_ITEM_TYPE_END,
				 NULL, NULL, act, res);
			memset(&ip_spec, 0, sizeof(ip_spec));
			memset(&ip_mask, 0, sizeof(ip_mask));
			ip_spec.hdr.dst_addr = dst_ip; /* ICMP: to the port's own address */
			ip_mask.hdr.dst_addr = 0xffffffff;
			ip_spec.hdr.next_proto_id = IPPROTO_ICMP;
			ip_mask.hdr.next_proto_id = 0xff;
			add_rule(port_id, ops, &attr, NULL, NULL, RTE_FLOW_ITEM_TYPE_IPV4, &ip_spec,
				 &ip_mask, act, res);
		}
		if (port_ip6) {
			/* ICMPv6 whatever its destination: a Neighbor Solicitation goes to our
			 * solicited-node group, an advertisement may go to all-nodes */
			memset(&ip6_spec, 0, sizeof(ip6_spec));
			memset(&ip6_mask, 0, sizeof(ip6_mask));
			ip6_spec.hdr.proto = IPPROTO_ICMPV6;
			ip6_mask.hdr.proto = 0xff;
			add_rule(port_id, ops, &attr, NULL, NULL, RTE_FLOW_ITEM_TYPE_IPV6,
				 &ip6_spec, &ip6_mask, act, res);
		}
		if (res->kind != UF_STEER_FLOW && res->n_flows > 0)
			res->kind = UF_STEER_FLOW;
	} else if (res->kind == UF_STEER_FLOW) {
		/* the rest to queue 0 at the lowest priority, where the PMD has priorities */
		attr.priority = 1;
		if (add_rule(port_id, ops, &attr, NULL, NULL, RTE_FLOW_ITEM_TYPE_END, NULL, NULL,
			     act, res))
			strncat(res->why, "; the rest to queue 0",
				sizeof(res->why) - strlen(res->why) - 1);
	}
}

static void
setup_reta(struct uf_port *p)
{
	struct rte_eth_rss_reta_entry64 reta[RTE_ETH_RSS_RETA_SIZE_512 / RTE_ETH_RETA_GROUP_SIZE];
	uint16_t size = p->info.reta_size, i;
	int ret;

	if (size == 0 || size > RTE_ETH_RSS_RETA_SIZE_512)
		return;
	memset(reta, 0, sizeof(reta));
	for (i = 0; i < size; i++) {
		reta[i / RTE_ETH_RETA_GROUP_SIZE].mask |= 1ULL << (i % RTE_ETH_RETA_GROUP_SIZE);
		reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE] =
				i % p->nb_queues;
	}
	ret = rte_eth_dev_rss_reta_update(p->port_id, reta, size);
	if (ret != 0)
		UF_LOG(INFO, "port %s: RETA update refused (%s); the PMD's default spread stays",
		       p->cfg->name, rte_strerror(-ret));
}

int
uf_steer_setup(struct uf_port *p, uint16_t udp_port)
{
	const struct uf_steer_listen l = { .udp_port = udp_port, .dst_ip = p->cfg->ip };

	return uf_steer_setup_multi(p, &l, udp_port != 0 ? 1 : 0);
}

int
uf_steer_setup_multi(struct uf_port *p, const struct uf_steer_listen *ls, int n)
{
	struct uf_steer_result res;
	bool blind = false, refused = false;
	int i;

	if (p->plan.rss)
		setup_reta(p);
	if (p->plan.try_flow && (n > 0 || p->flow_isolated)) {
		uf_steer_flows_multi(p->port_id, p->nb_queues, ls, n, p->cfg->ip, p->cfg->n_ip6 > 0,
				     p->flow_isolated, &uf_flow_ops_rte, &res);
		blind = res.blind;
		refused = res.refused;
		for (i = 0; i < res.n_flows; i++)
			p->flows[i] = res.flows[i];
		p->n_flows = res.n_flows;
		snprintf(p->steering, sizeof(p->steering), "%s", res.why);
	} else if (p->plan.rss) {
		snprintf(p->steering, sizeof(p->steering),
			 "RSS over %u queues (hash fields 0x%" PRIx64 ")", p->nb_queues,
			 p->plan.rss_hf);
	} else if (p->nb_queues > 1) {
		snprintf(p->steering, sizeof(p->steering), "%s spreads over %u queues itself",
			 p->info.driver_name, p->nb_queues);
	} else {
		snprintf(p->steering, sizeof(p->steering), "one queue");
	}
	if (refused)
		/* the fallback said out loud: ice and iavf refuse a queue region of 3, 5, 6, 7...
		 * queues (docs/architecture.md#steering) */
		UF_LOG(NOTICE, "port %s: %s%s", p->cfg->name, p->steering,
		       p->nb_queues > 1 && !rte_is_power_of_2(p->nb_queues)
				       ? " (ice and iavf take an RSS queue region of a power-of-2 "
					 "number of queues only)"
				       : "");
	else
		UF_LOG(INFO, "port %s: %s", p->cfg->name, p->steering);
	return blind ? -ENOTSUP : 0;
}

void
uf_steer_teardown(struct uf_port *p)
{
	struct rte_flow_error fe;
	int i;

	for (i = p->n_flows - 1; i >= 0; i--)
		rte_flow_destroy(p->port_id, p->flows[i], &fe);
	p->n_flows = 0;
}
