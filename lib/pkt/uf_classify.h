/* SPDX-License-Identifier: BSD-3-Clause
 * Frames: the classifier (a port's identity, the verdicts, the fast test and the careful
 * walk, service addresses). Included through uf_pkt.h.
 */
#ifndef UF_CLASSIFY_H
#define UF_CLASSIFY_H

#include "uf_csum.h"

/* ---- classification ---- */

/* Per-port facts the classifier needs; fixed for the life of the process. */
struct uf_port_id {
	struct rte_ether_addr mac;
	rte_be32_t ip;
	bool listen;       /* UDP to listen_udp on this port is forwarded */
	bool partial_csum; /* may carry partial UDP checksums: uf_csum_complete (quirk row) */
	rte_be16_t listen_udp;
	/* RX checksum flag bits not to be believed on this port (uf_port_plan.rx_ck_ignore:
	 * the verdicts of an offload it did not enable): the classifier reads the flags
	 * without them (docs/pmd-quirks.md, "RX checksum verdicts"); 0: all believed */
	uint64_t rx_ck_ignore;
	/* the longest frame the port's MTU admits (MTU + 14, untagged); anything longer is
	 * dropped as too_long or gro_coalesced (docs/loss-accounting.md) */
	uint32_t max_len;
	/* health.tcp_port (network order): TCP to it on our IP goes to the control lcore
	 * (docs/deployment.md#health-checks-on-the-port); 0: none */
	rte_be16_t hc_tcp;
};

/* max_len for an MTU (0: the MTU is unknown, no frame is too long) */
static inline uint32_t
uf_port_max_len(uint32_t mtu)
{
	return mtu != 0 ? mtu + RTE_ETHER_HDR_LEN : UINT32_MAX;
}

/*
 * A frame longer than the port's MTU (max_len), or whose IPv4 total length is (the af_packet
 * PMD cuts a frame at its ring slot; docs/pmd-quirks.md): no such frame crossed the wire.
 * A UDP datagram of that size is several joined by GSO passed through a veth or by GRO
 * (gro_coalesced); anything else (trailing bytes past a short datagram included) is too_long. Their boundaries are lost, so neither is
 * split (docs/loss-accounting.md#frames-longer-than-the-mtu).
 */
static inline bool
uf_too_long(const uint8_t *ip, uint32_t len, const struct uf_port_id *port, enum uf_drop *reason)
{
	const bool tot_long = RTE_ETHER_HDR_LEN + (uint32_t)uf_be16(uf_rd16(ip + UF_IP_LEN)) >
			      port->max_len;

	if (likely(len <= port->max_len && !tot_long))
		return false;
	*reason = tot_long && ip[UF_IP_PROTO] == IPPROTO_UDP ? UF_DROP_GRO_COALESCED
							     : UF_DROP_TOO_LONG;
	return true;
}

enum uf_verdict {
	UF_V_FORWARD = 0, /* a datagram to fan out; info filled */
	UF_V_CONTROL,     /* ARP or ICMP for the control plane */
	UF_V_DROP,        /* *reason filled */
};

/* What the fan-out needs to know about a datagram, read before its headers are rewritten. */
struct uf_rx_info {
	uint16_t payload_off; /* from the start of the frame */
	uint16_t payload_len;
	rte_be32_t src_ip;
	rte_be16_t src_port;
	rte_be16_t ip_id;
	uint8_t tos;
	uint16_t udp_cksum; /* as on the wire; 0 = none */
};

enum uf_verdict uf_classify_arp(const uint8_t *f, uint32_t len, const struct uf_port_id *port,
				enum uf_drop *reason);

static inline enum uf_verdict
uf_drop_as(enum uf_drop *reason, enum uf_drop why)
{
	*reason = why;
	return UF_V_DROP;
}

/* An IPv4 header sums to 0xffff. Without options: five 32-bit words added as integers
 * (2^16 = 1 mod 2^16 - 1, so the integer sum S is congruent to the ones-complement sum). The
 * folded sum is 0xffff exactly when S is a non-zero multiple of 0xffff; S is never 0 (the
 * version byte), and a remainder by a constant is a multiply, where the four dependent folding
 * steps were the classifier's longest chain (perf: a quarter of its samples). */
static inline bool
uf_ipv4_hdr_ok(const uint8_t *ip, uint32_t ihl)
{
	if (likely(ihl == UF_IPV4_HDR_MIN)) {
		const uint64_t s = (uint64_t)uf_rd32(ip) + uf_rd32(ip + 4) + uf_rd32(ip + 8) +
				   uf_rd32(ip + 12) + uf_rd32(ip + 16);

		return s % 0xffff == 0 && s != 0;
	}
	return rte_raw_cksum(ip, ihl) == 0xffff;
}

