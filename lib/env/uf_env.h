/* SPDX-License-Identifier: BSD-3-Clause
 * EAL arguments built from the config (an explicit allow list, never a probe of everything),
 * and the environment checks that run before EAL so that a missing hugepage, interface or
 * driver binding is one line that names the fix, not a page of EAL logs.
 */
#ifndef UF_ENV_H
#define UF_ENV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

#include "uf_config.h"

#define UF_EAL_MAX_ARGS 160

struct uf_eal_argv {
	int argc;
	char *argv[UF_EAL_MAX_ARGS + 1];
	char buf[16384];
	size_t used;
};

/* Build EAL's argv from the config. 0, or -1 with err (config error: too many args). */
int uf_eal_argv_build(const struct uf_config *cfg, const char *prog, struct uf_eal_argv *a,
		      struct uf_err *err);

/* One line of the argv, for logs and --check. */
void uf_eal_argv_str(const struct uf_eal_argv *a, char *buf, size_t len);

/*
 * Check what EAL will need. `strict`: fill err (UF_EXIT_ENV) for the first problem and
 * return -1; otherwise report each problem through `note` and return the count.
 */
typedef void (*uf_env_note_fn)(void *arg, const char *msg);
int uf_env_check(const struct uf_config *cfg, bool strict, struct uf_err *err, uf_env_note_fn note,
		 void *arg);

/* The value of key= in a vdev/devargs string ("net_af_xdp0,iface=eth1" → "eth1"). */
bool uf_devarg(const char *dev, const char *key, char *val, size_t len);

/* Lock the process's memory, mapped now and mapped later (eal.mlockall; docs/configuration.md):
 * 0, -errno from mlockall(), or -ENOTSUP in a sanitizer build (not attempted). */
int uf_env_lock_memory(void);

/*
 * Open a file udpfan appends to as whoever runs it (stats.json; docs/configuration.md,
 * "stats"): created 0640, never through a symlink in its last component, and only a regular
 * file with one link that root or this user owns. NULL with err (UF_EXIT_ENV) naming the
 * file, what is wrong and the fix; `what` names the option ("the stats file").
 */
/* A file or directory udpfan writes into or trusts belongs to root or to this user
 * (docs/deployment.md, "One instance per interface"). */
static inline bool
uf_env_uid_trusted(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

FILE *uf_env_open_append(const char *path, const char *what, struct uf_err *err);

/* Physical start of a PCI device's BAR (sysfs resource file). 0 or -errno. */
int uf_pci_bar_phys(const char *bdf, int bar, uint64_t *phys);

/*
 * Capabilities (bits 1 << CAP_X) a port needs: ksock is its enum uf_kernel_sock, or a PCI
 * device bound to pci_driver. docs/deployment.md, "Least privilege".
 */
uint64_t uf_env_caps_needed(int ksock, bool pci, const char *pci_driver);

/* "CAP_X, CAP_Y" for the bits of need not in have; true when any is missing. */
bool uf_env_missing_caps(uint64_t need, uint64_t have, char *buf, size_t len);

/* Where the effective capability set comes from (tests); NULL: /proc/self/status. */
void uf_env_set_cap_source(uint64_t (*fn)(void));

/* Firmware root (default "/lib/firmware"), overridable for tests. */
void uf_env_set_fw_root(const char *root);

/*
 * ENA pushes TX descriptors through BAR2 (LLQ): mapped uncached, every push is a slow PCI
 * write. For a PCI port whose quirk row says so (q->llq_wc_bar2), check that the BAR is
 * write-combining (PAT list in debugfs). 0 when it is, cannot be told (a notice) or LLQ is
 * off; -1 with err (UF_EXIT_ENV) when it is mapped uncached. docs/deployment.md.
 */
struct uf_quirk;
int uf_env_check_llq_wc(const struct uf_cfg_port *pc, const struct uf_quirk *q, struct uf_err *err);

/* Sysfs root, overridable for tests (default "/sys"). */
void uf_env_set_sysfs_root(const char *root);
/* where /proc is (tests) */
void uf_env_set_proc_root(const char *root);
const char *uf_env_sysfs_root(void);

#endif /* UF_ENV_H */
