/* SPDX-License-Identifier: BSD-3-Clause
 * sd_notify for udpfan@.service (uf_notify.h, docs/deployment.md "systemd"). Each call is a
 * datagram to $NOTIFY_SOCKET at most, made by the control lcore at a state change.
 */
#include <stdio.h>

#ifdef UF_HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "uf_common.h"
#include "uf_notify.h"

/* sd_notify: > 0 sent, 0 not under a service manager ($NOTIFY_SOCKET unset), < 0 error */
static int
notify(const char *state)
{
#ifdef UF_HAVE_LIBSYSTEMD
	return sd_notify(0, state);
#else
	(void)state;
	return 0;
#endif
}

void
uf_notify_ready(const char *status)
{
	char msg[256];
	int rc;

	snprintf(msg, sizeof(msg), "READY=1\nSTATUS=ready: %s", status);
	rc = notify(msg);
	if (rc > 0)
		UF_LOG(NOTICE, "ready: %s (told the service manager)", status);
	else if (rc < 0)
		UF_LOG(WARNING, "ready: %s; sd_notify failed (%d)", status, rc);
	else
		UF_LOG(NOTICE, "ready: %s", status);
}

void
uf_notify_status(const char *status)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "STATUS=%s", status);
	notify(msg);
}

void
uf_notify_reloading(void)
{
	notify("RELOADING=1\nSTATUS=reloading the config");
}

void
uf_notify_stopping(void)
{
	notify("STOPPING=1\nSTATUS=stopping: draining the workers");
}
