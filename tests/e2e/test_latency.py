#!/usr/bin/env python3
"""udpfan-gen --latency through udpfan and back, over one net_memif link (DPDK on both ends,
no kernel): the round trip scripts/bench/latency.py measures, checked for correctness.

  1. round_trip: udpfan with two destinations, both the generator's own address (UDP ports
     7001, 7002, static MACs: no ARP, so nothing is lost to resolution); the generator sends
     NetFlow v5-shaped, timestamped datagrams (--netflow-v5 --latency). Every datagram
     reaches udpfan (forwarded == sent) and every copy is accounted: it comes back exactly
     once, or udpfan counted it, per destination (the generator's `lost` for a destination
     is that destination's tx_drop), as tx_drop.link_down or tx_drop.ring_full (memif's ring
     toward a generator whose CPU is busy elsewhere: anywhere in the run) and nothing else.
     link_down only at the start (a prefix of the run): net_memif raises no link-change
     interrupt, so udpfan learns of the client's connect from its link poll, every
     UF_LINK_POLL_PEER_MS (1 ms) while such a link is down (docs/architecture.md#link-state),
     and the generator starts sending the moment its own link is up (it polls every 1 ms).
     So at most LINK_DOWN_MAX copies (10 ms of the run's two copies at RATE; with the
     100-ms poll of before, 512 and 976 in two runs of three) (docs/pmd-quirks.md). The
     latency histogram holds one
     value per copy back, none from the future, p50 <= p99 <= p99.9 <= max; the NetFlow
     header came back intact (the generator reads the sequence number at offset 24, which
     it could not if udpfan had moved a byte).
  2. no_stamp_no_latency: without --stamp the same path gives no latency (n = 0 would be a
     lie: the summary has no `returned` at all), so a bench cannot read zeros as delays.
  3. warm_rings: udpfan-gen --warmup WARM first: the warm-up's copies are accounted as any
     other (sent = WARM + COUNT, every copy back or in udpfan's tx_drop), their latency in
     warmup_latency and not in latency (n of the two = the copies back). And eal.mlockall
     (default true) does what docs/configuration.md says: net_memif maps the client's
     regions at the connect, and with memory locked that mmap() populates them, so udpfan's
     forwarding thread takes almost no page faults over the first passes of the rings
     (at most WORKER_FAULTS_MAX); with eal.mlockall: false the same run costs it a fault
     per fresh 4-KiB page (at least WORKER_FAULTS_MIN; ~600 here, 20-40 us each in a VM:
     docs/benchmarks.md#latency). The generator's stalls: with --stall-us 1000000 no receive
     is one and latency_gen_unstalled holds every measured copy; with the default (5 us) it
     holds at most those, all of them when no stall was seen.

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
LINK_DOWN_MAX = 2 * RATE * 10 // 1000  # two destinations, 10 ms
WARM = 2048  # twice memif's 1024-slot rings
WORKER_FAULTS_MAX = 32
WORKER_FAULTS_MIN = 256


def start_udpfan(tmp, sock, n, eal=""):
    dests = "\n".join('  - { ip: %s, udp_port: %d, mac: "%s" }' % (GEN_IP, 7001 + i, GEN_MAC)
                      for i in range(n))
    cfg = os.path.join(tmp, "udpfan.yaml")
    with open(cfg, "w") as f:
        f.write("""eal: { lcores: "0-1", file_prefix: uflat-t%s }
ports:
  - { name: lan, device: "net_memif0,role=server,socket=%s,mac=%s", ip: %s/24 }
