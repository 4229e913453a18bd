/* SPDX-License-Identifier: BSD-3-Clause
 * Ownership and leftovers: docs/deployment.md ("One instance per interface", "What a dead
 * instance leaves"). Runs before EAL, once; nothing here is on a hot path.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/packet_diag.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/xdp_diag.h>

#include "uf_own.h"
#include "uf_quirks.h"

#ifndef AF_XDP
#define AF_XDP 44
#endif

static char lock_dir_override[256];

void
uf_own_set_lock_dir(const char *dir)
{
	snprintf(lock_dir_override, sizeof(lock_dir_override), "%s", dir != NULL ? dir : "");
}

static int
mkdir_mode(const char *path, mode_t mode)
{
	if (mkdir(path, mode) == 0)
		return 0;
	return errno == EEXIST ? 0 : -errno;
}

/* A directory only root or this user can change: owned by one of them, writable by no one
 * else (docs/deployment.md, "One instance per interface"). */
static bool
dir_trusted(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && uf_env_uid_trusted(st.st_uid) &&
	       (st.st_mode & 022) == 0;
}

const char *
uf_own_lock_dir(void)
{
	static char dir[300];
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;

	if (lock_dir_override[0] != '\0')
		return lock_dir_override;
	/* root's, 0755: nobody else can plant a lock there. A directory root made sticky and
	 * world-writable (earlier releases did) is taken and tightened by uf_own_acquire when
	 * this is root; any other user leaves it for its own directory. */
	if (geteuid() == 0) {
		mkdir_mode("/run/udpfan", 0755);
		mkdir_mode("/run/udpfan/lock", 0755);
		return "/run/udpfan/lock";
	}
	/* systemd made /run/udpfan for this user (User= with RuntimeDirectory=udpfan): the
	 * locks go there, where every instance sees them (a private /tmp would hide them) */
	if (lstat("/run/udpfan", &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid())
		mkdir_mode("/run/udpfan/lock", 0755);
	if (dir_trusted("/run/udpfan/lock") && access("/run/udpfan/lock", W_OK | X_OK) == 0)
		return "/run/udpfan/lock";
	if (xdg != NULL && xdg[0] != '\0') {
		snprintf(dir, sizeof(dir), "%s/udpfan", xdg);
		if (mkdir_mode(dir, 0700) == 0) {
			snprintf(dir, sizeof(dir), "%s/udpfan/lock", xdg);
			if (mkdir_mode(dir, 0700) == 0)
				return dir;
		}
	}
	snprintf(dir, sizeof(dir), "/tmp/udpfan-lock-%u", (unsigned int)geteuid());
	mkdir_mode(dir, 0700);
	return dir;
}

void
uf_own_runtime_dir(const char *prefix, char *buf, size_t len)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	const char *sd = getenv("RUNTIME_DIRECTORY");

	/* eal_filesystem.c (22.11): systemd's RuntimeDirectory= first (/run/udpfan under the
	 * shipped unit), then /var/run for root, else XDG_RUNTIME_DIR, else /tmp */
	if (sd != NULL)
		snprintf(buf, len, "%s/dpdk/%s", sd, prefix);
	else if (getuid() == 0)
		snprintf(buf, len, "/var/run/dpdk/%s", prefix);
	else
		snprintf(buf, len, "%s/dpdk/%s", xdg != NULL && xdg[0] != '\0' ? xdg : "/tmp",
			 prefix);
}

/* ---- the lock file: "pid=N\nxdp_prog=ID\nwhat=...\n" ---- */

struct rec {
	long pid;
	uint32_t xdp_prog;
};

static void
rec_read(int fd, struct rec *r)
{
	char buf[256], *p;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	memset(r, 0, sizeof(*r));
	if (n <= 0)
		return;
	buf[n] = '\0';
	p = strstr(buf, "pid=");
	if (p != NULL)
		r->pid = strtol(p + 4, NULL, 10);
	p = strstr(buf, "xdp_prog=");
	if (p != NULL)
		r->xdp_prog = (uint32_t)strtoul(p + 9, NULL, 10);
}

