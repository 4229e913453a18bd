/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>
#include <rte_version.h>

#include "uf_tel.h"

/* 23.03 renamed the u64 helpers (the old names are deprecated, which -Werror refuses) */
#if RTE_VERSION >= RTE_VERSION_NUM(23, 3, 0, 0)
#define tel_u64(d, k, v) rte_tel_data_add_dict_uint((d), (k), (v))
#else
#define tel_u64(d, k, v) rte_tel_data_add_dict_u64((d), (k), (v))
#endif

static struct uf_tel_ops tel_ops; /* pub NULL: nothing served */
static pthread_mutex_t tel_ops_lock = PTHREAD_MUTEX_INITIALIZER;

/* a copy of the latest snapshot (each telemetry client has its own thread); NULL when none */
static struct uf_snap *
take(void)
{
	struct uf_snap *s = malloc(sizeof(*s));
	int ret = -1;

	if (s == NULL)
		return NULL;
	pthread_mutex_lock(&tel_ops_lock);
	if (tel_ops.pub != NULL)
		ret = uf_snap_pub_get(tel_ops.pub, s);
	pthread_mutex_unlock(&tel_ops_lock);
	if (ret != 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* a container that could not be attached is freed, not leaked */
static void
add_container(struct rte_tel_data *d, const char *name, struct rte_tel_data *c)
{
	if (rte_tel_data_add_dict_container(d, name, c, 0) != 0)
		rte_tel_data_free(c);
}

/* an empty dict, or NULL when telemetry is out of memory (the caller leaves it out) */
static struct rte_tel_data *
new_dict(void)
{
	struct rte_tel_data *x = rte_tel_data_alloc();

	if (x != NULL)
		rte_tel_data_start_dict(x);
	return x;
}

/* d[key] = { names[i]: vals[i] for i < n } */
static void
add_counters(struct rte_tel_data *d, const char *key, const char *const *names,
	     const uint64_t *vals, int n)
{
	struct rte_tel_data *x = new_dict();
	int i;

	if (x == NULL)
		return;
	for (i = 0; i < n; i++)
		tel_u64(x, names[i], vals[i]);
	add_container(d, key, x);
}

static struct rte_tel_data *
port_dict(const struct uf_snap_port *p)
{
	struct rte_tel_data *d = new_dict(), *x;
	int j;

	if (d == NULL)
		return NULL;
	rte_tel_data_add_dict_string(d, "driver", p->driver);
	rte_tel_data_add_dict_int(d, "link_up", p->link_up);
	tel_u64(d, "link_downs", p->link_downs);
	rte_tel_data_add_dict_int(d, "tx_stalled", p->tx_stalled);
	tel_u64(d, "ipackets", p->st.ipackets);
	tel_u64(d, "opackets", p->st.opackets);
	tel_u64(d, "ibytes", p->st.ibytes);
	tel_u64(d, "obytes", p->st.obytes);
	tel_u64(d, "imissed", p->st.imissed);
	tel_u64(d, "ierrors", p->st.ierrors);
	tel_u64(d, "oerrors", p->st.oerrors);
	tel_u64(d, "rx_nombuf", p->st.rx_nombuf);
	x = new_dict();
	if (x != NULL) {
		for (j = 0; j < p->n_xstats; j++)
			if (p->xvalid[j]) /* telemetry has no null: an implausible one is left out */
				tel_u64(x, p->xnames[j], p->xvals[j]);
		add_container(d, "xstats", x);
	}
	if (p->has_xsk) {
		rte_tel_data_add_dict_string(d, "xdp_mode", p->xdp_mode);
		x = new_dict();
		if (x != NULL) {
			rte_tel_data_add_dict_int(x, "sockets", p->xsk.n_sockets);
			tel_u64(x, "rx_dropped", p->xsk.rx_dropped);
			tel_u64(x, "rx_invalid", p->xsk.rx_invalid);
			tel_u64(x, "rx_ring_full", p->xsk.rx_ring_full);
			tel_u64(x, "fill_ring_empty", p->xsk.fill_ring_empty);
			tel_u64(x, "tx_invalid", p->xsk.tx_invalid);
			tel_u64(x, "tx_ring_empty", p->xsk.tx_ring_empty);
			add_container(d, "xsk", x);
		}
	}
	if (p->has_pktsock) {
		x = new_dict();
		if (x != NULL) {
			rte_tel_data_add_dict_int(x, "sockets", p->pktsock_n);
			tel_u64(x, "packets", p->pktsock_packets);
			tel_u64(x, "drops", p->pktsock_drops);
			add_container(d, "pkt_socket", x);
		}
	}
	rte_tel_data_add_dict_string(d, "steering", p->steering);
	tel_u64(d, "resets", p->resets);
	tel_u64(d, "reset_retries", p->reset_retries);
	tel_u64(d, "fault_resets", p->fault_resets);
	tel_u64(d, "rx_before_ready", p->rx_before_ready);
	return d;
}

static struct rte_tel_data *
ports_dict(const struct uf_snap *s)
{
	struct rte_tel_data *d = new_dict();
	int i;

	if (d == NULL)
		return NULL;
	for (i = 0; i < s->n_ports; i++) {
		struct rte_tel_data *p = port_dict(&s->ports[i]);

		if (p != NULL)
			add_container(d, s->ports[i].name, p);
	}
	return d;
}

static struct rte_tel_data *
dest_dict(const struct uf_snap_dest *dd)
{
	struct rte_tel_data *d = new_dict();
	char a[INET_ADDRSTRLEN], m[RTE_ETHER_ADDR_FMT_SIZE];

	if (d == NULL)
		return NULL;
	rte_tel_data_add_dict_string(d, "ip", uf_ip_str(dd->ip, a));
	rte_tel_data_add_dict_int(d, "udp_port", dd->udp_port);
	rte_tel_data_add_dict_string(d, "port", dd->port);
	rte_tel_data_add_dict_string(d, "next_hop", uf_ip_str(dd->next_hop, a));
	rte_ether_format_addr(m, sizeof(m), &dd->mac);
	rte_tel_data_add_dict_string(d, "mac", m);
	rte_tel_data_add_dict_string(d, "state", dd->state);
	tel_u64(d, "tx_ok", dd->c.tx_ok);
	tel_u64(d, "tx_drop", dd->c.tx_drop);
	tel_u64(d, "sampled_out", dd->c.sampled_out);
	tel_u64(d, "no_neighbor", dd->c.no_neighbor);
	return d;
}

/* telemetry answers are at most 16 KiB: list at most this many destinations at once */
#define TEL_MAX_DESTS 24

/*
 * Destinations first..first+TEL_MAX_DESTS as a dict keyed by their index in the config:
 * 22.11's telemetry arrays cannot hold dicts.
 */
static struct rte_tel_data *
dests_dict(const struct uf_snap *s, int first)
{
	struct rte_tel_data *c = new_dict();
	int i;

	if (c == NULL)
		return NULL;
	for (i = RTE_MAX(first, 0); i < s->n_dests && i < first + TEL_MAX_DESTS; i++) {
		struct rte_tel_data *x = dest_dict(&s->dests[i]);
		char key[16];

		if (x == NULL)
			continue;
		snprintf(key, sizeof(key), "%d", i);
		add_container(c, key, x);
	}
	return c;
}

static int
cmd_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct uf_snap *s = take();
	struct rte_tel_data *c;
	char v[32];
	int i;

	(void)cmd;
	(void)params;
	if (s == NULL)
		return -1;
	rte_tel_data_start_dict(d);
	snprintf(v, sizeof(v), "%.3f", s->time);
	rte_tel_data_add_dict_string(d, "time", v);
	snprintf(v, sizeof(v), "%.3f", s->interval_s);
	rte_tel_data_add_dict_string(d, "interval_s", v);
	rte_tel_data_add_dict_int(d, "final", s->final);
	tel_u64(d, "plan_version", s->plan_version);

	c = new_dict();
	if (c != NULL) {
		tel_u64(c, "rx", s->tot.rx);
		tel_u64(c, "forwarded", s->tot.forwarded);
		tel_u64(c, "control", s->tot.control);
		tel_u64(c, "fanout", s->tot.fanout);
		tel_u64(c, "sampled_out", s->tot.sampled_out);
		tel_u64(c, "copies_attempted", s->tot.copies_attempted);
		tel_u64(c, "tx_ok", s->tot.tx_ok);
		add_counters(c, "drop", uf_drop_names, s->tot.drop, UF_DROP_MAX);
		add_counters(c, "tx_drop", uf_txdrop_names, s->tot.tx_drop, UF_TXDROP_MAX);
		tel_u64(c, "tx_retries", s->tot.tx_retries);
		tel_u64(c, "chained", s->tot.chained);
		tel_u64(c, "csum_completed", s->tot.csum_completed);
		tel_u64(c, "ctl_tx_ok", s->tot.ctl_tx_ok);
		tel_u64(c, "ctl_tx_drop", s->tot.ctl_tx_drop);
		add_container(d, "fwd", c);
	}
	c = new_dict();
	if (c != NULL) {
		tel_u64(c, "requests_answered", s->ctl.arp_requests_answered);
		tel_u64(c, "replies_learned", s->ctl.arp_replies_learned);
		tel_u64(c, "requests_sent", s->ctl.arp_requests_sent);
		tel_u64(c, "gratuitous_sent", s->ctl.arp_gratuitous_sent);
		tel_u64(c, "ignored", s->ctl.arp_ignored);
		add_container(d, "arp", c);
	}
	c = new_dict();
	if (c != NULL) {
		tel_u64(c, "echo_answered", s->ctl.icmp_echo_answered);
		tel_u64(c, "rate_limited", s->ctl.icmp_rate_limited);
		tel_u64(c, "ignored", s->ctl.icmp_ignored);
		add_container(d, "icmp", c);
	}
	c = ports_dict(s);
	if (c != NULL)
		add_container(d, "ports", c);
	c = new_dict();
	if (c != NULL) {
		for (i = 0; i < s->n_lcores; i++) {
			struct rte_tel_data *l = new_dict();
			char key[16];
			double pct = s->lc[i].total_cycles == 0
						     ? 0.0
						     : 100.0 * (double)s->lc[i].busy_cycles /
								       (double)s->lc[i].total_cycles;

			if (l == NULL)
				continue;
			tel_u64(l, "rx", s->lc[i].rx);
			tel_u64(l, "tx", s->lc[i].tx);
			snprintf(v, sizeof(v), "%.1f", pct);
			rte_tel_data_add_dict_string(l, "busy_pct", v);
			snprintf(key, sizeof(key), "%u", s->lc[i].lcore);
			add_container(c, key, l);
		}
		add_container(d, "lcores", c);
	}
	c = dests_dict(s, 0);
	if (c != NULL)
		add_container(d, "destinations", c);
	free(s);
	return 0;
}

static int
cmd_ports(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct uf_snap *s = take();
	int i;

	(void)cmd;
	(void)params;
	if (s == NULL)
		return -1;
	rte_tel_data_start_dict(d);
	for (i = 0; i < s->n_ports; i++) {
		struct rte_tel_data *p = port_dict(&s->ports[i]);

		if (p != NULL)
			add_container(d, s->ports[i].name, p);
	}
	free(s);
	return 0;
}

/* /udpfan/neighbors[,first]: the destinations with their next hop, MAC and state */
static int
cmd_neighbors(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct uf_snap *s = take();
	struct rte_tel_data *c;
	int first = 0;

	(void)cmd;
	if (s == NULL)
		return -1;
	if (params != NULL && params[0] != '\0')
		first = atoi(params);
	c = dests_dict(s, first);
	if (c == NULL) {
		free(s);
		return -ENOMEM;
	}
	/* the answer is the dict itself: copy its entries over */
	rte_tel_data_start_dict(d);
	add_container(d, "destinations", c);
	tel_u64(d, "count", (uint64_t)s->n_dests);
	free(s);
	return 0;
}

/* /udpfan/port_reset,<port name>: run the device-reset path now (what a reset event does) */
static int
cmd_port_reset(const char *cmd, const char *params, struct rte_tel_data *d)
{
	int ret = -EINVAL;

	(void)cmd;
	if (params == NULL || params[0] == '\0')
		return -EINVAL;
	pthread_mutex_lock(&tel_ops_lock);
	if (tel_ops.reset_port != NULL)
		ret = tel_ops.reset_port(tel_ops.arg, params);
	pthread_mutex_unlock(&tel_ops_lock);
	if (ret != 0)
		return ret;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "reset_requested", params);
	return 0;
}

void
uf_tel_register(const struct uf_tel_ops *ops)
{
	static bool registered;

	pthread_mutex_lock(&tel_ops_lock);
	tel_ops = *ops;
	pthread_mutex_unlock(&tel_ops_lock);
	if (registered)
		return;
	registered = true;
	rte_telemetry_register_cmd(
			"/udpfan/stats", cmd_stats,
			"udpfan counters: the stats JSON object of the last interval. No params.");
	rte_telemetry_register_cmd("/udpfan/ports", cmd_ports,
				   "udpfan ports: NIC counters, loss xstats, XDP mode. No params.");
	rte_telemetry_register_cmd(
			"/udpfan/neighbors", cmd_neighbors,
			"udpfan destinations: next hop, MAC, ARP state. Param: first index.");
	rte_telemetry_register_cmd("/udpfan/port_reset", cmd_port_reset,
				   "Reset a port as a device reset event would. Param: port name.");
}

void
uf_tel_unregister(const struct uf_tel_ops *ops)
{
	pthread_mutex_lock(&tel_ops_lock);
	if (tel_ops.pub == ops->pub && tel_ops.arg == ops->arg)
		memset(&tel_ops, 0, sizeof(tel_ops));
	pthread_mutex_unlock(&tel_ops_lock);
}
