/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "uf_env.h"
#include "uf_logtap.h"
#include "uf_port.h"
#include "uf_steer.h"
#include "uf_unmap_guard.h"
#include "uf_xsk.h"

#define POOL_CACHE 256

/* Our own Toeplitz key (40 and 52 bytes): repeating 0x6d5a spreads IPv4/UDP flows evenly and
 * is the same on every run (ENA otherwise picks a random key per run). */
static uint8_t rss_key[52];

static void
init_rss_key(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(rss_key); i += 2) {
		rss_key[i] = 0x6d;
		rss_key[i + 1] = 0x5a;
	}
}

/*
 * Mbufs per (port, queue) pool: everything that can be out of the pool at once, plus the
 * caches. RX ring + the TX rings it may sit in (copies go to every egress port's queue k) +
 * TX buffers + one burst fanned out to every destination + the control rings + what the PMD
 * keeps for itself (af_xdp's fill ring) + two lcore caches.
 */
static uint32_t
pool_size(const struct uf_config *cfg, const struct uf_port *p, const struct uf_port_opts *o)
{
	uint64_t n = p->plan.rx_desc;
	int i;

	for (i = 0; i < cfg->n_ports; i++)
		n += cfg->ports[i].tx_desc;
	n += (uint64_t)UF_MAX_BURST * 2 * cfg->n_ports;
	n += (uint64_t)o->burst * (o->n_dests + 1);
	n += 2 * UF_CTL_RING_SIZE + p->quirk->extra_mbufs + 2 * POOL_CACHE;
	if (p->cfg->mbufs != 0)
		return p->cfg->mbufs;
	return rte_align32pow2((uint32_t)RTE_MAX(n, (uint64_t)4096)) - 1;
}

/* the AF_XDP socket rx_queue_setup just opened: the one descriptor that was not there before */
static void
remember_xsk(struct uf_port *p, const int *before, int n_before)
{
	int now[256], n = uf_xsk_list_fds(now, RTE_DIM(now)), i, j;

	for (i = 0; i < n && p->n_xsk < UF_MAX_WORKERS; i++) {
		for (j = 0; j < n_before; j++)
			if (before[j] == now[i])
				break;
		if (j == n_before)
			p->xsk_fd[p->n_xsk++] = now[i];
	}
}

static const char *
errstr(int ret)
{
	return rte_strerror(ret < 0 ? -ret : ret);
}

/* The MTU of the kernel netdev a port shares (mlx5, af_xdp, af_packet, tap); 0: none. */
static uint16_t
netdev_mtu(uint32_t if_index)
{
	char name[IF_NAMESIZE], path[64 + IF_NAMESIZE];
	unsigned int mtu = 0;
	FILE *f;

	if (if_index == 0 || if_indextoname(if_index, name) == NULL)
		return 0;
	snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", name);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	if (fscanf(f, "%u", &mtu) != 1 || mtu > UINT16_MAX)
		mtu = 0;
	fclose(f);
	return (uint16_t)mtu;
}

