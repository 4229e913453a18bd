#!/usr/bin/env python3
"""eal suite: udpfan on net_pcap (no hugepages). Frames go in from a pcap file and come out
in another; every output frame is compared byte for byte with one computed here from
scratch (tests/lib/ufpkt.py), and the ledger identities are checked on the final stats."""
import ipaddress
import os
import struct
import subprocess

from ufpkt import (arp_frame, csum, eth, icmp_echo, ipv4_header, read_pcap, seq_payload,
                   udp_datagram, udp_frame, write_pcap, mac_bytes, ip_bytes)
from ufrun import PCAP_MAC, UDPFAN, Suite, final, ledger, run_udpfan, tmpdir

PORT_MAC = PCAP_MAC % 0
PORT_IP = "198.18.0.10"
SENDER_MAC = "02:18:00:00:00:02"
SENDER_IP = "198.18.0.2"
LISTEN = 5000


def dests(n):
    return [{"ip": "198.18.0.%d" % (21 + i), "udp_port": 6000 + i,
             "mac": "02:18:00:00:00:%02x" % (0x21 + i), "ttl": 64 - i} for i in range(n)]


def config(workdir, dlist, extra_port="", forward="", rules="", eal_extra=""):
    lines = ["eal: { lcores: \"0-1\", no_huge: true, memory_mb: 256, file_prefix: ufeal%s }"
             % eal_extra,
             "ports:",
             "  - name: wan",
             "    device: \"net_pcap0,rx_pcap=%s/in.pcap,tx_pcap=%s/out.pcap\"" % (workdir,
                                                                                  workdir),
             "    ip: %s/24" % PORT_IP]
    if extra_port:
        lines.append(extra_port)
    lines += ["listen: { port: wan, udp_port: %d }" % LISTEN, "destinations:"]
    for d in dlist:
        kv = ", ".join("%s: %s" % (k, ('"%s"' % v) if k == "mac" else v) for k, v in d.items())
        lines.append("  - { %s }" % kv)
    if rules:
        lines.append(rules)
    lines.append("forward: { %s }" % forward if forward else "")
    lines.append("stats: { interval_s: 0.5 }")
    lines.append("arp: { gratuitous: true }")
    return "\n".join(lines) + "\n"


def inputs(partial=False):
    """A varied set of datagrams: sizes around the padding edge and up to 1472 bytes, with
    and without UDP checksum, with IP options, with Ethernet padding, DSCP and ECN bits.
    partial: the checksums are partial (the pseudo-header sum a sender that leaves the
    checksum to offload writes), the IPv4 header checksums right."""
    frames, meta = [], []
    sizes = [0, 1, 7, 8, 17, 18, 33, 100, 512, 1000, 1400, 1472]
    for i, size in enumerate(sizes * 2):
        payload = seq_payload(i, size)[:size] if size >= 8 else bytes(range(size))
        sport = 40000 + i
        ident = 0x1000 + i * 7
        tos = [0, 0xB8, 0x03, 0x2A][i % 4]
        cks = i % 3 != 1
        if cks and partial:
            cks = "partial"
        opts = b"\x01\x01\x01\x00" if i % 5 == 2 else b""
        f = udp_frame(PORT_MAC, SENDER_MAC, SENDER_IP, PORT_IP, sport, LISTEN, payload,
                      ttl=17, ident=ident, tos=tos, udp_checksum=cks, options=opts,
                      pad_to=60 if i % 2 == 0 else 0)
        frames.append(f)
        meta.append({"sport": sport, "ident": ident, "tos": tos, "payload": payload})
    return frames, meta


def expected(meta, dlist, src_mode="ours", fixed_src=None, keep_sport=True, cfg_sport=None):
    out = []
    for m in meta:
        for d in dlist:
            src = {"ours": PORT_IP, "original": SENDER_IP}.get(src_mode, fixed_src)
            sport = m["sport"] if (keep_sport or src_mode == "original") else cfg_sport
            out.append(udp_frame(d["mac"], PORT_MAC, src, d["ip"], sport, d["udp_port"],
                                 m["payload"], ttl=d.get("ttl", 64), ident=m["ident"],
                                 tos=m["tos"] & 0xFC))
    return out


def split_out(path):
    frames = read_pcap(path)
    udp = [f for f in frames if f[12:14] == b"\x08\x00" and f[23] == 17]
    other = [f for f in frames if not (f[12:14] == b"\x08\x00" and f[23] == 17)]
    return udp, other


def garp():
    return arp_frame(1, "ff:ff:ff:ff:ff:ff", PORT_MAC, PORT_IP, "00:00:00:00:00:00", PORT_IP)


def check_frames(got, want):
    assert len(got) == len(want), "%d frames out, expected %d" % (len(got), len(want))
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            raise AssertionError("frame %d differs:\n got  %s\n want %s" % (i, g.hex(), w.hex()))


def case_fanout(n):
    wd = tmpdir()
    frames, meta = inputs()
    write_pcap(wd + "/in.pcap", frames)
    dl = dests(n)
    _, err, objs = run_udpfan(config(wd, dl), wd, duration=1.0)
    st = final(objs)
    f = ledger(st)
    assert f["rx"] == len(frames) and f["forwarded"] == len(frames), f
    assert f["copies_attempted"] == n * len(frames) and f["tx_ok"] == n * len(frames), f
    udp, other = split_out(wd + "/out.pcap")
    check_frames(udp, expected(meta, dl))
    assert other == [garp()], "expected one gratuitous ARP, got %r" % [o.hex() for o in other]
    for i, d in enumerate(st["destinations"]):
        assert d["tx_ok"] == len(frames) and d["state"] == "static", d
    assert st["ports"]["wan"]["opackets"] == n * len(frames) + 1, st["ports"]["wan"]


def case_own_sport_fanout():
    """Every destination `ours` with forward.source_port set: the simple plan's fan-out takes
    its form for templates that replace the sender's UDP port (uf_set.hdr_form,
    UF_HDR_PLAIN_OWN_SPORT), byte for byte; case_fanout covers the default form (kept)"""
    wd = tmpdir()
    frames, meta = inputs()
    write_pcap(wd + "/in.pcap", frames)
    dl = dests(4)
    _, _, objs = run_udpfan(config(wd, dl, forward="source_port: 7777"), wd)
    f = ledger(final(objs))
    assert f["forwarded"] == len(frames) and f["tx_ok"] == 4 * len(frames), f
    udp, _ = split_out(wd + "/out.pcap")
    check_frames(udp, expected(meta, dl, "ours", keep_sport=False, cfg_sport=7777))


def case_source_modes():
    wd = tmpdir()
    frames, meta = inputs()
    write_pcap(wd + "/in.pcap", frames)
    dl = dests(3)
    dl[0]["source"] = "ours"
    dl[1]["source"] = "original"
    dl[2]["source"] = "198.18.0.99"
    _, _, objs = run_udpfan(config(wd, dl, forward="source_port: 7777"), wd)
    ledger(final(objs))
    udp, _ = split_out(wd + "/out.pcap")
    want = []
    for m in meta:
        want += expected([m], [dl[0]], "ours", keep_sport=False, cfg_sport=7777)
        want += expected([m], [dl[1]], "original", keep_sport=False, cfg_sport=7777)
        want += expected([m], [dl[2]], "fixed", "198.18.0.99", keep_sport=False, cfg_sport=7777)
    check_frames(udp, want)


def case_zero_checksum():
    wd = tmpdir()
    frames, meta = inputs()
    write_pcap(wd + "/in.pcap", frames)
    dl = dests(2)
    _, _, objs = run_udpfan(config(wd, dl, forward="udp_checksum: zero"), wd)
    ledger(final(objs))
    udp, _ = split_out(wd + "/out.pcap")
    want = []
    for w in expected(meta, dl):
        ihl = (w[14] & 0xF) * 4
        o = 14 + ihl + 6
        want.append(w[:o] + b"\0\0" + w[o + 2:])
    check_frames(udp, want)


def case_bad_checksum_carried():
    """A datagram whose UDP checksum is wrong leaves with a wrong checksum: the corruption
    reaches the receiver, which drops it, instead of being laundered by a fresh sum."""
    wd = tmpdir()
    good = udp_frame(PORT_MAC, SENDER_MAC, SENDER_IP, PORT_IP, 40000, LISTEN, b"x" * 40)
    o = 14 + 20 + 6
    bad = good[:o] + struct.pack("!H", struct.unpack("!H", good[o:o + 2])[0] ^ 0x0101) + \
        good[o + 2:]
    write_pcap(wd + "/in.pcap", [bad])
    _, err, objs = run_udpfan(config(wd, dests(2)), wd)
    st = final(objs)
    ledger(st)
    # net_pcap gives no checksum verdicts (docs/pmd-quirks.md, "RX checksum verdicts"): the
    # wrong sum is not the NIC's to drop, so it is carried
    assert st["ports"]["wan"]["rx_checksum"] == "none", st["ports"]["wan"]
    assert "port wan: RX checksum offloads: none (not trusted on this PMD" in err, err[-2000:]
    udp, _ = split_out(wd + "/out.pcap")
    assert len(udp) == 2
    for f in udp:
        ulen = struct.unpack("!H", f[38:40])[0]
        pseudo = f[26:30] + f[30:34] + struct.pack("!BBH", 0, 17, ulen)
        assert csum(pseudo + f[34:34 + ulen]) != 0, "a corrupted datagram left with a valid sum"


