"""The veth test bed: network namespaces joined by a bridge, the Linux kernel as every peer.

    <p>src  (sender, 198.18.0.2)  --+
    <p>fwd  (udpfan's port fwd0)  --+-- bridge br0 in <p>br -- <p>gw (198.18.0.1 | 198.19.0.1)
    <p>s1.. (sinks, 198.18.0.21..) -+                                  |
                                                   <p>far (198.19.0.21, behind the gateway)

Addresses come from 198.18.0.0/15, the range RFC 2544 sets aside for benchmarks; nothing
here is routed anywhere but between these namespaces. udpfan's interface has no address in
the kernel: udpfan owns its IP (ARP, ICMP) and the kernel must not answer for it.

IPv6 is on in every bed, as on the hosts users run: the sender, sinks, gateway and far
sink keep the kernel's IPv6 defaults (link-local addresses, DAD, router solicitations, MLD
reports; accept_dad 1; no static neighbour anywhere), whether or not the suite configures
IPv6 addresses, so udpfan's port sees the IPv6 chatter of a real segment: DAD solicitations
to the hosts' solicited-node groups, router solicitations to ff02::2 and MLDv2 reports to
ff02::16, for some seconds after the bed is up (router solicitations go on, further and
further apart). create() waits until DAD has finished on every host's link-local address
(wait_dad), as a host would, rather than turning it off. Only the bridge's namespace (the
switch) has IPv6 off. udpfan's interfaces (fwd0, the egress ports, all created by _port)
get what docs/deployment.md (af_xdp and af_packet, "Turn IPv6 off on the kernel
interface") tells operators: net.ipv6.conf.<iface>.disable_ipv6=1 before the link goes up,
so the kernel neither sends its own DAD, router solicitations and MLD from udpfan's MAC nor
answers NDP there; the namespace itself keeps the kernel's defaults. The kernel's default on
those interfaces too (Testbed(fwd_kernel_ipv6=True)) is the other setting, tested by e2e
wire/kernel_ipv6_on_af_xdp and _af_packet.

With ipv6=True the hosts are also dual-stack: 2001:db8:18::/64 on the LAN (sender ::2,
udpfan ::10, sinks ::21.., gateway ::1) and 2001:db8:19::/64 behind the gateway (::1 and the
far sink ::21), from the documentation prefix (RFC 3849), and the gateway forwards
(net.ipv6.conf.all.forwarding=1).
"""
import os
import re
import subprocess
import time

NET = "198.18.0"
FAR_NET = "198.19.0"
FWD_IP = NET + ".10"
SRC_IP = NET + ".2"
GW_IP = NET + ".1"
GW_FAR_IP = FAR_NET + ".1"
# IPv6 (ipv6=True)
NET6 = "2001:db8:18::"
FAR_NET6 = "2001:db8:19::"
FWD_IP6 = NET6 + "10"
SRC_IP6 = NET6 + "2"
GW_IP6 = NET6 + "1"
GW_FAR_IP6 = FAR_NET6 + "1"


def sh(cmd, check=True, capture=False):
    r = subprocess.run(cmd, shell=True, check=False, text=True,
                       stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                       stderr=subprocess.PIPE if capture else subprocess.DEVNULL)
    if check and r.returncode != 0:
        raise RuntimeError("command failed (%d): %s\n%s" % (r.returncode, cmd,
                                                          (r.stderr or "") if capture else ""))
    return r.stdout if capture else r.returncode


def remove_namespaces(names):
    """the network namespaces deleted, whatever a failed test left running in them killed
    first"""
    for ns in names:
        pids = sh("ip netns pids %s 2>/dev/null" % ns, check=False, capture=True) or ""
        for pid in pids.split():
            sh("kill -9 %s" % pid, check=False)
    for ns in names:
        sh("ip netns del %s" % ns, check=False)


def mac(n):
    return "02:18:00:00:%02x:%02x" % (n >> 8, n & 0xFF)


def link_local(macaddr):
    """the kernel's EUI-64 link-local address for a MAC (addr_gen_mode eui64, the default)"""
    b = [int(x, 16) for x in macaddr.split(":")]
    b[0] ^= 0x02
    e = b[:3] + [0xFF, 0xFE] + b[3:]
    return "fe80::" + ":".join("%x" % (e[i] << 8 | e[i + 1]) for i in range(0, 8, 2))


