#!/usr/bin/env python3
"""e2e: several listeners in one udpfan over veth (docs/configuration.md#listeners), kernel
defaults. Each listener has its own UDP port and destinations; a stream sent to one reaches
its own destinations only (no cross-delivery: each stream has its own sequence range and
each destination its own UDP port at the sinks), with zero loss, and the ledger holds per
listener and in total. The three-listener case adds one on an address of its own on the same
port (the sender has a static neighbour entry for it: udpfan answers ARP for the port's own
address only) whose destinations share the egress port and a sink with the others; UDP to a
port no listener has is not_for_us. A destination moved to another listener by a reload
gets that listener's datagrams afterwards, as a fresh start with the file would route them.
"""
import os
import signal

from testbed import FWD_IP, Testbed
from uflive import Sink, Udpfan, send
from ufrun import Suite, tmpdir

COUNT = 2000
B_SEQ = 1000000  # the second stream's sequence numbers start here
C_SEQ = 2000000


def lis_ledger(st):
    """the identities per listener, and the listeners against the totals"""
    f = st["fwd"]
    for li in st["listeners"]:
        drops = (li["drop_no_rule"] + li["drop_too_big"] + li["drop_no_neighbor"]
                 + li["drop_nombuf"])
        assert li["rx"] == li["forwarded"] + drops, li
        assert li["fanout"] == li["copies_attempted"] + li["sampled_out"], li
        assert li["copies_attempted"] == li["tx_ok"] + li["tx_drop"], li
    for k in ("forwarded", "fanout", "copies_attempted", "sampled_out"):
        assert sum(li[k] for li in st["listeners"]) == f[k], (k, st["listeners"], f)
    assert sum(li["tx_ok"] for li in st["listeners"]) == f["tx_ok"], (st["listeners"], f)


def stream(res, port, lo, n):
    """exactly n distinct datagrams from [lo, lo + n) on `port`, nothing else"""
    r = res[str(port)]
    assert r["distinct"] == n and r["duplicates"] == 0, (port, r)
    assert r["seq_list"][0] == lo and r["seq_list"][-1] == lo + n - 1, (port, r["seq_list"][:3])


def case_two_listeners(kind):
    wd = tmpdir()
    with Testbed(prefix="ufl", sinks=3) as tb:
        s = tb.sink_ip
        cfg = """eal: { lcores: "0-1", file_prefix: uflis }
ports:
  - { name: lan, device: "%s", ip: %s/24 }
listeners:
  - name: netflow
    port: lan
    udp_port: 5000
    destinations:
      - { ip: %s, udp_port: 6000 }
      - { ip: %s, udp_port: 6000 }
  - name: sflow
    port: lan
    udp_port: 5001
    destinations:
      - { ip: %s, udp_port: 6001 }
      - { ip: %s, udp_port: 6001, source: original }
stats: { interval_s: 0.5 }
""" % (tb.vdev(kind), FWD_IP, s[0], s[1], s[1], s[2])
        sinks = [Sink(tb, tb.sink_ns[0], [6000, 6001], wd, listing=True),
                 Sink(tb, tb.sink_ns[1], [6000, 6001], wd, listing=True),
                 Sink(tb, tb.sink_ns[2], [6000, 6001], wd, listing=True)]
        uf = Udpfan(tb, cfg, wd)
        assert uf.wait_stats(lambda st: all(d["state"] == "reachable"
                                            for d in st["destinations"]), 10), uf.latest()
        tb.nsx(tb.ns_src, "ping -c 1 -W 2 %s" % FWD_IP, check=False)
        a = send(tb, COUNT, 4000, port=5000, size=40, sport=41000, wait=False)
        b = send(tb, COUNT, 4000, port=5001, size=40, sport=42000, start_seq=B_SEQ,
                 wait=False)
        a.communicate(timeout=60)
        b.communicate(timeout=60)
        send(tb, 100, 4000, port=5002, size=40, sport=43000)  # no listener: not_for_us
        res = [sk.result() for sk in sinks]
        st = uf.stop()
    f = st["fwd"]
    assert f["forwarded"] == 2 * COUNT and f["tx_ok"] == 4 * COUNT, f
    assert f["drop"]["not_for_us"] >= 100, f["drop"]
    assert sum(f["tx_drop"].values()) == 0, f["tx_drop"]
    # netflow's stream on 6000 at sinks 0 and 1 only; sflow's on 6001 at sinks 1 and 2 only
    stream(res[0], 6000, 0, COUNT)
    stream(res[1], 6000, 0, COUNT)
    stream(res[1], 6001, B_SEQ, COUNT)
    stream(res[2], 6001, B_SEQ, COUNT)
    assert res[0]["6001"]["received"] == 0 and res[2]["6000"]["received"] == 0, res
    # source: original on sflow's second destination: the sender's port
    assert list(res[2]["6001"]["senders"]) == ["198.18.0.2:42000"], res[2]["6001"]["senders"]
    lis = {li["name"]: li for li in st["listeners"]}
    assert lis["netflow"]["rx"] == COUNT and lis["netflow"]["tx_ok"] == 2 * COUNT, lis
    assert lis["sflow"]["rx"] == COUNT and lis["sflow"]["tx_ok"] == 2 * COUNT, lis
    assert lis["sflow"]["udp_port"] == 5001 and lis["sflow"]["port"] == "lan", lis
    lis_ledger(st)


