/* SPDX-License-Identifier: BSD-3-Clause
 * Fuzz the health-check responder (lib/pkt/uf_hc.c: TCP segment and HTTP request parsing,
 * docs/deployment.md#health-checks-on-the-port) on a buffer of exactly the frame's length.
 * The first input byte picks the state (ready or not), the path (HTTP or a plain TCP
 * check), the time slot, and whether the harness makes the checksums right (bit 3) and the
 * acknowledgment number our cookie + 1 (bit 4) before the call, so that mutations reach the
 * HTTP parser past the checksum and the cookie; the rest is the frame.
 *
 * Properties checked besides memory safety:
 *   - a result is one of the list, and only results that answer have a reply;
 *   - a reply fits UF_HC_FRAME_MAX, is at least 60 bytes, goes back to the sender's MAC
 *     from ours, and its TCP checksum (and IPv4 header checksum) sum to 0xffff;
 *   - a RST is never answered (RST_IN has no reply), and a reply never carries SYN and RST.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uf_hc.h"
#include "uf_pkt6.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool
answers(enum uf_hc_result r)
{
	return r == UF_HC_SYN || r == UF_HC_HTTP_200 || r == UF_HC_HTTP_503 ||
	       r == UF_HC_HTTP_OTHER || r == UF_HC_FIN || r == UF_HC_BAD_COOKIE ||
	       r == UF_HC_RST_SENT;
}

static void
check_reply(const uint8_t *in, const uint8_t *out, uint16_t len)
{
	const bool v6 = out[12] == 0x86 && out[13] == 0xdd;
	const uint8_t *ip = out + RTE_ETHER_HDR_LEN, *tcp = ip + (v6 ? UF_IP6_HDR : 20);
	uint32_t tlen, s = 0;
	int i, na = v6 ? 16 : 4;

	if (len < UF_MIN_FRAME || len > UF_HC_FRAME_MAX)
		abort();
	if (memcmp(out, in + 6, 6) != 0 || memcmp(out + 6, in, 6) != 0)
		abort();
	if (v6) {
		tlen = (uint32_t)ip[4] << 8 | ip[5];
	} else {
		if (rte_raw_cksum(ip, 20) != 0xffff)
			abort();
		tlen = ((uint32_t)ip[2] << 8 | ip[3]) - 20;
	}
	if (RTE_ETHER_HDR_LEN + (v6 ? UF_IP6_HDR : 20) + tlen > len)
		abort();
	for (i = 0; i < na; i += 2)
		s += uf_rd16(ip + (v6 ? UF_IP6_SRC : UF_IP_SRC) + i) +
		     uf_rd16(ip + (v6 ? UF_IP6_DST : UF_IP_DST) + i);
	s += rte_cpu_to_be_16(IPPROTO_TCP) + rte_cpu_to_be_16((uint16_t)tlen);
	if (uf_ck_fold((uint64_t)s + rte_raw_cksum(tcp, tlen)) != 0xffff)
		abort();
	if ((tcp[13] & 0x06) == 0x06) /* SYN and RST */
		abort();
}

/* the checksums right, and the ACK number the cookie's + 1 when ack (see above) */
static void
fixup(const struct uf_hc_conf *c, uint64_t slot, uint8_t *f, size_t len, bool ack)
{
	uint8_t *ip = f + RTE_ETHER_HDR_LEN, *tcp;
	uint32_t l4, s = 0, ck;
	int i, na;

	if (len < RTE_ETHER_HDR_LEN + 40)
		return;
	if (f[12] == 0x08 && f[13] == 0x00) {
		uint32_t ihl = (uint32_t)(ip[0] & 0xf) * 4, tot = (uint32_t)ip[2] << 8 | ip[3];

		if (ihl < 20 || tot < ihl + 20 || RTE_ETHER_HDR_LEN + tot > len)
			return;
		ip[10] = ip[11] = 0;
		ck = (uint16_t)~rte_raw_cksum(ip, ihl);
		memcpy(ip + 10, &ck, 2);
		tcp = ip + ihl;
		l4 = tot - ihl;
		na = 4;
	} else if (f[12] == 0x86 && f[13] == 0xdd) {
		l4 = (uint32_t)ip[4] << 8 | ip[5];
		if (l4 < 20 || RTE_ETHER_HDR_LEN + 40 + l4 > len)
			return;
		tcp = ip + 40;
		na = 16;
	} else {
		return;
	}
	if (ack) {
		uint32_t a = uf_hc_cookie(c, ip + (na == 4 ? 12 : 8), ip + (na == 4 ? 16 : 24), na,
					  uf_rd16(tcp), uf_rd16(tcp + 2), slot) +
			     1;

		tcp[8] = (uint8_t)(a >> 24);
		tcp[9] = (uint8_t)(a >> 16);
		tcp[10] = (uint8_t)(a >> 8);
		tcp[11] = (uint8_t)a;
	}
	tcp[16] = tcp[17] = 0;
	for (i = 0; i < na; i += 2)
		s += uf_rd16(ip + (na == 4 ? 12 : 8) + i) + uf_rd16(ip + (na == 4 ? 16 : 24) + i);
	s += rte_cpu_to_be_16(IPPROTO_TCP) + rte_cpu_to_be_16((uint16_t)l4);
	ck = (uint16_t)~uf_ck_fold((uint64_t)s + rte_raw_cksum(tcp, l4));
	memcpy(tcp + 16, &ck, 2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct uf_hc_conf c = {
		.key = { 0x0123456789abcdefULL, 0x1122334455667788ULL },
		.mss4 = 1460,
		.mss6 = 1440,
	};
	struct uf_hc_now now = { .ms = 1ull << 20 };
	uint8_t out[UF_HC_FRAME_MAX], before[4096], *f;
	enum uf_hc_result r;
	uint16_t len = 0xffff;

	if (size < 1)
		return 0;
	c.tcp_port = rte_cpu_to_be_16(8080);
	strcpy(c.http_path, (data[0] & 1) ? "/healthz" : "");
	now.ready = (data[0] & 2) != 0;
	now.state = now.ready ? "ready" : "draining";
	if ((data[0] & 4) != 0) /* a cookie from the slot before */
		now.ms += 1ull << UF_HC_SLOT_SHIFT;
	f = malloc(size - 1 > 0 ? size - 1 : 1);
	if (f == NULL)
		return 0;
	memcpy(f, data + 1, size - 1);
	if ((data[0] & 8) != 0)
		fixup(&c, (1ull << 20) >> UF_HC_SLOT_SHIFT, f, size - 1, (data[0] & 16) != 0);
	memcpy(before, f, size - 1 < sizeof(before) ? size - 1 : sizeof(before));
	r = uf_hc_answer(&c, &now, f, (uint32_t)(size - 1), out, &len);
	if ((unsigned int)r >= UF_HC_N_RESULTS)
		abort();
	if (memcmp(f, before, size - 1 < sizeof(before) ? size - 1 : sizeof(before)) != 0)
		abort(); /* the frame is read only */
	if (answers(r) != (len != 0))
		abort();
	if (len != 0)
		check_reply(f, out, len);
	free(f);
	return 0;
}
