/* SPDX-License-Identifier: BSD-3-Clause
 * The quirk table. Each row says which NIC, where the fact comes from, and what was seen.
 * Line numbers refer to DPDK v22.11.11 (Debian 12's package); see docs/pmd-quirks.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "uf_quirks.h"

/*
 * Only driver-specific xstats: asking rte_eth_xstats_get_by_id for a basic one (rx_missed_errors,
 * rx_mbuf_allocation_errors, rx_errors, tx_errors: rte_eth_stats fields, reported as imissed,
 * rx_nombuf, ierrors, oerrors already) makes ethdev fall back to the PMD's full xstats_get
 * (rte_ethdev.c:rte_eth_xstats_get_by_id), which on ENA is one more admin command.
 */
static const char *const xs_ena[] = { "bw_in_allowance_exceeded",
				      "bw_out_allowance_exceeded",
				      "pps_allowance_exceeded",
				      "conntrack_allowance_exceeded",
				      "linklocal_allowance_exceeded",
				      "tx_drops",
				      "wd_expired",
				      NULL };
/* ena_rx_queue_process, ena_check_and_linearize_mbuf/ena_xmit_mbuf, handle_tx_completion: they
 * set trigger_reset and count these; the watchdog then returns early and never raises
 * RTE_ETH_EVENT_INTR_RESET (ena_timer_wd_callback) */
static const char *const rst_ena[] = { "rx_q*_bad_req_id", "rx_q*_bad_desc_num", "tx_q*_bad_req_id",
				       "tx_q*_prepare_ctx_err",
				       /* 24.11 (ena_rx_queue_process: ENA_REGS_RESET_RX_DESCRIPTOR_
					* MALFORMED, _DRIVER_INVALID_STATE); watched where listed */
				       "rx_q*_bad_desc", "rx_q*_unknown_error", NULL };
/* ena_xstats_get(_by_id): the ENI admin command's failure leaves a stack struct unset */
static const char *const grd_ena[] = { "*_allowance_exceeded", NULL };
static const char *const xs_ice[] = { "rx_dropped_packets",   "tx_dropped_packets",
				      "tx_link_down_dropped", "rx_mac_short_pkt_dropped",
				      "rx_crc_errors",        "rx_undersized_errors",
				      "rx_oversize_errors",   NULL };
static const char *const xs_i40e[] = { "rx_dropped_packets",
				       "tx_dropped_packets",
				       "tx_link_down_dropped",
				       "rx_mac_short_dropped",
				       "rx_size_error_packets",
				       "rx_crc_errors",
				       NULL };
static const char *const xs_ixgbe[] = { "rx_total_missed_packets", "rx_mac_short_packet_dropped",
					"rx_l3_l4_xsum_error", "rx_crc_errors", NULL };
static const char *const xs_mlx5[] = { "rx_out_of_buffer",       "rx_phy_discard_packets",
				       "tx_phy_discard_packets", "rx_phy_crc_errors",
				       "rx_wqe_errors",          NULL };
static const char *const xs_iavf[] = { "rx_dropped_packets", "tx_dropped_packets",
				       "tx_error_packets", NULL };
static const char *const xs_vmxnet3[] = { "rx_q0_drop_total", "rx_q0_rx_buf_alloc_failure",
					  "tx_q0_drop_total", "tx_q0_tx_ring_full", NULL };
/* rows without driver-specific loss xstats: everything they have is in rte_eth_stats */
/* rte_eth_vhost.c vhost_txport_stat_strings: frames the guest's ring did not take (tx_burst
 * handed them back: udpfan's tx_drop has them already; beside, never folded in) */
static const char *const xs_vhost[] = { "tx_missed_pkts", NULL };
static const char *const xs_generic[] = { NULL };
static const char *const xs_nomiss[] = { NULL };

