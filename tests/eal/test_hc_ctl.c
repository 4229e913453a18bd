/* SPDX-License-Identifier: BSD-3-Clause
 * Health checks on the control lcore (lib/ctl/uf_ctlframes.c with lib/pkt/uf_hc.c,
 * docs/deployment.md#health-checks-on-the-port), through the control path as the workers
 * feed it: segments put on a worker's worker→control ring, uf_ctlframes_poll, the replies
 * read from its control→worker ring.
 *
 * What it shows, on a port with 198.18.0.10 and 2001:db8::10, health.tcp_port 8080,
 * http_path /healthz, health.rate 50:
 *   - a SYN answered with a SYN-ACK whose MSS is the port's MTU - 40 (1460 at 1500);
 *   - the instance's health as the control lcore evaluated it picks the answer: ready
 *     200 `ready`; ready but degraded 503 `degraded`; draining 503 `draining`; starting
 *     503 `starting`; a reload's new http_path is answered at once (hot);
 *   - an IPv6 SYN answered from the address it was sent to;
 *   - 1,000 SYNs in 100 ms: answered within the bucket (50 + 5), the rest
 *     healthcheck.rate_limited, unanswered;
 *   - every segment in exactly one healthcheck counter; no other control counter moves.
 *
 * Needs EAL without hugepages: --no-huge --no-pci -l 0 (eal suite).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "uf_ctlframes.h"
#include "uf_pkt6.h"
#include "uf_resolve.h"

#include "../unit/uf_test.h"
#include "uf_ring_port.h"

static struct rte_mempool *pool;
static struct uf_worker *w;
static struct uf_ctlframes cf;
static struct uf_ctl_ctr ctr;
static struct uf_health health;

static const uint8_t our_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x10 };
static const uint8_t peer_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };

/* an Ethernet/IPv4 (or IPv6) TCP segment from the peer to us, checksums by DPDK's helpers */
static uint16_t
seg(uint8_t *f, bool v6, uint32_t seq, uint32_t ack, uint8_t flags, const char *data)
{
	const uint16_t dlen = data != NULL ? (uint16_t)strlen(data) : 0;
	const uint16_t il = v6 ? 40 : 20;
	struct rte_tcp_hdr *t = (struct rte_tcp_hdr *)(f + 14 + il);

	memset(f, 0, 14 + il + 20 + dlen + 64);
	memcpy(f, our_mac, 6);
	memcpy(f + 6, peer_mac, 6);
	t->src_port = rte_cpu_to_be_16(40000);
	t->dst_port = rte_cpu_to_be_16(8080);
	t->sent_seq = rte_cpu_to_be_32(seq);
	t->recv_ack = rte_cpu_to_be_32(ack);
	t->data_off = 5 << 4;
	t->tcp_flags = flags;
	t->rx_win = rte_cpu_to_be_16(65535);
	if (dlen > 0)
		memcpy(t + 1, data, dlen);
	if (v6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(f + 14);

		f[12] = 0x86, f[13] = 0xdd;
		ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip->payload_len = rte_cpu_to_be_16((uint16_t)(20 + dlen));
		ip->proto = IPPROTO_TCP;
		ip->hop_limits = 64;
		inet_pton(AF_INET6, "2001:db8::1", &ip->src_addr);
		inet_pton(AF_INET6, "2001:db8::10", &ip->dst_addr);
		t->cksum = rte_ipv6_udptcp_cksum(ip, t);
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + 14);

		f[12] = 0x08, f[13] = 0x00;
		ip->version_ihl = 0x45;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + 20 + dlen));
		ip->time_to_live = 64;
		ip->next_proto_id = IPPROTO_TCP;
		ip->src_addr = RTE_BE32(0xc6120001);
		ip->dst_addr = RTE_BE32(0xc612000a);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		t->cksum = rte_ipv4_udptcp_cksum(ip, t);
	}
	return (uint16_t)RTE_MAX(14 + il + 20 + dlen, 60);
}

static void
feed(const uint8_t *buf, uint16_t len)
{
	struct rte_mbuf *m = uf_test_mbuf(pool, buf, len);

	m->port = 0;
	if (rte_ring_enqueue(w->ctl_rx, m) != 0)
		exit(1);
}

/* the one reply (its frame copied to out, its length returned; 0: none or several) */
static uint16_t
reply(uint8_t *out)
{
	struct rte_mbuf *m[8];
	unsigned n = rte_ring_dequeue_burst(w->ctl_tx, (void **)m, RTE_DIM(m), NULL), k;
	uint16_t len = 0;

	if (n == 1) {
		len = m[0]->data_len;
		memcpy(out, rte_pktmbuf_mtod(m[0], uint8_t *), len);
	}
	for (k = 0; k < n; k++)
		rte_pktmbuf_free(m[k]);
	return n == 1 ? len : 0;
}

