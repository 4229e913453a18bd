#!/usr/bin/env python3
"""Latency (docs/benchmarks.md#latency): the one-way delay a forwarder adds, p50/p99/p99.9, by
rate, udpfan beside testpmd on the same wire and the same lcores, interleaved.

    sudo scripts/bench/latency.py [--rates 1000,10000,100000,sat] [--rounds 2] [--seconds 3]
                                  [--contenders udpfan-1,udpfan-4,testpmd-io] [--raw DIR]

The wire: one net_memif link (shared memory, DPDK's own PMD on both ends, no kernel) between
udpfan-gen (role=client) and the forwarder (role=server). udpfan-gen --latency stamps each
datagram with its TSC just before tx_burst, and its TX lcore polls RX on every pass: the
forwarder sends its copies back over the same link to the generator's own address, and the
generator reads the TSC again as it takes each one in. One process, one clock, nothing in
between but the forwarder. What is measured is generator TX ring -> forwarder RX -> its
processing and TX buffering -> generator RX, so the figures include two memif hops; the
testpmd row has the same hops with a forwarder that does nothing but move mbufs (io mode,
--port-topology=loop: frames leave on the port they came in on).

Contenders:
  udpfan-1    udpfan, one destination: the generator's address, UDP port 7001
  udpfan-4    udpfan, four destinations: the generator's address, UDP ports 7001..7004
              (every datagram comes back four times; latency of every copy)
  testpmd-io  dpdk-testpmd --forward-mode=io on the same memif port
CPU placement (2 CPUs): the generator's main and TX lcores on CPU 0 (the main lcore sleeps), the
forwarder's main lcore on CPU 0 (sleeps), its forwarding lcore alone on CPU 1.

Rates: datagrams per second from the generator (bursts of 1: every datagram paced alone);
"sat" is 90 % of the highest rate the forwarder returned without loss in a 2 s flood probe
(measured per contender, in this run). Each (rate, contender) point runs --seconds; the
contenders alternate within a round (A B C A B C ...), --rounds rounds; the table gives the
median of each percentile over the rounds and its spread (max - min).

On a shared 2-CPU machine a busy neighbour preempts the poll loops and shows up as
milliseconds at p99: the script prints the machine's load beside each point and marks a point
NOISY when others used more than --max-other CPUs during it (its numbers are kept, marked).
"""
import argparse
import datetime
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("UF_BUILD", os.path.join(SRC, "build"))
UDPFAN = os.environ.get("UDPFAN", os.path.join(BUILD, "udpfan"))
GEN = os.path.join(BUILD, "app", "udpfan-gen", "udpfan-gen")
TESTPMD = "/usr/bin/dpdk-testpmd"

GEN_IP, FWD_IP = "198.18.0.2", "198.18.0.10"
GEN_MAC, FWD_MAC = "02:18:00:00:00:02", "02:18:00:00:00:10"
LISTEN_PORT, BACK_PORT = 2055, 7001
CONTENDERS = ["udpfan-1", "udpfan-4", "testpmd-io"]


def log(*a):
    print(*a, flush=True)


def cpu_busy():
    """(busy, total) jiffies of the whole machine"""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]
    return sum(v) - idle, sum(v)


def family_ticks(pids):
    tot = 0
    for p in pids:
        try:
            with open("/proc/%d/stat" % p) as f:
                v = f.read().rsplit(")", 1)[1].split()
            tot += int(v[11]) + int(v[12])
        except (OSError, ValueError, IndexError):
            pass
    return tot