/* clang-format off */
static const struct uf_quirk table[] = {
	{
		.driver = "net_ena", .mtu_path = UF_MTU_SET_MTU, .sw_pad60 = true,
		.hw_cksum_ok = true, .rx_cksum_ok = true, .multiseg_tx_ok = true, .fast_free_ok = true,
		.chain_tx_cheap = true, .chain_min_frame = 225,
		.pow2_desc = true, .rss_fixed = true, .non_l4_to_q0 = true,
		.imissed = UF_YES, .min_rx_data_room = RTE_PKTMBUF_HEADROOM + 1400,
		.needs_timer_manage = true, .reset_event = true, .kernel_driver = "vfio-pci",
		.llq_wc_bar2 = true, .link_lsc_only = true,
		.xstats = xs_ena, .reset_xstats = rst_ena, .guarded_xstats = grd_ena,
		.source = "ena_ethdev.c:1143-1163 (no code reads data->mtu: set_mtu needed), "
			"1541-1546 (RX buffer >= 1400 B), 1424-1437 (power-of-2 rings), "
			"ena_rss.c:411-428 (hash fields fixed at 0xc30; non-TCP/UDP to queue 0), "
			"amzn-drivers README s9 (rte_timer_manage watchdog, reset event). No pad code "
			"in the PMD and device behaviour is undocumented: pad in software. "
			"ena_tx_map_mbuf: LLQ pushes min(pkt_len, tx_max_header_size = 96, 224 with "
			"large_llq_hdr) bytes; a chain that fits leaves a zero-length descriptor: "
			"chains below 225 B copied. No vector TX path: MULTI_SEGS costs nothing. "
			"RX/TX faults set trigger_reset without the reset event: watched xstats. "
			"RX IPv4/UDP checksum offloads only where the device advertises them "
			"(ena_ethdev.c:2393-2450, rx_offload_capa built from the device's "
			"offload features): the capability decides per device. The link is "
			"written only by the link-change AENQ handler (ena_update_on_link_change; "
			"ena_link_update reads adapter->link_status): a device without that "
			"group (no RTE_ETH_DEV_INTR_LSC) reads down forever.",
	},
	{
		.driver = "net_ice", .mtu_path = UF_MTU_SET_STOPPED, .hw_cksum_ok = true,
		.rx_cksum_ok = true,
		.multiseg_tx_ok = true, .fast_free_ok = true, .rte_flow = true,
		.tx_desc_rs_mult = true, .rx_desc_free_mult = true,
		.imissed = UF_YES, .kernel_driver = "vfio-pci", .needs_ddp = true, .xstats = xs_ice,
		.source = "ice_ethdev.c:4164-4175 (mtu_set -EBUSY while started), 3837-3872 "
			"(offloads; none in safe mode), ice_rxtx.c:3176 (fast-free ignores refcnt), "
			"doc nics/ice (DDP package; HW pads). Safe mode: flow_type_rss_offloads == 0. "
			"ice_rxtx_vec_common.h:251 (MULTI_SEGS: no vector TX), ice_rxtx.c:1407 "
			"(TX ring a multiple of tx_rs_thresh). RX IPv4/UDP checksum in hardware, "
			"absent from the capability in safe mode (3837-3872): nothing requested "
			"then.",
	},
	{
		.driver = "net_i40e", .mtu_path = UF_MTU_SET_STOPPED, .hw_cksum_ok = true,
		.rx_cksum_ok = true,
		.multiseg_tx_ok = true, .fast_free_ok = true, .rte_flow = true,
		.tx_desc_rs_mult = true, .rx_desc_free_mult = true,
		.imissed = UF_YES, .kernel_driver = "vfio-pci", .xstats = xs_i40e,
		.source = "i40e_ethdev.c:11461-11471 (mtu_set -EBUSY while started), 3696-3728 "
			"(offloads), doc nics/i40e (oversize drops counted as received; one FDIR "
			"input set per pctype). HW pads frames >= 17 B. i40e_rxtx.c:3415-3419 (simple/"
			"vector TX only with no TX offload but FAST_FREE, or none), 2370 (TX ring a "
			"multiple of tx_rs_thresh). RX IPv4/UDP checksum in hardware (3696-3728).",
	},
	{
		.driver = "net_ixgbe", .mtu_path = UF_MTU_CONFIGURE, .hw_cksum_ok = true,
		.rx_cksum_ok = true,
		.multiseg_tx_ok = true, .imissed = UF_YES,
		.tx_desc_rs_mult = true, .rx_desc_free_mult = true, .rx_drop_en_mq = true,
		.kernel_driver = "vfio-pci", .xstats = xs_ixgbe,
		.source = "ixgbe_ethdev.c:5337-5380 (mtu at RX init; set_mtu works at runtime), "
			"ixgbe_rxtx.c:2585-2608 (no MBUF_FAST_FREE capa), HLREG0.TXPADEN (HW pads); "
			"oerrors always 0. ixgbe_set_tx_function (simple/vector TX only with no TX "
			"offload), ixgbe_dev_tx_queue_setup (TX ring a multiple of tx_rs_thresh: "
			"tx_desc 1000 refused). RX IPv4/UDP checksum in hardware (ixgbe_rxtx.c:"
			"2585-2608 capa; rx_l3_l4_xsum_error counts what it finds bad). No "
			"rte_flow steering: ixgbe_flow.c:2811 ixgbe_parse_rss_filter never reads "
			"the pattern, so an RSS rule is the device's global RSS (its types and "
			"key replace rss_hf: an IPv4 rule leaves IPv6 unhashed), a second is "
			"refused (ixgbe_rxtx.c:5912 ixgbe_config_rss_filter, -EINVAL) and "
			"destroying one turns RSS off (ixgbe_rss_disable): plain RSS does it all. "
			"check_rx_burst_bulk_alloc_preconditions: an RX ring not a multiple of "
			"rx_free_thresh turns bulk-alloc and vector RX off for the whole port. "
			"The queues share one packet buffer: SRRCTL.DROP_EN (rx_drop_en) with "
			"more than one, so one stalled queue drops its own frames only.",
	},
	{
		.driver = "mlx5", .prefix = true, .mtu_path = UF_MTU_CONFIGURE,
		.hw_cksum_ok = true, .rx_cksum_ok = true, .multiseg_tx_ok = true,
		.fast_free_ok = true, .chain_tx_cheap = true,
		.rte_flow = true, .flow_isolate = true, .imissed = UF_YES,
		.kernel_driver = "mlx5_core", .xstats = xs_mlx5,
		.vlan_drops_untagged = true,
		.source = "driver_name is mlx5_pci (common/mlx5_common_pci.c:208): match the prefix. "
			"Bifurcated: stays on mlx5_core, -a mandatory, isolate mode leaves the rest "
			"to the kernel (doc nics/mlx5). MTU is the kernel netdev's "
			"(mlx5_os.c: priv->mtu from the kernel; data->mtu stays 1500): kept unless "
			"ports[].mtu says otherwise; a configured one mlx5_dev_configure sets on the "
			"netdev (mlx5_dev_set_mtu, SIOCSIFMTU: CAP_NET_ADMIN). "
			"TX templates for multi-seg: no path lost. "
			"RX IPv4/UDP checksum in hardware (CQE l3_ok/l4_ok), vector RX included. "
			"With VLAN filtering on, mlx5_traffic_enable (mlx5_trigger.c) installs the "
			"MAC flows per listed VID only: untagged frames are lost.",
	},
	{
		.driver = "net_iavf", .mtu_path = UF_MTU_SET_STOPPED, .hw_cksum_ok = true,
		.rx_cksum_ok = true,
		.multiseg_tx_ok = true, .fast_free_ok = true, .rte_flow = true,
		.imissed = UF_YES, .reset_event = true, .reset_busy_eperm = true,
		.kernel_driver = "vfio-pci", .tx_desc_rs_mult = true, .rx_desc_free_mult = true,
		.xstats = xs_iavf,
		.source = "iavf_ethdev.c:1679-1688 (mtu_set -EBUSY while started), 308 (reset "
			"event); frames < 17 B can trigger MDD on the PF. iavf_rxtx.h:27 (MULTI_SEGS: "
			"no vector TX), iavf_rxtx.c:149 (TX ring a multiple of tx_rs_thresh). "
			"RX IPv4/UDP checksum in hardware (iavf_ethdev.c:1117-1140). dev_reset "
			"returns -1 (-EPERM through ethdev) while the VF is still resetting "
			"(iavf_check_vf_reset_done: VF is still resetting / Wait too long "
			"for reset done!): tried again after a reset event.",
	},
	{
		.driver = "net_ixgbe_vf", .mtu_path = UF_MTU_SET_MTU, .hw_cksum_ok = true,
		.rx_cksum_ok = true, .multiseg_tx_ok = true, .imissed = UF_NO,
		.reset_event = true, .tx_desc_rs_mult = true, .rx_desc_free_mult = true,
		.kernel_driver = "vfio-pci",
		.xstats = xs_nomiss,
		.source = "ixgbe_ethdev.c (DPDK 24.11 line numbers): ixgbevf_mbx_process raises "
			"RTE_ETH_EVENT_INTR_RESET when the PF resets the VF (8208); "
			"eth_ixgbevf_dev_init returns -EAGAIN when reset_hw fails, which "
			"ixgbevf_dev_reset hands to rte_eth_dev_reset (1694: retry later). "
			"ixgbevf_dev_set_mtu through the mailbox (6622); ixgbevf_dev_stats_get "
			"has no imissed; RX/TX paths and their checksum offloads are ixgbe's "
			"(ixgbe_rxtx.c, TX ring a multiple of tx_rs_thresh). Not seen in the lab.",
	},
	{
		.driver = "net_virtio", .mtu_path = UF_MTU_CONFIGURE, .sw_pad60 = true,
		.rx_cksum_ok = true, .multiseg_tx_ok = true, .chain_tx_cheap = true, .imissed = UF_NO, .kernel_driver = "vfio-pci",
		.partial_csum = true, .xstats = xs_nomiss,
		.source = "virtio_ethdev.c:3071-3097 (no IPv4 TX checksum), imissed and oerrors "
			"not populated; mq_mode RSS -ENOTSUP without VIRTIO_NET_F_RSS. 2676-2701 "
			"(vector TX: packed ring with AVX512 only, whatever the offloads). Lab "
			"(QEMU 7.2 virtio-net-pci mq=on,rss=on on vfio-pci): RSS over 2 queues "
			"(QEMU's own, its eBPF steering failed to load), key read back as "
			"programmed, hash types 0x2c read back as 0xac; per-queue xstats "
			"rx_qN_good_packets etc., no drop xstats; link-change interrupt seen. "
			"RX: UDP/TCP only, with VIRTIO_NET_F_GUEST_CSUM (no IPv4 header verdict): "
			"the host's virtio header says DATA_VALID (L4 GOOD) or NEEDS_CSUM (L4 NONE, "
			"a partial sum), virtio_rxtx.c virtio_rx_offload; without UDP_CKSUM "
			"requested GUEST_CSUM is not negotiated and no flag is set.",
	},
	{
		/* observed in the lab (docs/testing.md#lab): QEMU's e1000e (82574) on vfio-pci */
		.driver = "net_e1000_em", .mtu_path = UF_MTU_SET_MTU,
		.pow2_desc = true, .imissed = UF_PARTIAL, .kernel_driver = "vfio-pci",
		.partial_csum = true, .xstats = xs_generic,
		.source = "lab, QEMU 7.2 e1000e on vfio-pci (intel-iommu), DPDK 22.11: one queue, "
			"set_mtu 1500 after configure; xstats are ethdev's basic ones only "
			"(rx_good_packets, ..., no per-queue or register names); the PMD's link "
			"stays UP after QEMU's set_link off (telemetry /ethdev/link_status). "
			"em_rxtx.c eth_em_tx_init sets TCTL.PSP: the NIC pads short frames, "
			"no software padding. Checksum offload and imissed not observed: the "
			"default row's.",
	},
	{
		.driver = "net_vmxnet3", .mtu_path = UF_MTU_CONFIGURE, .sw_pad60 = true,
		.multiseg_tx_ok = true, .chain_tx_cheap = true, .imissed = UF_YES,
		.kernel_driver = "vfio-pci", .min_rx_data_room = RTE_PKTMBUF_HEADROOM + 1518, .xstats = xs_vmxnet3,
		.source = "vmxnet3_ethdev.c:1574-1607 (set_mtu restarts the port), "
			"vmxnet3_rxtx.c:1111-1121 (descriptors rounded down to x32 silently).",
	},
	{
		.driver = "net_af_xdp", .mtu_path = UF_MTU_SET_MTU,
		.sw_pad60 = true, .pow2_desc = true, .rxq_eq_txq = true,
		.queues_from_devargs = true, .imissed = UF_PARTIAL,
		.oerrors_counts_unsent = true, .extra_mbufs = 4096, .kernel_sock = UF_KSOCK_XSK,
		.partial_csum = true, .xstats = xs_generic,
		.source = "rte_eth_af_xdp.c:509-588 (multi-seg TX copies only segment 0: corrupt), "
			"834-870 (imissed = XDP rx_dropped only; rx_ring_full ignored), "
			"1853-1860 (nb_rx_q == nb_tx_q == queue_count). Seen here: veth does not pad, "
			"generic XDP in copy mode; busy_budget=0 needed above ~200 kpps on veth.",
	},
	{
		.driver = "net_af_packet", .mtu_path = UF_MTU_SET_MTU, .max_mtu = 1500,
		.sw_pad60 = true, .multiseg_tx_ok = true, .chain_tx_cheap = true, .rxq_eq_txq = true,
		.queues_from_devargs = true, .imissed = UF_NO, .kernel_sock = UF_KSOCK_PACKET, .partial_csum = true, .xstats = xs_nomiss,
		.rx_ring_devarg = "framecnt",
		.source = "rte_eth_af_packet.c:375-405 (imissed and rx_nombuf never read), "
			"889-896 (qpairs sockets in one fanout group: unpolled ones still get their "
			"share), 142-149 (RX beyond framesz silently truncated). Seen here: the kernel "
			"still processes every frame; veth does not pad. 484 (nb_rx_desc unused), "
			"962-1037 (the ring is framecnt frames, 512 by default: 3.4 ms at 150 kpps).",
	},
	{
		.driver = "net_tap", .mtu_path = UF_MTU_SET_MTU, .max_mtu = 1504, .sw_pad60 = true,
		.multiseg_tx_ok = true, .chain_tx_cheap = true, .rxq_eq_txq = true, .rte_flow = true,
		.imissed = UF_NO, .oerrors_counts_unsent = true, .partial_csum = true, .xstats = xs_nomiss,
		.source = "rte_eth_tap.c:1090-1110 (kernel MTU only through set_mtu), 810-815 "
			"(oerrors = frames handed back). RX checksum offloads are a software check "
			"in the PMD (tap_verify_csum: every payload summed), and a local sender's "
			"partial UDP sum reads BAD: not requested.",
	},
	{
		.driver = "net_ring", .mtu_path = UF_MTU_NA, .multiseg_tx_ok = true,
		.chain_tx_cheap = true,
		.imissed = UF_NO, .xstats = xs_nomiss,
		.source = "rte_eth_ring.c:88-99 (full ring: tx_burst returns less, caller frees), "
			"set_mtu -ENOTSUP. Pointer pass-through: no padding, byte-exact.",
	},
	{
		.driver = "net_null", .mtu_path = UF_MTU_NA, .multiseg_tx_ok = true,
		.chain_tx_cheap = true, .multiseg_tx_silent = true,
		.imissed = UF_NO, .xstats = xs_nomiss,
		.source = "rte_eth_null.c:293-317 (TX frees everything, chains included: "
			"rte_pktmbuf_free; capa 0, MULTI_SEGS advertised from 25.11). "
			"Chained copies measured cheaper from 512 B payload per CPU-second "
			"(docs/benchmarks.md#copy-versus-chain).",
	},
	{
		.driver = "net_pcap", .mtu_path = UF_MTU_NA, .imissed = UF_PARTIAL,
		.queues_from_devargs = true, .partial_csum = true,
		.xstats = xs_nomiss,
		.source = "pcap_ethdev.c:737-790 (no offloads, TX linearises; set_mtu -ENOTSUP), "
			  "745-746 (one queue per rx_pcap/tx_pcap devarg). "
			"Byte-exact to a file: no padding.",
	},
	{
		.driver = "net_virtio_user", .mtu_path = UF_MTU_CONFIGURE, .sw_pad60 = true,
		.rx_cksum_ok = true, .multiseg_tx_ok = true, .chain_tx_cheap = true, .imissed = UF_NO,
		.queues_from_devargs = true, .partial_csum = true, .xstats = xs_nomiss,
		.single_file_segs = true, .link_is_peer = true, .start_err_in_log = true,
		.source = "The virtio PMD's rings (virtio_ethdev.c) with a vhost-user socket as the "
			"device (virtio_user_ethdev.c, virtio_user/vhost_user.c). "
			"vhost_user.c update_memory_region: at most 8 memory regions, one per "
			"hugepage file: without --single-file-segments 'Too many memory regions', "
			"virtio_user_start_device 'Failed to start device', and dev_start still "
			"returns 0 with the link up (seen here). queues= devarg fixes the queue "
			"pairs (max 8 by default); mq_mode RSS -ENOTSUP: virtio_user offers no "
			"VIRTIO_NET_F_RSS (virtio_user_dev.c VIRTIO_USER_SUPPORTED_FEATURES), so "
			"no RSS with a vhost-user backend: the peer picks the queue. server=1: "
			"probe blocks in accept() until the backend connects, reconnects after a "
			"peer restart (link down, then up; LSC interrupt). No IPv4 TX checksum; "
			"imissed/oerrors not populated; xstats rx_q*/tx_q* good/size bins only. "
			"RX UDP checksum as for virtio: the backend's virtio header, read for "
			"free (NEEDS_CSUM marks a partial sum as L4 NONE); no IPv4 verdict. Seen "
			"here (vhost lab, net_vhost backend): GUEST_CSUM negotiated, UDP_CKSUM on.",
	},
	{
		.driver = "net_vhost", .mtu_path = UF_MTU_NA, .sw_pad60 = true,
		.multiseg_tx_ok = true, .chain_tx_cheap = true, .imissed = UF_NO,
		.queues_from_devargs = true, .partial_csum = true, .xstats = xs_vhost,
		.link_is_peer = true,
		.source = "rte_eth_vhost.c: queues= devarg fixes the queue pairs (the virtio "
			"front end chooses how many it enables); link up on new_device, down on "
			"destroy_device (LSC); client=1 reconnects by itself (RTE_VHOST_USER_"
			"CLIENT | RECONNECT); no RSS (the front end's TX queue is our RX queue); "
			"set_mtu absent (-ENOTSUP); tx_burst returns less when the guest ring is "
			"full or no device is attached (caller frees); xstats rx_/tx_ "
			"good_packets, total_bytes, missed_pkts, size bins (vhost_rxport_stat_"
			"strings). dequeue-zero-copy was removed in 21.x. "
			"Seen here: needs no --single-file-segments itself.",
	},
	{
		.driver = "net_memif", .mtu_path = UF_MTU_NA, .max_mtu = 1500, .sw_pad60 = true,
		.multiseg_tx_ok = true, .chain_tx_cheap = true, .imissed = UF_NO, .xstats = xs_nomiss,
		.link_is_peer = true,
		.source = "rte_eth_memif.c:192-202 (MTU 1500 via ethdev; set_mtu -ENOTSUP), "
			"1453-1497 (full ring or peer gone: tx_burst returns less). Devargs: "
			"role=server|client (default client), socket= (default /run/memif.sock), "
			"id=, rsize= (log2 ring size, default 10), bsize= (buffer 2048), "
			"socket-abstract=no for a path socket, zero-copy=yes (client only, "
			"EAL memory shared: --single-file-segments and the peer's buffers "
			"must come from the shared segments). Queue pairs: the server's "
			"configure decides, the client takes min(its, server's). Link up once "
			"connected; a peer restart is down then up (polled, every 1 ms while down: no LSC "
			"flag, no event). No RSS, no "
			"offloads. Seen here: a client's start fails (-EPERM) without the server's "
			"socket; a client turned away does not retry; port counters read 0 once the "
			"peer is gone; the client owns the rings' memory (frames unread when it "
			"exits are lost unseen).",
	},
	/* the default row: what we assume of a driver nobody has described yet */
	{
		.driver = "*", .mtu_path = UF_MTU_SET_MTU, .sw_pad60 = true, .pow2_desc = true,
		.imissed = UF_PARTIAL, .kernel_driver = "vfio-pci", .partial_csum = true,
		.xstats = xs_generic,
		.source = "conservative default for an unknown driver: software checksums and "
			"padding, no chaining, power-of-2 rings, set_mtu after configure.",
	},
};
/* clang-format on */

