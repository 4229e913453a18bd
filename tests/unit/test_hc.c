/* SPDX-License-Identifier: BSD-3-Clause
 * The health-check responder (lib/pkt/uf_hc.c, docs/deployment.md#health-checks-on-the-port):
 * crafted IPv4 and IPv6 TCP segments in, the reply frame and the result out. One case per
 * behaviour it implements and per one it refuses; and the classifiers' steering of TCP. The checksums of every reply are checked
 * from first principles (a sum over the pseudo-header and segment), not by the module's code.
 */
#include <stdio.h>
#include <string.h>

#include "uf_common.h"
#include "uf_hc.h"
#include "uf_pkt6.h"
#include "uf_test.h"

#define F_FIN 0x01
#define F_SYN 0x02
#define F_RST 0x04
#define F_PSH 0x08
#define F_ACK 0x10
#define F_URG 0x20

static const uint8_t our_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t peer_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static struct uf_hc_conf conf;
static const uint64_t t0 = 10ull << UF_HC_SLOT_SHIFT; /* a slot boundary */

/* a segment to send, in host order */
struct t_seg {
	bool v6;
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	const uint8_t *opt; /* TCP options (a multiple of 4 bytes) */
	int optlen;
	const char *data;
	int dlen; /* -1: strlen(data) */
};

static uint16_t
sum_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static uint32_t
sum_bytes(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

/* the TCP checksum over a segment at tcp of tlen bytes between addresses of na bytes */
static uint16_t
tcp_sum(const uint8_t *src, const uint8_t *dst, int na, const uint8_t *tcp, uint32_t tlen)
{
	uint32_t s = sum_bytes(src, (size_t)na) + sum_bytes(dst, (size_t)na) + 6 + tlen;

	return sum_fold(s + sum_bytes(tcp, tlen));
}

static const uint8_t peer4[4] = { 10, 0, 0, 2 }, our4[4] = { 10, 0, 0, 1 };
static const uint8_t peer6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };
static const uint8_t our6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };

/* Build the frame for t into f; returns its length. */
static uint32_t
mk(const struct t_seg *t, uint8_t *f)
{
	const int dlen = t->data == NULL ? 0 : t->dlen >= 0 ? t->dlen : (int)strlen(t->data);
	const uint32_t tlen = 20 + (uint32_t)t->optlen + (uint32_t)dlen;
	const uint32_t il = t->v6 ? 40 : 20;
	uint8_t *ip = f + 14, *tcp = ip + il;
	uint32_t n = 14 + il + tlen;

	memset(f, 0, n < 60 ? 60 : n);
	memcpy(f, our_mac, 6);
	memcpy(f + 6, peer_mac, 6);
	if (t->v6) {
		put16(f + 12, 0x86dd);
		ip[0] = 0x60;
		put16(ip + 4, (uint16_t)tlen);
		ip[6] = 6;
		ip[7] = 64;
		memcpy(ip + 8, peer6, 16);
		memcpy(ip + 24, our6, 16);
	} else {
		put16(f + 12, 0x0800);
		ip[0] = 0x45;
		put16(ip + 2, (uint16_t)(20 + tlen));
		ip[8] = 64;
		ip[9] = 6;
		memcpy(ip + 12, peer4, 4);
		memcpy(ip + 16, our4, 4);
		put16(ip + 10, (uint16_t)~sum_fold(sum_bytes(ip, 20)));
	}
	put16(tcp, t->sport != 0 ? t->sport : 40000);
	put16(tcp + 2, t->dport != 0 ? t->dport : 8080);
	put32(tcp + 4, t->seq);
	put32(tcp + 8, t->ack);
	tcp[12] = (uint8_t)(((20 + t->optlen) / 4) << 4);
	tcp[13] = t->flags;
	put16(tcp + 14, 65535);
	if (t->optlen > 0)
		memcpy(tcp + 20, t->opt, (size_t)t->optlen);
	if (dlen > 0)
		memcpy(tcp + 20 + t->optlen, t->data, (size_t)dlen);
	put16(tcp + 16, (uint16_t)~tcp_sum(t->v6 ? peer6 : peer4, t->v6 ? our6 : our4,
					   t->v6 ? 16 : 4, tcp, tlen));
	return n < 60 ? 60 : n;
}

