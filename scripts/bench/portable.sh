#!/usr/bin/env bash
# Run bench 1's scaling table (docs/benchmarks.md#bench-3-scaling) on a bigger x86-64 host
# that has no DPDK installed and no network (docs/benchmarks.md says which numbers it
# replaces). Two steps:
#
#   scripts/bench/portable.sh pack [DIR]   # here: udpfan, dpdk-testpmd and every shared
#                                          # library they need (DPDK 22.11 of this machine,
#                                          # glibc excepted) into DIR (default .devbundle)
#   scripts/bench/portable.sh run  [DIR]   # there, as root, from a copy of this checkout
#                                          # with DIR in it: hugepages, the four PMD plugins,
#                                          # then scripts/bench/inmem.py --scaling
#
# run reads W (worker counts, default 1,2,4,8), S (seconds per run, default 8), T (limit
# for the whole bench, default 500 s) and OUT (where scaling.json, log.txt, machine.txt and
# raw.tgz go; default /tmp/udpfan-scaling). The host's glibc must be 2.36 or newer.
set -euo pipefail
cd "$(dirname "$0")/../.."
verb=${1:-}
B=$(realpath -m "${2:-.devbundle}")
# the PMDs that bench 1 loads as plugins; EAL loads every *.so in its plugin folder
PLUGINS="bus_vdev mempool_ring net_null net_pcap"

pack() {
	[ -x build/udpfan ] || { echo "portable: build/udpfan missing: run ninja -C build" >&2; exit 1; }
	command -v dpdk-testpmd >/dev/null || { echo "portable: dpdk-testpmd missing (apt-get install dpdk)" >&2; exit 1; }
	rm -rf "$B"
	mkdir -p "$B/lib"
	cp build/udpfan "$(command -v dpdk-testpmd)" "$B/"
	local pmds=/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0 libs p
	libs=$(ldd build/udpfan "$(command -v dpdk-testpmd)" | awk '/=>/ {print $3}')
	for p in $PLUGINS; do
		libs="$libs $(realpath "$pmds/librte_$p.so")"
		libs="$libs $(ldd "$pmds/librte_$p.so" | awk '/=>/ {print $3}')"
	done
	for p in $(printf '%s\n' $libs | sort -u); do
		case $(basename "$p") in
		libc.so.* | libm.so.* | ld-linux* | libpthread.so.* | libdl.so.* | librt.so.*) ;;
		*) cp -L "$p" "$B/lib/$(basename "$p" | sed -E 's/(\.so\.[0-9]+)\..*/\1/')" ;;
		esac
	done
	echo "portable: $(du -sh "$B" | cut -f1) in $B; carry it with this checkout, then: $0 run"
}

run() {
	[ "$(id -u)" = 0 ] || { echo "portable: run needs root (hugepages)" >&2; exit 1; }
	local out=${OUT:-/tmp/udpfan-scaling} pmds=/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0 p
	mkdir -p "$out" "$pmds" /tmp/udpfan-portable-bin
	# links, not copies: a plugin loaded under a second path would register its driver
	# twice and the vdevs would not probe
	for p in $PLUGINS; do
		ln -sf "$B/lib/librte_$p.so.23" "$pmds/librte_$p.so"
	done
	ln -sf "$B/dpdk-testpmd" /tmp/udpfan-portable-bin/dpdk-testpmd
	export PATH=/tmp/udpfan-portable-bin:$PATH LD_LIBRARY_PATH=$B/lib UDPFAN=$B/udpfan \
		PYTHONUNBUFFERED=1
	echo 2048 >/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
	mkdir -p /dev/hugepages
	mountpoint -q /dev/hugepages || mount -t hugetlbfs nodev /dev/hugepages
	{ nproc; lscpu; grep -i huge /proc/meminfo; uname -a; head -2 /etc/os-release; uptime; } \
		>"$out/machine.txt" 2>&1
	rm -rf /tmp/udpfan-portable-raw
	timeout "${T:-500}" python3 scripts/bench/inmem.py --scaling "${W:-1,2,4,8}" \
		--seconds "${S:-8}" --warmup 2 --out /tmp/udpfan-portable-raw \
		--json "$out/scaling.json" 2>&1 | tee "$out/log.txt"
	tar czf "$out/raw.tgz" --exclude='*.pcap' -C /tmp udpfan-portable-raw
}

case $verb in
pack) pack ;;
run) run ;;
*) echo "usage: $0 pack|run [DIR]" >&2; exit 2 ;;
esac
