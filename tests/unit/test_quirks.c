/* SPDX-License-Identifier: BSD-3-Clause
 * pmd_quirks: row lookup, the port plan decided from a row and a faked dev_info, and the
 * environment checks that read files (PAT memtype list, ice DDP firmware tree).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_mbuf_core.h>

#include "uf_quirks.h"
#include "uf_test.h"

/* ---- lookup ---- */

static void
test_lookup(void)
{
	static const char *const names[] = { "net_ena",     "net_ice",    "net_i40e",
					     "net_ixgbe",   "net_iavf",   "net_virtio",
					     "net_vmxnet3", "net_af_xdp", "net_af_packet",
					     "net_tap",     "net_ring",   "net_null",
					     "net_pcap",    "net_memif" };
	const struct uf_quirk *tab, *q, *def;
	int n, i, j;

	tab = uf_quirk_table(&n);
	CHECK(n >= (int)RTE_DIM(names) + 2, "%d rows", n);
	def = &tab[n - 1];
	CHECK_STR(def->driver, "*");

	for (i = 0; i < (int)RTE_DIM(names); i++) {
		q = uf_quirk_lookup(names[i]);
		CHECK(q != NULL && strcmp(q->driver, names[i]) == 0, "%s: got row %s", names[i],
		      q != NULL ? q->driver : "NULL");
		CHECK(q->source != NULL && strlen(q->source) > 20, "%s: the row says where from",
		      names[i]);
	}
	/* every row of the table is found by its own name (the default by none) */
	for (i = 0; i < n - 1; i++) {
		q = uf_quirk_lookup(tab[i].driver);
		CHECK(q == &tab[i], "row %d (%s) is found by its name", i, tab[i].driver);
		for (j = 0; j < i; j++)
			CHECK(strcmp(tab[i].driver, tab[j].driver) != 0, "row %s listed twice",
			      tab[i].driver);
	}
	/* mlx5 by prefix: the bus-specific driver names */
	q = uf_quirk_lookup("mlx5_pci");
	CHECK(q != def && q->prefix && strcmp(q->driver, "mlx5") == 0, "mlx5_pci: got %s",
	      q->driver);
	CHECK_STR(q->kernel_driver, "mlx5_core");
	CHECK(uf_quirk_lookup("mlx5_auxiliary") == q, "mlx5_auxiliary: the mlx5 row");
	/* exact names are exact */
	CHECK(uf_quirk_lookup("net_bnxt") == def, "unknown driver: default row");
	CHECK(uf_quirk_lookup("net_ena2") == def, "net_ena2 is not net_ena");
	CHECK(uf_quirk_lookup("net_en") == def, "net_en is not net_ena");
	CHECK(uf_quirk_lookup("") == def, "empty name: default row");
	CHECK(uf_quirk_lookup(NULL) == def, "NULL: default row");
	CHECK(uf_quirk_lookup("*") == def, "\"*\" is the default row");

	/* vdev strings before EAL: instance number and devargs off, eth_ aliases to net_ */
	CHECK(uf_quirk_lookup_vdev("net_af_xdp0,iface=eth1,queue_count=2") ==
			      uf_quirk_lookup("net_af_xdp"),
	      "net_af_xdp0,...: the af_xdp row");
	CHECK_EQ(uf_quirk_lookup_vdev("net_af_xdp0,iface=eth1")->kernel_sock, UF_KSOCK_XSK);
	CHECK_EQ(uf_quirk_lookup_vdev("eth_af_packet12,iface=v0")->kernel_sock, UF_KSOCK_PACKET);
	CHECK_EQ(uf_quirk_lookup_vdev("net_af_packet")->kernel_sock, UF_KSOCK_PACKET);
	CHECK(uf_quirk_lookup_vdev("net_null0,no-rx=1") == uf_quirk_lookup("net_null"),
	      "net_null0: the null row");
	CHECK_EQ(uf_quirk_lookup_vdev("net_null0")->kernel_sock, UF_KSOCK_NONE);
	CHECK_EQ(uf_quirk_lookup_vdev("net_ring0")->kernel_sock, UF_KSOCK_NONE);
	CHECK(uf_quirk_lookup_vdev("net_bonding0,mode=1") == def, "unknown vdev: default row");
	CHECK(uf_quirk_lookup_vdev("") == def, "empty: default row");
	/* the default row is the conservative one */
	CHECK(def->sw_pad60 && !def->multiseg_tx_ok && !def->fast_free_ok && !def->hw_cksum_ok &&
			      !def->rx_cksum_ok,
	      "the default row pads and trusts nothing");
}

/* ---- uf_quirk_decide ---- */

static struct rte_eth_dev_info
dev_info(const char *driver, uint16_t max_q)
{
	struct rte_eth_dev_info di;

	memset(&di, 0, sizeof(di));
	di.driver_name = driver;
	di.max_rx_queues = max_q;
	di.max_tx_queues = max_q;
	di.min_mtu = 68;
	di.max_mtu = 9702;
	di.rx_desc_lim.nb_max = 4096;
	di.rx_desc_lim.nb_min = 64;
	di.rx_desc_lim.nb_align = 32;
	di.tx_desc_lim = di.rx_desc_lim;
	di.flow_type_rss_offloads = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_FRAG_IPV4 |
				    RTE_ETH_RSS_NONFRAG_IPV4_TCP | RTE_ETH_RSS_NONFRAG_IPV4_UDP |
				    RTE_ETH_RSS_NONFRAG_IPV4_OTHER;
	di.hash_key_size = 52;
	di.rx_offload_capa = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM |
			     RTE_ETH_RX_OFFLOAD_TCP_CKSUM | RTE_ETH_RX_OFFLOAD_SCATTER;
	di.tx_offload_capa = RTE_ETH_TX_OFFLOAD_MULTI_SEGS | RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE |
			     RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
	return di;
}

static struct uf_port_req
req(uint16_t nq)
{
	struct uf_port_req r = { .nb_queues = nq,
				 .rx_desc = 1024,
				 .tx_desc = 1024,
				 .mtu = 0,
				 .want_chain = false,
				 .single_pool_tx = true };

	return r;
}

static int
decide(const char *driver, const struct rte_eth_dev_info *di, const struct uf_port_req *r,
       struct uf_port_plan *out, char *why, size_t len)
{
	why[0] = '\0';
	memset(out, 0xa5, sizeof(*out));
	return uf_quirk_decide(uf_quirk_lookup(driver), di, r, out, why, len);
}

/* what a whole frame of this MTU needs in one RX buffer (VLAN tags and CRC included) */
static uint32_t
frame_room(uint16_t mtu)
{
	return RTE_PKTMBUF_HEADROOM + mtu + 14 + 4 + 8;
}

