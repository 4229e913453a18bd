/* SPDX-License-Identifier: BSD-3-Clause */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/if_xdp.h>

#ifndef AF_XDP
#define AF_XDP 44
#endif
#ifndef SOL_XDP
#define SOL_XDP 283
#endif

#include "uf_own.h"
#include "uf_xsk.h"

/*
 * Our open sockets of `domain`, from /proc/self/fd; with ifindex != 0 only those bound to
 * that interface (getsockname; AF_XDP has none, so it is listed without). n or -errno.
 */
static int
list_sockets(int domain, unsigned int ifindex, int *fds, int max)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return -errno;
	while ((de = readdir(d)) != NULL && n < max) {
		struct sockaddr_ll sll;
		socklen_t len = sizeof(int);
		int fd, got;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		fd = atoi(de->d_name);
		if (fd == dirfd(d))
			continue;
		if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &got, &len) != 0 || got != domain)
			continue;
		len = sizeof(sll);
		if (ifindex != 0 && (getsockname(fd, (struct sockaddr *)&sll, &len) != 0 ||
				     (unsigned int)sll.sll_ifindex != ifindex))
			continue;
		fds[n++] = fd;
	}
	closedir(d);
	return n;
}

/*
 * The PMD keeps its AF_XDP sockets to itself; they are ours all the same. It opens one per
 * RX queue in rx_queue_setup, so the port remembers which of our descriptors appeared there
 * (AF_XDP has no getsockname to tell them apart later), and asks each for XDP_STATISTICS
 * (the whole struct: rx_ring_full and fill_ring_empty are the counters the PMD leaves out)
 * and XDP_OPTIONS (zero-copy or not). Needs no sock_diag support in the kernel.
 */
int
uf_xsk_list_fds(int *fds, int max)
{
	return list_sockets(AF_XDP, 0, fds, max);
}

int
uf_xsk_query(const int *fds, int n_fds, struct uf_xsk_info *out)
{
	int i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n_fds; i++) {
		struct xdp_statistics st;
		struct xdp_options xo;
		socklen_t len;

		len = sizeof(xo);
		if (getsockopt(fds[i], SOL_XDP, XDP_OPTIONS, &xo, &len) != 0)
			continue;
		out->n_sockets++;
		if (xo.flags & XDP_OPTIONS_ZEROCOPY)
			out->n_zerocopy++;
		len = sizeof(st);
		memset(&st, 0, sizeof(st));
		if (getsockopt(fds[i], SOL_XDP, XDP_STATISTICS, &st, &len) != 0)
			continue;
		out->rx_dropped += st.rx_dropped;
		out->rx_invalid += st.rx_invalid_descs;
		out->tx_invalid += st.tx_invalid_descs;
		if (len >= sizeof(st)) { /* kernel >= 5.9 */
			out->rx_ring_full += st.rx_ring_full;
			out->fill_ring_empty += st.rx_fill_ring_empty_descs;
			out->tx_ring_empty += st.tx_ring_empty_descs;
		}
	}
	return out->n_sockets > 0 ? 0 : -ENOENT;
}

int
uf_pktsock_list(unsigned int ifindex, int *fds, int max)
{
	return list_sockets(AF_PACKET, ifindex, fds, max);
}

int
uf_pktsock_query(const int *fds, int n_fds, struct uf_pktsock_info *out)
{
	int i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n_fds; i++) {
		struct tpacket_stats st;
		socklen_t len = sizeof(st);

		if (getsockopt(fds[i], SOL_PACKET, PACKET_STATISTICS, &st, &len) != 0)
			continue;
		out->n_sockets++;
		out->packets += st.tp_packets;
		out->drops += st.tp_drops;
	}
	return out->n_sockets > 0 ? 0 : -ENOENT;
}

int
uf_xdp_attach_mode(unsigned int ifindex)
{
	uint32_t prog;
	int mode, ret = uf_xdp_query(ifindex, &mode, &prog);

	return ret != 0 ? ret : mode;
}

const char *
uf_xdp_mode_str(int attach, const struct uf_xsk_info *xi, char *buf, size_t len)
{
	const char *m;

	switch (attach) {
	case XDP_ATTACHED_DRV:
		m = "native";
		break;
	case XDP_ATTACHED_SKB:
		m = "generic";
		break;
	case XDP_ATTACHED_HW:
		m = "offload";
		break;
	case XDP_ATTACHED_MULTI:
		m = "multi";
		break;
	case XDP_ATTACHED_NONE:
		m = "none";
		break;
	default:
		m = "unknown";
		break;
	}
	if (xi == NULL || xi->n_sockets == 0)
		snprintf(buf, len, "%s", m);
	else
		snprintf(buf, len, "%s, %s", m,
			 xi->n_zerocopy == xi->n_sockets ? "zero-copy"
			 : xi->n_zerocopy == 0           ? "copy"
							 : "mixed zero-copy/copy");
	return buf;
}

int
uf_kernel_link_parse(const char *operstate, const char *carrier)
{
	if (operstate == NULL)
		return 0;
	if (strncmp(operstate, "up", 2) == 0 && (operstate[2] == '\0' || operstate[2] == '\n'))
		return 1;
	if (strncmp(operstate, "unknown", 7) == 0)
		return carrier != NULL && carrier[0] == '1';
	return 0;
}

static int
read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (f == NULL)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return 0;
}

int
uf_kernel_link_read(const char *sysfs_root, const char *ifname)
{
	char path[512], oper[32], carrier[8];
	int ret;

	snprintf(path, sizeof(path), "%s/class/net/%s/operstate", sysfs_root, ifname);
	ret = read_small(path, oper, sizeof(oper));
	if (ret != 0)
		return ret;
	/* carrier reads EINVAL while the interface is administratively down */
	snprintf(path, sizeof(path), "%s/class/net/%s/carrier", sysfs_root, ifname);
	if (read_small(path, carrier, sizeof(carrier)) != 0)
		carrier[0] = '\0';
	return uf_kernel_link_parse(oper, carrier);
}
