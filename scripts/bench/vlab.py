#!/usr/bin/env python3
"""Bench 2b, DRAFT (not in docs/benchmarks.md yet): udpfan between udpfan-gen and
udpfan-sink over real PMD rings (tests/lib/vlab.py: virtio_user <-> net_vhost, net_memif), at
N = 1 and N = 4, against dpdk-testpmd (--forward-mode=io, ports lan and wan paired) on the
same wire, the same vdev strings and the same lcores (main 0@0, forwarding 1@1), in the same
run, interleaved: for each PMD, udpfan N=1, testpmd, udpfan N=4, per round.

The generator floods (--rate 0) for --seconds; after --warmup the lan port's opackets (DPDK
telemetry, /ethdev/stats) and the forwarding thread's run time (/proc/PID/task/TID/schedstat,
first field) are read twice: the rate per CPU-second of the forwarding thread is
packets out / run time (copies for N = 4), whatever else the scheduler gave that CPU. The
wall rate, the generator's own rate and the forwarder's busy share (run time / wall) say
which end is the limit: a forwarder busy well under 100% of its CPU-share was waiting for
the generator; drops at the forwarder (tx_drop / imissed) mean the sink was.

  sudo scripts/bench/vlab.py [--rounds 1] [--seconds 8] [--warmup 3] [--out DIR]

Known problems of this draft (first run, 2026-12-01, 2 shared CPUs): the sink is the limit
everywhere (udpfan's tx_drop in the millions: ring_full), so the figures say little about
udpfan; udpfan N = 1 on vhost read 0 lan opackets over the window (the telemetry read, not
traffic: its tx_ok moved); testpmd on memif does not start in the lab (Lab.wait_socket waits
for udpfan's stats file, which testpmd does not write). Fix those before publishing numbers.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "tests", "lib"))
sys.path.insert(0, HERE)
os.environ.setdefault("UDPFAN", os.path.join(SRC, "build", "udpfan"))
os.environ.setdefault("UF_BUILD", os.path.join(SRC, "build"))
from inmem import telemetry, worker_tids, run_ns  # noqa: E402
from vlab import Lab, wait_for  # noqa: E402

TESTPMD = "dpdk-testpmd"


def lan_opackets(prefix):
    return telemetry(prefix, "/ethdev/stats,0")["opackets"]  # lan is port 0 in both


def start_testpmd(lab, log):
    argv = [TESTPMD, "--lcores", "0@0,1@1", "--file-prefix", "%s-uf" % lab.tag, "--no-pci",
            "--single-file-segments", "--vdev", lab.udpfan_dev("lan"), "--vdev",
            lab.udpfan_dev("wan"), "--", "--forward-mode=io", "--nb-cores=1", "--auto-start",
            "--rxq=%d" % lab.queues, "--txq=%d" % lab.queues, "--stats-period=0"]
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=open(log, "w"),
                         stderr=subprocess.STDOUT, start_new_session=True)
    lab.procs["udpfan"] = p  # Lab.close() ends it as it would udpfan
    lab.logs["udpfan"] = log
    return p


def one(pmd, fwd, n, args, wd):
    """one run; returns a dict of figures"""
    with Lab(pmd, wd) as lab:
        prefix = "%s-uf" % lab.tag
        if fwd == "udpfan":
            lab.start_udpfan(dests=n, lan_tx_desc=1024)
        else:
            start_testpmd(lab, os.path.join(wd, "testpmd.log"))
            if pmd == "memif":
                time.sleep(3)  # the clients connect once testpmd's ports are started
        lab.start_sink(idle=3, duration=args.seconds + 30)
        lab.start_gen(count=10 ** 12, rate=0, duration=args.seconds, wait_udpfan=fwd == "udpfan",
                      extra=["--linger", "200"])
        fp = lab.procs["udpfan"]
        if fwd == "udpfan":
            lab.udpfan_ready()
        if not wait_for(lambda: os.path.exists("/var/run/dpdk/%s/dpdk_telemetry.v2" % prefix),
                        20):
            raise RuntimeError("no telemetry from the forwarder:\n" + lab.log("udpfan"))
        time.sleep(1)
        tids = worker_tids(fp.pid)
        time.sleep(args.warmup)
        t0, c0, r0 = time.time(), lan_opackets(prefix), run_ns(fp.pid, tids)
        time.sleep(args.seconds - args.warmup - 1)
        t1, c1, r1 = time.time(), lan_opackets(prefix), run_ns(fp.pid, tids)
        g = lab.wait_json("gen", timeout=args.seconds + 30)
        s = lab.wait_json("sink", timeout=60)
        st = lab.stop_udpfan() if fwd == "udpfan" else None
        if fwd != "udpfan":
            fp.send_signal(signal.SIGINT)
            try:
                fp.wait(timeout=15)
            except subprocess.TimeoutExpired:
                fp.kill()
        out = c1 - c0
        res = {"pmd": pmd, "fwd": fwd, "n": n, "out_per_cpu_s": out / ((r1 - r0) / 1e9),
               "out_wall_pps": out / (t1 - t0), "busy": (r1 - r0) / 1e9 / (t1 - t0),
               "gen_pps": g["pps"], "gen_tx_full_retries": g["tx_full_retries"],
               "sink_frames": s["frames"]}
        if st is not None:
            f = st["fwd"]
            res.update(tx_drop=sum(f["tx_drop"].values()), drops=sum(f["drop"].values()),
                       busy_pct=[v["busy_pct"] for v in st["lcores"].values()])
        return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=8)
    ap.add_argument("--warmup", type=float, default=3)
    ap.add_argument("--pmd", choices=["vhost", "memif", "both"], default="both")
    ap.add_argument("--out", help="directory for the raw JSON lines and logs")
    args = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("needs root (hugepages)")
    out_dir = args.out or tempfile.mkdtemp(prefix="vlab-bench-")
    os.makedirs(out_dir, exist_ok=True)
    raw = open(os.path.join(out_dir, "runs.jsonl"), "a")
    pmds = ["vhost", "memif"] if args.pmd == "both" else [args.pmd]
    rows = []
    for r in range(args.rounds):
        for pmd in pmds:
            for fwd, n in (("udpfan", 1), ("testpmd", 1), ("udpfan", 4)):
                wd = os.path.join(out_dir, "r%d-%s-%s-n%d" % (r, pmd, fwd, n))
                os.makedirs(wd, exist_ok=True)
                res = one(pmd, fwd, n, args, wd)
                res["round"] = r
                raw.write(json.dumps(res) + "\n")
                raw.flush()
                rows.append(res)
                print("%-6s %-8s N=%d  out/CPU-s %10.0f  wall %9.0f pps  busy %4.0f%%  gen %9.0f "
                      "pps  gen tx_full retries %d%s" % (
                          pmd, fwd, n, res["out_per_cpu_s"], res["out_wall_pps"],
                          100 * res["busy"], res["gen_pps"], res["gen_tx_full_retries"],
                          "  tx_drop %d" % res["tx_drop"] if "tx_drop" in res else ""),
                      flush=True)
    print("raw: %s" % out_dir)


if __name__ == "__main__":
    main()
