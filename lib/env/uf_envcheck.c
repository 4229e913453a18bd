/* SPDX-License-Identifier: BSD-3-Clause
 * The host checks that run before EAL (uf_env.h): hugepages, capabilities, PCI bindings,
 * interfaces, firmware, write-combining; the files udpfan appends to; mlockall.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <net/if.h>
#include <linux/capability.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

#include <rte_version.h>

#include "uf_compat.h"
#include "uf_env.h"
#include "uf_quirks.h"

static char sysfs_root[256] = "/sys";
static char proc_root[256] = "/proc";
static char fw_root[256] = "/lib/firmware";

void
uf_env_set_proc_root(const char *root)
{
	snprintf(proc_root, sizeof(proc_root), "%s", root);
}

void
uf_env_set_fw_root(const char *root)
{
	snprintf(fw_root, sizeof(fw_root), "%s", root);
}

const char *
uf_env_sysfs_root(void)
{
	return sysfs_root;
}

void
uf_env_set_sysfs_root(const char *root)
{
	snprintf(sysfs_root, sizeof(sysfs_root), "%s", root);
}

static long
read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f == NULL)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static bool
read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (f == NULL)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* free 2 MiB-equivalents across every hugepage size */
static long
free_huge_mb(long *total_mb)
{
	char path[512];
	struct dirent *de;
	long free_mb = 0;
	DIR *d;

	*total_mb = 0;
	snprintf(path, sizeof(path), "%s/kernel/mm/hugepages", sysfs_root);
	d = opendir(path);
	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		long kb, nfree, ntot;

		if (sscanf(de->d_name, "hugepages-%ldkB", &kb) != 1)
			continue;
		snprintf(path, sizeof(path), "%s/kernel/mm/hugepages/%s/free_hugepages", sysfs_root,
			 de->d_name);
		nfree = read_long(path);
		snprintf(path, sizeof(path), "%s/kernel/mm/hugepages/%s/nr_hugepages", sysfs_root,
			 de->d_name);
		ntot = read_long(path);
		if (nfree > 0)
			free_mb += nfree * kb / 1024;
		if (ntot > 0)
			*total_mb += ntot * kb / 1024;
	}
	closedir(d);
	return free_mb;
}

static bool
hugetlbfs_mounted(void)
{
	FILE *f = fopen("/proc/mounts", "r");
	char line[512];
	bool found = false;

	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, " hugetlbfs ") != NULL)
			found = true;
	fclose(f);
	return found;
}

/* The pid holding EAL's lock on /var/run/dpdk/<prefix>/config, or 0. */
static pid_t
prefix_owner(const char *prefix)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char path[512];
	int fd;

	/* where EAL puts it (eal_filesystem.c): /var/run for root, else XDG_RUNTIME_DIR or /tmp */
	if (geteuid() == 0)
		snprintf(path, sizeof(path), "/var/run/dpdk/%s/config", prefix);
	else
		snprintf(path, sizeof(path), "%s/dpdk/%s/config",
			 xdg != NULL && xdg[0] != '\0' ? xdg : "/tmp", prefix);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fcntl(fd, F_GETLK, &fl) != 0 || fl.l_type == F_UNLCK)
		fl.l_pid = 0;
	close(fd);
	return fl.l_pid;
}

/* The effective capability set, from /proc/self/status (no libcap needed). */
static uint64_t
cap_eff(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long v = 0;
	char line[256];

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "CapEff: %llx", &v) == 1)
			break;
	fclose(f);
	return (uint64_t)v;
}

static uint64_t (*cap_source)(void) = cap_eff;

void
uf_env_set_cap_source(uint64_t (*fn)(void))
{
	cap_source = fn != NULL ? fn : cap_eff;
}

/* locked memory without CAP_IPC_LOCK: only when RLIMIT_MEMLOCK is unlimited */
static bool
memlock_unlimited(void)
{
	struct rlimit rl;

	return getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur == RLIM_INFINITY;
}

static const struct {
	int cap;
	const char *name;
} cap_names[] = {
	{ CAP_NET_RAW, "CAP_NET_RAW" },     { CAP_NET_ADMIN, "CAP_NET_ADMIN" },
	{ CAP_SYS_ADMIN, "CAP_SYS_ADMIN" }, { CAP_IPC_LOCK, "CAP_IPC_LOCK" },
	{ CAP_SYS_RAWIO, "CAP_SYS_RAWIO" },
};

