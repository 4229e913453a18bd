/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stdio.h>
#include <arpa/inet.h>

#include "uf_common.h"

RTE_LOG_REGISTER(uf_logtype, user.udpfan, INFO);

void
uf_err_set(struct uf_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

const char *
uf_ip_str(rte_be32_t ip, char *buf)
{
	struct in_addr a = { .s_addr = ip };

	if (inet_ntop(AF_INET, &a, buf, INET_ADDRSTRLEN) == NULL)
		buf[0] = '\0';
	return buf;
}
