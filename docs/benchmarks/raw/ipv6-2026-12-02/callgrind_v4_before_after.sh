#!/bin/bash
# before (main at the branch point) / after (s-v6dp): IPv4 instructions per datagram
for which in base after; do
  if [ $which = base ]; then B=${BASE:?a build of main}/tests/perf/uf_dp_bench; F=""; else B=build/tests/perf/uf_dp_bench; F="-f 4"; fi
  for n in 1 4; do
    out=/tmp/cg.$which.$n
    rm -f $out
    flock /tmp/udpfan-e2e.lock timeout 300 valgrind --tool=callgrind --callgrind-out-file=$out \
      --toggle-collect=uf_worker_rx $B -H -n $n -i 200 -r 3 $F >$out.log 2>&1
    rc=$?
    ir=$(callgrind_annotate $out 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",","",$1); print $1}')
    self=$(callgrind_annotate $out 2>/dev/null | awk '/:uf_worker_rx / {gsub(",","",$1); print $1}')
    echo "$which n=$n rc=$rc Ir=$ir per_datagram=$(echo "scale=1; $ir/19840" | bc) uf_worker_rx_self=$self per_datagram=$(echo "scale=1; $self/19840" | bc)"
  done
done
