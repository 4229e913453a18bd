#!/usr/bin/env python3
"""udpfan-gen and udpfan-sink with --no-huge on net_pcap files (no root, no network):

  1. the generator's frames, read back from its tx_pcap, checked from scratch by ufpkt
     (both checksums, lengths, padding, the LE sequence number, source ports round-robin);
  2. the DPDK sink on an rx_pcap of those frames: every one accounted, nothing lost;
  3. the DPDK sink on a crafted capture with known gaps, a duplicate, a late arrival, a bad
     UDP checksum, a frame for another address and an ARP request: each counted where it
     belongs, and a port that got nothing reports lost as null, never 0.

Each is a case of its own (tests/lib/ufrun.py Suite); 2 runs the generator of 1 again.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

import ufpkt
from ufrun import Suite

BUILD = os.environ.get("UF_BUILD", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
GEN = os.path.join(BUILD, "app", "udpfan-gen", "udpfan-gen")
SINK = os.path.join(BUILD, "app", "udpfan-sink", "udpfan-sink")
PCAP_MAC = "02:70:63:61:70:00"  # net_pcap0's MAC
SRC, DST = "198.18.0.2", "198.18.0.21"
TAG = "ugp-"  # fixed EAL file prefixes (runs are not parallel): no runtime dirs pile up


def run(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=60)
    if p.returncode != 0:
        raise AssertionError("%s exited %d\n%s" % (argv[0], p.returncode, p.stderr[-3000:]))
    return json.loads(p.stdout)


def check(cond, what, *ctx):
    if not cond:
        raise AssertionError(what + "".join("\n" + json.dumps(c) for c in ctx))
    print("ok: " + what)


def sink(pcap, extra=()):
    return run([SINK, "--dev", "net_pcap0,rx_pcap=" + pcap, "--ip", DST + "/24", "--no-huge",
                "--file-prefix", TAG + "s", "--idle", "0.5", "--duration", "20"] + list(extra))


COUNT, FLOWS, SIZE = 5000, 3, 9  # odd payload: the odd-length checksum path


def generate(tmp):
    out = os.path.join(tmp, "gen.pcap")
    gj = run([GEN, "--dev", "net_pcap0,tx_pcap=" + out, "--ip", SRC + "/24", "--dst",
              DST + ":6000", "--dst-mac", PCAP_MAC, "--count", str(COUNT), "--flows",
              str(FLOWS), "--size", str(SIZE), "--burst", "32", "--no-huge",
              "--file-prefix", TAG + "g"])
    check(gj["sent"] == COUNT and gj["last_seq"] == COUNT - 1 and gj["frame_len"] == 60,
          "generator: %d frames of 60 bytes (padded)" % COUNT, gj)
    return out


def case_generator_frames():
    count, flows, size = COUNT, FLOWS, SIZE
    with tempfile.TemporaryDirectory(prefix="uf-gen-pcap-") as tmp:
        out = generate(tmp)
        frames = ufpkt.read_pcap(out)
        check(len(frames) == count, "tx_pcap holds every frame")
        for i, f in enumerate(frames):
            smac, dmac, sip, dip, sport, dport, ttl, payload = ufpkt.parse_udp(f)
            assert len(f) == 60 and f[51:] == bytes(9), "padding of frame %d" % i
            assert (sip, dip, dport) == (SRC, DST, 6000), i
            assert sport == 40000 + i % flows, (i, sport)
            assert len(payload) == size and struct.unpack("<Q", payload[:8])[0] == i, i
            assert struct.unpack("!H", f[18:20])[0] == i & 0xFFFF, "IPv4 id"
            assert f[20] & 0x40, "DF"
        print("ok: every frame's checksums, lengths, padding, sequence and source port")


def case_sink_generated():
    count, flows = COUNT, FLOWS
    with tempfile.TemporaryDirectory(prefix="uf-gen-pcap-") as tmp:
        out = generate(tmp)
        sj = sink(out, ["--expect-first", "0", "--expect-last", str(count - 1)])
        d = sj["destinations"]["%s:6000" % DST]
        check(d["received"] == count and d["lost"] == 0 and d["duplicated"] == 0 and
              d["reordered"] == 0 and sj["bad_checksum"] == 0 and sj["ignored"] == 0,
              "DPDK sink accounted every generated frame", sj)
        check(len(sj["senders"]) == flows, "one sender per flow", sj)


def case_sink_crafted():
    with tempfile.TemporaryDirectory(prefix="uf-gen-pcap-") as tmp:
        # crafted: 0..99 without 10, 11 and 99, 20 twice, 50 after 60, one bad checksum
        seqs = [s for s in range(99) if s not in (10, 11, 50)]
        seqs.insert(seqs.index(60) + 1, 50)
        seqs.insert(seqs.index(20) + 1, 20)

        def frame(seq, dst=DST, dport=6000):
            return ufpkt.udp_frame(PCAP_MAC, "02:18:00:00:00:02", SRC, dst, 40000, dport,
                                   struct.pack("<Q", seq) + b"x" * 24)
        crafted = [frame(s) for s in seqs]
        bad = bytearray(frame(1000))
        bad[-1] ^= 0xFF  # payload byte: the UDP checksum no longer matches
        crafted.append(bytes(bad))
        crafted.append(frame(7, dst="198.18.0.99"))
        crafted.append(ufpkt.arp_frame(1, "ff:ff:ff:ff:ff:ff", "02:18:00:00:00:02", SRC,
                                       "00:00:00:00:00:00", DST))
        cp = os.path.join(tmp, "crafted.pcap")
        ufpkt.write_pcap(cp, crafted)
        sj = sink(cp, ["--port", "6000,6001"])
        d = sj["destinations"]["%s:6000" % DST]
        check(d["received"] == len(seqs) and d["distinct"] == 97 and d["duplicated"] == 1 and
              d["reordered"] == 1 and d["lost"] == 2 and d["first_seq"] == 0 and
              d["max_seq"] == 98, "gaps, duplicate and late arrival counted exactly", d)
        check(sj["bad_checksum"] == 1 and sj["ignored_by_reason"]["not_for_us"] == 1 and
              sj["arp_replies"] == 1, "bad checksum, other address, ARP: each counted", sj)
        e = sj["destinations"]["%s:6001" % DST]
        check(e["received"] == 0 and e["lost"] is None and e["first_seq"] is None and
              any("6001" in n and "unknown" in n for n in sj["notes"]),
              "a port with nothing: lost is null and a note says why", sj)
        sj = sink(cp, ["--port", "6000", "--expect-last", "99"])
        check(sj["destinations"]["%s:6000" % DST]["lost"] == 3,
              "--expect-last counts the lost tail", sj)


def main():
    s = Suite()
    s.run(case_generator_frames)
    s.run(case_sink_generated)
    s.run(case_sink_crafted)
    s.finish()


if __name__ == "__main__":
    main()