static void
rec_write(int fd, const char *what, uint32_t xdp_prog)
{
	char buf[256];
	int n = snprintf(buf, sizeof(buf), "pid=%ld\nxdp_prog=%u\nwhat=%s\n", (long)getpid(),
			 xdp_prog, what);

	/* a lock file another user created is ours to lock, not to write: best effort */
	if (ftruncate(fd, 0) == 0 && pwrite(fd, buf, (size_t)n, 0) != n)
		return;
}

static void __rte_format_printf(3, 4) say(uf_env_note_fn note, void *arg, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (note == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	note(arg, msg);
}

/* Open (or create) a lock file in the lock directory dfd: never through a symlink, and only
 * a regular file root or this user owns that nobody else may write (a planted one could
 * hold the lock or name an XDP program for us to detach). fd, or -errno; -EPERM with *st
 * filled: a file we do not trust. */
static int
lock_open(int dfd, const char *name, struct stat *st)
{
	const int fl = O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
	int fd = openat(dfd, name, O_RDWR | fl);

	if (fd < 0 && errno == ENOENT) {
		fd = openat(dfd, name, O_RDWR | O_CREAT | O_EXCL | fl, 0644);
		if (fd < 0 && errno == EEXIST)
			fd = openat(dfd, name, O_RDWR | fl);
	}
	if (fd < 0 && errno == EACCES)
		fd = openat(dfd, name, O_RDONLY | fl);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) != 0) {
		close(fd);
		return -EIO;
	}
	if (!S_ISREG(st->st_mode) || !uf_env_uid_trusted(st->st_uid) || (st->st_mode & 022) != 0) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* The lock directory, opened without following a symlink, owned by root or this user and
 * writable by nobody else; a sticky world-writable one of ours is tightened to 0755 (with a
 * note), as earlier releases made it. fd, or -1 with err. */
static int
lock_dir_open(const char *dir, struct uf_err *err, uf_env_note_fn note, void *arg)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (dfd < 0 || fstat(dfd, &st) != 0) {
		uf_err_set(err, UF_EXIT_ENV,
			   "cannot open the lock directory %s (%s): it must be a directory (not a "
			   "symlink) that root or this user owns; as root udpfan creates "
			   "/run/udpfan/lock itself",
			   dir, strerror(errno));
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	if (!uf_env_uid_trusted(st.st_uid)) {
		uf_err_set(err, UF_EXIT_ENV,
			   "the lock directory %s belongs to uid %u, not to root or this user (uid "
			   "%u): its owner could plant or remove locks; remove it (rm -r %s) and "
			   "start again, udpfan makes its own",
			   dir, (unsigned int)st.st_uid, (unsigned int)geteuid(), dir);
		close(dfd);
		return -1;
	}
	if ((st.st_mode & 022) != 0) {
		if (st.st_uid != geteuid() || fchmod(dfd, 0755) != 0) {
			uf_err_set(err, UF_EXIT_ENV,
				   "the lock directory %s is writable by other users (mode %04o): "
				   "any of them could plant a lock; chmod 0755 %s as its owner, and "
				   "remove the files there that neither root nor uid %u owns",
				   dir, (unsigned int)(st.st_mode & 07777), dir,
				   (unsigned int)geteuid());
			close(dfd);
			return -1;
		}
		say(note, arg,
		    "the lock directory %s was writable by other users (mode %04o): now 0755", dir,
		    (unsigned int)(st.st_mode & 07777));
	}
	return dfd;
}

/* ---- netlink: sockets on an interface (sock_diag), its XDP program (rtnetlink) ---- */

static int
nl_open(int proto)
{
	struct timeval tv = { .tv_sec = 1 };
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, proto);

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

struct sk_hit {
	uint32_t ino;
	uint32_t uid;
	bool found;
};

/*
 * The first socket of `family` (AF_PACKET or AF_XDP) bound to ifindex that another DPDK
 * process would own: for AF_XDP any, for AF_PACKET one with a TX ring or in a fanout group
 * (the PMD's; tcpdump has neither). 0, or -errno when the kernel does not answer.
 */
