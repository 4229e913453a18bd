/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/xdp_diag.h>

#ifndef AF_XDP
#define AF_XDP 44
#endif

#include "uf_xsk.h"

static int
nl_open(int proto)
{
	struct timeval tv = { .tv_sec = 1 };
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, proto);

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static void
parse_xsk(struct nlmsghdr *nh, unsigned int ifindex, unsigned int nb_queues,
		struct uf_xsk_info *out)
{
	struct xdp_diag_msg *msg = NLMSG_DATA(nh);
	int len = (int)(nh->nlmsg_len - NLMSG_LENGTH(sizeof(*msg)));
	struct rtattr *a = (struct rtattr *)(msg + 1);
	struct xdp_diag_info info = { 0 };
	struct xdp_diag_umem umem = { 0 };
	struct xdp_diag_stats st = { 0 };
	bool have_info = false, have_stats = false;

	for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		size_t n = RTA_PAYLOAD(a);

		if (a->rta_type == XDP_DIAG_INFO && n >= sizeof(info)) {
			memcpy(&info, RTA_DATA(a), sizeof(info));
			have_info = true;
		} else if (a->rta_type == XDP_DIAG_UMEM && n >= sizeof(umem)) {
			memcpy(&umem, RTA_DATA(a), sizeof(umem));
		} else if (a->rta_type == XDP_DIAG_STATS && n >= sizeof(st)) {
			memcpy(&st, RTA_DATA(a), sizeof(st));
			have_stats = true;
		}
	}
	if (!have_info || info.ifindex != ifindex || info.queue_id >= nb_queues)
		return;
	out->n_sockets++;
	if (umem.flags & XDP_DU_F_ZEROCOPY)
		out->n_zerocopy++;
	if (have_stats) {
		out->rx_dropped += st.n_rx_dropped;
		out->rx_invalid += st.n_rx_invalid;
		out->rx_ring_full += st.n_rx_full;
		out->fill_ring_empty += st.n_fill_ring_empty;
		out->tx_invalid += st.n_tx_invalid;
		out->tx_ring_empty += st.n_tx_ring_empty;
	}
}

int
uf_xsk_query(unsigned int ifindex, unsigned int nb_queues, struct uf_xsk_info *out)
{
	struct {
		struct nlmsghdr nh;
		struct xdp_diag_req req;
	} rq;
	char buf[16384];
	int fd, ret = 0;
	bool done = false;

	memset(out, 0, sizeof(*out));
	fd = nl_open(NETLINK_SOCK_DIAG);
	if (fd < 0)
		return fd;
	memset(&rq, 0, sizeof(rq));
	rq.nh.nlmsg_len = sizeof(rq);
	rq.nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	rq.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	rq.req.sdiag_family = AF_XDP;
	rq.req.xdiag_show = XDP_SHOW_INFO | XDP_SHOW_UMEM | XDP_SHOW_STATS;
	if (send(fd, &rq, sizeof(rq), 0) < 0) {
		ret = -errno;
		goto out;
	}
	while (!done) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *nh;

		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n); nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (nh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nh);

				ret = e->error;
				done = true;
				break;
			}
			parse_xsk(nh, ifindex, nb_queues, out);
		}
	}
out:
	close(fd);
	return ret;
}

int
uf_xdp_attach_mode(unsigned int ifindex)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} rq;
	char buf[32768];
	struct nlmsghdr *nh;
	ssize_t n;
	int fd, mode = -ENOENT;

	fd = nl_open(NETLINK_ROUTE);
	if (fd < 0)
		return fd;
	memset(&rq, 0, sizeof(rq));
	rq.nh.nlmsg_len = sizeof(rq);
	rq.nh.nlmsg_type = RTM_GETLINK;
	rq.nh.nlmsg_flags = NLM_F_REQUEST;
	rq.ifi.ifi_family = AF_UNSPEC;
	rq.ifi.ifi_index = (int)ifindex;
	if (send(fd, &rq, sizeof(rq), 0) < 0) {
		mode = -errno;
		goto out;
	}
	n = recv(fd, buf, sizeof(buf), 0);
	if (n <= 0) {
		mode = n < 0 ? -errno : -EIO;
		goto out;
	}
	for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n); nh = NLMSG_NEXT(nh, n)) {
		struct ifinfomsg *ifi;
		struct rtattr *a;
		int len;

		if (nh->nlmsg_type != RTM_NEWLINK)
			continue;
		ifi = NLMSG_DATA(nh);
		len = (int)(nh->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi)));
		mode = 0;
		for (a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
			struct rtattr *x;
			int xl;

			if (a->rta_type != IFLA_XDP)
				continue;
			xl = (int)RTA_PAYLOAD(a);
			for (x = RTA_DATA(a); RTA_OK(x, xl); x = RTA_NEXT(x, xl))
				if (x->rta_type == IFLA_XDP_ATTACHED)
					mode = *(uint8_t *)RTA_DATA(x);
		}
	}
out:
	close(fd);
	return mode;
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
		snprintf(buf, len, "%s, %s", m, xi->n_zerocopy == xi->n_sockets ? "zero-copy" :
							xi->n_zerocopy == 0 ? "copy" :
									      "mixed zero-copy/copy");
	return buf;
}
