#!/usr/bin/env python3
"""eal suite: udpfan's own Neighbour Discovery frames on a net_pcap port (no hugepages), from
start-up on (docs/architecture.md#neighbour-discovery). A port with 2001:db8::10/64 and
fe80::10/64 and gateway6 fe80::1, two IPv6 destinations with no static MAC (one on-link, one
behind the gateway) and nobody answering: the output pcap must hold the gratuitous ARP, one
unsolicited NA per ip6, and the NSs for both next hops (to their solicited-node groups, the
gateway's from fe80::10) at the arp: section's backoff until FAILED, each byte for byte as
built here from RFC 4861 (ICMPv6 checksum computed here); the stats count each frame
(ndp.ns_sent, ndp.unsolicited_na_sent, arp.gratuitous_sent) and print the next hops as IPv6
text."""
import ipaddress
import os
import struct

from ufpkt import arp_frame, csum, eth, mac_bytes, read_pcap, write_pcap
from ufrun import PCAP_MAC, Suite, final, ledger, run_udpfan, tmpdir

PORT_MAC = PCAP_MAC % 0
ALL_NODES_MAC = "33:33:00:00:00:01"
RETRY_MS = 100
MAX_PROBES = 2


def a6(s):
    return ipaddress.IPv6Address(s).packed


def icmp6(src, dst, msg):
    """an IPv6 header (hop limit 255, ICMPv6) and MSG with its checksum filled in"""
    pseudo = a6(src) + a6(dst) + struct.pack("!IxxxB", len(msg), 58)
    ck = csum(pseudo + msg[:2] + b"\0\0" + msg[4:])
    msg = msg[:2] + struct.pack("!H", ck) + msg[4:]
    ip = struct.pack("!IHBB", 6 << 28, len(msg), 58, 255) + a6(src) + a6(dst)
    return ip + msg


def ns(eth_dst, src, dst, target):
    """a Neighbor Solicitation with our MAC as SLLA (RFC 4861 4.3)"""
    msg = struct.pack("!BBHI", 135, 0, 0, 0) + a6(target) + bytes([1, 1]) + mac_bytes(PORT_MAC)
    return eth(eth_dst, PORT_MAC, 0x86DD, icmp6(src, dst, msg))


def na(eth_dst, src, dst, target, flags):
    """a Neighbor Advertisement with our MAC as TLLA (RFC 4861 4.4)"""
    msg = (struct.pack("!BBHB3x", 136, 0, 0, flags) + a6(target) + bytes([2, 1]) +
           mac_bytes(PORT_MAC))
    return eth(eth_dst, PORT_MAC, 0x86DD, icmp6(src, dst, msg))


def solicited_node(a):
    b = a6(a)
    return (str(ipaddress.IPv6Address(bytes.fromhex("ff0200000000000000000001ff") + b[13:])),
            "33:33:ff:%02x:%02x:%02x" % (b[13], b[14], b[15]))


def config(workdir):
    return "\n".join([
        "eal: { lcores: \"0-1\", no_huge: true, memory_mb: 256, file_prefix: ufndp }",
        "ports:",
        "  - name: wan",
        "    device: \"net_pcap0,rx_pcap=%s/in.pcap,tx_pcap=%s/out.pcap\"" % (workdir, workdir),
        "    ip: 198.18.0.10/24",
        "    ip6: [\"2001:db8::10/64\", \"fe80::10/64\"]",
        "    gateway6: fe80::1",
        "listen: { port: wan, udp_port: 5000 }",
        "destinations:",
        "  - { ip: \"2001:db8::20\", udp_port: 6000 }",
        "  - { ip: \"2001:db8:99::5\", udp_port: 6001 }",
        "  - { ip: \"2001:db8:98::7\", udp_port: 6002 }",
        "stats: { interval_s: 0.5 }",
        "arp: { gratuitous: true, retry_ms: %d, max_probes: %d }" % (RETRY_MS, MAX_PROBES),
    ]) + "\n"


def case_start_frames():
    d = tmpdir()
    write_pcap(os.path.join(d, "in.pcap"), [])
    _, _, objs = run_udpfan(config(d), d, duration=1.5)
    st = final(objs)
    ledger(st)
    out = read_pcap(os.path.join(d, "out.pcap"))

    garp = arp_frame(1, "ff:ff:ff:ff:ff:ff", PORT_MAC, "198.18.0.10", "00:00:00:00:00:00",
                     "198.18.0.10")
    una = [na(ALL_NODES_MAC, a, "ff02::1", a, 0x20) for a in ("2001:db8::10", "fe80::10")]
    g20, m20 = solicited_node("2001:db8::20")
    g1, m1 = solicited_node("fe80::1")
    ns20 = ns(m20, "2001:db8::10", g20, "2001:db8::20")
    ns_gw = ns(m1, "fe80::10", g1, "fe80::1")  # a link-local target: from our link-local

    # the ARP is padded to 60 bytes; the rest are exact
    assert out[0][:len(garp)] == garp, out[0].hex()
    assert out[1] == una[0] and out[2] == una[1], "unsolicited NAs:\n%s\n%s" % (out[1].hex(),
                                                                                 out[2].hex())
    rest = out[3:]
    n20 = sum(1 for f in rest if f == ns20)
    ngw = sum(1 for f in rest if f == ns_gw)
    assert n20 + ngw == len(rest), "a frame that is neither NS: %r" % [
        f.hex() for f in rest if f not in (ns20, ns_gw)]
    # INCOMPLETE asks at 0, r, 3r (max_probes + 1 requests: FAILED at the last), then
    # FAILED by group at 8r intervals: within 1.5 s with r = 100 ms, 3 + 1 at least each
    assert n20 >= MAX_PROBES + 2 and ngw >= MAX_PROBES + 2, (n20, ngw)
    # one entry for the gateway of two destinations: as many NSs as for 2001:db8::20 (+-1:
    # the run may end between the two of one tick)
    assert abs(n20 - ngw) <= 1, (n20, ngw)
    assert st["ndp"]["ns_sent"] == n20 + ngw, st["ndp"]
    assert st["ndp"]["unsolicited_na_sent"] == 2, st["ndp"]
    assert st["arp"]["gratuitous_sent"] == 1 and st["arp"]["requests_sent"] == 0, st["arp"]
    assert st["control"]["nombuf"] == 0 and st["control"]["ring_full"] == 0, st["control"]
    assert st["fwd"]["ctl_tx_ok"] == len(out), (st["fwd"]["ctl_tx_ok"], len(out))
    dl = st["destinations"]
    assert [x["ip"] for x in dl] == ["2001:db8::20", "2001:db8:99::5", "2001:db8:98::7"], dl
    assert [x["next_hop"] for x in dl] == ["2001:db8::20", "fe80::1", "fe80::1"], dl
    assert all(x["state"] == "failed" for x in dl), dl
    print("  %d frames: gratuitous ARP, 2 unsolicited NAs, %d + %d NSs" % (len(out), n20, ngw))


def main():
    s = Suite()
    s.run(case_start_frames)
    return s.finish()


if __name__ == "__main__":
    raise SystemExit(main())
