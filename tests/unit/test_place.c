/* SPDX-License-Identifier: BSD-3-Clause
 * Placement checks and PCI environment checks on a fake sysfs/cgroupfs/firmware tree:
 * shared CPUs, hyper-thread siblings, NUMA, the cgroup CPU quota, the ice DDP package before
 * EAL, hugepages on the device's node, and the BAR lookup the ENA write-combining check uses.
 */
#include <stdio.h>
#include <string.h>

#include "uf_config.h"
#include "uf_env.h"
#include "uf_place.h"
#include "uf_test.h"

static char sys[512];
static char notes[8][600];
static int n_notes;

static void
note(void *arg, const char *msg)
{
	(void)arg;
	if (n_notes < 8)
		snprintf(notes[n_notes], sizeof(notes[0]), "%s", msg);
	n_notes++;
}

static void
reset_notes(void)
{
	memset(notes, 0, sizeof(notes));
	n_notes = 0;
}

static bool
noted(const char *frag)
{
	int i;

	for (i = 0; i < n_notes && i < 8; i++)
		if (strstr(notes[i], frag) != NULL)
			return true;
	return false;
}

static void
fresh(void)
{
	if (sys[0] != '\0')
		uf_t_rmtree(sys);
	uf_t_mkdtemp(sys, sizeof(sys));
	uf_env_set_sysfs_root(sys);
	reset_notes();
}

static struct uf_place
two_workers(int main_cpu, int w0, int w1)
{
	struct uf_place pl;

	memset(&pl, 0, sizeof(pl));
	pl.main_cpu = main_cpu;
	pl.n_workers = 2;
	pl.worker_cpu[0] = w0;
	pl.worker_cpu[1] = w1;
	pl.n_ports = 1;
	pl.port_socket[0] = -1;
	pl.port_name[0] = "wan";
	return pl;
}

static void
test_clean_placement(void)
{
	struct uf_place pl = two_workers(0, 2, 4);
	char cg[1024];

	fresh();
	uf_t_write(sys, "devices/system/cpu/cpu2/topology/thread_siblings_list", "2,3\n");
	uf_t_write(sys, "devices/system/cpu/cpu4/topology/thread_siblings_list", "4-5\n");
	snprintf(cg, sizeof(cg), "%s/cgroup", sys);
	uf_t_write(sys, "cgroup", "0::/\n");
	CHECK_EQ(uf_placement_check(&pl, cg, note, NULL), 0);
	CHECK_EQ(n_notes, 0);
}

static void
test_shared_and_siblings(void)
{
	struct uf_place pl = two_workers(0, 0, 1);
	char cg[1024];

	fresh();
	snprintf(cg, sizeof(cg), "%s/cgroup", sys);
	uf_t_write(sys, "cgroup", "0::/\n");
	uf_t_write(sys, "devices/system/cpu/cpu0/topology/thread_siblings_list", "0-1\n");
	CHECK_EQ(uf_placement_check(&pl, cg, note, NULL), 2);
	CHECK(noted("the main lcore shares CPU 0 with worker 0"), "main/worker: %s", notes[0]);
	CHECK(noted("hyper-thread siblings (CPUs 0 and 1)"), "siblings: %s", notes[1]);

	reset_notes();
	pl = two_workers(0, 3, 3);
	CHECK_EQ(uf_placement_check(&pl, cg, note, NULL), 1);
	CHECK(noted("workers 0 and 1 busy-poll on the same CPU 3"), "%s", notes[0]);
}

static void
test_numa(void)
{
	struct uf_place pl = two_workers(0, 2, 3);
	char cg[1024];

	fresh();
	snprintf(cg, sizeof(cg), "%s/cgroup", sys);
	uf_t_write(sys, "cgroup", "0::/\n");
	pl.worker_socket[0] = 0;
	pl.worker_socket[1] = 1;
	pl.port_socket[0] = 1;
	CHECK_EQ(uf_placement_check(&pl, cg, note, NULL), 1);
	CHECK(noted("worker 0 runs on CPU 2 (NUMA socket 0) but port wan is on socket 1"), "%s",
	      notes[0]);
}

