/* SPDX-License-Identifier: BSD-3-Clause
 * lib/env: the EAL argv built from a config, and the pre-EAL environment checks against a
 * fake sysfs tree. Configs are built by hand here (no YAML), so only lib/env is under test.
 *
 * uf_env_check also reads geteuid() and /proc/mounts; the cases below either avoid those
 * checks (no_huge, in_memory) or look only for the notes they are about, so they pass as root
 * (CI) and as a user.
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/capability.h>

#include "uf_compat.h"
#include "uf_env.h"
#include "uf_test.h"

static struct uf_config *
new_cfg(void)
{
	struct uf_config *cfg = calloc(1, sizeof(*cfg));

	if (cfg == NULL)
		abort();
	snprintf(cfg->path, sizeof(cfg->path), "t.yaml");
	snprintf(cfg->eal.file_prefix, sizeof(cfg->eal.file_prefix), "uftest");
	return cfg;
}

static void
add_port(struct uf_config *cfg, const char *device, bool is_pci, const char *dev_name)
{
	struct uf_cfg_port *p = &cfg->ports[cfg->n_ports++];

	snprintf(p->name, sizeof(p->name), "p%d", cfg->n_ports - 1);
	snprintf(p->device, sizeof(p->device), "%s", device);
	snprintf(p->dev_name, sizeof(p->dev_name), "%s", dev_name);
	p->is_pci = is_pci;
	p->ip = (rte_be32_t)(0x0a000000 + cfg->n_ports);
	p->prefix_len = 24;
}

static int
find(const struct uf_eal_argv *a, const char *s)
{
	int i;

	for (i = 0; i < a->argc; i++)
		if (strcmp(a->argv[i], s) == 0)
			return i;
	return -1;
}

static int
count(const struct uf_eal_argv *a, const char *s)
{
	int i, n = 0;

	for (i = 0; i < a->argc; i++)
		n += strcmp(a->argv[i], s) == 0;
	return n;
}

/* the value after option `opt`, or NULL */
static const char *
after(const struct uf_eal_argv *a, const char *opt)
{
	int i = find(a, opt);

	return i >= 0 && i + 1 < a->argc ? a->argv[i + 1] : NULL;
}

/* is there an "opt value" pair anywhere? */
static bool
has_pair(const struct uf_eal_argv *a, const char *opt, const char *val)
{
	int i;

	for (i = 0; i + 1 < a->argc; i++)
		if (strcmp(a->argv[i], opt) == 0 && strcmp(a->argv[i + 1], val) == 0)
			return true;
	return false;
}

static struct uf_eal_argv av;

static void
test_argv_vdev_only(void)
{
	struct uf_config *cfg = new_cfg();
	struct uf_err err = { 0 };

	snprintf(cfg->eal.lcores, sizeof(cfg->eal.lcores), "2-4");
	add_port(cfg, "net_ring0", false, "net_ring0");
	add_port(cfg, "net_af_xdp0,iface=veth1,queue_count=2", false, "net_af_xdp0");
	CHECK_EQ(uf_eal_argv_build(cfg, "udpfan", &av, &err), 0);
	CHECK_STR(av.argv[0], "udpfan");
	CHECK(av.argv[av.argc] == NULL, "argv is NULL-terminated");
	CHECK_EQ(count(&av, "--no-pci"), 1);
	CHECK(has_pair(&av, "--vdev", "net_ring0"), "--vdev net_ring0");
	CHECK(has_pair(&av, "--vdev", "net_af_xdp0,iface=veth1,queue_count=2"),
	      "--vdev with its arguments");
	CHECK_EQ(count(&av, "--vdev"), 2);
	CHECK_EQ(count(&av, "-a"), 0);
	/* VLAN ports on those devices: each device once */
	add_port(cfg, "net_ring0", false, "net_ring0");
	add_port(cfg, "net_af_xdp0,iface=veth1,queue_count=2", false, "net_af_xdp0");
	CHECK_EQ(uf_eal_argv_build(cfg, "udpfan", &av, &err), 0);
	CHECK_EQ(count(&av, "--vdev"), 2);
	CHECK_STR(after(&av, "-l"), "2-4");
	CHECK_STR(after(&av, "--main-lcore"), "2");
	CHECK_STR(after(&av, "--file-prefix"), "uftest");
	CHECK_EQ(count(&av, "--in-memory"), 0);
	CHECK_EQ(count(&av, "--no-huge"), 0);
	CHECK_EQ(count(&av, "-m"), 0);
	free(cfg);
}