def case_partial_checksum():
    """Datagrams with a partial UDP checksum (what a capture taken on the sending host, or a
    veth peer of a local sender, carries): net_pcap's quirk row says it may carry them, so
    udpfan completes each sum from the data and every copy is byte for byte what a
    from-scratch computation gives; fwd.csum_completed counts them. A wrong checksum among
    them stays wrong, a right one and a zero one take the usual paths."""
    wd = tmpdir()
    frames, meta = inputs(partial=True)
    n_partial = sum(1 for i in range(len(frames)) if i % 3 != 1)
    good = udp_frame(PORT_MAC, SENDER_MAC, SENDER_IP, PORT_IP, 40000, LISTEN, b"y" * 40)
    o = 14 + 20 + 6
    bad = good[:o] + struct.pack("!H", struct.unpack("!H", good[o:o + 2])[0] ^ 0x0101) + \
        good[o + 2:]
    write_pcap(wd + "/in.pcap", frames + [bad])
    dl = dests(2)
    _, _, objs = run_udpfan(config(wd, dl), wd)
    st = final(objs)
    f = ledger(st)
    assert f["csum_completed"] == n_partial, (f["csum_completed"], n_partial)
    assert f["forwarded"] == len(frames) + 1, f
    udp, _ = split_out(wd + "/out.pcap")
    check_frames(udp[:-2], expected(meta, dl))
    for c in udp[-2:]:
        ulen = struct.unpack("!H", c[38:40])[0]
        pseudo = c[26:30] + c[30:34] + struct.pack("!BBH", 0, 17, ulen)
        assert csum(pseudo + c[34:34 + ulen]) != 0, "a corrupted datagram left with a valid sum"
    # complete checksums in: nothing to complete
    wd = tmpdir()
    frames, _ = inputs()
    write_pcap(wd + "/in.pcap", frames)
    _, _, objs = run_udpfan(config(wd, dl), wd)
    assert final(objs)["fwd"]["csum_completed"] == 0, final(objs)["fwd"]


def case_drop_reasons():
    wd = tmpdir()
    ok = udp_frame(PORT_MAC, SENDER_MAC, SENDER_IP, PORT_IP, 40000, LISTEN, b"payload!")
    ip6 = eth(PORT_MAC, SENDER_MAC, 0x86DD, bytes(60))
    vlan = mac_bytes(PORT_MAC) + mac_bytes(SENDER_MAC) + b"\x81\x00\x00\x05" + ok[12:]
    tcp_body = bytes(20)
    tcp = eth(PORT_MAC, SENDER_MAC, 0x0800, ipv4_header(SENDER_IP, PORT_IP, 20, proto=6) +
              tcp_body)
    other_ip = udp_frame(PORT_MAC, SENDER_MAC, SENDER_IP, "198.18.0.11", 40000, LISTEN, b"x" * 8)
    other_port = udp_frame(PORT_MAC, SENDER_MAC, SENDER_IP, PORT_IP, 40000, LISTEN + 1,
                           b"x" * 8)
    other_mac = udp_frame("02:00:00:00:00:77", SENDER_MAC, SENDER_IP, PORT_IP, 40000, LISTEN,
                          b"x" * 8)
    truncated = ok[:30]
    bad_ipck = ok[:24] + bytes([ok[24] ^ 0xFF]) + ok[25:]
    dg = udp_datagram(SENDER_IP, PORT_IP, 40000, LISTEN, b"abcdefgh")
    bad_ulen = eth(PORT_MAC, SENDER_MAC, 0x0800,
                   ipv4_header(SENDER_IP, PORT_IP, len(dg)) + dg[:4] + b"\x00\x40" + dg[6:])
    frag = eth(PORT_MAC, SENDER_MAC, 0x0800,
               ipv4_header(SENDER_IP, PORT_IP, len(dg), df=False, frag=0x2000) + dg)
    arp_req = arp_frame(1, "ff:ff:ff:ff:ff:ff", SENDER_MAC, SENDER_IP, "00:00:00:00:00:00",
                        PORT_IP)
    arp_other = arp_frame(1, "ff:ff:ff:ff:ff:ff", SENDER_MAC, SENDER_IP, "00:00:00:00:00:00",
                          "198.18.0.77")
    ping = icmp_echo(PORT_MAC, SENDER_MAC, SENDER_IP, PORT_IP, data=b"0123456789")
    frames = [ok, ip6, vlan, tcp, other_ip, other_port, other_mac, truncated, bad_ipck,
              bad_ulen, frag, arp_req, arp_other, ping, ok]
    write_pcap(wd + "/in.pcap", frames)
    _, _, objs = run_udpfan(config(wd, dests(2)), wd)
    st = final(objs)
    f = ledger(st)
    want = {"not_ipv4": 1, "vlan_unknown": 1, "not_udp": 1, "not_for_us": 4, "malformed": 3,
            "fragment": 1}
    for k, v in f["drop"].items():
        assert v == want.get(k, 0), "drop.%s = %d, expected %d (%r)" % (k, v, want.get(k, 0),
                                                                      f["drop"])
    assert f["rx"] == len(frames) and f["forwarded"] == 2 and f["control"] == 2, f
    assert st["arp"]["requests_answered"] == 1 and st["icmp"]["echo_answered"] == 1, st
    udp, other = split_out(wd + "/out.pcap")
    assert len(udp) == 4
    reply = arp_frame(2, SENDER_MAC, PORT_MAC, PORT_IP, SENDER_MAC, SENDER_IP)
    assert reply in other, "no byte-exact ARP reply in %r" % [o.hex() for o in other]
    pongs = [o for o in other if o[12:14] == b"\x08\x00" and o[23] == 1]
    assert len(pongs) == 1
    p = pongs[0]
    assert p[0:6] == mac_bytes(SENDER_MAC) and p[6:12] == mac_bytes(PORT_MAC)
    assert p[26:30] == ip_bytes(PORT_IP) and p[30:34] == ip_bytes(SENDER_IP)
    assert csum(p[14:34]) == 0 and p[34] == 0 and csum(p[34:]) == 0, p.hex()
    assert p[42:] == ping[42:]


def case_too_big():
    """an egress port of MTU 576 behind an ingress port of 1500: a 549-byte payload came in
    within the ingress MTU but fits no copy (too_big); 548 does"""
    wd = tmpdir()
    small = udp_frame(PORT_MAC, SENDER_MAC, SENDER_IP, PORT_IP, 40000, LISTEN, b"s" * 548)
    big = udp_frame(PORT_MAC, SENDER_MAC, SENDER_IP, PORT_IP, 40000, LISTEN, b"b" * 549)
    write_pcap(wd + "/in.pcap", [small, big, small])
    dl = [dict(d, port="out", ip=d["ip"].replace("198.18.0.", "198.19.0.")) for d in dests(2)]
    cfg = config(wd, dl).replace(
        "listen:", "  - { name: out, device: \"net_null0,no-rx=1\", ip: 198.19.0.10/24, "
        "mtu: 576 }\nlisten:", 1)
    _, _, objs = run_udpfan(cfg, wd)
    f = ledger(final(objs))
    assert f["drop"]["too_big"] == 1 and f["forwarded"] == 2 and f["tx_ok"] == 4, f
    assert f["drop"]["gro_coalesced"] == 0 and f["drop"]["too_long"] == 0, f


