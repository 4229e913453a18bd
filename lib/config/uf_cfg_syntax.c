/* SPDX-License-Identifier: BSD-3-Clause
 * The small syntax parsers of lib/config, shared with udpfan-gen and udpfan-sink
 * (declared in uf_config.h): IPv4 addresses and prefixes, MAC addresses, PCI addresses,
 * lcore lists. Pure string functions: no YAML, no EAL.
 */
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "uf_config.h"

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

/* "ADDR/LEN": ADDR copied into buf (bufsz), LEN (digits only, at most max) into *len */
static int
split_prefix(const char *s, char *buf, size_t bufsz, unsigned long max, uint8_t *len)
{
	const char *slash = strchr(s, '/');
	char *end;
	unsigned long l;

	if (slash == NULL || (size_t)(slash - s) >= bufsz || !isdigit((unsigned char)slash[1]))
		return -1;
	memcpy(buf, s, slash - s);
	buf[slash - s] = '\0';
	errno = 0;
	l = strtoul(slash + 1, &end, 10);
	if (errno != 0 || *end != '\0' || l > max)
		return -1;
	*len = (uint8_t)l;
	return 0;
}

int
uf_parse_ipv4_prefix(const char *s, rte_be32_t *ip, uint8_t *len)
{
	char buf[32];

	if (split_prefix(s, buf, sizeof(buf), 32, len) < 0)
		return -1;
	return uf_parse_ipv4(buf, ip);
}

int
uf_parse_ipv6(const char *s, struct uf_ip6 *ip)
{
	const char *c;

	/* hex digits, colons and an embedded dotted quad only; a zone (%eth0) is not an address
	 * udpfan can send to from a port */
	if (strchr(s, ':') == NULL)
		return -1;
	for (c = s; *c != '\0'; c++)
		if (!isxdigit((unsigned char)*c) && *c != ':' && *c != '.')
			return -1;
	return inet_pton(AF_INET6, s, ip->b) == 1 ? 0 : -1;
}

int
uf_parse_ipv6_prefix(const char *s, struct uf_ip6 *ip, uint8_t *len)
{
	char buf[INET6_ADDRSTRLEN + 1];

	if (split_prefix(s, buf, sizeof(buf), 128, len) < 0)
		return -1;
	return uf_parse_ipv6(buf, ip);
}

const char *
uf_ip6_str(const struct uf_ip6 *ip, char *buf)
{
	if (inet_ntop(AF_INET6, ip->b, buf, INET6_ADDRSTRLEN) == NULL)
		snprintf(buf, INET6_ADDRSTRLEN, "?");
	return buf;
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
