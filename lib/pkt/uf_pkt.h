/* SPDX-License-Identifier: BSD-3-Clause
 * Frames: Eth/IPv4/UDP header templates, ones-complement checksum arithmetic and the
 * classifier. Pure functions on bytes: unit-tested without EAL.
 */
#ifndef UF_PKT_H
#define UF_PKT_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>
#include <rte_arp.h>
#include <rte_icmp.h>
#include <rte_mbuf_core.h>

#include "uf_counters.h"

/*
 * Header field offsets, from DPDK's header structs: Ethernet fields from the start of the
 * frame, IPv4 fields from the start of the IPv4 header, UDP fields from the start of the UDP
 * header. The classifier reads them as bytes (uf_rd16/uf_rd32: no alignment assumed).
 */
#define UF_ETH_SRC offsetof(struct rte_ether_hdr, src_addr)       /* 6 */
#define UF_ETH_TYPE offsetof(struct rte_ether_hdr, ether_type)    /* 12 */
#define UF_IP_VHL offsetof(struct rte_ipv4_hdr, version_ihl)      /* 0 */
#define UF_IP_TOS offsetof(struct rte_ipv4_hdr, type_of_service)  /* 1 */
#define UF_IP_LEN offsetof(struct rte_ipv4_hdr, total_length)     /* 2 */
#define UF_IP_ID offsetof(struct rte_ipv4_hdr, packet_id)         /* 4 */
#define UF_IP_FRAG offsetof(struct rte_ipv4_hdr, fragment_offset) /* 6 */
#define UF_IP_PROTO offsetof(struct rte_ipv4_hdr, next_proto_id)  /* 9 */
#define UF_IP_SRC offsetof(struct rte_ipv4_hdr, src_addr)         /* 12 */
#define UF_IP_DST offsetof(struct rte_ipv4_hdr, dst_addr)         /* 16 */
#define UF_UDP_SPORT offsetof(struct rte_udp_hdr, src_port)       /* 0 */
#define UF_UDP_DPORT offsetof(struct rte_udp_hdr, dst_port)       /* 2 */
#define UF_UDP_LEN offsetof(struct rte_udp_hdr, dgram_len)        /* 4 */
#define UF_UDP_CKSUM offsetof(struct rte_udp_hdr, dgram_cksum)    /* 6 */
#define UF_IPV4_HDR_MIN ((int)sizeof(struct rte_ipv4_hdr))        /* 20: no options */
#define UF_UDP_HDR ((int)sizeof(struct rte_udp_hdr))              /* 8 */
#define UF_IPV4_VHL_NO_OPT RTE_IPV4_VHL_DEF                       /* 0x45: version 4, IHL 5 */

/* what every copy starts with: 42 bytes */
#define UF_HDR_LEN (RTE_ETHER_HDR_LEN + UF_IPV4_HDR_MIN + UF_UDP_HDR)
/* 802.1Q (docs/configuration.md#vlans): the tag, a tagged port's Ethernet header (18) and
 * a tagged copy's header (46) */
#define UF_VLAN_LEN ((int)sizeof(struct rte_vlan_hdr))
#define UF_ETH_VLAN_LEN (RTE_ETHER_HDR_LEN + UF_VLAN_LEN)
#define UF_HDR_LEN_VLAN (UF_HDR_LEN + UF_VLAN_LEN)
#define UF_VLAN_VID_MASK 0x0fff
#define UF_MIN_FRAME 60 /* shortest Ethernet frame without FCS */
#define UF_IP_DF 0x4000
/* ICMP types (24.11 deprecates RTE_IP_ICMP_ECHO_*, 22.11 lacks RTE_ICMP_TYPE_ECHO_*) */
#define UF_ICMP_ECHO_REQUEST 8
#define UF_ICMP_ECHO_REPLY 0

/* what the fast classifier, the header write and the templates take for granted */
static_assert(UF_HDR_LEN == 42, "a copy's header is Ethernet + IPv4 without options + UDP");
static_assert(RTE_ETHER_HDR_LEN == sizeof(struct rte_ether_hdr), "untagged Ethernet header");
static_assert(UF_ETH_VLAN_LEN == 18 && UF_HDR_LEN_VLAN == 46, "an 802.1Q tag is 4 bytes");
static_assert(UF_ETH_TYPE == 12 && UF_IP_DST == 16 && UF_UDP_CKSUM == 6,
	      "DPDK's header structs are the wire layout");
static_assert(UF_MIN_FRAME >= UF_HDR_LEN, "a copy shorter than 60 B is padded, never cut");
/* uf_classify_dp tests the RX checksum flags by their BAD bits alone */
static_assert((RTE_MBUF_F_RX_IP_CKSUM_NONE & RTE_MBUF_F_RX_IP_CKSUM_BAD) != 0 &&
			      (RTE_MBUF_F_RX_L4_CKSUM_NONE & RTE_MBUF_F_RX_L4_CKSUM_BAD) != 0 &&
			      (RTE_MBUF_F_RX_IP_CKSUM_GOOD & RTE_MBUF_F_RX_IP_CKSUM_BAD) == 0,
	      "RX checksum flags: NONE = GOOD | BAD");

