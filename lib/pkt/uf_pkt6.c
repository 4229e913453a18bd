/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_mbuf_core.h>

#include "uf_pkt6.h"

#define ETH_LEN RTE_ETHER_HDR_LEN

enum uf_verdict
uf_classify6(const uint8_t *f, uint32_t len, uint64_t rx_ck, const struct uf_port6_id *port,
	     struct uf_rx6_info *info, enum uf_drop *reason)
{
	const uint8_t *ip = f + ETH_LEN;
	const uint8_t *udp = ip + UF_IP6_HDR;
	const struct rte_ether_addr *dmac = (const struct rte_ether_addr *)f;
	uint32_t plen, ulen;
	uint8_t nh;
	int dst;

	if (len < ETH_LEN + UF_IP6_HDR || (ip[UF_IP6_VTC] >> 4) != 6)
		return uf_drop_as(reason, UF_DROP_MALFORMED);
	plen = uf_be16(uf_rd16(ip + UF_IP6_PLEN));
	nh = ip[UF_IP6_NXT];
	if (ETH_LEN + UF_IP6_HDR + plen > len)
		return uf_drop_as(reason, UF_DROP_MALFORMED);
	if (len > port->max_len || ETH_LEN + UF_IP6_HDR + plen > port->max_len)
		return uf_drop_as(reason,
				  ETH_LEN + UF_IP6_HDR + plen > port->max_len && nh == IPPROTO_UDP
						  ? UF_DROP_GRO_COALESCED
						  : UF_DROP_TOO_LONG);
	dst = uf_port6_addr(port, ip + UF_IP6_DST);
	if (nh == UF_IP6_NH_ICMP6) {
		/* NDP and echo: to our MAC and address, or to a group of ours on its 33:33 MAC */
		const bool uni = dst >= 0 && rte_is_same_ether_addr(dmac, &port->mac);
		const bool grp = dmac->addr_bytes[0] == 0x33 && dmac->addr_bytes[1] == 0x33 &&
				 uf_port6_mcast_ours(port, ip + UF_IP6_DST);
		const struct rte_ether_addr *smac = (const struct rte_ether_addr *)(f + UF_ETH_SRC);

		if (!uni && !grp)
			return uf_drop_as(reason, UF_DROP_NOT_FOR_US);
		if (plen < 4 || !rte_is_unicast_ether_addr(smac) || rte_is_zero_ether_addr(smac))
			return uf_drop_as(reason, UF_DROP_MALFORMED);
		return UF_V_CONTROL;
	}
	if (dst < 0 || !rte_is_same_ether_addr(dmac, &port->mac))
		return uf_drop_as(reason, UF_DROP_NOT_FOR_US);
	if (nh == UF_IP6_NH_FRAGMENT)
		return uf_drop_as(reason, UF_DROP_FRAGMENT);
	if (uf_ip6_is_ext_hdr(nh))
		return uf_drop_as(reason, UF_DROP_IPV6_EXT_HDR);
	if (nh == IPPROTO_TCP && port->hc_tcp != 0 && plen >= 4 &&
	    uf_rd16(udp + UF_UDP_DPORT) == port->hc_tcp)
		return UF_V_CONTROL; /* a health check: the same offset as UDP's */
	if (nh != IPPROTO_UDP)
		return uf_drop_as(reason, UF_DROP_NOT_UDP);
	if (plen < UF_UDP_HDR)
		return uf_drop_as(reason, UF_DROP_MALFORMED);
	ulen = uf_be16(uf_rd16(udp + UF_UDP_LEN));
	if (ulen < UF_UDP_HDR || ulen > plen)
		return uf_drop_as(reason, UF_DROP_MALFORMED);
	if (!port->listen ||
	    (port->listen_udp != 0 && uf_rd16(udp + UF_UDP_DPORT) != port->listen_udp))
		return uf_drop_as(reason, UF_DROP_NOT_FOR_US);
	if ((rx_ck & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_BAD ||
	    uf_rd16(udp + UF_UDP_CKSUM) == 0)
		return uf_drop_as(reason, UF_DROP_MALFORMED);

	info->payload_off = UF_HDR6_LEN;
	info->payload_len = (uint16_t)(ulen - UF_UDP_HDR);
	memcpy(info->src_ip6.b, ip + UF_IP6_SRC, 16);
	info->dst_idx = (uint8_t)dst;
	info->src_port = uf_rd16(udp + UF_UDP_SPORT);
	/* traffic class: the 8 bits after the version; DSCP kept, ECN not */
	info->tclass = (uint8_t)(((ip[0] & 0x0f) << 4 | ip[1] >> 4) & 0xfc);
	info->udp_cksum = uf_rd16(udp + UF_UDP_CKSUM);
	return UF_V_FORWARD;
}

bool
uf_classify6_svc(const uint8_t *f, uint32_t len, uint64_t rx_ck, const struct uf_port6_id *port,
		 const struct uf_ip6 *svc, struct uf_rx6_info *info, enum uf_drop *reason,
		 enum uf_verdict *v)
{
	struct uf_port6_id as;
	struct uf_ip6 g;
	const uint8_t *dst = f + ETH_LEN + UF_IP6_DST;