/*
 * What each kind of port needs beyond a plain user (docs/deployment.md, "Least privilege";
 * measured with setpriv on the veth bed): the bits of `need` missing from the effective set,
 * as "CAP_X, CAP_Y" in buf. true when something is missing.
 */
bool
uf_env_missing_caps(uint64_t need, uint64_t have, char *buf, size_t len)
{
	size_t k, o = 0;

	buf[0] = '\0';
	for (k = 0; k < RTE_DIM(cap_names); k++)
		if ((need & (1ULL << cap_names[k].cap)) && !(have & (1ULL << cap_names[k].cap)))
			o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s", o ? ", " : "",
					      cap_names[k].name);
	return o > 0;
}

uint64_t
uf_env_caps_needed(int ksock, bool pci, const char *pci_driver)
{
	uint64_t m = 0;

	if (ksock == UF_KSOCK_PACKET)
		/* the packet sockets; the MTU and promiscuous mode (SIOCSIFMTU, SIOCSIFFLAGS) */
		m = (1ULL << CAP_NET_RAW) | (1ULL << CAP_NET_ADMIN);
	else if (ksock == UF_KSOCK_XSK)
		/* the sockets; attaching XDP; libxdp loads the program and reads program fds by
		 * id (CAP_SYS_ADMIN; CAP_BPF+CAP_PERFMON are not enough); the UMEM is pinned */
		m = (1ULL << CAP_NET_RAW) | (1ULL << CAP_NET_ADMIN) | (1ULL << CAP_SYS_ADMIN) |
		    (1ULL << CAP_IPC_LOCK);
	else if (pci && pci_driver != NULL && strcmp(pci_driver, "vfio-pci") == 0)
		/* vfio pins the DMA memory; the device files are a matter of permissions */
		m = 1ULL << CAP_IPC_LOCK;
	else if (pci && pci_driver != NULL && strcmp(pci_driver, "mlx5_core") == 0)
		m = (1ULL << CAP_NET_RAW) | (1ULL << CAP_NET_ADMIN) | (1ULL << CAP_IPC_LOCK);
	else if (pci)
		/* uio: physical addresses from /proc/self/pagemap, the BARs through /dev/uio */
		m = (1ULL << CAP_SYS_ADMIN) | (1ULL << CAP_SYS_RAWIO) | (1ULL << CAP_IPC_LOCK);
	return m;
}

static void
pci_driver(const char *bdf, char *drv, size_t len)
{
	char path[512], link[512];
	ssize_t n;

	drv[0] = '\0';
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/driver", sysfs_root, bdf);
	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		snprintf(drv, len, "%s", strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
	}
}

/* a hugetlbfs this user may create files in (EAL's file-backed memory) */
static bool
hugetlbfs_writable(void)
{
	FILE *f = fopen("/proc/mounts", "r");
	char line[512], mnt[256], type[64];
	bool ok = false;

	if (f == NULL)
		return true;
	while (!ok && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%*s %255s %63s", mnt, type) == 2 &&
		    strcmp(type, "hugetlbfs") == 0 && access(mnt, W_OK | X_OK) == 0)
			ok = true;
	fclose(f);
	return ok;
}

struct ck {
	bool strict;
	struct uf_err *err;
	uf_env_note_fn note;
	void *arg;
	int count;
};

static int __rte_format_printf(2, 3) problem(struct ck *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->count++;
	if (c->strict) {
		uf_err_set(c->err, UF_EXIT_ENV, "%s", msg);
		return -1;
	}
	if (c->note != NULL)
		c->note(c->arg, msg);
	return 0;
}

static unsigned int
pci_id(const char *bdf, const char *what)
{
	char path[512], val[32];

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/%s", sysfs_root, bdf, what);
	return read_line(path, val, sizeof(val)) ? (unsigned int)strtoul(val, NULL, 16) : 0;
}

