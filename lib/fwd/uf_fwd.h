/* SPDX-License-Identifier: BSD-3-Clause
 * Workers: one per lcore, run to completion. Worker k owns RX queue k and TX queue k of every
 * port; nothing it writes is written by anyone else.
 */
#ifndef UF_FWD_H
#define UF_FWD_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "uf_counters.h"
#include "uf_pkt.h"
#include "uf_pkt6.h"
#include "uf_plan.h"

struct rte_ring;
struct rte_rcu_qsbr;

#define UF_CTL_DRAIN_MAX (UF_MAX_BURST / 2) /* control frames a worker sends per pass */
#define UF_TXB_CAP (2 * UF_MAX_BURST)
#define UF_DEST_CTL UINT16_MAX /* a control-plane frame in a TX buffer */
#define UF_SENDERS_WORDS 8     /* a pool member's sender sketch: 512 bits */

/* the limits the worker relies on */
static_assert(UF_MAX_PORTS <= UINT8_MAX, "port indexes are kept in a uint8_t (port_idx)");
static_assert(UF_MAX_PORTS <= 32, "a set of port indexes is a uint32_t (uf_shared.rx_skip)");
static_assert(UF_TXB_CAP >= UF_MAX_BURST + UF_CTL_DRAIN_MAX,
	      "a TX buffer holds a burst of copies and a control drain");
static_assert(UF_MAX_DESTS <= UINT16_MAX, "destination indexes are kept in a uint16_t");
static_assert(UF_DEST_CTL > UF_MAX_DESTS, "the control mark is never a destination index");

/* Frames waiting to be handed to one port's TX queue. */
struct uf_txbuf {
	uint16_t n;
	uint16_t n_ctl; /* control-plane frames among the n */
	uint16_t port_id;
	uint16_t pad_to; /* 60 where the PMD does not pad, else 0 */
	/*
	 * A port that takes nothing is skipped (docs/loss-accounting.md, link_down): either the
	 * control lcore says its link is down (*link_down), or this worker saw its TX make no
	 * progress for stall_tsc (stalled, probed every probe_tsc, cleared when the link comes
	 * back: *link_gen moves). Only the worker writes the fields below; the control lcore
	 * writes what the pointers point at and reads `stalled` (relaxed).
	 */
	uint8_t stalled;
	const uint8_t *link_down;
	const uint32_t *link_gen;
	uint32_t link_gen_seen;
	uint64_t stall_since; /* TSC of the first flush that made no progress, 0: progressing */
	uint64_t next_probe;
	struct rte_mbuf *m[UF_TXB_CAP];
	uint16_t dest[UF_TXB_CAP]; /* destination index, or UF_DEST_CTL */
};

/* One port as a worker sees it. */
struct uf_wport {
	uint16_t port_id;
	struct uf_port_id id; /* for the classifier */
	/* the fast test's fixed fields from id ([1]: any_dst, several listeners), built when id
	 * is set (uf_worker_port_id), not per burst */
	struct uf_dp_pat pat[2];
	/*
	 * 802.1Q (docs/configuration.md#vlans). A device with tagged ports is polled through
	 * its first port (the owner), whose burst the worker splits by VLAN id (n_vlans > 0:
	 * vlan_id[k] is port index vlan_pi[k]'s VLAN, 0 for the untagged one); the others
	 * (alias) are not polled. A device without tagged ports: n_vlans 0, as before.
	 */
	bool alias;
	uint8_t n_vlans;
	uint16_t vlan; /* this port's VLAN id, 0: untagged */
	uint16_t vlan_id[UF_MAX_PORTS];
	uint8_t vlan_pi[UF_MAX_PORTS];
};

/* Everything shared between the control lcore and the workers. The flags are plain fields,
 * read and written only with __atomic builtins (22.11 has no rte_stdatomic.h). */
struct uf_shared {
	struct uf_plan *plan; /* published with release stores; read with acquire loads */
	struct rte_rcu_qsbr *qsbr;
	/* the munmap() guard's own RCU variable (lib/port/uf_unmap_guard.h), or NULL: each worker
	 * reports to it once a pass as to qsbr; nothing is freed by it */
	struct rte_rcu_qsbr *unmap_qsbr;
	int quit;
	/* the ports being reset (bit = port index; a device's owner and its VLAN aliases):
	 * workers poll none of their queues, and the ports' link_down is set so their copies are
	 * dropped as link_down (uf_workers_quiesce). Read once per pass; the other ports go on. */
	uint32_t rx_skip;
	/* set when a port could not be brought back: the workers' last flush frees what they
	 * hold instead of sending it (counted as ring_full / ctl_tx_drop) */
	int no_tx;
	/* per port, written by the control lcore: the link is down (copies are dropped as
	 * link_down without calling tx_burst), and a count of link-up transitions (a worker
	 * that marked the port stalled tries again when it moves) */
	uint8_t link_down[UF_MAX_PORTS];
	uint32_t link_gen[UF_MAX_PORTS];
	/* pools' sender sketches: the control lcore moves it on each stats interval; a worker
	 * then clears and fills bank (epoch & 1) (uf_worker.senders) */
	uint32_t senders_epoch;
	/* the control lcore sleeps until its next deadline (docs/architecture.md#the-control-
	 * lcore): ctl_sleeping is set while it does; whoever hands it work (a worker's control
	 * frame, a signal, a link or reset event, a reload request) clears it and writes
	 * ctl_wake_fd, an eventfd it sleeps on (uf_shared_wake_ctl) */
	int ctl_sleeping;
	int ctl_wake_fd;
	/* the drop trace (docs/loss-accounting.md#drop-trace): frames it still takes (an armed
	 * worker takes one with a compare-and-swap), the copies' pool and the ring (several
	 * producers) to the control lcore; made at the first trace */
	uint32_t dtrace_left;
	struct rte_mempool *dtrace_pool;
	struct rte_ring *dtrace_ring;
};

