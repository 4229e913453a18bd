/* SPDX-License-Identifier: BSD-3-Clause
 * What udpfan believes about each PMD, and the start-up decisions that follow from it.
 *
 * One row per driver name (rte_eth_dev_info.driver_name; mlx5 by prefix). Everything the
 * datapath does differently per NIC is decided here, once, from the row and the device's
 * dev_info: the datapath reads the outcome (struct uf_port_plan), never the driver name.
 * Adding a NIC means adding a row in uf_quirks.c.
 */
#ifndef UF_QUIRKS_H
#define UF_QUIRKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ethdev.h>

enum uf_mtu_path {
	UF_MTU_CONFIGURE = 0, /* rxmode.mtu at configure is applied by the PMD */
	UF_MTU_SET_MTU,       /* configure ignores it: rte_eth_dev_set_mtu() after configure */
	UF_MTU_SET_STOPPED,   /* applied at start; set_mtu refused (-EBUSY) while started */
	UF_MTU_NA,            /* no MTU concept (-ENOTSUP): frames pass as they are */
};

enum uf_tristate {
	UF_NO = 0,
	UF_YES,
	UF_PARTIAL,
};

/*
 * Kernel sockets behind a PMD whose own counters udpfan reads (the PMD leaves some out).
 * Such a vdev runs on an existing kernel interface (iface=): checked before EAL.
 */
enum uf_kernel_sock {
	UF_KSOCK_NONE = 0,
	UF_KSOCK_XSK,    /* AF_XDP: XDP_STATISTICS, XDP_OPTIONS; XDP attach mode by netlink */
	UF_KSOCK_PACKET, /* AF_PACKET: PACKET_STATISTICS */
};