/* ---- byte order, loads ---- */

/* 16-bit byte swap for the per-packet path: DPDK's x86 rte_bswap16 of a variable is an
 * inline-asm xchg the compiler cannot schedule or combine (measured: 12 instructions per
 * datagram in callgrind); the builtin is a rol it can. Constants keep rte_cpu_to_be_16. */
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
#define uf_be16(x) ((uint16_t)__builtin_bswap16((uint16_t)(x)))
#else
#define uf_be16(x) ((uint16_t)(x))
#endif

static inline uint16_t
uf_rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static inline uint32_t
uf_rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* ---- ones-complement arithmetic (RFC 1071, RFC 1624) ---- */

static inline uint32_t
uf_ck_add32(uint32_t sum, uint32_t be_word32)
{
	/* a 32-bit field, as two 16-bit words (any byte order works if used consistently) */
	return sum + (be_word32 >> 16) + (be_word32 & 0xffff);
}

static inline uint16_t
uf_ck_fold(uint64_t sum)
{
	sum = (sum >> 32) + (sum & 0xffffffff);
	sum = (sum >> 16) + (sum & 0xffff);
	sum = (sum >> 16) + (sum & 0xffff);
	sum = (sum >> 16) + (sum & 0xffff);
	return (uint16_t)sum;
}

/*
 * The same for a sum known to fit in 32 bits (a few dozen 16-bit words). With sum = H * 2^16
 * + L, sum plus itself rotated by 16 has H + L + c in its top half, c the carry out of the
 * bottom half's L + H: the end-around carry of the folded sum, in one add (two dependent
 * fold steps before; test_pkt compares the two over every edge and 10^6 random sums).
 */
static inline uint16_t
uf_ck_fold32(uint32_t sum)
{
	return (uint16_t)((sum + ((sum >> 16) | (sum << 16))) >> 16);
}

/* "minus x" in ones-complement: add the complement of each 16-bit word */
static inline uint32_t
uf_ck_neg16(uint16_t w)
{
	return (uint16_t)~w;
}

static inline uint32_t
uf_ck_neg32(uint32_t w)
{
	return uf_ck_neg16((uint16_t)(w >> 16)) + uf_ck_neg16((uint16_t)w);
}

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
 * The fast test's fixed fields (x86 with SSE4.1: RTE_ARCH_X86 and __SSE4_1__): bytes 0..47
 * of a frame as three 16-byte words, each XORed with what it must hold and tested under a
 * mask (PTEST), so the destination MAC, the EtherType, version/IHL, the fragment bits, the
 * protocol, our IP and our UDP port of one frame cost a dozen instructions, not one compare
 * each. Built once per burst (uf_dp_pat_init); where the vector unit is missing the scalar
 * test below does the same with the same verdicts (docs/benchmarks.md, issue 20).
 */
#if defined(RTE_ARCH_X86) && defined(__SSE4_1__)
#include <smmintrin.h>
#define UF_DP_SIMD 1
#define UF_DP_SIMD_LEN 48 /* a frame this long is read as three words */
#else
#define UF_DP_SIMD 0
#endif

struct uf_dp_pat {
#if UF_DP_SIMD
	__m128i want[3], mask[3]; /* want: already masked */
#endif
	/* port->max_len, or 0 where the port does not listen: no frame passes */
	uint32_t max_len;
	/* the RX flags that send a frame to the careful path (BAD, NONE: the BAD bit; a
	 * stripped tag) and the IPv4 GOOD bit, less those the port does not believe
	 * (port->rx_ck_ignore): the fast test's masks, in place of constants; ck_keep: every
	 * flag but those, for the caller's partial-checksum test */
	uint64_t ck_bad, ck_good, ck_keep;
};

