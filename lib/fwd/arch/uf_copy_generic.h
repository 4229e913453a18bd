/* SPDX-License-Identifier: BSD-3-Clause
 * A copy buffer's mbuf fields, field by field (included by uf_copy.h where the data path
 * has no vector unit).
 */
#ifndef UF_COPY_GENERIC_H
#define UF_COPY_GENERIC_H

/* 16 bytes of a small payload (struct uf_payload) */
typedef struct {
	uint8_t b[16];
} uf_v16_t;

static __rte_always_inline uf_v16_t
uf_v16_load(const uint8_t *p)
{
	uf_v16_t v;

	memcpy(v.b, p, 16);
	return v;
}

static __rte_always_inline void
uf_v16_store(uint8_t *p, uf_v16_t v)
{
	memcpy(p, v.b, 16);
}

static __rte_always_inline uf_v16_t
uf_v16_zero(void)
{
	uf_v16_t v;

	memset(v.b, 0, 16);
	return v;
}

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
