/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "uf_config.h"
#include "uf_env.h"
#include "uf_pkt.h"
#include "uf_port.h"
#include "uf_quirks.h"
#include "uf_tool.h"

RTE_LOG_REGISTER(uf_tool_logtype, user.udpfan.tool, INFO);

const char *uf_tool_name = "udpfan-tool";

#define POOL_CACHE 256
#define LINK_WAIT_MS 2000
/* af_xdp keeps UMEM buffers in its fill (2 x 2048) and completion (2048) rings */
#define AF_XDP_EXTRA_MBUFS 6144

static const char *
errstr(int ret)
{
	return rte_strerror(ret < 0 ? -ret : ret);
}

static void
replace(char *msg, size_t len, const char *what, const char *with)
{
	char *at = strstr(msg, what);
	char tmp[512];

	if (at == NULL)
		return;
	snprintf(tmp, sizeof(tmp), "%.*s%s%s", (int)(at - msg), msg, with, at + strlen(what));
	snprintf(msg, len, "%s", tmp);
}

/* udpfan's environment messages name its config key and itself; ours are --dev and us */
static void
retarget(char *msg, size_t len)
{
	char who[64];

	replace(msg, len, "ports[0].device", "--dev");
	snprintf(who, sizeof(who), "run %s ", uf_tool_name);
	replace(msg, len, "run udpfan ", who);
	snprintf(who, sizeof(who), "%s needs root", uf_tool_name);
	replace(msg, len, "udpfan needs root", who);
	replace(msg, len, "set eal.no_huge", "use --no-huge");
}

int
uf_tool_eal_init(const struct uf_tool_eal *o, struct uf_err *err, char *line, size_t len)
{
	struct uf_config *cfg;
	struct uf_cfg_port *port;
	struct uf_eal_argv *a;
	uint16_t ids[RTE_MAX_LCORE];
	size_t n;
	int ret = -1;

	if (uf_parse_lcore_list(o->lcores, ids, RTE_MAX_LCORE) < 2) {
		uf_err_set(err, UF_EXIT_CONFIG,
			   "--lcores: \"%s\" is not a list of two or more "
			   "lcores, the main one first (0,1)",
			   o->lcores);
		return -1;
	}
	if (strlen(o->dev) >= UF_DEVSTR_MAX || o->dev[0] == '\0') {
		uf_err_set(err, UF_EXIT_CONFIG, "--dev: empty or longer than %d characters",
			   UF_DEVSTR_MAX - 1);
		return -1;
	}
	cfg = calloc(1, sizeof(*cfg));
	a = calloc(1, sizeof(*a));
	if (cfg == NULL || a == NULL) {
		uf_err_set(err, UF_EXIT_OTHER, "out of memory");
		goto out;
	}
	snprintf(cfg->path, sizeof(cfg->path), "%s", uf_tool_name);
	snprintf(cfg->eal.lcores, sizeof(cfg->eal.lcores), "%s", o->lcores);
	snprintf(cfg->eal.file_prefix, sizeof(cfg->eal.file_prefix), "%s", o->file_prefix);
	cfg->eal.in_memory = o->in_memory;
	cfg->eal.no_huge = o->no_huge;
	/* EAL's no-huge default (64 MiB) is short of a pool and EAL's own needs */
	cfg->eal.memory_mb = o->no_huge ? 256 : 0;
	cfg->eal.n_extra = o->n_extra;
	cfg->eal.extra_args = o->extra;
	cfg->n_ports = 1;
	port = &cfg->ports[0];
	snprintf(port->name, sizeof(port->name), "dev");
	snprintf(port->device, sizeof(port->device), "%s", o->dev);
	port->is_pci = uf_is_pci_addr(o->dev, port->dev_name, sizeof(port->dev_name));
	if (!port->is_pci) {
		n = strcspn(o->dev, ",");
		memcpy(port->dev_name, o->dev, n);
		port->dev_name[n] = '\0';
	}

	if (uf_eal_argv_build(cfg, uf_tool_name, a, err) != 0) {
		uf_err_set(err, UF_EXIT_CONFIG, "too many or too long EAL arguments");
		goto out;
	}
	uf_eal_argv_str(a, line, len);
	if (uf_env_check(cfg, true, err, NULL, NULL) < 0) {
		retarget(err->msg, sizeof(err->msg));
		goto out;
	}
	if (rte_eal_init(a->argc, a->argv) < 0) {
		uf_err_set(err, UF_EXIT_ENV,
			   "EAL initialisation failed (%s); the EAL log above says "
			   "why (hugepages, permissions, a device string, a --file-prefix in use)",
			   rte_strerror(rte_errno));
		goto out;
	}
	ret = 0;
out:
	free(a);
	free(cfg);
	return ret;
}

