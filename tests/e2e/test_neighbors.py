#!/usr/bin/env python3
"""e2e: udpfan as a host on its segment, with no static neighbour entry anywhere.

The sender's kernel resolves udpfan's IP by ARP; udpfan resolves each sink by ARP, and the
far sink through a gateway namespace that routes to a second subnet; ping gets answers; an
ARP request for another IP gets none; a sink whose interface goes down mid-run is detected,
its copies are counted as no_neighbor while the other sinks lose nothing, and it is
re-resolved and receives again when it comes back.

case_resolve_all runs at the kernel's default offloads (the sender's datagrams arrive with a
partial checksum) and again with TX checksum offload off everywhere; the sinks' kernels must
refuse no copy either way (uflive.Sink)."""
import time

from testbed import FWD_IP, GW_IP, Testbed
from uflive import Sink, Udpfan, dest_lines, send
from ufrun import Suite, read_stats, tmpdir


def config(tb, kind, far=True, arp="reachable_s: 30"):
    far_line = "\n  - { ip: %s, udp_port: 6000 }" % tb.far_ip if far else ""
    return """eal: { lcores: "0-1", file_prefix: ufnb }
ports:
  - { name: lan, device: "%s", ip: %s/24, gateway: %s }
listen: { port: lan, udp_port: 5000 }
destinations:
%s%s
stats: { interval_s: 0.5 }
arp: { %s }
""" % (tb.vdev(kind), FWD_IP, GW_IP, dest_lines(tb), far_line, arp)


def case_resolve_all(kind, offload=True):
    wd = tmpdir()
    count = 2000
    with Testbed(prefix="ufn", sinks=3, far_sink=True, offload=offload) as tb:
        sinks = [Sink(tb, ns, [6000], wd) for ns in tb.sink_ns + [tb.ns_far]]
        uf = Udpfan(tb, config(tb, kind), wd)
        assert uf.wait_stats(lambda s: all(d["state"] == "reachable"
                                           for d in s["destinations"]), 10), uf.latest()
        ping = tb.nsx(tb.ns_src, "ping -c 3 -i 0.2 -W 1 %s" % FWD_IP, check=False,
                      capture=True)
        assert " 0% packet loss" in ping, ping
        # nobody has 198.18.0.77: udpfan must not answer for it
        tb.nsx(tb.ns_src, "ping -c 1 -W 1 198.18.0.77", check=False)
        neigh = tb.nsx(tb.ns_src, "ip neigh show 198.18.0.77", capture=True)
        assert tb.fwd_mac not in neigh, "udpfan answered ARP for another IP: %s" % neigh
        learned = tb.nsx(tb.ns_src, "ip neigh show %s" % FWD_IP, capture=True)
        assert tb.fwd_mac in learned, "the sender did not learn udpfan's MAC: %r" % learned
        send(tb, count, 4000, size=48)
        res = [s.result()["6000"] for s in sinks]
        st = uf.stop()
    for r in res:
        assert r["distinct"] == count and r["duplicates"] == 0, r
    far = st["destinations"][3]
    assert far["next_hop"] == GW_IP and far["mac"] == tb.gw_mac, far
    assert st["icmp"]["echo_answered"] >= 3, st["icmp"]
    assert st["arp"]["requests_answered"] >= 1 and st["arp"]["replies_learned"] >= 4, st["arp"]
    assert st["fwd"]["drop"]["not_for_us"] >= 1, "the ARP for .77 should be counted"
    assert st["fwd"]["csum_completed"] == (count if offload else 0), st["fwd"]


def case_sink_down_and_back(kind):
    """...and once the sink is back it is found within about one retry_ms: a FAILED
    neighbour is probed by unicast to its old MAC every retry_ms, not only by the broadcasts
    that back off to 8 x retry_ms"""
    wd = tmpdir()
    rate, seconds, retry_ms, interval = 2000, 14, 100, 0.1
    count = rate * seconds
    with Testbed(prefix="ufd", sinks=3) as tb:
        sinks = [Sink(tb, ns, [6000], wd, idle=seconds + 5) for ns in tb.sink_ns]
        arp = "reachable_s: 2, retry_ms: %d, max_probes: 3" % retry_ms
        uf = Udpfan(tb, config(tb, kind, far=False, arp=arp).replace(
            "interval_s: 0.5", "interval_s: %s" % interval), wd)
        assert uf.wait_stats(lambda s: all(d["state"] == "reachable"
                                           for d in s["destinations"]), 10), uf.latest()
        sender = send(tb, count, rate, size=32, wait=False)
        time.sleep(3)
        tb.link(tb.sink_ns[0], "sink0", False)
        assert uf.wait_stats(lambda s: s["destinations"][0]["state"] == "failed", 8), \
            "the dead sink was not detected: %r" % uf.latest()["destinations"][0]
        # long enough for the broadcasts to reach their longest backoff (8 x retry_ms)
        time.sleep(2.5)
        t_up = time.time()
        tb.link(tb.sink_ns[0], "sink0", True)
        assert uf.wait_stats(lambda s: s["destinations"][0]["state"] == "reachable", 5), \
            "the sink was not re-resolved: %r" % uf.latest()["destinations"][0]
        sender.communicate(timeout=seconds + 30)
        res = [s.result()["6000"] for s in sinks]
        st = uf.stop()
        objs = read_stats(uf.stats)
    d0 = st["destinations"][0]
    assert d0["no_neighbor"] > 0 and st["fwd"]["tx_drop"]["no_neighbor"] == d0["no_neighbor"], d0
    assert d0["tx_ok"] + d0["tx_drop"] == count, d0
    for r in res[1:]:
        assert r["distinct"] == count, "a healthy sink lost datagrams: %r" % r
    r0 = res[0]
    assert r0["max_seq"] >= count - rate, "the sink got nothing after coming back: %r" % r0
    assert 0 < r0["distinct"] <= d0["tx_ok"], (r0, d0)
    # copies lost after the sink came back: no_neighbor counted since the last stats object
    # before the link went up (so up to one interval too many)
    before = [o for o in objs if o["time"] <= t_up and not o["final"]]
    assert before, "no stats object before the sink came back"
    lost_after = d0["no_neighbor"] - before[-1]["destinations"][0]["no_neighbor"]
    lost_ms = 1000.0 * lost_after / rate
    print("copies lost after the sink came back: %d (%.0f ms at %d/s)" % (lost_after, lost_ms,
                                                                       rate))
    assert lost_ms <= 2 * retry_ms + 1000 * interval + 50, \
        "%d copies (%.0f ms) lost after the sink was back" % (lost_after, lost_ms)


def main():
    s = Suite(root=True)
    for kind in ("af_xdp", "af_packet"):
        for offload in (True, False):
            s.run(case_resolve_all, kind, offload)
    s.run(case_sink_down_and_back, "af_xdp")
    s.finish()


if __name__ == "__main__":
    main()
