#!/usr/bin/env python3
"""e2e: udpfan on net_af_xdp and on net_af_packet over veth, the Linux kernel on every side.

A kernel UDP socket in the sender's namespace sends sequence-numbered datagrams to udpfan's
IP; kernel UDP sockets in three sink namespaces receive every copy (the kernel checks lengths
and checksums: a bad frame never reaches the socket). Here the neighbours are static: the
sender knows udpfan's MAC and the config gives each sink's MAC.

Every interface keeps the kernel's default offloads: the sender leaves its UDP checksum to
offload, so each datagram reaches udpfan with a partial checksum (the pseudo-header sum),
which udpfan completes (fwd.csum_completed) before deriving the copies' sums. case_static
also runs with TX checksum offload off on every interface (Testbed(offload=False)): complete
checksums in, the cheap incremental path, nothing completed. Either way the sinks' kernels
must refuse no copy (uflive.Sink checks InCsumErrors and InHdrErrors in their namespaces)."""
from testbed import FWD_IP, Testbed
from uflive import Sink, Udpfan, dest_lines, send
from ufrun import Suite, tmpdir

COUNT = 3000
RATE = 5000


def config(tb, kind, static=True, extra=""):
    return """eal: { lcores: "0-1", file_prefix: ufe2e }
ports:
  - { name: lan, device: "%s", ip: %s/24 }
listen: { port: lan, udp_port: 5000 }
destinations:
%s
stats: { interval_s: 0.5 }
%s
""" % (tb.vdev(kind), FWD_IP, dest_lines(tb, static=static), extra)


def case_static(kind, offload=True):
    wd = tmpdir()
    with Testbed(prefix="ufe", sinks=3, offload=offload) as tb:
        tb.static_neighbours()
        sinks = [Sink(tb, ns, [6000], wd) for ns in tb.sink_ns]
        uf = Udpfan(tb, config(tb, kind, static=True), wd)
        sent = send(tb, COUNT, RATE, size=64)
        assert sent["sent"] == COUNT, sent
        res = [s.result() for s in sinks]
        st = uf.stop()
    f = st["fwd"]
    assert f["forwarded"] == COUNT, f
    assert f["tx_ok"] == 3 * COUNT and sum(f["tx_drop"].values()) == 0, f
    # offload on: every datagram came with a partial checksum; off: none did
    assert f["csum_completed"] == (COUNT if offload else 0), f
    for r in res:
        assert r["kernel"]["udp_in_csum_errors"] == 0, r["kernel"]
        c = r["6000"]
        assert c["received"] == COUNT and c["distinct"] == COUNT, c
        assert c["duplicates"] == 0 and c["max_seq"] == COUNT - 1, c
        assert list(c["senders"]) == ["%s:%d" % (FWD_IP, 41000)], c["senders"]
    port = st["ports"]["lan"]
    # count at both ends: what the PMD says it sent covers our copies (plus our ARP/ICMP)
    assert port["opackets"] == f["tx_ok"] + f["ctl_tx_ok"], (port, f)
    assert port["ipackets"] == f["rx"], (port, f)
    assert st["arp"]["requests_sent"] == 0, "static neighbours need no ARP: %r" % st["arp"]
    if kind == "af_xdp":
        assert port["xdp_mode"] in ("native, copy", "generic, copy", "native, zero-copy"), port
        assert port["xsk"]["sockets"] == 1, port


