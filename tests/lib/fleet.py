"""The fleet test bed: udpfan hosts behind a router that spreads a service address over them
by BGP and ECMP (docs/scale-out.md#ecmp-on-routers, deploy/bgp/).

    <p>exp (exporters 198.18.100.2 + senders .40..)          <p>col (collectors 198.51.100.21)
         |  exp0 / re0 (198.18.100.1)                          |  col0 / rc0 (198.51.100.1)
         +------------------------ <p>rtr ---------------------+
                 FRR: zebra, bgpd, bfdd; ECMP over the hosts; L4 hash policy
            rdK (DPDK link)    rmK (BGP link 10.255.K.1/30)
               |                  |
    <p>hK:  dp0 (udpfan's port)  mg0 10.255.K.2/30: the host's BGP speaker (ExaBGP + health
            check, or BIRD), in the same namespace as udpfan (it reads udpfan's telemetry)

Each host K (1, 2, ...) is one namespace holding udpfan on dp0 (net_af_xdp or net_af_packet,
one worker) and a kernel veth mg0 for its BGP session: udpfan has no TCP, so the session runs
over the kernel link and announces the service address with next hop = udpfan's port address
(what the router resolves by ARP over the data link, answered by udpfan).

Addresses (documentation and benchmark ranges; nothing is routed outside the namespaces):
udpfan's port on host K is 10.0.K.2/24, the router's end 10.0.K.1; the service address
192.0.2.100 is announced by every ready host and is each port's service address
(ports[].service, neighbor: silent: the router resolves the port's own address only).
With `family=6` the service address is IPv6 (2001:db8:100::100): each port has
2001:db8:10:K::2/64 beside its IPv4 address and carries the IPv6 service address; the
speakers announce it over their IPv4 sessions (BGP IPv6 unicast, next hop the port's IPv6
address, which the router resolves by Neighbour Discovery, answered by udpfan); the
exporters send from 2001:db8:18:100::40.. through the router's IPv6 ECMP route; the
collectors stay IPv4 (an IPv6 listener with IPv4 destinations).
`svc="listener"` is the layout for a udpfan without service addresses: each host's port an
address in 192.0.2.0/24 (192.0.2.K) and a listener on 192.0.2.100
(docs/configuration.md#listeners), the router a /32 peer address per link.
"""
import json
import os
import signal
import subprocess
import time

from testbed import mac, remove_namespaces, sh, wait_for
from ufrun import UDPFAN, UF_SRC, final, ledger, read_stats

DEPLOY = os.path.join(UF_SRC, "deploy", "bgp")
HEALTH = os.path.join(UF_SRC, "scripts", "udpfan-health")
EXPORTER = os.path.join(UF_SRC, "scripts", "udpfan-exporter.py")
TOOLS = os.path.join(UF_SRC, "tests", "tools")
PY = "/usr/bin/python3"
FRR = "/usr/lib/frr"

SERVICE = "192.0.2.100"
SERVICE6 = "2001:db8:100::100"
EXP_NET = "198.18.100"
EXP_NET6 = "2001:db8:18:100::"
EXP_IP = EXP_NET + ".2"
COL_IP = "198.51.100.21"
ROUTER_AS = 65000
HOST_AS = 65010
UDP_PORT = 5000
HEALTH_PORT = 8080  # the port health responder's TCP port, with `health=True`
COL_PORTS = (6000, 6001)
# 16384 RX descriptors: at the bed's 5 to 10 kpps per host, a worker may wait ~2 s for a CPU
# on a 2-CPU machine shared with the router, the senders and the sinks before the XDP
# socket's ring fills (xsk.rx_ring_full)
RING = "\n      rx_desc: 16384, mbufs: 32767"
# The bed's control plane before udpfan's workers. Each host's worker busy-polls a CPU, and
# on this 2-CPU machine the two workers take both, beside the router's bgpd/bfdd/zebra, the
# hosts' BGP speakers and health checks, and udpfan's own telemetry thread; on a production
# host the workers have cores of their own (docs/configuration.md, `eal.lcores`) and none of
# those waits behind them. Without this, a keepalive, a BFD packet or a health check's
# answer was late often enough on the loaded machine that the router dropped a host that
# was not draining (hold timer, BFD, two failed checks): the rolling case's skips. SCHED_FIFO
# at a low priority: they preempt a worker when they wake and sleep again at once; the
# kernel's RT throttling (sched_rt_runtime_us) bounds them should one spin. udpfan's own
# defaults are unchanged: only the bed's processes get it.
PRIO = ["chrt", "-f", "10"]


