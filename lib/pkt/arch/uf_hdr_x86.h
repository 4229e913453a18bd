/* SPDX-License-Identifier: BSD-3-Clause
 * A copy's header written with SSE4.1 (included by uf_hdr.h; without it:
 * uf_hdr_generic.h).
 */
#ifndef UF_HDR_X86_H
#define UF_HDR_X86_H

/* uf_hdr_dg_init's header words, from g's scalar fields */
static __rte_always_inline void
uf_hdr_dg_init_arch(struct uf_hdr_dg *g)
{
	g->ov[0] = _mm_insert_epi8(_mm_setzero_si128(), g->tos, 15);
	g->ov[1] = _mm_cvtsi32_si128((int)((uint32_t)g->tot | (uint32_t)g->ip_id << 16));
	g->ov[2] = _mm_insert_epi16(_mm_setzero_si128(), g->ulen, 6);
	g->ov_sport = _mm_insert_epi16(g->ov[2], g->sport, 4);
	/* only a tagged fan-out reads it; the others' stores of it are dead */
	g->ov_tag = _mm_cvtsi64_si128((int64_t)((uint64_t)g->tos << 24 | (uint64_t)g->tot << 32 |
						(uint64_t)g->ip_id << 48));
	g->ck = _mm_cvtsi64_si128((int64_t)((uint64_t)g->u_sum << 32 | g->ip_sum));
	g->ck_plain = _mm_cvtsi64_si128((int64_t)((uint64_t)g->u_sum_plain << 32 | g->ip_sum));
}

static_assert(offsetof(struct uf_tmpl, udp_delta) == offsetof(struct uf_tmpl, ip_base) + 4,
	      "uf_hdr_ck2 loads ip_base and udp_delta as one word");

/*
 * A plain copy's two checksums from the template t and the datagram's lanes ck (uf_hdr_dg's
 * ck or ck_plain), both folds in one: the sums ip_base + ip_sum and udp_delta + u_sum as two
 * 32-bit lanes, the UDP one complemented (uf_ck_fold32_neg), each lane plus itself with its
 * halves swapped (the rotation by 16 of uf_ck_fold32): the folds in the lanes' top halves.
 * The same two values as ~uf_ck_fold32 and uf_ck_fold32_neg one by one (callgrind: 11
 * instructions per copy where those were 19, docs/benchmarks.md#log).
 */
static __rte_always_inline void
uf_hdr_ck2(const struct uf_tmpl *t, __m128i ck, uint16_t *ipck, uint16_t *uck)
{
	__m128i s = _mm_add_epi32(_mm_loadl_epi64((const __m128i *)&t->ip_base), ck);

	s = _mm_xor_si128(s, _mm_set_epi32(0, 0, -1, 0));
	s = _mm_add_epi32(s, _mm_shufflelo_epi16(s, 0xb1));
	*ipck = (uint16_t)~_mm_extract_epi16(s, 1);
	*uck = (uint16_t)_mm_extract_epi16(s, 3);
}

/*
 * uf_hdr_write_dg_l2's vector writes, for the templates they cover: true, the header
 * written; false, for uf_hdr_write_dg_l2's field by field.
 */