class Fwd:
    """one forwarder process on the memif server side"""

    def __init__(self, c, wd, sock):
        self.c, self.wd, self.sock = c, wd, sock
        self.log = os.path.join(wd, "%s.log" % c)
        dev = "net_memif0,role=server,socket=%s,mac=%s" % (sock, FWD_MAC)
        if c.startswith("udpfan"):
            n = int(c.split("-")[1])
            cfg = os.path.join(wd, "%s.yaml" % c)
            dests = "\n".join("  - { ip: %s, udp_port: %d, mac: \"%s\" }" %
                              (GEN_IP, BACK_PORT + i, GEN_MAC) for i in range(n))
            with open(cfg, "w") as f:
                f.write("""eal: { lcores: "0@0,1@1", file_prefix: uflat-fwd }
ports:
  - { name: lan, device: "%s", ip: %s/24 }
listen: { port: lan, udp_port: %d }
destinations:
%s
forward: { udp_checksum: compute }
stats: { interval_s: 1 }
""" % (dev, FWD_IP, LISTEN_PORT, dests))
            self.argv = [UDPFAN, "-c", cfg, "--stats-json", os.path.join(wd, "%s.json" % c)]
            self.ready = "ready:"
        else:
            self.argv = [TESTPMD, "--lcores", "0@0,1@1", "--main-lcore", "0",
                         "--file-prefix", "uflat-tp", "--no-pci", "--vdev", dev, "--",
                         "--forward-mode=io", "--port-topology=loop", "--nb-cores=1",
                         "--auto-start", "--rxq=1", "--txq=1"]
            self.ready = "Press enter to exit"
        self.p = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=open(self.log, "w"),
                                  stderr=subprocess.STDOUT)
        t_end = time.monotonic() + 30
        while time.monotonic() < t_end:
            if self.p.poll() is not None:
                raise RuntimeError("%s exited: %s" % (c, open(self.log).read()[-3000:]))
            # memif's socket is abstract by default: no file to wait for
            if self.ready in open(self.log).read():
                break
            time.sleep(0.1)
        time.sleep(0.5)

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
            try:
                self.p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()


def gen(wd, sock, rate, seconds, tag):
    out = os.path.join(wd, "gen-%s.json" % tag)
    argv = [GEN, "--dev", "net_memif0,role=client,socket=%s,mac=%s" % (sock, GEN_MAC),
            "--ip", GEN_IP + "/24", "--dst", "%s:%d" % (FWD_IP, LISTEN_PORT), "--dst-mac",
            FWD_MAC, "--latency", "--rate", str(rate), "--burst", "1", "--duration",
            str(seconds), "--lcores", "0@0,1@0", "--file-prefix", "uflat-gen", "--json", out]
    r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       timeout=seconds + 60)
    if r.returncode != 0:
        raise RuntimeError("udpfan-gen exited %d: %s" % (r.returncode, r.stderr[-2000:]))
    with open(out) as f:
        return json.load(f)


