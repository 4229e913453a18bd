/* SPDX-License-Identifier: BSD-3-Clause
 * The copy primitives of the per-packet path: a copy's header, its payload, its mbuf fields,
 * the in-place rewrite of the received mbuf, buffers from a pool. Included through
 * uf_fwd_dp.h.
 */
#ifndef UF_COPY_H
#define UF_COPY_H

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "uf_fwd.h"

/*
 * Copy versus chain, per datagram. Copying writes the 42-byte header and the payload into a
 * fresh mbuf; chaining writes the header into a small mbuf whose next segment is the received
 * mbuf, shared by refcount. Chaining saves the payload copy but costs a second mbuf per
 * frame, a refcount update, two TX descriptors on the NIC, and it rules out MBUF_FAST_FREE
 * and PMDs that mangle chains (af_xdp).
 *
 * Measured by tests/perf/uf_fanout_bench: the figures are in docs/benchmarks.md#copy-versus-chain.
 *
 * Chaining wins from about 512 bytes there, before counting the NIC's second descriptor and DMA
 * read, which this bench cannot see and which move the crossing further up: auto chains at
 * 512 (UF_CHAIN_MIN_PAYLOAD_DEFAULT) where every egress PMD of the set can, copies below.
 * The threshold is the set's: the plan's, raised where an egress PMD breaks short chains
 * (ENA LLQ, chain_min_frame in docs/pmd-quirks.md), at no extra cost here.
 */
/*
 * 802.1Q (docs/configuration.md#vlans): `vlan` is a constant of each specialisation, the
 * plan's any_vlan. Without a tagged destination in the plan every header is the untagged
 * 42 bytes, written as before; with one, the template says which form (uf_hdr_write).
 */
static __rte_always_inline uint32_t
uf_hdr_len(const struct uf_tmpl *t, const bool vlan)
{
	return vlan ? t->hdr_len : UF_HDR_LEN;
}

/* g: the datagram's shared header parts (several copies), or NULL: one copy, from the input
 * and p_sum (a constant at each call site) */
static __rte_always_inline void
uf_hdr_write_v(uint8_t *h, const struct uf_tmpl *t, const struct uf_rx_info *in, uint32_t p_sum,
	       const struct uf_hdr_dg *g, bool udp_cksum, const bool vlan,
	       const enum uf_hdr_form form)
{
	/* each form with its constant offsets, as it would be alone */
	if (vlan && unlikely(t->hdr_len != UF_HDR_LEN)) {
		if (g != NULL)
			uf_hdr_write_dg_l2(h, t, g, udp_cksum, UF_ETH_VLAN_LEN, UF_HDR_ANY);
		else
			uf_hdr_write_l2(h, t, in, p_sum, udp_cksum, UF_ETH_VLAN_LEN, UF_HDR_ANY);
	} else if (g != NULL) {
		uf_hdr_write_dg_l2(h, t, g, udp_cksum, RTE_ETHER_HDR_LEN, form);
	} else {
		uf_hdr_write_l2(h, t, in, p_sum, udp_cksum, RTE_ETHER_HDR_LEN, form);
	}
}

#if UF_DP_SIMD
#include "arch/uf_copy_x86.h"
#else
#include "arch/uf_copy_generic.h"
#endif

/* A copy's payload: 16 to 32 bytes (the small datagrams that make up the packet rate) as two
 * overlapping 16-byte moves, without rte_memcpy's alignment and size dispatch (callgrind:
 * 5 fewer instructions per copy); anything else through rte_memcpy. Loaded once per datagram
 * (uf_payload_load): a store into a copy may alias the payload for the compiler, which
 * otherwise reloaded it for every copy. */
struct uf_payload {
	const uint8_t *src;
	uint32_t n;
	uf_v16_t a, b; /* 16 <= n <= 32: its first and last 16 bytes (in registers) */
};

static __rte_always_inline void
uf_payload_load(struct uf_payload *pl, const uint8_t *src, uint32_t n)
{
	pl->src = src;
	pl->n = n;
	if (likely(n - 16 <= 16)) {
		pl->a = uf_v16_load(src);
		pl->b = uf_v16_load(src + n - 16);
	} else { /* unused (rte_memcpy from src); set, so no compiler sees them unset */
		pl->a = uf_v16_zero();
		pl->b = uf_v16_zero();
	}
}

static __rte_always_inline void
uf_payload_copy(uint8_t *dst, const struct uf_payload *pl)
{
	const uint32_t n = pl->n;

	if (likely(n - 16 <= 16)) {
		uf_v16_store(dst, pl->a);
		uf_v16_store(dst + n - 16, pl->b);
	} else {
		rte_memcpy(dst, pl->src, n);
	}
}

