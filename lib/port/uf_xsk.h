/* SPDX-License-Identifier: BSD-3-Clause
 * What the kernel says about our AF_XDP sockets, for af_xdp ports: the XDP attach mode
 * (native or generic), zero-copy or copy, and the socket drop counters the PMD does not
 * report (it reads XDP_STATISTICS but ignores rx_ring_full and fill_ring_empty, so imissed
 * undercounts). Syscalls: control lcore only, once per stats interval.
 */
#ifndef UF_XSK_H
#define UF_XSK_H

#include <stdbool.h>
#include <stdint.h>

#include "uf_stats.h" /* struct uf_xsk_info: what a stats snapshot carries */

/* Our AF_XDP socket descriptors (the PMD's). Count, or -errno. */
int uf_xsk_list_fds(int *fds, int max);

/* Sum over the given AF_XDP sockets. 0, or -ENOENT when none answers. */
int uf_xsk_query(const int *fds, int n_fds, struct uf_xsk_info *out);

/*
 * The same gap for af_packet: the PMD never reads PACKET_STATISTICS, so frames its rings had
 * no room for vanish (imissed stays 0). Its sockets are opened at probe; these are the
 * AF_PACKET sockets of ours bound to ifindex. PACKET_STATISTICS resets on every read: the
 * caller accumulates (control lcore only).
 */
int uf_pktsock_list(unsigned int ifindex, int *fds, int max);

struct uf_pktsock_info {
	int n_sockets;
	uint64_t packets; /* since the previous read */
	uint64_t drops;   /* since the previous read */
};
int uf_pktsock_query(const int *fds, int n_fds, struct uf_pktsock_info *out);

/* IFLA_XDP_ATTACHED of ifindex: 0 none, 1 native (drv), 2 generic (skb), 3 offload,
 * 4 several; -errno on failure. */
int uf_xdp_attach_mode(unsigned int ifindex);

/* "native, zero-copy" / "generic (skb), copy" / ... into buf. */
const char *uf_xdp_mode_str(int attach, const struct uf_xsk_info *xi, char *buf, size_t len);

/*
 * The link of a kernel interface as the kernel sees it (/sys/class/net/<if>/operstate and
 * carrier): the af_xdp and af_packet PMDs report "up" from dev_start to dev_stop whatever
 * the wire does (docs/architecture.md, "Link state"). up iff operstate is "up", or
 * "unknown" (drivers without operstate support) with carrier 1. 1 up, 0 down.
 */
int uf_kernel_link_parse(const char *operstate, const char *carrier);

/* Read the two files under sysfs_root ("/sys"): 1 up, 0 down, -errno if operstate is
 * unreadable (the interface is gone). A syscall or three: control lcore only. */
int uf_kernel_link_read(const char *sysfs_root, const char *ifname);

#endif /* UF_XSK_H */
