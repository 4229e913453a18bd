#!/usr/bin/env python3
"""e2e: IPv6 in and out (docs/configuration.md#ipv6) on the veth test bed with
kernel IPv6 peers and no static neighbour entry anywhere.

The sender's kernel resolves udpfan's IPv6 address by NDP (a Neighbor Solicitation to the
solicited-node group, udpfan's advertisement) and sends from a kernel socket; udpfan resolves
each IPv6 sink by NDP, and the far sink through a gateway namespace that routes IPv6 to a
second prefix (its link-local address as `gateway6`, as a router's usually is); ping6 to
udpfan is answered; a solicitation for an address udpfan does not own is not. The families
mix: an IPv4 listener fans out to IPv6 sinks and an IPv6 listener to IPv4 ones (each with
one destination of its own family beside). Every case runs at the kernel's default offloads
(a local sender's datagrams reach udpfan with a partial checksum: veth has
tx-checksum-ip-generic on) and again with TX checksum offload off everywhere; the sinks'
kernels must refuse no copy either way (uflive.Sink reads /proc/net/snmp and snmp6). The
ledger identities hold on the final stats (uflive.Udpfan.stop).

A VLAN case puts a kernel VLAN sub-interface (`ip link add link ... type vlan id ...`) with
IPv6 addresses on the sender's and a sink's side against tagged udpfan ports; a kernel
without 8021q (this development VM) skips it with the reason. vlan6_raw is the same with
user-space IPv6 hosts on raw AF_PACKET sockets (tests/tools/vlan_host6.py: NDP and UDP on a
VLAN), which runs everywhere."""
import json
import os
import subprocess
import time

from testbed import FWD_IP, FWD_IP6, GW_IP, GW_IP6, Capture, Testbed, wait_for
from uflive import PY, TOOLS, Sink, Udpfan, quiet_snapshot, send
from ufrun import SkipCase, Suite, read_stats, tmpdir

N = 2000
OTHER_IN_OUR_GROUP = "2001:db8:18::1:0:10"  # solicited-node group ff02::1:ff00:10, udpfan's
RATE = 4000


def header(tb, kind, port_keys):
    return """eal: { lcores: "0-1", file_prefix: ufv6 }
ports:
  - { name: lan, device: "%s", %s }
stats: { interval_s: 0.5 }
arp: { retry_ms: 100 }
""" % (tb.vdev(kind), port_keys)


def dest(ip, udp_port):
    return '      - { ip: "%s", udp_port: %d }' % (ip, udp_port)


def listener(name, udp_port, ip, dests):
    return """  - name: %s
    port: lan
    udp_port: %d
    ip: "%s"
    destinations:
%s
""" % (name, udp_port, ip, "\n".join(dests))


def wait_reachable(uf, timeout=10):
    assert uf.wait_stats(lambda s: all(d["state"] == "reachable" for d in s["destinations"]),
                         timeout), ("not every destination resolved", uf.latest()["destinations"],
                                    uf.logtext()[-2000:])


def check_ndp_host(tb):
    """ping6 to udpfan answered, the sender learned udpfan's MAC by NDP, and udpfan
    advertises no address it does not own"""
    ping = tb.nsx(tb.ns_src, "ping -6 -c 3 -i 0.2 -W 1 %s" % FWD_IP6, check=False,
                  capture=True)
    assert " 0% packet loss" in ping, ping
    learned = tb.nsx(tb.ns_src, "ip -6 neigh show %s" % FWD_IP6, capture=True)
    assert tb.fwd_mac in learned, "the sender did not learn udpfan's MAC by NDP: %r" % learned
    tb.nsx(tb.ns_src, "ping -6 -c 1 -W 1 2001:db8:18::77", check=False)
    other = tb.nsx(tb.ns_src, "ip -6 neigh show 2001:db8:18::77", capture=True)
    assert tb.fwd_mac not in other, "udpfan answered NDP for another address: %r" % other


def check_sinks(res, count, senders):
    """every sink port got each datagram once, from the address udpfan sends from"""
    for (ns, port), r in res.items():
        assert r["distinct"] == count and r["duplicates"] == 0 and r["received"] == count, \
            (ns, port, r)
        who = {k.rsplit(":", 1)[0] for k in r["senders"]}
        assert who == {senders[(ns, port)]}, (ns, port, r["senders"])


