/* SPDX-License-Identifier: BSD-3-Clause
 * IPv6 frames (docs/architecture.md#ipv6): the Ethernet/IPv6/UDP
 * classifier, the Eth/IPv6/UDP header template and its writer, and the UDP checksum
 * derivation within and across families. Pure functions on bytes, unit-tested without EAL
 * (tests/unit/test_pkt6.c); the worker calls uf_classify6 on ports with ip6 (lib/fwd/uf_fwd.c).
 *
 * Checksums across families: the UDP checksum covers a pseudo-header of source and
 * destination address, protocol and UDP length. The IPv6 pseudo-header's length is 32 bits
 * and its next header is 32 bits, but their high words are zero, so in ones-complement
 * arithmetic both families' pseudo-headers sum to (source words) + (destination words) +
 * 17 + UDP length. A copy's checksum is therefore derived from the input's (RFC 1624) the
 * same way whatever the two families are: take away the input's addresses and ports, add
 * the copy's. Only the number of address words differs (2 or 8).
 */
#ifndef UF_PKT6_H
#define UF_PKT6_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_ip.h>

#include "uf_common.h"
#include "uf_pkt.h"

/* IPv6 header field offsets, from the start of the IPv6 header (struct rte_ipv6_hdr) */
#define UF_IP6_VTC offsetof(struct rte_ipv6_hdr, vtc_flow)        /* 0: version, class, flow */
#define UF_IP6_PLEN offsetof(struct rte_ipv6_hdr, payload_len)    /* 4 */
#define UF_IP6_NXT offsetof(struct rte_ipv6_hdr, proto)           /* 6 */
#define UF_IP6_HLIM offsetof(struct rte_ipv6_hdr, hop_limits)     /* 7 */
#define UF_IP6_SRC offsetof(struct rte_ipv6_hdr, src_addr)        /* 8 */
#define UF_IP6_DST offsetof(struct rte_ipv6_hdr, dst_addr)        /* 24 */
#define UF_IP6_HDR ((int)sizeof(struct rte_ipv6_hdr))             /* 40: no extension headers */
#define UF_HDR6_LEN (RTE_ETHER_HDR_LEN + UF_IP6_HDR + UF_UDP_HDR) /* 62: a copy's header */

static_assert(UF_IP6_HDR == 40 && UF_IP6_DST == 24, "DPDK's IPv6 header is the wire layout");
static_assert(UF_HDR6_LEN == 62, "Ethernet + IPv6 + UDP");

/* Next-header values (IANA) the classifier tells apart */
#define UF_IP6_NH_HOPOPTS 0
#define UF_IP6_NH_ROUTING 43
#define UF_IP6_NH_FRAGMENT 44
#define UF_IP6_NH_ESP 50
#define UF_IP6_NH_AH 51
#define UF_IP6_NH_ICMP6 58
#define UF_IP6_NH_NONE 59
#define UF_IP6_NH_DSTOPTS 60
#define UF_IP6_NH_MOBILITY 135
#define UF_IP6_NH_HIP 139
#define UF_IP6_NH_SHIM6 140
#define UF_IP6_NH_EXP1 253
#define UF_IP6_NH_EXP2 254

/* An IPv6 extension header (RFC 8200 section 4, RFC 7045's list; the fragment header is
 * told apart: it counts as `fragment`, as an IPv4 fragment does). ESP is not one (its
 * payload is encrypted, another protocol to us). */
static inline bool
uf_ip6_is_ext_hdr(uint8_t nh)
{
	switch (nh) {
	case UF_IP6_NH_HOPOPTS:
	case UF_IP6_NH_ROUTING:
	case UF_IP6_NH_AH:
	case UF_IP6_NH_DSTOPTS:
	case UF_IP6_NH_MOBILITY:
	case UF_IP6_NH_HIP:
	case UF_IP6_NH_SHIM6:
	case UF_IP6_NH_EXP1:
	case UF_IP6_NH_EXP2:
		return true;
	default:
		return false;
	}
}

/* ---- addresses ---- */

static inline bool
uf_ip6_eq(const struct uf_ip6 *a, const struct uf_ip6 *b)
{
	return memcmp(a->b, b->b, 16) == 0;
}

static inline bool
uf_ip6_is_mcast(const struct uf_ip6 *a)
{
	return a->b[0] == 0xff;
}

