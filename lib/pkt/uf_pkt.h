/* SPDX-License-Identifier: BSD-3-Clause
 * Frames: Eth/IPv4/UDP header templates, ones-complement checksum arithmetic and the
 * classifier. Pure functions on bytes: unit-tested without EAL.
 */
#ifndef UF_PKT_H
#define UF_PKT_H

#include <stdbool.h>
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

#define UF_HDR_LEN (RTE_ETHER_HDR_LEN + 20 + 8) /* 42: what every copy starts with */
#define UF_MIN_FRAME 60                         /* shortest Ethernet frame without FCS */
#define UF_IP_DF 0x4000
/* ICMP types (24.11 deprecates RTE_IP_ICMP_ECHO_*, 22.11 lacks RTE_ICMP_TYPE_ECHO_*) */
#define UF_ICMP_ECHO_REQUEST 8
#define UF_ICMP_ECHO_REPLY 0

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

/* the same for a sum known to fit in 32 bits (a few dozen 16-bit words): two steps */
static inline uint16_t
uf_ck_fold32(uint32_t sum)
{
	sum = (sum >> 16) + (sum & 0xffff);
	sum = (sum >> 16) + (sum & 0xffff);
	return (uint16_t)sum;
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
	bool listen; /* UDP to listen_udp on this port is forwarded */
	rte_be16_t listen_udp;
};

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

/* An IPv4 header sums to 0xffff. Without options: five 32-bit words, folded (2^16 = 1 mod
 * 2^16 - 1), a third of what a 16-bit loop costs. */
static inline bool
uf_ipv4_hdr_ok(const uint8_t *ip, uint32_t ihl)
{
	if (likely(ihl == 20))
		return uf_ck_fold((uint64_t)uf_rd32(ip) + uf_rd32(ip + 4) + uf_rd32(ip + 8) +
				  uf_rd32(ip + 12) + uf_rd32(ip + 16)) == 0xffff;
	return rte_raw_cksum(ip, ihl) == 0xffff;
}

/*
 * Classify one frame. `rx_ck` are the mbuf's RX checksum flags (RTE_MBUF_F_RX_IP_CKSUM_* and
 * RTE_MBUF_F_RX_L4_CKSUM_*): a NIC-verified IPv4 header is not summed again, and a frame the
 * NIC found bad is dropped as malformed. This is the careful version, reason by reason; the
 * worker first tries uf_classify_dp's fast test and comes here only when that fails.
 */
static inline enum uf_verdict
uf_classify_full(const uint8_t *f, uint32_t len, uint64_t rx_ck, const struct uf_port_id *port,
		 struct uf_rx_info *info, enum uf_drop *reason)
{
	const uint8_t *ip = f + RTE_ETHER_HDR_LEN;
	uint16_t etype, tot, ulen;
	uint32_t ihl;

