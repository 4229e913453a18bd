/* SPDX-License-Identifier: BSD-3-Clause
 * YAML → struct uf_config.
 *
 * libyaml's document API gives a node tree with the position of every node, so each error can
 * name FILE:LINE:COL and the key path ("destinations[1].ip"). Parsing checks types and ranges
 * key by key; validate() then checks what needs the whole document (cross-references,
 * duplicates, reachability, rule shadowing).
 */
#include <ctype.h>
#include <sched.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <yaml.h>

#include <rte_ip.h>

#include "uf_config.h"

struct pctx {
	const char *name;
	yaml_document_t *doc;
	struct uf_err *err;
	bool failed;
};

static void __rte_format_printf(4, 5) perr_at(struct pctx *p, const yaml_mark_t *mark,
					      const char *key, const char *fmt, ...)
{
	char what[384];
	va_list ap;

	if (p->failed)
		return; /* the first error is the one worth reading */
	p->failed = true;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	uf_err_set(p->err, UF_EXIT_CONFIG, "%s:%zu:%zu: %s: %s", p->name, mark->line + 1,
		   mark->column + 1, key, what);
}

#define perr(p, node, key, ...) perr_at((p), &(node)->start_mark, (key), __VA_ARGS__)

static void __rte_format_printf(4, 5) perr_pos(struct pctx *p, const struct uf_cfg_pos *pos,
					       const char *key, const char *fmt, ...)
{
	char what[384];
	va_list ap;

	if (p->failed)
		return;
	p->failed = true;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	uf_err_set(p->err, UF_EXIT_CONFIG, "%s:%u:%u: %s: %s", p->name, pos->line, pos->col, key,
		   what);
}

static struct uf_cfg_pos
pos_of(const yaml_node_t *n)
{
	return (struct uf_cfg_pos){ .line = n->start_mark.line + 1,
				    .col = n->start_mark.column + 1 };
}

/* ---- small syntax parsers, shared with gen/sink ---- */

int
uf_parse_ipv4(const char *s, rte_be32_t *ip)
{
	struct in_addr a;
	int dots = 0;
	const char *c;

	/* inet_pton alone accepts no short forms, but be explicit about what we take */
	for (c = s; *c != '\0'; c++) {
		if (*c == '.')
			dots++;
		else if (!isdigit((unsigned char)*c))
			return -1;
	}
	if (dots != 3 || inet_pton(AF_INET, s, &a) != 1)
		return -1;
	*ip = a.s_addr;
	return 0;
}

int
uf_parse_ipv4_prefix(const char *s, rte_be32_t *ip, uint8_t *len)
{
	char buf[32];
	const char *slash = strchr(s, '/');
	char *end;
	unsigned long l;

	if (slash == NULL || (size_t)(slash - s) >= sizeof(buf))
		return -1;
	memcpy(buf, s, slash - s);
	buf[slash - s] = '\0';
	if (uf_parse_ipv4(buf, ip) < 0 || slash[1] == '\0')
		return -1;
	errno = 0;
	l = strtoul(slash + 1, &end, 10);
	if (errno != 0 || *end != '\0' || l > 32 || !isdigit((unsigned char)slash[1]))
		return -1;
	*len = (uint8_t)l;
	return 0;
}

int
uf_parse_mac(const char *s, struct rte_ether_addr *mac)
{
	unsigned int b[6];
	char tail;
	int i;

	if (strlen(s) != 17 || sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
				      &b[4], &b[5], &tail) != 6)
		return -1;
	for (i = 0; i < 6; i++) {
		if (!isxdigit((unsigned char)s[i * 3]) || !isxdigit((unsigned char)s[i * 3 + 1]))
			return -1;
		mac->addr_bytes[i] = (uint8_t)b[i];
	}
	return 0;
}

bool
uf_is_pci_addr(const char *dev, char *norm, size_t normlen)
{
	unsigned int dom = 0, bus, slot, fn;
	char tail = '\0';
	size_t n = strcspn(dev, ",");
	char buf[32];

	if (n >= sizeof(buf))
		return false;
	memcpy(buf, dev, n);
	buf[n] = '\0';
	/* sscanf's %x would take "0x", signs and blanks too */
	if (strspn(buf, "0123456789abcdefABCDEF:.") != n)
		return false;
	if (sscanf(buf, "%x:%x:%x.%x%c", &dom, &bus, &slot, &fn, &tail) == 4) {
		/* domain:bus:slot.fn */
	} else if (sscanf(buf, "%x:%x.%x%c", &bus, &slot, &fn, &tail) == 3) {
		dom = 0;
	} else {
		return false;
	}
	if (bus > 0xff || slot > 0x1f || fn > 7 || dom > 0xffff)
		return false;
	if (norm != NULL)
		snprintf(norm, normlen, "%04x:%02x:%02x.%x", dom, bus, slot, fn);
	return true;
}

int
uf_parse_lcore_list(const char *s, uint16_t *ids, int max)
{
	int n = 0;
	const char *c = s;
	char *end;

	while (*c != '\0') {
		unsigned long a, b, i;
		int k;

		if (!isdigit((unsigned char)*c))
			return -1;
		a = strtoul(c, &end, 10);
		b = a;
		c = end;
		if (*c == '-') {
			c++;
			if (!isdigit((unsigned char)*c))
				return -1;
			b = strtoul(c, &end, 10);
			c = end;
			if (b < a)
				return -1;
		}
		if (*c == '@') {
			/* --lcores form: lcore(s)@cpu, placing lcores on a CPU of our choosing */
			c++;
			if (!isdigit((unsigned char)*c))
				return -1;
			if (strtoul(c, &end, 10) >= CPU_SETSIZE)
				return -1;
			c = end;
		}
		if (b >= RTE_MAX_LCORE)
			return -1;
		for (i = a; i <= b; i++) {
			for (k = 0; k < n; k++)
				if (ids[k] == i)
					return -1; /* listed twice */
			if (n >= max)
				return -1;
			ids[n++] = (uint16_t)i;
		}
		if (*c == ',') {
			c++;
			if (*c == '\0')
				return -1; /* EAL refuses a trailing comma */
		} else if (*c != '\0') {
			return -1;
		}
	}
	return n;
}

