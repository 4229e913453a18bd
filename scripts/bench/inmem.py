#!/usr/bin/env python3
"""Bench 1 (docs/benchmarks.md#bench-1-pipeline-cost-in-memory): udpfan's per-packet CPU cost
in memory, against testpmd on the same vdevs, the same lcores, in the same run.

Input: net_pcap with infinite_rx replays a capture of sequence-numbered UDP datagrams (64
flows) from memory; output: net_null with no-rx=1 swallows every frame. One worker lcore
(CPU 1), the main lcore on CPU 0, for udpfan and testpmd alike. References:
  5tswap  testpmd --forward-mode=5tswap  (parses and rewrites L2-L4 addresses: N = 1's peer)
  io      testpmd --forward-mode=io      (moves mbufs, touches nothing: the vdev pair's ceiling)
  txonly  testpmd --forward-mode=txonly --txpkts=<frame>, null port alone, one stream (the
          ceiling for building fresh frames on this core: fan-out's peer)
Each run lasts --seconds; the first --warmup seconds are discarded; the rate is the median of
the per-second rates. Cycles per packet = TSC Hz / rate (the worker is 100% busy).

Per CPU-second (docs/benchmarks.md#per-cpu-second): on a shared machine a wall-clock rate
measures the neighbours too. So each run also reads the ports' ethdev counters through the
telemetry socket at two instants (end of warm-up, end of run) and, over the same span, the
run time of the forwarding threads (`lcore-worker-*`) from /proc/PID/task/TID/schedstat
(first field, ns): packets / run time is what one CPU-second of forwarding thread moves,
whatever else the scheduler gave that CPU to.

  sudo scripts/bench/inmem.py [--quick] [--out DIR]    (a run kept: one tar.xz of DIR in
      docs/benchmarks/raw/, docs/benchmarks.md#raw-logs)
  sudo scripts/bench/inmem.py --listeners [--rounds 2] [--seconds 8]
      plain N = 1 (`listen:`) beside three listeners (NetFlow 2055, sFlow 6343, syslog 514,
      one destination each) fed the three streams interleaved frame by frame (every burst
      splits three ways) and fed one stream only, interleaved per round, per CPU-second
  sudo scripts/bench/inmem.py --compare OLD_UDPFAN NEW_UDPFAN [--rounds 2] [--seconds 8]
      two udpfan binaries interleaved (A B A B ...), N = 1 and N = 4 at 32 B: per round the
      per-CPU-second rates and B/A, then the mean ratio and its spread (max - min)
  sudo scripts/bench/inmem.py --compare testpmd build/udpfan [--rounds 3] [--seconds 8]
      the same against testpmd: N = 1 udpfan's input rate against 5tswap's, N = 4 udpfan's
      output rate against txonly's (frames of the copies' size), A and B interleaved; each
      round also runs testpmd rxonly on the capture (the RX floor: replay + free, which
      txonly never pays) and prints udpfan's cycles per copy beyond a 1/N share of it
      against txonly's per frame
  sudo scripts/bench/inmem.py --compare testpmd build/udpfan --payload 1400 --refs txonly,io \
      --fanout copy,chain [--rounds 3]
      every testpmd mode of --refs and every udpfan fan-out mode of --fanout at each N, all
      interleaved in each round, on frames of 42 + --payload bytes: per round each one's
      per-CPU-second rate (N = 1 in, N > 1 out; testpmd io/5tswap in, txonly out) and each
      pair's ratio, mean and spread (docs/benchmarks.md#copy-versus-chain)
  sudo scripts/bench/inmem.py --pools [--rounds 2] [--seconds 8]
      one binary, interleaved per round: plain N = 1, and a pool of 4 (hash-sender, the one
      destination), on a capture from 256 sender addresses: per-CPU-second rates and
      pool / plain (docs/benchmarks.md#pools)
"""
import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "tests", "lib"))
from ufpkt import arp_frame, seq_payload, udp_frame, write_pcap  # noqa: E402

UDPFAN = os.environ.get("UDPFAN", os.path.join(SRC, "build", "udpfan"))
# --cpus M,C1,C2,...: the main lcores on CPU M, worker k on Ck (testpmd's forwarding core on
# C1); None: main on CPU 0, workers from CPU 1 (this VM's placement)
CPUS = None
PCAP_MAC = "02:70:63:61:70:00"
LISTEN_IP = "198.18.0.10"


