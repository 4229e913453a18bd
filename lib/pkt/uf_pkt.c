/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_mbuf_core.h>

#include "uf_pkt.h"

#define ETH_LEN RTE_ETHER_HDR_LEN

enum uf_verdict
uf_classify_arp(const uint8_t *f, uint32_t len, const struct uf_port_id *port, enum uf_drop *reason)
{
	struct uf_arp_info a;

	if (uf_arp_parse(f, len, &a) < 0)
		return uf_drop_as(reason, UF_DROP_MALFORMED);
	/* requests for our address; replies (learned if we asked or care); gratuitous ARP */
	if (a.op == RTE_ARP_OP_REQUEST && a.tip == port->ip)
		return UF_V_CONTROL;
	if (a.op == RTE_ARP_OP_REPLY &&
	    rte_is_same_ether_addr((const struct rte_ether_addr *)f, &port->mac))
		return UF_V_CONTROL;
	if (a.sip == a.tip && a.sip != 0)
		return UF_V_CONTROL;
	return uf_drop_as(reason, UF_DROP_NOT_FOR_US);
}

enum uf_verdict
uf_classify(const uint8_t *f, uint32_t len, uint64_t rx_ck, const struct uf_port_id *port,
	    struct uf_rx_info *info, enum uf_drop *reason)
{
	return uf_classify_dp(f, len, rx_ck, port, info, reason);
}

rte_be32_t
uf_svc_dst4(const uint8_t *f, uint32_t len)
{
	struct uf_arp_info a;
	uint16_t etype;

	if (len < ETH_LEN + UF_IPV4_HDR_MIN)
		return 0;
	etype = uf_rd16(f + UF_ETH_TYPE);
	if (etype == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return uf_rd32(f + ETH_LEN + UF_IP_DST);
	if (etype == rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP) && uf_arp_parse(f, len, &a) == 0 &&
	    a.op == RTE_ARP_OP_REQUEST)
		return a.tip;
	return 0;
}

enum uf_verdict
uf_classify_svc(const uint8_t *f, uint32_t len, uint64_t rx_ck, const struct uf_port_id *port,
		rte_be32_t svc, struct uf_rx_info *info, enum uf_drop *reason, bool any_dst)
{
	struct uf_port_id as = *port;

	as.ip = svc;
	return uf_classify_full_ex(f, len, rx_ck, &as, info, reason, any_dst);
}

void
uf_tmpl_build(struct uf_tmpl *t, const struct uf_tmpl_spec *s)
{
	const uint32_t l2 = s->vlan ? UF_ETH_VLAN_LEN : ETH_LEN;
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)t->hdr;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(t->hdr + l2);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(t->hdr + l2 + 20);
	const rte_be16_t ipv4 = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	uint32_t d;

	memset(t, 0, sizeof(*t));
	t->hdr_len = (uint8_t)(l2 + 20 + 8);
	rte_ether_addr_copy(&s->dst_mac, &eth->dst_addr);
	rte_ether_addr_copy(&s->src_mac, &eth->src_addr);
	if (s->vlan) {
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(t->hdr + ETH_LEN);

		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		vh->vlan_tci = rte_cpu_to_be_16(s->vlan_tci);
		vh->eth_proto = ipv4;
	} else {
		eth->ether_type = ipv4;
	}
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->fragment_offset = rte_cpu_to_be_16(UF_IP_DF);
	ip->time_to_live = s->ttl;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = s->keep_src_ip ? 0 : s->src_ip;
	ip->dst_addr = s->dst_ip;
	udp->src_port = s->keep_src_port ? 0 : s->src_port;
	udp->dst_port = s->dst_port;

	/* every word of the IPv4 header that the template fixes; the rest is added per copy */
	t->ip_base = rte_raw_cksum(ip, 20);

	t->keep_src_ip = s->keep_src_ip;
	t->keep_sport = s->keep_src_port;
	t->plain = !s->vlan && !s->keep_src_ip;

	d = uf_ck_neg32(s->in_dst_ip);
	d = uf_ck_add32(d, s->dst_ip);
	d += uf_ck_neg16(s->in_dst_port) + s->dst_port;
	if (!s->keep_src_ip)
		d = uf_ck_add32(d, s->src_ip);
	if (!s->keep_src_port)
		d += s->src_port;
	t->udp_delta = d;
}