def case_three_listeners_shared_egress():
    """NetFlow, sFlow and a syslog listener on an address of its own on the same port,
    their destinations leaving through that one port to a shared sink"""
    wd = tmpdir()
    own = "198.18.0.14"
    with Testbed(prefix="ufl3", sinks=2) as tb:
        s = tb.sink_ip
        # udpfan answers ARP for the port's own IP only: a static entry for the other
        tb.nsx(tb.ns_src, "ip neigh replace %s lladdr %s dev src0 nud permanent" %
               (own, tb.fwd_mac))
        cfg = """eal: { lcores: "0-1", file_prefix: uflis3 }
ports:
  - { name: lan, device: "%s", ip: %s/24 }
listeners:
  - { name: netflow, port: lan, udp_port: 2055,
      destinations: [ { ip: %s, udp_port: 6000 } ] }
  - { name: sflow, port: lan, udp_port: 6343,
      destinations: [ { ip: %s, udp_port: 6001 } ] }
  - { name: syslog, port: lan, udp_port: 2055, ip: %s,
      destinations: [ { ip: %s, udp_port: 6002 }, { ip: %s, udp_port: 6002 } ] }
stats: { interval_s: 0.5 }
""" % (tb.vdev("af_packet"), FWD_IP, s[0], s[0], own, s[0], s[1])
        sinks = [Sink(tb, ns, [6000, 6001, 6002], wd, listing=True) for ns in tb.sink_ns]
        uf = Udpfan(tb, cfg, wd)
        assert uf.wait_stats(lambda st: all(d["state"] == "reachable"
                                            for d in st["destinations"]), 10), uf.latest()
        tb.nsx(tb.ns_src, "ping -c 1 -W 2 %s" % FWD_IP, check=False)
        send(tb, COUNT, 4000, port=2055, size=40, sport=41000)
        send(tb, COUNT, 4000, port=6343, size=40, sport=42000, start_seq=B_SEQ)
        # the same UDP port as netflow, to syslog's own address
        send(tb, COUNT, 4000, port=2055, size=40, sport=43000, start_seq=C_SEQ, dst=own)
        res = [sk.result() for sk in sinks]
        st = uf.stop()
    f = st["fwd"]
    assert f["forwarded"] == 3 * COUNT and f["tx_ok"] == 4 * COUNT, f
    assert sum(f["tx_drop"].values()) == 0, f["tx_drop"]
    stream(res[0], 6000, 0, COUNT)
    stream(res[0], 6001, B_SEQ, COUNT)
    stream(res[0], 6002, C_SEQ, COUNT)
    stream(res[1], 6002, C_SEQ, COUNT)
    assert res[1]["6000"]["received"] == 0 and res[1]["6001"]["received"] == 0, res[1]
    lis = {li["name"]: li for li in st["listeners"]}
    assert [lis[n]["rx"] for n in ("netflow", "sflow", "syslog")] == [COUNT] * 3, lis
    assert lis["syslog"]["ip"] == own and lis["syslog"]["tx_ok"] == 2 * COUNT, lis
    lis_ledger(st)


