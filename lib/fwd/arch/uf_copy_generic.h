/* SPDX-License-Identifier: BSD-3-Clause
 * A copy buffer's mbuf fields, field by field (included by uf_copy.h where the data path
 * has no vector unit).
 */
#ifndef UF_COPY_GENERIC_H
#define UF_COPY_GENERIC_H

/* a copy's length as uf_mbuf_tx_init stores it */
typedef uint32_t uf_mbuf_len_t;

static __rte_always_inline uf_mbuf_len_t
uf_mbuf_len(uint32_t len)
{
	return len;
}

/* uf_mbuf_tx_init_l's fields from data_off to vlan_tci */
static __rte_always_inline void
uf_mbuf_tx_init_arch(struct rte_mbuf *c, uf_mbuf_len_t l)
{
	c->data_off = RTE_PKTMBUF_HEADROOM;
	c->nb_segs = 1;
	c->port = RTE_MBUF_PORT_INVALID;
	c->ol_flags = 0;
	c->packet_type = 0;
	c->pkt_len = l;
	c->data_len = (uint16_t)l;
	c->vlan_tci = 0;
}

#endif /* UF_COPY_GENERIC_H */
