/* SPDX-License-Identifier: BSD-3-Clause
 * Ownership locks (lib/env/uf_own.c) on a PCI port, which needs no netlink: a second owner
 * in another process is refused with the first one's pid and changes nothing; the lock is
 * free again once its holder is gone; the same device twice in one config takes one lock.
 * A lock file or directory another user could have planted is refused, not trusted, and
 * left as it was (docs/deployment.md, "One instance per interface").
 * The kernel-interface checks (sockets, XDP programs) are e2e: tests/e2e/test_ownership.py.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
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

static char notes[1024];

static void
note_cb(void *arg, const char *msg)
{
	(void)arg;
	snprintf(notes + strlen(notes), sizeof(notes) - strlen(notes), "%s\n", msg);
}

static const char planted[] = "pid=1\nxdp_prog=57\nwhat=interface fwd0\n";

/* acquire in sub (a fresh directory under dir) with the lock file made by plant(); the
 * refusal's message in err, the lock file's text afterwards in text */
static int
acquire_in(const char *sub, struct uf_err *err, char *text, size_t len)
{
	struct uf_config *cfg = pci_cfg(1);
	struct uf_own o;
	char path[600];
	FILE *f;
	int rc, i;

	uf_own_set_lock_dir(sub);
	memset(err, 0, sizeof(*err));
	notes[0] = '\0';
	rc = uf_own_acquire(cfg, &o, err, note_cb, NULL);
	for (i = 0; i < o.n; i++)
		if (o.p[i].fd >= 0)
			close(o.p[i].fd);
	snprintf(path, sizeof(path), "%s/pci-0000:00:06.0", sub);
	text[0] = '\0';
	f = fopen(path, "r");
	if (f != NULL) {
		size_t n = fread(text, 1, len - 1, f);

		text[n] = '\0';
		fclose(f);
	}
	uf_own_set_lock_dir(dir);
	free(cfg);
	return rc;
}

/* a lock file someone else owns (written into a directory once world-writable): refused,
 * naming its owner and the fix, and not rewritten */
static void
test_planted_lock_file(void)
{
	char sub[300], path[600], text[256];
	struct uf_err err;

	if (geteuid() != 0) {
		fprintf(stderr, "skip test_planted_lock_file: needs root (chown)\n");
		return;
	}
	snprintf(sub, sizeof(sub), "%s/planted", dir);
	mkdir(sub, 0755);
	uf_t_write(sub, "pci-0000:00:06.0", planted);
	snprintf(path, sizeof(path), "%s/pci-0000:00:06.0", sub);
	CHECK(chown(path, 65534, 65534) == 0, "chown");
	CHECK_EQ(acquire_in(sub, &err, text, sizeof(text)), -1);
	CHECK_EQ(err.code, UF_EXIT_ENV);
	CHECK_HAS(err.msg, "is not to be trusted (uid 65534");
	CHECK_HAS(err.msg, "rm ");
	CHECK_STR(text, planted);
	/* a root-owned one other users may write: the same */
	CHECK(chown(path, 0, 0) == 0 && chmod(path, 0666) == 0, "chmod");
	CHECK_EQ(acquire_in(sub, &err, text, sizeof(text)), -1);
	CHECK_HAS(err.msg, "mode 0666");
	CHECK_STR(text, planted);
	/* root's own 0644: taken, and the record is ours */
	CHECK(chmod(path, 0644) == 0, "chmod");
	CHECK_EQ(acquire_in(sub, &err, text, sizeof(text)), 0);
	snprintf(path, sizeof(path), "pid=%ld\nxdp_prog=0\n", (long)getpid());
	CHECK(strncmp(text, path, strlen(path)) == 0, "rewritten: %s", text);
}

/* a symlink where the lock file goes: not followed, its target unchanged */
static void
test_symlink_lock_file(void)
{
	char sub[300], target[600], text[256];
	struct uf_err err;
	FILE *f;

	snprintf(sub, sizeof(sub), "%s/symlink", dir);
	mkdir(sub, 0755);
	uf_t_write(dir, "victim", "precious\n");
	snprintf(target, sizeof(target), "%s/victim", dir);
	uf_t_symlink(sub, "pci-0000:00:06.0", target);
	CHECK_EQ(acquire_in(sub, &err, text, sizeof(text)), -1);
	CHECK_HAS(err.msg, "cannot open the lock");
	CHECK_HAS(err.msg, "not a symlink");
	f = fopen(target, "r");
	CHECK(f != NULL && fgets(text, sizeof(text), f) != NULL, "victim readable");
	if (f != NULL)
		fclose(f);
	CHECK_STR(text, "precious\n");
}

/* the directory: ours and world-writable (as earlier releases made /run/udpfan/lock) is
 * tightened to 0755 with a note; someone else's is refused; a symlink is not followed */
static void
test_lock_dir_trust(void)
{
	char sub[300], link[300], text[256];
	struct uf_err err;
	struct stat st;

	snprintf(sub, sizeof(sub), "%s/sticky", dir);
	mkdir(sub, 0755);
	CHECK(chmod(sub, 01777) == 0, "chmod");
	CHECK_EQ(acquire_in(sub, &err, text, sizeof(text)), 0);
	CHECK(stat(sub, &st) == 0 && (st.st_mode & 07777) == 0755, "mode %o",
	      (unsigned int)(st.st_mode & 07777));
	CHECK_HAS(notes, "was writable by other users (mode 1777): now 0755");

	snprintf(link, sizeof(link), "%s/dirlink", dir);
	CHECK(symlink(sub, link) == 0, "symlink");
	CHECK_EQ(acquire_in(link, &err, text, sizeof(text)), -1);
	CHECK_HAS(err.msg, "cannot open the lock directory");

	if (geteuid() != 0) {
		fprintf(stderr, "skip test_lock_dir_trust (foreign owner): needs root (chown)\n");
		return;
	}
	snprintf(sub, sizeof(sub), "%s/foreign", dir);
	mkdir(sub, 0755);
	CHECK(chown(sub, 65534, 65534) == 0, "chown");
	CHECK_EQ(acquire_in(sub, &err, text, sizeof(text)), -1);
	CHECK_HAS(err.msg, "belongs to uid 65534, not to root or this user");
	CHECK_STR(text, "");
}

static void
test_runtime_dir(void)
{
	char buf[256], want[256];
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	/* under systemd's RuntimeDirectory= EAL goes there (eal_filesystem.c) */
	setenv("RUNTIME_DIRECTORY", "/run/udpfan", 1);
	uf_own_runtime_dir("pfx", buf, sizeof(buf));
	CHECK_STR(buf, "/run/udpfan/dpdk/pfx");
	unsetenv("RUNTIME_DIRECTORY");
	uf_own_runtime_dir("pfx", buf, sizeof(buf));
	if (getuid() == 0)
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
	RUN(test_planted_lock_file);
	RUN(test_symlink_lock_file);
	RUN(test_lock_dir_trust);
	RUN(test_runtime_dir);
	uf_t_rmtree(dir);
	return uf_t_summary();
}
