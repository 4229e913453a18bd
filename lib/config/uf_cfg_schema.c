/* SPDX-License-Identifier: BSD-3-Clause
 * The config schema (uf_cfg_schema.h): every key udpfan reads, one row each, and the value
 * parsers of the keys the generic types do not cover. docs/configuration.md describes the
 * same keys; tests/unit/test_config_schema.c holds the two together.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_ip.h>

#include "uf_cfg_schema.h"

/* ---- value parsers and checks ---- */

static int
check_lcores(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v, const char *kp,
	     void *base)
{
	struct uf_config *cfg = base;
	uint16_t ids[RTE_MAX_LCORE];
	int n;

	n = uf_parse_lcore_list(cfg->eal.lcores, ids, RTE_MAX_LCORE);
	if (n < 0) {
		uf_cfg_perr(p, v, kp,
			    "\"%s\" is not an lcore list such as \"0-2\", \"0,2,4\" or "
			    "\"0@0,1@0,2@1\"",
			    cfg->eal.lcores);
		return -1;
	}
	if ((uint64_t)n < k->lo) {
		uf_cfg_perr(p, v, kp,
			    "\"%s\" names %d lcore; udpfan needs a main lcore and at "
			    "least one worker",
			    cfg->eal.lcores, n);
		return -1;
	}
	if ((uint64_t)n > k->hi) {
		uf_cfg_perr(p, v, kp, "%d workers; at most %d", n - 1, (int)k->hi - 1);
		return -1;
	}
	return 0;
}

static int
check_file_prefix(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
		  const char *kp, void *base)
{
	struct uf_config *cfg = base;
	const char *c;

	for (c = cfg->eal.file_prefix; *c != '\0'; c++) {
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-') {
			uf_cfg_perr(p, v, kp, "may hold only letters, digits, '_' and '-'");
			return -1;
		}
	}
	if (cfg->eal.file_prefix[0] == '\0') {
		uf_cfg_perr(p, v, kp, "must not be empty");
		return -1;
	}
	return 0;
}

/* health.http_path: an origin-form path, as a request line carries it */
static int
check_http_path(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
		const char *kp, void *base)
{
	struct uf_config *cfg = base;
	const char *c;

	if (cfg->health.http_path[0] != '/') {
		uf_cfg_perr(p, v, kp, "must start with '/'");
		return -1;
	}
	for (c = cfg->health.http_path; *c != '\0'; c++) {
		if (!isgraph((unsigned char)*c)) {
			uf_cfg_perr(p, v, kp, "may hold only printable characters, no spaces");
			return -1;
		}
	}
	return 0;
}

static int
parse_extra_args(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
		 const char *kp, void *base)
{
	struct uf_config *cfg = base;
	yaml_node_item_t *it;
	int i = 0;

	if (v->type != YAML_SEQUENCE_NODE) {
		uf_cfg_perr(p, v, kp, "expected a list of strings");
		return -1;
	}
	cfg->eal.n_extra = (int)(v->data.sequence.items.top - v->data.sequence.items.start);
	cfg->eal.extra_args = calloc(cfg->eal.n_extra + 1, sizeof(char *));
	if (cfg->eal.extra_args == NULL)
		return -1;
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *s = yaml_document_get_node(p->doc, *it);
		const char *sv = uf_cfg_scalar(p, s, kp);

		if (sv == NULL)
			return -1;
		cfg->eal.extra_args[i] = strdup(sv);
		if (cfg->eal.extra_args[i++] == NULL)
			return -1;
	}
	return 0;
}

static int
check_port_name(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
		const char *kp, void *base)
{
	struct uf_cfg_port *port = base;
	const char *s = port->name;

	if (*s == '\0')
		goto bad;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			goto bad;
	return 0;
bad:
	uf_cfg_perr(p, v, kp, "\"%s\": use letters, digits and '_' only", port->name);
	return -1;
}

static int
check_device(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
	     const char *kp, void *base)
{
	struct uf_cfg_port *port = base;
	size_t n;

	if (port->device[0] == '\0') {
		uf_cfg_perr(p, v, kp, "must not be empty");
		return -1;
	}
	port->is_pci = uf_is_pci_addr(port->device, port->dev_name, sizeof(port->dev_name));
	if (!port->is_pci) {
		n = strcspn(port->device, ",");
		if (!isalpha((unsigned char)port->device[0])) {
			uf_cfg_perr(p, v, kp,
				    "\"%s\" is neither a PCI address (0000:00:06.0) nor a "
				    "vdev (net_af_xdp0,iface=eth1)",
				    port->device);
			return -1;
		}
		memcpy(port->dev_name, port->device, n);
		port->dev_name[n] = '\0';
	}
	return 0;
}

static int
parse_port_ip(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
	      const char *kp, void *base)
{
	struct uf_cfg_port *port = base;
	const char *s = uf_cfg_scalar(p, v, kp);

	if (s == NULL)
		return -1;
	if (uf_parse_ipv4_prefix(s, &port->ip, &port->prefix_len) < 0) {
		uf_cfg_perr(p, v, kp,
			    "\"%s\" is not an IPv4 address with a prefix length "
			    "(10.0.0.10/24)",
			    s);
		return -1;
	}
	if (port->prefix_len == 0 || port->prefix_len > 31) {
		uf_cfg_perr(p, v, kp, "prefix length /%u leaves no neighbours; use /1../31",
			    port->prefix_len);
		return -1;
	}
	return 0;
}

/* an address no port, listener or destination may have: ::, ::1, multicast, IPv4-mapped */
static bool
ip6_special(const struct uf_ip6 *a)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	static const struct uf_ip6 zero;
	struct uf_ip6 one = zero;

	one.b[15] = 1;
	return memcmp(a->b, zero.b, 16) == 0 || memcmp(a->b, one.b, 16) == 0 || a->b[0] == 0xff ||
	       memcmp(a->b, mapped, 12) == 0;
}

/* ports[].ip6: a list of 1..4 addresses with their prefix lengths */
static int
parse_port_ip6(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
	       const char *kp, void *base)
{
	struct uf_cfg_port *port = base;
	char ikp[96], a[INET6_ADDRSTRLEN];
	yaml_node_item_t *it;
	int n, i, j;

	if (uf_cfg_get_list(p, v, kp, UF_MAX_PORT_IP6, &n) < 0)
		return -1;
	if (n == 0) {
		uf_cfg_perr(p, v, kp, "expected 1..%d IPv6 addresses with a prefix length",
			    UF_MAX_PORT_IP6);
		return -1;
	}
	for (i = 0, it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, i++) {
		yaml_node_t *an = yaml_document_get_node(p->doc, *it);
		const char *sv;

		snprintf(ikp, sizeof(ikp), "%s[%d]", kp, i);
		sv = uf_cfg_scalar(p, an, ikp);
		if (sv == NULL)
			return -1;
		if (uf_parse_ipv6_prefix(sv, &port->ip6[i], &port->ip6_prefix_len[i]) < 0) {
			uf_cfg_perr(p, an, ikp,
				    "\"%s\" is not an IPv6 address with a prefix length "
				    "(2001:db8::10/64)",
				    sv);
			return -1;
		}
		if (port->ip6_prefix_len[i] == 0 || port->ip6_prefix_len[i] > 127) {
			uf_cfg_perr(p, an, ikp,
				    "prefix length /%u leaves no neighbours; use /1../127",
				    port->ip6_prefix_len[i]);
			return -1;
		}
		if (ip6_special(&port->ip6[i])) {
			uf_cfg_perr(p, an, ikp,
				    "%s cannot be a port's address (unspecified, loopback, "
				    "multicast or IPv4-mapped)",
				    uf_ip6_str(&port->ip6[i], a));
			return -1;
		}
		for (j = 0; j < i; j++) {
			if (memcmp(port->ip6[j].b, port->ip6[i].b, 16) == 0) {
				uf_cfg_perr(p, an, ikp, "%s is also %s[%d]",
					    uf_ip6_str(&port->ip6[i], a), kp, j);
				return -1;
			}
		}
		port->ip6_pos[i] = uf_cfg_pos_of(an);
	}
	port->n_ip6 = n;
	return 0;
}

