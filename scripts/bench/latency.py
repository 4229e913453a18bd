#!/usr/bin/env python3
"""Latency (docs/benchmarks.md#latency): the one-way delay a forwarder adds, p50/p99/p99.9, by
rate, udpfan beside testpmd on the same wire and the same lcores, interleaved. With --bench,
bench 2b (docs/benchmarks.md#bench-2b-real-pmd-rings-vhost-user-and-memif): the same wire,
flooded, in packets per CPU-second of the forwarding thread.

    sudo scripts/bench/latency.py [--rates 1000,10000,100000,sat] [--rounds 2] [--seconds 3]
                                  [--contenders udpfan-1,udpfan-4,testpmd-io] [--wire memif]
                                  [--warm 2048] [--raw DIR]
    sudo scripts/bench/latency.py --bench [--wires memif,vhost] [--rounds 3] [--seconds 6]
                                  [--warmup 2]

Wires: memif (net_memif, the forwarder role=server, the generator role=client) and vhost
(the forwarder's port is virtio_user with server=1: the virtio PMD's rings as a guest has
them; the generator is the net_vhost backend, client=1).

Bench 2b: udpfan-gen floods (bursts of 32) and takes every copy back on the same port (its TX
lcore polls RX on every pass), so the generator is also the sink: two processes on the two
CPUs, the forwarding thread alone on CPU 1. After --warmup the forwarder's port counters
(DPDK telemetry, /ethdev/stats) and its forwarding thread's run time
(/proc/PID/task/TID/schedstat) are read at two instants (scripts/bench/inmem.py's
cpu_measure): in and out per CPU-second, whatever else the CPU did. The line per run also
gives the wall rate, the forwarder's share of its CPU (well under 100 %: it waited for the
generator), the generator's rate and how much came back (short, with udpfan's tx_drop up: the
generator's receive side, i.e. the sink, was the limit).

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
  udpfan-1-base, udpfan-4-base
              the same with the udpfan binary in $UDPFAN_BASE (another build, e.g. main's):
              a change measured against what it changes, in the same run
CPU placement (2 CPUs): the generator's main and TX lcores on CPU 0 (the main lcore sleeps), the
forwarder's main lcore on CPU 0 (sleeps), its forwarding lcore alone on CPU 1. On a bigger
host, --cpus MAIN,GEN,FWD gives the generator's TX lcore and the forwarding lcore a CPU each
(scripts/bench/bighost.py picks isolated ones); the stall probe then runs on GEN and FWD.

Warm-up (--warm N, default 2048): each point's generator sends N datagrams first (udpfan-gen
--warmup: at 100 k pps, then 20 ms), whose copies are accounted as any other but whose delays
are kept apart (the "warm p99" column): the first pass over memif's 1024-slot rings touches
fresh pages of the client's regions, and what that costs is a connect's cost, not the
forwarder's per-datagram delay (docs/benchmarks.md#latency).

Stall probe (--probe-seconds, default 2; 0 skips it): before and after the points,
udpfan-gen's TX lcore spins alone on each CPU over net_null and reports how often and how
long the host kept it away (receives more than 5 us apart). A forwarding thread on that CPU
is kept away alike, and a copy that arrives then waits for the rest of the stall: when the
stalls cover more than 1 % of the time, p99 is theirs, for every contender.

Generator stalls: a receive of the generator's more than 5 us after its previous one (its
lcore off the CPU; udpfan-gen --stall-us) took in copies that may have waited for the
generator, not the forwarder. The "p99 gen unstalled" column leaves those copies out (their
share in "out %"); "p99" keeps every measured copy. Stalls of the forwarder's thread stay in
both: they are the forwarder's delay on this host.

Rates: datagrams per second from the generator (bursts of 1: every datagram paced alone);
"sat" is 90 % of the highest rate the forwarder returned without loss in a 2 s flood probe
(measured per contender, in this run). Each (rate, contender) point runs --seconds; the
contenders alternate within a round, their order turned by one at each (round, rate)
(A B C, B C A, C A B, ...: each runs after each of the others as often), --rounds rounds;
the table gives the median of each percentile over the rounds and its spread (max - min).

On a shared 2-CPU machine a busy neighbour preempts the poll loops and shows up as
milliseconds at p99: the script prints the machine's load beside each point and marks a point
NOISY when others used more than --max-other CPUs during it. A NOISY point is run again, up
to --retries times: the table takes its last try (still marked when that was NOISY too);
every try is in runs.jsonl (`try`).
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
GEN = os.environ.get("UDPFAN_GEN", os.path.join(BUILD, "app", "udpfan-gen", "udpfan-gen"))
TESTPMD = os.environ.get("TESTPMD", "/usr/bin/dpdk-testpmd")
# --cpus MAIN,GEN,FWD: every main lcore on MAIN, the generator's TX lcore on GEN, the
# forwarding lcore on FWD; the default is this VM's placement (see CPU placement above)
CPU_MAIN, CPU_GEN, CPU_FWD = 0, 0, 1

GEN_IP, FWD_IP = "198.18.0.2", "198.18.0.10"
GEN_MAC, FWD_MAC = "02:18:00:00:00:02", "02:18:00:00:00:10"
LISTEN_PORT, BACK_PORT = 2055, 7001
CONTENDERS = ["udpfan-1", "udpfan-4", "testpmd-io"]
UDPFAN_BASE = os.environ.get("UDPFAN_BASE")
WIRES = ("memif", "vhost")
# net_vhost's MAC is fixed (rte_eth_vhost.c's base address, last byte the port id)
VHOST_MAC = "56:48:4f:53:54:00"
sys.path.insert(0, HERE)
from inmem import cpu_measure  # noqa: E402


def gen_mac(wire):
    return VHOST_MAC if wire == "vhost" else GEN_MAC


def fwd_dev(wire, sock):
    if wire == "vhost":
        # virtio_user (server=1): the virtio PMD's rings, as in a KVM/container guest; the
        # generator is the net_vhost backend. The probe waits for the backend to connect.
        return "virtio_user0,path=%s,server=1,queues=1,queue_size=1024,mac=%s" % (sock, FWD_MAC)
    return "net_memif0,role=server,socket=%s,mac=%s" % (sock, FWD_MAC)


def gen_dev(wire, sock):
    if wire == "vhost":
        return "net_vhost0,iface=%s,client=1,queues=1" % sock
    return "net_memif0,role=client,socket=%s,mac=%s" % (sock, GEN_MAC)


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

    def __init__(self, c, wd, sock, wire="memif"):
        self.c, self.wd, self.sock, self.wire = c, wd, sock, wire
        self.log = os.path.join(wd, "%s.log" % c)
        dev = fwd_dev(wire, sock)
        if c.startswith("udpfan"):
            n = int(c.split("-")[1])
            cfg = os.path.join(wd, "%s.yaml" % c)
            dests = "\n".join("  - { ip: %s, udp_port: %d, mac: \"%s\" }" %
                              (GEN_IP, BACK_PORT + i, gen_mac(wire)) for i in range(n))
            with open(cfg, "w") as f:
                f.write("""eal: { lcores: "0@%d,1@%d", file_prefix: uflat-fwd }
