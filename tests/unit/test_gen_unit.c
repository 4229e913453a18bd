/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests (no EAL) for lib/gen: udpfan-gen's frames against a checksum computed byte by
 * byte from scratch, the sequence tracker against a naive set, and the sink's tables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "uf_genpkt.h"
#include "uf_lathist.h"
#include "uf_seqtrack.h"
#include "uf_sinkcount.h"

static int failures, checks;

#define CHECK(cond, ...)                                                                \
	do {                                                                            \
		checks++;                                                               \
		if (!(cond)) {                                                          \
			failures++;                                                     \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                   \
			fprintf(stderr, "\n");                                          \
		}                                                                       \
	} while (0)

/* RFC 1071 over big-endian 16-bit words, byte by byte: independent of the C under test */
static uint16_t
ref_sum(const uint8_t *p, size_t n, uint32_t acc)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		acc += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		acc += (uint32_t)p[n - 1] << 8;
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)acc;
}

static void
check_frame(const uint8_t *f, uint16_t flen, const struct uf_gen_spec *s, uint64_t seq,
	    uint16_t flow)
{
	const uint8_t *ip = f + 14, *udp = f + 34, *pl = f + 42;
	uint8_t pseudo[12];
	uint32_t acc;
	uint16_t ulen = (uint16_t)(8 + s->payload), ck;
	uint64_t got;
	int i;

	CHECK(flen == (42 + s->payload < 60 ? 60 : 42 + s->payload), "frame_len %u", flen);
	CHECK(f[12] == 0x08 && f[13] == 0x00, "ethertype");
	CHECK(memcmp(f, &s->dst_mac, 6) == 0 && memcmp(f + 6, &s->src_mac, 6) == 0, "macs");
	CHECK(ip[0] == 0x45 && ip[9] == 17 && ip[8] == UF_GEN_TTL, "ip basics");
	CHECK(((ip[2] << 8) | ip[3]) == 28 + s->payload, "total length");
	CHECK(ip[6] == 0x40 && ip[7] == 0, "DF, no fragment");
	CHECK(((ip[4] << 8) | ip[5]) == (uint16_t)seq, "ip id %u seq %llu", (ip[4] << 8) | ip[5],
	      (unsigned long long)seq);
	CHECK(ref_sum(ip, 20, 0) == 0xffff, "IPv4 header checksum, seq %llu",
	      (unsigned long long)seq);
	CHECK(((udp[0] << 8) | udp[1]) == s->sport + flow, "sport");
	CHECK(((udp[2] << 8) | udp[3]) == s->dport, "dport");
	CHECK(((udp[4] << 8) | udp[5]) == ulen, "udp length");
	memcpy(pseudo, ip + 12, 8);
	pseudo[8] = 0;
	pseudo[9] = 17;
	pseudo[10] = (uint8_t)(ulen >> 8);
	pseudo[11] = (uint8_t)ulen;
	acc = ref_sum(pseudo, 12, 0);
	ck = (udp[6] << 8) | udp[7];
	CHECK(ck != 0, "UDP checksum 0 means none");
	CHECK(ref_sum(udp, ulen, acc) == 0xffff, "UDP checksum, size %u seq %llu flow %u",
	      s->payload, (unsigned long long)seq, flow);
	got = 0;
	for (i = 7; i >= 0; i--)
		got = got << 8 | pl[i];
	CHECK(got == seq, "LE sequence number %llu != %llu", (unsigned long long)got,
	      (unsigned long long)seq);
	for (i = 8; i < s->payload; i++)
		if (pl[i] != (uint8_t)i) {
			CHECK(0, "filler byte %d", i);
			break;
		}
	for (i = 42 + s->payload; i < flen; i++)
		if (f[i] != 0) {
			CHECK(0, "padding byte %d", i);
			break;
		}
}

