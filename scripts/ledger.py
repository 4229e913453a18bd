#!/usr/bin/env python3
"""The loss ledger: run udpfan-gen -> udpfan -> udpfan-sink (kernel sockets) on the veth
test bed and print one table, stage by stage, with every counter that can account for a
datagram, and the differences between stages, so that a loss is attributed to a stage or
shown as unexplained.

    sudo scripts/ledger.py                              # 3 sinks, 200k datagrams at 50 kpps
    sudo scripts/ledger.py --rate 0 --count 2000000     # overload: see where the loss goes
    sudo scripts/ledger.py --stop-sink-after 2          # a sink that stops mid-run
    scripts/ledger.py --fleet a=a/stats.json b=b/stats.json   # several hosts' stats files

Stages: the generator's count; the kernel side of udpfan's veth (what reached the
interface); udpfan's NIC counters (ipackets, imissed, AF_XDP socket drops); udpfan's ledger
(rx, drops by reason, copies, tx_ok, tx drops by reason); udpfan's NIC tx (opackets,
oerrors); each sink's kernel UDP counters (NoPorts, RcvbufErrors, InCsumErrors) and its own
count. --json writes the whole ledger for scripts and tests.

A copy the sink's kernel refused for a bad checksum (Udp InCsumErrors, Ip InHdrErrors in the
sink's namespace) is a loss udpfan cannot see: the ledger fails (exit 1) when there is one,
whatever else balances. --sender kernel sends from a kernel UDP socket instead of udpfan-gen:
at the kernel's default offloads its datagrams reach udpfan with partial checksums.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SRC, "tests", "lib"))
BUILD = os.environ.get("UF_BUILD", os.path.join(SRC, "build"))
os.environ.setdefault("UDPFAN", os.path.join(BUILD, "udpfan"))
os.environ.setdefault("UF_SRC", SRC)

from testbed import FWD_IP, SRC_IP, Capture, Testbed, wait_for  # noqa: E402
from uflive import Udpfan, quiet_snapshot  # noqa: E402
from ufrun import read_stats, tmpdir  # noqa: E402

GEN = os.path.join(BUILD, "app", "udpfan-gen", "udpfan-gen")
SINK = os.path.join(BUILD, "app", "udpfan-sink", "udpfan-sink")
KSEND = os.path.join(SRC, "tests", "tools", "udp_send.py")
PORT = 6000
NOT_DATAGRAMS = ("not_ipv4", "vlan_unknown", "not_udp", "not_for_us", "too_long", "ctl_overflow")


def link_stats(tb, ns, ifname):
    out = tb.nsx(ns, "ip -s -j link show dev %s" % ifname, capture=True)
    st = json.loads(out)[0]["stats64"]
    return st["rx"], st["tx"]


def bed_links(tb):
    """the counters of every veth between the sender, udpfan and the sinks (ip -s -j; and
    ethtool -S, where the driver has it), keyed by interface name. A veth that cannot
    hand a frame to its peer (the peer's 256-frame XDP ring full, or the CPU's backlog
    full) counts it in its own tx_dropped, and nowhere on the peer: the frames the bridge
    could not put into fwd0 are on the bridge's port, not on fwd0 or in udpfan"""
    links = [(tb.ns_src, "src0"), (tb.ns_br, tb.src_peer), (tb.ns_br, tb.fwd_peer),
             (tb.ns_fwd, tb.fwd_if)] + [(tb.ns_br, p) for p in tb.sink_peer]
    out = {}
    for ns, ifn in links:
        rx, tx = link_stats(tb, ns, ifn)
        d = {"rx_" + k: v for k, v in rx.items()}
        d.update({"tx_" + k: v for k, v in tx.items()})
        txt = tb.nsx(ns, "ethtool -S %s" % ifn, check=False, capture=True) or ""
        for ln in txt.splitlines()[1:]:
            k, _, v = ln.strip().partition(":")
            if v.strip().isdigit():
                d["ethtool." + k.strip()] = int(v)
        out[ifn] = d
    return out