/*
 * af_packet ignores nb_rx_desc: its RX ring is the framecnt devarg (512 frames by default,
 * 3.4 ms at 150 kpps). ports[].rx_desc goes there, rounded up to a power of 2, never below
 * 512, and a framecnt the user gave is kept; other vdevs are passed through unchanged.
 */
static void
test_argv_ring_devarg(void)
{
	struct uf_config *cfg = new_cfg();
	struct uf_err err = { 0 };

	snprintf(cfg->eal.lcores, sizeof(cfg->eal.lcores), "0-1");
	add_port(cfg, "net_af_packet0,iface=fwd0,qpairs=1", false, "net_af_packet0");
	cfg->ports[0].rx_desc = 4096;
	add_port(cfg, "eth_af_packet1,iface=e1,framecnt=1024", false, "eth_af_packet1");
	cfg->ports[1].rx_desc = 4096;
	add_port(cfg, "net_af_packet2,iface=e2", false, "net_af_packet2");
	cfg->ports[2].rx_desc = 1000;
	add_port(cfg, "net_af_packet3,iface=e3,xframecnt=7", false, "net_af_packet3");
	cfg->ports[3].rx_desc = 32;
	add_port(cfg, "net_af_xdp0,iface=e4", false, "net_af_xdp0");
	cfg->ports[4].rx_desc = 4096;
	CHECK_EQ(uf_eal_argv_build(cfg, "udpfan", &av, &err), 0);
	CHECK(has_pair(&av, "--vdev", "net_af_packet0,iface=fwd0,qpairs=1,framecnt=4096"),
	      "rx_desc becomes af_packet's framecnt");
	CHECK(has_pair(&av, "--vdev", "eth_af_packet1,iface=e1,framecnt=1024"),
	      "the user's framecnt is kept");
	CHECK(has_pair(&av, "--vdev", "net_af_packet2,iface=e2,framecnt=1024"),
	      "rounded up to a power of 2");
	CHECK(has_pair(&av, "--vdev", "net_af_packet3,iface=e3,xframecnt=7,framecnt=512"),
	      "never below the PMD's 512; only a whole key counts as given");
	CHECK(has_pair(&av, "--vdev", "net_af_xdp0,iface=e4"), "af_xdp passed through");
	free(cfg);
}

static void
test_argv_pci(void)
{
	struct uf_config *cfg = new_cfg();
	struct uf_err err = { 0 };
	char line[1024];

	snprintf(cfg->eal.lcores, sizeof(cfg->eal.lcores), "5,3,7");
	add_port(cfg, "0000:00:06.0,large_llq_hdr=1", true, "0000:00:06.0");
	add_port(cfg, "0000:00:07.0", true, "0000:00:07.0");
	add_port(cfg, "net_af_packet0,iface=eth2,qpairs=2", false, "net_af_packet0");
	CHECK_EQ(uf_eal_argv_build(cfg, "prog", &av, &err), 0);
	CHECK(has_pair(&av, "-a", "0000:00:06.0,large_llq_hdr=1"), "-a with devargs");
	CHECK(has_pair(&av, "-a", "0000:00:07.0"), "-a plain");
	CHECK_EQ(count(&av, "-a"), 2);
	CHECK(has_pair(&av, "--vdev", "net_af_packet0,iface=eth2,qpairs=2,framecnt=512"),
	      "the vdev too (af_packet: with its ring size)");
	add_port(cfg, "0000:00:07.0", true, "0000:00:07.0"); /* a VLAN port on it */
	CHECK_EQ(uf_eal_argv_build(cfg, "prog", &av, &err), 0);
	CHECK_EQ(count(&av, "-a"), 2);
	CHECK_EQ(count(&av, "--no-pci"), 0);
	CHECK_STR(after(&av, "-l"), "5,3,7");
	CHECK_STR(after(&av, "--main-lcore"), "5"); /* the first listed, not the lowest */
	uf_eal_argv_str(&av, line, sizeof(line));
	CHECK(strncmp(line, "prog -l 5,3,7", 13) == 0, "one line: %s", line);
	CHECK_HAS(line, " -a 0000:00:06.0,large_llq_hdr=1");
	free(cfg);
}