/* ---- node helpers ---- */

static const char *
node_type_name(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return "a scalar";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

static const char *
scalar(struct pctx *p, yaml_node_t *n, const char *key)
{
	if (n->type != YAML_SCALAR_NODE) {
		perr(p, n, key, "expected a value, got %s", node_type_name(n));
		return NULL;
	}
	return (const char *)n->data.scalar.value;
}

static bool
is_null_scalar(const yaml_node_t *n)
{
	const char *v;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	v = (const char *)n->data.scalar.value;
	return v[0] == '\0' || strcmp(v, "~") == 0 || strcmp(v, "null") == 0;
}

static int
get_u64(struct pctx *p, yaml_node_t *n, const char *key, uint64_t lo, uint64_t hi, uint64_t *out)
{
	const char *v = scalar(p, n, key);
	unsigned long long x;
	char *end;

	if (v == NULL)
		return -1;
	errno = 0;
	if (!isdigit((unsigned char)v[0])) {
		perr(p, n, key, "\"%s\" is not a whole number", v);
		return -1;
	}
	x = strtoull(v, &end, 10);
	if (errno != 0 || *end != '\0') {
		perr(p, n, key, "\"%s\" is not a whole number", v);
		return -1;
	}
	if (x < lo || x > hi) {
		perr(p, n, key, "%llu is out of range %" PRIu64 "..%" PRIu64, x, lo, hi);
		return -1;
	}
	*out = x;
	return 0;
}

#define GET_UINT(p, n, key, lo, hi, dst)                            \
	({                                                          \
		uint64_t v_;                                        \
		int r_ = get_u64((p), (n), (key), (lo), (hi), &v_); \
		if (r_ == 0)                                        \
			(dst) = (__typeof__(dst))v_;                \
		r_;                                                 \
	})

static int
get_bool(struct pctx *p, yaml_node_t *n, const char *key, bool *out)
{
	const char *v = scalar(p, n, key);

	if (v == NULL)
		return -1;
	if (strcmp(v, "true") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "on") == 0) {
		*out = true;
		return 0;
	}
	if (strcmp(v, "false") == 0 || strcmp(v, "no") == 0 || strcmp(v, "off") == 0) {
		*out = false;
		return 0;
	}
	perr(p, n, key, "\"%s\" is not true or false", v);
	return -1;
}

static int
get_str(struct pctx *p, yaml_node_t *n, const char *key, char *dst, size_t len)
{
	const char *v = scalar(p, n, key);

	if (v == NULL)
		return -1;
	if (strlen(v) >= len) {
		perr(p, n, key, "longer than %zu characters", len - 1);
		return -1;
	}
	strcpy(dst, v);
	return 0;
}

static int
get_ipv4(struct pctx *p, yaml_node_t *n, const char *key, rte_be32_t *ip)
{
	const char *v = scalar(p, n, key);

	if (v == NULL)
		return -1;
	if (uf_parse_ipv4(v, ip) < 0) {
		perr(p, n, key, "\"%s\" is not an IPv4 address", v);
		return -1;
	}
	return 0;
}

static bool
name_ok(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/*
 * Iterate a mapping, calling fn for each key. Unknown keys and duplicates are errors; `keys`
 * is the list of the keys this mapping may hold (for the message).
 */
typedef int (*key_fn)(struct pctx *p, const char *key, yaml_node_t *val, const char *path,
		      void *arg);

static int
walk_map(struct pctx *p, yaml_node_t *map, const char *path, const char *const *keys, key_fn fn,
	 void *arg)
{
	yaml_node_pair_t *pair;
	char kp[160];

	if (map->type != YAML_MAPPING_NODE) {
		perr(p, map, path, "expected a mapping, got %s", node_type_name(map));
		return -1;
	}
	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, pair->key);
		yaml_node_t *v = yaml_document_get_node(p->doc, pair->value);
		yaml_node_pair_t *q;
		const char *ks;
		int i;

		if (k->type != YAML_SCALAR_NODE) {
			perr(p, k, path, "keys must be plain names");
			return -1;
		}
		ks = (const char *)k->data.scalar.value;
		snprintf(kp, sizeof(kp), "%s%s%s", path, path[0] ? "." : "", ks);
		for (q = map->data.mapping.pairs.start; q < pair; q++) {
			yaml_node_t *k2 = yaml_document_get_node(p->doc, q->key);

			if (k2->type == YAML_SCALAR_NODE &&
			    strcmp((const char *)k2->data.scalar.value, ks) == 0) {
				perr(p, k, kp, "given twice (first at line %zu)",
				     k2->start_mark.line + 1);
				return -1;
			}
		}
		for (i = 0; keys[i] != NULL; i++)
			if (strcmp(keys[i], ks) == 0)
				break;
		if (keys[i] == NULL) {
			char list[256] = "";

			for (i = 0; keys[i] != NULL; i++) {
				strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
				strncat(list, keys[i], sizeof(list) - strlen(list) - 1);
			}
			perr(p, k, kp, "unknown key (expected one of: %s)", list);
			return -1;
		}
		if (fn(p, ks, v, kp, arg) < 0)
			return -1;
	}
	return 0;
}

