#!/usr/bin/env python3
"""e2e: two workers. udpfan's port gets two queues (veth with two RX queues, af_packet with
qpairs=2 and PACKET_FANOUT; af_xdp cannot use two queues on veth, see the last case), a sender
spreads 16 flows, and
both workers must carry traffic (per-lcore counters), every copy must arrive, each flow in
order, and the ledger must hold. On this 2-CPU VM the main lcore shares CPU 0 with worker 1
(lcores "0@0,1@0,2@1"): udpfan warns about it, and that is part of what is checked."""
from testbed import FWD_IP, Testbed
from uflive import Sink, Udpfan, dest_lines, send
from ufrun import Suite, run_udpfan, tmpdir

COUNT = 8000
RATE = 4000
FLOWS = 16


def case_two_workers(kind):
    wd = tmpdir()
    with Testbed(prefix="ufq", sinks=2, queues=2) as tb:
        cfg = """eal: { lcores: "0@0,1@0,2@1", file_prefix: ufmq }
ports:
  - { name: lan, device: "%s", ip: %s/24 }
listen: { port: lan, udp_port: 5000 }
destinations:
%s
stats: { interval_s: 0.5 }
""" % (tb.vdev(kind, queues=2), FWD_IP, dest_lines(tb))
        sinks = [Sink(tb, ns, [6000], wd) for ns in tb.sink_ns]
        uf = Udpfan(tb, cfg, wd)
        assert uf.wait_stats(lambda s: all(d["state"] == "reachable"
                                           for d in s["destinations"]), 10), uf.latest()
        # ARP first: datagrams queued behind the sender's ARP request can be passed by later
        # ones, which would read as reordering here
        tb.nsx(tb.ns_src, "ping -c 1 -W 2 %s" % FWD_IP, check=False)
        send(tb, COUNT, RATE, size=32, flows=FLOWS)
        res = [s.result()["6000"] for s in sinks]
        st = uf.stop()
        with open(uf.log) as f:
            log = f.read()  # whole: a slow run's stats lines push the warning out of logtext()
    lc = st["lcores"]
    assert set(lc) == {"1", "2"}, lc
    rx = [lc["1"]["rx"], lc["2"]["rx"]]
    assert min(rx) >= COUNT // 10, "one worker carried (almost) nothing: %r" % lc
    for r in res:
        assert r["distinct"] == COUNT and r["duplicates"] == 0, r
        assert r["reordered_per_flow"] == 0, "a flow was reordered: %r" % r
        assert len(r["senders"]) == FLOWS, r["senders"]
    assert "the main lcore shares CPU 0 with worker 0" in log, "no placement warning:\n" + \
        log[-4000:]


def case_af_xdp_veth_queues():
    """net_af_xdp counts combined channels, which veth does not have: two queues on veth
    cannot work, and udpfan must say so in one line instead of a failed EAL probe."""
    wd = tmpdir()
    with Testbed(prefix="ufq", sinks=1, queues=2) as tb:
        cfg = """eal: { lcores: "0@0,1@0,2@1", file_prefix: ufmq }
ports:
  - { name: lan, device: "%s", ip: %s/24 }
listen: { port: lan, udp_port: 5000 }
destinations:
%s
""" % (tb.vdev("af_xdp", queues=2), FWD_IP, dest_lines(tb))
        rc, err, _ = run_udpfan(cfg, wd, duration=1, ns=tb.ns_fwd, check_rc=None)
    assert rc == 3, (rc, err)
    line = [ln for ln in err.splitlines() if ln.startswith("udpfan: error:")]
    assert len(line) == 1 and "no combined" in line[0] and "qpairs" in line[0], err


def main():
    s = Suite(root=True)
    s.run(case_two_workers, "af_packet")
    s.run(case_af_xdp_veth_queues)
    s.finish()


if __name__ == "__main__":
    main()
