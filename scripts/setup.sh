#!/usr/bin/env bash
# Set up a Debian 12 machine for udpfan and show it working.
#
#   sudo scripts/setup.sh            packages, hugepages, build, then the veth demo
#   sudo scripts/setup.sh deps       Debian packages only
#   sudo scripts/setup.sh hugepages [N]   reserve N 2 MiB hugepages on every NUMA node
#                                    (default 1024), mount hugetlbfs and bpffs
#   sudo scripts/setup.sh build      meson + ninja into build/
#   sudo scripts/setup.sh demo       the veth demo (scripts/demo.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(dpdk dpdk-dev libdpdk-dev libnuma-dev libyaml-dev libxdp-dev libbpf-dev meson ninja-build
      pkg-config gcc iproute2 ethtool iputils-ping tcpdump python3 python3-yaml
      python3-prometheus-client clang-format-14 gnuplot-nox clang-14 libclang-rt-14-dev
      qemu-system-x86 mmdebstrap e2fsprogs)

need_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "udpfan: error: $0 $1 needs root (packages, hugepages, network namespaces): run it with sudo" >&2
		exit 3
	fi
}

deps() {
	local missing=()
	for p in "${PKGS[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		echo "setup: packages: all present"
		return
	fi
	need_root deps
	echo "setup: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

hugepages() {
	need_root hugepages
	local want=${1:-1024} f n
	# per NUMA node: DMA memory is taken on the node of the device that uses it
	for n in /sys/devices/system/node/node[0-9]*; do
		f=$n/hugepages/hugepages-2048kB/nr_hugepages
		[ -f "$f" ] || continue
		if [ "$(cat "$f")" -lt "$want" ]; then
			echo "$want" >"$f"
		fi
		echo "setup: hugepages: ${n##*/}: $(cat "$f") x 2 MiB reserved, $(cat "${f%/*}/free_hugepages") free"
	done
	if ! ls -d /sys/devices/system/node/node[0-9]* >/dev/null 2>&1; then
		f=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
		[ "$(cat $f)" -ge "$want" ] || echo "$want" >$f
		echo "setup: hugepages: $(cat $f) x 2 MiB reserved, $(cat ${f%/*}/free_hugepages) free"
	fi
	if ! grep -q ' hugetlbfs ' /proc/mounts; then
		mkdir -p /dev/hugepages
		mount -t hugetlbfs nodev /dev/hugepages
	fi
	# libxdp keeps its dispatcher programs in bpffs (net_af_xdp works without, noisily)
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf 2>/dev/null || true
}

build() {
	if [ ! -f build/build.ninja ]; then
		meson setup build >/dev/null
	fi
	ninja -C build >/dev/null
	echo "setup: built $(build/udpfan --version)"
}

case "${1:-all}" in
deps) deps ;;
hugepages) hugepages "${2:-1024}" ;;
build) build ;;
demo) exec scripts/demo.sh ;;
all)
	deps
	hugepages 1024
	build
	exec scripts/demo.sh
	;;
*)
	echo "usage: $0 [all|deps|hugepages [N]|build|demo]" >&2
	exit 2
	;;
esac
