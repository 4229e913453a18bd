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
	X(NOT_IPV4, not_ipv4, "neither IPv4 nor ARP (LLDP, IPv6 on a port without ip6, ...)")   \
	X(VLAN_UNKNOWN, vlan_unknown, "802.1Q/802.1ad-tagged with a VLAN id no port claims")    \
	X(NOT_UDP, not_udp, "IPv4/IPv6 for us, but neither UDP nor ICMP/ICMPv6")                \
	X(NOT_FOR_US, not_for_us, "another MAC, IP or UDP port than ours, or ARP about others") \
	X(MALFORMED, malformed, "truncated, bad lengths, bad IPv4 header checksum, bad ARP")    \
	X(FRAGMENT, fragment, "an IPv4 fragment or IPv6 fragment header (not reassembled)")     \
	X(TOO_BIG, too_big, "the payload does not fit a destination port's MTU")                \
	X(TOO_LONG, too_long, "longer than the receiving port's MTU (not UDP; jumbo/LRO)")      \
	X(GRO_COALESCED, gro_coalesced, "UDP longer than the receiving port's MTU: GSO/GRO")    \
	X(NO_NEIGHBOR, no_neighbor, "no destination of the datagram has a resolved MAC")        \
	X(NOMBUF, nombuf, "no buffer for even one copy")                                        \
	X(NO_RULE, no_rule, "no rule matches the sender")                                       \
	X(CTL_OVERFLOW, ctl_overflow, "ARP/ICMP for us while the control ring was full")        \
	X(IPV6_EXT_HDR, ipv6_ext_hdr, "IPv6 with an extension header (not walked)")

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
 * The counter lists. Each one is the single definition of its counters: the structs below,
 * the summing (uf_ctr_add), the stats JSON, the telemetry dicts, `udpfan --list-counters`
 * (which scripts/udpfan-exporter.py builds its metric families from) are all generated from
 * them, and tests/unit/test_counters.c checks that each one is in docs/loss-accounting.md.
 * A new counter is one line here (and its row in the docs).
 *
 * UF_FWD_COUNTERS: the "fwd" object, in its order; the fields of struct uf_lcore_ctr.
 * X(field, help) one counter; A(field, n, names, descrs, help) one counter per reason.
 */
#define UF_FWD_COUNTERS(X, A)                                                                  \
	X(rx, "frames received on every port")                                                 \
	X(forwarded, "datagrams accepted for fan-out")                                         \
	X(control, "ARP, ICMP and health-check frames to the control plane")                   \
	X(fanout, "datagram x destination pairs planned")                                      \
	X(sampled_out, "copies skipped by per-destination sampling")                           \
	X(copies_attempted, "copies built or attempted")                                       \
	X(tx_ok, "copies the PMD accepted")                                                    \
	A(drop, UF_DROP_MAX, uf_drop_names, uf_drop_descr, "received frames not forwarded")    \
	A(tx_drop, UF_TXDROP_MAX, uf_txdrop_names, uf_txdrop_descr,                            \
	  "attempted copies that did not reach the PMD")                                       \
	X(tx_retries, "extra tx_burst calls while a TX ring was full")                         \
	X(pool_failover, "datagrams a pool sent to another member than with every member up")  \
	X(chained, "copies sent as a header chained to the shared payload")                    \
	X(csum_completed, "datagrams whose partial UDP checksum was completed before fan-out") \
	X(ctl_tx_ok, "ARP/ICMP frames a worker handed to the PMD")                             \
	X(ctl_tx_drop, "ARP/ICMP frames a worker lost to a full TX ring")

/* A worker's cycle counters: summed like the others, reported per lcore (busy_pct). */
#define UF_LCORE_CYCLES(X)                                              \
	X(busy_cycles, "cycles in loop passes that received something") \
	X(total_cycles, "cycles in every loop pass")                    \
	X(loops, "loop passes (published every 1024)")

/*
 * The control lcore's counters, struct uf_ctl_ctr: X(object, field, key, help), reported
 * as <object>.<key> in the stats JSON (the objects "arp", "ndp", "icmp", "icmp6", "healthcheck", "control"
 * and "reload", in this order; "reload" also carries the last reload's result, reason and
 * generation). ndp.bad_<reason>: one counter per failed check of uf_ndp_parse
 * (lib/neigh/uf_ndp.h, UF_NDP_ERRS; "type" and "sender" never reach the NDP path).
 */