static void
test_cgroup_quota(void)
{
	struct uf_place pl = two_workers(0, 2, 3);
	char cg[1024];

	fresh();
	snprintf(cg, sizeof(cg), "%s/cgroup", sys);
	/* the quota is the smallest along the path: 1.5 CPUs on the parent, none below */
	uf_t_write(sys, "cgroup", "0::/pod/udpfan\n");
	uf_t_write(sys, "fs/cgroup/cpu.max", "max 100000\n");
	uf_t_write(sys, "fs/cgroup/pod/cpu.max", "150000 100000\n");
	uf_t_write(sys, "fs/cgroup/pod/udpfan/cpu.max", "max 100000\n");
	CHECK(uf_cgroup_cpu_limit(cg) > 1.49 && uf_cgroup_cpu_limit(cg) < 1.51, "limit %f",
	      uf_cgroup_cpu_limit(cg));
	CHECK_EQ(uf_placement_check(&pl, cg, note, NULL), 1);
	CHECK(noted("allows 1.50 CPUs but 2 workers busy-poll"), "%s", notes[0]);

	/* one worker: the note's grammar follows the count */
	reset_notes();
	pl.n_workers = 1;
	uf_t_write(sys, "fs/cgroup/pod/cpu.max", "50000 100000\n");
	CHECK_EQ(uf_placement_check(&pl, cg, note, NULL), 1);
	CHECK(noted("allows 0.50 CPUs but 1 worker busy-polls:"), "%s", notes[0]);
	pl.n_workers = 2;

	reset_notes();
	uf_t_write(sys, "fs/cgroup/pod/cpu.max", "400000 100000\n");
	CHECK_EQ(uf_placement_check(&pl, cg, note, NULL), 0);
	uf_t_write(sys, "fs/cgroup/pod/cpu.max", "max 100000\n");
	CHECK(uf_cgroup_cpu_limit(cg) == 0, "unlimited reads as 0: %f", uf_cgroup_cpu_limit(cg));

	/* a path without its leading '/' (fuzzing: it used to write through NULL while
	 * walking up to the root) names no cgroup: no limit known */
	uf_t_write(sys, "fs/cgroup/pod/cpu.max", "150000 100000\n");
	uf_t_write(sys, "cgroup", "0::pod/udpfan\n");
	CHECK(uf_cgroup_cpu_limit(cg) == 0, "relative path: %f", uf_cgroup_cpu_limit(cg));
	uf_t_write(sys, "cgroup", "0::pod\n");
	CHECK(uf_cgroup_cpu_limit(cg) == 0, "relative, one level: %f", uf_cgroup_cpu_limit(cg));
	uf_t_write(sys, "cgroup", "0::\n");
	CHECK(uf_cgroup_cpu_limit(cg) == 0, "empty path: %f", uf_cgroup_cpu_limit(cg));
}