#define N_ROWS ((int)RTE_DIM(table))

const struct uf_quirk *
uf_quirk_lookup(const char *driver_name)
{
	int i;

	if (driver_name != NULL) {
		for (i = 0; i < N_ROWS - 1; i++) {
			const struct uf_quirk *q = &table[i];

			if (q->prefix ? strncmp(driver_name, q->driver, strlen(q->driver)) == 0
				      : strcmp(driver_name, q->driver) == 0)
				return q;
		}
	}
	return &table[N_ROWS - 1];
}

const struct uf_quirk *
uf_quirk_lookup_vdev(const char *devstr)
{
	char name[64];
	size_t n = strcspn(devstr, ",");

	if (n >= sizeof(name))
		return uf_quirk_lookup(NULL);
	if (strncmp(devstr, "eth_", 4) == 0)
		snprintf(name, sizeof(name), "net_%.*s", (int)(n - 4), devstr + 4);
	else
		snprintf(name, sizeof(name), "%.*s", (int)n, devstr);
	n = strlen(name);
	while (n > 0 && name[n - 1] >= '0' && name[n - 1] <= '9') /* the instance number */
		name[--n] = '\0';
	/* aliases without the net_ prefix: virtio_user0 is net_virtio_user's */
	if (strncmp(name, "net_", 4) != 0 && n + 4 < sizeof(name)) {
		memmove(name + 4, name, n + 1);
		memcpy(name, "net_", 4);
	}
	return uf_quirk_lookup(name);
}

