#!/usr/bin/env python3
"""The control lcore's wake-ups and its ARP/ICMP answers (docs/benchmarks.md#latency,
docs/architecture.md#the-control-lcore), for the udpfan binary in $UDPFAN (default
build/udpfan), on the veth test bed (tests/lib/testbed.py, af_packet, four destinations
resolved by ARP, one behind a gateway):

  wake-ups  the control lcore's (the process's main thread's) voluntary context switches per
            second over --seconds with no traffic: each is one sleep ended
            (/proc/PID/task/PID/status voluntary_ctxt_switches)
  ping      --pings ICMP echo requests to udpfan's address from the sender's namespace,
            every 10 ms: udpfan's control lcore answers each; rtt min/avg/max/mdev as ping
            prints it, and the loss

    sudo [UDPFAN=...] scripts/bench/ctl_wake.py [--seconds 5] [--pings 200] [--json OUT]

Run it under the e2e lock (flock /tmp/udpfan-e2e.lock) like any DPDK run; once per binary.
"""
import argparse
import json
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(SRC, "tests", "lib"), os.path.join(SRC, "tests", "e2e")]
os.environ.setdefault("UDPFAN", os.path.join(SRC, "build", "udpfan"))
from testbed import FWD_IP, Testbed  # noqa: E402
from uflive import Udpfan  # noqa: E402
from ufrun import UDPFAN, tmpdir  # noqa: E402
import test_neighbors  # noqa: E402


def vcsw(pid):
    with open("/proc/%d/task/%d/status" % (pid, pid)) as f:
        return int(re.search(r"voluntary_ctxt_switches:\s+(\d+)", f.read()).group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--pings", type=int, default=200)
    ap.add_argument("--json")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("needs root (namespaces, hugepages)")
    wd = tmpdir()
    with Testbed(prefix="ufw", sinks=3, far_sink=True) as tb:
        uf = Udpfan(tb, test_neighbors.config(tb, "af_packet"), wd)
        ok = uf.wait_stats(lambda s: all(d["state"] == "reachable" for d in s["destinations"]),
                           10)
        pid = uf.proc.pid
        time.sleep(1)
        t0, v0 = time.monotonic(), vcsw(pid)
        time.sleep(a.seconds)
        t1, v1 = time.monotonic(), vcsw(pid)
        ping = tb.nsx(tb.ns_src, "ping -q -c %d -i 0.01 -W 1 %s" % (a.pings, FWD_IP),
                      check=False, capture=True)
        st = uf.stop()
    m = re.search(r"= ([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+) ms", ping)
    loss = re.search(r"([\d.]+)% packet loss", ping)
    r = {"udpfan": UDPFAN, "resolved": bool(ok), "wakeups_per_s": (v1 - v0) / (t1 - t0),
         "ping_rtt_ms": dict(zip(("min", "avg", "max", "mdev"),
                                 map(float, m.groups()))) if m else None,
         "ping_loss_pct": float(loss.group(1)) if loss else None,
         "echo_answered": st["icmp"]["echo_answered"]}
    print("%s: control lcore %.0f wake-ups/s idle | ping x%d: rtt min/avg/max/mdev %s ms, "
          "loss %s %%, answered %d" % (
              UDPFAN, r["wakeups_per_s"], a.pings,
              "/".join("%.3f" % v for v in r["ping_rtt_ms"].values()) if m else "?",
              r["ping_loss_pct"], r["echo_answered"]))
    if a.json:
        with open(a.json, "a") as f:
            f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
