#!/bin/bash
bin=/work/wt/vlan/build/tests/perf/uf_dp_bench
for n in 1 4; do for v in -V ""; do
  rm -f /tmp/vcg4.$n$v
  timeout 300 valgrind --tool=callgrind --callgrind-out-file=/tmp/vcg4.$n$v --toggle-collect=uf_worker_rx $bin -H $v -n $n -i 200 -r 3 >/tmp/vcg4.$n$v.log 2>&1
  echo "callgrind new$v n=$n rc=$? $(grep -m1 'refs' /tmp/vcg4.$n$v.log) | $(grep -m1 'forwarded' /tmp/vcg4.$n$v.log)"
done; done