static __rte_always_inline void
uf_dp_pat_init(struct uf_dp_pat *p, const struct uf_port_id *port, const bool any_dst)
{
#if UF_DP_SIMD
	uint8_t want[48], mask[48];
	const rte_be16_t ethertype = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4),
			 frag = rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK);
	const uint32_t ip = RTE_ETHER_HDR_LEN, udp = RTE_ETHER_HDR_LEN + UF_IPV4_HDR_MIN;
	int k;

	memset(want, 0, sizeof(want));
	memset(mask, 0, sizeof(mask));
	memcpy(want, port->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	memset(mask, 0xff, RTE_ETHER_ADDR_LEN);
	memcpy(want + UF_ETH_TYPE, &ethertype, 2);
	memset(mask + UF_ETH_TYPE, 0xff, 2);
	want[ip + UF_IP_VHL] = UF_IPV4_VHL_NO_OPT;
	mask[ip + UF_IP_VHL] = 0xff;
	memcpy(mask + ip + UF_IP_FRAG, &frag, 2); /* want 0: not a fragment */
	want[ip + UF_IP_PROTO] = IPPROTO_UDP;
	mask[ip + UF_IP_PROTO] = 0xff;
	if (!any_dst) {
		memcpy(want + ip + UF_IP_DST, &port->ip, 4);
		memset(mask + ip + UF_IP_DST, 0xff, 4);
		memcpy(want + udp + UF_UDP_DPORT, &port->listen_udp, 2);
		memset(mask + udp + UF_UDP_DPORT, 0xff, 2);
	}
	for (k = 0; k < 3; k++) {
		p->want[k] = _mm_loadu_si128((const __m128i *)(want + 16 * k));
		p->mask[k] = _mm_loadu_si128((const __m128i *)(mask + 16 * k));
	}
#else
	RTE_SET_USED(any_dst);
#endif
	p->max_len = port->listen ? port->max_len : 0;
	p->ck_bad = (RTE_MBUF_F_RX_IP_CKSUM_BAD | RTE_MBUF_F_RX_L4_CKSUM_BAD |
		     RTE_MBUF_F_RX_VLAN_STRIPPED) &
		    ~port->rx_ck_ignore;
	p->ck_good = RTE_MBUF_F_RX_IP_CKSUM_GOOD & ~port->rx_ck_ignore;
	p->ck_keep = ~port->rx_ck_ignore;
}

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
/*
 * The fast test for what nearly every frame is: Ethernet/IPv4 without options to our MAC, IP
 * and UDP port, not a fragment, the UDP length filling the IP payload, lengths within the
 * frame and the MTU, header checksum right. The conditions are combined without branching
 * between them (callgrind: 100 instructions per frame with the reason-by-reason walk, 45 with
 * this). True: the frame passed, its UDP length in *ulen (uf_fast_info gives the rest); false:
 * uf_classify_full finds the verdict and its reason (the same verdicts either way). The frame
 * is at least UF_DP_SIMD_LEN long (three 16-byte loads). `pat`: uf_dp_pat_init's for this port
 * and any_dst.
 */
static __rte_always_inline bool
uf_dp_fast(const uint8_t *f, uint32_t len, uint64_t rx_ck, const struct uf_dp_pat *pat,
	   uint32_t *ulen_out)
{
	const uint8_t *ip = f + RTE_ETHER_HDR_LEN;
	/* no IP options: the UDP header follows 20 bytes in */
	const uint8_t *udp = ip + UF_IPV4_HDR_MIN;
	const __m128i x0 = _mm_and_si128(
			_mm_xor_si128(_mm_loadu_si128((const __m128i *)f), pat->want[0]),
			pat->mask[0]);
	const __m128i x1 = _mm_and_si128(
			_mm_xor_si128(_mm_loadu_si128((const __m128i *)(f + 16)), pat->want[1]),
			pat->mask[1]);
	const __m128i x2 = _mm_and_si128(
			_mm_xor_si128(_mm_loadu_si128((const __m128i *)(f + 32)), pat->want[2]),
			pat->mask[2]);
	const __m128i x = _mm_or_si128(_mm_or_si128(x0, x1), x2);
	/* the BAD bit is set in both BAD and NONE (IP and L4 alike), so a frame the NIC found
	 * bad, or says it could not check ("none": rare, left to uf_classify_full), or whose tag
	 * it stripped, takes the careful path; a verdict the port does not believe is not in
	 * pat->ck_bad nor pat->ck_good (uf_dp_pat_init) */
	const uint64_t bad_ck = rx_ck & pat->ck_bad;
	const uint32_t tot = uf_be16(uf_rd16(ip + UF_IP_LEN)),
		       ulen = uf_be16(uf_rd16(udp + UF_UDP_LEN));

	RTE_ASSERT(len >= UF_DP_SIMD_LEN);
	*ulen_out = ulen;
	/* ulen + 20 == tot and ulen >= 8: tot >= 28 and ulen <= tot - 20 follow */
	if (unlikely(!_mm_testz_si128(x, x)))
		return false;
	return likely(bad_ck == 0 && ulen + UF_IPV4_HDR_MIN == tot && ulen >= UF_UDP_HDR &&
		      RTE_ETHER_HDR_LEN + tot <= len && len <= pat->max_len &&
		      ((rx_ck & pat->ck_good) != 0 || /* BAD bit clear: GOOD */
		       uf_ipv4_hdr_ok_45(ip)));
}
#endif

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

#if UF_DP_SIMD
	if (likely(len >= UF_DP_SIMD_LEN)) {
		uint32_t ulen;

		if (likely(uf_dp_fast(f, len, rx_ck, pat, &ulen))) {
			uf_fast_info(info, ip, udp, ulen);
			return UF_V_FORWARD;
		}
		return uf_classify_full_ex(f, len, rx_ck & pat->ck_keep, port, info, reason,
					   any_dst);
	}
#endif
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

/* ---- header templates ---- */

