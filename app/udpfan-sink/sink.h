/* SPDX-License-Identifier: BSD-3-Clause
 * udpfan-sink's two receivers (kernel sockets, a DPDK port) behind one small ops table; main.c
 * drives either and writes the summary from their uf_sink_count tables.
 */
#ifndef SINK_H
#define SINK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "uf_common.h"
#include "uf_seqtrack.h"
#include "uf_sinkcount.h"
#include "uf_tool.h"

#define PROG "udpfan-sink"
#define SINK_MAX_PORTS 16
#define SINK_BATCH 64 /* recvmmsg batch, rx_burst size */
#define SINK_RCVBUF (8 << 20)

struct sink_opts {
	bool kernel;
	struct uf_tool_opts t; /* DPDK mode: --dev is t.eal.dev */
	int n_ports;
	uint16_t ports[SINK_MAX_PORTS]; /* host order */
	bool has_bind;
	rte_be32_t bind;
	bool has_ip;
	rte_be32_t ip;
	uint8_t prefix_len;
	double duration; /* 0: none */
	double idle;     /* 0: none */
	struct uf_seq_expect expect;
	unsigned int win_log2;
	bool csum_check;
	uint16_t seq_off; /* --seq-offset */
	bool latency;     /* --latency */
	uint16_t queues;  /* DPDK: RX queues polled by the one lcore (default 1) */
};

/* set by the signal handler and by the control loop; receivers check it once per pass */
extern int sink_quit;

static inline bool
sink_stopping(void)
{
	return __atomic_load_n(&sink_quit, __ATOMIC_RELAXED) != 0;
}

struct sink_mode {
	const char *name;
	/* bind/open, start receiving; 0 or -1 with err */
	int (*start)(const struct sink_opts *o, struct uf_err *err);
	/* datagrams accounted so far (any thread may be writing) */
	uint64_t (*total)(void);
	/* stop the receivers and wait for them */
	void (*stop)(void);
	/* the count tables, valid after stop */
	int (*counts)(struct uf_sink_count **out, int max);
	double (*hz)(void);
	/* mode-specific members of the summary, each as `, "key": value` */
	void (*json)(FILE *f);
	void (*fini)(void);
};

extern const struct sink_mode sink_kernel_mode;
extern const struct sink_mode sink_dpdk_mode;

#endif /* SINK_H */
