/* SPDX-License-Identifier: BSD-3-Clause
 * The IPv4 fast test with SSE4.1 (included by uf_classify.h; the scalar one:
 * uf_classify_generic.h).
 */
#ifndef UF_CLASSIFY_X86_H
#define UF_CLASSIFY_X86_H

/* struct uf_dp_pat's fixed-field words for this port and any_dst */
static __rte_always_inline void
uf_dp_pat_init_arch(struct uf_dp_pat *p, const struct uf_port_id *port, const bool any_dst)
{
	uint8_t want[48], mask[48];
	const rte_be16_t ethertype = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4),
			 frag = rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK);
	const uint32_t ip = RTE_ETHER_HDR_LEN, udp = RTE_ETHER_HDR_LEN + UF_IPV4_HDR_MIN;
	int k;

	memset(want, 0, sizeof(want));
	memset(mask, 0, sizeof(mask));
	memcpy(want, port->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	memset(mask, 0xff, RTE_ETHER_ADDR_LEN);
	memcpy(want + UF_ETH_TYPE, &ethertype, 2);
	memset(mask + UF_ETH_TYPE, 0xff, 2);
	want[ip + UF_IP_VHL] = UF_IPV4_VHL_NO_OPT;
	mask[ip + UF_IP_VHL] = 0xff;
	memcpy(mask + ip + UF_IP_FRAG, &frag, 2); /* want 0: not a fragment */
	want[ip + UF_IP_PROTO] = IPPROTO_UDP;
	mask[ip + UF_IP_PROTO] = 0xff;
	if (!any_dst) {
		memcpy(want + ip + UF_IP_DST, &port->ip, 4);
		memset(mask + ip + UF_IP_DST, 0xff, 4);
		memcpy(want + udp + UF_UDP_DPORT, &port->listen_udp, 2);
		memset(mask + udp + UF_UDP_DPORT, 0xff, 2);
	}
	for (k = 0; k < 3; k++) {
		p->want[k] = _mm_loadu_si128((const __m128i *)(want + 16 * k));
		p->mask[k] = _mm_loadu_si128((const __m128i *)(mask + 16 * k));
	}
}

/*
 * The fast test for what nearly every frame is: Ethernet/IPv4 without options to our MAC, IP
 * and UDP port, not a fragment, the UDP length filling the IP payload, lengths within the
 * frame and the MTU, header checksum right. The conditions are combined without branching
 * between them (callgrind: 100 instructions per frame with the reason-by-reason walk, 45 with
 * this). True: the frame passed, its UDP length in *ulen (uf_fast_info gives the rest); false:
 * uf_classify_full finds the verdict and its reason (the same verdicts either way). The frame
 * is at least UF_DP_SIMD_LEN long (three 16-byte loads). `pat`: uf_dp_pat_init's for this port
 * and any_dst.
 */
static __rte_always_inline bool
uf_dp_fast(const uint8_t *f, uint32_t len, uint64_t rx_ck, const struct uf_dp_pat *pat,
	   uint32_t *ulen_out)
{
	const uint8_t *ip = f + RTE_ETHER_HDR_LEN;
	/* no IP options: the UDP header follows 20 bytes in */
	const uint8_t *udp = ip + UF_IPV4_HDR_MIN;
	const __m128i x0 = _mm_and_si128(
			_mm_xor_si128(_mm_loadu_si128((const __m128i *)f), pat->want[0]),
			pat->mask[0]);
	const __m128i x1 = _mm_and_si128(
			_mm_xor_si128(_mm_loadu_si128((const __m128i *)(f + 16)), pat->want[1]),
			pat->mask[1]);
	const __m128i x2 = _mm_and_si128(
			_mm_xor_si128(_mm_loadu_si128((const __m128i *)(f + 32)), pat->want[2]),
			pat->mask[2]);
	const __m128i x = _mm_or_si128(_mm_or_si128(x0, x1), x2);
	/* the BAD bit is set in both BAD and NONE (IP and L4 alike), so a frame the NIC found
	 * bad, or says it could not check ("none": rare, left to uf_classify_full), or whose tag
	 * it stripped, takes the careful path; a verdict the port does not believe is not in
	 * pat->ck_bad nor pat->ck_good (uf_dp_pat_init) */
	const uint64_t bad_ck = rx_ck & pat->ck_bad;
	const uint32_t tot = uf_be16(uf_rd16(ip + UF_IP_LEN)),
		       ulen = uf_be16(uf_rd16(udp + UF_UDP_LEN));

	RTE_ASSERT(len >= UF_DP_SIMD_LEN);
	*ulen_out = ulen;
	/* ulen + 20 == tot and ulen >= 8: tot >= 28 and ulen <= tot - 20 follow. The verdict's
	 * test first, then the fields': each a test and a branch (in one condition the compiler
	 * kept the vector test's result in a register to test later: three instructions more,
	 * callgrind: docs/benchmarks.md#log) */
	if (unlikely(bad_ck != 0) || unlikely(!_mm_testz_si128(x, x)))
		return false;
	return likely(ulen + UF_IPV4_HDR_MIN == tot && ulen >= UF_UDP_HDR &&
		      RTE_ETHER_HDR_LEN + tot <= len && len <= pat->max_len &&
		      ((rx_ck & pat->ck_good) != 0 || /* BAD bit clear: GOOD */
		       uf_ipv4_hdr_ok_45(ip)));
}

/* whether uf_dp_fast can read the frame: its three 16-byte loads */
static __rte_always_inline bool
uf_dp_vec_len(uint32_t len)
{
	return len >= UF_DP_SIMD_LEN;
}

#endif /* UF_CLASSIFY_X86_H */
