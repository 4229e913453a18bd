"""What vlan_host.py and vlan_host6.py share: a host on an 802.1Q VLAN on a raw AF_PACKET
socket. Its arguments, the socket, a tagged frame in (the tag in the frame or, where the kernel
moved it to the skb's metadata, in PACKET_AUXDATA) and out, the datagram count and the JSON
summary."""
import argparse
import json
import select
import socket
import struct

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
TP_STATUS_VLAN_VALID = 1 << 4
AUX = struct.Struct("=IIIHHHH")  # tpacket_auxdata: status, len, snaplen, mac, net, tci, tpid


def parse(frame, anc):
    """(vid, pcp, the frame without its tag) or None for an untagged frame"""
    if frame[12:14] == b"\x81\x00" and len(frame) >= 18:
        tci = struct.unpack("!H", frame[14:16])[0]
        return tci & 0xFFF, tci >> 13, frame[:12] + frame[16:]
    for level, typ, data in anc:
        if level == SOL_PACKET and typ == PACKET_AUXDATA and len(data) >= AUX.size:
            status, _, _, _, _, tci, _ = AUX.unpack(data[:AUX.size])
            if status & TP_STATUS_VLAN_VALID:
                return tci & 0xFFF, tci >> 13, frame
    return None


def tag(frame, vid, pcp=0):
    return frame[:12] + struct.pack("!HH", 0x8100, pcp << 13 | vid) + frame[12:]


def host_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iface", required=True)
    ap.add_argument("--vid", type=int, required=True)
    ap.add_argument("--ip", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--send-to", default="")
    ap.add_argument("--send-port", type=int, default=5000)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--rate", type=float, default=1000)
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--idle", type=float, default=3.0)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--ready", default="")
    return ap.parse_args()


def open_raw(args):
    """the socket bound to --iface (--ready created then) and the interface's MAC as text"""
    with open("/sys/class/net/%s/address" % args.iface) as f:
        my_mac = f.read().strip()
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
    s.bind((args.iface, ETH_P_ALL))
    if args.ready:
        open(args.ready, "w").close()
    return s, my_mac


def recv_tagged(s, args):
    """(pcp, the frame without its tag) of one frame in on --vid, not our own, or None"""
    r, _, _ = select.select([s], [], [], 0.001 if args.send_to else 0.05)
    if not r:
        return None
    frame, anc, _, addr = s.recvmsg(65536, socket.CMSG_SPACE(64))
    if addr[2] == socket.PACKET_OUTGOING:
        return None
    p = parse(frame, anc)
    if p is None or p[0] != args.vid:
        return None
    return p[1], p[2]


def count_seq(res, seen, payload):
    """a datagram's u64 LE sequence number (payload of 8 bytes or more): a duplicate?"""
    if len(payload) >= 8:
        seq = struct.unpack("<Q", payload[:8])[0]
        if seq in seen:
            res["dups"] += 1
        seen.add(seq)


def summary(res, seen, pcps, sent):
    res["unique"] = len(seen)
    res["pcp"] = sorted(pcps)
    res["sent"] = sent
    print(json.dumps(res))