struct uf_quirk {
	const char *driver; /* driver_name, or its prefix when prefix is set */
	bool prefix;
	enum uf_mtu_path mtu_path;
	uint16_t max_mtu; /* 0: trust dev_info.max_mtu */
	bool sw_pad60;    /* the PMD/HW does not pad frames below 60 bytes: pad in software */
	bool hw_cksum_ok; /* TX IPv4/UDP checksum offload may be used where capa has it */
	/* the device's RX checksum verdicts come free and may be trusted: RX_OFFLOAD_IPV4_CKSUM
	 * and UDP_CKSUM are requested where rx_offload_capa has them, and a GOOD IPv4 verdict
	 * skips the software header sum. false: nothing requested (a PMD that would check in
	 * software, or one nobody has described) (docs/pmd-quirks.md, "RX checksum verdicts") */
	bool rx_cksum_ok;
	bool multiseg_tx_ok; /* chained mbufs are transmitted correctly */
	/* requesting MULTI_SEGS keeps the PMD's fastest TX path: fanout auto may ask for it.
	 * false: MULTI_SEGS (and the fast-free it rules out) costs a vector/simple TX path,
	 * so only fanout: chain requests it (docs/pmd-quirks.md, "Chained fan-out") */
	bool chain_tx_cheap;
	/* the PMD transmits chains correctly but does not advertise MULTI_SEGS (net_null before
	 * DPDK 25.11: its TX frees whole chains): chain_ok without requesting the offload,
	 * which ethdev would refuse (docs/pmd-quirks.md, "Chained fan-out") */
	bool multiseg_tx_silent;
	uint16_t chain_min_frame; /* shorter chained frames break the PMD: copy them (0: none) */
	bool tx_desc_rs_mult;     /* TX ring a multiple of default_txconf.tx_rs_thresh */
	bool fast_free_ok;        /* MBUF_FAST_FREE may be used (refcnt and one-pool rules kept) */
	bool pow2_desc;           /* descriptor counts must be powers of 2 */
	bool rxq_eq_txq;          /* RX and TX queue counts must be equal */
	bool queues_from_devargs; /* queue count fixed by devargs (qpairs / queue_count) */
	bool rss_fixed;           /* hash fields cannot be changed (ENA) */
	bool non_l4_to_q0;        /* RSS sends non-TCP/UDP (ARP, fragments) to queue 0 */
	bool rte_flow;            /* rte_flow steering of a UDP port may be tried */
	bool flow_isolate;        /* rte_flow_isolate leaves unmatched traffic to the kernel */
	enum uf_tristate imissed; /* imissed is populated: yes, partial (undercounts), no */
	bool oerrors_counts_unsent; /* oerrors counts frames tx_burst handed back (af_xdp, tap) */
	uint16_t min_rx_data_room;  /* RX mbuf data room the PMD insists on, 0: none */
	uint32_t extra_mbufs;       /* mbufs the PMD holds beyond the descriptor rings */
	/* the PMD ignores nb_rx_desc and sizes its RX ring from this devarg (af_packet's
	 * framecnt, 512 frames by default): udpfan passes ports[].rx_desc there unless the
	 * device string sets it (docs/pmd-quirks.md, rx_ring_devarg) */
	const char *rx_ring_devarg;
	bool llq_wc_bar2; /* TX descriptors pushed through BAR2: it must be write-combining */
	bool needs_ddp;   /* ice: no DDP package, no port (or safe mode: no RSS/offloads/flow) */
	enum uf_kernel_sock kernel_sock;
	/* received UDP checksums may be partial (CHECKSUM_PARTIAL from a local kernel sender:
	 * kernel sockets, tap, virtio/vhost, pcap of a sending host): uf_csum_complete runs */
	bool partial_csum;
	bool needs_timer_manage; /* rte_timer_manage() must run on the control lcore (ENA) */
	bool reset_event;        /* RTE_ETH_EVENT_INTR_RESET is raised and must be handled */
	/* rte_eth_dev_reset() fails with -1 (-EPERM) while the VF is still resetting (the PF has
	 * not finished): after a reset event it is tried again as -EAGAIN is (uf_quirk_reset_again) */
	bool reset_busy_eperm;
	const char *kernel_driver; /* PCI: the kernel driver the device must be bound to */
	const char *const *xstats; /* extended stats that account for loss (driver-specific) */
	/* fnmatch(3) patterns of xstats whose rise means the PMD found a broken queue and wants
	 * a reset it does not signal: udpfan requests the reset itself (docs/pmd-quirks.md) */
	const char *const *reset_xstats;
	/* patterns of xstats whose readings may be garbage: reported only when plausible */
	const char *const *guarded_xstats;
	/* vhost-user front end (virtio_user): the backend maps every memory segment file and
	 * takes at most 8 (VHOST_MEMORY_MAX_NREGIONS): EAL --single-file-segments is added
	 * (docs/pmd-quirks.md, "vhost-user and memif") */
	bool single_file_segs;
	/* the link is the peer process: up once it connects, down when it goes, up again when
	 * a new one connects (vhost-user, memif); a restart of the peer is a link flap */
	bool link_is_peer;
	/* only the PMD's link-change notification writes its link: without RTE_ETH_DEV_INTR_LSC
	 * (the device lacks the notification) it reads down forever, polled or not: treated as up
	 * (uf_port_plan.link_assumed_up) */
	bool link_lsc_only;
	/* rte_eth_dev_start() returns 0 even where the PMD failed to start the device and only
	 * logged why (virtio_user_start_device): an ERR line from the PMD during start fails it */
	bool start_err_in_log;
	/* with RTE_ETH_RX_OFFLOAD_VLAN_FILTER on and a VID added, untagged frames to the port's
	 * MAC are no longer received (mlx5_traffic_enable: MAC flows per VID only) */
	bool vlan_drops_untagged;
	/* RX ring a multiple of default_rxconf.rx_free_thresh (and above it): otherwise the
	 * PMD turns bulk-alloc and vector RX off for the whole port */
	bool rx_desc_free_mult;
	/* more than one RX queue: rx_drop_en, so a full queue drops its own frames only */
	bool rx_drop_en_mq;
	const char *source; /* where the facts come from and what was seen */
};