/* The same for a header without options whose version byte is known to be 0x45 (the fast
 * test's pattern): then the sum is never 0 and needs no test. Two 64-bit words and one 32-bit
 * one, added with end-around carry (a sum modulo 2^64 - 1, which 0xffff divides: the same
 * remainder as the integer sum): four adds where uf_ipv4_hdr_ok has five loads and four. */
static __rte_always_inline bool
uf_ipv4_hdr_ok_45(const uint8_t *ip)
{
	uint64_t a, b, s;

	memcpy(&a, ip, 8);
	memcpy(&b, ip + 8, 8);
	s = a + b;
	s += s < a; /* the carry out, back in at the bottom */
	a = s;
	s += uf_rd32(ip + 16);
	s += s < a;
	return s % 0xffff == 0;
}

/*
 * Classify one frame. `rx_ck` are the mbuf's RX flags (RTE_MBUF_F_RX_IP_CKSUM_* and
 * RTE_MBUF_F_RX_L4_CKSUM_*): a NIC-verified IPv4 header is not summed again, and a frame the
 * NIC found bad is dropped as malformed; RTE_MBUF_F_RX_VLAN_STRIPPED: it was tagged. This is the careful version, reason by reason; the
 * worker first tries uf_classify_dp's fast test and comes here only when that fails.
 * uf_classify_full_ex takes the flags the port believes (rx_ck without port->rx_ck_ignore:
 * the caller's AND, uf_dp_pat.ck_keep); uf_classify_full and the fast test apply it.
 */
/* any_dst: a UDP datagram to any IP on the port and any UDP port passes; the caller finds
 * its listener (uf_plan_listener) and calls a miss not_for_us (docs/architecture.md#listeners) */
static inline enum uf_verdict
uf_classify_full_ex(const uint8_t *f, uint32_t len, uint64_t rx_ck, const struct uf_port_id *port,
		    struct uf_rx_info *info, enum uf_drop *reason, const bool any_dst)
{
	const uint8_t *ip = f + RTE_ETHER_HDR_LEN;
	uint16_t etype, tot, ulen;
	uint32_t ihl;