def fill(template, values):
    """a deploy/bgp/*.in template with its @NAME@ placeholders replaced"""
    with open(os.path.join(DEPLOY, template)) as f:
        text = f.read()
    for k, v in values.items():
        text = text.replace("@%s@" % k, str(v))
    import re
    left = [m for ln in text.splitlines() if not ln.lstrip().startswith(("#", "!"))
            for m in re.findall(r"@[A-Z_0-9]+@", ln)]
    if left:
        raise AssertionError("%s: unfilled placeholders %s" % (template, left))
    return text


class Host:
    """udpfan host K: its namespace, addresses and processes"""

    def __init__(self, fleet, k):
        self.fleet = fleet
        self.k = k
        self.ns = "%sh%d" % (fleet.p, k)
        self.prefix = "%sh%d" % (fleet.p, k)  # EAL file prefix, udpfan-health --prefix
        self.mac = mac(0x300 + k)
        self.rtr_if = "rd%d" % k
        self.mg_rtr_if = "rm%d" % k
        self.mg_ip = "10.255.%d.2" % k
        self.mg_rtr_ip = "10.255.%d.1" % k
        if fleet.svc == "listener":
            self.ip = "192.0.2.%d" % k
            self.gw = "192.0.2.%d" % (200 + k)
            self.plen = 24
        else:
            self.ip = "10.0.%d.2" % k
            self.gw = "10.0.%d.1" % k
            self.plen = 24
        self.ip6 = "2001:db8:10:%d::2" % k
        self.gw6 = "2001:db8:10:%d::1" % k
        # the router's next hop for the service address: the port's address of its family
        self.nh = self.ip6 if fleet.family == 6 else self.ip
        self.wd = os.path.join(fleet.wd, "h%d" % k)
        os.makedirs(self.wd, exist_ok=True)
        self.uf = None
        self.speaker = None
        self.runs = 0

    def nsx(self, cmd, **kw):
        return sh("ip netns exec %s %s" % (self.ns, cmd), **kw)

    # -- udpfan --
    def config(self, drain_s, kind, pool=False, health=False):
        """udpfan's config on this host: the same destinations on every host; with `health`,
        the port health responder on HEALTH_PORT (docs/configuration.md#health)"""
        ind = "      " if self.fleet.svc == "listener" or self.fleet.family == 6 else "  "
        if pool:
            dests = ind + "- pool:\n%s    balance: hash-sender\n%s    members:\n" % (ind, ind)
            dests += "\n".join("%s      - { ip: %s, udp_port: %d, source: original }" %
                                (ind, ip, COL_PORTS[0]) for ip in self.fleet.col_ips)
        else:
            dests = "\n".join("%s- { ip: %s, udp_port: %d }" % (ind, COL_IP, p)
                              for p in COL_PORTS)
        dev = self.fleet.vdev(kind)
        lc = "0@%d,1@%d" % ((self.k + 1) % 2, self.k % 2)  # the workers on both CPUs
        if self.fleet.family == 6:
            port = ("  - { name: dp, device: \"%s\", ip: %s/%d, gateway: %s,%s,\n"
                    "      ip6: [\"%s/64\"], service: [ { ip: \"%s\", neighbor: silent } ] }" % (
                        dev, self.ip, self.plen, self.gw, RING, self.ip6, SERVICE6))
            # the port's own IPv4 address keeps a listener (one listener alone would be the
            # one-listener path); datagrams to the service address go to the IPv6 one
            # (docs/configuration.md#service-addresses)
            listen = ("listeners:\n  - name: own\n    port: dp\n    udp_port: %d\n"
                      "    destinations:\n%s\n"
                      "  - name: v6\n    port: dp\n    ip: \"%s\"\n    udp_port: %d\n"
                        "    destinations:\n%s" % (UDP_PORT, dests, self.ip6, UDP_PORT, dests))
        elif self.fleet.svc == "listener":
            port = "  - { name: dp, device: \"%s\", ip: %s/%d, gateway: %s,%s }" % (
                dev, self.ip, self.plen, self.gw, RING)
            # a second listener on the port's own address: with listeners[0] alone, the
            # datagrams to its address were dropped as not_for_us (the one-listener path)
            listen = ("listeners:\n  - name: svc\n    port: dp\n    ip: %s\n"
                      "    udp_port: %d\n    destinations:\n%s\n"
                      "  - name: own\n    port: dp\n    udp_port: %d\n"
                      "    destinations:\n%s" % (SERVICE, UDP_PORT, dests, UDP_PORT, dests))
        else:
            port = ("  - { name: dp, device: \"%s\", ip: %s/%d, gateway: %s,%s,\n"
                    "      service: [ { ip: %s, neighbor: silent } ] }" % (
                        dev, self.ip, self.plen, self.gw, RING, SERVICE))
            listen = "listen: { port: dp, udp_port: %d }\ndestinations:\n%s" % (UDP_PORT,
                                                                                dests)
        return """eal: { lcores: "%s", file_prefix: %s }
ports:
%s
%s
control: { drain_s: %d }
stats: { interval_s: 0.5 }
%s""" % (lc, self.prefix, port, listen, drain_s,
         "health: { tcp_port: %d, http_path: /healthz }\n" % HEALTH_PORT if health else "")

    def start_udpfan(self, drain_s=10, kind="af_xdp", pool=False, health=False):
        self.runs += 1
        name = "udpfan%d" % self.runs
        cfg = os.path.join(self.wd, name + ".yaml")
        self.stats = os.path.join(self.wd, name + ".jsonl")
        self.log = os.path.join(self.wd, name + ".log")
        with open(cfg, "w") as f:
            f.write(self.config(drain_s, kind, pool, health))
        cmd = "mount -t bpf bpf /sys/fs/bpf 2>/dev/null; exec %s -c %s --stats-json %s" % (
            UDPFAN, cfg, self.stats)
        self.uf = subprocess.Popen(["ip", "netns", "exec", self.ns, "sh", "-c", cmd],
                                   stdout=subprocess.DEVNULL, stderr=open(self.log, "w"))
        if not wait_for(lambda: self.health() == 0 or self.uf.poll() is not None, 40, 0.2):
            raise AssertionError("udpfan on %s not ready:\n%s" % (self.ns, self.logtext()))
        if self.uf.poll() is not None:
            raise AssertionError("udpfan on %s exited %d:\n%s" % (self.ns, self.uf.returncode,
                                                                 self.logtext()))
        self.prioritize()

    def prioritize(self):
        """udpfan's telemetry thread (it answers the health check) and EAL's helper threads
        at PRIO; not its workers, nor its control lcore (the main thread: 39 % of a CPU in
        top here, taken at PRIO from the other host's worker on that CPU; a run with it at
        PRIO lost 202 datagrams to that worker's XDP fill ring running empty when the
        traffic moved to its host). sh's exec made udpfan the Popen's process"""
        task = "/proc/%d/task" % self.uf.pid
        for tid in os.listdir(task):
            try:
                with open(os.path.join(task, tid, "comm")) as f:
                    comm = f.read().strip()
            except OSError:
                continue
            # rte-worker-N (lcore-worker-N before DPDK 22.11)
            if "worker" not in comm and int(tid) != self.uf.pid:
                sh(" ".join(PRIO[:-1] + ["-p", PRIO[-1], tid]), check=False)

    def logtext(self):
        with open(self.log) as f:
            return f.read()[-4000:]

    def health(self):
        """scripts/udpfan-health's exit status in this host's namespace"""
        return self.nsx("%s %s --prefix %s --quiet" % (PY, HEALTH, self.prefix), check=False)

    def latest(self):
        objs = read_stats(self.stats)
        return objs[-1] if objs else None

    def drain(self):
        self.uf.send_signal(signal.SIGTERM)

    def wait_stopped(self, timeout=60):
        try:
            self.uf.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.uf.kill()
            raise AssertionError("udpfan on %s did not stop" % self.ns)
        if self.uf.returncode != 0:
            raise AssertionError("udpfan on %s exited %d:\n%s" % (self.ns, self.uf.returncode,
                                                                 self.logtext()))
        st = final(read_stats(self.stats))
        ledger(st)
        return st

    def stop(self):
        """SIGINT: a stop at once, the final stats object"""
        self.uf.send_signal(signal.SIGINT)
        return self.wait_stopped()

    def kill9(self):
        """udpfan killed as by a crash: the process only (sh's exec made it the child)"""
        self.uf.send_signal(signal.SIGKILL)
        self.uf.wait(timeout=10)

    # -- BGP speaker --
    def start_exabgp(self):
        conf = os.path.join(self.wd, "exabgp.conf")
        with open(conf, "w") as f:
            f.write(fill("exabgp.conf.in", {
                "SERVICE": self.fleet.service, "SERVICE_LEN": 128 if self.fleet.family == 6
                else 32, "NEXT_HOP": self.nh,
                "UDPFAN_HEALTH": HEALTH, "FILE_PREFIX": self.prefix,
                "ROUTER": self.mg_rtr_ip, "ROUTER_ID": self.mg_ip, "LOCAL": self.mg_ip,
                "LOCAL_AS": HOST_AS, "ROUTER_AS": ROUTER_AS,
                "FAMILY": "ipv%d unicast" % self.fleet.family}))
        env = dict(os.environ, **{"exabgp.daemon.user": "root", "exabgp.api.cli": "false",
                                  "exabgp.log.destination": os.path.join(self.wd,
                                                                         "exabgp.log"),
                                  "exabgp.daemon.daemonize": "false",
                                  "exabgp.log.level": "INFO"})
        self.speaker = subprocess.Popen(["ip", "netns", "exec", self.ns] + PRIO +
                                        ["/usr/sbin/exabgp", conf], env=env, stdout=subprocess.DEVNULL,
                                        stderr=open(os.path.join(self.wd, "exabgp.err"), "w"),
                                        start_new_session=True)

    def start_bird(self):
        """BIRD 2 with BFD on the BGP session, and deploy/bgp/udpfan-bird-health"""
        conf = os.path.join(self.wd, "bird.conf")
        self.bird_sock = os.path.join(self.wd, "bird.ctl")
        with open(conf, "w") as f:
            f.write(fill("bird.conf.in", {
                "SERVICE": self.fleet.service, "SERVICE_LEN": 128 if self.fleet.family == 6
                else 32, "CHANNEL": "ipv%d" % self.fleet.family, "NEXT_HOP": self.ip,
                "NEXT_HOP6": self.ip6, "RUNDIR": self.wd,
                "ROUTER": self.mg_rtr_ip, "ROUTER_ID": self.mg_ip, "LOCAL": self.mg_ip,
                "LOCAL_AS": HOST_AS, "ROUTER_AS": ROUTER_AS, "BGP_IFACE": "mg0"}))
        cmd = ("/usr/sbin/bird -f -c %s -s %s -P %s & "
               "sleep 0.5; exec %s %s %s %s" % (conf, self.bird_sock,
                                                os.path.join(self.wd, "bird.pid"),
                                                os.path.join(DEPLOY, "udpfan-bird-health"),
                                                HEALTH, self.prefix, self.bird_sock))
        self.speaker = subprocess.Popen(["ip", "netns", "exec", self.ns] + PRIO +
                                        ["sh", "-c", cmd], stdout=subprocess.DEVNULL,
                                        stderr=open(os.path.join(self.wd, "bird.err"), "w"),
                                        start_new_session=True)

    def silence(self):
        """the host's BGP speaker freezes (SIGSTOP: no keepalive, no BFD; the kernel's TCP
        and the link stay up), as on a host that hung; the test bed's kernel has neither
        netem nor a tc drop action to silence the link itself"""
        os.killpg(self.speaker.pid, signal.SIGSTOP)

    def withdrawals(self):
        """how often this host's ExaBGP withdrew the service route (its log)"""
        try:
            with open(os.path.join(self.wd, "exabgp.log")) as f:
                return sum(1 for ln in f if "route removed" in ln)
        except OSError:
            return 0

    def stop_speaker(self, sig=signal.SIGTERM):
        if self.speaker and self.speaker.poll() is None:
            os.killpg(self.speaker.pid, sig)
            try:
                self.speaker.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.speaker.pid, signal.SIGKILL)
        self.speaker = None