const struct uf_quirk *
uf_quirk_table(int *n)
{
	*n = N_ROWS;
	return table;
}

const char *
uf_rx_cksum_name(uint64_t rx_offloads, char *buf, size_t len)
{
	const bool ip = (rx_offloads & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM) != 0,
		   udp = (rx_offloads & RTE_ETH_RX_OFFLOAD_UDP_CKSUM) != 0;

	snprintf(buf, len, "%s", ip && udp ? "ipv4,udp" : ip ? "ipv4" : udp ? "udp" : "none");
	return buf;
}

const char *
uf_mtu_path_name(enum uf_mtu_path p)
{
	switch (p) {
	case UF_MTU_CONFIGURE:
		return "configure";
	case UF_MTU_SET_MTU:
		return "set_mtu";
	case UF_MTU_SET_STOPPED:
		return "set_mtu_while_stopped";
	case UF_MTU_NA:
		return "not_applicable";
	}
	return "?";
}

static uint16_t
pow2_floor(uint16_t v)
{
	uint16_t p = 1;

	while ((uint32_t)p * 2 <= v)
		p *= 2;
	return p;
}

static uint16_t
fix_desc(const struct uf_quirk *q, const struct rte_eth_desc_lim *lim, uint16_t want, uint16_t mult)
{
	uint16_t v = want;

	if (lim->nb_max != 0 && v > lim->nb_max)
		v = lim->nb_max;
	if (v < lim->nb_min)
		v = lim->nb_min;
	if (lim->nb_align > 1)
		v = RTE_ALIGN_CEIL(v, lim->nb_align);
	if (q->pow2_desc && !rte_is_power_of_2(v)) {
		v = pow2_floor(v);
		if (v < lim->nb_min)
			v = (uint16_t)rte_align32pow2(lim->nb_min);
	}
	/* a multiple of the PMD's tx_rs_thresh (ixgbe, i40e, ice, iavf refuse the queue
	 * otherwise) or rx_free_thresh too: up, or down where up passes nb_max */
	if (mult > 1 && v % mult != 0) {
		uint32_t up = RTE_ALIGN_CEIL((uint32_t)v, mult);

		if (lim->nb_max == 0 || up <= lim->nb_max)
			v = (uint16_t)up;
		else
			v = (uint16_t)RTE_ALIGN_FLOOR(v, mult);
	}
	return v;
}

