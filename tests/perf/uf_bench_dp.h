/* SPDX-License-Identifier: BSD-3-Clause
 * What the two datapath benches share (uf_fanout_bench.c, uf_dp_bench.c): the pools, a
 * net_null egress, an input frame, a config with N destinations, a worker and a plan built the
 * way the control lcore builds them, refilling a burst the way net_pcap's infinite_rx does,
 * and a timed loop of uf_worker_rx over it. Static functions: one copy per bench binary.
 */
#ifndef UF_BENCH_DP_H
#define UF_BENCH_DP_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "uf_config.h"
#include "uf_fwd_dp.h"
#include "uf_pkt6.h"
#include "uf_plan.h"
#include "uf_compat.h"

#define BURST 32

static struct rte_mempool *in_pool, *copy_pool, *hdr_pool;
static uint16_t null_port;
/* RX flags on each input mbuf, as a NIC with the RX checksum offloads sets them (uf_dp_bench
 * -g: RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD); 0: net_pcap's none */
static uint64_t in_ol_flags;
/* 802.1Q (uf_dp_bench -V): the port is tagged (VLAN 100): input tagged, copies tagged */
static uint16_t bench_vlan;
/* uf_dp_bench -p: the input port completes partial checksums (its quirk row's partial_csum, as
 * net_pcap's, af_xdp's, af_packet's and virtio's say) */
static bool bench_partial;
/* uf_dp_bench -S: the port has the service address 198.18.0.99 and every datagram is sent to
 * it (docs/configuration.md#service-addresses: the fleet's routed case) */
static bool bench_svc;

static size_t
build_input(uint8_t *f, uint16_t payload, uint32_t seq)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)f;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint8_t *p = (uint8_t *)(udp + 1);
	uint16_t i;

	memset(f, 0, 64);
	rte_eth_macaddr_get(null_port, &eth->dst_addr);
	eth->src_addr.addr_bytes[0] = 0x02;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(28 + payload);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(0xc6120002);
	ip->dst_addr = rte_cpu_to_be_32(bench_svc ? 0xc6120063 : 0xc612000a);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16(40000 + (seq & 63));
	udp->dst_port = rte_cpu_to_be_16(5000);
	udp->dgram_len = rte_cpu_to_be_16(8 + payload);
	for (i = 0; i < payload; i++)
		p[i] = (uint8_t)(seq + i);
	udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);
	return 42 + payload;
}

/* IPv6 (uf_dp_bench's IPv6 rows): Eth/IPv6/UDP from 2001:db8::2 to 2001:db8::10, 5000 */
static __rte_unused size_t
build_input6(uint8_t *f, uint16_t payload, uint32_t seq)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)f;
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint8_t *p = (uint8_t *)(udp + 1);
	uint16_t i;

	memset(f, 0, 64);
	rte_eth_macaddr_get(null_port, &eth->dst_addr);
	eth->src_addr.addr_bytes[0] = 0x02;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(8 + payload);
	ip->proto = IPPROTO_UDP;
	ip->hop_limits = 64;
	UF_IP6_BYTES(ip->src_addr)[0] = 0x20;
	UF_IP6_BYTES(ip->src_addr)[1] = 0x01;
	UF_IP6_BYTES(ip->src_addr)[2] = 0x0d;
	UF_IP6_BYTES(ip->src_addr)[3] = 0xb8;
	memcpy(UF_IP6_BYTES(ip->dst_addr), UF_IP6_BYTES(ip->src_addr), 16);
	UF_IP6_BYTES(ip->src_addr)[15] = 0x02;
	UF_IP6_BYTES(ip->dst_addr)[15] = 0x10;
	udp->src_port = rte_cpu_to_be_16(40000 + (seq & 63));
	udp->dst_port = rte_cpu_to_be_16(5000);
	udp->dgram_len = rte_cpu_to_be_16(8 + payload);
	for (i = 0; i < payload; i++)
		p[i] = (uint8_t)(seq + i);
	udp->dgram_cksum = rte_ipv6_udptcp_cksum(ip, udp);
	return 62 + payload;
}

