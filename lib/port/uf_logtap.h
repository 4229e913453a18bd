/* SPDX-License-Identifier: BSD-3-Clause
 * The log tap: the EAL log, passed through unchanged while a port is set up and started,
 * keeping the first line logged at ERR or worse: virtio_user's configure and start return 0
 * where the device failed to start and only the log says so (docs/pmd-quirks.md,
 * "vhost-user and memif"). One tap at a time, on the control thread.
 */
#ifndef UF_LOGTAP_H
#define UF_LOGTAP_H

#include <stddef.h>

/* Start the tap: DPDK's log goes through it to the stream it went to before. */
void uf_logtap_begin(void);

/* End it: DPDK's log goes where it went before the tap. Its first ERR line goes into
 * first_err (len bytes) if first_err is empty. Nothing without a tap begun. */
void uf_logtap_end(char *first_err, size_t len);

#endif /* UF_LOGTAP_H */