class Fleet:
    """`with Fleet(wd, hosts=2) as fl:` creates the namespaces and starts the router;
    fl.hosts[i].start_udpfan() / start_exabgp() start a host."""

    def __init__(self, wd, prefix="uff", hosts=2, svc="service", collectors=1, bfd_hosts=(),
                 family=4):
        self.wd = wd
        self.p = prefix
        self.svc = svc
        self.family = family
        self.service = SERVICE6 if family == 6 else SERVICE
        self.ns_exp = prefix + "exp"
        self.ns_rtr = prefix + "rtr"
        self.ns_col = prefix + "col"
        self.col_ips = ["198.51.100.%d" % (21 + i) for i in range(collectors)]
        self.hosts = [Host(self, k + 1) for k in range(hosts)]
        self.rundir = os.path.join(wd, "frr")
        os.chmod(wd, 0o755)  # FRR's daemons (user frr) reach their run directory in it
        self.procs = []
        self.bfd_hosts = bfd_hosts
        self.drops_base = None

    def namespaces(self):
        return [self.ns_exp, self.ns_rtr, self.ns_col] + [h.ns for h in self.hosts]

    def nsx(self, ns, cmd, **kw):
        return sh("ip netns exec %s %s" % (ns, cmd), **kw)

    def vdev(self, kind):
        if kind == "af_xdp":
            return "net_af_xdp0,iface=dp0,queue_count=1,busy_budget=0"
        return "net_af_packet0,iface=dp0,qpairs=1"

    def __enter__(self):
        self.create()
        return self

    def __exit__(self, *exc):
        self.destroy()

    def destroy(self):
        for h in self.hosts:
            h.stop_speaker(signal.SIGKILL)
        for p in self.procs:
            if p.poll() is None:
                p.kill()
        remove_namespaces(self.namespaces())

    def veth(self, ns_a, if_a, ns_b, if_b, mac_a=None):
        m = " address %s" % mac_a if mac_a else ""
        sh("ip link add %s netns %s%s type veth peer name %s netns %s" % (if_a, ns_a, m, if_b,
                                                                           ns_b))

    def create(self):
        self.destroy()
        for ns in self.namespaces():
            sh("ip netns add %s" % ns)
            self.nsx(ns, "ip link set lo up")
        r = self.ns_rtr
        # the router's own configuration (what an ECMP router runs with: forwarding, the L4
        # multipath hash, no strict reverse-path filter on asymmetric paths); nothing here
        # is set on udpfan's hosts
        for k in ("net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1",
                  "net.ipv4.fib_multipath_hash_policy=1",
                  "net.ipv6.fib_multipath_hash_policy=1",
                  "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0"):
            self.nsx(r, "sysctl -qw " + k)
        self.veth(self.ns_exp, "exp0", r, "re0")
        self.nsx(self.ns_exp, "ip addr add %s/24 dev exp0" % EXP_IP)
        self.nsx(self.ns_exp, "ip link set exp0 up")
        self.nsx(self.ns_exp, "ip route add default via %s.1" % EXP_NET)
        self.nsx(r, "ip addr add %s.1/24 dev re0" % EXP_NET)
        if self.family == 6:  # nodad: the addresses usable at once, not after DAD's second
            self.nsx(self.ns_exp, "ip addr add %s2/64 dev exp0 nodad" % EXP_NET6)
            self.nsx(self.ns_exp, "ip -6 route add default via %s1" % EXP_NET6)
            self.nsx(r, "ip addr add %s1/64 dev re0 nodad" % EXP_NET6)
        self.veth(self.ns_col, "col0", r, "rc0")
        for ip in self.col_ips:
            self.nsx(self.ns_col, "ip addr add %s/24 dev col0" % ip)
        self.nsx(self.ns_col, "ip link set col0 up")
        self.nsx(self.ns_col, "ip route add default via 198.51.100.1")
        self.nsx(r, "ip addr add 198.51.100.1/24 dev rc0")
        for h in self.hosts:
            self.veth(h.ns, "dp0", r, h.rtr_if, mac_a=h.mac)
            # the kernel side of the interface udpfan takes: docs/deployment.md's step for
            # af_xdp/af_packet ports, as tests/lib/testbed.py does (the kernel's own IPv6 on it
            # would answer beside udpfan)
            h.nsx("sysctl -qw net.ipv6.conf.dp0.disable_ipv6=1")
            h.nsx("ip link set dp0 up")
            if self.svc == "listener":
                # the router's end: a /32 with udpfan's port address as its peer (connected)
                self.nsx(r, "ip addr add %s/32 peer %s/32 dev %s" % (h.gw, h.ip, h.rtr_if))
            else:
                self.nsx(r, "ip addr add %s/24 dev %s" % (h.gw, h.rtr_if))
            if self.family == 6:
                self.nsx(r, "ip addr add %s/64 dev %s nodad" % (h.gw6, h.rtr_if))
            self.veth(h.ns, "mg0", r, h.mg_rtr_if)
            h.nsx("ip addr add %s/30 dev mg0" % h.mg_ip)
            h.nsx("ip link set mg0 up")
            self.nsx(r, "ip addr add %s/30 dev %s" % (h.mg_rtr_ip, h.mg_rtr_if))
        for ifn in ["re0", "rc0"] + [h.rtr_if for h in self.hosts] + [h.mg_rtr_if
                                                                      for h in self.hosts]:
            self.nsx(r, "ip link set %s up" % ifn)
        sh("mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf", check=False)
        self.start_router(self.bfd_hosts)

    # -- the router: FRR --
    def start_router(self, bfd_hosts=()):
        d = self.rundir
        os.makedirs(d, exist_ok=True)
        neigh = []
        for h in self.hosts:
            neigh.append(" neighbor %s peer-group udpfan" % h.mg_ip)
            if h.k in bfd_hosts:
                neigh.append(" neighbor %s bfd profile udpfan" % h.mg_ip)
        conf = fill("frr.conf.in", {"RUNDIR": d, "ROUTER_AS": ROUTER_AS,
                                    "ROUTER_ID": "10.255.0.1", "NEIGHBORS": "\n".join(neigh)})
        with open(os.path.join(d, "frr.conf"), "w") as f:
            f.write(conf)
        sh("chown frr:frr %s" % d)  # the daemons run as frr (its vty group is compiled in)
        common = ["--vty_socket", d, "-u", "frr", "-g", "frr", "--log",
                  "file:%s/frr-daemons.log" % d]
        zsock = os.path.join(d, "zserv.api")
        # --v6-rr-semantics: zebra replaces an IPv6 route in the kernel (NLM_F_REPLACE)
        # instead of deleting and adding it; without it, the ECMP route's change at a drain
        # left a moment with no IPv6 route (a drain_af_xdp_ipv6 run lost 1 datagram, counted
        # in the router's Ip6InNoRoutes), IPv4 being replaced in place already
        daemons = [("zebra", ["-z", zsock, "-f", "/dev/null", "--v6-rr-semantics"]),
                   ("bfdd", ["-z", zsock, "--bfdctl", os.path.join(d, "bfdd.sock"), "-f",
                             "/dev/null"]),
                   ("bgpd", ["-z", zsock, "-f", "/dev/null", "-p", "179"])]
        for name, args in daemons:
            p = subprocess.Popen(["ip", "netns", "exec", self.ns_rtr] + PRIO +
                                 [os.path.join(FRR, name), "-i",
                                  os.path.join(d, name + ".pid")] + common + args,
                                 stdout=subprocess.DEVNULL,
                                 stderr=open(os.path.join(d, name + ".err"), "w"))
            self.procs.append(p)
            if name == "zebra":
                wait_for(lambda: os.path.exists(zsock), 10, 0.1)
        for name in ("zebra", "bfdd", "bgpd"):
            if not wait_for(lambda: os.path.exists(os.path.join(d, name + ".vty")), 15, 0.1):
                raise AssertionError("FRR %s did not start: %s" % (name, open(
                    os.path.join(d, name + ".err")).read()))
        # the whole config through vtysh, as an operator's frr.conf
        out = self.vtysh("configure terminal", "-f", os.path.join(d, "frr.conf"))
        return out

    def vtysh(self, *args, check=True):
        argv = ["ip", "netns", "exec", self.ns_rtr, "vtysh", "--vty_socket", self.rundir]
        if args and args[0] == "configure terminal" and len(args) == 3:
            argv += ["-f", args[2]]
        else:
            for a in args:
                argv += ["-c", a]
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=30)
        if check and r.returncode != 0:
            raise AssertionError("vtysh %s: %d\n%s" % (args, r.returncode, r.stdout))
        return r.stdout

    def nexthops(self, prefix=None):
        """the next hops of the service route in the router's kernel FIB (what forwarding
        uses), as a sorted list of addresses"""
        prefix = prefix or self.service
        out = self.nsx(self.ns_rtr, "ip -j route show %s/32" % prefix if ":" not in prefix
                       else "ip -j -6 route show %s/128" % prefix, capture=True, check=False)
        try:
            routes = json.loads(out or "[]")
        except ValueError:
            return []
        hops = []
        for rt in routes:
            if "gateway" in rt:
                hops.append(rt["gateway"])
            for nh in rt.get("nexthops", []):
                hops.append(nh["gateway"])
        return sorted(hops)

    def wait_nexthops(self, want, timeout=20):
        want = sorted(want)
        ok = wait_for(lambda: self.nexthops() == want, timeout, 0.05)
        if not ok:
            raise AssertionError("router's next hops for %s: %s, not %s\n%s\n%s\n%s" % (
                self.service, self.nexthops(), want,
                self.vtysh("show bgp ipv%d unicast" % self.family, check=False),
                self.bgp_summary(), self.vtysh("show bfd peers brief", check=False)))

    def kernel_drops(self):
        """frames the kernel dropped on the way to each host's udpfan: the router's TX drops
        towards it and its dp0's RX drops (veth's XDP ring full while its consumer waited for
        a CPU), outside every udpfan's ledger"""
        out = {}
        for h in self.hosts:
            a = json.loads(self.nsx(self.ns_rtr, "ip -j -s link show %s" % h.rtr_if,
                                    capture=True))[0]["stats64"]
            b = json.loads(h.nsx("ip -j -s link show dp0", capture=True))[0]["stats64"]
            out[h.k] = {"router_tx_dropped": a["tx"]["dropped"],
                        "dp0_rx_dropped": b["rx"]["dropped"], "router_tx": a["tx"]["packets"]}
        a = json.loads(self.nsx(self.ns_exp, "ip -j -s link show exp0", capture=True))[0]
        b = json.loads(self.nsx(self.ns_rtr, "ip -j -s link show re0", capture=True))[0]
        out["exporters"] = {"exp0_tx": a["stats64"]["tx"]["packets"],
                            "exp0_tx_dropped": a["stats64"]["tx"]["dropped"],
                            "re0_rx": b["stats64"]["rx"]["packets"],
                            "re0_rx_dropped": b["stats64"]["rx"]["dropped"]}
        # the router's own: datagrams it had no route for, or discarded (none is the
        # machine's stall: a count here is the fleet's loss)
        want = ("IpExtInNoRoutes", "IpOutNoRoutes", "IpInDiscards", "IpOutDiscards",
                "Ip6InNoRoutes", "Ip6OutNoRoutes", "Ip6InDiscards", "Ip6OutDiscards",
                "IcmpOutDestUnreachs", "Icmp6OutDestUnreachs")
        nst = self.nsx(self.ns_rtr, "nstat -asz", capture=True, check=False) or ""
        out["router"] = {ln.split()[0]: int(ln.split()[1]) for ln in nst.splitlines()
                         if ln.split() and ln.split()[0] in want}
        if self.drops_base:
            out = {k: {c: n - self.drops_base.get(k, {}).get(c, 0) for c, n in v.items()}
                   for k, v in out.items()}
        return out

    def mark(self):
        """the kernel's counters now: kernel_drops() counts from here (the drops before the
        traffic, e.g. exp0's first frame while its peer was down, are not the traffic's)"""
        self.drops_base = None
        self.drops_base = self.kernel_drops()

    def unaccounted(self, sts, lost, res=None):
        """of `lost` datagrams (what the collectors missed), those the machine's stalls
        explain: the kernel's drops before udpfan, each XDP socket's ring overflows
        (xsk.rx_ring_full: udpfan's worker off its CPU) or packet socket's (pkt_socket.drops,
        af_packet), and the collector's socket drops (udpfan-sink's sockets.drops); returns
        (explained, detail)"""
        kd = self.kernel_drops()
        ring = sum(st["ports"]["dp"].get("xsk", {}).get("rx_ring_full", 0) +
                   st["ports"]["dp"].get("pkt_socket", {}).get("drops", 0) for st in sts)
        if res is not None:
            ring += max(v.get("drops", 0) for v in res.get("sockets", {}).values())
        kern = sum(v.get("router_tx_dropped", 0) + v.get("dp0_rx_dropped", 0)
                   for k, v in kd.items() if k not in ("exporters", "router"))
        kern += kd["exporters"]["exp0_tx_dropped"] + kd["exporters"]["re0_rx_dropped"]
        where = {"%s.%s" % (k, c): n for k, v in kd.items() for c, n in v.items()
                 if ("dropped" in c or k == "router") and n}
        return ring + kern, {"socket_rings": ring, "kernel": kern, "lost": lost,
                             "kernel_drops": where}

    def start_prometheus(self):
        """scripts/udpfan-exporter.py on each host (on its BGP address, port 9917) and a
        Prometheus server in the router's namespace scraping both every second"""
        import shutil
        if not shutil.which("prometheus"):
            return False
        for h in self.hosts:
            self.procs.append(subprocess.Popen(
                ["ip", "netns", "exec", h.ns, PY, EXPORTER, "--file-prefix", h.prefix,
                 "--listen", "%s:9917" % h.mg_ip, "--udpfan", UDPFAN],
                stdout=subprocess.DEVNULL, stderr=open(os.path.join(h.wd, "exporter.err"),
                                                       "w")))
        d = os.path.join(self.wd, "prometheus")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "prometheus.yml"), "w") as f:
            f.write("global: { scrape_interval: 1s, evaluation_interval: 1s }\n"
                    "scrape_configs:\n  - job_name: udpfan\n    static_configs:\n"
                    "      - targets: [%s]\n" % ", ".join('"%s:9917"' % h.mg_ip
                                                     for h in self.hosts))
        self.procs.append(subprocess.Popen(
            ["ip", "netns", "exec", self.ns_rtr, "prometheus", "--config.file",
             os.path.join(d, "prometheus.yml"), "--storage.tsdb.path", os.path.join(d, "data"),
             "--web.listen-address", "127.0.0.1:9090"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(d, "prometheus.log"), "w")))
        return wait_for(lambda: self.nsx(self.ns_rtr, "curl -sf http://127.0.0.1:9090/-/ready",
                                         check=False) == 0, 30, 0.5)

    def prom_query(self, q):
        """the value of an instant query's first sample (None: no sample)"""
        out = self.nsx(self.ns_rtr, "curl -s http://127.0.0.1:9090/api/v1/query "
                       "--data-urlencode 'query=%s'" % q, capture=True)
        res = json.loads(out)["data"]["result"]
        return float(res[0]["value"][1]) if res else None

    def bgp_summary(self):
        return self.vtysh("show bgp summary", check=False)