/* Intel E810/E82x: the devices net_ice drives */
static bool
is_ice(const char *bdf)
{
	static const uint16_t ids[] = { 0x1591, 0x1592, 0x1593, 0x1599, 0x159a, 0x159b, 0x124c,
					0x124d, 0x124e, 0x124f, 0x151d, 0x188a, 0x188b, 0x188c,
					0x188d, 0x188e, 0x1890, 0x1897, 0x1898, 0x1899, 0x189a };
	unsigned int dev = pci_id(bdf, "device");
	size_t k;

	for (k = 0; k < RTE_DIM(ids); k++)
		if (ids[k] == dev)
			return true;
	return false;
}

/* The PCIe Device Serial Number (extended capability 3), as ice names its packages. */
static bool
pci_dsn(const char *bdf, char *out, size_t len)
{
	char path[512];
	uint8_t cfg[4096];
	uint32_t off = 0x100, hops = 0;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/config", sysfs_root, bdf);
	f = fopen(path, "rb");
	if (f == NULL)
		return false;
	n = fread(cfg, 1, sizeof(cfg), f);
	fclose(f);
	while (off >= 0x100 && off + 12 <= n && hops++ < 64) {
		uint32_t hdr, lo, hi;

		memcpy(&hdr, cfg + off, 4);
		if (hdr == 0 || hdr == 0xffffffff)
			break;
		if ((hdr & 0xffff) == 0x0003) {
			memcpy(&lo, cfg + off + 4, 4);
			memcpy(&hi, cfg + off + 8, 4);
			snprintf(out, len, "%016llx", ((unsigned long long)hi << 32) | lo);
			return true;
		}
		off = hdr >> 20;
	}
	return false;
}

/*
 * A kernel interface under af_xdp or af_packet with IPv6 on (Linux's default): the kernel
 * sends DAD, router solicitations and MLD reports from udpfan's MAC and answers Neighbour
 * Discovery beside udpfan. Works, but is not what docs/deployment.md asks: a note, not a
 * problem. No file (a kernel without IPv6): nothing to say.
 */
static void
note_kernel_ipv6(struct ck *c, int i, const char *iface)
{
	char path[512], val[8] = "";
	FILE *f;

	if (c->note == NULL) /* said at start too: udpfan passes its note there */
		return;
	snprintf(path, sizeof(path), "%s/sys/net/ipv6/conf/%s/disable_ipv6", proc_root, iface);
	f = fopen(path, "r");
	if (f == NULL)
		return;
	if (fgets(val, sizeof(val), f) != NULL && val[0] == '0') {
		char msg[512];

		snprintf(msg, sizeof(msg),
			 "ports[%d]: the kernel has IPv6 on %s: it sends duplicate address "
			 "detection, router solicitations and MLD from udpfan's MAC and answers "
			 "neighbour discovery beside udpfan; turn it off before the interface goes "
			 "up: sysctl -w net.ipv6.conf.%s.disable_ipv6=1 (docs/deployment.md, af_xdp "
			 "and af_packet)",
			 i, iface, iface);
		c->note(c->arg, msg);
	}
	fclose(f);
}

static int
check_ice_ddp(struct ck *c, int i, const struct uf_cfg_port *p)
{
	char dsn[32] = "", path[512], val[16];
	bool xz;

	if (uf_devarg(p->device, "safe-mode-support", val, sizeof(val)) && val[0] == '1') {
		if (c->note != NULL && !c->strict)
			c->note(c->arg,
				"ice safe mode requested: no RSS (one worker only), no checksum "
				"offload, no rte_flow");
		return 0;
	}
	pci_dsn(p->dev_name, dsn, sizeof(dsn));
	if (uf_ice_ddp_find(fw_root, dsn[0] ? dsn : NULL, path, sizeof(path), &xz) == 0)
		return 0;
	return problem(c,
		       "ports[%d].device: %s is an Intel E810 and net_ice needs its DDP package, "
		       "but %s/{updates/,}intel/ice/ddp/ice%s%s%s.pkg is missing%s; install it "
		       "uncompressed (firmware-misc-nonfree has it; this DPDK cannot read .xz), or "
		       "add safe-mode-support=1 to the device string (no RSS, offloads or rte_flow)",
		       i, p->dev_name, fw_root, dsn[0] ? "[-" : "", dsn[0] ? dsn : "",
		       dsn[0] ? "]" : "",
		       xz ? " (only a compressed ice.pkg.xz/.zst is there: unxz it)" : "");
}