/* configure, queues and MTU from the decided plan: at start-up and again after a reset */
static int
configure(struct uf_port *p, struct uf_err *err)
{
	const struct uf_cfg_port *pc = p->cfg;
	bool is_af_xdp = p->quirk->kernel_sock == UF_KSOCK_XSK;
	int before[256], n_before = 0;
	struct rte_eth_conf conf;
	uint16_t q, rxd, txd;
	int ret;

	memset(&conf, 0, sizeof(conf));
	/* link-change interrupts wherever the PMD has them (ENA reads down forever without) */
	conf.intr_conf.lsc = p->plan.lsc ? 1 : 0;
	conf.rxmode.offloads = p->plan.rx_offloads;
	conf.txmode.offloads = p->plan.tx_offloads;
	if (p->plan.mtu_path == UF_MTU_CONFIGURE || p->plan.mtu_path == UF_MTU_SET_STOPPED)
		conf.rxmode.mtu = p->plan.mtu;
	if (p->plan.rss) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = p->plan.rss_hf;
		if (p->plan.rss_key_len != 0) {
			conf.rx_adv_conf.rss_conf.rss_key = rss_key;
			conf.rx_adv_conf.rss_conf.rss_key_len = p->plan.rss_key_len;
		}
	}
	if (p->plan.flow_isolate && p->plan.try_flow && !p->flow_isolated) {
		/* isolate must precede configure; only traffic our rules match reaches us */
		struct rte_flow_error fe;

		if (rte_flow_isolate(p->port_id, 1, &fe) == 0)
			p->flow_isolated = true;
		else
			UF_LOG(NOTICE,
			       "port %s: flow isolate refused (%s): the port gets all traffic",
			       pc->name, fe.message ? fe.message : "no reason given");
	}
	ret = rte_eth_dev_configure(p->port_id, p->nb_queues, p->nb_queues, &conf);
	if (ret != 0) {
		uf_err_set(err, UF_EXIT_ENV, "port %s (%s): configure with %u queues failed: %s",
			   pc->name, p->info.driver_name, p->nb_queues, errstr(ret));
		return ret;
	}
	rxd = p->plan.rx_desc;
	txd = p->plan.tx_desc;
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(p->port_id, &rxd, &txd);
	if (ret != 0) {
		uf_err_set(err, UF_EXIT_ENV, "port %s: descriptor counts %u/%u refused: %s",
			   pc->name, rxd, txd, errstr(ret));
		return ret;
	}
	if (rxd != p->plan.rx_desc || txd != p->plan.tx_desc)
		UF_LOG(INFO, "port %s: descriptors adjusted to rx %u tx %u", pc->name, rxd, txd);
	p->plan.rx_desc = rxd;
	p->plan.tx_desc = txd;

	p->n_xsk = 0;
	for (q = 0; q < p->nb_queues; q++) {
		struct rte_eth_txconf txc = p->info.default_txconf;
		struct rte_eth_rxconf rxc = p->info.default_rxconf;

		rxc.offloads = p->plan.rx_offloads;
		if (p->plan.rx_drop_en) /* a full queue drops its own frames (quirk row) */
			rxc.rx_drop_en = 1;
		if (is_af_xdp)
			n_before = uf_xsk_list_fds(before, RTE_DIM(before));
		ret = rte_eth_rx_queue_setup(p->port_id, q, rxd, p->socket, &rxc, p->pool[q]);
		if (ret != 0) {
			uf_err_set(err, UF_EXIT_ENV, "port %s: RX queue %u setup failed: %s%s",
				   pc->name, q, errstr(ret),
				   is_af_xdp ? " (the PMD's log above says why: capabilities, "
					       "locked memory, the interface's queues; "
					       "docs/deployment.md)"
					     : "");
			return ret;
		}
		if (is_af_xdp)
			remember_xsk(p, before, n_before);
		txc.offloads = p->plan.tx_offloads;
		ret = rte_eth_tx_queue_setup(p->port_id, q, txd, p->socket, &txc);
		if (ret != 0) {
			uf_err_set(err, UF_EXIT_ENV, "port %s: TX queue %u setup failed: %s",
				   pc->name, q, errstr(ret));
			return ret;
		}
	}

	if (p->plan.mtu_path == UF_MTU_SET_MTU && !p->plan.mtu_keep) {
		ret = rte_eth_dev_set_mtu(p->port_id, p->plan.mtu);
		if (ret == -ENOTSUP) {
			p->plan.mtu_path = UF_MTU_NA;
		} else if (ret != 0) {
			uf_err_set(err, UF_EXIT_ENV, "port %s (%s): MTU %u refused: %s%s", pc->name,
				   p->info.driver_name, p->plan.mtu, errstr(ret),
				   p->quirk->kernel_sock != UF_KSOCK_NONE
						   ? " (a kernel interface takes an MTU only from "
						     "CAP_NET_ADMIN)"
						   : "");
			return ret;
		}
	}
	return 0;
}

static int
create_pools(struct uf_port *p, const struct uf_config *cfg, const struct uf_port_opts *o,
	     struct uf_err *err)
{
	uint32_t n_mbufs = pool_size(cfg, p, o);
	/* a cache may hold at most n / 1.5 objects; small pools (tests) get a small one */
	uint32_t cache = RTE_MIN((uint32_t)POOL_CACHE, n_mbufs / 4);
	char name[RTE_MEMPOOL_NAMESIZE];
	uint16_t q;

	for (q = 0; q < p->nb_queues; q++) {
		snprintf(name, sizeof(name), "uf_p%u_q%u", p->idx, q);
		p->pool[q] = rte_pktmbuf_pool_create(name, n_mbufs, cache, 0, p->plan.data_room,
						     p->socket);
		if (p->pool[q] == NULL) {
			uf_err_set(err, UF_EXIT_ENV,
				   "port %s: cannot create a pool of %u mbufs of %u "
				   "bytes on socket %d: %s; reserve more hugepages "
				   "(scripts/setup.sh hugepages) or lower ports[].mbufs",
				   p->cfg->name, n_mbufs, p->plan.data_room, p->socket,
				   rte_strerror(rte_errno));
			return -ENOMEM;
		}
		/* copies come from the listen port's pools; whether a copy may be chained is
		 * the egress port's business (the plan's chain_ok) */
		/* (one port that cannot chain: no chain can ever leave, no pool needed) */
		if (!o->want_chain || cfg->listen.port != p->idx ||
		    (cfg->n_ports == 1 && !p->plan.chain_ok))
			continue;
		snprintf(name, sizeof(name), "uf_h%u_q%u", p->idx, q);
		p->hdr_pool[q] = rte_pktmbuf_pool_create(name, n_mbufs, cache, 0,
							 RTE_PKTMBUF_HEADROOM + 64, p->socket);
		if (p->hdr_pool[q] == NULL) {
			uf_err_set(err, UF_EXIT_ENV,
				   "port %s: cannot create a header pool: %s; reserve "
				   "more hugepages or set forward.fanout: copy",
				   p->cfg->name, rte_strerror(rte_errno));
			return -ENOMEM;
		}
	}
	return 0;
}

