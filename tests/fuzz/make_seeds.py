#!/usr/bin/env python3
"""Write the seed corpora of the frame, lcore-list and pool fuzzers (tests/fuzz/corpus/), built
with tests/lib/ufpkt.py (an implementation independent of udpfan's C). Run it again after
changing a seed; crash inputs found by fuzzing are added by hand as crash-<what> files and
are never rewritten here. The config fuzzer's seeds are config/ and tests/data/bad/; the
config diff fuzzer's are pairs of small files written here (the running one, a line "%%",
the new one).

    python3 tests/fuzz/make_seeds.py
"""
import os
import socket
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import ufpkt  # noqa: E402

US_MAC, US_IP, PORT = "02:18:00:00:00:10", "198.18.0.10", 5000
SRC_MAC, SRC_IP = "02:18:00:00:00:02", "198.18.0.2"
BCAST = "ff:ff:ff:ff:ff:ff"


def frames():
    udp = ufpkt.udp_frame(US_MAC, SRC_MAC, SRC_IP, US_IP, 41000, PORT, b"\0" * 8 + b"x" * 24)
    yield "udp", udp
    yield "udp-nocsum", ufpkt.udp_frame(US_MAC, SRC_MAC, SRC_IP, US_IP, 41000, PORT, b"y" * 8,
                                        udp_checksum=False, pad_to=60)
    yield "udp-options", ufpkt.udp_frame(US_MAC, SRC_MAC, SRC_IP, US_IP, 41000, PORT, b"z" * 16,
                                         options=b"\x01\x01\x01\x00")
    yield "udp-otherport", ufpkt.udp_frame(US_MAC, SRC_MAC, SRC_IP, US_IP, 41000, 5001, b"w" * 8)
    ip = ufpkt.ipv4_header(SRC_IP, US_IP, 16, frag=0x2000, df=False)
    yield "fragment", ufpkt.eth(US_MAC, SRC_MAC, ufpkt.ETH_IPV4, ip + b"\0" * 16)
    yield "icmp-echo", ufpkt.icmp_echo(US_MAC, SRC_MAC, SRC_IP, US_IP, data=b"ping" * 8)
    yield "arp-request", ufpkt.arp_frame(1, BCAST, SRC_MAC, SRC_IP, "00:00:00:00:00:00", US_IP)
    yield "arp-reply", ufpkt.arp_frame(2, US_MAC, SRC_MAC, SRC_IP, US_MAC, US_IP)
    yield "arp-gratuitous", ufpkt.arp_frame(1, BCAST, SRC_MAC, SRC_IP, BCAST, SRC_IP)
    yield "ipv6", ufpkt.eth(US_MAC, SRC_MAC, 0x86dd, b"\x60" + b"\0" * 53)
    yield "short", udp[:30]


US6, SRC6, LL6 = "2001:db8::10", "2001:db8:1::2", "fe80::2"


def ip6(a):
    return socket.inet_pton(socket.AF_INET6, a)


def csum6(src, dst, nh, msg):
    """the ones-complement checksum over the IPv6 pseudo-header and msg (field as given)"""
    s = ip6(src) + ip6(dst) + struct.pack("!IxxxB", len(msg), nh) + msg
    return ufpkt.csum(s)


def eth6(dst_mac, src_mac, src, dst, nh, msg, hlim=64):
    hdr = struct.pack("!IHBB", 6 << 28, len(msg), nh, hlim) + ip6(src) + ip6(dst)
    return ufpkt.eth(dst_mac, src_mac, 0x86dd, hdr + msg)


def udp6(src, dst, sport, dport, payload):
    u = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    c = csum6(src, dst, 17, u) or 0xffff
    return u[:6] + struct.pack("!H", c) + u[8:]


def icmp6(src, dst, body):
    m = body[:2] + b"\0\0" + body[4:]
    return m[:2] + struct.pack("!H", csum6(src, dst, 58, m)) + m[4:]


