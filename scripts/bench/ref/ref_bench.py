#!/usr/bin/env python3
"""Run the reference kernel-socket forwarders (ref_mmsg, ref_gso) on the veth test bed.

    ref_bench.py [--fwd mmsg|gso|gso-pack|none] [--dests N] --rates R1,R2,... [--seconds 10]
                 [--gen-gso K] [--sink-gro] [--raw DIR] [--bin DIR] [--stop-after-loss 2]

One test bed (tests/lib/testbed.py, prefix "ufr", 4 sinks) for the whole invocation. The
forwarder runs in the fwd namespace on fwd0, which here gets 198.18.0.10/24 in the kernel
(udpfan keeps that address off the kernel; a socket forwarder needs it) and tx checksum
offload back on (the test bed turns it off; older kernels refuse UDP_SEGMENT without it; the
same for every forwarder). Neighbours are static, so no datagram waits for ARP, and so are
the bridge's FDB entries (the sinks never transmit: without them the bridge floods every
forwarded frame to every port). Generator: ref_gen in the src namespace, pinned to CPU 0,
bursts of 64. Forwarder pinned to CPU 1. Sinks: ref_sink, one per sink namespace, pinned to
CPU 0 with the generator (--sink-cpu), so CPU 1 is the forwarder's alone; they poll their
socket every 1000 us (--sink-poll-us) rather than sleep on it, so the forwarder, which runs
the sinks' receive path in its own context on veth, does not also pay their wake-ups.
--fwd none sends from the generator straight to the N sinks (every datagram to each): the
check that generator and sinks outrun the forwarder.

Each rate point is one run of --seconds; loss is counted over the whole run, end to end:
1 - (distinct sequence numbers summed over the sinks) / (datagrams generated x N). Every
counter on the way is printed beside it (generator, forwarder rx / tx / socket drops, the
fwd namespace's UDP counters, each sink's count and socket drops, softnet backlog drops).
CPU of the forwarder is its own getrusage over its whole life (it idles, blocked, outside
the generator's run); per datagram = (user + sys) / forwarder rx. The machine is shared: a
lossy point during which other people's user-mode work took more than --max-other cores is
run again (--retries); "NOISY" marks such a point.
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
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tests", "lib"))
from testbed import Testbed, FWD_IP, SRC_IP, wait_for  # noqa: E402

PORT = 9000
TOOLS = ["ref_mmsg", "ref_gso", "ref_gen", "ref_sink"]
FWD_CPU = 1
GEN_CPU = 0


def build(outdir):
    os.makedirs(outdir, exist_ok=True)
    for t in TOOLS:
        subprocess.run(["cc", "-O2", "-Wall", "-Wextra", "-Werror", "-o",
                        os.path.join(outdir, t), os.path.join(HERE, t + ".c")], check=True)
    return outdir


def snmp_udp(tb, ns):
    out = tb.nsx(ns, "cat /proc/net/snmp", capture=True).splitlines()
    rows = [l.split() for l in out if l.startswith("Udp:")]
    return dict(zip(rows[0][1:], map(int, rows[1][1:])))


def link_stats(tb, ns, ifname):
    j = json.loads(tb.nsx(ns, "ip -s -j link show %s" % ifname, capture=True))[0]
    s = j["stats64"]
    return {"rx_packets": s["rx"]["packets"], "rx_dropped": s["rx"]["dropped"],
            "tx_packets": s["tx"]["packets"], "tx_dropped": s["tx"]["dropped"]}


def softnet_dropped():
    tot = 0
    with open("/proc/net/softnet_stat") as f:
        for line in f:
            tot += int(line.split()[1], 16)
    return tot


def cpu_busy():
    """(busy, total, user) jiffies of the whole machine"""
    with open("/proc/stat") as f:
        v = list(map(int, f.readline().split()[1:]))
    idle = v[3] + v[4]
    return sum(v) - idle, sum(v), v[0] + v[1]


def wait_quiet(limit, max_wait):
    """Other people share these 2 cores: wait (bounded) for a second with < limit cores busy."""
    t_end = time.monotonic() + max_wait
    while True:
        c0 = cpu_busy()
        time.sleep(1)
        c1 = cpu_busy()
        busy = (c1[0] - c0[0]) / max(1, c1[1] - c0[1]) * os.cpu_count()
        if busy < limit or time.monotonic() > t_end:
            return busy


def snapshot(tb, n):
    return {"fwd_udp": snmp_udp(tb, tb.ns_fwd), "fwd0": link_stats(tb, tb.ns_fwd, tb.fwd_if),
            "src0": link_stats(tb, tb.ns_src, "src0"),
            "sink_udp": [snmp_udp(tb, ns) for ns in tb.sink_ns[:n]],
            "softnet_dropped": softnet_dropped(), "cpu": cpu_busy()}


def diff(a, b):
    if isinstance(a, dict):
        return {k: diff(a[k], b[k]) for k in a}
    if isinstance(a, (list, tuple)):
        return [diff(x, y) for x, y in zip(a, b)]
    return b - a


def setup(tb, a):
    if a.fwd_dev_gro:
        # veth GRO: NAPI on fwd0's receive side, so the kernel can coalesce ordinary datagrams
        tb.nsx(tb.ns_fwd, "ethtool -K %s gro on" % tb.fwd_if)
    if a.no_br_nf:
        tb.nsx(tb.ns_br, "sysctl -qw net.bridge.bridge-nf-call-iptables=0")
    tb.nsx(tb.ns_fwd, "ip addr add %s/24 dev %s" % (FWD_IP, tb.fwd_if))
    tb.static_neighbours()
    for i, ns in enumerate(tb.sink_ns):
        tb.nsx(tb.ns_fwd, "ip neigh replace %s lladdr %s dev %s nud permanent" %
               (tb.sink_ip[i], tb.sink_mac[i], tb.fwd_if))
        tb.nsx(tb.ns_src, "ip neigh replace %s lladdr %s dev src0 nud permanent" %
               (tb.sink_ip[i], tb.sink_mac[i]))
        tb.nsx(ns, "ip neigh replace %s lladdr %s dev sink0 nud permanent" %
               (FWD_IP, tb.fwd_mac))
        tb.nsx(ns, "ip neigh replace %s lladdr %s dev sink0 nud permanent" %
               (SRC_IP, tb.src_mac))
    tb.nsx(tb.ns_fwd, "ip neigh replace %s lladdr %s dev %s nud permanent" %
           (SRC_IP, tb.src_mac, tb.fwd_if))
    # The sinks never transmit, so the bridge would never learn their MACs and would flood
    # every forwarded frame to every port (measured: that doubles the forwarder's cost).
    # Static FDB entries: every frame goes to its one port.
    ports = [(tb.ns_src, "src0", tb.src_mac), (tb.ns_fwd, tb.fwd_if, tb.fwd_mac)] + \
        [(ns, "sink0", m) for ns, m in zip(tb.sink_ns, tb.sink_mac)]
    br_links = json.loads(tb.nsx(tb.ns_br, "ip -j link show", capture=True))
    for ns, ifname, macaddr in ports:
        peer = json.loads(tb.nsx(ns, "ip -j link show %s" % ifname, capture=True))[0]["link_index"]
        port = [l["ifname"] for l in br_links if l["ifindex"] == peer][0]
        tb.nsx(tb.ns_br, "bridge fdb replace %s dev %s master static" % (macaddr, port))


def run_point(tb, a, rate, tmp):
    n = a.dests
    b = a.bin
    quiet = wait_quiet(a.quiet_below, a.quiet_wait)
    snap0 = snapshot(tb, n)
    sinks = []
    for i, ns in enumerate(tb.sink_ns[:n]):
        ready = os.path.join(tmp, "ready%d" % i)
        if os.path.exists(ready):
            os.unlink(ready)
        # room in the sink's bitmap for every sequence number this run can produce
        max_seq = int(rate * a.seconds * 1.2) if rate else 2000000 * int(a.seconds) * 2
        argv = [os.path.join(b, "ref_sink"), "--port", str(PORT), "--idle", "1",
                "--max-seq", str(max(1 << 20, max_seq)),
                "--timeout", str(a.seconds + 30), "--max-time", str(a.seconds + 60),
                "--ready", ready] + (["--gro"] if a.sink_gro else []) + \
            (["--cpu", str(a.sink_cpu)] if a.sink_cpu >= 0 else []) + \
            (["--poll-us", str(a.sink_poll_us)] if a.sink_poll_us else [])
        sinks.append((tb.popen(ns, argv, stdout=subprocess.PIPE, text=True), ready))
    if not wait_for(lambda: all(os.path.exists(r) for _, r in sinks), 10):
        raise RuntimeError("sinks did not start")
    fwd = None
    fwd_log = os.path.join(tmp, "fwd.log")
    if a.fwd != "none":
        tool = "ref_mmsg" if a.fwd == "mmsg" else "ref_gso"
        argv = [os.path.join(b, tool), "--listen", "%s:%d" % (FWD_IP, PORT),
                "--cpu", str(FWD_CPU), "--batch", str(a.batch)]
        if a.fwd == "gso-pack":
            argv.append("--pack")
        argv += a.fwd_extra.split()
        for ip in tb.sink_ip[:n]:
            argv += ["--dst", "%s:%d" % (ip, PORT)]
        fwd = tb.popen(tb.ns_fwd, argv, stdout=subprocess.PIPE, stderr=open(fwd_log, "w"),
                       text=True)
        if not wait_for(lambda: "destination(s)" in open(fwd_log).read(), 10):
            raise RuntimeError("forwarder did not start: " + open(fwd_log).read())
        gen_dst = ["--dst", "%s:%d" % (FWD_IP, PORT)]
    else:
        gen_dst = sum((["--dst", "%s:%d" % (ip, PORT)] for ip in tb.sink_ip[:n]), [])
    gen_argv = [os.path.join(b, "ref_gen")] + gen_dst + [
        "--rate", str(rate), "--duration", str(a.seconds), "--size", str(a.size),
        "--batch", "64", "--cpu", str(GEN_CPU), "--quiet"]
    if a.gen_gso > 1:
        gen_argv += ["--gso", str(a.gen_gso)] + (["--short-last"] if a.gen_short_last else [])
    c0 = cpu_busy()
    g = tb.popen(tb.ns_src, gen_argv, stdout=subprocess.PIPE, text=True)
    gen = json.loads(g.communicate(timeout=a.seconds + 30)[0])
    c1 = cpu_busy()
    time.sleep(0.5)
    fj = None
    if fwd:
        fwd.send_signal(signal.SIGTERM)
        fj = json.loads(fwd.communicate(timeout=10)[0])
    sj = []
    for p, _ in sinks:
        try:
            out = p.communicate(timeout=15)[0]
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGTERM)
            out = p.communicate(timeout=5)[0]
        sj.append(json.loads(out))
    snap1 = snapshot(tb, n)
    d = diff(snap0, snap1)
    expect = gen["datagrams"] * n
    got = sum(s["distinct"] for s in sj)
    res = {"fwd": a.fwd, "dests": n, "rate": rate, "seconds": a.seconds, "size": a.size,
           "gen_gso": a.gen_gso, "sink_gro": a.sink_gro, "sink_cpu": a.sink_cpu,
           "sink_poll_us": a.sink_poll_us, "no_br_nf": a.no_br_nf,
           "fwd_dev_gro": a.fwd_dev_gro, "fwd_extra": a.fwd_extra,
           "gen_argv": gen_argv, "gen": gen, "fwd_json": fj,
           "sinks": sj, "counters": d,
           "system_busy_cores": (c1[0] - c0[0]) / max(1, c1[1] - c0[1]) * os.cpu_count(),
           "busy_before": quiet, "expected": expect,
           "bytes_expected": gen["bytes"] // len(gen_dst[1::2]) * n,
           "bytes_delivered": sum(x["bytes"] for x in sj), "delivered": got,
           "loss": 1 - got / expect if expect else 0.0,
           "fwd_log_tail": open(fwd_log).read().splitlines()[-3:] if fwd else []}
    # Other people's work on these 2 cores while the generator ran: user time of the machine
    # minus ours (our tools spend next to nothing in user mode; compilers and tests do).
    own_user = gen["cpu_user_s"] + sum(x["cpu_user_s"] for x in sj) + (fj["cpu_user_s"] if fj else 0)
    res["other_cores"] = ((c1[2] - c0[2]) / max(1, c1[1] - c0[1]) * os.cpu_count() -
                          own_user / gen["seconds"])
    if fj and fj["rx"]:
        res["fwd_cpu_us_per_rx"] = (fj["cpu_user_s"] + fj["cpu_sys_s"]) / fj["rx"] * 1e6
        res["fwd_cpu_us_per_tx"] = (fj["cpu_user_s"] + fj["cpu_sys_s"]) / max(1, fj["tx_ok"]) * 1e6
    return res


def show(r):
    fj = r["fwd_json"] or {}
    sinks = r["sinks"]
    print("%-8s N=%d rate %7d: gen %8d (%.0f pps) | fwd rx %8s sockdrop %6s tx_ok %9s err %5s"
          " | sinks %9d (sockdrop %d, dup %d) | softnet drop %d | loss %.4f%%%s" % (
              r["fwd"], r["dests"], r["rate"], r["gen"]["datagrams"], r["gen"]["rate"],
              fj.get("rx", "-"), fj.get("rx_sock_drops", "-"), fj.get("tx_ok", "-"),
              fj.get("tx_err", "-"), sum(s["received"] for s in sinks),
              sum(s["rx_sock_drops"] for s in sinks), sum(s["duplicates"] for s in sinks),
              r["counters"]["softnet_dropped"], 100 * r["loss"],
              (" | cpu %.2f us/rx dgram (%.2f us/tx), %.0f%% of a core, system %.2f cores" % (
                  r["fwd_cpu_us_per_rx"], r["fwd_cpu_us_per_tx"],
                  100 * (fj["cpu_user_s"] + fj["cpu_sys_s"]) / r["seconds"],
                  r["system_busy_cores"]) if "fwd_cpu_us_per_rx" in r else "") +
          " | busy before %.2f, others' user %.2f cores%s" % (
              r["busy_before"], r["other_cores"],
              " (NOISY)" if r["other_cores"] > r["max_other"] else "")))
    if r["bytes_expected"] != r["bytes_delivered"] and r["loss"] == 0:
        print("         BYTES DIFFER: expected %d, delivered %d" % (r["bytes_expected"],
                                                                   r["bytes_delivered"]))
    if fj.get("tool") == "ref_gso":
        print("         gso: %.3f dgrams per rx buffer, %d GSO messages sent, split %d" % (
            fj["rx_dgrams_per_buffer"], fj["tx_gso_msgs"], fj["tx_split_msgs"]))
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fwd", choices=["mmsg", "gso", "gso-pack", "none"], default="mmsg")
    ap.add_argument("--dests", type=int, default=1)
    ap.add_argument("--rates", required=True, help="comma separated datagrams/s (0: flood)")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--size", type=int, default=64, help="UDP payload bytes")
    ap.add_argument("--batch", type=int, default=64, help="forwarder batch")
    ap.add_argument("--fwd-extra", default="", help="more forwarder options, e.g. --no-gro")
    ap.add_argument("--fwd-dev-gro", action="store_true",
                    help="ethtool -K fwd0 gro on (veth NAPI + GRO on the forwarder's side)")
    ap.add_argument("--no-br-nf", action="store_true",
                    help="bridge-nf-call-iptables=0 in the bridge namespace (default: as the "
                         "test bed leaves it, 1)")
    ap.add_argument("--gen-gso", type=int, default=1, help="generator UDP_SEGMENT train length")
    ap.add_argument("--gen-short-last", action="store_true",
                    help="with --gen-gso: the last datagram of each train is half as long")
    ap.add_argument("--sink-gro", action="store_true")
    ap.add_argument("--sink-poll-us", type=int, default=1000,
                    help="sinks drain their socket every N us instead of sleeping on it")
    ap.add_argument("--sink-cpu", type=int, default=GEN_CPU,
                    help="pin the sinks to this CPU (-1: let the scheduler place them)")
    ap.add_argument("--stop-after-loss", type=int, default=0,
                    help="stop after this many consecutive points with >= 0.1%% loss")
    ap.add_argument("--quiet-below", type=float, default=0.15,
                    help="before each point wait for a second with fewer cores busy than this")
    ap.add_argument("--quiet-wait", type=float, default=60, help="but at most this long")
    ap.add_argument("--max-other", type=float, default=0.05,
                    help="a lossy point during which other people's user-mode work took more "
                         "cores than this is rerun")
    ap.add_argument("--retries", type=int, default=2)
    ap.add_argument("--bin", help="directory with the built tools (default: build with cc)")
    ap.add_argument("--raw", help="append every run's full JSON to DIR/runs.jsonl")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("needs root (network namespaces)")
    if not 1 <= a.dests <= 4:
        sys.exit("--dests must be 1..4")
    if not 1 <= a.seconds <= 60:
        sys.exit("--seconds must be 1..60")
    a.bin = a.bin or build(os.path.join(tempfile.gettempdir(), "ref_bench_bin"))
    rates = [int(float(x)) for x in a.rates.split(",")]
    lossy = 0
    with tempfile.TemporaryDirectory() as tmp, Testbed(prefix="ufr", sinks=4) as tb:
        setup(tb, a)
        for rate in rates:
            for attempt in range(a.retries + 1):
                r = run_point(tb, a, rate, tmp)
                r["max_other"] = a.max_other
                r["attempt"] = attempt
                show(r)
                if a.raw:
                    os.makedirs(a.raw, exist_ok=True)
                    with open(os.path.join(a.raw, "runs.jsonl"), "a") as f:
                        f.write(json.dumps(r) + "\n")
                # noise can only cost: a clean point stands; a lossy one under noise is rerun
                if r["loss"] < 0.001 or r["other_cores"] <= a.max_other:
                    break
            lossy = lossy + 1 if r["loss"] >= 0.001 else 0
            if a.stop_after_loss and lossy >= a.stop_after_loss:
                break


if __name__ == "__main__":
    main()