	if (unlikely(len < RTE_ETHER_HDR_LEN))
		return uf_drop_as(reason, UF_DROP_MALFORMED);
	etype = uf_rd16(f + 12);
	if (unlikely(etype != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))) {
		/* (an ARP frame is never a datagram to forward: say so to the compiler) */
		if (etype == rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP))
			return uf_classify_arp(f, len, port, reason) == UF_V_CONTROL ? UF_V_CONTROL
										     : UF_V_DROP;
		return uf_drop_as(reason, UF_DROP_NOT_IPV4);
	}
	if (unlikely(!rte_is_same_ether_addr((const struct rte_ether_addr *)f, &port->mac)))
		return uf_drop_as(reason, UF_DROP_NOT_FOR_US);
	if (unlikely(len < RTE_ETHER_HDR_LEN + 20 || (ip[0] >> 4) != 4))
		return uf_drop_as(reason, UF_DROP_MALFORMED);
	ihl = (uint32_t)(ip[0] & 0xf) * 4;
	tot = uf_be16(uf_rd16(ip + 2));
	if (unlikely(ihl < 20 || tot < ihl + 8 || RTE_ETHER_HDR_LEN + (uint32_t)tot > len)) {
		/* too short for UDP: another protocol to us goes through the checks below too */
		if (!(ihl >= 20 && tot >= ihl && RTE_ETHER_HDR_LEN + (uint32_t)tot <= len &&
		      ip[9] != IPPROTO_UDP && uf_rd32(ip + 16) == port->ip))
			return uf_drop_as(reason, UF_DROP_MALFORMED);
	}
	if (unlikely((rx_ck & RTE_MBUF_F_RX_IP_CKSUM_MASK) == RTE_MBUF_F_RX_IP_CKSUM_BAD))
		return uf_drop_as(reason, UF_DROP_MALFORMED);
	if ((rx_ck & RTE_MBUF_F_RX_IP_CKSUM_MASK) != RTE_MBUF_F_RX_IP_CKSUM_GOOD &&
	    unlikely(!uf_ipv4_hdr_ok(ip, ihl)))
		return uf_drop_as(reason, UF_DROP_MALFORMED);
	if (unlikely(uf_rd32(ip + 16) != port->ip))
		return uf_drop_as(reason, UF_DROP_NOT_FOR_US);
	/* MF or a fragment offset: compared in network order, no swap */
	if (unlikely((uf_rd16(ip + 6) &
		      rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) != 0))
		return uf_drop_as(reason, UF_DROP_FRAGMENT);
	if (unlikely(ip[9] != IPPROTO_UDP))
		goto not_udp;
	ulen = uf_be16(uf_rd16(ip + ihl + 4));
	if (unlikely(ulen < 8 || ulen > tot - ihl))
		return uf_drop_as(reason, UF_DROP_MALFORMED);
	if (unlikely(!port->listen || uf_rd16(ip + ihl + 2) != port->listen_udp))
		return uf_drop_as(reason, UF_DROP_NOT_FOR_US);
	if (unlikely((rx_ck & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_BAD))
		return uf_drop_as(reason, UF_DROP_MALFORMED);

	info->payload_off = (uint16_t)(RTE_ETHER_HDR_LEN + ihl + 8);
	info->payload_len = (uint16_t)(ulen - 8);
	info->src_ip = uf_rd32(ip + 12);
	info->src_port = uf_rd16(ip + ihl);
	info->ip_id = uf_rd16(ip + 4);
	info->tos = ip[1] & 0xfc; /* DSCP kept, ECN not */
	info->udp_cksum = uf_rd16(ip + ihl + 6);
	return UF_V_FORWARD;

not_udp:
	if (ip[9] == IPPROTO_ICMP) {
		if (unlikely(uf_rd32(ip + 16) != port->ip))
			return uf_drop_as(reason, UF_DROP_NOT_FOR_US);
		/* shorter than an ICMP header; or a sender MAC no answer may go to (as for ARP) */
		if (unlikely(tot < ihl + 8 ||
			     !rte_is_unicast_ether_addr((const struct rte_ether_addr *)(f + 6)) ||
			     rte_is_zero_ether_addr((const struct rte_ether_addr *)(f + 6))))
			return uf_drop_as(reason, UF_DROP_MALFORMED);
		return UF_V_CONTROL;
	}
	return uf_drop_as(reason, UF_DROP_NOT_UDP);
}

/*
 * The fast test for what nearly every frame is: Ethernet/IPv4 without options to our MAC, IP
 * and UDP port, not a fragment, lengths consistent, header checksum right. The conditions
 * are combined without branching between them (callgrind: 100 instructions per frame with
 * the reason-by-reason walk, 45 with this); any failure goes to uf_classify_full, which
 * finds the reason. Same verdicts, same counters, either way.
 */
static __rte_always_inline enum uf_verdict
uf_classify_dp(const uint8_t *f, uint32_t len, uint64_t rx_ck, const struct uf_port_id *port,
	       struct uf_rx_info *info, enum uf_drop *reason)
{
	const uint8_t *ip = f + RTE_ETHER_HDR_LEN;