/* hugepages where the device is: DMA memory is allocated on the device's NUMA node */
static int
check_node_hugepages(struct ck *c, int i, const struct uf_cfg_port *p)
{
	char path[512], val[32];
	struct dirent *de;
	long node, free_pages = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/numa_node", sysfs_root, p->dev_name);
	if (!read_line(path, val, sizeof(val)) || (node = strtol(val, NULL, 10)) < 0)
		return 0;
	snprintf(path, sizeof(path), "%s/devices/system/node/node%ld/hugepages", sysfs_root, node);
	d = opendir(path);
	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		char f[768];
		long v;

		if (strncmp(de->d_name, "hugepages-", 10) != 0)
			continue;
		snprintf(f, sizeof(f), "%s/%s/free_hugepages", path, de->d_name);
		v = read_long(f);
		if (v > 0)
			free_pages += v;
	}
	closedir(d);
	if (free_pages > 0)
		return 0;
	return problem(c,
		       "ports[%d].device: %s sits on NUMA node %ld, which has no free hugepages; "
		       "its mempools would cross the interconnect or fail: sudo scripts/setup.sh "
		       "hugepages 1024 (reserves on every node)",
		       i, p->dev_name, node);
}

static int
check_pci(struct ck *c, const struct uf_config *cfg, const struct uf_cfg_port *p)
{
	char path[512], link[512], drv[64] = "", val[64];
	unsigned int vendor = 0;
	ssize_t n;
	int i = (int)(p - cfg->ports);

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s", sysfs_root, p->dev_name);
	if (access(path, F_OK) != 0)
		return problem(c,
			       "ports[%d].device: PCI device %s does not exist on this host "
			       "(lspci -D lists the addresses)",
			       i, p->dev_name);
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/vendor", sysfs_root, p->dev_name);
	if (read_line(path, val, sizeof(val)))
		vendor = (unsigned int)strtoul(val, NULL, 16);
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/driver", sysfs_root, p->dev_name);
	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		snprintf(drv, sizeof(drv), "%s",
			 strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
	}
	if (vendor == 0x15b3) {
		/* Mellanox: bifurcated, stays on the kernel driver */
		if (strcmp(drv, "mlx5_core") != 0)
			return problem(c,
				       "ports[%d].device: %s is a Mellanox NIC bound to \"%s\"; the "
				       "mlx5 PMD needs it on mlx5_core (do not bind it to vfio-pci): "
				       "dpdk-devbind.py -b mlx5_core %s",
				       i, p->dev_name, drv[0] ? drv : "no driver", p->dev_name);
		return 0;
	}
	if (strcmp(drv, "vfio-pci") != 0 && strcmp(drv, "igb_uio") != 0 &&
	    strcmp(drv, "uio_pci_generic") != 0)
		return problem(c,
			       "ports[%d].device: %s is bound to \"%s\", not to vfio-pci; bind it "
			       "with scripts/dpdk-bind.sh %s (this takes the interface away from the "
			       "kernel)",
			       i, p->dev_name, drv[0] ? drv : "no driver", p->dev_name);
	if (strcmp(drv, "vfio-pci") == 0) {
		snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/iommu_group", sysfs_root,
			 p->dev_name);
		if (access(path, F_OK) != 0) {
			snprintf(path, sizeof(path),
				 "%s/module/vfio/parameters/enable_unsafe_noiommu_mode",
				 sysfs_root);
			if (!read_line(path, val, sizeof(val)) || val[0] != 'Y')
				return problem(c,
					       "ports[%d].device: %s has no IOMMU group and vfio's "
					       "no-IOMMU mode is off; enable the IOMMU (intel_iommu=on "
					       "/ amd_iommu=on) or, on a host you own entirely (AWS), "
					       "echo 1 > /sys/module/vfio/parameters/"
					       "enable_unsafe_noiommu_mode",
					       i, p->dev_name);
		}
	}
	if (vendor == 0x8086 && is_ice(p->dev_name) && check_ice_ddp(c, i, p) < 0)
		return -1;
	if (!cfg->eal.no_huge && check_node_hugepages(c, i, p) < 0)
		return -1;
	/* ENA devargs the running DPDK does not know make the probe fail */
	if (vendor == 0x1d0f && !UF_ENA_LLQ_POLICY &&
	    uf_devarg(p->device, "llq_policy", val, sizeof(val)))
		return problem(c,
			       "ports[%d].device: llq_policy= does not exist in DPDK %d.%02d (the "
			       "ENA probe would fail); use large_llq_hdr=1 instead",
			       i, RTE_VER_YEAR, RTE_VER_MONTH);
	if (vendor == 0x1d0f && UF_ENA_LLQ_POLICY) {
		static const char *const gone[] = { "large_llq_hdr", "enable_llq",
						    "normal_llq_hdr" };
		size_t k;

		for (k = 0; k < RTE_DIM(gone); k++)
			if (uf_devarg(p->device, gone[k], val, sizeof(val)))
				return problem(c,
					       "ports[%d].device: %s= does not exist in DPDK %d.%02d "
					       "(the ENA probe would fail); use llq_policy= instead "
					       "(0: LLQ off, 1: the device's choice, 3: large headers)",
					       i, gone[k], RTE_VER_YEAR, RTE_VER_MONTH);
	}
	return 0;
}

