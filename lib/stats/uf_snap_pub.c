/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>

#include "uf_snap_pub.h"

void
uf_snap_pub_init(struct uf_snap_pub *pub)
{
	pthread_mutex_init(&pub->lock, NULL);
	pub->ready = false;
}

void
uf_snap_pub_put(struct uf_snap_pub *pub, const struct uf_snap *s)
{
	pthread_mutex_lock(&pub->lock);
	pub->snap = *s;
	pub->ready = true;
	pthread_mutex_unlock(&pub->lock);
}

int
uf_snap_pub_get(struct uf_snap_pub *pub, struct uf_snap *out)
{
	int ret = -ENOENT;

	pthread_mutex_lock(&pub->lock);
	if (pub->ready) {
		*out = pub->snap;
		ret = 0;
	}
	pthread_mutex_unlock(&pub->lock);
	return ret;
}

void
uf_snap_pub_fini(struct uf_snap_pub *pub)
{
	pthread_mutex_destroy(&pub->lock);
}