static uint64_t
hc_sum(void)
{
	return ctr.hc_syn + ctr.hc_ack_ok + ctr.hc_http_200 + ctr.hc_http_503 + ctr.hc_http_other +
	       ctr.hc_fin + ctr.hc_rst_in + ctr.hc_bad_cookie + ctr.hc_rst_sent + ctr.hc_malformed +
	       ctr.hc_rate_limited;
}

static uint64_t
others_sum(void)
{
	return ctr.arp_requests_answered + ctr.arp_ignored + ctr.icmp_echo_answered +
	       ctr.icmp_ignored + ctr.ndp_ignored + ctr.ndp_bad_not_icmp6 + ctr.icmp6_ignored +
	       ctr.ctl_nombuf + ctr.ctl_ring_full;
}

/* a SYN, then a GET of path with the cookie the SYN-ACK carried: the response's status
 * line and body (the text after the blank line) */
static void
ask(uint64_t ms, const char *path, char *status, size_t slen, char *body, size_t blen)
{
	uint8_t in[512], out[1024];
	char req[128];
	uint16_t len;
	uint32_t isn = 0;
	const char *p, *e;

	status[0] = body[0] = '\0';
	feed(in, seg(in, false, 1000, 0, RTE_TCP_SYN_FLAG, NULL));
	uf_ctlframes_poll(&cf, ms);
	len = reply(out);
	CHECK(len >= 58, "a SYN-ACK: %u bytes", len);
	if (len < 58)
		return;
	memcpy(&isn, out + 14 + 20 + 4, 4);
	isn = rte_be_to_cpu_32(isn);
	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: t\r\n\r\n", path);
	feed(in, seg(in, false, 1001, isn + 1, RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG, req));
	uf_ctlframes_poll(&cf, ms);
	len = reply(out);
	CHECK(len > 14 + 40, "a response: %u bytes", len);
	if (len <= 14 + 40)
		return;
	out[len < sizeof(out) ? len : sizeof(out) - 1] = '\0';
	p = (const char *)out + 14 + 40;
	e = strstr(p, "\r\n");
	snprintf(status, slen, "%.*s", e != NULL ? (int)(e - p) : 0, p);
	e = strstr(p, "\r\n\r\n");
	snprintf(body, blen, "%s", e != NULL ? e + 4 : "");
}

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0],     "-l",  "0",           "--no-pci",        "--no-huge",
			"-m",        "256", "--log-level", "lib.eal:warning", "--file-prefix",
			"uf_hc_ctl", NULL };
	static const char cfg_text[] =
			"ports:\n"
			"  - name: p\n"
			"    device: net_ring0\n"
			"    ip: 198.18.0.10/24\n"
			"    ip6: [\"2001:db8::10/64\"]\n"
			"listen: { port: p, udp_port: 5000 }\n"
			"destinations:\n"
			"  - { ip: 198.18.0.20, udp_port: 6000 }\n"
			"health: { tcp_port: 8080, http_path: /healthz, rate: 50 }\n";
	struct uf_port ports[1];
	struct uf_worker *wl[1];
	struct uf_resolve res;
	struct uf_config *cfg, *cfg2;
	struct uf_err err;
	char status[64], body[64];
	uint8_t in[512], out[1024];
	uint16_t len, mss;
	uint64_t fed = 0, answered = 0, before;
	unsigned int i;

	(void)argc;
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	cfg = uf_config_parse(cfg_text, sizeof(cfg_text) - 1, "hc_ctl", &err);
	if (cfg == NULL) {
		fprintf(stderr, "config: %s\n", err.msg);
		return 1;
	}
	pool = rte_pktmbuf_pool_create("hc", 511, 0, 0, 2176, SOCKET_ID_ANY);
	w = rte_zmalloc("w", sizeof(*w), RTE_CACHE_LINE_SIZE);
	if (pool == NULL || w == NULL)
		return 1;
	w->ctl_rx = rte_ring_create("ctl_rx", 2048, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	w->ctl_tx = rte_ring_create("ctl_tx", 2048, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (w->ctl_rx == NULL || w->ctl_tx == NULL)
		return 1;
	memset(ports, 0, sizeof(ports));
	w->port_idx[0] = 0;
	ports[0].cfg = &cfg->ports[0];
	memcpy(ports[0].mac.addr_bytes, our_mac, 6);
	ports[0].pool[0] = pool;
	ports[0].plan.mtu = 1500;
	wl[0] = w;
	if (uf_resolve_init(&res, cfg, 0, &err) != 0) {
		fprintf(stderr, "resolve: %s\n", err.msg);
		return 1;
	}
	uf_ctlframes_init(&cf, cfg, ports, wl, 1, &res.neigh, &ctr, &health);

	/* a SYN: the SYN-ACK offers the port's MTU - 40 */
	health.state = UF_HEALTH_READY;
	feed(in, seg(in, false, 1, 0, RTE_TCP_SYN_FLAG, NULL)), fed++;
	uf_ctlframes_poll(&cf, 1);
	len = reply(out), answered++;
	CHECK_EQ(len, 60);
	CHECK_EQ(out[14 + 20 + 13], RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG);
	memcpy(&mss, out + 14 + 20 + 22, 2);
	CHECK_EQ(rte_be_to_cpu_16(mss), 1460);
	CHECK_MEM(out, peer_mac, 6);

	/* the answer follows the health the control lcore evaluated */
	ask(10, "/healthz", status, sizeof(status), body, sizeof(body)), fed += 2, answered += 2;
	CHECK_STR(status, "HTTP/1.1 200 OK");
	CHECK_STR(body, "ready\n");
	health.degraded = true;
	ask(20, "/healthz", status, sizeof(status), body, sizeof(body)), fed += 2, answered += 2;
	CHECK_STR(status, "HTTP/1.1 503 Service Unavailable");
	CHECK_STR(body, "degraded\n");
	health.degraded = false;
	health.state = UF_HEALTH_DRAINING;
	ask(30, "/healthz", status, sizeof(status), body, sizeof(body)), fed += 2, answered += 2;
	CHECK_STR(status, "HTTP/1.1 503 Service Unavailable");
	CHECK_STR(body, "draining\n");
	health.state = UF_HEALTH_STARTING;
	ask(40, "/healthz", status, sizeof(status), body, sizeof(body)), fed += 2, answered += 2;
	CHECK_STR(body, "starting\n");
	health.state = UF_HEALTH_READY;
	/* a reload's path: answered at once (hot), the old one 404 */
	cfg2 = uf_config_parse(cfg_text, sizeof(cfg_text) - 1, "hc_ctl", &err);
	if (cfg2 == NULL)
		return 1;
	snprintf(cfg2->health.http_path, sizeof(cfg2->health.http_path), "/ready");
	cf.cfg = cfg2;
	ask(50, "/ready", status, sizeof(status), body, sizeof(body)), fed += 2, answered += 2;
	CHECK_STR(status, "HTTP/1.1 200 OK");
	ask(60, "/healthz", status, sizeof(status), body, sizeof(body)), fed += 2, answered += 2;
	CHECK_STR(status, "HTTP/1.1 404 Not Found");
	cf.cfg = cfg;
	CHECK_EQ(ctr.hc_http_200, 2);
	CHECK_EQ(ctr.hc_http_503, 3);
	CHECK_EQ(ctr.hc_http_other, 1);

	/* IPv6: from the address the SYN was sent to */
	feed(in, seg(in, true, 1, 0, RTE_TCP_SYN_FLAG, NULL)), fed++;
	uf_ctlframes_poll(&cf, 70);
	len = reply(out), answered++;
	CHECK_EQ(len, 14 + 40 + 24);
	CHECK(memcmp(out + 14 + 8, in + 14 + 24, 16) == 0, "from 2001:db8::10");
	CHECK_EQ(out[14 + 40 + 13], RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG);

	/* 1,000 SYNs in 100 ms, 10 a ms: within health.rate 50 (what the bucket holds, 5
	 * more over the 100 ms), the rest rate_limited and unanswered */
	before = ctr.hc_syn;
	{
		uint64_t got = 0;

		for (i = 0; i < 1000; i++) {
			feed(in, seg(in, false, i, 0, RTE_TCP_SYN_FLAG, NULL)), fed++;
			if (i % 10 == 9) {
				struct rte_mbuf *m[16];
				unsigned n, k;

				uf_ctlframes_poll(&cf, 10000 + i / 10);
				while ((n = rte_ring_dequeue_burst(w->ctl_tx, (void **)m,
								   RTE_DIM(m), NULL)) > 0) {
					for (k = 0; k < n; k++)
						rte_pktmbuf_free(m[k]);
					got += n;
				}
			}
		}
		CHECK_EQ(got, ctr.hc_syn - before);
		CHECK(got >= 50 && got <= 50 + 5 + 1, "%" PRIu64 " of 1,000 answered", got);
		CHECK_EQ(ctr.hc_rate_limited, 1000 - got);
		answered += got;
		printf("1,000 SYNs in 100 ms at health.rate 50: %" PRIu64 " answered, %" PRIu64
		       " rate_limited\n",
		       got, ctr.hc_rate_limited);
	}

	/* the ledger: every segment in one healthcheck counter, nothing elsewhere */
	CHECK_EQ(hc_sum(), fed);
	CHECK_EQ(others_sum(), 0);
	CHECK_EQ(ctr.hc_malformed + ctr.hc_bad_cookie + ctr.hc_rst_sent, 0);
	printf("%" PRIu64 " segments handed over, %" PRIu64 " answered\n", fed, answered);

	uf_resolve_fini(&res);
	uf_config_free(cfg2);
	uf_config_free(cfg);
	rte_eal_cleanup();
	printf("%d passed, %d failed\n", uf_t_passed, uf_t_failed);
	return uf_t_failed == 0 ? 0 : 1;
}