def capture(path, payload, flows=64, frames=4096, arp_pct=0.0, mac=PCAP_MAC, senders=1,
            dports=(5000,)):
    """frames datagrams over `flows` source ports (and `senders` source addresses); with
    arp_pct, that share of the frames are ARP requests for udpfan's address instead (the
    control plane's load); dports: the UDP destination ports, frame by frame in turn"""
    fr = []
    every = int(round(100.0 / arp_pct)) if arp_pct else 0
    for i in range(frames):
        if every and i % every == every - 1:
            fr.append(arp_frame(1, "ff:ff:ff:ff:ff:ff", "02:18:00:00:00:02", "198.18.0.2",
                                "00:00:00:00:00:00", LISTEN_IP))
        else:
            k = i % senders
            src = "198.18.0.2" if senders == 1 else "198.18.%d.%d" % (1 + k // 250, 2 + k % 250)
            fr.append(udp_frame(mac, "02:18:00:00:00:02", src, LISTEN_IP,
                                40000 + (i % flows), dports[i % len(dports)],
                                seq_payload(i, payload),
                                ident=i & 0xFFFF))
    write_pcap(path, fr)
    return len(fr[-1 if not every else 0])


def telemetry(prefix, cmd, timeout=2.0):
    """one request on DPDK's telemetry socket (v2) of the process with this file prefix"""
    path = os.path.join("/var/run/dpdk" if os.geteuid() == 0 else
                        os.environ.get("XDG_RUNTIME_DIR", "/tmp") + "/dpdk", prefix,
                        "dpdk_telemetry.v2")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(timeout)
    try:
        s.connect(path)
        info = json.loads(s.recv(1024).decode())
        s.send(cmd.encode())
        return json.loads(s.recv(int(info.get("max_output_len", 16384)) + 1024).decode())[
            cmd.split(",")[0]]
    finally:
        s.close()


# what DPDK names its worker lcore threads: 22.11 rte-worker-N, 23.11 and later dpdk-workerN,
# older lcore-worker-N
WORKER_COMM = ("rte-worker-", "dpdk-worker", "lcore-worker-")


def worker_tids(pid):
    """the forwarding threads, by name"""
    tids = []
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                if f.read().startswith(WORKER_COMM):
                    tids.append(int(tid))
        except OSError:
            pass
    if not tids:
        raise ValueError("no worker lcore thread (%s*) in pid %d" % ("*, ".join(WORKER_COMM),
                                                                      pid))
    return sorted(tids)


def run_ns(pid, tids):
    """run time of these threads so far (schedstat's first field, ns)"""
    total = 0
    for tid in tids:
        with open("/proc/%d/task/%d/schedstat" % (pid, tid)) as f:
            total += int(f.read().split()[0])
    return total


def cpu_sample(pid, prefix, ports, tids):
    """(monotonic s, {port: (ipackets, opackets)}, forwarding threads' run time ns), with
    the counters read between two run-time reads (their mean is the instant's)"""
    ns0 = run_ns(pid, tids)
    t0 = time.monotonic()
    st = {}
    for p in ports:
        o = telemetry(prefix, "/ethdev/stats,%d" % p)
        st[p] = (o["ipackets"], o["opackets"])
    t1 = time.monotonic()
    ns1 = run_ns(pid, tids)
    return (t0 + t1) / 2, st, (ns0 + ns1) / 2


def cpu_measure(p, prefix, in_port, out_port, warmup, seconds, log):
    """Sample after the warm-up and near the end of a run; the rates per wall second and per
    CPU-second of the forwarding threads. None when the process is gone or gives no
    counters (the log says why)."""
    start = time.monotonic()
    tids = []
    while time.monotonic() - start < warmup:
        time.sleep(0.2)
        if p.poll() is not None:
            return None
    try:
        tids = worker_tids(p.pid)
        a = cpu_sample(p.pid, prefix, (in_port, out_port), tids)
        time.sleep(max(1.0, start + seconds - 0.5 - time.monotonic()))
        b = cpu_sample(p.pid, prefix, (in_port, out_port), tids)
    except (OSError, KeyError, ValueError) as e:
        with open(log + ".cpu", "w") as f:
            f.write("no per-CPU sample: %r\n" % e)
        return None
    wall, cpu = b[0] - a[0], (b[2] - a[2]) / 1e9
    rx = b[1][in_port][0] - a[1][in_port][0]
    tx = b[1][out_port][1] - a[1][out_port][1]
    r = {"threads": len(tids), "wall_s": wall, "cpu_s": cpu, "rx": rx, "tx": tx,
         "rx_pps_wall": rx / wall, "tx_pps_wall": tx / wall,
         "rx_per_cpu_s": rx / cpu if cpu > 0 else 0.0,
         "tx_per_cpu_s": tx / cpu if cpu > 0 else 0.0,
         "cpu_share": cpu / wall / max(1, len(tids))}
    with open(log + ".cpu", "w") as f:
        json.dump({"tids": tids, "first": a, "last": b, "result": r}, f)
        f.write("\n")
    return r


def tsc_hz():
    # what udpfan reports; testpmd shares the machine and the core
    with open("/proc/cpuinfo") as f:
        m = re.search(r"cpu MHz\s*:\s*([\d.]+)", f.read())
    return float(m.group(1)) * 1e6 if m else 0.0


def median_rate(samples, warmup):
    steady = samples[warmup:] or samples
    return statistics.median(steady) if steady else 0.0


def run_testpmd(mode, pcap, seconds, warmup, log, frame_len=None):
    vdevs = ["--vdev", "net_null0,no-rx=1"]
    if mode != "txonly":
        vdevs = ["--vdev", "net_pcap0,rx_pcap=%s,infinite_rx=1" % pcap] + vdevs
    lc = ["-l", "0,1"] if CPUS is None else ["--lcores", "0@%d,1@%d" % tuple(CPUS[:2])]
    argv = ["dpdk-testpmd"] + lc + ["--main-lcore", "0", "--no-pci", "--file-prefix",
                                    "ufbench-tp", "--in-memory"] + vdevs + [
        "--", "--forward-mode=%s" % mode, "--nb-cores=1", "--stats-period", "1", "-a",
        "--burst=32", "--txq=1", "--rxq=1"]
    if mode == "txonly":
        argv += ["--txpkts=%d" % frame_len]
    with open(log, "w") as f:
        f.write(" ".join(argv) + "\n")
        f.flush()
        p = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT)
        t0 = time.monotonic()
        # testpmd's ports: net_pcap 0 in, net_null 1 out; txonly: the null port alone (0)
        run_testpmd.cpu = cpu_measure(p, "ufbench-tp", 0, 0 if mode == "txonly" else 1,
                                      warmup, seconds, log)
        time.sleep(max(0.0, seconds - (time.monotonic() - t0)))
        p.send_signal(2)
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
    text = open(log).read()
    # per-second blocks: "Port 0 ... Rx-pps: N ... Tx-pps: N" for each port
    rx, tx = [], []
    for block in text.split("NIC statistics for port")[1:]:
        port = int(block.split("]")[0].strip().split()[0])
        m_rx = re.search(r"Rx-pps:\s+(\d+)", block)
        m_tx = re.search(r"Tx-pps:\s+(\d+)", block)
        if mode == "txonly":
            if port == 0 and m_tx:
                tx.append(int(m_tx.group(1)))
        elif port == 0 and m_rx:
            rx.append(int(m_rx.group(1)))
        elif port == 1 and m_tx:
            tx.append(int(m_tx.group(1)))
    rx_rate = median_rate([r for r in rx if r > 0], warmup)
    tx_rate = median_rate([t for t in tx if t > 0], warmup)
    if mode == "txonly":
        rx_rate = 0.0
    cpu = run_testpmd.cpu or {}
    return rx_rate, tx_rate, cpu.get("tx_per_cpu_s" if mode == "txonly" else "rx_per_cpu_s", 0)