/* Wake the control lcore if it sleeps: call after making the work visible (a ring enqueue,
 * a flag store). The fence pairs with the one in the control lcore's sleep (it sets
 * ctl_sleeping, then looks for work): either it sees the work or this sees it asleep. One
 * write per sleep at most (the exchange); async-signal-safe. */
static inline void
uf_shared_wake_ctl(struct uf_shared *sh)
{
	uint64_t one = 1;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&sh->ctl_sleeping, __ATOMIC_RELAXED) &&
	    __atomic_exchange_n(&sh->ctl_sleeping, 0, __ATOMIC_ACQ_REL))
		(void)!write(sh->ctl_wake_fd, &one, sizeof(one));
}

struct uf_worker {
	/* ---- read-only once launched ---- */
	uint16_t id; /* worker index = queue index = RCU thread id */
	uint16_t lcore;
	uint16_t n_ports;
	uint16_t burst;
	uint32_t tx_retries;
	uint64_t drain_tsc;
	bool flush_idle; /* flush on a pass that found every RX queue empty (uf_worker_conf) */
	uint64_t flush_idle_tsc; /* ...once they have been empty this long */
	uint32_t idle_sleep_us;  /* sleep after a pass that found every RX queue empty (0: never) */
	uint64_t stall_tsc;      /* no TX progress this long: the port is skipped (0: never) */
	uint64_t probe_tsc;      /* a skipped, stalled port is tried again this often */
	struct uf_shared *shared;
	struct rte_mempool *copy_pool; /* copies: the listen port's pool for this queue */
	struct rte_mempool *hdr_pool;  /* chained fan-out: small header mbufs (NULL: no chaining) */
	struct rte_ring *ctl_rx;       /* worker → control: ARP/ICMP for us */
	struct rte_ring *ctl_tx;       /* control → worker: replies and requests to send */
	uint8_t port_idx[RTE_MAX_ETHPORTS]; /* DPDK port id → our port index */
	struct uf_wport ports[UF_MAX_PORTS];

	/* ---- written by this worker only ---- */
	struct uf_lcore_ctr ctr;
	struct uf_dest_ctr dctr[UF_MAX_DESTS];
	struct uf_lis_ctr lctr[UF_MAX_LISTENERS]; /* several listeners only */
	uint32_t sample_ctr[UF_MAX_DESTS];
	uint16_t pool_rr[UF_MAX_DESTS]; /* a round-robin pool's next turn, by its entry */
	/* per pool member, per stats interval: a 512-bit linear-counting sketch of the senders
	 * it was picked for (docs/configuration.md#pools); two banks, one filled, one read */
	uint32_t senders_epoch;
	uint64_t senders[2][UF_MAX_DESTS][UF_SENDERS_WORDS];
	struct uf_txbuf txb[UF_MAX_PORTS] __rte_cache_aligned;
	/*
	 * IPv6 (docs/architecture.md#ipv6), after everything the IPv4 path uses
	 * (its code and offsets stay as they were): each port's IPv6 facts (n_ip6 0: no
	 * ports[].ip6, its IPv6 frames count as not_ipv4), read-only once launched; the
	 * burst's IPv6 datagrams, fanned out after its IPv4 ones, this worker's.
	 */
	struct uf_port6_id port6[UF_MAX_PORTS];
	uint16_t n_rx6;
	struct rte_mbuf *rx6_m[UF_MAX_BURST];
	struct uf_rx6_info rx6_in[UF_MAX_BURST];
	/* the drop trace: set and cleared by the control lcore (a dropped frame tests it: the
	 * one cost while no trace runs); frames it could not take (no buffer, ring full) */
	uint8_t dtrace_armed;
	uint64_t dtrace_missed;
	/* service addresses (docs/architecture.md#service-addresses): the fast test's pattern
	 * for each of port pi's IPv4 ones in the plan svc_plan (version svc_version), built when
	 * a datagram first needs them (rx_svc_fast) */
	const struct uf_plan *svc_plan;
	const struct uf_plan *rx_plan; /* the plan of the burst being classified */
	uint64_t svc_version;
	uint8_t n_svc_pat[UF_MAX_PORTS];
	struct uf_dp_pat svc_pat[UF_MAX_PORTS][UF_MAX_PORT_SVC];
} __rte_cache_aligned;