def sink_results(socks, sinks):
    """each sink port's result {(ns, port): ...} from the Sink of its namespace (socks[ns])"""
    res = {}
    for ns, sk in socks.items():
        r = sk.result()
        for (n, port) in sinks:
            if n == ns:
                res[(n, port)] = r[str(port)]
    return res


def run_case(tb, wd, cfg, sinks, send_dst, count, senders, offload, nh6, nh4):
    """udpfan with cfg, the sinks [(ns, port)], count datagrams from the sender to
    send_dst:5000; nh6/nh4: how many IPv6/IPv4 next hops udpfan resolves. Returns the final
    stats."""
    socks = {}
    for ns in sorted({ns for ns, _ in sinks}):
        ports = sorted(p for n, p in sinks if n == ns)
        socks[ns] = Sink(tb, ns, ports, wd, bind="::")
    uf = Udpfan(tb, cfg, wd)
    wait_reachable(uf)
    check_ndp_host(tb)
    out = send(tb, count, RATE, size=48, dst=send_dst)
    assert out["sent"] == count, out
    res = sink_results(socks, sinks)
    st = uf.stop()
    check_sinks(res, count, senders)
    f = st["fwd"]
    assert f["forwarded"] == count, f
    assert f["tx_ok"] == count * len(sinks), f
    # every datagram of a local sender arrives with a partial checksum at the kernel's
    # defaults (veth: tx-checksum-ip-generic), none with TX checksum offload off
    assert f["csum_completed"] == (count if offload else 0), f
    for d in st["destinations"]:
        assert d["tx_ok"] == count and d["tx_drop"] == 0, d
    # every IPv6 frame classified (none is not_ipv4 on a port with ip6), NDP both ways
    assert f["drop"]["not_ipv4"] == 0, f["drop"]
    assert st["icmp6"]["echo_answered"] >= 3, st["icmp6"]
    assert st["ndp"]["ns_answered"] >= 1, st["ndp"]  # the sender's solicitation
    assert st["ndp"]["ns_sent"] >= nh6 and st["ndp"]["na_learned"] >= nh6, st["ndp"]
    assert all(v == 0 for k, v in st["ndp"].items() if k.startswith("bad_")), st["ndp"]
    assert st["arp"]["replies_learned"] >= nh4, st["arp"]
    return st


def case_v6_to_v6(kind, offload=True):
    """an IPv6-only port: the listener on its ip6, two LAN sinks and the far one behind the
    gateway (gateway6 its link-local address), all resolved by NDP"""
    wd = tmpdir()
    with Testbed(prefix="ufs", sinks=2, far_sink=True, offload=offload, ipv6=True) as tb:
        cfg = header(tb, kind, 'ip6: ["%s/64"], gateway6: "%s"' % (FWD_IP6, tb.gw_ll6))
        cfg += "listen: { port: lan, udp_port: 5000 }\ndestinations:\n"
        cfg += "\n".join("  - { ip: \"%s\", udp_port: 6000 }" % ip
                         for ip in tb.sink_ip6 + [tb.far_ip6]) + "\n"
        sinks = [(ns, 6000) for ns in tb.sink_ns + [tb.ns_far]]
        senders = {k: "[%s]" % FWD_IP6 for k in sinks}
        st = run_case(tb, wd, cfg, sinks, FWD_IP6, N, senders, offload, 3, 0)
    far = st["destinations"][2]
    assert far["next_hop"] == tb.gw_ll6 and far["mac"] == tb.gw_mac, far
    for d, ip in zip(st["destinations"][:2], tb.sink_ip6):
        assert d["ip"] == ip and d["next_hop"] == ip, d


