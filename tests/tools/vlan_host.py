#!/usr/bin/env python3
"""A host on an 802.1Q VLAN, in user space on a raw AF_PACKET socket: for kernels without the
8021q module (no `ip link add ... type vlan`), where the kernel itself can neither answer ARP
nor receive UDP on a VLAN. On interface --iface, as --ip on VLAN --vid with the interface's
MAC, it:

- answers ARP requests for --ip that arrive tagged with --vid (the reply tagged the same);
- counts UDP datagrams to --ip:--port tagged with --vid (unique u64 LE sequence numbers, the
  priority bits seen, the UDP checksum verified);
- with --send-to: resolves that address by a tagged ARP request (no static neighbour), then
  sends --count datagrams tagged with --vid at --rate.

A tag arrives in the frame or, where the kernel moved it to the skb's metadata (a veth or
bridge port with rxvlan), in PACKET_AUXDATA; both count. Frames on other VLANs, untagged
frames and our own are ignored. It stops on SIGTERM, after --duration, or --idle seconds
after the last datagram once one came; prints a JSON summary. --ready FILE: created once the
socket is bound."""
import os
import signal
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ufpkt import arp_frame, csum, ip_bytes, mac_bytes, udp_frame  # noqa: E402
from vlan_raw import count_seq, host_args, open_raw, recv_tagged, summary, tag  # noqa: E402

stop = False


def on_term(*_):
    global stop
    stop = True


def main():
    args = host_args()
    signal.signal(signal.SIGTERM, on_term)

    s, my_mac = open_raw(args)
    me, mac_b = ip_bytes(args.ip), mac_bytes(my_mac)
    res = {"received": 0, "unique": 0, "dups": 0, "bad_csum": 0, "pcp": [],
           "arp_answered": 0, "resolved": "", "sent": 0}
    seen, pcps = set(), set()
    peer_mac, next_arp, sent = None, 0.0, 0
    t0 = time.monotonic()
    last_rx = None
    send_t0 = None
    while not stop:
        now = time.monotonic()
        if now - t0 > args.duration or (last_rx is not None and now - last_rx > args.idle and
                                        (not args.send_to or sent >= args.count)):
            break
        if args.send_to and peer_mac is None and now >= next_arp:
            s.send(tag(arp_frame(1, "ff:ff:ff:ff:ff:ff", my_mac, args.ip, "00:00:00:00:00:00",
                                 args.send_to), args.vid))
            next_arp = now + 0.2
        if args.send_to and peer_mac is not None and sent < args.count:
            if send_t0 is None:
                send_t0 = now
            while sent < args.count and sent < (now - send_t0) * args.rate + 1:
                f = udp_frame(peer_mac, my_mac, args.ip, args.send_to, 41000, args.send_port,
                              struct.pack("<Q", sent) + bytes(max(args.size, 8) - 8))
                s.send(tag(f, args.vid))
                sent += 1
            if sent >= args.count and last_rx is None:
                last_rx = time.monotonic()  # a sender alone: stop --idle after the last
        p = recv_tagged(s, args)
        if p is None:
            continue
        pcp, f = p
        etype = f[12:14]
        if etype == b"\x08\x06" and len(f) >= 42:
            op = struct.unpack("!H", f[20:22])[0]
            sha, sip, tip = f[22:28], f[28:32], f[38:42]
            if op == 1 and tip == me and sha != mac_b:
                shs = ":".join("%02x" % b for b in sha)
                sips = socket.inet_ntoa(sip)
                s.send(tag(arp_frame(2, shs, my_mac, args.ip, shs, sips), args.vid))
                res["arp_answered"] += 1
            elif op == 2 and args.send_to and sip == ip_bytes(args.send_to):
                peer_mac = ":".join("%02x" % b for b in sha)
                res["resolved"] = peer_mac
            continue
        if etype != b"\x08\x00" or len(f) < 42 or f[23] != 17 or f[30:34] != me:
            continue
        ihl = (f[14] & 0xF) * 4
        u = 14 + ihl
        if args.port and struct.unpack("!H", f[u + 2:u + 4])[0] != args.port:
            continue
        ulen = struct.unpack("!H", f[u + 4:u + 6])[0]
        res["received"] += 1
        pcps.add(pcp)
        if f[u + 6:u + 8] != b"\0\0":
            pseudo = f[26:34] + struct.pack("!BBH", 0, 17, ulen)
            if csum(pseudo + f[u:u + ulen]) != 0:
                res["bad_csum"] += 1
        count_seq(res, seen, f[u + 8:u + ulen])
        last_rx = time.monotonic()
    summary(res, seen, pcps, sent)


if __name__ == "__main__":
    main()
