#!/usr/bin/env python3
"""e2e: DPDK telemetry as an operator reads it (dpdk-telemetry.py), and the port-reset path.

/udpfan/stats answers the same counters as the stats JSON, /udpfan/ports the NIC counters,
/udpfan/neighbors the ARP table; /udpfan/port_reset,lan runs what a device reset event
(ENA, iavf) runs: the port's queues are quiesced, it is reset and reconfigured, forwarding
resumes, the ledger still holds."""
import json
import subprocess
import sys
import time

from testbed import FWD_IP, Testbed
from uflive import Sink, Udpfan, dest_lines, send
from ufrun import Suite, tmpdir

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
        # a device reset, as ENA raises one: quiesce the port, reset, reconfigure, resume
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


def case_exporter():
    """scripts/udpfan-exporter.py serves the counters in Prometheus' text format; a scrape
    parsed with prometheus_client's own parser agrees with udpfan's stats"""
    import os
    import urllib.request

    from prometheus_client.parser import text_string_to_metric_families

    from ufrun import UF_SRC

    wd = tmpdir()
    count = 1500
    port = 19917
    with Testbed(prefix="uft", sinks=2) as tb:
        cfg = """eal: { lcores: "0-1", file_prefix: %s }
ports:
  - { name: lan, device: "%s", ip: %s/24 }
listen: { port: lan, udp_port: 5000 }
destinations:
%s
  - { ip: 198.18.0.99, udp_port: 6000 }
stats: { interval_s: 0.5 }
arp: { retry_ms: 50, max_probes: 2 }
""" % (PREFIX, tb.vdev("af_xdp"), FWD_IP, dest_lines(tb))
        uf = Udpfan(tb, cfg, wd)
        exp = subprocess.Popen([sys.executable, os.path.join(UF_SRC, "scripts",
                                                             "udpfan-exporter.py"),
                                "--file-prefix", PREFIX, "--listen", "127.0.0.1:%d" % port],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            exp.stdout.readline()
            send(tb, count, 4000, size=32)
            assert uf.wait_stats(lambda st: st["fwd"]["forwarded"] == count, 10)
            time.sleep(1.2)  # two quiet intervals: telemetry and the file agree
            body = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port,
                                          timeout=5).read().decode()
            st = uf.latest()
        finally:
            exp.terminate()
            exp.wait(timeout=10)
        uf.stop()
    fams = {f.name: f for f in text_string_to_metric_families(body)}

    def val(name, **labels):
        for smp in fams[name].samples:
            if smp.name.endswith("_total") or smp.name == name:
                if all(smp.labels.get(k) == v for k, v in labels.items()):
                    return smp.value
        raise KeyError((name, labels))

    assert val("udpfan_up") == 1
    # health: ready (one-hot), not degraded (two of the three destinations resolve)
    assert val("udpfan_health_state", state="ready") == 1, body[:2000]
    assert val("udpfan_health_state", state="draining") == 0
    assert val("udpfan_degraded") == 0 and val("udpfan_drain_seconds") == 0
    assert st["health"]["state"] == "ready" and st["health"]["degraded"] is False, st["health"]
    assert val("udpfan_forwarded") == count == st["fwd"]["forwarded"], body[:2000]
    assert val("udpfan_tx_ok") == st["fwd"]["tx_ok"]
    assert val("udpfan_tx_drop", reason="no_neighbor") == st["fwd"]["tx_drop"]["no_neighbor"] > 0
    assert val("udpfan_drop", reason="not_for_us") == st["fwd"]["drop"]["not_for_us"]
    assert val("udpfan_port_ipackets", port="lan", driver="net_af_xdp") == \
        st["ports"]["lan"]["ipackets"]
    assert val("udpfan_destination_resolved", index="2", ip="198.18.0.99") == 0
    assert val("udpfan_destination_tx_ok", index="0") == count
    assert 0 <= val("udpfan_lcore_busy_ratio", lcore="1") <= 1


def main():
    s = Suite(root=True)
    for kind in ("af_packet", "af_xdp"):
        s.run(case_telemetry_and_reset, kind)
    s.run(case_exporter)
    s.finish()


if __name__ == "__main__":
    main()