	if (likely(len >= UF_HDR_LEN)) {
		const uint64_t bad_ck =
				(rx_ck & RTE_MBUF_F_RX_IP_CKSUM_MASK) ==
						RTE_MBUF_F_RX_IP_CKSUM_BAD ||
				(rx_ck & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_BAD;
		const uint32_t mac = (uf_rd32(f) ^ uf_rd32(port->mac.addr_bytes)) |
				     (uint32_t)(uf_rd16(f + 4) ^ uf_rd16(port->mac.addr_bytes + 4));
		const uint32_t hdr = (uint32_t)(uf_rd16(f + 12) ^
						rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4)) |
				     (uint32_t)(ip[0] ^ 0x45) | (uint32_t)(ip[9] ^ IPPROTO_UDP) |
				     (uf_rd32(ip + 16) ^ port->ip) |
				     (uint32_t)(uf_rd16(ip + 6) &
						rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG |
								 RTE_IPV4_HDR_OFFSET_MASK)) |
				     (uint32_t)(uf_rd16(ip + 22) ^ port->listen_udp);
		const uint32_t tot = uf_be16(uf_rd16(ip + 2)), ulen = uf_be16(uf_rd16(ip + 24));

		if (likely((mac | hdr | bad_ck) == 0 && port->listen && tot >= 28 &&
			   RTE_ETHER_HDR_LEN + tot <= len && ulen >= 8 && ulen <= tot - 20 &&
			   ((rx_ck & RTE_MBUF_F_RX_IP_CKSUM_MASK) == RTE_MBUF_F_RX_IP_CKSUM_GOOD ||
			    uf_ipv4_hdr_ok(ip, 20)))) {
			info->payload_off = UF_HDR_LEN;
			info->payload_len = (uint16_t)(ulen - 8);
			info->src_ip = uf_rd32(ip + 12);
			info->src_port = uf_rd16(ip + 20);
			info->ip_id = uf_rd16(ip + 4);
			info->tos = ip[1] & 0xfc; /* DSCP kept, ECN not */
			info->udp_cksum = uf_rd16(ip + 26);
			return UF_V_FORWARD;
		}
	}
	return uf_classify_full(f, len, rx_ck, port, info, reason);
}

enum uf_verdict uf_classify(const uint8_t *f, uint32_t len, uint64_t rx_ck,
			    const struct uf_port_id *port, struct uf_rx_info *info,
			    enum uf_drop *reason);

/* ---- header templates ---- */

/* One destination's prebuilt header and the checksum constants that go with it. */
struct uf_tmpl {
	uint8_t hdr[64]; /* UF_HDR_LEN used; total_length, id, lengths and checksums are 0 */
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
	s += 2 * (uint32_t)uf_be16(in->payload_len + 8);
	s += in->src_port + in_dst_port;
	return s;
}

/*
 * Write one copy's header at `h` (UF_HDR_LEN bytes) from the template and the input's
 * fields. `p_sum` is uf_in_sum() of the input, computed once per datagram.
 */
static inline void
uf_hdr_write(uint8_t *h, const struct uf_tmpl *t, const struct uf_rx_info *in, uint32_t p_sum,
	     bool udp_cksum)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(h + RTE_ETHER_HDR_LEN);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(h + RTE_ETHER_HDR_LEN + 20);
	const rte_be16_t tot = uf_be16(in->payload_len + 28);
	uint32_t ipsum, usum;

	/* branches on the template's mode, not masks: per destination they always go the
	 * same way and predict perfectly, and the common mode skips the work (callgrind: 35
	 * fewer instructions per copy than the masked form) */
	memcpy(h, t->hdr, UF_HDR_LEN);
	ip->type_of_service = in->tos;
	ip->total_length = tot;
	ip->packet_id = in->ip_id;
	ipsum = t->ip_base + tot + in->ip_id + uf_be16(in->tos);
	usum = p_sum + t->udp_delta;
	if (unlikely(t->keep_src_ip)) {
		ip->src_addr = in->src_ip;
		ipsum = uf_ck_add32(ipsum, in->src_ip);
	} else {
		usum += uf_ck_neg32(in->src_ip);
	}
	ip->hdr_checksum = (uint16_t)~uf_ck_fold32(ipsum);

	if (t->keep_sport)
		udp->src_port = in->src_port;
	else
		usum += uf_ck_neg16(in->src_port);
	udp->dgram_len = uf_be16(in->payload_len + 8);
	if (udp_cksum) {
		uint16_t ck = (uint16_t)~uf_ck_fold32(usum);

		udp->dgram_cksum = ck == 0 ? 0xffff : ck;
	}
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
