#!/usr/bin/env python3
"""e2e: service addresses (docs/configuration.md#service-addresses) on the veth test bed,
the kernel as every peer, at its default offloads (the sender's datagrams reach udpfan with a
partial checksum) and no static neighbour entry anywhere.

routed: the design of a fleet behind a router: the sender routes each service address (IPv4
and IPv6) via udpfan's own address, so it resolves only that one; the datagrams to the
service addresses are delivered, to the listener on the port's own address of their family,
or to the listener that names a service address as its ip; copies leave from the port's
own address, or from a service address named as a destination's `source`. Then the sender puts the service
addresses on its link: with `neighbor: silent` udpfan answers neither ARP nor NS for them
(counted as arp.ignored, ndp.ignored), while ping to them is answered (via the route).
answer: the service addresses are on the sender's link (`neighbor: answer`): its kernel
resolves them by ARP and NDP itself, and sends; delivered.
reload: SIGHUP adds a service address, then removes it: datagrams to it go from
not_for_us to delivered and back, without a restart. The sinks' kernels refuse no copy (their
checksums derived through the redirect) and the ledger holds on the final stats.
"""
import os
import signal
import time

from testbed import FWD_IP, FWD_IP6, Testbed
from uflive import Sink, Udpfan, send
from ufrun import Suite, tmpdir

N = 1000
RATE = 4000
SVC = "198.51.100.100"
SVC2 = "198.51.100.101"
SVC6 = "2001:db8:ff::100"


def port_line(tb, kind, service):
    return '  - { name: lan, device: "%s", ip: %s/24, ip6: ["%s/64"]%s }' % (
        tb.vdev(kind), FWD_IP, FWD_IP6, ", service: %s" % service if service else "")


def wait_reachable(uf):
    assert uf.wait_stats(lambda s: all(d["state"] == "reachable" for d in s["destinations"]),
                         10), (uf.latest()["destinations"], uf.logtext())


def exactly(r, n):
    assert r["received"] == n and r["distinct"] == n and r["duplicates"] == 0, r


def case_routed(kind):
    """neighbor: silent; listeners on the port's own v4 and v6 address and one on SVC2"""
    wd = tmpdir()
    with Testbed(prefix="ufsv", sinks=2, ipv6=True) as tb:
        s = tb.sink_ip
        cfg = """eal: { lcores: "0-1", file_prefix: ufsvc }
ports:
%s
listeners:
  - { name: v4, port: lan, udp_port: 5000, destinations: [ { ip: %s, udp_port: 6000 } ] }
  - { name: v6, port: lan, udp_port: 5000, ip: "%s",
      destinations: [ { ip: %s, udp_port: 6001 } ] }
  - { name: named, port: lan, udp_port: 5000, ip: %s,
      destinations: [ { ip: %s, udp_port: 6002, source: %s } ] }
stats: { interval_s: 0.5 }
""" % (port_line(tb, kind, '[%s, %s, "%s"]' % (SVC, SVC2, SVC6)), s[0], FWD_IP6, s[1], SVC2,
            s[0], SVC2)
        tb.nsx(tb.ns_src, "ip route add %s/32 via %s" % (SVC, FWD_IP))
        tb.nsx(tb.ns_src, "ip route add %s/32 via %s" % (SVC2, FWD_IP))
        tb.nsx(tb.ns_src, "ip -6 route add %s/128 via %s" % (SVC6, FWD_IP6))
        sinks = [Sink(tb, tb.sink_ns[0], [6000, 6002], wd, listing=True),
                 Sink(tb, tb.sink_ns[1], [6001], wd)]
        uf = Udpfan(tb, cfg, wd)
        wait_reachable(uf)
        for dst in (SVC, SVC2, SVC6):
            out = send(tb, N, RATE, port=5000, size=40, dst=dst)
            assert out["sent"] == N, out
        # ping to a service address, through the route: answered from it
        ping = tb.nsx(tb.ns_src, "ping -c 2 -i 0.2 -W 1 %s" % SVC, check=False, capture=True)
        assert " 0% packet loss" in ping, ping
        # the addresses on the sender's link: neither ARP nor NDP is answered (silent)
        tb.nsx(tb.ns_src, "ip route replace %s/32 dev src0" % SVC)
        tb.nsx(tb.ns_src, "ip -6 route replace %s/128 dev src0" % SVC6)
        tb.nsx(tb.ns_src, "ping -c 2 -i 0.5 -W 1 %s" % SVC, check=False)
        tb.nsx(tb.ns_src, "ping -6 -c 2 -i 0.5 -W 1 %s" % SVC6, check=False)
        n4 = tb.nsx(tb.ns_src, "ip neigh show %s" % SVC, capture=True)
        n6 = tb.nsx(tb.ns_src, "ip -6 neigh show %s" % SVC6, capture=True)
        res = [sk.result() for sk in sinks]
        st = uf.stop()
    assert tb.fwd_mac not in n4 and tb.fwd_mac not in n6, (n4, n6)
    exactly(res[0]["6000"], N)
    exactly(res[1]["6001"], N)
    exactly(res[0]["6002"], N)
    # copies leave from the port's own address; `source:` may name a service address
    assert {k.rsplit(":", 1)[0] for k in res[0]["6000"]["senders"]} == {FWD_IP}, res[0]
    assert {k.rsplit(":", 1)[0] for k in res[0]["6002"]["senders"]} == {SVC2}, res[0]
    f = st["fwd"]
    assert f["forwarded"] == 3 * N and f["tx_ok"] == 3 * N, f
    assert sum(f["tx_drop"].values()) == 0, f["tx_drop"]
    lis = {li["name"]: li for li in st["listeners"]}
    assert [lis[n]["rx"] for n in ("v4", "v6", "named")] == [N] * 3, lis
    assert st["arp"]["ignored"] >= 1 and st["ndp"]["ignored"] >= 1, (st["arp"], st["ndp"])
    assert st["icmp"]["echo_answered"] >= 2, st["icmp"]