/* a parsed reply */
struct t_rep {
	uint16_t len;
	uint8_t flags;
	uint32_t seq, ack;
	uint16_t win, mss, sport, dport;
	int doff;
	char data[UF_HC_FRAME_MAX + 1];
	uint32_t dlen;
	bool sums_ok;
};

static enum uf_hc_result
run(const struct t_seg *t, uint64_t ms, bool ready, const char *state, struct t_rep *r)
{
	const struct uf_hc_now now = { .ms = ms, .ready = ready, .state = state };
	uint8_t f[2048], out[UF_HC_FRAME_MAX];
	uint32_t n = mk(t, f);
	enum uf_hc_result res;

	memset(r, 0, sizeof(*r));
	memset(out, 0xee, sizeof(out));
	res = uf_hc_answer(&conf, &now, f, n, out, &r->len);
	if (r->len > 0) {
		const bool v6 = get16(out + 12) == 0x86dd;
		const uint8_t *ip = out + 14, *tcp = ip + (v6 ? 40 : 20);
		const uint32_t tlen = v6 ? get16(ip + 4) : (uint32_t)get16(ip + 2) - 20;

		r->sums_ok = memcmp(out, peer_mac, 6) == 0 && memcmp(out + 6, our_mac, 6) == 0 &&
			     tcp_sum(v6 ? our6 : our4, v6 ? peer6 : peer4, v6 ? 16 : 4, tcp,
				     tlen) == 0xffff &&
			     memcmp(ip + (v6 ? 8 : 12), v6 ? our6 : our4, v6 ? 16 : 4) == 0 &&
			     (v6 || sum_fold(sum_bytes(ip, 20)) == 0xffff);
		r->flags = tcp[13];
		r->sport = get16(tcp);
		r->dport = get16(tcp + 2);
		r->seq = get32(tcp + 4);
		r->ack = get32(tcp + 8);
		r->win = get16(tcp + 14);
		r->doff = (tcp[12] >> 4) * 4;
		if (r->doff >= 24 && tcp[20] == 2 && tcp[21] == 4)
			r->mss = get16(tcp + 22);
		r->dlen = tlen - (uint32_t)r->doff;
		memcpy(r->data, tcp + r->doff, r->dlen);
		r->data[r->dlen] = '\0';
	}
	return res;
}

/* the cookie of the default 4-tuple in the slot of ms */
static uint32_t
cookie(bool v6, uint64_t ms)
{
	return uf_hc_cookie(&conf, v6 ? peer6 : peer4, v6 ? our6 : our4, v6 ? 16 : 4,
			    rte_cpu_to_be_16(40000), rte_cpu_to_be_16(8080),
			    ms >> UF_HC_SLOT_SHIFT);
}

static void
setup(const char *path)
{
	memset(&conf, 0, sizeof(conf));
	conf.tcp_port = rte_cpu_to_be_16(8080);
	snprintf(conf.http_path, sizeof(conf.http_path), "%s", path);
	conf.key[0] = 0x0123456789abcdefULL;
	conf.key[1] = 0xfedcba9876543210ULL;
	conf.mss4 = 1460;
	conf.mss6 = 1440;
}

static void
test_siphash_vector(void)
{
	/* the SipHash paper's example: key 00..0f, message 00..0e */
	uint64_t key[2] = { 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL };
	uint8_t m[15];
	int i;

	for (i = 0; i < 15; i++)
		m[i] = (uint8_t)i;
	CHECK_EQ(uf_siphash24(key, m, 15), 0xa129ca6149be45e5ULL);
	CHECK_EQ(uf_siphash24(key, m, 0), 0x726fdb47dd0e0e31ULL);
}