static int
diag_find(int family, unsigned int ifindex, struct sk_hit *hit)
{
	union {
		struct packet_diag_req p;
		struct xdp_diag_req x;
	} req;
	struct {
		struct nlmsghdr nh;
		char body[sizeof(req)];
	} msg;
	char buf[16384];
	int fd, ret = 0;
	size_t rlen;

	memset(hit, 0, sizeof(*hit));
	memset(&req, 0, sizeof(req));
	if (family == AF_PACKET) {
		req.p.sdiag_family = AF_PACKET;
		req.p.pdiag_show = PACKET_SHOW_INFO | PACKET_SHOW_RING_CFG | PACKET_SHOW_FANOUT;
		rlen = sizeof(req.p);
	} else {
		req.x.sdiag_family = AF_XDP;
		req.x.xdiag_show = XDP_SHOW_INFO;
		rlen = sizeof(req.x);
	}
	fd = nl_open(NETLINK_SOCK_DIAG);
	if (fd < 0)
		return fd;
	memset(&msg, 0, sizeof(msg));
	msg.nh.nlmsg_len = (uint32_t)NLMSG_LENGTH(rlen);
	msg.nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	msg.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	memcpy(msg.body, &req, rlen);
	if (send(fd, &msg, msg.nh.nlmsg_len, 0) < 0) {
		ret = -errno;
		goto out;
	}
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *nh;

		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			goto out;
		}
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n); nh = NLMSG_NEXT(nh, n)) {
			struct rtattr *a;
			bool on_if = false, pmd_like = family == AF_XDP;
			uint32_t ino, uid = 0;
			int len;

			if (nh->nlmsg_type == NLMSG_DONE)
				goto out;
			if (nh->nlmsg_type == NLMSG_ERROR) {
				ret = -((struct nlmsgerr *)NLMSG_DATA(nh))->error;
				ret = ret > 0 ? -ret : ret;
				goto out;
			}
			if (family == AF_PACKET) {
				struct packet_diag_msg *m = NLMSG_DATA(nh);

				ino = m->pdiag_ino;
				a = (struct rtattr *)(m + 1);
				len = (int)(nh->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
			} else {
				struct xdp_diag_msg *m = NLMSG_DATA(nh);

				ino = m->xdiag_ino;
				a = (struct rtattr *)(m + 1);
				len = (int)(nh->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
			}
			for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
				if (family == AF_PACKET && a->rta_type == PACKET_DIAG_INFO) {
					struct packet_diag_info *pi = RTA_DATA(a);

					on_if = pi->pdi_index == ifindex;
				} else if (family == AF_PACKET &&
					   (a->rta_type == PACKET_DIAG_TX_RING ||
					    a->rta_type == PACKET_DIAG_FANOUT)) {
					pmd_like = true;
				} else if (family == AF_PACKET && a->rta_type == PACKET_DIAG_UID) {
					uid = *(uint32_t *)RTA_DATA(a);
				} else if (family == AF_XDP && a->rta_type == XDP_DIAG_INFO) {
					struct xdp_diag_info *xi = RTA_DATA(a);

					on_if = xi->ifindex == ifindex;
				} else if (family == AF_XDP && a->rta_type == XDP_DIAG_UID) {
					uid = *(uint32_t *)RTA_DATA(a);
				}
			}
			if (on_if && pmd_like && !hit->found) {
				hit->found = true;
				hit->ino = ino;
				hit->uid = uid;
			}
		}
	}
out:
	close(fd);
	/* a kernel without the diag module for this family cannot show us a user */
	return ret == -ENOENT || ret == -EOPNOTSUPP ? 0 : ret;
}

