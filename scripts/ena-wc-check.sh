#!/usr/bin/env bash
# Is an ENA device's LLQ BAR (BAR2) mapped write-combining? Without it every TX descriptor
# push is an uncached PCI write: high CPU, low packet rate (amzn-drivers' DPDK README, 6.2).
# Run it while a DPDK process holds the device (the mapping exists only then).
#
#   sudo scripts/ena-wc-check.sh 0000:00:06.0
#
# Exit 0: write-combining; 1: uncached (the fix is printed); 3: cannot tell.
set -euo pipefail
dev=${1:?usage: $0 BDF (0000:00:06.0)}
case "$dev" in ??:??.?) dev="0000:$dev" ;; esac
res=/sys/bus/pci/devices/$dev/resource
pat=/sys/kernel/debug/x86/pat_memtype_list
[ -r "$res" ] || { echo "udpfan: error: no PCI device $dev" >&2; exit 3; }
if [ ! -r "$pat" ]; then
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null || true
fi
[ -r "$pat" ] || { echo "udpfan: error: $pat is unreadable: run as root with debugfs (x86 only)" >&2; exit 3; }
bar=$(sed -n 3p "$res" | awk '{print $1}')
if [ -z "$bar" ] || [ $((bar)) -eq 0 ]; then
	echo "udpfan: error: $dev has no BAR2 (is it an ENA device with LLQ?)" >&2
	exit 3
fi
line=$(printf '%016x' $((bar)))
hit=$(grep -i "0x$line" "$pat" || true)
if [ -z "$hit" ]; then
	echo "ena-wc-check: BAR2 0x$line is not mapped now: start udpfan (or any DPDK app) on $dev first" >&2
	exit 3
fi
if echo "$hit" | grep -q write-combining; then
	echo "ena-wc-check: $dev BAR2 0x$line is write-combining: LLQ is fast"
	exit 0
fi
echo "ena-wc-check: $dev BAR2 0x$line is $(echo "$hit" | awk '{print $NF}'), not write-combining."
echo "  fix: a vfio-pci with write-combining (amzn-drivers userspace/dpdk/enav2-vfio-patch/get-vfio-with-wc.sh),"
echo "       or igb_uio loaded with wc_activate=1; see docs/deployment.md (AWS c6in with ENA)"
exit 1