static void
test_syn_answered(void)
{
	/* options the peer sends (MSS, SACK permitted, timestamps, window scale) are ignored:
	 * the SYN-ACK carries MSS alone */
	static const uint8_t opts[20] = { 2, 4, 0x05, 0xb4, 4, 2, 8, 10, 1, 2,
					  3, 4, 0,    0,    0, 0, 1, 3,  3, 7 };
	struct t_seg t = { .seq = 1000, .flags = F_SYN, .opt = opts, .optlen = 20 };
	struct t_rep r;

	setup("/healthz");
	CHECK_EQ(run(&t, t0 + 5, true, "ready", &r), UF_HC_SYN);
	CHECK_EQ(r.flags, F_SYN | F_ACK);
	CHECK_EQ(r.ack, 1001);
	CHECK_EQ(r.seq, cookie(false, t0));
	CHECK_EQ(r.doff, 24);
	CHECK_EQ(r.mss, 1460);
	CHECK_EQ(r.win, UF_HC_WINDOW);
	CHECK_EQ(r.sport, 8080);
	CHECK_EQ(r.dport, 40000);
	CHECK_EQ(r.len, 60);
	CHECK(r.sums_ok, "addresses, MACs and checksums of the SYN-ACK");
	/* the same SYN again: the same cookie (a retransmitted SYN, no state) */
	CHECK_EQ(run(&t, t0 + 9, true, "ready", &r), UF_HC_SYN);
	CHECK_EQ(r.seq, cookie(false, t0));
	/* data on a SYN is not acknowledged */
	t.data = "GET / HTTP/1.1\r\n\r\n";
	t.dlen = -1;
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_SYN);
	CHECK_EQ(r.ack, 1001);
}

static void
test_handshake_ack(void)
{
	const uint32_t c = cookie(false, t0);
	struct t_seg t = { .seq = 1001, .ack = c + 1, .flags = F_ACK };
	struct t_rep r;

	setup("/healthz");
	CHECK_EQ(run(&t, t0 + 100, true, "ready", &r), UF_HC_ACK_OK);
	CHECK_EQ(r.len, 0);
	/* the next slot still takes it; the one after does not */
	CHECK_EQ(run(&t, t0 + (1ull << UF_HC_SLOT_SHIFT), true, "ready", &r), UF_HC_ACK_OK);
	CHECK_EQ(run(&t, t0 + (2ull << UF_HC_SLOT_SHIFT), true, "ready", &r), UF_HC_BAD_COOKIE);
	CHECK_EQ(r.flags, F_RST);
	CHECK_EQ(r.seq, c + 1);
}

static void
test_bad_cookie(void)
{
	struct t_seg t = { .seq = 1001, .ack = cookie(false, t0) + 1 + 5000, .flags = F_ACK };
	struct t_rep r;

	setup("/healthz");
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_BAD_COOKIE);
	CHECK_EQ(r.flags, F_RST);
	CHECK_EQ(r.seq, t.ack);
	CHECK(r.sums_ok, "RST checksums");
	/* acknowledging our ISN itself (nothing) is not in the window either */
	t.ack = cookie(false, t0);
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_BAD_COOKIE);
	/* another key: another cookie */
	t.ack = cookie(false, t0) + 1;
	conf.key[0] ^= 1;
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_BAD_COOKIE);
	/* another source port: another cookie */
	setup("/healthz");
	t.sport = 40001;
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_BAD_COOKIE);
}