def bed_delta(a, b):
    """b - a, per interface and counter"""
    return {k: {c: v - a.get(k, {}).get(c, 0) for c, v in b[k].items()} for k in b}


def udp_snmp(tb, ns, proto="Udp"):
    lines = [ln.split() for ln in tb.nsx(ns, "cat /proc/net/snmp", capture=True).splitlines()
             if ln.startswith(proto + ":")]
    return dict(zip(lines[0][1:], map(int, lines[1][1:])))


def run(a, during=None):
    """One run; `during(tb, uf, gen)`, if given, is called while the generator runs
    (scripts/soak.py samples udpfan there). `a` may carry `prefix` (the test bed's, default
    ufl) and `file_prefix` (udpfan's, default ufledger)."""
    wd = tmpdir()
    res = {"config": vars(a)}
    prefix = getattr(a, "prefix", "ufl")
    fprefix = getattr(a, "file_prefix", "ufledger")
    sender = getattr(a, "sender", "gen")  # callers with their own options (soak.py)
    with Testbed(prefix=prefix, sinks=a.sinks) as tb:
        cfg = """eal: { lcores: "0-1", file_prefix: %s }
ports:
  - { name: lan, device: "%s", ip: %s/24 }
listen: { port: lan, udp_port: 5000 }
destinations:
%s
stats: { interval_s: 1 }
arp: { reachable_s: 60 }
""" % (fprefix, tb.vdev(a.vdev), FWD_IP, "\n".join("  - { ip: %s, udp_port: %d }" % (ip, PORT)
                                          for ip in tb.sink_ip))
        sinks = []
        for i, ns in enumerate(tb.sink_ns):
            ready = os.path.join(wd, "sink%d.ready" % i)
            p = tb.popen(ns, [SINK, "--kernel", "--port", str(PORT), "--idle", "3",
                              "--duration", str(a.count / max(a.rate, 1) + 60 if a.rate else 120),
                              "--expect-first", "0", "--expect-last", str(a.count - 1),
                              "--ready", ready],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if not wait_for(lambda: os.path.exists(ready) or p.poll() is not None, 10):
                raise SystemExit("ledger: a sink did not start")
            sinks.append(p)
        snmp0 = [udp_snmp(tb, ns) for ns in tb.sink_ns]
        ip0 = [udp_snmp(tb, ns, "Ip") for ns in tb.sink_ns]
        # the hosts' IPv6 chatter (DAD, router solicitations, MLD: the kernel's defaults)
        # reaches udpfan's port too, and under overload some of it is lost in the same rings
        # as the generator's datagrams: counted here to take it back out (analyse)
        cap = Capture(tb, os.path.join(wd, "ipv6.pcap"))
        uf = Udpfan(tb, cfg, wd)
        if not uf.wait_stats(lambda s: all(d["state"] == "reachable"
                                           for d in s["destinations"]), 10):
            raise SystemExit("ledger: udpfan did not resolve its sinks: %s" % uf.latest())
        bed0 = bed_links(tb)
        time.sleep(0.2)  # a stats object (interval 1 s) at most 1.2 s old before t_gen0
        t_gen0 = time.time()
        if sender == "kernel":
            # resolve udpfan's MAC first (ARP, answered by udpfan): datagrams sent while it is
            # unresolved wait in the kernel's small unresolved-neighbour queue, and what does
            # not fit is dropped there, after the socket accepted it, where no stage sees it
            tb.nsx(tb.ns_src, "ping -c 1 -W 2 %s" % FWD_IP, check=False)
            gen = tb.popen(tb.ns_src, [sys.executable, KSEND, "--dst", FWD_IP, "--port", "5000",
                                       "--count", str(a.count), "--rate", str(a.rate),
                                       "--size", str(max(a.size, 8)), "--flows",
                                       str(a.flows), "--sport", "41000"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        else:
            gen = tb.popen(tb.ns_src, [GEN, "--dev", "net_af_xdp0,iface=src0,busy_budget=0",
                                       "--ip", SRC_IP + "/24", "--dst", "%s:5000" % FWD_IP,
                                       "--rate", str(a.rate), "--count", str(a.count),
                                       "--duration", str(a.duration), "--size", str(a.size),
                                       "--flows",
                                       str(a.flows), "--file-prefix", fprefix + "-gen",
                                       "--lcores", "0,1"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if a.stop_sink_after:
            time.sleep(a.stop_sink_after)
            sinks[0].send_signal(signal.SIGTERM)
        if during is not None:
            during(tb, uf, gen)
        out, err = gen.communicate(timeout=a.duration + 60 + (
            a.count / max(a.rate, 1) if sender == "kernel" else 0))
        t_gen1 = time.time() + 0.2  # the rings are empty by then
        if gen.returncode != 0:
            raise SystemExit("ledger: the sender failed:\n" + err[-2000:])
        res["gen"] = json.loads(out)
        time.sleep(2)  # let the last copies land
        res["bed"] = bed_delta(bed0, bed_links(tb))
        res["bed_names"] = {"src": "src0", "src_peer": tb.src_peer, "fwd_peer": tb.fwd_peer,
                            "fwd": tb.fwd_if, "sink_peer": list(tb.sink_peer)}
        st = uf.stop()
        cap.stop()
        res["ipv6"] = ipv6_missed(read_stats(uf.stats), cap, t_gen0, t_gen1)
        res["udpfan_log"] = uf.logtext()  # its stats lines and printed ledger
        res["sinks"] = []
        for i, p in enumerate(sinks):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
            o, _ = p.communicate(timeout=30)
            s = json.loads(o)
            d = s["destinations"].get("%s:%d" % (tb.sink_ip[i], PORT), {})
            snmp1 = udp_snmp(tb, tb.sink_ns[i])
            ip1 = udp_snmp(tb, tb.sink_ns[i], "Ip")
            srx, _ = link_stats(tb, tb.sink_ns[i], "sink0")
            res["sinks"].append({"ip": tb.sink_ip[i], "received": d.get("received", 0),
                                 "lost": d.get("lost"), "duplicated": d.get("duplicated", 0),
                                 "no_ports": snmp1["NoPorts"] - snmp0[i]["NoPorts"],
                                 "rcvbuf_errors": snmp1["RcvbufErrors"] -
                                 snmp0[i]["RcvbufErrors"],
                                 "udp_mib": {k: snmp1[k] - snmp0[i][k] for k in snmp1},
                                 "csum_errors": snmp1["InCsumErrors"] -
                                 snmp0[i]["InCsumErrors"],
                                 "ip_hdr_errors": ip1["InHdrErrors"] - ip0[i]["InHdrErrors"],
                                 "if_rx": srx})
    res["udpfan"] = st
    res["fwd_if"] = {k: res["bed"][tb.fwd_if][k] for k in ("rx_packets", "rx_dropped")}
    return res


def ipv6_missed(objs, cap, t0, t1):
    """IPv6 frames that reached udpfan's port while the sender ran and were lost before
    udpfan classified them (rings, imissed), exactly: between two stats snapshots that no
    captured frame raced (quiet_snapshot), one before the sender started (t0) and one after
    the rings emptied (t1), every IPv6 frame the bridge sent into the port was either
    counted drop.not_ipv4 (an IPv4-only port) or lost there. Outside that window nothing is
    lost (no overload)."""
    s0 = quiet_snapshot([o for o in reversed(objs) if o["time"] < t0], cap)
    s1 = quiet_snapshot([o for o in objs if o["time"] > t1 and not o.get("final")], cap)
    sent = cap.count(s0["time"], s1["time"])
    counted = s1["fwd"]["drop"]["not_ipv4"] - s0["fwd"]["drop"]["not_ipv4"]
    return {"window": [s0["time"], s1["time"]], "arrived": sent, "not_ipv4": counted,
            "missed": sent - counted, "total_arrived": len(cap.stop())}


def analyse(res):
    """stage table rows (name, value, note) and the unexplained remainders"""
    st = res["udpfan"]
    f = st["fwd"]
    port = st["ports"]["lan"]
    xsk = port.get("xsk", {})
    pks = port.get("pkt_socket", {})
    sent = res["gen"]["sent"]
    bed, names = res["bed"], res["bed_names"]
    src_drop = bed[names["src"]].get("tx_dropped", 0)
    fwd_peer_drop = bed[names["fwd_peer"]].get("tx_dropped", 0)
    fwd_drop = bed[names["fwd"]].get("tx_dropped", 0)
    rows = [("gen: sent", sent, "udpfan-gen's own count (tx_burst accepted)"),
            ("bed: src0 tx_dropped", src_drop,
             "the sender's veth: frames its bridge port refused (the CPU's backlog full)"),
            ("bed: %s tx_dropped" % names["fwd_peer"], fwd_peer_drop,
             "the bridge's port into fwd0: frames fwd0 could not take (its 256-frame XDP "
             "ring or the backlog full); counted only here, never on fwd0 or in udpfan"),
            ("fwd0 (kernel): rx_packets", res["fwd_if"]["rx_packets"],
             "frames the kernel saw arrive on udpfan's veth"),
            ("fwd0 (kernel): rx_dropped", res["fwd_if"]["rx_dropped"],
             "the kernel's view of drops on that veth (XDP redirect failures included)"),
            ("udpfan NIC: ipackets", port["ipackets"], "what the PMD handed to udpfan"),
            ("udpfan NIC: imissed", port["imissed"], "PMD: dropped before udpfan saw it"),
            ("udpfan AF_XDP: rx_ring_full", xsk.get("rx_ring_full", 0),
             "kernel dropped: XSK RX ring full (the PMD leaves it out of imissed)"),
            ("udpfan AF_XDP: fill_ring_empty", xsk.get("fill_ring_empty", 0),
             "kernel had no buffer from the fill ring"),
            ("udpfan AF_PACKET: socket drops", pks.get("drops", 0),
             "kernel dropped: the packet ring was full (the PMD never reads this)"),
            ("hosts' IPv6 frames into fwd0", res["ipv6"]["total_arrived"],
             "captured on the bridge port (DAD, RS, MLD: kernel defaults)"),
            ("  of them lost in the rings", res["ipv6"]["missed"],
             "while the sender ran: captured %d - drop.not_ipv4 %d" %
             (res["ipv6"]["arrived"], res["ipv6"]["not_ipv4"])),
            ("udpfan: rx", f["rx"], "classified by udpfan"),
            ("udpfan: forwarded", f["forwarded"], "datagrams fanned out")]
    rows += [("udpfan: drop." + k, v, "") for k, v in f["drop"].items() if v]
    rows += [("udpfan: control", f["control"], "ARP/ICMP (the generator's own ARP included)"),
             ("udpfan: copies_attempted", f["copies_attempted"], ""),
             ("udpfan: tx_ok", f["tx_ok"], "copies the PMD accepted")]
    rows += [("udpfan: tx_drop." + k, v, "") for k, v in f["tx_drop"].items() if v]
    rows += [("udpfan NIC: opackets", port["opackets"], "incl. udpfan's ARP replies"),
             ("udpfan NIC: oerrors", port["oerrors"], ""),
             ("bed: fwd0 tx_dropped", fwd_drop, "udpfan's veth: copies its bridge port "
              "refused after the PMD took them (the CPU's backlog full)")]
    for s, d, peer in zip(res["sinks"], st["destinations"], names["sink_peer"]):
        rows += [("sink %s: copies tx_ok" % s["ip"], d["tx_ok"], "udpfan's count for it"),
                 ("sink %s: bed %s tx_dropped" % (s["ip"], peer),
                  bed[peer].get("tx_dropped", 0),
                  "the bridge's port into the sink: copies its veth could not take"),
                 ("sink %s: received" % s["ip"], s["received"], "the sink's own count"),
                 ("sink %s: lost (gaps)" % s["ip"], s["lost"], "sequence gaps, vs 0..sent-1"),
                 ("sink %s: kernel NoPorts" % s["ip"], s["no_ports"], "no socket bound"),
                 ("sink %s: kernel InErrors" % s["ip"], s["udp_mib"].get("InErrors", 0),
                  "refused by the socket (the sink's stop filter, a full buffer, a bad "
                  "checksum: the two below included)"),
                 ("sink %s: kernel RcvbufErrors" % s["ip"], s["rcvbuf_errors"],
                  "  of them: socket buffer full"),
                 ("sink %s: kernel InCsumErrors" % s["ip"], s["csum_errors"],
                  "  of them: bad UDP checksum (must be 0)"),
                 ("sink %s: kernel Ip InHdrErrors" % s["ip"], s["ip_hdr_errors"],
                  "refused: bad IPv4 header (must be 0)")]
    # differences between stages, each attributed or called unexplained
    diffs = []
    before_udpfan = sent - f["forwarded"]
    # each counter below counts a distinct place; the veth's own rx_dropped sees the XSK
    # drops again from the kernel's side, so it is shown above but not added here
    # drops of frames that were never the generator's datagrams (IPv6, ARP about others)
    # explain nothing here; nor do the hosts' IPv6 frames lost in the rings beside them
    # (ipv6_missed: counted exactly from a capture)
    # the bed's veths drop what their peer cannot take, and count it only on their own side
    # (bed_links): the hosts' IPv6 frames dropped there were captured on the way out of
    # the bridge's port, so ipv6_missed counts them too
    v6 = res["ipv6"]
    attributed = src_drop + fwd_peer_drop + port["imissed"] + xsk.get("rx_ring_full", 0) + \
        xsk.get("fill_ring_empty", 0) + pks.get("drops", 0) + \
        sum(v for k, v in f["drop"].items() if k not in NOT_DATAGRAMS) - v6["missed"]
    diffs.append(("gen sent - udpfan forwarded", before_udpfan,
                  "bed veth drops + imissed + XSK/packet ring drops + udpfan drops",
                  attributed, before_udpfan - attributed))
    in_fwd = f["copies_attempted"] - f["tx_ok"]
    diffs.append(("copies attempted - tx_ok", in_fwd, "udpfan tx_drop (all reasons)",
                  sum(f["tx_drop"].values()), in_fwd - sum(f["tx_drop"].values())))
    after = []
    for s, d, peer in zip(res["sinks"], st["destinations"], names["sink_peer"]):
        gap = d["tx_ok"] - s["received"]
        # the kernel counts InDatagrams when the application reads; a sink that stops
        # filters its socket (InErrors from then on), drains it, then closes it (NoPorts)
        # a copy refused for its checksum is attributed (it is where the copy went) but is a
        # failure of its own: see bad_checksums
        # the kernel counts a datagram refused for a full buffer (RcvbufErrors) or a bad
        # checksum (InCsumErrors) in InErrors as well: InErrors alone counts each once
        att = bed[peer].get("tx_dropped", 0) + s["no_ports"] + \
            s["udp_mib"].get("InErrors", 0) + s["ip_hdr_errors"]
        after.append(("%s: tx_ok - received" % s["ip"], gap,
                      "bed port tx_dropped + sink NoPorts + InErrors + InHdrErrors", att,
                      gap - att))
    if fwd_drop == 0:
        diffs += after
    else:
        # copies lost on udpfan's own veth went to no sink in particular: the sinks are
        # accounted together
        gap, att = sum(r[1] for r in after), sum(r[3] for r in after) + fwd_drop
        diffs.append(("all sinks: tx_ok - received", gap, "fwd0 tx_dropped + each sink's "
                      "bed port, NoPorts, InErrors, InHdrErrors", att, gap - att))
    return rows, diffs


def bad_checksums(res):
    """copies the sinks' kernels refused for a bad UDP or IPv4 header checksum"""
    return sum(s["csum_errors"] + s["ip_hdr_errors"] for s in res["sinks"])


# drop reasons that filter by design, not losses (uf_stats_losses, docs/loss-accounting.md
# "The summary")
FILTERING = ("not_ipv4", "not_udp", "not_for_us", "malformed", "fragment", "ipv6_ext_hdr",
             "no_rule")
XSK_LOST = ("rx_dropped", "rx_invalid", "rx_ring_full", "fill_ring_empty", "tx_invalid")
FLEET_COLS = ("rx", "forwarded", "control", "drop", "fanout", "sampled_out",
              "copies_attempted", "tx_ok", "tx_drop", "lost", "nic_lost")


def host_ledger(obj):
    """one host's ledger from a stats object: the terms of the three identities, what was
    lost (udpfan's own: the losing drop reasons, every tx_drop; the NIC's beside it), and each
    identity's gap (0 when it holds)"""
    f = obj["fwd"]
    h = {k: f[k] for k in ("rx", "forwarded", "control", "fanout", "sampled_out",
                           "copies_attempted", "tx_ok")}
    h["drop"] = sum(f["drop"].values())
    h["tx_drop"] = sum(f["tx_drop"].values())
    h["lost"] = sum(v for k, v in f["drop"].items() if k not in FILTERING) + h["tx_drop"] + \
        f.get("ctl_tx_drop", 0)
    nic = 0
    for p in obj.get("ports", {}).values():
        nic += sum(p.get(k, 0) for k in ("imissed", "ierrors", "rx_nombuf", "oerrors"))
        nic += sum(p.get("xsk", {}).get(k, 0) for k in XSK_LOST)
        nic += p.get("pkt_socket", {}).get("drops", 0)
    h["nic_lost"] = nic
    return h


def gaps(h):
    """each identity's gap: rx, fanout, copies (docs/loss-accounting.md)"""
    return {"rx": h["rx"] - h["forwarded"] - h["control"] - h["drop"],
            "fanout": h["fanout"] - h["copies_attempted"] - h["sampled_out"],
            "copies": h["copies_attempted"] - h["tx_ok"] - h["tx_drop"]}


def read_host(spec):
    """NAME=PATH or PATH (the name: the file's name up to its first dot): the final object of
    a --stats-json file, else its last object (an interval one: approximate)"""
    name, _, path = spec.rpartition("=")
    name = name or os.path.basename(path).split(".")[0]
    objs = read_stats(path)
    if not objs:
        raise SystemExit("udpfan: error: %s: no stats object" % path)
    fin = [o for o in objs if o.get("final")]
    return name, (fin or objs)[-1], bool(fin)


def fleet(specs):
    """the per-host ledgers, their sum, and what does not balance"""
    hosts = []
    for spec in specs:
        name, obj, final = read_host(spec)
        h = host_ledger(obj)
        hosts.append({"host": name, "final": final, "ledger": h, "gaps": gaps(h),
                      "unexplained": sum(abs(v) for v in gaps(h).values())})
    total = {k: sum(x["ledger"][k] for x in hosts) for k in FLEET_COLS}
    res = {"hosts": hosts, "fleet": total, "fleet_gaps": gaps(total),
           "unexplained": sum(x["unexplained"] for x in hosts)}
    res["problems"] = ["%s: %s gap %d" % (x["host"], k, v) for x in hosts
                       for k, v in x["gaps"].items() if v]
    return res


def print_fleet(res):
    heads = ("host",) + FLEET_COLS + ("unexplained",)
    rows = [[x["host"] + ("" if x["final"] else " (interval)")] +
            ["{:,}".format(x["ledger"][k]) for k in FLEET_COLS] + ["{:,}".format(x["unexplained"])]
            for x in res["hosts"]]
    rows.append(["fleet"] + ["{:,}".format(res["fleet"][k]) for k in FLEET_COLS] +
                ["{:,}".format(res["unexplained"])])
    w = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(heads)]
    print("fleet ledger: %d hosts; rx == forwarded + control + drop, fanout == "
          "copies_attempted + sampled_out, copies_attempted == tx_ok + tx_drop on each host and "
          "on the sums" % len(res["hosts"]))
    for r in [list(heads)] + rows:
        print("  " + "  ".join(c.ljust(w[0]) if i == 0 else c.rjust(w[i])
                               for i, c in enumerate(r)))
    fg = res["fleet_gaps"]
    if res["problems"]:
        print("  UNEXPLAINED: %s" % ", ".join(res["problems"]))
    else:
        print("  fleet balances (gaps rx %d, fanout %d, copies %d): every frame and copy "
              "accounted for on every host" % (fg["rx"], fg["fanout"], fg["copies"]))
    if any(not x["final"] for x in res["hosts"]):
        print("  (interval): no final object in that file; its identities are approximate "
              "(docs/loss-accounting.md, \"When they hold exactly\")")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=200000)
    ap.add_argument("--rate", type=int, default=50000, help="0: as fast as the generator goes")
    ap.add_argument("--duration", type=float, default=30, help="the generator's time bound")
    ap.add_argument("--size", type=int, default=32)
    ap.add_argument("--flows", type=int, default=16)
    ap.add_argument("--sinks", type=int, default=3)
    ap.add_argument("--vdev", choices=["af_xdp", "af_packet"], default="af_xdp")
    ap.add_argument("--sender", choices=["gen", "kernel"], default="gen",
                    help="udpfan-gen (complete checksums) or a kernel UDP socket (at the "
                    "kernel's default offloads: partial checksums); kernel: --rate 0 is "
                    "unpaced, and the count is what the socket accepted")
    ap.add_argument("--stop-sink-after", type=float, default=0,
                    help="stop the first sink this many seconds into the run")
    ap.add_argument("--json", help="write the ledger here")
    ap.add_argument("--fleet", nargs="+", metavar="[HOST=]STATS_JSON",
                    help="no run: the ledger of several hosts from their stats files "
                    "(--stats-json, one per host), each host's and their sum")
    a = ap.parse_args()
    if a.fleet:
        res = fleet(a.fleet)
        print_fleet(res)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(res, f, indent=1)
        return 0 if not res["problems"] else 1
    if os.geteuid() != 0:
        print("udpfan: error: the ledger builds network namespaces: run it as root",
              file=sys.stderr)
        return 3
    for b in (GEN, SINK, os.environ["UDPFAN"]):
        if not os.path.exists(b):
            print("udpfan: error: %s is missing: scripts/setup.sh build" % b, file=sys.stderr)
            return 3
    res = run(a)
    rows, diffs = analyse(res)
    print("\nloss ledger: udpfan-gen -> udpfan (%s, %d sinks) -> kernel sinks; %d datagrams "
          "of %d B at %s" % (a.vdev, a.sinks, a.count, a.size,
                             "%d pps" % a.rate if a.rate else "full speed"))
    for name, v, note in rows:
        print("  %-40s %12s  %s" % (name, "-" if v is None else "{:,}".format(v), note))
    w = max([len(d[2]) for d in diffs] + [56])
    print("\n  %-32s %10s   %-*s %10s %12s" % ("difference", "count", w, "attributed to", "count",
                                                "unexplained"))
    unexplained = 0
    for name, v, what, att, rest in diffs:
        # negative: counters claim more than went missing (a datagram counted twice)
        unexplained += abs(rest)
        print("  %-32s %10s   %-*s %10s %12s" % (name, "{:,}".format(v), w, what,
                                                   "{:,}".format(att), "{:,}".format(rest)))
    bad = bad_checksums(res)
    print("\n  %s" % ("every datagram accounted for" if unexplained == 0 else
                      "UNEXPLAINED: %d" % unexplained))
    if bad:
        print("  BAD CHECKSUMS: the sinks' kernels refused %d copies udpfan sent (tx_ok): "
              "lost downstream" % bad)
    res["rows"] = rows
    res["diffs"] = diffs
    res["unexplained"] = unexplained
    res["bad_checksums"] = bad
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    return 0 if unexplained == 0 and bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