def case_v4_to_v6(kind, offload=True):
    """a dual-stack port: an IPv4 listener (the port's ip) fans out to the IPv6 sinks (the far
    one through gateway6, here the gateway's global address) and to one IPv4 sink"""
    wd = tmpdir()
    with Testbed(prefix="ufs", sinks=2, far_sink=True, offload=offload, ipv6=True) as tb:
        cfg = header(tb, kind, 'ip: %s/24, gateway: %s, ip6: ["%s/64"], gateway6: "%s"' %
                     (FWD_IP, GW_IP, FWD_IP6, GW_IP6))
        cfg += "listeners:\n" + listener(
            "v4", 5000, FWD_IP,
            [dest(ip, 6000) for ip in tb.sink_ip6 + [tb.far_ip6]] +
            [dest(tb.sink_ip[0], 6001)])
        sinks = [(ns, 6000) for ns in tb.sink_ns + [tb.ns_far]] + [(tb.sink_ns[0], 6001)]
        senders = {k: "[%s]" % FWD_IP6 for k in sinks}
        # the IPv6 socket names an IPv4 sender as a mapped address
        senders[(tb.sink_ns[0], 6001)] = "[::ffff:%s]" % FWD_IP
        st = run_case(tb, wd, cfg, sinks, FWD_IP, N, senders, offload, 3, 1)
    far = st["destinations"][2]
    assert far["next_hop"] == GW_IP6 and far["mac"] == tb.gw_mac, far


def case_v6_to_v4(kind, offload=True):
    """a dual-stack port: an IPv6 listener (ip: the port's ip6) fans out to the IPv4 sinks
    (the far one through the IPv4 gateway) and to one IPv6 sink"""
    wd = tmpdir()
    with Testbed(prefix="ufs", sinks=2, far_sink=True, offload=offload, ipv6=True) as tb:
        cfg = header(tb, kind, 'ip: %s/24, gateway: %s, ip6: ["%s/64"], gateway6: "%s"' %
                     (FWD_IP, GW_IP, FWD_IP6, tb.gw_ll6))
        cfg += "listeners:\n" + listener(
            "v6", 5000, FWD_IP6,
            [dest(ip, 6001) for ip in tb.sink_ip + [tb.far_ip]] +
            [dest(tb.sink_ip6[1], 6000)])
        sinks = [(ns, 6001) for ns in tb.sink_ns + [tb.ns_far]] + [(tb.sink_ns[1], 6000)]
        senders = {k: "[::ffff:%s]" % FWD_IP for k in sinks}
        senders[(tb.sink_ns[1], 6000)] = "[%s]" % FWD_IP6
        st = run_case(tb, wd, cfg, sinks, FWD_IP6, N, senders, offload, 1, 3)
    far = st["destinations"][2]
    assert far["next_hop"] == GW_IP and far["mac"] == tb.gw_mac, far


def case_listeners6(kind, offload=True):
    """a dual-stack port with three listeners (docs/architecture.md#ipv6, the lane with several
    listeners): IPv6 on UDP 5000 to one IPv6 sink (its view single6, rewritten in place), IPv6
    on 5001 to an IPv6 and an IPv4 sink, IPv4 on 5002 to one IPv6 sink (single6 in two
    passes); three kernel senders at once, so that bursts mix the listeners. Every sink gets
    every datagram of its listener once, and each listener's counters are its own."""
    wd = tmpdir()
    with Testbed(prefix="ufs", sinks=2, offload=offload, ipv6=True) as tb:
        cfg = header(tb, kind, 'ip: %s/24, ip6: ["%s/64"]' % (FWD_IP, FWD_IP6))
        cfg += "listeners:\n" + listener("a6", 5000, FWD_IP6, [dest(tb.sink_ip6[0], 6000)])
        cfg += listener("b6", 5001, FWD_IP6, [dest(tb.sink_ip6[1], 6000),
                                              dest(tb.sink_ip[0], 6002)])
        cfg += listener("c4", 5002, FWD_IP, [dest(tb.sink_ip6[0], 6001)])
        want = {(tb.sink_ns[0], 6000): "[%s]" % FWD_IP6,
                (tb.sink_ns[1], 6000): "[%s]" % FWD_IP6,
                (tb.sink_ns[0], 6002): "[::ffff:%s]" % FWD_IP,
                (tb.sink_ns[0], 6001): "[%s]" % FWD_IP6}
        socks = {ns: Sink(tb, ns, sorted(p for n, p in want if n == ns), wd, bind="::")
                 for ns in sorted({ns for ns, _ in want})}
        uf = Udpfan(tb, cfg, wd)
        wait_reachable(uf)
        ps = [send(tb, N, RATE, port=5000, size=48, dst=FWD_IP6, wait=False),
              send(tb, N, RATE, port=5001, size=48, dst=FWD_IP6, wait=False, sport=42000),
              send(tb, N, RATE, port=5002, size=48, dst=FWD_IP, wait=False, sport=43000)]
        for p in ps:
            out = json.loads(p.communicate(timeout=N / RATE + 60)[0])
            assert out["sent"] == N, out
        res = sink_results(socks, want)
        st = uf.stop()
    check_sinks(res, N, want)
    f = st["fwd"]
    assert f["forwarded"] == 3 * N and f["tx_ok"] == 4 * N, f
    assert f["csum_completed"] == (3 * N if offload else 0), f
    lis = {li["name"]: li for li in st["listeners"]}
    for name, copies in (("a6", 1), ("b6", 2), ("c4", 1)):
        li = lis[name]
        assert li["rx"] == N and li["forwarded"] == N, li
        assert li["tx_ok"] == copies * N and li["tx_drop"] == 0, li


