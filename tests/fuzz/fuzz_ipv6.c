/* SPDX-License-Identifier: BSD-3-Clause
 * Fuzz the IPv6 frame code (docs/architecture.md#ipv6):
 * uf_classify6, uf_udp6_cksum_ok, uf_csum6_complete and a copy written from the result,
 * uf_ndp_parse and uf_icmp6_echo_reply (in place), each on a buffer of exactly the frame's
 * length (docs/testing.md#fuzzing). Byte 0: bit 0-1 the RX L4 checksum flag (0 unknown,
 * 1 bad, 2 good, 3 none), bit 2 the copies keep the sender's UDP port, bit 3 its address
 * (IPv6 copies only), bit 4 set: the port does not listen; the frame follows.
 *
 * Properties checked besides memory safety:
 *   - a forwarded datagram lies within the frame, has a non-zero checksum, and is UDP to one
 *     of our addresses and our port;
 *   - a copy derived from an input whose checksum verifies verifies too (RFC 1624 through
 *     the template, v6 -> v6 and v6 -> v4);
 *   - a parsed NS or NA has hop limit 255, code 0 and a checksum that verifies;
 *   - an echo reply keeps the length, is type 129 from our MAC and its checksum verifies;
 *     a refused echo request leaves the frame untouched.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uf_pkt.h"
#include "uf_pkt6.h"
#include "uf_ndp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct rte_ether_addr us = { { 0x02, 0x18, 0x00, 0x00, 0x00, 0x10 } };
static const struct uf_ip6 our6[2] = {
	{ { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10 } },
	{ { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10 } },
};

/* the UDP checksum of an Eth/IPv6/UDP or Eth/IPv4/UDP frame verifies (from scratch) */
static bool
udp_ok(const uint8_t *f, bool v6)
{
	const uint8_t *ip = f + RTE_ETHER_HDR_LEN;
	const uint8_t *udp = ip + (v6 ? 40 : 20);
	const uint16_t ulen = (uint16_t)(udp[4] << 8 | udp[5]);
	uint64_t s = rte_raw_cksum(udp, ulen);

	s += v6 ? rte_raw_cksum(ip + 8, 32) : rte_raw_cksum(ip + 12, 8);
	s += rte_cpu_to_be_16(IPPROTO_UDP) + rte_cpu_to_be_16(ulen);
	return uf_ck_fold(s) == 0xffff;
}

static void
check_forward(const uint8_t *f, size_t len, uint64_t rx_ck, uint8_t flags,
	      const struct uf_port6_id *port, struct uf_rx6_info *in)
{
	static const struct rte_ether_addr next = { { 0x02, 0, 0, 0, 0, 0x33 } };
	static uint8_t out[64 + 65536];
	struct uf_tmpl6_spec s6;
	struct uf_tmpl6 t6;
	struct uf_tmpl_spec s4;
	struct uf_tmpl t4;
	struct uf_rx_info in4;
	bool right;

	if ((size_t)in->payload_off + in->payload_len > len || in->udp_cksum == 0 ||
	    in->dst_idx >= port->n_ip6 || f[RTE_ETHER_HDR_LEN + UF_IP6_NXT] != IPPROTO_UDP ||
	    memcmp(f + RTE_ETHER_HDR_LEN + UF_IP6_DST, port->ip6[in->dst_idx].b, 16) != 0 ||
	    uf_rd16(f + in->payload_off - UF_UDP_HDR + UF_UDP_DPORT) != port->listen_udp)
		abort();
	right = uf_udp6_cksum_ok(f);
	if (right != udp_ok(f, true))
		abort();
	uf_csum6_complete(f, rx_ck, in);

	memset(&s6, 0, sizeof(s6));
	s6.src_mac = us;
	s6.dst_mac = next;
	s6.src_ip6 = our6[0];
	s6.dst_ip6 = our6[1];
	s6.dst_ip6.b[15] = 0x77;
	s6.src_port = rte_cpu_to_be_16(999);
	s6.dst_port = rte_cpu_to_be_16(9000);
	s6.hop_limit = 64;
	s6.keep_src_port = (flags & 4) != 0;
	s6.keep_src_ip = (flags & 8) != 0;
	s6.in_is_ip6 = true;
	s6.in_dst_ip6 = port->ip6[in->dst_idx];
	s6.in_dst_port = port->listen_udp;
	if (uf_tmpl6_build(&t6, &s6) != 0)
		abort();
	uf_hdr6_write(out, &t6, in->payload_len, in->tclass, in->src_port, &in->src_ip6,
		      uf_in6_sum(in), uf_in_src_neg6(&in->src_ip6));
	memcpy(out + UF_HDR6_LEN, f + in->payload_off, in->payload_len);
	if (right && !udp_ok(out, true))
		abort();

	memset(&s4, 0, sizeof(s4));
	s4.src_mac = us;
	s4.dst_mac = next;
	s4.src_ip = rte_cpu_to_be_32(0xc6120010);
	s4.dst_ip = rte_cpu_to_be_32(0xc6120021);
	s4.src_port = rte_cpu_to_be_16(999);
	s4.dst_port = rte_cpu_to_be_16(9000);
	s4.ttl = 64;
	s4.keep_src_port = s6.keep_src_port;
	s4.in_dst_port = port->listen_udp;
	uf_tmpl_build(&t4, &s4);
	if (uf_tmpl_from6(&t4, &s4, &port->ip6[in->dst_idx]) != 0)
		abort();
	uf_rx_info_from6(in, &in4);
	uf_hdr_write(out, &t4, &in4, uf_in6_sum(in), true);
	memcpy(out + UF_HDR_LEN, f + in->payload_off, in->payload_len);
	if (right && !udp_ok(out, false))
		abort();
}