static int
port_init(struct uf_port *p, const struct uf_config *cfg, uint16_t idx,
	  const struct uf_port_opts *o, struct uf_err *err)
{
	const struct uf_cfg_port *pc = &cfg->ports[idx];
	struct uf_port_req req = {
		.nb_queues = o->nb_workers,
		.rx_desc = pc->rx_desc,
		.rx_cksum_off = pc->rx_checksum == UF_RXCK_OFF,
		.tx_desc = pc->tx_desc,
		.mtu = pc->mtu,
		.want_chain = o->want_chain,
		.chain_forced = o->chain_forced,
		.single_pool_tx = cfg->n_ports == 1,
	};
	char why[384];
	int ret, j;

	/* RSS on IPv6 too where this device (or a VLAN port sharing it) has IPv6 addresses */
	for (j = 0; j < cfg->n_ports; j++)
		if (cfg->ports[j].dev == idx && cfg->ports[j].n_ip6 > 0)
			req.ipv6 = true;

	memset(p, 0, sizeof(*p));
	p->idx = idx;
	p->cfg = pc;
	p->nb_queues = o->nb_workers;
	if (rss_key[0] == 0)
		init_rss_key();

	ret = rte_eth_dev_get_port_by_name(pc->dev_name, &p->port_id);
	if (ret != 0) {
		uf_err_set(err, UF_EXIT_ENV,
			   "%s:%u:%u: ports[%u].device: \"%s\" was not probed by "
			   "DPDK (%s); %s",
			   cfg->path, pc->device_pos.line, pc->device_pos.col, idx, pc->device,
			   errstr(ret),
			   pc->is_pci ? "is it bound to vfio-pci? (scripts/dpdk-bind.sh)"
				      : "the PMD's log above says why (a vdev string, an interface, "
					"or a capability: docs/deployment.md)");
		return -ENODEV;
	}
	ret = rte_eth_dev_info_get(p->port_id, &p->info);
	if (ret != 0) {
		uf_err_set(err, UF_EXIT_ENV, "port %s: cannot read device info: %s", pc->name,
			   errstr(ret));
		return ret;
	}
	p->quirk = uf_quirk_lookup(p->info.driver_name);
	/* net_memif unmaps its rings on EAL's interrupt thread when the peer goes: the munmap()
	 * guard waits for the workers there while such a port exists, unless the PMD that runs
	 * waits for the bursts itself (the patch udpfan carries for DPDK; docs/pmd-quirks.md,
	 * "Unmapped under a running worker") */
	if (!p->unmap_guarded && strcmp(p->info.driver_name, "net_memif") == 0) {
		if (uf_unmap_guard_pmd_quiesces(p->info.driver_name)) {
			UF_LOG(INFO,
			       "port %s: net_memif quiesces its bursts before unmapping: "
			       "munmap() guard not armed",
			       pc->name);
		} else {
			uf_unmap_guard_port_add();
			p->unmap_guarded = true;
			UF_LOG(INFO,
			       "port %s: net_memif unmaps under the workers: munmap() guard armed",
			       pc->name);
		}
	}
	req.cur_mtu = netdev_mtu(p->info.if_index);
	ret = uf_quirk_decide(p->quirk, &p->info, &req, &p->plan, why, sizeof(why));
	if (ret != 0) {
		uf_err_set(err, UF_EXIT_CONFIG, "%s:%u:%u: ports[%u] (%s): %s", cfg->path,
			   pc->pos.line, pc->pos.col, idx, pc->name, why);
		return ret;
	}
	{
		/* tagged ports on the device: where it filters VLANs, each VID is added at start
		 * (docs/pmd-quirks.md#vlans) */
		bool untagged = false;
		int n_tagged = 0;

		for (j = 0; j < cfg->n_ports; j++) {
			if (cfg->ports[j].dev != idx)
				continue;
			if (cfg->ports[j].vlan != 0)
				n_tagged++;
			else
				untagged = true;
		}
		p->plan.vlan_filter = uf_decide_vlan_filter(p->quirk, &p->info, n_tagged, untagged);
		if (p->plan.vlan_filter)
			p->plan.rx_offloads |= RTE_ETH_RX_OFFLOAD_VLAN_FILTER;
		else if (n_tagged > 0 &&
			 (p->info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_VLAN_FILTER) != 0)
			UF_LOG(NOTICE,
			       "port %s (%s): no VLAN filtering: it would cost the untagged port "
			       "its frames; tagged frames arrive as the device passes them",
			       pc->name, p->info.driver_name);
	}
	if (p->plan.flow_isolate) {
		/* isolation lets through only what the rules match: untagged frames to this
		 * port's listeners, never its VLAN aliases' (docs/pmd-quirks.md#vlans) */
		int j;

		for (j = 0; j < cfg->n_ports; j++)
			if (cfg->ports[j].dev == idx && cfg->ports[j].vlan != 0)
				break;
		if (j < cfg->n_ports) {
			UF_LOG(NOTICE,
			       "port %s: tagged ports on the device: no flow isolation (every "
			       "frame of the device comes to udpfan, none to the kernel)",
			       pc->name);
			p->plan.flow_isolate = false;
			p->plan.try_flow = p->quirk->rte_flow && o->nb_workers > 1;
		}
	}
	if (p->plan.link_from_kernel && if_indextoname(p->info.if_index, p->ifname) == NULL) {
		UF_LOG(NOTICE, "port %s: interface %u has no name (%s); its link is the PMD's",
		       pc->name, p->info.if_index, strerror(errno));
		p->plan.link_from_kernel = false;
	}
	{
		/* which RX checksum verdicts the datapath gets (docs/pmd-quirks.md, "RX checksum
		 * verdicts"); the same words are the stats JSON's ports.<name>.rx_checksum */
		char rx[16];

		uf_rx_cksum_name(p->plan.rx_offloads, rx, sizeof(rx));
		UF_LOG(INFO, "port %s: RX checksum offloads: %s (%s)", pc->name, rx,
		       !p->quirk->rx_cksum_ok ? "not trusted on this PMD: checked in software"
		       : (p->plan.rx_offloads & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM) != 0
				       ? "the NIC's IPv4 verdict replaces the software header sum"
				       : "no IPv4 verdict offered: the header is summed in software");
	}
	if (p->plan.rss_hf_trimmed != 0)
		UF_LOG(NOTICE,
		       "port %s: %s cannot hash on RSS fields 0x%" PRIx64 "; using 0x%" PRIx64,
		       pc->name, p->info.driver_name, p->plan.rss_hf_trimmed, p->plan.rss_hf);

	if (p->quirk->needs_ddp && p->info.flow_type_rss_offloads == 0)
		UF_LOG(WARNING,
		       "port %s: %s runs in safe mode (no DDP package): no RSS, no checksum "
		       "offload, no rte_flow; install the DDP package (docs/deployment.md)",
		       pc->name, p->info.driver_name);
	p->socket = rte_eth_dev_socket_id(p->port_id);
	if (p->socket < 0)
		p->socket = (int)rte_socket_id();
	rte_eth_macaddr_get(p->port_id, &p->mac);
	ret = create_pools(p, cfg, o, err);
	if (ret != 0)
		return ret;
	return configure(p, err);
}