static yaml_node_t *
map_get(struct pctx *p, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *pair;

	if (map->type != YAML_MAPPING_NODE)
		return NULL;
	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, pair->key);

		if (k->type == YAML_SCALAR_NODE &&
		    strcmp((const char *)k->data.scalar.value, key) == 0)
			return yaml_document_get_node(p->doc, pair->value);
	}
	return NULL;
}

/* ---- sections ---- */

static int
eal_key(struct pctx *p, const char *k, yaml_node_t *v, const char *kp, void *arg)
{
	struct uf_config *cfg = arg;

	if (strcmp(k, "lcores") == 0) {
		uint16_t ids[RTE_MAX_LCORE];
		int n;

		if (get_str(p, v, kp, cfg->eal.lcores, sizeof(cfg->eal.lcores)) < 0)
			return -1;
		n = uf_parse_lcore_list(cfg->eal.lcores, ids, RTE_MAX_LCORE);
		if (n < 0) {
			perr(p, v, kp,
			     "\"%s\" is not an lcore list such as \"0-2\", \"0,2,4\" or "
			     "\"0@0,1@0,2@1\"",
			     cfg->eal.lcores);
			return -1;
		}
		if (n < 2) {
			perr(p, v, kp,
			     "\"%s\" names %d lcore; udpfan needs a main lcore and at "
			     "least one worker",
			     cfg->eal.lcores, n);
			return -1;
		}
		if (n - 1 > UF_MAX_WORKERS) {
			perr(p, v, kp, "%d workers; at most %d", n - 1, UF_MAX_WORKERS);
			return -1;
		}
		return 0;
	}
	if (strcmp(k, "file_prefix") == 0) {
		const char *c;

		if (get_str(p, v, kp, cfg->eal.file_prefix, sizeof(cfg->eal.file_prefix)) < 0)
			return -1;
		for (c = cfg->eal.file_prefix; *c != '\0'; c++) {
			if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-') {
				perr(p, v, kp, "may hold only letters, digits, '_' and '-'");
				return -1;
			}
		}
		if (cfg->eal.file_prefix[0] == '\0') {
			perr(p, v, kp, "must not be empty");
			return -1;
		}
		return 0;
	}
	if (strcmp(k, "in_memory") == 0)
		return get_bool(p, v, kp, &cfg->eal.in_memory);
	if (strcmp(k, "no_huge") == 0)
		return get_bool(p, v, kp, &cfg->eal.no_huge);
	if (strcmp(k, "memory_mb") == 0)
		return GET_UINT(p, v, kp, 16, 1u << 20, cfg->eal.memory_mb);
	if (strcmp(k, "extra_args") == 0) {
		yaml_node_item_t *it;
		int i = 0;

		if (v->type != YAML_SEQUENCE_NODE) {
			perr(p, v, kp, "expected a list of strings");
			return -1;
		}
		cfg->eal.n_extra = (int)(v->data.sequence.items.top - v->data.sequence.items.start);
		cfg->eal.extra_args = calloc(cfg->eal.n_extra + 1, sizeof(char *));
		if (cfg->eal.extra_args == NULL)
			return -1;
		for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
			yaml_node_t *s = yaml_document_get_node(p->doc, *it);
			const char *sv = scalar(p, s, kp);

			if (sv == NULL)
				return -1;
			cfg->eal.extra_args[i] = strdup(sv);
			if (cfg->eal.extra_args[i++] == NULL)
				return -1;
		}
		return 0;
	}
	return -1;
}

static const char *const eal_keys[] = { "lcores",    "file_prefix", "in_memory", "no_huge",
					"memory_mb", "extra_args",  NULL };