/* The pid holding socket inode ino, from /proc/<pid>/fd (what we may read), or 0. */
static long
sock_pid(uint32_t ino)
{
	char want[64], path[300], link[64];
	struct dirent *pe, *fe;
	DIR *pd, *fd;
	long found = 0;

	snprintf(want, sizeof(want), "socket:[%u]", ino);
	pd = opendir("/proc");
	if (pd == NULL)
		return 0;
	while (found == 0 && (pe = readdir(pd)) != NULL) {
		if (!isdigit((unsigned char)pe->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", pe->d_name);
		fd = opendir(path);
		if (fd == NULL)
			continue;
		while ((fe = readdir(fd)) != NULL) {
			ssize_t n;

			snprintf(path, sizeof(path), "/proc/%s/fd/%s", pe->d_name, fe->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = '\0';
			if (strcmp(link, want) == 0) {
				found = strtol(pe->d_name, NULL, 10);
				break;
			}
		}
		closedir(fd);
	}
	closedir(pd);
	return found;
}

/* IFLA_XDP of ifindex (uf_own.h) */
int
uf_xdp_query(unsigned int ifindex, int *mode, uint32_t *prog)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} rq;
	char buf[32768];
	struct nlmsghdr *nh;
	ssize_t n;
	int fd, ret = -ENOENT;

	*mode = 0;
	*prog = 0;
	fd = nl_open(NETLINK_ROUTE);
	if (fd < 0)
		return fd;
	memset(&rq, 0, sizeof(rq));
	rq.nh.nlmsg_len = sizeof(rq);
	rq.nh.nlmsg_type = RTM_GETLINK;
	rq.nh.nlmsg_flags = NLM_F_REQUEST;
	rq.ifi.ifi_family = AF_UNSPEC;
	rq.ifi.ifi_index = (int)ifindex;
	if (send(fd, &rq, sizeof(rq), 0) < 0) {
		ret = -errno;
		goto out;
	}
	n = recv(fd, buf, sizeof(buf), 0);
	if (n <= 0) {
		ret = n < 0 ? -errno : -EIO;
		goto out;
	}
	for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n); nh = NLMSG_NEXT(nh, n)) {
		struct ifinfomsg *ifi;
		struct rtattr *a;
		int len;

		if (nh->nlmsg_type != RTM_NEWLINK)
			continue;
		ifi = NLMSG_DATA(nh);
		len = (int)(nh->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi)));
		ret = 0;
		for (a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
			struct rtattr *x;
			int xl;

			if (a->rta_type != IFLA_XDP)
				continue;
			xl = (int)RTA_PAYLOAD(a);
			for (x = RTA_DATA(a); RTA_OK(x, xl); x = RTA_NEXT(x, xl)) {
				if (x->rta_type == IFLA_XDP_ATTACHED)
					*mode = *(uint8_t *)RTA_DATA(x);
				else if (x->rta_type == IFLA_XDP_PROG_ID)
					*prog = *(uint32_t *)RTA_DATA(x);
			}
		}
	}
out:
	close(fd);
	return ret;
}

/* Detach the XDP program attached in `mode` (ip link set dev X xdp{,generic} off). */
static int
xdp_detach(unsigned int ifindex, int mode)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		char attrs[64];
	} rq;
	struct rtattr *xdp, *a;
	char buf[1024];
	struct nlmsghdr *nh;
	uint32_t flags = mode == XDP_ATTACHED_SKB  ? XDP_FLAGS_SKB_MODE
			 : mode == XDP_ATTACHED_HW ? XDP_FLAGS_HW_MODE
						   : XDP_FLAGS_DRV_MODE;
	int32_t nofd = -1;
	ssize_t n;
	int fd, ret = -EIO;

	memset(&rq, 0, sizeof(rq));
	rq.nh.nlmsg_type = RTM_SETLINK;
	rq.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	rq.ifi.ifi_family = AF_UNSPEC;
	rq.ifi.ifi_index = (int)ifindex;
	xdp = (struct rtattr *)rq.attrs;
	xdp->rta_type = IFLA_XDP | NLA_F_NESTED;
	a = RTA_DATA(xdp);
	a->rta_type = IFLA_XDP_FD;
	a->rta_len = RTA_LENGTH(sizeof(nofd));
	memcpy(RTA_DATA(a), &nofd, sizeof(nofd));
	a = (struct rtattr *)((char *)a + RTA_ALIGN(a->rta_len));
	a->rta_type = IFLA_XDP_FLAGS;
	a->rta_len = RTA_LENGTH(sizeof(flags));
	memcpy(RTA_DATA(a), &flags, sizeof(flags));
	xdp->rta_len = (unsigned short)(RTA_LENGTH(0) + 2 * RTA_ALIGN(RTA_LENGTH(4)));
	rq.nh.nlmsg_len = (uint32_t)(NLMSG_LENGTH(sizeof(rq.ifi)) + RTA_ALIGN(xdp->rta_len));

	fd = nl_open(NETLINK_ROUTE);
	if (fd < 0)
		return fd;
	if (send(fd, &rq, rq.nh.nlmsg_len, 0) < 0) {
		ret = -errno;
		goto out;
	}
	n = recv(fd, buf, sizeof(buf), 0);
	if (n <= 0) {
		ret = n < 0 ? -errno : -EIO;
		goto out;
	}
	nh = (struct nlmsghdr *)buf;
	if (NLMSG_OK(nh, (size_t)n) && nh->nlmsg_type == NLMSG_ERROR)
		ret = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