/* The row for a driver name; never NULL (the conservative default row for unknown drivers). */
const struct uf_quirk *uf_quirk_lookup(const char *driver_name);

/*
 * The row for a vdev string before EAL has probed it: "net_af_xdp0,iface=eth1" is
 * net_af_xdp's, and DPDK's eth_ aliases ("eth_af_packet0") and names without net_
 * ("virtio_user0") are the net_ drivers'.
 */
const struct uf_quirk *uf_quirk_lookup_vdev(const char *devstr);

/* The whole table, for --list-quirks; count in *n, the default row last. */
const struct uf_quirk *uf_quirk_table(int *n);

/* What udpfan asks of a port. */
struct uf_port_req {
	uint16_t nb_queues; /* workers */
	uint16_t rx_desc;
	uint16_t tx_desc;
	uint16_t mtu;        /* 0: not configured: cur_mtu where known, else 1500 */
	uint16_t cur_mtu;    /* the kernel netdev's MTU where the port has one, else 0 */
	bool want_chain;     /* the config can produce chained copies (uf_plan_may_chain) */
	bool chain_forced;   /* fanout: chain: MULTI_SEGS even where it costs a fast TX path */
	bool single_pool_tx; /* every mbuf sent on a TX queue comes from one pool */
	bool rx_cksum_off;   /* the operator turned the RX checksum offloads off */
	bool ipv6;           /* the port has IPv6 addresses: RSS on IPv6/UDP too */
};

/* What udpfan will do with the port: decided once, read by setup and the datapath. */
struct uf_port_plan {
	uint16_t rx_desc;
	uint16_t tx_desc;
	enum uf_mtu_path mtu_path;
	uint16_t mtu;
	bool mtu_keep;   /* no MTU configured: the netdev keeps its own, set_mtu is not called */
	uint16_t pad_to; /* 60 or 0 */
	bool chain_ok;   /* chained fan-out may be used on this port (MULTI_SEGS requested) */
	uint16_t chain_min_frame; /* chained frames below this length must be copied (0: any) */
	uint64_t rx_offloads;
	/* RX flag bits (RTE_MBUF_F_RX_IP_CKSUM_MASK, RTE_MBUF_F_RX_L4_CKSUM_MASK) the worker
	 * clears before it classifies: the verdicts of an offload not enabled on the port,
	 * which some PMDs set all the same (docs/pmd-quirks.md, "RX checksum verdicts") */
	uint64_t rx_ck_ignore;
	uint64_t tx_offloads;
	bool rss;
	uint64_t rss_hf;
	uint64_t rss_hf_trimmed; /* what we wanted and the PMD cannot hash on */
	uint8_t rss_key_len;     /* 0: PMD default key */
	uint16_t data_room;      /* RX mbuf data room (headroom included) */
	bool try_flow;
	bool flow_isolate;
	bool partial_csum; /* the row's partial_csum: the worker completes partial UDP sums */
	/* rte_eth_rxconf.rx_drop_en on every RX queue (the row's rx_drop_en_mq) */
	bool rx_drop_en;
	/* link state (docs/architecture.md, "Link state"): link-change interrupts where
	 * dev_flags has RTE_ETH_DEV_INTR_LSC; else the kernel interface's operstate/carrier
	 * where the row has a kernel socket (the PMD says "up" from start to stop); else the
	 * PMD's link, polled */
	bool lsc;
	bool link_from_kernel;
	/* RTE_ETH_RX_OFFLOAD_VLAN_FILTER in rx_offloads and each tagged port's VID added at
	 * start (uf_decide_vlan_filter) */
	bool vlan_filter;
	bool link_assumed_up; /* no LSC on a link_lsc_only row: the link is up while started */
	/* every tx_burst is a system call (a row with a kernel socket: af_xdp's TX kick,
	 * af_packet's sendto), whose fixed cost a flush of a few frames pays for them alone:
	 * forward.flush_idle_us auto holds the idle flush back (lib/ctl/uf_app_workers.c) */
	bool tx_syscall;
};

