#!/usr/bin/env python3
"""e2e: DPDK telemetry as an operator reads it (dpdk-telemetry.py), and the port-reset path.

/udpfan/stats answers the same counters as the stats JSON, /udpfan/ports the NIC counters,
/udpfan/neighbors the ARP table; /udpfan/port_reset,lan runs what a device reset event
(ENA, iavf) runs: workers pause, the port is reset and reconfigured, forwarding resumes,
the ledger still holds."""
import json
import subprocess
import time

from testbed import FWD_IP, Testbed
from uflive import Sink, Udpfan, dest_lines, send
from ufrun import Suite, need_root, tmpdir

PREFIX = "uftel"


def telemetry(*cmds):
    """ask dpdk-telemetry.py (as an operator would) and return the answers, in order"""
    r = subprocess.run(["dpdk-telemetry.py", "-f", PREFIX], input="\n".join(cmds) + "\n",
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=20)
    out, dec, i = [], json.JSONDecoder(), 0
    text = r.stdout
    while True:
        j = text.find("{", i)
        if j < 0:
            break
        obj, end = dec.raw_decode(text, j)
        out.append(obj)
        i = end
    # the first object is the socket's greeting
    return [o for o in out if "version" not in o or len(o) > 3][-len(cmds):]


def case_telemetry_and_reset(kind):
    wd = tmpdir()
    rate, seconds = 2000, 8
    with Testbed(prefix="uft", sinks=2) as tb:
        cfg = """eal: { lcores: "0-1", file_prefix: %s }
ports:
  - { name: lan, device: "%s", ip: %s/24 }
listen: { port: lan, udp_port: 5000 }
destinations:
%s
stats: { interval_s: 0.5 }
""" % (PREFIX, tb.vdev(kind), FWD_IP, dest_lines(tb))
        sinks = [Sink(tb, ns, [6000], wd, idle=seconds) for ns in tb.sink_ns]
        uf = Udpfan(tb, cfg, wd)
        assert uf.wait_stats(lambda s: all(d["state"] == "reachable"
                                           for d in s["destinations"]), 10), uf.latest()
        sender = send(tb, rate * seconds, rate, size=32, wait=False)
        time.sleep(2)
        stats, ports, neigh = telemetry("/udpfan/stats", "/udpfan/ports", "/udpfan/neighbors")
        s = stats["/udpfan/stats"]
        assert s["fwd"]["rx"] > 0 and s["fwd"]["forwarded"] > 0, s["fwd"]
        assert set(s["fwd"]["drop"]) >= {"not_ipv4", "malformed", "no_neighbor"}, s["fwd"]
        assert s["ports"]["lan"]["driver"] == "net_" + kind, s["ports"]
        assert "1" in s["lcores"], s["lcores"]
        assert ports["/udpfan/ports"]["lan"]["ipackets"] > 0, ports
        n = neigh["/udpfan/neighbors"]
        assert n["count"] == 2, n
        dl = [n["destinations"][str(i)] for i in range(2)]
        assert [d["ip"] for d in dl] == tb.sink_ip, dl
        assert all(d["state"] == "reachable" for d in dl), dl
        assert [d["mac"] for d in dl] == tb.sink_mac, dl
        assert s["destinations"]["0"]["ip"] == tb.sink_ip[0], s["destinations"]
        # a device reset, as ENA raises one: pause, reset, reconfigure, resume
        (ack,) = telemetry("/udpfan/port_reset,lan")
        assert ack["/udpfan/port_reset"] == {"reset_requested": "lan"}, ack
        assert uf.wait_stats(lambda st: st["ports"]["lan"]["resets"] == 1, 10), uf.latest()
        sender.communicate(timeout=seconds + 30)
        res = [sk.result()["6000"] for sk in sinks]
        st = uf.stop()
    assert st["ports"]["lan"]["resets"] == 1
    total = rate * seconds
    for r in res:
        assert r["max_seq"] == total - 1, "forwarding did not resume after the reset: %r" % r
        # what arrived while the port was down is lost at the interface, not by udpfan
        assert r["distinct"] >= total * 0.8, r
    assert "reset done, forwarding again" in uf.logtext()


def main():
    need_root()
    s = Suite()
    for kind in ("af_packet", "af_xdp"):
        s.run(case_telemetry_and_reset, kind)
    s.finish()


if __name__ == "__main__":
    main()