static void
read_xdp_mode(struct uf_tool_port *p)
{
	struct uf_xsk_info xi;
	int mode;

	if (!p->is_af_xdp || p->if_index == 0)
		return;
	mode = uf_xdp_attach_mode(p->if_index);
	if (uf_xsk_query(p->xsk_fd, p->n_xsk, &xi) != 0)
		memset(&xi, 0, sizeof(xi));
	uf_xdp_mode_str(mode, &xi, p->xdp_mode, sizeof(p->xdp_mode));
}

int
uf_tool_port_open(struct uf_tool_port *p, const char *dev, uint16_t rxd, uint16_t txd,
		  struct uf_err *err)
{
	return uf_tool_port_open_mq(p, dev, 1, rxd, txd, err);
}

int
uf_tool_port_open_mq(struct uf_tool_port *p, const char *dev, uint16_t nq, uint16_t rxd,
		     uint16_t txd, struct uf_err *err)
{
	uint16_t q;
	struct rte_eth_dev_info info;
	struct rte_eth_txconf txc;
	struct rte_eth_rxconf rxc;
	struct rte_eth_conf conf;
	struct rte_eth_link link;
	uint32_t n_mbufs;
	char norm[UF_DEVSTR_MAX];
	size_t n;
	int ret;

	memset(p, 0, sizeof(*p));
	if (uf_is_pci_addr(dev, norm, sizeof(norm))) {
		snprintf(p->dev_name, sizeof(p->dev_name), "%s", norm);
	} else {
		n = strcspn(dev, ",");
		snprintf(p->dev_name, sizeof(p->dev_name), "%.*s", (int)n, dev);
	}
	ret = rte_eth_dev_get_port_by_name(p->dev_name, &p->port_id);
	if (ret != 0) {
		uf_err_set(err, UF_EXIT_ENV, "--dev: \"%s\" was not probed by DPDK (%s); %s", dev,
			   errstr(ret),
			   uf_is_pci_addr(dev, NULL, 0)
					   ? "is it bound to vfio-pci? (scripts/dpdk-bind.sh)"
					   : "check the vdev string and that the interface exists");
		return -ENODEV;
	}
	p->opened = true;
	ret = rte_eth_dev_info_get(p->port_id, &info);
	if (ret != 0) {
		uf_err_set(err, UF_EXIT_ENV, "%s: cannot read device info: %s", p->dev_name,
			   errstr(ret));
		return ret;
	}
	snprintf(p->driver, sizeof(p->driver), "%s", info.driver_name);
	p->if_index = info.if_index;
	p->is_af_xdp = uf_quirk_lookup(info.driver_name)->kernel_sock == UF_KSOCK_XSK;
	p->socket = rte_eth_dev_socket_id(p->port_id);
	if (p->socket < 0)
		p->socket = (int)rte_socket_id();
	ret = rte_eth_macaddr_get(p->port_id, &p->mac);
	if (ret != 0) {
		uf_err_set(err, UF_EXIT_ENV, "%s: cannot read the MAC address: %s", p->dev_name,
			   errstr(ret));
		return ret;
	}

	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_configure(p->port_id, nq, nq, &conf);
	if (ret != 0) {
		uf_err_set(err, UF_EXIT_ENV, "%s (%s): configure with %u queue(s) failed: %s",
			   p->dev_name, p->driver, nq, errstr(ret));
		return ret;
	}
	p->nb_queues = nq;
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(p->port_id, &rxd, &txd);
	if (ret != 0) {
		uf_err_set(err, UF_EXIT_ENV, "%s: descriptor counts %u/%u refused: %s", p->dev_name,
			   rxd, txd, errstr(ret));
		return ret;
	}
	p->rxd = rxd;
	p->txd = txd;

	/* everything that can be out of the pool at once: both rings, what the worker holds
	 * (a burst, its retries, the ARP answers), the PMD's own rings, two lcore caches */
	n_mbufs = ((uint32_t)rxd + txd) * nq + 4 * UF_MAX_BURST + 2 * POOL_CACHE;
	if (p->is_af_xdp)
		n_mbufs += AF_XDP_EXTRA_MBUFS;
	n_mbufs = rte_align32pow2(RTE_MAX(n_mbufs, 4096u)) - 1;
	p->pool = rte_pktmbuf_pool_create("uf_tool_pool", n_mbufs, POOL_CACHE, 0,
					  RTE_MBUF_DEFAULT_BUF_SIZE, p->socket);
	if (p->pool == NULL) {
		uf_err_set(err, UF_EXIT_ENV,
			   "%s: cannot create a pool of %u mbufs on socket %d: %s; "
			   "free or reserve hugepages (free_hugepages in "
			   "/sys/kernel/mm/hugepages/*), or use --no-huge with ring/pcap vdevs",
			   p->dev_name, n_mbufs, p->socket, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	rxc = info.default_rxconf;
	rxc.offloads = 0;
	for (q = 0, ret = 0; q < nq && ret == 0; q++)
		ret = rte_eth_rx_queue_setup(p->port_id, q, rxd, p->socket, &rxc, p->pool);
	if (ret != 0) {
		uf_err_set(err, UF_EXIT_ENV, "%s: RX queue setup failed: %s", p->dev_name,
			   errstr(ret));
		return ret;
	}
	if (p->is_af_xdp) {
		/* the PMD opened its socket in rx_queue_setup; it is the only one we have */
		ret = uf_xsk_list_fds(p->xsk_fd, RTE_DIM(p->xsk_fd));
		p->n_xsk = ret > 0 ? ret : 0;
	}
	txc = info.default_txconf;
	txc.offloads = 0;
	for (q = 0, ret = 0; q < nq && ret == 0; q++)
		ret = rte_eth_tx_queue_setup(p->port_id, q, txd, p->socket, &txc);
	if (ret != 0) {
		uf_err_set(err, UF_EXIT_ENV, "%s: TX queue setup failed: %s", p->dev_name,
			   errstr(ret));
		return ret;
	}
	ret = rte_eth_dev_start(p->port_id);
	if (ret != 0) {
		uf_err_set(err, UF_EXIT_ENV, "%s (%s): start failed: %s", p->dev_name, p->driver,
			   errstr(ret));
		return ret;
	}
	p->started = true;
	read_xdp_mode(p);

	p->link_up = uf_port_link_wait(p->port_id, LINK_WAIT_MS, &link);
	if (!p->link_up)
		UF_TOOL_LOG(WARNING, "%s: link still down after %u ms; starting anyway",
			    p->dev_name, LINK_WAIT_MS);
	UF_TOOL_LOG(INFO,
		    "%s (%s, " RTE_ETHER_ADDR_PRT_FMT "): rx %u tx %u descriptors, %u "
		    "mbufs%s%s",
		    p->dev_name, p->driver, RTE_ETHER_ADDR_BYTES(&p->mac), rxd, txd, n_mbufs,
		    p->xdp_mode[0] ? ", XDP " : "", p->xdp_mode);
	return 0;
}

void
uf_tool_port_close(struct uf_tool_port *p)
{
	if (!p->opened)
		return;
	if (p->started) {
		rte_eth_dev_stop(p->port_id);
		p->started = false;
	}
	rte_eth_dev_close(p->port_id);
	rte_mempool_free(p->pool);
	p->pool = NULL;
	p->opened = false;
}

void
uf_tool_port_json(FILE *f, const struct uf_tool_port *p)
{
	struct rte_eth_stats st;
	struct uf_xsk_info xi;

	memset(&st, 0, sizeof(st));
	if (rte_eth_stats_get(p->port_id, &st) != 0) {
		fprintf(f, "null");
		return;
	}
	fprintf(f,
		"{\"driver\": \"%s\", \"mac\": \"" RTE_ETHER_ADDR_PRT_FMT "\", "
		"\"ipackets\": %" PRIu64 ", \"opackets\": %" PRIu64 ", \"ierrors\": %" PRIu64
		", \"oerrors\": %" PRIu64 ", \"imissed\": %" PRIu64 ", \"rx_nombuf\": %" PRIu64,
		p->driver, RTE_ETHER_ADDR_BYTES(&p->mac), st.ipackets, st.opackets, st.ierrors,
		st.oerrors, st.imissed, st.rx_nombuf);
	if (p->is_af_xdp) {
		fprintf(f, ", \"xdp_mode\": \"%s\"", p->xdp_mode);
		/* what the PMD leaves out of imissed: the kernel's own AF_XDP socket counters */
		if (uf_xsk_query(p->xsk_fd, p->n_xsk, &xi) == 0)
			fprintf(f,
				", \"xsk\": {\"rx_dropped\": %" PRIu64 ", \"rx_invalid\": %" PRIu64
				", \"rx_ring_full\": %" PRIu64 ", \"fill_ring_empty\": %" PRIu64
				", \"tx_invalid\": %" PRIu64 ", \"tx_ring_empty\": %" PRIu64 "}",
				xi.rx_dropped, xi.rx_invalid, xi.rx_ring_full, xi.fill_ring_empty,
				xi.tx_invalid, xi.tx_ring_empty);
	}
	fprintf(f, "}");
}

/* 0 and a filled if m is an Ethernet/IPv4 ARP request or reply */
static int
arp_of(const struct rte_mbuf *m, struct uf_arp_info *a)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t et;

	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(struct rte_arp_hdr))
		return -1;
	memcpy(&et, f + 12, 2);
	if (et != rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP))
		return -1;
	return uf_arp_parse(f, rte_pktmbuf_data_len(m), a);
}