ports:
  - { name: lan, device: "%s", ip: %s/24 }
listen: { port: lan, udp_port: %d }
destinations:
%s
forward: { udp_checksum: compute }
stats: { interval_s: 1 }
""" % (CPU_MAIN, CPU_FWD, dev, FWD_IP, LISTEN_PORT, dests))
            self.argv = [UDPFAN_BASE if c.endswith("-base") else UDPFAN, "-c", cfg,
                         "--stats-json", os.path.join(wd, "%s.json" % c)]
            self.ready = "ready:"
            self.prefix = "uflat-fwd"
        else:
            # vhost-user needs one memory segment per file (docs/pmd-quirks.md: udpfan adds
            # it itself; testpmd is told)
            # stdbuf -oL: testpmd's stdout is a file here, block-buffered by default, so its
            # ready line would sit in the buffer and wait_ready would time out (bench 2b's
            # vhost row of 2026-12-01 read 0 packets that way: the generator had finished
            # before the measurement began)
            self.argv = ["stdbuf", "-oL", TESTPMD, "--lcores", "0@%d,1@%d" % (CPU_MAIN, CPU_FWD),
                         "--main-lcore", "0",
                         "--file-prefix", "uflat-tp", "--no-pci", "--single-file-segments",
                         "--vdev", dev, "--",
                         "--forward-mode=io", "--port-topology=loop", "--nb-cores=1",
                         "--auto-start", "--rxq=1", "--txq=1"]
            self.ready = "Press enter to exit"
            self.prefix = "uflat-tp"
        self.p = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=open(self.log, "w"),
                                  stderr=subprocess.STDOUT)
        if wire == "memif":
            self.wait_ready()
        else:
            time.sleep(1.0)  # listening on its socket; the generator's connect lets it go on

    def wait_ready(self, timeout=30):
        """the forwarder's ready line (forwarding started); a timeout is an error: going on
        would measure a forwarder that is not forwarding yet, or a generator already done"""
        c = self.c
        t_end = time.monotonic() + timeout
        while True:
            if self.p.poll() is not None:
                raise RuntimeError("%s exited: %s" % (c, open(self.log).read()[-3000:]))
            # memif's socket is abstract by default: no file to wait for
            if self.ready in open(self.log).read():
                break
            if time.monotonic() >= t_end:
                raise RuntimeError("%s: no ready line (%r) within %.0f s; its log ends: %s" %
                                   (c, self.ready, timeout, open(self.log).read()[-2000:]))
            time.sleep(0.05)
        time.sleep(0.5)

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
            try:
                self.p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()


def gen_argv(wd, sock, rate, seconds, tag, wire="memif", burst=1, warm=0):
    out = os.path.join(wd, "gen-%s.json" % tag)
    return out, [GEN, "--dev", gen_dev(wire, sock), "--ip", GEN_IP + "/24", "--dst",
                 "%s:%d" % (FWD_IP, LISTEN_PORT), "--dst-mac", FWD_MAC, "--latency", "--rate",
                 str(rate), "--burst", str(burst), "--duration", str(seconds), "--lcores",
                 "0@%d,1@%d" % (CPU_MAIN, CPU_GEN), "--file-prefix", "uflat-gen", "--json", out] + (
                     ["--warmup", str(warm)] if warm else [])


def gen(wd, sock, rate, seconds, tag, wire="memif", warm=0):
    out, argv = gen_argv(wd, sock, rate, seconds, tag, wire, warm=warm)
    r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       timeout=seconds + 60)
    if r.returncode != 0:
        raise RuntimeError("udpfan-gen exited %d: %s" % (r.returncode, r.stderr[-2000:]))
    with open(out) as f:
        return json.load(f)


def stall_probe(cpu, seconds):
    """How this host keeps a polling thread off its CPU: udpfan-gen's TX lcore spinning on CPU
    `cpu` over net_null (no peer, no forwarder) with --latency, its gen_stalls (receives more
    than 5 us after the one before) over `seconds`. What it finds, a forwarding thread on
    that CPU suffers alike, and a copy that arrives during a stall waits for its end."""
    r = subprocess.run([GEN, "--dev", "net_null0", "--ip", "10.255.0.1/24", "--dst",
                        "10.255.0.2:9", "--dst-mac", "02:00:00:00:00:01", "--latency",
                        "--rate", "1000", "--burst", "1", "--duration", str(seconds),
                        "--lcores", "0@%d,1@%d" % (CPU_MAIN, cpu), "--file-prefix", "uflat-probe",
                        "--in-memory"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=seconds + 60)
    if r.returncode != 0:
        raise RuntimeError("stall probe: udpfan-gen exited %d: %s" % (r.returncode,
                                                                      r.stderr[-2000:]))
    g = json.loads(r.stdout)
    st = g["returned"]["gen_stalls"]
    secs = g["seconds"]
    return {"cpu": cpu, "seconds": secs, "stalls": st["count"],
            "stalls_per_s": st["count"] / secs, "away_pct": st["away_ms"] / 10 / secs,
            "mean_stall_us": 1e3 * st["away_ms"] / st["count"] if st["count"] else 0.0,
            "max_gap_us": g["loop_max_gap_us"]}


def stall_probes(a, when):
    """stall_probe on the generator's and the forwarder's CPUs, logged; `when`: before or after
    the points"""
    log("stall probe %s the points (%.0f s per CPU): a polling thread alone on each CPU, how "
        "often and how long the host keeps it away" % (when, a.probe_seconds))
    out = []
    for cpu in sorted({CPU_GEN, CPU_FWD}):
        pr = dict(stall_probe(cpu, a.probe_seconds), when=when)
        out.append(pr)
        log("  CPU %d: away %.1f %% of the time, %.0f stalls/s over 5 us, mean %.1f us, "
            "longest %.0f us" % (cpu, pr["away_pct"], pr["stalls_per_s"], pr["mean_stall_us"],
                                 pr["max_gap_us"]))
    return out


def point(a, wd, c, rate, n_copies):
    sock = os.path.join(wd, "%s.sock" % a.wire)
    f = Fwd(c, wd, sock, a.wire)
    try:
        b0 = cpu_busy()
        t0 = family_ticks([f.p.pid])
        if a.wire != "memif":
            # the forwarder's probe waits for this connect: start the generator, then wait
            out, argv = gen_argv(wd, sock, rate, a.seconds + 6, c, a.wire, warm=a.warm)
            gp = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True)
            f.wait_ready()
            err = gp.communicate(timeout=a.seconds + 90)[1]
            if gp.returncode != 0:
                raise RuntimeError("udpfan-gen exited %d: %s" % (gp.returncode, err[-2000:]))
            with open(out) as fo:
                g = json.load(fo)
        else:
            g = gen(wd, sock, rate, a.seconds, c, warm=a.warm)
        b1 = cpu_busy()
        t1 = family_ticks([f.p.pid])
    finally:
        f.stop()
    # udpfan's own account of the copies that did not come back (its final stats object)
    txd = None
    sj = os.path.join(wd, "%s.json" % c)
    if c.startswith("udpfan") and os.path.exists(sj):
        fin = [json.loads(x) for x in open(sj) if x.strip()][-1]
        txd = {k: v for k, v in fin["fwd"]["tx_drop"].items() if v}
        os.unlink(sj)
    ncpu = os.cpu_count()
    wall = max(1, b1[1] - b0[1]) / ncpu
    # others: the machine's busy time minus the forwarder's and the generator's (both spin
    # one CPU each, so 2 CPUs of it are ours)
    others = ((b1[0] - b0[0]) - (t1 - t0)) / wall - 1.0
    back = g.get("returned", {})
    lat = back.get("latency", {})
    warm = back.get("warmup_latency") or {}
    uns = back.get("latency_gen_unstalled") or {}
    stalls = back.get("gen_stalls") or {}
    got = sum(d["distinct"] for d in back.get("destinations", {}).values())
    exp = g["sent"] * n_copies
    r = {"contender": c, "rate": rate, "sent": g["sent"], "gen_pps": g["pps"],
         "expected": exp, "returned": got, "lost": exp - got, "latency": lat,
         "warmup": g.get("warmup", 0), "warmup_latency": warm,
         "latency_gen_unstalled": uns, "gen_stalls": stalls,
         "stalled_share": 1.0 - uns.get("n", 0) / lat["n"] if lat.get("n") else 0.0,
         "others_cpus": others, "noisy": others > a.max_other, "time": time.time(),
         "gen": g, "fwd_tx_drop": txd}
    log("  %-13s rate %7s: sent %8d (%7.0f pps) back %9d lost %6d | p50 %8.1f p90 %8.1f "
        "p99 %9.1f "
        "p99.9 %9.1f max %9.1f us | warm-up %d: p99 %.1f | generator unstalled: p99 %.1f "
        "(%d stalls, %.1f ms, %.2f %% of copies out) | others %.2f CPUs%s%s" % (
            c, rate, g["sent"], g["pps"], got, exp - got, lat.get("p50_ns", 0) / 1e3,
            lat.get("p90_ns", 0) / 1e3, lat.get("p99_ns", 0) / 1e3, lat.get("p999_ns", 0) / 1e3,
            lat.get("max_ns", 0) / 1e3, r["warmup"], warm.get("p99_ns", 0) / 1e3,
            uns.get("p99_ns", 0) / 1e3, stalls.get("count", 0), stalls.get("away_ms", 0),
            100 * r["stalled_share"], others,
            " NOISY" if r["noisy"] else "",
            "" if txd is None else " | udpfan tx_drop %s" % (txd or 0)))
    return r


def tput_point(a, wd, wire, c, n_copies, rnd):
    """bench 2b: the generator floods; the forwarder's port counters and its forwarding
    thread's run time (inmem.cpu_measure) give packets per CPU-second"""
    sock = os.path.join(wd, "%s.sock" % wire)
    tag = "%s-%s-r%d" % (wire, c, rnd)
    f = Fwd(c, wd, sock, wire)
    out, argv = gen_argv(wd, sock, 0, a.warmup + a.seconds + 5, tag, wire, burst=32)
    gp = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        if wire != "memif":
            f.wait_ready()
        r = cpu_measure(f.p, f.prefix, 0, 0, a.warmup, a.warmup + a.seconds,
                        os.path.join(a.raw, tag + ".log"))
        err = gp.communicate(timeout=a.warmup + a.seconds + 90)[1]
    finally:
        if gp.poll() is None:
            gp.kill()
            gp.wait()
        f.stop()
    if gp.returncode != 0:
        raise RuntimeError("udpfan-gen exited %d: %s" % (gp.returncode, err[-2000:]))
    with open(out) as fo:
        g = json.load(fo)
    back = g.get("returned", {})
    got = sum(d["distinct"] for d in back.get("destinations", {}).values())
    drops = None
    sj = os.path.join(wd, "%s.json" % c)
    if c.startswith("udpfan") and os.path.exists(sj):
        fin = [json.loads(x) for x in open(sj) if x.strip()][-1]
        drops = {"drop": sum(fin["fwd"]["drop"].values()),
                 "tx_drop": sum(fin["fwd"]["tx_drop"].values())}
        os.unlink(sj)
    res = {"wire": wire, "contender": c, "round": rnd, "copies": n_copies, "cpu": r,
           "gen_pps": g["pps"], "sent": g["sent"], "returned": got, "fwd_drops": drops,
           "time": time.time()}
    with open(os.path.join(a.raw, "bench.jsonl"), "a") as fo:
        fo.write(json.dumps(res) + "\n")
    if r is not None and r["rx"] == 0:
        # the generator was sending for the whole span: nothing in means the measurement
        # missed the run (or the forwarder did not take the frames), never a rate of 0
        raise RuntimeError("%s %s round %d: the forwarder's port counted 0 packets in over "
                           "the measured span (generator %.2f Mpps, %d back); see %s.log.cpu" %
                           (wire, c, rnd, g["pps"] / 1e6, got, tag))
    if r is None:
        log("  %-6s %-11s round %d: no per-CPU sample (see %s.log.cpu)" % (wire, c, rnd, tag))
    else:
        log("  %-6s %-11s round %d: in %6.2f Mpps/CPU-s, out %6.2f Mpps/CPU-s | wall in %5.2f "
            "Mpps, forwarder busy %3.0f %% of its CPU | generator %5.2f Mpps, back %.3f of "
            "%d x sent%s" % (wire, c, rnd, r["rx_per_cpu_s"] / 1e6, r["tx_per_cpu_s"] / 1e6,
                             r["rx_pps_wall"] / 1e6, 100 * r["cpu_share"], g["pps"] / 1e6,
                             got / max(1, g["sent"] * n_copies), n_copies,
                             "" if drops is None else " | udpfan drop %d tx_drop %d" % (
                                 drops["drop"], drops["tx_drop"])))
    return res


