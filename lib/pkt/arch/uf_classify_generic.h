/* SPDX-License-Identifier: BSD-3-Clause
 * The IPv4 fast test without a vector unit (included by uf_classify.h): no fixed-field
 * words, no vector test.
 */
#ifndef UF_CLASSIFY_GENERIC_H
#define UF_CLASSIFY_GENERIC_H

static __rte_always_inline void
uf_dp_pat_init_arch(struct uf_dp_pat *p, const struct uf_port_id *port, const bool any_dst)
{
	RTE_SET_USED(p);
	RTE_SET_USED(port);
	RTE_SET_USED(any_dst);
}

/* no vector test: uf_classify_dp_pat's scalar one takes every frame */
static __rte_always_inline bool
uf_dp_vec_len(uint32_t len)
{
	RTE_SET_USED(len);
	return false;
}

/* never called: uf_dp_vec_len is false */
static __rte_always_inline bool
uf_dp_fast(const uint8_t *f, uint32_t len, uint64_t rx_ck, const struct uf_dp_pat *pat,
	   uint32_t *ulen_out)
{
	RTE_SET_USED(f);
	RTE_SET_USED(len);
	RTE_SET_USED(rx_ck);
	RTE_SET_USED(pat);
	*ulen_out = 0;
	return false;
}

#endif /* UF_CLASSIFY_GENERIC_H */
