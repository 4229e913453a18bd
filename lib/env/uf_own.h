/* SPDX-License-Identifier: BSD-3-Clause
 * One owner per interface or device, proved before EAL touches anything (docs/deployment.md,
 * "One instance per interface"): an flock per port held for the process's life, the kernel's
 * own view (AF_XDP and AF_PACKET sockets on the interface, its XDP program), and the
 * reclaiming of what a dead instance left (its XDP program, its EAL runtime directory, its
 * hugepage files) once that instance is proved dead.
 */
#ifndef UF_OWN_H
#define UF_OWN_H

#include <stdbool.h>
#include <stdint.h>

#include "uf_config.h"
#include "uf_env.h"

struct uf_own_port {
	int fd;               /* the lock, held until exit; -1: none (a vdev on no device) */
	char path[300];       /* the lock file */
	char what[128];       /* "interface fwd0" / "PCI device 0000:00:06.0" */
	unsigned int ifindex; /* kernel-socket ports */
	int ksock;            /* enum uf_kernel_sock */
};

struct uf_own {
	int n;
	struct uf_own_port p[UF_MAX_PORTS];
};

/*
 * Take every port's lock and check that nobody else drives its interface. The refusal
 * (UF_EXIT_ENV, -1 with err) names the owner and the fix, and changes nothing; a stale XDP
 * program a dead udpfan left is detached, with a note. 0 on success.
 */
int uf_own_acquire(const struct uf_config *cfg, struct uf_own *o, struct uf_err *err,
		   uf_env_note_fn note, void *arg);

/* After the ports are set up: write our pid and each interface's XDP program id into its
 * lock, so that the next owner knows the program was ours if we die. */
void uf_own_record(const struct uf_own *o);

/*
 * The EAL runtime directory and hugepage files of file_prefix, when the DPDK process that
 * made them is proved dead (its config file unlocked, every file lockable): removed, with a
 * note. Number of files removed, or 0.
 */
int uf_own_reclaim_prefix(const struct uf_config *cfg, uf_env_note_fn note, void *arg);

/*
 * At the end of a run, after rte_eal_cleanup (which unmaps the memory but leaves the files):
 * the runtime directory and hugepage files this process's EAL made, by the same proofs (a
 * secondary process still attached keeps them). Number of files removed.
 */
int uf_own_cleanup_prefix(const struct uf_config *cfg);

/* The XDP program on ifindex (rtnetlink IFLA_XDP): its attach mode (XDP_ATTACHED_*, 0: none)
 * and id. 0, or -errno (-ENOENT: no such interface). */
int uf_xdp_query(unsigned int ifindex, int *mode, uint32_t *prog);

/* Where the locks live: /run/udpfan/lock (root's, 0755; a non-root user's only when it owns
 * it), else $XDG_RUNTIME_DIR/udpfan/lock, else /tmp/udpfan-lock-<uid>. uf_own_acquire trusts
 * the directory and each lock file only when root or this user owns it and nobody else may
 * write it. Override for tests (NULL: default). */
void uf_own_set_lock_dir(const char *dir);
const char *uf_own_lock_dir(void);

/* The EAL runtime directory of a file prefix (eal_filesystem.h rules for this uid). */
void uf_own_runtime_dir(const char *prefix, char *buf, size_t len);

#endif /* UF_OWN_H */