def rules_yaml(n):
    """n rules, none shadowing another; the sender (198.18.0.2) matches the last one"""
    if n == 0:
        return ""
    lines = ["rules:"]
    for i in range(n - 1):
        lines.append("  - { from: 100.%d.%d.0/24, to: [0] }" % (64 + i // 256, i % 256))
    lines.append("  - { from: 198.18.0.0/24, to: [%s] }" % ", ".join("{d}" for _ in range(1)))
    return "\n".join(lines) + "\n"


LISTENERS3 = (2055, 6343, 514)


def listeners_yaml(udp_ports):
    """one listener per UDP port on `in`, one destination each, all leaving through `out`"""
    lines = ["listeners:"]
    for i, u in enumerate(udp_ports):
        lines.append("  - { name: l%d, port: in, udp_port: %d, destinations: [ { ip: "
                     "198.19.0.%d, udp_port: %d, port: out, mac: \"02:18:00:00:01:%02x\" } ] }"
                     % (i, u, 21 + i, 6000 + i, i))
    return "\n".join(lines) + "\n"


def run_udpfan(pcaps, n_dest, seconds, warmup, log, extra_fwd="", rules=0, binary=None,
               listeners=None, pool=0):
    workers = len(pcaps)
    dests = "\n".join("  - { ip: 198.19.0.%d, udp_port: %d, port: out, mac: \"02:18:00:00:01:%02x\" }"
                      % (21 + i, 6000 + i, i) for i in range(n_dest))
    if pool:
        # one destination: a pool of `pool` members (docs/configuration.md#pools)
        dests = "  - pool:\n      balance: hash-sender\n      members:\n" + "\n".join(
            "        - { ip: 198.19.0.%d, udp_port: 6000, port: out, "
            "mac: \"02:18:00:00:01:%02x\" }" % (21 + i, i) for i in range(pool))
    ncpu = os.cpu_count() or 2
    if CPUS is not None:
        if workers >= len(CPUS):
            raise ValueError("--cpus names %d worker CPUs, %d workers asked" % (
                len(CPUS) - 1, workers))
        lcores = ",".join("%d@%d" % (i, CPUS[i]) for i in range(workers + 1))
    elif workers == 1:
        lcores = "0-1"
    elif workers < ncpu:
        lcores = "0-%d" % workers  # main on CPU 0, a CPU of its own for every worker
    else:
        # fewer CPUs than lcores (this 2-vCPU VM): the main lcore sleeps beside worker 1
        lcores = "0@0,%s" % ",".join("%d@%d" % (i + 1, i % ncpu) for i in range(workers))
    rx = ",".join("rx_pcap=%s" % p for p in pcaps)
    lis = "listen: { port: in, udp_port: 5000 }\ndestinations:\n%s" % dests
    if listeners:
        lis = listeners_yaml(listeners).rstrip("\n")
    cfg = """eal: { lcores: "%s", file_prefix: ufbench }
ports:
  - { name: in, device: "net_pcap0,%s,infinite_rx=1", ip: %s/24 }
  - { name: out, device: "net_null0,no-rx=1", ip: 198.19.0.10/24 }
%s
forward: { burst: 32 %s}
stats: { interval_s: 1 }
arp: { gratuitous: false }
%s""" % (lcores, rx, LISTEN_IP, lis, extra_fwd,
         rules_yaml(rules).replace("{d}", ", ".join(str(i) for i in range(n_dest))))
    cfg_path = log + ".yaml"
    stats_path = log + ".jsonl"
    with open(cfg_path, "w") as f:
        f.write(cfg)
    if os.path.exists(stats_path):
        os.unlink(stats_path)
    with open(log, "w") as f:
        argv = [binary or UDPFAN, "-c", cfg_path, "--duration", str(seconds), "--stats-json",
                stats_path]
        f.write(" ".join(argv) + "\n")
        f.flush()
        p = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT)
        # udpfan's ports: in (net_pcap) 0, out (net_null) 1, in configuration order
        run_udpfan.cpu = cpu_measure(p, "ufbench", 0, 1, warmup, seconds - 0.5, log)
        rc = p.wait(timeout=seconds + 60)
    if rc != 0:
        raise RuntimeError("udpfan failed, see %s" % log)
    objs = [json.loads(line) for line in open(stats_path) if line.strip()]
    rx, tx, prev = [], [], None
    for o in objs:
        if o["final"]:
            continue
        if prev is not None:
            dt = o["interval_s"]
            rx.append((o["fwd"]["rx"] - prev["fwd"]["rx"]) / dt)
            tx.append((o["fwd"]["tx_ok"] - prev["fwd"]["tx_ok"]) / dt)
        prev = o
    fin = [o for o in objs if o["final"]][0]
    f = fin["fwd"]
    run_udpfan.last = fin
    drops = sum(f["drop"].values())
    assert f["rx"] == f["forwarded"] + f["control"] + drops, "ledger"
    assert f["copies_attempted"] == f["tx_ok"] + sum(f["tx_drop"].values()), "ledger"
    return median_rate(rx, warmup), median_rate(tx, warmup), fin["tsc_hz"]


def listeners_bench(a):
    """--listeners: plain N = 1 beside three listeners, interleaved per round, per CPU-second"""
    out = a.out or "/tmp/udpfan-bench-listeners-%d" % int(time.time())
    os.makedirs(out, exist_ok=True)
    plain, mixed = os.path.join(out, "in32.pcap"), os.path.join(out, "in32-3ports.pcap")
    one = os.path.join(out, "in32-2055.pcap")
    capture(plain, 32)
    capture(mixed, 32, dports=LISTENERS3)
    capture(one, 32, dports=LISTENERS3[:1])
    runs = [("plain-n1", plain, None), ("3lis-mixed", mixed, LISTENERS3),
            ("3lis-one", one, LISTENERS3)]
    res = {r[0]: [] for r in runs}
    for rnd in range(a.rounds):
        for label, pcap, lis in runs:
            log = os.path.join(out, "r%d-%s.log" % (rnd + 1, label))
            rx, tx, _ = run_udpfan([pcap], 1, a.seconds, a.warmup, log, listeners=lis)
            c = run_udpfan.cpu
            if c is None:
                raise RuntimeError("no per-CPU sample, see %s.cpu" % log)
            fin = run_udpfan.last
            if lis:
                got = [x["forwarded"] for x in fin["listeners"]]
                assert sum(got) == fin["fwd"]["forwarded"], (got, fin["fwd"])
            res[label].append(c)
            print("round %d %-11s in %.2f Mpps/CPU-s, out %.2f Mpps/CPU-s (wall: in %.2f Mpps, "
                  "thread on CPU %.0f %% of the span)" % (
                      rnd + 1, label, c["rx_per_cpu_s"] / 1e6, c["tx_per_cpu_s"] / 1e6,
                      c["rx_pps_wall"] / 1e6, 100 * c["cpu_share"]), flush=True)
    print("\nin memory, net_pcap infinite_rx (64 flows, 32 B payloads) -> udpfan -> net_null, one "
          "destination per datagram; %d s runs, sampled from %d s; %d rounds, interleaved" % (
              a.seconds, a.warmup, a.rounds))
    base = [c["rx_per_cpu_s"] for c in res["plain-n1"]]
    print("%-12s %-24s %s" % ("run", "in Mpps/CPU-s per round", "vs plain per round (mean)"))
    summary = {}
    for label, _, _ in runs:
        v = [c["rx_per_cpu_s"] for c in res[label]]
        ratios = [x / b for x, b in zip(v, base)]
        print("%-12s %-24s %s (%.3f)" % (label, " ".join("%.2f" % (x / 1e6) for x in v),
                                          " ".join("%.3f" % r for r in ratios),
                                          statistics.mean(ratios)))
        summary[label] = {"runs": res[label], "ratios": ratios}
    print("raw logs: %s" % out)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"seconds": a.seconds, "warmup": a.warmup, "rounds": a.rounds,
                       "results": summary}, f, indent=1)