def case_sink_down_and_back6(kind):
    """NDP's state machine on a kernel IPv6 sink (docs/configuration.md#ipv6): its link goes
    down mid-run, udpfan finds it FAILED and counts its copies as no_neighbor while the other
    sinks lose nothing; once back it is re-resolved within about one retry_ms of unicast
    probes, as ARP's case_sink_down_and_back in test_neighbors.py. The kernel flushes the
    sink's address at link down (keep_addr_on_down 0, the default): it is put back, as a
    host's network manager would. The sink keeps DAD (the kernel's default): a returning
    address is tentative for about a second and the host cannot answer meanwhile, so the
    bound counts from the moment DAD has finished (the address no longer tentative)"""
    wd = tmpdir()
    rate, seconds, retry_ms, interval = 2000, 14, 100, 0.1
    count = rate * seconds
    with Testbed(prefix="ufd", sinks=3, ipv6=True) as tb:
        sinks = [Sink(tb, ns, [6000], wd, idle=seconds + 5, bind="::") for ns in tb.sink_ns]
        cfg = header(tb, kind, 'ip6: ["%s/64"]' % FWD_IP6).replace(
            "arp: { retry_ms: 100 }", "arp: { reachable_s: 2, retry_ms: %d, max_probes: 3 }" %
            retry_ms).replace("interval_s: 0.5", "interval_s: %s" % interval)
        cfg += "listen: { port: lan, udp_port: 5000 }\ndestinations:\n"
        cfg += "\n".join('  - { ip: "%s", udp_port: 6000 }' % ip for ip in tb.sink_ip6) + "\n"
        uf = Udpfan(tb, cfg, wd)
        wait_reachable(uf)
        sender = send(tb, count, rate, size=32, dst=FWD_IP6, wait=False)
        time.sleep(3)
        tb.link(tb.sink_ns[0], "sink0", False)
        assert uf.wait_stats(lambda s: s["destinations"][0]["state"] == "failed", 8), \
            "the dead sink was not detected: %r" % uf.latest()["destinations"][0]
        time.sleep(2.5)
        t_up = time.time()
        tb.link(tb.sink_ns[0], "sink0", True)
        # the address back (flushed at link down); the host answers once DAD is done
        tb.nsx(tb.sink_ns[0], "ip -6 addr replace %s/64 dev sink0" % tb.sink_ip6[0])
        assert wait_for(lambda: "tentative" not in tb.nsx(
            tb.sink_ns[0], "ip -6 addr show dev sink0", capture=True), 5, step=0.01), \
            "DAD did not finish on the sink"
        t_dad = time.time()
        assert uf.wait_stats(lambda s: s["destinations"][0]["state"] == "reachable", 5), \
            "the sink was not re-resolved: %r" % uf.latest()["destinations"][0]
        sender.communicate(timeout=seconds + 30)
        res = [s.result()["6000"] for s in sinks]
        st = uf.stop()
        objs = read_stats(uf.stats)
    d0 = st["destinations"][0]
    assert d0["no_neighbor"] > 0 and st["fwd"]["tx_drop"]["no_neighbor"] == d0["no_neighbor"], d0
    assert d0["tx_ok"] + d0["tx_drop"] == count, d0
    for r in res[1:]:
        assert r["distinct"] == count, "a healthy sink lost datagrams: %r" % r
    r0 = res[0]
    assert r0["max_seq"] >= count - rate, "the sink got nothing after coming back: %r" % r0
    assert 0 < r0["distinct"] <= d0["tx_ok"], (r0, d0)
    before = [o for o in objs if o["time"] <= t_dad and not o["final"]]
    assert before, "no stats object before the address was back"
    lost_after = d0["no_neighbor"] - before[-1]["destinations"][0]["no_neighbor"]
    lost_ms = 1000.0 * lost_after / rate
    print("copies lost after the sink's address was back: %d (%.0f ms at %d/s)" % (lost_after, lost_ms,
                                                                          rate))
    for o in objs:  # the timeline around the sink's return, for whoever reads a failure
        if t_up - 0.3 <= o["time"] <= t_dad + 1.5:
            d = o["destinations"][0]
            print("  %+.3f s after the address: %-10s no_neighbor %6d  ndp ns_sent %d na_learned %d" %
                  (o["time"] - t_dad, d["state"], d["no_neighbor"], o["ndp"]["ns_sent"],
                   o["ndp"]["na_learned"]))
    assert lost_ms <= 2 * retry_ms + 1000 * interval + 50, \
        "%d copies (%.0f ms) lost after the sink was back" % (lost_after, lost_ms)