bool
uf_tool_arp_answer(struct rte_mbuf *m, const struct rte_ether_addr *mac, rte_be32_t ip)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	struct uf_arp_info a;

	if (arp_of(m, &a) != 0 || a.op != RTE_ARP_OP_REQUEST || a.tip != ip)
		return false;
	if (rte_pktmbuf_data_len(m) < UF_MIN_FRAME &&
	    rte_pktmbuf_append(m, UF_MIN_FRAME - rte_pktmbuf_data_len(m)) == NULL)
		return false;
	uf_arp_build(f, RTE_ARP_OP_REPLY, &a.sha, mac, ip, &a.sha, a.sip);
	rte_pktmbuf_trim(m, rte_pktmbuf_data_len(m) - UF_MIN_FRAME);
	return true;
}

bool
uf_tool_icmp_answer(struct rte_mbuf *m, const struct rte_ether_addr *mac, rte_be32_t ip)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	const struct rte_ipv4_hdr *h = (const struct rte_ipv4_hdr *)(f + RTE_ETHER_HDR_LEN);
	uint16_t et;

	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + 20 + 8 || m->nb_segs != 1)
		return false;
	memcpy(&et, f + 12, 2);
	if (et != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) || h->next_proto_id != IPPROTO_ICMP ||
	    h->dst_addr != ip || !rte_is_same_ether_addr((void *)f, mac) ||
	    (h->fragment_offset & rte_cpu_to_be_16(0x3fff)) != 0 || rte_ipv4_cksum(h) != 0)
		return false;
	return uf_icmp_echo_reply(f, rte_pktmbuf_data_len(m), mac) == 0;
}