static void
test_argv_options(void)
{
	struct uf_config *cfg = new_cfg();
	struct uf_err err = { 0 };
	char *extra[] = { "--log-level=user.udpfan:debug", "--no-telemetry" };

	snprintf(cfg->eal.lcores, sizeof(cfg->eal.lcores), "0-1");
	add_port(cfg, "net_null0", false, "net_null0");
	cfg->eal.in_memory = true;
	cfg->eal.memory_mb = 256;
	cfg->eal.n_extra = 2;
	cfg->eal.extra_args = extra;
	CHECK_EQ(uf_eal_argv_build(cfg, "udpfan", &av, &err), 0);
	CHECK_EQ(count(&av, "--in-memory"), 1);
	CHECK_EQ(count(&av, "--no-huge"), 0);
	CHECK_STR(after(&av, "-m"), "256");
	/* extra arguments come last, in order, verbatim */
	CHECK(av.argc >= 3, "argc %d", av.argc);
	CHECK_STR(av.argv[av.argc - 2], "--log-level=user.udpfan:debug");
	CHECK_STR(av.argv[av.argc - 1], "--no-telemetry");
	CHECK(av.argv[av.argc] == NULL, "NULL-terminated");

	cfg->eal.in_memory = false;
	cfg->eal.no_huge = true;
	cfg->eal.memory_mb = 0;
	cfg->eal.n_extra = 0;
	cfg->eal.extra_args = NULL;
	CHECK_EQ(uf_eal_argv_build(cfg, "udpfan", &av, &err), 0);
	CHECK_EQ(count(&av, "--no-huge"), 1);
	CHECK_EQ(count(&av, "--in-memory"), 0);
	CHECK_EQ(count(&av, "-m"), 0);
	CHECK_STR(av.argv[av.argc - 1], "--no-pci");
	free(cfg);
}

/* no eal.lcores: the first two CPUs this process may run on */
static void
test_argv_default_lcores(void)
{
	struct uf_config *cfg = new_cfg();
	struct uf_err err = { 0 };
	char want[32] = "0-1";
	const char *main_lc = "0";
	char first[8] = "";
	cpu_set_t set;
	int cpu, found = 0;

	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		for (cpu = 0; cpu < CPU_SETSIZE && found < 2; cpu++) {
			if (!CPU_ISSET(cpu, &set))
				continue;
			if (found++ == 0)
				snprintf(first, sizeof(first), "%d", cpu);
			else
				snprintf(want, sizeof(want), "%s,%d", first, cpu);
		}
		if (found == 2)
			main_lc = first;
	}
	add_port(cfg, "net_ring0", false, "net_ring0");
	CHECK_EQ(uf_eal_argv_build(cfg, "udpfan", &av, &err), 0);
	CHECK_STR(after(&av, "-l"), want);
	CHECK_STR(after(&av, "--main-lcore"), main_lc);
	free(cfg);
}

static void
test_argv_errors(void)
{
	struct uf_config *cfg = new_cfg();
	struct uf_err err = { 0 };
	char *many[200];
	int i;

	add_port(cfg, "net_ring0", false, "net_ring0");
	snprintf(cfg->eal.lcores, sizeof(cfg->eal.lcores), "3");
	CHECK_EQ(uf_eal_argv_build(cfg, "udpfan", &av, &err), -1);
	CHECK_EQ(err.code, UF_EXIT_CONFIG);
	CHECK_HAS(err.msg, "eal.lcores");

	snprintf(cfg->eal.lcores, sizeof(cfg->eal.lcores), "0-1");
	for (i = 0; i < 200; i++)
		many[i] = "--x";
	cfg->eal.n_extra = 200;
	cfg->eal.extra_args = many;
	memset(&err, 0, sizeof(err));
	CHECK_EQ(uf_eal_argv_build(cfg, "udpfan", &av, &err), -1);
	CHECK_EQ(err.code, UF_EXIT_CONFIG);
	CHECK_HAS(err.msg, "too many");
	free(cfg);
}

static void
test_devarg(void)
{
	char v[16];

	CHECK(uf_devarg("net_af_xdp0,iface=eth1,queue_count=2", "iface", v, sizeof(v)), "iface");
	CHECK_STR(v, "eth1");
	CHECK(uf_devarg("net_af_xdp0,iface=eth1,queue_count=2", "queue_count", v, sizeof(v)),
	      "queue_count");
	CHECK_STR(v, "2");
	CHECK(!uf_devarg("net_af_xdp0,iface=eth1", "start_queue", v, sizeof(v)), "absent");
	CHECK(!uf_devarg("net_af_xdp0,ifacex=eth1", "iface", v, sizeof(v)), "a longer key");
	CHECK(!uf_devarg("iface=eth1", "iface", v, sizeof(v)), "the device name is not a devarg");
	CHECK(uf_devarg("x,iface=averyveryverylongname", "iface", v, 5), "truncated");
	CHECK_STR(v, "aver");
	CHECK(uf_devarg("x,a=,b=1", "a", v, sizeof(v)), "empty value");
	CHECK_STR(v, "");
}

