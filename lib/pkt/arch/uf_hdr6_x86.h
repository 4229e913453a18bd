/* SPDX-License-Identifier: BSD-3-Clause
 * An IPv6 copy's header rewritten in place with SSE4.1 (included by uf_pkt6.h; without it:
 * uf_hdr6_generic.h).
 */
#ifndef UF_HDR6_X86_H
#define UF_HDR6_X86_H

/*
 * Rewrite in place the Eth/IPv6/UDP headers of a datagram at f (no extension header: the
 * copy's 62 bytes where the sender's are) into a copy for template t that keeps the sender's
 * UDP port and not its address (`source_port: keep`, the default): the traffic class less
 * its ECN bits, the payload length, the source port and the UDP length stay, the rest is the
 * template's, where those fields are 0 (uf_tmpl6_build), and uck (the caller's) goes in as
 * the checksum. Four loads of the frame, three ANDs and ORs, four stores, where the
 * template's copy and six field stores were (uf_hdr6_write).
 */
static __rte_always_inline void
uf_hdr6_rewrite_keep(uint8_t *f, const struct uf_tmpl6 *t, uint16_t uck)
{
	/* what stays of the frame: bytes 14 and 15 (the traffic class's top six bits), 18 and
	 * 19 (payload length); at 46: 54 and 55 (source port), 58 and 59 (UDP length) */
	const __m128i k0 =
			_mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0f, (char)0xc0);
	const __m128i k1 = _mm_setr_epi8(0, 0, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
	const __m128i k3 = _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, -1, -1, 0, 0, -1, -1, 0, 0);
	const __m128i x0 = _mm_or_si128(_mm_and_si128(_mm_loadu_si128((const __m128i *)f), k0),
					_mm_loadu_si128((const __m128i *)t->hdr));
	const __m128i x1 =
			_mm_or_si128(_mm_and_si128(_mm_loadu_si128((const __m128i *)(f + 16)), k1),
				     _mm_loadu_si128((const __m128i *)(t->hdr + 16)));
	const __m128i x2 = _mm_loadu_si128((const __m128i *)(t->hdr + 32));
	__m128i x3 = _mm_or_si128(_mm_and_si128(_mm_loadu_si128((const __m128i *)(f + 46)), k3),
				  _mm_loadu_si128((const __m128i *)(t->hdr + 46)));

	RTE_ASSERT(t->keep_sport && !t->keep_src_ip);
	x3 = _mm_insert_epi16(x3, uck, 7);
	_mm_storeu_si128((__m128i *)f, x0);
	_mm_storeu_si128((__m128i *)(f + 16), x1);
	_mm_storeu_si128((__m128i *)(f + 32), x2); /* 46 and 47: the template's in both */
	_mm_storeu_si128((__m128i *)(f + 46), x3);
}

#endif /* UF_HDR6_X86_H */
