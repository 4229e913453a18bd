/* SPDX-License-Identifier: BSD-3-Clause
 * Fuzz the control plane's frame parsers: uf_arp_parse and uf_icmp_echo_reply (in place),
 * each on a buffer of exactly the frame's length (docs/testing.md#fuzzing).
 *
 * Properties checked besides memory safety:
 *   - a parsed ARP frame is a request or a reply from a unicast, non-zero sender MAC, and
 *     uf_arp_build of the parsed fields parses back to the same fields;
 *   - an echo reply keeps the frame's length, is type 0 code 0, comes from our MAC, swaps
 *     the addresses, and both its IPv4 header and its ICMP message sum to 0xffff.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uf_pkt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_arp(const uint8_t *f, size_t len)
{
	struct uf_arp_info a, b;
	uint8_t out[UF_MIN_FRAME];

	if (uf_arp_parse(f, (uint32_t)len, &a) != 0)
		return;
	if (a.op != RTE_ARP_OP_REQUEST && a.op != RTE_ARP_OP_REPLY)
		abort();
	if (!rte_is_unicast_ether_addr(&a.sha) || rte_is_zero_ether_addr(&a.sha))
		abort();
	if (uf_arp_build(out, a.op, &a.sha, &a.sha, a.sip, &a.tha, a.tip) != UF_MIN_FRAME)
		abort();
	if (uf_arp_parse(out, UF_MIN_FRAME, &b) != 0 || b.op != a.op ||
	    !rte_is_same_ether_addr(&a.sha, &b.sha) || a.sip != b.sip ||
	    !rte_is_same_ether_addr(&a.tha, &b.tha) || a.tip != b.tip)
		abort();
}

static void
check_icmp(const uint8_t *in, size_t len)
{
	static const struct rte_ether_addr us = { { 0x02, 0x18, 0x00, 0x00, 0x00, 0x10 } };
	uint8_t *f = malloc(len > 0 ? len : 1);
	const uint8_t *ip = in + RTE_ETHER_HDR_LEN;
	uint32_t ihl, tot;

	if (f == NULL)
		return;
	memcpy(f, in, len);
	if (uf_icmp_echo_reply(f, (uint32_t)len, &us) != 0) {
		/* refused: the frame is untouched */
		if (memcmp(f, in, len) != 0)
			abort();
		free(f);
		return;
	}
	ihl = (uint32_t)(ip[0] & 0xf) * 4;
	tot = (uint32_t)ip[2] << 8 | ip[3];
	if (ihl < 20 || tot < ihl + 8 || RTE_ETHER_HDR_LEN + tot > len)
		abort(); /* accepted a frame whose message does not fit */
	if (memcmp(f, in + 6, 6) != 0 || memcmp(f + 6, us.addr_bytes, 6) != 0)
		abort();
	if (memcmp(f + RTE_ETHER_HDR_LEN + 12, ip + 16, 4) != 0 ||
	    memcmp(f + RTE_ETHER_HDR_LEN + 16, ip + 12, 4) != 0)
		abort();
	if (rte_raw_cksum(f + RTE_ETHER_HDR_LEN, ihl) != 0xffff)
		abort();
	if (f[RTE_ETHER_HDR_LEN + ihl] != UF_ICMP_ECHO_REPLY || f[RTE_ETHER_HDR_LEN + ihl + 1] != 0)
		abort();
	if (rte_raw_cksum(f + RTE_ETHER_HDR_LEN + ihl, tot - ihl) != 0xffff)
		abort();
	free(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *f = malloc(size > 0 ? size : 1);

	if (f == NULL)
		return 0;
	memcpy(f, data, size);
	check_arp(f, size);
	free(f);
	check_icmp(data, size);
	return 0;
}