static void
send_one(struct uf_tool_port *p, struct rte_mbuf *m)
{
	if (rte_eth_tx_burst(p->port_id, 0, &m, 1) != 1)
		rte_pktmbuf_free(m);
}

int
uf_tool_arp_resolve(struct uf_tool_port *p, rte_be32_t our_ip, rte_be32_t target,
		    unsigned int tries, unsigned int interval_ms, struct rte_ether_addr *mac)
{
	static const struct rte_ether_addr bcast = { .addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff,
								     0xff } };
	static const struct rte_ether_addr zero;
	struct rte_mbuf *pkts[UF_MAX_BURST], *m;
	const uint64_t hz = rte_get_timer_hz();
	unsigned int t;
	uint16_t i, n;

	for (t = 0; t < tries; t++) {
		uint64_t until = rte_get_timer_cycles() + hz * interval_ms / 1000;

		m = rte_pktmbuf_alloc(p->pool);
		if (m == NULL)
			return -ENOMEM;
		uf_arp_build(rte_pktmbuf_mtod(m, uint8_t *), RTE_ARP_OP_REQUEST, &bcast, &p->mac,
			     our_ip, &zero, target);
		m->data_len = m->pkt_len = UF_MIN_FRAME;
		send_one(p, m);
		while (rte_get_timer_cycles() < until) {
			n = rte_eth_rx_burst(p->port_id, 0, pkts, UF_MAX_BURST);
			for (i = 0; i < n; i++) {
				struct uf_arp_info a;

				m = pkts[i];
				if (uf_tool_arp_answer(m, &p->mac, our_ip)) {
					send_one(p, m);
					continue;
				}
				if (arp_of(m, &a) == 0 && a.sip == target &&
				    (a.op == RTE_ARP_OP_REPLY || a.tip == our_ip)) {
					/* a reply, or the target asking for us: either names it */
					*mac = a.sha;
					rte_pktmbuf_free_bulk(&pkts[i], n - i);
					return 0;
				}
				rte_pktmbuf_free(m);
			}
			if (n == 0)
				rte_delay_us_sleep(1000);
		}
	}
	return -ETIMEDOUT;
}