/* a vfio-bound Intel E810 at 0000:18:00.0 with a DSN capability in its config space */
static void
e810(const char *numa)
{
	uint8_t cfgspace[0x200];
	uint32_t hdr = 0x0003 | (1u << 16), lo = 0x11223344, hi = 0xaabbccdd;
	char path[1024];
	FILE *f;

	uf_t_write(sys, "bus/pci/devices/0000:18:00.0/vendor", "0x8086\n");
	uf_t_write(sys, "bus/pci/devices/0000:18:00.0/device", "0x159b\n");
	uf_t_write(sys, "bus/pci/devices/0000:18:00.0/numa_node", numa);
	uf_t_write(sys, "bus/pci/drivers/vfio-pci/bind", "");
	uf_t_symlink(sys, "bus/pci/devices/0000:18:00.0/driver",
		     "../../../../bus/pci/drivers/vfio-pci");
	uf_t_mkdirs(sys, "kernel/iommu_groups/7", true);
	uf_t_symlink(sys, "bus/pci/devices/0000:18:00.0/iommu_group",
		     "../../../../kernel/iommu_groups/7");
	memset(cfgspace, 0, sizeof(cfgspace));
	memcpy(cfgspace + 0x100, &hdr, 4);
	memcpy(cfgspace + 0x104, &lo, 4);
	memcpy(cfgspace + 0x108, &hi, 4);
	snprintf(path, sizeof(path), "%s/bus/pci/devices/0000:18:00.0/config", sys);
	f = fopen(path, "wb");
	CHECK(f != NULL && fwrite(cfgspace, 1, sizeof(cfgspace), f) == sizeof(cfgspace),
	      "write config");
	if (f != NULL)
		fclose(f);
	uf_t_write(sys, "kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "512\n");
	uf_t_write(sys, "kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "512\n");
	uf_t_write(sys, "devices/system/node/node0/hugepages/hugepages-2048kB/free_hugepages",
		   "512\n");
	uf_t_write(sys, "devices/system/node/node1/hugepages/hugepages-2048kB/free_hugepages",
		   "0\n");
}

static struct uf_config *
ice_cfg(const char *device)
{
	char text[1024];
	struct uf_err err;
	struct uf_config *cfg;

	snprintf(text, sizeof(text),
		 "eal: { in_memory: true }\n"
		 "ports:\n  - { name: wan, device: \"%s\", ip: 10.0.0.10/24 }\n"
		 "listen: { port: wan, udp_port: 5000 }\n"
		 "destinations:\n  - { ip: 10.0.0.20, udp_port: 6000 }\n",
		 device);
	cfg = uf_config_parse(text, strlen(text), "t.yaml", &err);
	CHECK(cfg != NULL, "config: %s", cfg == NULL ? err.msg : "");
	return cfg;
}

static void
test_ice_ddp(void)
{
	struct uf_config *cfg;
	char fw[1024];

	fresh();
	e810("0\n");
	snprintf(fw, sizeof(fw), "%s/firmware", sys);
	uf_t_mkdirs(sys, "firmware/intel/ice/ddp", true);
	uf_env_set_fw_root(fw);
	cfg = ice_cfg("0000:18:00.0");
	if (cfg == NULL)
		return;

	/* nothing installed: named, with the DSN the PMD would look for */
	CHECK(uf_env_check(cfg, false, NULL, note, NULL) >= 1, "no DDP must be a problem");
	CHECK(noted("needs its DDP package"), "%s", notes[0]);
	CHECK(noted("aabbccdd11223344"), "the DSN from config space: %s", notes[0]);

	/* only the compressed package: say so */
	reset_notes();
	uf_t_write(sys, "firmware/intel/ice/ddp/ice.pkg.xz", "xz");
	uf_env_check(cfg, false, NULL, note, NULL);
	CHECK(noted("unxz it"), "%s", notes[0]);

	/* the generic package is enough */
	reset_notes();
	uf_t_write(sys, "firmware/intel/ice/ddp/ice.pkg", "pkg");
	uf_env_check(cfg, false, NULL, note, NULL);
	CHECK(!noted("DDP"), "DDP present but still reported: %s", notes[0]);
	uf_config_free(cfg);

	/* safe mode asked for: a note, not an error */
	reset_notes();
	uf_t_rmtree(fw);
	uf_t_mkdirs(sys, "firmware/intel/ice/ddp", true);
	cfg = ice_cfg("0000:18:00.0,safe-mode-support=1");
	if (cfg == NULL)
		return;
	uf_env_check(cfg, false, NULL, note, NULL);
	CHECK(noted("safe mode requested") && !noted("needs its DDP"), "%s", notes[0]);
	uf_config_free(cfg);
}

static void
test_node_hugepages(void)
{
	struct uf_config *cfg;
	char fw[1024];

	fresh();
	e810("1\n");
	snprintf(fw, sizeof(fw), "%s/firmware", sys);
	uf_t_write(sys, "firmware/intel/ice/ddp/ice.pkg", "pkg");
	uf_env_set_fw_root(fw);
	cfg = ice_cfg("0000:18:00.0");
	if (cfg == NULL)
		return;
	uf_env_check(cfg, false, NULL, note, NULL);
	CHECK(noted("NUMA node 1, which has no free hugepages"), "%s", notes[0]);
	reset_notes();
	uf_t_write(sys, "devices/system/node/node1/hugepages/hugepages-2048kB/free_hugepages",
		   "64\n");
	uf_env_check(cfg, false, NULL, note, NULL);
	CHECK(!noted("NUMA node"), "%s", notes[0]);
	uf_config_free(cfg);
}

static void
test_bar_phys(void)
{
	uint64_t bar = 0;

	fresh();
	uf_t_write(sys, "bus/pci/devices/0000:00:06.0/resource",
		   "0x00000000febf8000 0x00000000febfbfff 0x0000000000140204\n"
		   "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		   "0x00000000fe800000 0x00000000fe8fffff 0x000000000014220c\n");
	CHECK_EQ(uf_pci_bar_phys("0000:00:06.0", 2, &bar), 0);
	CHECK_EQ(bar, 0xfe800000ull);
	CHECK(uf_pci_bar_phys("0000:00:06.0", 1, &bar) != 0, "an empty BAR is no BAR");
	CHECK(uf_pci_bar_phys("0000:00:07.0", 2, &bar) != 0, "no such device");
}

int
main(void)
{
	RUN(test_clean_placement);
	RUN(test_shared_and_siblings);
	RUN(test_numa);
	RUN(test_cgroup_quota);
	RUN(test_ice_ddp);
	RUN(test_node_hugepages);
	RUN(test_bar_phys);
	if (sys[0] != '\0')
		uf_t_rmtree(sys);
	return uf_t_summary();
}
