/* SPDX-License-Identifier: BSD-3-Clause
 * udpfan: things every module needs: the log type, limits, small helpers.
 */
#ifndef UF_COMMON_H
#define UF_COMMON_H

#include <stdint.h>
#include <stdbool.h>

#include <netinet/in.h> /* INET_ADDRSTRLEN */

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_log.h>
#include <rte_version.h>

/* One registered log type for the whole program: --log-level=user.udpfan:debug */
extern int uf_logtype;
#define RTE_LOGTYPE_UDPFAN uf_logtype

#define UF_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, uf_logtype, "udpfan: " fmt "\n", ##__VA_ARGS__)

/* Limits. Ports are bounded by the Debian build's RTE_MAX_ETHPORTS (32). */
#define UF_MAX_PORTS 16
#define UF_MAX_WORKERS 64
#define UF_MAX_DESTS 256
/* listeners: at most this many (a listener index fits the classifier's uint8_t maps) */
#define UF_MAX_LISTENERS 16
#define UF_MAX_RULES 4096
#define UF_MAX_BURST 64
/* vector RX (i40e, ixgbe, ice, iavf, mlx5) rounds a burst down to a multiple of 4 */
#define UF_MIN_BURST 4
#define UF_NAME_MAX 32
#define UF_DEVSTR_MAX 256
/* Each worker's two control rings (worker → control, control → worker) hold this many
 * frames; the port's mbuf pool is sized for both being full (lib/port, lib/fwd). */
#define UF_CTL_RING_SIZE 1024

/* An IPv6 address in network byte order (docs/configuration.md#ipv6). */
struct uf_ip6 {
	uint8_t b[16];
};
/* IPv6 addresses a port may hold (ports[].ip6) */
#define UF_MAX_PORT_IP6 4
/* service addresses a port may carry, both families together (ports[].service) */
#define UF_MAX_PORT_SVC 8

/* An IPv4 multicast (class D, 224.0.0.0/4) address, in host order. Not RTE_IS_IPV4_MCAST:
 * in DPDK 22.11 its RTE_IPV4(224, 0, 0, 0) shifts 224 << 24 as a signed int, undefined
 * behaviour that UBSan reports. */
static inline bool
uf_ipv4_is_mcast(uint32_t host_ip)
{
	return (host_ip >> 28) == 0xe;
}

/* Portable relaxed load/store of a single-writer counter (22.11 has no rte_stdatomic.h). */
#define UF_LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define UF_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

/* Exit codes of the udpfan program (docs/configuration.md#exit-codes). */
enum uf_exit {
	UF_EXIT_OK = 0,
	UF_EXIT_OTHER = 1,
	UF_EXIT_CONFIG = 2,
	UF_EXIT_ENV = 3,
};

/* An error that stops start-up: the text of the one `udpfan: error:` line, and its exit code. */
struct uf_err {
	int code;
	char msg[512];
};

/* Dotted quad of a network-order address into buf (INET_ADDRSTRLEN bytes); returns buf. */
const char *uf_ip_str(rte_be32_t ip, char *buf);

void uf_err_set(struct uf_err *err, int code, const char *fmt, ...) __rte_format_printf(3, 4);

#endif /* UF_COMMON_H */