def case_reload_moves_destination():
    """SIGHUP after one destination moved from netflow to sflow (its place in the file's
    order the same) and sflow got rules, the sender's sending it to that one alone: the reload
    applies both, and then netflow's stream no longer reaches it, sflow's does and only
    there, as a fresh start with the new file would route them
    (docs/configuration.md#reload)"""
    wd = tmpdir()
    with Testbed(prefix="ufm", sinks=3) as tb:
        s = tb.sink_ip
        text = """eal: { lcores: "0-1", file_prefix: uflism }
ports:
  - { name: lan, device: "%s", ip: %s/24 }
listeners:
  - name: netflow
    port: lan
    udp_port: 5000
    destinations:
      - { ip: %s, udp_port: 6000 }
%s  - name: sflow
    port: lan
    udp_port: 5001
    destinations:
%s      - { ip: %s, udp_port: 6001 }
%sstats: { interval_s: 0.5 }
"""
        moved = "      - { ip: %s, udp_port: 6000 }\n" % s[1]
        # the sender matches the second rule only: a plan view without the listener's
        # rule table would send everything to the first rule's set (sink 2)
        rule = ("    rules:\n      - { from: 203.0.113.0/24, to: [1] }\n"
                "      - { from: 198.18.0.2/32, to: [0] }\n")
        before = text % (tb.vdev("af_packet"), FWD_IP, s[0], moved, "", s[2], "")
        after = text % (tb.vdev("af_packet"), FWD_IP, s[0], "", moved, s[2], rule)
        # a sink the move leaves without a datagram waits its timeout for a first one: 40 s
        # covers start-up, resolution and the reload (at most 20 s) before the sends
        sinks = [Sink(tb, ns, [6000, 6001], wd, timeout=40, listing=True)
                 for ns in tb.sink_ns]
        uf = Udpfan(tb, before, wd)
        assert uf.wait_stats(lambda st: all(d["state"] == "reachable"
                                            for d in st["destinations"]), 10), uf.latest()
        tmp = uf.cfg + ".new"
        with open(tmp, "w") as f:
            f.write(after)
        os.rename(tmp, uf.cfg)
        uf.proc.send_signal(signal.SIGHUP)
        assert uf.wait_stats(lambda st: st["reload"]["generation"] == 1, 10), \
            (uf.latest()["reload"], uf.logtext())
        tb.nsx(tb.ns_src, "ping -c 1 -W 2 %s" % FWD_IP, check=False)
        send(tb, COUNT, 4000, port=5000, size=40, sport=41000)
        send(tb, COUNT, 4000, port=5001, size=40, sport=42000, start_seq=B_SEQ)
        res = [sk.result() for sk in sinks]
        st = uf.stop()
        with open(uf.log) as f:
            log = "".join(x for x in f if "reload:" in x)  # the whole file's reload lines
    assert "destinations[1].listener" in log and "rules[0] added" in log, log
    rl = st["reload"]
    assert rl["applied"] == 1 and rl["last"] == "applied" and rl["generation"] == 1, rl
    # netflow: sink 0 only; sflow: its rule's one destination, the moved one (sink 1)
    stream(res[0], 6000, 0, COUNT)
    stream(res[1], 6000, B_SEQ, COUNT)
    assert res[0]["6001"]["received"] == 0 and res[2]["6001"]["received"] == 0, res
    assert res[2]["6000"]["received"] == 0, res
    lis = {li["name"]: li for li in st["listeners"]}
    assert lis["netflow"]["tx_ok"] == COUNT and lis["sflow"]["tx_ok"] == COUNT, lis
    assert lis["sflow"]["drop_no_rule"] == 0, lis
    lis_ledger(st)


def main():
    s = Suite(root=True)
    for kind in ("af_xdp", "af_packet"):
        s.run(case_two_listeners, kind)
    s.run(case_three_listeners_shared_egress)
    s.run(case_reload_moves_destination)
    s.finish()


if __name__ == "__main__":
    main()
