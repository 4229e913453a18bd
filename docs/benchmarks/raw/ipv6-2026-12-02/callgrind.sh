#!/bin/bash
B=build/tests/perf/uf_dp_bench
for f in 4 6; do for n in 1 4; do
  out=/tmp/cg6.$f.$n; rm -f $out
  flock /tmp/udpfan-e2e.lock timeout 300 valgrind --tool=callgrind --callgrind-out-file=$out \
    --toggle-collect=uf_worker_rx $B -H -n $n -f $f -i 200 -r 3 >$out.log 2>&1
  rc=$?
  ir=$(callgrind_annotate $out 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",","",$1); print $1}')
  own=$(callgrind_annotate --threshold=100 $out 2>/dev/null | awk '/uf_dp_bench\]/ && !/rte_pktmbuf_alloc_bulk/ {gsub(",","",$1); s+=$1} END {print s}')
  echo "IPv$f n=$n rc=$rc Ir=$ir per_datagram=$(echo "scale=1; $ir/19840" | bc) udpfan_own=$own per_datagram=$(echo "scale=1; $own/19840" | bc)"
done; done