/* One destination's prebuilt header and the checksum constants that go with it. */
struct uf_tmpl {
	/* hdr_len used: UF_HDR_LEN, or UF_HDR_LEN_VLAN with the 802.1Q tag (then the IPv4
	 * header starts at UF_ETH_VLAN_LEN); total_length, id, lengths and checksums are 0 */
	uint8_t hdr[64];
	uint8_t hdr_len;
	/*
	 * IPv4 header checksum: ~fold(ip_base + total_length + id + tos<<0 (+ src if kept)).
	 * ip_base sums every other word of the template's IPv4 header.
	 */
	uint32_t ip_base;
	/*
	 * UDP checksum, derived from the received datagram's (RFC 1624): with P the ones-complement
	 * sum of the input's pseudo-header, UDP header and payload (P = ~input_cksum when the
	 * sender set one), the copy's sum is P + udp_delta (+ -src_in + src when the source IP
	 * is replaced) (+ -sport_in when the source port is replaced; sport is in udp_delta).
	 * The length is unchanged, so it cancels.
	 */
	uint32_t udp_delta;
	bool keep_src_ip; /* the copy carries the sender's IP (source: original) */
	bool keep_sport;  /* the copy carries the sender's UDP source port */
	bool plain;       /* untagged, our source IP: uf_hdr_write_dg_l2's vector form */
};

struct uf_tmpl_spec {
	struct rte_ether_addr src_mac;
	struct rte_ether_addr dst_mac;
	rte_be32_t src_ip; /* ignored when keep_src_ip */
	rte_be32_t dst_ip;
	rte_be16_t src_port; /* ignored when keep_src_port */
	rte_be16_t dst_port;
	uint8_t ttl;
	bool keep_src_ip;
	bool keep_src_port;
	/* what the input is addressed to (our listen IP and port), for the incremental checksum */
	rte_be32_t in_dst_ip;
	rte_be16_t in_dst_port;
	/* 802.1Q: the copies carry a tag with this TCI (PCP << 13 | VID; host order) */
	bool vlan;
	uint16_t vlan_tci;
};

void uf_tmpl_build(struct uf_tmpl *t, const struct uf_tmpl_spec *s);

/* ones-complement sum P of the input's pseudo-header + UDP header + payload (see uf_tmpl) */
static inline uint32_t
uf_in_sum(const struct uf_rx_info *in, const uint8_t *payload, rte_be32_t in_dst_ip,
	  rte_be16_t in_dst_port)
{
	uint32_t s;

	if (likely(in->udp_cksum != 0))
		return uf_ck_neg16(in->udp_cksum);
	/* no checksum from the sender: sum the payload once for all copies */
	s = rte_raw_cksum(payload, in->payload_len);
	s = uf_ck_add32(s, in->src_ip);
	s = uf_ck_add32(s, in_dst_ip);
	s += rte_cpu_to_be_16(IPPROTO_UDP);
	s += 2 * (uint32_t)uf_be16(in->payload_len + UF_UDP_HDR);
	s += in->src_port + in_dst_port;
	return s;
}

/* A completed UDP checksum into *field (0 goes out as 0xffff, RFC 768): true if it changed. */
static inline bool
uf_udp_ck_store(uint16_t *field, uint16_t ck)
{
	if (ck == 0)
		ck = 0xffff;
	if (ck == *field)
		return false;
	*field = ck;
	return true;
}

/*
 * Whether a UDP checksum field (not 0) holds the folded pseudo-header sum: ph_dst (protocol and
 * destination, uf_csum_ph_dst), the source address, the UDP length (as on the wire). The same
 * as field == uf_ck_fold32(the sum), without the fold: both are in [1, 0xffff], one per
 * remainder modulo 0xffff, so they are equal exactly when the sum minus the field (the sum
 * plus the field's complement) is a multiple of 0xffff; 2^16 = 1 modulo 0xffff, so the address
 * is added as one 32-bit integer, and the remainder is a multiply (as uf_ipv4_hdr_ok).
 * test_pkt compares the two over edges and random values.
 */
static __rte_always_inline bool
uf_csum_is_ph(uint32_t ph_dst, rte_be32_t src_ip, rte_be16_t udp_len, uint16_t field)
{
	const uint64_t d = (uint64_t)ph_dst + src_ip + udp_len + (uint16_t)~field;

	return d % 0xffff == 0;
}

/*
 * Complete a checksum the sender left to offload (docs/architecture.md#partial-checksums).
 * A local sender on veth, tap or virtio hands its frame on with CHECKSUM_PARTIAL: the UDP
 * checksum field holds the folded pseudo-header sum, not yet the datagram's checksum, and
 * deriving the copies' sums from it (RFC 1624) would make every copy wrong. Only on ports
 * whose quirk row says they may carry such frames (uf_port_id.partial_csum):
 *   - RX flag L4_CKSUM_GOOD: the field is right, nothing to do;
 *   - RX flag L4_CKSUM_NONE ("data verified, field not correct": virtio and vhost with
 *     VIRTIO_NET_HDR_F_NEEDS_CSUM), or a field equal to the pseudo-header sum: the checksum
 *     is computed from the data, once, and replaces the field in `in`;
 *   - any other field stays as it is: a right one keeps the incremental path, a wrong one
 *     stays wrong in every copy (never laundered).
 * A field of 0 means "no checksum" and is summed from the data by uf_in_sum anyway; the
 * fold of the (non-zero) pseudo-header sum is never 0, so one comparison covers both
 * representations of zero. A right checksum that happens to equal the pseudo-header sum
 * (1 in 65,535) is recomputed to the same value and not counted. Returns true when the
 * field was completed (counted as fwd.csum_completed). `ph_dst`: the protocol's and the
 * destination address's part of the pseudo-header sum (uf_csum_ph_dst; a constant where the
 * fast test has checked the address), summed only as a 32-bit integer.
 */