class Sink:
    """udpfan-sink --kernel in the collectors' namespace: every collector port"""

    def __init__(self, fleet, name, idle=6, duration=90, expect=None):
        from ufrun import UF_BUILD
        self.ready = os.path.join(fleet.wd, name + ".ready")
        self.path = os.path.join(fleet.wd, name + ".json")
        argv = [os.path.join(UF_BUILD, "app", "udpfan-sink", "udpfan-sink"), "--kernel",
                "--port", ",".join(str(p) for p in COL_PORTS), "--idle", str(idle),
                "--duration", str(duration), "--ready", self.ready]
        if expect is not None:
            argv += ["--expect-first", str(expect[0]), "--expect-last", str(expect[1])]
        self.proc = subprocess.Popen(["ip", "netns", "exec", fleet.ns_col] + argv,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if not wait_for(lambda: os.path.exists(self.ready) or self.proc.poll() is not None,
                        10):
            raise AssertionError("sink did not start")

    def result(self, timeout=200, settle=None):
        """the sink's JSON; with `settle` (the senders have ended): stopped by SIGTERM that
        many seconds later instead of after --idle seconds of silence (the idle stop is there
        for a sender that stalls mid-run, which a finished one cannot)"""
        if settle is not None:
            time.sleep(settle)
            self.proc.send_signal(signal.SIGTERM)
        out, err = self.proc.communicate(timeout=timeout)
        if self.proc.returncode != 0:
            raise AssertionError("udpfan-sink exited %d: %s" % (self.proc.returncode, err))
        return json.loads(out)


def send(fleet, count, rate, senders=50, flows=4, start_seq=0, wait=True, dst=None):
    """udp_send.py in the exporters' namespace: `senders` source addresses (198.18.100.40..,
    2001:db8:18:100::40.. in an IPv6 fleet) x `flows` source ports, the datagrams in turn over
    them, to the service address"""
    first = "%s40" % EXP_NET6 if fleet.family == 6 else "%s.40" % EXP_NET
    argv = [PY, os.path.join(TOOLS, "udp_send.py"), "--dst", dst or fleet.service, "--port",
            str(UDP_PORT),
            "--count", str(count), "--rate", str(rate), "--size", "64", "--flows",
            str(flows), "--sport", "41000", "--start-seq", str(start_seq), "--bind", first,
            "--bind-count", str(senders)]
    p = subprocess.Popen(["ip", "netns", "exec", fleet.ns_exp] + argv, stdout=subprocess.PIPE,
                         text=True)
    if not wait:
        return p
    out, _ = p.communicate(timeout=count / max(rate, 1) + 120)
    return json.loads(out)


def add_senders(fleet, senders=50):
    if fleet.family == 6:
        import ipaddress
        first = ipaddress.ip_address(EXP_NET6 + "40")
        fleet.nsx(fleet.ns_exp, "sh -c '%s'" % "; ".join(
            "ip addr add %s/64 dev exp0 nodad" % (first + i) for i in range(senders)))
        return
    fleet.nsx(fleet.ns_exp, "sh -c 'for i in $(seq 40 %d); do ip addr add %s.$i/24 dev exp0; "
              "done'" % (39 + senders, EXP_NET))
