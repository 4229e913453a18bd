#!/usr/bin/env python3
"""e2e: frames a real veth carries that an untagged port at its MTU must not take, each
counted by its own reason (docs/loss-accounting.md, docs/pmd-quirks.md):

- 802.1Q-tagged datagrams from a VLAN sender (a kernel VLAN interface where the kernel has
  8021q, else a raw AF_PACKET sender): drop.vlan_unknown on net_af_packet, nothing forwarded;
  and tagged IPv6 datagrams to an IPv6 listener (one, and one of two) from the raw sender;
- datagrams a local sender joined with UDP_SEGMENT (GSO): veth and the bridge carry them as
  one frame, net_af_packet hands it over cut at its ring slot: drop.gro_coalesced, and the
  operator is told which setting; with that setting applied, every datagram goes through.
  On net_af_xdp the kernel segments them first (veth takes GSO off towards an XDP peer);
- the start of an af_packet port under a flood on a neighbouring veth: the PMD's socket
  takes every interface's frames until it is bound; none of them is counted as rx;
- the kernel's IPv6 left on udpfan's own interface (its default; the bed otherwise turns it
  off as docs/deployment.md asks): forwarding unchanged, udpfan's note at start.

The sender keeps the kernel's default offloads (checksum and segmentation on)."""
import os
import subprocess
import time

from testbed import FWD_IP, FWD_IP6, SRC_IP, Capture, Testbed, wait_for
from uflive import TOOLS, PY, Sink, Udpfan, dest_lines, quiet_snapshot, send
from ufrun import Suite, final, ledger, read_stats, run_udpfan, tmpdir

VLAN_NET = "198.18.5"
DEST6 = "{ ip: %s, udp_port: 6000, mac: \"%s\" }"


def config(tb, kind, prefix="ufwire", extra=""):
    # copies without a UDP checksum: what is tested here is which frames are taken, not
    # the checksum of a sender that leaves it to offload (tests for that elsewhere)
    return """eal: { lcores: "0-1", file_prefix: %s }
ports:
  - { name: lan, device: "%s", ip: %s/24 }
listen: { port: lan, udp_port: 5000 }
destinations:
%s
forward: { udp_checksum: zero }
stats: { interval_s: 0.5 }
%s
""" % (prefix, tb.vdev(kind), FWD_IP, dest_lines(tb, static=True), extra)


def case_vlan_unknown():
    wd = tmpdir()
    n = 50
    with Testbed(prefix="ufv", sinks=1) as tb:
        tb.static_neighbours()
        sink = Sink(tb, tb.sink_ns[0], [6000], wd, idle=30)
        cap = Capture(tb, os.path.join(wd, "v6.pcap"))  # the LAN hosts' IPv6 into fwd0
        uf = Udpfan(tb, config(tb, "af_packet"), wd)
        how = "kernel VLAN interface src0.5"
        if tb.nsx(tb.ns_src, "ip link add link src0 name src0.5 type vlan id 5",
                  check=False) == 0:
            tb.nsx(tb.ns_src, "ip link set src0.5 up")
            tb.nsx(tb.ns_src, "ip addr add %s.2/24 dev src0.5" % VLAN_NET)
            tb.nsx(tb.ns_src, "ip neigh replace %s.10 lladdr %s dev src0.5 nud permanent" %
                   (VLAN_NET, tb.fwd_mac))
            sent = send(tb, n, 1000, size=64, dst=VLAN_NET + ".10")["sent"]
        else:
            how = "raw AF_PACKET sender (this kernel has no 8021q)"
            out = tb.nsx(tb.ns_src, "%s %s --iface src0 --dst-mac %s --src-mac %s --src %s "
                         "--dst %s --port 5000 --vid 5 --count %d --rate 1000" %
                         (PY, os.path.join(TOOLS, "vlan_send.py"), tb.fwd_mac, tb.src_mac,
                          SRC_IP, FWD_IP, n), capture=True)
            sent = n if '"sent": %d' % n in out else -1
        assert sent == n, (how, sent)
        assert uf.wait_stats(lambda s: s["fwd"]["drop"]["vlan_unknown"] >= n, 10), \
            (how, uf.latest()["fwd"])
        st = uf.stop()
        cap.stop()
        got = sink.stop()
    f = st["fwd"]
    assert f["drop"]["vlan_unknown"] == n and f["forwarded"] == 0, (how, f)
    # (all n tagged frames are vlan_unknown, so none is not_ipv4:) between the first and the
    # last stats snapshot no captured frame raced, not_ipv4 moved by exactly the IPv6 frames
    # the LAN hosts sent into fwd0 (the kernel's defaults: DAD, RS, MLD)
    periodic = [o for o in read_stats(uf.stats) if not o.get("final")]
    s0 = quiet_snapshot(periodic, cap)
    s1 = quiet_snapshot(periodic[::-1], cap)
    assert s1["fwd"]["drop"]["not_ipv4"] - s0["fwd"]["drop"]["not_ipv4"] == \
        cap.count(s0["time"], s1["time"]), (how, cap.stop(), s0["time"], s1["time"], f)
    assert got.get("6000", {}).get("received", 0) == 0, got
    assert "drop.vlan_unknown" in uf.logtext(), uf.logtext()


