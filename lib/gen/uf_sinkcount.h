/* SPDX-License-Identifier: BSD-3-Clause
 * udpfan-sink's counting: per destination (dst ip:port) the datagrams received and their
 * sequence accounting (uf_seqtrack.h), per sender (src ip:port) a count. One instance per
 * receiving thread or lcore, single writer, no locks; every table is allocated up front, so
 * the per-datagram path neither allocates nor calls the kernel. Pure code, no EAL.
 */
#ifndef UF_SINKCOUNT_H
#define UF_SINKCOUNT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_byteorder.h>

#include <rte_cycles.h>

#include "uf_common.h"
#include "uf_lathist.h"
#include "uf_seqtrack.h"

#define UF_SINK_MAX_DESTS 64
#define UF_SINK_SENDER_SLOTS 4096 /* open addressing; filled to 3/4 at most */

struct uf_sink_dest {
	rte_be32_t ip;
	rte_be16_t port;
	uint64_t received;      /* every datagram, short ones included */
	uint64_t short_payload; /* too short for a sequence number at seq_off: not accounted */
	uint64_t t_first;       /* clock of the first and the last arrival, in the caller's ticks */
	uint64_t t_last;
	struct uf_lat_hist *lat; /* NULL unless uf_sink_count_lat() */
	struct uf_seqtrack st;
};

struct uf_sink_sender {
	uint64_t key; /* 0: free; else 1 << 48 | ip << 16 | port (network order values) */
	uint64_t n;
	uint64_t last_seq; /* the sequence number of its previous datagram */
};

struct uf_sink_count {
	uint32_t n_dests;
	uint32_t max_dests;
	uint32_t last; /* the destination of the previous datagram: the usual next one */
	struct uf_sink_dest *dests;
	uint64_t dest_overflow; /* datagrams to destinations beyond max_dests: not accounted */
	uint32_t n_senders;
	uint64_t sender_overflow; /* datagrams from senders beyond the table: counted here only */
	/* datagrams whose sequence number is below the previous one from the same sender (src
	 * ip:port): per-flow order, exact where each sender reaches one destination */
	uint64_t sender_backwards;
	struct uf_sink_sender *senders;
	uint64_t total;   /* datagrams accounted; read by the control thread (UF_LOAD) */
	uint16_t seq_off; /* payload offset of the sequence number (--seq-offset) */
	void *bits;
	struct uf_lat_hist *lats; /* one per destination, NULL: no --latency */
	/* udpfan-gen --warmup: datagrams with a sequence number below warm_seq are accounted
	 * as any other, but their latency goes to `warm` (all destinations), not to their
	 * destination's histogram (docs/benchmarks.md#latency) */
	uint64_t warm_seq;
	struct uf_lat_hist *warm;
	/* udpfan-gen --latency: the caller sets gen_stalled before accounting what one receive
	 * took in: true when its loop was away longer than --stall-us since its previous
	 * receive (off its CPU: the delay it measures is partly its own). Measured copies
	 * taken in while it is false are added to `unstalled` too (all destinations). */
	bool gen_stalled;
	struct uf_lat_hist *unstalled;
};

/* Allocate max_dests destinations with windows of 2^win_log2. 0 or -ENOMEM. */
int uf_sink_count_init(struct uf_sink_count *c, uint32_t max_dests, unsigned int win_log2);
void uf_sink_count_free(struct uf_sink_count *c);

/* Read a TX timestamp (TSC, u64 LE) right after each sequence number and keep a latency
 * histogram per destination (uf_lathist.h); tsc_hz converts to ns. 0 or -ENOMEM. */
int uf_sink_count_lat(struct uf_sink_count *c, double tsc_hz);

/* Pre-register a destination (shown even when nothing arrives; ip 0: whichever address the
 * first datagram to that port has). NULL when full. */
struct uf_sink_dest *uf_sink_dest_add(struct uf_sink_count *c, rte_be32_t ip, rte_be16_t port);

