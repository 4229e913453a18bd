#!/usr/bin/env python3
"""e2e: hitless reload at traffic (docs/configuration.md#reload).

udpfan fans a steady stream out to two kernel sinks (ARP-resolved, kernel defaults) while
the config file is rewritten and udpfan told to reload (SIGHUP, or /udpfan/reload through
the telemetry socket). Each case checks that the destinations the reload did not touch
received every datagram exactly once (sequence numbers at the sinks), that a new or changed
destination starts receiving and gets everything from its first datagram to the end, that a
removed one got a gapless prefix, that a refused change (ports[]) or a broken file leaves
the running plan forwarding, and that the final stats object's ledger holds with the
`reload` object's counts."""
import json
import os
import signal
import subprocess
import time

from testbed import FWD_IP, Testbed
from uflive import Sink, Udpfan, send
from ufrun import Suite, tmpdir

PREFIX = "ufrel"
RATE = 2000
SECONDS = 6
COUNT = RATE * SECONDS
PORTS = [6000, 7000]


def config(tb, dests, mtu=None):
    """dests: [(sink index, udp port)]"""
    lines = "\n".join("  - { ip: %s, udp_port: %d }" % (tb.sink_ip[i], p) for i, p in dests)
    port = '  - { name: lan, device: "%s", ip: %s/24%s }' % (
        tb.vdev("af_xdp"), FWD_IP, ", mtu: %d" % mtu if mtu else "")
    return """eal: { lcores: "0-1", file_prefix: %s }
ports:
%s
listen: { port: lan, udp_port: 5000 }
destinations:
%s
stats: { interval_s: 0.5 }
""" % (PREFIX, port, lines)


def telemetry(cmd):
    r = subprocess.run(["dpdk-telemetry.py", "-f", PREFIX], input=cmd + "\n",
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=30)
    dec, i, out = json.JSONDecoder(), 0, []
    while True:
        j = r.stdout.find("{", i)
        if j < 0:
            break
        obj, i = dec.raw_decode(r.stdout, j)
        out.append(obj)
    ans = [o for o in out if cmd in o]
    assert ans, r.stdout
    return ans[-1][cmd]


def finish(sink):
    """a sink with datagrams ends 4 s (idle) after its last; one that gets none (a
    destination the reload refuses or has not added) is stopped 6 s after the sender ends,
    not at its time-out"""
    try:
        return sink.result(timeout=6)
    except subprocess.TimeoutExpired:
        return sink.stop()


def run(tb, wd, before, after_text, how="hup", twice=False):
    """forward COUNT datagrams; after a third of them, write after_text and reload.
    Returns the sinks' results (with sequence lists), the final stats and the log."""
    sinks = [Sink(tb, ns, PORTS, wd, idle=4, timeout=25, listing=True) for ns in tb.sink_ns]
    uf = Udpfan(tb, config(tb, before), wd)
    assert uf.wait_stats(lambda s: all(d["state"] == "reachable"
                                       for d in s["destinations"]), 15), uf.latest()
    sender = send(tb, COUNT, RATE, size=32, wait=False)
    time.sleep(SECONDS / 3)
    tmp = uf.cfg + ".new"
    with open(tmp, "w") as f:
        f.write(after_text)
    os.rename(tmp, uf.cfg)  # as an editor or a ConfigMap update does
    answer = None
    if how == "hup":
        uf.proc.send_signal(signal.SIGHUP)
        if twice:
            uf.proc.send_signal(signal.SIGHUP)
    else:
        answer = telemetry("/udpfan/reload")
    sender.communicate(timeout=SECONDS + 60)
    res = [finish(s) for s in sinks]
    st = uf.stop()  # SIGTERM; the final object's ledger is checked
    return res, st, uf.logtext(), answer


def whole(r):
    """every datagram, exactly once"""
    assert r["received"] == COUNT and r["distinct"] == COUNT and r["duplicates"] == 0, \
        {k: v for k, v in r.items() if k != "seq_list"}


def suffix(r):
    """from its first datagram to the last one sent, none missing"""
    seqs = r["seq_list"]
    assert seqs and seqs[-1] == COUNT - 1, "nothing, or not to the end: %d" % len(seqs)
    assert len(seqs) == COUNT - seqs[0] and r["duplicates"] == 0, \
        "gaps after the first: %d of %d" % (len(seqs), COUNT - seqs[0])
    assert COUNT * 0.2 < len(seqs) < COUNT, len(seqs)


def prefix(r):
    """from the first datagram to its last one, none missing"""
    seqs = r["seq_list"]
    assert seqs and seqs[0] == 0 and len(seqs) == seqs[-1] + 1, "gaps in the prefix"
    assert COUNT * 0.1 < len(seqs) < COUNT, len(seqs)


def nothing(r):
    assert r["received"] == 0, {k: v for k, v in r.items() if k != "seq_list"}


def dests_add_up(st):
    """the listed destinations' counts and the removed ones' make the fwd totals"""
    f, rm = st["fwd"], st["reload"]["removed"]
    assert sum(d["tx_ok"] for d in st["destinations"]) + rm["tx_ok"] == f["tx_ok"], (st, rm)
    assert sum(d["sampled_out"] for d in st["destinations"]) + rm["sampled_out"] == \
        f["sampled_out"]