static __rte_always_inline bool
uf_csum_complete_ph(const uint8_t *f, uint64_t rx_ck, struct uf_rx_info *in, uint32_t ph_dst)
{
	const uint64_t l4 = rx_ck & RTE_MBUF_F_RX_L4_CKSUM_MASK;
	struct uf_rx_info t;
	uint16_t ck;

	/* the common case first, in one test: neither NONE nor the pseudo-header sum (the
	 * frame's own UDP length field, as on the wire: the header the verdict read); then
	 * GOOD and 0, which keep the field whatever it holds */
	if (likely(l4 != RTE_MBUF_F_RX_L4_CKSUM_NONE &&
		   !uf_csum_is_ph(ph_dst, in->src_ip,
				  uf_rd16(f + in->payload_off - UF_UDP_HDR + UF_UDP_LEN),
				  in->udp_cksum)))
		return false;
	if (l4 == RTE_MBUF_F_RX_L4_CKSUM_GOOD || in->udp_cksum == 0)
		return false;
	/* the sum P over pseudo-header, UDP header and payload, as for a datagram without one */
	t = *in;
	t.udp_cksum = 0;
	ck = (uint16_t)~uf_ck_fold(uf_in_sum(
			&t, f + in->payload_off, uf_rd32(f + RTE_ETHER_HDR_LEN + UF_IP_DST),
			uf_rd16(f + in->payload_off - UF_UDP_HDR + UF_UDP_DPORT)));
	return uf_udp_ck_store(&in->udp_cksum, ck);
}

/* the pseudo-header's protocol and destination address, summed (uf_csum_complete_ph) */
static inline uint32_t
uf_csum_ph_dst(rte_be32_t dst_ip)
{
	return uf_ck_add32(rte_cpu_to_be_16(IPPROTO_UDP), dst_ip);
}

static inline bool
uf_csum_complete(const uint8_t *f, uint64_t rx_ck, struct uf_rx_info *in)
{
	return uf_csum_complete_ph(f, rx_ck, in,
				   uf_csum_ph_dst(uf_rd32(f + RTE_ETHER_HDR_LEN + UF_IP_DST)));
}

/* The TOS byte as its part of the IPv4 header's first 16-bit word in memory order (the word
 * after the version/IHL byte): uf_be16(tos), a shift where the bytes are little-endian */
static __rte_always_inline uint32_t
uf_tos_word(uint8_t tos)
{
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	return (uint32_t)tos << 8;
#else
	return tos;
#endif
}

/*
 * What every copy of one datagram shares in its header, computed once per datagram (at N = 4
 * the copies' loop reloaded and re-added each of these per copy: a store into a copy may
 * alias the datagram's facts for the compiler): the fields taken from the input, and the
 * parts of the two checksum sums that do not depend on the destination. The sums are the
 * same integers uf_hdr_write always added, in another order: the same checksums.
 */
struct uf_hdr_dg {
	uint32_t ip_sum;      /* total length + id + TOS: ip_base's complement */
	uint32_t ip_sum_src;  /* the same + the sender's IP, for keep_src_ip */
	uint32_t u_sum;       /* P (uf_in_sum) - the sender's IP: the source IP replaced */
	uint32_t u_sum_src;   /* P: the source IP kept */
	uint32_t u_sport;     /* - the sender's UDP port: the source port replaced */
	uint32_t u_sum_plain; /* u_sum + u_sport: the source IP and port replaced */
	rte_be32_t src_ip;
	rte_be16_t tot, ulen, ip_id, sport;
	uint8_t tos;
#if UF_DP_SIMD
	/* a plain copy's header is its template's OR these (zero where the template has a
	 * field, the datagram's field where the template has 0): bytes 0-15 (TOS at 15),
	 * 16-31 (total length, id), 26-41 (UDP length at 38; ov_sport: and the sender's
	 * UDP port at 34, for a template that keeps it) */
	__m128i ov[3], ov_sport;
#endif
};

static __rte_always_inline void
uf_hdr_dg_init(struct uf_hdr_dg *g, const struct uf_rx_info *in, uint32_t p_sum)
{
	const uint16_t plen = in->payload_len;

	g->tos = in->tos;
	g->ip_id = in->ip_id;
	g->sport = in->src_port;
	g->src_ip = in->src_ip;
	g->tot = uf_be16(plen + UF_IPV4_HDR_MIN + UF_UDP_HDR);
	g->ulen = uf_be16(plen + UF_UDP_HDR);
	g->ip_sum = (uint32_t)g->tot + g->ip_id + uf_tos_word(g->tos);
	g->ip_sum_src = uf_ck_add32(g->ip_sum, g->src_ip);
	g->u_sum_src = p_sum;
	g->u_sum = p_sum + uf_ck_neg32(g->src_ip);
	g->u_sport = uf_ck_neg16(g->sport);
	g->u_sum_plain = g->u_sum + g->u_sport;
#if UF_DP_SIMD
	g->ov[0] = _mm_insert_epi8(_mm_setzero_si128(), g->tos, 15);
	g->ov[1] = _mm_cvtsi32_si128((int)((uint32_t)g->tot | (uint32_t)g->ip_id << 16));
	g->ov[2] = _mm_insert_epi16(_mm_setzero_si128(), g->ulen, 6);
	g->ov_sport = _mm_insert_epi16(g->ov[2], g->sport, 4);
#endif
}

