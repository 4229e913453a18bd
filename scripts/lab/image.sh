#!/usr/bin/env bash
# Build (or reuse) the lab guest: a Debian 12 root file system made by mmdebstrap from the
# archive, with the Debian kernel, DPDK 22.11's runtime and PMDs (e1000/em, virtio), python3,
# iproute2, kmod, pciutils. udpfan is not built in the guest (TCG is slow): the host's build
# dir and source are shared in over 9p (scripts/lab/run.sh). docs/testing.md#lab.
#
#   sudo scripts/lab/image.sh        prints the cache dir holding rootfs.img, vmlinuz, initrd.img
#
# The image is cached in $UF_VM_CACHE (default /var/cache/udpfan-vm)/<sha256 of this file>:
# a change to the recipe builds a new one; the same recipe is built once per machine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${UF_VM_CACHE:-/var/cache/udpfan-vm}
key=$(sha256sum "$here/image.sh" | cut -c1-16)
dir=$cache/$key
if [ -f "$dir/done" ]; then
	echo "$dir"
	exit 0
fi
[ "$(id -u)" = 0 ] || { echo "lab: error: building the guest image needs root (mmdebstrap, mkfs)" >&2; exit 3; }
command -v mmdebstrap >/dev/null || { echo "lab: error: mmdebstrap is missing: sudo scripts/setup.sh deps" >&2; exit 3; }
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9 # one build at a time on this machine
if [ -f "$dir/done" ]; then
	echo "$dir"
	exit 0
fi
tmp=$(mktemp -d "$cache/.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s)

# the DPDK libraries udpfan links against (22.11 = ABI 23) and the PMDs the lab drives
pkgs=(linux-image-amd64 initramfs-tools kmod udev mount util-linux pciutils iproute2 procps python3 python3-yaml
	dpdk librte-eal23 librte-ethdev23 librte-mbuf23 librte-mempool23 librte-mempool-ring23
	librte-ring23 librte-net23 librte-kvargs23 librte-telemetry23 librte-pci23 librte-bus-pci23
	librte-bus-vdev23 librte-net-e1000-23 librte-net-virtio23 librte-net-af-packet23
	librte-net-af-xdp23 librte-net-ring23 librte-net-null23 librte-meter23 librte-hash23 librte-lpm23
	librte-rcu23 librte-timer23 librte-cmdline23 librte-pdump23 librte-pcapng23 librte-bpf23
	libyaml-0-2 libnuma1 libxdp1 libbpf1
	libelf1 zlib1g libpcap0.8 libjansson4 libfdt1 libbsd0 ethtool)
inc=$(IFS=,; echo "${pkgs[*]}")
timeout 1800 mmdebstrap --mode=root --variant=apt --include="$inc" \
	--customize-hook='echo udpfan-lab >"$1/etc/hostname"' \
	--customize-hook='mkdir -p "$1/src" "$1/out" "$1/build"' \
	--customize-hook='printf "%s\n" "#!/bin/sh" "# lab guest init: scripts/lab/guest-init.sh from the shared source" \
		"export PATH=/usr/sbin:/usr/bin:/sbin:/bin" \
		"mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev 2>/dev/null" \
		"modprobe 9pnet_virtio; modprobe 9p" \
		"mount -t 9p -o trans=virtio,version=9p2000.L,ro src /src" \
		"[ -f /src/scripts/lab/guest-init.sh ] && exec /bin/sh /src/scripts/lab/guest-init.sh" \
		"echo lab-init: no /src/scripts/lab/guest-init.sh; echo o >/proc/sysrq-trigger" >"$1/sbin/lab-init"; chmod 755 "$1/sbin/lab-init"' \
	bookworm "$tmp/root" \
	"deb http://deb.debian.org/debian bookworm main" \
	"deb http://deb.debian.org/debian bookworm-updates main" \
	"deb http://deb.debian.org/debian-security bookworm-security main" >&2
cp "$tmp"/root/boot/vmlinuz-* "$tmp/vmlinuz"
cp "$tmp"/root/boot/initrd.img-* "$tmp/initrd.img"
rm -rf "$tmp"/root/var/cache/apt/archives/*.deb "$tmp"/root/var/lib/apt/lists/*
truncate -s 3G "$tmp/rootfs.img"
mkfs.ext4 -q -L udpfan-lab -d "$tmp/root" "$tmp/rootfs.img"
rm -rf "$tmp/root"
echo "built in $(($(date +%s) - t0)) s on $(date -u +%FT%TZ)" >"$tmp/done"
mv "$tmp" "$dir"
trap - EXIT
# images of older recipes are 3 GiB each (sparse): only the current one is kept
for old in "$cache"/*/done; do
	[ "${old%/done}" = "$dir" ] || rm -rf "${old%/done}"
done
echo "lab: image: $(cat "$dir/done")" >&2
echo "$dir"