def point(a, wd, c, rate, n_copies):
    sock = os.path.join(wd, "memif.sock")
    f = Fwd(c, wd, sock)
    try:
        b0 = cpu_busy()
        t0 = family_ticks([f.p.pid])
        g = gen(wd, sock, rate, a.seconds, c)
        b1 = cpu_busy()
        t1 = family_ticks([f.p.pid])
    finally:
        f.stop()
    ncpu = os.cpu_count()
    wall = max(1, b1[1] - b0[1]) / ncpu
    # others: the machine's busy time minus the forwarder's and the generator's (both spin
    # one CPU each, so 2 CPUs of it are ours)
    others = ((b1[0] - b0[0]) - (t1 - t0)) / wall - 1.0
    back = g.get("returned", {})
    lat = back.get("latency", {})
    got = sum(d["distinct"] for d in back.get("destinations", {}).values())
    exp = g["sent"] * n_copies
    r = {"contender": c, "rate": rate, "sent": g["sent"], "gen_pps": g["pps"],
         "expected": exp, "returned": got, "lost": exp - got, "latency": lat,
         "others_cpus": others, "noisy": others > a.max_other, "time": time.time(),
         "gen": g}
    log("  %-11s rate %7s: sent %8d (%7.0f pps) back %9d lost %6d | p50 %8.1f p99 %9.1f "
        "p99.9 %9.1f max %9.1f us | others %.2f CPUs%s" % (
            c, rate, g["sent"], g["pps"], got, exp - got, lat.get("p50_ns", 0) / 1e3,
            lat.get("p99_ns", 0) / 1e3, lat.get("p999_ns", 0) / 1e3,
            lat.get("max_ns", 0) / 1e3, others, " NOISY" if r["noisy"] else ""))
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__)
    ap.add_argument("--rates", default="1000,10000,100000,sat")
    ap.add_argument("--contenders", default=",".join(CONTENDERS))
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=3)
    ap.add_argument("--max-other", type=float, default=0.3)
    ap.add_argument("--raw", help="raw log directory (default /tmp/latency-DATE)")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("needs root (hugepages; net_memif needs DPDK's multi-process support, so no "
                 "--in-memory)")
    for b in (UDPFAN, GEN, TESTPMD):
        if not os.path.exists(b):
            sys.exit("%s is missing" % b)
    cs = [c for c in a.contenders.split(",") if c]
    for c in cs:
        if c not in CONTENDERS:
            sys.exit("unknown contender %s (one of %s)" % (c, ", ".join(CONTENDERS)))
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    a.raw = a.raw or "/tmp/latency-" + stamp
    os.makedirs(a.raw, exist_ok=True)
    copies = {c: int(c.split("-")[1]) if c.startswith("udpfan") else 1 for c in cs}
    runs = []
    with tempfile.TemporaryDirectory(prefix="uflat-") as wd:
        sat = {}
        if "sat" in a.rates.split(","):
            log("flood probe (2 s each): the highest rate each contender returns")
            for c in cs:
                a2 = argparse.Namespace(**vars(a))
                a2.seconds = 2
                r = point(a2, wd, c, 0, copies[c])
                ok = r["returned"] / copies[c] / 2.0
                sat[c] = int(0.9 * ok)
                log("  => %s saturation %.0f pps, 'sat' = %d pps" % (c, ok, sat[c]))
        for rnd in range(a.rounds):
            log("round %d" % (rnd + 1))
            for rate in a.rates.split(","):
                for c in cs:
                    rr = sat[c] if rate == "sat" else int(rate)
                    r = point(a, wd, c, rr, copies[c])
                    r["rate_label"] = rate
                    r["round"] = rnd + 1
                    runs.append(r)
                    with open(os.path.join(a.raw, "runs.jsonl"), "a") as f:
                        f.write(json.dumps(r) + "\n")
    log("\n--- one-way added delay through the forwarder and back (us), median over %d "
        "round(s) [spread max-min] ---" % a.rounds)
    log("%-11s %9s %22s %22s %22s %8s" % ("contender", "rate", "p50", "p99", "p99.9", "lost"))
    table = []
    for rate in a.rates.split(","):
        for c in cs:
            rs = [r for r in runs if r["contender"] == c and r["rate_label"] == rate]
            if not rs:
                continue

            def med(k):
                xs = [r["latency"].get(k, 0) / 1e3 for r in rs]
                return statistics.median(xs), max(xs) - min(xs)
            row = {"contender": c, "rate": rate, "pps": rs[0]["rate"],
                   "p50": med("p50_ns"), "p99": med("p99_ns"), "p999": med("p999_ns"),
                   "lost": sum(r["lost"] for r in rs), "noisy": sum(r["noisy"] for r in rs)}
            table.append(row)
            log("%-11s %9s %14.1f [%5.1f] %14.1f [%5.1f] %14.1f [%5.1f] %8d%s" % (
                c, "%s%s" % (rate, "" if rate != "sat" else "=%d" % rs[0]["rate"]),
                row["p50"][0], row["p50"][1], row["p99"][0], row["p99"][1], row["p999"][0],
                row["p999"][1], row["lost"], "  (%d NOISY)" % row["noisy"] if row["noisy"]
                else ""))
    with open(os.path.join(a.raw, "summary.json"), "w") as f:
        json.dump({"argv": sys.argv, "table": table, "sat": sat}, f, indent=1)
    log("raw: %s" % a.raw)


if __name__ == "__main__":
    main()