def case_vlan_unknown6(two_listeners):
    """the same with IPv6: tagged IPv6 datagrams to an IPv6 listener's address and UDP port,
    on net_af_packet (which puts the kernel's tag back in the frame: udpfan asks for no VLAN
    strip); the IPv6 lanes' fast tests (one listener, several) leave them to the classifier:
    drop.vlan_unknown, nothing forwarded"""
    wd = tmpdir()
    n = 50
    with Testbed(prefix="ufv", sinks=1) as tb:
        tb.static_neighbours()
        sink = Sink(tb, tb.sink_ns[0], [6000], wd, idle=30)
        lis = ["  - { name: a, port: lan, udp_port: 5000, ip: \"%s\", destinations: [ %s ] }"
               % (FWD_IP6, DEST6 % (tb.sink_ip[0], tb.sink_mac[0]))]
        if two_listeners:
            lis.append("  - { name: b, port: lan, udp_port: 5001, ip: \"%s\", "
                       "destinations: [ %s ] }" % (FWD_IP6, DEST6 % (tb.sink_ip[0],
                                                                     tb.sink_mac[0])))
        cfg = """eal: { lcores: "0-1", file_prefix: ufwire }
ports:
  - { name: lan, device: "%s", ip: %s/24, ip6: ["%s/64"] }
listeners:
%s
stats: { interval_s: 0.5 }
""" % (tb.vdev("af_packet"), FWD_IP, FWD_IP6, "\n".join(lis))
        uf = Udpfan(tb, cfg, wd)
        out = tb.nsx(tb.ns_src, "%s %s --iface src0 --dst-mac %s --src-mac %s --src %s "
                     "--dst %s --port 5000 --vid 5 --count %d --rate 1000" %
                     (PY, os.path.join(TOOLS, "vlan_send.py"), tb.fwd_mac, tb.src_mac,
                      "2001:db8:18::2", FWD_IP6, n), capture=True)
        assert '"sent": %d' % n in out, out
        assert uf.wait_stats(lambda s: s["fwd"]["drop"]["vlan_unknown"] >= n, 10), \
            uf.latest()["fwd"]
        st = uf.stop()
        got = sink.stop()
    f = st["fwd"]
    assert f["drop"]["vlan_unknown"] == n and f["forwarded"] == 0, f
    assert got.get("6000", {}).get("received", 0) == 0, got