def case_wire_frames():
    """frames the wire carries that an untagged port at MTU 1500 does not take, each
    counted by its own reason (docs/loss-accounting.md): a tagged datagram, a datagram
    one byte over the MTU, five datagrams joined by GSO/GRO (5028 bytes of IPv4: the pcap
    PMD hands it over as a chain), a TCP frame over the MTU, and a short datagram with
    trailing bytes past the MTU; the largest datagram that fits goes through"""
    wd = tmpdir()

    def dg(n):
        return udp_frame(PORT_MAC, SENDER_MAC, SENDER_IP, PORT_IP, 40000, LISTEN, b"w" * n)

    ok = dg(1472)
    tagged = dg(100)
    tagged = tagged[:12] + b"\x81\x00\x00\x05" + tagged[12:]
    qinq = dg(100)
    qinq = qinq[:12] + b"\x88\xa8\x00\x07\x81\x00\x00\x05" + qinq[12:]
    over = dg(1473)
    joined = dg(5000)
    tcp = eth(PORT_MAC, SENDER_MAC, 0x0800, ipv4_header(SENDER_IP, PORT_IP, 1600, proto=6) +
              bytes(1600))
    trailing = dg(100) + bytes(1515 - len(dg(100)))
    frames = [ok, tagged, qinq, over, joined, tcp, trailing, ok]
    assert len(ok) == 1514 and len(over) == 1515 and len(joined) == 5042
    write_pcap(wd + "/in.pcap", frames)
    _, _, objs = run_udpfan(config(wd, dests(1)), wd)
    st = final(objs)
    f = ledger(st)
    want = {"vlan_unknown": 2, "gro_coalesced": 2, "too_long": 2}
    for k, v in f["drop"].items():
        assert v == want.get(k, 0), "drop.%s = %d, expected %d (%r)" % (k, v, want.get(k, 0),
                                                                      f["drop"])
    assert f["rx"] == len(frames) and f["forwarded"] == 2 and f["tx_ok"] == 2, f
    # the PMD's byte count is every frame's length: nothing was cut on the way in
    assert st["ports"]["wan"]["ibytes"] == sum(len(x) for x in frames), st["ports"]["wan"]
    assert st["ports"]["wan"]["rx_before_ready"] == 0, st["ports"]["wan"]
    udp, _ = split_out(wd + "/out.pcap")
    assert len(udp) == 2 and all(len(u) == 1514 for u in udp), [len(u) for u in udp]


def tag(frame, vid, pcp=0):
    """frame with an 802.1Q tag (VLAN vid, priority pcp) after its MAC addresses"""
    return frame[:12] + struct.pack("!HH", 0x8100, pcp << 13 | vid) + frame[12:]


def case_vlan():
    """802.1Q (docs/configuration.md#vlans): three logical ports on one pcap device, wan
    untagged, v100 (VLAN 100) and v200 (VLAN 200, priority 5). Datagrams tagged 100 to v100,
    the listen port, fan out tagged 200 with PCP 5, untagged, and tagged 100, byte for byte;
    a VLAN no port claims is vlan_unknown; a datagram on v200 or wan is not_for_us (not the
    listen port); ARP and ping on each VLAN are answered on that VLAN from its own address;
    a priority-tagged ARP request (VLAN 0) belongs to the untagged port. (net_pcap does not
    chain: fanout_diff's *_vlan scenarios chain tagged headers.)"""
    wd = tmpdir()
    v100_ip, v200_ip = "198.18.100.10", "198.18.200.10"
    frames, meta = [], []
    for i, size in enumerate([0, 1, 18, 100, 1000, 1472]):
        payload = seq_payload(i, size)[:size] if size >= 8 else bytes(range(size))
        sport, ident, tos = 41000 + i, 0x2000 + i, [0, 0xB8][i % 2]
        opts = b"\x01\x01\x01\x00" if i == 3 else b""
        f = udp_frame(PORT_MAC, SENDER_MAC, "198.18.100.2", v100_ip, sport, LISTEN, payload,
                      ttl=9, ident=ident, tos=tos, udp_checksum=i % 2 == 0, options=opts,
                      pad_to=60 if i == 0 else 0)
        frames.append(tag(f, 100, pcp=3))  # the received priority bits are not kept
        meta.append({"sport": sport, "ident": ident, "tos": tos, "payload": payload})
    ok = udp_frame(PORT_MAC, SENDER_MAC, "198.18.100.2", v100_ip, 40000, LISTEN, b"x" * 8)
    unknown = tag(ok, 300)
    on_v200 = tag(udp_frame(PORT_MAC, SENDER_MAC, "198.18.200.2", v200_ip, 40000, LISTEN,
                            b"x" * 8), 200)
    on_wan = udp_frame(PORT_MAC, SENDER_MAC, SENDER_IP, PORT_IP, 40000, LISTEN, b"x" * 8)
    arp100 = tag(arp_frame(1, "ff:ff:ff:ff:ff:ff", SENDER_MAC, "198.18.100.2",
                           "00:00:00:00:00:00", v100_ip), 100)
    arp0 = tag(arp_frame(1, "ff:ff:ff:ff:ff:ff", SENDER_MAC, SENDER_IP, "00:00:00:00:00:00",
                         PORT_IP), 0)
    ping200 = tag(icmp_echo(PORT_MAC, SENDER_MAC, "198.18.200.2", v200_ip, data=b"vlan200"),
                  200)
    inputs_ = frames + [unknown, on_v200, on_wan, arp100, arp0, ping200]
    write_pcap(wd + "/in.pcap", inputs_)
    dl = [{"ip": "198.18.200.21", "udp_port": 6000, "mac": "02:18:00:00:00:21", "port": "v200"},
          {"ip": "198.18.0.22", "udp_port": 6001, "mac": "02:18:00:00:00:22"},
          {"ip": "198.18.100.23", "udp_port": 6002, "mac": "02:18:00:00:00:23",
           "port": "v100"}]
    dev = "net_pcap0,rx_pcap=%s/in.pcap,tx_pcap=%s/out.pcap" % (wd, wd)
    extra = ("  - { name: v100, device: \"%s\", ip: %s/24, vlan: 100 }\n"
             "  - { name: v200, device: \"%s\", ip: %s/24, vlan: 200, vlan_pcp: 5 }"
             % (dev, v100_ip, dev, v200_ip))
    cfg = config(wd, [dict(d, port="wan") if "port" not in d else d for d in dl],
                 extra_port=extra).replace(
                     "listen: { port: wan", "listen: { port: v100")
    _, _, objs = run_udpfan(cfg, wd)
    st = final(objs)
    f = ledger(st)
    want = {"vlan_unknown": 1, "not_for_us": 2}
    for k, v in f["drop"].items():
        assert v == want.get(k, 0), "drop.%s = %d, expected %d (%r)" % (k, v, want.get(k, 0),
                                                                      f["drop"])
    assert f["rx"] == len(inputs_) and f["forwarded"] == len(frames), f
    assert f["control"] == 3 and f["tx_ok"] == 3 * len(frames), f
    assert st["arp"]["requests_answered"] == 2 and st["icmp"]["echo_answered"] == 1, st
    out = read_pcap(wd + "/out.pcap")
    want_udp = []
    for m in meta:
        for d, (vid, pcp, src) in zip(dl, [(200, 5, v200_ip), (None, 0, PORT_IP),
                                           (100, 0, v100_ip)]):
            w = udp_frame(d["mac"], PORT_MAC, src, d["ip"], m["sport"], d["udp_port"],
                          m["payload"], ttl=64, ident=m["ident"], tos=m["tos"])
            want_udp.append(w if vid is None else tag(w, vid, pcp))

    def is_udp(x):
        o = 16 if x[12:14] == b"\x81\x00" else 12
        return x[o:o + 2] == b"\x08\x00" and x[o + 11] == 17
    # each egress port's TX buffer flushes on its own: in order per destination
    for d in dl:
        mac = mac_bytes(d["mac"])
        check_frames([x for x in out if is_udp(x) and x[:6] == mac],
                     [w for w in want_udp if w[:6] == mac])
    assert sum(1 for x in out if is_udp(x)) == len(want_udp)
    other = [x for x in out if not is_udp(x)]
    # gratuitous ARP on each port, on its VLAN; the replies on the request's VLAN
    garps = [garp(), tag(arp_frame(1, "ff:ff:ff:ff:ff:ff", PORT_MAC, v100_ip,
                                   "00:00:00:00:00:00", v100_ip), 100),
             tag(arp_frame(1, "ff:ff:ff:ff:ff:ff", PORT_MAC, v200_ip, "00:00:00:00:00:00",
                           v200_ip), 200, pcp=5)]
    replies = [tag(arp_frame(2, SENDER_MAC, PORT_MAC, v100_ip, SENDER_MAC, "198.18.100.2"),
                   100),
               arp_frame(2, SENDER_MAC, PORT_MAC, PORT_IP, SENDER_MAC, SENDER_IP)]
    for x in garps + replies:
        assert x in other, "no byte-exact %s in %r" % (x.hex(), [o.hex() for o in other])
    pongs = [o for o in other if o[12:18] == b"\x81\x00\xa0\xc8\x08\x00"]
    assert len(pongs) == 1, [o.hex() for o in other]
    p = pongs[0][:12] + pongs[0][16:]
    assert p[0:6] == mac_bytes(SENDER_MAC) and p[6:12] == mac_bytes(PORT_MAC)
    assert p[26:30] == ip_bytes(v200_ip) and p[30:34] == ip_bytes("198.18.200.2")
    assert csum(p[14:34]) == 0 and p[34] == 0 and csum(p[34:]) == 0, p.hex()
    assert len(other) == len(garps) + len(replies) + 1, [o.hex() for o in other]
    assert st["ports"]["wan"]["opackets"] == len(out), st["ports"]["wan"]


