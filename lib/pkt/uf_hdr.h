/* SPDX-License-Identifier: BSD-3-Clause
 * Frames: a copy's header (templates, the datagram's checksum parts, the header writers, the
 * 802.1Q tag), ARP and ICMP echo. Included through uf_pkt.h.
 */
#ifndef UF_HDR_H
#define UF_HDR_H

#include "uf_classify.h"

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
 * is added as one 32-bit integer, with its end-around carry (uf_ck_add32c: the sum stays in 32
 * bits, the same remainder), and the remainder is a 32-bit multiply by the inverse of 0xffff
 * modulo 2^32: a multiple of 0xffff times it is its quotient, at most 0x10001, and every other
 * word lands above. test_pkt compares the two over edges and random values.
 */
static __rte_always_inline bool
uf_csum_is_ph(uint32_t ph_dst, rte_be32_t src_ip, rte_be16_t udp_len, uint16_t field)
{
	/* ph_dst (uf_csum_ph_dst) is at most 0x1fffe + 0x1100: these three stay far below 2^32 */
	const uint32_t d = uf_ck_add32c(ph_dst + udp_len + (field ^ 0xffffu), src_ip);

	return (uint32_t)(d * 0xfffeffffu) <= 0x10001u;
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
	UF_HDR_DG_ARCH /* the copies' header words (arch/uf_simd_*.h) */
};

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

#if UF_DP_SIMD
#include "arch/uf_hdr_x86.h"
#else
#include "arch/uf_hdr_generic.h"
#endif

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
	uf_hdr_dg_init_arch(g);
}

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
	if (uf_hdr_write_dg_arch(h, t, g, udp_cksum, l2, form, keep_src_ip, keep_sport))
		return;
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

#endif /* UF_HDR_H */