/* ---- uf_env_check on a fake sysfs ---- */

struct notes {
	int n;
	char msg[16][512];
};

static void
note(void *arg, const char *msg)
{
	struct notes *ns = arg;

	if (ns->n < 16)
		snprintf(ns->msg[ns->n++], sizeof(ns->msg[0]), "%s", msg);
}

/* the note containing needle, or NULL */
static const char *
note_with(const struct notes *ns, const char *needle)
{
	int i;

	for (i = 0; i < ns->n; i++)
		if (strstr(ns->msg[i], needle) != NULL)
			return ns->msg[i];
	return NULL;
}

static char sys[256];

static void
hugepages(const char *size_dir, const char *free_n, const char *total_n)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "kernel/mm/hugepages/%s/free_hugepages", size_dir);
	uf_t_write(sys, rel, free_n);
	snprintf(rel, sizeof(rel), "kernel/mm/hugepages/%s/nr_hugepages", size_dir);
	uf_t_write(sys, rel, total_n);
}

/* a PCI device in the fake sysfs, bound to `drv` (NULL: unbound) */
static void
pci_dev(const char *addr, const char *vendor, const char *drv, bool iommu_group)
{
	char rel[256], target[256];

	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/vendor", addr);
	uf_t_write(sys, rel, vendor);
	if (drv != NULL) {
		snprintf(rel, sizeof(rel), "bus/pci/drivers/%s/bind", drv);
		uf_t_write(sys, rel, "");
		snprintf(rel, sizeof(rel), "bus/pci/devices/%s/driver", addr);
		snprintf(target, sizeof(target), "../../../../bus/pci/drivers/%s", drv);
		uf_t_symlink(sys, rel, target);
	}
	if (iommu_group) {
		snprintf(rel, sizeof(rel), "kernel/iommu_groups/%s", addr);
		uf_t_mkdirs(sys, rel, true);
		snprintf(rel, sizeof(rel), "bus/pci/devices/%s/iommu_group", addr);
		snprintf(target, sizeof(target), "../../../../kernel/iommu_groups/%s", addr);
		uf_t_symlink(sys, rel, target);
	}
}

static void
fresh_sysfs(void)
{
	if (sys[0] != '\0')
		uf_t_rmtree(sys);
	uf_t_mkdtemp(sys, sizeof(sys));
	uf_t_mkdirs(sys, "class/net/lo", true);
	uf_t_mkdirs(sys, "bus/pci/devices", true);
	uf_t_mkdirs(sys, "kernel/mm/hugepages", true);
	uf_env_set_sysfs_root(sys);
}

static void
test_env_hugepages(void)
{
	struct uf_config *cfg = new_cfg();
	struct uf_err err = { 0 };
	struct notes ns = { 0 };
	const char *m;
	int rc;

	fresh_sysfs();
	snprintf(cfg->eal.lcores, sizeof(cfg->eal.lcores), "0-1");
	add_port(cfg, "net_ring0", false, "net_ring0");
	cfg->eal.in_memory = true; /* no hugetlbfs mount needed: /proc/mounts is not ours */

	/* 512 x 2 MiB reserved, all in use */
	hugepages("hugepages-2048kB", "0\n", "512\n");
	hugepages("hugepages-1048576kB", "0\n", "0\n");
	rc = uf_env_check(cfg, false, &err, note, &ns);
	m = note_with(&ns, "hugepages");
	CHECK(m != NULL, "a note about hugepages (%d notes)", ns.n);
	CHECK_HAS(m, "no free hugepages");
	CHECK_HAS(m, "1024 MiB reserved");
	CHECK_HAS(m, "nr_hugepages"); /* the fix */
	CHECK_EQ(rc, ns.n);
	CHECK(rc >= 1, "counted");
	/* strict: the first problem is the error, exit code 3 */
	memset(&err, 0, sizeof(err));
	CHECK_EQ(uf_env_check(cfg, true, &err, NULL, NULL), -1);
	CHECK_EQ(err.code, UF_EXIT_ENV);
	if (geteuid() == 0)
		CHECK_HAS(err.msg, "no free hugepages");

	/* free 1 GiB pages count too */
	hugepages("hugepages-1048576kB", "1\n", "1\n");
	memset(&ns, 0, sizeof(ns));
	uf_env_check(cfg, false, &err, note, &ns);
	CHECK(note_with(&ns, "no free hugepages") == NULL, "1 GiB free: %s", ns.n ? ns.msg[0] : "");

	/* no hugepage sizes at all */
	fresh_sysfs();
	memset(&ns, 0, sizeof(ns));
	uf_env_check(cfg, false, &err, note, &ns);
	CHECK(note_with(&ns, "no free hugepages") != NULL, "no hugepages configured");

	/* free pages: fine, and with eal.no_huge nothing is checked */
	hugepages("hugepages-2048kB", "100\n", "512\n");
	memset(&ns, 0, sizeof(ns));
	rc = uf_env_check(cfg, false, &err, note, &ns);
	CHECK_EQ(rc, 0);
	fresh_sysfs();
	cfg->eal.in_memory = false;
	cfg->eal.no_huge = true;
	memset(&ns, 0, sizeof(ns));
	CHECK_EQ(uf_env_check(cfg, false, &err, note, &ns), 0); /* net_ring: no root needed */
	free(cfg);
}