int
uf_port_init(struct uf_port *p, const struct uf_config *cfg, uint16_t idx,
	     const struct uf_port_opts *o, struct uf_err *err)
{
	int ret;

	uf_logtap_begin();
	ret = port_init(p, cfg, idx, o, err);
	uf_logtap_end(p->pmd_err, sizeof(p->pmd_err));
	return ret;
}

static void
read_xdp_mode(struct uf_port *p)
{
	struct uf_xsk_info xi;
	int mode;

	if (p->quirk->kernel_sock != UF_KSOCK_XSK || p->info.if_index == 0)
		return;
	/* the PMD does not say which mode it got; the kernel does */
	mode = uf_xdp_attach_mode(p->info.if_index);
	if (uf_xsk_query(p->xsk_fd, p->n_xsk, &xi) != 0)
		memset(&xi, 0, sizeof(xi));
	uf_xdp_mode_str(mode, &xi, p->xdp_mode, sizeof(p->xdp_mode));
}

/*
 * Discard what the RX queues hold before the workers start. net_af_packet opens its sockets
 * for ETH_P_ALL and binds them to the interface only afterwards (rte_eth_af_packet.c,
 * rte_pmd_init_internals: socket(), the ring, then bind()): in between, each socket takes
 * frames of every interface in the namespace (seen: 54-103 under a flood on a neighbouring
 * veth). After the bind nothing foreign arrives, so emptying the rings once is enough. The
 * frames are counted apart (ports.<name>.rx_before_ready), not in fwd.rx, and the PMD's
 * counters restart so that ipackets still equals fwd.rx (docs/loss-accounting.md).
 * Bounded: a flood on our own interface refills the ring as fast as we empty it.
 */
