/* SPDX-License-Identifier: BSD-3-Clause
 * The data path's vector unit on x86 with SSE4.1 (uf_classify.h decides): the types its
 * structures hold. The functions are in uf_classify_x86.h and uf_hdr_x86.h, the scalar
 * fallback beside them (docs/testing.md#scalar).
 */
#ifndef UF_SIMD_X86_H
#define UF_SIMD_X86_H

#include <smmintrin.h>

#define UF_DP_SIMD 1
#define UF_DP_SIMD_LEN 48 /* a frame this long is read as three words */

/* struct uf_dp_pat's: bytes 0..47 of the frame it wants, already masked, and the mask */
#define UF_DP_PAT_ARCH __m128i want[3], mask[3];

/* struct uf_hdr_dg's: a plain copy's header is its template's OR these (zero where the
 * template has a field, the datagram's field where the template has 0): bytes 0-15 (TOS at
 * 15), 16-31 (total length, id), 26-41 (UDP length at 38; ov_sport: and the sender's UDP
 * port at 34, for a template that keeps it). A tagged copy (4 bytes further on): bytes
 * 16-31 (ov_tag: TOS at 19, total length, id) and 30-45 (ov[2], ov_sport: the same offsets
 * in that window) */
/* ck, ck_plain: the checksums' shared parts as 32-bit lanes, ip_sum and u_sum (u_sum_plain),
 * for the template's ip_base and udp_delta loaded as one 64-bit word (uf_hdr_ck2) */
#define UF_HDR_DG_ARCH __m128i ov[3], ov_sport, ov_tag, ck, ck_plain;

#endif /* UF_SIMD_X86_H */
