/* SPDX-License-Identifier: BSD-3-Clause
 * EAL's argv, built from the config (uf_env.h); the host checks are in uf_envcheck.c.
 */
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uf_env.h"
#include "uf_quirks.h"

static int
push(struct uf_eal_argv *a, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (a->argc >= UF_EAL_MAX_ARGS)
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(a->buf + a->used, sizeof(a->buf) - a->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(a->buf) - a->used)
		return -1;
	a->argv[a->argc++] = a->buf + a->used;
	a->argv[a->argc] = NULL;
	a->used += (size_t)n + 1;
	return 0;
}

/* The first two CPUs we may run on: main lcore and one worker. */
static void
default_lcores(char *buf, size_t len)
{
	cpu_set_t set;
	int cpu, found = 0, first = -1;

	snprintf(buf, len, "0-1");
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return;
	for (cpu = 0; cpu < CPU_SETSIZE && found < 2; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (found++ == 0)
			first = cpu;
		else
			snprintf(buf, len, "%d,%d", first, cpu);
	}
}

/*
 * A vhost-user front end (virtio_user) hands the backend one file descriptor per memory
 * segment file, 8 at most: one file per memory list instead of one per hugepage, unless the
 * operator gave --single-file-segments already, or --legacy-mem, which rules it out (then the
 * port fails to start, saying so: docs/pmd-quirks.md, "vhost-user and memif").
 */
static bool
needs_single_file(const struct uf_config *cfg)
{
	bool need = false;
	int i;

	for (i = 0; i < cfg->n_ports; i++)
		if (!cfg->ports[i].is_pci &&
		    uf_quirk_lookup_vdev(cfg->ports[i].device)->single_file_segs)
			need = true;
	for (i = 0; need && i < cfg->eal.n_extra; i++)
		if (strcmp(cfg->eal.extra_args[i], "--single-file-segments") == 0 ||
		    strcmp(cfg->eal.extra_args[i], "--legacy-mem") == 0)
			need = false;
	return need;
}

/* is key=... one of the device string's devargs? */
static bool
has_devarg(const char *device, const char *key)
{
	size_t n = strlen(key);
	const char *s = strchr(device, ',');

	for (; s != NULL; s = strchr(s + 1, ','))
		if (strncmp(s + 1, key, n) == 0 && s[1 + n] == '=')
			return true;
	return false;
}

/*
 * A vdev whose PMD ignores nb_rx_desc and takes its RX ring size from a devarg (af_packet's
 * framecnt: 512 frames by default, 3.4 ms at 150 kpps) gets ports[].rx_desc there, rounded
 * up to a power of 2 and never below the PMD's default, unless the string sets it already
 * (docs/pmd-quirks.md, rx_ring_devarg).
 */
static int
push_vdev(struct uf_eal_argv *a, const struct uf_cfg_port *p)
{
	const char *key = uf_quirk_lookup_vdev(p->device)->rx_ring_devarg;
	unsigned int n = 512; /* the PMD's own default (DFLT_FRAME_COUNT) */

	if (key == NULL || has_devarg(p->device, key))
		return push(a, "%s", p->device);
	while (n < p->rx_desc)
		n <<= 1;
	return push(a, "%s,%s=%u", p->device, key, n);
}

int
uf_eal_argv_build(const struct uf_config *cfg, const char *prog, struct uf_eal_argv *a,
		  struct uf_err *err)
{
	char lcores[128];
	uint16_t ids[RTE_MAX_LCORE];
	bool any_pci = false;
	int i, r = 0;

	memset(a, 0, sizeof(*a));
	if (cfg->eal.lcores[0] != '\0')
		snprintf(lcores, sizeof(lcores), "%s", cfg->eal.lcores);
	else
		default_lcores(lcores, sizeof(lcores));
	if (uf_parse_lcore_list(lcores, ids, RTE_MAX_LCORE) < 2) {
		uf_err_set(err, UF_EXIT_CONFIG,
			   "%s: eal.lcores: \"%s\" needs a main lcore and a worker", cfg->path,
			   lcores);
		return -1;
	}
	r |= push(a, "%s", prog);
	r |= push(a, strchr(lcores, '@') != NULL ? "--lcores" : "-l");
	r |= push(a, "%s", lcores);
	r |= push(a, "--main-lcore");
	r |= push(a, "%u", ids[0]);
	r |= push(a, "--file-prefix");
	r |= push(a, "%s", cfg->eal.file_prefix);
	if (cfg->eal.in_memory)
		r |= push(a, "--in-memory");
	if (cfg->eal.no_huge)
		r |= push(a, "--no-huge");
	if (cfg->eal.memory_mb != 0) {
		r |= push(a, "-m");
		r |= push(a, "%u", cfg->eal.memory_mb);
	}
	for (i = 0; i < cfg->n_ports; i++) {
		const struct uf_cfg_port *p = &cfg->ports[i];
		int j;

		/* a device shared by VLAN ports (docs/configuration.md#vlans) is given once */
		for (j = 0; j < i && strcmp(cfg->ports[j].dev_name, p->dev_name) != 0; j++)
			;
		if (j < i)
			continue;
		if (p->is_pci) {
			any_pci = true;
			r |= push(a, "-a");
			r |= push(a, "%s", p->device);
		} else {
			r |= push(a, "--vdev");
			r |= push_vdev(a, p);
		}
	}
	/* never probe what we were not given: the host's own NIC must stay the host's */
	if (!any_pci)
		r |= push(a, "--no-pci");
	for (i = 0; i < cfg->eal.n_extra; i++)
		r |= push(a, "%s", cfg->eal.extra_args[i]);
	if (needs_single_file(cfg))
		r |= push(a, "--single-file-segments");
	if (r != 0) {
		uf_err_set(err, UF_EXIT_CONFIG, "%s: too many or too long EAL arguments",
			   cfg->path);
		return -1;
	}
	return 0;
}

void
uf_eal_argv_str(const struct uf_eal_argv *a, char *buf, size_t len)
{
	size_t o = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < a->argc && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? " " : "", a->argv[i]);
}

bool
uf_devarg(const char *dev, const char *key, char *val, size_t len)
{
	size_t kl = strlen(key);
	const char *p = strchr(dev, ',');

	while (p != NULL) {
		p++;
		if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
			size_t n = strcspn(p + kl + 1, ",");

			if (n >= len)
				n = len - 1;
			memcpy(val, p + kl + 1, n);
			val[n] = '\0';
			return true;
		}
		p = strchr(p, ',');
	}
	return false;
}
