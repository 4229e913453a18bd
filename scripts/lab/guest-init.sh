#!/bin/sh
# PID 1 of the lab guest (docs/testing.md#lab), run from the shared source by the image's
# /sbin/lab-init: mounts, modules, the management NIC, then tests/lab/lab_guest.py; powers
# off whatever happens. Nothing here is udpfan's: it is the host an operator would have.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -o remount,rw / 2>/dev/null
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mkdir -p /dev/hugepages /dev/pts /build /out
mount -t hugetlbfs nodev /dev/hugepages
mount -t devpts devpts /dev/pts
mount -t 9p -o trans=virtio,version=9p2000.L,ro build /build
mount -t 9p -o trans=virtio,version=9p2000.L out /out
# no udev: load the drivers of what is on the PCI bus, as udev would
for m in /sys/bus/pci/devices/*/modalias /sys/bus/virtio/devices/*/modalias; do modprobe -q "$(cat "$m")" 2>/dev/null; done
modprobe -q virtio_net; modprobe -q e1000e
modprobe virtio_console
ip link set lo up
# the management NIC (00:03.0, QEMU user networking): an address and the default route
mgmt=$(ls /sys/bus/pci/devices/0000:00:03.0/virtio*/net/ 2>/dev/null | head -1)
if [ -n "$mgmt" ]; then
	ip link set "$mgmt" up
	ip addr add 10.0.2.15/24 dev "$mgmt"
	ip route add default via 10.0.2.2 dev "$mgmt"
fi
echo "lab-guest: $(uname -r), $(nproc) CPUs, $(grep HugePages_Total /proc/meminfo)"
cd /src
phase=$(sed -n "s/.*lab.phase=\([a-z]*\).*/\1/p" /proc/cmdline)
# UF_LAB_CASES from the host (scripts/lab/host.py puts it on the command line)
cases=$(sed -n "s/.*lab.cases=\([a-z0-9_,]*\).*/\1/p" /proc/cmdline)
[ -n "$cases" ] && export UF_LAB_CASES="$cases"
timeout 780 python3 -u /src/tests/lab/lab_guest.py "${phase:-iommu}" "/out/results-${phase:-iommu}.json"
echo "lab-guest: suite ended with $?"
sync
echo o >/proc/sysrq-trigger
sleep 10