static void
test_env_kernel_ifaces(void)
{
	struct uf_config *cfg = new_cfg();
	struct uf_err err = { 0 };
	struct notes ns = { 0 };
	const char *m;
	int root_note = 0; /* every capability (main); test_env_caps takes some away */

	fresh_sysfs();
	uf_t_mkdirs(sys, "class/net/veth_ok", true);
	cfg->eal.no_huge = true;
	add_port(cfg, "net_af_xdp0,iface=veth_nope,queue_count=1", false, "net_af_xdp0");
	CHECK_EQ(uf_env_check(cfg, false, &err, note, &ns), 1 + root_note);
	m = note_with(&ns, "veth_nope");
	CHECK(m != NULL, "the missing interface is named");
	CHECK_HAS(m, "ports[0].device");
	CHECK_HAS(m, "does not exist");
	memset(&err, 0, sizeof(err));
	CHECK_EQ(uf_env_check(cfg, true, &err, NULL, NULL), -1);
	CHECK_EQ(err.code, UF_EXIT_ENV);
	CHECK_HAS(err.msg, "veth_nope");

	/* the interface exists: fine */
	snprintf(cfg->ports[0].device, sizeof(cfg->ports[0].device),
		 "net_af_xdp0,iface=veth_ok,queue_count=1");
	memset(&ns, 0, sizeof(ns));
	CHECK_EQ(uf_env_check(cfg, false, &err, note, &ns), root_note);
	CHECK(note_with(&ns, "veth_ok") == NULL, "no note about veth_ok");

	/* IPv6 on the kernel interface (Linux's default): a note naming the sysctl, not a
	 * problem (the count stays); off, or no IPv6 in the kernel (no file): nothing */
	{
		char proc[256], conf[300];
		FILE *f;

		uf_t_mkdtemp(proc, sizeof(proc));
		uf_t_mkdirs(proc, "sys/net/ipv6/conf/veth_ok", true);
		snprintf(conf, sizeof(conf), "%s/sys/net/ipv6/conf/veth_ok/disable_ipv6", proc);
		uf_env_set_proc_root(proc);
		f = fopen(conf, "w");
		CHECK(f != NULL, "%s", conf);
		fputs("0\n", f);
		fclose(f);
		memset(&ns, 0, sizeof(ns));
		CHECK_EQ(uf_env_check(cfg, false, &err, note, &ns), root_note);
		m = note_with(&ns, "disable_ipv6");
		CHECK(m != NULL, "IPv6 on veth_ok noted");
		CHECK_HAS(m, "net.ipv6.conf.veth_ok.disable_ipv6=1");
		CHECK_HAS(m, "ports[0]");
		/* strict (the start): not a problem, still said */
		memset(&err, 0, sizeof(err));
		memset(&ns, 0, sizeof(ns));
		CHECK_EQ(uf_env_check(cfg, true, &err, note, &ns), 0);
		CHECK(note_with(&ns, "disable_ipv6") != NULL, "noted at start too");
		f = fopen(conf, "w");
		fputs("1\n", f);
		fclose(f);
		memset(&ns, 0, sizeof(ns));
		CHECK_EQ(uf_env_check(cfg, false, &err, note, &ns), root_note);
		CHECK(note_with(&ns, "disable_ipv6") == NULL, "IPv6 off: no note");
		uf_env_set_proc_root(sys); /* no sys/net/ipv6 there: a kernel without IPv6 */
		memset(&ns, 0, sizeof(ns));
		CHECK_EQ(uf_env_check(cfg, false, &err, note, &ns), root_note);
		CHECK(note_with(&ns, "disable_ipv6") == NULL, "no IPv6 in the kernel: no note");
		uf_env_set_proc_root("/proc");
		uf_t_rmtree(proc);
	}

	/* af_packet (and the eth_ alias) without iface= */
	snprintf(cfg->ports[0].device, sizeof(cfg->ports[0].device), "eth_af_packet0,qpairs=2");
	memset(&ns, 0, sizeof(ns));
	CHECK_EQ(uf_env_check(cfg, false, &err, note, &ns), 1 + root_note);
	CHECK(note_with(&ns, "needs iface=") != NULL, "af_packet needs iface=");

	/* every problem is reported when not strict */
	add_port(cfg, "net_af_packet1,iface=gone1", false, "net_af_packet1");
	memset(&ns, 0, sizeof(ns));
	CHECK_EQ(uf_env_check(cfg, false, &err, note, &ns), 2 + root_note);
	CHECK(note_with(&ns, "gone1") != NULL, "the second port's interface too");
	CHECK(note_with(&ns, "ports[1].device") != NULL, "named by index");
	free(cfg);
}