class Testbed:
    """Create with `with Testbed(...) as tb:`; everything is removed on exit."""

    def __init__(self, prefix="uft", sinks=3, far_sink=False, queues=1, mtu=1500,
                 offload=True, egress=0, ipv6=False, fwd_kernel_ipv6=False):
        """offload: True leaves every interface at the kernel's default offloads (TX
        checksum offload on: a local sender's datagrams reach udpfan with a partial
        checksum); False turns TX checksum offload off on every interface, so the kernel
        completes each checksum before the frame leaves (docs/testing.md).
        fwd_kernel_ipv6: True leaves udpfan's interfaces at the kernel's IPv6 default too
        (on: what an operator has who did not follow docs/deployment.md), the other setting
        that e2e wire/kernel_ipv6_on_* runs; False, the default, turns it off as that page
        says."""
        self.p = prefix
        self.fwd_kernel_ipv6 = fwd_kernel_ipv6
        self.offload = offload
        self.ipv6 = ipv6
        self.n_sinks = sinks
        self.far = far_sink
        self.queues = queues
        self.mtu = mtu
        self.ns_br = prefix + "br"
        self.ns_fwd = prefix + "fwd"
        self.ns_src = prefix + "src"
        self.ns_gw = prefix + "gw"
        self.ns_far = prefix + "far"
        self.sink_ns = [prefix + "s%d" % (i + 1) for i in range(sinks)]
        self.sink_ip = [NET + ".%d" % (21 + i) for i in range(sinks)]
        self.sink_mac = [mac(0x21 + i) for i in range(sinks)]
        self.far_ip = FAR_NET + ".21"
        self.sink_ip6 = [NET6 + "%d" % (21 + i) for i in range(sinks)]
        self.far_ip6 = FAR_NET6 + "21"
        self.fwd_if = "fwd0"
        self.fwd_mac = mac(0x10)
        # more udpfan ports on the same segment (fwd1.., 198.18.0.11..): egress ports
        self.egress_if = ["fwd%d" % (i + 1) for i in range(egress)]
        self.egress_mac = [mac(0x11 + i) for i in range(egress)]
        self.egress_ip = [NET + ".%d" % (11 + i) for i in range(egress)]
        self.src_mac = mac(0x02)
        self.gw_mac = mac(0x01)
        self.gw_ll6 = link_local(self.gw_mac)  # the gateway's link-local address on the LAN
        self._n = 0

    # -- life cycle --
    def namespaces(self):
        ns = [self.ns_br, self.ns_fwd, self.ns_src] + self.sink_ns
        if self.far:
            ns += [self.ns_gw, self.ns_far]
        return ns

    def destroy(self):
        remove_namespaces(self.namespaces())

    def __enter__(self):
        self.create()
        return self

    def __exit__(self, *exc):
        self.destroy()

    def nsx(self, ns, cmd, check=True, capture=False):
        return sh("ip netns exec %s %s" % (ns, cmd), check=check, capture=capture)

    def _quiet(self, ns):
        # the hosts keep the kernel's IPv6 defaults; the switch speaks no IPv6 (udpfan's
        # interfaces: _port, as docs/deployment.md says)
        if ns == self.ns_br:
            self.nsx(ns, "sysctl -qw net.ipv6.conf.all.disable_ipv6=1")
            self.nsx(ns, "sysctl -qw net.ipv6.conf.default.disable_ipv6=1")
        self.nsx(ns, "ip link set lo up")

    def _port(self, ns, ifname, macaddr, brname, queues=1):
        """a veth from namespace ns into the bridge"""
        self._n += 1
        peer = ("%s-b%d" % (self.p, self._n))[:15]
        q = " numtxqueues %d numrxqueues %d" % (queues, queues) if queues > 1 else ""
        sh("ip link add %s netns %s address %s%s type veth peer name %s netns %s%s" %
           (ifname, ns, macaddr, q, peer, self.ns_br, q))
        if ns == self.ns_fwd and not self.fwd_kernel_ipv6:
            # udpfan's port: IPv6 off on the kernel interface before it goes up, as
            # docs/deployment.md tells operators (no link-local, DAD, RS or MLD from
            # udpfan's MAC; the kernel answers no NDP there)
            self.nsx(ns, "sysctl -qw net.ipv6.conf.%s.disable_ipv6=1" % ifname)
        self.nsx(ns, "ip link set %s mtu %d up" % (ifname, self.mtu))
        self.nsx(self.ns_br, "ip link set %s mtu %d master %s up" % (peer, self.mtu, brname))
        if not self.offload:
            # the variant: the kernel completes every checksum before the frame leaves (the
            # default leaves it to offload, and a frame on veth keeps a partial checksum)
            self.nsx(ns, "ethtool -K %s tx off" % ifname)
        return peer

    def create(self):
        self.destroy()
        self._n = 0
        for ns in self.namespaces():
            sh("ip netns add %s" % ns)
            self._quiet(ns)
        self.nsx(self.ns_br, "ip link add br0 type bridge stp_state 0 forward_delay 0")
        self.nsx(self.ns_br, "ip link set br0 mtu %d up" % self.mtu)
        # udpfan's port: no address in the kernel
        self.fwd_peer = self._port(self.ns_fwd, self.fwd_if, self.fwd_mac, "br0", self.queues)
        self.egress_peer = [self._port(self.ns_fwd, ifn, m, "br0", self.queues)
                            for ifn, m in zip(self.egress_if, self.egress_mac)]
        self.src_peer = self._port(self.ns_src, "src0", self.src_mac, "br0")
        self.nsx(self.ns_src, "ip addr add %s/24 dev src0" % SRC_IP)
        if self.ipv6:
            self.nsx(self.ns_src, "ip -6 addr add %s/64 dev src0" % SRC_IP6)
        self.sink_peer = []
        for i, ns in enumerate(self.sink_ns):
            self.sink_peer.append(self._port(ns, "sink0", self.sink_mac[i], "br0"))
            self.nsx(ns, "ip addr add %s/24 dev sink0" % self.sink_ip[i])
            if self.ipv6:
                self.nsx(ns, "ip -6 addr add %s/64 dev sink0" % self.sink_ip6[i])
        if self.far:
            self.nsx(self.ns_br, "ip link add br1 type bridge stp_state 0 forward_delay 0")
            self.nsx(self.ns_br, "ip link set br1 mtu %d up" % self.mtu)
            self._port(self.ns_gw, "gw0", self.gw_mac, "br0")
            self._port(self.ns_gw, "gw1", mac(0x101), "br1")
            self.nsx(self.ns_gw, "ip addr add %s/24 dev gw0" % GW_IP)
            self.nsx(self.ns_gw, "ip addr add %s/24 dev gw1" % GW_FAR_IP)
            self.nsx(self.ns_gw, "sysctl -qw net.ipv4.ip_forward=1")
            self._port(self.ns_far, "far0", mac(0x121), "br1")
            self.nsx(self.ns_far, "ip addr add %s/24 dev far0" % self.far_ip)
            self.nsx(self.ns_far, "ip route add default via %s" % GW_FAR_IP)
            if self.ipv6:
                self.nsx(self.ns_gw, "ip -6 addr add %s/64 dev gw0" % GW_IP6)
                self.nsx(self.ns_gw, "ip -6 addr add %s/64 dev gw1" % GW_FAR_IP6)
                self.nsx(self.ns_gw, "sysctl -qw net.ipv6.conf.all.forwarding=1")
                self.nsx(self.ns_far, "ip -6 addr add %s/64 dev far0" % self.far_ip6)
                self.nsx(self.ns_far, "ip -6 route add default via %s" % GW_FAR_IP6)
        # the fwd namespace needs its interface up only; XDP programs attach there
        sh("mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf", check=False)
        self.wait_dad()

    def hosts(self):
        """the namespaces with the kernel's IPv6 defaults (all but udpfan's and the bridge's)"""
        return [ns for ns in self.namespaces() if ns not in (self.ns_fwd, self.ns_br)]

    def wait_dad(self, timeout=10):
        """until every host's interface has its link-local address and no address in the
        hosts is tentative (DAD done: one to two seconds at the kernel's defaults, a random
        delay up to rtr_solicit_delay 1 s, dad_transmits 1, retrans_time 1 s); fails on a
        dadfailed one"""
        hosts = self.hosts()

        def done():
            for ns in hosts:
                out = self.nsx(ns, "ip -6 -o addr show", capture=True)
                if "dadfailed" in out:
                    raise RuntimeError("DAD failed in %s:\n%s" % (ns, out))
                if "tentative" in out:
                    return False
                links = self.nsx(ns, "ip -o link show", capture=True)
                ifs = {ln.split(":")[1].strip().split("@")[0] for ln in links.splitlines()}
                ll = {ln.split()[1] for ln in out.splitlines() if " fe80:" in ln}
                if ifs - {"lo"} - ll:
                    return False
            return True

        if not wait_for(done, timeout, 0.1):
            raise RuntimeError("DAD did not finish in %d s" % timeout)

    # -- helpers --
    def static_neighbours(self):
        """static: the sender knows udpfan's MAC without ARP"""
        self.nsx(self.ns_src, "ip neigh replace %s lladdr %s dev src0 nud permanent" %
                 (FWD_IP, self.fwd_mac))

    def link(self, ns, ifname, up):
        self.nsx(ns, "ip link set %s %s" % (ifname, "up" if up else "down"))

    def vdev(self, kind, queues=1, extra="", port=0):
        """the vdev string of udpfan's port `port` (0: fwd0, k: egress_if[k - 1])"""
        ifname = self.fwd_if if port == 0 else self.egress_if[port - 1]
        if kind == "af_xdp":
            return "net_af_xdp%d,iface=%s,queue_count=%d,busy_budget=0%s" % (port, ifname,
                                                                            queues, extra)
        if kind == "af_packet":
            return "net_af_packet%d,iface=%s,qpairs=%d%s" % (port, ifname, queues, extra)
        raise ValueError(kind)

    def popen(self, ns, argv, **kw):
        return subprocess.Popen(["ip", "netns", "exec", ns] + list(argv), **kw)