FILE *
uf_env_open_append(const char *path, const char *what, struct uf_err *err)
{
	/* O_NONBLOCK: a FIFO planted there must not hang the start (cleared below) */
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		      0640);
	struct stat st;
	FILE *f;

	if (fd < 0) {
		uf_err_set(err, UF_EXIT_ENV, "cannot open %s %s: %s%s", what, path, strerror(errno),
			   errno == ELOOP ? " (a symlink: udpfan does not follow one there; give "
					    "the real path, in a directory only root or this user "
					    "may write)"
					  : "");
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !uf_env_uid_trusted(st.st_uid) ||
	    st.st_nlink != 1) {
		uf_err_set(err, UF_EXIT_ENV,
			   "%s %s is not to be trusted (%s, uid %u, %lu link%s): udpfan appends "
			   "only to a regular file with one link that root or this user (uid %u) "
			   "owns; remove it, or put the file in a directory only root or this user "
			   "may write (/var/log/udpfan, /run/udpfan)",
			   what, path,
			   S_ISREG(st.st_mode) ? "a regular file" : "not a regular file",
			   (unsigned int)st.st_uid, (unsigned long)st.st_nlink,
			   st.st_nlink == 1 ? "" : "s", (unsigned int)geteuid());
		close(fd);
		return NULL;
	}
	if (fcntl(fd, F_SETFL, O_APPEND) != 0 || (f = fdopen(fd, "a")) == NULL) {
		uf_err_set(err, UF_EXIT_ENV, "cannot open %s %s: %s", what, path, strerror(errno));
		close(fd);
		return NULL;
	}
	return f;
}

/*
 * net_af_xdp binds queue_count sockets to the interface's queues start_queue.. and counts
 * them in *combined* channels (ETHTOOL_GCHANNELS); an interface with separate RX/TX channels
 * (veth) counts as one. The PMD's own refusal is a log line deep in EAL's output.
 */
static int
check_xdp_queues(struct ck *c, int i, const char *dev, const char *iface)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ifreq ifr;
	char val[32];
	unsigned long want = 1, start = 0, have;
	int fd, ret;

	if (uf_devarg(dev, "queue_count", val, sizeof(val)))
		want = strtoul(val, NULL, 10);
	if (uf_devarg(dev, "start_queue", val, sizeof(val)))
		start = strtoul(val, NULL, 10);
	if (start + want <= 1)
		return 0;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	ifr.ifr_data = (void *)&ch;
	ret = ioctl(fd, SIOCETHTOOL, &ifr);
	close(fd);
	have = (ret == 0 && ch.max_combined != 0) ? ch.combined_count : 1;
	if (start + want <= have)
		return 0;
	if (ret == 0 && ch.max_combined == 0 && ch.max_rx > 1)
		return problem(c,
			       "ports[%d].device: %s has %u RX channels but no combined ones (veth); "
			       "net_af_xdp counts only combined channels, so it offers one queue here: "
			       "use queue_count=1 with one worker, or net_af_packet with qpairs=%lu",
			       i, iface, ch.rx_count, want);
	return problem(c,
		       "ports[%d].device: start_queue=%lu + queue_count=%lu needs %lu combined "
		       "channels but %s has %lu: ethtool -L %s combined %lu",
		       i, start, want, start + want, iface, have, iface, start + want);
}