/* a host address no port may carry as a service address: IPv4 0/8, 127/8, multicast and
 * 240/4 (broadcast among them); IPv6 as ip6_special */
static bool
ip4_special(rte_be32_t a)
{
	const uint32_t h = rte_be_to_cpu_32(a);

	return (h >> 24) == 0 || (h >> 24) == 127 || uf_ipv4_is_mcast(h) || (h >> 28) == 0xf;
}

/* one ports[].service item: "ADDRESS", or {ip: ADDRESS, neighbor: answer|silent} */
static int
parse_svc_item(struct uf_cfg_pctx *p, yaml_node_t *an, const char *ikp, struct uf_cfg_svc *sv)
{
	yaml_node_t *iv = an, *nv = NULL;
	char kp[128];
	const char *s;

	memset(sv, 0, sizeof(*sv));
	sv->pos = uf_cfg_pos_of(an);
	if (an->type == YAML_MAPPING_NODE) {
		yaml_node_pair_t *pr;

		iv = NULL;
		for (pr = an->data.mapping.pairs.start; pr < an->data.mapping.pairs.top; pr++) {
			yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
			yaml_node_t *v = yaml_document_get_node(p->doc, pr->value);
			const char *ks = k->type == YAML_SCALAR_NODE
							 ? (const char *)k->data.scalar.value
							 : "";

			if (strcmp(ks, "ip") == 0 && iv == NULL) {
				iv = v;
			} else if (strcmp(ks, "neighbor") == 0 && nv == NULL) {
				nv = v;
			} else {
				uf_cfg_perr(p, k, ikp,
					    "unknown or repeated key \"%s\" (ip, neighbor)", ks);
				return -1;
			}
		}
		if (iv == NULL) {
			uf_cfg_perr(p, an, ikp, "needs an ip");
			return -1;
		}
	}
	snprintf(kp, sizeof(kp), "%s%s", ikp, an->type == YAML_MAPPING_NODE ? ".ip" : "");
	s = uf_cfg_scalar(p, iv, kp);
	if (s == NULL)
		return -1;
	sv->is_ip6 = strchr(s, ':') != NULL; /* the family is the literal's form */
	if (sv->is_ip6 ? uf_parse_ipv6(s, &sv->ip6) < 0 : uf_parse_ipv4(s, &sv->ip) < 0) {
		uf_cfg_perr(p, iv, kp, "\"%s\" is not an IPv%d address (a host address, no prefix)",
			    s, sv->is_ip6 ? 6 : 4);
		return -1;
	}
	if (sv->is_ip6 ? ip6_special(&sv->ip6) : ip4_special(sv->ip)) {
		uf_cfg_perr(p, iv, kp,
			    "%s cannot be a service address (unspecified, loopback, multicast, "
			    "broadcast%s)",
			    s, sv->is_ip6 ? " or IPv4-mapped" : " or reserved");
		return -1;
	}
	if (nv != NULL) {
		snprintf(kp, sizeof(kp), "%s.neighbor", ikp);
		s = uf_cfg_scalar(p, nv, kp);
		if (s == NULL)
			return -1;
		if (strcmp(s, "answer") == 0) {
			sv->answer = true;
		} else if (strcmp(s, "silent") != 0) {
			uf_cfg_perr(p, nv, kp, "\"%s\": expected answer or silent", s);
			return -1;
		}
	}
	return 0;
}

/* ports[].service: 0..UF_MAX_PORT_SVC service addresses (docs/configuration.md#service-addresses) */
static int
parse_port_service(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
		   const char *kp, void *base)
{
	struct uf_cfg_port *port = base;
	char ikp[96], a[INET6_ADDRSTRLEN];
	yaml_node_item_t *it;
	int n, i, j;

	if (uf_cfg_get_list(p, v, kp, UF_MAX_PORT_SVC, &n) < 0)
		return -1;
	for (i = 0, it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, i++) {
		yaml_node_t *an = yaml_document_get_node(p->doc, *it);
		struct uf_cfg_svc *sv = &port->svc[i];

		snprintf(ikp, sizeof(ikp), "%s[%d]", kp, i);
		if (parse_svc_item(p, an, ikp, sv) < 0)
			return -1;
		for (j = 0; j < i; j++) {
			const struct uf_cfg_svc *o = &port->svc[j];

			if (o->is_ip6 == sv->is_ip6 &&
			    (sv->is_ip6 ? memcmp(o->ip6.b, sv->ip6.b, 16) == 0 : o->ip == sv->ip)) {
				uf_cfg_perr(p, an, ikp, "%s is also %s[%d]",
					    sv->is_ip6 ? uf_ip6_str(&sv->ip6, a)
						       : uf_ip_str(sv->ip, a),
					    kp, j);
				return -1;
			}
		}
	}
	port->n_svc = n;
	return 0;
}

static int
parse_port_gw6(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
	       const char *kp, void *base)
{
	struct uf_cfg_port *port = base;
	const char *s = uf_cfg_scalar(p, v, kp);

	if (s == NULL)
		return -1;
	if (uf_parse_ipv6(s, &port->gateway6) < 0) {
		uf_cfg_perr(p, v, kp, "\"%s\" is not an IPv6 address", s);
		return -1;
	}
	if (ip6_special(&port->gateway6)) {
		uf_cfg_perr(p, v, kp, "\"%s\" cannot be a next hop", s);
		return -1;
	}
	port->has_gateway6 = true;
	port->gateway6_pos = uf_cfg_pos_of(v);
	return 0;
}

/* destinations[].ip: either family */
static int
parse_dest_ip(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
	      const char *kp, void *base)
{
	struct uf_cfg_dest *d = base;
	const char *s = uf_cfg_scalar(p, v, kp);

	if (s == NULL)
		return -1;
	d->ip = 0;
	memset(&d->ip6, 0, sizeof(d->ip6));
	d->is_ip6 = strchr(s, ':') != NULL; /* the family is the literal's form */
	if (d->is_ip6 ? uf_parse_ipv6(s, &d->ip6) == 0 : uf_parse_ipv4(s, &d->ip) == 0)
		return 0;
	uf_cfg_perr(p, v, kp, "\"%s\" is not an IPv%d address", s, d->is_ip6 ? 6 : 4);
	return -1;
}

/* listen.port: a port name, resolved once every port is known */
static int
parse_listen_port(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
		  const char *kp, void *base __rte_unused)
{
	if (uf_cfg_scalar(p, v, kp) == NULL)
		return -1;
	p->st->listen_port = v;
	return 0;
}

/* destinations[].port: the same */
static int
parse_dest_port(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
		const char *kp, void *base __rte_unused)
{
	if (uf_cfg_scalar(p, v, kp) == NULL)
		return -1;
	p->st->dest_port[p->st->item] = v;
	return 0;
}

static int
parse_mac(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
	  const char *kp, void *base)
{
	struct uf_cfg_dest *d = base;
	const char *s = uf_cfg_scalar(p, v, kp);

	if (s == NULL)
		return -1;
	if (uf_parse_mac(s, &d->mac) < 0) {
		uf_cfg_perr(p, v, kp, "\"%s\" is not a MAC address (02:00:00:00:00:21)", s);
		return -1;
	}
	if (!rte_is_unicast_ether_addr(&d->mac) || rte_is_zero_ether_addr(&d->mac)) {
		uf_cfg_perr(p, v, kp, "\"%s\" is not a unicast MAC address", s);
		return -1;
	}
	return 0;
}