static inline bool
uf_ip6_is_unspec(const struct uf_ip6 *a)
{
	static const struct uf_ip6 zero;

	return uf_ip6_eq(a, &zero);
}

/* fe80::/10 */
static inline bool
uf_ip6_is_link_local(const struct uf_ip6 *a)
{
	return a->b[0] == 0xfe && (a->b[1] & 0xc0) == 0x80;
}

/* The solicited-node multicast address of A: ff02::1:ffXX:XXXX (RFC 4291 2.7.1) */
static inline void
uf_ip6_solicited_node(const struct uf_ip6 *a, struct uf_ip6 *out)
{
	memset(out->b, 0, 16);
	out->b[0] = 0xff;
	out->b[1] = 0x02;
	out->b[11] = 0x01;
	out->b[12] = 0xff;
	memcpy(out->b + 13, a->b + 13, 3);
}

/* ff02::1, all nodes on the link */
static inline void
uf_ip6_all_nodes(struct uf_ip6 *out)
{
	memset(out->b, 0, 16);
	out->b[0] = 0xff;
	out->b[1] = 0x02;
	out->b[15] = 0x01;
}

/* The Ethernet address of IPv6 multicast group A: 33:33 and its last 32 bits (RFC 2464 7) */
static inline void
uf_ip6_mcast_mac(const struct uf_ip6 *a, struct rte_ether_addr *mac)
{
	mac->addr_bytes[0] = 0x33;
	mac->addr_bytes[1] = 0x33;
	memcpy(mac->addr_bytes + 2, a->b + 12, 4);
}

