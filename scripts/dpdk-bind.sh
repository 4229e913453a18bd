#!/usr/bin/env bash
# Give a PCI NIC to DPDK (vfio-pci) and take it back, remembering the kernel driver it had.
#
#   sudo scripts/dpdk-bind.sh 0000:00:06.0            bind to vfio-pci (loads the module)
#   sudo scripts/dpdk-bind.sh --noiommu 0000:00:06.0  the same on a host without an IOMMU
#                                                     (AWS: vfio's unsafe no-IOMMU mode)
#   sudo scripts/dpdk-bind.sh --unbind 0000:00:06.0   back to the driver it had (e.g. ena)
#   scripts/dpdk-bind.sh --status                     what dpdk-devbind.py sees
#
# Never bind the interface you are logged in through: the host loses it. Mellanox (mlx5)
# NICs stay on mlx5_core: udpfan uses them there (bifurcated), do not bind them.
set -euo pipefail
STATE=/run/udpfan/bind
devbind=$(command -v dpdk-devbind.py || true)
[ -n "$devbind" ] || { echo "udpfan: error: dpdk-devbind.py is missing: sudo scripts/setup.sh deps" >&2; exit 3; }

norm() {
	case "$1" in
	????:??:??.?) echo "$1" ;;
	??:??.?) echo "0000:$1" ;;
	*) echo "udpfan: error: \"$1\" is not a PCI address (0000:00:06.0)" >&2; exit 2 ;;
	esac
}

noiommu=0
case "${1:-}" in
--status)
	exec "$devbind" --status-dev net
	;;
--unbind)
	dev=$(norm "${2:?usage: $0 --unbind BDF}")
	drv=$(cat "$STATE/$dev" 2>/dev/null || true)
	if [ -z "$drv" ]; then
		echo "udpfan: error: no record of $dev's original driver in $STATE; bind it by hand: dpdk-devbind.py -b <driver> $dev" >&2
		exit 3
	fi
	"$devbind" -b "$drv" "$dev"
	rm -f "$STATE/$dev"
	echo "dpdk-bind: $dev is back on $drv"
	exit 0
	;;
--noiommu)
	noiommu=1
	shift
	;;
esac
dev=$(norm "${1:?usage: $0 [--noiommu] BDF | --unbind BDF | --status}")
[ -e "/sys/bus/pci/devices/$dev" ] || { echo "udpfan: error: no PCI device $dev (lspci -D)" >&2; exit 3; }
if [ "$(cat /sys/bus/pci/devices/$dev/vendor)" = 0x15b3 ]; then
	echo "udpfan: error: $dev is a Mellanox NIC: mlx5 stays on mlx5_core, do not bind it" >&2
	exit 3
fi
cur=$(basename "$(readlink -f /sys/bus/pci/devices/$dev/driver 2>/dev/null)" 2>/dev/null || true)
if [ "$cur" = vfio-pci ]; then
	echo "dpdk-bind: $dev is already on vfio-pci"
	exit 0
fi
# a virtio NIC's interface hangs under its virtio device (virtio0/net/eth0), not the PCI one:
# missing it let the lab's management NIC through (docs/testing.md#lab)
ifcs() {
	local f
	for f in /sys/bus/pci/devices/$dev/net/* /sys/bus/pci/devices/$dev/virtio*/net/*; do
		[ -e "$f" ] && echo "${f##*/}"
	done
	return 0
}
if [ -n "$cur" ]; then
	for ifc in $(ifcs); do
		# the interface with the default route (or any address) is how you reach this host
		if ip -4 route show default 2>/dev/null | grep -q "dev $ifc\b"; then
			echo "udpfan: error: $ifc ($dev) carries this host's default route: binding it would cut you off" >&2
			exit 3
		fi
		if ip -o addr show dev "$ifc" scope global 2>/dev/null | grep -q .; then
			echo "udpfan: error: $ifc ($dev) has an address in use (ip addr show $ifc): remove it first if this is really the NIC for DPDK" >&2
			exit 3
		fi
	done
fi
modprobe vfio-pci
# after the refusals above: a refused device leaves the host as it was (the lab showed the
# order mattered: docs/testing.md#lab)
if [ $noiommu = 1 ]; then
	if [ ! -e /sys/module/vfio/parameters/enable_unsafe_noiommu_mode ]; then
		echo "udpfan: error: this kernel's vfio has no no-IOMMU mode (CONFIG_VFIO_NOIOMMU is off, as in Debian's kernels): enable the IOMMU instead (intel_iommu=on / amd_iommu=on)" >&2
		exit 3
	fi
	echo 1 >/sys/module/vfio/parameters/enable_unsafe_noiommu_mode
elif [ ! -e "/sys/bus/pci/devices/$dev/iommu_group" ] &&
	[ "$(cat /sys/module/vfio/parameters/enable_unsafe_noiommu_mode 2>/dev/null)" != Y ]; then
	echo "udpfan: error: $dev has no IOMMU group and vfio's no-IOMMU mode is off: vfio-pci would refuse it; boot with intel_iommu=on (amd_iommu=on), or use --noiommu on a host you own entirely" >&2
	exit 3
fi
if [ -n "$cur" ]; then
	for ifc in $(ifcs); do
		ip link set "$ifc" down 2>/dev/null || true
	done
fi
mkdir -p "$STATE"
[ -n "$cur" ] && echo "$cur" >"$STATE/$dev"
"$devbind" -b vfio-pci "$dev"
echo "dpdk-bind: $dev moved from ${cur:-no driver} to vfio-pci (undo: $0 --unbind $dev)"