static __rte_always_inline bool
uf_hdr_write_dg_arch(uint8_t *h, const struct uf_tmpl *t, const struct uf_hdr_dg *g, bool udp_cksum,
		     const uint32_t l2, const enum uf_hdr_form form, const bool keep_src_ip,
		     const bool keep_sport)
{
	uint16_t ipck, uck;

	/* a plain template (untagged, our source IP: the common one): three 16-byte ORs of
	 * the template and the datagram's fields, the two checksums put in, three stores
	 * (bytes 26-31 twice, the same values) in place of the 42-byte copy and six field
	 * stores. Same bytes (fanout_diff, eal; test_pkt) */
	if (form != UF_HDR_ANY || (l2 == RTE_ETHER_HDR_LEN && likely(t->plain))) {
		const __m128i t0 = _mm_loadu_si128((const __m128i *)t->hdr),
			      t1 = _mm_loadu_si128((const __m128i *)(t->hdr + 16)),
			      t2 = _mm_loadu_si128((const __m128i *)(t->hdr + 26));
		__m128i v1, v2;

		uf_hdr_ck2(t, keep_sport ? g->ck : g->ck_plain, &ipck, &uck);
		v1 = _mm_insert_epi16(_mm_or_si128(t1, g->ov[1]), ipck, 4); /* byte 24 */
		/* without a UDP checksum the template's 0 stays: no branch per copy, and a
		 * mask, not a select (a select tested the flag per copy: callgrind, 1.3
		 * instructions per copy at N = 4) */
		v2 = _mm_insert_epi16(_mm_or_si128(t2, keep_sport ? g->ov_sport : g->ov[2]),
				      (uint16_t)(uck & -(int)udp_cksum), 7); /* byte 40 */
		_mm_storeu_si128((__m128i *)h, _mm_or_si128(t0, g->ov[0]));
		_mm_storeu_si128((__m128i *)(h + 16), v1);
		_mm_storeu_si128((__m128i *)(h + 26), v2);
		return true;
	}
	/* the same for a tagged template with our source IP: the Ethernet header and tag
	 * (bytes 0-15) as they are, then the windows at 16 and 30 (bytes 30-31 twice) */
	if (l2 == UF_ETH_VLAN_LEN && likely(!keep_src_ip)) {
		const __m128i t0 = _mm_loadu_si128((const __m128i *)t->hdr),
			      t1 = _mm_loadu_si128((const __m128i *)(t->hdr + 16)),
			      t2 = _mm_loadu_si128((const __m128i *)(t->hdr + 30));
		__m128i v1, v2;

		uf_hdr_ck2(t, keep_sport ? g->ck : g->ck_plain, &ipck, &uck);
		v1 = _mm_insert_epi16(_mm_or_si128(t1, g->ov_tag), ipck, 6); /* byte 28 */
		v2 = _mm_insert_epi16(_mm_or_si128(t2, keep_sport ? g->ov_sport : g->ov[2]),
				      (uint16_t)(uck & -(int)udp_cksum), 7); /* byte 44 */
		_mm_storeu_si128((__m128i *)h, t0);
		_mm_storeu_si128((__m128i *)(h + 16), v1);
		_mm_storeu_si128((__m128i *)(h + 30), v2);
		return true;
	}
	return false;
}

/*
 * N = 1, in place, for a frame the fast test passed (no IP options: the headers are where the
 * copy's go) and a plain template that keeps the sender's UDP port (the default form): the
 * copy's header is the template ORed with what the frame keeps, under three byte masks (TOS
 * without ECN, total length and id; the sender's port and the UDP length), then the two
 * checksums put in: three loads of the frame, three ANDs, three ORs, three stores, where the
 * template's copy and six field stores were (uf_hdr_write_l2). The same bytes (fanout_diff,
 * eal, which compares it with the generic path). `uck`: the copy's UDP checksum (0 sent as
 * 0xffff), the caller's (uf_single_one_keep).
 */
static __rte_always_inline void
uf_hdr_rewrite_keep(uint8_t *f, const struct uf_tmpl *t, uint16_t uck)
{
	const __m128i f0 = _mm_loadu_si128((const __m128i *)f),
		      f1 = _mm_loadu_si128((const __m128i *)(f + 16)),
		      f2 = _mm_loadu_si128((const __m128i *)(f + 26));
	/* what the frame keeps: byte 15 (TOS) less ECN; bytes 16-19 (total length, id); in
	 * the window at 26, bytes 8-9 (34: the UDP source port) and 12-13 (38: UDP length) */
	const __m128i k0 = _mm_insert_epi8(_mm_setzero_si128(), 0xfc, 15),
		      k1 = _mm_cvtsi32_si128(-1), k2 = _mm_set_epi16(0, -1, 0, -1, 0, 0, 0, 0);
	const uint8_t *ip = f + RTE_ETHER_HDR_LEN;
	/* tos_word, tot, id: as uf_hdr_write_l2 sums them, read where they are */
	const uint32_t ipsum = t->ip_base + uf_tos_word(ip[UF_IP_TOS] & 0xfc) +
			       uf_rd16(ip + UF_IP_LEN) + uf_rd16(ip + UF_IP_ID);
	const uint16_t ipck = (uint16_t)~uf_ck_fold32(ipsum);
	__m128i v1, v2;

	RTE_ASSERT(t->plain && t->keep_sport);
	v1 = _mm_insert_epi16(_mm_or_si128(_mm_loadu_si128((const __m128i *)(t->hdr + 16)),
					   _mm_and_si128(f1, k1)),
			      ipck, 4); /* byte 24 */
	v2 = _mm_insert_epi16(_mm_or_si128(_mm_loadu_si128((const __m128i *)(t->hdr + 26)),
					   _mm_and_si128(f2, k2)),
			      uck, 7); /* byte 40 */
	_mm_storeu_si128((__m128i *)f, _mm_or_si128(_mm_loadu_si128((const __m128i *)t->hdr),
						    _mm_and_si128(f0, k0)));
	_mm_storeu_si128((__m128i *)(f + 16), v1);
	_mm_storeu_si128((__m128i *)(f + 26), v2);
}

#endif /* UF_HDR_X86_H */
