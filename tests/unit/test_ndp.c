/* SPDX-License-Identifier: BSD-3-Clause
 * lib/neigh/uf_ndp: Neighbor Solicitation and Advertisement built and parsed (round trips),
 * each check of RFC 4861 7.1.1/7.1.2 failing with its own reason, and ICMPv6 echo replies.
 *
 * Checksums are verified and re-made here from scratch (RFC 1071 over big-endian words with
 * the IPv6 pseudo-header, uf_test.h), never with the code under test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uf_ndp.h"
#include "uf_pkt6.h"
#include "uf_test.h"

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static const struct rte_ether_addr our_mac = { { 0x02, 0, 0, 0, 0, 0x01 } };
static const struct rte_ether_addr peer_mac = { { 0x02, 0, 0, 0, 0, 0x02 } };

#define ICMP 54 /* the ICMPv6 message's offset in the frame */

/* the ones-complement sum over pseudo-header and message (the field included) */
static uint16_t
ref_sum(const uint8_t *f)
{
	const uint8_t *ip = f + 14;
	const int plen = uf_t_get16(ip + 4);
	uint32_t s = 0;

	s = uf_t_sum16(s, ip + 8, 32);
	s += (uint32_t)plen + 58;
	s = uf_t_sum16(s, f + ICMP, (size_t)plen);
	return uf_t_fold(s);
}

static bool
ref_ok(const uint8_t *f)
{
	return ref_sum(f) == 0xffff;
}

/* re-make the checksum after the test changed the frame */
static void
ref_fix(uint8_t *f)
{
	put16(f + ICMP + 2, 0);
	put16(f + ICMP + 2, (uint16_t)~ref_sum(f));
}

static const char *
err_name(enum uf_ndp_err e)
{
	return e < UF_NDP_ERR_MAX ? uf_ndp_err_names[e] : "?";
}