/*
 * Decide the port plan from row + dev_info. Returns 0, or -EINVAL with `why` saying what the
 * device cannot do for this request and how to fix it.
 */
int uf_quirk_decide(const struct uf_quirk *q, const struct rte_eth_dev_info *di,
		    const struct uf_port_req *req, struct uf_port_plan *out, char *why,
		    size_t why_len);

/*
 * VLAN filtering on a device with tagged ports (docs/pmd-quirks.md#vlans). A device that
 * filters VLANs (virtio with CTRL_VLAN negotiated and promiscuous mode off, iavf VFs)
 * drops every tag never added: true when the device offers RTE_ETH_RX_OFFLOAD_VLAN_FILTER,
 * n_tagged > 0, and the filter does not cost the untagged port (`untagged`: the device also
 * carries one) its traffic on this row; the port then enables the offload and adds each VID.
 */
bool uf_decide_vlan_filter(const struct uf_quirk *q, const struct rte_eth_dev_info *di,
			   int n_tagged, bool untagged);

/*
 * rte_eth_dev_reset() returned ret (not 0) on try `attempt` + 1: try again (after a backoff)?
 * -EAGAIN ("retry later", ixgbevf while its PF resets) always; -EPERM on a reset_busy_eperm
 * row (iavf: "VF is still resetting") when the reset follows the device's reset event, at
 * most UF_RESET_BUSY_RETRIES times: each such call has already waited in the PMD (iavf:
 * IAVF_RESET_WAIT_CNT 2000 x 20 ms, 40 s, in 23.11 and 24.11). The caller bounds the rest.
 */
#define UF_RESET_BUSY_RETRIES 2
bool uf_quirk_reset_again(const struct uf_quirk *q, int ret, bool after_event,
			  unsigned int attempt);

/* The RSS hash fields udpfan wants: IPv4 + UDP ports, so flows spread over workers. */
#define UF_RSS_HF_WANTED (RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_FRAG_IPV4)
/* ... and on a port with IPv6 addresses (req.ipv6) the same for IPv6 (docs/pmd-quirks.md#ipv6):
 * without them an IPv6 datagram hashes on nothing and every one lands on one queue */
#define UF_RSS_HF_WANTED6 (RTE_ETH_RSS_IPV6 | RTE_ETH_RSS_NONFRAG_IPV6_UDP | RTE_ETH_RSS_FRAG_IPV6)

/* The RX checksum offloads udpfan requests at most (never TCP: nothing TCP is forwarded). */
#define UF_RX_CKSUM_WANTED (RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM)

/*
 * The RX checksum offloads of a plan in words, for the start-up log and the stats JSON:
 * "ipv4,udp", "ipv4", "udp" or "none". Returns buf.
 */
const char *uf_rx_cksum_name(uint64_t rx_offloads, char *buf, size_t len);

/* Print the table, as text or JSON. */
void uf_quirk_print(FILE *f, bool json);

const char *uf_mtu_path_name(enum uf_mtu_path p);

/* ---- environment checks that read the rows (PCI, ENA write-combining, ice DDP) ---- */

/*
 * Is the BAR at physical address `bar_phys` mapped write-combining according to a
 * pat_memtype_list file? 1 yes, 0 no (uncached), -1 not listed / file unreadable.
 */
int uf_wc_check(const char *pat_memtype_list, uint64_t bar_phys);

/*
 * The ice DDP package the PMD would load, searched under `fw_root` ("/lib/firmware") for the
 * device serial `dsn` (16 hex digits, or NULL). Returns 0 and the path, or -ENOENT (with
 * `found_xz` set when only a compressed package exists, which the Debian build cannot read).
 */
int uf_ice_ddp_find(const char *fw_root, const char *dsn, char *path, size_t len, bool *found_xz);

#endif /* UF_QUIRKS_H */
