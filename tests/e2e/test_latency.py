#!/usr/bin/env python3
"""udpfan-gen --latency through udpfan and back, over one net_memif link (DPDK on both ends,
no kernel): the round trip scripts/bench/latency.py measures, checked for correctness.

  1. round_trip: udpfan with two destinations, both the generator's own address (UDP ports
     7001, 7002, static MACs: no ARP, so nothing is lost to resolution); the generator sends
     NetFlow v5-shaped, timestamped datagrams (--netflow-v5 --latency). Every datagram
     reaches udpfan (forwarded == sent) and every copy is accounted: it comes back exactly
     once, or udpfan counted it in tx_drop.link_down. The latter only at the start: udpfan
     polls link state every 100 ms, and a memif client's connect is seen up to one poll
     late, so the first copies of a run (a gapless prefix, each destination alike) can meet
     a port udpfan still believes down (docs/pmd-quirks.md). The latency histogram holds one
     value per copy back, none from the future, p50 <= p99 <= p99.9 <= max; the NetFlow
     header came back intact (the generator reads the sequence number at offset 24, which
     it could not if udpfan had moved a byte).
  2. no_stamp_no_latency: without --stamp the same path gives no latency (n = 0 would be a
     lie: the summary has no `returned` at all), so a bench cannot read zeros as delays.

Root only (hugepages); exit 77 (skip) otherwise.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from testbed import wait_for
from ufrun import Suite

BUILD = os.environ.get("UF_BUILD", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
GEN = os.path.join(BUILD, "app", "udpfan-gen", "udpfan-gen")
UDPFAN = os.environ.get("UDPFAN", os.path.join(BUILD, "udpfan"))
GEN_IP, FWD_IP = "198.18.0.2", "198.18.0.10"
GEN_MAC, FWD_MAC = "02:18:00:00:00:02", "02:18:00:00:00:10"
COUNT = 20000
RATE = 20000


def start_udpfan(tmp, sock, n):
    dests = "\n".join('  - { ip: %s, udp_port: %d, mac: "%s" }' % (GEN_IP, 7001 + i, GEN_MAC)
                      for i in range(n))
    cfg = os.path.join(tmp, "udpfan.yaml")
    with open(cfg, "w") as f:
        f.write("""eal: { lcores: "0-1", file_prefix: uflat-t }
ports:
  - { name: lan, device: "net_memif0,role=server,socket=%s,mac=%s", ip: %s/24 }
listen: { port: lan, udp_port: 2055 }
destinations:
%s
forward: { udp_checksum: compute }
stats: { interval_s: 1 }
""" % (sock, FWD_MAC, FWD_IP, dests))
    stats = os.path.join(tmp, "stats.json")
    log = open(os.path.join(tmp, "udpfan.log"), "w")
    p = subprocess.Popen([UDPFAN, "-c", cfg, "--stats-json", stats], stdout=log,
                         stderr=subprocess.STDOUT)
    # memif's socket is abstract by default (no file to wait for): udpfan says when it is
    # forwarding ("ready:", after its link wait, which a server-side memif without a peer
    # spends in full)
    if not wait_for(lambda: "ready:" in open(log.name).read() or p.poll() is not None, 30) or \
            p.poll() is not None:
        if p.poll() is None:
            p.kill()
            p.wait()
        raise AssertionError("udpfan did not start: " +
                             open(os.path.join(tmp, "udpfan.log")).read()[-3000:])
    time.sleep(0.5)
    return p, stats


def stop_udpfan(p, stats):
    p.send_signal(signal.SIGTERM)
    assert p.wait(timeout=30) == 0, "udpfan exit %s" % p.returncode
    with open(stats) as f:
        objs = [json.loads(line) for line in f if line.strip()]
    final = [o for o in objs if o.get("final")]
    assert final, "no final stats object"
    return final[-1]


def run_gen(tmp, sock, extra):
    argv = [GEN, "--dev", "net_memif0,role=client,socket=%s,mac=%s" % (sock, GEN_MAC),
            "--ip", GEN_IP + "/24", "--dst", "%s:2055" % FWD_IP, "--dst-mac", FWD_MAC,
            "--rate", str(RATE), "--burst", "8", "--count", str(COUNT), "--duration", "30",
            "--lcores", "0@0,1@0", "--file-prefix", "uflat-g"] + extra
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=90)
    assert r.returncode == 0, "udpfan-gen exit %d: %s" % (r.returncode, r.stderr[-3000:])
    return json.loads(r.stdout)


def case_round_trip():
    with tempfile.TemporaryDirectory(prefix="uflat-") as tmp:
        sock = os.path.join(tmp, "memif.sock")
        p, stats = start_udpfan(tmp, sock, 2)
        try:
            g = run_gen(tmp, sock, ["--netflow-v5", "--latency"])
        finally:
            st = stop_udpfan(p, stats)
        assert g["sent"] == COUNT and g["netflow_v5"] and g["stamp"], g
        back = g["returned"]
        dests = back["destinations"]
        assert sorted(dests) == ["%s:7001" % GEN_IP, "%s:7002" % GEN_IP], sorted(dests)
        f = st["fwd"]
        assert f["forwarded"] == COUNT and sum(f["drop"].values()) == 0, f
        lost = 0
        for k, d in dests.items():
            # a gapless run from first_seq to the end: what is missing is a prefix
            assert d["distinct"] == d["received"] == COUNT - d["first_seq"], (k, d)
            assert d["lost"] == d["first_seq"] and d["max_seq"] == COUNT - 1, (k, d)
            assert d["duplicated"] == 0 and d["short_payload"] == 0, (k, d)
            assert d["latency"]["n"] == d["received"], (k, d["latency"])
            lost += d["lost"]
        # every copy not back is one udpfan counted, and it is a start-up sliver only
        assert f["tx_ok"] == 2 * COUNT - lost and f["tx_drop"]["link_down"] == lost, (lost, f)
        assert sum(f["tx_drop"].values()) == lost and lost <= COUNT // 10, (lost, f)
        lat = back["latency"]
        assert lat["n"] == 2 * COUNT - lost and lat["negative"] == 0, lat
        assert 0 < lat["min_ns"] <= lat["p50_ns"] <= lat["p99_ns"] <= lat["p999_ns"] <= \
            lat["max_ns"], lat
        assert back["untracked"] == 0, back
        print("round trip: %d x 2 copies, %d back (%d to link_down at the start), p50 %.1f us "
              "p99 %.1f us max %.1f us" % (COUNT, lat["n"], lost, lat["p50_ns"] / 1e3,
                                           lat["p99_ns"] / 1e3, lat["max_ns"] / 1e3))


def case_no_stamp_no_latency():
    with tempfile.TemporaryDirectory(prefix="uflat-") as tmp:
        sock = os.path.join(tmp, "memif.sock")
        p, stats = start_udpfan(tmp, sock, 1)
        try:
            g = run_gen(tmp, sock, [])
        finally:
            st = stop_udpfan(p, stats)
        assert "returned" not in g and not g["stamp"], g
        # the copies did come back (the generator saw them as plain received frames)
        f = st["fwd"]
        assert g["rx"] > 0 and f["tx_ok"] + f["tx_drop"]["link_down"] == COUNT, (g["rx"], f)


def main():
    s = Suite(root=True)
    if not s.listing:
        for b in (GEN, UDPFAN):
            if not os.access(b, os.X_OK):
                raise SystemExit("not built: " + b)
    s.run(case_round_trip)
    s.run(case_no_stamp_no_latency)
    s.finish()


if __name__ == "__main__":
    sys.exit(main())
