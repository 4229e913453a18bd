/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_tcp.h>

#include "uf_hc.h"
#include "uf_pkt6.h"

#define ETH_LEN RTE_ETHER_HDR_LEN
#define TCP_HDR 20
#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_PSH 0x08
#define TCP_ACK 0x10
#define TCP_URG 0x20

/* ---- SipHash-2-4 (Aumasson and Bernstein), the reference algorithm ---- */

static inline uint64_t
rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

#define SIPROUND                   \
	do {                       \
		v0 += v1;          \
		v1 = rotl(v1, 13); \
		v1 ^= v0;          \
		v0 = rotl(v0, 32); \
		v2 += v3;          \
		v3 = rotl(v3, 16); \
		v3 ^= v2;          \
		v0 += v3;          \
		v3 = rotl(v3, 21); \
		v3 ^= v0;          \
		v2 += v1;          \
		v1 = rotl(v1, 17); \
		v1 ^= v2;          \
		v2 = rotl(v2, 32); \
	} while (0)

static inline uint64_t
le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

uint64_t
uf_siphash24(const uint64_t key[2], const uint8_t *p, size_t len)
{
	uint64_t v0 = 0x736f6d6570736575ULL ^ key[0], v1 = 0x646f72616e646f6dULL ^ key[1];
	uint64_t v2 = 0x6c7967656e657261ULL ^ key[0], v3 = 0x7465646279746573ULL ^ key[1];
	uint64_t b = (uint64_t)len << 56, m;
	size_t i, left = len & 7;

	for (i = 0; i + 8 <= len; i += 8) {
		m = le64(p + i);
		v3 ^= m;
		SIPROUND;
		SIPROUND;
		v0 ^= m;
	}
	while (left > 0) {
		left--;
		b |= (uint64_t)p[i + left] << (8 * left);
	}
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

uint32_t
uf_hc_cookie(const struct uf_hc_conf *c, const uint8_t *src, const uint8_t *dst, int na,
	     rte_be16_t sport, rte_be16_t dport, uint64_t slot)
{
	uint8_t m[16 + 16 + 2 + 2 + 8 + 1];
	size_t o = 0;

	memcpy(m + o, src, (size_t)na);
	o += (size_t)na;
	memcpy(m + o, dst, (size_t)na);
	o += (size_t)na;
	memcpy(m + o, &sport, 2);
	o += 2;
	memcpy(m + o, &dport, 2);
	o += 2;
	memcpy(m + o, &slot, 8);
	o += 8;
	m[o++] = (uint8_t)na; /* the family */
	return (uint32_t)uf_siphash24(c->key, m, o);
}

const char *
uf_hc_result_name(enum uf_hc_result r)
{
#define UF_HC_NAME(e, k, h) [UF_HC_##e] = #k,
	static const char *const names[] = { UF_HC_RESULTS(UF_HC_NAME) };
#undef UF_HC_NAME

	return (unsigned int)r < UF_HC_N_RESULTS ? names[r] : "?";
}

/* ---- the segment ---- */

struct seg {
	bool is6;
	const uint8_t *ip, *tcp, *data;
	const uint8_t *src, *dst; /* addresses: 4 or 16 bytes */
	int na;
	uint32_t seq, ack, dlen;
	uint8_t flags;
	rte_be16_t sport, dport;
};

static uint32_t
rd32be(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void
wr32be(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void
wr16be(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* the TCP checksum's sum over the pseudo-header (addresses, protocol, TCP length) */
static uint32_t
pseudo_sum(const uint8_t *src, const uint8_t *dst, int na, uint32_t tcp_len)
{
	uint32_t s = 0;
	int i;

	for (i = 0; i < na; i += 2)
		s += uf_rd16(src + i) + uf_rd16(dst + i);
	return s + rte_cpu_to_be_16(IPPROTO_TCP) + rte_cpu_to_be_16((uint16_t)(tcp_len >> 16)) +
	       rte_cpu_to_be_16((uint16_t)tcp_len);
}

static bool
unicast_ip(const uint8_t *a, int na)
{
	static const uint8_t zero[16];

	if (na == 4) /* not 0/8, multicast, broadcast */
		return a[0] != 0 && a[0] < 224;
	return a[0] != 0xff && memcmp(a, zero, 16) != 0;
}

/* Parse F into s; false: malformed (the frame is dropped, counted, never answered). */
static bool
parse(const struct uf_hc_conf *c, const uint8_t *f, uint32_t len, struct seg *s)
{
	const struct rte_ether_addr *smac = (const struct rte_ether_addr *)(f + UF_ETH_SRC);
	uint32_t l4len, doff, ph;
	uint16_t etype;

	memset(s, 0, sizeof(*s));
	if (len < ETH_LEN)
		return false;
	if (!rte_is_unicast_ether_addr(smac) || rte_is_zero_ether_addr(smac))
		return false;
	etype = uf_be16(uf_rd16(f + UF_ETH_TYPE));
	s->ip = f + ETH_LEN;
	if (etype == RTE_ETHER_TYPE_IPV4) {
		uint32_t ihl, tot;

		if (len < ETH_LEN + UF_IPV4_HDR_MIN || (s->ip[UF_IP_VHL] >> 4) != 4)
			return false;
		ihl = (uint32_t)(s->ip[UF_IP_VHL] & 0x0f) * 4;
		tot = uf_be16(uf_rd16(s->ip + UF_IP_LEN));
		if (ihl < UF_IPV4_HDR_MIN || tot < ihl || ETH_LEN + tot > len ||
		    s->ip[UF_IP_PROTO] != IPPROTO_TCP || !uf_ipv4_hdr_ok(s->ip, ihl) ||
		    (uf_rd16(s->ip + UF_IP_FRAG) &
		     rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) != 0)
			return false;
		s->tcp = s->ip + ihl;
		l4len = tot - ihl;
		s->src = s->ip + UF_IP_SRC;
		s->dst = s->ip + UF_IP_DST;
		s->na = 4;
	} else if (etype == RTE_ETHER_TYPE_IPV6) {
		uint32_t plen;

		if (len < ETH_LEN + UF_IP6_HDR || (s->ip[UF_IP6_VTC] >> 4) != 6)
			return false;
		plen = uf_be16(uf_rd16(s->ip + UF_IP6_PLEN));
		/* no extension headers: the classifier drops them (ipv6_ext_hdr) */
		if (ETH_LEN + UF_IP6_HDR + plen > len || s->ip[UF_IP6_NXT] != IPPROTO_TCP)
			return false;
		s->is6 = true;
		s->tcp = s->ip + UF_IP6_HDR;
		l4len = plen;
		s->src = s->ip + UF_IP6_SRC;
		s->dst = s->ip + UF_IP6_DST;
		s->na = 16;
	} else {
		return false;
	}
	if (l4len < TCP_HDR)
		return false;
	doff = (uint32_t)(s->tcp[12] >> 4) * 4;
	if (doff < TCP_HDR || doff > l4len)
		return false;
	ph = pseudo_sum(s->src, s->dst, s->na, l4len);
	/* right; or, where the port may carry them, left to offload: the field is the folded
	 * pseudo-header sum (docs/architecture.md#partial-checksums, as for UDP) */
	if (uf_ck_fold((uint64_t)ph + rte_raw_cksum(s->tcp, l4len)) != 0xffff &&
	    !(c->partial_csum && ((uint64_t)ph + (uint16_t)~uf_rd16(s->tcp + 16)) % 0xffff == 0))
		return false;
	if (!unicast_ip(s->src, s->na))
		return false;
	s->sport = uf_rd16(s->tcp);
	s->dport = uf_rd16(s->tcp + 2);
	s->seq = rd32be(s->tcp + 4);
	s->ack = rd32be(s->tcp + 8);
	s->flags = s->tcp[13];
	s->data = s->tcp + doff;
	s->dlen = l4len - doff;
	return true;
}

/*
 * Write the reply to segment S: our flags, sequence and acknowledgment numbers, an MSS
 * option (the SYN-ACK only) and DATA. Addresses and ports swapped, no IP options or
 * extension headers. Returns the frame's length (padded to 60).
 */
static uint16_t
reply(const struct seg *s, const uint8_t *f, uint8_t *out, uint8_t flags, uint32_t seq,
      uint32_t ack, uint16_t mss, const char *data, uint32_t dlen)
{
	const uint32_t opt = mss != 0 ? 4 : 0, tlen = TCP_HDR + opt + dlen;
	const uint32_t iplen = s->is6 ? UF_IP6_HDR : UF_IPV4_HDR_MIN;
	uint8_t *ip = out + ETH_LEN, *tcp = ip + iplen;
	uint32_t n = ETH_LEN + iplen + tlen, sum;

	memset(out, 0, n < UF_MIN_FRAME ? UF_MIN_FRAME : n);
	memcpy(out, f + UF_ETH_SRC, RTE_ETHER_ADDR_LEN); /* to the sender */
	memcpy(out + UF_ETH_SRC, f, RTE_ETHER_ADDR_LEN); /* from our MAC (the classifier's) */
	if (s->is6) {
		wr16be(out + UF_ETH_TYPE, RTE_ETHER_TYPE_IPV6);
		ip[UF_IP6_VTC] = 0x60;
		wr16be(ip + UF_IP6_PLEN, (uint16_t)tlen);
		ip[UF_IP6_NXT] = IPPROTO_TCP;
		ip[UF_IP6_HLIM] = UF_HC_TTL;
		memcpy(ip + UF_IP6_SRC, s->dst, 16);
		memcpy(ip + UF_IP6_DST, s->src, 16);
	} else {
		wr16be(out + UF_ETH_TYPE, RTE_ETHER_TYPE_IPV4);
		ip[UF_IP_VHL] = UF_IPV4_VHL_NO_OPT;
		wr16be(ip + UF_IP_LEN, (uint16_t)(UF_IPV4_HDR_MIN + tlen));
		wr16be(ip + UF_IP_FRAG, UF_IP_DF);
		ip[8] = UF_HC_TTL;
		ip[UF_IP_PROTO] = IPPROTO_TCP;
		memcpy(ip + UF_IP_SRC, s->dst, 4);
		memcpy(ip + UF_IP_DST, s->src, 4);
		((struct rte_ipv4_hdr *)ip)->hdr_checksum =
				(uint16_t)~uf_ck_fold(rte_raw_cksum(ip, UF_IPV4_HDR_MIN));
	}
	memcpy(tcp, &s->dport, 2);
	memcpy(tcp + 2, &s->sport, 2);
	wr32be(tcp + 4, seq);
	wr32be(tcp + 8, ack);
	tcp[12] = (uint8_t)(((TCP_HDR + opt) / 4) << 4);
	tcp[13] = flags;
	wr16be(tcp + 14, (flags & TCP_RST) ? 0 : UF_HC_WINDOW);
	if (mss != 0) {
		tcp[TCP_HDR] = 2; /* MSS, length 4 */
		tcp[TCP_HDR + 1] = 4;
		wr16be(tcp + TCP_HDR + 2, mss);
	}
	if (dlen > 0)
		memcpy(tcp + TCP_HDR + opt, data, dlen);
	sum = pseudo_sum(ip + (s->is6 ? UF_IP6_SRC : UF_IP_SRC),
			 ip + (s->is6 ? UF_IP6_DST : UF_IP_DST), s->na, tlen);
	((struct rte_tcp_hdr *)tcp)->cksum =
			(uint16_t)~uf_ck_fold((uint64_t)sum + rte_raw_cksum(tcp, tlen));
	return (uint16_t)(n < UF_MIN_FRAME ? UF_MIN_FRAME : n);
}

/* the length a segment takes in sequence space: data, SYN and FIN */
static uint32_t
seg_len(const struct seg *s)
{
	return s->dlen + ((s->flags & TCP_SYN) ? 1 : 0) + ((s->flags & TCP_FIN) ? 1 : 0);
}

/* RFC 9293 3.10.7.1 (a closed port): to an ACK, RST from its acknowledgment number; else
 * RST+ACK of everything the segment carried. Never to a RST (the caller's). */
static uint16_t
rst(const struct seg *s, const uint8_t *f, uint8_t *out)
{
	if (s->flags & TCP_ACK)
		return reply(s, f, out, TCP_RST, s->ack, 0, 0, NULL, 0);
	return reply(s, f, out, TCP_RST | TCP_ACK, 0, s->seq + seg_len(s), 0, NULL, 0);
}

static bool
starts(const uint8_t *p, uint32_t n, const char *word)
{
	size_t w = strlen(word);

	return n >= w && memcmp(p, word, w) == 0;
}

/*
 * The HTTP request in D (DLEN bytes, all of it: ends at its first CRLFCRLF) answered into
 * BUF: 200 or 503 for GET or HEAD of the path, 404 another path, 405 another method, 400 a
 * request line that is not "METHOD SP TARGET SP HTTP/1.x". Returns the response's length,
 * 0 when D is not one whole request (refused), and the result in *r.
 */
static uint32_t
http(const struct uf_hc_conf *c, const struct uf_hc_now *now, const uint8_t *d, uint32_t dlen,
     char *buf, enum uf_hc_result *r)
{
	const uint8_t *sp1, *sp2, *eol, *end = d + dlen;
	const char *reason, *body;
	bool head = false;
	int code, n, blen;
	uint32_t i;

	if (dlen < 4 || dlen > UF_HC_REQ_MAX || memcmp(end - 4, "\r\n\r\n", 4) != 0)
		return 0;
	for (i = 0; i + 4 < dlen; i++) /* the end of the headers only once, at the end */
		if (memcmp(d + i, "\r\n\r\n", 4) == 0)
			return 0;
	eol = memchr(d, '\r', dlen); /* never NULL: the request ends in CRLF */
	sp1 = memchr(d, ' ', (size_t)(eol - d));
	sp2 = sp1 != NULL ? memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1)) : NULL;
	if (sp1 == NULL || sp2 == NULL || sp1 == d || sp2 == sp1 + 1 ||
	    (size_t)(eol - sp2 - 1) != 8 || !starts(sp2 + 1, 7, "HTTP/1.") ||
	    (sp2[8] != '0' && sp2[8] != '1')) {
		code = 400;
	} else if (!((sp1 - d == 3 && memcmp(d, "GET", 3) == 0) ||
		     (head = (sp1 - d == 4 && memcmp(d, "HEAD", 4) == 0)))) {
		code = 405;
	} else if ((size_t)(sp2 - sp1 - 1) != strlen(c->http_path) ||
		   memcmp(sp1 + 1, c->http_path, (size_t)(sp2 - sp1 - 1)) != 0) {
		code = 404;
	} else {
		code = now->ready ? 200 : 503;
	}
	switch (code) {
	case 200:
		reason = "OK";
		body = now->state;
		*r = UF_HC_HTTP_200;
		break;
	case 503:
		reason = "Service Unavailable";
		body = now->state;
		*r = UF_HC_HTTP_503;
		break;
	case 404:
		reason = "Not Found";
		body = "not found";
		*r = UF_HC_HTTP_OTHER;
		break;
	case 405:
		reason = "Method Not Allowed";
		body = "GET or HEAD";
		*r = UF_HC_HTTP_OTHER;
		break;
	default:
		reason = "Bad Request";
		body = "bad request";
		*r = UF_HC_HTTP_OTHER;
		break;
	}
	blen = (int)strnlen(body, 64) + 1; /* and a newline */
	n = snprintf(buf, UF_HC_RESP_MAX,
		     "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
		     "%sConnection: close\r\nCache-Control: no-store\r\n\r\n%.*s%s",
		     code, reason, blen, code == 405 ? "Allow: GET, HEAD\r\n" : "",
		     head ? 0 : blen - 1, body, head ? "" : "\n");
	if (n < 0 || n >= UF_HC_RESP_MAX) /* never: the longest is about 200 bytes */
		return 0;
	return (uint32_t)n;
}

enum uf_hc_result
uf_hc_answer(const struct uf_hc_conf *c, const struct uf_hc_now *now, const uint8_t *f,
	     uint32_t len, uint8_t *out, uint16_t *out_len)
{
	const uint64_t slot = now->ms >> UF_HC_SLOT_SHIFT;
	char resp[UF_HC_RESP_MAX];
	enum uf_hc_result r = UF_HC_RST_SENT;
	struct seg s;
	uint32_t isn, rel = 0, n;
	bool ok = false;
	int k;

	*out_len = 0;
	if (!parse(c, f, len, &s))
		return UF_HC_MALFORMED;
	if (s.flags & TCP_RST) /* never answered (RFC 9293 3.10.7.1) */
		return UF_HC_RST_IN;
	if (c->tcp_port == 0 || s.dport != c->tcp_port || (s.flags & (TCP_SYN | TCP_ACK)) == 0 ||
	    (s.flags & TCP_URG) != 0) {
		*out_len = rst(&s, f, out);
		return UF_HC_RST_SENT;
	}
	if (s.flags & TCP_SYN) {
		/* a SYN alone (data on it is not acknowledged: the peer sends it again) */
		if (s.flags & (TCP_ACK | TCP_FIN)) {
			*out_len = rst(&s, f, out);
			return UF_HC_RST_SENT;
		}
		isn = uf_hc_cookie(c, s.src, s.dst, s.na, s.sport, s.dport, slot);
		*out_len = reply(&s, f, out, TCP_SYN | TCP_ACK, isn, s.seq + 1,
				 s.is6 ? c->mss6 : c->mss4, NULL, 0);
		return UF_HC_SYN;
	}
	/* an ACK: which of our bytes it acknowledges, from the cookie of this slot or the last
	 * (1: our SYN; 2: our FIN after nothing; up to 2 + a response: response and FIN) */
	for (k = 0; k < 2 && !ok; k++) {
		if (slot < (uint64_t)k)
			break;
		isn = uf_hc_cookie(c, s.src, s.dst, s.na, s.sport, s.dport, slot - (uint64_t)k);
		rel = s.ack - isn;
		ok = rel >= 1 && rel <= 2 + UF_HC_RESP_MAX;
	}
	if (!ok) {
		*out_len = rst(&s, f, out);
		return UF_HC_BAD_COOKIE;
	}
	if (s.dlen > 0) {
		/* one whole request before we have sent anything; nothing else is taken */
		n = 0;
		if (rel == 1 && c->http_path[0] != '\0')
			n = http(c, now, s.data, s.dlen, resp, &r);
		if (n == 0) {
			*out_len = rst(&s, f, out);
			return UF_HC_RST_SENT;
		}
		/* the response and our FIN in one segment; the peer's FIN too if it came */
		*out_len = reply(&s, f, out, TCP_ACK | TCP_PSH | TCP_FIN, s.ack,
				 s.seq + seg_len(&s), 0, resp, n);
		return r;
	}
	if (s.flags & TCP_FIN) {
		/* our FIN with the ACK when we have sent nothing yet; else it went (with the
		 * response, or answering an earlier FIN) and this acknowledges theirs */
		*out_len = reply(&s, f, out, rel == 1 ? TCP_ACK | TCP_FIN : TCP_ACK, s.ack,
				 s.seq + 1, 0, NULL, 0);
		return UF_HC_FIN;
	}
	return UF_HC_ACK_OK;
}