int
uf_pci_bar_phys(const char *bdf, int bar, uint64_t *phys)
{
	char path[512], line[256];
	int k = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/resource", sysfs_root, bdf);
	f = fopen(path, "r");
	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (k++ == bar) {
			unsigned long long start;

			fclose(f);
			if (sscanf(line, "%llx", &start) != 1 || start == 0)
				return -ENOENT;
			*phys = start;
			return 0;
		}
	}
	fclose(f);
	return -ENOENT;
}

int
uf_env_check(const struct uf_config *cfg, bool strict, struct uf_err *err, uf_env_note_fn note,
	     void *arg)
{
	struct ck c = { .strict = strict, .err = err, .note = note, .arg = arg };
	bool needs_root = !cfg->eal.no_huge;
	long total_mb, free_mb;
	int i;

	for (i = 0; i < cfg->n_ports; i++) {
		const struct uf_cfg_port *p = &cfg->ports[i];
		const struct uf_quirk *q;
		char iface[64], path[512];

		if (p->is_pci) {
			needs_root = true;
			if (check_pci(&c, cfg, p) < 0)
				return -1;
			continue;
		}
		q = uf_quirk_lookup_vdev(p->device);
		if (q->kernel_sock != UF_KSOCK_NONE) {
			needs_root = true;
			if (!uf_devarg(p->device, "iface", iface, sizeof(iface))) {
				if (problem(&c, "ports[%d].device: \"%s\" needs iface=<interface>",
					    i, p->device) < 0)
					return -1;
				continue;
			}
			snprintf(path, sizeof(path), "%s/class/net/%s", sysfs_root, iface);
			if (access(path, F_OK) != 0) {
				if (problem(&c,
					    "ports[%d].device: interface %s does not exist in this "
					    "network namespace (ip link; run udpfan with ip netns "
					    "exec if it lives in another one)",
					    i, iface) < 0)
					return -1;
				continue;
			}
			if (q->kernel_sock == UF_KSOCK_XSK &&
			    check_xdp_queues(&c, i, p->device, iface) < 0)
				return -1;
			note_kernel_ipv6(&c, i, iface);
		}
	}
	(void)needs_root;
	for (i = 0; i < cfg->n_ports; i++) {
		const struct uf_cfg_port *p = &cfg->ports[i];
		uint64_t need, have = cap_source();
		char drv[64] = "", miss[160];
		int ks = UF_KSOCK_NONE;

		if (p->is_pci)
			pci_driver(p->dev_name, drv, sizeof(drv));
		else
			ks = uf_quirk_lookup_vdev(p->device)->kernel_sock;
		need = uf_env_caps_needed(ks, p->is_pci, drv);
		if ((need & (1ULL << CAP_IPC_LOCK)) && memlock_unlimited())
			need &= ~(1ULL << CAP_IPC_LOCK);
		if (uf_env_missing_caps(need, have, miss, sizeof(miss)) &&
		    problem(&c,
			    "ports[%d].device: %s needs %s, which this process lacks (uid %u); grant "
			    "%s (systemd AmbientCapabilities=, setpriv --ambient-caps; "
			    "docs/deployment.md lists what each PMD needs) or run as root",
			    i, p->is_pci ? p->dev_name : p->device, miss, (unsigned int)geteuid(),
			    strchr(miss, ',') != NULL ? "them" : "it") < 0)
			return -1;
	}
	if (!cfg->eal.no_huge && !cfg->eal.in_memory && !hugetlbfs_writable() &&
	    problem(&c,
		    "no hugetlbfs mount is writable by uid %u (EAL keeps its memory in "
		    "files there): set eal.in_memory: true, or mount one it owns (mount -t "
		    "hugetlbfs -o uid=%u nodev /dev/hugepages); docs/deployment.md",
		    (unsigned int)geteuid(), (unsigned int)geteuid()) < 0)
		return -1;
	if (!cfg->eal.in_memory && !cfg->eal.no_huge) {
		pid_t owner = prefix_owner(cfg->eal.file_prefix);

		if (owner != 0 && problem(&c,
					  "eal.file_prefix \"%s\" is in use by another DPDK "
					  "process (pid %ld): stop it, or give this one another "
					  "file_prefix",
					  cfg->eal.file_prefix, (long)owner) < 0)
			return -1;
	}
	if (!cfg->eal.no_huge) {
		free_mb = free_huge_mb(&total_mb);
		if (free_mb == 0 &&
		    problem(&c,
			    "no free hugepages (%ld MiB reserved, all in use or none): "
			    "sudo scripts/setup.sh hugepages, or echo 1024 > "
			    "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages",
			    total_mb) < 0)
			return -1;
		if (!cfg->eal.in_memory && !hugetlbfs_mounted() &&
		    problem(&c, "no hugetlbfs is mounted: sudo mount -t hugetlbfs nodev "
				"/dev/hugepages (scripts/setup.sh hugepages does it)") < 0)
			return -1;
	}
	return c.count;
}