static inline struct uf_sink_dest *
uf_sink_dest_find(struct uf_sink_count *c, rte_be32_t ip, rte_be16_t port)
{
	struct uf_sink_dest *d = &c->dests[c->last];
	uint32_t i;

	if (likely(c->n_dests != 0 && d->ip == ip && d->port == port))
		return d;
	for (i = 0; i < c->n_dests; i++) {
		d = &c->dests[i];
		if (d->ip == ip && d->port == port) {
			c->last = i;
			return d;
		}
	}
	for (i = 0; i < c->n_dests; i++) {
		d = &c->dests[i];
		/* a placeholder for "any address" (a socket bound to 0.0.0.0): the first
		 * datagram to its port names it */
		if (d->ip == 0 && d->port == port && d->received == 0) {
			d->ip = ip;
			c->last = i;
			return d;
		}
	}
	d = uf_sink_dest_add(c, ip, port);
	if (d != NULL)
		c->last = c->n_dests - 1;
	return d;
}

/* Count one datagram of a sender; its entry, or NULL when the table is full. */
static inline struct uf_sink_sender *
uf_sink_sender_count(struct uf_sink_count *c, rte_be32_t ip, rte_be16_t port)
{
	const uint64_t key = UINT64_C(1) << 48 | (uint64_t)ip << 16 | port;
	uint32_t h = (uint32_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 52); /* 12 bits */
	uint32_t i;

	for (i = 0; i < UF_SINK_SENDER_SLOTS; i++, h = (h + 1) & (UF_SINK_SENDER_SLOTS - 1)) {
		struct uf_sink_sender *s = &c->senders[h];

		if (likely(s->key == key)) {
			s->n++;
			return s;
		}
		if (s->key == 0) {
			if (c->n_senders >= UF_SINK_SENDER_SLOTS / 4 * 3)
				break;
			s->key = key;
			s->n = 1;
			c->n_senders++;
			return s;
		}
	}
	c->sender_overflow++;
	return NULL;
}

/* One datagram: payload points at the UDP payload (len bytes), now in the caller's ticks. */
static inline void
uf_sink_account(struct uf_sink_count *c, rte_be32_t dip, rte_be16_t dport, rte_be32_t sip,
		rte_be16_t sport, const uint8_t *payload, uint32_t len, uint64_t now)
{
	struct uf_sink_dest *d = uf_sink_dest_find(c, dip, dport);
	struct uf_sink_sender *s = uf_sink_sender_count(c, sip, sport);
	if (unlikely(d == NULL)) {
		c->dest_overflow++;
		return;
	}
	if (unlikely(d->received == 0))
		d->t_first = now;
	d->t_last = now;
	d->received++;
	if (likely(len >= c->seq_off + 8u)) {
		uint64_t seq;

		memcpy(&seq, payload + c->seq_off, 8);
		seq = rte_le_to_cpu_64(seq);
		uf_seqtrack_add(&d->st, seq);
		if (likely(s != NULL)) {
			if (s->n > 1 && seq < s->last_seq)
				c->sender_backwards++;
			s->last_seq = seq;
		}
		if (unlikely(d->lat != NULL) && len >= c->seq_off + 16u) {
			const uint64_t rx = rte_rdtsc();
			uint64_t stamp;

			memcpy(&stamp, payload + c->seq_off + 8, 8);
			stamp = rte_le_to_cpu_64(stamp);
			if (unlikely(seq < c->warm_seq)) {
				uf_lat_add(c->warm, stamp, rx);
			} else {
				uf_lat_add(d->lat, stamp, rx);
				if (!c->gen_stalled)
					uf_lat_add(c->unstalled, stamp, rx);
			}
		}
	} else {
		d->short_payload++;
	}
}

/*
 * One destination as a JSON object (no key): received, distinct, lost (null when unknown),
 * duplicated, reordered, first_seq, max_seq (null when nothing arrived), min_seq,
 * short_payload, beyond_window, exact, active_seconds, pps. hz: the ticks' frequency.
 */
void uf_sink_dest_json(FILE *f, const struct uf_sink_dest *d, const struct uf_seq_expect *e,
		       double hz);

/* "a.b.c.d:port" of a destination or a sender key */
void uf_sink_addr_str(rte_be32_t ip, rte_be16_t port, char *buf, size_t len);

#endif /* UF_SINKCOUNT_H */
