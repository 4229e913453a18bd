/* SPDX-License-Identifier: BSD-3-Clause
 * The last published stats snapshot, for readers on other threads (DPDK's telemetry threads):
 * the control lcore puts a copy after each stats interval, a reader gets a copy of the latest.
 * A mutex, not a seqlock: a uf_snap is large, readers are rare, and neither side is a worker.
 */
#ifndef UF_SNAP_PUB_H
#define UF_SNAP_PUB_H

#include <pthread.h>
#include <stdbool.h>

#include "uf_stats.h"

struct uf_snap_pub {
	pthread_mutex_t lock;
	bool ready; /* a snapshot has been put */
	struct uf_snap snap;
};

void uf_snap_pub_init(struct uf_snap_pub *pub);

/* Publish a copy of s (control lcore). */
void uf_snap_pub_put(struct uf_snap_pub *pub, const struct uf_snap *s);

/* Copy the latest into out. 0, or -ENOENT before the first put. */
int uf_snap_pub_get(struct uf_snap_pub *pub, struct uf_snap *out);

void uf_snap_pub_fini(struct uf_snap_pub *pub);

#endif /* UF_SNAP_PUB_H */