static uint64_t caps_fake;

static uint64_t
caps_all(void)
{
	return ~0ULL;
}

static uint64_t
caps_some(void)
{
	return caps_fake;
}

/* each missing capability named, per PMD; none asked of a port that needs none */
static void
test_env_caps(void)
{
	struct uf_config *cfg = new_cfg();
	struct uf_err err = { 0 };
	struct notes ns = { 0 };
	char miss[160];
	const char *m;

	CHECK(uf_env_missing_caps(1ULL << CAP_NET_RAW | 1ULL << CAP_IPC_LOCK, 1ULL << CAP_NET_RAW,
				  miss, sizeof(miss)),
	      "IPC_LOCK missing");
	CHECK_STR(miss, "CAP_IPC_LOCK");
	CHECK(!uf_env_missing_caps(1ULL << CAP_NET_RAW, 1ULL << CAP_NET_RAW, miss, sizeof(miss)),
	      "nothing missing");
	CHECK_EQ(uf_env_caps_needed(0, false, NULL), 0); /* net_ring, net_pcap: none */
	CHECK(uf_env_caps_needed(0, true, "vfio-pci") == 1ULL << CAP_IPC_LOCK, "vfio: IPC_LOCK");

	fresh_sysfs();
	uf_t_mkdirs(sys, "class/net/veth_ok", true);
	cfg->eal.no_huge = true;
	add_port(cfg, "net_af_packet0,iface=veth_ok", false, "net_af_packet0");
	uf_env_set_cap_source(caps_some);
	caps_fake = 1ULL << CAP_NET_RAW;
	CHECK_EQ(uf_env_check(cfg, false, &err, note, &ns), 1);
	m = note_with(&ns, "CAP_");
	CHECK(m != NULL, "a note names a capability");
	CHECK_HAS(m, "needs CAP_NET_ADMIN,");
	CHECK(strstr(m, "CAP_NET_RAW") == NULL, "what it has is not named: %s", m);
	caps_fake = 1ULL << CAP_NET_ADMIN;
	memset(&err, 0, sizeof(err));
	CHECK_EQ(uf_env_check(cfg, true, &err, NULL, NULL), -1);
	CHECK_EQ(err.code, UF_EXIT_ENV);
	CHECK_HAS(err.msg, "needs CAP_NET_RAW,");
	caps_fake = 1ULL << CAP_NET_ADMIN | 1ULL << CAP_NET_RAW;
	memset(&ns, 0, sizeof(ns));
	CHECK_EQ(uf_env_check(cfg, false, &err, note, &ns), 0);

	/* af_xdp: CAP_SYS_ADMIN on top (libxdp), CAP_IPC_LOCK unless memlock is unlimited */
	snprintf(cfg->ports[0].device, sizeof(cfg->ports[0].device),
		 "net_af_xdp0,iface=veth_ok,queue_count=1");
	memset(&ns, 0, sizeof(ns));
	CHECK_EQ(uf_env_check(cfg, false, &err, note, &ns), 1);
	CHECK_HAS(note_with(&ns, "CAP_"), "CAP_SYS_ADMIN");
	uf_env_set_cap_source(caps_all);
	free(cfg);
}