static int
parse_source(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
	     const char *kp, void *base)
{
	struct uf_cfg_dest *d = base;
	const char *s = uf_cfg_scalar(p, v, kp);

	if (s == NULL)
		return -1;
	if (strcmp(s, "ours") == 0) {
		d->source = UF_SRC_OURS;
	} else if (strcmp(s, "original") == 0) {
		d->source = UF_SRC_ORIGINAL;
	} else if (uf_parse_ipv4(s, &d->source_ip) == 0) {
		d->source = UF_SRC_FIXED;
		d->source_is_ip6 = false;
	} else if (uf_parse_ipv6(s, &d->source_ip6) == 0) {
		d->source = UF_SRC_FIXED;
		d->source_is_ip6 = true;
	} else {
		uf_cfg_perr(p, v, kp, "\"%s\": expected ours, original or an IPv4 or IPv6 address",
			    s);
		return -1;
	}
	return 0;
}

static int
parse_from(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
	   const char *kp, void *base)
{
	struct uf_cfg_rule *r = base;
	const char *s = uf_cfg_scalar(p, v, kp);
	uint32_t mask;

	if (s == NULL)
		return -1;
	if (strchr(s, ':') != NULL) {
		struct uf_ip6 net;
		char a[INET6_ADDRSTRLEN];
		int i;

		if (uf_parse_ipv6_prefix(s, &r->prefix6, &r->len) < 0) {
			uf_cfg_perr(p, v, kp, "\"%s\" is not an IPv6 prefix (2001:db8::/32)", s);
			return -1;
		}
		r->is_ip6 = true;
		for (i = 0; i < 16; i++) {
			int bits = RTE_MIN(RTE_MAX((int)r->len - 8 * i, 0), 8);

			net.b[i] = r->prefix6.b[i] & (uint8_t)(0xff00 >> bits);
		}
		if (memcmp(net.b, r->prefix6.b, 16) != 0) {
			uf_cfg_perr(p, v, kp, "\"%s\" has host bits set; did you mean %s/%u?", s,
				    uf_ip6_str(&net, a), r->len);
			return -1;
		}
		return 0;
	}
	if (uf_parse_ipv4_prefix(s, &r->prefix, &r->len) < 0) {
		uf_cfg_perr(p, v, kp, "\"%s\" is not an IPv4 prefix (192.0.2.0/24)", s);
		return -1;
	}
	mask = r->len == 0 ? 0 : ~0u << (32 - r->len);
	if ((rte_be_to_cpu_32(r->prefix) & ~mask) != 0) {
		struct in_addr net = { .s_addr = rte_cpu_to_be_32(rte_be_to_cpu_32(r->prefix) &
								  mask) };

		uf_cfg_perr(p, v, kp, "\"%s\" has host bits set; did you mean %s/%u?", s,
			    inet_ntoa(net), r->len);
		return -1;
	}
	return 0;
}

static int
parse_to(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
	 const char *kp, void *base)
{
	struct uf_cfg_rule *r = base;
	yaml_node_item_t *it;
	ptrdiff_t n;
	int i = 0, j;

	if (v->type != YAML_SEQUENCE_NODE ||
	    v->data.sequence.items.top == v->data.sequence.items.start) {
		uf_cfg_perr(p, v, kp, "expected a non-empty list of destination indexes");
		return -1;
	}
	n = v->data.sequence.items.top - v->data.sequence.items.start;
	/* each index at most once, so no more than there can be destinations; checked
	 * before n_to (16 bits) and the allocations are sized by it */
	if (n > UF_MAX_DESTS) {
		uf_cfg_perr(p, v, kp, "%td destination indexes: at most %d (each once)", n,
			    UF_MAX_DESTS);
		return -1;
	}
	r->n_to = (uint16_t)n;
	r->to = calloc(r->n_to, sizeof(*r->to));
	r->to_pos = calloc(r->n_to, sizeof(*r->to_pos));
	if (r->to == NULL || r->to_pos == NULL)
		return -1;
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *s = yaml_document_get_node(p->doc, *it);

		if (UF_CFG_GET_UINT(p, s, kp, 0, UF_MAX_DESTS - 1, r->to[i]) < 0)
			return -1;
		r->to_pos[i] = uf_cfg_pos_of(s);
		for (j = 0; j < i; j++) {
			if (r->to[j] == r->to[i]) {
				uf_cfg_perr(p, s, kp, "destination %u listed twice", r->to[i]);
				return -1;
			}
		}
		i++;
	}
	return 0;
}

static int
parse_json(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
	   const char *kp, void *base)
{
	struct uf_config *cfg = base;

	if (uf_cfg_is_null(v)) {
		cfg->stats.json[0] = '\0';
		return 0;
	}
	return uf_cfg_get_str(p, v, kp, cfg->stats.json, sizeof(cfg->stats.json));
}

/* ---- pools (docs/configuration.md#pools) ---- */

/* destinations[].pool.members: each a destination of its own, at dests[next_member..] */
static int
parse_members(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
	      const char *kp, void *base)
{
	struct uf_cfg_pool *pool = base;
	struct uf_cfg_state *st = p->st;
	struct uf_config *cfg = st->cfg;
	int saved = st->item, n, i;
	yaml_node_item_t *it;
	char ip[96];

	if (uf_cfg_get_list(p, v, kp, UF_MAX_DESTS, &n) < 0)
		return -1;
	if (n == 0) {
		uf_cfg_perr(p, v, kp, "a pool needs at least one member");
		return -1;
	}
	pool->first = (uint16_t)st->next_member;
	pool->n = (uint16_t)n;
	for (i = 0, it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, i++) {
		yaml_node_t *mn = yaml_document_get_node(p->doc, *it);
		int di = st->next_member++;
		struct uf_cfg_dest *d = &cfg->dests[di];

		snprintf(ip, sizeof(ip), "%s[%d]", kp, i);
		st->item = di;
		uf_cfg_apply_defaults("destinations[]", d);
		d->liveness = true; /* a member's default (docs/configuration.md#pools) */
		d->pos = uf_cfg_pos_of(mn);
		d->listener = (uint8_t)RTE_MAX(st->lis, 0);
		st->in_member = true;
		if (uf_cfg_walk_map(p, mn, ip, "destinations[]", d) < 0)
			return -1;
		st->in_member = false;
		if (d->is_pool) {
			uf_cfg_perr(p, mn, ip, "a pool member cannot be a pool");
			return -1;
		}
		if (d->sample != 1) {
			uf_cfg_perr(p, mn, ip,
				    "sample applies to the whole pool: put it beside pool");
			return -1;
		}
		if ((d->ip == 0 && !d->is_ip6) || d->udp_port == 0) {
			uf_cfg_perr(p, mn, ip, "needs %s",
				    d->ip == 0 && !d->is_ip6 ? "an ip" : "a udp_port");
			return -1;
		}
		d->is_member = true;
		d->pool = (uint16_t)(pool - cfg->pools);
	}
	st->item = saved;
	return 0;
}

/* destinations[].pool: the entry stands for its members */
static int
parse_pool(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
	   const char *kp, void *base)
{
	struct uf_cfg_dest *d = base;
	struct uf_config *cfg = p->st->cfg;
	struct uf_cfg_pool *pool;

	if (p->st->in_member) {
		uf_cfg_perr(p, v, kp, "a pool member cannot be a pool");
		return -1;
	}
	pool = &cfg->pools[cfg->n_pools];
	uf_cfg_apply_defaults("destinations[].pool", pool);
	pool->entry = (uint16_t)p->st->item;
	pool->pos = uf_cfg_pos_of(v);
	d->is_pool = true;
	d->pool = (uint16_t)cfg->n_pools++;
	if (uf_cfg_walk_map(p, v, kp, "destinations[].pool", pool) < 0)
		return -1;
	if (pool->n == 0) {
		uf_cfg_perr(p, v, kp, "needs members");
		return -1;
	}
	return 0;
}