#define DRAIN_MAX_PER_QUEUE 8192

static void
drain_before_ready(struct uf_port *p)
{
	struct rte_mbuf *pkts[UF_MAX_BURST];
	uint16_t q, n;
	uint32_t got;

	for (q = 0; q < p->nb_queues; q++) {
		got = 0;
		do {
			n = rte_eth_rx_burst(p->port_id, q, pkts, UF_MAX_BURST);
			rte_pktmbuf_free_bulk(pkts, n);
			got += n;
		} while (n > 0 && got < DRAIN_MAX_PER_QUEUE);
		p->rx_before_ready += got;
	}
	if (rte_eth_stats_reset(p->port_id) != 0)
		UF_LOG(NOTICE, "port %s: cannot reset the PMD counters after the start-up drain",
		       p->cfg->name);
	if (p->rx_before_ready > 0)
		UF_LOG(INFO,
		       "port %s: discarded %" PRIu64 " frames received before the port was "
		       "ready (the PMD's socket takes every interface's frames until bound)",
		       p->cfg->name, p->rx_before_ready);
	p->drained = true;
}

static bool
port_link_wait(const struct uf_port *p, uint32_t ms, struct rte_eth_link *link)
{
	uint64_t deadline = rte_get_timer_cycles() + rte_get_timer_hz() * ms / 1000;

	for (;;) {
		if (uf_port_link_get(p, link))
			return true;
		if (rte_get_timer_cycles() >= deadline)
			return false;
		rte_delay_ms(50);
	}
}

uint32_t
uf_port_link_wait_ms(const struct uf_port *p, uint32_t wanted)
{
	/* a link that is a peer process (vhost-user, memif) comes when the peer does: the
	 * link check says when, no point holding the start */
	return p->plan.lsc || p->quirk->link_is_peer
			       ? RTE_MIN(wanted, (uint32_t)UF_LINK_WAIT_LSC_MS)
			       : wanted;
}

bool
uf_port_link_get(const struct uf_port *p, struct rte_eth_link *link)
{
	bool up;

	memset(link, 0, sizeof(*link));
	up = rte_eth_link_get_nowait(p->port_id, link) == 0 && link->link_status == RTE_ETH_LINK_UP;
	if (p->plan.link_from_kernel)
		up = uf_kernel_link_read(uf_env_sysfs_root(), p->ifname) == 1;
	if (p->plan.link_assumed_up) {
		/* nothing ever writes this PMD's link without the notification (ENA): up
		 * while started (docs/architecture.md, "Link state") */
		up = p->started;
		link->link_status = up ? RTE_ETH_LINK_UP : RTE_ETH_LINK_DOWN;
	}
	return up;
}

/*
 * Read the RSS configuration back from the started port and say whether it is the one
 * configure() asked for (hash types and key): a PMD may trim the types or keep its own key
 * (docs/pmd-quirks.md#rows-observed-in-the-lab). Observed on virtio-net over vfio-pci in the lab
 * (docs/testing.md#lab).
 */
static void
check_rss(struct uf_port *p)
{
	uint8_t key[sizeof(rss_key)];
	struct rte_eth_rss_conf rc = { .rss_key = key, .rss_key_len = sizeof(key) };
	bool key_ok;
	int ret;

	if (!p->plan.rss)
		return;
	memset(key, 0, sizeof(key));
	ret = rte_eth_dev_rss_hash_conf_get(p->port_id, &rc);
	if (ret != 0) {
		UF_LOG(NOTICE, "port %s: %s cannot read its RSS configuration back (%s)",
		       p->cfg->name, p->info.driver_name, errstr(ret));
		return;
	}
	key_ok = p->plan.rss_key_len == 0 || (rc.rss_key_len >= p->plan.rss_key_len &&
					      memcmp(key, rss_key, p->plan.rss_key_len) == 0);
	/* a superset is what was asked: virtio reads its IPv4 hash type back as every IPv4
	 * flow type (0x2c asked, 0xac read: docs/pmd-quirks.md) */
	if ((rc.rss_hf & p->plan.rss_hf) == p->plan.rss_hf && key_ok)
		UF_LOG(INFO,
		       "port %s: RSS in effect over %u queues: hash types 0x%" PRIx64
		       " (asked 0x%" PRIx64 "), key %u bytes, as programmed",
		       p->cfg->name, p->nb_queues, rc.rss_hf, p->plan.rss_hf, p->plan.rss_key_len);
	else
		UF_LOG(WARNING,
		       "port %s: RSS in effect differs from what udpfan programmed: hash types "
		       "0x%" PRIx64 " (asked 0x%" PRIx64 "), key %s",
		       p->cfg->name, rc.rss_hf, p->plan.rss_hf,
		       key_ok ? "as programmed" : "the PMD's own");
}

