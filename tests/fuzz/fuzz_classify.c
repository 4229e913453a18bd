/* SPDX-License-Identifier: BSD-3-Clause
 * Fuzz the frame classifiers, differentially: the worker's fast test (uf_classify_dp) and
 * the reason-by-reason walk (uf_classify_full) must give the same verdict, the same drop
 * reason and the same datagram facts for every frame (uf_pkt.h promises "same verdicts,
 * same counters, either way"; docs/testing.md#fuzzing). A difference aborts.
 *
 * Input: byte 0 picks the mbuf's RX checksum flags, whether the port listens and its MTU
 * (bit 5 clear: 1500, so that frames can pass the fast test; set: unknown); the rest
 * is the frame, in a buffer of exactly its length so that any read past it is caught by
 * ASan. The port is the test bed's: 02:18:00:00:00:10, 198.18.0.10, UDP 5000.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf_core.h>

#include "uf_pkt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint64_t ip_ck[4] = { RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN, RTE_MBUF_F_RX_IP_CKSUM_BAD,
				   RTE_MBUF_F_RX_IP_CKSUM_GOOD, RTE_MBUF_F_RX_IP_CKSUM_NONE };
static const uint64_t l4_ck[4] = { RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN, RTE_MBUF_F_RX_L4_CKSUM_BAD,
				   RTE_MBUF_F_RX_L4_CKSUM_GOOD, RTE_MBUF_F_RX_L4_CKSUM_NONE };

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uf_port_id port = {
		.mac = { { 0x02, 0x18, 0x00, 0x00, 0x00, 0x10 } },
		.ip = rte_cpu_to_be_32(0xc612000a), /* 198.18.0.10 */
		.listen_udp = rte_cpu_to_be_16(5000),
	};
	struct uf_rx_info a, b;
	enum uf_drop ra = UF_DROP_MALFORMED, rb = UF_DROP_MALFORMED;
	enum uf_verdict va, vb, vw;
	uint64_t rx_ck;
	uint8_t *f;
	size_t len;

	if (size < 1)
		return 0;
	rx_ck = ip_ck[data[0] & 3] | l4_ck[(data[0] >> 2) & 3];
	port.listen = (data[0] & 0x10) == 0;
	port.max_len = uf_port_max_len((data[0] & 0x20) == 0 ? 1500 : 0);
	/* verdicts the port does not believe: the fast test and the careful path alike */
	port.rx_ck_ignore = ((data[0] & 0x40) ? RTE_MBUF_F_RX_IP_CKSUM_MASK : 0) |
			    ((data[0] & 0x80) ? RTE_MBUF_F_RX_L4_CKSUM_MASK : 0);
	len = size - 1;
	f = malloc(len > 0 ? len : 1);
	if (f == NULL)
		return 0;
	memcpy(f, data + 1, len);

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	va = uf_classify_dp(f, (uint32_t)len, rx_ck, &port, &a, &ra);
	vb = uf_classify_full(f, (uint32_t)len, rx_ck, &port, &b, &rb);
	if (va != vb)
		abort();
	if (va == UF_V_DROP && ra != rb)
		abort();
	if (va == UF_V_FORWARD) {
		if (memcmp(&a, &b, sizeof(a)) != 0)
			abort();
		/* the payload lies inside the frame */
		if ((size_t)a.payload_off + a.payload_len > len)
			abort();
	}
	if (va == UF_V_DROP && (unsigned int)ra >= UF_DROP_MAX)
		abort();
	/* the out-of-line wrapper the control plane and tests use says the same */
	memset(&a, 0, sizeof(a));
	vw = uf_classify(f, (uint32_t)len, rx_ck, &port, &a, &ra);
	if (vw != vb || (vw == UF_V_DROP && ra != rb))
		abort();
	free(f);
	return 0;
}
