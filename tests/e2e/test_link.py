#!/usr/bin/env python3
"""e2e: link state and faults that stay on their port (docs/architecture.md#link-state).

udpfan with three ports on the veth bed (lan0 receives and sends, lan1 and lan2 send), one
sink behind each. Mid-run one egress port's link goes away for 3 s:

  - af_packet, udpfan's own interface set down: tx_burst takes nothing (the kernel refuses
    the socket's sends), which used to hold the worker on that port while the ingress ring
    overflowed and every destination lost datagrams;
  - af_xdp, the far end of its veth set down (carrier lost): the PMD keeps saying "up" and
    the kernel drops what it sends.

Either way: the healthy destinations receive every datagram, the dead port's copies are
counted as tx_drop.link_down (not ring_full), `link_up` goes false in the stats and the
down and up are logged, and the port's sink receives again once the link is back."""
import re
import time

from testbed import FWD_IP, SRC_IP, Testbed
from uflive import Sink, Udpfan, send
from ufrun import Suite, tmpdir


def config(tb, kind):
    ports = ["  - { name: lan0, device: \"%s\", ip: %s/24 }" % (tb.vdev(kind, port=0), FWD_IP)]
    for k, ip in enumerate(tb.egress_ip):
        ports.append("  - { name: lan%d, device: \"%s\", ip: %s/24 }" %
                     (k + 1, tb.vdev(kind, port=k + 1), ip))
    dests = ["  - { ip: %s, udp_port: 6000, port: lan%d, mac: \"%s\" }" %
             (ip, i, tb.sink_mac[i]) for i, ip in enumerate(tb.sink_ip)]
    return """eal: { lcores: "0-1", file_prefix: uflink }
ports:
%s
listen: { port: lan0, udp_port: 5000 }
destinations:
%s
stats: { interval_s: 0.25 }
""" % ("\n".join(ports), "\n".join(dests))


def case_dead_egress_port(kind, own):
    wd = tmpdir()
    rate, seconds = 10000, 9
    count = rate * seconds
    with Testbed(prefix="ufk", sinks=3, egress=2) as tb:
        tb.static_neighbours()
        # the bridge learns where the sinks are (else it floods every copy to every port)
        for ns in tb.sink_ns:
            tb.nsx(ns, "ping -c 1 -W 1 %s" % SRC_IP, check=False)
        sinks = [Sink(tb, ns, [6000], wd, idle=seconds + 5) for ns in tb.sink_ns]
        uf = Udpfan(tb, config(tb, kind), wd)
        assert uf.wait_stats(lambda s: all(p["link_up"] for p in s["ports"].values()), 10), \
            uf.latest()
        sender = send(tb, count, rate, size=32, wait=False)
        time.sleep(2.5)
        # lan2 dies: its own interface (the kernel refuses its sends), or the far end
        ns, ifname = (tb.ns_fwd, tb.egress_if[1]) if own else (tb.ns_br, tb.egress_peer[1])
        tb.link(ns, ifname, False)
        assert uf.wait_stats(lambda s: not s["ports"]["lan2"]["link_up"], 3), \
            "link down not seen: %r" % uf.latest()["ports"]["lan2"]
        # one destination of three behind a dead egress port: not degraded
        # (docs/deployment.md#health-and-drain)
        assert uf.latest()["health"]["state"] == "ready", uf.latest()["health"]
        assert not uf.latest()["health"]["degraded"], uf.latest()["health"]
        time.sleep(3)
        tb.link(ns, ifname, True)
        assert uf.wait_stats(lambda s: s["ports"]["lan2"]["link_up"], 3), \
            "link up not seen: %r" % uf.latest()["ports"]["lan2"]
        out, _ = sender.communicate(timeout=seconds + 60)
        res = [s.result()["6000"] for s in sinks]
        st = uf.stop()
        with open(uf.log) as fh:
            log = fh.read()
    f = st["fwd"]
    d = st["destinations"]
    print("sender %s; sinks %s; tx_drop %r; dests %r" % (
        out.strip(), [r["distinct"] for r in res], f["tx_drop"],
        [(x["tx_ok"], x["tx_drop"]) for x in d]))
    assert f["forwarded"] == count, "udpfan lost datagrams on the way in: %r" % f
    # the healthy destinations lose nothing: everything sent, everything received
    for i in (0, 1):
        assert d[i]["tx_drop"] == 0 and d[i]["tx_ok"] == count, d[i]
        assert res[i]["distinct"] == count, "healthy sink %d lost datagrams: %r" % (i, res[i])
    # the dead port's copies: counted as link_down, none as ring_full
    assert f["tx_drop"]["link_down"] > 0, f["tx_drop"]
    assert f["tx_drop"]["link_down"] <= d[2]["tx_drop"], (f["tx_drop"], d[2])
    assert f["tx_drop"]["ring_full"] <= rate // 50, \
        "more than 20 ms of the dead port's copies went to ring_full: %r" % f["tx_drop"]
    # about 3 s worth of copies, not all of the run's
    assert rate * 2 <= d[2]["tx_drop"] <= rate * 4, d[2]
    assert st["ports"]["lan2"]["link_downs"] == 1 and st["ports"]["lan2"]["link_up"], \
        st["ports"]["lan2"]
    assert res[2]["max_seq"] >= count - rate, "lan2's sink got nothing after: %r" % res[2]
    assert re.search(r"port lan2: link down", log), log
    assert re.search(r"port lan2: link up", log), log
    for p in ("lan0", "lan1"):
        assert "port %s: link down" % p not in log, log


def case_degraded_listen_port(kind):
    """the port udpfan listens on goes link-down: degraded, with the port as its reason,
    within a stats interval or two; up again: no longer degraded (docs/deployment.md#health-
    and-drain)"""
    wd = tmpdir()
    with Testbed(prefix="ufk", sinks=3, egress=2) as tb:
        tb.static_neighbours()
        uf = Udpfan(tb, config(tb, kind), wd)
        assert uf.wait_stats(lambda s: all(p["link_up"] for p in s["ports"].values()), 10), \
            uf.latest()
        assert uf.wait_stats(lambda s: s["health"]["state"] == "ready" and
                             not s["health"]["degraded"], 3), uf.latest()["health"]
        tb.link(tb.ns_fwd, tb.fwd_if, False)
        assert uf.wait_stats(lambda s: s["health"]["degraded"], 3), uf.latest()["health"]
        h = uf.latest()["health"]
        tb.link(tb.ns_fwd, tb.fwd_if, True)
        assert uf.wait_stats(lambda s: not s["health"]["degraded"], 5), uf.latest()["health"]
        st = uf.stop()
        log = uf.logtext()
    assert h["state"] == "ready" and h["reasons"] == ["port lan0: link down"], h
    assert "health: ready, degraded: port lan0: link down" in log, log[-2000:]
    assert "health: ready, no longer degraded" in log, log[-2000:]
    assert st["health"]["state"] == "stopping" and not st["health"]["degraded"], st["health"]


def main():
    s = Suite(root=True)
    s.run(case_dead_egress_port, "af_packet", True)
    s.run(case_dead_egress_port, "af_xdp", False)
    s.run(case_degraded_listen_port, "af_packet")
    s.finish()


if __name__ == "__main__":
    main()