void
uf_port_alias(struct uf_port *p, const struct uf_port *owner, const struct uf_config *cfg,
	      uint16_t idx)
{
	*p = *owner;
	p->idx = idx;
	p->cfg = &cfg->ports[idx];
	p->owner = owner;
	p->started = false;
	p->n_flows = 0;
	p->n_xstats = 0;
	p->n_xwatch = 0;
	p->n_xsk = 0;
	p->n_pktsock = 0;
	p->resets = p->link_downs = p->reset_retries = p->fault_resets = 0;
	p->rx_before_ready = 0;
	snprintf(p->steering, sizeof(p->steering), "port %s's (VLAN %u on its device)",
		 owner->cfg->name, p->cfg->vlan);
}

/*
 * Neighbour Discovery needs the device to pass the IPv6 groups it is sent to
 * (docs/architecture.md#neighbour-discovery): ff02::1 and the solicited-node group of each
 * ip6 of every logical port on the device (33:33:00:00:00:01, 33:33:ff:XX:XX:XX). A NIC
 * that filters multicast gets them as its multicast list, else all-multicast; a PMD that
 * takes neither (software PMDs, which pass every frame) is left as it is. Nothing for a
 * device without ip6.
 */
static void
ndp_mcast(struct uf_port *p, const struct uf_config *cfg)
{
	struct rte_ether_addr mc[1 + UF_MAX_PORTS * UF_MAX_PORT_IP6];
	uint32_t n = 0, k;
	int j, i, ret;

	for (j = 0; j < cfg->n_ports; j++) {
		const struct uf_cfg_port *cp = &cfg->ports[j];

		if (cp->dev != p->idx)
			continue;
		for (i = 0; i < cp->n_ip6; i++) {
			struct rte_ether_addr a = { { 0x33, 0x33, 0xff, cp->ip6[i].b[13],
						      cp->ip6[i].b[14], cp->ip6[i].b[15] } };

			if (n == 0)
				mc[n++] = (struct rte_ether_addr){ { 0x33, 0x33, 0, 0, 0, 1 } };
			for (k = 0; k < n && !rte_is_same_ether_addr(&mc[k], &a); k++)
				;
			if (k == n)
				mc[n++] = a;
		}
	}
	if (n == 0)
		return;
	ret = rte_eth_dev_set_mc_addr_list(p->port_id, mc, n);
	if (ret == 0) {
		UF_LOG(INFO, "port %s: %u IPv6 multicast groups for NDP in the NIC's list",
		       p->cfg->name, n);
		return;
	}
	ret = rte_eth_allmulticast_enable(p->port_id);
	if (ret == 0)
		UF_LOG(INFO, "port %s: all-multicast on, for NDP's IPv6 groups", p->cfg->name);
	else
		UF_LOG(INFO,
		       "port %s (%s): takes neither a multicast list nor all-multicast (%s); "
		       "NDP's groups reach udpfan where the device passes them",
		       p->cfg->name, p->info.driver_name, errstr(ret));
}

/* each tagged port's VID into the device's VLAN filter (docs/pmd-quirks.md#vlans): after
 * every start, a reset included */
static void
vlan_filter_add(struct uf_port *p, const struct uf_config *cfg)
{
	int j, ret, n = 0;

	if (!p->plan.vlan_filter)
		return;
	for (j = 0; j < cfg->n_ports; j++) {
		const struct uf_cfg_port *pc = &cfg->ports[j];

		if (pc->dev != p->idx || pc->vlan == 0)
			continue;
		ret = rte_eth_dev_vlan_filter(p->port_id, pc->vlan, 1);
		if (ret == 0) {
			n++;
			continue;
		}
		UF_LOG(WARNING,
		       "port %s (%s): VLAN %u not added to the device's filter (%s): port %s "
		       "may receive nothing",
		       p->cfg->name, p->info.driver_name, pc->vlan, errstr(ret), pc->name);
	}
	UF_LOG(INFO, "port %s: VLAN filtering on, %d VIDs added", p->cfg->name, n);
}