/*
 * What every template of a set shares, known when the plan is built (uf_set.hdr_form), so
 * that the fan-out of a simple plan is specialised for it and tests nothing per copy: ANY
 * (each template says), or every one plain (untagged, our source IP) and keeping the
 * sender's UDP port (the default), or every one plain with a port of ours.
 */
enum uf_hdr_form {
	UF_HDR_ANY = 0,
	UF_HDR_PLAIN_KEEP_SPORT,
	UF_HDR_PLAIN_OWN_SPORT,
};

/*
 * Write one copy's header at `h` (l2 + 28 bytes, l2 the template's Ethernet header with or
 * without a tag) from the template and the datagram's shared parts (uf_hdr_dg_init). form:
 * a constant at each call site; anything but UF_HDR_ANY says what t is (the caller's set).
 */
static __rte_always_inline void
uf_hdr_write_dg_l2(uint8_t *h, const struct uf_tmpl *t, const struct uf_hdr_dg *g, bool udp_cksum,
		   const uint32_t l2, const enum uf_hdr_form form)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(h + l2);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(h + l2 + UF_IPV4_HDR_MIN);
	/* every input first, into locals, the stores last: a byte store into h may alias `t`
	 * for the compiler, which otherwise reloads each field after each store */
	const bool keep_src_ip = t->keep_src_ip;
	const bool keep_sport =
			form == UF_HDR_ANY ? t->keep_sport : form == UF_HDR_PLAIN_KEEP_SPORT;
	uint32_t ipsum, usum;
	uint16_t ipck, uck;

	RTE_ASSERT(form == UF_HDR_ANY ||
		   (t->plain && l2 == RTE_ETHER_HDR_LEN && t->keep_sport == keep_sport));
#if UF_DP_SIMD
	/* a plain template (untagged, our source IP: the common one): three 16-byte ORs of
	 * the template and the datagram's fields, the two checksums put in, three stores
	 * (bytes 26-31 twice, the same values) in place of the 42-byte copy and six field
	 * stores. Same bytes (fanout_diff, eal; test_pkt) */
	if (form != UF_HDR_ANY || (l2 == RTE_ETHER_HDR_LEN && likely(t->plain))) {
		const __m128i t0 = _mm_loadu_si128((const __m128i *)t->hdr),
			      t1 = _mm_loadu_si128((const __m128i *)(t->hdr + 16)),
			      t2 = _mm_loadu_si128((const __m128i *)(t->hdr + 26));
		__m128i v1, v2;

		ipck = (uint16_t)~uf_ck_fold32(t->ip_base + g->ip_sum);
		uck = (uint16_t)~uf_ck_fold32(t->udp_delta +
					      (keep_sport ? g->u_sum : g->u_sum_plain));
		if (uck == 0)
			uck = 0xffff;
		v1 = _mm_insert_epi16(_mm_or_si128(t1, g->ov[1]), ipck, 4); /* byte 24 */
		/* without a UDP checksum the template's 0 stays: no branch per copy */
		v2 = _mm_insert_epi16(_mm_or_si128(t2, keep_sport ? g->ov_sport : g->ov[2]),
				      udp_cksum ? uck : 0, 7); /* byte 40 */
		_mm_storeu_si128((__m128i *)h, _mm_or_si128(t0, g->ov[0]));
		_mm_storeu_si128((__m128i *)(h + 16), v1);
		_mm_storeu_si128((__m128i *)(h + 26), v2);
		return;
	}
#endif
	/* branches on the template's mode, not masks: per destination they always go the
	 * same way and predict perfectly, and the common mode skips the work (callgrind: 35
	 * fewer instructions per copy than the masked form) */
	if (unlikely(keep_src_ip)) {
		ipsum = t->ip_base + g->ip_sum_src;
		usum = t->udp_delta + g->u_sum_src;
	} else {
		ipsum = t->ip_base + g->ip_sum;
		usum = t->udp_delta + g->u_sum;
	}
	if (!keep_sport)
		usum += g->u_sport;
	ipck = (uint16_t)~uf_ck_fold32(ipsum);
	uck = (uint16_t)~uf_ck_fold32(usum);
	if (uck == 0)
		uck = 0xffff;

	memcpy(h, t->hdr, l2 + UF_IPV4_HDR_MIN + UF_UDP_HDR);
	ip->type_of_service = g->tos;
	ip->total_length = g->tot;
	ip->packet_id = g->ip_id;
	if (unlikely(keep_src_ip))
		ip->src_addr = g->src_ip;
	ip->hdr_checksum = ipck;
	if (keep_sport)
		udp->src_port = g->sport;
	udp->dgram_len = g->ulen;
	if (udp_cksum)
		udp->dgram_cksum = uck;
}

