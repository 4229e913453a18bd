#!/usr/bin/env python3
"""e2e: 802.1Q VLANs on the veth test bed (docs/configuration.md#vlans). udpfan has three
logical ports on its one interface: `lan` untagged, `v100` on VLAN 100 (the listen port) and
`v200` on VLAN 200 with priority 3. A sender on VLAN 100 resolves udpfan's address there by
ARP and sends datagrams tagged 100; udpfan resolves each sink by ARP on its own VLAN (no
static neighbour anywhere) and sends each datagram tagged 200 (PCP 3), untagged, and tagged
100. Frames of VLAN 300, which no port claims, count as vlan_unknown. Every interface keeps
the kernel's default offloads.

The VLAN hosts are kernel VLAN interfaces (`ip link add link … type vlan`) where the kernel
has 8021q; without it (this development VM), raw AF_PACKET hosts (tests/tools/vlan_host.py)
that answer ARP and count datagrams on their VLAN. The untagged sink is always the kernel.

On net_af_xdp the kernel hands the tag to XDP only where it is in the frame: the bridge
port towards udpfan moves it to the skb's metadata (txvlan, on by default), so the frames
arrive untagged and go to the untagged port (docs/pmd-quirks.md#vlans); with `txvlan off` on
that port they arrive tagged and everything is forwarded."""
import json
import os
import subprocess
import time

from testbed import FWD_IP, Testbed, wait_for
from uflive import PY, TOOLS, Sink, Udpfan
from ufrun import Suite, tmpdir

V100, V200 = "198.18.100", "198.18.200"
N = 300


def has_8021q(tb):
    ok = tb.nsx(tb.ns_src, "ip link add link src0 name src0.99 type vlan id 99",
                check=False) == 0
    if ok:
        tb.nsx(tb.ns_src, "ip link del src0.99")
    return ok


def config(tb, kind):
    dev = tb.vdev(kind)
    return """eal: { lcores: "0-1", file_prefix: ufvlan }
ports:
  - { name: lan, device: "%s", ip: %s/24 }
  - { name: v100, device: "%s", ip: %s.10/24, vlan: 100 }
  - { name: v200, device: "%s", ip: %s.10/24, vlan: 200, vlan_pcp: 3 }
listen: { port: v100, udp_port: 5000 }
destinations:
  - { ip: %s.21, udp_port: 6000, port: v200 }
  - { ip: %s, udp_port: 6001, port: lan }
  - { ip: %s.22, udp_port: 6002, port: v100 }
stats: { interval_s: 0.5 }
arp: { retry_ms: 100 }
""" % (dev, FWD_IP, dev, V100, dev, V200, V200, tb.sink_ip[1], V100)


class RawHost:
    """tests/tools/vlan_host.py in a namespace"""

    def __init__(self, tb, ns, iface, vid, ip, wd, port=0, send_to="", extra=()):
        self.ready = os.path.join(wd, "ready-%s-%d-%s" % (ns, vid, ip))
        argv = [PY, os.path.join(TOOLS, "vlan_host.py"), "--iface", iface, "--vid", str(vid),
                "--ip", ip, "--port", str(port), "--ready", self.ready, "--idle", "3",
                "--duration", "60"] + list(extra)
        if send_to:
            argv += ["--send-to", send_to]
        self.proc = tb.popen(ns, argv, stdout=subprocess.PIPE, text=True)
        if not wait_for(lambda: os.path.exists(self.ready), 10):
            raise AssertionError("vlan_host in %s did not start" % ns)

    def result(self, timeout=90):
        out, _ = self.proc.communicate(timeout=timeout)
        return json.loads(out)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
        return self.result()


class KernelHost:
    """a kernel VLAN interface IF.VID with ip/24 in namespace ns; a kernel sink on it or
    a kernel sender through it"""

    def __init__(self, tb, ns, iface, vid, ip, wd, port=0, send_to=""):
        sub = "%s.%d" % (iface, vid)
        tb.nsx(ns, "ip link add link %s name %s type vlan id %d" % (iface, sub, vid))
        tb.nsx(ns, "ip link set %s up" % sub)
        tb.nsx(ns, "ip addr add %s/24 dev %s" % (ip, sub))
        self.sink = Sink(tb, ns, [port], wd, idle=3) if port else None
        self.sender = None
        if send_to:
            self.sender = tb.popen(ns, [PY, os.path.join(TOOLS, "udp_send.py"), "--dst",
                                        send_to, "--port", "5000", "--count", str(N),
                                        "--rate", "1000", "--size", "64"],
                                   stdout=subprocess.PIPE, text=True)

    def result(self, timeout=90):
        if self.sender is not None:
            out, _ = self.sender.communicate(timeout=timeout)
            return json.loads(out)
        r = self.sink.result(timeout)  # the kernel refused no bad checksum
        got = [v for k, v in r.items() if k != "kernel"][0]
        return {"received": got["received"], "unique": got["distinct"],
                "dups": got["duplicates"], "bad_csum": 0, "pcp": None}

    def stop(self):
        if self.sink is not None and self.sink.proc.poll() is None:
            self.sink.proc.terminate()
        return self.result()