/* N IPv6 destinations of an IPv6 listener (an IPv6-only port: `listen:` takes its ip6) */
static __rte_unused struct uf_config *
make_cfg6(int n)
{
	char text[8192];
	struct uf_err err;
	struct uf_config *cfg;
	int o, i;

	o = snprintf(text, sizeof(text),
		     "ports:\n  - { name: p, device: net_null0, ip6: [\"2001:db8::10/64\"] }\n"
		     "listen: { port: p, udp_port: 5000 }\ndestinations:\n");
	for (i = 0; i < n; i++)
		o += snprintf(text + o, sizeof(text) - o,
			      "  - { ip: \"2001:db8::%x\", udp_port: %d, mac: \"02:00:00:00:00:%02x\" "
			      "}\n",
			      0x21 + i, 6000 + i, 0x21 + i);
	cfg = uf_config_parse(text, (size_t)o, "bench6", &err);
	if (cfg == NULL) {
		fprintf(stderr, "config: %s\n", err.msg);
		exit(1);
	}
	return cfg;
}

static struct uf_config *
make_cfg(int n)
{
	char text[8192];
	struct uf_err err;
	struct uf_config *cfg;
	int o, i;

	o = snprintf(text, sizeof(text),
		     "ports:\n  - { name: p, device: net_null0, ip: 198.18.0.10/24, vlan: %u }\n"
		     "listen: { port: p, udp_port: 5000 }\ndestinations:\n",
		     bench_vlan != 0 ? bench_vlan : 1);
	if (bench_vlan == 0) /* untagged: the key left out */
		o = snprintf(text, sizeof(text),
			     "ports:\n  - { name: p, device: net_null0, ip: 198.18.0.10/24%s }\n"
			     "listen: { port: p, udp_port: 5000 }\ndestinations:\n",
			     bench_svc ? ", service: [198.18.0.99]" : "");
	for (i = 0; i < n; i++)
		o += snprintf(text + o, sizeof(text) - o,
			      "  - { ip: 198.18.0.%d, udp_port: %d, mac: \"02:00:00:00:00:%02x\" }\n",
			      21 + i, 6000 + i, 0x21 + i);
	cfg = uf_config_parse(text, (size_t)o, "bench", &err);
	if (cfg == NULL) {
		fprintf(stderr, "config: %s\n", err.msg);
		exit(1);
	}
	return cfg;
}

static struct uf_worker *
make_worker(const struct uf_config *cfg, struct uf_shared *sh, bool chain)
{
	struct uf_worker *w = rte_zmalloc("w", sizeof(*w), RTE_CACHE_LINE_SIZE);

	w->n_ports = 1;
	w->burst = BURST;
	w->shared = sh;
	w->copy_pool = copy_pool;
	w->hdr_pool = chain ? hdr_pool : NULL;
	w->ports[0].port_id = null_port;
	rte_eth_macaddr_get(null_port, &w->ports[0].id.mac);
	w->ports[0].id.ip = cfg->ports[0].ip;
	w->ports[0].id.listen = true;
	w->ports[0].id.listen_udp = rte_cpu_to_be_16(5000);
	w->ports[0].id.max_len = uf_port_max_len(1500);
	w->ports[0].id.partial_csum = bench_partial;
	if (cfg->ports[0].n_ip6 > 0) { /* IPv6 (make_cfg6): as uf_app_create_workers sets it */
		/* an IPv4 listener beside (make_cfg46): IPv4 datagrams taken too */
		w->ports[0].id.listen = false;
		for (int l = 0; l < cfg->n_listeners; l++)
			w->ports[0].id.listen |= !cfg->listeners[l].is_ip6;
		w->port6[0].mac = w->ports[0].id.mac;
		w->port6[0].n_ip6 = cfg->ports[0].n_ip6;
		memcpy(w->port6[0].ip6, cfg->ports[0].ip6, sizeof(w->port6[0].ip6));
		w->port6[0].listen = true;
		w->port6[0].max_len = uf_port_max_len(1500);
	}
	uf_worker_port_id(w, 0);
	if (bench_vlan != 0) { /* the device's only port, tagged: the worker's VLAN split */
		w->ports[0].vlan = bench_vlan;
		w->ports[0].n_vlans = 1;
		w->ports[0].vlan_id[0] = bench_vlan;
		w->ports[0].vlan_pi[0] = 0;
	}
	w->txb[0].port_id = null_port;
	uf_worker_link_init(w, 0, 100);
	return w;
}