static void
test_http_200(void)
{
	const char *req = "GET /healthz HTTP/1.1\r\nHost: x\r\nUser-Agent: curl\r\n\r\n";
	struct t_seg t = { .seq = 1001,
			   .ack = cookie(false, t0) + 1,
			   .flags = F_ACK | F_PSH,
			   .data = req,
			   .dlen = -1 };
	struct t_rep r;

	setup("/healthz");
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_HTTP_200);
	CHECK_EQ(r.flags, F_ACK | F_PSH | F_FIN);
	CHECK_EQ(r.seq, t.ack);
	CHECK_EQ(r.ack, 1001 + strlen(req));
	CHECK(r.sums_ok, "response checksums");
	CHECK(strncmp(r.data, "HTTP/1.1 200 OK\r\n", 17) == 0, "status line: %s", r.data);
	CHECK_HAS(r.data, "\r\nContent-Length: 6\r\n");
	CHECK_HAS(r.data, "\r\nConnection: close\r\n");
	CHECK(r.dlen > 8 && strcmp(r.data + r.dlen - 10, "\r\n\r\nready\n") == 0, "body: %s",
	      r.data);
	CHECK(r.dlen <= UF_HC_RESP_MAX && r.dlen + 40 <= 536, "fits the default MSS: %u", r.dlen);
	/* HTTP/1.0 (HAProxy's httpchk default) is answered alike */
	t.data = "GET /healthz HTTP/1.0\r\n\r\n";
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_HTTP_200);
	/* a retransmitted request is answered again (no state) */
	CHECK_EQ(run(&t, t0 + 50, true, "ready", &r), UF_HC_HTTP_200);
}

static void
test_http_503(void)
{
	struct t_seg t = { .seq = 1001,
			   .ack = cookie(false, t0) + 1,
			   .flags = F_ACK,
			   .data = "GET /healthz HTTP/1.1\r\n\r\n",
			   .dlen = -1 };
	struct t_rep r;

	setup("/healthz");
	CHECK_EQ(run(&t, t0, false, "draining", &r), UF_HC_HTTP_503);
	CHECK(strncmp(r.data, "HTTP/1.1 503 Service Unavailable\r\n", 34) == 0, "%s", r.data);
	CHECK_HAS(r.data, "Content-Length: 9\r\n");
	CHECK_HAS(r.data, "\r\n\r\ndraining\n");
	CHECK_EQ(r.flags & F_FIN, F_FIN);
	CHECK_EQ(run(&t, t0, false, "degraded", &r), UF_HC_HTTP_503);
	CHECK_HAS(r.data, "\r\n\r\ndegraded\n");
}

static void
test_http_head(void)
{
	struct t_seg t = { .seq = 1001,
			   .ack = cookie(false, t0) + 1,
			   .flags = F_ACK,
			   .data = "HEAD /healthz HTTP/1.1\r\n\r\n",
			   .dlen = -1 };
	struct t_rep r;

	setup("/healthz");
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_HTTP_200);
	CHECK_HAS(r.data, "Content-Length: 6\r\n");
	CHECK(r.dlen >= 4 && strcmp(r.data + r.dlen - 4, "\r\n\r\n") == 0, "no body: %s", r.data);
}

static void
test_http_other(void)
{
	static const struct {
		const char *req, *status;
	} cases[] = {
		{ "GET /other HTTP/1.1\r\n\r\n", "HTTP/1.1 404 Not Found\r\n" },
		{ "GET /healthz?x=1 HTTP/1.1\r\n\r\n", "HTTP/1.1 404 Not Found\r\n" },
		{ "GET /healthzz HTTP/1.1\r\n\r\n", "HTTP/1.1 404 Not Found\r\n" },
		{ "OPTIONS / HTTP/1.0\r\n\r\n", "HTTP/1.1 405 Method Not Allowed\r\n" },
		{ "POST /healthz HTTP/1.1\r\n\r\n", "HTTP/1.1 405 Method Not Allowed\r\n" },
		{ "GET /healthz HTTP/2.0\r\n\r\n", "HTTP/1.1 400 Bad Request\r\n" },
		{ "GET /healthz\r\n\r\n", "HTTP/1.1 400 Bad Request\r\n" },
		{ "hello\r\n\r\n", "HTTP/1.1 400 Bad Request\r\n" },
	};
	struct t_seg t = { .seq = 1001, .ack = cookie(false, t0) + 1, .flags = F_ACK, .dlen = -1 };
	struct t_rep r;
	unsigned int i;

	setup("/healthz");
	for (i = 0; i < RTE_DIM(cases); i++) {
		t.data = cases[i].req;
		CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_HTTP_OTHER);
		CHECK(strncmp(r.data, cases[i].status, strlen(cases[i].status)) == 0, "%s -> %s",
		      cases[i].req, r.data);
		CHECK_EQ(r.flags & F_FIN, F_FIN);
	}
}