/* how many members the pools of destinations[] list, before they are walked */
static int
count_members(struct uf_cfg_pctx *p, yaml_node_t *v)
{
	yaml_node_item_t *it;
	int n = 0;

	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *dn = yaml_document_get_node(p->doc, *it);
		yaml_node_t *pn = uf_cfg_map_get(p, dn, "pool");
		yaml_node_t *mn = pn != NULL ? uf_cfg_map_get(p, pn, "members") : NULL;

		if (mn != NULL && mn->type == YAML_SEQUENCE_NODE)
			n += (int)(mn->data.sequence.items.top - mn->data.sequence.items.start);
	}
	return n;
}

/* ---- the lists ---- */

static int
parse_ports(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
	    const char *kp, void *base)
{
	struct uf_config *cfg = base;
	yaml_node_item_t *it;
	char ip[64];
	int i;

	if (uf_cfg_get_list(p, v, kp, UF_MAX_PORTS, &cfg->n_ports) < 0)
		return -1;
	p->st->have_ports = true;
	for (i = 0, it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, i++) {
		yaml_node_t *pn = yaml_document_get_node(p->doc, *it);
		struct uf_cfg_port *port = &cfg->ports[i];

		snprintf(ip, sizeof(ip), "ports[%d]", i);
		p->st->item = i;
		port->pos = uf_cfg_pos_of(pn);
		if (uf_cfg_walk_map(p, pn, ip, "ports[]", port) < 0)
			return -1;
		if (port->name[0] == '\0' || port->device[0] == '\0' ||
		    (port->ip == 0 && port->n_ip6 == 0)) {
			uf_cfg_perr(p, pn, ip, "needs %s",
				    port->name[0] == '\0'     ? "a name"
				    : port->device[0] == '\0' ? "a device"
							      : "an ip (10.0.0.10/24) or ip6");
			return -1;
		}
	}
	return 0;
}

static int
parse_listen(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
	     const char *kp, void *base)
{
	p->st->have_listen = true;
	p->st->listen = v;
	return uf_cfg_walk_map(p, v, kp, "listen", base);
}

/*
 * A destinations list: its items appended to cfg->dests, for listener st->lis (-1: the
 * top-level list of the `listen:` form, listener 0). kp names the list in messages.
 */
static int
parse_dest_list(struct uf_cfg_pctx *p, yaml_node_t *v, const char *kp, struct uf_config *cfg)
{
	struct uf_cfg_state *st = p->st;
	struct uf_cfg_dest *nd;
	yaml_node_t **np;
	yaml_node_item_t *it;
	char ip[96];
	int i, n, n_members, first = cfg->n_dests;

	if (uf_cfg_get_list(p, v, kp, UF_MAX_DESTS, &n) < 0)
		return -1;
	/* pool members take entries after the list's own: every entry has its template,
	 * neighbour and counters (docs/configuration.md#pools) */
	n_members = count_members(p, v);
	if (first + n + n_members > UF_MAX_DESTS) {
		uf_cfg_perr(p, v, kp, "%d destinations and pool members in all: at most %d",
			    first + n + n_members, UF_MAX_DESTS);
		return -1;
	}
	{
		/* room for a pool per entry of this list, beside the earlier lists' pools */
		struct uf_cfg_pool *pl = realloc(cfg->pools, (size_t)RTE_MAX(cfg->n_pools + n, 1) *
									     sizeof(*cfg->pools));

		if (pl == NULL)
			return -1;
		cfg->pools = pl;
		memset(pl + cfg->n_pools, 0, (size_t)n * sizeof(*pl));
	}
	nd = realloc(cfg->dests, (size_t)RTE_MAX(first + n + n_members, 1) * sizeof(*cfg->dests));
	if (nd == NULL)
		return -1;
	cfg->dests = nd;
	np = realloc(st->dest_port,
		     (size_t)RTE_MAX(first + n + n_members, 1) * sizeof(*st->dest_port));
	if (np == NULL)
		return -1;
	st->dest_port = np;
	memset(cfg->dests + first, 0, (size_t)(n + n_members) * sizeof(*cfg->dests));
	memset(st->dest_port + first, 0, (size_t)(n + n_members) * sizeof(*st->dest_port));
	cfg->n_dests = first + n + n_members;
	cfg->n_listed += n;
	st->next_member = first + n;
	if (st->lis >= 0) {
		cfg->listeners[st->lis].first_dest = (uint16_t)first;
		cfg->listeners[st->lis].n_dests = (uint16_t)n;
		cfg->listeners[st->lis].n_members = (uint16_t)n_members;
	}
	for (i = 0, it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, i++) {
		yaml_node_t *dn = yaml_document_get_node(p->doc, *it);
		struct uf_cfg_dest *d = &cfg->dests[first + i];

		snprintf(ip, sizeof(ip), "%s[%d]", kp, i);
		st->item = first + i;
		uf_cfg_apply_defaults("destinations[]", d);
		d->pos = uf_cfg_pos_of(dn);
		d->listener = (uint8_t)RTE_MAX(st->lis, 0);
		if (uf_cfg_walk_map(p, dn, ip, "destinations[]", d) < 0)
			return -1;
		if (d->is_pool) {
			if (d->ip != 0 || d->is_ip6 || d->udp_port != 0 || d->has_mac ||
			    st->dest_port[first + i] != NULL ||
			    uf_cfg_map_get(p, dn, "source") != NULL ||
			    uf_cfg_map_get(p, dn, "ttl") != NULL ||
			    uf_cfg_map_get(p, dn, "liveness") != NULL) {
				uf_cfg_perr(p, dn, ip,
					    "a pool takes only pool and sample: ip, udp_port, mac, "
					    "port, source, ttl and liveness go on each member");
				return -1;
			}
			continue;
		}
		if ((d->ip == 0 && !d->is_ip6) || d->udp_port == 0) {
			uf_cfg_perr(p, dn, ip, "needs %s",
				    d->ip == 0 && !d->is_ip6 ? "an ip" : "a udp_port");
			return -1;
		}
	}
	return 0;
}

static int
parse_dests(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
	    const char *kp, void *base)
{
	p->st->have_dests = true;
	return parse_dest_list(p, v, kp, base);
}

/* A rules list, appended to cfg->rules for listener st->lis (-1: the top-level list). */
static int
parse_rule_list(struct uf_cfg_pctx *p, yaml_node_t *v, const char *kp, struct uf_config *cfg)
{
	struct uf_cfg_rule *nr;
	yaml_node_item_t *it;
	char ip[96];
	int i, n, first = cfg->n_rules;

	if (uf_cfg_get_list(p, v, kp, UF_MAX_RULES, &n) < 0)
		return -1;
	if (first + n > UF_MAX_RULES) {
		uf_cfg_perr(p, v, kp, "%d rules in all: at most %d", first + n, UF_MAX_RULES);
		return -1;
	}
	nr = realloc(cfg->rules, (size_t)RTE_MAX(first + n, 1) * sizeof(*cfg->rules));
	if (nr == NULL)
		return -1;
	cfg->rules = nr;
	memset(cfg->rules + first, 0, (size_t)n * sizeof(*cfg->rules));
	cfg->n_rules = first + n;
	if (p->st->lis >= 0) {
		cfg->listeners[p->st->lis].first_rule = (uint16_t)first;
		cfg->listeners[p->st->lis].n_rules = (uint16_t)n;
	}
	for (i = 0, it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, i++) {
		yaml_node_t *rn = yaml_document_get_node(p->doc, *it);
		struct uf_cfg_rule *r = &cfg->rules[first + i];

		snprintf(ip, sizeof(ip), "%s[%d]", kp, i);
		p->st->item = first + i;
		r->pos = uf_cfg_pos_of(rn);
		r->listener = (uint8_t)RTE_MAX(p->st->lis, 0);
		if (uf_cfg_walk_map(p, rn, ip, "rules[]", r) < 0)
			return -1;
		if (uf_cfg_map_get(p, rn, "from") == NULL || r->n_to == 0) {
			uf_cfg_perr(p, rn, ip, "needs from and to");
			return -1;
		}
	}
	return 0;
}