def case_vlan_listeners():
    """Two listeners on UDP 5000 of one pcap device, `a` on the untagged port and `b` on its
    VLAN 100 port, each with a destination on its own port: datagrams of both, interleaved
    in each burst, go to their own listener's destination, untagged and tagged 100, byte
    for byte and in order; a datagram tagged 100 to the untagged port's address finds no
    listener on the VLAN port (not_for_us). The listeners' counters hold."""
    wd = tmpdir()
    v100_ip = "198.18.100.10"
    frames, metas = [], [[], []]
    for i in range(24):
        li = (i // 2) % 2 if i % 5 else 1 - (i // 2) % 2
        size = [0, 18, 100, 1000][i % 4]
        payload = seq_payload(i, size)[:size] if size >= 8 else bytes(range(size))
        m = {"sport": 42000 + i, "ident": 0x3000 + i, "tos": 0, "payload": payload}
        src, dst = ("198.18.0.2", PORT_IP) if li == 0 else ("198.18.100.2", v100_ip)
        f = udp_frame(PORT_MAC, SENDER_MAC, src, dst, m["sport"], LISTEN, payload, ttl=5,
                      ident=m["ident"], udp_checksum=i % 3 != 1)
        frames.append(f if li == 0 else tag(f, 100))
        metas[li].append(m)
    stray = tag(udp_frame(PORT_MAC, SENDER_MAC, "198.18.100.2", PORT_IP, 40000, LISTEN,
                          b"z" * 20), 100)
    write_pcap(wd + "/in.pcap", frames + [stray])
    dev = "net_pcap0,rx_pcap=%s/in.pcap,tx_pcap=%s/out.pcap" % (wd, wd)
    text = config(wd, [], extra_port="  - { name: v100, device: \"%s\", ip: %s/24, "
                  "vlan: 100 }" % (dev, v100_ip))
    head = text[:text.index("listen:")]
    tail = text[text.index("stats:"):]
    d = [("198.18.0.21", 6000, "02:18:00:00:00:21", "wan"),
         ("198.18.100.22", 6001, "02:18:00:00:00:22", "v100")]
    body = ["listeners:"]
    for li, name in enumerate(["a", "b"]):
        body.append("  - name: %s\n    port: %s\n    udp_port: %d\n    destinations:\n"
                    "      - { ip: %s, udp_port: %d, mac: \"%s\" }"
                    % (name, d[li][3], LISTEN, d[li][0], d[li][1], d[li][2]))
    _, _, objs = run_udpfan(head + "\n".join(body) + "\n" + tail, wd)
    st = final(objs)
    f = ledger(st)
    assert f["forwarded"] == len(frames) and f["drop"]["not_for_us"] == 1, f
    assert f["rx"] == len(frames) + 1 and f["tx_ok"] == len(frames), f
    out = read_pcap(wd + "/out.pcap")
    for li in range(2):
        ip, port, mac, eg = d[li]
        src = PORT_IP if eg == "wan" else v100_ip
        want = []
        for m in metas[li]:
            w = udp_frame(mac, PORT_MAC, src, ip, m["sport"], port, m["payload"],
                          ident=m["ident"])
            want.append(w if eg == "wan" else tag(w, 100))
        check_frames([x for x in out if x[:6] == mac_bytes(mac)], want)
    lis = {x["name"]: x for x in st["listeners"]}
    assert lis["a"]["rx"] == len(metas[0]) and lis["b"]["rx"] == len(metas[1]), lis
    assert lis["a"]["tx_ok"] == len(metas[0]) and lis["b"]["tx_ok"] == len(metas[1]), lis


def case_nombuf():
    """A pool too small for 8 copies of a burst: copies that find no buffer are counted
    (tx_drop.nombuf), the in-place copy still goes, and the ledger holds."""
    wd = tmpdir()
    frames = [udp_frame(PORT_MAC, SENDER_MAC, SENDER_IP, PORT_IP, 40000, LISTEN,
                        seq_payload(i, 64)) for i in range(400)]
    write_pcap(wd + "/in.pcap", frames)
    _, _, objs = run_udpfan(config(wd, dests(8), extra_port="    mbufs: 63",
                                   forward="burst: 64"), wd)
    f = ledger(final(objs))
    assert f["tx_drop"]["nombuf"] > 0, f
    assert f["tx_ok"] >= f["forwarded"], "the in-place copy of each datagram must go: %r" % f


def case_sampling_and_rules():
    wd = tmpdir()
    frames, senders = [], ["198.18.0.2", "198.18.1.5", "198.18.9.9"]
    for i in range(60):
        src = senders[i % 3]
        frames.append(udp_frame(PORT_MAC, SENDER_MAC, src, PORT_IP, 40000, LISTEN,
                                seq_payload(i, 16)))
    write_pcap(wd + "/in.pcap", frames)
    dl = dests(3)
    dl[2]["sample"] = 4
    rules = ("rules:\n  - { from: 198.18.0.0/24, to: [0, 2] }\n"
             "  - { from: 198.18.1.0/24, to: [1] }")
    _, _, objs = run_udpfan(config(wd, dl, rules=rules), wd)
    st = final(objs)
    f = ledger(st)
    assert f["drop"]["no_rule"] == 20 and f["forwarded"] == 40, f
    d = st["destinations"]
    # 20 datagrams from 198.18.0.2 → dest 0 all, dest 2 one in four (the 1st, 5th, ...)
    assert d[0]["tx_ok"] == 20 and d[1]["tx_ok"] == 20, d
    assert d[2]["tx_ok"] == 5 and d[2]["sampled_out"] == 15, d
    assert f["sampled_out"] == 15 and f["fanout"] == 20 * 2 + 20, f
    udp, _ = split_out(wd + "/out.pcap")
    seqs2 = [struct.unpack("<Q", u[42:50])[0] for u in udp if u[30:34] == ip_bytes(dl[2]["ip"])]
    assert seqs2 == [0, 12, 24, 36, 48], seqs2


def expected_sets(frames_meta, sets, dlist, src_ip=PORT_IP):
    """The copies of each datagram, in input order, to the destinations of its sender's set
    (in the set's order); frames_meta: (sender IP, sport, payload)."""
    out = []
    for src, sport, payload in frames_meta:
        for di in sets[src]:
            d = dlist[di]
            out.append(udp_frame(d["mac"], PORT_MAC, src_ip, d["ip"], sport, d["udp_port"],
                                 payload, ttl=d.get("ttl", 64)))
    return out


def case_catch_all():
    """A 0.0.0.0/0 rule after a specific one (rte_lpm_add refuses depth 0 and
    udpfan exited 3): senders the specific rule matches go to its destinations, every other
    sender to the catch-all's, byte for byte."""
    wd = tmpdir()
    senders = ["198.18.0.2", "203.0.113.7", "198.18.0.3", "10.9.8.7", "255.255.255.254"]
    sets = {"198.18.0.2": [0, 1], "203.0.113.7": [2], "198.18.0.3": [2],
            "10.9.8.7": [2], "255.255.255.254": [2]}
    frames, fm = [], []
    for i in range(50):
        src = senders[i % len(senders)]
        payload = seq_payload(i, 16 + i)
        frames.append(udp_frame(PORT_MAC, SENDER_MAC, src, PORT_IP, 40000 + i, LISTEN, payload))
        fm.append((src, 40000 + i, payload))
    write_pcap(wd + "/in.pcap", frames)
    dl = dests(3)
    rules = ("rules:\n  - { from: 198.18.0.2/32, to: [0, 1] }\n"
             "  - { from: 0.0.0.0/0, to: [2] }")
    _, _, objs = run_udpfan(config(wd, dl, rules=rules, forward="source_port: keep"), wd)
    st = final(objs)
    f = ledger(st)
    assert f["drop"]["no_rule"] == 0 and f["forwarded"] == 50, f
    d = st["destinations"]
    assert d[0]["tx_ok"] == 10 and d[1]["tx_ok"] == 10 and d[2]["tx_ok"] == 40, d
    udp, _ = split_out(wd + "/out.pcap")
    check_frames(udp, expected_sets(fm, sets, dl))


def case_shipped_replication_policy():
    """config/replication-policy.yaml as shipped (its rules end in a 0.0.0.0/0 catch-all),
    on a pcap port instead of af_xdp and with the next hop's MAC given (a pcap file answers
    no ARP): it starts, and each sender's datagrams reach the destinations of its rule."""
    wd = tmpdir()
    src_dir = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(src_dir, "..", "..", "config", "replication-policy.yaml")) as fh:
        text = fh.read()
    gw_mac = "02:19:00:00:00:01"
    text = text.replace('"net_af_xdp0,iface=eth1"',
                        '"net_pcap0,rx_pcap=%s/in.pcap,tx_pcap=%s/out.pcap"' % (wd, wd))
    text = text.replace('  lcores: "0-1"\n', '  lcores: "0-1"\n  no_huge: true\n'
                        '  memory_mb: 256\n  file_prefix: ufealpol\n')
    text = text.replace("  - { ip: 198.51.100.", '  - { mac: "%s", ip: 198.51.100.' % gw_mac)
    assert text.count("net_pcap0") == 1 and text.count(gw_mac) == 4, text
    assert "{ from: 0.0.0.0/0, to: [1] }" in text, "the shipped policy lost its catch-all"
    port_ip = "192.0.2.10"
    senders = {"203.0.113.5": [0, 1, 2], "203.0.113.200": [1, 3], "10.1.2.3": [1]}
    frames = []
    for i in range(30):
        src = list(senders)[i % 3]
        frames.append(udp_frame("02:70:63:61:70:00", SENDER_MAC, src, port_ip, 40000 + i, 2055,
                                seq_payload(i, 24)))
    write_pcap(wd + "/in.pcap", frames)
    _, _, objs = run_udpfan(text, wd)
    st = final(objs)
    f = ledger(st)
    assert f["drop"]["no_rule"] == 0 and f["forwarded"] == 30, f
    d = st["destinations"]
    # 10 datagrams from each sender; destination 2 samples one in ten
    assert [x["tx_ok"] for x in d] == [10, 30, 1, 10], d
    udp, _ = split_out(wd + "/out.pcap")
    to_dst = {}
    for u in udp:
        to_dst.setdefault(u[30:34], []).append(u[26:30])
    # the rule's destinations, seen by the source addresses udpfan wrote: 0 keeps the exporter's,
    # 1 and 2 ours, 3 the fixed 192.0.2.11
    assert to_dst[ip_bytes("198.51.100.10")] == [ip_bytes("203.0.113.5")] * 10, to_dst
    assert sorted(set(to_dst[ip_bytes("198.51.100.11")])) == [ip_bytes(port_ip)], to_dst
    assert len(to_dst[ip_bytes("198.51.100.11")]) == 30, to_dst
    assert to_dst[ip_bytes("198.51.100.13")] == [ip_bytes("192.0.2.11")] * 10, to_dst
    assert all(u[0:6] == mac_bytes(gw_mac) for u in udp), "every copy to the gateway's MAC"