uint16_t
uf_arp_build(uint8_t *f, uint16_t op, const struct rte_ether_addr *eth_dst,
	     const struct rte_ether_addr *sha, rte_be32_t sip, const struct rte_ether_addr *tha,
	     rte_be32_t tip)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)f;
	struct rte_arp_hdr *arp = (struct rte_arp_hdr *)(f + ETH_LEN);

	memset(f, 0, UF_MIN_FRAME);
	rte_ether_addr_copy(eth_dst, &eth->dst_addr);
	rte_ether_addr_copy(sha, &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	arp->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = RTE_ETHER_ADDR_LEN;
	arp->arp_plen = 4;
	arp->arp_opcode = rte_cpu_to_be_16(op);
	rte_ether_addr_copy(sha, &arp->arp_data.arp_sha);
	arp->arp_data.arp_sip = sip;
	rte_ether_addr_copy(tha, &arp->arp_data.arp_tha);
	arp->arp_data.arp_tip = tip;
	return UF_MIN_FRAME;
}

int
uf_arp_parse(const uint8_t *f, uint32_t len, struct uf_arp_info *a)
{
	const struct rte_arp_hdr *arp = (const struct rte_arp_hdr *)(f + ETH_LEN);
	uint16_t op;

	if (len < ETH_LEN + sizeof(struct rte_arp_hdr))
		return -1;
	if (arp->arp_hardware != rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) ||
	    arp->arp_protocol != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    arp->arp_hlen != RTE_ETHER_ADDR_LEN || arp->arp_plen != 4)
		return -1;
	op = rte_be_to_cpu_16(arp->arp_opcode);
	if (op != RTE_ARP_OP_REQUEST && op != RTE_ARP_OP_REPLY)
		return -1;
	a->op = op;
	memcpy(&a->sha, &arp->arp_data.arp_sha, sizeof(a->sha));
	memcpy(&a->sip, &arp->arp_data.arp_sip, sizeof(a->sip));
	memcpy(&a->tha, &arp->arp_data.arp_tha, sizeof(a->tha));
	memcpy(&a->tip, &arp->arp_data.arp_tip, sizeof(a->tip));
	/* a sender that claims a multicast/broadcast or zero MAC is not a neighbour */
	if (!rte_is_unicast_ether_addr(&a->sha) || rte_is_zero_ether_addr(&a->sha))
		return -1;
	return 0;
}

int
uf_icmp_echo_reply(uint8_t *f, uint32_t len, const struct rte_ether_addr *our_mac)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)f;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + ETH_LEN);
	struct rte_icmp_hdr *icmp;
	uint32_t ihl, tot, s;
	rte_be32_t a;

	if (len < ETH_LEN + 20)
		return -1;
	ihl = (uint32_t)(ip->version_ihl & 0xf) * 4;
	tot = rte_be_to_cpu_16(ip->total_length);
	if (ihl < 20 || tot < ihl + sizeof(*icmp) || ETH_LEN + tot > len)
		return -1;
	icmp = (struct rte_icmp_hdr *)((uint8_t *)ip + ihl);
	if (icmp->icmp_type != UF_ICMP_ECHO_REQUEST || icmp->icmp_code != 0)
		return -1;
	if (rte_raw_cksum(icmp, tot - ihl) != 0xffff)
		return -1;
	/* the answer goes to the request's sender MAC: never to a group or nobody (as ARP) */
	if (!rte_is_unicast_ether_addr(&eth->src_addr) || rte_is_zero_ether_addr(&eth->src_addr))
		return -1;

	rte_ether_addr_copy(&eth->src_addr, &eth->dst_addr);
	rte_ether_addr_copy(our_mac, &eth->src_addr);
	a = ip->src_addr;
	ip->src_addr = ip->dst_addr;
	ip->dst_addr = a;
	ip->time_to_live = 64;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	/* type 8 → 0: the checksum moves by 0x0800 in the first word (RFC 1624) */
	icmp->icmp_type = UF_ICMP_ECHO_REPLY;
	s = uf_ck_neg16(icmp->icmp_cksum) + uf_ck_neg16(rte_cpu_to_be_16(0x0800));
	icmp->icmp_cksum = (uint16_t)~uf_ck_fold(s);
	if (icmp->icmp_cksum == 0)
		icmp->icmp_cksum = 0xffff; /* -0: the sum of an all-zero message verifies only so */
	return 0;
}