static void
test_env_pci(void)
{
	struct uf_config *cfg = new_cfg();
	struct uf_err err = { 0 };
	struct notes ns = { 0 };
	const char *m;
	int root_note = 0; /* every capability (main); test_env_caps takes some away */

	cfg->eal.no_huge = true;
	add_port(cfg, "0000:00:06.0", true, "0000:00:06.0");

	/* the device does not exist */
	fresh_sysfs();
	CHECK_EQ(uf_env_check(cfg, false, &err, note, &ns), 1 + root_note);
	CHECK(note_with(&ns, "0000:00:06.0 does not exist") != NULL, "missing PCI device");

	/* bound to the kernel's ixgbe */
	fresh_sysfs();
	pci_dev("0000:00:06.0", "0x8086\n", "ixgbe", true);
	memset(&ns, 0, sizeof(ns));
	CHECK_EQ(uf_env_check(cfg, false, &err, note, &ns), 1 + root_note);
	m = note_with(&ns, "0000:00:06.0");
	CHECK(m != NULL, "a note about the device");
	CHECK_HAS(m, "\"ixgbe\"");
	CHECK_HAS(m, "vfio-pci");
	CHECK_HAS(m, "scripts/dpdk-bind.sh");
	memset(&err, 0, sizeof(err));
	CHECK_EQ(uf_env_check(cfg, true, &err, NULL, NULL), -1);
	CHECK_EQ(err.code, UF_EXIT_ENV);
	CHECK_HAS(err.msg, "vfio-pci");

	/* not bound at all */
	fresh_sysfs();
	pci_dev("0000:00:06.0", "0x8086\n", NULL, true);
	memset(&ns, 0, sizeof(ns));
	uf_env_check(cfg, false, &err, note, &ns);
	CHECK(note_with(&ns, "no driver") != NULL, "unbound device");

	/* bound to vfio-pci with an IOMMU group: fine */
	fresh_sysfs();
	pci_dev("0000:00:06.0", "0x8086\n", "vfio-pci", true);
	memset(&ns, 0, sizeof(ns));
	CHECK_EQ(uf_env_check(cfg, false, &err, note, &ns), root_note);

	/* vfio-pci without an IOMMU group: needs no-IOMMU mode */
	fresh_sysfs();
	pci_dev("0000:00:06.0", "0x1d0f\n", "vfio-pci", false);
	uf_t_write(sys, "module/vfio/parameters/enable_unsafe_noiommu_mode", "N\n");
	memset(&ns, 0, sizeof(ns));
	CHECK_EQ(uf_env_check(cfg, false, &err, note, &ns), 1 + root_note);
	CHECK(note_with(&ns, "no IOMMU group") != NULL, "no IOMMU group");
	uf_t_write(sys, "module/vfio/parameters/enable_unsafe_noiommu_mode", "Y\n");
	memset(&ns, 0, sizeof(ns));
	CHECK_EQ(uf_env_check(cfg, false, &err, note, &ns), root_note);

	/* ENA with a devarg the DPDK it was built with does not know: llq_policy before 24.11,
	 * large_llq_hdr from 24.11 */
	snprintf(cfg->ports[0].device, sizeof(cfg->ports[0].device), "0000:00:06.0,%s",
		 UF_ENA_LLQ_POLICY ? "large_llq_hdr=1" : "llq_policy=1");
	memset(&ns, 0, sizeof(ns));
	CHECK_EQ(uf_env_check(cfg, false, &err, note, &ns), 1 + root_note);
	m = note_with(&ns, UF_ENA_LLQ_POLICY ? "large_llq_hdr" : "llq_policy");
	CHECK(m != NULL, "the devarg this DPDK lacks is refused");
	CHECK_HAS(m, UF_ENA_LLQ_POLICY ? "use llq_policy=" : "use large_llq_hdr=1");
	memset(&err, 0, sizeof(err));
	CHECK_EQ(uf_env_check(cfg, true, &err, NULL, NULL), -1);
	CHECK_EQ(err.code, UF_EXIT_ENV);
	/* and the one it has is not */
	snprintf(cfg->ports[0].device, sizeof(cfg->ports[0].device), "0000:00:06.0,%s",
		 UF_ENA_LLQ_POLICY ? "llq_policy=3" : "large_llq_hdr=1");
	memset(&ns, 0, sizeof(ns));
	CHECK_EQ(uf_env_check(cfg, false, &err, note, &ns), root_note);
	snprintf(cfg->ports[0].device, sizeof(cfg->ports[0].device), "0000:00:06.0,llq_policy=1");
	/* the same devarg on another vendor's NIC is not ours to judge */
	fresh_sysfs();
	pci_dev("0000:00:06.0", "0x8086\n", "vfio-pci", true);
	memset(&ns, 0, sizeof(ns));
	CHECK_EQ(uf_env_check(cfg, false, &err, note, &ns), root_note);

	/* Mellanox stays on mlx5_core */
	snprintf(cfg->ports[0].device, sizeof(cfg->ports[0].device), "0000:00:06.0");
	fresh_sysfs();
	pci_dev("0000:00:06.0", "0x15b3\n", "mlx5_core", false);
	memset(&ns, 0, sizeof(ns));
	CHECK_EQ(uf_env_check(cfg, false, &err, note, &ns), root_note);
	fresh_sysfs();
	pci_dev("0000:00:06.0", "0x15b3\n", "vfio-pci", true);
	memset(&ns, 0, sizeof(ns));
	CHECK_EQ(uf_env_check(cfg, false, &err, note, &ns), 1 + root_note);
	m = note_with(&ns, "Mellanox");
	CHECK(m != NULL, "a Mellanox NIC on vfio-pci");
	CHECK_HAS(m, "mlx5_core");
	free(cfg);
}

