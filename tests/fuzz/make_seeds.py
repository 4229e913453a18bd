#!/usr/bin/env python3
"""Write the seed corpora of the frame and lcore-list fuzzers (tests/fuzz/corpus/), built
with tests/lib/ufpkt.py (an implementation independent of udpfan's C). Run it again after
changing a seed; crash inputs found by fuzzing are added by hand as crash-<what> files and
are never rewritten here. The config fuzzer's seeds are config/ and tests/data/bad/.

    python3 tests/fuzz/make_seeds.py
"""
import os
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


def write(d, name, data):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main():
    corpus = os.path.join(HERE, "corpus")
    for name, f in frames():
        # classify: byte 0 = RX checksum flags (0: unknown) and listen (bit 4 clear: on)
        write(os.path.join(corpus, "classify"), name, b"\x00" + f)
        if name.startswith(("arp", "icmp")):
            write(os.path.join(corpus, "arp_icmp"), name, f)
    write(os.path.join(corpus, "classify"), "udp-ipck-good", b"\x0a" + dict(frames())["udp"])
    for i, s in enumerate(["0-1", "0,1,2", "0@0,1@0,2@1", "3-5,7,9-10", "0-127", "1,"]):
        write(os.path.join(corpus, "lcores"), "seed%d" % i, b"\x20" + s.encode())
    os.makedirs(os.path.join(corpus, "config"), exist_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
