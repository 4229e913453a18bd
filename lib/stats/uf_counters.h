/* SPDX-License-Identifier: BSD-3-Clause
 * The ledger's counters: one list of reasons, from which the enums, the JSON keys and the
 * docs' table are generated, and the per-lcore single-writer counter block.
 *
 * Identities (docs/loss-accounting.md#the-three-identities):
 *   rx             == forwarded + control + Σ drop[reason]
 *   fanout         == copies_attempted + sampled_out
 *   copies_attempted == tx_ok + Σ tx_drop[reason]
 * They hold exactly once the workers have stopped (the final stats object); an interval
 * object may be off by the frames a worker holds in its current burst and TX buffers.
 */
#ifndef UF_COUNTERS_H
#define UF_COUNTERS_H

#include <stdint.h>

#include <rte_common.h>

#include "uf_common.h"

/* Why a received frame was not forwarded. X(ENUM, json_key, description) */
#define UF_DROP_REASONS(X)                                                                      \
	X(NOT_IPV4, not_ipv4, "neither IPv4 nor ARP (IPv6, LLDP, ...)")                         \
	X(VLAN_TAGGED, vlan_tagged, "802.1Q/802.1ad-tagged, on a port that is untagged")        \
	X(NOT_UDP, not_udp, "IPv4 for us, but neither UDP nor ICMP")                            \
	X(NOT_FOR_US, not_for_us, "another MAC, IP or UDP port than ours, or ARP about others") \
	X(MALFORMED, malformed, "truncated, bad lengths, bad IPv4 header checksum, bad ARP")    \
	X(FRAGMENT, fragment, "an IPv4 fragment (not reassembled)")                             \
	X(TOO_BIG, too_big, "the payload does not fit a destination port's MTU")                \
	X(TOO_LONG, too_long, "longer than the receiving port's MTU (not UDP; jumbo/LRO)")      \
	X(GRO_COALESCED, gro_coalesced, "UDP longer than the receiving port's MTU: GSO/GRO")    \
	X(NO_NEIGHBOR, no_neighbor, "no destination of the datagram has a resolved MAC")        \
	X(NOMBUF, nombuf, "no buffer for even one copy")                                        \
	X(NO_RULE, no_rule, "no rule matches the sender")                                       \
	X(CTL_OVERFLOW, ctl_overflow, "ARP/ICMP for us while the control ring was full")

/* Why a copy that was attempted did not reach the PMD. */
#define UF_TX_DROP_REASONS(X)                                                          \
	X(RING_FULL, ring_full, "the TX ring stayed full through the bounded retries") \
	X(NOMBUF, nombuf, "no buffer for this copy")                                   \
	X(NO_NEIGHBOR, no_neighbor, "the destination's MAC is not resolved")           \
	X(LINK_DOWN, link_down, "the egress port's link is down, or its TX made no progress")

#define UF_ENUM_DROP(e, k, d) UF_DROP_##e,
enum uf_drop {
	UF_DROP_REASONS(UF_ENUM_DROP) UF_DROP_MAX
};
#undef UF_ENUM_DROP

#define UF_ENUM_TXDROP(e, k, d) UF_TXDROP_##e,
enum uf_txdrop {
	UF_TX_DROP_REASONS(UF_ENUM_TXDROP) UF_TXDROP_MAX
};
#undef UF_ENUM_TXDROP

extern const char *const uf_drop_names[UF_DROP_MAX];
extern const char *const uf_drop_descr[UF_DROP_MAX];
extern const char *const uf_txdrop_names[UF_TXDROP_MAX];
extern const char *const uf_txdrop_descr[UF_TXDROP_MAX];

/*
 * Per-destination counters (per lcore). A worker counts the copies it attempts for a
 * destination and the ones that fail; tx_ok is their difference, filled in by the reader
 * (the global tx_ok, by contrast, is the sum of what tx_burst accepted: the identity
 * copies_attempted == tx_ok + Σ tx_drop is checked against it, not derived from it).
 */
struct uf_dest_ctr {
	uint64_t copies;
	uint64_t tx_drop; /* every reason, no_neighbor included */
	uint64_t sampled_out;
	uint64_t no_neighbor;
	uint64_t tx_ok; /* reader side: copies - tx_drop */
};

/*
 * The counters one worker writes and the main lcore reads (relaxed loads). Control-plane
 * frames (ARP/ICMP replies) leave through the worker's TX buffers but are counted apart
 * (ctl_tx_*), never in the copy ledger.
 */
struct uf_lcore_ctr {
	uint64_t rx;
	uint64_t forwarded;
	uint64_t control;
	uint64_t drop[UF_DROP_MAX];
	uint64_t fanout;
	uint64_t sampled_out;
	uint64_t copies_attempted;
	uint64_t tx_ok;
	uint64_t tx_drop[UF_TXDROP_MAX];
	uint64_t ctl_tx_ok;
	uint64_t ctl_tx_drop;
	/* datagrams whose partial UDP checksum was completed before fan-out (uf_csum_complete) */
	uint64_t csum_completed;
	uint64_t tx_retries;  /* extra tx_burst calls made while a ring was full */
	uint64_t chained;     /* copies built as a header chained to the shared payload */
	uint64_t busy_cycles; /* cycles in loop passes that received something */
	uint64_t total_cycles;
	uint64_t loops;
	uint64_t plan_version; /* the plan this worker last used */
} __rte_cache_aligned;

#endif /* UF_COUNTERS_H */