def case_no_neighbor():
    """Without ARP answers (a pcap file never replies) a destination stays unresolved: its
    copies are tx_drop.no_neighbor; a datagram none of whose destinations is resolved is
    drop.no_neighbor; the resolved one still gets everything."""
    wd = tmpdir()
    frames = [udp_frame(PORT_MAC, SENDER_MAC, src, PORT_IP, 40000, LISTEN, b"z" * 20)
              for src in ["198.18.0.2"] * 5 + ["198.18.0.3"] * 3]
    write_pcap(wd + "/in.pcap", frames)
    dl = dests(2)
    del dl[1]["mac"]
    rules = ("rules:\n  - { from: 198.18.0.2/32, to: [0, 1] }\n"
             "  - { from: 198.18.0.3/32, to: [1] }")
    _, _, objs = run_udpfan(config(wd, dl, rules=rules), wd)
    st = final(objs)
    f = ledger(st)
    assert f["drop"]["no_neighbor"] == 3 and f["forwarded"] == 5, f
    assert f["tx_drop"]["no_neighbor"] == 5 and f["tx_ok"] == 5, f
    assert st["destinations"][1]["state"] in ("incomplete", "failed"), st["destinations"][1]
    assert st["arp"]["requests_sent"] >= 1, st["arp"]


def case_icmp_rate_limit():
    """20 pings at once with control.icmp_rate 5: a full bucket answers 5, 15 are refused"""
    wd = tmpdir()
    pings = [icmp_echo(PORT_MAC, SENDER_MAC, SENDER_IP, PORT_IP, seq=i) for i in range(20)]
    write_pcap(wd + "/in.pcap", pings)
    cfg = config(wd, dests(1)) + "control: { icmp_rate: 5 }\n"
    _, _, objs = run_udpfan(cfg, wd)
    st = final(objs)
    ledger(st)
    assert st["icmp"]["echo_answered"] == 5 and st["icmp"]["rate_limited"] == 15, st["icmp"]
    assert st["fwd"]["control"] == 20, st["fwd"]


FLOOD = 4000


def case_control_overflow():
    """a flood of ARP requests at the pcap replay's speed into the control ring (1024 deep):
    what does not fit is ctl_overflow, what fits is answered, and nothing goes uncounted.
    The worker wakes the control lcore with the first frames (docs/architecture.md#the-
    control-lcore) and on a CPU of its own it keeps up with the whole flood (16,384 frames:
    all answered, none over); the ring overflows only while the control lcore is off its
    CPU, so here ctl_overflow may be 0, and the identities are what is checked"""
    wd = tmpdir()
    arps = [arp_frame(1, "ff:ff:ff:ff:ff:ff", SENDER_MAC, SENDER_IP, "00:00:00:00:00:00",
                      PORT_IP)] * FLOOD
    write_pcap(wd + "/in.pcap", arps)
    # the answers' bucket out of the way: the ring is what is looked at here
    _, _, objs = run_udpfan(config(wd, dests(1)) + "control: { neigh_rate: 1000000 }\n", wd)
    st = final(objs)
    f = ledger(st)
    assert f["control"] + f["drop"]["ctl_overflow"] == FLOOD, f
    # every frame handed over is an ARP request for us: answered, or still in the ring when
    # the workers stopped (unhandled); an answer reached the PMD, was lost there, or found the
    # control->worker ring full (which also takes what was left in it at the stop)
    answered = st["arp"]["requests_answered"]
    assert answered + st["arp"]["rate_limited"] + st["control"]["unhandled"] == f["control"], (
        st["arp"], st["control"], f)
    assert answered + st["arp"]["gratuitous_sent"] == (f["ctl_tx_ok"] + f["ctl_tx_drop"] +
                                                       st["control"]["ring_full"]), (st, f)


def case_ring_full():
    """net_ring as the egress: a ring of 1024 that fills faster than the worker drains it
    (it polls that ring as its own RX). Copies that stay out after the bounded retries are
    tx_drop.ring_full, and tx_retries counts the extra attempts."""
    wd = tmpdir()
    frames = [udp_frame(PORT_MAC, SENDER_MAC, SENDER_IP, PORT_IP, 40000, LISTEN,
                        seq_payload(i, 32)) for i in range(3000)]
    write_pcap(wd + "/in.pcap", frames)
    dl = [dict(d, port="ring") for d in dests(8)]
    cfg = config(wd, dl, forward="burst: 64, tx_retries: 2").replace(
        "listen:", "  - { name: ring, device: \"net_ring0\", ip: 198.19.0.10/24 }\nlisten:", 1)
    cfg = cfg.replace("198.18.0.2", "198.19.0.2")
    dl_cfg = cfg
    for i in range(8):
        dl_cfg = dl_cfg.replace("ip: 198.18.0.%d," % (21 + i), "ip: 198.19.0.%d," % (21 + i))
    _, _, objs = run_udpfan(dl_cfg, wd)
    st = final(objs)
    f = ledger(st)
    assert f["tx_drop"]["ring_full"] > 0 and f["tx_retries"] > 0, f
    assert f["forwarded"] == 3000 and f["copies_attempted"] == 24000, f
    # the copies that made it into the ring came back as the ring port's RX: not for us
    assert f["drop"]["not_for_us"] > 0, f


def case_null_egress():
    """the net_null row for real: copies to a port that swallows everything are counted
    as sent by udpfan and by the PMD alike; every other datagram 1,400 B, which fanout auto
    chains there (multiseg_tx_silent: no MULTI_SEGS asked, none offered), the rest copied"""
    wd = tmpdir()
    frames = [udp_frame(PORT_MAC, SENDER_MAC, SENDER_IP, PORT_IP, 40000 + i, LISTEN,
                        seq_payload(i, 1400 if i % 2 else 100)) for i in range(500)]
    write_pcap(wd + "/in.pcap", frames)
    dl = [dict(d, port="out", ip=d["ip"].replace("198.18.0.", "198.19.0.")) for d in dests(3)]
    cfg = config(wd, dl).replace(
        "listen:", "  - { name: out, device: \"net_null0,no-rx=1\", ip: 198.19.0.10/24 }\nlisten:",
        1)
    _, _, objs = run_udpfan(cfg, wd)
    st = final(objs)
    f = ledger(st)
    # the PMD sent our 1500 copies and the port's one gratuitous ARP
    assert f["tx_ok"] == 1500 and st["ports"]["out"]["opackets"] == 1501, (f, st["ports"])
    assert f["rx"] == 500 + f["control"], f
    assert f["chained"] == 750, f  # the 250 large datagrams' three copies each
    assert st["ports"]["out"]["driver"] == "net_null", st["ports"]