int
uf_port_start(struct uf_port *p, const struct uf_config *cfg, const struct uf_port_opts *o,
	      struct uf_err *err)
{
	struct rte_eth_link link;
	int ret;

	(void)cfg;
	if (p->owner != NULL) { /* its owner, started before it, started the device */
		p->started = true;
		p->link_up = p->owner->link_up;
		return 0;
	}
	uf_logtap_begin();
	ret = rte_eth_dev_start(p->port_id);
	uf_logtap_end(p->pmd_err, sizeof(p->pmd_err));
	if (ret == 0 && p->quirk->start_err_in_log && p->pmd_err[0] != '\0') {
		rte_eth_dev_stop(p->port_id);
		uf_err_set(err, UF_EXIT_ENV,
			   "port %s (%s): the PMD failed to start the device although "
			   "rte_eth_dev_start returned 0: \"%s\"%s",
			   p->cfg->name, p->info.driver_name, p->pmd_err,
			   p->quirk->single_file_segs
					   ? " (vhost-user takes at most 8 memory regions: EAL needs "
					     "--single-file-segments, which udpfan adds; take --legacy-mem "
					     "out of eal.extra_args, it rules that out)"
					   : "");
		return -EIO;
	}
	if (ret != 0) {
		uf_err_set(err, UF_EXIT_ENV, "port %s (%s): start failed: %s", p->cfg->name,
			   p->info.driver_name, errstr(ret));
		return ret;
	}
	p->started = true;
	vlan_filter_add(p, cfg);
	ndp_mcast(p, cfg);
	{
		/* every listener on this port gets its rule (docs/architecture.md#listeners) */
		struct uf_steer_listen ls[UF_MAX_LISTENERS];
		int nl = 0, l;

		for (l = 0; l < cfg->n_listeners; l++)
			if (cfg->listeners[l].port == p->idx)
				ls[nl++] = (struct uf_steer_listen){
					.udp_port = cfg->listeners[l].udp_port,
					.dst_ip = cfg->listeners[l].ip,
					.is_ip6 = cfg->listeners[l].is_ip6,
					.dst_ip6 = cfg->listeners[l].ip6,
				};
		if (cfg->n_listeners == 0 && cfg->listen.port == p->idx)
			ls[nl++] = (struct uf_steer_listen){
				.udp_port = cfg->listen.udp_port,
				.dst_ip = p->cfg->ip,
				.is_ip6 = p->cfg->ip == 0 && p->cfg->n_ip6 > 0,
				.dst_ip6 = p->cfg->ip6[0],
			};
		ret = uf_steer_setup_multi(p, ls, nl);
	}
	if (ret != 0) {
		uf_err_set(err, UF_EXIT_ENV,
			   "port %s (%s) is in flow isolate mode and %s; give it "
			   "a DPDK build whose PMD takes the rule, or more than one worker "
			   "without isolation",
			   p->cfg->name, p->info.driver_name, p->steering);
		return -ENOTSUP;
	}
	uf_port_resolve_xstats(p);
	check_rss(p);
	read_xdp_mode(p);
	if (p->quirk->kernel_sock == UF_KSOCK_PACKET && p->info.if_index != 0 &&
	    p->n_pktsock == 0) {
		struct uf_pktsock_info pi;
		int n = uf_pktsock_list(p->info.if_index, p->pktsock_fd, UF_MAX_WORKERS);

		p->n_pktsock = n > 0 ? n : 0;
		/* start counting now: what the ring dropped before we started is not ours */
		uf_pktsock_query(p->pktsock_fd, p->n_pktsock, &pi);
	}
	if (p->quirk->kernel_sock == UF_KSOCK_PACKET && !p->drained)
		drain_before_ready(p);

	if (p->plan.link_assumed_up)
		UF_LOG(NOTICE,
		       "port %s (%s): the device has no link-change notification and the PMD "
		       "never updates the link without it: treated as up while started",
		       p->cfg->name, p->info.driver_name);
	p->link_up = port_link_wait(p, uf_port_link_wait_ms(p, o->link_wait_ms), &link);
	if (!p->link_up && o->link_wait_ms == 0)
		UF_LOG(NOTICE, "port %s: link not up yet; the link check will say when it is",
		       p->cfg->name);
	else if (!p->link_up)
		UF_LOG(WARNING, "port %s: link down after %u ms; forwarding starts anyway (%s)",
		       p->cfg->name, uf_port_link_wait_ms(p, o->link_wait_ms),
		       p->plan.lsc ? "the link-change interrupt will say when it is up"
		       : p->plan.link_from_kernel ? "the kernel interface is polled"
						  : "the link is polled");
	else
		UF_LOG(INFO,
		       "port %s (%s, %s, " RTE_ETHER_ADDR_PRT_FMT "): link up, %u Mbps, %u "
		       "queues, mtu %u (%s)%s%s",
		       p->cfg->name, p->cfg->dev_name, p->info.driver_name,
		       RTE_ETHER_ADDR_BYTES(&p->mac), link.link_speed, p->nb_queues, p->plan.mtu,
		       uf_mtu_path_name(p->plan.mtu_path), p->xdp_mode[0] ? ", XDP " : "",
		       p->xdp_mode);
	return 0;
}