def case_add_destination():
    """SIGHUP twice in a row: one more destination; the two that were there lose nothing"""
    wd = tmpdir()
    with Testbed(prefix="ufr", sinks=3) as tb:
        res, st, log, _ = run(tb, wd, [(0, 6000), (1, 6000)],
                              config(tb, [(0, 6000), (1, 6000), (2, 6000)]), twice=True)
    whole(res[0]["6000"])
    whole(res[1]["6000"])
    suffix(res[2]["6000"])
    assert "reload: applied" in log and "added" in log, log
    rl = st["reload"]
    assert rl["last"] in ("applied",) and rl["generation"] == 1, rl
    assert rl["applied"] >= 1 and rl["refused"] == 0 and rl["invalid"] == 0, rl
    assert [d["state"] for d in st["destinations"]] == ["reachable"] * 3, st["destinations"]
    # the kept destinations' counters ran on: every copy since the start
    assert [d["tx_ok"] for d in st["destinations"][:2]] == [COUNT, COUNT], st["destinations"]
    assert st["destinations"][2]["tx_ok"] == res[2]["6000"]["distinct"], st["destinations"]
    dests_add_up(st)


def case_remove_destination():
    wd = tmpdir()
    with Testbed(prefix="ufr", sinks=3) as tb:
        res, st, log, _ = run(tb, wd, [(0, 6000), (1, 6000), (2, 6000)],
                              config(tb, [(0, 6000), (2, 6000)]))
    whole(res[0]["6000"])
    whole(res[2]["6000"])
    prefix(res[1]["6000"])
    assert "removed" in log, log
    assert st["reload"]["generation"] == 1 and len(st["destinations"]) == 2, st["reload"]
    # what the removed one got is in reload.removed, and with the others in fwd.tx_ok
    assert st["reload"]["removed"]["tx_ok"] == res[1]["6000"]["distinct"], st["reload"]
    assert [d["tx_ok"] for d in st["destinations"]] == [COUNT, COUNT], st["destinations"]
    dests_add_up(st)


def case_change_udp_port():
    """a destination's udp_port changes: every datagram reaches it on one port or the other"""
    wd = tmpdir()
    with Testbed(prefix="ufr", sinks=3) as tb:
        res, st, log, _ = run(tb, wd, [(0, 6000), (1, 6000)],
                              config(tb, [(0, 6000), (1, 7000)]))
    whole(res[0]["6000"])
    prefix(res[1]["6000"])
    suffix(res[1]["7000"])
    old, new = set(res[1]["6000"]["seq_list"]), set(res[1]["7000"]["seq_list"])
    assert not old & new and len(old | new) == COUNT, (len(old), len(new))
    nothing(res[2]["6000"])
    assert st["reload"]["applied"] == 1 and st["reload"]["generation"] == 1, st["reload"]
    dests_add_up(st)


def case_refused_port_change():
    """ports[] changes (with a destination added): refused whole; the old plan forwards"""
    wd = tmpdir()
    with Testbed(prefix="ufr", sinks=3) as tb:
        res, st, log, _ = run(tb, wd, [(0, 6000), (1, 6000)],
                              config(tb, [(0, 6000), (1, 6000), (2, 6000)], mtu=1400))
    whole(res[0]["6000"])
    whole(res[1]["6000"])
    nothing(res[2]["6000"])
    assert "reload: refused, needs a restart: ports[0].mtu; the running config stays" in log, log
    rl = st["reload"]
    assert rl["refused"] == 1 and rl["applied"] == 0 and rl["last"] == "refused", rl
    assert rl["generation"] == 0 and "ports[0].mtu" in rl["reason"], rl


def case_broken_file():
    """a file that does not parse: refused with FILE:LINE:COL; the old plan forwards"""
    wd = tmpdir()
    with Testbed(prefix="ufr", sinks=3) as tb:
        good = config(tb, [(0, 6000), (1, 6000), (2, 6000)])
        broken = good.replace("udp_port: 5000 }", "udp_port: 5000", 1)  # an unclosed {
        res, st, log, _ = run(tb, wd, [(0, 6000), (1, 6000)], broken)
        path = os.path.join(wd, "udpfan.yaml")
    whole(res[0]["6000"])
    whole(res[1]["6000"])
    nothing(res[2]["6000"])
    line = [x for x in log.splitlines() if "reload: refused, the file is invalid" in x]
    assert line and ("%s:" % path) in line[0], log
    where = line[0].split(path + ":", 1)[1].split(":")
    assert where[0].isdigit() and where[1].isdigit(), line[0]
    rl = st["reload"]
    assert rl["invalid"] == 1 and rl["last"] == "invalid" and rl["generation"] == 0, rl


def case_telemetry_reload():
    """/udpfan/reload answers with the result once the new plan runs"""
    wd = tmpdir()
    with Testbed(prefix="ufr", sinks=3) as tb:
        res, st, log, ans = run(tb, wd, [(0, 6000), (1, 6000)],
                                config(tb, [(0, 6000), (1, 6000), (2, 6000)]), how="tel")
    assert ans["result"] == "applied" and ans["generation"] == 1, ans
    assert "destinations[2]" in ans["reason"] and "added" in ans["reason"], ans
    whole(res[0]["6000"])
    whole(res[1]["6000"])
    suffix(res[2]["6000"])
    dests_add_up(st)


def main():
    s = Suite(root=True)
    s.run(case_add_destination)
    s.run(case_remove_destination)
    s.run(case_change_udp_port)
    s.run(case_refused_port_change)
    s.run(case_broken_file)
    s.run(case_telemetry_reload)
    s.finish()


if __name__ == "__main__":
    main()