static void
check_ndp(const uint8_t *f, size_t len)
{
	struct uf_ndp_info n;
	uint32_t plen;

	if (uf_ndp_parse(f, (uint32_t)len, &n) != UF_NDP_OK)
		return;
	plen = (uint32_t)f[RTE_ETHER_HDR_LEN + 4] << 8 | f[RTE_ETHER_HDR_LEN + 5];
	if (f[RTE_ETHER_HDR_LEN + UF_IP6_HLIM] != 255 || f[54 + 1] != 0 || plen < 24 ||
	    54 + plen > len || (n.type != UF_ICMP6_NS && n.type != UF_ICMP6_NA))
		abort();
	if (uf_icmp6_cksum(f + 22, f + 38, f + 54, plen) != uf_rd16(f + 56))
		abort();
}

static void
check_echo(const uint8_t *in, size_t len)
{
	uint8_t *f = malloc(len > 0 ? len : 1);
	uint32_t plen;

	if (f == NULL)
		return;
	memcpy(f, in, len);
	if (uf_icmp6_echo_reply(f, (uint32_t)len, &us, &our6[0]) != UF_NDP_OK) {
		if (memcmp(f, in, len) != 0)
			abort();
		free(f);
		return;
	}
	plen = (uint32_t)f[RTE_ETHER_HDR_LEN + 4] << 8 | f[RTE_ETHER_HDR_LEN + 5];
	if (plen < 8 || 54 + plen > len || f[54] != UF_ICMP6_ECHO_REPLY ||
	    memcmp(f + 6, us.addr_bytes, 6) != 0 || memcmp(f, in + 6, 6) != 0 ||
	    memcmp(f + 38, in + 22, 16) != 0)
		abort();
	if (uf_icmp6_cksum(f + 22, f + 38, f + 54, plen) != uf_rd16(f + 56))
		abort();
	free(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t l4[4] = { 0, RTE_MBUF_F_RX_L4_CKSUM_BAD, RTE_MBUF_F_RX_L4_CKSUM_GOOD,
					RTE_MBUF_F_RX_L4_CKSUM_NONE };
	struct uf_port6_id port;
	struct uf_rx6_info in;
	enum uf_drop why;
	uint8_t *f;
	size_t len;
	uint64_t rx_ck;

	if (size < 1)
		return 0;
	rx_ck = l4[data[0] & 3];
	len = size - 1;
	f = malloc(len > 0 ? len : 1);
	if (f == NULL)
		return 0;
	memcpy(f, data + 1, len);
	memset(&port, 0, sizeof(port));
	port.mac = us;
	port.n_ip6 = 2;
	port.ip6[0] = our6[0];
	port.ip6[1] = our6[1];
	port.listen = (data[0] & 0x10) == 0;
	port.listen_udp = rte_cpu_to_be_16(5000);
	port.max_len = uf_port_max_len(1500);
	switch (uf_classify6(f, (uint32_t)len, rx_ck, &port, &in, &why)) {
	case UF_V_FORWARD:
		check_forward(f, len, rx_ck, data[0], &port, &in);
		break;
	case UF_V_CONTROL:
		if (len < 58 || f[RTE_ETHER_HDR_LEN + UF_IP6_NXT] != IPPROTO_ICMPV6)
			abort();
		break;
	default:
		if (why >= UF_DROP_MAX)
			abort();
		break;
	}
	check_ndp(data + 1, len);
	check_echo(data + 1, len);
	free(f);
	return 0;
}