	if (unlikely(len < RTE_ETHER_HDR_LEN))
		return uf_drop_as(reason, UF_DROP_MALFORMED);
	/* a tag the PMD took out of the frame (af_packet moves the kernel's tp_vlan_tci there) */
	if (unlikely(rx_ck & RTE_MBUF_F_RX_VLAN_STRIPPED))
		return uf_drop_as(reason, UF_DROP_VLAN_UNKNOWN);
	etype = uf_rd16(f + UF_ETH_TYPE);
	if (unlikely(etype != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))) {
		/* (an ARP frame is never a datagram to forward: say so to the compiler) */
		if (etype == rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP))
			return uf_classify_arp(f, len, port, reason) == UF_V_CONTROL ? UF_V_CONTROL
										     : UF_V_DROP;
		if (etype == rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN) ||
		    etype == rte_cpu_to_be_16(RTE_ETHER_TYPE_QINQ))
			return uf_drop_as(reason, UF_DROP_VLAN_UNKNOWN);
		return uf_drop_as(reason, UF_DROP_NOT_IPV4);
	}
	if (unlikely(!rte_is_same_ether_addr((const struct rte_ether_addr *)f, &port->mac)))
		return uf_drop_as(reason, UF_DROP_NOT_FOR_US);
	if (unlikely(len < RTE_ETHER_HDR_LEN + UF_IPV4_HDR_MIN || (ip[UF_IP_VHL] >> 4) != 4))
		return uf_drop_as(reason, UF_DROP_MALFORMED);
	if (unlikely(uf_too_long(ip, len, port, reason)))
		return UF_V_DROP;
	ihl = (uint32_t)(ip[UF_IP_VHL] & RTE_IPV4_HDR_IHL_MASK) * RTE_IPV4_IHL_MULTIPLIER;
	tot = uf_be16(uf_rd16(ip + UF_IP_LEN));
	if (unlikely(ihl < UF_IPV4_HDR_MIN || tot < ihl + UF_UDP_HDR ||
		     RTE_ETHER_HDR_LEN + (uint32_t)tot > len)) {
		/* too short for UDP: another protocol to us goes through the checks below too */
		if (!(ihl >= UF_IPV4_HDR_MIN && tot >= ihl &&
		      RTE_ETHER_HDR_LEN + (uint32_t)tot <= len && ip[UF_IP_PROTO] != IPPROTO_UDP &&
		      uf_rd32(ip + UF_IP_DST) == port->ip))
			return uf_drop_as(reason, UF_DROP_MALFORMED);
	}
	if (unlikely((rx_ck & RTE_MBUF_F_RX_IP_CKSUM_MASK) == RTE_MBUF_F_RX_IP_CKSUM_BAD))
		return uf_drop_as(reason, UF_DROP_MALFORMED);
	if ((rx_ck & RTE_MBUF_F_RX_IP_CKSUM_MASK) != RTE_MBUF_F_RX_IP_CKSUM_GOOD &&
	    unlikely(!uf_ipv4_hdr_ok(ip, ihl)))
		return uf_drop_as(reason, UF_DROP_MALFORMED);
	if (unlikely(uf_rd32(ip + UF_IP_DST) != port->ip) &&
	    !(any_dst && ip[UF_IP_PROTO] == IPPROTO_UDP))
		return uf_drop_as(reason, UF_DROP_NOT_FOR_US);
	/* MF or a fragment offset: compared in network order, no swap */
	if (unlikely((uf_rd16(ip + UF_IP_FRAG) &
		      rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) != 0))
		return uf_drop_as(reason, UF_DROP_FRAGMENT);
	if (unlikely(ip[UF_IP_PROTO] != IPPROTO_UDP))
		goto not_udp;
	ulen = uf_be16(uf_rd16(ip + ihl + UF_UDP_LEN));
	if (unlikely(ulen < UF_UDP_HDR || ulen > tot - ihl))
		return uf_drop_as(reason, UF_DROP_MALFORMED);
	if (unlikely(!port->listen ||
		     (!any_dst && uf_rd16(ip + ihl + UF_UDP_DPORT) != port->listen_udp)))
		return uf_drop_as(reason, UF_DROP_NOT_FOR_US);
	if (unlikely((rx_ck & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_BAD))
		return uf_drop_as(reason, UF_DROP_MALFORMED);

	info->payload_off = (uint16_t)(RTE_ETHER_HDR_LEN + ihl + UF_UDP_HDR);
	info->payload_len = (uint16_t)(ulen - UF_UDP_HDR);
	info->src_ip = uf_rd32(ip + UF_IP_SRC);
	info->src_port = uf_rd16(ip + ihl + UF_UDP_SPORT);
	info->ip_id = uf_rd16(ip + UF_IP_ID);
	info->tos = ip[UF_IP_TOS] & 0xfc; /* DSCP kept, ECN not */
	info->udp_cksum = uf_rd16(ip + ihl + UF_UDP_CKSUM);
	return UF_V_FORWARD;

not_udp:
	if (ip[UF_IP_PROTO] == IPPROTO_ICMP) {
		if (unlikely(uf_rd32(ip + UF_IP_DST) != port->ip))
			return uf_drop_as(reason, UF_DROP_NOT_FOR_US);
		/* shorter than an ICMP header; or a sender MAC no answer may go to (as for ARP) */
		if (unlikely(tot < ihl + (int)sizeof(struct rte_icmp_hdr) ||
			     !rte_is_unicast_ether_addr(
					     (const struct rte_ether_addr *)(f + UF_ETH_SRC)) ||
			     rte_is_zero_ether_addr(
					     (const struct rte_ether_addr *)(f + UF_ETH_SRC))))
			return uf_drop_as(reason, UF_DROP_MALFORMED);
		return UF_V_CONTROL;
	}
	/* a health check (docs/deployment.md#health-checks-on-the-port): the control lcore
	 * answers it; TCP to any other port stays not_udp */
	if (ip[UF_IP_PROTO] == IPPROTO_TCP && port->hc_tcp != 0 && port->ip != 0 &&
	    uf_rd32(ip + UF_IP_DST) == port->ip && tot >= ihl + 4 &&
	    uf_rd16(ip + ihl + 2) == port->hc_tcp)
		return UF_V_CONTROL;
	return uf_drop_as(reason, UF_DROP_NOT_UDP);
}

static inline enum uf_verdict
uf_classify_full(const uint8_t *f, uint32_t len, uint64_t rx_ck, const struct uf_port_id *port,
		 struct uf_rx_info *info, enum uf_drop *reason)
{
	/* only the verdicts the port believes (docs/pmd-quirks.md, "RX checksum verdicts") */
	return uf_classify_full_ex(f, len, rx_ck & ~port->rx_ck_ignore, port, info, reason, false);
}