static void
test_genpkt(void)
{
	static const uint16_t sizes[] = { 8, 9, 10, 17, 18, 32, 33, 64, 511, 1000, 1472 };
	static const uint64_t seqs[] = {
		0,       1,          2,          0xfffe,         0xffff,
		0x10000, 0x12345678, 0xffffffff, 0x100000000ull, 0xfedcba9876543210ull,
		~0ull
	};
	static struct uf_gen_tmpl t;
	static uint8_t f[UF_GEN_MAX_FRAME + 64];
	struct uf_gen_spec s = {
		.src_mac = { { 0x02, 0x18, 0, 0, 0, 0x02 } },
		.dst_mac = { { 0x02, 0x18, 0, 0, 0, 0x21 } },
		.sport = 40000,
		.dport = 6000,
	};
	size_t i, j;
	uint16_t flow;

	s.src_ip = inet_addr("198.18.0.2");
	s.dst_ip = inet_addr("198.18.0.21");
	s.payload = 7;
	CHECK(uf_gen_tmpl_build(&t, &s) != 0, "payload 7 refused");
	s.payload = UF_GEN_MAX_PAYLOAD + 1;
	CHECK(uf_gen_tmpl_build(&t, &s) != 0, "payload 1473 refused");
	for (i = 0; i < RTE_DIM(sizes); i++) {
		s.payload = sizes[i];
		CHECK(uf_gen_tmpl_build(&t, &s) == 0, "build %u", sizes[i]);
		for (j = 0; j < RTE_DIM(seqs); j++) {
			for (flow = 0; flow < 3; flow++) {
				memset(f, 0xaa, sizeof(f));
				uf_gen_write(f, &t, seqs[j], flow * 1000);
				check_frame(f, t.frame_len, &s, seqs[j], flow * 1000);
			}
		}
		/* a run of consecutive sequences: every carry of the incremental sum */
		for (j = 0; j < 70000; j += 7) {
			uf_gen_write(f, &t, j, (uint16_t)(j % 5));
			check_frame(f, t.frame_len, &s, j, (uint16_t)(j % 5));
		}
	}
	/* a flow whose source port wraps the 16-bit sum, and source/destination extremes */
	s.sport = 65535;
	s.src_ip = inet_addr("255.255.255.254");
	s.dst_ip = inet_addr("0.0.0.1");
	s.dport = 65535;
	s.payload = 32;
	CHECK(uf_gen_tmpl_build(&t, &s) == 0, "build extremes");
	for (j = 0; j < 1000; j++) {
		uf_gen_write(f, &t, j * 0x10001ull, 0);
		check_frame(f, t.frame_len, &s, j * 0x10001ull, 0);
	}
}

/* ---- sequence tracker against a naive set ---- */

static uint64_t rng = 88172645463325252ull;

static uint64_t
xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static struct uf_seqtrack *
mk(unsigned int log2)
{
	struct uf_seqtrack *t = malloc(sizeof(*t));
	uint64_t *bits = aligned_alloc(64,
				       uf_seqtrack_bytes(log2) < 64 ? 64 : uf_seqtrack_bytes(log2));

	uf_seqtrack_init(t, bits, log2);
	return t;
}

static void
rm(struct uf_seqtrack *t)
{
	free(t->bits);
	free(t);
}

static void
test_seqtrack_basic(void)
{
	struct uf_seqtrack *t = mk(10);
	struct uf_seq_expect e = { 0 };
	uint64_t s;

	CHECK(uf_seqtrack_lost(t, NULL) == -1, "nothing arrived: unknown");
	e.has_first = e.has_last = true;
	e.first = 0;
	e.last = 9;
	CHECK(uf_seqtrack_lost(t, &e) == 10, "nothing of 0..9 arrived: all 10 lost");
	e.has_last = false;
	CHECK(uf_seqtrack_lost(t, &e) == -1, "only the first expected: still unknown");

	for (s = 100; s < 200; s++)
		uf_seqtrack_add(t, s);
	CHECK(t->first == 100 && t->min == 100 && t->max == 199, "span");
	CHECK(uf_seqtrack_lost(t, NULL) == 0 && t->distinct == 100, "in order");
	uf_seqtrack_add(t, 150);
	CHECK(t->duplicated == 1 && t->distinct == 100, "dup");
	uf_seqtrack_add(t, 205); /* 200..204 missing */
	CHECK(uf_seqtrack_lost(t, NULL) == 5, "gap of 5: %lld",
	      (long long)uf_seqtrack_lost(t, NULL));
	uf_seqtrack_add(t, 202);
	CHECK(t->reordered == 1 && uf_seqtrack_lost(t, NULL) == 4, "late arrival fills the gap");
	uf_seqtrack_add(t, 202);
	CHECK(t->duplicated == 2 && t->reordered == 1, "late duplicate is a duplicate");
	uf_seqtrack_add(t, 90); /* below the first: extends the span down */
	CHECK(t->min == 90 && uf_seqtrack_lost(t, NULL) == 4 + 9, "min extended");
	e.has_first = true;
	e.first = 0;
	e.has_last = true;
	e.last = 300;
	CHECK(uf_seqtrack_lost(t, &e) == 301 - (int64_t)t->distinct, "expectations widen");

	/* a jump beyond the window clears it; what fell out is beyond the window */
	uf_seqtrack_add(t, 205 + 5000);
	CHECK(uf_seqtrack_lost(t, NULL) == (int64_t)(5205 - 90 + 1 - t->distinct), "jump");
	uf_seqtrack_add(t, 5205 - 1024); /* exactly W behind: out */
	CHECK(t->beyond_window == 1 && !uf_seqtrack_exact(t), "beyond window");
	uf_seqtrack_add(t, 5205 - 1023); /* W-1 behind: in, new */
	CHECK(t->beyond_window == 1 && t->reordered == 3, "edge of window");
	uf_seqtrack_add(t, 5205 - 1023);
	CHECK(t->duplicated == 3, "dup at the window's edge");
	rm(t);
}