/* requests it does not take: RST, nothing else */
static void
test_http_refused(void)
{
	static char big[UF_HC_REQ_MAX + 64];
	const char *cases[] = {
		"GET /healthz HTTP/1.1\r\nHost: x\r\n", /* split: the rest in another segment */
		"GET /healthz HTTP/1.1\r\n\r\nGET /healthz HTTP/1.1\r\n\r\n", /* pipelined */
		big,                                                          /* too long */
	};
	struct t_seg t = { .seq = 1001, .ack = cookie(false, t0) + 1, .flags = F_ACK, .dlen = -1 };
	struct t_rep r;
	unsigned int i;

	memset(big, 'a', sizeof(big) - 1);
	memcpy(big, "GET /healthz HTTP/1.1\r\nX: ", 26);
	memcpy(big + sizeof(big) - 5, "\r\n\r\n", 4);
	setup("/healthz");
	for (i = 0; i < RTE_DIM(cases); i++) {
		t.data = cases[i];
		CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_RST_SENT);
		CHECK_EQ(r.flags, F_RST);
		CHECK_EQ(r.seq, t.ack);
	}
	/* data after our response (the peer's ACK past our SYN) */
	t.data = "GET /healthz HTTP/1.1\r\n\r\n";
	t.ack = cookie(false, t0) + 1 + 100;
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_RST_SENT);
	/* data on a plain TCP check */
	setup("");
	t.ack = cookie(false, t0) + 1;
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_RST_SENT);
}

static void
test_fin(void)
{
	const uint32_t c = cookie(false, t0);
	struct t_seg t = { .seq = 1001, .ack = c + 1, .flags = F_ACK | F_FIN };
	struct t_rep r;

	/* a TCP check closing after the handshake: our FIN with the ACK of theirs */
	setup("");
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_FIN);
	CHECK_EQ(r.flags, F_ACK | F_FIN);
	CHECK_EQ(r.seq, c + 1);
	CHECK_EQ(r.ack, 1002);
	/* their ACK of our FIN: taken */
	t.flags = F_ACK;
	t.seq = 1002;
	t.ack = c + 2;
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_ACK_OK);
	CHECK_EQ(r.len, 0);
	/* after an HTTP response and our FIN: their FIN acknowledged, no second FIN */
	setup("/healthz");
	t.flags = F_ACK | F_FIN;
	t.seq = 1030;
	t.ack = c + 1 + 150 + 1;
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_FIN);
	CHECK_EQ(r.flags, F_ACK);
	CHECK_EQ(r.seq, t.ack);
	CHECK_EQ(r.ack, 1031);
	/* a request with FIN in one segment: both acknowledged */
	t.seq = 1001;
	t.ack = c + 1;
	t.data = "GET /healthz HTTP/1.0\r\n\r\n";
	t.dlen = -1;
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_HTTP_200);
	CHECK_EQ(r.ack, 1001 + strlen(t.data) + 1);
}

static void
test_rst_in(void)
{
	struct t_seg t = { .seq = 1001, .ack = 5, .flags = F_RST | F_ACK };
	struct t_rep r;

	setup("/healthz");
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_RST_IN);
	CHECK_EQ(r.len, 0);
	t.flags = F_RST;
	t.dport = 22; /* never answered, whatever the port */
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_RST_IN);
	CHECK_EQ(r.len, 0);
}

