/* SPDX-License-Identifier: BSD-3-Clause
 * Frames, the ground floor: header field offsets and sizes, byte-order loads, ones-complement
 * checksum arithmetic (RFC 1071, RFC 1624). Included through uf_pkt.h.
 */
#ifndef UF_CSUM_H
#define UF_CSUM_H

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

static inline uint64_t
uf_rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* ---- ones-complement arithmetic (RFC 1071, RFC 1624) ---- */

static inline uint32_t
uf_ck_add32(uint32_t sum, uint32_t be_word32)
{
	/* a 32-bit field, as two 16-bit words (any byte order works if used consistently) */
	return sum + (be_word32 >> 16) + (be_word32 & 0xffff);
}

/*
 * sum + w with the end-around carry, both any 32-bit values: the same remainder modulo 0xffff
 * as uf_ck_add32(sum, w) (2^32 is 1 modulo 0xffff), an add and an add-with-carry where that
 * takes a shift, a mask and two adds; 0 only when both are (test_pkt compares the two)
 */
static inline uint32_t
uf_ck_add32c(uint32_t sum, uint32_t w)
{
	const uint32_t s = sum + w;

	return s + (s < w);
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

/*
 * A UDP checksum from its sum: ~uf_ck_fold32(sum), with 0 sent as 0xffff (RFC 768), in one
 * fold of the complemented sum: for a sum other than 0xffffffff (a few dozen 16-bit words
 * never reach it), ~sum is the same remainder modulo 0xffff as the checksum and not 0, and
 * the fold of a non-zero word is in [1, 0xffff]: no test for 0 (test_pkt compares the two).
 */
static inline uint16_t
uf_ck_fold32_neg(uint32_t sum)
{
	return uf_ck_fold32(~sum);
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

#endif /* UF_CSUM_H */
