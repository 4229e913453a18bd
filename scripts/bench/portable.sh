#!/usr/bin/env bash
# Run bench 3's scaling table and the latency table (docs/benchmarks.md#bench-3-scaling,
# #latency) on a bigger x86-64 host that has no DPDK installed and no network, and print them
# beside the numbers docs/benchmarks.md has now. Two steps:
#
#   scripts/bench/portable.sh pack [DIR]   # here: udpfan, udpfan-gen, dpdk-testpmd and every
#                                          # shared library they need (DPDK 22.11 of this
#                                          # machine, glibc excepted) into DIR (default
#                                          # .devbundle)
#   scripts/bench/portable.sh run  [DIR]   # there, as root, from a copy of this checkout
#                                          # with DIR in it: hugepages, the five PMD plugins,
#                                          # then scripts/bench/bighost.py: isolated CPUs
#                                          # chosen, inmem.py --scaling, latency.py, the
#                                          # comparison
#
# run reads W (worker counts, default 1,2,4,8), S (seconds per scaling run, default 8), T
# (limit for the scaling bench, default 500 s), LAT_ROUNDS (default 9), LAT_SECONDS (default
# 2), LAT_RATES (default 1000,10000,100000), SHARED=1 (run with fewer than W+2 CPUs: workers
# share CPUs, nothing comparable) and OUT (compare.txt, compare.json, scaling.json,
# latency-raw/, logs, machine.txt, raw.tgz; default /tmp/udpfan-scaling). The host's glibc
# must be 2.36 or newer.
set -euo pipefail
cd "$(dirname "$0")/../.."
verb=${1:-}
B=$(realpath -m "${2:-.devbundle}")
# the PMDs that bench 1 and latency.py (net_memif) load as plugins; EAL loads every *.so in
# its plugin folder
PLUGINS="bus_vdev mempool_ring net_null net_pcap net_memif"
GEN=build/app/udpfan-gen/udpfan-gen

pack() {
	[ -x build/udpfan ] && [ -x $GEN ] ||
		{ echo "portable: build/udpfan or $GEN missing: run ninja -C build" >&2; exit 1; }
	command -v dpdk-testpmd >/dev/null || { echo "portable: dpdk-testpmd missing (apt-get install dpdk)" >&2; exit 1; }
	rm -rf "$B"
	mkdir -p "$B/lib"
	cp build/udpfan $GEN "$(command -v dpdk-testpmd)" "$B/"
	git describe --always --dirty >"$B/commit" 2>/dev/null || echo unknown >"$B/commit"
	local pmds=/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0 libs p
	libs=$(ldd build/udpfan $GEN "$(command -v dpdk-testpmd)" | awk '/=>/ {print $3}')
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
	local shared=
	[ "${SHARED:-0}" = 0 ] || shared=--shared
	# the CPUs first: a host too small is refused before anything is set up
	python3 scripts/bench/bighost.py --plan --workers "${W:-1,2,4,8}" $shared
	mkdir -p "$out" "$pmds" /tmp/udpfan-portable-bin
	local libs=$B/lib
	if [ -f "$pmds/librte_bus_vdev.so.23.0" ] && [ ! -L "$pmds/librte_bus_vdev.so.23.0" ]; then
		# DPDK 22.11 is installed here (Debian's): its libraries and plugins with the
		# bundle's binaries; a bundle library beside the installed plugins would load twice
		libs=
		echo "portable: DPDK 22.11 installed here: its libraries and plugins are used"
	else
		# links, not copies: a plugin loaded under a second path would register its driver
		# twice and the vdevs would not probe
		for p in $PLUGINS; do
			ln -sf "$B/lib/librte_$p.so.23" "$pmds/librte_$p.so"
		done
	fi
	ln -sf "$B/dpdk-testpmd" /tmp/udpfan-portable-bin/dpdk-testpmd
	export PATH=/tmp/udpfan-portable-bin:$PATH LD_LIBRARY_PATH=$libs UDPFAN=$B/udpfan \
		UDPFAN_GEN=$B/udpfan-gen TESTPMD=$B/dpdk-testpmd UF_BUNDLE=$B PYTHONUNBUFFERED=1
	local nr=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
	[ "$(cat $nr)" -ge "${HUGEPAGES:-2048}" ] || echo "${HUGEPAGES:-2048}" >$nr
	mkdir -p /dev/hugepages
	mountpoint -q /dev/hugepages || mount -t hugetlbfs nodev /dev/hugepages
	{ nproc; lscpu; grep -i huge /proc/meminfo; uname -a; head -2 /etc/os-release; uptime; } \
		>"$out/machine.txt" 2>&1
	rm -rf "$out/scaling-raw" "$out/latency-raw"
	local rc=0
	python3 scripts/bench/bighost.py --workers "${W:-1,2,4,8}" --seconds "${S:-8}" \
		--limit "${T:-500}" --lat-rounds "${LAT_ROUNDS:-9}" --lat-seconds "${LAT_SECONDS:-2}" \
		--lat-rates "${LAT_RATES:-1000,10000,100000}" $shared --out "$out" \
		2>&1 | tee "$out/log.txt" || rc=$?
	[ -d "$out/scaling-raw" ] &&
		tar czf "$out/raw.tgz" --exclude='*.pcap' -C "$out" scaling-raw
	echo "portable: $out: compare.txt (the comparison), compare.json, log.txt"
	return $rc
}

case $verb in
pack) pack ;;
run) run ;;
*) echo "usage: $0 pack|run [DIR]" >&2; exit 2 ;;
esac