/* spans of 2^63 and more (fuzzing: the count came out negative, read as "unknown") */
static void
test_seqtrack_huge_span(void)
{
	struct uf_seqtrack *t = mk(10);
	struct uf_seq_expect e = { .has_first = true, .has_last = true };

	e.first = 0;
	e.last = UINT64_MAX; /* 2^64 numbers: the span wraps to 0 in 64 bits */
	CHECK(uf_seqtrack_lost(t, &e) == INT64_MAX, "all of 2^64 lost: %lld",
	      (long long)uf_seqtrack_lost(t, &e));
	e.last = (uint64_t)INT64_MAX - 1; /* 2^63 - 1 numbers: fits exactly */
	CHECK(uf_seqtrack_lost(t, &e) == INT64_MAX, "2^63 - 1 lost: %lld",
	      (long long)uf_seqtrack_lost(t, &e));
	e.last = (uint64_t)INT64_MAX - 2;
	CHECK(uf_seqtrack_lost(t, &e) == INT64_MAX - 1, "2^63 - 2 lost");

	uf_seqtrack_add(t, 0);
	uf_seqtrack_add(t, UINT64_C(1) << 63); /* 2^63 - 1 between them */
	CHECK(uf_seqtrack_lost(t, NULL) == INT64_MAX, "2^63 - 1 missing: %lld",
	      (long long)uf_seqtrack_lost(t, NULL));
	uf_seqtrack_add(t, UINT64_MAX);
	CHECK(uf_seqtrack_lost(t, NULL) == INT64_MAX, "2^64 - 3 missing saturates: %lld",
	      (long long)uf_seqtrack_lost(t, NULL));
	CHECK(uf_seqtrack_lost(t, &e) == INT64_MAX, "with expectations: %lld",
	      (long long)uf_seqtrack_lost(t, &e));
	rm(t);

	/* just below the edge stays exact */
	t = mk(10);
	uf_seqtrack_add(t, 5);
	uf_seqtrack_add(t, 5 + (uint64_t)INT64_MAX);
	CHECK(uf_seqtrack_lost(t, NULL) == INT64_MAX - 1, "2^63 - 2 missing: %lld",
	      (long long)uf_seqtrack_lost(t, NULL));
	rm(t);
}