static int
port_key(struct pctx *p, const char *k, yaml_node_t *v, const char *kp, void *arg)
{
	struct uf_cfg_port *port = arg;

	if (strcmp(k, "name") == 0) {
		if (get_str(p, v, kp, port->name, sizeof(port->name)) < 0)
			return -1;
		if (!name_ok(port->name)) {
			perr(p, v, kp, "\"%s\": use letters, digits and '_' only", port->name);
			return -1;
		}
		return 0;
	}
	if (strcmp(k, "device") == 0) {
		size_t n;

		if (get_str(p, v, kp, port->device, sizeof(port->device)) < 0)
			return -1;
		port->device_pos = pos_of(v);
		if (port->device[0] == '\0') {
			perr(p, v, kp, "must not be empty");
			return -1;
		}
		port->is_pci = uf_is_pci_addr(port->device, port->dev_name, sizeof(port->dev_name));
		if (!port->is_pci) {
			n = strcspn(port->device, ",");
			if (!isalpha((unsigned char)port->device[0])) {
				perr(p, v, kp,
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
	if (strcmp(k, "ip") == 0) {
		const char *s = scalar(p, v, kp);

		if (s == NULL)
			return -1;
		if (uf_parse_ipv4_prefix(s, &port->ip, &port->prefix_len) < 0) {
			perr(p, v, kp,
			     "\"%s\" is not an IPv4 address with a prefix length "
			     "(10.0.0.10/24)",
			     s);
			return -1;
		}
		if (port->prefix_len == 0 || port->prefix_len > 31) {
			perr(p, v, kp, "prefix length /%u leaves no neighbours; use /1../31",
			     port->prefix_len);
			return -1;
		}
		return 0;
	}
	if (strcmp(k, "gateway") == 0) {
		port->has_gateway = true;
		port->gateway_pos = pos_of(v);
		return get_ipv4(p, v, kp, &port->gateway);
	}
	if (strcmp(k, "mtu") == 0)
		return GET_UINT(p, v, kp, 68, 16000, port->mtu);
	if (strcmp(k, "rx_desc") == 0)
		return GET_UINT(p, v, kp, 32, 32768, port->rx_desc);
	if (strcmp(k, "tx_desc") == 0)
		return GET_UINT(p, v, kp, 32, 32768, port->tx_desc);
	if (strcmp(k, "mbufs") == 0)
		return GET_UINT(p, v, kp, 63, 16u << 20, port->mbufs);
	return -1;
}

static const char *const port_keys[] = { "name",    "device",  "ip",    "gateway", "mtu",
					 "rx_desc", "tx_desc", "mbufs", NULL };

struct dest_arg {
	struct uf_config *cfg;
	struct uf_cfg_dest *d;
	yaml_node_t *port_node;
};

static int
dest_key(struct pctx *p, const char *k, yaml_node_t *v, const char *kp, void *arg)
{
	struct dest_arg *a = arg;
	struct uf_cfg_dest *d = a->d;

	if (strcmp(k, "ip") == 0)
		return get_ipv4(p, v, kp, &d->ip);
	if (strcmp(k, "udp_port") == 0)
		return GET_UINT(p, v, kp, 1, 65535, d->udp_port);
	if (strcmp(k, "mac") == 0) {
		const char *s = scalar(p, v, kp);

		if (s == NULL)
			return -1;
		if (uf_parse_mac(s, &d->mac) < 0) {
			perr(p, v, kp, "\"%s\" is not a MAC address (02:00:00:00:00:21)", s);
			return -1;
		}
		if (!rte_is_unicast_ether_addr(&d->mac) || rte_is_zero_ether_addr(&d->mac)) {
			perr(p, v, kp, "\"%s\" is not a unicast MAC address", s);
			return -1;
		}
		d->has_mac = true;
		return 0;
	}
	if (strcmp(k, "port") == 0) {
		if (scalar(p, v, kp) == NULL)
			return -1;
		a->port_node = v; /* resolved once every port is known */
		return 0;
	}
	if (strcmp(k, "source") == 0) {
		const char *s = scalar(p, v, kp);

		if (s == NULL)
			return -1;
		if (strcmp(s, "ours") == 0) {
			d->source = UF_SRC_OURS;
		} else if (strcmp(s, "original") == 0) {
			d->source = UF_SRC_ORIGINAL;
		} else if (uf_parse_ipv4(s, &d->source_ip) == 0) {
			d->source = UF_SRC_FIXED;
		} else {
			perr(p, v, kp, "\"%s\": expected ours, original or an IPv4 address", s);
			return -1;
		}
		return 0;
	}
	if (strcmp(k, "sample") == 0)
		return GET_UINT(p, v, kp, 1, 1000000, d->sample);
	if (strcmp(k, "ttl") == 0)
		return GET_UINT(p, v, kp, 1, 255, d->ttl);
	return -1;
}

static const char *const dest_keys[] = { "ip",     "udp_port", "mac", "port",
					 "source", "sample",   "ttl", NULL };

static int
rule_key(struct pctx *p, const char *k, yaml_node_t *v, const char *kp, void *arg)
{
	struct uf_cfg_rule *r = arg;

	if (strcmp(k, "from") == 0) {
		const char *s = scalar(p, v, kp);
		uint32_t mask;

		if (s == NULL)
			return -1;
		if (uf_parse_ipv4_prefix(s, &r->prefix, &r->len) < 0) {
			perr(p, v, kp, "\"%s\" is not an IPv4 prefix (192.0.2.0/24)", s);
			return -1;
		}
		mask = r->len == 0 ? 0 : ~0u << (32 - r->len);
		if ((rte_be_to_cpu_32(r->prefix) & ~mask) != 0) {
			struct in_addr net = {
				.s_addr = rte_cpu_to_be_32(rte_be_to_cpu_32(r->prefix) & mask)
			};

			perr(p, v, kp, "\"%s\" has host bits set; did you mean %s/%u?", s,
			     inet_ntoa(net), r->len);
			return -1;
		}
		return 0;
	}
	if (strcmp(k, "to") == 0) {
		yaml_node_item_t *it;
		ptrdiff_t n;
		int i = 0, j;

		if (v->type != YAML_SEQUENCE_NODE ||
		    v->data.sequence.items.top == v->data.sequence.items.start) {
			perr(p, v, kp, "expected a non-empty list of destination indexes");
			return -1;
		}
		n = v->data.sequence.items.top - v->data.sequence.items.start;
		/* each index at most once, so no more than there can be destinations; checked
		 * before n_to (16 bits) and the allocations are sized by it */
		if (n > UF_MAX_DESTS) {
			perr(p, v, kp, "%td destination indexes: at most %d (each once)", n,
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

			if (GET_UINT(p, s, kp, 0, UF_MAX_DESTS - 1, r->to[i]) < 0)
				return -1;
			r->to_pos[i] = pos_of(s);
			for (j = 0; j < i; j++) {
				if (r->to[j] == r->to[i]) {
					perr(p, s, kp, "destination %u listed twice", r->to[i]);
					return -1;
				}
			}
			i++;
		}
		return 0;
	}
	return -1;
}

static const char *const rule_keys[] = { "from", "to", NULL };

static int
fwd_key(struct pctx *p, const char *k, yaml_node_t *v, const char *kp, void *arg)
{
	struct uf_config *cfg = arg;
	const char *s;

	if (strcmp(k, "udp_checksum") == 0) {
		if ((s = scalar(p, v, kp)) == NULL)
			return -1;
		if (strcmp(s, "compute") == 0)
			cfg->fwd.udp_checksum = UF_CKSUM_COMPUTE;
		else if (strcmp(s, "zero") == 0)
			cfg->fwd.udp_checksum = UF_CKSUM_ZERO;
		else {
			perr(p, v, kp, "\"%s\": expected compute or zero", s);
			return -1;
		}
		return 0;
	}
	if (strcmp(k, "source_port") == 0) {
		if ((s = scalar(p, v, kp)) == NULL)
			return -1;
		if (strcmp(s, "keep") == 0) {
			cfg->fwd.keep_source_port = true;
			return 0;
		}
		cfg->fwd.keep_source_port = false;
		if (!isdigit((unsigned char)s[0])) {
			perr(p, v, kp, "\"%s\": expected keep or a UDP port number", s);
			return -1;
		}
		return GET_UINT(p, v, kp, 1, 65535, cfg->fwd.source_port);
	}
	if (strcmp(k, "burst") == 0)
		return GET_UINT(p, v, kp, 1, UF_MAX_BURST, cfg->fwd.burst);
	if (strcmp(k, "fanout") == 0) {
		if ((s = scalar(p, v, kp)) == NULL)
			return -1;
		if (strcmp(s, "auto") == 0)
			cfg->fwd.fanout = UF_FANOUT_AUTO;
		else if (strcmp(s, "copy") == 0)
			cfg->fwd.fanout = UF_FANOUT_COPY;
		else if (strcmp(s, "chain") == 0)
			cfg->fwd.fanout = UF_FANOUT_CHAIN;
		else {
			perr(p, v, kp, "\"%s\": expected auto, copy or chain", s);
			return -1;
		}
		return 0;
	}
	if (strcmp(k, "chain_min_payload") == 0)
		return GET_UINT(p, v, kp, 0, 65535, cfg->fwd.chain_min_payload);
	if (strcmp(k, "drain_us") == 0)
		return GET_UINT(p, v, kp, 1, 100000, cfg->fwd.drain_us);
	if (strcmp(k, "tx_retries") == 0)
		return GET_UINT(p, v, kp, 0, 1000, cfg->fwd.tx_retries);
	if (strcmp(k, "tx_stall_ms") == 0)
		return GET_UINT(p, v, kp, 0, 10000, cfg->fwd.tx_stall_ms);
	return -1;
}

static const char *const fwd_keys[] = { "udp_checksum", "source_port",       "burst",
					"fanout",       "chain_min_payload", "drain_us",
					"tx_retries",   "tx_stall_ms",       NULL };

static int
stats_key(struct pctx *p, const char *k, yaml_node_t *v, const char *kp, void *arg)
{
	struct uf_config *cfg = arg;

	if (strcmp(k, "interval_s") == 0) {
		const char *s = scalar(p, v, kp);
		char *end;
		double d;

		if (s == NULL)
			return -1;
		errno = 0;
		d = strtod(s, &end);
		if (errno != 0 || *end != '\0' || end == s || !(d >= 0.1 && d <= 3600)) {
			perr(p, v, kp, "\"%s\": expected seconds between 0.1 and 3600", s);
			return -1;
		}
		cfg->stats.interval_s = d;
		return 0;
	}
	if (strcmp(k, "json") == 0) {
		if (is_null_scalar(v)) {
			cfg->stats.json[0] = '\0';
			return 0;
		}
		return get_str(p, v, kp, cfg->stats.json, sizeof(cfg->stats.json));
	}
	return -1;
}

static const char *const stats_keys[] = { "interval_s", "json", NULL };

static int
arp_key(struct pctx *p, const char *k, yaml_node_t *v, const char *kp, void *arg)
{
	struct uf_config *cfg = arg;

	if (strcmp(k, "reachable_s") == 0)
		return GET_UINT(p, v, kp, 1, 86400, cfg->arp.reachable_s);
	if (strcmp(k, "retry_ms") == 0)
		return GET_UINT(p, v, kp, 10, 60000, cfg->arp.retry_ms);
	if (strcmp(k, "max_probes") == 0)
		return GET_UINT(p, v, kp, 1, 100, cfg->arp.max_probes);
	if (strcmp(k, "gratuitous") == 0)
		return get_bool(p, v, kp, &cfg->arp.gratuitous);
	return -1;
}

static const char *const arp_keys[] = { "reachable_s", "retry_ms", "max_probes", "gratuitous",
					NULL };

static int
control_key(struct pctx *p, const char *k, yaml_node_t *v, const char *kp, void *arg)
{
	struct uf_config *cfg = arg;

	if (strcmp(k, "icmp_rate") == 0)
		return GET_UINT(p, v, kp, 0, 1000000, cfg->control.icmp_rate);
	return -1;
}

static const char *const control_keys[] = { "icmp_rate", NULL };

struct top_arg {
	struct uf_config *cfg;
	yaml_node_t *listen_port; /* resolved after ports */
	yaml_node_t *listen;
	yaml_node_t **dest_port; /* per destination, resolved after ports */
	bool have_ports, have_listen, have_dests;
};

static int
listen_key(struct pctx *p, const char *k, yaml_node_t *v, const char *kp, void *arg)
{
	struct top_arg *t = arg;

	if (strcmp(k, "port") == 0) {
		if (scalar(p, v, kp) == NULL)
			return -1;
		t->listen_port = v;
		return 0;
	}
	if (strcmp(k, "udp_port") == 0)
		return GET_UINT(p, v, kp, 1, 65535, t->cfg->listen.udp_port);
	return -1;
}

static const char *const listen_keys[] = { "port", "udp_port", NULL };

static int
parse_list(struct pctx *p, yaml_node_t *v, const char *kp, int max, int *count)
{
	int n;

	if (v->type != YAML_SEQUENCE_NODE) {
		perr(p, v, kp, "expected a list, got %s", node_type_name(v));
		return -1;
	}
	n = (int)(v->data.sequence.items.top - v->data.sequence.items.start);
	if (n > max) {
		perr(p, v, kp, "%d entries; at most %d", n, max);
		return -1;
	}
	*count = n;
	return 0;
}

static int
top_key(struct pctx *p, const char *k, yaml_node_t *v, const char *kp, void *arg)
{
	struct top_arg *t = arg;
	struct uf_config *cfg = t->cfg;
	yaml_node_item_t *it;
	char ip[64];
	int i;

	if (strcmp(k, "eal") == 0)
		return walk_map(p, v, kp, eal_keys, eal_key, cfg);
	if (strcmp(k, "ports") == 0) {
		if (parse_list(p, v, kp, UF_MAX_PORTS, &cfg->n_ports) < 0)
			return -1;
		t->have_ports = true;
		for (i = 0, it = v->data.sequence.items.start; it < v->data.sequence.items.top;
		     it++, i++) {
			yaml_node_t *pn = yaml_document_get_node(p->doc, *it);
			struct uf_cfg_port *port = &cfg->ports[i];

			snprintf(ip, sizeof(ip), "ports[%d]", i);
			port->pos = pos_of(pn);
			if (walk_map(p, pn, ip, port_keys, port_key, port) < 0)
				return -1;
			if (port->name[0] == '\0' || port->device[0] == '\0' || port->ip == 0) {
				perr(p, pn, ip, "needs %s",
				     port->name[0] == '\0'     ? "a name"
				     : port->device[0] == '\0' ? "a device"
							       : "an ip (10.0.0.10/24)");
				return -1;
			}
		}
		return 0;
	}
	if (strcmp(k, "listen") == 0) {
		t->have_listen = true;
		t->listen = v;
		return walk_map(p, v, kp, listen_keys, listen_key, t);
	}
	if (strcmp(k, "destinations") == 0) {
		if (parse_list(p, v, kp, UF_MAX_DESTS, &cfg->n_dests) < 0)
			return -1;
		t->have_dests = true;
		cfg->dests = calloc(RTE_MAX(cfg->n_dests, 1), sizeof(*cfg->dests));
		t->dest_port = calloc(RTE_MAX(cfg->n_dests, 1), sizeof(*t->dest_port));
		if (cfg->dests == NULL || t->dest_port == NULL)
			return -1;
		for (i = 0, it = v->data.sequence.items.start; it < v->data.sequence.items.top;
		     it++, i++) {
			yaml_node_t *dn = yaml_document_get_node(p->doc, *it);
			struct uf_cfg_dest *d = &cfg->dests[i];
			struct dest_arg a = { .cfg = cfg, .d = d };

			snprintf(ip, sizeof(ip), "destinations[%d]", i);
			d->sample = 1;
			d->ttl = 64;
			d->pos = pos_of(dn);
			if (walk_map(p, dn, ip, dest_keys, dest_key, &a) < 0)
				return -1;
			if (d->ip == 0 || d->udp_port == 0) {
				perr(p, dn, ip, "needs %s", d->ip == 0 ? "an ip" : "a udp_port");
				return -1;
			}
			t->dest_port[i] = a.port_node;
		}
		return 0;
	}
	if (strcmp(k, "rules") == 0) {
		if (parse_list(p, v, kp, UF_MAX_RULES, &cfg->n_rules) < 0)
			return -1;
		cfg->rules = calloc(RTE_MAX(cfg->n_rules, 1), sizeof(*cfg->rules));
		if (cfg->rules == NULL)
			return -1;
		for (i = 0, it = v->data.sequence.items.start; it < v->data.sequence.items.top;
		     it++, i++) {
			yaml_node_t *rn = yaml_document_get_node(p->doc, *it);
			struct uf_cfg_rule *r = &cfg->rules[i];

			snprintf(ip, sizeof(ip), "rules[%d]", i);
			r->pos = pos_of(rn);
			if (walk_map(p, rn, ip, rule_keys, rule_key, r) < 0)
				return -1;
			if (map_get(p, rn, "from") == NULL || r->n_to == 0) {
				perr(p, rn, ip, "needs from and to");
				return -1;
			}
		}
		return 0;
	}
	if (strcmp(k, "forward") == 0)
		return walk_map(p, v, kp, fwd_keys, fwd_key, cfg);
	if (strcmp(k, "stats") == 0)
		return walk_map(p, v, kp, stats_keys, stats_key, cfg);
	if (strcmp(k, "arp") == 0)
		return walk_map(p, v, kp, arp_keys, arp_key, cfg);
	if (strcmp(k, "control") == 0)
		return walk_map(p, v, kp, control_keys, control_key, cfg);
	return -1;
}

static const char *const top_keys[] = { "eal",     "ports", "listen", "destinations", "rules",
					"forward", "stats", "arp",    "control",      NULL };

int
uf_config_port_by_name(const struct uf_config *cfg, const char *name)
{
	int i;

	for (i = 0; i < cfg->n_ports; i++)
		if (strcmp(cfg->ports[i].name, name) == 0)
			return i;
	return -1;
}

static bool
in_subnet(rte_be32_t a, rte_be32_t net, uint8_t len)
{
	uint32_t mask = len == 0 ? 0 : ~0u << (32 - len);

	return ((rte_be_to_cpu_32(a) ^ rte_be_to_cpu_32(net)) & mask) == 0;
}

static int
validate(struct pctx *p, yaml_node_t *root, struct top_arg *t)
{
	struct uf_config *cfg = t->cfg;
	char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN], key[64];
	int i, j;

	if (cfg->eal.in_memory && cfg->eal.no_huge) {
		perr(p, root, "eal",
		     "in_memory and no_huge exclude each other in EAL; no_huge "
		     "already keeps nothing in hugetlbfs, drop in_memory");
		return -1;
	}
	if (!t->have_ports || cfg->n_ports == 0) {
		perr(p, root, "ports", "at least one port is required");
		return -1;
	}
	if (!t->have_listen || t->listen_port == NULL || cfg->listen.udp_port == 0) {
		perr(p, t->listen != NULL ? t->listen : root, "listen",
		     "needs port (a port name) and udp_port");
		return -1;
	}
	if (!t->have_dests || cfg->n_dests == 0) {
		perr(p, root, "destinations", "at least one destination is required");
		return -1;
	}

	for (i = 0; i < cfg->n_ports; i++) {
		struct uf_cfg_port *pi = &cfg->ports[i];

		for (j = 0; j < i; j++) {
			struct uf_cfg_port *pj = &cfg->ports[j];

			snprintf(key, sizeof(key), "ports[%d]", i);
			if (strcmp(pi->name, pj->name) == 0) {
				perr_pos(p, &pi->pos, key, "name \"%s\" is also ports[%d]'s",
					 pi->name, j);
				return -1;
			}
			if (strcmp(pi->dev_name, pj->dev_name) == 0) {
				perr_pos(p, &pi->device_pos, key,
					 "device \"%s\" is also ports[%d]'s", pi->dev_name, j);
				return -1;
			}
			if (pi->ip == pj->ip) {
				perr_pos(p, &pi->pos, key, "ip %s is also ports[%d]'s",
					 uf_ip_str(pi->ip, a), j);
				return -1;
			}
		}
		if (pi->has_gateway && !in_subnet(pi->gateway, pi->ip, pi->prefix_len)) {
			snprintf(key, sizeof(key), "ports[%d].gateway", i);
			perr_pos(p, &pi->gateway_pos, key, "%s is not on the port's subnet %s/%u",
				 uf_ip_str(pi->gateway, a), uf_ip_str(pi->ip, b), pi->prefix_len);
			return -1;
		}
	}

	{
		const char *ln = (const char *)t->listen_port->data.scalar.value;
		int idx = uf_config_port_by_name(cfg, ln);

		if (idx < 0) {
			perr(p, t->listen_port, "listen.port", "no port is named \"%s\"", ln);
			return -1;
		}
		cfg->listen.port = (uint16_t)idx;
	}

	for (i = 0; i < cfg->n_dests; i++) {
		struct uf_cfg_dest *d = &cfg->dests[i];
		const struct uf_cfg_port *eg;
		uint32_t hip = rte_be_to_cpu_32(d->ip);

		snprintf(key, sizeof(key), "destinations[%d]", i);
		if (t->dest_port[i] != NULL) {
			const char *pn = (const char *)t->dest_port[i]->data.scalar.value;
			int idx = uf_config_port_by_name(cfg, pn);

			if (idx < 0) {
				snprintf(key, sizeof(key), "destinations[%d].port", i);
				perr(p, t->dest_port[i], key, "no port is named \"%s\"", pn);
				return -1;
			}
			d->port = (uint16_t)idx;
		} else {
			d->port = cfg->listen.port;
		}
		eg = &cfg->ports[d->port];
		if (hip == 0 || hip == 0xffffffff || (hip >> 24) == 127 || (hip >> 28) == 0xf) {
			perr_pos(p, &d->pos, key, "%s cannot be a destination",
				 uf_ip_str(d->ip, a));
			return -1;
		}
		if (uf_ipv4_is_mcast(hip) && d->has_mac) {
			perr_pos(p, &d->pos, key,
				 "%s is multicast: its MAC follows from the address; "
				 "drop the mac key",
				 uf_ip_str(d->ip, a));
			return -1;
		}
		if (d->ip == eg->ip) {
			perr_pos(p, &d->pos, key, "%s is port %s's own address",
				 uf_ip_str(d->ip, a), eg->name);
			return -1;
		}
		if (!uf_ipv4_is_mcast(hip) && !d->has_mac &&
		    !in_subnet(d->ip, eg->ip, eg->prefix_len) && !eg->has_gateway) {
			perr_pos(p, &d->pos, key,
				 "%s is not on port %s's subnet %s/%u and the port has "
				 "no gateway (add ports[].gateway or a static mac)",
				 uf_ip_str(d->ip, a), eg->name, uf_ip_str(eg->ip, b),
				 eg->prefix_len);
			return -1;
		}
		for (j = 0; j < i; j++) {
			const struct uf_cfg_dest *e = &cfg->dests[j];

			if (e->ip == d->ip && e->udp_port == d->udp_port && e->port == d->port &&
			    e->source == d->source && e->source_ip == d->source_ip) {
				perr_pos(p, &d->pos, key, "%s:%u is also destinations[%d]",
					 uf_ip_str(d->ip, a), d->udp_port, j);
				return -1;
			}
		}
	}

	for (i = 0; i < cfg->n_rules; i++) {
		struct uf_cfg_rule *r = &cfg->rules[i];

		snprintf(key, sizeof(key), "rules[%d].to", i);
		for (j = 0; j < r->n_to; j++) {
			if (r->to[j] >= cfg->n_dests) {
				perr_pos(p, &r->to_pos[j], key,
					 "destination %u does not exist (there are %d)", r->to[j],
					 cfg->n_dests);
				return -1;
			}
		}
		snprintf(key, sizeof(key), "rules[%d]", i);
		for (j = 0; j < i; j++) {
			const struct uf_cfg_rule *e = &cfg->rules[j];

			/* First match wins: a rule covered by an earlier one can never match. */
			if (e->len <= r->len && in_subnet(r->prefix, e->prefix, e->len)) {
				perr_pos(p, &r->pos, key,
					 "%s/%u can never match: rules[%d] (%s/%u) "
					 "comes first and covers it",
					 uf_ip_str(r->prefix, a), r->len, j,
					 uf_ip_str(e->prefix, b), e->len);
				return -1;
			}
		}
	}
	return 0;
}

static void
set_defaults(struct uf_config *cfg)
{
	int i;

	snprintf(cfg->eal.file_prefix, sizeof(cfg->eal.file_prefix), "udpfan");
	cfg->fwd.udp_checksum = UF_CKSUM_COMPUTE;
	cfg->fwd.keep_source_port = true;
	cfg->fwd.burst = 32;
	cfg->fwd.fanout = UF_FANOUT_AUTO;
	cfg->fwd.chain_min_payload = UF_CHAIN_MIN_PAYLOAD_DEFAULT;
	cfg->fwd.drain_us = 100;
	cfg->fwd.tx_retries = 8;
	cfg->fwd.tx_stall_ms = 10;
	cfg->stats.interval_s = 1.0;
	cfg->arp.reachable_s = 30;
	cfg->arp.retry_ms = 200;
	cfg->arp.max_probes = 5;
	cfg->arp.gratuitous = true;
	cfg->control.icmp_rate = 100;
	for (i = 0; i < UF_MAX_PORTS; i++) {
		cfg->ports[i].rx_desc = 1024;
		cfg->ports[i].tx_desc = 1024;
	}
}

struct uf_config *
uf_config_parse(const char *text, size_t len, const char *name, struct uf_err *err)
{
	struct uf_config *cfg = calloc(1, sizeof(*cfg));
	yaml_parser_t parser;
	yaml_document_t doc;
	struct top_arg t = { .cfg = cfg };
	struct pctx p = { .name = name, .doc = &doc, .err = err };
	yaml_node_t *root;
	int rc = -1;

	if (cfg == NULL) {
		uf_err_set(err, UF_EXIT_OTHER, "out of memory");
		return NULL;
	}
	snprintf(cfg->path, sizeof(cfg->path), "%s", name);
	set_defaults(cfg);
	if (!yaml_parser_initialize(&parser)) {
		uf_err_set(err, UF_EXIT_OTHER, "libyaml: cannot initialise a parser");
		free(cfg);
		return NULL;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		uf_err_set(err, UF_EXIT_CONFIG, "%s:%zu:%zu: YAML: %s%s%s", name,
			   parser.problem_mark.line + 1, parser.problem_mark.column + 1,
			   parser.problem != NULL ? parser.problem : "syntax error",
			   parser.context != NULL ? " " : "",
			   parser.context != NULL ? parser.context : "");
		yaml_parser_delete(&parser);
		uf_config_free(cfg);
		return NULL;
	}
	root = yaml_document_get_root_node(&doc);
	if (root == NULL) {
		uf_err_set(err, UF_EXIT_CONFIG, "%s:1:1: config: the file is empty", name);
	} else if (walk_map(&p, root, "", top_keys, top_key, &t) == 0 &&
		   validate(&p, root, &t) == 0) {
		rc = 0;
	} else if (!p.failed) {
		uf_err_set(err, UF_EXIT_OTHER, "out of memory while parsing %s", name);
	}
	free(t.dest_port);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (rc < 0) {
		uf_config_free(cfg);
		return NULL;
	}
	return cfg;
}

struct uf_config *
uf_config_load(const char *path, struct uf_err *err)
{
	struct uf_config *cfg;
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (f == NULL) {
		uf_err_set(err, UF_EXIT_CONFIG, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0 ||
	    n > (16 << 20)) {
		uf_err_set(err, UF_EXIT_CONFIG, "%s: cannot read (or larger than 16 MiB)", path);
		fclose(f);
		return NULL;
	}
	buf = malloc(n + 1);
	if (buf == NULL || fread(buf, 1, n, f) != (size_t)n) {
		uf_err_set(err, UF_EXIT_CONFIG, "%s: cannot read: %s", path, strerror(errno));
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	cfg = uf_config_parse(buf, n, path, err);
	free(buf);
	return cfg;
}

void
uf_config_free(struct uf_config *cfg)
{
	int i;

	if (cfg == NULL)
		return;
	for (i = 0; i < cfg->eal.n_extra; i++)
		free(cfg->eal.extra_args[i]);
	free(cfg->eal.extra_args);
	for (i = 0; i < cfg->n_rules; i++) {
		free(cfg->rules[i].to);
		free(cfg->rules[i].to_pos);
	}
	free(cfg->rules);
	free(cfg->dests);
	free(cfg);
}

int
uf_config_worker_count(const struct uf_config *cfg)
{
	uint16_t ids[RTE_MAX_LCORE];
	int n;

	if (cfg->eal.lcores[0] == '\0')
		return 1;
	n = uf_parse_lcore_list(cfg->eal.lcores, ids, RTE_MAX_LCORE);
	return n < 2 ? -1 : n - 1;
}
