#!/usr/bin/env bash
# Set up a Debian 12 machine for udpfan and show it working. As root (a root shell, as in a
# fresh Debian container, which has no sudo; or `sudo scripts/setup.sh ...`):
#
#   scripts/setup.sh                 packages, hugepages, build, then the veth demo
#   scripts/setup.sh deps            Debian packages, and the Kubernetes API schemas the deploy
#                                    test uses (/var/cache/udpfan-lab: Debian, npm)
#   scripts/setup.sh hugepages [N]   reserve N 2 MiB hugepages on every NUMA node
#                                    (default 1024), mount hugetlbfs and bpffs
#   scripts/setup.sh build           meson + ninja into build/
#   scripts/setup.sh demo            the veth demo (scripts/demo.sh)
#
# Never assumes sudo: run by another user, a step that needs root re-runs the script under
# sudo when sudo exists, and otherwise stops with an error that says to run it as root.
set -euo pipefail
SELF=$(readlink -f "$0")
ARGS=("$@")
cd "$(dirname "$SELF")/.."

PKGS=(dpdk dpdk-dev libdpdk-dev libnuma-dev libyaml-dev libxdp-dev libbpf-dev meson ninja-build
      pkg-config gcc iproute2 ethtool iputils-ping tcpdump python3 python3-yaml
      python3-prometheus-client clang-format-14 gnuplot-nox clang-14 libclang-rt-14-dev
      python3-jsonschema libsystemd-dev systemd groff-base man-db debhelper dpkg-dev mmdebstrap
      patch git qemu-system-x86 e2fsprogs python3-pyelftools libpcap-dev prometheus haproxy curl
      frr exabgp bird2 softflowd nfdump tshark)

# The Kubernetes API schemas tests/deploy/test_k8s.py validates deploy/k8s/ against, offline:
# the OpenAPI document Debian's kube-openapi source package ships (its test data), and npm's
# kubernetes-models (validators generated from a current API). Kept outside the repository.
K8S_CACHE=${UDPFAN_LAB_CACHE:-/var/cache/udpfan-lab}
K8S_MODELS=kubernetes-models@5.1.0

need_root() {
	[ "$(id -u)" = 0 ] && return 0
	if command -v sudo >/dev/null 2>&1; then
		echo "setup: $1 needs root: running $SELF ${ARGS[*]} under sudo" >&2
		exec sudo -- "$SELF" "${ARGS[@]}"
	fi
	echo "udpfan: error: $0 $1 needs root (packages, hugepages, network namespaces) and there" \
		"is no sudo here: run it as root (su -, or a root shell)" >&2
	exit 3
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
	# tshark (the capture tests read pcapng with it): no setuid dumpcap, and no question
	echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	# the tests run these daemons themselves, in their own namespaces with their own
	# configs (promtool is all they want of prometheus); a systemd host starts each
	# package's service on install: stop and disable the ones just installed
	if [ -d /run/systemd/system ]; then
		local svc
		for svc in prometheus haproxy frr bird exabgp softflowd nfdump; do
			case " ${missing[*]} " in *" $svc "* | *" ${svc}2 "*)
				systemctl disable --now "$svc.service" >/dev/null 2>&1 || true ;;
			esac
		done
	fi
}

k8s_schemas() {
	local d
	if [ ! -d "$K8S_CACHE/kube-openapi/usr/share/gocode/src/k8s.io/kube-openapi" ]; then
		need_root deps
		d=$(mktemp -d)
		chmod 755 "$d"
		(cd "$d" && apt-get download -qq golang-k8s-kube-openapi-dev 2>/dev/null ||
			{ apt-get update -qq && apt-get download -qq golang-k8s-kube-openapi-dev; })
		mkdir -p "$K8S_CACHE/kube-openapi"
		dpkg-deb -x "$d"/golang-k8s-kube-openapi-dev_*.deb "$K8S_CACHE/kube-openapi"
		rm -rf "$d"
	fi
	if [ ! -f "$K8S_CACHE/k8s-models/node_modules/kubernetes-models/package.json" ]; then
		need_root deps
		if ! command -v npm >/dev/null; then
			apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
		fi
		mkdir -p "$K8S_CACHE/k8s-models"
		npm install --prefix "$K8S_CACHE/k8s-models" --no-audit --no-fund --silent "$K8S_MODELS"
	fi
	echo "setup: Kubernetes schemas in $K8S_CACHE"
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
deps)
	deps
	k8s_schemas
	;;
hugepages) hugepages "${2:-1024}" ;;
build) build ;;
demo) exec scripts/demo.sh ;;
all)
	deps
	k8s_schemas
	hugepages 1024
	build
	exec scripts/demo.sh
	;;
*)
	echo "usage: $0 [all|deps|hugepages [N]|build|demo]" >&2
	exit 2
	;;
esac