/* The private area of a drop trace copy (uf_shared.dtrace_pool) */
struct uf_dtrace_meta {
	uint64_t tsc;      /* when the worker dropped it */
	uint32_t orig_len; /* the frame's length (the copy may be cut at the buffer's size) */
	uint16_t why;      /* enum uf_drop */
	uint16_t pi;       /* the port index it came in on */
};

/* A dropped frame while the trace is armed: a copy to the control lcore (cold). pi: the port
 * index it came in on, UINT16_MAX when not known (ctl_overflow: m->port says). Called where a
 * frame is dropped on receipt; not in the fan-out loop, where the flag's test cost
 * instructions per datagram (docs/loss-accounting.md#drop-trace). */
void uf_dtrace_take(struct uf_worker *w, uint16_t pi, const struct rte_mbuf *m, enum uf_drop why);
#define UF_DTRACE(w, pi, m, why)                                                     \
	do {                                                                         \
		if (unlikely(__atomic_load_n(&(w)->dtrace_armed, __ATOMIC_RELAXED))) \
			uf_dtrace_take((w), (pi), (m), (why));                       \
	} while (0)

/* Point the TX buffers at the shared per-port link state (w->shared set) and set the stall
 * timers (ms; 0 never marks a port stalled). Before launch. */
void uf_worker_link_init(struct uf_worker *w, uint32_t stall_ms, uint32_t probe_ms);

/* One port as a new worker sees it (the control side fills it from lib/port). */
struct uf_worker_port {
	uint16_t port_id;
	int socket;       /* the device's NUMA node */
	const char *name; /* for the cross-socket warning */
	struct uf_port_id id;
	struct uf_port6_id id6; /* n_ip6 0: no IPv6 on the port */
	uint16_t pad_to;        /* 60 where the PMD does not pad, else 0 */
	/* 802.1Q: this port's VLAN (0: untagged) and the port that owns its device (itself,
	 * or an earlier one: this one is then an alias, not polled) */
	uint16_t vlan;
	uint16_t dev;
};

struct uf_worker_conf {
	uint16_t id; /* worker index = queue index = RCU thread id */
	unsigned int lcore;
	uint16_t n_ports;
	const struct uf_worker_port *ports;
	uint16_t burst;
	uint32_t tx_retries;
	uint32_t drain_us;
	bool flush_idle;        /* flush on a pass that found every RX queue empty */
	uint32_t flush_idle_us; /* ...once they have been empty this long (0: at once) */
	uint32_t idle_sleep_us; /* sleep after such a pass (0: busy polling) */
	uint32_t tx_stall_ms;   /* 0: never skip a port for making no TX progress */
	uint32_t tx_probe_ms;   /* a skipped port is tried again this often */
	struct uf_shared *shared;
	struct rte_mempool *copy_pool;
	struct rte_mempool *hdr_pool; /* NULL: no chained fan-out */
};

/* Allocate a worker on its lcore's socket with its two control rings (UF_CTL_RING_SIZE).
 * 0, or -ENOMEM with err (UF_EXIT_ENV). Before launch. */
int uf_worker_create(const struct uf_worker_conf *c, struct uf_worker **out, struct uf_err *err);

/* Free a worker and its rings (not running; NULL is fine). */
void uf_worker_destroy(struct uf_worker *w);

/* After w->ports[pi].id is set or changed: what the worker derives from it (the fast test's
 * pattern). uf_worker_create calls it; so must whoever sets id by hand (tests). */
void uf_worker_port_id(struct uf_worker *w, uint16_t pi);

/* The control side of a port reset (docs/architecture.md#port-reset-without-pausing-the-other-
 * ports): workers stop polling the ports in `ports` (bit = port index) and drop what they would
 * send there as link_down (link_down set); returns once every worker has finished the pass it
 * was in (an RCU grace period on sh->qsbr), waiting at most timeout_ms. The other ports are
 * never paused. 0, or -ETIMEDOUT when a worker may still be in those queues (resetting the
 * device under it would crash). Control lcore. */
int uf_workers_quiesce(struct uf_shared *sh, uint32_t ports, uint32_t timeout_ms);

/* The ports' queues may be polled again (after the reset). Their link_down stays set until
 * the link check sees the link up. Control lcore. */
void uf_workers_unquiesce(struct uf_shared *sh, uint32_t ports);

/* The worker loop (rte_eal_remote_launch). */
int uf_worker_main(void *arg);

/* Process one received burst from port index `pi` (exposed for tests and benches). */
void uf_worker_rx(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi,
		  struct rte_mbuf **pkts, uint16_t n);

/* Hand every buffered frame to its PMD (bounded retries, then drop and count); returns how
 * many frames the buffers held. */
uint32_t uf_worker_flush(struct uf_worker *w);

#endif /* UF_FWD_H */