static int
parse_rules(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
	    const char *kp, void *base)
{
	p->st->have_rules = true;
	return parse_rule_list(p, v, kp, base);
}

/* listeners[].port: a port name, resolved once every port is known */
static int
parse_lis_port(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
	       const char *kp, void *base __rte_unused)
{
	if (uf_cfg_scalar(p, v, kp) == NULL)
		return -1;
	p->st->lis_port[p->st->lis] = v;
	return 0;
}

static int
parse_lis_ip(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
	     const char *kp, void *base)
{
	struct uf_cfg_listener *l = base;
	const char *s = uf_cfg_scalar(p, v, kp);

	if (s == NULL)
		return -1;
	l->is_ip6 = strchr(s, ':') != NULL; /* the family is the literal's form */
	if (l->is_ip6 ? uf_parse_ipv6(s, &l->ip6) < 0 : uf_parse_ipv4(s, &l->ip) < 0) {
		uf_cfg_perr(p, v, kp, "\"%s\" is not an IPv%d address", s, l->is_ip6 ? 6 : 4);
		return -1;
	}
	l->has_ip = true;
	l->ip_pos = uf_cfg_pos_of(v);
	return 0;
}

/* listeners[].destinations and .rules: appended to the top-level arrays */
static int
parse_lis_dests(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
		const char *kp, void *base __rte_unused)
{
	return parse_dest_list(p, v, kp, p->st->cfg);
}

static int
parse_lis_rules(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
		const char *kp, void *base __rte_unused)
{
	return parse_rule_list(p, v, kp, p->st->cfg);
}

static int
parse_listeners(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
		const char *kp, void *base)
{
	struct uf_config *cfg = base;
	struct uf_cfg_state *st = p->st;
	yaml_node_item_t *it;
	char ip[64];
	int i;

	if (uf_cfg_get_list(p, v, kp, UF_MAX_LISTENERS, &cfg->n_listeners) < 0)
		return -1;
	st->have_listeners = true;
	st->listeners = v;
	for (i = 0, it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, i++) {
		yaml_node_t *ln = yaml_document_get_node(p->doc, *it);
		struct uf_cfg_listener *l = &cfg->listeners[i];

		snprintf(ip, sizeof(ip), "listeners[%d]", i);
		st->lis = i;
		st->lis_node[i] = ln;
		l->pos = uf_cfg_pos_of(ln);
		if (uf_cfg_walk_map(p, ln, ip, "listeners[]", l) < 0)
			return -1;
		if (l->name[0] == '\0' || st->lis_port[i] == NULL || l->udp_port == 0 ||
		    l->n_dests == 0) {
			uf_cfg_perr(p, ln, ip, "needs %s",
				    l->name[0] == '\0'        ? "a name"
				    : st->lis_port[i] == NULL ? "a port (a port name)"
				    : l->udp_port == 0        ? "a udp_port"
							      : "destinations (at least one)");
			return -1;
		}
	}
	st->lis = -1;
	return 0;
}

/* ---- reload: the rows whose value is not one plain field (uf_config_diff) ---- */

static bool
same_extra_args(const void *a, const void *b)
{
	const struct uf_config *x = a, *y = b;
	int i;

	if (x->eal.n_extra != y->eal.n_extra)
		return false;
	for (i = 0; i < x->eal.n_extra; i++)
		if (strcmp(x->eal.extra_args[i], y->eal.extra_args[i]) != 0)
			return false;
	return true;
}

static bool
same_port_ip(const void *a, const void *b)
{
	const struct uf_cfg_port *x = a, *y = b;

	return x->ip == y->ip && x->prefix_len == y->prefix_len;
}

static bool
same_port_ip6(const void *a, const void *b)
{
	const struct uf_cfg_port *x = a, *y = b;

	return x->n_ip6 == y->n_ip6 &&
	       memcmp(x->ip6, y->ip6, (size_t)x->n_ip6 * sizeof(x->ip6[0])) == 0 &&
	       memcmp(x->ip6_prefix_len, y->ip6_prefix_len, (size_t)x->n_ip6) == 0;
}

static bool
same_port_service(const void *a, const void *b)
{
	const struct uf_cfg_port *x = a, *y = b;
	int i;

	if (x->n_svc != y->n_svc)
		return false;
	for (i = 0; i < x->n_svc; i++) {
		const struct uf_cfg_svc *s = &x->svc[i], *t = &y->svc[i];

		if (s->is_ip6 != t->is_ip6 || s->answer != t->answer ||
		    (s->is_ip6 ? memcmp(s->ip6.b, t->ip6.b, 16) != 0 : s->ip != t->ip))
			return false;
	}
	return true;
}

static bool
same_port_gw6(const void *a, const void *b)
{
	const struct uf_cfg_port *x = a, *y = b;

	return x->has_gateway6 == y->has_gateway6 &&
	       (!x->has_gateway6 || memcmp(&x->gateway6, &y->gateway6, 16) == 0);
}

static bool
same_dest_ip(const void *a, const void *b)
{
	const struct uf_cfg_dest *x = a, *y = b;

	return x->is_ip6 == y->is_ip6 &&
	       (x->is_ip6 ? memcmp(&x->ip6, &y->ip6, 16) == 0 : x->ip == y->ip);
}

static bool
same_listen_port(const void *a, const void *b)
{
	return ((const struct uf_config *)a)->listen.port ==
	       ((const struct uf_config *)b)->listen.port;
}

static bool
same_dest_mac(const void *a, const void *b)
{
	const struct uf_cfg_dest *x = a, *y = b;

	return x->has_mac == y->has_mac &&
	       (!x->has_mac || rte_is_same_ether_addr(&x->mac, &y->mac));
}

static bool
same_dest_port(const void *a, const void *b)
{
	return ((const struct uf_cfg_dest *)a)->port == ((const struct uf_cfg_dest *)b)->port;
}

/* a pool entry stays the same entry (the k-th pool), a member in the same pool; the pool's
 * own settings are compared in uf_config_diff (uf_cfg_diff.c), its members as destinations */
static bool
same_dest_pool(const void *a, const void *b)
{
	const struct uf_cfg_dest *x = a, *y = b;

	return x->is_pool == y->is_pool && x->is_member == y->is_member &&
	       (!(x->is_pool || x->is_member) || x->pool == y->pool);
}

/* the members are destinations of their own (compared, matched, added and removed as such) */
static bool
same_pool_members(const void *a, const void *b)
{
	(void)a;
	(void)b;
	return true;
}

static bool
same_dest_source(const void *a, const void *b)
{
	const struct uf_cfg_dest *x = a, *y = b;

	return x->source == y->source &&
	       (x->source != UF_SRC_FIXED ||
		(x->source_is_ip6 == y->source_is_ip6 &&
		 (x->source_is_ip6 ? memcmp(&x->source_ip6, &y->source_ip6, 16) == 0
				   : x->source_ip == y->source_ip)));
}

static bool
same_rule_from(const void *a, const void *b)
{
	const struct uf_cfg_rule *x = a, *y = b;

	return x->is_ip6 == y->is_ip6 && x->len == y->len &&
	       (x->is_ip6 ? memcmp(&x->prefix6, &y->prefix6, 16) == 0 : x->prefix == y->prefix);
}

static bool
same_rule_to(const void *a, const void *b)
{
	const struct uf_cfg_rule *x = a, *y = b;

	return x->n_to == y->n_to && memcmp(x->to, y->to, x->n_to * sizeof(*x->to)) == 0;
}

/* listeners[] (uf_cfg_diff.c matches them by position): the port and the address; their
 * destinations and rules are items of the flat lists, compared there. Every listener key
 * needs a restart: its rte_flow rule is made when the port starts. */