#if UF_DP_SIMD
/*
 * N = 1, in place, for a frame the fast test passed (no IP options: the headers are where the
 * copy's go) and a plain template that keeps the sender's UDP port (the default form): the
 * copy's header is the template ORed with what the frame keeps, under three byte masks (TOS
 * without ECN, total length and id; the sender's port and the UDP length), then the two
 * checksums put in: three loads of the frame, three ANDs, three ORs, three stores, where the
 * template's copy and six field stores were (uf_hdr_write_l2). The same bytes (fanout_diff,
 * eal, which compares it with the generic path). `p_sum`: uf_in_sum() of the input.
 */
static __rte_always_inline void
uf_hdr_rewrite_keep(uint8_t *f, const struct uf_tmpl *t, uint32_t p_sum, rte_be32_t src_ip)
{
	const __m128i f0 = _mm_loadu_si128((const __m128i *)f),
		      f1 = _mm_loadu_si128((const __m128i *)(f + 16)),
		      f2 = _mm_loadu_si128((const __m128i *)(f + 26));
	/* what the frame keeps: byte 15 (TOS) less ECN; bytes 16-19 (total length, id); in
	 * the window at 26, bytes 8-9 (34: the UDP source port) and 12-13 (38: UDP length) */
	const __m128i k0 = _mm_insert_epi8(_mm_setzero_si128(), 0xfc, 15),
		      k1 = _mm_cvtsi32_si128(-1), k2 = _mm_set_epi16(0, -1, 0, -1, 0, 0, 0, 0);
	const uint8_t *ip = f + RTE_ETHER_HDR_LEN;
	/* tos_word, tot, id: as uf_hdr_write_l2 sums them, read where they are */
	const uint32_t ipsum = t->ip_base + uf_tos_word(ip[UF_IP_TOS] & 0xfc) +
			       uf_rd16(ip + UF_IP_LEN) + uf_rd16(ip + UF_IP_ID);
	const uint32_t usum = p_sum + t->udp_delta + uf_ck_neg32(src_ip);
	uint16_t ipck = (uint16_t)~uf_ck_fold32(ipsum), uck = (uint16_t)~uf_ck_fold32(usum);
	__m128i v1, v2;

	RTE_ASSERT(t->plain && t->keep_sport);
	if (uck == 0)
		uck = 0xffff;
	v1 = _mm_insert_epi16(_mm_or_si128(_mm_loadu_si128((const __m128i *)(t->hdr + 16)),
					   _mm_and_si128(f1, k1)),
			      ipck, 4); /* byte 24 */
	v2 = _mm_insert_epi16(_mm_or_si128(_mm_loadu_si128((const __m128i *)(t->hdr + 26)),
					   _mm_and_si128(f2, k2)),
			      uck, 7); /* byte 40 */
	_mm_storeu_si128((__m128i *)f, _mm_or_si128(_mm_loadu_si128((const __m128i *)t->hdr),
						    _mm_and_si128(f0, k0)));
	_mm_storeu_si128((__m128i *)(f + 16), v1);
	_mm_storeu_si128((__m128i *)(f + 26), v2);
}
#endif

/*
 * The same for one copy alone, from the input's fields: `p_sum` is uf_in_sum() of the input.
 * Only what the template's mode needs is summed (uf_hdr_dg_init sums both modes' parts, which
 * pays from the second copy on: callgrind, 12 more instructions per datagram at N = 1).
 */
static __rte_always_inline void
uf_hdr_write_l2(uint8_t *h, const struct uf_tmpl *t, const struct uf_rx_info *in, uint32_t p_sum,
		bool udp_cksum, const uint32_t l2, const enum uf_hdr_form form)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(h + l2);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(h + l2 + UF_IPV4_HDR_MIN);
	/* every input first, into locals, the stores last (as above) */
	const uint16_t plen = in->payload_len;
	const uint8_t tos = in->tos;
	const rte_be16_t ip_id = in->ip_id, sport = in->src_port;
	const rte_be32_t src_ip = in->src_ip;
	/* form (a constant at each call site): what t is, as in uf_hdr_write_dg_l2 */
	const bool keep_src_ip = form == UF_HDR_ANY && t->keep_src_ip;
	const bool keep_sport =
			form == UF_HDR_ANY ? t->keep_sport : form == UF_HDR_PLAIN_KEEP_SPORT;
	const rte_be16_t tot = uf_be16(plen + UF_IPV4_HDR_MIN + UF_UDP_HDR);
	const rte_be16_t ulen = uf_be16(plen + UF_UDP_HDR);
	uint32_t ipsum, usum;
	uint16_t ipck, uck;

	RTE_ASSERT(form == UF_HDR_ANY ||
		   (t->plain && l2 == RTE_ETHER_HDR_LEN && t->keep_sport == keep_sport));
	ipsum = t->ip_base + tot + ip_id + uf_tos_word(tos);
	usum = p_sum + t->udp_delta;
	if (unlikely(keep_src_ip))
		ipsum = uf_ck_add32(ipsum, src_ip);
	else
		usum += uf_ck_neg32(src_ip);
	if (!keep_sport)
		usum += uf_ck_neg16(sport);
	ipck = (uint16_t)~uf_ck_fold32(ipsum);
	uck = (uint16_t)~uf_ck_fold32(usum);
	if (uck == 0)
		uck = 0xffff;

	memcpy(h, t->hdr, l2 + UF_IPV4_HDR_MIN + UF_UDP_HDR);
	ip->type_of_service = tos;
	ip->total_length = tot;
	ip->packet_id = ip_id;
	if (unlikely(keep_src_ip))
		ip->src_addr = src_ip;
	ip->hdr_checksum = ipck;
	if (keep_sport)
		udp->src_port = sport;
	udp->dgram_len = ulen;
	if (udp_cksum)
		udp->dgram_cksum = uck;
}