	if (len < ETH_LEN + UF_IP6_HDR)
		return false;
	if (memcmp(dst, svc->b, 16) != 0) {
		uf_ip6_solicited_node(svc, &g);
		if (memcmp(dst, g.b, 16) != 0)
			return false;
	}
	as = *port;
	as.n_ip6 = 1;
	as.ip6[0] = *svc;
	*v = uf_classify6(f, len, rx_ck, &as, info, reason);
	return true;
}

bool
uf_udp6_cksum_ok(const uint8_t *f)
{
	const uint8_t *ip = f + ETH_LEN;
	const uint8_t *udp = ip + UF_IP6_HDR;
	const uint16_t ulen = uf_be16(uf_rd16(udp + UF_UDP_LEN));
	uint32_t s;

	if (uf_rd16(udp + UF_UDP_CKSUM) == 0)
		return false;
	s = rte_raw_cksum(udp, ulen);
	s += uf_ck_ip6(ip + UF_IP6_SRC) + uf_ck_ip6(ip + UF_IP6_DST);
	s += rte_cpu_to_be_16(IPPROTO_UDP) + uf_be16(ulen);
	return uf_ck_fold(s) == 0xffff;
}

int
uf_tmpl6_build(struct uf_tmpl6 *t, const struct uf_tmpl6_spec *s)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)t->hdr;
	uint8_t *ip = t->hdr + ETH_LEN;
	uint8_t *udp = ip + UF_IP6_HDR;
	uint32_t d;

	memset(t, 0, sizeof(*t));
	if (s->keep_src_ip && !s->in_is_ip6)
		return -1;
	rte_ether_addr_copy(&s->dst_mac, &eth->dst_addr);
	rte_ether_addr_copy(&s->src_mac, &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	ip[UF_IP6_VTC] = 0x60; /* version 6; class written per copy; flow label 0 */
	ip[UF_IP6_NXT] = IPPROTO_UDP;
	ip[UF_IP6_HLIM] = s->hop_limit;
	if (!s->keep_src_ip)
		memcpy(ip + UF_IP6_SRC, s->src_ip6.b, 16);
	memcpy(ip + UF_IP6_DST, s->dst_ip6.b, 16);
	if (!s->keep_src_port)
		memcpy(udp + UF_UDP_SPORT, &s->src_port, 2);
	memcpy(udp + UF_UDP_DPORT, &s->dst_port, 2);

	t->keep_src_ip = s->keep_src_ip;
	t->keep_sport = s->keep_src_port;
	t->src_neg_mask = s->keep_src_ip ? 0 : UINT32_MAX;
	t->sport_neg_mask = s->keep_src_port ? 0 : UINT32_MAX;

	d = s->in_is_ip6 ? uf_ck_neg_ip6(s->in_dst_ip6.b) : uf_ck_neg32(s->in_dst_ip);
	d += uf_ck_ip6(s->dst_ip6.b);
	d += uf_ck_neg16(s->in_dst_port) + s->dst_port;
	if (!s->keep_src_ip)
		d += uf_ck_ip6(s->src_ip6.b);
	if (!s->keep_src_port)
		d += s->src_port;
	t->udp_delta = d;
	return 0;
}

int
uf_tmpl_from6(struct uf_tmpl *t, const struct uf_tmpl_spec *s, const struct uf_ip6 *in_dst6)
{
	uint32_t d;

	if (s->keep_src_ip)
		return -1;
	d = uf_ck_neg_ip6(in_dst6->b);
	d = uf_ck_add32(d, s->dst_ip);
	d += uf_ck_neg16(s->in_dst_port) + s->dst_port;
	d = uf_ck_add32(d, s->src_ip);
	if (!s->keep_src_port)
		d += s->src_port;
	t->udp_delta = d;
	return 0;
}
