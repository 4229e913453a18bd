#!/bin/bash
# Instructions per datagram of udpfan's datapath, counted by callgrind (deterministic, unlike
# cycles on a shared machine): tests/perf/uf_dp_bench -H -n N -i 200 -r 3, 32-byte datagrams,
# copy mode, collection on inside uf_worker_rx only. Per datagram (19,840 a run: (200/10
# warm-up + 3 x 200) bursts x 32):
#   self  uf_worker_rx's own cost with everything inlined into it (classifier, fan-out, TX
#         buffer, inlined DPDK mempool code): the figure docs/benchmarks.md tracks;
#   own   the self cost of every uf_* and worker_rx* function (udpfan's out-of-line code too:
#         the VLAN and listener paths);
#   all   everything called from uf_worker_rx, the PMD's tx_burst and mempool calls included.
# Usage (repository root, after ninja -C build): scripts/bench/dp_instr.sh [BUILD_DIR] [-g] [-p]
# (-g, -p: uf_dp_bench's: the NIC's GOOD checksum verdicts; a port completing partial checksums)
# DPDK runs under the machine's lock (/tmp/udpfan-e2e.lock).
set -u
B=${1:-build}/tests/perf/uf_dp_bench
shift || true
EXTRA="$*"
DGRAMS=19840
tmp=$(mktemp -d /tmp/dp_instr.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
for n in 1 4; do
	out=$tmp/cg.$n
	flock /tmp/udpfan-e2e.lock timeout 300 valgrind --tool=callgrind --callgrind-out-file=$out \
		--toggle-collect=uf_worker_rx "$B" -H -n $n -i 200 -r 3 $EXTRA >$out.log 2>&1
	rc=$?
	fwd=$(sed -n 's/.*forwarded \([0-9]*\).*/\1/p' $out.log)
	callgrind_annotate --threshold=100 $out 2>/dev/null | awk -v n=$n -v d=$DGRAMS \
		-v rc=$rc -v fwd="$fwd" '
		function num(s) { gsub(",", "", s); return s + 0 }
		/PROGRAM TOTALS/ { all = num($1) }
		/:uf_worker_rx / { self = num($1) }
		/\?\?\?:(uf_|worker_rx)/ { own += num($1) }
		END { printf "N=%d rc=%d forwarded=%s  per datagram: self %.1f  own %.1f  all %.1f\n",
			n, rc, fwd, self / d, own / d, all / d }'
done