/* Write one copy's header at `h` (t->hdr_len bytes): the untagged form, or the tagged one
 * (a predictable branch per destination; the constant offsets keep each form's code as it
 * would be alone) */
static __rte_always_inline void
uf_hdr_write(uint8_t *h, const struct uf_tmpl *t, const struct uf_rx_info *in, uint32_t p_sum,
	     bool udp_cksum)
{
	if (likely(t->hdr_len == UF_HDR_LEN))
		uf_hdr_write_l2(h, t, in, p_sum, udp_cksum, RTE_ETHER_HDR_LEN, UF_HDR_ANY);
	else
		uf_hdr_write_l2(h, t, in, p_sum, udp_cksum, UF_ETH_VLAN_LEN, UF_HDR_ANY);
}

/*
 * 802.1Q on receive (docs/configuration.md#vlans). The VLAN id of a frame and whether its
 * tag is still in the frame: a tag the PMD took out (RTE_MBUF_F_RX_VLAN_STRIPPED, its TCI
 * in vlan_tci), an 802.1Q tag in the frame (in_frame set), or none (VLAN id 0, as for a
 * priority tag). 802.1ad (0x88a8) is not parsed: it reads as untagged, and the untagged
 * port's classifier counts it vlan_unknown.
 */
static inline uint16_t
uf_vlan_of(const uint8_t *f, uint32_t len, uint64_t ol_flags, uint16_t vlan_tci, bool *in_frame)
{
	*in_frame = false;
	if (ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED)
		return vlan_tci & UF_VLAN_VID_MASK;
	if (len >= UF_ETH_VLAN_LEN &&
	    uf_rd16(f + UF_ETH_TYPE) == rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN)) {
		*in_frame = true;
		return uf_be16(uf_rd16(f + RTE_ETHER_HDR_LEN)) & UF_VLAN_VID_MASK;
	}
	return 0;
}

/* Take an 802.1Q tag out of the frame at f: the Ethernet addresses move up 4 bytes, over
 * it; the frame now starts at f + UF_VLAN_LEN. */
static inline void
uf_vlan_strip(uint8_t *f)
{
	uint8_t a[2 * RTE_ETHER_ADDR_LEN];

	/* through registers: a memmove of the overlapping 12 bytes was a libc call per frame */
	memcpy(a, f, sizeof(a));
	memcpy(f + UF_VLAN_LEN, a, sizeof(a));
}

/* Put an 802.1Q tag with TCI tci (host order) into the frame that starts at f + UF_VLAN_LEN
 * (the 4 bytes before it are free): it then starts at f. */
static inline void
uf_vlan_insert(uint8_t *f, uint16_t tci)
{
	const rte_be16_t tpid = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN), btci = uf_be16(tci);
	uint8_t a[2 * RTE_ETHER_ADDR_LEN];

	memcpy(a, f + UF_VLAN_LEN, sizeof(a));
	memcpy(f, a, sizeof(a));
	memcpy(f + UF_ETH_TYPE, &tpid, 2);
	memcpy(f + RTE_ETHER_HDR_LEN, &btci, 2);
}

/* ---- ARP and ICMP frames (control plane) ---- */

/* Build an ARP frame (request or reply) into f (>= 60 bytes). Returns its length (60). */
uint16_t uf_arp_build(uint8_t *f, uint16_t op, const struct rte_ether_addr *eth_dst,
		      const struct rte_ether_addr *sha, rte_be32_t sip,
		      const struct rte_ether_addr *tha, rte_be32_t tip);

/* Parse an ARP frame; 0 and fields filled, or -1 if it is not a well-formed Ethernet/IPv4
 * ARP request or reply. */
struct uf_arp_info {
	uint16_t op;
	struct rte_ether_addr sha;
	rte_be32_t sip;
	struct rte_ether_addr tha;
	rte_be32_t tip;
};
int uf_arp_parse(const uint8_t *f, uint32_t len, struct uf_arp_info *a);

/* Turn an ICMP echo request (frame f, len) into the reply in place. 0, or -1 if f is not a
 * well-formed echo request (bad checksum included). */
int uf_icmp_echo_reply(uint8_t *f, uint32_t len, const struct rte_ether_addr *our_mac);

#endif /* UF_PKT_H */