bool
uf_decide_vlan_filter(const struct uf_quirk *q, const struct rte_eth_dev_info *di, int n_tagged,
		      bool untagged)
{
	if (n_tagged <= 0 || (di->rx_offload_capa & RTE_ETH_RX_OFFLOAD_VLAN_FILTER) == 0)
		return false;
	return !(untagged && q->vlan_drops_untagged);
}

int
uf_quirk_decide(const struct uf_quirk *q, const struct rte_eth_dev_info *di,
		const struct uf_port_req *req, struct uf_port_plan *out, char *why, size_t why_len)
{
	uint16_t max_mtu = di->max_mtu;
	uint32_t frame;

	memset(out, 0, sizeof(*out));
	if (req->nb_queues > di->max_rx_queues || req->nb_queues > di->max_tx_queues) {
		snprintf(why, why_len,
			 "%u workers need %u RX and TX queues; %s offers %u RX and %u "
			 "TX%s",
			 req->nb_queues, req->nb_queues, di->driver_name, di->max_rx_queues,
			 di->max_tx_queues,
			 q->queues_from_devargs ? " (raise qpairs= / queue_count= / queues= "
						  "in the device string)"
						: " (use fewer lcores)");
		return -EINVAL;
	}
	if (q->queues_from_devargs && req->nb_queues != di->max_rx_queues) {
		snprintf(why, why_len,
			 "%s was created with %u queues but there are %u workers: "
			 "unpolled queues would lose their share of the traffic; set qpairs= "
			 "(af_packet), queue_count= (af_xdp), queues= (virtio_user, vhost) or "
			 "the rx_pcap= count (pcap) to %u",
			 di->driver_name, di->max_rx_queues, req->nb_queues, req->nb_queues);
		return -EINVAL;
	}

	if (q->rx_desc_free_mult) {
		/* ixgbe, i40e, ice, iavf: check_rx_burst_bulk_alloc_preconditions wants the
		 * ring a multiple of rx_free_thresh and larger than it, or bulk-alloc and
		 * vector RX are off for the whole port (docs/pmd-quirks.md, rx_desc_free_mult) */
		const uint16_t thr = di->default_rxconf.rx_free_thresh != 0
						     ? di->default_rxconf.rx_free_thresh
						     : 32;

		out->rx_desc = fix_desc(q, &di->rx_desc_lim, req->rx_desc, thr);
		if (out->rx_desc <= thr &&
		    (di->rx_desc_lim.nb_max == 0 || 2 * (uint32_t)thr <= di->rx_desc_lim.nb_max))
			out->rx_desc = (uint16_t)(2 * thr);
	} else {
		out->rx_desc = fix_desc(q, &di->rx_desc_lim, req->rx_desc, 1);
	}
	/* ixgbe: queues share the packet buffer; without DROP_EN one queue whose worker
	 * stalls fills it and the others lose too */
	out->rx_drop_en = q->rx_drop_en_mq && req->nb_queues > 1;
	out->tx_desc = fix_desc(q, &di->tx_desc_lim, req->tx_desc,
				q->tx_desc_rs_mult
						? (di->default_txconf.tx_rs_thresh != 0
								   ? di->default_txconf.tx_rs_thresh
								   : 32)
						: 1);

	if (q->max_mtu != 0 && (max_mtu == 0 || q->max_mtu < max_mtu))
		max_mtu = q->max_mtu;
	out->mtu_path = q->mtu_path;
	out->mtu = req->mtu != 0 ? req->mtu : RTE_ETHER_MTU;
	if (req->mtu == 0 && req->cur_mtu != 0) {
		/* no MTU configured on a port that shares a kernel netdev (mlx5, af_xdp,
		 * af_packet, tap): keep the netdev's, clamped to what the PMD takes, and never
		 * set it (docs/configuration.md, ports[].mtu). A device udpfan owns alone gets
		 * 1500 as before. */
		out->mtu_keep = true;
		out->mtu = req->cur_mtu;
		if (out->mtu_path != UF_MTU_NA && max_mtu != 0 && out->mtu > max_mtu)
			out->mtu = max_mtu;
		if (out->mtu_path != UF_MTU_NA && out->mtu < di->min_mtu)
			out->mtu = di->min_mtu;
	}
	if (out->mtu_path != UF_MTU_NA) {
		if (out->mtu > max_mtu || out->mtu < di->min_mtu) {
			snprintf(why, why_len, "MTU %u is outside what %s allows (%u..%u)",
				 out->mtu, di->driver_name, di->min_mtu, max_mtu);
			return -EINVAL;
		}
	}
	out->pad_to = q->sw_pad60 ? 60 : 0;

	/* RX buffers hold a whole frame: no scattered RX in the datapath */
	frame = (uint32_t)out->mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN + 2 * RTE_VLAN_HLEN;
	out->data_room = (uint16_t)RTE_MAX((uint32_t)RTE_MBUF_DEFAULT_BUF_SIZE,
					   RTE_ALIGN_CEIL(frame, 64) + RTE_PKTMBUF_HEADROOM);
	if (q->min_rx_data_room > out->data_room)
		out->data_room = q->min_rx_data_room;
	if (di->min_rx_bufsize > (uint32_t)out->data_room - RTE_PKTMBUF_HEADROOM)
		out->data_room = (uint16_t)(di->min_rx_bufsize + RTE_PKTMBUF_HEADROOM);

	/*
	 * Multi-seg TX only where the row says the PMD transmits chains correctly, the config
	 * can produce a chain at all, and either the PMD's chained path costs nothing or the
	 * operator asked for chains (fanout: chain). Requesting MULTI_SEGS on ixgbe/i40e/ice/
	 * iavf loses the vector TX path, and chaining rules out fast-free: fanout auto copies
	 * there instead (docs/pmd-quirks.md, "Chained fan-out").
	 */
	if (((di->tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) || q->multiseg_tx_silent) &&
	    q->multiseg_tx_ok && req->want_chain && (q->chain_tx_cheap || req->chain_forced)) {
		out->chain_ok = true;
		out->chain_min_frame = q->chain_min_frame;
		/* requested only where offered: configure refuses an offload not in the capa */
		out->tx_offloads |= di->tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	}
	/* fast free: refcnt 1 and one pool per TX queue, so never with chained fan-out */
	if (q->fast_free_ok && !out->chain_ok && req->single_pool_tx &&
	    (di->tx_offload_capa & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE))
		out->tx_offloads |= RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;

	/*
	 * RX checksum verdicts (docs/pmd-quirks.md, "RX checksum verdicts"): only where the row
	 * says the device computes them for free (hardware, or a hypervisor's virtio header) and
	 * the capability has them. IPV4_CKSUM: a GOOD verdict skips the software header sum, a
	 * BAD one is malformed. UDP_CKSUM: a BAD verdict is malformed (the copies would be
	 * discarded by every receiver, or laundered by udp_checksum: zero), GOOD skips the
	 * partial-checksum test, NONE (virtio) marks a partial one. A PMD that checks in software
	 * (tap) would sum every payload and call a local sender's partial checksum bad.
	 */
	if (q->rx_cksum_ok && !req->rx_cksum_off)
		out->rx_offloads = di->rx_offload_capa & UF_RX_CKSUM_WANTED;
	/* and only the verdicts of what was enabled are read: ENA marks every IPv4 frame GOOD
	 * on a device that checks no L3 sum (it offers no IPV4_CKSUM then), em sets BAD with
	 * the offload off, and a row not trusted requests nothing: its flags are ignored */
	out->rx_ck_ignore = RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK;
	if (out->rx_offloads & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM)
		out->rx_ck_ignore &= ~RTE_MBUF_F_RX_IP_CKSUM_MASK;
	if (out->rx_offloads & RTE_ETH_RX_OFFLOAD_UDP_CKSUM)
		out->rx_ck_ignore &= ~RTE_MBUF_F_RX_L4_CKSUM_MASK;

	/* RSS over the workers, hash fields masked to what the device can hash on */
	if (req->nb_queues > 1) {
		if (di->flow_type_rss_offloads == 0) {
			/* queues fixed by devargs, or chosen by the peer process (vhost-user,
			 * memif: the sender picks the ring): no RSS to configure */
			if (!q->queues_from_devargs && !q->link_is_peer) {
				snprintf(why, why_len,
					 "%s offers no RSS (flow_type_rss_offloads = 0%s) "
					 "so %u workers cannot share its traffic; run one worker",
					 di->driver_name, q->needs_ddp ? ", ice safe mode?" : "",
					 req->nb_queues);
				return -EINVAL;
			}
		} else {
			const uint64_t want =
					UF_RSS_HF_WANTED | (req->ipv6 ? UF_RSS_HF_WANTED6 : 0);

			out->rss = true;
			out->rss_hf = want & di->flow_type_rss_offloads;
			out->rss_hf_trimmed = want & ~di->flow_type_rss_offloads;
			if (q->rss_fixed) {
				out->rss_hf = di->flow_type_rss_offloads;
				out->rss_hf_trimmed = 0;
			}
			if (out->rss_hf == 0) {
				snprintf(why, why_len,
					 "%s cannot hash IPv4/UDP%s (flow_type_rss_offloads "
					 "= 0x%" PRIx64 "); run one worker",
					 di->driver_name, req->ipv6 ? " nor IPv6/UDP" : "",
					 di->flow_type_rss_offloads);
				return -EINVAL;
			}
			out->rss_key_len = (di->hash_key_size == 40 || di->hash_key_size == 52)
							   ? di->hash_key_size
							   : 0;
		}
	}
	/* flows spread the listen port over several queues, and isolate (mlx5) keeps everything
	 * else with the kernel whatever the queue count */
	out->try_flow = q->rte_flow && (req->nb_queues > 1 || q->flow_isolate);
	out->flow_isolate = q->flow_isolate;
	out->partial_csum = q->partial_csum;
	/* with lsc = 0 some PMDs never learn the link (ENA turns its link-change AENQ off and
	 * reads down forever); configure refuses lsc = 1 where the flag is absent */
	out->lsc = di->dev_flags != NULL && (*di->dev_flags & RTE_ETH_DEV_INTR_LSC) != 0;
	out->link_from_kernel = !out->lsc && q->kernel_sock != UF_KSOCK_NONE && di->if_index != 0;
	out->tx_syscall = q->kernel_sock != UF_KSOCK_NONE;
	/* ENA clears RTE_ETH_DEV_INTR_LSC where the device lacks the link-change AENQ group,
	 * and then nothing ever writes its link: down forever (docs/pmd-quirks.md) */
	out->link_assumed_up = !out->lsc && !out->link_from_kernel && q->link_lsc_only;
	return 0;
}