/*
 * The fast test's fixed fields (x86 with SSE4.1: RTE_ARCH_X86 and __SSE4_1__, unless meson's
 * simd=false defines UF_NO_SIMD: docs/testing.md#scalar): bytes 0..47
 * of a frame as three 16-byte words, each XORed with what it must hold and tested under a
 * mask (PTEST), so the destination MAC, the EtherType, version/IHL, the fragment bits, the
 * protocol, our IP and our UDP port of one frame cost a dozen instructions, not one compare
 * each. Built once per burst (uf_dp_pat_init); where the vector unit is missing the scalar
 * test below does the same with the same verdicts (docs/benchmarks.md#instructions-per-datagram).
 */
#if defined(RTE_ARCH_X86) && defined(__SSE4_1__) && !defined(UF_NO_SIMD)
#include "arch/uf_simd_x86.h"
#else
#include "arch/uf_simd_generic.h"
#endif

struct uf_dp_pat {
	UF_DP_PAT_ARCH /* the fast test's fixed fields (arch/uf_simd_*.h) */
			/* port->max_len, or 0 where the port does not listen: no frame passes */
			uint32_t max_len;
	/* the RX flags that send a frame to the careful path (BAD, NONE: the BAD bit; a
	 * stripped tag) and the IPv4 GOOD bit, less those the port does not believe
	 * (port->rx_ck_ignore): the fast test's masks, in place of constants; ck_keep: every
	 * flag but those, for the caller's partial-checksum test */
	uint64_t ck_bad, ck_good, ck_keep;
};

/* what the fast test passed gives: an untagged IPv4 datagram without options, UDP length ulen */
static __rte_always_inline void
uf_fast_info(struct uf_rx_info *info, const uint8_t *ip, const uint8_t *udp, uint32_t ulen)
{
	info->payload_off = UF_HDR_LEN;
	info->payload_len = (uint16_t)(ulen - UF_UDP_HDR);
	info->src_ip = uf_rd32(ip + UF_IP_SRC);
	info->src_port = uf_rd16(udp + UF_UDP_SPORT);
	info->ip_id = uf_rd16(ip + UF_IP_ID);
	info->tos = ip[UF_IP_TOS] & 0xfc; /* DSCP kept, ECN not */
	info->udp_cksum = uf_rd16(udp + UF_UDP_CKSUM);
}

#if UF_DP_SIMD
#include "arch/uf_classify_x86.h"
#else
#include "arch/uf_classify_generic.h"
#endif

static __rte_always_inline void
uf_dp_pat_init(struct uf_dp_pat *p, const struct uf_port_id *port, const bool any_dst)
{
	uf_dp_pat_init_arch(p, port, any_dst);
	p->max_len = port->listen ? port->max_len : 0;
	p->ck_bad = (RTE_MBUF_F_RX_IP_CKSUM_BAD | RTE_MBUF_F_RX_L4_CKSUM_BAD |
		     RTE_MBUF_F_RX_VLAN_STRIPPED) &
		    ~port->rx_ck_ignore;
	p->ck_good = RTE_MBUF_F_RX_IP_CKSUM_GOOD & ~port->rx_ck_ignore;
	p->ck_keep = ~port->rx_ck_ignore;
}

/*
 * The fast test (uf_dp_fast; without SSE4.1, or for a frame too short for its loads, the same
 * conditions in scalar code), then, for a frame that failed it, uf_classify_full. Same
 * verdicts, same counters, either way.
 */
