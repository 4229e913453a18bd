#!/bin/bash
# Instructions per datagram in uf_worker_rx (classifier, fan-out, TX buffer; not the PMDs), with
# and without the NIC's GOOD RX checksum verdicts on the input (uf_dp_bench -g).
# Run from the repository root after `ninja -C build`; DPDK runs under the machine's lock.
# Datagrams counted: (200/10 warm-up + 3 x 200) bursts x 32 = 19,840 per run.
B=build/tests/perf/uf_dp_bench
for n in 1 4; do for g in "" -g; do
  out=/tmp/cg.rxck.$n${g:-none}
  rm -f $out
  flock /tmp/udpfan-e2e.lock timeout 300 valgrind --tool=callgrind --callgrind-out-file=$out \
    --toggle-collect=uf_worker_rx $B -H -n $n -i 200 -r 3 $g >$out.log 2>&1
  rc=$?
  ir=$(callgrind_annotate $out 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",","",$1); print $1}')
  self=$(callgrind_annotate $out 2>/dev/null | awk '/:uf_worker_rx / {gsub(",","",$1); print $1}')
  echo "n=$n flags=${g:-none} rc=$rc Ir=$ir per_datagram=$(echo "scale=1; $ir/19840" | bc)" \
       "uf_worker_rx_self=$self per_datagram=$(echo "scale=1; $self/19840" | bc)"
done; done