def case_vlan(kind, txvlan_off=False):
    wd = tmpdir()
    with Testbed(prefix="ufl", sinks=2) as tb:
        kernel = has_8021q(tb)
        host = KernelHost if kernel else RawHost
        if txvlan_off:
            tb.nsx(tb.ns_br, "ethtool -K %s txvlan off" % tb.fwd_peer)
        uf = Udpfan(tb, config(tb, kind), wd)
        # the sinks: VLAN 200 and VLAN 100 in s1 (two hosts on one interface), the kernel's
        # untagged socket in s2
        s200 = host(tb, tb.sink_ns[0], "sink0", 200, V200 + ".21", wd, port=6000)
        s100 = host(tb, tb.sink_ns[0], "sink0", 100, V100 + ".22", wd, port=6002)
        plain = Sink(tb, tb.sink_ns[1], [6001], wd, idle=3)
        # 50 frames of a VLAN no port claims
        out = tb.nsx(tb.ns_src, "%s %s --iface src0 --dst-mac %s --src-mac %s --src %s.2 "
                     "--dst %s.10 --port 5000 --vid 300 --count 50 --rate 1000" %
                     (PY, os.path.join(TOOLS, "vlan_send.py"), tb.fwd_mac, tb.src_mac, V100,
                      V100), capture=True)
        assert '"sent": 50' in out, out
        want_fwd = N if (kind == "af_packet" or txvlan_off) else 0
        # udpfan resolves every sink on its VLAN by ARP (its first requests may go before
        # a raw host is up: the retries find it); on af_xdp with the bridge port's default
        # txvlan, the tagged replies reach XDP untagged and never resolve
        if want_fwd > 0:
            assert uf.wait_stats(lambda s: all(d["state"] == "reachable"
                                               for d in s["destinations"]), 15), \
                uf.latest()["destinations"]
        else:
            assert uf.wait_stats(lambda s: s["destinations"][0]["state"] == "failed", 15), \
                uf.latest()["destinations"]
        # the sender on VLAN 100: resolves udpfan there by ARP, then N datagrams
        if want_fwd > 0:
            snd = host(tb, tb.ns_src, "src0", 100, V100 + ".2", wd, send_to=V100 + ".10",
                       extra=["--count", str(N), "--rate", "1000"])
            sres = snd.result()
        else:  # no ARP answer will come back tagged: udpfan's MAC, known
            out = tb.nsx(tb.ns_src, "%s %s --iface src0 --dst-mac %s --src-mac %s --src %s.2 "
                         "--dst %s.10 --port 5000 --vid 100 --count %d --rate 1000" %
                         (PY, os.path.join(TOOLS, "vlan_send.py"), tb.fwd_mac, tb.src_mac,
                          V100, V100, N), capture=True)
            sres = {"sent": N if '"sent": %d' % N in out else -1}
        uf.wait_stats(lambda s: s["fwd"]["forwarded"] >= want_fwd and
                      s["fwd"]["drop"]["vlan_unknown"] >= 50, 10)
        time.sleep(1.0)
        st = uf.stop()
        r200, r100, rp = s200.stop(), s100.stop(), plain.stop()
    f = st["fwd"]
    what = (kind, "kernel 8021q" if kernel else "raw hosts", sres, f, r200, r100, rp)
    if want_fwd == 0:
        # the tag never reaches XDP: the frames arrive untagged, the untagged port's, and
        # not to its address; udpfan said at start which setting to change
        assert f["forwarded"] == 0 and f["drop"]["not_for_us"] >= N, what
        with open(uf.log) as lf:
            log = lf.read()
        assert "txvlan off" in log, log[-3000:]
        st_d = {d["ip"]: d["state"] for d in st["destinations"]}
        assert st_d[V200 + ".21"] != "reachable" and st_d[tb.sink_ip[1]] == "reachable", st_d
        return
    assert sres["sent"] == N, what
    if not kernel:
        assert sres["resolved"] == tb.fwd_mac, what  # udpfan answered ARP on VLAN 100
    assert f["drop"]["vlan_unknown"] == 50, what
    assert f["forwarded"] == N and f["tx_ok"] == 3 * N, what
    for r in (r200, r100):
        assert r["unique"] == N and r["dups"] == 0 and r["bad_csum"] == 0, what
    assert r200["pcp"] in (None, [3]) and r100["pcp"] in (None, [0]), what
    assert rp["6001"]["received"] == N, what
    ports = {d["ip"]: d for d in st["destinations"]}
    for ip in (V200 + ".21", V100 + ".22", tb.sink_ip[1]):
        assert ports[ip]["tx_ok"] == N, (ip, ports[ip])


def main():
    s = Suite(root=True)
    s.run(case_vlan, "af_packet")
    s.run(case_vlan, "af_xdp")
    s.run(case_vlan, "af_xdp", True)
    s.finish()


if __name__ == "__main__":
    main()
