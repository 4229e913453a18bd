#!/usr/bin/env python3
"""scripts/demo.sh: udpfan fanning out to four kernel sinks on the veth test bed."""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SRC, "tests", "lib"))
os.environ.setdefault("UDPFAN", os.path.join(SRC, "build", "udpfan"))
os.environ.setdefault("UF_SRC", SRC)

from testbed import FWD_IP, SRC_IP, Testbed  # noqa: E402
from uflive import Sink, Udpfan, send  # noqa: E402
from ufrun import tmpdir  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--count", type=int, default=20000)
    ap.add_argument("--rate", type=int, default=5000)
    ap.add_argument("--config", default=os.path.join(SRC, "config", "veth-testbed.yaml"))
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("udpfan: error: the demo builds network namespaces: run it as root "
              "(a root shell, or sudo)",
              file=sys.stderr)
        return 3
    if not os.path.exists(os.environ["UDPFAN"]):
        print("udpfan: error: no build: run scripts/setup.sh build first", file=sys.stderr)
        return 3
    wd = tmpdir()
    with Testbed(prefix="uf", sinks=3, far_sink=True) as tb:
        print("demo: test bed up: sender %s (%s), udpfan %s on %s in %s, sinks %s and %s "
              "(behind the gateway)" % (SRC_IP, tb.ns_src, FWD_IP, tb.fwd_if, tb.ns_fwd,
                                        ", ".join(tb.sink_ip), tb.far_ip))
        # the sinks' kernels' checksum refusals are reported below, not raised
        sinks = [(ip, Sink(tb, ns, [6000], wd, idle=4, bad_csum_ok=True)) for ns, ip in
                 zip(tb.sink_ns + [tb.ns_far], tb.sink_ip + [tb.far_ip])]
        with open(a.config) as f:
            uf = Udpfan(tb, f.read(), wd)
        print("demo: udpfan is up (log: %s); waiting for ARP to resolve every sink" % uf.log)
        uf.wait_stats(lambda s: all(d["state"] == "reachable" for d in s["destinations"]), 10)
        t0 = time.monotonic()
        res = send(tb, a.count, a.rate, size=64)
        print("demo: sent %d datagrams from %s at %d/s in %.1f s" % (res["sent"], SRC_IP,
                                                                   a.rate, time.monotonic() - t0))
        got = [(ip, s.result()) for ip, s in sinks]
        st = uf.stop()
        with open(uf.log) as f:
            lines = [ln for ln in f.read().splitlines() if not ln.startswith(("EAL", "TELEMETRY",
                                                                             "libbpf", "libxdp"))]
        print("\n".join("  | " + ln for ln in lines))
    ok = True
    for ip, r in got:
        c, k = r["6000"], r["kernel"]
        lost = a.count - c["distinct"]
        bad = k["udp_in_csum_errors"] + k["ip_in_hdr_errors"]
        ok &= lost == 0 and c["duplicates"] == 0 and bad == 0
        print("demo: sink %-12s received %6d of %d, lost %d, duplicated %d, reordered %d, "
              "refused by its kernel for a bad checksum %d" %
              (ip, c["received"], a.count, lost, c["duplicates"], c["reordered"], bad))
    f = st["fwd"]
    print("demo: udpfan rx %d, forwarded %d (partial checksums completed %d), copies %d, "
          "tx_ok %d, drops %d, tx drops %d" %
          (f["rx"], f["forwarded"], f["csum_completed"], f["copies_attempted"], f["tx_ok"],
           sum(f["drop"].values()), sum(f["tx_drop"].values())))
    print("demo: %s" % ("OK: every datagram reached every destination; the ledger balances"
                        if ok else "LOSS: see the ledger above"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