int
uf_env_check_llq_wc(const struct uf_cfg_port *pc, const struct uf_quirk *q, struct uf_err *err)
{
	char val[16], path[512];
	uint64_t bar;

	if (!q->llq_wc_bar2 || !pc->is_pci)
		return 0;
	if (uf_devarg(pc->device, UF_ENA_LLQ_OFF_KEY, val, sizeof(val)) && val[0] == '0') {
		UF_LOG(WARNING,
		       "port %s: LLQ disabled (%s=0): on 6th-generation instances "
		       "and newer this costs much of the throughput",
		       pc->name, UF_ENA_LLQ_OFF_KEY);
		return 0;
	}
	if (uf_pci_bar_phys(pc->dev_name, 2, &bar) != 0) {
		UF_LOG(NOTICE, "port %s: cannot read BAR2 of %s; write-combining not verified",
		       pc->name, pc->dev_name);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/kernel/debug/x86/pat_memtype_list", uf_env_sysfs_root());
	switch (uf_wc_check(path, bar)) {
	case 1:
		UF_LOG(INFO, "port %s: LLQ BAR2 at 0x%" PRIx64 " is write-combining", pc->name,
		       bar);
		return 0;
	case 0:
		uf_err_set(err, UF_EXIT_ENV,
			   "port %s: the ENA LLQ BAR2 at 0x%" PRIx64 " is mapped "
			   "uncached, not write-combining: every TX descriptor push would be a "
			   "slow PCI write. Bind the ENI to a vfio-pci built with write-combining "
			   "(amzn-drivers get-vfio-with-wc.sh) or to igb_uio with wc_activate=1 "
			   "(docs/deployment.md); %s=0 in the device string runs without LLQ "
			   "instead",
			   pc->name, bar, UF_ENA_LLQ_OFF_KEY);
		return -1;
	default:
		UF_LOG(NOTICE,
		       "port %s: cannot tell whether LLQ BAR2 is write-combining (mount "
		       "debugfs: mount -t debugfs none /sys/kernel/debug)",
		       pc->name);
		return 0;
	}
}

/* AddressSanitizer and ThreadSanitizer reserve terabytes of shadow memory: no mlockall there */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UF_SANITIZER_SHADOW 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UF_SANITIZER_SHADOW 1
#endif
#endif

/*
 * mlockall(MCL_CURRENT | MCL_FUTURE), as testpmd and OVS-DPDK do. What it buys is less the
 * absence of swapping than where page faults happen: a mapping a PMD makes while udpfan runs
 * (net_memif maps its peer's regions at each connect, net_vhost the guest's memory) is
 * populated by that mmap(), on the control thread that makes it, instead of a 4-KiB page at a
 * time by the worker that first touches it (a fault per page, each 20-40 us on this VM, on the
 * first pass over memif's rings: docs/benchmarks.md#latency).
 */
int
uf_env_lock_memory(void)
{
#ifdef UF_SANITIZER_SHADOW
	return -ENOTSUP;
#else
	return mlockall(MCL_CURRENT | MCL_FUTURE) == 0 ? 0 : -errno;
#endif
}