class Capture:
    """Every IPv6 frame the bridge sends into udpfan's port (tcpdump on the bridge's end of
    its veth, outgoing: what udpfan's interface receives), with the kernel's timestamp
    (CLOCK_REALTIME, as time.time()). The hosts' IPv6 chatter is counted so: udpfan's own
    counters must equal what the peers actually sent (docs/testing.md)."""

    def __init__(self, tb, path, peer=None, filt="ip6", ns=None, direction="out"):
        """peer, ns, direction: another interface (in namespace ns), "inout" for both;
        filt: tcpdump's filter ("" for every frame)"""
        self.path = path
        self.proc = tb.popen(ns or tb.ns_br, ["tcpdump", "-i", peer or tb.fwd_peer, "-Q",
                                              direction, "-n", "-U", "-s", "96", "-w", path]
                             + ([filt] if filt else []),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        line = self.proc.stderr.readline()  # "listening on ...": the filter is attached
        if "listening" not in line:
            raise RuntimeError("tcpdump did not start: " + line + self.proc.stderr.read())
        self.times = None

    def stop(self):
        """the frames' timestamps, in order"""
        if self.times is None:
            time.sleep(0.1)
            self.proc.send_signal(2)
            err = self.proc.communicate(timeout=10)[1]
            if not re.search(r"(?m)^0 packets dropped by kernel", err):
                raise RuntimeError("tcpdump dropped frames: " + err)
            self.frames_ = read_pcap(self.path)
            self.times = [t for t, _ in self.frames_]
        return self.times

    def count(self, t0, t1):
        return sum(1 for t in self.stop() if t0 <= t <= t1)

    def frames(self, t0, t1):
        """the frames (their first 96 bytes) captured between t0 and t1"""
        self.stop()
        return [b for t, b in self.frames_ if t0 <= t <= t1]


def read_pcap(path):
    import struct
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    div = 1e9 if magic == 0xA1B23C4D else 1e6
    out, i = [], 24
    while i + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack("<IIII", data[i:i + 16])
        out.append((sec + frac / div, data[i + 16:i + 16 + incl]))
        i += 16 + incl
    return out


def wait_for(pred, timeout, step=0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return pred()


def root():
    return os.geteuid() == 0


def _cli():
    import argparse
    import json

    ap = argparse.ArgumentParser(description="create or remove the udpfan veth test bed")
    ap.add_argument("action", choices=["up", "down", "show"])
    ap.add_argument("--prefix", default="uf")
    ap.add_argument("--sinks", type=int, default=3)
    ap.add_argument("--far", action="store_true", help="add a gateway and a sink behind it")
    ap.add_argument("--queues", type=int, default=1)
    ap.add_argument("--no-offload", action="store_true",
                    help="TX checksum offload off on every interface (default: kernel's)")
    ap.add_argument("--ipv6", action="store_true", help="dual-stack hosts (2001:db8:18::/64)")
    a = ap.parse_args()
    tb = Testbed(prefix=a.prefix, sinks=a.sinks, far_sink=a.far, queues=a.queues,
                 offload=not a.no_offload, ipv6=a.ipv6)
    if a.action == "up":
        tb.create()
    elif a.action == "down":
        tb.destroy()
    print(json.dumps({"namespaces": tb.namespaces(), "udpfan_ns": tb.ns_fwd,
                      "udpfan_iface": tb.fwd_if, "udpfan_ip": FWD_IP, "sender_ns": tb.ns_src,
                      "sender_ip": SRC_IP, "sinks": dict(zip(tb.sink_ns, tb.sink_ip)),
                      "far_sink": tb.far_ip if tb.far else None,
                      "ipv6": {"udpfan_ip": FWD_IP6, "sender_ip": SRC_IP6,
                               "sinks": dict(zip(tb.sink_ns, tb.sink_ip6)),
                               "gateway_ll": tb.gw_ll6,
                               "far_sink": tb.far_ip6 if tb.far else None} if a.ipv6
                      else None}, indent=1))


if __name__ == "__main__":
    _cli()
