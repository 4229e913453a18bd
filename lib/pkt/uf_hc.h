/* SPDX-License-Identifier: BSD-3-Clause
 * Health checks answered on a port's own address (docs/deployment.md#health-checks-on-the-port):
 * a stateless TCP responder for load balancers' TCP and HTTP checks. Given one received
 * Ethernet/IPv4 or Ethernet/IPv6 TCP segment, the configuration and the instance's state, it
 * builds the one reply frame (or none) and says what the segment was, for exactly one
 * counter. No per-connection state: our initial sequence number is a SYN cookie (a keyed
 * hash of the 4-tuple and a coarse time slot), and every later segment is checked by where
 * its acknowledgment number falls from that cookie. Pure functions on bytes: unit-tested
 * without EAL (tests/unit/test_hc.c), fuzzed (tests/fuzz/fuzz_hc.c).
 */
#ifndef UF_HC_H
#define UF_HC_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>

#define UF_HC_PATH_MAX 128  /* health.http_path, the NUL included */
#define UF_HC_REQ_MAX 1024  /* the longest HTTP request taken (one segment) */
#define UF_HC_RESP_MAX 400  /* our longest response: fits the 536-byte default MSS */
#define UF_HC_FRAME_MAX 600 /* the longest reply frame (IPv6 + response) */
#define UF_HC_WINDOW 4096   /* the window we advertise: a request fits */
#define UF_HC_SLOT_SHIFT 16 /* a cookie's time slot: 2^16 ms (65.5 s); this one or the last */
#define UF_HC_TTL 64

/*
 * What one segment was: X(enum, counter key, help). Each segment lands in exactly one
 * (the control lcore adds rate_limited before the module runs).
 */
#define UF_HC_RESULTS(X)                                                                            \
	X(SYN, syn, "SYNs to health.tcp_port, answered with a SYN-ACK carrying a SYN cookie")       \
	X(ACK_OK, ack_ok,                                                                           \
	  "ACKs whose cookie holds (handshake done, our data or FIN acked): no reply")              \
	X(HTTP_200, http_200, "HTTP requests for health.http_path while ready: 200 and FIN")        \
	X(HTTP_503, http_503,                                                                       \
	  "HTTP requests for health.http_path while starting, draining, stopping or degraded: 503") \
	X(HTTP_OTHER, http_other, "HTTP requests answered 404 (path), 405 (method) or 400")         \
	X(FIN, fin, "the peer's FIN, acknowledged (with our FIN when not sent yet)")                \
	X(RST_IN, rst_in, "the peer's RST, taken: no reply")                                        \
	X(BAD_COOKIE, bad_cookie, "ACK segments whose cookie fails (stale, forged): RST sent")      \
	X(RST_SENT, rst_sent,                                                                       \
	  "segments it does not implement (other port, split or long request, data on a TCP "       \
	  "check, no ACK): RST sent")                                                               \
	X(MALFORMED, malformed, "not a well-formed TCP segment to us (checksum, lengths): dropped")

#define UF_HC_ENUM(e, k, h) UF_HC_##e,
enum uf_hc_result {
	UF_HC_RESULTS(UF_HC_ENUM) UF_HC_N_RESULTS
};
#undef UF_HC_ENUM

/* The responder's fixed inputs. */
struct uf_hc_conf {
	rte_be16_t tcp_port;            /* network order; 0: nothing is answered */
	char http_path[UF_HC_PATH_MAX]; /* "": a plain TCP check (data is refused) */
	uint64_t key[2];                /* the SYN cookie's SipHash key */
	uint16_t mss4, mss6;            /* the MSS our SYN-ACK offers (port MTU - 40, - 60) */
	/* the port may carry checksums left to offload (uf_port_id.partial_csum): a TCP
	 * checksum field holding the pseudo-header sum is taken (a local peer on veth) */
	bool partial_csum;
};

/* The instance as the check reports it. */
struct uf_hc_now {
	uint64_t ms;       /* the control clock: the cookie's time slot */
	bool ready;        /* 200; else 503 */
	const char *state; /* the body's word: "ready", "draining", "degraded", ... */
};

/*
 * Answer one frame F of LEN bytes (untagged Ethernet, IPv4 or IPv6, TCP to one of our
 * addresses; the worker's classifier checked the MAC and address). The reply, if any, is
 * written to OUT (UF_HC_FRAME_MAX bytes, not overlapping F) and its length to *out_len (0:
 * no reply). Returns what the segment was.
 */
enum uf_hc_result uf_hc_answer(const struct uf_hc_conf *c, const struct uf_hc_now *now,
			       const uint8_t *f, uint32_t len, uint8_t *out, uint16_t *out_len);

/* The cookie for a 4-tuple (addresses of NA bytes, 4 or 16) at time slot SLOT. */
uint32_t uf_hc_cookie(const struct uf_hc_conf *c, const uint8_t *src, const uint8_t *dst, int na,
		      rte_be16_t sport, rte_be16_t dport, uint64_t slot);

/* SipHash-2-4 of LEN bytes under KEY (the cookie's keyed hash; exposed for its test vector). */
uint64_t uf_siphash24(const uint64_t key[2], const uint8_t *p, size_t len);

/* "syn", "ack_ok", ...: the counter key of a result */
const char *uf_hc_result_name(enum uf_hc_result r);

#endif /* UF_HC_H */
