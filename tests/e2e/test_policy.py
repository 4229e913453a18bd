#!/usr/bin/env python3
"""e2e: the replication policy over veth. Three sinks: one gets the sender's own address and
port (source: original), one gets one datagram in four (sample: 4), one a plain copy with
TTL 9. Kernel sockets in the sink namespaces see the right source address and port
(recvfrom), the right counts and, for the sampled one, exactly the predicted sequence
numbers (one worker). A second sender that no rule matches is dropped and counted as
no_rule; the ledger holds with sampled_out and no_rule."""
import subprocess

from testbed import FWD_IP, SRC_IP, Testbed
from uflive import Sink, Udpfan, send
from ufrun import Suite, tmpdir

COUNT = 2000


def case_policy(kind):
    wd = tmpdir()
    with Testbed(prefix="ufp", sinks=3) as tb:
        other = "198.18.0.3"
        tb.nsx(tb.ns_src, "ip addr add %s/24 dev src0" % other)
        cfg = """eal: { lcores: "0-1", file_prefix: ufpol }
ports:
  - { name: lan, device: "%s", ip: %s/24 }
listen: { port: lan, udp_port: 5000 }
destinations:
  - { ip: %s, udp_port: 6000, source: original }
  - { ip: %s, udp_port: 6000, sample: 4 }
  - { ip: %s, udp_port: 6000, ttl: 9 }
rules:
  - { from: %s/32, to: [0, 1, 2] }
forward: { source_port: 7000 }
stats: { interval_s: 0.5 }
""" % (tb.vdev(kind), FWD_IP, tb.sink_ip[0], tb.sink_ip[1], tb.sink_ip[2], SRC_IP)
        sinks = [Sink(tb, ns, [6000], wd, listing=True) for ns in tb.sink_ns]
        # the TTL the third sink sees, read by tcpdump (independent of udpfan)
        uf = Udpfan(tb, cfg, wd)
        assert uf.wait_stats(lambda s: all(d["state"] == "reachable"
                                           for d in s["destinations"]), 10), uf.latest()
        cap = tb.popen(tb.sink_ns[2], ["tcpdump", "-n", "-v", "-c", "5", "-i", "sink0",
                                       "udp", "dst", "port", "6000"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        # resolve udpfan's MAC first: datagrams the kernel queues behind its ARP request
        # can be passed by the ones sent just after the answer, and the sampled
        # destination's sequence numbers are only predictable in arrival order
        tb.nsx(tb.ns_src, "ping -c 1 -W 2 %s" % FWD_IP, check=False)
        send(tb, COUNT, 4000, size=40, sport=41000, bind=SRC_IP)
        send(tb, 300, 4000, size=40, sport=42000, bind=other)
        res = [s.result()["6000"] for s in sinks]
        st = uf.stop()
        dump = cap.communicate(timeout=10)[0]
    f = st["fwd"]
    assert f["drop"]["no_rule"] == 300 and f["forwarded"] == COUNT, f
    assert f["sampled_out"] == COUNT - COUNT // 4, f
    orig, samp, plain = res
    assert orig["distinct"] == COUNT and list(orig["senders"]) == ["%s:41000" % SRC_IP], orig
    assert samp["seq_list"] == list(range(0, COUNT, 4)), samp["seq_list"][:10]
    assert list(samp["senders"]) == ["%s:7000" % FWD_IP], samp["senders"]
    assert plain["distinct"] == COUNT, plain
    assert dump.count("ttl 9,") == 5, dump
    d = st["destinations"]
    assert d[1]["sampled_out"] == COUNT - COUNT // 4 and d[1]["tx_ok"] == COUNT // 4, d[1]


def main():
    s = Suite(root=True)
    for kind in ("af_xdp", "af_packet"):
        s.run(case_policy, kind)
    s.finish()


if __name__ == "__main__":
    main()