def case_multicast6(kind):
    """an IPv6 multicast destination (docs/configuration.md#ipv6: ff00::/8, no mac, its
    33:33 MAC): two kernel sinks that joined the group (MLD reports, the bridge's defaults)
    each get every datagram once, beside a unicast sink resolved by NDP"""
    wd = tmpdir()
    group = "ff0e::db8:18:1"
    with Testbed(prefix="ufm", sinks=3, ipv6=True) as tb:
        cfg = header(tb, kind, 'ip6: ["%s/64"]' % FWD_IP6)
        cfg += "listen: { port: lan, udp_port: 5000 }\ndestinations:\n"
        cfg += '  - { ip: "%s", udp_port: 6000 }\n' % tb.sink_ip6[0]
        cfg += '  - { ip: "%s", udp_port: 6002, ttl: 8 }\n' % group
        uni = Sink(tb, tb.sink_ns[0], [6000], wd, bind="::")
        members = [Sink(tb, ns, [6002], wd, bind="::", join=["%s%%sink0" % group])
                   for ns in tb.sink_ns[1:]]
        uf = Udpfan(tb, cfg, wd)
        assert uf.wait_stats(lambda s: s["destinations"][0]["state"] == "reachable", 10), \
            uf.latest()["destinations"]
        out = send(tb, N, RATE, size=48, dst=FWD_IP6)
        assert out["sent"] == N, out
        ru = uni.result()["6000"]
        rm = [m.result()["6002"] for m in members]
        st = uf.stop()
    assert ru["distinct"] == N, ru
    for r in rm:
        assert r["distinct"] == N and r["duplicates"] == 0, r
        assert {k.rsplit(":", 1)[0] for k in r["senders"]} == {"[%s]" % FWD_IP6}, r
    d = st["destinations"][1]
    assert d["tx_ok"] == N and d["tx_drop"] == 0 and d["mac"] == "33:33:00:18:00:01", d
    assert st["fwd"]["tx_ok"] == 2 * N, st["fwd"]