static bool
same_lis_port(const void *a, const void *b)
{
	return ((const struct uf_cfg_listener *)a)->port ==
	       ((const struct uf_cfg_listener *)b)->port;
}

static bool
same_lis_ip(const void *a, const void *b)
{
	const struct uf_cfg_listener *x = a, *y = b;

	return x->has_ip == y->has_ip && x->is_ip6 == y->is_ip6 &&
	       (x->is_ip6 ? memcmp(&x->ip6, &y->ip6, 16) == 0 : x->ip == y->ip);
}

/* a listener's destinations and rules: items of the flat lists, where uf_config_diff
 * compares each one's listener and place (a move between listeners is a hot change there,
 * not a change of this listener: docs/configuration.md#reload) */
static bool
same_in_flat_lists(const void *a, const void *b)
{
	(void)a;
	(void)b;
	return true;
}

static bool
same_stats_json(const void *a, const void *b)
{
	return strcmp(((const struct uf_config *)a)->stats.json,
		      ((const struct uf_config *)b)->stats.json) == 0;
}

/* ---- the table ---- */

/* the field FLD of struct ST: offset and size */
#define AT(st, fld) .offset = offsetof(st, fld), .size = sizeof(((st *)0)->fld)
#define CFG(fld) AT(struct uf_config, fld)
#define PORT(fld) AT(struct uf_cfg_port, fld)
#define DEST(fld) AT(struct uf_cfg_dest, fld)
#define RULE(fld) AT(struct uf_cfg_rule, fld)
#define POOL(fld) AT(struct uf_cfg_pool, fld)
#define LIS(fld) AT(struct uf_cfg_listener, fld)
/* an integer in LO..HI with default DEF */
#define UINT(l, h, d) .type = UF_CFG_UINT, .lo = (l), .hi = (h), .has_def = true, .def = (d)
/* an integer in LO..HI that must be given */
#define UINT_REQ(l, h) .type = UF_CFG_UINT, .lo = (l), .hi = (h), .doc_default = "required"
#define BOOL(d) .type = UF_CFG_BOOL, .has_def = true, .def = (d)
#define ENUM(c, d) .type = UF_CFG_ENUM, .choices = (c), .has_def = true, .def = (d)
#define CUSTOM(fn) .type = UF_CFG_CUSTOM, .parse = (fn)

static const char *const balance_modes[] = { "hash-sender", "hash-flow", "round-robin", NULL };
static const char *const cksum_modes[] = {
	[UF_CKSUM_COMPUTE] = "compute", [UF_CKSUM_ZERO] = "zero", NULL
};
static const char *const rxck_modes[] = { [UF_RXCK_AUTO] = "auto", [UF_RXCK_OFF] = "off", NULL };
static const char *const fanout_modes[] = {
	[UF_FANOUT_AUTO] = "auto", [UF_FANOUT_COPY] = "copy", [UF_FANOUT_CHAIN] = "chain", NULL
};

