/* SPDX-License-Identifier: BSD-3-Clause
 * The value parsers and checks of the schema's rows (uf_cfg_schema.c) whose keys the generic
 * types do not cover: addresses with prefixes, service addresses, port names resolved later,
 * sources, rule prefixes and indexes. docs/configuration.md describes each key.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_ip.h>

#include "uf_cfg_schema.h"

int
uf_cfg_check_lcores(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
		    const char *kp, void *base)
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

int
uf_cfg_check_file_prefix(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused,
			 yaml_node_t *v, const char *kp, void *base)
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
int
uf_cfg_check_http_path(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused,
		       yaml_node_t *v, const char *kp, void *base)
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

int
uf_cfg_parse_extra_args(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused,
			yaml_node_t *v, const char *kp, void *base)
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

int
uf_cfg_check_port_name(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused,
		       yaml_node_t *v, const char *kp, void *base)
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

int
uf_cfg_check_device(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
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

int
uf_cfg_parse_port_ip(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
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
int
uf_cfg_parse_port_ip6(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused,
		      yaml_node_t *v, const char *kp, void *base)
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
int
uf_cfg_parse_port_service(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused,
			  yaml_node_t *v, const char *kp, void *base)
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

int
uf_cfg_parse_port_gw6(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused,
		      yaml_node_t *v, const char *kp, void *base)
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

/* a host address of either family, the family the literal's form: 0, or -1 with the error */
static int
parse_addr(struct uf_cfg_pctx *p, yaml_node_t *v, const char *kp, bool *is_ip6, rte_be32_t *ip,
	   struct uf_ip6 *ip6)
{
	const char *s = uf_cfg_scalar(p, v, kp);

	if (s == NULL)
		return -1;
	*is_ip6 = strchr(s, ':') != NULL;
	if (*is_ip6 ? uf_parse_ipv6(s, ip6) == 0 : uf_parse_ipv4(s, ip) == 0)
		return 0;
	uf_cfg_perr(p, v, kp, "\"%s\" is not an IPv%d address", s, *is_ip6 ? 6 : 4);
	return -1;
}

/* destinations[].ip: either family */
int
uf_cfg_parse_dest_ip(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
		     const char *kp, void *base)
{
	struct uf_cfg_dest *d = base;

	d->ip = 0;
	memset(&d->ip6, 0, sizeof(d->ip6));
	return parse_addr(p, v, kp, &d->is_ip6, &d->ip, &d->ip6);
}

/* listen.port, destinations[].port, listeners[].port: a port name, kept in the walk's state
 * and resolved into the row's field once every port is known */
int
uf_cfg_parse_port_ref(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
		      const char *kp, void *base __rte_unused)
{
	struct uf_cfg_state *st = p->st;

	if (uf_cfg_scalar(p, v, kp) == NULL)
		return -1;
	if (strcmp(k->section, "listen") == 0)
		st->listen_port = v;
	else if (strcmp(k->section, "listeners[]") == 0)
		st->lis_port[st->lis] = v;
	else /* destinations[], a pool member among them */
		st->dest_port[st->item] = v;
	return 0;
}

int
uf_cfg_parse_mac(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
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

int
uf_cfg_parse_source(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
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

int
uf_cfg_parse_from(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
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

int
uf_cfg_parse_to(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
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

int
uf_cfg_parse_json(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
		  const char *kp, void *base)
{
	struct uf_config *cfg = base;

	if (uf_cfg_is_null(v)) {
		cfg->stats.json[0] = '\0';
		return 0;
	}
	return uf_cfg_get_str(p, v, kp, cfg->stats.json, sizeof(cfg->stats.json));
}

int
uf_cfg_parse_lis_ip(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
		    const char *kp, void *base)
{
	struct uf_cfg_listener *l = base;

	if (parse_addr(p, v, kp, &l->is_ip6, &l->ip, &l->ip6) < 0)
		return -1;
	l->has_ip = true;
	l->ip_pos = uf_cfg_pos_of(v);
	return 0;
}
