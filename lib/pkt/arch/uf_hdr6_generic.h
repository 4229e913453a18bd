/* SPDX-License-Identifier: BSD-3-Clause
 * An IPv6 copy's header rewritten in place without a vector unit (included by uf_pkt6.h).
 */
#ifndef UF_HDR6_GENERIC_H
#define UF_HDR6_GENERIC_H

/* uf_hdr6_x86.h's: the kept fields read, the template copied over, the fields put back */
static __rte_always_inline void
uf_hdr6_rewrite_keep(uint8_t *f, const struct uf_tmpl6 *t, uint16_t uck)
{
	uint8_t *ip = f + RTE_ETHER_HDR_LEN;
	uint8_t *udp = ip + UF_IP6_HDR;
	const uint8_t b0 = ip[0] & 0x0f, b1 = ip[1] & 0xc0;
	uint8_t plen[2], sport[2], ulen[2];

	RTE_ASSERT(t->keep_sport && !t->keep_src_ip);
	memcpy(plen, ip + UF_IP6_PLEN, 2);
	memcpy(sport, udp + UF_UDP_SPORT, 2);
	memcpy(ulen, udp + UF_UDP_LEN, 2);
	memcpy(f, t->hdr, UF_HDR6_LEN);
	ip[0] |= b0;
	ip[1] |= b1;
	memcpy(ip + UF_IP6_PLEN, plen, 2);
	memcpy(udp + UF_UDP_SPORT, sport, 2);
	memcpy(udp + UF_UDP_LEN, ulen, 2);
	memcpy(udp + UF_UDP_CKSUM, &uck, 2);
}

#endif /* UF_HDR6_GENERIC_H */