/* the whole text of path into buf ("" when it cannot be read) */
static const char *
slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f != NULL) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* stats.json: created 0640 and appended to; a symlink planted at the path, a FIFO, a file
 * with a second link or one another user owns is refused and left as it was */
static void
test_open_append(void)
{
	char d[256], path[512], victim[512], buf[256];
	struct uf_err err = { 0 };
	struct stat st;
	mode_t um = umask(0);
	FILE *f;

	umask(um);
	uf_t_mkdtemp(d, sizeof(d));
	snprintf(path, sizeof(path), "%s/stats.json", d);
	f = uf_env_open_append(path, "the stats file", &err);
	CHECK(f != NULL, "opened: %s", err.msg);
	if (f != NULL) {
		fputs("{\"a\":1}\n", f);
		fclose(f);
	}
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == (0640 & ~um), "mode %o",
	      (unsigned int)(st.st_mode & 0777));
	f = uf_env_open_append(path, "the stats file", &err);
	CHECK(f != NULL, "reopened: %s", err.msg);
	if (f != NULL) {
		fputs("{\"b\":2}\n", f);
		fclose(f);
	}
	CHECK_STR(slurp(path, buf, sizeof(buf)), "{\"a\":1}\n{\"b\":2}\n");

	/* a symlink where the stats file goes */
	uf_t_write(d, "victim", "precious\n");
	snprintf(victim, sizeof(victim), "%s/victim", d);
	snprintf(path, sizeof(path), "%s/link.json", d);
	CHECK(symlink(victim, path) == 0, "symlink");
	memset(&err, 0, sizeof(err));
	CHECK(uf_env_open_append(path, "the stats file", &err) == NULL, "a symlink is refused");
	CHECK_EQ(err.code, UF_EXIT_ENV);
	CHECK_HAS(err.msg, "the stats file");
	CHECK_HAS(err.msg, "a symlink");
	CHECK_STR(slurp(victim, buf, sizeof(buf)), "precious\n");

	/* a hard link to it */
	snprintf(path, sizeof(path), "%s/hard.json", d);
	CHECK(link(victim, path) == 0, "link");
	CHECK(uf_env_open_append(path, "the stats file", &err) == NULL, "a second link");
	CHECK_HAS(err.msg, "2 links");
	CHECK_STR(slurp(victim, buf, sizeof(buf)), "precious\n");

	/* a FIFO: refused at once, not waited on */
	snprintf(path, sizeof(path), "%s/fifo.json", d);
	CHECK(mkfifo(path, 0666) == 0, "mkfifo");
	CHECK(uf_env_open_append(path, "the stats file", &err) == NULL, "a FIFO");
	CHECK(strstr(err.msg, "not a regular file") != NULL || strstr(err.msg, "ENXIO") != NULL ||
			      strstr(err.msg, "No such device") != NULL,
	      "%s", err.msg);

	/* someone else's file */
	if (geteuid() == 0) {
		snprintf(path, sizeof(path), "%s/other.json", d);
		uf_t_write(d, "other.json", "theirs\n");
		CHECK(chown(path, 65534, 65534) == 0, "chown");
		CHECK(uf_env_open_append(path, "the stats file", &err) == NULL, "foreign owner");
		CHECK_HAS(err.msg, "uid 65534");
		CHECK_STR(slurp(path, buf, sizeof(buf)), "theirs\n");
	}
	uf_t_rmtree(d);
}

int
main(void)
{
	/* as root or not, the checks see every capability unless a case takes some away */
	uf_env_set_cap_source(caps_all);
	RUN(test_argv_vdev_only);
	RUN(test_argv_ring_devarg);
	RUN(test_argv_pci);
	RUN(test_argv_options);
	RUN(test_argv_default_lcores);
	RUN(test_argv_errors);
	RUN(test_devarg);
	RUN(test_env_hugepages);
	RUN(test_env_kernel_ifaces);
	RUN(test_env_caps);
	RUN(test_env_pci);
	RUN(test_open_append);
	if (sys[0] != '\0')
		uf_t_rmtree(sys);
	return uf_t_summary();
}
