/* SPDX-License-Identifier: BSD-3-Clause
 * A copy's header without a vector unit (included by uf_hdr.h): field by field in
 * uf_hdr_write_dg_l2.
 */
#ifndef UF_HDR_GENERIC_H
#define UF_HDR_GENERIC_H

static __rte_always_inline void
uf_hdr_dg_init_arch(struct uf_hdr_dg *g)
{
	RTE_SET_USED(g);
}

static __rte_always_inline bool
uf_hdr_write_dg_arch(uint8_t *h, const struct uf_tmpl *t, const struct uf_hdr_dg *g, bool udp_cksum,
		     const uint32_t l2, const enum uf_hdr_form form, const bool keep_src_ip,
		     const bool keep_sport)
{
	RTE_SET_USED(h);
	RTE_SET_USED(t);
	RTE_SET_USED(g);
	RTE_SET_USED(udp_cksum);
	RTE_SET_USED(l2);
	RTE_SET_USED(form);
	RTE_SET_USED(keep_src_ip);
	RTE_SET_USED(keep_sport);
	return false;
}

#endif /* UF_HDR_GENERIC_H */