static void
check_against_naive(unsigned int log2, uint64_t domain, int n, int jitter)
{
	struct uf_seqtrack *t = mk(log2);
	uint8_t *seen = calloc(domain + (uint64_t)jitter + 1, 1);
	uint64_t distinct = 0, dups = 0, reord = 0, lo = ~0ull, hi = 0, base = 0;
	int i;

	for (i = 0; i < n; i++) {
		uint64_t s;

		/* mostly in order with local reordering, drops and duplicates */
		base += xorshift() % 3 == 0 ? 0 : 1;
		s = base + xorshift() % (uint64_t)jitter;
		if (s > domain)
			break;
		if (seen[s]) {
			dups++;
		} else {
			seen[s] = 1;
			distinct++;
			if (distinct > 1 && s < hi)
				reord++;
		}
		if (s < lo)
			lo = s;
		if (s > hi)
			hi = s;
		uf_seqtrack_add(t, s);
	}
	CHECK(t->beyond_window == 0, "window too small for this test");
	CHECK(t->distinct == distinct, "distinct %llu vs %llu", (unsigned long long)t->distinct,
	      (unsigned long long)distinct);
	CHECK(t->duplicated == dups, "dups %llu vs %llu", (unsigned long long)t->duplicated,
	      (unsigned long long)dups);
	CHECK(t->reordered == reord, "reordered %llu vs %llu", (unsigned long long)t->reordered,
	      (unsigned long long)reord);
	CHECK(t->min == lo && t->max == hi, "min/max");
	CHECK(uf_seqtrack_lost(t, NULL) == (int64_t)(hi - lo + 1 - distinct), "lost");
	free(seen);
	rm(t);
}

static void
test_seqtrack_random(void)
{
	/* the window (64, 1024) is smaller than the run: it slides many times */
	check_against_naive(10, 3000000, 2000000, 200);
	check_against_naive(6, 300000, 200000, 40);
	check_against_naive(20, 3000000, 2000000, 5000);
}

static void
test_sinkcount(void)
{
	struct uf_sink_count c;
	uint8_t pl[8];
	uint64_t s, le;
	uint32_t i;

	CHECK(uf_sink_count_init(&c, 2, 10) == 0, "init");
	/* a placeholder for 0.0.0.0:6000 is claimed by the first datagram to port 6000 */
	uf_sink_dest_add(&c, 0, htons(6000));
	for (s = 0; s < 10; s++) {
		le = rte_cpu_to_le_64(s);
		memcpy(pl, &le, 8);
		uf_sink_account(&c, inet_addr("198.18.0.21"), htons(6000), inet_addr("198.18.0.2"),
				htons((uint16_t)(40000 + s % 2)), pl, 8, s);
	}
	CHECK(c.n_dests == 1 && c.dests[0].ip == inet_addr("198.18.0.21"), "claimed");
	CHECK(c.dests[0].received == 10 && uf_seqtrack_lost(&c.dests[0].st, NULL) == 0, "counts");
	CHECK(c.n_senders == 2, "two senders");
	uf_sink_account(&c, inet_addr("198.18.0.21"), htons(6001), 1, 1, pl, 3, 11);
	CHECK(c.n_dests == 2 && c.dests[1].short_payload == 1 && c.dests[1].st.any == false,
	      "short payload counted, not tracked");
	uf_sink_account(&c, inet_addr("198.18.0.21"), htons(6002), 1, 1, pl, 8, 12);
	CHECK(c.dest_overflow == 1, "third destination overflows");
	for (i = 0; i < UF_SINK_SENDER_SLOTS; i++)
		uf_sink_account(&c, inet_addr("198.18.0.21"), htons(6000), htonl(i + 100), 7, pl, 8,
				13);
	CHECK(c.n_senders == UF_SINK_SENDER_SLOTS / 4 * 3, "sender table fills to 3/4");
	CHECK(c.sender_overflow == UF_SINK_SENDER_SLOTS + 3 - UF_SINK_SENDER_SLOTS / 4 * 3,
	      "overflow %llu", (unsigned long long)c.sender_overflow);
	uf_sink_count_free(&c);
}

/* ---- the NetFlow v5 and stamped layouts: checksums from scratch, fields where they belong */

static uint64_t
rd_le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void
check_udp_sum(const uint8_t *f, const char *what, uint64_t seq)
{
	const uint8_t *ip = f + 14, *udp = f + 34;
	const uint16_t ulen = (uint16_t)(udp[4] << 8 | udp[5]);
	uint8_t pseudo[12];

	memcpy(pseudo, ip + 12, 8);
	pseudo[8] = 0;
	pseudo[9] = 17;
	pseudo[10] = (uint8_t)(ulen >> 8);
	pseudo[11] = (uint8_t)ulen;
	CHECK((udp[6] | udp[7]) != 0, "%s: UDP checksum 0 means none", what);
	CHECK(ref_sum(udp, ulen, ref_sum(pseudo, 12, 0)) == 0xffff, "%s: UDP checksum, seq %llu",
	      what, (unsigned long long)seq);
	CHECK(ref_sum(ip, 20, 0) == 0xffff, "%s: IPv4 header checksum", what);
}

