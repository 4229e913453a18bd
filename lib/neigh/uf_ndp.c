/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_ip.h>

#include "uf_ndp.h"
#include "uf_pkt6.h"

#define ETH_LEN RTE_ETHER_HDR_LEN
#define IP6_LEN 40
#define ICMP_OFF (ETH_LEN + IP6_LEN)
#define NDP_MSG 24 /* type, code, checksum, flags/reserved, target */

#define UF_NDP_NAME(e, k, d) #k,
const char *const uf_ndp_err_names[UF_NDP_ERR_MAX] = { UF_NDP_ERRS(UF_NDP_NAME) };
#undef UF_NDP_NAME
#define UF_NDP_DESCR(e, k, d) d,
const char *const uf_ndp_err_descr[UF_NDP_ERR_MAX] = { UF_NDP_ERRS(UF_NDP_DESCR) };
#undef UF_NDP_DESCR

uint16_t
uf_icmp6_cksum(const uint8_t *src, const uint8_t *dst, const uint8_t *icmp, uint32_t len)
{
	uint64_t s = rte_raw_cksum(icmp, len);

	s += uf_ck_neg16(uf_rd16(icmp + 2)); /* the field itself counts as 0 */
	s += uf_ck_ip6(src) + uf_ck_ip6(dst);
	/* the pseudo-header's 32-bit length and next header (RFC 8200 8.1) */
	s += uf_be16((uint16_t)(len >> 16)) + uf_be16((uint16_t)len);
	s += rte_cpu_to_be_16(IPPROTO_ICMPV6);
	return (uint16_t)~uf_ck_fold(s);
}

/* the IPv6 part every ICMPv6 frame here needs; the ICMPv6 length, or -1 */
static int
icmp6_len(const uint8_t *f, uint32_t len)
{
	const uint8_t *ip = f + ETH_LEN;
	uint32_t plen;

	if (len < ICMP_OFF + 4 ||
	    uf_rd16(f + UF_ETH_TYPE) != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6) ||
	    (ip[UF_IP6_VTC] >> 4) != 6 || ip[UF_IP6_NXT] != IPPROTO_ICMPV6)
		return -1;
	plen = uf_be16(uf_rd16(ip + UF_IP6_PLEN));
	if (plen < 4 || ICMP_OFF + plen > len)
		return -1;
	return (int)plen;
}

static bool
icmp6_cksum_ok(const uint8_t *f, uint32_t plen)
{
	const uint8_t *ip = f + ETH_LEN;

	return uf_icmp6_cksum(ip + UF_IP6_SRC, ip + UF_IP6_DST, f + ICMP_OFF, plen) ==
	       uf_rd16(f + ICMP_OFF + 2);
}

/* ff02::1:ffXX:XXXX */
static bool
is_solicited_node(const struct uf_ip6 *a)
{
	struct uf_ip6 g;

	uf_ip6_solicited_node(a, &g);
	return uf_ip6_eq(a, &g);
}

/* a unicast, non-zero MAC: one a neighbour can be at */
static bool
lla_ok(const struct rte_ether_addr *a)
{
	return rte_is_unicast_ether_addr(a) && !rte_is_zero_ether_addr(a);
}