def case_short_frames_padded(kind):
    """an 8-byte datagram makes a 50-byte frame: veth does not pad and neither does the PMD,
    so udpfan must (the quirk row says so). Captured where it leaves udpfan's veth (the bridge
    side: the bridge's netfilter hooks trim padding before the sink could see it), the frame
    is 60 bytes, the padding zeros, the IP and UDP lengths those of the 8-byte datagram, and
    the sink's kernel takes it."""
    import subprocess

    wd = tmpdir()
    with Testbed(prefix="ufe", sinks=1) as tb:
        tb.static_neighbours()
        sink = Sink(tb, tb.sink_ns[0], [6000], wd)
        uf = Udpfan(tb, config(tb, kind, static=True), wd)
        pcap = "%s/sink.pcap" % wd
        cap = tb.popen(tb.ns_br, ["tcpdump", "-n", "-i", tb.fwd_peer, "-w", pcap, "-c", "5",
                                  "udp", "dst", "port", "6000"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import time
        time.sleep(1)
        send(tb, 5, 100, size=8)
        try:
            cap.wait(timeout=10)
        except subprocess.TimeoutExpired:
            cap.kill()
        res = sink.result()["6000"]
        uf.stop()
    from ufpkt import read_pcap
    frames = read_pcap(pcap)
    assert len(frames) == 5, "captured %d frames" % len(frames)
    for f in frames:
        assert len(f) == 60, "a %d-byte frame left unpadded" % len(f)
        assert f[16:18] == b"\x00\x24", "IP total length %r, expected 36" % f[16:18]
        assert f[38:40] == b"\x00\x10", "UDP length %r, expected 16" % f[38:40]
        assert f[50:] == bytes(10), "padding is not zeros: %r" % f[50:]
    # the kernel took them: checksums and lengths right despite the padding
    assert res["received"] == 5, res


def case_chained_fanout():
    """fanout: chain on af_packet (which transmits chains): each copy is a header mbuf chained
    to the shared payload; the kernel sinks get every datagram intact (they check lengths and
    checksums), and fwd.chained counts them"""
    wd = tmpdir()
    count = 2000
    with Testbed(prefix="ufe", sinks=3) as tb:
        tb.static_neighbours()
        sinks = [Sink(tb, ns, [6000], wd) for ns in tb.sink_ns]
        uf = Udpfan(tb, config(tb, "af_packet", static=True, extra="forward: { fanout: chain }"),
                    wd)
        send(tb, count, 4000, size=600)
        res = [s.result()["6000"] for s in sinks]
        st = uf.stop()
    f = st["fwd"]
    assert f["chained"] == 3 * count and f["tx_ok"] == 3 * count, f
    for r in res:
        assert r["distinct"] == count and r["bad"] == 0, r


def case_chain_nombuf():
    """a header pool too small for what the TX buffers hold (mbufs: 63, the least,
    bursts of 64 kept for 50 ms: flush_idle off, so only a full burst or the drain timer
    flushes): copies that find no header buffer are tx_drop.nombuf, datagrams that find none
    at all are drop.nombuf, and the ledger holds. Two destinations: 63 is odd, so the 32nd
    datagram finds one header (its other copy tx_drop.nombuf), the TX buffer holds 63 < 64 and
    the next ones find none, whatever the timing (with three destinations, 63 = 21 x 3, a
    partial allocation needed the kernel to refuse part of a flush)"""
    wd = tmpdir()
    with Testbed(prefix="ufe", sinks=2) as tb:
        tb.static_neighbours()
        cfg = config(tb, "af_packet", static=True,
                     extra="forward: { fanout: chain, burst: 64, drain_us: 50000, "
                     "flush_idle: false }")
        cfg = cfg.replace('ip: %s/24 }' % FWD_IP, 'ip: %s/24, mbufs: 63 }' % FWD_IP)
        uf = Udpfan(tb, cfg, wd)
        send(tb, 3000, 20000, size=600)
        st = uf.stop()
    f = st["fwd"]
    assert f["drop"]["nombuf"] > 0 and f["tx_drop"]["nombuf"] > 0, f
    # the ledger: every frame received is forwarded, dropped for a reason or a control frame;
    # every copy attempted left or is a TX drop
    assert f["rx"] == f["forwarded"] + sum(f["drop"].values()) + f["control"], f
    assert f["copies_attempted"] == f["tx_ok"] + sum(f["tx_drop"].values()), f


def main():
    s = Suite(root=True)
    for kind in ("af_xdp", "af_packet"):
        for offload in (True, False):
            s.run(case_static, kind, offload)
    for kind in ("af_xdp", "af_packet"):
        s.run(case_short_frames_padded, kind)
    s.run(case_chained_fanout)
    s.run(case_chain_nombuf)
    s.finish()


if __name__ == "__main__":
    main()
