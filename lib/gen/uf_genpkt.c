/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>

#include <rte_ip.h>
#include <rte_udp.h>

#include "uf_genpkt.h"

int
uf_gen_tmpl_build(struct uf_gen_tmpl *t, const struct uf_gen_spec *s)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)t->frame;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(t->frame + RTE_ETHER_HDR_LEN);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(t->frame + RTE_ETHER_HDR_LEN + 20);
	uint8_t *pl = t->frame + UF_HDR_LEN;
	uint32_t sum;
	uint16_t i;

	if (s->payload < uf_gen_min_payload(s) || s->payload > UF_GEN_MAX_PAYLOAD)
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	t->payload = s->payload;
	t->seq_off = s->netflow_v5 ? UF_GEN_NF5_HDR : 0;
	t->stamp_off = s->stamp ? (uint16_t)(t->seq_off + 8) : 0;
	t->nf5 = s->netflow_v5;
	t->sport = s->sport;
	t->frame_len = (uint16_t)RTE_MAX(UF_HDR_LEN + s->payload, UF_MIN_FRAME);

	rte_ether_addr_copy(&s->dst_mac, &eth->dst_addr);
	rte_ether_addr_copy(&s->src_mac, &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);

	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = 0;
	ip->total_length = rte_cpu_to_be_16(20 + 8 + s->payload);
	ip->packet_id = 0;
	ip->fragment_offset = rte_cpu_to_be_16(UF_IP_DF);
	ip->time_to_live = UF_GEN_TTL;
	ip->next_proto_id = IPPROTO_UDP;
	ip->hdr_checksum = 0;
	ip->src_addr = s->src_ip;
	ip->dst_addr = s->dst_ip;
	t->ip_base = rte_raw_cksum(ip, 20);

	udp->src_port = 0;
	udp->dst_port = rte_cpu_to_be_16(s->dport);
	udp->dgram_len = rte_cpu_to_be_16(8 + s->payload);
	udp->dgram_cksum = 0;
	/* filler: byte k of the payload is k (mod 256) after the sequence number (and the
	 * timestamp, 0 until stamped) */
	for (i = uf_gen_min_payload(s); i < s->payload; i++)
		pl[i] = (uint8_t)i;
	if (s->netflow_v5) {
		/* version 5, count 0 (no flow records: nfacctd's tee forwards the datagram
		 * whole and reads no record), uptime/secs/nsecs 0, flow_sequence per frame
		 * (uf_gen_write), engine type/id 0, sampling 0 */
		memset(pl, 0, UF_GEN_NF5_HDR);
		pl[1] = 5;
	}
	/* padding to 60 bytes stays zero and outside every length and checksum */

	sum = rte_raw_cksum(udp, 8 + s->payload);
	sum = uf_ck_add32(sum, s->src_ip);
	sum = uf_ck_add32(sum, s->dst_ip);
	sum += rte_cpu_to_be_16(IPPROTO_UDP);
	sum += udp->dgram_len;
	t->udp_base = sum;
	return 0;
}
