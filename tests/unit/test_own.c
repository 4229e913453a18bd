/* SPDX-License-Identifier: BSD-3-Clause
 * Ownership locks (lib/env/uf_own.c) on a PCI port, which needs no netlink: a second owner
 * in another process is refused with the first one's pid and changes nothing; the lock is
 * free again once its holder is gone; the same device twice in one config takes one lock.
 * The kernel-interface checks (sockets, XDP programs) are e2e: tests/e2e/test_ownership.py.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "uf_own.h"
#include "uf_test.h"

static char dir[256];

static struct uf_config *
pci_cfg(int n)
{
	struct uf_config *cfg = calloc(1, sizeof(*cfg));
	int i;

	if (cfg == NULL)
		abort();
	snprintf(cfg->eal.file_prefix, sizeof(cfg->eal.file_prefix), "uftest");
	for (i = 0; i < n; i++) {
		struct uf_cfg_port *p = &cfg->ports[cfg->n_ports++];

		snprintf(p->device, sizeof(p->device), "0000:00:06.0");
		snprintf(p->dev_name, sizeof(p->dev_name), "0000:00:06.0");
		p->is_pci = true;
	}
	return cfg;
}

/* in a child: 0 acquired, 3 refused naming want_pid, 1 otherwise */
static int
child_acquire(const struct uf_config *cfg, long want_pid)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		struct uf_own o;
		struct uf_err err = { 0 };
		char want[64];

		if (uf_own_acquire(cfg, &o, &err, NULL, NULL) == 0)
			_exit(0);
		snprintf(want, sizeof(want), "in use by another udpfan (pid %ld", want_pid);
		_exit(err.code == UF_EXIT_ENV && strstr(err.msg, want) != NULL &&
						      strstr(err.msg, "PCI device 0000:00:06.0") !=
								      NULL
				      ? 3
				      : 1);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void
test_lock(void)
{
	struct uf_config *cfg = pci_cfg(2);
	struct uf_err err = { 0 };
	struct uf_own o;
	char path[512], buf[128] = "";
	FILE *f;

	uf_own_set_lock_dir(dir);
	CHECK_STR(uf_own_lock_dir(), dir);
	/* free: a child takes it and, exiting, gives it back */
	CHECK_EQ(child_acquire(cfg, 0), 0);
	CHECK_EQ(uf_own_acquire(cfg, &o, &err, NULL, NULL), 0);
	CHECK(o.p[0].fd >= 0, "the lock is held");
	CHECK(o.p[1].fd < 0, "the same device twice: one lock");
	snprintf(path, sizeof(path), "%s/pci-0000:00:06.0", dir);
	CHECK_STR(o.p[0].path, path);
	f = fopen(path, "r");
	CHECK(f != NULL && fgets(buf, sizeof(buf), f) != NULL, "the lock records its owner");
	if (f != NULL)
		fclose(f);
	snprintf(path, sizeof(path), "pid=%ld\n", (long)getpid());
	CHECK_STR(buf, path);
	/* held: another process is refused, naming us */
	CHECK_EQ(child_acquire(cfg, (long)getpid()), 3);
	close(o.p[0].fd);
	CHECK_EQ(child_acquire(cfg, 0), 0);
	free(cfg);
}

static void
test_runtime_dir(void)
{
	char buf[256], want[256];
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	uf_own_runtime_dir("pfx", buf, sizeof(buf));
	if (geteuid() == 0)
		snprintf(want, sizeof(want), "/var/run/dpdk/pfx");
	else
		snprintf(want, sizeof(want), "%s/dpdk/pfx", xdg != NULL && xdg[0] ? xdg : "/tmp");
	CHECK_STR(buf, want);
}

int
main(void)
{
	uf_t_mkdtemp(dir, sizeof(dir));
	RUN(test_lock);
	RUN(test_runtime_dir);
	uf_t_rmtree(dir);
	return uf_t_summary();
}