out:
	close(fd);
	return ret;
}

static const char *
xdp_mode_word(int mode)
{
	return mode == XDP_ATTACHED_SKB  ? "xdpgeneric"
	       : mode == XDP_ATTACHED_HW ? "xdpoffload"
					 : "xdp";
}

/* Nobody else's sockets on the interface; the XDP program, if any, ours from a dead owner. */
static int
check_kernel_if(struct uf_own_port *op, int i, const struct rec *prev, struct uf_err *err,
		uf_env_note_fn note, void *arg)
{
	struct sk_hit hit;
	uint32_t prog;
	int mode, ret;

	if (diag_find(AF_XDP, op->ifindex, &hit) == 0 && hit.found) {
		uf_err_set(err, UF_EXIT_ENV,
			   "ports[%d]: an AF_XDP socket (inode %u, uid %u, pid %ld) is bound to %s: "
			   "another DPDK or XDP program drives it; stop it, or give this udpfan "
			   "another interface",
			   i, hit.ino, hit.uid, sock_pid(hit.ino), op->what);
		return -1;
	}
	if (diag_find(AF_PACKET, op->ifindex, &hit) == 0 && hit.found) {
		uf_err_set(err, UF_EXIT_ENV,
			   "ports[%d]: a packet socket with rings or a fanout group (inode %u, uid "
			   "%u, pid %ld) is bound to %s: another net_af_packet instance drives it, "
			   "and every copy would leave twice; stop it, or give this udpfan another "
			   "interface",
			   i, hit.ino, hit.uid, sock_pid(hit.ino), op->what);
		return -1;
	}
	if (uf_xdp_query(op->ifindex, &mode, &prog) != 0 || prog == 0)
		return 0;
	if (prev->xdp_prog != prog) {
		uf_err_set(err, UF_EXIT_ENV,
			   "ports[%d]: %s has an XDP program (id %u) that this udpfan did not load "
			   "(nothing on the interface uses it, or another program owns the "
			   "interface); remove it with ip link set dev %s %s off, or stop its "
			   "owner",
			   i, op->what, prog, op->what + strlen("interface "), xdp_mode_word(mode));
		return -1;
	}
	/* our dead predecessor's: no AF_XDP socket is left to use it (checked above) */
	ret = xdp_detach(op->ifindex, mode);
	if (ret != 0) {
		uf_err_set(err, UF_EXIT_ENV,
			   "ports[%d]: %s still has the XDP program (id %u) a dead udpfan (pid %ld) "
			   "left, and removing it failed (%s); ip link set dev %s %s off",
			   i, op->what, prog, prev->pid, strerror(-ret),
			   op->what + strlen("interface "), xdp_mode_word(mode));
		return -1;
	}
	say(note, arg, "reclaimed %s: detached XDP program id %u that a dead udpfan (pid %ld) left",
	    op->what, prog, prev->pid);
	return 0;
}