def frames6():
    yield "udp6", eth6(US_MAC, SRC_MAC, SRC6, US6, 17, udp6(SRC6, US6, 41000, PORT, b"v6" * 16))
    yield "udp6-ll", eth6(US_MAC, SRC_MAC, LL6, "fe80::10", 17,
                          udp6(LL6, "fe80::10", 41000, PORT, b"q" * 3))
    yield "hopopts", eth6(US_MAC, SRC_MAC, SRC6, US6, 0, b"\x11\0" + b"\0" * 6 +
                          udp6(SRC6, US6, 41000, PORT, b"h" * 8))
    yield "frag6", eth6(US_MAC, SRC_MAC, SRC6, US6, 44, b"\x11\0\0\x01" + b"\0" * 4 + b"f" * 16)
    sn = "ff02::1:ff00:10"
    ns = icmp6(SRC6, sn, bytes([135, 0, 0, 0, 0, 0, 0, 0]) + ip6(US6) +
               bytes([1, 1]) + ufpkt.mac_bytes(SRC_MAC))
    yield "ns", eth6("33:33:ff:00:00:10", SRC_MAC, SRC6, sn, 58, ns, hlim=255)
    na = icmp6(SRC6, US6, bytes([136, 0, 0, 0, 0x60, 0, 0, 0]) + ip6(SRC6) +
               bytes([2, 1]) + ufpkt.mac_bytes(SRC_MAC))
    yield "na", eth6(US_MAC, SRC_MAC, SRC6, US6, 58, na, hlim=255)
    echo = icmp6(SRC6, US6, bytes([128, 0, 0, 0, 0x12, 0x34, 0, 7]) + b"ping6" * 4)
    yield "echo6", eth6(US_MAC, SRC_MAC, SRC6, US6, 58, echo)


def ctlpath():
    """fuzz_ctlpath's inputs: records of a control byte (bits 0-5 ms, 6 tick, 7 poll), a
    16-bit length and a frame; its port is US_IP, 2001:db8::10 and fe80::10, its next hops
    198.18.0.20, 2001:db8::20 and fe80::1"""
    nh, nh6, nh_mac, zero = "198.18.0.20", "2001:db8::20", "02:18:00:00:00:20", "00:00:00:00:00:00"

    def rec(op, f):
        return bytes([op]) + struct.pack("!H", len(f)) + f

    def ndp(dst_mac, src_mac, src, dst, typ, flags, target, opt, opt_mac):
        m = bytes([typ, 0, 0, 0, flags, 0, 0, 0]) + ip6(target)
        if opt:
            m += bytes([opt, 1]) + ufpkt.mac_bytes(opt_mac)
        return eth6(dst_mac, src_mac, src, dst, 58, icmp6(src, dst, m), hlim=255)

    req = ufpkt.arp_frame(1, BCAST, SRC_MAC, SRC_IP, zero, US_IP)
    ns = ndp("33:33:ff:00:00:10", SRC_MAC, SRC6, "ff02::1:ff00:10", 135, 0, US6, 1, SRC_MAC)
    yield "arp", (rec(0x81, ufpkt.arp_frame(1, BCAST, nh_mac, nh, zero, nh)) +
                  rec(0x41, req) + rec(0x85, ufpkt.arp_frame(2, US_MAC, nh_mac, nh, US_MAC,
                                                             US_IP)))
    yield "ndp", (rec(0x41, ns) +
                  rec(0x81, ndp(US_MAC, nh_mac, nh6, US6, 136, 0x60, nh6, 2, nh_mac)) +
                  rec(0x81, ndp("33:33:ff:00:00:10", SRC_MAC, "::", "ff02::1:ff00:10", 135, 0,
                                US6, 0, None)))
    yield "ndp-group-lla", (rec(0x81, ndp(US_MAC, nh_mac, nh6, US6, 136, 0x60, nh6, 2, BCAST)) +
                            rec(0x81, ndp(US_MAC, nh_mac, nh6, US6, 136, 0x60, nh6, 2, zero)) +
                            rec(0x81, ndp(US_MAC, nh_mac, nh6, US6, 136, 0x60, nh6, 2,
                                          "01:00:5e:00:00:01")) +
                            rec(0x81, ndp("33:33:ff:00:00:10", nh_mac, nh6, "ff02::1:ff00:10",
                                          135, 0, US6, 1, "33:33:00:00:00:01")))
    echo6 = eth6(US_MAC, SRC_MAC, SRC6, US6, 58,
                 icmp6(SRC6, US6, bytes([128, 0, 0, 0, 0x12, 0x34, 0, 7]) + b"ping6" * 4))
    yield "echo", (rec(0x80, ufpkt.icmp_echo(US_MAC, SRC_MAC, SRC_IP, US_IP)) * 8 +
                   rec(0xbf, echo6) * 8)
    yield "flood", (rec(0x00, req) + rec(0x01, ns)) * 40


def write(d, name, data):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