def case_answer(kind):
    """neighbor: answer; the service addresses on the sender's link, resolved by its kernel"""
    wd = tmpdir()
    with Testbed(prefix="ufsa", sinks=1, ipv6=True) as tb:
        cfg = """eal: { lcores: "0-1", file_prefix: ufsva }
ports:
%s
listeners:
  - { name: v4, port: lan, udp_port: 5000, destinations: [ { ip: %s, udp_port: 6000 } ] }
  - { name: v6, port: lan, udp_port: 5000, ip: "%s",
      destinations: [ { ip: %s, udp_port: 6001 } ] }
stats: { interval_s: 0.5 }
""" % (port_line(tb, kind, '[{ ip: %s, neighbor: answer }, { ip: "%s", neighbor: answer }]' %
                 (SVC, SVC6)), tb.sink_ip[0], FWD_IP6, tb.sink_ip[0])
        tb.nsx(tb.ns_src, "ip route add %s/32 dev src0" % SVC)
        tb.nsx(tb.ns_src, "ip -6 route add %s/128 dev src0" % SVC6)
        sink = Sink(tb, tb.sink_ns[0], [6000, 6001], wd)
        uf = Udpfan(tb, cfg, wd)
        wait_reachable(uf)
        for dst in (SVC, SVC6):
            out = send(tb, N, RATE, port=5000, size=40, dst=dst)
            assert out["sent"] == N, out
        n4 = tb.nsx(tb.ns_src, "ip neigh show %s" % SVC, capture=True)
        n6 = tb.nsx(tb.ns_src, "ip -6 neigh show %s" % SVC6, capture=True)
        res = sink.result()
        st = uf.stop()
    assert tb.fwd_mac in n4 and tb.fwd_mac in n6, (n4, n6)
    exactly(res["6000"], N)
    exactly(res["6001"], N)
    assert st["fwd"]["forwarded"] == 2 * N, st["fwd"]
    assert st["arp"]["requests_answered"] >= 1 and st["ndp"]["ns_answered"] >= 1, \
        (st["arp"], st["ndp"])


def case_reload():
    """a service address added by a reload, then removed: not_for_us, delivered,
    not_for_us (the one-listener form)"""
    wd = tmpdir()
    with Testbed(prefix="ufsr", sinks=1) as tb:
        text = """eal: { lcores: "0-1", file_prefix: ufsvr }
ports:
%s
listen: { port: lan, udp_port: 5000 }
destinations:
  - { ip: %s, udp_port: 6000 }
stats: { interval_s: 0.5 }
"""
        without = text % (port_line(tb, "af_xdp", ""), tb.sink_ip[0])
        with_svc = text % (port_line(tb, "af_xdp", "[%s]" % SVC), tb.sink_ip[0])
        tb.nsx(tb.ns_src, "ip route add %s/32 via %s" % (SVC, FWD_IP))
        sink = Sink(tb, tb.sink_ns[0], [6000], wd, listing=True)
        uf = Udpfan(tb, without, wd)
        wait_reachable(uf)
        nfu = []

        def phase(text, gen, seq):
            if text is not None:
                tmp = uf.cfg + ".new"
                with open(tmp, "w") as f:
                    f.write(text)
                os.rename(tmp, uf.cfg)
                uf.proc.send_signal(signal.SIGHUP)
                assert uf.wait_stats(lambda s: s["reload"]["generation"] == gen, 10), \
                    (uf.latest()["reload"], uf.logtext())
            out = send(tb, N, RATE, port=5000, size=40, dst=SVC, start_seq=seq)
            assert out["sent"] == N, out
            time.sleep(1.5)  # three stats intervals: the counts of this phase are in
            nfu.append(uf.latest()["fwd"]["drop"]["not_for_us"])

        phase(None, 0, 0)
        phase(with_svc, 1, 10000)
        phase(without, 2, 20000)
        res = sink.result()
        st = uf.stop()
    r = res["6000"]
    assert r["distinct"] == N and r["duplicates"] == 0, r
    assert r["seq_list"][0] == 10000 and r["seq_list"][-1] == 10000 + N - 1, r["seq_list"][:3]
    assert nfu[0] >= N and nfu[1] - nfu[0] < 10 and nfu[2] - nfu[1] >= N, nfu
    rl = st["reload"]
    assert rl["applied"] == 2 and rl["refused"] == 0, rl
    assert st["fwd"]["forwarded"] == N, st["fwd"]


def main():
    s = Suite(root=True)
    for kind in ("af_xdp", "af_packet"):
        s.run(case_routed, kind)
    s.run(case_answer, "af_packet")
    s.run(case_reload)
    s.finish()


if __name__ == "__main__":
    main()