int
uf_own_acquire(const struct uf_config *cfg, struct uf_own *o, struct uf_err *err,
	       uf_env_note_fn note, void *arg)
{
	const char *dir = uf_own_lock_dir();
	struct stat nst;
	int i, k, dfd = -1, ret = -1;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < UF_MAX_PORTS; i++)
		o->p[i].fd = -1;
	if (stat("/proc/self/ns/net", &nst) != 0)
		nst.st_ino = 0;
	for (i = 0; i < cfg->n_ports; i++) {
		const struct uf_cfg_port *p = &cfg->ports[i];
		struct uf_own_port *op = &o->p[i];
		struct rec prev;
		struct stat st;
		char iface[IF_NAMESIZE + 1];
		const char *name;
		int fd;

		o->n = i + 1;
		if (p->is_pci) {
			/* a PCI address names one device on the host, whatever the namespace */
			snprintf(op->what, sizeof(op->what), "PCI device %s", p->dev_name);
			snprintf(op->path, sizeof(op->path), "%s/pci-%s", dir, p->dev_name);
		} else {
			const struct uf_quirk *q = uf_quirk_lookup_vdev(p->device);

			if (q->kernel_sock == UF_KSOCK_NONE ||
			    !uf_devarg(p->device, "iface", iface, sizeof(iface)))
				continue;
			op->ksock = q->kernel_sock;
			op->ifindex = if_nametoindex(iface);
			if (op->ifindex == 0)
				continue; /* uf_env_check names the missing interface */
			/* interface names and indexes are per network namespace */
			snprintf(op->what, sizeof(op->what), "interface %s", iface);
			snprintf(op->path, sizeof(op->path), "%s/netns%lu-if%u", dir,
				 (unsigned long)nst.st_ino, op->ifindex);
		}
		/* the same device twice in one config is the config's error, not a lock's */
		for (k = 0; k < i; k++)
			if (o->p[k].fd >= 0 && strcmp(o->p[k].path, op->path) == 0)
				break;
		if (k < i)
			continue;
		if (dfd < 0) {
			dfd = lock_dir_open(dir, err, note, arg);
			if (dfd < 0)
				return -1;
		}
		name = op->path + strlen(dir) + 1;
		fd = lock_open(dfd, name, &st);
		if (fd == -EPERM) {
			uf_err_set(err, UF_EXIT_ENV,
				   "ports[%d]: the lock %s for %s is not to be trusted (uid %u, mode "
				   "%04o%s): only a regular file root or this user (uid %u) owns and "
				   "nobody else may write is; another user planted it: check that no "
				   "udpfan uses %s, then remove it (rm %s)",
				   i, op->path, op->what, (unsigned int)st.st_uid,
				   (unsigned int)(st.st_mode & 07777),
				   S_ISREG(st.st_mode) ? "" : ", not a regular file",
				   (unsigned int)geteuid(), op->what, op->path);
			goto out;
		}
		if (fd < 0) {
			uf_err_set(err, UF_EXIT_ENV,
				   "ports[%d]: cannot open the lock %s for %s (%s); it must be a "
				   "regular file (not a symlink) in a directory this user may write",
				   i, op->path, op->what, strerror(-fd));
			goto out;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
			rec_read(fd, &prev);
			close(fd);
			uf_err_set(err, UF_EXIT_ENV,
				   "ports[%d]: %s is in use by another udpfan (pid %ld, lock %s): "
				   "one instance per interface or device; stop that one first (its "
				   "file_prefix does not matter)",
				   i, op->what, prev.pid, op->path);
			goto out;
		}
		op->fd = fd;
		rec_read(fd, &prev);
		if (op->ksock != UF_KSOCK_NONE &&
		    check_kernel_if(op, i, &prev, err, note, arg) != 0)
			goto out;
		rec_write(fd, op->what, 0);
	}
	ret = 0;
out:
	if (dfd >= 0)
		close(dfd);
	return ret;
}

void
uf_own_record(const struct uf_own *o)
{
	int i;

	for (i = 0; i < o->n; i++) {
		uint32_t prog = 0;
		int mode;

		if (o->p[i].fd < 0)
			continue;
		if (o->p[i].ksock == UF_KSOCK_XSK)
			uf_xdp_query(o->p[i].ifindex, &mode, &prog);
		rec_write(o->p[i].fd, o->p[i].what, prog);
	}
}

/* A file no live process holds a lock on (EAL holds hugepage and fbarray files locked). */
static bool
unlocked(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	bool free_ = false;

	if (fd < 0)
		return errno == ENOENT;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		free_ = true;
	close(fd);
	return free_;
}

/* A file no other process holds a lock on (/proc/locks: "N: FLOCK ADVISORY READ pid
 * maj:min:ino ..."): for our own files at the end of a run, whose locks EAL still holds. */
static bool
unlocked_but_ours(const char *path)
{
	char line[256];
	struct stat st;
	bool free_ = true;
	FILE *f;

	if (lstat(path, &st) != 0)
		return errno == ENOENT;
	f = fopen("/proc/locks", "re");
	if (f == NULL)
		return false;
	while (free_ && fgets(line, sizeof(line), f) != NULL) {
		unsigned int maj, mnr;
		unsigned long ino;
		long pid;

		if (sscanf(line, "%*s %*s %*s %*s %ld %x:%x:%lu", &pid, &maj, &mnr, &ino) == 4 &&
		    ino == (unsigned long)st.st_ino && maj == major(st.st_dev) &&
		    mnr == minor(st.st_dev) && pid != (long)getpid())
			free_ = false;
	}
	fclose(f);
	return free_;
}