listen: { port: lan, udp_port: 2055 }
destinations:
%s
forward: { udp_checksum: compute }
stats: { interval_s: 1 }
""" % (eal, sock, FWD_MAC, FWD_IP, dests))
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
    """Start udpfan-gen and return (its process, its summary) once the summary is written:
    it then holds its memif port open, not polling, until udpfan has stopped (--hold;
    docs/pmd-quirks.md, net_memif: a client that closes while udpfan's worker reads the
    rings can crash udpfan). finish_gen() checks how it ended."""
    path = os.path.join(tmp, "gen.json")
    argv = [GEN, "--dev", "net_memif0,role=client,socket=%s,mac=%s" % (sock, GEN_MAC),
            "--ip", GEN_IP + "/24", "--dst", "%s:2055" % FWD_IP, "--dst-mac", FWD_MAC,
            "--rate", str(RATE), "--burst", "8", "--count", str(COUNT), "--duration", "30",
            "--lcores", "0@0,1@0", "--file-prefix", "uflat-g", "--json", path,
            "--hold", "60000"] + extra
    err = open(os.path.join(tmp, "gen.err"), "w")
    g = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err)

    def summary():
        try:
            with open(path) as f:
                return json.loads(f.read())
        except (OSError, ValueError):
            return None

    if not wait_for(lambda: summary() is not None or g.poll() is not None, 90) or \
            summary() is None:
        if g.poll() is None:
            g.kill()
        g.wait()
        raise AssertionError("udpfan-gen exit %s: %s" % (
            g.returncode, open(err.name).read()[-3000:]))
    return g, summary()


def finish_gen(g, tmp):
    """After udpfan stopped: the generator saw its link go down and exited cleanly."""
    try:
        g.wait(timeout=15)
    except subprocess.TimeoutExpired:
        g.kill()
        g.wait()
    assert g.returncode == 0, "udpfan-gen exit %d after udpfan stopped: %s" % (
        g.returncode, open(os.path.join(tmp, "gen.err")).read()[-3000:])


def case_round_trip():
    with tempfile.TemporaryDirectory(prefix="uflat-") as tmp:
        sock = os.path.join(tmp, "memif.sock")
        p, stats = start_udpfan(tmp, sock, 2)
        try:
            gp, g = run_gen(tmp, sock, ["--netflow-v5", "--latency", "--stall-us", "1000000"])
        finally:
            st = stop_udpfan(p, stats)
        finish_gen(gp, tmp)
        assert g["sent"] == COUNT and g["netflow_v5"] and g["stamp"], g
        back = g["returned"]
        dests = back["destinations"]
        assert sorted(dests) == ["%s:7001" % GEN_IP, "%s:7002" % GEN_IP], sorted(dests)
        f = st["fwd"]
        assert f["forwarded"] == COUNT and sum(f["drop"].values()) == 0, f
        lost = prefix = 0
        udests = {"%s:%d" % (GEN_IP, u["udp_port"]): u for u in st["destinations"]}
        for k, d in dests.items():
            # every copy not back is one udpfan counted for this destination
            assert d["distinct"] == d["received"] == COUNT - d["lost"], (k, d)
            assert d["lost"] == udests[k]["tx_drop"], (k, d, udests[k])
            assert udests[k]["tx_ok"] == COUNT - d["lost"], (k, udests[k])
            assert d["max_seq"] == COUNT - 1 or d["lost"] > 0, (k, d)
            assert d["duplicated"] == 0 and d["short_payload"] == 0, (k, d)
            assert d["latency"]["n"] == d["received"], (k, d["latency"])
            lost += d["lost"]
            prefix += d["first_seq"]
        ld, rf = f["tx_drop"]["link_down"], f["tx_drop"]["ring_full"]
        assert f["tx_ok"] == 2 * COUNT - lost and ld + rf == lost, (lost, f)
        assert sum(f["tx_drop"].values()) == lost, (lost, f)
        # link_down: the copies before udpfan saw the link, the start of the run only, and
        # a sliver of it (the link poll's period, not 100 ms)
        assert ld <= prefix, (ld, prefix, f)
        assert ld <= LINK_DOWN_MAX, ("copies dropped as link_down at the memif connect", ld,
                                     LINK_DOWN_MAX)
        lat = back["latency"]
        assert lat["n"] == 2 * COUNT - lost and lat["negative"] == 0, lat
        assert 0 < lat["min_ns"] <= lat["p50_ns"] <= lat["p99_ns"] <= lat["p999_ns"] <= \
            lat["max_ns"], lat
        assert back["untracked"] == 0, back
        # --stall-us 1000000: no receive comes a second after the one before, so none is a
        # stall and the unstalled histogram holds every measured copy
        assert back["gen_stalls"]["count"] == 0 and \
            back["latency_gen_unstalled"]["n"] == lat["n"], (back["gen_stalls"], lat)
        print("round trip: %d x 2 copies, %d back (%d to link_down at the start, %d to "
              "ring_full), p50 %.1f us p99 %.1f us max %.1f us" % (
                  COUNT, lat["n"], ld, rf, lat["p50_ns"] / 1e3,
                                           lat["p99_ns"] / 1e3, lat["max_ns"] / 1e3))


def thread_stats(pid):
    """per thread of pid: (minor faults, CPU ticks)"""
    out = {}
    for t in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/stat" % (pid, t)) as f:
                v = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(t)] = (int(v[7]), int(v[11]) + int(v[12]))
    return out


def warm_run(mlock):
    """udpfan (eal.mlockall = mlock) and udpfan-gen --warmup WARM: (the generator's summary,
    udpfan's final stats, the forwarding thread's page faults over the generator's run)"""
    with tempfile.TemporaryDirectory(prefix="uflat-") as tmp:
        sock = os.path.join(tmp, "memif.sock")
        p, stats = start_udpfan(tmp, sock, 2, "" if mlock else ", mlockall: false")
        try:
            before = thread_stats(p.pid)
            gp, g = run_gen(tmp, sock, ["--latency", "--warmup", str(WARM)])
            after = thread_stats(p.pid)
        finally:
            st = stop_udpfan(p, stats)
        finish_gen(gp, tmp)
    # the forwarding thread: the one that spun (most CPU over the run)
    tid = max(after, key=lambda t: after[t][1] - before.get(t, (0, 0))[1])
    return g, st, after[tid][0] - before.get(tid, (0, 0))[0]


def case_warm_rings():
    g, st, faults = warm_run(True)
    assert g["warmup"] == WARM and g["sent"] == WARM + COUNT, g
    back = g["returned"]
    got = sum(d["received"] for d in back["destinations"].values())
    lost = sum(d["lost"] for d in back["destinations"].values())
    f = st["fwd"]
    assert f["forwarded"] == WARM + COUNT and got + lost == 2 * (WARM + COUNT), (got, lost, f)
    assert lost == sum(f["tx_drop"].values()), (lost, f)
    warm, lat = back["warmup_latency"], back["latency"]
    # default --stall-us 5: copies a receive took in after the generator was away are left
    # out of latency_gen_unstalled, and only those
    uns, stalls = back["latency_gen_unstalled"], back["gen_stalls"]
    assert uns["n"] <= lat["n"] and (stalls["count"] > 0 or uns["n"] == lat["n"]), (uns, stalls)
    # each copy back in exactly one of the two histograms, per its sequence number
    assert warm["n"] + lat["n"] == got and 0 < warm["n"] <= 2 * WARM and \
        lat["n"] <= 2 * COUNT, (warm, lat, got)
    assert faults <= WORKER_FAULTS_MAX, (
        "udpfan's forwarding thread took %d page faults over the run with eal.mlockall "
        "(at most %d)" % (faults, WORKER_FAULTS_MAX))
    g0, _, faults0 = warm_run(False)
    assert faults0 >= WORKER_FAULTS_MIN, (
        "with eal.mlockall: false the forwarding thread took only %d page faults: the "
        "check above would not tell" % faults0)
    print("warm-up %d: p99 %.1f us; measured p99 %.1f us; forwarding thread page faults: %d "
          "locked, %d with eal.mlockall: false (warm-up p99 %.1f us)" % (
              WARM, warm["p99_ns"] / 1e3, lat["p99_ns"] / 1e3, faults, faults0,
              g0["returned"]["warmup_latency"]["p99_ns"] / 1e3))


def case_no_stamp_no_latency():
    with tempfile.TemporaryDirectory(prefix="uflat-") as tmp:
        sock = os.path.join(tmp, "memif.sock")
        p, stats = start_udpfan(tmp, sock, 1)
        try:
            gp, g = run_gen(tmp, sock, [])
        finally:
            st = stop_udpfan(p, stats)
        finish_gen(gp, tmp)
        assert "returned" not in g and not g["stamp"], g
        # the copies did come back (the generator saw them as plain received frames)
        f = st["fwd"]
        assert g["rx"] > 0 and f["tx_ok"] + sum(f["tx_drop"].values()) == COUNT, (g["rx"], f)


def main():
    s = Suite(root=True)
    if not s.listing:
        for b in (GEN, UDPFAN):
            if not os.access(b, os.X_OK):
                raise SystemExit("not built: " + b)
    s.run(case_round_trip)
    s.run(case_no_stamp_no_latency)
    s.run(case_warm_rings)
    s.finish()


if __name__ == "__main__":
    sys.exit(main())
