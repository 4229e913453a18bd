#!/bin/bash
for n in 4 1; do for b in old new; do
  rm -f /tmp/cg.$b.$n
  timeout 200 valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.$b.$n --toggle-collect=uf_worker_rx /tmp/ufb-cg-$b -n $n -i 200 >/tmp/cg.$b.$n.log 2>&1
  echo "callgrind $b n=$n rc=$? $(grep -m1 'refs' /tmp/cg.$b.$n.log)"
done; done