static void
test_genpkt_layouts(void)
{
	static const uint64_t seqs[] = { 0, 1, 0xffff, 0x10000, 0xffffffff, 0x123456789ull, ~0ull };
	static const uint64_t stamps[] = { 0,      1,
					   0xffff, 0x8000000000000000ull,
					   ~0ull,  0x0123456789abcdefull };
	static struct uf_gen_tmpl t;
	static uint8_t f[UF_GEN_MAX_FRAME + 64];
	struct uf_gen_spec s = {
		.src_mac = { { 0x02, 0x18, 0, 0, 0, 0x02 } },
		.dst_mac = { { 0x02, 0x18, 0, 0, 0, 0x21 } },
		.sport = 40000,
		.dport = 2055,
	};
	const uint8_t *pl = f + 42;
	size_t i, j;
	int nf, st;

	s.src_ip = inet_addr("198.18.0.2");
	s.dst_ip = inet_addr("198.18.0.21");
	for (nf = 0; nf < 2; nf++) {
		for (st = 0; st < 2; st++) {
			const uint16_t seq_off = nf ? 24 : 0;

			s.netflow_v5 = nf;
			s.stamp = st;
			s.payload = (uint16_t)(uf_gen_min_payload(&s) - 1);
			CHECK(uf_gen_tmpl_build(&t, &s) != 0, "nf %d stamp %d: %u refused", nf, st,
			      s.payload);
			s.payload = (uint16_t)(uf_gen_min_payload(&s) + 3 * st + nf);
			CHECK(uf_gen_tmpl_build(&t, &s) == 0, "nf %d stamp %d build", nf, st);
			for (i = 0; i < RTE_DIM(seqs); i++) {
				for (j = 0; j < (st ? RTE_DIM(stamps) : 1); j++) {
					memset(f, 0xaa, sizeof(f));
					uf_gen_write(f, &t, seqs[i], (uint16_t)j);
					uf_gen_stamp(f, &t, stamps[j]);
					check_udp_sum(f, "layout", seqs[i]);
					CHECK(rd_le64(pl + seq_off) == seqs[i], "seq at %u",
					      seq_off);
					if (st)
						CHECK(rd_le64(pl + seq_off + 8) == stamps[j],
						      "stamp %zu", j);
					if (nf) {
						const uint32_t fs = (uint32_t)pl[16] << 24 |
								    (uint32_t)pl[17] << 16 |
								    (uint32_t)pl[18] << 8 | pl[19];

						CHECK(pl[0] == 0 && pl[1] == 5,
						      "NetFlow version 5");
						CHECK(pl[2] == 0 && pl[3] == 0, "count 0");
						CHECK(fs == (uint32_t)seqs[i], "flow_sequence");
					}
				}
			}
		}
	}
	/* the sink reads what the generator wrote, at the offset, with the stamp */
	{
		struct uf_sink_count c;
		const struct uf_sink_dest *d;

		s.netflow_v5 = true;
		s.stamp = true;
		s.payload = uf_gen_min_payload(&s);
		CHECK(uf_gen_tmpl_build(&t, &s) == 0, "build nf+stamp");
		CHECK(uf_sink_count_init(&c, 2, 10) == 0, "sink init");
		c.seq_off = 24;
		CHECK(uf_sink_count_lat(&c, 1e9) == 0, "lat init");
		for (i = 0; i < 100; i++) {
			uf_gen_write(f, &t, i, 0);
			uf_gen_stamp(f, &t, rte_rdtsc());
			uf_sink_account(&c, s.dst_ip, rte_cpu_to_be_16(s.dport), s.src_ip,
					rte_cpu_to_be_16(s.sport), pl, s.payload, i);
		}
		d = &c.dests[0];
		CHECK(c.n_dests == 1 && d->st.distinct == 100 && d->st.max == 99,
		      "sink at offset 24: distinct %llu", (unsigned long long)d->st.distinct);
		CHECK(d->lat->n == 100 && d->lat->negative == 0, "100 latencies, none negative");
		CHECK(c.unstalled->n == 100, "not stalled: all 100 in unstalled too (%llu)",
		      (unsigned long long)c.unstalled->n);
		/* a receive after a stall of the receiver's: in the destination's histogram,
		 * not in unstalled; the warm-up's in neither */
		c.gen_stalled = true;
		for (i = 100; i < 110; i++) {
			uf_gen_write(f, &t, i, 0);
			uf_gen_stamp(f, &t, rte_rdtsc());
			uf_sink_account(&c, s.dst_ip, rte_cpu_to_be_16(s.dport), s.src_ip,
					rte_cpu_to_be_16(s.sport), pl, s.payload, i);
		}
		c.gen_stalled = false;
		c.warm_seq = 1000;
		uf_gen_write(f, &t, 999, 0);
		uf_gen_stamp(f, &t, rte_rdtsc());
		uf_sink_account(&c, s.dst_ip, rte_cpu_to_be_16(s.dport), s.src_ip,
				rte_cpu_to_be_16(s.sport), pl, s.payload, 999);
		CHECK(d->lat->n == 110 && c.unstalled->n == 100 && c.warm->n == 1,
		      "stalled: lat %llu unstalled %llu warm %llu", (unsigned long long)d->lat->n,
		      (unsigned long long)c.unstalled->n, (unsigned long long)c.warm->n);
		uf_sink_count_free(&c);
	}
}

