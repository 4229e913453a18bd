/* SPDX-License-Identifier: BSD-3-Clause
 * The log tap (uf_logtap.h): DPDK's log stream, redirected while a port is set up and
 * started, every line passed on unchanged.
 */
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include <rte_common.h>
#include <rte_log.h>

#include "uf_logtap.h"

/*
 * The EAL log, passed through unchanged while a port is set up and started, keeping the first
 * line logged at ERR or worse: virtio_user's configure and start return 0 where the device
 * failed to start and only the log says so (docs/pmd-quirks.md, "vhost-user and memif").
 */
struct log_tap {
	FILE *prev;
	FILE *f;
	char first_err[200];
};

static struct log_tap tap;

static ssize_t
tap_write(void *c, const char *buf, size_t len)
{
	struct log_tap *t = c;

	if (t->first_err[0] == '\0' && rte_log_cur_msg_loglevel() <= (int)RTE_LOG_ERR) {
		size_t n = RTE_MIN(len, sizeof(t->first_err) - 1);

		memcpy(t->first_err, buf, n);
		while (n > 0 && (t->first_err[n - 1] == '\n' || t->first_err[n - 1] == ' '))
			n--;
		t->first_err[n] = '\0';
	}
	return (ssize_t)fwrite(buf, 1, len, t->prev);
}

void
uf_logtap_begin(void)
{
	cookie_io_functions_t io = { .write = tap_write };

	memset(&tap, 0, sizeof(tap));
	tap.prev = rte_log_get_stream();
	tap.f = fopencookie(&tap, "w", io);
	if (tap.f == NULL)
		return;
	setvbuf(tap.f, NULL, _IOLBF, 0);
	rte_openlog_stream(tap.f);
}

void
uf_logtap_end(char *first_err, size_t len)
{
	if (tap.f == NULL)
		return;
	fflush(tap.f);
	rte_openlog_stream(tap.prev);
	fclose(tap.f);
	tap.f = NULL;
	if (first_err[0] == '\0' && tap.first_err[0] != '\0')
		snprintf(first_err, len, "%s", tap.first_err);
}