def compare(a):
    """--compare OLD NEW: the two binaries interleaved, per CPU-second of the worker"""
    out = a.out or "/tmp/udpfan-bench-compare-%d" % int(time.time())
    os.makedirs(out, exist_ok=True)
    pcap = os.path.join(out, "in32.pcap")
    capture(pcap, 32)
    bins = {who: (x if x == "testpmd" else os.path.abspath(x))
            for who, x in zip(("A", "B"), a.compare)}
    ns = [int(x) for x in a.n.split(",")]
    res = {n: {"A": [], "B": []} for n in ns}
    # the rate compared: N = 1 the input (testpmd: 5tswap's), N > 1 the output (testpmd:
    # txonly's, building frames of the copies' size); between two udpfans out = N x in
    key = {n: "rx_per_cpu_s" if n == 1 else "tx_per_cpu_s" for n in ns}
    # against testpmd, each round also measures the RX floor: testpmd rxonly on the same
    # capture (net_pcap's replay and a bulk free per datagram, nothing sent), what every
    # udpfan datagram costs before udpfan touches it and what txonly never pays
    floor = []
    for rnd in range(a.rounds):
        if bins["A"] == "testpmd" and any(n > 1 for n in ns):
            log = os.path.join(out, "r%d-rxonly.log" % (rnd + 1))
            run_testpmd("rxonly", pcap, a.seconds, a.warmup, log)
            c = run_testpmd.cpu
            if c is None:
                raise RuntimeError("no per-CPU sample, see %s.cpu" % log)
            floor.append(c["rx_per_cpu_s"])
            print("round %d RX floor (testpmd rxonly): in %.2f Mpps/CPU-s" % (
                rnd + 1, c["rx_per_cpu_s"] / 1e6), flush=True)
        for n in ns:
            for who in ("A", "B"):
                log = os.path.join(out, "r%d-n%d-%s.log" % (rnd + 1, n, who))
                if bins[who] == "testpmd":
                    mode = "5tswap" if n == 1 else "txonly"
                    rx, tx, _ = run_testpmd(mode, pcap, a.seconds, a.warmup, log,
                                            frame_len=max(42 + 32, 60))
                    c = run_testpmd.cpu
                    who_s = "testpmd " + mode
                else:
                    rx, tx, _ = run_udpfan([pcap], n, a.seconds, a.warmup, log,
                                           binary=bins[who])
                    c = run_udpfan.cpu
                    who_s = "udpfan"
                if c is None:
                    raise RuntimeError("no per-CPU sample, see %s.cpu" % log)
                c["median_rx_pps_wall"], c["median_tx_pps_wall"] = rx, tx
                res[n][who].append(c)
                print("round %d N=%d %s (%s): in %.2f Mpps/CPU-s, out %.2f Mpps/CPU-s (wall: "
                      "in %.2f out %.2f Mpps, thread on CPU %.0f %% of the span)" % (
                          rnd + 1, n, who, who_s, c["rx_per_cpu_s"] / 1e6,
                          c["tx_per_cpu_s"] / 1e6, c["rx_pps_wall"] / 1e6,
                          c["tx_pps_wall"] / 1e6, 100 * c["cpu_share"]), flush=True)
    print("\nA = %s\nB = %s" % (bins["A"], bins["B"]))
    print("in memory, net_pcap infinite_rx (64 flows, 32 B payloads) -> udpfan -> net_null; "
          "%d s runs, sampled from %d s to %.1f s; %d rounds, interleaved A B per N" % (
              a.seconds, a.warmup, a.seconds - 1.0, a.rounds))
    print("compared per CPU-second of the forwarding thread: N = 1 the input rate, N > 1 the "
          "output rate%s" % (" (testpmd: 5tswap at N = 1, txonly at N > 1)"
                             if "testpmd" in bins.values() else ""))
    # best: each program's best round against the other's (a "best of two rounds" figure):
    # on a shared machine a neighbour only ever slows a round, so a program's best round is
    # its least disturbed one; the mean of the paired ratios is printed beside it
    print("%-4s %-4s %-22s %-22s %-18s %s" % ("N", "rate", "A Mpps/CPU-s", "B Mpps/CPU-s",
                                               "B/A per round", "B/A mean (spread); best B / best A"))
    summary = {}
    for n in ns:
        ra = [c[key[n]] for c in res[n]["A"]]
        rb = [c[key[n]] for c in res[n]["B"]]
        ratios = [b / x for x, b in zip(ra, rb)]
        mean = statistics.mean(ratios)
        spread = max(ratios) - min(ratios)
        # each program's own spread across rounds, as a share of its mean
        sa = (max(ra) - min(ra)) / statistics.mean(ra)
        sb = (max(rb) - min(rb)) / statistics.mean(rb)
        best = max(rb) / max(ra)
        print("%-4d %-4s %-22s %-22s %-18s %.3f (%.3f); best %.3f; A varied %.1f %%, B %.1f %%" % (
            n, "in" if n == 1 else "out", " ".join("%.2f" % (x / 1e6) for x in ra), " ".join("%.2f" % (x / 1e6) for x in rb),
            " ".join("%.3f" % r for r in ratios), mean, spread, best, 100 * sa, 100 * sb))
        summary[n] = {"A": res[n]["A"], "B": res[n]["B"], "ratios": ratios, "mean": mean,
                      "spread": spread, "best_ratio": best}
    if floor:
        # cycles per copy (N > 1), per round: udpfan's, and udpfan's beyond the RX floor
        # (the input's replay and free, shared by its N copies) against txonly's per frame:
        # whether building and sending a copy costs udpfan more than txonly a frame
        hz = tsc_hz()
        print("\nper copy, TSC cycles per CPU-second's worth (%.0f MHz), per round:" % (hz / 1e6))
        for n in (x for x in ns if x > 1):
            for i, (ca, cb) in enumerate(zip(res[n]["A"], res[n]["B"])):
                cu = hz / cb["tx_per_cpu_s"]
                ct = hz / ca["tx_per_cpu_s"]
                fl = hz / floor[i]
                extra = cu - fl / n
                print("N=%d round %d: udpfan %.1f per copy = RX floor %.1f per datagram / %d "
                      "+ %.1f; txonly %.1f per frame; udpfan beyond the floor / txonly %.3f" % (
                          n, i + 1, cu, fl, n, extra, ct, extra / ct))
                summary[n].setdefault("per_copy", []).append(
                    {"udpfan": cu, "rx_floor": fl, "beyond_floor": extra, "txonly": ct})
    print("raw logs: %s" % out)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"A": bins["A"], "B": bins["B"], "seconds": a.seconds, "warmup": a.warmup,
                       "rounds": a.rounds, "rx_floor_per_cpu_s": floor, "results": summary},
                      f, indent=1)