enum uf_ndp_err
uf_ndp_parse(const uint8_t *f, uint32_t len, struct uf_ndp_info *n)
{
	const uint8_t *ip = f + ETH_LEN;
	const uint8_t *m = f + ICMP_OFF;
	int plen = icmp6_len(f, len);
	bool has_slla = false, bad_lla = false;
	int off;

	if (plen < 0)
		return UF_NDP_NOT_ICMP6;
	if (m[0] != UF_ICMP6_NS && m[0] != UF_ICMP6_NA)
		return UF_NDP_TYPE;
	if (ip[UF_IP6_HLIM] != UF_NDP_HLIM)
		return UF_NDP_HOP_LIMIT;
	if (!icmp6_cksum_ok(f, (uint32_t)plen))
		return UF_NDP_CKSUM;
	if (m[1] != 0)
		return UF_NDP_CODE;
	if (plen < NDP_MSG)
		return UF_NDP_LEN;
	memset(n, 0, sizeof(*n));
	n->type = m[0];
	memcpy(n->eth_src.addr_bytes, f + UF_ETH_SRC, 6);
	memcpy(n->src.b, ip + UF_IP6_SRC, 16);
	memcpy(n->dst.b, ip + UF_IP6_DST, 16);
	memcpy(n->target.b, m + 8, 16);
	if (uf_ip6_is_mcast(&n->target))
		return UF_NDP_TARGET_MCAST;
	/* options: type, length in units of 8 bytes (never 0), within the message */
	for (off = NDP_MSG; off < plen;) {
		const uint8_t type = m[off];
		const int olen = off + 1 < plen ? m[off + 1] * 8 : 0;

		if (olen == 0 || off + olen > plen)
			return UF_NDP_OPT_LEN;
		if (type == UF_NDP_OPT_SLLA)
			has_slla = true;
		if (olen == 8 &&
		    type == (n->type == UF_ICMP6_NS ? UF_NDP_OPT_SLLA : UF_NDP_OPT_TLLA)) {
			n->has_lla = true;
			memcpy(n->lla.addr_bytes, m + off + 2, 6);
			bad_lla |= !lla_ok(&n->lla);
		}
		off += olen;
	}
	/* a neighbour is never at a group or nobody, and nothing is answered there (as an ARP
	 * sender's MAC: docs/architecture.md#neighbour-discovery) */
	if (bad_lla || !lla_ok(&n->eth_src))
		return UF_NDP_LLADDR;
	if (n->type == UF_ICMP6_NS) {
		if (uf_ip6_is_unspec(&n->src) && !is_solicited_node(&n->dst))
			return UF_NDP_DAD_DST;
		if (uf_ip6_is_unspec(&n->src) && has_slla)
			return UF_NDP_DAD_SLLA;
	} else {
		n->flags = m[4] & (UF_NA_ROUTER | UF_NA_SOLICITED | UF_NA_OVERRIDE);
		if (uf_ip6_is_mcast(&n->dst) && (n->flags & UF_NA_SOLICITED))
			return UF_NDP_SOLICITED_MCAST;
	}
	return UF_NDP_OK;
}

/* Ethernet and IPv6 headers of an NDP frame, the message's checksum; the frame's length */
static uint16_t
ndp_frame(uint8_t *f, const struct rte_ether_addr *eth_dst, const struct rte_ether_addr *our_mac,
	  const struct uf_ip6 *src, const struct uf_ip6 *dst, uint16_t mlen)
{
	uint8_t *ip = f + ETH_LEN;
	uint8_t *m = f + ICMP_OFF;
	uint16_t ck;

	memcpy(f, eth_dst->addr_bytes, 6);
	memcpy(f + UF_ETH_SRC, our_mac->addr_bytes, 6);
	*(rte_be16_t *)(f + UF_ETH_TYPE) = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	memset(ip, 0, IP6_LEN);
	ip[UF_IP6_VTC] = 0x60;
	*(rte_be16_t *)(ip + UF_IP6_PLEN) = rte_cpu_to_be_16(mlen);
	ip[UF_IP6_NXT] = IPPROTO_ICMPV6;
	ip[UF_IP6_HLIM] = UF_NDP_HLIM;
	memcpy(ip + UF_IP6_SRC, src->b, 16);
	memcpy(ip + UF_IP6_DST, dst->b, 16);
	m[2] = m[3] = 0;
	ck = uf_icmp6_cksum(src->b, dst->b, m, mlen);
	memcpy(m + 2, &ck, 2);
	return (uint16_t)(ICMP_OFF + mlen);
}