/*
 * A copy buffer's mbuf fields, all of them, for a frame of len bytes in one segment at the
 * default headroom: what rte_pktmbuf_reset and the length stores did in two passes over the
 * mbuf, here in one, so a buffer can come from the pool raw (rte_mempool_get_bulk: no reset
 * per buffer). The pool guarantees the rest of a free mbuf: refcnt 1, next NULL, nb_segs 1
 * (__rte_mbuf_raw_sanity_check); nb_segs is written anyway (it shares a word with data_off).
 * Adjacent constant stores merge into wide ones.
 */
static __rte_always_inline void
uf_mbuf_tx_init_l(struct rte_mbuf *c, uf_mbuf_len_t l)
{
	uf_mbuf_tx_init_arch(c, l);
	c->vlan_tci_outer = 0;
	c->tx_offload = 0;
}

static __rte_always_inline void
uf_mbuf_tx_init(struct rte_mbuf *c, uint32_t len)
{
	uf_mbuf_tx_init_l(c, uf_mbuf_len(len));
}

static __rte_always_inline void
uf_copy_one(struct rte_mbuf *c, const struct uf_dest_rt *d, const struct uf_payload *pl,
	    const struct uf_hdr_dg *g, bool udp_cksum, uint16_t pad_to, const bool vlan,
	    const enum uf_hdr_form form)
{
	const uint32_t plen = pl->n;
	/* the frame starts at the default headroom: uf_mbuf_tx_init sets data_off so */
	uint8_t *h = (uint8_t *)c->buf_addr + RTE_PKTMBUF_HEADROOM;
	const uint32_t hl = uf_hdr_len(&d->tmpl, vlan); /* 42, or 46 tagged */
	uint32_t len = hl + plen;

	uf_hdr_write_v(h, &d->tmpl, NULL, 0, g, udp_cksum, vlan, form); /* g: in unused */
	uf_payload_copy(h + hl, pl);
	if (unlikely(len < pad_to)) {
		memset(h + len, 0, pad_to - len);
		len = pad_to;
	}
	uf_mbuf_tx_init(c, len);
}

/* uf_copy_one where the caller has found, once for the datagram, that the frame is untagged,
 * its payload 16 to 32 bytes and the frame (len bytes) at least the port's minimum: the
 * header, two 16-byte moves, the mbuf fields. */
static __rte_always_inline void
uf_copy_small(struct rte_mbuf *c, const struct uf_dest_rt *d, const struct uf_payload *pl,
	      const struct uf_hdr_dg *g, bool udp_cksum, uint32_t len, uf_mbuf_len_t ml,
	      const enum uf_hdr_form form)
{
	uint8_t *h = (uint8_t *)c->buf_addr + RTE_PKTMBUF_HEADROOM;

	RTE_ASSERT(pl->n - 16 <= 16 && len == UF_HDR_LEN + pl->n);
	uf_hdr_write_v(h, &d->tmpl, NULL, 0, g, udp_cksum, false, form);
	uf_v16_store(h + UF_HDR_LEN, pl->a);
	uf_v16_store(h + len - 16, pl->b);
	uf_mbuf_tx_init_l(c, ml);
}

/* Rewrite the received mbuf into the last copy: no allocation, no payload copy. */
static __rte_always_inline void
uf_inplace(struct rte_mbuf *m, const struct uf_dest_rt *d, const struct uf_rx_info *in,
	   uint32_t p_sum, const struct uf_hdr_dg *g, bool udp_cksum, uint16_t pad_to,
	   const bool vlan, const enum uf_hdr_form form)
{
	/* 42, or 46 tagged: 4 bytes of headroom more */
	const uint32_t hl = uf_hdr_len(&d->tmpl, vlan);
	uint32_t len = hl + in->payload_len;
	uint8_t *h;

	/* drop the received headers (any IP options) and trailing padding; nothing to move
	 * where they are the copy's length (the fast test's frames: a constant, no store) */
	if (in->payload_off != hl)
		m->data_off = (uint16_t)(m->data_off + in->payload_off - hl);
	h = rte_pktmbuf_mtod(m, uint8_t *);
	uf_hdr_write_v(h, &d->tmpl, in, p_sum, g, udp_cksum, vlan, form);
	if (unlikely(len < pad_to)) {
		memset(h + len, 0, pad_to - len);
		len = pad_to;
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	m->ol_flags = 0;
}

/* Up to n mbufs from mp into m: in one bulk get, or, when the pool cannot give them all,
 * one by one as long as it has any. Returns how many. */
static __rte_always_inline uint16_t
uf_alloc_upto(struct rte_mempool *mp, struct rte_mbuf **m, uint16_t n)
{
	uint16_t got;

	if (likely(rte_pktmbuf_alloc_bulk(mp, m, n) == 0))
		return n;
	for (got = 0; got < n; got++) {
		m[got] = rte_pktmbuf_alloc(mp);
		if (m[got] == NULL)
			break;
	}
	return got;
}

#endif /* UF_COPY_H */