def case_chatter6(kind):
    """a dual-stack port on a LAN whose hosts do what hosts do at the kernel's defaults
    (DAD, router solicitations, MLD reports, ARP): no datagram is sent, so every frame into
    fwd0 is chatter. Between two stats snapshots no captured frame raced, udpfan's rx moves
    by exactly the frames captured into fwd0, and each lands where docs/loss-accounting.md
    puts it, computed here from the frame: ICMPv6 to ff02::1, to one of udpfan's
    solicited-node groups or to its address, and ARP for its IPv4 address, go to the
    control path; every other IPv6 or ARP frame (RS to ff02::2, MLD to ff02::16, other hosts'
    DAD) is not_for_us; none is not_ipv4 (the port speaks IPv6) and nothing is forwarded."""
    wd = tmpdir()
    with Testbed(prefix="ufc6", sinks=2, ipv6=True) as tb:
        # static MACs: no resolution of udpfan's own to count as well
        dests = ['      - { ip: "%s", udp_port: 6000, mac: "%s" }' % (ip, m)
                 for ip, m in zip(tb.sink_ip6, tb.sink_mac)]
        cfg = header(tb, kind, 'ip: %s/24, ip6: ["%s/64", "fe80::10/64"]' % (FWD_IP, FWD_IP6)) \
            + "listeners:\n" + listener("v6", 5000, FWD_IP6, dests)
        cap = Capture(tb, os.path.join(wd, "all.pcap"), filt="")
        uf = Udpfan(tb, cfg, wd)
        time.sleep(2)
        # a sink takes an address whose solicited-node group is udpfan's (ff02::1:ff00:10):
        # its DAD solicitation reaches udpfan's control path, which must not answer it
        tb.nsx(tb.sink_ns[0], "ip -6 addr add %s/64 dev sink0" % OTHER_IN_OUR_GROUP)
        time.sleep(4)  # the hosts' first router solicitations come about 4 s after DAD
        st = uf.stop()
        cap.stop()
        addr = tb.nsx(tb.sink_ns[0], "ip -6 addr show dev sink0", capture=True)
    periodic = [o for o in read_stats(uf.stats) if not o.get("final")]
    s0 = quiet_snapshot(periodic, cap)
    s1 = quiet_snapshot(periodic[::-1], cap)
    frames = cap.frames(s0["time"], s1["time"])
    ours6 = {bytes.fromhex("333300000001"), bytes.fromhex("3333ff000010"),
             bytes.fromhex(tb.fwd_mac.replace(":", ""))}
    fwd_ip = bytes(int(x) for x in FWD_IP.split("."))
    want = {"control": 0, "not_for_us": 0}
    for b in frames:
        etype = b[12:14]
        if etype == b"\x86\xdd":
            icmp6 = b[20] == 58  # next header ICMPv6 (no extension header before it)
            want["control" if icmp6 and b[:6] in ours6 else "not_for_us"] += 1
        elif etype == b"\x08\x06":
            want["control" if b[38:42] == fwd_ip else "not_for_us"] += 1
        else:
            raise AssertionError("a frame neither IPv6 nor ARP: %s" % b.hex())

    def moved(k, sub="drop"):
        return (s1["fwd"][sub][k] - s0["fwd"][sub][k]) if sub else s1["fwd"][k] - s0["fwd"][k]

    v6 = sum(1 for b in frames if b[12:14] == b"\x86\xdd")
    print("    %d frames into fwd0 between the snapshots (%d IPv6), %.1f s apart; %s" %
          (len(frames), v6, s1["time"] - s0["time"], want))
    assert v6 > 0, "no IPv6 frame from the hosts in %.1f s" % (s1["time"] - s0["time"])
    assert moved("rx", None) == len(frames), (moved("rx", None), len(frames))
    assert moved("control", None) == want["control"], (st["fwd"], want)
    assert moved("not_for_us") == want["not_for_us"], (st["fwd"], want)
    assert moved("not_ipv4") == 0 and st["fwd"]["drop"]["not_ipv4"] == 0, st["fwd"]
    assert st["fwd"]["forwarded"] == 0, st["fwd"]
    # the DAD solicitation for the sink's new address: to udpfan's group, not for its
    # address: ignored, not answered, and the sink's DAD succeeded
    dad = [b for b in frames if b[:6] == bytes.fromhex("3333ff000010") and b[20] == 58 and
           b[54] == 135 and b[22:38] == bytes(16)]
    assert len(dad) >= 1, [b.hex() for b in frames]
    assert s1["ndp"]["ignored"] - s0["ndp"]["ignored"] == want["control"], (s0["ndp"],
                                                                          s1["ndp"])
    assert st["ndp"]["ns_answered"] == 0, st["ndp"]
    assert OTHER_IN_OUR_GROUP in addr and "tentative" not in addr and "dadfailed" not in addr, \
        addr


