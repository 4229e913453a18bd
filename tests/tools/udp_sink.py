#!/usr/bin/env python3
"""Count sequence-numbered UDP datagrams on kernel sockets: received, distinct, duplicates,
reordered, the sequence numbers seen, and who sent them (address and port as recvfrom says).
Stops after --idle seconds without a datagram (once at least one arrived, or after --timeout)
or on SIGTERM, then prints a JSON summary.

The summary's "kernel" key holds what the kernel of the sink's network namespace counted
meanwhile (/proc/net/snmp): UDP datagrams refused for a bad checksum (InCsumErrors), all
refused UDP datagrams (InErrors), IPv4 headers refused (InHdrErrors). A datagram the kernel
refuses never reaches the socket, so a copy with a bad checksum shows only there."""
import argparse
import json
import select
import signal
import socket
import struct
import time

stop = False


def snmp():
    """this network namespace's /proc/net/snmp, {"Udp": {...}, "Ip": {...}}"""
    out = {}
    with open("/proc/net/snmp") as f:
        lines = [ln.split() for ln in f]
    for i in range(0, len(lines) - 1, 2):
        k = lines[i][0].rstrip(":")
        out[k] = dict(zip(lines[i][1:], map(int, lines[i + 1][1:])))
    return out


def snmp6():
    """this network namespace's /proc/net/snmp6 ({"Udp6InCsumErrors": n, ...}); {} without
    IPv6"""
    try:
        with open("/proc/net/snmp6") as f:
            return {k: int(v) for k, v in (ln.split() for ln in f if ln.strip())}
    except OSError:
        return {}


def kernel_delta(a, b, a6=None, b6=None):
    a6, b6 = a6 or {}, b6 or {}

    def d6(k):
        return b6.get(k, 0) - a6.get(k, 0)

    return {"udp_in_csum_errors": b["Udp"]["InCsumErrors"] - a["Udp"]["InCsumErrors"],
            "udp_in_errors": b["Udp"]["InErrors"] - a["Udp"]["InErrors"],
            "udp_rcvbuf_errors": b["Udp"]["RcvbufErrors"] - a["Udp"]["RcvbufErrors"],
            "ip_in_hdr_errors": b["Ip"]["InHdrErrors"] - a["Ip"]["InHdrErrors"],
            # IPv6 (a --bind :: socket takes both families): the same, from snmp6
            "udp6_in_csum_errors": d6("Udp6InCsumErrors"),
            "udp6_in_errors": d6("Udp6InErrors"),
            "ip6_in_hdr_errors": d6("Ip6InHdrErrors")}


def on_term(*_):
    global stop
    stop = True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, action="append", required=True)
    ap.add_argument("--bind", default="0.0.0.0",
                    help="address to bind; an IPv6 one (\"::\") takes IPv4 too (V6ONLY off)")
    ap.add_argument("--join", action="append", default=[],
                    help="GROUP%%IFACE: join that IPv6 multicast group on IFACE (with --bind ::)")
    ap.add_argument("--idle", type=float, default=2.0)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--ready", help="touch this file once bound")
    ap.add_argument("--list", action="store_true", help="include every sequence number seen")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, on_term)

    socks = {}
    for p in args.port:
        if ":" in args.bind:
            s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        else:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        s.bind((args.bind, p))
        for j in args.join:
            group, _, iface = j.partition("%")
            mreq = socket.inet_pton(socket.AF_INET6, group) + struct.pack(
                "@I", socket.if_nametoindex(iface))
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_JOIN_GROUP, mreq)
        socks[s.fileno()] = (s, p)
    snmp0, snmp60 = snmp(), snmp6()
    if args.ready:
        open(args.ready, "w").close()
    res = {p: {"received": 0, "duplicates": 0, "reordered": 0, "reordered_per_flow": 0,
               "bad": 0, "max_seq": -1, "seqs": set(), "senders": {}, "flow_max": {}}
           for p in args.port}
    t0 = time.monotonic()
    last = None
    while not stop:
        now = time.monotonic()
        if last is not None and now - last > args.idle:
            break
        if last is None and now - t0 > args.timeout:
            break
        r, _, _ = select.select(list(socks), [], [], 0.1)
        for fd in r:
            s, p = socks[fd]
            while True:
                try:
                    data, addr = s.recvfrom(65535, socket.MSG_DONTWAIT)
                except BlockingIOError:
                    break
                last = time.monotonic()
                c = res[p]
                c["received"] += 1
                # an IPv6 socket names an IPv4 sender ::ffff:a.b.c.d
                key = ("[%s]:%d" if ":" in addr[0] else "%s:%d") % addr[:2]
                c["senders"][key] = c["senders"].get(key, 0) + 1
                if len(data) < 8:
                    c["bad"] += 1
                    continue
                seq = struct.unpack("<Q", data[:8])[0]
                if seq in c["seqs"]:
                    c["duplicates"] += 1
                elif seq < c["max_seq"]:
                    c["reordered"] += 1
                if seq < c["flow_max"].get(key, -1):
                    c["reordered_per_flow"] += 1
                c["flow_max"][key] = max(seq, c["flow_max"].get(key, -1))
                c["seqs"].add(seq)
                c["max_seq"] = max(c["max_seq"], seq)
    out = {}
    for p, c in res.items():
        seqs = sorted(c.pop("seqs"))
        c.pop("flow_max")
        c["distinct"] = len(seqs)
        if args.list:
            c["seq_list"] = seqs
        out[str(p)] = c
    out["kernel"] = kernel_delta(snmp0, snmp(), snmp60, snmp6())
    print(json.dumps(out))


if __name__ == "__main__":
    main()