bool
uf_quirk_reset_again(const struct uf_quirk *q, int ret, bool after_event, unsigned int attempt)
{
	return ret == -EAGAIN || (ret == -EPERM && q->reset_busy_eperm && after_event &&
				  attempt < UF_RESET_BUSY_RETRIES);
}

static void
print_list(FILE *f, const char *const *l, const char *sep, const char *quote)
{
	int j;

	for (j = 0; l != NULL && l[j] != NULL; j++)
		fprintf(f, "%s%s%s%s", j ? sep : "", quote, l[j], quote);
}

static const char *
tri(enum uf_tristate t)
{
	return t == UF_YES ? "yes" : t == UF_PARTIAL ? "partial" : "no";
}

static const char *
quirk_match(const struct uf_quirk *q)
{
	return q->prefix ? "prefix" : strcmp(q->driver, "*") == 0 ? "default" : "exact";
}

static const char *
kernel_sock_name(enum uf_kernel_sock k)
{
	return k == UF_KSOCK_XSK ? "xsk" : k == UF_KSOCK_PACKET ? "packet" : NULL;
}

/*
 * The row as --list-quirks prints it, in its JSON order: X(kind, json key, value, text
 * column, width). Kinds: BOOL, UINT, STR, NSTR (a string or null), LIST (of strings).
 * A field with a text column (not NULL) is in the text table too, in this order, after the
 * driver. A new field of struct uf_quirk is one line here (and docs/pmd-quirks.md).
 */