static bool
is_hugefile(const char *name, const char *prefix)
{
	size_t pl = strlen(prefix);

	/* eal_filesystem.h: <hugedir>/<prefix>map_<n> */
	return strncmp(name, prefix, pl) == 0 && strncmp(name + pl, "map_", 4) == 0 &&
	       isdigit((unsigned char)name[pl + 4]);
}

/* What remove_prefix removed. */
struct removed {
	char rdir[300];
	int n_huge, n_run;
	unsigned long long huge_bytes;
};

/* The runtime directory and hugepage files of prefix, each once no process holds it (the
 * proofs below; ours: no process but this one, at the end of its run); what was removed in
 * *r. */
static void
remove_prefix(const char *prefix, bool ours, struct removed *r)
{
	bool (*is_free)(const char *) = ours ? unlocked_but_ours : unlocked;
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char *rdir = r->rdir, path[600], line[512];
	int n_huge = 0, n_run = 0, fd;
	unsigned long long huge_bytes = 0;
	struct dirent *de;
	FILE *mounts;
	DIR *d;

	memset(r, 0, sizeof(*r));
	uf_own_runtime_dir(prefix, rdir, sizeof(r->rdir));
	/* proof one: the primary's fcntl lock on <runtime dir>/config is gone
	 * (eal.c, rte_eal_config_create: F_SETLK on the whole file for the process's life) */
	snprintf(path, sizeof(path), "%s/config", rdir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		int r = fcntl(fd, F_GETLK, &fl);

		close(fd);
		if (r != 0 || fl.l_type != F_UNLCK)
			return;
	}
	/* proof two: every hugepage file of the prefix can be locked (eal_memalloc.c holds a
	 * shared flock on each segment it maps, in every process that maps it) */
	mounts = fopen("/proc/mounts", "r");
	while (mounts != NULL && fgets(line, sizeof(line), mounts) != NULL) {
		char mnt[256], type[64];

		if (sscanf(line, "%*s %255s %63s", mnt, type) != 2 ||
		    strcmp(type, "hugetlbfs") != 0)
			continue;
		d = opendir(mnt);
		if (d == NULL)
			continue;
		while ((de = readdir(d)) != NULL) {
			struct stat st;

			if (!is_hugefile(de->d_name, prefix))
				continue;
			snprintf(path, sizeof(path), "%s/%s", mnt, de->d_name);
			if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || !is_free(path))
				continue;
			if (unlink(path) == 0) {
				n_huge++;
				huge_bytes += (unsigned long long)st.st_blocks * 512;
			}
		}
		closedir(d);
	}
	if (mounts != NULL)
		fclose(mounts);
	d = opendir(rdir);
	if (d != NULL) {
		bool busy = false;

		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", rdir, de->d_name);
			if (strncmp(de->d_name, "fbarray_", 8) == 0 && !is_free(path))
				busy = true;
		}
		rewinddir(d);
		while (!busy && (de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", rdir, de->d_name);
			if (unlink(path) == 0)
				n_run++;
		}
		closedir(d);
		if (!busy)
			rmdir(rdir);
	}
	r->n_huge = n_huge;
	r->n_run = n_run;
	r->huge_bytes = huge_bytes;
}

int
uf_own_reclaim_prefix(const struct uf_config *cfg, uf_env_note_fn note, void *arg)
{
	struct removed r;

	remove_prefix(cfg->eal.file_prefix, false, &r);
	if (r.n_huge > 0 || r.n_run > 0)
		say(note, arg,
		    "reclaimed what a dead DPDK process with file_prefix \"%s\" left: %d "
		    "hugepage file%s (%llu MiB), %d file%s in %s",
		    cfg->eal.file_prefix, r.n_huge, r.n_huge == 1 ? "" : "s", r.huge_bytes >> 20,
		    r.n_run, r.n_run == 1 ? "" : "s", r.rdir);
	return r.n_huge + r.n_run;
}

int
uf_own_cleanup_prefix(const struct uf_config *cfg)
{
	struct removed r;

	if (cfg->eal.in_memory)
		return 0; /* EAL made no files */
	remove_prefix(cfg->eal.file_prefix, true, &r);
	return r.n_huge + r.n_run;
}