def case_gso(kind):
    """40 datagrams in GSO sends of 4 x 1000 bytes, then 20 single ones"""
    wd = tmpdir()
    with Testbed(prefix="ufg", sinks=1) as tb:
        tb.static_neighbours()
        sink = Sink(tb, tb.sink_ns[0], [6000], wd, idle=30)
        uf = Udpfan(tb, config(tb, kind), wd)
        assert send(tb, 40, 1000, size=1000, gso=4)["sent"] == 40
        assert send(tb, 20, 1000, size=1000, start_seq=40)["sent"] == 20
        want = 20 if kind == "af_packet" else 60
        assert uf.wait_stats(lambda s: s["fwd"]["forwarded"] >= want, 10), uf.latest()["fwd"]
        if kind == "af_packet":
            assert uf.wait_stats(lambda s: s["fwd"]["drop"]["gro_coalesced"] >= 10, 5), \
                uf.latest()["fwd"]
            # the operator's fix, as udpfan's message gives it: the bridge port that sends
            # into udpfan's veth segments what it cannot carry whole
            assert "tx-udp-segmentation off" in uf.logtext(), uf.logtext()
            tb.nsx(tb.ns_br, "ethtool -K %s tx-udp-segmentation off" % tb.fwd_peer)
            assert send(tb, 40, 1000, size=1000, gso=4, start_seq=60)["sent"] == 40
            assert uf.wait_stats(lambda s: s["fwd"]["forwarded"] >= 60, 10), \
                uf.latest()["fwd"]
        time.sleep(0.5)
        st = uf.stop()
        got = sink.stop()["6000"]
    f = st["fwd"]
    if kind == "af_packet":
        # one frame of 4 datagrams each, cut by the PMD at its ring slot: never malformed
        assert f["drop"]["gro_coalesced"] == 10 and f["drop"]["malformed"] == 0, f
        assert f["forwarded"] == 60 and got["received"] == 60, (f, got)
    else:
        assert f["drop"]["gro_coalesced"] == 0 and f["forwarded"] == 60, f
        assert got["received"] == 60 and got["distinct"] == 60, got
    assert f["drop"]["too_long"] == 0, f


FLOOD = r"""
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
end = time.monotonic() + float(sys.argv[1])
b = bytes(18)
while time.monotonic() < end:
    for _ in range(1000):
        s.sendto(b, ("198.20.0.2", 9))
"""


def case_start_under_flood():
    """Three af_packet starts while a neighbouring veth in udpfan's namespace takes a flood:
    what the PMD's sockets took before they were bound is discarded and counted apart
    (ports.lan.rx_before_ready), never as rx or not_for_us. (Without the start-up drain,
    about 4 starts in 10 counted 50-100 such frames.)"""
    wd = tmpdir()
    with Testbed(prefix="uff", sinks=1) as tb:
        sh = "ip link add nb0 netns %s type veth peer name nb1 netns %s" % (tb.ns_fwd, tb.ns_src)
        assert subprocess.call(sh, shell=True) == 0
        tb.nsx(tb.ns_fwd, "ip link set nb0 up")
        tb.nsx(tb.ns_src, "ip link set nb1 up")
        tb.nsx(tb.ns_src, "ip addr add 198.20.0.1/24 dev nb1")
        tb.nsx(tb.ns_src, "ip neigh replace 198.20.0.2 lladdr 02:20:00:00:00:02 dev nb1 "
               "nud permanent")
        flood = tb.popen(tb.ns_src, [PY, "-c", FLOOD, "40"])
        try:
            before = stray = chatter = v6_stray = 0
            for i in range(3):
                # no gratuitous ARP: the port's socket would see it leave (one not_for_us)
                cfg = config(tb, "af_packet", prefix="ufwf%d" % i,
                             extra="arp: { gratuitous: false }")
                # the LAN hosts' IPv6 chatter (kernel defaults) reaches fwd0 as on any LAN
                cap = Capture(tb, os.path.join(wd, "v6-%d.pcap" % i))
                # the neighbouring veth carries the IPv6 chatter of nb0 and nb1 too
                nb = Capture(tb, os.path.join(wd, "nb-%d.pcap" % i), peer="nb0",
                             ns=tb.ns_fwd, direction="inout")
                _, _, objs = run_udpfan(cfg, wd, duration=1.5, ns=tb.ns_fwd)
                cap.stop()
                nb.stop()
                st = final(objs)
                f = ledger(st)
                assert f["rx"] == f["control"] + f["drop"]["not_for_us"] + \
                    f["drop"]["not_ipv4"], (i, f)
                # every IPv6 frame the bridge sent into fwd0 between two stats snapshots no
                # frame raced (the first and the last such) is drop.not_ipv4; what is counted
                # beyond them is a stray, as below. Seen on 2026-12-02: one not_ipv4 on the
                # second start, 1 s in, with no IPv6 frame into fwd0 nor on nb0 in the whole
                # run (origin open: docs/pmd-quirks.md)
                periodic = [o for o in objs if not o.get("final")]
                s0 = quiet_snapshot(periodic, cap)
                s1 = quiet_snapshot(periodic[::-1], cap)
                v6 = cap.count(s0["time"], s1["time"])
                extra = s1["fwd"]["drop"]["not_ipv4"] - s0["fwd"]["drop"]["not_ipv4"] - v6
                assert extra >= 0, (i, v6, cap.stop(), s0["time"], s1["time"], f["drop"])
                # without the drain a start counted 50-110 foreign frames; with it, a loaded
                # host still shows one now and then (not explained yet: the socket is bound
                # before the drain, docs/pmd-quirks.md), never more than a couple: not_for_us
                # (the flood's) and not_ipv4 beyond fwd0's IPv6 frames together
                assert f["drop"]["not_for_us"] + extra <= 2, (i, extra, nb.stop(), f)
                chatter += len(cap.stop())
                v6_stray += extra
                assert st["ports"]["lan"]["ipackets"] == f["rx"], (i, st["ports"]["lan"])
                before += st["ports"]["lan"]["rx_before_ready"]
                stray += f["drop"]["not_for_us"]
            assert flood.poll() is None, "the flood stopped early"
        finally:
            flood.kill()
            flood.wait()
    print("    foreign frames discarded before ready over 3 starts: %d; counted as rx "
          "after the drain: %d, and not_ipv4 beyond fwd0's IPv6: %d; the LAN hosts' IPv6 frames into "
          "fwd0: %d" % (before, stray, v6_stray, chatter))


