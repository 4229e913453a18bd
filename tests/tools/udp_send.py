#!/usr/bin/env python3
"""Send sequence-numbered UDP datagrams (u64 LE sequence at the start of the payload) from a
kernel socket: a bounded count, at a bounded rate. Prints a JSON summary."""
import argparse
import ipaddress
import json
import socket
import struct
import time

UDP_SEGMENT = 103  # linux/udp.h

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dst", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--rate", type=float, default=10000, help="datagrams per second")
    ap.add_argument("--size", type=int, default=64, help="payload bytes (>= 8)")
    ap.add_argument("--sport", type=int, default=0, help="first source port (0: any)")
    ap.add_argument("--flows", type=int, default=1, help="source ports sport..sport+flows-1")
    ap.add_argument("--start-seq", type=int, default=0)
    ap.add_argument("--bind", default="", help="source address")
    ap.add_argument("--bind-count", type=int, default=1,
                    help="with --bind: that many consecutive source addresses, a socket "
                         "each (x --flows), the datagrams in turn over them")
    ap.add_argument("--gso", type=int, default=0,
                    help="datagrams per send call, joined by UDP_SEGMENT (GSO): the kernel "
                         "splits them where the device cannot carry them whole")
    args = ap.parse_args()

    socks = []
    binds = [args.bind]
    if args.bind and args.bind_count > 1:
        first = ipaddress.ip_address(args.bind)  # IPv4 or IPv6
        binds = [str(first + k) for k in range(args.bind_count)]
    # the family is the destination's: an IPv6 literal sends from an IPv6 socket
    fam = socket.AF_INET6 if ":" in args.dst else socket.AF_INET
    for addr in binds:
        for i in range(args.flows):
            s = socket.socket(fam, socket.SOCK_DGRAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
            if args.sport or addr:
                s.bind((addr, args.sport + i if args.sport else 0))
            if args.gso > 1:
                s.setsockopt(socket.SOL_UDP, UDP_SEGMENT, max(args.size, 8))
            socks.append(s)
    pad = bytes(max(args.size, 8) - 8)
    step = max(args.gso, 1)
    t0 = time.monotonic()
    sent = errors = 0
    for n in range(0, args.count, step):
        k = min(step, args.count - n)
        buf = b"".join(struct.pack("<Q", args.start_seq + n + i) + pad for i in range(k))
        try:
            socks[(n // step) % len(socks)].sendto(buf, (args.dst, args.port))
            sent += k
        except OSError:
            errors += k
        if args.rate > 0:
            ahead = (n + k) / args.rate - (time.monotonic() - t0)
            if ahead > 0.001:
                time.sleep(ahead)
    print(json.dumps({"sent": sent, "errors": errors, "seconds": round(time.monotonic() - t0, 3)}))


if __name__ == "__main__":
    main()