static __rte_always_inline enum uf_verdict
uf_classify_dp_pat(const uint8_t *f, uint32_t len, uint64_t rx_ck, const struct uf_port_id *port,
		   const struct uf_dp_pat *pat, struct uf_rx_info *info, enum uf_drop *reason,
		   const bool any_dst)
{
	const uint8_t *ip = f + RTE_ETHER_HDR_LEN;
	/* no IP options: the UDP header follows 20 bytes in */
	const uint8_t *udp = ip + UF_IPV4_HDR_MIN;

	if (likely(uf_dp_vec_len(len))) {
		uint32_t ulen;

		if (likely(uf_dp_fast(f, len, rx_ck, pat, &ulen))) {
			uf_fast_info(info, ip, udp, ulen);
			return UF_V_FORWARD;
		}
		return uf_classify_full_ex(f, len, rx_ck & pat->ck_keep, port, info, reason,
					   any_dst);
	}
	if (likely(len >= UF_HDR_LEN)) {
		/* as above: BAD set in BAD and NONE; the port's own masks */
		const uint64_t bad_ck = rx_ck & pat->ck_bad;
		const uint32_t mac = (uf_rd32(f) ^ uf_rd32(port->mac.addr_bytes)) |
				     (uint32_t)(uf_rd16(f + 4) ^ uf_rd16(port->mac.addr_bytes + 4));
		const uint32_t hdr = (uint32_t)(uf_rd16(f + UF_ETH_TYPE) ^
						rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4)) |
				     (uint32_t)(ip[UF_IP_VHL] ^ UF_IPV4_VHL_NO_OPT) |
				     (uint32_t)(ip[UF_IP_PROTO] ^ IPPROTO_UDP) |
				     (any_dst ? 0 : uf_rd32(ip + UF_IP_DST) ^ port->ip) |
				     (uint32_t)(uf_rd16(ip + UF_IP_FRAG) &
						rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG |
								 RTE_IPV4_HDR_OFFSET_MASK)) |
				     (any_dst ? 0
					      : (uint32_t)(uf_rd16(udp + UF_UDP_DPORT) ^
							   port->listen_udp));
		const uint32_t tot = uf_be16(uf_rd16(ip + UF_IP_LEN)),
			       ulen = uf_be16(uf_rd16(udp + UF_UDP_LEN));

		if (likely((mac | hdr | bad_ck) == 0 && tot >= UF_IPV4_HDR_MIN + UF_UDP_HDR &&
			   RTE_ETHER_HDR_LEN + tot <= len && len <= pat->max_len &&
			   ulen >= UF_UDP_HDR && ulen <= tot - UF_IPV4_HDR_MIN &&
			   ((rx_ck & pat->ck_good) != 0 || /* BAD bit clear: GOOD */
			    uf_ipv4_hdr_ok(ip, UF_IPV4_HDR_MIN)))) {
			uf_fast_info(info, ip, udp, ulen);
			return UF_V_FORWARD;
		}
	}
	return uf_classify_full_ex(f, len, rx_ck & pat->ck_keep, port, info, reason, any_dst);
}

/* The fast test with the port's pattern built on the spot (tests, the listeners' path). */
static __rte_always_inline enum uf_verdict
uf_classify_dp_ex(const uint8_t *f, uint32_t len, uint64_t rx_ck, const struct uf_port_id *port,
		  struct uf_rx_info *info, enum uf_drop *reason, const bool any_dst)
{
	struct uf_dp_pat pat;

	uf_dp_pat_init(&pat, port, any_dst);
	return uf_classify_dp_pat(f, len, rx_ck, port, &pat, info, reason, any_dst);
}

static __rte_always_inline enum uf_verdict
uf_classify_dp(const uint8_t *f, uint32_t len, uint64_t rx_ck, const struct uf_port_id *port,
	       struct uf_rx_info *info, enum uf_drop *reason)
{
	return uf_classify_dp_ex(f, len, rx_ck, port, info, reason, false);
}

enum uf_verdict uf_classify(const uint8_t *f, uint32_t len, uint64_t rx_ck,
			    const struct uf_port_id *port, struct uf_rx_info *info,
			    enum uf_drop *reason);

/*
 * Service addresses (docs/architecture.md#service-addresses). A frame the classifier called
 * not_for_us may be for one of the port's service addresses: uf_svc_dst4 says which address
 * it is for (an untagged IPv4 packet's destination, an ARP request's target; 0: neither),
 * and uf_classify_svc classifies it again as if that address were the port's own (the same
 * checks and verdicts: a datagram, ARP or ICMP for the control lcore, or a drop). `rx_ck`:
 * the flags the port believes, as uf_classify_full_ex's.
 */
rte_be32_t uf_svc_dst4(const uint8_t *f, uint32_t len);
enum uf_verdict uf_classify_svc(const uint8_t *f, uint32_t len, uint64_t rx_ck,
				const struct uf_port_id *port, rte_be32_t svc,
				struct uf_rx_info *info, enum uf_drop *reason, bool any_dst);

/* A UDP checksum field of a datagram to `from` made what it would be to `to` (RFC 1624: the
 * pseudo-header's destination replaced), so that the copies' checksums derived from it for
 * a listener on `to` come out right; 0 (no checksum) stays 0. */
static inline uint16_t
uf_udp_ck_redirect4(uint16_t ck, rte_be32_t from, rte_be32_t to)
{
	uint16_t r;

	if (ck == 0 || from == to)
		return ck;
	r = (uint16_t)~uf_ck_fold((uint64_t)uf_ck_neg16(ck) + uf_ck_neg32(from) +
				  uf_ck_add32(0, to));
	return r == 0 ? 0xffff : r;
}

#endif /* UF_CLASSIFY_H */