def has_8021q(tb):
    ok = tb.nsx(tb.ns_src, "ip link add link src0 name src0.99 type vlan id 99",
                check=False) == 0
    if ok:
        tb.nsx(tb.ns_src, "ip link del src0.99")
    return ok


def case_vlan6(kind):
    """tagged IPv6: the sender on a kernel VLAN 100 sub-interface resolves udpfan's VLAN 100
    address by NDP and sends; udpfan resolves a sink on VLAN 200 (a kernel sub-interface) and
    an untagged one by NDP and sends each datagram tagged 200 and untagged. net_af_packet:
    on net_af_xdp the bridge port's txvlan hides the tag from XDP (docs/pmd-quirks.md#vlans)"""
    wd = tmpdir()
    with Testbed(prefix="ufw", sinks=2, ipv6=True) as tb:
        if not has_8021q(tb):
            raise SkipCase("the kernel has no 8021q (ip link add ... type vlan refused): no "
                           "kernel VLAN sub-interface to talk to; vlan6_raw runs the case "
                           "with user-space hosts")
        v100, v200 = "2001:db8:100::", "2001:db8:200::"
        for ns, ifn, vid, ip in ((tb.ns_src, "src0", 100, v100 + "2"),
                                 (tb.sink_ns[0], "sink0", 200, v200 + "21")):
            sub = "%s.%d" % (ifn, vid)
            tb.nsx(ns, "ip link add link %s name %s type vlan id %d" % (ifn, sub, vid))
            tb.nsx(ns, "ip link set %s up" % sub)
            tb.nsx(ns, "ip -6 addr add %s/64 dev %s" % (ip, sub))
        tb.wait_dad()
        dev = tb.vdev(kind)
        cfg = """eal: { lcores: "0-1", file_prefix: ufv6 }
ports:
  - { name: lan, device: "%s", ip6: ["%s/64"] }
  - { name: v100, device: "%s", ip6: ["%s10/64"], vlan: 100 }
  - { name: v200, device: "%s", ip6: ["%s10/64"], vlan: 200, vlan_pcp: 3 }
listen: { port: v100, udp_port: 5000 }
destinations:
  - { ip: "%s21", udp_port: 6000, port: v200 }
  - { ip: "%s", udp_port: 6001, port: lan }
stats: { interval_s: 0.5 }
""" % (dev, FWD_IP6, dev, v100, dev, v200, v200, tb.sink_ip6[1])
        s200 = Sink(tb, tb.sink_ns[0], [6000], wd, bind="::")
        plain = Sink(tb, tb.sink_ns[1], [6001], wd, bind="::")
        uf = Udpfan(tb, cfg, wd)
        wait_reachable(uf)
        out = send(tb, 300, 1000, dst=v100 + "10")
        assert out["sent"] == 300, out
        r200, rp = s200.result()["6000"], plain.result()["6001"]
        time.sleep(0.5)
        st = uf.stop()
    assert r200["distinct"] == 300 and rp["distinct"] == 300, (r200, rp)
    assert st["fwd"]["forwarded"] == 300 and st["fwd"]["tx_ok"] == 600, st["fwd"]


class RawHost6:
    """tests/tools/vlan_host6.py in a namespace: an IPv6 host on a VLAN in user space"""

    def __init__(self, tb, ns, iface, vid, ip, wd, port=0, send_to="", extra=()):
        self.ready = os.path.join(wd, "ready6-%s-%d" % (ns, vid))
        argv = [PY, os.path.join(TOOLS, "vlan_host6.py"), "--iface", iface, "--vid", str(vid),
                "--ip", ip, "--port", str(port), "--ready", self.ready, "--idle", "3",
                "--duration", "60"] + list(extra)
        if send_to:
            argv += ["--send-to", send_to]
        self.proc = tb.popen(ns, argv, stdout=subprocess.PIPE, text=True)
        if not wait_for(lambda: os.path.exists(self.ready), 10):
            raise AssertionError("vlan_host6 in %s did not start" % ns)

    def result(self, timeout=90):
        out, _ = self.proc.communicate(timeout=timeout)
        return json.loads(out)


