/* SPDX-License-Identifier: BSD-3-Clause
 * Port bring-up: quirk row → mempools on the port's socket → queues → RSS → MTU → start →
 * link. One RX and one TX queue per worker.
 */
#ifndef UF_PORT_H
#define UF_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ethdev.h>
#include <rte_flow.h>

#include "uf_config.h"
#include "uf_quirks.h"
#include "uf_stats.h"
#include "uf_xwatch.h"

#define UF_XSTATS_MAX 32
#define UF_XWATCH_MAX (4 * UF_MAX_WORKERS) /* reset-worthy xstats: a few per queue */
#define UF_RESET_RETRIES 6                 /* rte_eth_dev_reset -EAGAIN: tries after the first */
#define UF_RESET_QUIESCE_MS 5000 /* a reset waits this long at most for workers to leave the port */

struct uf_port {
	uint16_t idx;     /* position in ports[] */
	uint16_t port_id; /* DPDK's */
	int socket;
	uint16_t nb_queues;
	const struct uf_cfg_port *cfg;
	const struct uf_quirk *quirk;
	struct rte_eth_dev_info info;
	struct uf_port_plan plan;
	struct rte_ether_addr mac;
	struct rte_mempool *pool[UF_MAX_WORKERS];     /* per RX queue */
	struct rte_mempool *hdr_pool[UF_MAX_WORKERS]; /* chained fan-out headers (listen port) */
	bool started;
	bool dev_closed;    /* uf_port_release() done: the device is closed, the pools remain */
	bool unmap_guarded; /* counted in the munmap() guard's ports (net_memif) */
	/* the first ERR line the PMD logged while the port was set up (rows with
	 * start_err_in_log: the PMD's only sign that the device did not start) */
	char pmd_err[200];
	/* steering */
	struct rte_flow *flows[UF_MAX_LISTENERS + 3]; /* UF_STEER_MAX_FLOWS */
	int n_flows;
	bool flow_isolated;
	char steering[160]; /* what steers traffic over the workers, in words */
	/* loss-relevant extended stats (driver-specific ids only), resolved at start; then the
	 * row's reset-worthy ones (n_xwatch, ids after them), read apart every link poll */
	int n_xstats;
	int n_xwatch;
	uint64_t xstat_ids[UF_XSTATS_MAX + UF_XWATCH_MAX];
	const char *xstat_names[UF_XSTATS_MAX];
	bool xstat_guarded[UF_XSTATS_MAX];
	/* a guarded id whose value followed the value buffer's fill (uf_xfill_garbage): never
	 * reported again */
	bool xstat_garbage[UF_XSTATS_MAX];
	struct uf_xguard xguard[UF_XSTATS_MAX];
	struct uf_xwatch xwatch[UF_XWATCH_MAX];
	uint64_t xstats_tsc; /* when they were last read */
	char xdp_mode[64];   /* af_xdp: what the kernel gave us */
	int n_xsk;           /* af_xdp: the PMD's sockets, one per queue */
	int xsk_fd[UF_MAX_WORKERS];
	int n_pktsock; /* af_packet: the PMD's sockets (qpairs) */
	int pktsock_fd[UF_MAX_WORKERS];
	uint64_t pkt_packets; /* PACKET_STATISTICS, accumulated (it resets on read) */
	uint64_t pkt_drops;
	bool link_up;
	uint64_t resets;
	/* link state source (plan.lsc / plan.link_from_kernel): the kernel interface's name */
	char ifname[32];
	uint64_t link_downs;    /* down transitions seen since start */
	uint64_t reset_retries; /* rte_eth_dev_reset said "try again" and was tried again */
	uint64_t fault_resets;  /* resets udpfan requested because a watched xstat rose */
	/* af_packet: frames in the RX rings at the first start, discarded unclassified (the
	 * PMD's sockets receive every interface's frames until bound: docs/pmd-quirks.md) */
	bool drained;
	uint64_t rx_before_ready;
	/* a VLAN alias (docs/configuration.md#vlans): the port that owns the device, whose
	 * queues, pools and link this one shares; NULL: the port owns its device */
	const struct uf_port *owner;
};