LIS2 = """ports:
  - { name: wan, device: net_ring0, ip: 10.0.0.10/24, gateway: 10.0.0.1 }
  - { name: lan, device: net_ring1, ip: 10.0.2.1/24, ip6: ["2001:db8::1/64"] }
listeners:
  - name: a
    port: wan
    udp_port: 2055
    destinations:
%s    rules:
%s  - name: b
    port: wan
    udp_port: 6343
    destinations:
%s"""
X = "      - { ip: 10.0.0.20, udp_port: 9000 }\n"
Y = "      - { ip: 10.0.2.21, udp_port: 9000, port: lan, source: original }\n"
Z = "      - { ip: \"2001:db8::22\", udp_port: 9000, port: lan }\n"
P = ("      - pool: { balance: hash-sender, members: [ { ip: 10.0.2.31, udp_port: 9 },"
     " { ip: 10.0.2.32, udp_port: 9 } ] }\n")
R = "      - { from: 192.0.2.0/24, to: [0] }\n"
R2 = "      - { from: 0.0.0.0/0, to: [1] }\n"
ONE = """eal: { lcores: "0-1" }
ports:
  - { name: wan, device: net_ring0, ip: 10.0.0.10/24 }
listen: { port: wan, udp_port: 5000 }
destinations:
%sforward: { udp_checksum: %s }
stats: { interval_s: %s }
"""
D0 = "  - { ip: 10.0.0.20, udp_port: 6000 }\n"
D1 = "  - { ip: 10.0.0.21, udp_port: 6001, ttl: 9 }\n"
D2 = "  - { ip: 10.0.0.22, udp_port: 6002, sample: 4 }\n"


def cfgdiff_pairs():
    """(name, running file, new file): each kind of change reload's diff tells apart"""
    one = ONE % (D0 + D1 + D2, "compute", "1")
    yield "same", one, one
    yield "added", one, ONE % (D0 + D1 + D2 + "  - { ip: 10.0.0.23, udp_port: 1 }\n",
                               "compute", "1")
    yield "removed", one, ONE % (D0 + D2, "compute", "1")
    yield "reordered", one, ONE % (D2 + D0 + D1, "compute", "1")
    yield "changed", one, ONE % (D0 + D1.replace("ttl: 9", "ttl: 8") + D2, "compute", "1")
    yield "forward", one, ONE % (D0 + D1 + D2, "zero", "1")
    yield "stats", one, ONE % (D0 + D1 + D2, "compute", "2")
    yield "restart", one, one.replace("5000", "5001")
    lis = LIS2 % (X + Y, R + R2, Z + P)
    yield "listeners-same", lis, lis
    yield "listener-move", LIS2 % (X + Y, R, Z), LIS2 % (X, R, Y + Z)
    yield "listener-move-up", LIS2 % (X + Y, R, Z), LIS2 % (Z + X, R, Y)
    yield "rule-move", LIS2 % (X + Y, R + R2, Z), (LIS2 % (X + Y, R2, Z)).replace(
        "    destinations:\n" + Z, "    destinations:\n" + Z + "    rules:\n" + R)
    yield "pool-members", lis, LIS2 % (X + Y, R + R2, Z + P.replace("10.0.2.32", "10.0.2.33"))
    yield "pool-move", lis, LIS2 % (X + P, R + R2, Z + Y)


def tcp_seg(src, dst, sport, dport, seq, ack, flags, data=b"", opts=b"", v6=False):
    """a TCP segment with its checksum over the pseudo-header of either family"""
    hdr = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, (20 + len(opts)) // 4 << 4, flags,
                      65535, 0, 0) + opts
    seg = hdr + data
    if v6:
        ph = ip6(src) + ip6(dst) + struct.pack("!IxxxB", len(seg), 6)
    else:
        ph = socket.inet_aton(src) + socket.inet_aton(dst) + struct.pack("!xBH", 6, len(seg))
    ck = ufpkt.csum(ph + seg)
    return seg[:16] + struct.pack("!H", ck) + seg[18:]