static void
test_refused_segments(void)
{
	struct t_seg t = { .seq = 7000, .flags = F_SYN, .dport = 22 };
	struct t_rep r;

	setup("/healthz");
	/* another port: RST+ACK of the SYN */
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_RST_SENT);
	CHECK_EQ(r.flags, F_RST | F_ACK);
	CHECK_EQ(r.seq, 0);
	CHECK_EQ(r.ack, 7001);
	CHECK(r.sums_ok, "RST checksums");
	/* a SYN-ACK, SYN+FIN, no flags, URG: RST */
	t.dport = 0;
	t.flags = F_SYN | F_ACK;
	t.ack = 99;
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_RST_SENT);
	CHECK_EQ(r.flags, F_RST);
	CHECK_EQ(r.seq, 99);
	t.flags = F_SYN | F_FIN;
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_RST_SENT);
	t.flags = 0;
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_RST_SENT);
	CHECK_EQ(r.flags, F_RST | F_ACK);
	t.flags = F_ACK | F_URG;
	t.ack = cookie(false, t0) + 1;
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_RST_SENT);
	/* health off (tcp_port 0): everything refused */
	conf.tcp_port = 0;
	t.flags = F_SYN;
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_RST_SENT);
}

static void
test_malformed(void)
{
	struct t_seg t = { .seq = 1, .flags = F_SYN };
	const struct uf_hc_now now = { .ms = t0, .ready = true, .state = "ready" };
	uint8_t f[256], out[UF_HC_FRAME_MAX];
	uint16_t olen;
	uint32_t n;

	setup("/healthz");
	n = mk(&t, f);
	f[14 + 20 + 16] ^= 1; /* the TCP checksum */
	CHECK_EQ(uf_hc_answer(&conf, &now, f, n, out, &olen), UF_HC_MALFORMED);
	CHECK_EQ(olen, 0);
	n = mk(&t, f);
	f[6] |= 1; /* a group source MAC */
	CHECK_EQ(uf_hc_answer(&conf, &now, f, n, out, &olen), UF_HC_MALFORMED);
	n = mk(&t, f);
	CHECK_EQ(uf_hc_answer(&conf, &now, f, 14 + 20 + 10, out, &olen), UF_HC_MALFORMED);
	n = mk(&t, f);
	f[14 + 20 + 12] = 0x40; /* data offset 16 */
	CHECK_EQ(uf_hc_answer(&conf, &now, f, n, out, &olen), UF_HC_MALFORMED);
	n = mk(&t, f);
	f[14 + 10] ^= 1; /* the IPv4 header checksum */
	CHECK_EQ(uf_hc_answer(&conf, &now, f, n, out, &olen), UF_HC_MALFORMED);
	/* a broadcast source address is never answered */
	n = mk(&t, f);
	f[14 + 12] = 255;
	f[14 + 13] = 255;
	f[14 + 14] = 255;
	f[14 + 15] = 255;
	CHECK_EQ(uf_hc_answer(&conf, &now, f, n, out, &olen), UF_HC_MALFORMED);
	CHECK_EQ(uf_hc_answer(&conf, &now, f, 0, out, &olen), UF_HC_MALFORMED);
	/* a checksum left to offload (the field: the folded pseudo-header sum, as Linux's
	 * CHECKSUM_PARTIAL on veth): taken only where the port may carry them */
	n = mk(&t, f);
	put16(f + 14 + 20 + 16, sum_fold(sum_bytes(peer4, 4) + sum_bytes(our4, 4) + 6 + 20));
	CHECK_EQ(uf_hc_answer(&conf, &now, f, n, out, &olen), UF_HC_MALFORMED);
	conf.partial_csum = true;
	CHECK_EQ(uf_hc_answer(&conf, &now, f, n, out, &olen), UF_HC_SYN);
}

static void
test_ipv6(void)
{
	const uint32_t c = cookie(true, t0);
	struct t_seg t = { .v6 = true, .seq = 5, .flags = F_SYN };
	struct t_rep r;

	setup("/healthz");
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_SYN);
	CHECK_EQ(r.seq, c);
	CHECK_EQ(r.mss, 1440);
	CHECK(r.sums_ok, "IPv6 SYN-ACK checksums");
	CHECK(c != cookie(false, t0), "the families' cookies differ");
	t.flags = F_ACK;
	t.seq = 6;
	t.ack = c + 1;
	t.data = "GET /healthz HTTP/1.1\r\nHost: [fd00::1]\r\n\r\n";
	t.dlen = -1;
	CHECK_EQ(run(&t, t0, false, "starting", &r), UF_HC_HTTP_503);
	CHECK(r.sums_ok, "IPv6 response checksums");
	CHECK_HAS(r.data, "\r\n\r\nstarting\n");
	t.data = NULL;
	t.flags = F_ACK | F_FIN;
	CHECK_EQ(run(&t, t0, true, "ready", &r), UF_HC_FIN);
	CHECK_EQ(r.flags, F_ACK | F_FIN);
}