const struct uf_cfg_key uf_cfg_schema[] = {
	/* the top level, in the order the unknown-key message lists them */
	{ "", "eal", .type = UF_CFG_MAP, .doc = "EAL arguments udpfan builds" },
	{ "", "ports", CUSTOM(parse_ports), .doc = "the ports, 1 to 16" },
	{ "", "listen", CUSTOM(parse_listen), .doc = "where the datagrams arrive" },
	{ "", "destinations", CUSTOM(parse_dests), .hot = true,
	  .doc = "where the copies go, 1 to 256" },
	{ "", "rules", CUSTOM(parse_rules), .hot = true,
	  .doc = "sender prefix to destinations, first match" },
	{ "", "listeners", CUSTOM(parse_listeners),
	  .doc = "several listeners, each with its destinations and rules (instead of listen)" },
	{ "", "forward", .type = UF_CFG_MAP, .hot = true, .doc = "how copies are built and sent" },
	{ "", "stats", .type = UF_CFG_MAP, .hot = true, .doc = "stats interval and JSON output" },
	{ "", "arp", .type = UF_CFG_MAP, .hot = true, .doc = "neighbour resolution timers" },
	{ "", "control", .type = UF_CFG_MAP, .hot = true,
	  .doc = "control-plane rates, the drain on SIGTERM" },
	{ "", "health", .type = UF_CFG_MAP, .hot = true,
	  .doc = "TCP and HTTP health checks answered on the ports' addresses" },

	{ "eal", "lcores", CFG(eal.lcores), .type = UF_CFG_STR, .parse = check_lcores, .lo = 2,
	  .hi = UF_MAX_WORKERS + 1, .range_note = " lcores",
	  .doc_default = "the first two CPUs in udpfan's affinity mask (`\"0-1\"` if that "
			 "cannot be read)",
	  .doc = "main lcore first, then the workers" },
	{ "eal", "file_prefix", CFG(eal.file_prefix), .type = UF_CFG_STR,
	  .parse = check_file_prefix, .has_def = true, .def_str = "udpfan",
	  .doc_range = "1..63 characters: letters, digits, `_`, `-`",
	  .doc = "EAL's --file-prefix" },
	{ "eal", "in_memory", CFG(eal.in_memory), BOOL(false), .doc = "EAL's --in-memory" },
	{ "eal", "no_huge", CFG(eal.no_huge), BOOL(false), .doc = "EAL's --no-huge" },
	{ "eal", "memory_mb", CFG(eal.memory_mb), UINT(16, 1u << 20, 0),
	  .default_note = " (EAL's default)", .doc = "EAL's -m, MiB" },
	{ "eal", "mlockall", CFG(eal.mlockall), BOOL(true),
	  .doc = "lock udpfan's memory, mapped now and later" },
	{ "eal", "capture", CFG(eal.capture), BOOL(true),
	  .doc = "dpdk-dumpcap and dpdk-pdump may capture" },
	{ "eal", "extra_args", CUSTOM(parse_extra_args), .same = same_extra_args,
	  .doc_type = "list of strings", .doc_default = "`[]`", .doc = "appended to EAL's argv" },

	{ "ports[]", "name", PORT(name), .type = UF_CFG_STR, .parse = check_port_name,
	  .doc_default = "required", .doc_range = "1..31 characters, `[A-Za-z0-9_]`",
	  .doc = "the port's label" },
	{ "ports[]", "device", PORT(device), .type = UF_CFG_STR, .parse = check_device,
	  .has_pos = true, .pos_offset = offsetof(struct uf_cfg_port, device_pos),
	  .doc_default = "required", .doc = "PCI address with devargs, or a vdev" },
	{ "ports[]", "ip", CUSTOM(parse_port_ip), .same = same_port_ip, .doc_type = "string",
	  .doc_default = "required unless `ip6`", .doc_range = "prefix /1../31",
	  .doc = "udpfan's address and subnet on the port" },
	{ "ports[]", "gateway", PORT(gateway), .type = UF_CFG_IPV4, .has_flag = true,
	  .flag_offset = offsetof(struct uf_cfg_port, has_gateway), .has_pos = true,
	  .pos_offset = offsetof(struct uf_cfg_port, gateway_pos), .doc_default = "none",
	  .doc_range = "on the port's subnet", .doc = "next hop off the subnet" },
	{ "ports[]", "ip6", CUSTOM(parse_port_ip6), .same = same_port_ip6,
	  .doc_type = "list of strings", .doc_default = "none",
	  .doc_range = "1..4 addresses, prefix /1../127",
	  .doc = "udpfan's IPv6 addresses and prefixes on the port" },
	{ "ports[]", "gateway6", CUSTOM(parse_port_gw6), .same = same_port_gw6, .doc_type = "IPv6",
	  .doc_default = "none", .doc_range = "link-local, or on one of the port's `ip6` prefixes",
	  .doc = "IPv6 next hop off the prefixes" },
	{ "ports[]", "service", CUSTOM(parse_port_service), .same = same_port_service, .hot = true,
	  .doc_type = "list", .doc_default = "none",
	  .doc_range = "0..8 host addresses, IPv4 or IPv6",
	  .doc = "service addresses the port takes like its own, shared with other hosts" },
	{ "ports[]", "vlan", PORT(vlan), UINT(1, 4094, 0), .default_note = ": untagged",
	  .doc = "802.1Q VLAN id: a tagged logical port on its device" },
	{ "ports[]", "vlan_pcp", PORT(vlan_pcp), UINT(0, 7, 0),
	  .doc = "802.1Q priority bits of the frames it sends" },
	{ "ports[]", "mtu", PORT(mtu), UINT(68, 16000, 0),
	  .default_note = ": the kernel netdev's where the port has one (mlx5, af_xdp, "
			  "af_packet, tap), left unchanged; 1500 on a device udpfan owns alone",
	  .range_note = ", and within the PMD's `min_mtu..max_mtu`", .doc = "the port's MTU" },
	{ "ports[]", "rx_desc", PORT(rx_desc), UINT(32, 32768, 1024),
	  .doc = "RX ring size per queue" },
	{ "ports[]", "tx_desc", PORT(tx_desc), UINT(32, 32768, 1024),
	  .doc = "TX ring size per queue" },
	{ "ports[]", "mbufs", PORT(mbufs), .type = UF_CFG_UINT, .lo = 63, .hi = 16u << 20,
	  .doc_default = "formula ([architecture](architecture.md#queue-ownership-and-memory))",
	  .doc = "mbufs per (port, queue) pool" },
	{ "ports[]", "rx_checksum", PORT(rx_checksum), ENUM(rxck_modes, UF_RXCK_AUTO),
	  .doc = "trust the NIC's RX checksum verdicts where the quirk row does, or never" },

	{ "listen", "port", CUSTOM(parse_listen_port), .same = same_listen_port,
	  .doc_type = "port name", .doc_default = "required",
	  .doc_range = "an existing `ports[].name`", .doc = "the port that receives" },
	{ "listen", "udp_port", CFG(listen.udp_port), UINT_REQ(1, 65535),
	  .doc = "the UDP port fanned out" },

	{ "destinations[]", "ip", CUSTOM(parse_dest_ip), .hot = true, .same = same_dest_ip,
	  .doc_type = "IPv4 or IPv6", .doc_default = "required",
	  .doc_range = "not 0.0.0.0, 255.255.255.255, 127/8, 240/4, nor the egress port's own "
		       "IP",
	  .doc = "destination address" },
	{ "destinations[]", "udp_port", DEST(udp_port), .hot = true, UINT_REQ(1, 65535),
	  .doc = "destination UDP port" },
	{ "destinations[]", "mac", CUSTOM(parse_mac), .hot = true, .same = same_dest_mac,
	  .has_flag = true, .flag_offset = offsetof(struct uf_cfg_dest, has_mac), .doc_type = "MAC",
	  .doc_default = "none (ARP)", .doc_range = "unicast, non-zero",
	  .doc = "static next-hop MAC, no ARP" },
	{ "destinations[]", "port", CUSTOM(parse_dest_port), .hot = true, .same = same_dest_port,
	  .doc_type = "port name", .doc_default = "the listen port",
	  .doc_range = "an existing port", .doc = "egress port" },
	{ "destinations[]", "source", CUSTOM(parse_source), .hot = true, .same = same_dest_source,
	  .doc_type = "`ours`, `original` or an IPv4 or IPv6 address", .doc_default = "`ours`",
	  .doc = "source address and port of the copies" },
	{ "destinations[]", "sample", DEST(sample), .hot = true, UINT(1, 1000000, 1),
	  .doc = "send one datagram in N" },
	{ "destinations[]", "ttl", DEST(ttl), .hot = true, UINT(1, 255, 64),
	  .doc = "IPv4 TTL (IPv6 hop limit) of the copies" },
	{ "destinations[]", "liveness", DEST(liveness), .hot = true, BOOL(false),
	  .doc_default = "true for a pool member, else false",
	  .doc = "probe its next hop every arp.liveness_ms" },

	{ "destinations[]", "pool", CUSTOM(parse_pool), .hot = true, .same = same_dest_pool,
	  .doc_type = "mapping", .doc_default = "none",
	  .doc = "this destination is a pool of members, one copy each" },

	{ "destinations[].pool", "balance", POOL(balance), .hot = true,
	  ENUM(balance_modes, UF_BAL_HASH_SENDER), .doc = "how a datagram's member is picked" },
	{ "destinations[].pool", "sender_port", POOL(sender_port), .hot = true, BOOL(false),
	  .doc = "hash-sender: hash the sender's UDP port too" },
	{ "destinations[].pool", "members", CUSTOM(parse_members), .hot = true,
	  .same = same_pool_members, .doc_type = "list of destinations", .doc_default = "required",
	  .doc_range = "1..256 (with the other destinations)",
	  .doc = "the receivers: each with ip, udp_port, port, mac, source, ttl" },

	{ "rules[]", "from", CUSTOM(parse_from), .hot = true, .same = same_rule_from,
	  .doc_type = "IPv4 or IPv6 prefix", .doc = "sender prefix" },
	{ "rules[]", "to", CUSTOM(parse_to), .hot = true, .same = same_rule_to,
	  .doc_type = "list of integers", .doc = "destination indexes" },

	{ "listeners[]", "name", LIS(name), .type = UF_CFG_STR, .doc_default = "required",
	  .doc_range = "1..31 characters", .doc = "the listener's name in stats and messages" },
	{ "listeners[]", "port", CUSTOM(parse_lis_port), .same = same_lis_port,
	  .doc_type = "port name", .doc_default = "required",
	  .doc_range = "an existing `ports[].name`", .doc = "the port that receives" },
	{ "listeners[]", "udp_port", LIS(udp_port), UINT_REQ(1, 65535),
	  .doc = "the UDP port fanned out" },
	{ "listeners[]", "ip", CUSTOM(parse_lis_ip), .same = same_lis_ip,
	  .doc_type = "IPv4 or IPv6 address",
	  .doc_default = "the port's `ip` (its first `ip6` on an IPv6-only port)",
	  .doc_range = "on the port's subnet, no other port's IP; an IPv6 one is one of the port's `ip6`; or one of the port's `service` addresses",
	  .doc = "the address it listens on" },
	{ "listeners[]", "destinations", CUSTOM(parse_lis_dests), .same = same_in_flat_lists,
	  .doc_type = "list of destinations", .doc_default = "required",
	  .doc_range = "1..256 in all listeners",
	  .doc = "its destinations: the keys of `destinations[]`" },
	{ "listeners[]", "rules", CUSTOM(parse_lis_rules), .same = same_in_flat_lists,
	  .doc_type = "list of rules", .doc_default = "none",
	  .doc_range = "0..4096 in all listeners",
	  .doc = "its rules: the keys of `rules[]`, `to` indexing its "
		 "destinations" },

	{ "forward", "udp_checksum", CFG(fwd.udp_checksum), .hot = true,
	  ENUM(cksum_modes, UF_CKSUM_COMPUTE), .doc = "derive the UDP checksum, or send none" },
	{ "forward", "source_port", CFG(fwd.source_port), .hot = true, .type = UF_CFG_UINT, .lo = 1,
	  .hi = 65535, .word = "keep",
	  .word_offset = offsetof(struct uf_config, fwd.keep_source_port),
	  .word_what = "a UDP port number", .has_def = true, .def_word = true,
	  .doc = "UDP source port of the copies" },
	{ "forward", "burst", CFG(fwd.burst), UINT(UF_MIN_BURST, UF_MAX_BURST, 32),
	  .lo_why = "the vector RX paths of i40e, ixgbe, ice, iavf and mlx5 round a burst "
		    "down to a multiple of 4: 1-3 would receive nothing",
	  .doc = "RX burst and TX flush size" },
	{ "forward", "fanout", CFG(fwd.fanout), .hot = true, ENUM(fanout_modes, UF_FANOUT_AUTO),
	  .doc = "how the copies are built" },
	{ "forward", "chain_min_payload", CFG(fwd.chain_min_payload), .hot = true,
	  UINT(0, 65535, UF_CHAIN_MIN_PAYLOAD_DEFAULT), .doc = "auto chains from this payload" },
	{ "forward", "drain_us", CFG(fwd.drain_us), UINT(1, 100000, 100),
	  .doc = "TX buffers flushed at least this often" },
	{ "forward", "flush_idle", CFG(fwd.flush_idle), BOOL(true),
	  .doc = "TX buffers flushed when a pass finds the RX queues empty" },
	{ "forward", "tx_retries", CFG(fwd.tx_retries), UINT(0, 1000, 8),
	  .doc = "extra tx_burst attempts on a full ring" },
	{ "forward", "tx_stall_ms", CFG(fwd.tx_stall_ms), UINT(0, 10000, 10),
	  .doc = "a port without TX progress this long is skipped" },

	{ "stats", "interval_s", CFG(stats.interval_s), .hot = true, .type = UF_CFG_NUMBER,
	  .dlo = 0.1, .dhi = 3600, .unit = "seconds", .has_def = true, .ddef = 1.0,
	  .doc = "stats, telemetry and link-check interval" },
	{ "stats", "json", CUSTOM(parse_json), .same = same_stats_json, .doc_type = "path or null",
	  .doc_default = "none", .doc_range = "< 4096 characters",
	  .doc = "append stats objects to this file (created 0640; a symlink is refused)" },

	{ "arp", "reachable_s", CFG(arp.reachable_s), .hot = true, UINT(1, 86400, 30),
	  .doc = "confirm a neighbour after this long" },
	{ "arp", "retry_ms", CFG(arp.retry_ms), .hot = true, UINT(10, 60000, 200),
	  .doc = "first retry, doubling to 8x" },
	{ "arp", "max_probes", CFG(arp.max_probes), .hot = true, UINT(1, 100, 5),
	  .doc = "unanswered probes before FAILED" },
	{ "arp", "gratuitous", CFG(arp.gratuitous), .hot = true, BOOL(true),
	  .doc = "gratuitous ARP at start, link up, reset" },
	{ "arp", "liveness_ms", CFG(arp.liveness_ms), .hot = true, UINT(0, 60000, 200),
	  .doc = "liveness probe interval, 0: none" },
	{ "arp", "liveness_misses", CFG(arp.liveness_misses), .hot = true, UINT(1, 100, 3),
	  .doc = "unanswered liveness probes before FAILED" },

	{ "control", "icmp_rate", CFG(control.icmp_rate), .hot = true, UINT(0, 1000000, 100),
	  .doc = "echo replies per second per port" },
	{ "control", "neigh_rate", CFG(control.neigh_rate), .hot = true, UINT(1, 1000000, 2000),
	  .doc = "ARP and NS answers per second per port" },
	{ "control", "drain_s", CFG(control.drain_s), .hot = true, UINT(0, 3600, 0),
	  .default_note = ": SIGTERM stops at once",
	  .doc = "on SIGTERM, forward this long (draining) before the clean stop" },

	{ "health", "tcp_port", CFG(health.tcp_port), UINT(0, 65535, 0), .default_note = ": off",
	  .doc = "answer TCP health checks on this port of every port's addresses" },
	{ "health", "http_path", CFG(health.http_path), .type = UF_CFG_STR,
	  .parse = check_http_path, .hot = true, .doc_default = "none: a plain TCP check",
	  .doc_range = "1..127 characters: `/`, then printable ones, no spaces",
	  .doc = "answer `GET` of this path: 200 when ready, else 503" },
	{ "health", "rate", CFG(health.rate), .hot = true, UINT(1, 1000000, 1000),
	  .doc = "health-check segments answered per second per port" },
};