def case_two_egress_ports():
    """destinations on two ports (the fast path without a single TX buffer): each port gets
    exactly its copies, byte for byte on the pcap one"""
    wd = tmpdir()
    frames, meta = inputs()
    write_pcap(wd + "/in.pcap", frames)
    dl = dests(2) + [dict(d, port="out", ip=d["ip"].replace("198.18.0.", "198.19.0."))
                     for d in dests(4)[2:]]
    cfg = config(wd, dl).replace(
        "listen:", "  - { name: out, device: \"net_null0,no-rx=1\", ip: 198.19.0.10/24 }\nlisten:",
        1)
    _, _, objs = run_udpfan(cfg, wd)
    st = final(objs)
    f = ledger(st)
    assert f["tx_ok"] == 4 * len(frames), f
    assert st["ports"]["out"]["opackets"] == 2 * len(frames) + 1, st["ports"]["out"]
    udp, _ = split_out(wd + "/out.pcap")
    check_frames(udp, expected(meta, dl[:2]))



# ---- pools (docs/configuration.md#pools): the member of each datagram computed here from
# the documented rendezvous hash, independently of lib/plan/uf_pool.c ----

M64 = (1 << 64) - 1


def mix64(x):
    x &= M64
    x ^= x >> 33
    x = (x * 0xff51afd7ed558ccd) & M64
    x ^= x >> 33
    x = (x * 0xc4ceb9fe1a85ec53) & M64
    x ^= x >> 33
    return x


def pool_member(members, sender_ip, sport=None):
    """the index (in members) that hash-sender picks for a sender, every member up"""
    key = int(ipaddress.IPv4Address(sender_ip)) << 16
    if sport is not None:
        key |= sport
    b = mix64(key) & 0xffff  # a fixed 65,536 buckets: the hash's low 16 bits
    hb = mix64(b + 0x9e3779b97f4a7c15)
    best, win = -1, None
    for i, d in enumerate(members):
        mid = mix64((int(ipaddress.IPv4Address(d["ip"])) << 32) | (d["udp_port"] << 16) | 0)
        w = mix64(mid ^ hb)
        if w > best:
            best, win = w, i
    return win


def pool_config(wd, plain, members, balance, sample=1):
    cfg = config(wd, [plain])
    ml = "\n".join("        - { %s }" % ", ".join(
        "%s: %s" % (k, ('"%s"' % v) if k == "mac" else v) for k, v in m.items())
        for m in members)
    pool = ("  - sample: %d\n    pool:\n      balance: %s\n      members:\n%s\n"
            % (sample, balance, ml))
    return cfg.replace("\nforward", "\n" + pool + "forward", 1) if "\nforward" in cfg \
        else cfg.replace("stats:", pool + "stats:", 1)


def pool_frames(senders, n):
    frames, fm = [], []
    for i in range(n):
        src = senders[i % len(senders)]
        payload = seq_payload(i, 20 + i % 50)
        frames.append(udp_frame(PORT_MAC, SENDER_MAC, src, PORT_IP, 40000 + i, LISTEN, payload,
                                ident=0x2000 + i))
        fm.append((src, 40000 + i, payload, 0x2000 + i))
    return frames, fm


def pool_copy(d, src_mode_ip, src, sport, payload, ident):
    return udp_frame(d["mac"], PORT_MAC, src if d.get("source") == "original" else PORT_IP,
                     d["ip"], sport, d["udp_port"], payload, ttl=d.get("ttl", 64), ident=ident)


def pool_members():
    ms = dests(4)[1:]
    for i, m in enumerate(ms):
        m["udp_port"] = 2055
        m["ttl"] = 30 + i
    ms[1]["source"] = "original"
    return ms