int
uf_port_reset(struct uf_port *p, const struct uf_config *cfg, const struct uf_port_opts *o,
	      struct uf_err *err)
{
	unsigned int attempt;
	int ret;

	if (p->owner != NULL) /* the device is its owner's to reset */
		return 0;
	uf_steer_teardown(p);
	if (p->started) {
		rte_eth_dev_stop(p->port_id);
		p->started = false;
	}
	/*
	 * The PMD re-initialises the device, and then it needs configuring again. A PMD without
	 * dev_reset (vdevs) keeps its configuration and queues across stop/start (af_xdp even
	 * refuses to set a queue up twice): a restart is its reset.
	 */
	ret = rte_eth_dev_reset(p->port_id);
	for (attempt = 0; ret != 0 && attempt < UF_RESET_RETRIES &&
			  uf_quirk_reset_again(p->quirk, ret, o->after_event, attempt);
	     attempt++) {
		/* -EAGAIN: "temporarily failed and should be retried later" (rte_ethdev.h),
		 * ixgbevf while the PF has not finished its own reset; iavf's -1 (-EPERM) after
		 * a reset event: the VF is still resetting (docs/pmd-quirks.md, reset_event) */
		uint32_t ms = uf_reset_backoff_ms(attempt);

		p->reset_retries++;
		UF_LOG(WARNING, "port %s: reset not complete yet (%s); retry %u of %u in %u ms",
		       p->cfg->name, errstr(ret), attempt + 1, UF_RESET_RETRIES, ms);
		rte_delay_ms(ms);
		ret = rte_eth_dev_reset(p->port_id);
	}
	if (ret == 0) {
		p->flow_isolated = false;
		ret = configure(p, err);
		if (ret != 0)
			return ret;
	} else if (ret != -ENOTSUP) {
		uf_err_set(err, UF_EXIT_ENV, "port %s: reset failed: %s%s", p->cfg->name,
			   errstr(ret), attempt > 0 ? " (still, after retries)" : "");
		return ret;
	}
	p->resets++;
	return uf_port_start(p, cfg, o, err);
}

void
uf_port_release(struct uf_port *p)
{
	if (p->unmap_guarded) { /* the workers have stopped */
		uf_unmap_guard_port_del();
		p->unmap_guarded = false;
	}
	if (p->cfg == NULL || p->dev_closed)
		return;
	if (p->owner != NULL) { /* its owner closes the device */
		p->dev_closed = true;
		return;
	}
	uf_steer_teardown(p);
	if (p->started) {
		rte_eth_dev_stop(p->port_id);
		p->started = false;
	}
	rte_eth_dev_close(p->port_id);
	p->dev_closed = true;
}

void
uf_port_close(struct uf_port *p)
{
	uint16_t q;

	if (p->cfg == NULL)
		return;
	uf_port_release(p);
	if (p->owner != NULL) { /* the pools are its owner's */
		p->cfg = NULL;
		return;
	}
	for (q = 0; q < UF_MAX_WORKERS; q++) {
		rte_mempool_free(p->pool[q]);
		rte_mempool_free(p->hdr_pool[q]);
		p->pool[q] = p->hdr_pool[q] = NULL;
	}
	p->cfg = NULL;
}

bool
uf_port_link_wait(uint16_t port_id, uint32_t ms, struct rte_eth_link *link)
{
	uint64_t deadline = rte_get_timer_cycles() + rte_get_timer_hz() * ms / 1000;

	for (;;) {
		memset(link, 0, sizeof(*link));
		if (rte_eth_link_get_nowait(port_id, link) == 0 &&
		    link->link_status == RTE_ETH_LINK_UP)
			return true;
		if (rte_get_timer_cycles() >= deadline)
			return false;
		/* 1 ms: a tool starts sending as soon as its link is up, as a real peer would
		 * (the latency e2e test's generator measures udpfan's link poll against that) */
		rte_delay_ms(1);
	}
}

uint32_t
uf_reset_backoff_ms(unsigned int attempt)
{
	/* 100, 200, 400, 800, 1600, 1600 ms: about 4.7 s over UF_RESET_RETRIES */
	return 100u << RTE_MIN(attempt, 4u);
}
