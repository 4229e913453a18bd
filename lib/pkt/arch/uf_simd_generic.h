/* SPDX-License-Identifier: BSD-3-Clause
 * The data path without a vector unit (another architecture, or meson's simd=false:
 * docs/testing.md#scalar): scalar code gives the same verdicts and bytes.
 */
#ifndef UF_SIMD_GENERIC_H
#define UF_SIMD_GENERIC_H

#define UF_DP_SIMD 0

#define UF_DP_PAT_ARCH
#define UF_HDR_DG_ARCH

#endif /* UF_SIMD_GENERIC_H */
