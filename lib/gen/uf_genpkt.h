/* SPDX-License-Identifier: BSD-3-Clause
 * udpfan-gen's frames: Eth/IPv4/UDP with a payload that starts with the 64-bit
 * little-endian sequence number (the UDP performance ladder's layout), then filler bytes.
 * Two variants (docs/benchmarks.md#payload-layouts): a NetFlow v5 header of 24 bytes before
 * the sequence number (what nfacctd's tee accepts: version 5, count 0, flow_sequence = the
 * low 32 bits of the sequence number), and a TX timestamp (the TSC, u64 LE) right after the
 * sequence number, written by uf_gen_stamp() just before the burst goes out.
 * One template per run; per frame only the sequence number, the source port (flows > 1),
 * the IPv4 id and both checksums change, the checksums from sums precomputed over everything
 * else (RFC 1071: the ones-complement sum is associative, so a frame's sum is the template's
 * plus its own words). Pure code, no EAL: unit-tested against a from-scratch computation.
 */
#ifndef UF_GENPKT_H
#define UF_GENPKT_H

#include <stdbool.h>
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
#define UF_GEN_NF5_HDR 24 /* NetFlow v5 header: version, count, uptime, secs, nsecs, sequence, … */

struct uf_gen_spec {
	struct rte_ether_addr src_mac;
	struct rte_ether_addr dst_mac;
	rte_be32_t src_ip;
	rte_be32_t dst_ip;
	uint16_t sport;   /* host order; flow k uses sport + k */
	uint16_t dport;   /* host order */
	uint16_t payload; /* UDP payload bytes, UF_GEN_MIN_PAYLOAD .. UF_GEN_MAX_PAYLOAD */
	bool netflow_v5;  /* a NetFlow v5 header before the sequence number */
	bool stamp;       /* 8 bytes for uf_gen_stamp() after the sequence number */
};

/* The smallest payload a spec's layout fits in. */
static inline uint16_t
uf_gen_min_payload(const struct uf_gen_spec *s)
{
	return (uint16_t)((s->netflow_v5 ? UF_GEN_NF5_HDR : 0) + UF_GEN_MIN_PAYLOAD +
			  (s->stamp ? 8 : 0));
}

struct uf_gen_tmpl {
	uint16_t frame_len; /* what goes on the wire: headers + payload, padded to 60 */
	uint16_t payload;
	uint16_t sport;     /* host order */
	uint16_t seq_off;   /* payload offset of the sequence number: 0 or UF_GEN_NF5_HDR */
	uint16_t stamp_off; /* payload offset of the timestamp, 0: none */
	bool nf5;           /* the NetFlow header's flow_sequence follows the sequence number */
	/* ones-complement sums (unfolded) of everything that does not change per frame */
	uint32_t ip_base;  /* the IPv4 header with id and checksum 0 */
	uint32_t udp_base; /* pseudo-header + UDP header (source port and checksum 0) + payload
			    * with the sequence number 0 */
	uint8_t frame[UF_GEN_MAX_FRAME] __rte_aligned(RTE_CACHE_LINE_SIZE);
};

/* -EINVAL if the payload size is out of range (or too small for the layout). */
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
	uint64_t w, sum;
	uint16_t ck;

	memcpy(f, t->frame, t->frame_len);
	memcpy(ip + 4, &id, 2);
	ck = (uint16_t)~uf_ck_fold((uint64_t)t->ip_base + id);
	memcpy(ip + 10, &ck, 2);

	memcpy(udp + 8 + t->seq_off, &le_seq, 8);
	memcpy(&w, &le_seq, 8); /* the payload's words as memory holds them */
	memcpy(udp, &sport, 2);
	sum = (uint64_t)t->udp_base + sport + (uint32_t)w + (w >> 32);
	if (t->nf5) {
		const rte_be32_t nseq = rte_cpu_to_be_32((uint32_t)seq);

		/* flow_sequence at header offset 16: an even offset, so its two 16-bit words
		 * add to the sum as memory holds them */
		memcpy(udp + 8 + 16, &nseq, 4);
		sum += nseq;
	}
	ck = (uint16_t)~uf_ck_fold(sum);
	ck = ck == 0 ? 0xffff : ck; /* 0 means "no checksum" in UDP/IPv4 */
	memcpy(udp + 6, &ck, 2);
}

/*
 * Write the TX timestamp `tsc` into a frame uf_gen_write() made (its stamp field is 0) and
 * update the UDP checksum incrementally (RFC 1624: ~(~ck + the new words)). No-op when the
 * template has no stamp field.
 */
static inline void
uf_gen_stamp(uint8_t *f, const struct uf_gen_tmpl *t, uint64_t tsc)
{
	uint8_t *udp = f + RTE_ETHER_HDR_LEN + 20;
	const uint64_t le = rte_cpu_to_le_64(tsc);
	uint64_t w;
	uint16_t ck;

	if (t->stamp_off == 0)
		return;
	memcpy(udp + 8 + t->stamp_off, &le, 8);
	memcpy(&w, &le, 8);
	memcpy(&ck, udp + 6, 2);
	ck = (uint16_t)~uf_ck_fold((uint64_t)(uint16_t)~ck + (uint32_t)w + (w >> 32));
	ck = ck == 0 ? 0xffff : ck;
	memcpy(udp + 6, &ck, 2);
}

#endif /* UF_GENPKT_H */