/* Is A within PREFIX/LEN? */
static inline bool
uf_ip6_in_prefix(const struct uf_ip6 *a, const struct uf_ip6 *prefix, uint8_t len)
{
	unsigned int full = len / 8, rest = len % 8;

	if (len > 128)
		return false;
	if (memcmp(a->b, prefix->b, full) != 0)
		return false;
	if (rest == 0)
		return true;
	return ((a->b[full] ^ prefix->b[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

/* ---- ones-complement sums of addresses ---- */

/* Two 64-bit words' ones-complement sum, folded to at most 18 bits: 64-bit adds with the
 * carry added back are ones-complement adds of their 16-bit words (2^16 = 1 modulo 0xffff),
 * and the result is 0 only where both words are */
static __rte_always_inline uint32_t
uf_ck_sum2x64(uint64_t x, uint64_t y)
{
	uint64_t s = x + y;

	s += s < x; /* the end-around carry */
	s = (s >> 32) + (s & 0xffffffff);
	s = (s >> 16) + (s & 0xffff);
	return (uint32_t)s;
}

/* The sum of an IPv6 address's eight 16-bit words (as loaded: the same byte order as every
 * other sum here, which the final fold keeps; RFC 1071 byte-order independence), in two
 * 64-bit adds */
static inline uint32_t
uf_ck_ip6(const uint8_t *a)
{
	uint64_t x, y;

	memcpy(&x, a, 8);
	memcpy(&y, a + 8, 8);
	return uf_ck_sum2x64(x, y);
}

/* "minus" an IPv6 address: the complement of each of its words (of both 64-bit halves) */
static inline uint32_t
uf_ck_neg_ip6(const uint8_t *a)
{
	uint64_t x, y;

	memcpy(&x, a, 8);
	memcpy(&y, a + 8, 8);
	return uf_ck_sum2x64(~x, ~y);
}

/* ---- classification ---- */

/* Per-port facts the IPv6 classifier needs. */
struct uf_port6_id {
	struct rte_ether_addr mac;
	int n_ip6;
	struct uf_ip6 ip6[UF_MAX_PORT_IP6]; /* ports[].ip6 */
	bool listen;                        /* UDP to listen_udp on one of ip6 is forwarded */
	rte_be16_t listen_udp; /* 0: any UDP port (the worker's plan finds the listener) */
	uint32_t max_len;      /* as uf_port_id.max_len */
	rte_be16_t hc_tcp;     /* as uf_port_id.hc_tcp */
};

/* What the fan-out needs to know about an IPv6 datagram. */
struct uf_rx6_info {
	uint16_t payload_off; /* from the start of the frame: always UF_HDR6_LEN */
	uint16_t payload_len;
	struct uf_ip6 src_ip6;
	uint8_t dst_idx; /* which of the port's ip6[] it was sent to */
	rte_be16_t src_port;
	uint8_t tclass;     /* traffic class: DSCP kept, ECN cleared (as IPv4's tos) */
	uint16_t udp_cksum; /* as on the wire; never 0 (a zero checksum is dropped) */
};

/* Index of A among the port's addresses, or -1. */
static inline int
uf_port6_addr(const struct uf_port6_id *port, const uint8_t *a)
{
	int i;

	for (i = 0; i < port->n_ip6; i++)
		if (memcmp(port->ip6[i].b, a, 16) == 0)
			return i;
	return -1;
}

/* Is A a multicast address the port takes ICMPv6 to: ff02::1, or the solicited-node
 * address of one of its own (RFC 4861 7.2.1)? */
static inline bool
uf_port6_mcast_ours(const struct uf_port6_id *port, const uint8_t *a)
{
	struct uf_ip6 g;
	int i;

	uf_ip6_all_nodes(&g);
	if (memcmp(a, g.b, 16) == 0)
		return true;
	for (i = 0; i < port->n_ip6; i++) {
		uf_ip6_solicited_node(&port->ip6[i], &g);
		if (memcmp(a, g.b, 16) == 0)
			return true;
	}
	return false;
}

/*
 * Classify one Ethernet frame whose EtherType is IPv6 (the caller has looked). The checks,
 * in order, and the reason each failure is counted as (docs/loss-accounting.md):
 *   - too short for Ethernet + IPv6, version not 6, payload length past the frame:
 *     malformed;
 *   - longer than the port's MTU: gro_coalesced (UDP) or too_long (as IPv4, uf_too_long);
 *   - destination MAC and address: UDP only to our MAC and one of our addresses; ICMPv6
 *     also to 33:33 multicast MACs and ff02::1 or our solicited-node addresses (NDP);
 *     else not_for_us;
 *   - next header a fragment header: fragment; any other extension header (hop-by-hop,
 *     routing, destination options, AH, mobility, HIP, shim6, experimental): ipv6_ext_hdr
 *     (not walked: docs/architecture.md#ipv6); ICMPv6: control (4 bytes at
 *     least, a unicast sender MAC); TCP to health.tcp_port: control; anything else: not_udp;
 *   - UDP: lengths (UDP length in 8..payload length), else malformed; not our listen
 *     port: not_for_us; the NIC said the checksum is bad, or the checksum is 0 (mandatory
 *     in IPv6, RFC 8200 8.1): malformed.
 * A wrong non-zero checksum is not looked for (as for IPv4: it stays wrong in every copy,
 * never laundered; uf_udp6_cksum_ok checks it where a caller wants to).
 */
enum uf_verdict uf_classify6(const uint8_t *f, uint32_t len, uint64_t rx_ck,
			     const struct uf_port6_id *port, struct uf_rx6_info *info,
			     enum uf_drop *reason);

/*
 * The fast test of an IPv6 datagram to a port's one IPv6 listener (docs/architecture.md#ipv6):
 * what uf_classify6 forwards to that listener, in the common form (UDP right after the IPv6
 * header), found with a few wide compares against fields fixed per burst. True: the frame is
 * a datagram uf_classify6 would forward with the same facts (info), and the listener's
 * lookup would find this one; false: not decided here (the full classifier looks).
 */
struct uf_fast6 {
	uint64_t dmac; /* the port's MAC as an 8-byte load of a frame's first 6 bytes, the rest 0 */
	uint64_t dst_a, dst_b; /* the listener's address, as loaded in two halves */
	rte_be16_t dport;      /* the listener's UDP port */
	uint8_t dst_idx;       /* the address's index among the port's ip6 */
	uint32_t max_len;      /* the port's (uf_port6_id.max_len) */
};

/*
 * The test itself; any_dport (a constant): any UDP port passes, for a port with several
 * listeners, whose lookup then says which (uf_worker_rx_listeners6, lib/fwd/uf_fwd_lis.c);
 * p->dport is not read.
 */
static __rte_always_inline bool
uf_classify6_fast_port(const uint8_t *f, uint32_t len, uint64_t rx_ck, const struct uf_fast6 *p,
		       struct uf_rx6_info *info, const bool any_dport)
{
	const uint8_t *ip = f + RTE_ETHER_HDR_LEN;
	const uint8_t *udp = ip + UF_IP6_HDR;
	/* version 6 (the top nibble of byte 0) and next header UDP (byte 6), in one word each */
	const uint32_t vtc = uf_rd32(ip);
	uint32_t plen, ulen;
	uint16_t ck;

	/* a tag the PMD took out (udpfan asks none to; net_af_packet puts the kernel's back in the
	 * frame, docs/pmd-quirks.md) is vlan_unknown on a device without tagged ports, as in
	 * uf_classify_full_ex; a device with them has its tags out and the flag cleared before
	 * (worker_rx_vlan) */
	if (unlikely(len < UF_HDR6_LEN || len > p->max_len ||
		     (rx_ck & RTE_MBUF_F_RX_VLAN_STRIPPED)))
		return false;
	if ((uf_rd64(f) & RTE_BE64(0xffffffffffff0000)) != p->dmac ||
	    uf_rd16(f + UF_ETH_TYPE) != RTE_BE16(RTE_ETHER_TYPE_IPV6) ||
	    (vtc & RTE_BE32(0xf0000000)) != RTE_BE32(0x60000000) || ip[UF_IP6_NXT] != IPPROTO_UDP)
		return false;
	if (uf_rd64(ip + UF_IP6_DST) != p->dst_a || uf_rd64(ip + UF_IP6_DST + 8) != p->dst_b ||
	    (!any_dport && uf_rd16(udp + UF_UDP_DPORT) != p->dport))
		return false;
	plen = uf_be16(uf_rd16(ip + UF_IP6_PLEN));
	ulen = uf_be16(uf_rd16(udp + UF_UDP_LEN));
	ck = uf_rd16(udp + UF_UDP_CKSUM);
	/* the payload length in the frame, the UDP length within it (8 at least), a checksum
	 * (mandatory) the NIC did not call bad */
	if (RTE_ETHER_HDR_LEN + UF_IP6_HDR + plen > len || ulen < UF_UDP_HDR || ulen > plen ||
	    ck == 0 || (rx_ck & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_BAD)
		return false;
	info->payload_off = UF_HDR6_LEN;
	info->payload_len = (uint16_t)(ulen - UF_UDP_HDR);
	memcpy(info->src_ip6.b, ip + UF_IP6_SRC, 16);
	info->dst_idx = p->dst_idx;
	info->src_port = uf_rd16(udp + UF_UDP_SPORT);
	info->tclass = (uint8_t)((rte_be_to_cpu_32(vtc) >> 20) & 0xfc);
	info->udp_cksum = ck;
	return true;
}

/* to the one listener's address and UDP port */
static __rte_always_inline bool
uf_classify6_fast(const uint8_t *f, uint32_t len, uint64_t rx_ck, const struct uf_fast6 *p,
		  struct uf_rx6_info *info)
{
	return uf_classify6_fast_port(f, len, rx_ck, p, info, false);
}

/* The fast test's fields for listener address DST (index dst_idx among the port's ip6) and
 * UDP port DPORT on a port with identity PORT */
static inline void
uf_fast6_init(struct uf_fast6 *p, const struct uf_port6_id *port, const struct uf_ip6 *dst,
	      uint8_t dst_idx, rte_be16_t dport)
{
	uint8_t mac[8] = { 0 };

	memcpy(mac, port->mac.addr_bytes, 6);
	p->dmac = uf_rd64(mac);
	p->dst_a = uf_rd64(dst->b);
	p->dst_b = uf_rd64(dst->b + 8);
	p->dport = dport;
	p->dst_idx = dst_idx;
	p->max_len = port->max_len;
}

/*
 * Service addresses (docs/architecture.md#service-addresses): a frame uf_classify6 called
 * not_for_us, classified again as if `svc` were the port's only address: a datagram to it
 * (dst_idx 0), ICMPv6 to it or to its solicited-node group (NDP) for the control lcore, or
 * a drop with its reason. Frames to neither are left alone (false): the caller keeps its
 * first verdict.
 */
bool uf_classify6_svc(const uint8_t *f, uint32_t len, uint64_t rx_ck,
		      const struct uf_port6_id *port, const struct uf_ip6 *svc,
		      struct uf_rx6_info *info, enum uf_drop *reason, enum uf_verdict *v);

/* uf_udp_ck_redirect4 for IPv6 (never 0: IPv6 datagrams always carry one) */
static inline uint16_t
uf_udp_ck_redirect6(uint16_t ck, const struct uf_ip6 *from, const struct uf_ip6 *to)
{
	uint16_t r;

	if (memcmp(from->b, to->b, 16) == 0)
		return ck;
	r = (uint16_t)~uf_ck_fold((uint64_t)uf_ck_neg16(ck) + uf_ck_neg_ip6(from->b) +
				  uf_ck_ip6(to->b));
	return r == 0 ? 0xffff : r;
}

/* Is the UDP checksum of the Ethernet/IPv6/UDP frame F right (the UDP length taken from
 * the UDP header, the frame assumed checked by uf_classify6)? A zero field is not. */
bool uf_udp6_cksum_ok(const uint8_t *f);

/*
 * Complete an IPv6 datagram's checksum the sender left to offload, as uf_csum_complete does
 * for IPv4 (docs/architecture.md#partial-checksums), on ports whose quirk row says they may
 * carry such frames: RX flag L4_CKSUM_GOOD, nothing to do; L4_CKSUM_NONE, or a field equal
 * to the folded pseudo-header sum (Linux's CHECKSUM_PARTIAL), the checksum is computed from
 * the data once and replaces the field in IN; any other field stays (a wrong one stays wrong
 * in every copy). The pseudo-header sum of a non-zero address pair is never 0, so a partial
 * field is never taken for "no checksum" by uf_classify6. True when the field was completed.
 */
static inline bool
uf_csum6_complete(const uint8_t *f, uint64_t rx_ck, struct uf_rx6_info *in)
{
	const uint64_t l4 = rx_ck & RTE_MBUF_F_RX_L4_CKSUM_MASK;
	const uint8_t *ip = f + RTE_ETHER_HDR_LEN;
	const uint8_t *udp = f + in->payload_off - UF_UDP_HDR;
	const uint16_t ulen = (uint16_t)(in->payload_len + UF_UDP_HDR);
	const uint32_t ph = uf_ck_ip6(ip + UF_IP6_SRC) + uf_ck_ip6(ip + UF_IP6_DST) +
			    rte_cpu_to_be_16(IPPROTO_UDP) + uf_be16(ulen);
	uint16_t ck;

	if (l4 == RTE_MBUF_F_RX_L4_CKSUM_GOOD)
		return false;
	if (l4 != RTE_MBUF_F_RX_L4_CKSUM_NONE && likely(in->udp_cksum != uf_ck_fold32(ph)))
		return false;
	/* the sum over pseudo-header, UDP header (its checksum field as 0) and payload */
	ck = (uint16_t)~uf_ck_fold((uint64_t)ph + rte_raw_cksum(udp, ulen) +
				   uf_ck_neg16(uf_rd16(udp + UF_UDP_CKSUM)));
	return uf_udp_ck_store(&in->udp_cksum, ck);
}

/* ---- checksum derivation ---- */

/* The ones-complement sum P of an IPv6 input's pseudo-header, UDP header and payload (as
 * uf_in_sum for IPv4): the complement of its checksum, which is never 0 in a datagram the
 * classifier passed (so, unlike IPv4, the payload is never summed here). */
static inline uint32_t
uf_in6_sum(const struct uf_rx6_info *in)
{
	return uf_ck_neg16(in->udp_cksum);
}

/*
 * "Minus" the input's source address, summed once per datagram: what a copy that does
 * not carry the sender's address adds to P (uf_hdr6_write's src_neg, and the IPv4 writer's
 * via uf_rx_info_from6).
 */
static inline uint32_t
uf_in_src_neg4(rte_be32_t src_ip)
{
	return uf_ck_neg32(src_ip);
}

static inline uint32_t
uf_in_src_neg6(const struct uf_ip6 *src)
{
	return uf_ck_neg_ip6(src->b);
}

/* ---- the Eth/IPv6/UDP template ---- */

/* One IPv6 destination's prebuilt header and its checksum constant. */
struct uf_tmpl6 {
	uint8_t hdr[64]; /* UF_HDR6_LEN used; traffic class, payload and UDP length, checksum 0 */
	/* added to the input's P (and to "minus" its source when the copy's source is not the
	 * sender's): minus the input's destination address and port, plus the copy's
	 * addresses and ports (the ones the template fixes) */
	uint32_t udp_delta;
	bool keep_src_ip; /* source: original, IPv6 sender to IPv6 destination only */
	bool keep_sport;
	/* all ones where the copy's source address (port) is not the sender's: what of the
	 * datagram's "minus" the sender's address (port) its checksum adds (uf_hdr6_write_dg) */
	uint32_t src_neg_mask, sport_neg_mask;
};

struct uf_tmpl6_spec {
	struct rte_ether_addr src_mac;
	struct rte_ether_addr dst_mac; /* a multicast destination: uf_ip6_mcast_mac */
	struct uf_ip6 src_ip6;         /* ignored when keep_src_ip */
	struct uf_ip6 dst_ip6;
	rte_be16_t src_port; /* ignored when keep_src_port */
	rte_be16_t dst_port;
	uint8_t hop_limit;
	bool keep_src_ip; /* only with in_is_ip6 (config: a family mismatch is an error) */
	bool keep_src_port;
	/* what the input is addressed to (its family, our listen address and port) */
	bool in_is_ip6;
	rte_be32_t in_dst_ip;
	struct uf_ip6 in_dst_ip6;
	rte_be16_t in_dst_port;
};

/* Build T from S. Flow label 0 (RFC 6437 allows it; a copy is a new flow of ours, and the
 * sender's label, if any, belongs to its flow to us); traffic class per copy. -1 when S
 * asks to keep the source address of an IPv4 input. */
int uf_tmpl6_build(struct uf_tmpl6 *t, const struct uf_tmpl6_spec *s);

/* The IPv6 variant of an IPv4 template's derivation (v6 → v4): T built by uf_tmpl_build
 * from S with an IPv4 input in mind gets its udp_delta redone for an IPv6 input sent to
 * IN_DST6. -1 when S keeps the sender's address (a family mismatch). */
int uf_tmpl_from6(struct uf_tmpl *t, const struct uf_tmpl_spec *s, const struct uf_ip6 *in_dst6);

/*
 * The uf_rx_info an IPv4 copy of IPv6 input IN is written from (uf_hdr_write with a
 * uf_tmpl_from6 template): its src_ip is a stand-in whose two words sum, in ones-complement,
 * to the IPv6 source's eight (the writer only takes it away from the checksum), the
 * identification is 0 (the copy is an atomic datagram, DF set: RFC 6864), the tos the
 * traffic class.
 */
static __rte_always_inline rte_be32_t
uf_stand_in_src(const struct uf_ip6 *src6)
{
	return (rte_be32_t)uf_ck_fold32(uf_ck_ip6(src6->b));
}

/* with_src false: src_ip left 0 (a caller that writes no IPv4 copy from it, or makes it
 * with uf_stand_in_src where it does) */
static __rte_always_inline void
uf_rx_info_from6_l(const struct uf_rx6_info *in, struct uf_rx_info *out, const bool with_src)
{
	out->payload_off = in->payload_off;
	out->payload_len = in->payload_len;
	out->src_ip = with_src ? uf_stand_in_src(&in->src_ip6) : 0;
	out->src_port = in->src_port;
	out->ip_id = 0;
	out->tos = in->tclass;
	out->udp_cksum = in->udp_cksum;
}

static inline void
uf_rx_info_from6(const struct uf_rx6_info *in, struct uf_rx_info *out)
{
	uf_rx_info_from6_l(in, out, true);
}

/* What every IPv6 copy's header of one datagram shares, worked out once (uf_hdr6_dg_init) */
struct uf_hdr6_dg {
	uint32_t p_sum;     /* the input's P (uf_in_sum or uf_in6_sum) */
	uint32_t src_neg;   /* "minus" the input's source (uf_in_src_neg4/6) */
	uint32_t sport_neg; /* "minus" its UDP source port */
	rte_be32_t vtc;     /* version, traffic class, flow label 0 */
	rte_be16_t ulen;    /* the payload (IPv6) and UDP length: the same */
	rte_be16_t sport;
	const struct uf_ip6 *src6; /* the sender's address (keep_src_ip copies) */
};

/* PLEN payload bytes, traffic class TCLASS, the sender's UDP port SPORT and address SRC6
 * (where a copy keeps it); P_SUM and SRC_NEG as struct uf_hdr6_dg's */
static __rte_always_inline void
uf_hdr6_dg_init(struct uf_hdr6_dg *g, uint16_t plen, uint8_t tclass, rte_be16_t sport,
		const struct uf_ip6 *src6, uint32_t p_sum, uint32_t src_neg)
{
	g->p_sum = p_sum;
	g->src_neg = src_neg;
	g->sport_neg = uf_ck_neg16(sport);
	g->vtc = rte_cpu_to_be_32((uint32_t)6 << 28 | (uint32_t)tclass << 20);
	g->ulen = uf_be16(plen + UF_UDP_HDR);
	g->sport = sport;
	g->src6 = src6;
}

/*
 * Write one IPv6 copy's header at H (UF_HDR6_LEN bytes) from template T and the datagram's
 * shared parts G. The checksum is always written (mandatory in IPv6; a result of 0 is sent as
 * 0xffff): the input's P, the template's delta, and "minus" the sender's address and port
 * where the copy does not keep them (the template's masks: no branch).
 */
/* uf_hdr6_write_dg_l's header with the checksum uck given (0 sent as 0xffff: the caller's) */
static __rte_always_inline void
uf_hdr6_put(uint8_t *h, const struct uf_tmpl6 *t, const struct uf_hdr6_dg *g, uint16_t uck,
	    const bool over, const bool keep_sport_only)
{
	uint8_t *ip = h + RTE_ETHER_HDR_LEN;
	uint8_t *udp = ip + UF_IP6_HDR;

	/* over: the 2 bytes past the header are the caller's to write (the payload follows):
	 * four 16-byte moves instead of three and three narrower ones */
	memcpy(h, t->hdr, over ? sizeof(t->hdr) : UF_HDR6_LEN);
	memcpy(ip + UF_IP6_VTC, &g->vtc, 4);
	memcpy(ip + UF_IP6_PLEN, &g->ulen, 2);
	if (keep_sport_only) { /* the caller knows: the sender's port, our address */
		RTE_ASSERT(t->keep_sport && !t->keep_src_ip);
		memcpy(udp + UF_UDP_SPORT, &g->sport, 2);
	} else {
		if (t->keep_src_ip)
			memcpy(ip + UF_IP6_SRC, g->src6->b, 16);
		if (t->keep_sport)
			memcpy(udp + UF_UDP_SPORT, &g->sport, 2);
	}
	memcpy(udp + UF_UDP_LEN, &g->ulen, 2);
	memcpy(udp + UF_UDP_CKSUM, &uck, 2);
}

static __rte_always_inline void
uf_hdr6_write_dg_l(uint8_t *h, const struct uf_tmpl6 *t, const struct uf_hdr6_dg *g,
		   const bool over, const bool keep_sport_only)
{
	const uint32_t usum = g->p_sum + t->udp_delta + (g->src_neg & t->src_neg_mask) +
			      (g->sport_neg & t->sport_neg_mask);

	/* ~fold, 0 sent as 0xffff, in one fold (usum, a few 17-bit terms, is not 0xffffffff) */
	uf_hdr6_put(h, t, g, uf_ck_fold32_neg(usum), over, keep_sport_only);
}

static __rte_always_inline void
uf_hdr6_write_dg(uint8_t *h, const struct uf_tmpl6 *t, const struct uf_hdr6_dg *g)
{
	uf_hdr6_write_dg_l(h, t, g, false, false);
}

/*
 * Write one IPv6 copy's header at H (UF_HDR6_LEN bytes): PLEN payload bytes, traffic class
 * TCLASS, the sender's UDP port SPORT and (keep_src_ip) address SRC6. P_SUM: the input's P
 * (uf_in_sum or uf_in6_sum); SRC_NEG: "minus" the input's source (uf_in_src_neg4/6), both
 * once per datagram. One copy's uf_hdr6_dg_init and uf_hdr6_write_dg.
 */
static __rte_always_inline void
uf_hdr6_write(uint8_t *h, const struct uf_tmpl6 *t, uint16_t plen, uint8_t tclass, rte_be16_t sport,
	      const struct uf_ip6 *src6, uint32_t p_sum, uint32_t src_neg)
{
	struct uf_hdr6_dg g;

	uf_hdr6_dg_init(&g, plen, tclass, sport, src6, p_sum, src_neg);
	uf_hdr6_write_dg(h, t, &g);
}

#if UF_DP_SIMD
#include "arch/uf_hdr6_x86.h"
#else
#include "arch/uf_hdr6_generic.h"
#endif

#endif /* UF_PKT6_H */