int
uf_tool_parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno != 0 || *end != '\0' ? -1 : 0;
}

int
uf_tool_parse_double(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno != 0 || *end != '\0' || end == s || !isfinite(*v) || *v < 0 ? -1 : 0;
}

int
uf_tool_write_file(const char *path, const char *buf)
{
	FILE *f = fopen(path, "w");
	int ret = 0;

	if (f == NULL)
		return -errno;
	if (fputs(buf, f) < 0)
		ret = -EIO;
	if (fclose(f) != 0 && ret == 0)
		ret = -errno;
	return ret;
}

int
uf_tool_touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int
uf_tool_opt(int c, const char *arg, struct uf_tool_opts *t)
{
	switch (c) {
	case 'l':
		t->eal.lcores = arg;
		return 1;
	case 'F':
		t->eal.file_prefix = arg;
		return 1;
	case 'm':
		t->eal.in_memory = true;
		return 1;
	case 'H':
		t->eal.no_huge = true;
		return 1;
	case 'j':
		t->json = arg;
		return 1;
	case 'R':
		t->ready = arg;
		return 1;
	case 'Z': {
		char *end;
		unsigned long v = strtoul(arg, &end, 10);

		if (*arg == '\0' || *end != '\0' || v > 600000) {
			uf_tool_usage_err("--hold: \"%s\" is not 0..600000 ms", arg);
			return -1;
		}
		t->hold_ms = (uint32_t)v;
		return 1;
	}
	default:
		return 0;
	}
}

int
uf_tool_usage_err(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: error: ", uf_tool_name);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (%s --help)\n", uf_tool_name);
	return UF_EXIT_CONFIG;
}

void
uf_tool_hold(const struct uf_tool_port *p, uint32_t ms)
{
	const uint64_t end = rte_get_timer_cycles() + (uint64_t)ms * rte_get_timer_hz() / 1000;
	struct rte_eth_link link;

	while (rte_get_timer_cycles() < end) {
		if (rte_eth_link_get_nowait(p->port_id, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_DOWN)
			return;
		rte_delay_us_sleep(10000);
	}
}
