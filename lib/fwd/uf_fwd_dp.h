/* SPDX-License-Identifier: BSD-3-Clause
 * The per-packet path. Only uf_fwd.c and the benches include this.
 *
 * No locks, no syscalls, no heap: the worker writes its own counters and buffers, reads the
 * plan it loaded at the top of the pass, and allocates only from mempools (per-lcore cache).
 */
#ifndef UF_FWD_DP_H
#define UF_FWD_DP_H

#include <rte_branch_prediction.h>
#include <rte_ethdev.h>
#include <rte_lpm.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>
#include <rte_prefetch.h>

#include "uf_fwd.h"

#include "uf_fanout.h"

#endif /* UF_FWD_DP_H */