#define UF_QUIRK_FIELDS(X)                                                \
	X(STR, driver, q->driver, NULL, 0)                                \
	X(STR, match, quirk_match(q), NULL, 0)                            \
	X(STR, mtu_path, uf_mtu_path_name(q->mtu_path), "mtu", 22)        \
	X(UINT, max_mtu, q->max_mtu, NULL, 0)                             \
	X(BOOL, sw_pad60, q->sw_pad60, "pad60", 5)                        \
	X(BOOL, hw_cksum_ok, q->hw_cksum_ok, "hwcsum", 6)                 \
	X(BOOL, rx_cksum_ok, q->rx_cksum_ok, "rxcsum", 6)                 \
	X(BOOL, multiseg_tx_ok, q->multiseg_tx_ok, "chain", 5)            \
	X(BOOL, chain_tx_cheap, q->chain_tx_cheap, NULL, 0)               \
	X(BOOL, multiseg_tx_silent, q->multiseg_tx_silent, NULL, 0)       \
	X(UINT, chain_min_frame, q->chain_min_frame, NULL, 0)             \
	X(BOOL, tx_desc_rs_mult, q->tx_desc_rs_mult, NULL, 0)             \
	X(BOOL, rx_desc_free_mult, q->rx_desc_free_mult, NULL, 0)         \
	X(BOOL, rx_drop_en_mq, q->rx_drop_en_mq, NULL, 0)                 \
	X(BOOL, fast_free_ok, q->fast_free_ok, "ffree", 5)                \
	X(BOOL, pow2_desc, q->pow2_desc, "pow2", 5)                       \
	X(BOOL, rxq_eq_txq, q->rxq_eq_txq, "rx=tx", 5)                    \
	X(BOOL, queues_from_devargs, q->queues_from_devargs, NULL, 0)     \
	X(BOOL, rte_flow, q->rte_flow, "flow", 5)                         \
	X(BOOL, rss_fixed, q->rss_fixed, "rssfx", 5)                      \
	X(BOOL, non_l4_to_q0, q->non_l4_to_q0, NULL, 0)                   \
	X(BOOL, flow_isolate, q->flow_isolate, NULL, 0)                   \
	X(STR, imissed, tri(q->imissed), "imissed", 8)                    \
	X(BOOL, oerrors_counts_unsent, q->oerrors_counts_unsent, NULL, 0) \
	X(UINT, min_rx_data_room, q->min_rx_data_room, NULL, 0)           \
	X(UINT, extra_mbufs, q->extra_mbufs, NULL, 0)                     \
	X(NSTR, rx_ring_devarg, q->rx_ring_devarg, NULL, 0)               \
	X(BOOL, needs_timer_manage, q->needs_timer_manage, NULL, 0)       \
	X(BOOL, reset_event, q->reset_event, NULL, 0)                     \
	X(BOOL, reset_busy_eperm, q->reset_busy_eperm, NULL, 0)           \
	X(BOOL, llq_wc_bar2, q->llq_wc_bar2, NULL, 0)                     \
	X(BOOL, needs_ddp, q->needs_ddp, NULL, 0)                         \
	X(NSTR, kernel_sock, kernel_sock_name(q->kernel_sock), NULL, 0)   \
	X(BOOL, partial_csum, q->partial_csum, NULL, 0)                   \
	X(NSTR, kernel_driver, q->kernel_driver, NULL, 0)                 \
	X(BOOL, single_file_segs, q->single_file_segs, NULL, 0)           \
	X(BOOL, link_is_peer, q->link_is_peer, NULL, 0)                   \
	X(BOOL, link_lsc_only, q->link_lsc_only, NULL, 0)                 \
	X(BOOL, start_err_in_log, q->start_err_in_log, NULL, 0)           \
	X(BOOL, vlan_drops_untagged, q->vlan_drops_untagged, NULL, 0)     \
	X(LIST, xstats, q->xstats, "xstats", 0)                           \
	X(LIST, reset_xstats, q->reset_xstats, NULL, 0)                   \
	X(LIST, guarded_xstats, q->guarded_xstats, NULL, 0)               \
	X(STR, source, q->source, NULL, 0)