#define UF_CTL_COUNTERS(X)                                                                            \
	X(arp, arp_requests_answered, requests_answered, "ARP requests for a port's IP, answered")    \
	X(arp, arp_rate_limited, rate_limited,                                                        \
	  "ARP requests for a port's IP over control.neigh_rate (the port's bucket, shared with NS)") \
	X(arp, arp_replies_learned, replies_learned, "ARP replies from a tracked next hop")           \
	X(arp, arp_gratuitous, gratuitous,                                                            \
	  "gratuitous ARP requests of a tracked next hop, learned")                                   \
	X(arp, arp_requests_sent, requests_sent, "ARP requests sent for the next hops")               \
	X(arp, arp_gratuitous_sent, gratuitous_sent, "gratuitous ARPs sent")                          \
	X(arp, arp_ignored, ignored, "ARP handed over whose sender is not a tracked next hop")        \
	X(arp, arp_liveness_probes, liveness_probes,                                                  \
	  "liveness probes sent, ARP requests and NSs (also in requests_sent, ns_sent)")              \
	X(arp, arp_liveness_down, liveness_down,                                                      \
	  "next hops marked failed by liveness_misses unanswered liveness probes")                    \
	X(ndp, ndp_ns_answered, ns_answered, "Neighbor Solicitations for a port's ip6, answered")     \
	X(ndp, ndp_rate_limited, rate_limited,                                                        \
	  "Neighbor Solicitations for a port's ip6 over control.neigh_rate (shared with ARP)")        \
	X(ndp, ndp_na_learned, na_learned, "Neighbor Advertisements from a tracked next hop")         \
	X(ndp, ndp_ns_sent, ns_sent, "Neighbor Solicitations sent for the next hops")                 \
	X(ndp, ndp_unsolicited_na_sent, unsolicited_na_sent,                                          \
	  "unsolicited NAs sent (start, link up)")                                                    \
	X(ndp, ndp_ignored, ignored,                                                                  \
	  "valid NS/NA not about a port's ip6 or a tracked next hop; an unsolicited NA without TLLA") \
	X(ndp, ndp_bad_not_icmp6, bad_not_icmp6, "NS/NA cut short or not plain IPv6/ICMPv6")          \
	X(ndp, ndp_bad_hop_limit, bad_hop_limit, "NS/NA with a hop limit other than 255")             \
	X(ndp, ndp_bad_cksum, bad_cksum, "NS/NA with a wrong ICMPv6 checksum")                        \
	X(ndp, ndp_bad_code, bad_code, "NS/NA with an ICMPv6 code other than 0")                      \
	X(ndp, ndp_bad_len, bad_len, "NS/NA shorter than 24 bytes of ICMPv6")                         \
	X(ndp, ndp_bad_target_mcast, bad_target_mcast, "NS/NA for a multicast target")                \
	X(ndp, ndp_bad_opt_len, bad_opt_len, "NS/NA with an option of length 0 or past the end")      \
	X(ndp, ndp_bad_lladdr, bad_lladdr,                                                            \
	  "NS/NA whose link-layer address option or Ethernet source is a group or zero MAC")          \
	X(ndp, ndp_bad_dad_dst, bad_dad_dst, "NS from :: not to a solicited-node group")              \
	X(ndp, ndp_bad_dad_slla, bad_dad_slla, "NS from :: with a source link-layer address")         \
	X(ndp, ndp_bad_solicited_mcast, bad_solicited_mcast, "NA to a group with Solicited set")      \
	X(icmp, icmp_echo_answered, echo_answered, "ICMP echo requests answered")                     \
	X(icmp, icmp_rate_limited, rate_limited, "ICMP echo requests over control.icmp_rate")         \
	X(icmp, icmp_ignored, ignored, "other ICMP to our IP, malformed echo requests")               \
	X(icmp6, icmp6_echo_answered, echo_answered, "ICMPv6 echo requests answered")                 \
	X(icmp6, icmp6_rate_limited, rate_limited,                                                    \
	  "ICMPv6 echo requests over control.icmp_rate (the port's bucket, shared with ICMP)")        \
	X(icmp6, icmp6_ignored, ignored,                                                              \
	  "other ICMPv6 handed over, echo requests malformed or with a wrong checksum")               \
	X(healthcheck, hc_syn, syn,                                                                   \
	  "SYNs to health.tcp_port answered with a SYN-ACK (a SYN cookie)")                           \
	X(healthcheck, hc_ack_ok, ack_ok,                                                             \
	  "ACKs whose cookie holds (handshake done, our response or FIN acked): no reply")            \
	X(healthcheck, hc_http_200, http_200, "HTTP requests for health.http_path answered 200")      \
	X(healthcheck, hc_http_503, http_503,                                                         \
	  "HTTP requests for health.http_path answered 503 (starting, draining, stopping, degraded)") \
	X(healthcheck, hc_http_other, http_other, "HTTP requests answered 404, 405 or 400")           \
	X(healthcheck, hc_fin, fin, "FINs of a health-check peer, acknowledged")                      \
	X(healthcheck, hc_rst_in, rst_in, "RSTs of a health-check peer, taken without a reply")       \
	X(healthcheck, hc_bad_cookie, bad_cookie, "ACKs whose SYN cookie fails: RST sent")            \
	X(healthcheck, hc_rst_sent, rst_sent,                                                         \
	  "segments the responder does not implement (split requests, data on a TCP check): RST")     \
	X(healthcheck, hc_malformed, malformed,                                                       \
	  "TCP to health.tcp_port cut short or with a bad checksum")                                  \
	X(healthcheck, hc_rate_limited, rate_limited, "health-check segments over health.rate")       \
	X(control, ctl_nombuf, nombuf, "no mbuf for an ARP request or NS, a gratuitous ARP or NA")    \
	X(control, ctl_ring_full, ring_full, "control frames the control->worker ring refused")       \
	X(control, ctl_unhandled, unhandled,                                                          \
	  "frames still in the worker->control ring when the workers stopped")                        \
	X(control, plan_updates, plan_updates, "fan-out plans replaced after a neighbour change")     \
	X(reload, reload_applied, applied, "reloads (SIGHUP, /udpfan/reload) applied")                \
	X(reload, reload_refused, refused, "reloads refused: a change needs a restart")               \
	X(reload, reload_invalid, invalid, "reloads refused: the file does not load or validate")

