/* SPDX-License-Identifier: BSD-3-Clause
 * IPv6 frames (issue #17, docs/architecture.md#ipv6): the Ethernet/IPv6/UDP
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

/* The sum of an IPv6 address's eight 16-bit words (as loaded: the same byte order as every
 * other sum here, which the final fold keeps; RFC 1071 byte-order independence) */
static inline uint32_t
uf_ck_ip6(const uint8_t *a)
{
	uint32_t s = 0;
	int i;

	for (i = 0; i < 16; i += 2)
		s += uf_rd16(a + i);
	return s;
}

/* "minus" an IPv6 address: the complement of each of its words */
static inline uint32_t
uf_ck_neg_ip6(const uint8_t *a)
{
	uint32_t s = 0;
	int i;

	for (i = 0; i < 16; i += 2)
		s += uf_ck_neg16(uf_rd16(a + i));
	return s;
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
 *     least, a unicast sender MAC); anything else: not_udp;
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
static inline void
uf_rx_info_from6(const struct uf_rx6_info *in, struct uf_rx_info *out)
{
	out->payload_off = in->payload_off;
	out->payload_len = in->payload_len;
	out->src_ip = (rte_be32_t)uf_ck_fold32(uf_ck_ip6(in->src_ip6.b));
	out->src_port = in->src_port;
	out->ip_id = 0;
	out->tos = in->tclass;
	out->udp_cksum = in->udp_cksum;
}

/*
 * Write one IPv6 copy's header at H (UF_HDR6_LEN bytes): PLEN payload bytes, traffic class
 * TCLASS, the sender's UDP port SPORT and (keep_src_ip) address SRC6. P_SUM: the input's P
 * (uf_in_sum or uf_in6_sum); SRC_NEG: "minus" the input's source (uf_in_src_neg4/6), both
 * once per datagram. The checksum is always written (mandatory in IPv6; a result of 0 is
 * sent as 0xffff).
 */
static __rte_always_inline void
uf_hdr6_write(uint8_t *h, const struct uf_tmpl6 *t, uint16_t plen, uint8_t tclass, rte_be16_t sport,
	      const struct uf_ip6 *src6, uint32_t p_sum, uint32_t src_neg)
{
	uint8_t *ip = h + RTE_ETHER_HDR_LEN;
	uint8_t *udp = ip + UF_IP6_HDR;
	const rte_be16_t ulen = uf_be16(plen + UF_UDP_HDR);
	const rte_be32_t vtc = rte_cpu_to_be_32((uint32_t)6 << 28 | (uint32_t)tclass << 20);
	uint32_t usum = p_sum + t->udp_delta;
	uint16_t uck;

	if (!t->keep_src_ip)
		usum += src_neg;
	if (!t->keep_sport)
		usum += uf_ck_neg16(sport);
	uck = (uint16_t)~uf_ck_fold32(usum);
	if (uck == 0)
		uck = 0xffff;

	memcpy(h, t->hdr, UF_HDR6_LEN);
	memcpy(ip + UF_IP6_VTC, &vtc, 4);
	memcpy(ip + UF_IP6_PLEN, &ulen, 2);
	if (t->keep_src_ip)
		memcpy(ip + UF_IP6_SRC, src6->b, 16);
	if (t->keep_sport)
		memcpy(udp + UF_UDP_SPORT, &sport, 2);
	memcpy(udp + UF_UDP_LEN, &ulen, 2);
	memcpy(udp + UF_UDP_CKSUM, &uck, 2);
}

#endif /* UF_PKT6_H */
