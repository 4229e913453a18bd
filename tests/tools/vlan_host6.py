#!/usr/bin/env python3
"""An IPv6 host on an 802.1Q VLAN, in user space on a raw AF_PACKET socket: vlan_host.py's
IPv6 twin, for kernels without 8021q (no `ip link add ... type vlan`). On interface --iface,
as --ip on VLAN --vid with the interface's MAC, it:

- answers Neighbor Solicitations for --ip that arrive tagged with --vid (to its
  solicited-node group or to it; hop limit 255 and a correct ICMPv6 checksum required, as
  RFC 4861 7.1.1 says) with a solicited Neighbor Advertisement, tagged the same;
- counts UDP datagrams to --ip:--port tagged with --vid (unique u64 LE sequence numbers, the
  priority bits seen, the UDP checksum verified: zero is bad in IPv6);
- with --send-to: resolves that address by a tagged Neighbor Solicitation to its
  solicited-node group (no static neighbour), then sends --count UDP datagrams tagged with
  --vid at --rate, each with its checksum computed.

Frames arrive tagged or with the tag in PACKET_AUXDATA (vlan_raw.py's parse). It stops on
SIGTERM, after --duration, or --idle seconds after the last datagram once one came; prints
a JSON summary. --ready FILE: created once the socket is bound."""
import ipaddress
import os
import signal
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ufpkt import csum, mac_bytes  # noqa: E402
from vlan_raw import count_seq, host_args, open_raw, recv_tagged, summary, tag  # noqa: E402

stop = False


def on_term(*_):
    global stop
    stop = True


def ip6(a):
    return ipaddress.IPv6Address(a).packed


def snm(addr_b):
    """the solicited-node group of an address, and its 33:33 MAC"""
    g = ip6("ff02::1:ff00:0")[:13] + addr_b[13:]
    return g, b"\x33\x33" + g[12:]


def l4_sum(src, dst, nh, body):
    return csum(src + dst + struct.pack("!IxxxB", len(body), nh) + body)


def ip6_frame(dst_mac, src_mac, src, dst, nh, body, hlim):
    hdr = struct.pack("!IHBB", 6 << 28, len(body), nh, hlim) + src + dst
    return dst_mac + src_mac + b"\x86\xdd" + hdr + body


def icmp6(src, dst, typ, rest):
    body = struct.pack("!BBH", typ, 0, 0) + rest
    ck = l4_sum(src, dst, 58, body)
    return body[:2] + struct.pack("!H", ck) + body[4:]


def mac_str(b):
    return ":".join("%02x" % x for x in b)


def main():
    args = host_args()
    signal.signal(signal.SIGTERM, on_term)

    s, my_mac = open_raw(args)
    me, mac_b = ip6(args.ip), mac_bytes(my_mac)
    my_snm, _ = snm(me)
    peer = ip6(args.send_to) if args.send_to else None
    res = {"received": 0, "unique": 0, "dups": 0, "bad_csum": 0, "pcp": [],
           "ns_answered": 0, "ns_bad": 0, "resolved": "", "sent": 0}
    seen, pcps = set(), set()
    peer_mac, next_ns, sent = None, 0.0, 0
    t0 = time.monotonic()
    last_rx = None
    send_t0 = None
    while not stop:
        now = time.monotonic()
        if now - t0 > args.duration or (last_rx is not None and now - last_rx > args.idle and
                                        (not args.send_to or sent >= args.count)):
            break
        if peer is not None and peer_mac is None and now >= next_ns:
            g, gmac = snm(peer)
            ns = icmp6(me, g, 135, b"\0\0\0\0" + peer + b"\x01\x01" + mac_b)
            s.send(tag(ip6_frame(gmac, mac_b, me, g, 58, ns, 255), args.vid))
            next_ns = now + 0.2
        if peer_mac is not None and sent < args.count:
            if send_t0 is None:
                send_t0 = now
            while sent < args.count and sent < (now - send_t0) * args.rate + 1:
                payload = struct.pack("<Q", sent) + bytes(max(args.size, 8) - 8)
                u = struct.pack("!HHHH", 41000, args.send_port, 8 + len(payload), 0) + payload
                ck = l4_sum(me, peer, 17, u) or 0xFFFF
                u = u[:6] + struct.pack("!H", ck) + u[8:]
                s.send(tag(ip6_frame(peer_mac, mac_b, me, peer, 17, u, 64), args.vid))
                sent += 1
            if sent >= args.count and last_rx is None:
                last_rx = time.monotonic()  # a sender alone: stop --idle after the last
        p = recv_tagged(s, args)
        if p is None:
            continue
        pcp, f = p
        if f[12:14] != b"\x86\xdd" or len(f) < 54:
            continue
        plen, nh, hlim = struct.unpack("!HBB", f[18:22])
        src, dst = f[22:38], f[38:54]
        body = f[54:54 + plen]
        if nh == 58 and len(body) >= 24 and dst in (me, my_snm):
            typ = body[0]
            if typ == 135 and body[8:24] == me:
                if hlim != 255 or l4_sum(src, dst, 58, body) != 0:
                    res["ns_bad"] += 1
                    continue
                # the solicitation's source link-layer option, else the frame's source
                smac = f[6:12]
                if len(body) >= 32 and body[24] == 1:
                    smac = body[26:32]
                na = icmp6(me, src, 136, struct.pack("!I", 0x60000000) + me + b"\x02\x01" +
                           mac_b)
                s.send(tag(ip6_frame(smac, mac_b, me, src, 58, na, 255), args.vid))
                res["ns_answered"] += 1
            elif typ == 136 and peer is not None and body[8:24] == peer:
                tmac = f[6:12]
                if len(body) >= 32 and body[24] == 2:
                    tmac = body[26:32]
                peer_mac = tmac
                res["resolved"] = mac_str(tmac)
            continue
        if nh != 17 or dst != me or len(body) < 8:
            continue
        if args.port and struct.unpack("!H", body[2:4])[0] != args.port:
            continue
        res["received"] += 1
        pcps.add(pcp)
        if body[6:8] == b"\0\0" or l4_sum(src, dst, 17, body) != 0:
            res["bad_csum"] += 1
        count_seq(res, seen, body[8:])
        last_rx = time.monotonic()
    summary(res, seen, pcps, sent)


if __name__ == "__main__":
    main()