def case_kernel_ipv6_on(kind):
    """The kernel's IPv6 left on udpfan's own interface (Linux's default; docs/deployment.md
    asks for it off, and the rest of the suite has it off): the other setting. The kernel
    then has a link-local address on fwd0 and talks IPv6 from udpfan's MAC; udpfan says so
    at start, naming the sysctl, and forwards every datagram as with it off: each sink gets
    every one, the ledger balances, and whatever it did not forward and did not hand to its
    control plane is not IPv4 (the IPv6 chatter), nothing else."""
    wd = tmpdir()
    count = 2000
    with Testbed(prefix="ufk", sinks=2, fwd_kernel_ipv6=True) as tb:
        tb.static_neighbours()
        out = tb.nsx(tb.ns_fwd, "ip -6 -o addr show dev %s" % tb.fwd_if, capture=True)
        assert " fe80:" in out, "the kernel's IPv6 is on fwd0: %r" % out
        sinks = [Sink(tb, ns, [6000], wd) for ns in tb.sink_ns]
        uf = Udpfan(tb, config(tb, kind, prefix="ufkip6"), wd)
        sent = send(tb, count, 4000, size=64)
        assert sent["sent"] == count, sent
        res = [s.result() for s in sinks]
        st = uf.stop()  # ledger() on the final object
        log = uf.logtext()
    assert "the kernel has IPv6 on %s" % tb.fwd_if in log, log
    assert "net.ipv6.conf.%s.disable_ipv6=1" % tb.fwd_if in log, log
    f = st["fwd"]
    assert f["forwarded"] == count, f
    assert f["tx_ok"] == 2 * count and sum(f["tx_drop"].values()) == 0, f
    assert sum(f["drop"].values()) == f["drop"]["not_ipv4"], f["drop"]
    for r in res:
        c = r["6000"]
        assert c["received"] == count and c["distinct"] == count, c
        assert c["duplicates"] == 0 and c["max_seq"] == count - 1, c


def main():
    s = Suite(root=True)
    s.run(case_vlan_unknown)
    s.run(case_vlan_unknown6, False)
    s.run(case_vlan_unknown6, True)
    for kind in ("af_packet", "af_xdp"):
        s.run(case_gso, kind)
    s.run(case_start_under_flood)
    for kind in ("af_xdp", "af_packet"):
        s.run(case_kernel_ipv6_on, kind)
    s.finish()


if __name__ == "__main__":
    main()