static void
test_decide_ena(void)
{
	struct rte_eth_dev_info di = dev_info("net_ena", 8);
	struct uf_port_req r = req(4);
	struct uf_port_plan p;
	char why[256];

	di.rx_desc_lim.nb_align = 1;
	di.tx_desc_lim.nb_align = 1;
	di.rx_desc_lim.nb_min = 128;
	di.tx_desc_lim.nb_min = 128;
	di.rx_desc_lim.nb_max = 8192;
	di.tx_desc_lim.nb_max = 1024;
	di.max_mtu = 9216;
	di.flow_type_rss_offloads = 0xc30; /* ENA: fixed */
	r.rx_desc = 1000;
	r.tx_desc = 4096;
	CHECK_EQ(decide("net_ena", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.rx_desc, 512);      /* a power of 2, rounded down */
	CHECK_EQ(p.tx_desc, 1024);     /* clamped to nb_max */
	CHECK_EQ(p.tx_syscall, false); /* a NIC's TX is a doorbell, no system call */
	CHECK_EQ(p.mtu_path, UF_MTU_SET_MTU);
	CHECK_EQ(p.mtu, 1500);
	CHECK_EQ(p.pad_to, 60);
	CHECK(p.data_room >= RTE_PKTMBUF_HEADROOM + 1400, "data room %u >= headroom + 1400",
	      p.data_room);
	CHECK(p.data_room >= frame_room(1500), "data room %u holds a whole frame", p.data_room);
	CHECK_EQ(p.rss, true);
	CHECK_EQ(p.rss_hf, 0xc30); /* what the device hashes on, since it cannot be changed */
	CHECK_EQ(p.rss_hf_trimmed, 0);
	CHECK_EQ(p.try_flow, false);
	CHECK_EQ(p.chain_ok, false); /* the config produces no chain: MULTI_SEGS not asked */
	r.want_chain = true;
	CHECK_EQ(decide("net_ena", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.chain_ok, true); /* no vector TX path to lose: fanout auto chains */
	CHECK(p.tx_offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS, "MULTI_SEGS for chains");
	/* LLQ pushes up to 96 B (224 with large_llq_hdr): a chain that fits in the push leaves
	 * a zero-length descriptor (ena_tx_map_mbuf); such frames are copied */
	CHECK_EQ(p.chain_min_frame, 225);
	r.want_chain = false;

	/* a count below nb_min comes up to it, still a power of 2 */
	r.rx_desc = 100;
	r.tx_desc = 700;
	CHECK_EQ(decide("net_ena", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.rx_desc, 128);
	CHECK_EQ(p.tx_desc, 512);
	di.rx_desc_lim.nb_min = 100; /* not a power of 2 itself */
	r.rx_desc = 100;
	CHECK_EQ(decide("net_ena", &di, &r, &p, why, sizeof(why)), 0);
	CHECK(p.rx_desc >= 100 && rte_is_power_of_2(p.rx_desc), "rx_desc %u: >= nb_min, pow2",
	      p.rx_desc);
	/* jumbo */
	r.mtu = 9001;
	CHECK_EQ(decide("net_ena", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.mtu, 9001);
	CHECK(p.data_room >= frame_room(9001), "data room %u holds a 9001 frame", p.data_room);
}

static void
test_decide_ice(void)
{
	struct rte_eth_dev_info di = dev_info("net_ice", 64);
	struct uf_port_req r = req(2);
	struct uf_port_plan p;
	char why[256];

	CHECK_EQ(decide("net_ice", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.mtu_path, UF_MTU_SET_STOPPED);
	CHECK_EQ(p.pad_to, 0);
	CHECK_EQ(p.rss, true);
	CHECK_EQ(p.rss_hf, UF_RSS_HF_WANTED);
	CHECK_EQ(p.rss_hf_trimmed, 0);
	CHECK_EQ(p.rss_key_len, 52);
	CHECK_EQ(p.try_flow, true);
	CHECK_EQ(p.flow_isolate, false);
	CHECK_EQ(p.rx_offloads, RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM);

	/* safe mode (no DDP package): no RSS at all */
	di.flow_type_rss_offloads = 0;
	CHECK_EQ(decide("net_ice", &di, &r, &p, why, sizeof(why)), -EINVAL);
	CHECK_HAS(why, "safe mode");
	CHECK_HAS(why, "net_ice");
	r = req(1);
	CHECK_EQ(decide("net_ice", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.rss, false);
	CHECK_EQ(p.try_flow, false);
	/* another driver without RSS is told the same, without the ice hint */
	di.driver_name = "net_ixgbe";
	r = req(2);
	CHECK_EQ(decide("net_ixgbe", &di, &r, &p, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "safe mode") == NULL, "no ice hint for ixgbe: %s", why);
	CHECK_HAS(why, "one worker");
}

static void
test_decide_af_xdp(void)
{
	struct rte_eth_dev_info di = dev_info("net_af_xdp", 2);
	struct uf_port_req r = req(2);
	struct uf_port_plan p;
	char why[256];

	di.flow_type_rss_offloads = 0; /* the kernel spreads over the queues */
	di.rx_desc_lim.nb_align = 1;
	di.tx_desc_lim.nb_align = 1;
	r.want_chain = true;
	r.rx_desc = 1000;
	CHECK_EQ(decide("net_af_xdp", &di, &r, &p, why, sizeof(why)), 0);
	/* MULTI_SEGS in capa, but the row says af_xdp transmits only the first segment */
	CHECK_EQ(p.chain_ok, false);
	CHECK_EQ(p.tx_offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS, 0);
	CHECK_EQ(p.pad_to, 60);
	CHECK_EQ(p.rx_desc, 512);
	CHECK_EQ(p.rss, false);
	CHECK_EQ(p.mtu_path, UF_MTU_SET_MTU);
	/* every tx_burst is a kick (send): forward.flush_idle_us auto holds the idle flush */
	CHECK_EQ(p.tx_syscall, true);
	/* the queue count is the device string's: it must equal the workers */
	r = req(1);
	CHECK_EQ(decide("net_af_xdp", &di, &r, &p, why, sizeof(why)), -EINVAL);
	CHECK_HAS(why, "queue_count");
	r = req(3);
	CHECK_EQ(decide("net_af_xdp", &di, &r, &p, why, sizeof(why)), -EINVAL);
	CHECK_HAS(why, "queue_count");
}

static void
test_decide_af_packet(void)
{
	struct rte_eth_dev_info di = dev_info("net_af_packet", 4);
	struct uf_port_req r = req(2);
	struct uf_port_plan p;
	char why[256];

	di.flow_type_rss_offloads = 0;
	CHECK_EQ(decide("net_af_packet", &di, &r, &p, why, sizeof(why)), -EINVAL);
	CHECK_HAS(why, "qpairs");
	r = req(4);
	CHECK_EQ(decide("net_af_packet", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.pad_to, 60);
	CHECK_EQ(p.tx_syscall, true); /* sendto per tx_burst */
	/* the row caps the MTU at 1500 whatever dev_info says */
	r.mtu = 1500;
	CHECK_EQ(decide("net_af_packet", &di, &r, &p, why, sizeof(why)), 0);
	r.mtu = 1501;
	CHECK_EQ(decide("net_af_packet", &di, &r, &p, why, sizeof(why)), -EINVAL);
	CHECK_HAS(why, "MTU 1501");
}

static void
test_decide_ring(void)
{
	struct rte_eth_dev_info di = dev_info("net_ring", 4);
	struct uf_port_req r = req(1);
	struct uf_port_plan p;
	char why[256];

	di.max_mtu = 1500;
	r.mtu = 9000; /* no MTU concept: not checked */
	CHECK_EQ(decide("net_ring", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.mtu_path, UF_MTU_NA);
	CHECK_EQ(p.pad_to, 0);
	CHECK_EQ(p.tx_syscall, false); /* a ring: no kernel on the way */
	CHECK_EQ(p.chain_ok, false);   /* not asked for */
	CHECK_EQ(p.tx_offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS, 0);
	r.want_chain = true;
	CHECK_EQ(decide("net_ring", &di, &r, &p, why, sizeof(why)), 0);
	CHECK(p.tx_offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS, "MULTI_SEGS when chaining");
	CHECK_EQ(p.chain_ok, true);
	CHECK_EQ(p.chain_min_frame, 0);
	di.tx_offload_capa = 0;
	CHECK_EQ(decide("net_ring", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.chain_ok, false);
	CHECK_EQ(p.tx_offloads, 0);
}

/*
 * What fanout: auto picks per row (docs/benchmarks.md#copy-versus-chain has the table and the
 * measurements): chain (from chain_min_payload, 512 B by default, or chain_min_frame - 42
 * where higher) where the PMD transmits chains, chaining keeps its fastest TX path and the
 * device offers MULTI_SEGS (or the row knows it transmits chains without saying so); copy
 * everywhere else. Each row is decided with a faked dev_info, with and without MULTI_SEGS
 * in its capability.
 */
static void
test_decide_auto_rows(void)
{
	static const struct {
		const char *driver;
		bool chain;  /* auto chains, MULTI_SEGS offered */
		bool silent; /* and without it (the PMD transmits chains, advertises nothing) */
		bool forced; /* fanout: chain, MULTI_SEGS offered */
	} rows[] = {
		{ "net_ena", true, false, true },         { "net_ice", false, false, true },
		{ "net_i40e", false, false, true },       { "net_ixgbe", false, false, true },
		{ "mlx5_pci", true, false, true },        { "net_iavf", false, false, true },
		{ "net_ixgbe_vf", false, false, true },   { "net_virtio", true, false, true },
		{ "net_e1000_em", false, false, false },  { "net_vmxnet3", true, false, true },
		{ "net_af_xdp", false, false, false },    { "net_af_packet", true, false, true },
		{ "net_tap", true, false, true },         { "net_ring", true, false, true },
		{ "net_null", true, true, true },         { "net_pcap", false, false, false },
		{ "net_virtio_user", true, false, true }, { "net_vhost", true, false, true },
		{ "net_memif", true, false, true },       { "net_bnxt", false, false, false },
	};
	struct uf_port_plan p;
	char why[256];
	int i, n;

	uf_quirk_table(&n);
	CHECK_EQ((int)RTE_DIM(rows), n); /* every row, the default one (net_bnxt) last */
	for (i = 0; i < (int)RTE_DIM(rows); i++) {
		struct rte_eth_dev_info di = dev_info(rows[i].driver, 8);
		struct uf_port_req r = req(1);
		const struct uf_quirk *q = uf_quirk_lookup(rows[i].driver);

		di.max_mtu = 1500;
		r.mtu = 1500;
		r.want_chain = true;
		if (q->min_rx_data_room != 0 || q->queues_from_devargs)
			di.max_rx_queues = di.max_tx_queues = 1;
		CHECK_EQ(decide(rows[i].driver, &di, &r, &p, why, sizeof(why)), 0);
		CHECK(p.chain_ok == rows[i].chain, "%s: auto %s", rows[i].driver,
		      rows[i].chain ? "chains" : "copies");
		CHECK(!p.chain_ok || (p.tx_offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS),
		      "%s: MULTI_SEGS requested where offered and chained", rows[i].driver);
		CHECK(!p.chain_ok || !(p.tx_offloads & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE),
		      "%s: no fast free with chains", rows[i].driver);
		CHECK_EQ(p.chain_min_frame, q->chain_min_frame);
		/* the same device without MULTI_SEGS: only a silent row still chains, and asks
		 * for nothing (configure would refuse an offload outside the capability) */
		di.tx_offload_capa &= ~RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
		CHECK_EQ(decide(rows[i].driver, &di, &r, &p, why, sizeof(why)), 0);
		CHECK(p.chain_ok == rows[i].silent, "%s: without MULTI_SEGS", rows[i].driver);
		CHECK_EQ(p.tx_offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS, 0);
		/* fanout: chain: wherever the PMD transmits chains, at the price of its TX path */
		di.tx_offload_capa |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
		r.chain_forced = true;
		CHECK_EQ(decide(rows[i].driver, &di, &r, &p, why, sizeof(why)), 0);
		CHECK(p.chain_ok == rows[i].forced, "%s: fanout chain", rows[i].driver);
		/* a config that cannot produce a chain asks for nothing */
		r.chain_forced = false;
		r.want_chain = false;
		CHECK_EQ(decide(rows[i].driver, &di, &r, &p, why, sizeof(why)), 0);
		CHECK_EQ(p.chain_ok, false);
		CHECK_EQ(p.tx_offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS, 0);
	}
}

static void
test_decide_fast_free(void)
{
	struct rte_eth_dev_info di = dev_info("net_ice", 8);
	struct uf_port_req r = req(1);
	struct uf_port_plan p;
	char why[256];

	CHECK_EQ(decide("net_ice", &di, &r, &p, why, sizeof(why)), 0);
	CHECK(p.tx_offloads & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE, "fast free: all conditions hold");
	/* fanout auto on ice: MULTI_SEGS would cost the vector TX path and fast-free; the
	 * row says it is not worth it, so the port copies and keeps both */
	r.want_chain = true;
	CHECK_EQ(decide("net_ice", &di, &r, &p, why, sizeof(why)), 0);
	CHECK(p.tx_offloads & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE, "auto on ice keeps fast free");
	CHECK_EQ(p.tx_offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS, 0);
	CHECK_EQ(p.chain_ok, false);
	/* fanout: chain asks for it anyway, and loses fast free */
	r.chain_forced = true;
	CHECK_EQ(decide("net_ice", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.tx_offloads & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE, 0);
	CHECK(p.tx_offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS, "chain forced: MULTI_SEGS");
	CHECK_EQ(p.chain_ok, true);
	r.chain_forced = false;
	r.want_chain = false;
	r.single_pool_tx = false;
	CHECK_EQ(decide("net_ice", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.tx_offloads & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE, 0);
	r.single_pool_tx = true;
	di.tx_offload_capa &= ~RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
	CHECK_EQ(decide("net_ice", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.tx_offloads & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE, 0);
	/* a row that does not allow it (ixgbe) */
	di = dev_info("net_ixgbe", 8);
	CHECK_EQ(decide("net_ixgbe", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.tx_offloads & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE, 0);
	/* nor the default row, whatever the device claims */
	di = dev_info("net_bnxt", 8);
	CHECK_EQ(decide("net_bnxt", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.tx_offloads & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE, 0);
	CHECK_EQ(p.chain_ok, false);
	CHECK_EQ(p.pad_to, 60);
}

static void
test_decide_rss_trim(void)
{
	struct rte_eth_dev_info di = dev_info("net_i40e", 8);
	struct uf_port_req r = req(4);
	struct uf_port_plan p;
	char why[256];

	di.flow_type_rss_offloads = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_TCP;
	di.hash_key_size = 64;
	CHECK_EQ(decide("net_i40e", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.rss, true);
	CHECK_EQ(p.rss_hf, RTE_ETH_RSS_IPV4);
	CHECK_EQ(p.rss_hf_trimmed, RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_FRAG_IPV4);
	CHECK_EQ(p.rss_key_len, 0); /* neither 40 nor 52: the PMD's own key */
	di.hash_key_size = 40;
	CHECK_EQ(decide("net_i40e", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.rss_key_len, 40);
	/* nothing of what we want */
	di.flow_type_rss_offloads = RTE_ETH_RSS_NONFRAG_IPV4_TCP | RTE_ETH_RSS_IPV6;
	CHECK_EQ(decide("net_i40e", &di, &r, &p, why, sizeof(why)), -EINVAL);
	CHECK_HAS(why, "cannot hash IPv4/UDP");
}

/* a port with IPv6 addresses hashes IPv6/UDP too, where the device can (docs/pmd-quirks.md#ipv6) */
static void
test_decide_rss_ipv6(void)
{
	struct rte_eth_dev_info di = dev_info("net_ice", 8);
	struct uf_port_req r = req(4);
	struct uf_port_plan p;
	char why[256];

	/* IPv4 only: nothing IPv6 asked, whatever the device offers */
	di.flow_type_rss_offloads |= RTE_ETH_RSS_IPV6 | RTE_ETH_RSS_NONFRAG_IPV6_UDP |
				     RTE_ETH_RSS_FRAG_IPV6 | RTE_ETH_RSS_NONFRAG_IPV6_TCP;
	CHECK_EQ(decide("net_ice", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.rss_hf, UF_RSS_HF_WANTED);
	/* ip6 on the port: IPv4 and IPv6, never TCP */
	r.ipv6 = true;
	CHECK_EQ(decide("net_ice", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.rss_hf, RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_FRAG_IPV4 |
					   RTE_ETH_RSS_IPV6 | RTE_ETH_RSS_NONFRAG_IPV6_UDP |
					   RTE_ETH_RSS_FRAG_IPV6);
	CHECK_EQ(p.rss_hf_trimmed, 0);
	CHECK_EQ(p.try_flow, true);
	/* a device without IPv6 hashing (vmxnet3 before v4 has no UDP either): trimmed, said */
	di.flow_type_rss_offloads =
			RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_IPV6;
	CHECK_EQ(decide("net_ice", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.rss_hf, RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_IPV6);
	CHECK_EQ(p.rss_hf_trimmed,
		 RTE_ETH_RSS_FRAG_IPV4 | RTE_ETH_RSS_NONFRAG_IPV6_UDP | RTE_ETH_RSS_FRAG_IPV6);
	/* IPv6 only is enough to spread an IPv6 port */
	di.flow_type_rss_offloads = RTE_ETH_RSS_NONFRAG_IPV6_UDP;
	CHECK_EQ(decide("net_ice", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.rss_hf, RTE_ETH_RSS_NONFRAG_IPV6_UDP);
	/* neither family */
	di.flow_type_rss_offloads = RTE_ETH_RSS_NONFRAG_IPV6_TCP;
	CHECK_EQ(decide("net_ice", &di, &r, &p, why, sizeof(why)), -EINVAL);
	CHECK_HAS(why, "cannot hash IPv4/UDP nor IPv6/UDP");

	/* ENA: fixed 0xc30 already hashes IPv6/UDP (NONFRAG_IPV6_UDP is bit 11: 0x800) */
	di = dev_info("net_ena", 8);
	di.flow_type_rss_offloads = 0xc30;
	CHECK_EQ(decide("net_ena", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.rss_hf, 0xc30);
	CHECK(p.rss_hf & RTE_ETH_RSS_NONFRAG_IPV6_UDP, "ENA hashes IPv6/UDP");

	/* ixgbe: an rte_flow RSS rule is the device's global RSS whatever its pattern
	 * (ixgbe_parse_rss_filter): no rte_flow, plain RSS with both families */
	di = dev_info("net_ixgbe", 8);
	di.flow_type_rss_offloads |= RTE_ETH_RSS_IPV6 | RTE_ETH_RSS_NONFRAG_IPV6_UDP;
	CHECK_EQ(decide("net_ixgbe", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.try_flow, false);
	CHECK_EQ(p.rss, true);
	CHECK(p.rss_hf & RTE_ETH_RSS_NONFRAG_IPV6_UDP, "ixgbe hashes IPv6/UDP");
	CHECK_EQ(p.rss_hf_trimmed, RTE_ETH_RSS_FRAG_IPV6);
}

static void
test_decide_limits(void)
{
	struct rte_eth_dev_info di = dev_info("net_ice", 4);
	struct uf_port_req r = req(2);
	struct uf_port_plan p;
	char why[256];

	/* MTU out of range either way */
	r.mtu = 9703;
	CHECK_EQ(decide("net_ice", &di, &r, &p, why, sizeof(why)), -EINVAL);
	CHECK_HAS(why, "MTU 9703 is outside what net_ice allows (68..9702)");
	r.mtu = 9702;
	CHECK_EQ(decide("net_ice", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.mtu, 9702);
	CHECK(p.data_room >= frame_room(9702), "data room %u holds a 9702 frame", p.data_room);
	di.min_mtu = 1280;
	r.mtu = 1279;
	CHECK_EQ(decide("net_ice", &di, &r, &p, why, sizeof(why)), -EINVAL);
	CHECK_HAS(why, "MTU 1279");
	di.min_mtu = 68;

	/* too many workers for the queues */
	r = req(5);
	CHECK_EQ(decide("net_ice", &di, &r, &p, why, sizeof(why)), -EINVAL);
	CHECK_HAS(why, "5 workers");
	CHECK_HAS(why, "fewer lcores");
	di.max_tx_queues = 2;
	r = req(3);
	CHECK_EQ(decide("net_ice", &di, &r, &p, why, sizeof(why)), -EINVAL);

	/* descriptors: clamped to [nb_min, nb_max], rounded up to nb_align */
	di = dev_info("net_ice", 4);
	r = req(1);
	r.rx_desc = 1000;
	r.tx_desc = 10;
	CHECK_EQ(decide("net_ice", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.rx_desc, 1024); /* 1000 up to a multiple of 32 */
	CHECK_EQ(p.tx_desc, 64);
	r.rx_desc = 8000;
	r.tx_desc = 100;
	CHECK_EQ(decide("net_ice", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.rx_desc, 4096);
	CHECK_EQ(p.tx_desc, 128);
	di.rx_desc_lim.nb_max = 0; /* no maximum given */
	r.rx_desc = 8000;
	CHECK_EQ(decide("net_ice", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.rx_desc, 8000);
	/* the PMD's minimum RX buffer */
	di.min_rx_bufsize = 4000;
	CHECK_EQ(decide("net_ice", &di, &r, &p, why, sizeof(why)), 0);
	CHECK(p.data_room >= RTE_PKTMBUF_HEADROOM + 4000, "data room %u", p.data_room);
}

static void
test_decide_mlx5(void)
{
	struct rte_eth_dev_info di = dev_info("mlx5_pci", 16);
	struct uf_port_req r = req(4);
	struct uf_port_plan p;
	char why[256];

	CHECK_EQ(decide("mlx5_pci", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.try_flow, true);
	CHECK_EQ(p.flow_isolate, true);
	CHECK_EQ(p.mtu_path, UF_MTU_CONFIGURE);
	CHECK_EQ(p.pad_to, 0);
	CHECK_EQ(p.mtu, 1500);
	CHECK_EQ(p.mtu_keep, false);
}

/* Tagged ports on a device that filters VLANs (virtio with CTRL_VLAN, iavf VFs): the filter
 * with each VID added wherever dev_info offers it; never without tagged ports or without the
 * capability; on mlx5 (MAC flows per VID only once one is added) not while an untagged port
 * shares the device. The plan itself asks for nothing until the port decides it. */
static void
test_decide_vlan_filter(void)
{
	struct rte_eth_dev_info di = dev_info("net_virtio", 4);
	const struct uf_quirk *virtio = uf_quirk_lookup("net_virtio");
	const struct uf_quirk *iavf = uf_quirk_lookup("net_iavf");
	const struct uf_quirk *mlx5 = uf_quirk_lookup("mlx5_pci");
	struct uf_port_req r = req(1);
	struct uf_port_plan p;
	char why[256];

	CHECK_EQ(uf_decide_vlan_filter(virtio, &di, 2, true), false); /* no capability */
	di.rx_offload_capa |= RTE_ETH_RX_OFFLOAD_VLAN_FILTER;
	CHECK_EQ(uf_decide_vlan_filter(virtio, &di, 0, true), false); /* nothing tagged */
	CHECK_EQ(uf_decide_vlan_filter(virtio, &di, 1, false), true);
	CHECK_EQ(uf_decide_vlan_filter(virtio, &di, 2, true), true);
	CHECK_EQ(uf_decide_vlan_filter(iavf, &di, 1, true), true);
	CHECK_EQ(uf_decide_vlan_filter(mlx5, &di, 1, false), true);
	CHECK_EQ(uf_decide_vlan_filter(mlx5, &di, 1, true), false);
	CHECK_EQ(uf_decide_vlan_filter(uf_quirk_lookup("net_unknown_pmd"), &di, 1, true), true);
	CHECK_EQ(decide("net_virtio", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.vlan_filter, false);
	CHECK_EQ(p.rx_offloads & RTE_ETH_RX_OFFLOAD_VLAN_FILTER, 0);
}

/* No ports[].mtu: a port sharing a kernel netdev keeps the netdev's MTU (a 9000-MTU mlx5
 * host must not drop to 1500); a configured MTU is applied; a device of our own gets 1500. */
static void
test_decide_mtu_keep(void)
{
	struct rte_eth_dev_info di = dev_info("mlx5_pci", 16);
	struct uf_port_req r = req(4);
	struct uf_port_plan p;
	char why[256];

	r.cur_mtu = 9000;
	CHECK_EQ(decide("mlx5_pci", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.mtu, 9000);
	CHECK_EQ(p.mtu_keep, true);
	CHECK(p.data_room >= frame_room(9000), "data room %u holds a 9000-MTU frame", p.data_room);
	r.mtu = 1500; /* configured: applied, not kept */
	CHECK_EQ(decide("mlx5_pci", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.mtu, 1500);
	CHECK_EQ(p.mtu_keep, false);
	/* af_packet on a 9000-MTU netdev: the row caps it at 1500 for our plan, and the
	 * netdev is still not touched */
	di = dev_info("net_af_packet", 4);
	di.max_rx_queues = di.max_tx_queues = 4;
	r = req(4);
	r.cur_mtu = 9000;
	CHECK_EQ(decide("net_af_packet", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.mtu, 1500);
	CHECK_EQ(p.mtu_keep, true);
	/* an ENA (vfio) device has no netdev: 1500, set through set_mtu as before */
	di = dev_info("net_ena", 8);
	r = req(4);
	CHECK_EQ(decide("net_ena", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.mtu, 1500);
	CHECK_EQ(p.mtu_keep, false);
}

/* ixgbe/i40e/ice/iavf refuse a TX ring that is not a multiple of tx_rs_thresh (32) */
static void
test_decide_tx_rs_mult(void)
{
	struct rte_eth_dev_info di = dev_info("net_ixgbe", 8);
	struct uf_port_req r = req(1);
	struct uf_port_plan p;
	char why[256];

	di.tx_desc_lim.nb_align = 8; /* IXGBE_TXD_ALIGN */
	di.rx_desc_lim.nb_align = 8;
	di.default_txconf.tx_rs_thresh = 32;
	r.tx_desc = 1000;
	r.rx_desc = 1000;
	CHECK_EQ(decide("net_ixgbe", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.tx_desc, 1024);
	CHECK_EQ(p.rx_desc, 1024); /* a multiple of rx_free_thresh (test_decide_rx_free_mult) */
	/* rounding up would pass nb_max: down */
	di.tx_desc_lim.nb_max = 4088;
	r.tx_desc = 4080;
	CHECK_EQ(decide("net_ixgbe", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.tx_desc, 4064);
	/* tx_rs_thresh 0 in dev_info: the PMDs' default, 32 */
	di.default_txconf.tx_rs_thresh = 0;
	r.tx_desc = 1000;
	CHECK_EQ(decide("net_i40e", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.tx_desc, 1024);
	/* rows without the rule keep an aligned count */
	CHECK_EQ(decide("net_vmxnet3", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.tx_desc, 1000);
	CHECK(uf_quirk_lookup("net_ice")->tx_desc_rs_mult &&
			      uf_quirk_lookup("net_iavf")->tx_desc_rs_mult,
	      "ice and iavf rows have the rule");
}

/*
 * ixgbe/i40e/ice/iavf turn bulk-alloc and vector RX off for the whole port when an RX ring is
 * not a multiple of rx_free_thresh or not above it (check_rx_burst_bulk_alloc_preconditions):
 * rx_desc is rounded as tx_desc is. ixgbe with more than one queue: rx_drop_en.
 */
static void
test_decide_rx_free_mult(void)
{
	static const char *const rows[] = { "net_ixgbe", "net_i40e", "net_ice", "net_iavf" };
	struct rte_eth_dev_info di = dev_info("net_ixgbe", 8);
	struct uf_port_req r = req(1);
	struct uf_port_plan p;
	char why[256];
	size_t i;

	di.rx_desc_lim.nb_align = 8; /* IXGBE_RXD_ALIGN */
	di.rx_desc_lim.nb_min = 32;
	di.rx_desc_lim.nb_max = 4096;
	di.default_rxconf.rx_free_thresh = 32;
	for (i = 0; i < RTE_DIM(rows); i++) {
		di.driver_name = rows[i];
		CHECK(uf_quirk_lookup(rows[i])->rx_desc_free_mult, "%s: rx_desc_free_mult",
		      rows[i]);
		r.rx_desc = 1000;
		CHECK_EQ(decide(rows[i], &di, &r, &p, why, sizeof(why)), 0);
		CHECK_EQ(p.rx_desc, 1024);
		r.rx_desc = 1024;
		CHECK_EQ(decide(rows[i], &di, &r, &p, why, sizeof(why)), 0);
		CHECK_EQ(p.rx_desc, 1024);
		/* not above rx_free_thresh: twice it */
		r.rx_desc = 32;
		CHECK_EQ(decide(rows[i], &di, &r, &p, why, sizeof(why)), 0);
		CHECK_EQ(p.rx_desc, 64);
	}
	/* up would pass nb_max: down */
	di.driver_name = "net_ixgbe";
	di.rx_desc_lim.nb_max = 4088;
	r.rx_desc = 4080;
	CHECK_EQ(decide("net_ixgbe", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.rx_desc, 4064);
	/* the PMD's own threshold, whatever it is; 0 in dev_info: 32 */
	di.default_rxconf.rx_free_thresh = 64;
	r.rx_desc = 1000;
	CHECK_EQ(decide("net_ixgbe", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.rx_desc, 1024);
	r.rx_desc = 1088;
	CHECK_EQ(decide("net_ixgbe", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.rx_desc, 1088);
	di.default_rxconf.rx_free_thresh = 0;
	r.rx_desc = 1000;
	CHECK_EQ(decide("net_ixgbe", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.rx_desc, 1024);
	/* rows without the rule keep an aligned count */
	CHECK(!uf_quirk_lookup("net_vmxnet3")->rx_desc_free_mult, "vmxnet3: no rule");
	CHECK_EQ(decide("net_vmxnet3", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.rx_desc, 1000);
	/* rx_drop_en: ixgbe with more than one queue only */
	r = req(1);
	CHECK_EQ(decide("net_ixgbe", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.rx_drop_en, false);
	r = req(4);
	CHECK_EQ(decide("net_ixgbe", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.rx_drop_en, true);
	CHECK_EQ(decide("net_i40e", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.rx_drop_en, false);
}

/* em pads short frames itself (eth_em_tx_init sets TCTL.PSP): no software padding */
static void
test_em_pads(void)
{
	struct rte_eth_dev_info di = dev_info("net_e1000_em", 1);
	struct uf_port_req r = req(1);
	struct uf_port_plan p;
	char why[256];

	CHECK(!uf_quirk_lookup("net_e1000_em")->sw_pad60, "em: no sw_pad60");
	CHECK_EQ(decide("net_e1000_em", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.pad_to, 0);
}

/* Rows name only driver-specific loss xstats (a basic one costs the PMD's full xstats_get),
 * and ENA's reset-worthy and guarded patterns match the names ena_xstats_get_names makes. */
static void
test_xstats_rows(void)
{
	static const char *const basic[] = { "rx_good_packets",  "tx_good_packets",
					     "rx_good_bytes",    "tx_good_bytes",
					     "rx_missed_errors", "rx_errors",
					     "tx_errors",        "rx_mbuf_allocation_errors" };
	const struct uf_quirk *tab, *ena = uf_quirk_lookup("net_ena");
	int n, i, j, k;

	tab = uf_quirk_table(&n);
	for (i = 0; i < n; i++)
		for (j = 0; tab[i].xstats != NULL && tab[i].xstats[j] != NULL; j++)
			for (k = 0; k < (int)RTE_DIM(basic); k++)
				CHECK(strcmp(tab[i].xstats[j], basic[k]) != 0,
				      "row %s lists basic stat %s", tab[i].driver, basic[k]);
	CHECK(ena->reset_xstats != NULL, "ENA watches its fault xstats");
	CHECK(ena->guarded_xstats != NULL, "ENA guards its ENI counters");
	CHECK_EQ(ena->chain_tx_cheap, true);
	CHECK_EQ(uf_quirk_lookup("net_ixgbe")->chain_tx_cheap, false);
	CHECK_EQ(uf_quirk_lookup("net_i40e")->chain_tx_cheap, false);
	CHECK_EQ(uf_quirk_lookup("net_ice")->chain_tx_cheap, false);
}

/* ---- uf_wc_check ---- */

/* partial_csum: the ports a local sender's CHECKSUM_PARTIAL frames can arrive on, and the
 * default row (conservative); physical NICs and pure DPDK links not; the plan carries it */
static void
test_partial_csum_rows(void)
{
	static const char *const yes[] = { "net_af_xdp", "net_af_packet", "net_tap",
					   "net_virtio", "net_pcap",      "net_vhost" };
	static const char *const no[] = { "net_ena",   "net_ice",  "net_i40e",
					  "net_ixgbe", "mlx5_pci", "net_iavf",
					  "net_ring",  "net_null", "net_memif" };
	struct rte_eth_dev_info di;
	struct uf_port_req r = req(1);
	struct uf_port_plan p;
	char why[256];
	size_t i;

	for (i = 0; i < RTE_DIM(yes); i++)
		CHECK(uf_quirk_lookup(yes[i])->partial_csum, "%s: partial_csum", yes[i]);
	for (i = 0; i < RTE_DIM(no); i++)
		CHECK(!uf_quirk_lookup(no[i])->partial_csum, "%s: no partial_csum", no[i]);
	di = dev_info("net_af_packet", 1);
	CHECK_EQ(decide("net_af_packet", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.partial_csum, true);
	di = dev_info("net_ring", 1);
	CHECK_EQ(decide("net_ring", &di, &r, &p, why, sizeof(why)), 0);
	CHECK_EQ(p.partial_csum, false);
}

/*
 * RX checksum offloads (docs/pmd-quirks.md, "RX checksum verdicts"): requested only where the
 * row trusts the device's verdicts and the capability has them; IPv4 and UDP only (TCP and
 * anything else in the capability never), so on virtio UDP alone. Each case fakes the
 * capability the PMD's dev_infos_get reports.
 */
static uint64_t
rx_plan(const char *driver, uint64_t capa, bool off)
{
	struct rte_eth_dev_info di = dev_info(driver, 1);
	struct uf_port_req r = req(1);
	struct uf_port_plan p;
	char why[256];

	di.rx_offload_capa = capa;
	r.rx_cksum_off = off;
	CHECK_EQ(decide(driver, &di, &r, &p, why, sizeof(why)), 0);
	return p.rx_offloads;
}

static void
test_rx_cksum_rows(void)
{
	const uint64_t ip = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM, udp = RTE_ETH_RX_OFFLOAD_UDP_CKSUM,
		       tcp = RTE_ETH_RX_OFFLOAD_TCP_CKSUM, full = ip | udp | tcp;
	const uint64_t other = RTE_ETH_RX_OFFLOAD_SCATTER | RTE_ETH_RX_OFFLOAD_VLAN_STRIP |
			       RTE_ETH_RX_OFFLOAD_RSS_HASH | RTE_ETH_RX_OFFLOAD_OUTER_IPV4_CKSUM;
	/* hardware verdicts: everything the capability has of IPv4 and UDP */
	static const char *const hw[] = { "net_ena",   "net_ice",  "net_i40e",
					  "net_ixgbe", "mlx5_pci", "net_iavf" };
	/* software PMDs (tap checks in software; the rest offer nothing), and drivers nobody
	 * has described: nothing, whatever the capability says */
	static const char *const sw[] = { "net_tap",      "net_af_xdp", "net_af_packet",
					  "net_ring",     "net_null",   "net_pcap",
					  "net_memif",    "net_vhost",  "net_vmxnet3",
					  "net_e1000_em", "net_bonding" };
	char name[16];
	size_t i;

	for (i = 0; i < RTE_DIM(hw); i++) {
		CHECK(uf_quirk_lookup(hw[i])->rx_cksum_ok, "%s: rx_cksum_ok", hw[i]);
		CHECK_EQ(rx_plan(hw[i], full | other, false), ip | udp);
		CHECK_EQ(rx_plan(hw[i], full | other, true), 0); /* the operator's off */
		CHECK_EQ(rx_plan(hw[i], other, false), 0);
	}
	for (i = 0; i < RTE_DIM(sw); i++) {
		CHECK(!uf_quirk_lookup(sw[i])->rx_cksum_ok, "%s: no rx_cksum_ok", sw[i]);
		CHECK_EQ(rx_plan(sw[i], full | other, false), 0);
	}
	/* ENA advertises per device: an L3-less device (only L4 in its features) gets UDP,
	 * one without RX checksum features nothing (ena_infos_get builds the capa from them) */
	CHECK_EQ(rx_plan("net_ena", udp | tcp | other, false), udp);
	CHECK_EQ(rx_plan("net_ena", RTE_ETH_RX_OFFLOAD_SCATTER, false), 0);
	/* ice safe mode: no checksum offload in the capability, none requested */
	CHECK_EQ(rx_plan("net_ice", RTE_ETH_RX_OFFLOAD_SCATTER, false), 0);
	/* virtio and virtio_user: UDP/TCP only, and only with VIRTIO_NET_F_GUEST_CSUM */
	for (i = 0; i < 2; i++) {
		const char *d = i == 0 ? "net_virtio" : "net_virtio_user";

		CHECK(uf_quirk_lookup(d)->rx_cksum_ok, "%s: rx_cksum_ok", d);
		CHECK_EQ(rx_plan(d, udp | tcp | RTE_ETH_RX_OFFLOAD_TCP_LRO, false), udp);
		CHECK_EQ(rx_plan(d, RTE_ETH_RX_OFFLOAD_VLAN_STRIP, false), 0);
		CHECK_EQ(rx_plan(d, udp | tcp, true), 0);
	}
	/* the words in the start-up log and the stats JSON */
	CHECK_STR(uf_rx_cksum_name(ip | udp, name, sizeof(name)), "ipv4,udp");
	CHECK_STR(uf_rx_cksum_name(ip | tcp, name, sizeof(name)), "ipv4");
	CHECK_STR(uf_rx_cksum_name(udp | other, name, sizeof(name)), "udp");
	CHECK_STR(uf_rx_cksum_name(tcp | other, name, sizeof(name)), "none");
}

/*
 * The RX verdicts the worker believes (uf_port_plan.rx_ck_ignore, docs/pmd-quirks.md, "RX
 * checksum verdicts"): only those of an offload the port enabled. Every row, with a faked
 * dev_info offering everything, then the PMDs whose flags lie where nothing was enabled.
 */
static uint64_t
rx_ignore(const char *driver, uint64_t capa, bool off)
{
	struct rte_eth_dev_info di = dev_info(driver, 1);
	struct uf_port_req r = req(1);
	struct uf_port_plan p;
	char why[256];

	di.rx_offload_capa = capa;
	r.rx_cksum_off = off;
	CHECK_EQ(decide(driver, &di, &r, &p, why, sizeof(why)), 0);
	return p.rx_ck_ignore;
}

static void
test_rx_ck_ignore_rows(void)
{
	const uint64_t ip = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM, udp = RTE_ETH_RX_OFFLOAD_UDP_CKSUM,
		       full = ip | udp | RTE_ETH_RX_OFFLOAD_TCP_CKSUM;
	const uint64_t ipm = RTE_MBUF_F_RX_IP_CKSUM_MASK, l4m = RTE_MBUF_F_RX_L4_CKSUM_MASK;
	/* what each PMD may set on a frame, GOOD and BAD alike */
	const uint64_t good = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD,
		       bad = RTE_MBUF_F_RX_IP_CKSUM_BAD | RTE_MBUF_F_RX_L4_CKSUM_BAD;
	const struct uf_quirk *t;
	int n, i;

	t = uf_quirk_table(&n);
	for (i = 0; i < n; i++) {
		const char *d = t[i].prefix ? "mlx5_pci" : t[i].driver;
		struct rte_eth_dev_info di = dev_info(d, 1);
		struct uf_port_req r = req(1);
		struct uf_port_plan p;
		uint64_t want;
		char why[256];

		di.rx_offload_capa = full;
		if (t[i].queues_from_devargs) /* created with one queue */
			di.max_rx_queues = di.max_tx_queues = 1;
		if (decide(d, &di, &r, &p, why, sizeof(why)) != 0)
			continue;
		want = ((p.rx_offloads & ip) ? 0 : ipm) | ((p.rx_offloads & udp) ? 0 : l4m);
		CHECK(p.rx_ck_ignore == want, "%s: rx_ck_ignore 0x%" PRIx64 ", want 0x%" PRIx64, d,
		      p.rx_ck_ignore, want);
		/* a row that does not trust its PMD: nothing it sets is read */
		if (!t[i].rx_cksum_ok)
			CHECK(((good | bad | RTE_MBUF_F_RX_VLAN_STRIPPED) & ~p.rx_ck_ignore) ==
					      RTE_MBUF_F_RX_VLAN_STRIPPED,
			      "%s: a verdict read", d);
	}
	/* hardware rows with both offloads: every verdict read */
	CHECK_EQ(rx_ignore("net_ixgbe", full, false), 0);
	CHECK_EQ(rx_ignore("net_i40e", full, false), 0);
	CHECK_EQ(rx_ignore("net_ice", full, false), 0);
	CHECK_EQ(rx_ignore("net_iavf", full, false), 0);
	/* mlx5: GOOD is the CQE's l3_ok/l4_ok and it never says BAD: both read (a bad header
	 * comes without a flag and is summed in software) */
	CHECK_EQ(rx_ignore("mlx5_pci", full, false), 0);
	/* ENA on a device that checks no L3 sum: its IPv4 GOOD (set for every IPv4 frame) is
	 * ignored, its UDP verdict read; a device with no RX checksum feature: nothing read */
	CHECK_EQ(rx_ignore("net_ena", full, false), 0);
	CHECK_EQ(rx_ignore("net_ena", udp | RTE_ETH_RX_OFFLOAD_TCP_CKSUM, false), ipm);
	CHECK_EQ((RTE_MBUF_F_RX_IP_CKSUM_GOOD & ~rx_ignore("net_ena", udp, false)), 0);
	CHECK_EQ(rx_ignore("net_ena", 0, false), ipm | l4m);
	/* em sets BAD from the descriptor whatever the offloads: nothing requested, nothing
	 * read */
	CHECK_EQ(rx_ignore("net_e1000_em", full, false), ipm | l4m);
	CHECK_EQ(bad & ~rx_ignore("net_e1000_em", full, false), 0);
	/* virtio: UDP only (the virtio header), so no IPv4 verdict is read */
	CHECK_EQ(rx_ignore("net_virtio", udp | RTE_ETH_RX_OFFLOAD_TCP_CKSUM, false), ipm);
	/* ice in safe mode: no checksum capability, nothing read */
	CHECK_EQ(rx_ignore("net_ice", RTE_ETH_RX_OFFLOAD_SCATTER, false), ipm | l4m);
	/* the operator's rx_checksum: off, and a driver nobody described */
	CHECK_EQ(rx_ignore("net_ixgbe", full, true), ipm | l4m);
	CHECK_EQ(rx_ignore("net_bonding", full, false), ipm | l4m);
	CHECK_EQ(rx_ignore("net_tap", full, false), ipm | l4m);
}

static void
test_wc_check(void)
{
	char dir[256], path[512];

	uf_t_mkdtemp(dir, sizeof(dir));
	uf_t_write(dir, "pat_memtype_list",
		   "PAT memtype list:\n"
		   "PAT: [mem 0x0000000000000000-0x0000000000001000] write-back\n"
		   "PAT: [mem 0x00000000fe800000-0x00000000fe900000] write-combining\n"
		   "PAT: [mem 0x00000000fea00000-0x00000000fea04000] uncached-minus\n"
		   "PAT: [mem 0x0000381fffe00000-0x0000381fffe10000] write-combining\n");
	snprintf(path, sizeof(path), "%s/pat_memtype_list", dir);
	CHECK_EQ(uf_wc_check(path, 0xfe800000ull), 1);
	CHECK_EQ(uf_wc_check(path, 0xfe8fffffull), 1);
	CHECK_EQ(uf_wc_check(path, 0xfe900000ull), -1); /* the end is exclusive */
	CHECK_EQ(uf_wc_check(path, 0xfea00000ull), 0);
	CHECK_EQ(uf_wc_check(path, 0xfea03ff0ull), 0);
	CHECK_EQ(uf_wc_check(path, 0x381fffe00000ull), 1); /* above 4 GiB */
	CHECK_EQ(uf_wc_check(path, 0xc0000000ull), -1);
	snprintf(path, sizeof(path), "%s/no_such_file", dir);
	CHECK_EQ(uf_wc_check(path, 0xfe800000ull), -1);
	uf_t_write(dir, "empty", "");
	snprintf(path, sizeof(path), "%s/empty", dir);
	CHECK_EQ(uf_wc_check(path, 0xfe800000ull), -1);
	uf_t_rmtree(dir);
}

/* ---- uf_ice_ddp_find ---- */

#define DSN "0123456789abcdef"
#define UPD "updates/intel/ice/ddp/"
#define STD "intel/ice/ddp/"

/* want_xz: 0 or 1, or -1 when it does not matter (a package was found) */
static void
expect_ddp(const char *root, const char *dsn, const char *want_rel, int want_xz)
{
	char path[512], want[512];
	bool xz = want_xz != 1;
	int rc;

	path[0] = '\0';
	rc = uf_ice_ddp_find(root, dsn, path, sizeof(path), &xz);
	if (want_rel == NULL) {
		CHECK_EQ(rc, -ENOENT);
	} else {
		snprintf(want, sizeof(want), "%s/%s", root, want_rel);
		CHECK_EQ(rc, 0);
		CHECK_STR(path, want);
	}
	if (want_xz >= 0)
		CHECK_EQ(xz, want_xz);
}

static void
test_ice_ddp(void)
{
	char root[256];

	/* everything present: the per-device package in updates/ wins */
	uf_t_mkdtemp(root, sizeof(root));
	uf_t_write(root, UPD "ice-" DSN ".pkg", "x");
	uf_t_write(root, STD "ice-" DSN ".pkg", "x");
	uf_t_write(root, UPD "ice.pkg", "x");
	uf_t_write(root, STD "ice.pkg", "x");
	expect_ddp(root, DSN, UPD "ice-" DSN ".pkg", false);
	/* no DSN: the generic one, updates/ first */
	expect_ddp(root, NULL, UPD "ice.pkg", false);
	expect_ddp(root, "", UPD "ice.pkg", false);
	/* another device's serial: generic */
	expect_ddp(root, "fedcba9876543210", UPD "ice.pkg", false);
	uf_t_rmtree(root);

	/* per-device in the default dir beats the generic one in updates/ */
	uf_t_mkdtemp(root, sizeof(root));
	uf_t_write(root, STD "ice-" DSN ".pkg", "x");
	uf_t_write(root, UPD "ice.pkg", "x");
	expect_ddp(root, DSN, STD "ice-" DSN ".pkg", false);
	uf_t_rmtree(root);

	/* only the default generic package */
	uf_t_mkdtemp(root, sizeof(root));
	uf_t_write(root, STD "ice.pkg", "x");
	expect_ddp(root, DSN, STD "ice.pkg", false);
	uf_t_rmtree(root);

	/* only compressed packages: not found, and said so */
	uf_t_mkdtemp(root, sizeof(root));
	uf_t_write(root, STD "ice.pkg.xz", "x");
	expect_ddp(root, DSN, NULL, true);
	uf_t_rmtree(root);
	uf_t_mkdtemp(root, sizeof(root));
	uf_t_write(root, UPD "ice-" DSN ".pkg.zst", "x");
	expect_ddp(root, DSN, NULL, true);
	uf_t_rmtree(root);

	/* a compressed one does not matter when a plain one exists further down the list */
	uf_t_mkdtemp(root, sizeof(root));
	uf_t_write(root, UPD "ice.pkg.xz", "x");
	uf_t_write(root, STD "ice.pkg", "x");
	expect_ddp(root, NULL, STD "ice.pkg", -1);
	uf_t_rmtree(root);

	/* a directory named ice.pkg is not a package */
	uf_t_mkdtemp(root, sizeof(root));
	uf_t_mkdirs(root, STD "ice.pkg", true);
	expect_ddp(root, NULL, NULL, false);
	uf_t_rmtree(root);

	/* nothing at all */
	uf_t_mkdtemp(root, sizeof(root));
	expect_ddp(root, DSN, NULL, false);
	uf_t_rmtree(root);
}

static void
test_print(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int n;

	uf_quirk_table(&n);
	uf_quirk_print(f, true);
	fclose(f);
	CHECK(buf != NULL && buf[0] == '[', "JSON starts with [");
	CHECK_HAS(buf, "\"driver\": \"net_ena\"");
	CHECK_HAS(buf, "\"match\": \"prefix\"");
	CHECK_HAS(buf, "\"match\": \"default\"");
	free(buf);
	CHECK_STR(uf_mtu_path_name(UF_MTU_SET_MTU), "set_mtu");
	CHECK_STR(uf_mtu_path_name(UF_MTU_NA), "not_applicable");
}

/* link state: LSC wherever dev_flags has it (ENA reads down forever without it); a kernel
 * interface's operstate where the row has a kernel socket and no LSC; else PMD polling */
static void
test_decide_link(void)
{
	uint32_t lsc = RTE_ETH_DEV_INTR_LSC | RTE_ETH_DEV_AUTOFILL_QUEUE_XSTATS, none = 0;
	struct uf_port_req r = req(1);
	struct rte_eth_dev_info di;
	struct uf_port_plan p;
	char why[256];

	di = dev_info("net_ena", 8);
	di.dev_flags = &lsc;
	CHECK_EQ(decide("net_ena", &di, &r, &p, why, sizeof(why)), 0);
	CHECK(p.lsc && !p.link_from_kernel, "ENA with the LSC flag gets link interrupts");
	/* ENA clears the flag when its AENQ has no link-change group: no LSC then */
	di.dev_flags = &none;
	CHECK_EQ(decide("net_ena", &di, &r, &p, why, sizeof(why)), 0);
	CHECK(!p.lsc && !p.link_from_kernel, "no flag, no LSC (configure would refuse it)");
	di.dev_flags = NULL;
	CHECK_EQ(decide("net_ena", &di, &r, &p, why, sizeof(why)), 0);
	CHECK(!p.lsc, "no dev_flags at all: no LSC");

	di = dev_info("net_af_xdp", 1);
	di.dev_flags = &none;
	di.if_index = 7;
	CHECK_EQ(decide("net_af_xdp", &di, &r, &p, why, sizeof(why)), 0);
	CHECK(!p.lsc && p.link_from_kernel, "af_xdp: the kernel interface's state");
	di = dev_info("net_af_packet", 1);
	di.dev_flags = &none;
	di.if_index = 7;
	CHECK_EQ(decide("net_af_packet", &di, &r, &p, why, sizeof(why)), 0);
	CHECK(!p.lsc && p.link_from_kernel, "af_packet: the kernel interface's state");
	di.if_index = 0;
	CHECK_EQ(decide("net_af_packet", &di, &r, &p, why, sizeof(why)), 0);
	CHECK(!p.link_from_kernel, "no interface index: nothing to read");
	/* a kernel-socket PMD that has LSC of its own uses it */
	di.if_index = 7;
	di.dev_flags = &lsc;
	CHECK_EQ(decide("net_af_packet", &di, &r, &p, why, sizeof(why)), 0);
	CHECK(p.lsc && !p.link_from_kernel, "LSC wins over the kernel interface");
	di = dev_info("net_ring", 1);
	di.dev_flags = &none;
	CHECK_EQ(decide("net_ring", &di, &r, &p, why, sizeof(why)), 0);
	CHECK(!p.lsc && !p.link_from_kernel, "ring: the PMD's link, polled");
}

int
main(void)
{
	RUN(test_lookup);
	RUN(test_decide_ena);
	RUN(test_decide_ice);
	RUN(test_decide_af_xdp);
	RUN(test_decide_af_packet);
	RUN(test_decide_ring);
	RUN(test_decide_auto_rows);
	RUN(test_decide_fast_free);
	RUN(test_decide_rss_trim);
	RUN(test_decide_rss_ipv6);
	RUN(test_decide_limits);
	RUN(test_decide_mlx5);
	RUN(test_decide_vlan_filter);
	RUN(test_decide_link);
	RUN(test_decide_mtu_keep);
	RUN(test_decide_tx_rs_mult);
	RUN(test_decide_rx_free_mult);
	RUN(test_em_pads);
	RUN(test_xstats_rows);
	RUN(test_partial_csum_rows);
	RUN(test_rx_cksum_rows);
	RUN(test_rx_ck_ignore_rows);
	RUN(test_wc_check);
	RUN(test_ice_ddp);
	RUN(test_print);
	return uf_t_summary();
}