def hc_frames():
    """fuzz_hc's seeds: byte 0 as in fuzz_hc.c (1 the HTTP path, 2 ready, 8 checksums made
    right, 16 the ACK number made the cookie's + 1), then the frame"""
    def v4(seg):
        return ufpkt.eth(US_MAC, SRC_MAC, ufpkt.ETH_IPV4,
                         ufpkt.ipv4_header(SRC_IP, US_IP, len(seg), proto=6) + seg)

    def v6(seg):
        return eth6(US_MAC, SRC_MAC, SRC6, US6, 6, seg)

    req = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    mss = b"\x02\x04\x05\xb4"
    yield "syn", b"\x03", v4(tcp_seg(SRC_IP, US_IP, 40000, 8080, 1000, 0, 0x02, opts=mss))
    yield "syn-other-port", b"\x03", v4(tcp_seg(SRC_IP, US_IP, 40000, 22, 1000, 0, 0x02))
    yield "ack", b"\x1b", v4(tcp_seg(SRC_IP, US_IP, 40000, 8080, 1001, 0, 0x10))
    yield "get", b"\x1b", v4(tcp_seg(SRC_IP, US_IP, 40000, 8080, 1001, 0, 0x18, req))
    yield "get-503", b"\x19", v4(tcp_seg(SRC_IP, US_IP, 40000, 8080, 1001, 0, 0x18, req))
    yield "get-fin", b"\x1b", v4(tcp_seg(SRC_IP, US_IP, 40000, 8080, 1001, 0, 0x19, req))
    yield "head", b"\x1b", v4(tcp_seg(SRC_IP, US_IP, 40000, 8080, 1001, 0, 0x18,
                                      b"HEAD /healthz HTTP/1.0\r\n\r\n"))
    yield "split", b"\x1b", v4(tcp_seg(SRC_IP, US_IP, 40000, 8080, 1001, 0, 0x18, req[:20]))
    yield "fin", b"\x1a", v4(tcp_seg(SRC_IP, US_IP, 40000, 8080, 1001, 0, 0x11))
    yield "rst", b"\x03", v4(tcp_seg(SRC_IP, US_IP, 40000, 8080, 1001, 0, 0x04))
    yield "bad-cookie", b"\x03", v4(tcp_seg(SRC_IP, US_IP, 40000, 8080, 1001, 7, 0x10))
    yield "syn6", b"\x03", v6(tcp_seg(SRC6, US6, 40000, 8080, 5, 0, 0x02, opts=mss, v6=True))
    yield "get6", b"\x1b", v6(tcp_seg(SRC6, US6, 40000, 8080, 6, 0, 0x18, req, v6=True))


def main():
    corpus = os.path.join(HERE, "corpus")
    for name, b0, f in hc_frames():
        write(os.path.join(corpus, "hc"), name, b0 + f)
    for name, f in frames():
        # classify: byte 0 = RX checksum flags (0: unknown) and listen (bit 4 clear: on)
        write(os.path.join(corpus, "classify"), name, b"\x00" + f)
        if name.startswith(("arp", "icmp")):
            write(os.path.join(corpus, "arp_icmp"), name, f)
    write(os.path.join(corpus, "classify"), "udp-ipck-good", b"\x0a" + dict(frames())["udp"])
    # ipv6: byte 0 as in fuzz_ipv6.c (RX L4 flag, keep port, keep address, listen)
    for name, f in frames6():
        write(os.path.join(corpus, "ipv6"), name, b"\x00" + f)
    write(os.path.join(corpus, "ipv6"), "udp6-keep", b"\x0e" + dict(frames6())["udp6"])
    for name, f in ctlpath():
        write(os.path.join(corpus, "ctlpath"), name, f)
    for i, s in enumerate(["0-1", "0,1,2", "0@0,1@0,2@1", "3-5,7,9-10", "0-127", "1,"]):
        write(os.path.join(corpus, "lcores"), "seed%d" % i, b"\x20" + s.encode())
    # pool: the first size (2 bytes), then operations (op << 14 | member), as in fuzz_pool.c
    for name, first, ops in [("add-64", 64, [(0, 64)]), ("remove-65", 65, [(1, 32)]),
                             ("grow-1", 1, [(0, 5), (0, 9), (0, 700)]),
                             ("shrink-300", 300, [(1, 0), (1, 150), (1, 297)]),
                             ("down-up-8", 8, [(2, 3), (2, 5), (3, 3), (1, 5), (3, 4)]),
                             ("all-down-2", 2, [(2, 0), (2, 1), (0, 7), (3, 0)])]:
        seed = struct.pack(">H", first - 1) + b"".join(struct.pack(">H", o << 14 | m)
                                                        for o, m in ops)
        write(os.path.join(corpus, "pool"), name, seed)
    os.makedirs(os.path.join(corpus, "config"), exist_ok=True)
    for name, a, b in cfgdiff_pairs():
        write(os.path.join(corpus, "cfgdiff"), name, (a + "%%\n" + b).encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
