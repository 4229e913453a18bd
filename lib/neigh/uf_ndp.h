/* SPDX-License-Identifier: BSD-3-Clause
 * Neighbour Discovery frames (RFC 4861) and ICMPv6 echo: build and parse, no state (the
 * neighbour state machine is lib/neigh/uf_neigh.h's, for both families; the control lcore
 * answers and learns in lib/ctl/uf_ctlframes.c). Pure functions on bytes:
 * tests/unit/test_ndp.c (docs/architecture.md#neighbour-discovery).
 *
 * The frames are Ethernet/IPv6/ICMPv6 with no extension header (the IPv6 classifier drops
 * those: uf_classify6).
 */
#ifndef UF_NDP_H
#define UF_NDP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>

#include "uf_common.h"

/* ICMPv6 types (RFC 4443, RFC 4861) */
#define UF_ICMP6_ECHO_REQUEST 128
#define UF_ICMP6_ECHO_REPLY 129
#define UF_ICMP6_NS 135
#define UF_ICMP6_NA 136

/* NDP options (RFC 4861 4.6) */
#define UF_NDP_OPT_SLLA 1 /* source link-layer address */
#define UF_NDP_OPT_TLLA 2 /* target link-layer address */

/* NA flags, the first byte after the checksum (RFC 4861 4.4) */
#define UF_NA_ROUTER 0x80
#define UF_NA_SOLICITED 0x40
#define UF_NA_OVERRIDE 0x20

/* NDP's hop limit, in and out (RFC 4861 7.1: a message from off the link has less) */
#define UF_NDP_HLIM 255
/* the hop limit of our echo replies (as IPv4's TTL 64) */
#define UF_ICMP6_REPLY_HOP_LIMIT 64

/* An NS or NA frame: 14 + 40 + 24 + an 8-byte link-layer address option */
#define UF_NDP_FRAME_LEN (RTE_ETHER_HDR_LEN + 40 + 24 + 8) /* 86 */

/*
 * Why a frame is not a valid NDP message (or echo request). Each is a distinct reason the
 * caller can count. X(ENUM, key, description); RFC 4861 7.1.1 (NS) and 7.1.2 (NA) list the
 * checks a host must make, in the order here.
 */
#define UF_NDP_ERRS(X)                                                                          \
	X(OK, ok, "valid")                                                                      \
	X(NOT_ICMP6, not_icmp6, "not Ethernet/IPv6/ICMPv6 (no extension header), or cut short") \
	X(TYPE, type, "an ICMPv6 type other than the one(s) asked for")                         \
	X(HOP_LIMIT, hop_limit, "IPv6 hop limit not 255 (sent from off the link)")              \
	X(CKSUM, cksum, "ICMPv6 checksum wrong")                                                \
	X(CODE, code, "ICMPv6 code not 0")                                                      \
	X(LEN, len, "ICMPv6 length shorter than the message (24 bytes for NS and NA)")          \
	X(TARGET_MCAST, target_mcast, "the target address is multicast")                        \
	X(OPT_LEN, opt_len, "an option of length 0, or one past the end of the message")        \
	X(LLADDR, lladdr, "a group or zero MAC: link-layer address option or source")           \
	X(DAD_DST, dad_dst, "NS from :: not to a solicited-node multicast address")             \
	X(DAD_SLLA, dad_slla, "NS from :: with a source link-layer address option")             \
	X(SOLICITED_MCAST, solicited_mcast, "NA to a multicast address with Solicited set")     \
	X(SENDER, sender, "echo from a multicast or unspecified address or MAC")

#define UF_NDP_ENUM(e, k, d) UF_NDP_##e,
enum uf_ndp_err {
	UF_NDP_ERRS(UF_NDP_ENUM) UF_NDP_ERR_MAX
};
#undef UF_NDP_ENUM

extern const char *const uf_ndp_err_names[UF_NDP_ERR_MAX];
extern const char *const uf_ndp_err_descr[UF_NDP_ERR_MAX];

/* What an NS or NA says. */
struct uf_ndp_info {
	uint8_t type; /* UF_ICMP6_NS or UF_ICMP6_NA */
	struct rte_ether_addr eth_src;
	struct uf_ip6 src, dst; /* the IPv6 header's */
	struct uf_ip6 target;
	/* the link-layer address option: SLLA in an NS, TLLA in an NA (another kind is
	 * skipped, as RFC 4861 says unknown options are) */
	bool has_lla;
	struct rte_ether_addr lla;
	uint8_t flags; /* NA: UF_NA_ROUTER | UF_NA_SOLICITED | UF_NA_OVERRIDE */
};

/* Check and parse the NS or NA in F (LEN bytes, from the Ethernet header on). */
enum uf_ndp_err uf_ndp_parse(const uint8_t *f, uint32_t len, struct uf_ndp_info *n);

/*
 * Build a Neighbor Solicitation for TARGET from SRC (our address, or :: for duplicate
 * address detection, which carries no SLLA option) into F (UF_NDP_FRAME_LEN bytes). DST
 * NULL: to TARGET's solicited-node multicast address and its 33:33:ff MAC (resolution);
 * else to DST at DST_MAC (a unicast probe of a known neighbour). Returns the frame's length.
 */
uint16_t uf_ndp_ns_build(uint8_t *f, const struct rte_ether_addr *our_mac, const struct uf_ip6 *src,
			 const struct uf_ip6 *target, const struct uf_ip6 *dst,
			 const struct rte_ether_addr *dst_mac);

/*
 * Build a Neighbor Advertisement for TARGET (ours) with our MAC in a TLLA option, from
 * SRC to DST at DST_MAC, FLAGS as UF_NA_*. An answer to an NS goes to its sender with
 * Solicited (and Override) set; to an NS from :: (DAD), and unsolicited ones, to ff02::1 at
 * 33:33:00:00:00:01 without Solicited. Returns the frame's length.
 */
uint16_t uf_ndp_na_build(uint8_t *f, const struct rte_ether_addr *our_mac, const struct uf_ip6 *src,
			 const struct uf_ip6 *dst, const struct rte_ether_addr *dst_mac,
			 const struct uf_ip6 *target, uint8_t flags);

/*
 * Turn the ICMPv6 echo request in F (LEN bytes) into its reply in place: MACs swapped (ours
 * as the source), addresses swapped (OUR_IP as the source when the request went to a
 * group), type 129, hop limit 64, checksum recomputed. Anything after the IPv6 payload
 * (Ethernet padding) is left as it is. UF_NDP_OK, or why not (NOT_ICMP6, TYPE, CKSUM,
 * CODE, LEN, SENDER).
 */
enum uf_ndp_err uf_icmp6_echo_reply(uint8_t *f, uint32_t len, const struct rte_ether_addr *our_mac,
				    const struct uf_ip6 *our_ip);

/* The ICMPv6 checksum of the message at ICMP (LEN bytes, its checksum field taken as 0)
 * between SRC and DST: the value to put in the field. */
uint16_t uf_icmp6_cksum(const uint8_t *src, const uint8_t *dst, const uint8_t *icmp, uint32_t len);

#endif /* UF_NDP_H */
