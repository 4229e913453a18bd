/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>
#include <rte_version.h>

#include "uf_stats.h"
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

/*
 * The telemetry writer of the stats walk (uf_stats_visit): nested objects become dicts,
 * a list a dict keyed by index (22.11's telemetry arrays cannot hold dicts), a real a
 * string, a flag 0/1, an unavailable reading (null) is left out. A dict that cannot be
 * allocated is left out with everything in it.
 */
#define TEL_DEPTH 6

struct tel_out {
	int depth; /* dicts open under the root */
	int skip;  /* levels opened inside a dict that could not be allocated */
	int base;  /* index of the first element of a list (a neighbors page) */
	struct rte_tel_data *d[TEL_DEPTH + 1];
	char key[TEL_DEPTH + 1][RTE_TEL_MAX_STRING_LEN];
	int n[TEL_DEPTH + 1]; /* elements so far, for the keys of a list's elements */
};

static struct rte_tel_data *
tel_top(struct tel_out *o)
{
	return o->skip > 0 ? NULL : o->d[o->depth];
}

static void
tel_obj(void *arg, const char *key)
{
	struct tel_out *o = arg;
	struct rte_tel_data *x;
	int i = o->n[o->depth]++;

	if (o->skip > 0 || o->depth == TEL_DEPTH || (x = rte_tel_data_alloc()) == NULL) {
		o->skip++;
		return;
	}
	rte_tel_data_start_dict(x);
	o->depth++;
	o->d[o->depth] = x;
	o->n[o->depth] = 0;
	if (key != NULL)
		snprintf(o->key[o->depth], sizeof(o->key[0]), "%s", key);
	else
		snprintf(o->key[o->depth], sizeof(o->key[0]), "%d", o->base + i);
}

static void
tel_end(void *arg)
{
	struct tel_out *o = arg;

	if (o->skip > 0) {
		o->skip--;
		return;
	}
	if (o->depth == 0)
		return;
	o->depth--;
	add_container(o->d[o->depth], o->key[o->depth + 1], o->d[o->depth + 1]);
}

static void
tel_u64v(void *arg, const char *key, uint64_t v)
{
	struct rte_tel_data *d = tel_top(arg);

	if (d != NULL)
		tel_u64(d, key, v);
}

static void
tel_flag(void *arg, const char *key, bool v)
{
	struct rte_tel_data *d = tel_top(arg);

	if (d != NULL)
		rte_tel_data_add_dict_int(d, key, v);
}

static void
tel_ctr(void *arg, const struct uf_stat_desc *desc, uint64_t v)
{
	if (desc->gauge && !desc->level)
		tel_flag(arg, desc->key, v != 0);
	else
		tel_u64v(arg, desc->key, v);
}

static void
tel_real(void *arg, const char *key, double v, int decimals)
{
	struct rte_tel_data *d = tel_top(arg);
	char buf[32];

	if (d == NULL)
		return;
	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	rte_tel_data_add_dict_string(d, key, buf);
}

static void
tel_str(void *arg, const char *key, const char *v)
{
	struct tel_out *o = arg;
	struct rte_tel_data *d = tel_top(o);
	char ik[16];

	if (key == NULL) { /* an element of a list: keyed by its index */
		snprintf(ik, sizeof(ik), "%d", o->base + o->n[o->depth]++);
		key = ik;
	}
	if (d != NULL)
		rte_tel_data_add_dict_string(d, key, v);
}

static const struct uf_stats_visitor tel_visitor = {
	.obj = tel_obj,
	.list = tel_obj,
	.end = tel_end,
	.ctr = tel_ctr,
	.u64 = tel_u64v,
	.flag = tel_flag,
	.real = tel_real,
	.str = tel_str,
	/* telemetry has no null: an implausible xstat is left out */
};

/* telemetry answers are at most 16 KiB: list at most this many destinations at once */
#define TEL_MAX_DESTS 24

static int
cmd_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct uf_snap *s = take();
	struct tel_out o = { .d = { d } };

	(void)cmd;
	(void)params;
	if (s == NULL)
		return -1;
	rte_tel_data_start_dict(d);
	uf_stats_visit(s, TEL_MAX_DESTS, &tel_visitor, &o);
	free(s);
	return 0;
}

static int
cmd_ports(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct uf_snap *s = take();
	struct tel_out o = { .d = { d } };
	int i;

	(void)cmd;
	(void)params;
	if (s == NULL)
		return -1;
	rte_tel_data_start_dict(d);
	for (i = 0; i < s->n_ports; i++) {
		tel_obj(&o, s->ports[i].name);
		uf_stats_visit_port(&s->ports[i], &tel_visitor, &o);
		tel_end(&o);
	}
	free(s);
	return 0;
}

