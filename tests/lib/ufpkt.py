"""Frames and pcap files for udpfan's tests: an implementation independent of the C code.

Checksums here are computed from scratch over the whole header (RFC 791 / RFC 768), so a
test that compares udpfan's output with these frames checks udpfan's incremental
arithmetic against a direct computation.
"""
import ipaddress
import struct

ETH_IPV4 = 0x0800
ETH_ARP = 0x0806


def mac_bytes(mac):
    return bytes(int(x, 16) for x in mac.split(":"))


def ip_bytes(ip):
    return ipaddress.IPv4Address(ip).packed


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def ipv4_header(src, dst, payload_len, proto=17, ttl=64, ident=0, tos=0, df=True, frag=0,
                options=b""):
    ihl = 5 + len(options) // 4
    flags_frag = (0x4000 if df else 0) | frag
    hdr = struct.pack("!BBHHHBBH4s4s", (4 << 4) | ihl, tos, ihl * 4 + payload_len, ident,
                      flags_frag, ttl, proto, 0, ip_bytes(src), ip_bytes(dst)) + options
    ck = csum(hdr)
    return hdr[:10] + struct.pack("!H", ck) + hdr[12:]


def udp_datagram(src, dst, sport, dport, payload, checksum=True):
    """checksum: True (computed), False (0: none), or "partial": the folded pseudo-header
    sum, not complemented, as a sender that leaves the checksum to offload writes it (Linux
    CHECKSUM_PARTIAL; what a capture on the sending host or a veth peer sees)"""
    length = 8 + len(payload)
    hdr = struct.pack("!HHHH", sport, dport, length, 0)
    if not checksum:
        return hdr + payload
    pseudo = ip_bytes(src) + ip_bytes(dst) + struct.pack("!BBH", 0, 17, length)
    if checksum == "partial":
        return hdr[:6] + struct.pack("!H", (~csum(pseudo)) & 0xFFFF) + payload
    ck = csum(pseudo + hdr + payload)
    if ck == 0:
        ck = 0xFFFF
    return hdr[:6] + struct.pack("!H", ck) + payload


def eth(dst, src, etype, body):
    return mac_bytes(dst) + mac_bytes(src) + struct.pack("!H", etype) + body


def udp_frame(dst_mac, src_mac, src, dst, sport, dport, payload, ttl=64, ident=0, tos=0,
              df=True, udp_checksum=True, options=b"", pad_to=0):
    udp = udp_datagram(src, dst, sport, dport, payload, udp_checksum)
    ip = ipv4_header(src, dst, len(udp), ttl=ttl, ident=ident, tos=tos, df=df, options=options)
    f = eth(dst_mac, src_mac, ETH_IPV4, ip + udp)
    if len(f) < pad_to:
        f += b"\0" * (pad_to - len(f))
    return f


def udp6_frame(dst_mac, src_mac, src, dst, sport, dport, payload, hlim=64):
    """Ethernet / IPv6 / UDP, the checksum computed (mandatory in IPv6)"""
    s6 = ipaddress.IPv6Address(src).packed
    d6 = ipaddress.IPv6Address(dst).packed
    length = 8 + len(payload)
    hdr = struct.pack("!HHHH", sport, dport, length, 0)
    ck = csum(s6 + d6 + struct.pack("!IxxxB", length, 17) + hdr + payload) or 0xFFFF
    udp = hdr[:6] + struct.pack("!H", ck) + payload
    ip = struct.pack("!IHBB", 6 << 28, length, 17, hlim) + s6 + d6
    return eth(dst_mac, src_mac, 0x86DD, ip + udp)


def arp_frame(op, eth_dst, sha, sip, tha, tip):
    body = struct.pack("!HHBBH6s4s6s4s", 1, ETH_IPV4, 6, 4, op, mac_bytes(sha), ip_bytes(sip),
                       mac_bytes(tha), ip_bytes(tip))
    f = eth(eth_dst, sha, ETH_ARP, body)
    return f + b"\0" * (60 - len(f))


def icmp_echo(dst_mac, src_mac, src, dst, ident=1, seq=1, data=b"ping"):
    body = struct.pack("!BBHHH", 8, 0, 0, ident, seq) + data
    body = body[:2] + struct.pack("!H", csum(body)) + body[4:]
    ip = ipv4_header(src, dst, len(body), proto=1)
    return eth(dst_mac, src_mac, ETH_IPV4, ip + body)


def seq_payload(seq, size):
    """The payload layout udpfan-gen and the UDP ladder's generator use: u64 LE sequence."""
    size = max(size, 8)
    return struct.pack("<Q", seq) + bytes((seq + i) & 0xFF for i in range(size - 8))


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1_700_000_000, i, len(fr), len(fr)))
            f.write(fr)


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        return []
    magic = struct.unpack("<I", data[:4])[0]
    endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    out, off = [], 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(endian + "IIII", data[off:off + 16])
        off += 16
        out.append(data[off:off + incl])
        off += incl
    return out


def parse_udp(frame):
    """(src_mac, dst_mac, src_ip, dst_ip, sport, dport, ttl, payload) of an Eth/IPv4/UDP
    frame, after checking both checksums from scratch; raises ValueError otherwise."""
    if len(frame) < 42 or struct.unpack("!H", frame[12:14])[0] != ETH_IPV4:
        raise ValueError("not IPv4")
    ip = frame[14:]
    ihl = (ip[0] & 0xF) * 4
    tot = struct.unpack("!H", ip[2:4])[0]
    if csum(ip[:ihl]) != 0:
        raise ValueError("bad IPv4 header checksum")
    if ip[9] != 17:
        raise ValueError("not UDP")
    udp = ip[ihl:tot]
    ulen = struct.unpack("!H", udp[4:6])[0]
    if ulen != len(udp):
        raise ValueError("UDP length %d != %d" % (ulen, len(udp)))
    ck = struct.unpack("!H", udp[6:8])[0]
    src, dst = ip[12:16], ip[16:20]
    if ck != 0:
        pseudo = src + dst + struct.pack("!BBH", 0, 17, ulen)
        if csum(pseudo + udp) != 0:
            raise ValueError("bad UDP checksum")
    return (frame[6:12], frame[0:6], str(ipaddress.IPv4Address(src)),
            str(ipaddress.IPv4Address(dst)), struct.unpack("!H", udp[0:2])[0],
            struct.unpack("!H", udp[2:4])[0], ip[8], udp[8:])