static struct uf_plan *
make_plan(const struct uf_config *cfg, enum uf_fanout_mode mode)
{
	struct rte_ether_addr pmac, dmac[UF_MAX_DESTS];
	bool resolved[UF_MAX_DESTS], chain_ok = true;
	uint16_t mtu = 1500;
	struct uf_plan_input in = { .cfg = cfg,
				    .port_mac = &pmac,
				    .port_mtu = &mtu,
				    .port_chain_ok = &chain_ok,
				    .dest_mac = dmac,
				    .dest_resolved = resolved,
				    .version = 1,
				    .socket = -1 };
	struct uf_plan *plan;
	int i;

	rte_eth_macaddr_get(null_port, &pmac);
	for (i = 0; i < cfg->n_dests; i++) {
		dmac[i] = cfg->dests[i].mac;
		resolved[i] = true;
	}
	/* rules (uf_dp_bench -R): their tables, as uf_resolve_rules builds them (kept) */
	if (cfg->n_rules > 0) {
		if (cfg->listeners[0].is_ip6)
			in.lpm6 = uf_rules_lpm6(cfg, 0);
		else
			in.lpm = uf_rules_lpm(cfg, 0);
	}
	plan = uf_plan_build(&in);
	plan->fanout = mode;
	plan->chain_min_payload = 18;
	for (i = 0; i < plan->n_sets; i++) /* the datapath reads the set's threshold */
		plan->sets[i].chain_min_payload = 18;
	return plan;
}

static void
fill(struct rte_mbuf **m, const uint8_t *frame, size_t len)
{
	int i;

	if (rte_pktmbuf_alloc_bulk(in_pool, m, BURST) != 0) {
		fprintf(stderr, "input pool empty\n");
		exit(1);
	}
	for (i = 0; i < BURST; i++) {
		rte_memcpy(rte_pktmbuf_mtod(m[i], void *), frame, len);
		m[i]->data_len = (uint16_t)len;
		m[i]->pkt_len = (uint32_t)len;
		m[i]->ol_flags = in_ol_flags;
	}
}

/* cycles per burst of input preparation alone */
static double
prep_cost(const uint8_t *frame, size_t len, long iters)
{
	struct rte_mbuf *m[BURST];
	uint64_t t0 = rte_rdtsc();
	long it;

	for (it = 0; it < iters; it++) {
		fill(m, frame, len);
		rte_pktmbuf_free_bulk(m, BURST);
	}
	return (double)(rte_rdtsc() - t0) / iters;
}

static double
run(struct uf_worker *w, const struct uf_plan *plan, const uint8_t *frame, size_t len, long iters)
{
	struct rte_mbuf *m[BURST];
	uint64_t t0 = rte_rdtsc();
	long it;

	for (it = 0; it < iters; it++) {
		fill(m, frame, len);
		uf_worker_rx(w, plan, 0, m, BURST);
	}
	uf_worker_flush(w);
	return (double)(rte_rdtsc() - t0) / iters;
}

/* The pools and the net_null egress, started (EAL is up). 0 or -1. */
static int
bench_setup(void)
{
	struct rte_eth_conf conf;

	in_pool = rte_pktmbuf_pool_create("in", 8191, 256, 0, 2176, 0);
	copy_pool = rte_pktmbuf_pool_create("copy", 16383, 256, 0, 2176, 0);
	hdr_pool = rte_pktmbuf_pool_create("hdr", 16383, 256, 0, RTE_PKTMBUF_HEADROOM + 64, 0);
	rte_eth_dev_get_port_by_name("net_null0", &null_port);
	memset(&conf, 0, sizeof(conf));
	if (in_pool == NULL || copy_pool == NULL || hdr_pool == NULL ||
	    rte_eth_dev_configure(null_port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(null_port, 0, 512, 0, NULL, in_pool) != 0 ||
	    rte_eth_tx_queue_setup(null_port, 0, 512, 0, NULL) != 0 ||
	    rte_eth_dev_start(null_port) != 0)
		return -1;
	return 0;
}

#endif /* UF_BENCH_DP_H */