/* ---- latency histogram against a sorted array ---- */

static int
cmp_u64(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void
test_lathist(void)
{
	static struct uf_lat_hist h, m;
	static uint64_t v[20000];
	static const double qs[] = { 0.5, 0.9, 0.99, 0.999, 1.0 };
	unsigned int i, k;
	uint64_t x;

	/* bucket boundaries: monotone, and each value inside its bucket */
	for (x = 0; x < 5000000; x = x * 3 / 2 + 1) {
		const unsigned int b = uf_lat_bucket(x);

		CHECK(uf_lat_bucket_low(b) <= x &&
				      (b + 1 == UF_LAT_BUCKETS || x < uf_lat_bucket_low(b + 1)),
		      "value %llu in bucket %u", (unsigned long long)x, b);
	}
	CHECK(uf_lat_bucket(~0ull) == UF_LAT_BUCKETS - 1, "top bucket");
	for (x = 1; x < 4096; x++)
		CHECK(uf_lat_bucket(x) >= uf_lat_bucket(x - 1), "monotone at %llu",
		      (unsigned long long)x);
	/* a long-tailed sample: quantiles within the bucket width (1/32) of the exact ones */
	for (i = 0; i + 1 < RTE_DIM(v); i++) {
		x = xorshift();
		v[i] = 500 + (x % 1000) + (i % 100 == 0 ? (x >> 20) % 200000 : 0);
		uf_lat_add(i & 1 ? &h : &m, 1000, 1000 + v[i]);
	}
	uf_lat_add(&h, 10, 5); /* a stamp from the future: counted, as 0 */
	v[RTE_DIM(v) - 1] = 0;
	uf_lat_merge(&h, &m);
	qsort(v, RTE_DIM(v), sizeof(v[0]), cmp_u64);
	CHECK(h.n == RTE_DIM(v) && h.negative == 1, "n %llu negative %llu", (unsigned long long)h.n,
	      (unsigned long long)h.negative);
	CHECK(h.min == 0 && h.max == v[RTE_DIM(v) - 1], "min/max");
	for (k = 0; k < RTE_DIM(qs); k++) {
		size_t r = (size_t)(qs[k] * RTE_DIM(v) + 0.999999);
		const uint64_t exact = v[r == 0 ? 0 : r - 1], got = uf_lat_quantile(&h, qs[k]);
		const double err = exact > 0 ? ((double)got - (double)exact) / (double)exact : 0;

		CHECK(err < 0.035 && err > -0.035, "q %.3f: %llu vs exact %llu", qs[k],
		      (unsigned long long)got, (unsigned long long)exact);
	}
}

int
main(void)
{
	test_genpkt();
	test_seqtrack_basic();
	test_seqtrack_huge_span();
	test_seqtrack_random();
	test_sinkcount();
	test_genpkt_layouts();
	test_lathist();
	printf("%d passed, %d failed\n", checks - failures, failures);
	return failures != 0;
}