/* one field as JSON; sep: what comes before it */
#define JSON_BOOL(f, k, v) fprintf(f, "\"%s\": %s", k, (v) ? "true" : "false")
#define JSON_UINT(f, k, v) fprintf(f, "\"%s\": %u", k, (unsigned int)(v))
#define JSON_STR(f, k, v) fprintf(f, "\"%s\": \"%s\"", k, v)
#define JSON_NSTR(f, k, v)                                                                         \
	do {                                                                                       \
		const char *s_ = (v);                                                              \
		fprintf(f, "\"%s\": %s%s%s", k, s_ ? "\"" : "", s_ ? s_ : "null", s_ ? "\"" : ""); \
	} while (0)
#define JSON_LIST(f, k, v)                    \
	do {                                  \
		fprintf(f, "\"%s\": [", k);   \
		print_list(f, v, ", ", "\""); \
		fprintf(f, "]");              \
	} while (0)

/* one field as a text column (a list: the last column, comma-separated) */
#define TEXT_BOOL(f, w, v) fprintf(f, "%-*s ", w, (v) ? "yes" : "no")
#define TEXT_UINT(f, w, v) fprintf(f, "%-*u ", w, (unsigned int)(v))
#define TEXT_STR(f, w, v) fprintf(f, "%-*s ", w, v)
#define TEXT_NSTR(f, w, v) fprintf(f, "%-*s ", w, (v) ? (v) : "-")
#define TEXT_LIST(f, w, v) print_list(f, v, ",", "")

static void
print_json_row(FILE *f, const struct uf_quirk *q)
{
	bool first = true;

#define ROW_JSON(kind, k, v, head, w)         \
	fprintf(f, "%s", first ? "{" : ", "); \
	first = false;                        \
	JSON_##kind(f, #k, v);
	UF_QUIRK_FIELDS(ROW_JSON)
#undef ROW_JSON
	fprintf(f, "}");
}

static void
print_text_row(FILE *f, const struct uf_quirk *q)
{
	fprintf(f, "%-15s ", q->prefix ? "mlx5*" : q->driver);
#define ROW_TEXT(kind, k, v, head, w) \
	if (head != NULL)             \
		TEXT_##kind(f, w, v);
	UF_QUIRK_FIELDS(ROW_TEXT)
#undef ROW_TEXT
	fprintf(f, "\n");
}

static void
text_head(FILE *f, const char *head, int w, bool last)
{
	if (head != NULL)
		fprintf(f, "%-*s%s", w, head, last ? "" : " ");
}

static void
print_text_head(FILE *f)
{
	fprintf(f, "%-15s ", "driver");
#define HEAD(kind, k, v, head, w) text_head(f, head, w, strcmp(#kind, "LIST") == 0);
	UF_QUIRK_FIELDS(HEAD)
#undef HEAD
	fprintf(f, "\n");
}

void
uf_quirk_print(FILE *f, bool json)
{
	int i;

	if (json)
		fprintf(f, "[");
	else
		print_text_head(f);
	for (i = 0; i < N_ROWS; i++) {
		if (json) {
			fprintf(f, "%s\n ", i ? "," : "");
			print_json_row(f, &table[i]);
		} else {
			print_text_row(f, &table[i]);
		}
	}
	if (json)
		fprintf(f, "\n]\n");
}

int
uf_wc_check(const char *pat_memtype_list, uint64_t bar_phys)
{
	FILE *f = fopen(pat_memtype_list, "r");
	char line[256];
	int ret = -1;

	if (f == NULL)
		return -1;
	/* lines look like: "PAT: [mem 0x00000000fe800000-0x00000000fe900000] write-combining" */
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long long lo, hi;
		const char *p = strstr(line, "[mem 0x");

		if (p == NULL || sscanf(p, "[mem 0x%llx-0x%llx]", &lo, &hi) != 2)
			continue;
		if (bar_phys < lo || bar_phys >= hi)
			continue;
		ret = strstr(line, "write-combining") != NULL ? 1 : 0;
		break;
	}
	fclose(f);
	return ret;
}

int
uf_ice_ddp_find(const char *fw_root, const char *dsn, char *path, size_t len, bool *found_xz)
{
	static const char *const dirs[] = { "updates/intel/ice/ddp", "intel/ice/ddp" };
	struct stat st;
	char xz[512];
	int pass, i;

	*found_xz = false;
	/* the PMD's order: per-device package first (both dirs), then the generic one */
	for (pass = 0; pass < 2; pass++) {
		if (pass == 0 && (dsn == NULL || dsn[0] == '\0'))
			continue;
		for (i = 0; i < 2; i++) {
			if (pass == 0)
				snprintf(path, len, "%s/%s/ice-%s.pkg", fw_root, dirs[i], dsn);
			else
				snprintf(path, len, "%s/%s/ice.pkg", fw_root, dirs[i]);
			if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
				return 0;
			snprintf(xz, sizeof(xz), "%s.xz", path);
			if (stat(xz, &st) == 0)
				*found_xz = true;
			snprintf(xz, sizeof(xz), "%s.zst", path);
			if (stat(xz, &st) == 0)
				*found_xz = true;
		}
	}
	return -ENOENT;
}
