/* SPDX-License-Identifier: BSD-3-Clause
 * A copy buffer's mbuf fields in two 16-byte stores with SSE4.1 (included by uf_copy.h;
 * without it: uf_copy_generic.h).
 */
#ifndef UF_COPY_X86_H
#define UF_COPY_X86_H

/* the two 16-byte runs uf_mbuf_tx_init writes whole; a DPDK release that moves a field
 * fails here, at build time */
static_assert(offsetof(struct rte_mbuf, refcnt) == offsetof(struct rte_mbuf, data_off) + 2 &&
			      offsetof(struct rte_mbuf, nb_segs) ==
					      offsetof(struct rte_mbuf, data_off) + 4 &&
			      offsetof(struct rte_mbuf, port) ==
					      offsetof(struct rte_mbuf, data_off) + 6 &&
			      offsetof(struct rte_mbuf, ol_flags) ==
					      offsetof(struct rte_mbuf, data_off) + 8,
	      "mbuf: data_off, refcnt, nb_segs, port, ol_flags in 16 bytes");
static_assert(offsetof(struct rte_mbuf, pkt_len) == offsetof(struct rte_mbuf, packet_type) + 4 &&
			      offsetof(struct rte_mbuf, data_len) ==
					      offsetof(struct rte_mbuf, packet_type) + 8 &&
			      offsetof(struct rte_mbuf, vlan_tci) ==
					      offsetof(struct rte_mbuf, packet_type) + 10 &&
			      offsetof(struct rte_mbuf, hash) ==
					      offsetof(struct rte_mbuf, packet_type) + 12,
	      "mbuf: packet_type, pkt_len, data_len, vlan_tci, hash in 16 bytes");

/* 16 bytes of a small payload (struct uf_payload), in a register: loaded once per datagram,
 * stored into each copy (as two uint8_t[16], the second half went through two 8-byte
 * moves and the stack: callgrind) */
typedef __m128i uf_v16_t;

static __rte_always_inline uf_v16_t
uf_v16_load(const uint8_t *p)
{
	return _mm_loadu_si128((const __m128i *)p);
}

static __rte_always_inline void
uf_v16_store(uint8_t *p, uf_v16_t v)
{
	_mm_storeu_si128((__m128i *)p, v);
}

static __rte_always_inline uf_v16_t
uf_v16_zero(void)
{
	return _mm_setzero_si128();
}

/* a copy's length as uf_mbuf_tx_init stores it: the 16 bytes from packet_type on, where
 * the CPU has them; made once for all the copies of a datagram that share it */
typedef __m128i uf_mbuf_len_t;

static __rte_always_inline uf_mbuf_len_t
uf_mbuf_len(uint32_t len)
{
	return _mm_set_epi32(0, (int)len, (int)len, 0);
}

/* uf_mbuf_tx_init_l's fields from data_off to the RSS hash */
static __rte_always_inline void
uf_mbuf_tx_init_arch(struct rte_mbuf *c, uf_mbuf_len_t l)
{
	/* two 16-byte stores: data_off, refcnt 1 (as it is), nb_segs 1, port, ol_flags 0; and
	 * packet_type 0, pkt_len, data_len, vlan_tci 0, the RSS hash 0 */
	_mm_storeu_si128((__m128i *)&c->data_off,
			 _mm_set_epi64x(0, (int64_t)((uint64_t)RTE_MBUF_PORT_INVALID << 48 |
						     (uint64_t)1 << 32 | (uint64_t)1 << 16 |
						     RTE_PKTMBUF_HEADROOM)));
	_mm_storeu_si128((__m128i *)&c->packet_type, l);
}

#endif /* UF_COPY_X86_H */