struct uf_port_opts {
	uint16_t nb_workers;
	uint16_t burst;
	uint16_t n_dests;
	bool want_chain;   /* the config can produce chained copies (uf_plan_may_chain) */
	bool chain_forced; /* fanout: chain */
	uint32_t link_wait_ms;
	/* uf_port_reset: the device raised RTE_ETH_EVENT_INTR_RESET (a still-resetting VF's
	 * failure is then tried again: uf_quirk_reset_again) */
	bool after_event;
};

/* Look up the ethdev, decide its plan, create its pools and queues. err → exit code and line. */
int uf_port_init(struct uf_port *p, const struct uf_config *cfg, uint16_t idx,
		 const struct uf_port_opts *o, struct uf_err *err);

/* Port idx is a VLAN alias on owner's device (cfg->ports[idx].dev): it shares the owner's
 * ethdev, queues and pools (owner initialised first). Start, reset, release and close do
 * nothing to the device for it; its snapshot carries no NIC counters (the owner's do). */
void uf_port_alias(struct uf_port *p, const struct uf_port *owner, const struct uf_config *cfg,
		   uint16_t idx);

/* Start, steer (RSS/rte_flow) and wait for link (bounded). */
int uf_port_start(struct uf_port *p, const struct uf_config *cfg, const struct uf_port_opts *o,
		  struct uf_err *err);

/* Reset the device (RTE_ETH_EVENT_INTR_RESET, or an operator's request) and bring it back
 * with the same plan, pools and queues. Workers must not touch it meanwhile. */
int uf_port_reset(struct uf_port *p, const struct uf_config *cfg, const struct uf_port_opts *o,
		  struct uf_err *err);

/* Stop, remove flows, close the device; the pools stay: another port's TX ring may still
 * hold mbufs of this port's pools until that port is closed too (docs/architecture.md). */
void uf_port_release(struct uf_port *p);

/* uf_port_release() if not done yet, then free the pools. Release every port before
 * closing any: a copy sent on port B from port A's pool sits in B's TX ring until B's close
 * frees it (seen as a SIGSEGV at exit on virtio over vfio: docs/testing.md#lab). */
void uf_port_close(struct uf_port *p);

/* Poll the link every 50 ms for up to ms: true once it is up (link filled), false if not. */
bool uf_port_link_wait(uint16_t port_id, uint32_t ms, struct rte_eth_link *link);

/* The port's link as udpfan trusts it (docs/architecture.md, "Link state"): the kernel
 * interface's operstate/carrier where plan.link_from_kernel, else the PMD's (the value the
 * last LSC event stored, where plan.lsc). Never waits; control lcore only. */
bool uf_port_link_get(const struct uf_port *p, struct rte_eth_link *link);

/* How long start-up waits for a link (ms): a port with link-change interrupts is told
 * when it comes up, so it waits at most UF_LINK_WAIT_LSC_MS. */
#define UF_LINK_WAIT_LSC_MS 1000
uint32_t uf_port_link_wait_ms(const struct uf_port *p, uint32_t wanted);

/* Statistics (uf_port_stats.c). At start: the row's xstats and watched xstats resolved to
 * ids for this port (by name, as this PMD version lists them). */
void uf_port_resolve_xstats(struct uf_port *p);

/*
 * Read the xstats named in the row into vals[] (n_xstats values; valid[i] false where a
 * guarded reading is implausible, or its id was dropped: guarded ids are read twice with
 * different fills of the value buffer, uf_xfill_garbage). 0, or -errno.
 */
int uf_port_xstats(struct uf_port *p, uint64_t *vals, bool *valid);

/*
 * Read the row's reset-worthy xstats alone (per-queue counters: no admin command on ENA) and
 * check them: every link poll, not once per stats interval. Returns 0, 1 when one rose
 * (fault says which: the PMD waits for a reset it will not signal; the caller requests it),
 * or -errno.
 */
int uf_port_faults(struct uf_port *p, char *fault, size_t len);

/*
 * The port's part of a stats snapshot (control lcore): names, NIC counters, loss xstats,
 * AF_XDP and packet-socket counters, reset counts. link_up is the port's own last reading,
 * tx_stalled false: the caller knows better and overwrites them.
 */
void uf_port_snapshot(struct uf_port *p, struct uf_snap_port *sp);

/* Milliseconds to wait before retry `attempt` (0-based) of a reset the PMD said to try again
 * (uf_quirk_reset_again). */
uint32_t uf_reset_backoff_ms(unsigned int attempt);

#endif /* UF_PORT_H */