#define CHECK_NDP(got, want)                                                                  \
	do {                                                                                  \
		enum uf_ndp_err g__ = (got), w__ = (want);                                    \
		CHECK(g__ == w__, "%s: got %s, want %s", #got, err_name(g__), err_name(w__)); \
	} while (0)

static void
test_ns_resolve_round_trip(void)
{
	struct uf_ip6 src = ip6_of("2001:db8::10"), tgt = ip6_of("2001:db8::abcd:1234");
	struct uf_ndp_info n;
	uint8_t f[128];
	uint16_t len;

	memset(f, 0xee, sizeof(f));
	len = uf_ndp_ns_build(f, &our_mac, &src, &tgt, NULL, NULL);
	CHECK_EQ(len, UF_NDP_FRAME_LEN);
	CHECK_EQ(len, 86);
	/* to the solicited-node group ff02::1:ffcd:1234 at 33:33:ff:cd:12:34 */
	CHECK_MEM(f, ((const uint8_t[]){ 0x33, 0x33, 0xff, 0xcd, 0x12, 0x34 }), 6);
	CHECK_MEM(f + 6, our_mac.addr_bytes, 6);
	CHECK_EQ(uf_t_get16(f + 12), 0x86dd);
	CHECK_EQ(f[14], 0x60);
	CHECK_EQ(uf_t_get16(f + 18), 32);
	CHECK_EQ(f[20], 58);
	CHECK_EQ(f[21], 255);
	CHECK_MEM(f + 22, src.b, 16);
	CHECK_MEM(f + 38, ip6_of("ff02::1:ffcd:1234").b, 16);
	CHECK_EQ(f[ICMP], 135);
	CHECK_EQ(f[ICMP + 1], 0);
	CHECK_MEM(f + ICMP + 8, tgt.b, 16);
	CHECK_EQ(f[ICMP + 24], 1); /* SLLA */
	CHECK_EQ(f[ICMP + 25], 1);
	CHECK_MEM(f + ICMP + 26, our_mac.addr_bytes, 6);
	CHECK(ref_ok(f), "the checksum verifies");

	CHECK_NDP(uf_ndp_parse(f, len, &n), UF_NDP_OK);
	CHECK_EQ(n.type, UF_ICMP6_NS);
	CHECK_MEM(n.src.b, src.b, 16);
	CHECK_MEM(n.target.b, tgt.b, 16);
	CHECK(n.has_lla, "SLLA found");
	CHECK_MEM(n.lla.addr_bytes, our_mac.addr_bytes, 6);
	CHECK_MEM(n.eth_src.addr_bytes, our_mac.addr_bytes, 6);
	/* Ethernet padding after the message does not matter */
	CHECK_NDP(uf_ndp_parse(f, len + 10, &n), UF_NDP_OK);
}

static void
test_ns_probe_and_dad(void)
{
	struct uf_ip6 src = ip6_of("fe80::1"), tgt = ip6_of("fe80::2"), zero;
	struct uf_ndp_info n;
	uint8_t f[128];
	uint16_t len;

	/* a unicast probe of a known neighbour */
	len = uf_ndp_ns_build(f, &our_mac, &src, &tgt, &tgt, &peer_mac);
	CHECK_MEM(f, peer_mac.addr_bytes, 6);
	CHECK_MEM(f + 38, tgt.b, 16);
	CHECK(ref_ok(f), "verifies");
	CHECK_NDP(uf_ndp_parse(f, len, &n), UF_NDP_OK);
	CHECK_MEM(n.dst.b, tgt.b, 16);

	/* duplicate address detection: from ::, no SLLA */
	memset(zero.b, 0, 16);
	len = uf_ndp_ns_build(f, &our_mac, &zero, &tgt, NULL, NULL);
	CHECK_EQ(len, 78);
	CHECK_EQ(uf_t_get16(f + 18), 24);
	CHECK(ref_ok(f), "verifies");
	CHECK_NDP(uf_ndp_parse(f, len, &n), UF_NDP_OK);
	CHECK(!n.has_lla, "no SLLA");
	CHECK(uf_ip6_is_unspec(&n.src), "from ::");
}

static void
test_na_round_trip(void)
{
	struct uf_ip6 src = ip6_of("2001:db8::10"), dst = ip6_of("2001:db8::77"), all;
	struct uf_ndp_info n;
	uint8_t f[128];
	uint16_t len;
	struct rte_ether_addr all_mac;

	len = uf_ndp_na_build(f, &our_mac, &src, &dst, &peer_mac, &src,
			      UF_NA_SOLICITED | UF_NA_OVERRIDE);
	CHECK_EQ(len, 86);
	CHECK_MEM(f, peer_mac.addr_bytes, 6);
	CHECK_EQ(f[21], 255);
	CHECK_EQ(f[ICMP], 136);
	CHECK_EQ(f[ICMP + 4], 0x60);
	CHECK_EQ(f[ICMP + 24], 2); /* TLLA */
	CHECK_MEM(f + ICMP + 26, our_mac.addr_bytes, 6);
	CHECK(ref_ok(f), "verifies");
	CHECK_NDP(uf_ndp_parse(f, len, &n), UF_NDP_OK);
	CHECK_EQ(n.type, UF_ICMP6_NA);
	CHECK_EQ(n.flags, UF_NA_SOLICITED | UF_NA_OVERRIDE);
	CHECK(n.has_lla, "TLLA found");
	CHECK_MEM(n.lla.addr_bytes, our_mac.addr_bytes, 6);
	CHECK_MEM(n.target.b, src.b, 16);

	/* unsolicited, to all nodes: Override only */
	uf_ip6_all_nodes(&all);
	uf_ip6_mcast_mac(&all, &all_mac);
	CHECK_MEM(all_mac.addr_bytes, ((const uint8_t[]){ 0x33, 0x33, 0, 0, 0, 1 }), 6);
	len = uf_ndp_na_build(f, &our_mac, &src, &all, &all_mac, &src, UF_NA_OVERRIDE);
	CHECK(ref_ok(f), "verifies");
	CHECK_NDP(uf_ndp_parse(f, len, &n), UF_NDP_OK);
	CHECK_EQ(n.flags, UF_NA_OVERRIDE);
	/* the reserved bits are not flags */
	f[ICMP + 4] |= 0x1f;
	f[ICMP + 7] = 0xff;
	ref_fix(f);
	CHECK_NDP(uf_ndp_parse(f, len, &n), UF_NDP_OK);
	CHECK_EQ(n.flags, UF_NA_OVERRIDE);
}

/* each RFC 4861 check fails with its own reason */
static void
test_ndp_invalid(void)
{
	struct uf_ip6 src = ip6_of("2001:db8::10"), tgt = ip6_of("2001:db8::20"), zero, all;
	struct rte_ether_addr all_mac;
	struct uf_ndp_info n;
	uint8_t ns[128], na[128], f[128];
	uint16_t ns_len, na_len;

	memset(zero.b, 0, 16);
	uf_ip6_all_nodes(&all);
	uf_ip6_mcast_mac(&all, &all_mac);
	ns_len = uf_ndp_ns_build(ns, &our_mac, &src, &tgt, NULL, NULL);
	na_len = uf_ndp_na_build(na, &our_mac, &src, &tgt, &peer_mac, &src, UF_NA_SOLICITED);

	CHECK_NDP(uf_ndp_parse(ns, 14 + 40 + 3, &n), UF_NDP_NOT_ICMP6);
	CHECK_NDP(uf_ndp_parse(ns, ns_len - 1, &n), UF_NDP_NOT_ICMP6);
	memcpy(f, ns, sizeof(f));
	f[20] = 17;
	CHECK_NDP(uf_ndp_parse(f, ns_len, &n), UF_NDP_NOT_ICMP6);
	memcpy(f, ns, sizeof(f));
	f[20] = 0; /* hop-by-hop first: not walked */
	CHECK_NDP(uf_ndp_parse(f, ns_len, &n), UF_NDP_NOT_ICMP6);
	memcpy(f, ns, sizeof(f));
	put16(f + 12, 0x0800);
	CHECK_NDP(uf_ndp_parse(f, ns_len, &n), UF_NDP_NOT_ICMP6);

	memcpy(f, ns, sizeof(f));
	f[ICMP] = 134; /* a router advertisement */
	ref_fix(f);
	CHECK_NDP(uf_ndp_parse(f, ns_len, &n), UF_NDP_TYPE);

	memcpy(f, ns, sizeof(f));
	f[21] = 254;
	CHECK_NDP(uf_ndp_parse(f, ns_len, &n), UF_NDP_HOP_LIMIT);
	memcpy(f, na, sizeof(f));
	f[21] = 64;
	CHECK_NDP(uf_ndp_parse(f, na_len, &n), UF_NDP_HOP_LIMIT);

	memcpy(f, ns, sizeof(f));
	f[ICMP + 3] ^= 0x01;
	CHECK_NDP(uf_ndp_parse(f, ns_len, &n), UF_NDP_CKSUM);
	memcpy(f, na, sizeof(f));
	f[ICMP + 30] ^= 0x80; /* the TLLA's MAC */
	CHECK_NDP(uf_ndp_parse(f, na_len, &n), UF_NDP_CKSUM);

	memcpy(f, ns, sizeof(f));
	f[ICMP + 1] = 1;
	ref_fix(f);
	CHECK_NDP(uf_ndp_parse(f, ns_len, &n), UF_NDP_CODE);

	/* 20 bytes of message: no room for the target */
	memcpy(f, na, sizeof(f));
	put16(f + 18, 20);
	ref_fix(f);
	CHECK_NDP(uf_ndp_parse(f, 14 + 40 + 20, &n), UF_NDP_LEN);

	memcpy(f, ns, sizeof(f));
	memcpy(f + ICMP + 8, all.b, 16);
	ref_fix(f);
	CHECK_NDP(uf_ndp_parse(f, ns_len, &n), UF_NDP_TARGET_MCAST);
	memcpy(f, na, sizeof(f));
	memcpy(f + ICMP + 8, all.b, 16);
	ref_fix(f);
	CHECK_NDP(uf_ndp_parse(f, na_len, &n), UF_NDP_TARGET_MCAST);

	memcpy(f, ns, sizeof(f));
	f[ICMP + 25] = 0; /* option length 0 */
	ref_fix(f);
	CHECK_NDP(uf_ndp_parse(f, ns_len, &n), UF_NDP_OPT_LEN);
	memcpy(f, na, sizeof(f));
	f[ICMP + 25] = 2; /* 16 bytes, 8 there */
	ref_fix(f);
	CHECK_NDP(uf_ndp_parse(f, na_len, &n), UF_NDP_OPT_LEN);
	memcpy(f, na, sizeof(f));
	put16(f + 18, 33); /* one byte after the option: no room for another's header */
	f[ICMP + 32] = 1;
	ref_fix(f);
	CHECK_NDP(uf_ndp_parse(f, na_len + 1, &n), UF_NDP_OPT_LEN);

	/* an unknown option is skipped; a second of its own kind too */
	memcpy(f, na, sizeof(f));
	put16(f + 18, 40);
	f[ICMP + 24] = 14;
	f[ICMP + 32] = 2;
	f[ICMP + 33] = 1;
	memcpy(f + ICMP + 34, peer_mac.addr_bytes, 6);
	ref_fix(f);
	CHECK_NDP(uf_ndp_parse(f, na_len + 8, &n), UF_NDP_OK);
	CHECK(n.has_lla, "the TLLA after an unknown option");
	CHECK_MEM(n.lla.addr_bytes, peer_mac.addr_bytes, 6);

	/* a group or zero MAC in the TLLA (NA) or SLLA (NS), or as the Ethernet source: a
	 * neighbour is never there, an answer never goes there */
	{
		static const uint8_t bad[][6] = { { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
						  { 0, 0, 0, 0, 0, 0 },
						  { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 },
						  { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 } };
		unsigned int b;

		for (b = 0; b < RTE_DIM(bad); b++) {
			memcpy(f, na, sizeof(f));
			memcpy(f + ICMP + 26, bad[b], 6);
			ref_fix(f);
			CHECK_NDP(uf_ndp_parse(f, na_len, &n), UF_NDP_LLADDR);
			memcpy(f, ns, sizeof(f));
			memcpy(f + ICMP + 26, bad[b], 6);
			ref_fix(f);
			CHECK_NDP(uf_ndp_parse(f, ns_len, &n), UF_NDP_LLADDR);
			memcpy(f, ns, sizeof(f));
			memcpy(f + 6, bad[b], 6);
			CHECK_NDP(uf_ndp_parse(f, ns_len, &n), UF_NDP_LLADDR);
		}
	}

	/* DAD: from ::, to the solicited-node group, no SLLA */
	uf_ndp_ns_build(f, &our_mac, &zero, &tgt, &all, &all_mac);
	CHECK_NDP(uf_ndp_parse(f, 78, &n), UF_NDP_DAD_DST);
	uf_ndp_ns_build(f, &our_mac, &zero, &tgt, &tgt, &peer_mac);
	CHECK_NDP(uf_ndp_parse(f, 78, &n), UF_NDP_DAD_DST);
	memcpy(f, ns, sizeof(f));
	memset(f + 22, 0, 16);
	ref_fix(f);
	CHECK_NDP(uf_ndp_parse(f, ns_len, &n), UF_NDP_DAD_SLLA);

	uf_ndp_na_build(f, &our_mac, &src, &all, &all_mac, &src, UF_NA_SOLICITED);
	CHECK_NDP(uf_ndp_parse(f, 86, &n), UF_NDP_SOLICITED_MCAST);
	uf_ndp_na_build(f, &our_mac, &src, &all, &all_mac, &src, UF_NA_OVERRIDE);
	CHECK_NDP(uf_ndp_parse(f, 86, &n), UF_NDP_OK);

	/* every reason has a name and a description, the names distinct */
	{
		int i, j;

		for (i = 0; i < UF_NDP_ERR_MAX; i++) {
			CHECK(uf_ndp_err_names[i] != NULL && uf_ndp_err_descr[i] != NULL &&
					      uf_ndp_err_names[i][0] != '\0',
			      "reason %d named", i);
			for (j = 0; j < i; j++)
				CHECK(strcmp(uf_ndp_err_names[i], uf_ndp_err_names[j]) != 0,
				      "%s twice", uf_ndp_err_names[i]);
		}
	}
}

/* an echo request from SRC (at peer_mac) to DST, ID 0x1234, seq 7, dlen data bytes */
static uint16_t
mk_echo(uint8_t *f, const struct uf_ip6 *src, const struct uf_ip6 *dst, int dlen)
{
	int i;

	memset(f, 0, 256);
	memcpy(f, our_mac.addr_bytes, 6);
	memcpy(f + 6, peer_mac.addr_bytes, 6);
	put16(f + 12, 0x86dd);
	f[14] = 0x60;
	put16(f + 18, (uint16_t)(8 + dlen));
	f[20] = 58;
	f[21] = 64;
	memcpy(f + 22, src->b, 16);
	memcpy(f + 38, dst->b, 16);
	f[ICMP] = 128;
	put16(f + ICMP + 4, 0x1234);
	put16(f + ICMP + 6, 7);
	for (i = 0; i < dlen; i++)
		f[ICMP + 8 + i] = (uint8_t)(i * 7 + 3);
	ref_fix(f);
	return (uint16_t)(ICMP + 8 + dlen);
}

static void
test_echo_reply(void)
{
	struct uf_ip6 peer = ip6_of("2001:db8::77"), us = ip6_of("2001:db8::10"), all;
	uint8_t f[256], req[256];
	uint16_t len;
	int dlen;

	uf_ip6_all_nodes(&all);
	for (dlen = 0; dlen < 40; dlen += 13) {
		len = mk_echo(f, &peer, &us, dlen);
		memcpy(req, f, sizeof(req));
		CHECK_NDP(uf_icmp6_echo_reply(f, len, &our_mac, &us), UF_NDP_OK);
		CHECK_MEM(f, peer_mac.addr_bytes, 6);
		CHECK_MEM(f + 6, our_mac.addr_bytes, 6);
		CHECK_MEM(f + 22, us.b, 16);
		CHECK_MEM(f + 38, peer.b, 16);
		CHECK_EQ(f[21], 64);
		CHECK_EQ(f[ICMP], 129);
		CHECK_EQ(f[ICMP + 1], 0);
		CHECK_MEM(f + ICMP + 4, req + ICMP + 4, (size_t)(4 + dlen)); /* id, seq, data */
		CHECK(ref_ok(f), "the reply verifies (%d data bytes)", dlen);
	}

	/* to ff02::1: answered from our address */
	len = mk_echo(f, &peer, &all, 5);
	CHECK_NDP(uf_icmp6_echo_reply(f, len, &our_mac, &us), UF_NDP_OK);
	CHECK_MEM(f + 22, us.b, 16);
	CHECK(ref_ok(f), "verifies");

	len = mk_echo(f, &peer, &us, 5);
	f[ICMP + 9] ^= 1;
	CHECK_NDP(uf_icmp6_echo_reply(f, len, &our_mac, &us), UF_NDP_CKSUM);
	len = mk_echo(f, &peer, &us, 5);
	f[ICMP + 1] = 3;
	ref_fix(f);
	CHECK_NDP(uf_icmp6_echo_reply(f, len, &our_mac, &us), UF_NDP_CODE);
	len = mk_echo(f, &peer, &us, 5);
	f[ICMP] = 129;
	ref_fix(f);
	CHECK_NDP(uf_icmp6_echo_reply(f, len, &our_mac, &us), UF_NDP_TYPE);
	len = mk_echo(f, &peer, &us, 0);
	put16(f + 18, 4);
	ref_fix(f);
	CHECK_NDP(uf_icmp6_echo_reply(f, len, &our_mac, &us), UF_NDP_LEN);
	len = mk_echo(f, &all, &us, 5);
	CHECK_NDP(uf_icmp6_echo_reply(f, len, &our_mac, &us), UF_NDP_SENDER);
	len = mk_echo(f, &peer, &us, 5);
	f[6] = 0x01; /* a group sender MAC */
	CHECK_NDP(uf_icmp6_echo_reply(f, len, &our_mac, &us), UF_NDP_SENDER);
	len = mk_echo(f, &peer, &us, 5);
	CHECK_NDP(uf_icmp6_echo_reply(f, len - 1, &our_mac, &us), UF_NDP_NOT_ICMP6);
}

/* uf_icmp6_cksum against the reference over random messages of every length parity */
static void
test_icmp6_cksum_random(void)
{
	uint32_t st = 99;
	uint8_t f[600];
	int i, j;

	for (i = 0; i < 300; i++) {
		const int plen = 4 + i % 250;
		uint16_t ck;

		memset(f, 0, sizeof(f));
		for (j = 14; j < ICMP + plen; j++) {
			st = st * 1103515245 + 12345;
			f[j] = (uint8_t)(st >> 16);
		}
		f[14] = 0x60;
		put16(f + 18, (uint16_t)plen);
		f[20] = 58;
		ck = uf_icmp6_cksum(f + 22, f + 38, f + ICMP, (uint32_t)plen);
		memcpy(f + ICMP + 2, &ck, 2);
		CHECK(ref_ok(f), "length %d verifies", plen);
	}
}

int
main(void)
{
	RUN(test_ns_resolve_round_trip);
	RUN(test_ns_probe_and_dad);
	RUN(test_na_round_trip);
	RUN(test_ndp_invalid);
	RUN(test_echo_reply);
	RUN(test_icmp6_cksum_random);
	return uf_t_summary();
}
