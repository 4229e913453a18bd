#!/usr/bin/env python3
"""udpfan-gen -> udpfan-sink on the veth test bed, no forwarder in between: count at both
ends and check they agree.

  1. gen (net_af_xdp on src0) -> kernel sink: sent == received, nothing lost, duplicated or
     reordered, and the sink's first/max sequence numbers are the generator's.
  2. the kernel sink starts late, after the generator began: with --expect-first/--expect-last
     it reports the datagrams it missed as lost, exactly the gap before its first arrival.
  3. gen -> DPDK sink (net_af_xdp on fwd0): both ends answer ARP for their own address (the
     generator resolves the sink's MAC), and the counts agree the same way.
  4. a target that does not answer ARP: the generator exits 3 with one error line.

Root only (namespaces, AF_XDP, hugepages); exit 77 (skip) otherwise. Each case sets up its
own test bed (tests/lib/ufrun.py Suite: one meson test per case).
"""
import json
import os
import subprocess
import sys
import tempfile
import time

from testbed import Testbed, wait_for, SRC_IP, FWD_IP
from ufrun import Suite

BUILD = os.environ.get("UF_BUILD", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
GEN = os.path.join(BUILD, "app", "udpfan-gen", "udpfan-gen")
SINK = os.path.join(BUILD, "app", "udpfan-sink", "udpfan-sink")
RATE = 50000
PORT = 6000
TAG = "ugs-"  # fixed EAL file prefixes (runs are not parallel): no runtime dirs pile up


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def free_huge_mb():
    total = 0
    base = "/sys/kernel/mm/hugepages"
    for d in os.listdir(base):
        kb = int(d.split("-")[1][:-2])
        with open(os.path.join(base, d, "free_hugepages")) as f:
            total += int(f.read()) * kb // 1024
    return total


def gen_argv(tb, dst_ip, count, extra=(), rate=RATE):
    return [GEN, "--dev", "net_af_xdp0,iface=src0,busy_budget=0", "--ip", SRC_IP + "/24",
            "--dst", "%s:%d" % (dst_ip, PORT), "--rate", str(rate), "--count", str(count),
            "--duration", "30", "--file-prefix", TAG + "g"] + list(extra)


def run_json(proc, name, timeout=60):
    out, err = proc.communicate(timeout=timeout)
    if proc.returncode != 0:
        raise AssertionError("%s exited %d\n%s\n%s" % (name, proc.returncode, out, err[-3000:]))
    try:
        return json.loads(out)
    except ValueError:
        raise AssertionError("%s printed no JSON:\n%s\n%s" % (name, out, err[-3000:]))


def check(cond, what, *ctx):
    if not cond:
        raise AssertionError(what + "".join("\n" + json.dumps(c) for c in ctx))
    print("ok: " + what)


def start_kernel_sink(tb, tmp, name, extra=()):
    ready = os.path.join(tmp, name + ".ready")
    p = tb.popen(tb.sink_ns[0], [SINK, "--kernel", "--port", str(PORT), "--idle", "1",
                                 "--duration", "40", "--ready", ready] + list(extra),
                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not wait_for(lambda: os.path.exists(ready) or p.poll() is not None, 10) or \
            p.poll() is not None:
        raise AssertionError("sink did not start: %s" % (p.communicate()[1][-2000:],))
    return p


def case_in_order(tb, tmp):
    count = 2 * RATE
    sink = start_kernel_sink(tb, tmp, "s1")
    g = tb.popen(tb.ns_src, gen_argv(tb, tb.sink_ip[0], count), stdout=subprocess.PIPE,
                 stderr=subprocess.PIPE, text=True)
    gj = run_json(g, "udpfan-gen")
    sj = run_json(sink, "udpfan-sink")
    d = sj["destinations"].get("%s:%d" % (tb.sink_ip[0], PORT))
    check(gj["sent"] == count and gj["first_seq"] == 0 and gj["last_seq"] == count - 1,
          "generator sent %d, sequence 0..%d" % (count, count - 1), gj)
    check(d is not None and d["received"] == gj["sent"], "sink received what was sent", gj, sj)
    check(d["lost"] == 0 and d["duplicated"] == 0 and d["reordered"] == 0 and d["exact"],
          "nothing lost, duplicated or reordered", d)
    check(d["first_seq"] == gj["first_seq"] and d["max_seq"] == gj["last_seq"],
          "sink's first/max sequence = generator's first/last", d, gj)
    check(sj["senders"] == {"%s:40000" % SRC_IP: count}, "one sender, all datagrams", sj)
    check(sj["sockets"][str(PORT)]["drops"] == 0, "socket dropped nothing", sj)
    check(gj["port"]["opackets"] >= gj["sent"], "port counted every frame out", gj)


def case_late_sink(tb, tmp):
    count = 3 * RATE
    gready = os.path.join(tmp, "gen.ready")
    g = tb.popen(tb.ns_src, gen_argv(tb, tb.sink_ip[0], count, ["--ready", gready]),
                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not wait_for(lambda: os.path.exists(gready) or g.poll() is not None, 15):
        raise AssertionError("generator did not start")
    time.sleep(0.8)  # ~40k datagrams go to a port nobody listens on
    sink = start_kernel_sink(tb, tmp, "s2", ["--expect-first", "0", "--expect-last",
                                             str(count - 1)])
    gj = run_json(g, "udpfan-gen")
    sj = run_json(sink, "udpfan-sink")
    d = sj["destinations"].get("%s:%d" % (tb.sink_ip[0], PORT))
    check(gj["sent"] == count, "generator sent %d" % count, gj)
    check(d is not None and d["first_seq"] > 0, "late sink: first arrival after 0", sj)
    gap = d["first_seq"]
    check(d["received"] == count - gap and d["distinct"] == count - gap,
          "late sink received everything from its first arrival on (%d..%d)" %
          (gap, count - 1), d)
    check(d["lost"] == gap and d["lost"] == gj["sent"] - d["received"],
          "lost is exactly the gap before the first arrival (%d)" % gap, d, gj)
    check(d["duplicated"] == 0 and d["max_seq"] == gj["last_seq"], "no duplicate, tail seen", d)


def case_dpdk_sink(tb, tmp):
    # af_xdp keeps 2048 buffers in the sink's fill ring: at 20k pps that is 100 ms of slack
    # for a sink lcore that shares its CPU with someone else's run
    rate = 20000
    count = 2 * rate
    ready = os.path.join(tmp, "dsink.ready")
    sink = tb.popen(tb.ns_fwd, [SINK, "--dev", tb.vdev("af_xdp"), "--ip", FWD_IP + "/24",
                                "--port", str(PORT), "--idle", "1", "--duration", "40",
                                "--file-prefix", TAG + "s", "--ready", ready],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not wait_for(lambda: os.path.exists(ready) or sink.poll() is not None, 20) or \
            sink.poll() is not None:
        raise AssertionError("DPDK sink did not start: %s" % (sink.communicate()[1][-2000:],))
    g = tb.popen(tb.ns_src, gen_argv(tb, FWD_IP, count, rate=rate), stdout=subprocess.PIPE,
                 stderr=subprocess.PIPE, text=True)
    gj = run_json(g, "udpfan-gen")
    sj = run_json(sink, "udpfan-sink")
    d = sj["destinations"].get("%s:%d" % (FWD_IP, PORT))
    check(gj["next_hop_mac"] == tb.fwd_mac, "generator resolved the DPDK sink by ARP", gj)
    check(sj["arp_replies"] >= 1, "DPDK sink answered ARP", sj)
    check(d is not None and d["received"] == gj["sent"] == count,
          "DPDK sink received what was sent", gj, sj)
    check(d["lost"] == 0 and d["duplicated"] == 0 and d["first_seq"] == 0 and
          d["max_seq"] == count - 1 and sj["bad_checksum"] == 0,
          "nothing lost or duplicated, checksums good", d, sj)


def case_no_arp(tb, tmp):
    p = tb.popen(tb.ns_src, gen_argv(tb, "198.18.0.99", 10), stdout=subprocess.PIPE,
                 stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=60)
    lines = [l for l in err.splitlines() if l.startswith("udpfan-gen: error:")]
    check(p.returncode == 3 and len(lines) == 1 and "did not answer ARP" in lines[0],
          "no ARP answer: exit 3, one error line (%s)" % (lines[0] if lines else err[-300:]))


def on_testbed(case):
    """case(tb, tmp) as a Suite case on a test bed and in a directory of its own."""
    def run():
        with tempfile.TemporaryDirectory(prefix="uf-gen-sink-") as tmp, \
                Testbed(prefix="ugs", sinks=1) as tb:
            case(tb, tmp)
    run.__name__ = case.__name__
    return run


def main():
    s = Suite(root=True)
    if not s.listing:
        for b in (GEN, SINK):
            if not os.access(b, os.X_OK):
                raise SystemExit("not built: " + b)
        if not wait_for(lambda: free_huge_mb() >= 128, 30, step=1):
            skip("fewer than 128 MiB of free hugepages (someone else's run?)")
    for case in (case_in_order, case_late_sink, case_dpdk_sink, case_no_arp):
        s.run(on_testbed(case))
    s.finish()


if __name__ == "__main__":
    main()
