/* SPDX-License-Identifier: BSD-3-Clause
 * The log tap (uf_logtap.h): DPDK's log stream, redirected while a port is set up and
 * started, every line passed on unchanged. Where DPDK's log goes afterwards, and how it
 * prints a line (--log-timestamp, --log-color from 24.11), is what it was before the tap:
 * uf_compat.h, UF_OPENLOG_RESETS_FORMAT.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include <rte_common.h>
#include <rte_log.h>

#include "uf_common.h"
#include "uf_compat.h"
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
#if UF_OPENLOG_RESETS_FORMAT
	/* DPDK prints to stderr (the stream it returns when none was set) with the format
	 * rte_eal_init chose; any other stream is its own (syslog, the journal), which
	 * replacing would close: left alone, untapped */
	if (tap.prev != stderr) {
		static bool said;

		if (!said)
			UF_LOG(NOTICE,
			       "DPDK logs to syslog or the journal: its log is not tapped at port "
			       "start, so a failure a PMD only logs there (start_err_in_log) is "
			       "not caught");
		said = true;
		return;
	}
#endif
	tap.f = fopencookie(&tap, "w", io);
	if (tap.f == NULL)
		return;
	setvbuf(tap.f, NULL, _IOLBF, 0);
#if UF_OPENLOG_RESETS_FORMAT
	/* stderr itself, which rte_log_get_stream() reads at every line: the print function,
	 * and with it the timestamp and colour, stays DPDK's (glibc's stderr is a variable) */
	stderr = tap.f;
	if (rte_log_get_stream() != tap.f) { /* a stream was set after all: untapped */
		stderr = tap.prev;
		fclose(tap.f);
		tap.f = NULL;
	}
#else
	rte_openlog_stream(tap.f);
#endif
}

void
uf_logtap_end(char *first_err, size_t len)
{
	if (tap.f == NULL)
		return;
	fflush(tap.f);
#if UF_OPENLOG_RESETS_FORMAT
	stderr = tap.prev;
#else
	rte_openlog_stream(tap.prev);
#endif
	fclose(tap.f);
	tap.f = NULL;
	if (first_err[0] == '\0' && tap.first_err[0] != '\0')
		snprintf(first_err, len, "%s", tap.first_err);
}