def case_pool_hash_sender():
    """A plain destination and a pool of three: each datagram goes to the plain one and to
    exactly one member, the one the rendezvous hash of its sender picks, byte for byte."""
    wd = tmpdir()
    senders = ["198.18.%d.%d" % (i // 7, 2 + i * 13 % 250) for i in range(24)]
    frames, fm = pool_frames(senders, 96)
    write_pcap(wd + "/in.pcap", frames)
    plain = dests(1)[0]
    members = pool_members()
    _, _, objs = run_udpfan(pool_config(wd, plain, members, "hash-sender"), wd)
    st = final(objs)
    f = ledger(st)
    n = len(frames)
    assert f["forwarded"] == n and f["fanout"] == 2 * n and f["copies_attempted"] == 2 * n, f
    assert f["pool_failover"] == 0, f
    want, per = [], [0, 0, 0]
    for src, sport, payload, ident in fm:
        want.append(pool_copy(plain, None, src, sport, payload, ident))
        k = pool_member(members, src)
        per[k] += 1
        want.append(pool_copy(members[k], None, src, sport, payload, ident))
    udp, _ = split_out(wd + "/out.pcap")
    check_frames(udp, want)
    assert all(per), "a member got no sender: %s (pick other senders)" % per
    d = st["destinations"]
    assert d[1]["state"] == "pool" and [x["tx_ok"] for x in d[2:]] == per, (d, per)
    assert all(x["pool"] == 1 for x in d[2:]), d


def case_pool_round_robin_sampled():
    """round-robin with sample: 2: one datagram in two reaches the pool, and those go to the
    members in turn (one worker)."""
    wd = tmpdir()
    frames, fm = pool_frames(["198.18.0.2"], 30)
    write_pcap(wd + "/in.pcap", frames)
    plain = dests(1)[0]
    members = pool_members()
    _, _, objs = run_udpfan(pool_config(wd, plain, members, "round-robin", sample=2), wd)
    st = final(objs)
    f = ledger(st)
    assert f["forwarded"] == 30 and f["fanout"] == 60 and f["sampled_out"] == 15, f
    want, turn = [], 0
    for i, (src, sport, payload, ident) in enumerate(fm):
        want.append(pool_copy(plain, None, src, sport, payload, ident))
        if i % 2 == 0:
            want.append(pool_copy(members[turn % 3], None, src, sport, payload, ident))
            turn += 1
    udp, _ = split_out(wd + "/out.pcap")
    check_frames(udp, want)
    d = st["destinations"]
    assert d[1]["sampled_out"] == 15 and [x["tx_ok"] for x in d[2:]] == [5, 5, 5], d

def case_pool_in_listener():
    """A pool inside a listener (listeners[].destinations): listener a (UDP 5000) fans out to
    a plain destination and a hash-sender pool of three, listener b (UDP 5001) to another
    plain one. Each of a's datagrams reaches its plain destination and exactly the member the
    rendezvous hash of its sender picks, byte for byte; b's reach only b's; the listeners'
    counters and the pool members' add up."""
    wd = tmpdir()
    senders = ["198.18.%d.%d" % (i // 7, 2 + i * 13 % 250) for i in range(24)]
    frames, fm = pool_frames(senders, 72)
    extra = []
    for i in range(12):
        payload = seq_payload(1000 + i, 24)
        extra.append(udp_frame(PORT_MAC, SENDER_MAC, SENDER_IP, PORT_IP, 41000 + i, LISTEN + 1,
                               payload, ident=0x3000 + i))
    write_pcap(wd + "/in.pcap", frames + extra)
    pa, pb = dests(2)
    members = pool_members()
    text = config(wd, [])
    head = text[:text.index("listen:")]
    tail = text[text.index("forward:"):] if "forward:" in text else text[text.index("stats:"):]

    def dl(d):
        return "{ %s }" % ", ".join("%s: %s" % (k, ('"%s"' % v) if k == "mac" else v)
                                    for k, v in d.items())
    body = ["listeners:",
            "  - name: a",
            "    port: wan",
            "    udp_port: %d" % LISTEN,
            "    destinations:",
            "      - %s" % dl(pa),
            "      - pool:",
            "          balance: hash-sender",
            "          members:"] + \
        ["            - %s" % dl(m) for m in members] + \
        ["  - name: b",
         "    port: wan",
         "    udp_port: %d" % (LISTEN + 1),
         "    destinations:",
         "      - %s" % dl(pb)]
    _, _, objs = run_udpfan(head + "\n".join(body) + "\n" + tail, wd)
    st = final(objs)
    f = ledger(st)
    n = len(frames)
    assert f["forwarded"] == n + len(extra) and f["pool_failover"] == 0, f
    assert f["fanout"] == 2 * n + len(extra) and f["tx_ok"] == 2 * n + len(extra), f
    udp, _ = split_out(wd + "/out.pcap")
    to = {}
    for u in udp:  # by destination address and UDP port
        to.setdefault(u[30:34] + u[36:38], []).append(u)
    want_a, want_m, per = [], {}, [0, 0, 0]
    for src, sport, payload, ident in fm:
        want_a.append(pool_copy(pa, None, src, sport, payload, ident))
        k = pool_member(members, src)
        per[k] += 1
        want_m.setdefault(k, []).append(pool_copy(members[k], None, src, sport, payload, ident))
    def key(d):
        return bytes(int(x) for x in d["ip"].split(".")) + struct.pack("!H", d["udp_port"])
    check_frames(to.get(key(pa), []), want_a)
    for k, m in enumerate(members):
        check_frames(to.get(key(m), []), want_m.get(k, []))
    check_frames(to.get(key(pb), []), expected(
        [{"sport": 41000 + i, "ident": 0x3000 + i, "tos": 0, "payload": seq_payload(1000 + i, 24)}
         for i in range(12)], [pb]))
    assert all(per), "a member got no sender: %s (pick other senders)" % per
    by = {x["name"]: x for x in st["listeners"]}
    assert by["a"]["rx"] == by["a"]["forwarded"] == n, by["a"]
    assert by["a"]["fanout"] == by["a"]["tx_ok"] == 2 * n, by["a"]
    assert by["b"]["forwarded"] == by["b"]["tx_ok"] == len(extra), by["b"]
    d = st["destinations"]
    assert [x["tx_ok"] for x in d if x.get("pool") == 1] == per, (d, per)


def case_listeners():
    """Three listeners on one port (docs/configuration.md#listeners): UDP 5000 and 5001 on the
    port's IP, and 5000 on an address of its own, each with its own destinations, fed
    interleaved datagrams (sizes, checksums on and off, IP options: the classifier's fast
    and careful passes). Each destination's copies are byte for byte what a from-scratch
    computation gives for its listener's datagrams, in their order (a burst is grouped by
    listener, so the order across listeners is not kept); UDP to a port or address no
    listener has is not_for_us; the ledger holds per listener."""
    wd = tmpdir()
    own = "198.18.0.14"
    lis = [("a", PORT_IP, 5000), ("b", PORT_IP, 5001), ("c", own, 5000)]
    dl = dests(5)
    owner = [0, 0, 1, 2, 2]  # destination -> listener
    frames, metas = [], [[], [], []]
    for i in range(36):
        li = i % 3 if i % 7 != 3 else (i // 7) % 3
        size = [0, 9, 18, 100, 700, 1400][i % 6]
        payload = seq_payload(i, size)[:size] if size >= 8 else bytes(range(size))
        m = {"sport": 40000 + i, "ident": 0x2000 + i, "tos": [0, 0xB8][i % 2],
             "payload": payload}
        frames.append(udp_frame(PORT_MAC, SENDER_MAC, SENDER_IP, lis[li][1], m["sport"],
                                lis[li][2], payload, ttl=17, ident=m["ident"], tos=m["tos"],
                                udp_checksum=i % 4 != 1,
                                options=b"\x01\x01\x01\x00" if i % 5 == 2 else b""))
        metas[li].append(m)
    strays = [udp_frame(PORT_MAC, SENDER_MAC, SENDER_IP, PORT_IP, 40100, 5002, b"s" * 20),
              udp_frame(PORT_MAC, SENDER_MAC, SENDER_IP, own, 40101, 5001, b"t" * 20)]
    write_pcap(wd + "/in.pcap", frames + strays)
    text = config(wd, [])
    head = text[:text.index("listen:")]
    tail = text[text.index("forward:"):] if "forward:" in text else \
        text[text.index("stats:"):]
    body = ["listeners:"]
    for li, (name, ip, port) in enumerate(lis):
        body.append("  - name: %s\n    port: wan\n    udp_port: %d" % (name, port))
        if ip != PORT_IP:
            body.append("    ip: %s" % ip)
        body.append("    destinations:")
        for d, o in zip(dl, owner):
            if o == li:
                body.append("      - { ip: %s, udp_port: %d, mac: \"%s\", ttl: %d }"
                            % (d["ip"], d["udp_port"], d["mac"], d["ttl"]))
    _, _, objs = run_udpfan(head + "\n".join(body) + "\n" + tail, wd)
    st = final(objs)
    f = ledger(st)
    assert f["forwarded"] == len(frames) and f["drop"]["not_for_us"] == 2, f
    udp, _ = split_out(wd + "/out.pcap")
    assert len(udp) == sum(len(metas[o]) for o in owner), len(udp)
    for d, o in zip(dl, owner):
        got = [u for u in udp if struct.unpack("!H", u[36:38])[0] == d["udp_port"]]
        # the copies say the listener's address was the input's (the checksum follows it)
        check_frames(got, expected(metas[o], [d]))
    by = {x["name"]: x for x in st["listeners"]}
    for li, (name, ip, port) in enumerate(lis):
        x = by[name]
        n_d = owner.count(li)
        assert x["ip"] == ip and x["udp_port"] == port, x
        assert x["rx"] == x["forwarded"] == len(metas[li]), x
        assert x["fanout"] == x["copies_attempted"] == x["tx_ok"] == n_d * len(metas[li]), x
    assert sum(x["tx_ok"] for x in st["listeners"]) == f["tx_ok"], (st["listeners"], f)


def udp6_frame(dst_mac, src_mac, src, dst, sport, dport, payload, hlim=64, tclass=0, nh=17,
               zero_ck=False):
    """Eth/IPv6/UDP computed here: the checksum over RFC 8200's pseudo-header; nh other than
    17: an 8-byte extension header of that type in front of the UDP header"""
    s6, d6 = ipaddress.IPv6Address(src).packed, ipaddress.IPv6Address(dst).packed
    length = 8 + len(payload)
    hdr = struct.pack("!HHHH", sport, dport, length, 0)
    ck = 0 if zero_ck else csum(s6 + d6 + struct.pack("!IxxxB", length, 17) + hdr + payload)
    udp = hdr[:6] + struct.pack("!H", ck or (0 if zero_ck else 0xFFFF)) + payload
    ext = b"" if nh == 17 else bytes([17]) + bytes(7)
    ip6 = struct.pack("!IHBB", 6 << 28 | tclass << 20, len(ext) + len(udp), nh, hlim) + s6 + d6
    return eth(dst_mac, src_mac, 0x86DD, ip6 + ext + udp)


def case_ipv6():
    """The IPv6 datapath through the real udpfan:
    v6 -> v6 and v6 -> v4 from an IPv6 listener, v4 -> v6 from an IPv4 one on the same port,
    static MACs; the copies byte-exact against frames computed here, the IPv6 drops by
    reason, the ledger."""
    wd = tmpdir()
    cfg = "\n".join([
        "eal: { lcores: \"0-1\", no_huge: true, memory_mb: 256, file_prefix: ufeal }",
        "ports:",
        "  - name: wan",
        "    device: \"net_pcap0,rx_pcap=%s/in.pcap,tx_pcap=%s/out.pcap\"" % (wd, wd),
        "    ip: %s/24" % PORT_IP,
        "    ip6: [\"2001:db8::10/64\"]",
        "listeners:",
        "  - name: in6",
        "    port: wan",
        "    ip: \"2001:db8::10\"",
        "    udp_port: %d" % LISTEN,
        "    destinations:",
        "      - { ip: \"2001:db8::21\", udp_port: 6000, mac: \"02:18:00:00:00:21\", ttl: 9 }",
        "      - { ip: 198.18.0.22, udp_port: 6001, mac: \"02:18:00:00:00:22\" }",
        "  - name: in4",
        "    port: wan",
        "    udp_port: %d" % (LISTEN + 1),
        "    destinations:",
        "      - { ip: \"2001:db8::23\", udp_port: 6002, mac: \"02:18:00:00:00:23\" }",
        "stats: { interval_s: 0.5 }",
        "arp: { gratuitous: true }"]) + "\n"
    pl6, pl4 = b"hello, IPv6 world", seq_payload(3, 40)[:40]
    v6 = udp6_frame(PORT_MAC, SENDER_MAC, "2001:db8::2", "2001:db8::10", 40000, LISTEN, pl6,
                    tclass=0xB9)
    v4 = udp_frame(PORT_MAC, SENDER_MAC, SENDER_IP, PORT_IP, 40001, LISTEN + 1, pl4, ident=77,
                   tos=0x28)
    hbh = udp6_frame(PORT_MAC, SENDER_MAC, "2001:db8::2", "2001:db8::10", 1, LISTEN, b"x" * 8,
                     nh=0)
    zero = udp6_frame(PORT_MAC, SENDER_MAC, "2001:db8::2", "2001:db8::10", 1, LISTEN,
                      b"x" * 8, zero_ck=True)
    frames = [v6, v4, hbh, zero, v6]
    write_pcap(wd + "/in.pcap", frames)
    _, _, objs = run_udpfan(cfg, wd)
    f = ledger(final(objs))
    assert f["rx"] == 5 and f["forwarded"] == 3 and f["control"] == 0, f
    want = {"ipv6_ext_hdr": 1, "malformed": 1}
    for k, v in f["drop"].items():
        assert v == want.get(k, 0), "drop.%s = %d (%r)" % (k, v, f["drop"])
    assert f["copies_attempted"] == 5 and f["tx_ok"] == 5, f
    c66 = udp6_frame("02:18:00:00:00:21", PORT_MAC, "2001:db8::10", "2001:db8::21", 40000, 6000,
                     pl6, hlim=9, tclass=0xB8)
    c64 = udp_frame("02:18:00:00:00:22", PORT_MAC, PORT_IP, "198.18.0.22", 40000, 6001, pl6,
                    ident=0, tos=0xB8)
    c46 = udp6_frame("02:18:00:00:00:23", PORT_MAC, "2001:db8::10", "2001:db8::23", 40001, 6002,
                     pl4, tclass=0x28)
    out = read_pcap(wd + "/out.pcap")
    # IPv6 UDP only (udpfan's own NDP, the unsolicited NA at start, is ICMPv6)
    got6 = [o for o in out if o[12:14] == b"\x86\xdd" and o[20] == 17]
    got4 = [o for o in out if o[12:14] == b"\x08\x00" and o[23] == 17]
    assert sorted(got6) == sorted([c66, c46, c66]), [o.hex() for o in got6]
    assert got4 == [c64, c64], [o.hex() for o in got4]


def case_ipv6_rules():
    """One IPv6 listener with rules, through the real udpfan: the rules in an rte_lpm6 (first
    match = longest prefix), ::/0 the catch-all; each sender's datagrams reach its rule's
    destinations only, byte-exact; N = 1 and N = 2 sets (single6's lane beside mixed)."""
    wd = tmpdir()
    cfg = "\n".join([
        "eal: { lcores: \"0-1\", no_huge: true, memory_mb: 256, file_prefix: ufeal }",
        "ports:",
        "  - name: wan",
        "    device: \"net_pcap0,rx_pcap=%s/in.pcap,tx_pcap=%s/out.pcap\"" % (wd, wd),
        "    ip6: [\"2001:db8::10/64\"]",
        "listen: { port: wan, udp_port: %d }" % LISTEN,
        "destinations:",
        "  - { ip: \"2001:db8::21\", udp_port: 6000, mac: \"02:18:00:00:00:21\" }",
        "  - { ip: \"2001:db8::22\", udp_port: 6001, mac: \"02:18:00:00:00:22\" }",
        "rules:",
        "  - { from: \"2001:db8:bad:1::/64\", to: [0, 1] }",
        "  - { from: \"2001:db8:bad::/48\", to: [1] }",
        "  - { from: \"::/0\", to: [0] }",
        "stats: { interval_s: 0.5 }"]) + "\n"
    senders = [("2001:db8:bad:1::7", [0, 1]), ("2001:db8:bad:2::7", [1]),
               ("2001:db8:ba0::7", [0]), ("2001:db8:bad:1::8", [0, 1])]
    frames, want = [], []
    for k, (src, to) in enumerate(senders):
        pl = b"rule %d" % k
        frames.append(udp6_frame(PORT_MAC, SENDER_MAC, src, "2001:db8::10", 40000 + k, LISTEN,
                                 pl))
        for d in to:
            want.append(udp6_frame("02:18:00:00:00:%02x" % (0x21 + d), PORT_MAC, "2001:db8::10",
                                   "2001:db8::%x" % (0x21 + d), 40000 + k, 6000 + d, pl,
                                   hlim=64))
    write_pcap(wd + "/in.pcap", frames)
    _, log, objs = run_udpfan(cfg, wd)
    f = ledger(final(objs))
    assert f["rx"] == 4 and f["forwarded"] == 4 and sum(f["drop"].values()) == 0, f
    assert f["copies_attempted"] == 6 and f["tx_ok"] == 6, f
    out = read_pcap(wd + "/out.pcap")
    got = [o for o in out if o[12:14] == b"\x86\xdd" and o[20] == 17]
    assert sorted(got) == sorted(want), ([o.hex() for o in got], [w.hex() for w in want])


def runtime_dir(prefix):
    """EAL's runtime directory for prefix (eal_filesystem.c: /var/run as root)"""
    if os.geteuid() == 0:
        return "/var/run/dpdk/" + prefix
    return "%s/dpdk/%s" % (os.environ.get("XDG_RUNTIME_DIR") or "/tmp", prefix)


def case_stats_file_planted():
    """a symlink planted where the stats file goes (or, as root, another user's file) is
    refused before EAL, exit 3, and what it points at is left as it was"""
    wd = tmpdir()
    write_pcap(wd + "/in.pcap", [])
    cfg = os.path.join(wd, "u.yaml")
    with open(cfg, "w") as f:
        f.write(config(wd, dests(1)))
    victim = os.path.join(wd, "victim")
    with open(victim, "w") as f:
        f.write("precious\n")
    os.chmod(victim, 0o600)
    link = os.path.join(wd, "stats.jsonl")
    os.symlink(victim, link)
    r = subprocess.run([UDPFAN, "-c", cfg, "--stats-json", link, "--duration", "0.5"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    assert r.returncode == 3, "exited %d:\n%s" % (r.returncode, r.stderr[-2000:])
    assert "cannot open the stats file %s" % link in r.stderr, r.stderr[-2000:]
    assert "a symlink: udpfan does not follow one" in r.stderr, r.stderr[-2000:]
    with open(victim) as f:
        assert f.read() == "precious\n", "the symlink's target was written"
    assert os.stat(victim).st_mode & 0o777 == 0o600
    if os.geteuid() == 0:
        os.unlink(link)
        with open(link, "w") as f:
            f.write("theirs\n")
        os.chown(link, 65534, 65534)
        r = subprocess.run([UDPFAN, "-c", cfg, "--stats-json", link, "--duration", "0.5"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=60)
        assert r.returncode == 3, "exited %d:\n%s" % (r.returncode, r.stderr[-2000:])
        assert "is not to be trusted" in r.stderr and "uid 65534" in r.stderr, r.stderr[-2000:]
        with open(link) as f:
            assert f.read() == "theirs\n"
    # a fresh one is created 0640 (less what the umask takes)
    os.unlink(link)
    um = os.umask(0)
    os.umask(um)
    _, _, objs = run_udpfan(config(wd, dests(1)), wd, duration=0.5)
    final(objs)
    assert os.stat(link).st_mode & 0o777 == 0o640 & ~um, oct(os.stat(link).st_mode)


def case_clean_stop_no_files():
    """after a clean stop (--duration), EAL's runtime directory for the prefix is gone"""
    wd = tmpdir()
    write_pcap(wd + "/in.pcap", [])
    rdir = runtime_dir("ufealclean")
    _, _, objs = run_udpfan(config(wd, dests(1), eal_extra="clean"), wd, duration=0.5)
    final(objs)
    left = os.listdir(rdir) if os.path.isdir(rdir) else None
    assert left is None, "left in %s: %s" % (rdir, left)


def main():
    s = Suite()
    for n in (1, 2, 8):
        s.run(case_fanout, n)
    s.run(case_own_sport_fanout)
    s.run(case_source_modes)
    s.run(case_zero_checksum)
    s.run(case_bad_checksum_carried)
    s.run(case_partial_checksum)
    s.run(case_drop_reasons)
    s.run(case_too_big)
    s.run(case_wire_frames)
    s.run(case_vlan)
    s.run(case_vlan_listeners)
    s.run(case_nombuf)
    s.run(case_sampling_and_rules)
    s.run(case_catch_all)
    s.run(case_shipped_replication_policy)
    s.run(case_no_neighbor)
    s.run(case_icmp_rate_limit)
    s.run(case_control_overflow)
    s.run(case_ring_full)
    s.run(case_null_egress)
    s.run(case_two_egress_ports)
    s.run(case_pool_hash_sender)
    s.run(case_pool_round_robin_sampled)
    s.run(case_pool_in_listener)
    s.run(case_listeners)
    s.run(case_ipv6)
    s.run(case_ipv6_rules)
    s.run(case_stats_file_planted)
    s.run(case_clean_stop_no_files)
    s.finish()


if __name__ == "__main__":
    main()