/* the workers' side: TCP to health.tcp_port on our address is a control frame, TCP to any
 * other port (or with the check off) stays not_udp; IPv6 alike */
static void
test_steering(void)
{
	struct uf_port_id id = { .ip = 0, .max_len = 1514 };
	struct uf_port6_id id6 = { .n_ip6 = 1, .max_len = 1514 };
	struct t_seg t = { .seq = 1, .flags = F_SYN };
	struct uf_rx_info info;
	struct uf_rx6_info info6;
	enum uf_drop why = UF_DROP_MALFORMED;
	uint8_t f[256];
	uint32_t n;

	memcpy(id.mac.addr_bytes, our_mac, 6);
	memcpy(&id.ip, our4, 4);
	memcpy(id6.mac.addr_bytes, our_mac, 6);
	memcpy(id6.ip6[0].b, our6, 16);
	n = mk(&t, f);
	CHECK_EQ(uf_classify_full(f, n, 0, &id, &info, &why), UF_V_DROP);
	CHECK_EQ(why, UF_DROP_NOT_UDP);
	id.hc_tcp = rte_cpu_to_be_16(8080);
	CHECK_EQ(uf_classify_full(f, n, 0, &id, &info, &why), UF_V_CONTROL);
	t.dport = 22;
	n = mk(&t, f);
	CHECK_EQ(uf_classify_full(f, n, 0, &id, &info, &why), UF_V_DROP);
	CHECK_EQ(why, UF_DROP_NOT_UDP);
	/* a port without an IPv4 address answers no IPv4 check (to 0.0.0.0) */
	memset(&id.ip, 0, 4);
	t.dport = 0;
	memset(f, 0, sizeof(f));
	n = mk(&t, f);
	memset(f + 14 + 16, 0, 4);
	put16(f + 14 + 10, 0);
	put16(f + 14 + 10, (uint16_t)~sum_fold(sum_bytes(f + 14, 20)));
	CHECK_EQ(uf_classify_full(f, n, 0, &id, &info, &why), UF_V_DROP);
	memcpy(&id.ip, our4, 4);

	t.v6 = true;
	t.dport = 0;
	n = mk(&t, f);
	CHECK_EQ(uf_classify6(f, n, 0, &id6, &info6, &why), UF_V_DROP);
	CHECK_EQ(why, UF_DROP_NOT_UDP);
	id6.hc_tcp = rte_cpu_to_be_16(8080);
	CHECK_EQ(uf_classify6(f, n, 0, &id6, &info6, &why), UF_V_CONTROL);
	t.dport = 22;
	n = mk(&t, f);
	CHECK_EQ(uf_classify6(f, n, 0, &id6, &info6, &why), UF_V_DROP);
	CHECK_EQ(why, UF_DROP_NOT_UDP);
}

static void
test_names(void)
{
	CHECK_STR(uf_hc_result_name(UF_HC_SYN), "syn");
	CHECK_STR(uf_hc_result_name(UF_HC_MALFORMED), "malformed");
	CHECK_STR(uf_hc_result_name(UF_HC_N_RESULTS), "?");
}

int
main(void)
{
	RUN(test_siphash_vector);
	RUN(test_syn_answered);
	RUN(test_handshake_ack);
	RUN(test_bad_cookie);
	RUN(test_http_200);
	RUN(test_http_503);
	RUN(test_http_head);
	RUN(test_http_other);
	RUN(test_http_refused);
	RUN(test_fin);
	RUN(test_rst_in);
	RUN(test_refused_segments);
	RUN(test_malformed);
	RUN(test_ipv6);
	RUN(test_steering);
	RUN(test_names);
	return uf_t_summary();
}