/* A destination's counters, struct uf_dest_ctr after `copies`: X(field, help), the keys of
 * each "destinations" entry in this order. */
#define UF_DEST_COUNTERS(X)                                           \
	X(tx_ok, "copies the PMD accepted for this destination")      \
	X(tx_drop, "copies lost for this destination, every reason")  \
	X(sampled_out, "datagrams sampling kept from it")             \
	X(no_neighbor, "copies dropped while its MAC was unresolved") \
	X(liveness_suspect,                                           \
	  "copies sent between its next hop's last answer and its liveness failure (an estimate)")

/*
 * A listener's counters, struct uf_lis_ctr: X(field, help), the keys of each "listeners"
 * entry in this order. Identities per listener (docs/loss-accounting.md#per-listener-counters):
 *   rx == forwarded + drop_no_rule + drop_too_big + drop_no_neighbor + drop_nombuf
 *   fanout == copies_attempted + sampled_out;  copies_attempted == tx_ok + tx_drop
 * tx_ok and tx_drop are its destinations' sums, filled in by the reader.
 */
#define UF_LIS_COUNTERS(X)                                                                 \
	X(rx, "datagrams to the listener's IP and UDP port that passed the frame checks")  \
	X(forwarded, "its datagrams accepted for fan-out")                                 \
	X(fanout, "its datagram x destination pairs planned")                              \
	X(sampled_out, "its copies skipped by sampling")                                   \
	X(copies_attempted, "its copies built or attempted")                               \
	X(tx_ok, "its copies the PMD accepted (its destinations' tx_ok)")                  \
	X(tx_drop, "its copies lost, every reason (its destinations' tx_drop)")            \
	X(drop_no_rule, "its datagrams no rule of its matched")                            \
	X(drop_too_big, "its datagrams too big for one of its destinations' ports")        \
	X(drop_no_neighbor, "its datagrams none of whose destinations had a resolved MAC") \
	X(drop_nombuf, "its datagrams without a buffer for even one copy")

#define UF_CTR_FIELD(f, h) uint64_t f;
#define UF_CTR_ARRAY(f, n, names, descrs, h) uint64_t f[n];

/*
 * Per-destination counters (per lcore). A worker counts the copies it attempts for a
 * destination and the ones that fail; tx_ok is their difference, filled in by the reader
 * (the global tx_ok, by contrast, is the sum of what tx_burst accepted: the identity
 * copies_attempted == tx_ok + Σ tx_drop is checked against it, not derived from it).
 * tx_drop counts every reason, no_neighbor included.
 */
struct uf_dest_ctr {
	uint64_t copies;
	UF_DEST_COUNTERS(UF_CTR_FIELD)
};

/* Per-listener counters (per lcore; with one listener the reader derives them from the
 * totals, so the one-listener path counts nothing more). */
struct uf_lis_ctr {
	UF_LIS_COUNTERS(UF_CTR_FIELD)
};

/*
 * The counters one worker writes and the main lcore reads (relaxed loads). Control-plane
 * frames (ARP/ICMP replies) leave through the worker's TX buffers but are counted apart
 * (ctl_tx_*), never in the copy ledger.
 */
struct uf_lcore_ctr {
	UF_FWD_COUNTERS(UF_CTR_FIELD, UF_CTR_ARRAY)
	UF_LCORE_CYCLES(UF_CTR_FIELD)
	uint64_t plan_version; /* the plan this worker last used */
} __rte_cache_aligned;

#endif /* UF_COUNTERS_H */
