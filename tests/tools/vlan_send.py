#!/usr/bin/env python3
"""Send 802.1Q-tagged UDP datagrams (IPv4, or IPv6 where --dst is an IPv6 address) from a raw
AF_PACKET socket: for kernels without the 8021q module (no `ip link add ... type vlan`). Prints
a JSON summary."""
import argparse
import json
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from ufpkt import udp6_frame, udp_frame  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iface", required=True)
    ap.add_argument("--dst-mac", required=True)
    ap.add_argument("--src-mac", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--dst", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--vid", type=int, default=5)
    ap.add_argument("--tpid", type=lambda v: int(v, 0), default=0x8100)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--rate", type=float, default=1000)
    ap.add_argument("--size", type=int, default=64)
    args = ap.parse_args()

    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((args.iface, 0))
    t0 = time.monotonic()
    sent = 0
    for n in range(args.count):
        payload = struct.pack("<Q", n) + bytes(max(args.size, 8) - 8)
        if ":" in args.dst:  # IPv6
            f = udp6_frame(args.dst_mac, args.src_mac, args.src, args.dst, 41000, args.port,
                           payload)
        else:
            f = udp_frame(args.dst_mac, args.src_mac, args.src, args.dst, 41000, args.port,
                          payload)
        s.send(f[:12] + struct.pack("!HH", args.tpid, args.vid) + f[12:])
        sent += 1
        ahead = (n + 1) / args.rate - (time.monotonic() - t0)
        if ahead > 0.001:
            time.sleep(ahead)
    print(json.dumps({"sent": sent, "seconds": round(time.monotonic() - t0, 3)}))


if __name__ == "__main__":
    main()