uint16_t
uf_ndp_ns_build(uint8_t *f, const struct rte_ether_addr *our_mac, const struct uf_ip6 *src,
		const struct uf_ip6 *target, const struct uf_ip6 *dst,
		const struct rte_ether_addr *dst_mac)
{
	uint8_t *m = f + ICMP_OFF;
	struct uf_ip6 sn;
	struct rte_ether_addr sn_mac;
	uint16_t mlen = NDP_MSG;

	if (dst == NULL) {
		uf_ip6_solicited_node(target, &sn);
		uf_ip6_mcast_mac(&sn, &sn_mac);
		dst = &sn;
		dst_mac = &sn_mac;
	}
	memset(m, 0, NDP_MSG + 8);
	m[0] = UF_ICMP6_NS;
	memcpy(m + 8, target->b, 16);
	if (!uf_ip6_is_unspec(src)) { /* DAD's NS carries no SLLA (RFC 4862 5.4.2) */
		m[NDP_MSG] = UF_NDP_OPT_SLLA;
		m[NDP_MSG + 1] = 1;
		memcpy(m + NDP_MSG + 2, our_mac->addr_bytes, 6);
		mlen += 8;
	}
	return ndp_frame(f, dst_mac, our_mac, src, dst, mlen);
}

uint16_t
uf_ndp_na_build(uint8_t *f, const struct rte_ether_addr *our_mac, const struct uf_ip6 *src,
		const struct uf_ip6 *dst, const struct rte_ether_addr *dst_mac,
		const struct uf_ip6 *target, uint8_t flags)
{
	uint8_t *m = f + ICMP_OFF;

	memset(m, 0, NDP_MSG + 8);
	m[0] = UF_ICMP6_NA;
	m[4] = flags & (UF_NA_ROUTER | UF_NA_SOLICITED | UF_NA_OVERRIDE);
	memcpy(m + 8, target->b, 16);
	m[NDP_MSG] = UF_NDP_OPT_TLLA;
	m[NDP_MSG + 1] = 1;
	memcpy(m + NDP_MSG + 2, our_mac->addr_bytes, 6);
	return ndp_frame(f, dst_mac, our_mac, src, dst, NDP_MSG + 8);
}

enum uf_ndp_err
uf_icmp6_echo_reply(uint8_t *f, uint32_t len, const struct rte_ether_addr *our_mac,
		    const struct uf_ip6 *our_ip)
{
	uint8_t *ip = f + ETH_LEN;
	uint8_t *m = f + ICMP_OFF;
	const struct rte_ether_addr *smac = (const struct rte_ether_addr *)(f + UF_ETH_SRC);
	int plen = icmp6_len(f, len);
	struct uf_ip6 src, dst;
	uint16_t ck;

	if (plen < 0)
		return UF_NDP_NOT_ICMP6;
	if (m[0] != UF_ICMP6_ECHO_REQUEST)
		return UF_NDP_TYPE;
	if (!icmp6_cksum_ok(f, (uint32_t)plen))
		return UF_NDP_CKSUM;
	if (m[1] != 0)
		return UF_NDP_CODE;
	if (plen < 8) /* identifier and sequence number */
		return UF_NDP_LEN;
	memcpy(src.b, ip + UF_IP6_SRC, 16);
	memcpy(dst.b, ip + UF_IP6_DST, 16);
	/* the answer goes back to the sender: never to a group or nobody (as for IPv4) */
	if (uf_ip6_is_mcast(&src) || uf_ip6_is_unspec(&src) || !rte_is_unicast_ether_addr(smac) ||
	    rte_is_zero_ether_addr(smac))
		return UF_NDP_SENDER;

	memcpy(f, f + UF_ETH_SRC, 6);
	memcpy(f + UF_ETH_SRC, our_mac->addr_bytes, 6);
	memcpy(ip + UF_IP6_SRC, uf_ip6_is_mcast(&dst) ? our_ip->b : dst.b, 16);
	memcpy(ip + UF_IP6_DST, src.b, 16);
	ip[UF_IP6_HLIM] = UF_ICMP6_REPLY_HOP_LIMIT;
	m[0] = UF_ICMP6_ECHO_REPLY;
	ck = uf_icmp6_cksum(ip + UF_IP6_SRC, ip + UF_IP6_DST, m, (uint32_t)plen);
	memcpy(m + 2, &ck, 2);
	return UF_NDP_OK;
}
