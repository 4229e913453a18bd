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

#include "uf_counters.h"

#define UF_HDR_LEN (RTE_ETHER_HDR_LEN + 20 + 8) /* 42: what every copy starts with */
#define UF_MIN_FRAME 60                         /* shortest Ethernet frame without FCS */
#define UF_IP_DF 0x4000
/* ICMP types (24.11 deprecates RTE_IP_ICMP_ECHO_*, 22.11 lacks RTE_ICMP_TYPE_ECHO_*) */
#define UF_ICMP_ECHO_REQUEST 8
#define UF_ICMP_ECHO_REPLY 0

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

/*
 * Classify one frame. `rx_ck` are the mbuf's RX checksum flags (RTE_MBUF_F_RX_IP_CKSUM_* and
 * RTE_MBUF_F_RX_L4_CKSUM_*): a NIC-verified IPv4 header is not summed again, and a frame the
 * NIC found bad is dropped as malformed.
 */
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
	uint32_t repl_src_mask;   /* all-ones: the copy carries another source IP than the input */
	uint32_t repl_sport_mask; /* all-ones: the copy carries another source port */
	uint32_t keep_src_mask;   /* ~repl_src_mask */
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
	s += 2 * (uint32_t)rte_cpu_to_be_16(in->payload_len + 8);
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
	const rte_be16_t tot = rte_cpu_to_be_16(in->payload_len + 28);
	const rte_be16_t ulen = rte_cpu_to_be_16(in->payload_len + 8);
	uint32_t ipsum, usum;

	memcpy(h, t->hdr, UF_HDR_LEN);
	ip->type_of_service = in->tos;
	ip->total_length = tot;
	ip->packet_id = in->ip_id;
	ip->src_addr = (ip->src_addr & t->repl_src_mask) | (in->src_ip & t->keep_src_mask);
	ipsum = t->ip_base + tot + in->ip_id;
	ipsum += rte_cpu_to_be_16((uint16_t)in->tos) & 0xffff;
	ipsum += uf_ck_add32(0, in->src_ip) & t->keep_src_mask;
	ip->hdr_checksum = (uint16_t)~uf_ck_fold(ipsum);

	udp->src_port = (udp->src_port & (uint16_t)t->repl_sport_mask) |
			(in->src_port & (uint16_t)~t->repl_sport_mask);
	udp->dgram_len = ulen;
	if (udp_cksum) {
		uint16_t ck;

		usum = p_sum + t->udp_delta;
		usum += uf_ck_neg32(in->src_ip) & t->repl_src_mask;
		usum += uf_ck_neg16(in->src_port) & t->repl_sport_mask;
		ck = (uint16_t)~uf_ck_fold(usum);
		udp->dgram_cksum = ck == 0 ? 0xffff : ck;
	} else {
		udp->dgram_cksum = 0;
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