def compare_variants(a):
    """--compare A B with --payload, --fanout or --refs: per N, every reference (testpmd
    modes as A) and every fan-out mode of B, interleaved in each round, per CPU-second"""
    out = a.out or "/tmp/udpfan-bench-compare-%d" % int(time.time())
    os.makedirs(out, exist_ok=True)
    size = a.payload
    pcap = os.path.join(out, "in%d.pcap" % size)
    capture(pcap, size)
    frame = max(42 + size, 60)
    ns = [int(x) for x in a.n.split(",")]
    # contenders, in the order they run in each round: A's (testpmd modes, or a udpfan
    # binary), then B's fan-out modes; the rate compared is the input at N = 1, the output
    # at N > 1 (a testpmd mode: its output, its input for rxonly)
    fan = [x for x in (a.fanout or "").split(",") if x] or [None]

    def contenders(n):
        c = []
        for who, x in zip(("A", "B"), a.compare):
            if x == "testpmd":
                refs = [r for r in (a.refs or "").split(",") if r] or (
                    ["5tswap"] if n == 1 else ["txonly"])
                c += [("testpmd " + r, "testpmd", r) for r in refs]
            else:
                b = os.path.abspath(x)
                c += [("%s %s" % (who, f or "default"), b, f) for f in fan]
        return c

    res = {n: {c[0]: [] for c in contenders(n)} for n in ns}
    for rnd in range(a.rounds):
        for n in ns:
            for label, prog, mode in contenders(n):
                log = os.path.join(out, "r%d-n%d-%s.log" % (rnd + 1, n, label.replace(" ", "-")
                                                           .replace("/", "_")))
                if prog == "testpmd":
                    run_testpmd(mode, pcap, a.seconds, a.warmup, log, frame_len=frame)
                    c = run_testpmd.cpu
                    if c is not None:
                        # testpmd's rate: txonly's output, every other mode's input (io
                        # and 5tswap send what they receive)
                        c["rate"] = c["tx_per_cpu_s" if mode == "txonly" else "rx_per_cpu_s"]
                else:
                    run_udpfan([pcap], n, a.seconds, a.warmup, log, binary=prog,
                               extra_fwd=", fanout: %s" % mode if mode else "")
                    c = run_udpfan.cpu
                    if c is not None:
                        c["rate"] = c["rx_per_cpu_s" if n == 1 else "tx_per_cpu_s"]
                        f = run_udpfan.last["fwd"]
                        c["fwd"] = {k: f.get(k) for k in ("rx", "forwarded", "tx_ok",
                                                          "copies_attempted", "chained")}
                if c is None:
                    raise RuntimeError("no per-CPU sample, see %s.cpu" % log)
                res[n][label].append(c)
                print("round %d N=%d %-22s %.2f Mpps/CPU-s (in %.2f, out %.2f; thread on CPU "
                      "%.0f %% of the span)%s" % (
                          rnd + 1, n, label, c["rate"] / 1e6, c["rx_per_cpu_s"] / 1e6,
                          c["tx_per_cpu_s"] / 1e6, 100 * c["cpu_share"],
                          "; chained %s of %s sent" % (c["fwd"]["chained"], c["fwd"]["tx_ok"])
                          if "fwd" in c else ""), flush=True)
    print("\nA = %s\nB = %s" % tuple(a.compare))
    print("in memory, net_pcap infinite_rx (64 flows, %d B payloads, %d B frames) -> net_null; "
          "%d s runs, sampled from %d s; %d rounds, every contender once per round per N" % (
              size, frame, a.seconds, a.warmup, a.rounds))
    print("per CPU-second of the forwarding thread, Mpps: N = 1 frames in, N > 1 frames out "
          "(testpmd txonly: frames out, io/5tswap/rxonly: frames in = out)")
    summary = {}
    for n in ns:
        labels = [c[0] for c in contenders(n)]
        summary[n] = {"runs": res[n], "ratios": {}}
        for l in labels:
            v = [c["rate"] for c in res[n][l]]
            print("N=%d %-22s %s (mean %.2f, varied %.1f %%)" % (
                n, l, " ".join("%.2f" % (x / 1e6) for x in v), statistics.mean(v) / 1e6,
                100 * (max(v) - min(v)) / statistics.mean(v)))
        # every later contender against every earlier one, paired per round
        for i, x in enumerate(labels):
            for y in labels[i + 1:]:
                r = [cy["rate"] / cx["rate"] for cx, cy in zip(res[n][x], res[n][y])]
                summary[n]["ratios"]["%s / %s" % (y, x)] = r
                print("N=%d %-22s / %-22s %s mean %.3f (spread %.3f)" % (
                    n, y, x, " ".join("%.3f" % q for q in r), statistics.mean(r),
                    max(r) - min(r)))
    print("raw logs: %s" % out)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"A": a.compare[0], "B": a.compare[1], "payload": size, "frame": frame,
                       "seconds": a.seconds, "warmup": a.warmup, "rounds": a.rounds,
                       "results": summary}, f, indent=1)


