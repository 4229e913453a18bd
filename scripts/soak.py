#!/usr/bin/env python3
"""Soak: udpfan-gen -> udpfan -> kernel sinks (udpfan-sink --kernel) on the veth test bed
for a long time at a fixed rate, sampling udpfan as it runs, then the loss ledger
(scripts/ledger.py) over the whole run.

    sudo scripts/soak.py                                 # 10 minutes at 10 kpps, 3 sinks
    sudo scripts/soak.py --duration 86400 --sample 300   # a day
    sudo scripts/soak.py --duration 60 --sample 10 --json soak.json

Every --sample seconds (default 60) it records udpfan's resident memory (VmRSS), its
hugetlb pages (HugetlbPages), its open fds, its threads, the hugepage files of its
file_prefix, and the counters of its latest stats object (rx, forwarded, tx_ok, drops).

It passes (exit 0) when all of these hold (docs/testing.md#soak):
  - memory is flat: no sample's VmRSS exceeds the first sample's by more than --rss-growth-kib
    (default 1024), and HugetlbPages, the hugepage files, fds and threads never change;
  - udpfan keeps forwarding: every interval's `forwarded` grows;
  - nothing is lost: every sink received every datagram the generator sent, once;
  - nothing is unexplained: the ledger attributes every difference between stages;
  - udpfan stops cleanly on SIGTERM with its three ledger identities holding.
Exit 1 when one fails (each failure printed), 3 when the environment is wrong.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ledger  # noqa: E402

MAX_DURATION = 24 * 3600
FILE_PREFIX = "ufsoak"


def proc_status(pid):
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for ln in f:
            k, _, v = ln.partition(":")
            if k in ("VmRSS", "VmHWM", "HugetlbPages", "Threads"):
                out[k] = int(v.split()[0])
    return out


def latest_stats(path):
    """the last complete JSON line of udpfan's stats file, read from its tail only (a day's
    file holds 86,400 of them)"""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 262144))
            lines = f.read().splitlines()
    except OSError:
        return None
    for ln in reversed(lines):
        try:
            return json.loads(ln)
        except ValueError:
            continue
    return None


def hugepage_files(prefix):
    n = 0
    for d in ("/dev/hugepages", "/mnt/huge"):
        try:
            n += sum(1 for e in os.listdir(d) if e.startswith(prefix + "map_"))
        except OSError:
            pass
    return n


def sample(uf, t0):
    pid = uf.proc.pid
    st = proc_status(pid)
    s = latest_stats(uf.stats) or {}
    f = s.get("fwd", {})
    port = s.get("ports", {}).get("lan", {})
    return {"t": round(time.monotonic() - t0, 1),
            "rss_kib": st.get("VmRSS"), "hwm_kib": st.get("VmHWM"),
            "hugetlb_kib": st.get("HugetlbPages"), "threads": st.get("Threads"),
            "fds": len(os.listdir("/proc/%d/fd" % pid)),
            "hugepage_files": hugepage_files(FILE_PREFIX),
            "rx": f.get("rx", 0), "forwarded": f.get("forwarded", 0),
            "tx_ok": f.get("tx_ok", 0), "drop": sum(f.get("drop", {}).values()),
            "tx_drop": sum(f.get("tx_drop", {}).values()),
            "imissed": port.get("imissed", 0)}


def sampler(a, samples):
    def during(tb, uf, gen):
        with open("/proc/%d/comm" % uf.proc.pid) as f:
            comm = f.read().strip()
        if comm != "udpfan":
            raise SystemExit("soak: pid %d is %r, not udpfan" % (uf.proc.pid, comm))
        t0 = time.monotonic()
        k = 1
        print("soak: %6s %9s %9s %9s %4s %4s %5s %12s %12s %8s %8s" % (
            "t", "rss_kib", "hwm_kib", "huge_kib", "fds", "thr", "files", "rx",
            "forwarded", "drop", "tx_drop"), flush=True)
        while gen.poll() is None:
            # on a fixed grid from t0, however long a sample takes
            wait = t0 + k * a.sample - time.monotonic()
            if wait > 0:
                time.sleep(min(wait, 1.0))
                continue
            k += 1
            s = sample(uf, t0)
            samples.append(s)
            print("soak: %6.0f %9d %9d %9d %4d %4d %5d %12d %12d %8d %8d" % (
                s["t"], s["rss_kib"], s["hwm_kib"], s["hugetlb_kib"] or 0, s["fds"],
                s["threads"], s["hugepage_files"], s["rx"], s["forwarded"], s["drop"],
                s["tx_drop"]), flush=True)
    return during


def judge(a, res, samples):
    """the failures, as sentences; empty: passed"""
    bad = []
    if len(samples) < 2:
        bad.append("only %d samples: run longer than twice --sample" % len(samples))
        return bad
    base = samples[0]
    top = max(samples, key=lambda s: s["rss_kib"])
    if top["rss_kib"] - base["rss_kib"] > a.rss_growth_kib:
        bad.append("VmRSS grew %d KiB (%d at t=%.0f s -> %d at t=%.0f s), more than %d" % (
            top["rss_kib"] - base["rss_kib"], base["rss_kib"], base["t"], top["rss_kib"],
            top["t"], a.rss_growth_kib))
    for k in ("hugetlb_kib", "hugepage_files", "fds", "threads"):
        vals = sorted(set(s[k] for s in samples))
        if len(vals) > 1:
            bad.append("%s changed: %s" % (k, vals))
    for p, s in zip(samples, samples[1:]):
        if s["forwarded"] <= p["forwarded"]:
            bad.append("nothing forwarded between t=%.0f s and t=%.0f s" % (p["t"], s["t"]))
    sent = res["gen"]["sent"]
    if sent < a.rate * a.duration * 0.99:
        bad.append("the generator sent %d of %d datagrams" % (sent, a.rate * a.duration))
    for s in res["sinks"]:
        if s["received"] != sent or s["duplicated"]:
            bad.append("sink %s received %d of %d (%d duplicated)" % (
                s["ip"], s["received"], sent, s["duplicated"]))
    if res["unexplained"]:
        bad.append("%d datagrams unexplained by the ledger" % res["unexplained"])
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=int, default=600,
                    help="seconds of traffic (default 600, at most %d)" % MAX_DURATION)
    ap.add_argument("--rate", type=int, default=10000, help="datagrams per second (default 10000)")
    ap.add_argument("--sample", type=float, default=60, help="seconds between samples")
    ap.add_argument("--size", type=int, default=32)
    ap.add_argument("--flows", type=int, default=16)
    ap.add_argument("--sinks", type=int, default=3)
    ap.add_argument("--vdev", choices=["af_xdp", "af_packet"], default="af_xdp")
    ap.add_argument("--rss-growth-kib", type=int, default=1024,
                    help="the most VmRSS may grow after the first sample (default 1024)")
    ap.add_argument("--json", help="write the samples, the ledger and the verdict here")
    a = ap.parse_args()
    if not 1 <= a.duration <= MAX_DURATION or a.rate <= 0 or a.sample <= 0:
        ap.error("--duration 1..%d, --rate and --sample above 0" % MAX_DURATION)
    if os.geteuid() != 0:
        print("udpfan: error: the soak builds network namespaces: run it as root",
              file=sys.stderr)
        return 3
    for b in (ledger.GEN, ledger.SINK, os.environ["UDPFAN"]):
        if not os.path.exists(b):
            print("udpfan: error: %s is missing: scripts/setup.sh build" % b, file=sys.stderr)
            return 3
    # the ledger's run, with what it needs: a count that takes --duration at --rate, time for
    # the generator to fall behind its pace a little, and no sink stopped
    run = argparse.Namespace(count=a.rate * a.duration, rate=a.rate,
                             duration=a.duration + max(30, a.duration // 20), size=a.size,
                             flows=a.flows, sinks=a.sinks, vdev=a.vdev, stop_sink_after=0,
                             prefix="ufk", file_prefix=FILE_PREFIX)
    print("soak: %d s at %d pps (%s, %d sinks), sampling every %g s; started %s" % (
        a.duration, a.rate, a.vdev, a.sinks, a.sample,
        time.strftime("%Y-%m-%d %H:%M:%S %Z")), flush=True)
    samples = []
    res = ledger.run(run, during=sampler(a, samples))
    rows, diffs = ledger.analyse(res)
    res["unexplained"] = sum(abs(d[4]) for d in diffs)
    bad = judge(a, res, samples)
    st = res["udpfan"]
    print("\nsoak: generator sent %d; udpfan rx %d forwarded %d tx_ok %d; sinks received %s" % (
        res["gen"]["sent"], st["fwd"]["rx"], st["fwd"]["forwarded"], st["fwd"]["tx_ok"],
        ", ".join("%d" % s["received"] for s in res["sinks"])))
    if samples:
        print("soak: VmRSS %d KiB first sample, %d KiB max, %d KiB last; fds %d; "
              "HugetlbPages %s KiB" % (samples[0]["rss_kib"],
                                       max(s["rss_kib"] for s in samples),
                                       samples[-1]["rss_kib"], samples[-1]["fds"],
                                       samples[-1]["hugetlb_kib"]))
    for name, v, what, att, rest in diffs:
        print("soak: ledger: %-32s %10d  attributed %d, unexplained %d" % (name, v, att, rest))
    for b in bad:
        print("soak: FAIL: %s" % b)
    print("soak: %s" % ("PASS: memory flat, nothing lost, nothing unexplained" if not bad
                        else "FAIL (%d)" % len(bad)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"args": vars(a), "samples": samples, "ledger": res, "rows": rows,
                       "diffs": diffs, "failures": bad, "passed": not bad}, f, indent=1)
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
