/* SPDX-License-Identifier: BSD-3-Clause
 * udpfan-gen's frames: Eth/IPv4/UDP with a payload that starts with the 64-bit
 * little-endian sequence number (the UDP performance ladder's layout), then filler bytes.
 * One template per run; per frame only the sequence number, the source port (flows > 1),
 * the IPv4 id and both checksums change, the checksums from sums precomputed over everything
 * else (RFC 1071: the ones-complement sum is associative, so a frame's sum is the template's
 * plus its own words). Pure code, no EAL: unit-tested against a from-scratch computation.
 */
#ifndef UF_GENPKT_H
#define UF_GENPKT_H

#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>

#include "uf_pkt.h"

#define UF_GEN_MIN_PAYLOAD 8    /* the sequence number */
#define UF_GEN_MAX_PAYLOAD 1472 /* an Ethernet MTU of 1500 */
#define UF_GEN_MAX_FRAME (UF_HDR_LEN + UF_GEN_MAX_PAYLOAD)
#define UF_GEN_TTL 64

struct uf_gen_spec {
	struct rte_ether_addr src_mac;
	struct rte_ether_addr dst_mac;
	rte_be32_t src_ip;
	rte_be32_t dst_ip;
	uint16_t sport;   /* host order; flow k uses sport + k */
	uint16_t dport;   /* host order */
	uint16_t payload; /* UDP payload bytes, UF_GEN_MIN_PAYLOAD .. UF_GEN_MAX_PAYLOAD */
};

struct uf_gen_tmpl {
	uint16_t frame_len; /* what goes on the wire: headers + payload, padded to 60 */
	uint16_t payload;
	uint16_t sport; /* host order */
	/* ones-complement sums (unfolded) of everything that does not change per frame */
	uint32_t ip_base;  /* the IPv4 header with id and checksum 0 */
	uint32_t udp_base; /* pseudo-header + UDP header (source port and checksum 0) + payload
			    * with the sequence number 0 */
	uint8_t frame[UF_GEN_MAX_FRAME] __rte_aligned(RTE_CACHE_LINE_SIZE);
};

/* -EINVAL if the payload size is out of range. */
int uf_gen_tmpl_build(struct uf_gen_tmpl *t, const struct uf_gen_spec *s);

/*
 * Write frame `seq` of flow `flow` (0 .. flows-1) at f (t->frame_len bytes). The IPv4 id is
 * the low 16 bits of seq (DF is set: the id identifies nothing).
 */
static inline void
uf_gen_write(uint8_t *f, const struct uf_gen_tmpl *t, uint64_t seq, uint16_t flow)
{
	uint8_t *ip = f + RTE_ETHER_HDR_LEN;
	uint8_t *udp = ip + 20;
	const rte_be16_t id = rte_cpu_to_be_16((uint16_t)seq);
	const rte_be16_t sport = rte_cpu_to_be_16((uint16_t)(t->sport + flow));
	const uint64_t le_seq = rte_cpu_to_le_64(seq);
	uint64_t w;
	uint16_t ck;

	memcpy(f, t->frame, t->frame_len);
	memcpy(ip + 4, &id, 2);
	ck = (uint16_t)~uf_ck_fold((uint64_t)t->ip_base + id);
	memcpy(ip + 10, &ck, 2);

	memcpy(udp + 8, &le_seq, 8);
	memcpy(&w, &le_seq, 8); /* the payload's words as memory holds them */
	memcpy(udp, &sport, 2);
	ck = (uint16_t)~uf_ck_fold((uint64_t)t->udp_base + sport + (uint32_t)w + (w >> 32));
	ck = ck == 0 ? 0xffff : ck; /* 0 means "no checksum" in UDP/IPv4 */
	memcpy(udp + 6, &ck, 2);
}

#endif /* UF_GENPKT_H */