def pools(a):
    """--pools: plain N = 1 and a pool of 4, interleaved per round, per CPU-second"""
    out = a.out or "/tmp/udpfan-bench-pools-%d" % int(time.time())
    os.makedirs(out, exist_ok=True)
    pcap = os.path.join(out, "in32-256senders.pcap")
    capture(pcap, 32, senders=256)
    cases = [("plain N=1", 0), ("pool of 4", 4)]
    res = {c: [] for c, _ in cases}
    for rnd in range(a.rounds):
        for label, pool in cases:
            log = os.path.join(out, "r%d-%s.log" % (rnd + 1, label.replace(" ", "_")))
            run_udpfan([pcap], 1, a.seconds, a.warmup, log, pool=pool)
            c = run_udpfan.cpu
            if c is None:
                raise RuntimeError("no per-CPU sample, see %s.cpu" % log)
            f = run_udpfan.last["fwd"]
            assert f["fanout"] == f["forwarded"], "a pool is one copy per datagram"
            res[label].append(c)
            print("round %d %-10s in %.2f Mpps/CPU-s, out %.2f Mpps/CPU-s (thread on CPU %.0f %%)"
                  % (rnd + 1, label, c["rx_per_cpu_s"] / 1e6, c["tx_per_cpu_s"] / 1e6,
                     100 * c["cpu_share"]), flush=True)
    print("\nin memory, net_pcap infinite_rx (256 senders x 64 ports, 32 B payloads) -> udpfan"
          " -> net_null; %d s runs, sampled from %d s; %d rounds, interleaved" % (
              a.seconds, a.warmup, a.rounds))
    plain = [c["rx_per_cpu_s"] for c in res["plain N=1"]]
    pool = [c["rx_per_cpu_s"] for c in res["pool of 4"]]
    ratios = [b / x for x, b in zip(plain, pool)]
    print("plain N=1  %s Mpps/CPU-s" % " ".join("%.2f" % (x / 1e6) for x in plain))
    print("pool of 4  %s Mpps/CPU-s" % " ".join("%.2f" % (x / 1e6) for x in pool))
    print("pool/plain %s, mean %.3f (spread %.3f)" % (" ".join("%.3f" % r for r in ratios),
                                                     statistics.mean(ratios),
                                                     max(ratios) - min(ratios)))
    print("raw logs: %s" % out)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"seconds": a.seconds, "warmup": a.warmup, "rounds": a.rounds,
                       "results": res, "ratios": ratios}, f, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=12)
    ap.add_argument("--warmup", type=int, default=4)
    ap.add_argument("--quick", action="store_true", help="6 s runs, N=1 and N=4 at 32 B only")
    ap.add_argument("--variants", action="store_true",
                    help="also: 1%% ARP mixed in, 1/16/1024 rules, two workers")
    ap.add_argument("--scaling", default=None,
                    help="worker counts, e.g. 1,2,4,8: N=1 and N=4 at 32 B each, and the "
                    "efficiency rate(k) / (k x rate(1)) (the 16-core machine's run)")
    ap.add_argument("--cpus", default=None,
                    help="CPUs to place lcores on: the main lcore's first, then one per worker "
                    "(testpmd: main and the first worker's); default main on 0, workers 1..W")
    ap.add_argument("--out", default=None, help="folder for raw logs (default: a temp dir)")
    ap.add_argument("--json", default=None, help="write the results table as JSON here")
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"), default=None,
                    help="two udpfan binaries (or testpmd as A), interleaved A B A B: "
                    "per-CPU-second rates, B/A and its spread")
    ap.add_argument("--rounds", type=int, default=2,
                    help="--compare, --pools, --listeners: rounds (>= 2)")
    ap.add_argument("--pools", action="store_true",
                    help="plain N=1 against a pool of 4, interleaved, per CPU-second")
    ap.add_argument("--listeners", action="store_true",
                    help="plain N=1 beside three listeners, interleaved, per CPU-second")
    ap.add_argument("--n", default="1,4", help="--compare: destination counts")
    ap.add_argument("--payload", type=int, default=32,
                    help="--compare: payload bytes (testpmd's frames of the same size)")
    ap.add_argument("--fanout", default=None,
                    help="--compare: udpfan's forward.fanout modes, each a contender "
                    "(e.g. copy,chain)")
    ap.add_argument("--refs", default=None,
                    help="--compare with testpmd: its modes, each a contender at every N "
                    "(e.g. txonly,io; default 5tswap at N = 1, txonly above)")
    a = ap.parse_args()
    if a.cpus:
        global CPUS
        CPUS = [int(x) for x in a.cpus.split(",")]
    if a.pools:
        pools(a)
        return
    if a.listeners:
        listeners_bench(a)
        return
    if a.compare:
        if a.rounds < 2:
            ap.error("--rounds: at least 2, or there is no spread")
        if a.payload != 32 or a.fanout or a.refs:
            compare_variants(a)
        else:
            compare(a)
        return
    if a.quick:
        a.seconds, a.warmup = 6, 2
    out = a.out or "/tmp/udpfan-bench-inmem-%d" % int(time.time())
    os.makedirs(out, exist_ok=True)
    sizes = [32] if a.quick else [32, 256, 1400]
    rows = []
    hz = 0

    def row(label, size, n, pcaps, ref, extra_fwd="", rules=0, in_frame=0):
        nonlocal hz
        log = os.path.join(out, "udpfan-%s.log" % label)
        rx, tx, hz = run_udpfan(pcaps, n, a.seconds, a.warmup, log, extra_fwd, rules)
        rows.append({"label": label, "payload": size, "frame_in": in_frame, "n": n,
                     "workers": len(pcaps), "udpfan_rx_pps": rx, "udpfan_tx_pps": tx,
                     "cycles_per_in": hz * len(pcaps) / rx if rx else 0,
                     "cycles_per_out": hz * len(pcaps) / tx if tx else 0,
                     "testpmd_5tswap_pps": ref["5tswap"][0], "testpmd_io_pps": ref["io"][0],
                     "testpmd_txonly_pps": ref["txonly"][1],
                     "ratio_in_vs_5tswap": rx / ref["5tswap"][0] if ref["5tswap"][0] else 0,
                     "ratio_out_vs_txonly": tx / ref["txonly"][1] if ref["txonly"][1] else 0,
                     "udpfan_rx_per_cpu_s": (run_udpfan.cpu or {}).get("rx_per_cpu_s", 0),
                     "udpfan_tx_per_cpu_s": (run_udpfan.cpu or {}).get("tx_per_cpu_s", 0),
                     "testpmd_5tswap_per_cpu_s": ref["5tswap"][2],
                     "testpmd_txonly_per_cpu_s": ref["txonly"][2],
                     "control": run_udpfan.last["fwd"]["control"],
                     "arp_answered": run_udpfan.last["arp"]["requests_answered"]})

    if a.scaling:
        sizes = [32]
    for size in sizes:
        pcap = os.path.join(out, "in%d.pcap" % size)
        in_frame = capture(pcap, size)
        ref = {}
        for mode in ("5tswap", "io"):
            ref[mode] = run_testpmd(mode, pcap, a.seconds, a.warmup,
                                    os.path.join(out, "testpmd-%s-%d.log" % (mode, size)))
        ref["txonly"] = run_testpmd("txonly", pcap, a.seconds, a.warmup,
                                    os.path.join(out, "testpmd-txonly-%d.log" % size),
                                    frame_len=max(42 + size, 60))
        if a.scaling:
            counts = [int(x) for x in a.scaling.split(",")]
            pcaps = [pcap]
            for w in range(2, max(counts) + 1):
                pcaps.append(os.path.join(out, "in32-%d.pcap" % w))
                capture(pcaps[-1], 32)
            for w in counts:
                for n in (1, 4):
                    row("n%d-32-%dworkers" % (n, w), size, n, pcaps[:w], ref,
                        in_frame=in_frame)
            continue
        for n in (1, 4):
            row("n%d-%d" % (n, size), size, n, [pcap], ref, in_frame=in_frame)
        if size == 32 and a.variants:
            arp = os.path.join(out, "in32-arp1.pcap")
            capture(arp, 32, arp_pct=1.0)
            row("n1-32-arp1pct", 32, 1, [arp], ref, in_frame=in_frame)
            for r in (1, 16, 1024):
                row("n1-32-rules%d" % r, 32, 1, [pcap], ref, rules=r, in_frame=in_frame)
            pcap2 = os.path.join(out, "in32b.pcap")
            capture(pcap2, 32)
            for n in (1, 4):
                row("n%d-32-2workers" % n, 32, n, [pcap, pcap2], ref, in_frame=in_frame)

    place = ("worker on CPU 1, main on CPU 0 (two workers: CPU 0 and 1, the main lcore beside "
             "the first)" if CPUS is None else "main lcore on CPU %d, workers on CPUs %s" % (
                 CPUS[0], ",".join(map(str, CPUS[1:]))))
    print("\nbench 1, in memory: net_pcap infinite_rx (64 flows) -> udpfan -> net_null; %s; "
          "TSC %.0f MHz; %d s runs, first %d s discarded" % (place, hz / 1e6, a.seconds,
                                                            a.warmup))
    print("%-18s %2s %2s %8s %8s %7s %7s %8s %8s %8s %6s %6s" % (
        "run", "N", "W", "in Mpps", "out Mpps", "cyc/in", "cyc/out", "5tswap", "io",
        "txonly", "in/5ts", "out/tx"))
    for r in rows:
        print("%-18s %2d %2d %8.2f %8.2f %7.1f %7.1f %8.2f %8.2f %8.2f %6.2f %6.2f" % (
            r["label"], r["n"], r["workers"], r["udpfan_rx_pps"] / 1e6,
            r["udpfan_tx_pps"] / 1e6, r["cycles_per_in"], r["cycles_per_out"],
            r["testpmd_5tswap_pps"] / 1e6, r["testpmd_io_pps"] / 1e6,
            r["testpmd_txonly_pps"] / 1e6, r["ratio_in_vs_5tswap"], r["ratio_out_vs_txonly"]))
    print("\nper CPU-second of the forwarding thread(s), Mpps (sampled after the warm-up):")
    print("%-18s %2s %2s %8s %8s %8s %8s %6s %6s" % (
        "run", "N", "W", "in", "out", "5tswap", "txonly", "in/5ts", "out/tx"))
    for r in rows:
        ts, tt = r["testpmd_5tswap_per_cpu_s"], r["testpmd_txonly_per_cpu_s"]
        print("%-18s %2d %2d %8.2f %8.2f %8.2f %8.2f %6.2f %6.2f" % (
            r["label"], r["n"], r["workers"], r["udpfan_rx_per_cpu_s"] / 1e6,
            r["udpfan_tx_per_cpu_s"] / 1e6, ts / 1e6, tt / 1e6,
            r["udpfan_rx_per_cpu_s"] / ts if ts else 0,
            r["udpfan_tx_per_cpu_s"] / tt if tt else 0))
    one = {r["n"]: r for r in rows if r["workers"] == 1 and r["payload"] == 32 and
           ("rules" not in r["label"] and "arp" not in r["label"])}
    for r in rows:
        if r["workers"] > 1 and r["n"] in one:
            print("%d workers, N=%d: efficiency rate(%d) / (%d x rate(1)) = %.2f" % (
                r["workers"], r["n"], r["workers"], r["workers"],
                r["udpfan_rx_pps"] / (r["workers"] * one[r["n"]]["udpfan_rx_pps"])))
    print("raw logs: %s" % out)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"seconds": a.seconds, "warmup": a.warmup, "tsc_hz": hz, "rows": rows}, f,
                      indent=1)


if __name__ == "__main__":
    main()