def case_vlan6_raw(kind):
    """the VLAN case with user-space IPv6 hosts on raw AF_PACKET sockets (this VM's kernel
    has no 8021q): the sender on VLAN 100 resolves udpfan's VLAN 100 address by NDP and
    sends N datagrams; udpfan resolves the VLAN 200 host and the untagged kernel sink by NDP
    and sends each datagram tagged 200 (PCP 3) and untagged; 50 frames of VLAN 300 count as
    vlan_unknown. Every interface at the kernel's defaults."""
    wd = tmpdir()
    n = 300
    v100, v200 = "2001:db8:100::", "2001:db8:200::"
    with Testbed(prefix="ufw", sinks=2, ipv6=True) as tb:
        dev = tb.vdev(kind)
        cfg = """eal: { lcores: "0-1", file_prefix: ufv6 }
ports:
  - { name: lan, device: "%s", ip6: ["%s/64"] }
  - { name: v100, device: "%s", ip6: ["%s10/64"], vlan: 100 }
  - { name: v200, device: "%s", ip6: ["%s10/64"], vlan: 200, vlan_pcp: 3 }
listen: { port: v100, udp_port: 5000 }
destinations:
  - { ip: "%s21", udp_port: 6000, port: v200 }
  - { ip: "%s", udp_port: 6001, port: lan }
stats: { interval_s: 0.5 }
arp: { retry_ms: 100 }
""" % (dev, FWD_IP6, dev, v100, dev, v200, v200, tb.sink_ip6[1])
        uf = Udpfan(tb, cfg, wd)
        s200 = RawHost6(tb, tb.sink_ns[0], "sink0", 200, v200 + "21", wd, port=6000)
        plain = Sink(tb, tb.sink_ns[1], [6001], wd, bind="::")
        out = tb.nsx(tb.ns_src, "%s %s --iface src0 --dst-mac %s --src-mac %s --src 198.18.100.2 "
                     "--dst 198.18.100.10 --port 5000 --vid 300 --count 50 --rate 1000" %
                     (PY, os.path.join(TOOLS, "vlan_send.py"), tb.fwd_mac, tb.src_mac),
                     capture=True)
        assert '"sent": 50' in out, out
        # the raw host may come up after udpfan's first solicitations: the retries find it
        wait_reachable(uf, 15)
        snd = RawHost6(tb, tb.ns_src, "src0", 100, v100 + "2", wd, send_to=v100 + "10",
                       extra=["--count", str(n), "--rate", "1000"])
        sres = snd.result()
        uf.wait_stats(lambda s: s["fwd"]["forwarded"] >= n and
                      s["fwd"]["drop"]["vlan_unknown"] >= 50, 10)
        time.sleep(1.0)
        st = uf.stop()
        r200, rp = s200.result(), plain.result()["6001"]
    f = st["fwd"]
    what = (sres, f, r200, rp)
    assert sres["sent"] == n and sres["resolved"] == tb.fwd_mac, what  # NDP on VLAN 100
    assert f["drop"]["vlan_unknown"] == 50, what
    assert f["forwarded"] == n and f["tx_ok"] == 2 * n, what
    assert r200["unique"] == n and r200["dups"] == 0 and r200["bad_csum"] == 0, what
    assert r200["pcp"] in ([3], []) and r200["ns_answered"] >= 1, what
    assert rp["distinct"] == n and rp["duplicates"] == 0, what
    assert {k.rsplit(":", 1)[0] for k in rp["senders"]} == {"[%s]" % FWD_IP6}, what


def main():
    s = Suite(root=True)
    for offload in (True, False):
        s.run(case_v6_to_v6, "af_xdp", offload)
        s.run(case_v6_to_v6, "af_packet", offload)
        s.run(case_v4_to_v6, "af_xdp", offload)
        s.run(case_v6_to_v4, "af_xdp", offload)
        s.run(case_listeners6, "af_xdp", offload)
    s.run(case_sink_down_and_back6, "af_xdp")
    s.run(case_multicast6, "af_xdp")
    s.run(case_chatter6, "af_xdp")
    s.run(case_vlan6, "af_packet")
    s.run(case_vlan6_raw, "af_packet")
    s.finish()


if __name__ == "__main__":
    main()