/* /udpfan/neighbors[,first]: the destinations with their next hop, MAC and state */
static int
cmd_neighbors(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct uf_snap *s = take();
	struct tel_out o = { .d = { d } };
	int first = 0, i;

	(void)cmd;
	if (s == NULL)
		return -1;
	if (params != NULL && params[0] != '\0')
		first = RTE_MAX(atoi(params), 0);
	rte_tel_data_start_dict(d);
	tel_obj(&o, "destinations");
	o.base = first;
	for (i = first; i < s->n_dests && i < first + TEL_MAX_DESTS; i++) {
		tel_obj(&o, NULL);
		uf_stats_visit_dest(&s->dests[i], &tel_visitor, &o);
		tel_end(&o);
	}
	tel_end(&o);
	tel_u64(d, "count", (uint64_t)s->n_dests);
	free(s);
	return 0;
}

/* /udpfan/health: live, not the last snapshot's (a drain shows at once) */
static int
cmd_health(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct uf_health h;
	struct rte_tel_data *r;
	char left[32];
	int ret = -ENOTSUP, i;

	(void)cmd;
	(void)params;
	pthread_mutex_lock(&tel_ops_lock);
	if (tel_ops.health != NULL)
		ret = tel_ops.health(tel_ops.arg, &h);
	pthread_mutex_unlock(&tel_ops_lock);
	if (ret != 0)
		return ret;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "state", uf_health_state_name(h.state));
	rte_tel_data_add_dict_int(d, "degraded", h.degraded);
	r = rte_tel_data_alloc();
	if (r != NULL) {
		rte_tel_data_start_array(r, RTE_TEL_STRING_VAL);
		for (i = 0; i < h.n_reasons; i++)
			rte_tel_data_add_array_string(r, h.reasons[i]);
		add_container(d, "reasons", r);
	}
	tel_u64(d, "drain_s", h.drain_s);
	snprintf(left, sizeof(left), "%.3f", h.drain_left_s);
	rte_tel_data_add_dict_string(d, "drain_left_s", left);
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

/* /udpfan/reload: re-read the config file and apply it (or refuse it); answers when done,
 * with the result, the reason and the config generation running */
static int
cmd_reload(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char result[16] = "", reason[512] = "";
	uint64_t gen = 0;
	int ret = -ENOTSUP;

	(void)cmd;
	(void)params;
	pthread_mutex_lock(&tel_ops_lock);
	if (tel_ops.reload != NULL)
		ret = tel_ops.reload(tel_ops.arg, result, sizeof(result), reason, sizeof(reason),
				     &gen);
	pthread_mutex_unlock(&tel_ops_lock);
	if (ret != 0)
		return ret;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "result", result);
	rte_tel_data_add_dict_string(d, "reason", reason);
	tel_u64(d, "generation", gen);
	return 0;
}

/* /udpfan/droptrace[,N]: arm a trace of the next N dropped frames, or (no N) its state */
static int
cmd_droptrace(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct uf_tel_dtrace t;
	unsigned long n = 0;
	char *end = NULL;
	int ret = -ENOTSUP;

	(void)cmd;
	if (params != NULL && params[0] != '\0') {
		n = strtoul(params, &end, 10);
		if (*end != '\0' || n == 0 || n > UINT32_MAX)
			return -EINVAL;
	}
	pthread_mutex_lock(&tel_ops_lock);
	if (tel_ops.droptrace != NULL)
		ret = tel_ops.droptrace(tel_ops.arg, (uint32_t)n, &t);
	pthread_mutex_unlock(&tel_ops_lock);
	if (ret != 0)
		return ret;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "armed", t.armed);
	rte_tel_data_add_dict_string(d, "file", t.path);
	tel_u64(d, "want", t.want);
	tel_u64(d, "written", t.written);
	tel_u64(d, "missed", t.missed);
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
	rte_telemetry_register_cmd("/udpfan/health", cmd_health,
				   "udpfan health: state, degraded and why, the drain. No params.");
	rte_telemetry_register_cmd("/udpfan/ports", cmd_ports,
				   "udpfan ports: NIC counters, loss xstats, XDP mode. No params.");
	rte_telemetry_register_cmd(
			"/udpfan/neighbors", cmd_neighbors,
			"udpfan destinations: next hop, MAC, ARP state. Param: first index.");
	rte_telemetry_register_cmd("/udpfan/port_reset", cmd_port_reset,
				   "Reset a port as a device reset event would. Param: port name.");
	rte_telemetry_register_cmd("/udpfan/reload", cmd_reload,
				   "Re-read the config file and apply it, or refuse it; answers "
				   "with the result. No params.");
	rte_telemetry_register_cmd("/udpfan/droptrace", cmd_droptrace,
				   "Write the next N dropped frames, with their reason, to a "
				   "pcapng file. Param: N (none: the state).");
}

void
uf_tel_unregister(const struct uf_tel_ops *ops)
{
	pthread_mutex_lock(&tel_ops_lock);
	if (tel_ops.pub == ops->pub && tel_ops.arg == ops->arg)
		memset(&tel_ops, 0, sizeof(tel_ops));
	pthread_mutex_unlock(&tel_ops_lock);
}
