#!/bin/bash
for n in 1 4; do for b in base new; do
  bin=/work/main/build/tests/perf/uf_dp_bench; [ $b = new ] && bin=/work/wt/vlan/build/tests/perf/uf_dp_bench
  rm -f /tmp/vcg.$b.$n
  timeout 300 valgrind --tool=callgrind --callgrind-out-file=/tmp/vcg.$b.$n --toggle-collect=uf_worker_rx $bin -H -n $n -i 200 -r 3 >/tmp/vcg.$b.$n.log 2>&1
  echo "callgrind $b n=$n rc=$? $(grep -m1 'refs' /tmp/vcg.$b.$n.log) | $(grep -m1 'forwarded' /tmp/vcg.$b.$n.log)"
done; done