const unsigned int uf_cfg_schema_n = RTE_DIM(uf_cfg_schema);

const struct uf_cfg_key *
uf_cfg_key_find(const char *section, const char *key)
{
	unsigned int i;

	for (i = 0; i < uf_cfg_schema_n; i++)
		if (strcmp(uf_cfg_schema[i].section, section) == 0 &&
		    strcmp(uf_cfg_schema[i].name, key) == 0)
			return &uf_cfg_schema[i];
	return NULL;
}

/* ---- what docs/configuration.md says of a row ---- */

const char *
uf_cfg_key_doc_type(const struct uf_cfg_key *k, char *buf, size_t len)
{
	size_t o = 0;
	int i, n;

	if (k->doc_type != NULL) {
		snprintf(buf, len, "%s", k->doc_type);
		return buf;
	}
	switch (k->type) {
	case UF_CFG_UINT:
		if (k->word != NULL)
			snprintf(buf, len, "`%s` or integer", k->word);
		else
			snprintf(buf, len, "integer");
		break;
	case UF_CFG_BOOL:
		snprintf(buf, len, "bool");
		break;
	case UF_CFG_STR:
		snprintf(buf, len, "string");
		break;
	case UF_CFG_IPV4:
		snprintf(buf, len, "IPv4");
		break;
	case UF_CFG_NUMBER:
		snprintf(buf, len, "number");
		break;
	case UF_CFG_ENUM:
		/* "`auto`, `copy` or `chain`" */
		buf[0] = '\0';
		for (n = 0; k->choices[n] != NULL; n++)
			;
		for (i = 0; i < n && o < len; i++)
			o += snprintf(buf + o, len - o, "%s`%s`",
				      i == 0       ? ""
				      : i == n - 1 ? " or "
						   : ", ",
				      k->choices[i]);
		break;
	case UF_CFG_MAP:
		snprintf(buf, len, "mapping");
		break;
	default:
		buf[0] = '\0';
		break;
	}
	return buf;
}

const char *
uf_cfg_key_doc_default(const struct uf_cfg_key *k, char *buf, size_t len)
{
	const char *note = k->default_note != NULL ? k->default_note : "";

	if (k->doc_default != NULL)
		snprintf(buf, len, "%s", k->doc_default);
	else if (!k->has_def)
		buf[0] = '\0';
	else if (k->type == UF_CFG_UINT && k->word != NULL && k->def_word)
		snprintf(buf, len, "`%s`%s", k->word, note);
	else if (k->type == UF_CFG_UINT)
		snprintf(buf, len, "%" PRIu64 "%s", k->def, note);
	else if (k->type == UF_CFG_BOOL)
		snprintf(buf, len, "%s%s", k->def ? "true" : "false", note);
	else if (k->type == UF_CFG_ENUM)
		snprintf(buf, len, "`%s`%s", k->choices[k->def], note);
	else if (k->type == UF_CFG_STR)
		snprintf(buf, len, "`%s`%s", k->def_str, note);
	else if (k->type == UF_CFG_NUMBER)
		snprintf(buf, len, "%g%s", k->ddef, note);
	else
		buf[0] = '\0';
	return buf;
}

const char *
uf_cfg_key_doc_range(const struct uf_cfg_key *k, char *buf, size_t len)
{
	const char *note = k->range_note != NULL ? k->range_note : "";

	if (k->doc_range != NULL)
		snprintf(buf, len, "%s", k->doc_range);
	else if (k->type == UF_CFG_NUMBER)
		snprintf(buf, len, "%g..%g%s", k->dlo, k->dhi, note);
	else if (k->type == UF_CFG_UINT || k->hi != 0)
		snprintf(buf, len, "%" PRIu64 "..%" PRIu64 "%s", k->lo, k->hi, note);
	else
		buf[0] = '\0';
	return buf;
}