def bench(a, cs, copies):
    runs = []
    with tempfile.TemporaryDirectory(prefix="uflat-") as wd:
        for rnd in range(1, a.rounds + 1):
            log("round %d" % rnd)
            for wire in a.wires.split(","):
                for c in cs:
                    runs.append(tput_point(a, wd, wire, c, copies[c], rnd))
    log("\n--- bench 2b: Mpps per CPU-second of the forwarding thread, mean over %d round(s) "
        "[spread max-min] ---" % a.rounds)
    table = []
    for wire in a.wires.split(","):
        def per(c, k):
            xs = [r["cpu"][k] / 1e6 for r in runs if r["wire"] == wire and
                  r["contender"] == c and r["cpu"]]
            return (statistics.mean(xs), max(xs) - min(xs)) if xs else (0.0, 0.0)
        tp_in, tp_out = per("testpmd-io", "rx_per_cpu_s"), per("testpmd-io", "tx_per_cpu_s")
        for c in cs:
            i, o = per(c, "rx_per_cpu_s"), per(c, "tx_per_cpu_s")
            busy = [r["cpu"]["cpu_share"] for r in runs if r["wire"] == wire and
                    r["contender"] == c and r["cpu"]]
            ratio = ""
            if c == "udpfan-1" and tp_in[0]:
                ratio = "in / testpmd io in = %.2f" % (i[0] / tp_in[0])
            elif c.startswith("udpfan") and tp_out[0]:
                ratio = "out / testpmd io out = %.2f" % (o[0] / tp_out[0])
            row = {"wire": wire, "contender": c, "in": i, "out": o, "ratio": ratio,
                   "busy": statistics.mean(busy) if busy else None}
            table.append(row)
            log("%-6s %-11s in %6.2f [%5.2f]  out %6.2f [%5.2f]  busy %s  %s" % (
                wire, c, i[0], i[1], o[0], o[1],
                "%3.0f %%" % (100 * row["busy"]) if busy else "  -", ratio))
    with open(os.path.join(a.raw, "bench-summary.json"), "w") as fo:
        json.dump({"argv": sys.argv, "table": table}, fo, indent=1)
    log("raw: %s" % a.raw)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__)
    ap.add_argument("--rates", default="1000,10000,100000,sat")
    ap.add_argument("--contenders", default=",".join(CONTENDERS))
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=3)
    ap.add_argument("--max-other", type=float, default=0.3)
    ap.add_argument("--retries", type=int, default=0,
                    help="run a NOISY point again, up to this many times")
    ap.add_argument("--wire", choices=WIRES, default="memif",
                    help="latency: the link between generator and forwarder")
    ap.add_argument("--bench", action="store_true",
                    help="bench 2b instead: flood, packets per CPU-second of the forwarding "
                         "thread, udpfan N=1/N=4 beside testpmd io, on --wires")
    ap.add_argument("--wires", default="memif,vhost", help="--bench: the links")
    ap.add_argument("--warmup", type=float, default=2)
    ap.add_argument("--warm", type=int, default=2048,
                    help="datagrams each point sends first, their latency reported apart "
                         "(warm p99): the first pass over memif's 1024-slot rings touches "
                         "fresh pages (default 2048; 0: none)")
    ap.add_argument("--cpus", default="0,0,1",
                    help="MAIN,GEN,FWD: the CPUs of every main lcore, the generator's TX lcore "
                         "and the forwarding lcore (default 0,0,1)")
    ap.add_argument("--raw", help="raw log directory (default /tmp/latency-DATE)")
    ap.add_argument("--probe-seconds", type=float, default=2,
                    help="the stall probe's time per CPU, before and after the points (0: none)")
    a = ap.parse_args()
    global CPU_MAIN, CPU_GEN, CPU_FWD
    try:
        CPU_MAIN, CPU_GEN, CPU_FWD = (int(x) for x in a.cpus.split(","))
    except ValueError:
        ap.error("--cpus: three CPU numbers, MAIN,GEN,FWD")
    if os.geteuid() != 0:
        sys.exit("needs root (hugepages; net_memif needs DPDK's multi-process support, so no "
                 "--in-memory)")
    for b in (UDPFAN, GEN, TESTPMD):
        if not os.path.exists(b):
            sys.exit("%s is missing" % b)
    cs = [c for c in a.contenders.split(",") if c]
    for c in cs:
        if c.endswith("-base") and c[:-5] in CONTENDERS and c.startswith("udpfan"):
            if not UDPFAN_BASE or not os.path.exists(UDPFAN_BASE):
                sys.exit("%s needs UDPFAN_BASE, the other udpfan binary" % c)
        elif c not in CONTENDERS:
            sys.exit("unknown contender %s (one of %s)" % (c, ", ".join(CONTENDERS)))
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    a.raw = a.raw or "/tmp/latency-" + stamp
    os.makedirs(a.raw, exist_ok=True)
    copies = {c: int(c.split("-")[1]) if c.startswith("udpfan") else 1 for c in cs}
    if a.bench:
        for w in a.wires.split(","):
            if w not in WIRES:
                sys.exit("unknown wire %s (one of %s)" % (w, ", ".join(WIRES)))
        bench(a, cs, copies)
        return
    runs = []
    probes = stall_probes(a, "before") if a.probe_seconds > 0 else []
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
            for ri, rate in enumerate(a.rates.split(",")):
                # the order turns with each point set, so each contender runs after each
                # of the others as often: a fixed order can favour one (udpfan-1 right after
                # testpmd: its p99 the higher in 21 of 24 points; testpmd first: in 4 of 8;
                # turned: 18 of 27; docs/benchmarks.md#latency)
                k = (rnd + ri) % len(cs)
                for pos, c in enumerate(cs[k:] + cs[:k]):
                    rr = sat[c] if rate == "sat" else int(rate)
                    for t in range(a.retries + 1):
                        r = point(a, wd, c, rr, copies[c])
                        r["rate_label"] = rate
                        r["position"] = pos
                        r["round"] = rnd + 1
                        r["try"] = t
                        with open(os.path.join(a.raw, "runs.jsonl"), "a") as f:
                            f.write(json.dumps(r) + "\n")
                        if not r["noisy"]:
                            break
                    runs.append(r)
    log("\n--- one-way added delay through the forwarder and back (us), median over %d "
        "round(s) [spread max-min] ---" % a.rounds)
    log("%-13s %9s %22s %22s %22s %22s %8s %9s %10s %22s %8s" % (
        "contender", "rate", "p50", "p90", "p99", "p99.9", "lost", "link_down", "warm p99",
        "p99 gen unstalled", "out %"))
    table = []
    for rate in a.rates.split(","):
        for c in cs:
            rs = [r for r in runs if r["contender"] == c and r["rate_label"] == rate]
            if not rs:
                continue

            def med(k, h="latency"):
                xs = [(r.get(h) or {}).get(k, 0) / 1e3 for r in rs]
                return statistics.median(xs), max(xs) - min(xs)
            row = {"contender": c, "rate": rate, "pps": rs[0]["rate"],
                   "p50": med("p50_ns"), "p90": med("p90_ns"), "p99": med("p99_ns"), "p999": med("p999_ns"),
                   "warm_p99": med("p99_ns", "warmup_latency"),
                   "p99_unstalled": med("p99_ns", "latency_gen_unstalled"),
                   "stalled_share": statistics.median(r.get("stalled_share", 0) for r in rs),
                   "lost": sum(r["lost"] for r in rs), "noisy": sum(r["noisy"] for r in rs),
                   "link_down": sum((r.get("fwd_tx_drop") or {}).get("link_down", 0)
                                    for r in rs)}
            table.append(row)
            log("%-13s %9s %14.1f [%5.1f] %14.1f [%5.1f] %14.1f [%5.1f] %14.1f [%5.1f] %8d "
                "%9d %10.1f %14.1f [%5.1f] %8.2f%s" % (
                c, "%s%s" % (rate, "" if rate != "sat" else "=%d" % rs[0]["rate"]),
                row["p50"][0], row["p50"][1], row["p90"][0], row["p90"][1], row["p99"][0],
                row["p99"][1], row["p999"][0],
                row["p999"][1], row["lost"], row["link_down"], row["warm_p99"][0],
                row["p99_unstalled"][0], row["p99_unstalled"][1],
                100 * row["stalled_share"],
                "  (%d NOISY)" % row["noisy"] if row["noisy"]
                else ""))
    if a.probe_seconds > 0:
        probes += stall_probes(a, "after")
    with open(os.path.join(a.raw, "summary.json"), "w") as f:
        json.dump({"argv": sys.argv, "cpus": [CPU_MAIN, CPU_GEN, CPU_FWD], "table": table,
                   "sat": sat, "stall_probe": probes}, f, indent=1)
    log("raw: %s" % a.raw)


if __name__ == "__main__":
    main()
