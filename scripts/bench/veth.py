#!/usr/bin/env python3
"""Bench 2 (docs/benchmarks.md#bench-2-the-fallback-path-over-veth): udpfan against
kernel-socket forwarders on the veth test bed.

    sudo scripts/bench/veth.py [--quick] [--modes default,rps] [--raw DIR] [--json PATH]

Topology (tests/lib/testbed.py, prefix "ufv", 4 sinks), the same for every contender:

    ufvsrc: udpfan-gen (DPDK, net_af_xdp on src0)  --+
    ufvfwd: the forwarder on fwd0                  --+-- br0 (ufvbr) --  ufvs1..ufvs4: sinks

Contenders: udpfan on net_af_xdp and on net_af_packet (one worker: lcores "0-1", main lcore on
CPU 0, worker on CPU 1), and the reference kernel-socket forwarders of scripts/bench/ref
(ref_mmsg: recvmmsg/sendmmsg; ref_gso: the same with UDP_GRO + UDP_SEGMENT; ref_gso --pack:
ordinary datagrams packed into UDP_SEGMENT messages), pinned to CPU 1, and pmacct's nfacctd
with its tee plugin (Debian's pmacct; core process + plugin process, both pinned to CPU 1,
their CPU summed; its counts from the namespace's UDP MIB), the tool flow operators replicate
NetFlow with today. nfacctd drops what is not NetFlow/IPFIX/sFlow, so with it in the run every
contender gets NetFlow v5-shaped datagrams (--netflow auto: udpfan-gen --netflow-v5, a 24-byte
v5 header with count 0 and flow_sequence, then the sequence number; ref_sink --seq-offset 24).
samplicator: not in Debian 12's archive (the script records what apt-cache says), so no row.

Fairness adjustments, the same for every contender (ref_bench.py's, see its README):
static neighbours everywhere, static bridge FDB entries for every port (the sinks never
transmit: without them the bridge floods every forwarded frame to all ports), sinks =
ref_sink (kernel UDP socket, recvmmsg, 8 MiB SO_RCVBUFFORCE, polling its socket every
--sink-poll-us instead of sleeping on it), pinned to CPU 0 with the generator, so CPU 1 is
the forwarder's alone. Per contender: udpfan keeps fwd0 without an address in the kernel (it
owns 198.18.0.10 and answers ARP itself); the socket forwarders get 198.18.0.10/24 on fwd0,
undone after the contender. Every interface keeps the kernel's default offloads (TX checksum
offload on), as the test bed leaves them.

Generator, the same for every contender: udpfan-gen on net_af_xdp0,iface=src0,busy_budget=0,
main and TX lcore both on CPU 0 (`--lcores 0@0,1@0`, under `taskset -c 0`), bursts of 64,
32-byte payload (u64 LE sequence number first), --flows 16, --dst-mac fwd0's MAC (no ARP).

udpfan's config: one port (the vdev string of Testbed.vdev('af_xdp' | 'af_packet')), listen
198.18.0.10:5000, the N sinks as destinations (port 9000, static MACs, as the socket
forwarders get static neighbours), forward.udp_checksum compute, and rx_desc 4096
(--udpfan-rx-desc): the socket forwarders' 4 MiB receive buffers hold ~80 ms of these
datagrams, udpfan's default 1024-entry AF_XDP RX ring 20 ms at 50 kpps, and this VM stalls a
CPU for 10-20 ms now and then (seen as rx_ring_full at 50 kpps with 1024, not with 4096).

Modes (--modes), each the same for every contender: "default" as above; "rps": RPS on every
sink's sink0 with rps_cpus = CPU 0, so the sinks' IP/UDP receive work runs on CPU 0 instead
of in the sender's (= the forwarder's) context on CPU 1; "nobrnf": bridge-nf-call-iptables=0
in the bridge namespace (br_netfilter is loaded on this host: its hooks run for every bridged
frame); "sinkgro": UDP_GRO sink sockets + GRO on the sinks' veths. Non-default modes run the
N values of --rps-dests (default 4) and --mit-cpu-runs CPU runs.

Phases, per mode:
 1. Generator + sinks alone (fwd0 down, no forwarder): N = 1 unicast to sink 1, N = 4 one
    broadcast datagram to all four sinks (198.18.0.255, ff:ff:ff:ff:ff:ff: the bridge floods
    it to the four sink ports). The sinks' receive work is placed where it runs in that mode's
    forwarder runs (default: RPS to CPU 1, whose kernel work it is there; rps: CPU 0).
    udpfan-gen only sends to a unicast MAC: a 10-line tc BPF program (BCAST_BPF, compiled
    with clang at run time) on src0's bridge port rewrites the destination MAC to broadcast.
    Every rate is run (no early stop). Read the loss column by where it happened: sinks'
    socket drops are the sinks' own limit; softnet backlog drops in the default mode are the
    RPS hand-over to CPU 1 overflowing (netdev_max_backlog) while CPU 1 floods and receives
    for four sinks, i.e. work that is the forwarder's in a forwarded run. Every forwarded
    run prints the generator's achieved rate ("GEN-BOUND" when > 10 % short) and the sinks'
    socket drops too: the per-run check that both ends kept up.
    Ladder up to flood; the highest clean rate is the ceiling printed.
 2. For each contender and N in (1, 4): a rate ladder, --seconds per point, stop after 2
    lossy points (or once the generator falls > 10 % short of the asked rate: the point is
    then a lower bound, "gen-bound"). Loss = 1 - sum(sinks' distinct sequence numbers) /
    (generated x N), end to end, whole run, nothing discarded.
 3. CPU per forwarded datagram at --cpu-rate (median of --cpu-runs): udpfan from its busy
    cycles (lcores.<id>.busy_pct x uptime_s x tsc_hz / fwd.forwarded), the refs from
    getrusage (user + sys) / rx. Beside both: CPU 1's kernel time (sys + softirq jiffies of
    /proc/stat) per forwarded datagram, the same measure for every contender, but
    tick-sampled: on the development VM it reads a fraction of the kernel time that the
    send calls take. So every forwarder runs under scripts/bench/ref/sys_time.so (an
    LD_PRELOAD shim, --no-sys-time: without), and the time inside its send calls per
    datagram is printed beside its CPU: on veth the kernel's whole transmit path of a copy,
    the sinks' receive included, runs in there.

Others share this VM: before each point the script waits (bounded) for a quiet second; a
point during which other people's work (machine busy time minus our processes' user + system
time and ksoftirqd's) took > --max-other cores is flagged NOISY and rerun (--retries) if it
was lossy or a CPU point; every attempt is printed and kept in the raw log (DIR/runs.jsonl:
one JSON object per run with the generator's, every sink's and the forwarder's own JSON,
interface / UDP / softnet counter deltas, per-CPU /proc/stat deltas). --perf adds a
`perf record -e cpu-clock -C 1 -g` during one udpfan af_xdp and one ref_gso --pack N = 4
run at --perf-rate and writes the kernel / user split and the kernel's self time grouped by
stage to DIR/perf-*.txt.

Reproduce (as root, from the repository root, after `ninja -C build`; ~40 min):
    scripts/bench/veth.py --modes default,rps,nobrnf --perf --raw DIR --json DIR/summary.json
    scripts/bench/veth.py --modes default --contenders none --raw DIR/validate
Development: --quick (3 s points, short ladders, one CPU run).
"""
import argparse
import datetime
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("UF_BUILD", os.path.join(SRC, "build"))
os.environ.setdefault("UDPFAN", os.path.join(BUILD, "udpfan"))
os.environ.setdefault("UF_SRC", SRC)
os.environ.setdefault("UF_BUILD", BUILD)
sys.path.insert(0, os.path.join(SRC, "tests", "lib"))
sys.path.insert(0, os.path.join(HERE, "ref"))

from testbed import FWD_IP, SRC_IP, NET, Testbed, wait_for  # noqa: E402
import ref_bench as rb  # noqa: E402  (its counters and quiet-machine helpers)
from uflive import Udpfan  # noqa: E402

GEN = os.path.join(BUILD, "app", "udpfan-gen", "udpfan-gen")
REFBIN = os.path.join(BUILD, "scripts", "bench", "ref")
SYS_TIME = os.path.join(REFBIN, "sys_time.so")
SYS_TIME_MIN_CALLS = 100  # fewer send + receive calls in a thread: start-up, not data path
LISTEN_PORT = 5000
SINK_PORT = 9000
FWD_CPU = 1
GEN_CPU = 0
BCAST = NET + ".255"
CONTENDERS = ["udpfan-af_xdp", "udpfan-af_packet", "ref_mmsg", "ref_gso", "ref_gso-pack",
              "nfacctd"]
LABEL = {"udpfan-af_xdp": "udpfan af_xdp", "udpfan-af_packet": "udpfan af_packet",
         "ref_mmsg": "ref_mmsg", "ref_gso": "ref_gso", "ref_gso-pack": "ref_gso --pack",
         "nfacctd": "nfacctd tee", "none": "gen+sinks"}
NFACCTD = "/usr/sbin/nfacctd"
NF5_SEQ_OFF = 24  # udpfan-gen --netflow-v5: the sequence number behind a NetFlow v5 header
# pmacct's nfacctd with its tee plugin (Debian's pmacct package): what flow operators replicate
# NetFlow/IPFIX with today. Buffers sized like the reference forwarders' (4 MiB sockets); the
# core process hands datagrams to the tee plugin through plugin_pipe_size's ring in chunks of
# plugin_buffer_size (the 1:1000 ratio CONFIG-KEYS calls good practice). A chunk leaves only
# when full: the last partial one (~40 datagrams of this size) is still inside nfacctd when a
# run ends and counts as lost (0.03 % of the smallest ladder point, under the 0.1 % bar).
NFACCTD_CONF = """daemonize: false
nfacctd_ip: %(ip)s
nfacctd_port: %(port)d
nfacctd_pipe_size: 4194304
plugins: tee[fan]
tee_receivers[fan]: %(receivers)s
tee_transparent[fan]: false
tee_pipe_size[fan]: 4194304
plugin_pipe_size[fan]: 10240000
plugin_buffer_size[fan]: 10240
"""
LADDER = {1: [100000, 150000, 200000, 225000, 250000, 275000, 300000, 350000, 400000],
          4: [25000, 40000, 50000, 60000, 75000, 100000, 125000, 150000, 175000, 200000,
              250000, 300000]}
QUICK_LADDER = {1: [100000, 200000, 300000], 4: [50000, 100000, 150000]}
VALIDATE = {1: [200000, 300000, 0], 4: [50000, 100000, 150000, 200000, 0]}
QUICK_VALIDATE = {1: [200000, 0], 4: [100000, 0]}


BCAST_BPF = r"""
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
SEC("tc")
int bcast(struct __sk_buff *skb)
{
	const unsigned char b[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	bpf_skb_store_bytes(skb, 0, b, 6, 0);
	return TC_ACT_OK;
}
char _license[] SEC("license") = "GPL";
"""


def log(*a):
    print(*a)
    sys.stdout.flush()


def percpu():
    """{cpu: [user, nice, system, idle, iowait, irq, softirq, steal]} jiffies"""
    out = {}
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu") and line[3].isdigit():
                v = line.split()
                out[int(v[0][3:])] = list(map(int, v[1:9]))
    return out


def percpu_diff(a, b):
    hz = os.sysconf("SC_CLK_TCK")
    res = {}
    for c in a:
        d = [y - x for x, y in zip(a[c], b[c])]
        res[c] = {"user_s": (d[0] + d[1]) / hz, "sys_s": d[2] / hz, "idle_s": (d[3] + d[4]) / hz,
                  "irq_s": d[5] / hz, "softirq_s": d[6] / hz, "steal_s": d[7] / hz}
    return res


def proc_cpu(pid):
    """(utime, stime) of a process in clock ticks, or None once it is gone"""
    try:
        with open("/proc/%d/stat" % pid) as f:
            v = f.read().rsplit(")", 1)[1].split()
        return int(v[11]), int(v[12])
    except (OSError, IndexError, ValueError):
        return None


def ksoftirqd_cpu():
    """user + system ticks of all ksoftirqd threads"""
    tot = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/comm" % pid) as f:
                if not f.read().startswith("ksoftirqd/"):
                    continue
        except OSError:
            continue
        v = proc_cpu(int(pid))
        if v:
            tot += sum(v)
    return tot


def sysfs_write(tb, ns, path, value):
    tb.nsx(ns, "sh -c 'echo %s > %s'" % (value, path))


class Bench:
    def __init__(self, a, tb, wd):
        self.a = a
        self.tb = tb
        self.wd = wd
        self.runs = []
        self.mode = "default"
        self.n_run = 0
        self.st_dir = None  # the running forwarder's sys_time.so folder (--sys-time)

    # -- test bed --------------------------------------------------------------------------
    def fairness(self):
        """ref_bench.setup()'s adjustments minus the fwd0 address (that one is per contender)"""
        tb = self.tb
        tb.static_neighbours()
        for i, ns in enumerate(tb.sink_ns):
            tb.nsx(tb.ns_src, "ip neigh replace %s lladdr %s dev src0 nud permanent" %
                   (tb.sink_ip[i], tb.sink_mac[i]))
            tb.nsx(ns, "ip neigh replace %s lladdr %s dev sink0 nud permanent" %
                   (FWD_IP, tb.fwd_mac))
            tb.nsx(ns, "ip neigh replace %s lladdr %s dev sink0 nud permanent" %
                   (SRC_IP, tb.src_mac))
        ports = [(tb.ns_src, "src0", tb.src_mac), (tb.ns_fwd, tb.fwd_if, tb.fwd_mac)] + \
            [(ns, "sink0", m) for ns, m in zip(tb.sink_ns, tb.sink_mac)]
        br_links = json.loads(tb.nsx(tb.ns_br, "ip -j link show", capture=True))
        self.br_port = {}
        for ns, ifname, macaddr in ports:
            peer = json.loads(tb.nsx(ns, "ip -j link show %s" % ifname,
                                     capture=True))[0]["link_index"]
            port = [lk["ifname"] for lk in br_links if lk["ifindex"] == peer][0]
            self.br_port[(ns, ifname)] = port
            tb.nsx(tb.ns_br, "bridge fdb replace %s dev %s master static" % (macaddr, port))

    def fwd_neigh(self):
        tb = self.tb
        for i in range(len(tb.sink_ns)):
            tb.nsx(tb.ns_fwd, "ip neigh replace %s lladdr %s dev %s nud permanent" %
                   (tb.sink_ip[i], tb.sink_mac[i], tb.fwd_if))
        tb.nsx(tb.ns_fwd, "ip neigh replace %s lladdr %s dev %s nud permanent" %
               (SRC_IP, tb.src_mac, tb.fwd_if))

    def contender_setup(self, c):
        tb = self.tb
        tb.nsx(tb.ns_fwd, "ip link set %s up" % tb.fwd_if)
        tb.nsx(tb.ns_fwd, "ip addr flush dev %s" % tb.fwd_if)
        if c.startswith("ref_") or c == "nfacctd":
            tb.nsx(tb.ns_fwd, "ip addr add %s/24 dev %s" % (FWD_IP, tb.fwd_if))
        self.fwd_neigh()

    def contender_teardown(self):
        tb = self.tb
        tb.nsx(tb.ns_fwd, "ip addr flush dev %s" % tb.fwd_if)

    def sink_rps(self, mask):
        for ns in self.tb.sink_ns:
            sysfs_write(self.tb, ns, "/sys/class/net/sink0/queues/rx-0/rps_cpus", "%x" % mask)

    def set_mode(self, mode):
        self.mode = mode
        self.sink_rps(1 << GEN_CPU if mode == "rps" else 0)
        # nobrnf: the bridge's netfilter hooks off (br_netfilter is loaded on this host and
        # bridge-nf-call-iptables is 1 in every new namespace)
        self.tb.nsx(self.tb.ns_br, "sysctl -qw net.bridge.bridge-nf-call-iptables=%d" %
                    (0 if mode == "nobrnf" else 1), check=False)
        # sinkgro: UDP_GRO on the sinks' sockets (ref_sink --gro) and GRO on their veths
        for ns in self.tb.sink_ns:
            self.tb.nsx(ns, "ethtool -K sink0 gro %s" % ("on" if mode == "sinkgro" else "off"),
                        check=False)

    # -- one run ---------------------------------------------------------------------------
    def snapshot(self, n):
        tb = self.tb
        return {"fwd_udp": rb.snmp_udp(tb, tb.ns_fwd),
                "fwd0": rb.link_stats(tb, tb.ns_fwd, tb.fwd_if),
                "src0": rb.link_stats(tb, tb.ns_src, "src0"),
                "sink0": [rb.link_stats(tb, ns, "sink0") for ns in tb.sink_ns[:n]],
                "sink_udp": [rb.snmp_udp(tb, ns) for ns in tb.sink_ns[:n]],
                "softnet_dropped": rb.softnet_dropped(), "cpu": rb.cpu_busy()}

    def start_sinks(self, n, rate):
        a = self.a
        sinks = []
        for i, ns in enumerate(self.tb.sink_ns[:n]):
            ready = os.path.join(self.wd, "ready%d" % i)
            if os.path.exists(ready):
                os.unlink(ready)
            max_seq = int(rate * a.seconds * 1.3) if rate else int(1.5e6 * a.seconds)
            argv = [os.path.join(REFBIN, "ref_sink"), "--port", str(SINK_PORT), "--idle", "1",
                    "--max-seq", str(max(1 << 20, max_seq)), "--rcvbuf", str(a.sink_rcvbuf),
                    "--timeout", str(int(a.seconds) + 40), "--max-time",
                    str(int(a.seconds) + 70), "--ready", ready, "--cpu", str(GEN_CPU)]
            if a.sink_poll_us:
                argv += ["--poll-us", str(a.sink_poll_us)]
            if self.mode == "sinkgro":
                argv.append("--gro")
            if a.netflow:
                argv += ["--seq-offset", str(NF5_SEQ_OFF)]
            sinks.append((self.tb.popen(ns, argv, stdout=subprocess.PIPE, text=True), ready))
        if not wait_for(lambda: all(os.path.exists(r) for _, r in sinks), 10):
            raise RuntimeError("sinks did not start")
        return sinks

    def udpfan_cfg(self, c, n):
        tb = self.tb
        kind = c.split("-", 1)[1]
        dests = "\n".join('  - { ip: %s, udp_port: %d, mac: "%s" }' %
                          (tb.sink_ip[i], SINK_PORT, tb.sink_mac[i]) for i in range(n))
        return """eal: { lcores: "0-1", file_prefix: ufvbench, in_memory: true }
ports:
  - { name: lan, device: "%s", ip: %s/24%s }
listen: { port: lan, udp_port: %d }
destinations:
%s
forward: { udp_checksum: compute%s%s }
stats: { interval_s: 1 }
""" % (tb.vdev(kind), FWD_IP, ", rx_desc: %d" % self.a.udpfan_rx_desc
       if self.a.udpfan_rx_desc else "", LISTEN_PORT, dests,
       ", idle_sleep_us: %d" % self.a.udpfan_idle_sleep_us
       if self.a.udpfan_idle_sleep_us else "",
       ", " + self.a.udpfan_forward if self.a.udpfan_forward else "")

    def sys_time_env(self):
        """env arguments that run the forwarder under sys_time.so (--sys-time), in a fresh
        folder per run; [] without it"""
        self.st_dir = None
        if not self.a.sys_time:
            return []
        self.st_dir = os.path.join(self.wd, "systime%d" % self.n_run)
        os.makedirs(self.st_dir)
        return ["env", "LD_PRELOAD=" + SYS_TIME, "UF_SYS_TIME_DIR=" + self.st_dir]

    def sys_time_read(self):
        """the stopped forwarder's send / recv / poll calls and seconds, summed over the
        threads of its processes (nfacctd's core and plugin) that made >= SYS_TIME_MIN_CALLS
        send and receive calls: the data path, not start-up (udpfan's netlink requests,
        ~15 ms in a dozen sends); None without --sys-time or when none wrote"""
        if not self.st_dir:
            return None
        tot = {k: {"calls": 0, "s": 0.0} for k in ("send", "recv", "poll")}
        procs = []
        for fn in sorted(os.listdir(self.st_dir)):
            with open(os.path.join(self.st_dir, fn)) as f:
                o = json.load(f)
            procs.append(o)
            for t in o["threads"]:
                t["counted"] = t["send"]["calls"] + t["recv"]["calls"] >= SYS_TIME_MIN_CALLS
                if not t["counted"]:
                    continue
                for k in tot:
                    tot[k]["calls"] += t[k]["calls"]
                    tot[k]["s"] += t[k]["s"]
        self.st_dir = None
        if not procs:
            return None
        tot["processes"] = procs
        return tot

    def start_fwd(self, c, n):
        tb = self.tb
        self.n_run += 1
        env = self.sys_time_env()
        if c.startswith("udpfan"):
            return ("udpfan", Udpfan(tb, self.udpfan_cfg(c, n), self.wd, "udpfan%d" % self.n_run,
                                     wrap=" ".join(env)))
        if c == "nfacctd":
            return self.start_nfacctd(n, env)
        tool = "ref_mmsg" if c == "ref_mmsg" else "ref_gso"
        argv = env + [os.path.join(REFBIN, tool), "--listen", "%s:%d" % (FWD_IP, LISTEN_PORT),
                "--cpu", str(FWD_CPU), "--batch", "64"]
        if c == "ref_gso-pack":
            argv.append("--pack")
        for ip in tb.sink_ip[:n]:
            argv += ["--dst", "%s:%d" % (ip, SINK_PORT)]
        flog = os.path.join(self.wd, "fwd.log")
        p = tb.popen(tb.ns_fwd, argv, stdout=subprocess.PIPE, stderr=open(flog, "w"), text=True)
        if not wait_for(lambda: "destination(s)" in open(flog).read() or p.poll() is not None,
                        10) or p.poll() is not None:
            raise RuntimeError("%s did not start: %s" % (tool, open(flog).read()))
        return ("ref", p, argv, flog)

    def start_nfacctd(self, n, env):
        tb = self.tb
        rcv = os.path.join(self.wd, "tee_receivers.lst")
        with open(rcv, "w") as f:
            # one pool per sink: every pool gets every datagram (no balance-alg), N copies
            for i, ip in enumerate(tb.sink_ip[:n]):
                f.write("id=%d\tip=%s:%d\n" % (i + 1, ip, SINK_PORT))
        conf = os.path.join(self.wd, "nfacctd.conf")
        with open(conf, "w") as f:
            f.write(NFACCTD_CONF % {"ip": FWD_IP, "port": LISTEN_PORT, "receivers": rcv})
        flog = os.path.join(self.wd, "nfacctd.log")
        snmp0 = rb.snmp_udp(tb, tb.ns_fwd)
        # taskset: the core process and the tee plugin it forks both on the forwarder's CPU
        p = tb.popen(tb.ns_fwd, env + ["taskset", "-c", str(FWD_CPU), NFACCTD, "-f", conf],
                     stdout=open(flog, "w"), stderr=subprocess.STDOUT, text=True)
        ok = wait_for(lambda: p.poll() is not None or
                      (":%d " % LISTEN_PORT) in tb.nsx(tb.ns_fwd, "ss -Huln", capture=True), 10)
        time.sleep(0.5)  # the plugin forks after the socket is bound
        if not ok or p.poll() is not None:
            raise RuntimeError("nfacctd did not start: %s" % open(flog).read()[-2000:])
        return ("nfacctd", p, snmp0, flog)

    def family_cpu(self, pid):
        """(utime, stime) ticks of pid and its children (nfacctd's core and plugin processes)"""
        tot = [0, 0]
        kids = [pid]
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % d) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == pid:
                kids.append(int(d))
        for k in kids:
            v = proc_cpu(k)
            if v:
                tot[0] += v[0]
                tot[1] += v[1]
        return tot, len(kids)

    def stop_fwd(self, f):
        if f[0] == "udpfan":
            st = f[1].stop()
            return st
        if f[0] == "nfacctd":
            _, p, snmp0, flog = f
            (ut, stt), procs = self.family_cpu(p.pid)
            snmp1 = rb.snmp_udp(self.tb, self.tb.ns_fwd)
            # SIGINT: nfacctd 1.7.7 ends on it through its exit path (sys_time.so writes its
            # file); SIGTERM left it running here until the kill below
            p.send_signal(signal.SIGINT)
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            hz = os.sysconf("SC_CLK_TCK")
            d = {k: snmp1[k] - snmp0[k] for k in snmp1}
            # counted from the forwarder namespace's UDP MIB: nfacctd reports no counters
            return {"rx": d["InDatagrams"], "tx_ok": d["OutDatagrams"],
                    "rx_sock_drops": d["RcvbufErrors"], "tx_err": d["SndbufErrors"],
                    "cpu_user_s": ut / hz, "cpu_sys_s": stt / hz, "processes": procs}
        p = f[1]
        p.send_signal(signal.SIGTERM)
        out = p.communicate(timeout=15)[0]
        return json.loads(out)

    def gen_argv(self, rate, dst, dst_mac):
        a = self.a
        return ["taskset", "-c", str(GEN_CPU), GEN, "--dev",
                "net_af_xdp0,iface=src0,busy_budget=0", "--ip", SRC_IP + "/24",
                "--dst", "%s:%d" % dst, "--dst-mac", dst_mac, "--rate", str(rate),
                "--duration", str(a.seconds), "--burst", "64", "--flows", str(a.flows),
                "--size", str(a.size), "--lcores", "0@%d,1@%d" % (GEN_CPU, GEN_CPU),
                "--file-prefix", "ufvgen", "--in-memory"] + (["--netflow-v5"] if a.netflow
                                                              else [])

    def run_point(self, c, n, rate, purpose, perf=None):
        a, tb = self.a, self.tb
        busy_before = rb.wait_quiet(a.quiet_below, a.quiet_wait)
        snap0 = self.snapshot(n)
        sinks = self.start_sinks(n, rate)
        fwd = None
        try:
            if c == "none":
                # N = 4: to the subnet broadcast address; the generator needs a unicast MAC,
                # which BCAST_BPF turns into ff:ff:ff:ff:ff:ff where the frame enters the bridge
                dst = (tb.sink_ip[0] if n == 1 else BCAST, SINK_PORT)
                dst_mac = tb.sink_mac[0]
            else:
                fwd = self.start_fwd(c, n)
                dst, dst_mac = (FWD_IP, LISTEN_PORT), tb.fwd_mac
            gargv = self.gen_argv(rate, dst, dst_mac)
            fpid = fwd[1].proc.pid if fwd and fwd[0] == "udpfan" else None
            f0 = (proc_cpu(fpid) or (0, 0)) if fpid else (0, 0)
            pc0 = percpu()
            c0 = rb.cpu_busy()
            gout_p = os.path.join(self.wd, "gen.out")
            gerr_p = os.path.join(self.wd, "gen.err")
            with open(gout_p, "w") as go, open(gerr_p, "w") as ge:
                g = tb.popen(tb.ns_src, gargv, stdout=go, stderr=ge)
            perf_p = None
            # perf: from 3 s after the generator's start (EAL init, warm-up) for half the run
            t_perf = time.monotonic() + 3 if perf else None
            # our own processes' CPU (utime, stime), sampled while they run
            own = {"gen": (0, 0)}
            ksoft = [ksoftirqd_cpu()]
            t_end = time.monotonic() + a.seconds + 60
            while g.poll() is None and time.monotonic() < t_end:
                own["gen"] = proc_cpu(g.pid) or own["gen"]
                if fpid:
                    f1 = proc_cpu(fpid)
                    if f1:
                        own["udpfan"] = (f1[0] - f0[0], f1[1] - f0[1])
                if t_perf and time.monotonic() >= t_perf:
                    t_perf = None
                    perf_p = subprocess.Popen(["perf", "record", "-e", "cpu-clock", "-C",
                                               str(FWD_CPU), "-F", "999", "-g", "-o", perf,
                                               "--", "sleep", str(max(1, a.seconds / 2))],
                                              stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL)
                time.sleep(0.1)
            if g.poll() is None:
                g.kill()
            g.wait()
            c1 = rb.cpu_busy()
            pc1 = percpu()
            ksoft.append(ksoftirqd_cpu())
            if perf_p:
                perf_p.wait(timeout=60)
            gerr = open(gerr_p).read()
            if g.returncode != 0:
                raise RuntimeError("udpfan-gen exited %d: %s" % (g.returncode, gerr[-2000:]))
            gen = json.loads(open(gout_p).read())
            time.sleep(0.5)
            fj = self.stop_fwd(fwd) if fwd else None
            st = self.sys_time_read() if fwd else None
            fwd = None
        finally:
            if fwd:
                try:
                    self.stop_fwd(fwd)
                except Exception as e:  # noqa: BLE001
                    log("  (stopping the forwarder after an error: %s)" % e)
        sj = []
        for p, _ in sinks:
            try:
                out = p.communicate(timeout=15)[0]
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGTERM)
                out = p.communicate(timeout=5)[0]
            sj.append(json.loads(out))
        snap1 = self.snapshot(n)
        d = rb.diff(snap0, snap1)
        sent = gen["sent"]
        expect = sent * n
        got = sum(s["distinct"] for s in sj)
        r = {"contender": c, "mode": self.mode, "purpose": purpose, "dests": n, "rate": rate,
             "seconds": a.seconds, "gen_pps": gen["pps"], "sent": sent, "expected": expect,
             "delivered": got, "loss": 1 - got / expect if expect else 0.0,
             "gen_argv": gargv[3:], "gen": gen, "fwd_json": fj, "sinks": sj, "counters": d,
             "percpu": percpu_diff(pc0, pc1), "busy_before": busy_before,
             "system_busy_cores": (c1[0] - c0[0]) / max(1, c1[1] - c0[1]) * os.cpu_count(),
             "time": time.time(), "sys_time": st}
        # others' user-mode work while the generator ran: the machine's user time minus our
        # processes' (generator and udpfan from /proc/PID/stat while they ran, sinks and
        # socket forwarders from their own getrusage, which spans a little more than the
        # generator's run: that errs towards "quiet"). Others' kernel work is not visible here.
        hz = os.sysconf("SC_CLK_TCK")
        wall = max(1, c1[1] - c0[1]) / os.cpu_count()  # jiffies of one CPU
        own_user = own["gen"][0] + own.get("udpfan", (0, 0))[0]
        own_user += (sum(x["cpu_user_s"] for x in sj) + (fj["cpu_user_s"] if fj and
                                                          "cpu_user_s" in fj else 0)) * hz
        r["own_user_s"] = own_user / hz
        r["other_user_cores"] = ((c1[2] - c0[2]) - own_user) / wall
        # and all of others' CPU, kernel included: the machine's busy time minus our
        # processes' user + system time (the kernel's packet work runs in their context,
        # or in ksoftirqd when it overflows: counted as ours)
        own_all = sum(own["gen"]) + sum(own.get("udpfan", (0, 0))) + ksoft[1] - ksoft[0]
        own_all += (sum(x["cpu_user_s"] + x["cpu_sys_s"] for x in sj) +
                    (fj["cpu_user_s"] + fj["cpu_sys_s"] if fj and "cpu_user_s" in fj else 0)) * hz
        r["other_cores"] = ((c1[0] - c0[0]) - own_all) / wall
        r["gen_bound"] = bool(rate) and gen["pps"] < 0.9 * rate
        self.cpu_figures(r)
        if a.raw:
            with open(os.path.join(a.raw, "runs.jsonl"), "a") as f:
                f.write(json.dumps(r) + "\n")
        self.runs.append(r)
        self.show(r)
        return r

    def cpu_figures(self, r):
        fj, n = r["fwd_json"], r["dests"]
        k1 = r["percpu"][FWD_CPU]
        if not fj:
            return
        if r["contender"].startswith("udpfan"):
            fwd = fj["fwd"]["forwarded"]
            lc = list(fj["lcores"].values())[0]
            busy_s = lc["busy_pct"] / 100.0 * fj["uptime_s"]
            r["fwd_in"] = fwd
            r["fwd_out"] = fj["fwd"]["tx_ok"]
            r["fwd_cpu_s"] = busy_s
            r["busy_cycles"] = busy_s * fj["tsc_hz"]
            r["xdp_mode"] = fj["ports"]["lan"].get("xdp_mode")
            port = fj["ports"]["lan"]
            xsk = port.get("xsk", {})
            r["fwd_drops"] = {"imissed": port["imissed"],
                              "rx_ring_full": xsk.get("rx_ring_full", 0),
                              "fill_ring_empty": xsk.get("fill_ring_empty", 0),
                              "drop": sum(fj["fwd"]["drop"].values()),
                              "tx_drop": sum(fj["fwd"]["tx_drop"].values()),
                              # what the kernel saw arrive on fwd0 and udpfan never got: the
                              # af_packet PMD reports no ring drops (imissed stays 0)
                              "fwd0_rx_not_ipackets": r["counters"]["fwd0"]["rx_packets"] -
                              port["ipackets"]}
        else:
            fwd = fj["rx"]
            r["fwd_in"] = fwd
            r["fwd_out"] = fj["tx_ok"]
            r["fwd_cpu_s"] = fj["cpu_user_s"] + fj["cpu_sys_s"]
            r["fwd_drops"] = {"rx_sock_drops": fj["rx_sock_drops"], "tx_err": fj["tx_err"]}
        if fwd:
            r["cpu_us_per_dgram"] = r["fwd_cpu_s"] / fwd * 1e6
            r["cpu_us_per_copy"] = r["cpu_us_per_dgram"] / n
            r["cpu1_kernel_us_per_dgram"] = \
                (k1["sys_s"] + k1["softirq_s"] + k1["irq_s"]) / fwd * 1e6
            st = r.get("sys_time")
            if st:
                # time inside the forwarder's send calls (sys_time.so): the kernel's transmit
                # path of its copies, which on veth runs the sinks' receive too
                r["send_us_per_dgram"] = st["send"]["s"] / fwd * 1e6
                r["send_calls_per_dgram"] = st["send"]["calls"] / fwd

    def show(self, r):
        fj = r["fwd_json"]
        sj = r["sinks"]
        line = "  %-16s %-7s N=%d rate %7s: gen %8d (%6.0f pps%s)" % (
            LABEL[r["contender"]], r["mode"], r["dests"], r["rate"] or "flood", r["sent"],
            r["gen_pps"], ", GEN-BOUND" if r["gen_bound"] else "")
        if fj:
            line += " | fwd in %8d out %9d drops %s" % (r["fwd_in"], r["fwd_out"],
                                                       ",".join("%s=%d" % kv for kv in
                                                                r["fwd_drops"].items() if kv[1])
                                                       or "0")
        line += " | sinks %9d distinct %9d (sockdrop %d, dup %d) softnet drop %d | loss %.4f%%" % (
            sum(s["received"] for s in sj), r["delivered"], sum(s["rx_sock_drops"] for s in sj),
            sum(s["duplicates"] for s in sj), r["counters"]["softnet_dropped"], 100 * r["loss"])
        if "cpu_us_per_dgram" in r:
            line += " | cpu %.2f us/dgram (%.2f/copy; CPU1 kernel %.2f)" % (
                r["cpu_us_per_dgram"], r["cpu_us_per_copy"], r["cpu1_kernel_us_per_dgram"])
        if "send_us_per_dgram" in r:
            line += " | in send %.2f us/dgram (%.3f calls)" % (
                r["send_us_per_dgram"], r["send_calls_per_dgram"])
        if r.get("xdp_mode"):
            line += " | xdp_mode %s" % r["xdp_mode"]
        cpu = r["percpu"]
        line += " | CPU0 busy %.0f%% CPU1 busy %.0f%% | others %.2f%s" % (
            100 * (1 - cpu[0]["idle_s"] / max(1e-9, sum(cpu[0].values()))),
            100 * (1 - cpu[1]["idle_s"] / max(1e-9, sum(cpu[1].values()))),
            r["other_cores"], " NOISY" if r["other_cores"] > self.a.max_other else "")
        line += " (user %.2f)" % r["other_user_cores"]
        log(line)

    def point(self, c, n, rate, purpose):
        """a point, rerun (bounded) when others loaded the machine meanwhile: a lossy point
        (noise can only cost: a clean one stands), or any CPU point (preemption by others'
        work inflates busy cycles and rusage alike)"""
        for attempt in range(self.a.retries + 1):
            r = self.run_point(c, n, rate, purpose)
            r["attempt"] = attempt
            if r["other_cores"] <= self.a.max_other:
                break
            if purpose != "cpu" and r["loss"] < 0.001:
                break
        return r

    # -- phases ----------------------------------------------------------------------------
    def ladder(self, c, n, rates, purpose, stop=True):
        lossy = 0
        best = None
        for rate in rates:
            r = self.point(c, n, rate, purpose)
            if r["loss"] < 0.001:
                lossy = 0
                if best is None or r["gen_pps"] > best["gen_pps"]:
                    best = r
            else:
                lossy += 1
            if stop and (lossy >= 2 or r["gen_bound"]):
                break
        return best

    def bcast_filter(self, on):
        """tc ingress on src0's bridge port: destination MAC := broadcast, so the bridge
        floods every generated frame to the four sink ports (fwd0 is down meanwhile)"""
        tb = self.tb
        port = self.br_port[(tb.ns_src, "src0")]
        if not on:
            tb.nsx(tb.ns_br, "tc qdisc del dev %s clsact" % port, check=False)
            return
        obj = os.path.join(self.wd, "bcast.o")
        csrc = os.path.join(self.wd, "bcast.c")
        with open(csrc, "w") as f:
            f.write(BCAST_BPF)
        arch = "/usr/include/%s-linux-gnu" % os.uname().machine
        subprocess.run(["clang", "-O2", "-g", "-target", "bpf", "-I", arch, "-c", csrc, "-o",
                        obj], check=True)
        tb.nsx(tb.ns_br, "tc qdisc replace dev %s clsact" % port)
        tb.nsx(tb.ns_br, "tc filter add dev %s ingress bpf da obj %s sec tc" % (port, obj))

    def port_rps(self, ns, ifname, mask):
        sysfs_write(self.tb, self.tb.ns_br, "/sys/class/net/%s/queues/rx-0/rps_cpus" %
                    self.br_port[(ns, ifname)], "%x" % mask)

    def validate(self, dests):
        """Generator and sinks alone. The kernel work that is the forwarder's in a forwarded
        run (on veth: the sending side runs the receivers' path) is placed on the forwarder's
        CPU with RPS, the sinks' where this mode puts it: N = 1, unicast to sink 1, the
        generator pays the path into a kernel socket (as it does into a socket forwarder),
        sink 1's receive on CPU 1 (default) or CPU 0 (rps); N = 4, broadcast, the bridge's
        flooding on CPU 1 (RPS on src0's bridge port), the four sinks' receive on CPU 1
        (default) or CPU 0 (rps). The sinks' own processes are on CPU 0 throughout."""
        tb = self.tb
        tb.nsx(tb.ns_fwd, "ip link set %s down" % tb.fwd_if)
        sink_cpu = GEN_CPU if self.mode == "rps" else FWD_CPU
        self.sink_rps(1 << sink_cpu)
        out = {}
        try:
            for n in dests:
                log("generator + sinks alone, N=%d (%s), sinks' receive on CPU %d:" % (
                    n, "unicast to sink 1" if n == 1 else
                    "broadcast to 4 sinks, bridge flooding on CPU %d" % FWD_CPU, sink_cpu))
                rates = (QUICK_VALIDATE if self.a.quick else VALIDATE)[n]
                if n > 1:
                    self.bcast_filter(True)
                    self.port_rps(tb.ns_src, "src0", 1 << FWD_CPU)
                try:
                    best = self.ladder("none", n, rates, "validate", stop=False)
                finally:
                    self.bcast_filter(False)
                    self.port_rps(tb.ns_src, "src0", 0)
                fl = [r for r in self.runs if r["purpose"] == "validate" and r["dests"] == n
                      and r["mode"] == self.mode and not r["rate"]]
                out[n] = {"clean_pps": best["gen_pps"] if best else 0,
                          "flood_pps": fl[-1]["gen_pps"] if fl else None,
                          "flood_loss": fl[-1]["loss"] if fl else None,
                          "flood_sink_sockdrops": sum(x["rx_sock_drops"] for x in fl[-1]["sinks"])
                          if fl else None,
                          "flood_softnet_drops": fl[-1]["counters"]["softnet_dropped"]
                          if fl else None}
                log("  => ceiling N=%d: clean at %.0f pps%s" % (
                    n, out[n]["clean_pps"], "" if not fl else
                    " (flood: generator %.0f pps, loss %.3f %%, sinks' socket drops %d, "
                    "softnet backlog drops %d)" % (out[n]["flood_pps"], 100 * out[n]["flood_loss"],
                                                   out[n]["flood_sink_sockdrops"],
                                                   out[n]["flood_softnet_drops"])))
        finally:
            self.set_mode(self.mode)
            tb.nsx(tb.ns_fwd, "ip link set %s up" % tb.fwd_if)
        return out


# kernel symbols by where they sit on the path (self time); first match wins
PERF_GROUPS = [
    ("GSO segmentation (at the sinks' UDP receive)", ("skb_segment", "inet_gso_segment",
                                                      "__udp_gso_segment", "udp4_ufo_fragment",
                                                      "__skb_gso_segment", "skb_mac_gso_segment",
                                                      "udp_rcv_segment", "__udp4_lib_rcv_seg",
                                                      "skb_gso_")),
    ("AF_XDP / AF_PACKET tx (skb alloc + copy)", ("xsk", "__xsk", "xp_", "packet_", "tpacket",
                                                  "__packet", "__pi_memcpy", "skb_set_owner_w",
                                                  "sock_wfree", "sock_alloc_send")),
    ("UDP/IP send (socket forwarders)", ("udp_sendmsg", "udp_send_skb", "ip_make_skb",
                                         "__ip_make_skb", "__ip_append_data", "ip_send_skb",
                                         "ip_output", "ip_finish_output", "ip_local_out",
                                         "__ip_local_out", "ip_generic_getfrag", "ip_send_check",
                                         "_copy_from_iter", "copy_iovec", "__check_object_size",
                                         "__virt_addr_valid", "ipv4_mtu", "udp4_hwcsum",
                                         "udp_gro", "__skb_udp_tunnel", "ip_setup_cork",
                                         "__sys_sendmmsg", "____sys_sendmsg", "___sys_sendmsg",
                                         "sock_sendmsg", "__sys_sendmsg")),
    ("UDP/IP receive (recvmmsg side)", ("udp_recvmsg", "__skb_recv_udp", "skb_copy_datagram",
                                       "__skb_datagram_iter", "do_recvmmsg", "___sys_recvmsg",
                                       "____sys_recvmsg", "__sys_recvmmsg", "skb_consume_udp",
                                       "sock_recvmsg", "inet_recvmsg", "_copy_to_iter")),
    ("bridge netfilter hooks (br_netfilter)", ("br_nf", "nf_", "nf_hook", "ipt_", "iptable")),
    ("bridge", ("br_", "fdb_", "nbp_", "__br_")),
    ("veth", ("veth_",)),
    ("backlog / softirq / dev core", ("netif_", "__netif", "process_backlog", "net_rx_action",
                                      "enqueue_to_backlog", "napi_", "__napi", "dev_",
                                      "__dev_", "validate_xmit", "handle_softirqs",
                                      "__do_softirq", "do_softirq", "__local_bh", "eth_type_trans",
                                      "skb_defer", "rps_", "get_rps_cpu", "__dev_direct_xmit",
                                      "sch_direct", "qdisc", "__qdisc", "skb_network",
                                      "__netif_receive", "__netif_rx")),
    ("sinks' IP/UDP receive", ("ip_rcv", "ip_route_input", "ip_local_deliver", "ip_protocol",
                               "ip_sublist", "ip_list", "fib_", "__fib", "udp_queue_rcv",
                               "__udp4_lib", "udp_rcv", "__udp_enqueue", "udp_unicast",
                               "udp4_lib_lookup", "__udp4_lib_lookup", "udp_lib_lookup",
                               "sock_def_readable", "ip_rcv_core", "ip_rcv_finish",
                               "sk_filter", "udp_queue_rcv_one_skb", "inet_", "raw_",
                               "ip_route_use_hint", "skb_csum", "__skb_checksum")),
    ("skb alloc / free", ("kmem_cache", "kfree", "__kfree", "skb_release", "__alloc_skb",
                          "alloc_skb", "__slab", "___slab", "slab_", "consume_skb", "skb_free",
                          "__build_skb", "kmalloc", "__kmalloc", "skb_clone", "__skb_clone",
                          "skb_put", "pskb_", "napi_consume", "skb_attempt_defer",
                          "__consume_stateless", "page_frag", "skb_page_frag",
                          "__refill_stock", "obj_cgroup", "mod_objcg", "memcg", "__mod_",
                          "kmalloc_reserve", "allocate_slab", "get_netmem", "skb_free_head",
                          "put_netmem", "napi_skb_cache", "__napi_alloc", "sock_rfree",
                          "skb_orphan")),
    ("syscall entry/exit", ("do_syscall", "entry_", "__x64_sys", "syscall_", "__sys_sendto",
                            "__sys_recvfrom", "exit_to_user", "x64_sys_call", "sock_sendmsg_nosec",
                            "fdget", "__fget", "fput", "sockfd_lookup", "__sys_")),
    ("locks / RCU / irq", ("_raw_spin", "__rcu", "rcu_", "native_", "queued_spin",
                           "__raw_", "irq", "_raw_")),
]


def perf_summary(path, r):
    """kernel vs user split and the kernel's self time grouped by where it sits on the path,
    from `perf record -e cpu-clock -C 1 -g`; µs per forwarded datagram from the run's rate"""
    out = subprocess.run("perf report -i %s --stdio --no-children --sort dso,sym -g none "
                         "--percent-limit 0 2>/dev/null" % path, shell=True,
                         capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "%" not in line.split()[0]:
            continue
        parts = line.split(None, 3)
        if len(parts) < 4:
            continue
        pct = float(parts[0].rstrip("%"))
        rows.append((pct, parts[1], parts[2], parts[3].strip()))
    total = sum(x[0] for x in rows) or 1.0
    groups = {}
    user = {}
    for pct, dso, kind, sym in rows:
        if kind == "[k]":
            g = next((name for name, pre in PERF_GROUPS if sym.startswith(pre)), "other kernel")
            groups[g] = groups.get(g, 0.0) + pct
        else:
            d = os.path.basename(dso) if dso != "[unknown]" else "[unknown] (user, no symbols)"
            user[d] = user.get(d, 0.0) + pct
    kern = sum(groups.values())
    # time per forwarded datagram: CPU 1 was fully in use (udpfan) or busy X % (refs); scale
    # the sampled shares by the forwarder's measured CPU per datagram
    us = r.get("cpu1_kernel_us_per_dgram")
    lines = ["perf record -e cpu-clock -C %d -g: %s N=%d at %s pps (%s), %d symbols, loss %.4f%%" %
             (FWD_CPU, LABEL[r["contender"]], r["dests"], r["rate"], r["mode"], len(rows),
              100 * r["loss"]),
             "samples on CPU %d: kernel %.1f %%, user %.1f %% (%s)" % (
                 FWD_CPU, 100 * kern / total, 100 * (total - kern) / total,
                 ", ".join("%s %.1f %%" % (k, 100 * v / total)
                           for k, v in sorted(user.items(), key=lambda kv: -kv[1])[:4])),
             "CPU %d kernel time per forwarded datagram (/proc/stat): %s us" % (
                 FWD_CPU, "%.2f" % us if us is not None else "-"),
             "kernel self time by group (share of kernel samples; us per datagram = share x "
             "the line above):"]
    for name, v in sorted(groups.items(), key=lambda kv: -kv[1]):
        lines.append("  %-44s %5.1f %%  %s" % (name, 100 * v / kern if kern else 0,
                                               "%.2f us" % (us * v / kern) if us and kern else ""))
    short = "\n".join(lines)
    lines.append("\ntop 40 symbols (self, share of all samples on CPU %d):" % FWD_CPU)
    for pct, dso, kind, sym in sorted(rows, key=lambda x: -x[0])[:40]:
        lines.append("  %6.2f %%  %s %s  (%s)" % (100 * pct / total, kind, sym,
                                                  os.path.basename(dso)))
    return {"text": "\n".join(lines) + "\n", "short": short, "kernel_pct": 100 * kern / total,
            "groups_pct_of_kernel": {k: 100 * v / kern for k, v in groups.items()} if kern
            else {}, "user": user}


def median_or_none(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt_rate(best):
    if not best:
        return "none clean"
    return "%s%.0f k" % ("≥ " if best["gen_bound"] else "", best["gen_pps"] / 1000)


def samplicator_note():
    pol = subprocess.run("apt-cache policy samplicator; apt-cache search samplicator",
                         shell=True, capture_output=True, text=True).stdout.strip()
    if pol:
        return "apt-cache knows it (not built by this script): " + pol.splitlines()[0]
    return ("not available: Debian 12's archive as configured here has no samplicator "
            "(apt-cache policy/search print nothing), so it cannot be built from Debian's "
            "packages: no row")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__)
    ap.add_argument("--quick", action="store_true", help="short ladders, 3 s points, 1 CPU run")
    ap.add_argument("--modes", default="default,rps",
                    help="comma list of default, rps (RPS on the sinks' veths to CPU 0), "
                         "nobrnf (bridge-nf-call-iptables=0), sinkgro (UDP_GRO sinks + veth GRO)")
    ap.add_argument("--rps-dests", default="4",
                    help="N values to ladder in the non-default modes (default: 4)")
    ap.add_argument("--contenders", default=",".join(CONTENDERS),
                    help="comma list (default all); none: only generator + sinks")
    ap.add_argument("--dests", default="1,4")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--size", type=int, default=32, help="UDP payload bytes")
    ap.add_argument("--flows", type=int, default=16)
    ap.add_argument("--cpu-rate", type=int, default=20000)
    ap.add_argument("--cpu-runs", type=int, default=3)
    ap.add_argument("--mit-cpu-runs", type=int, default=1,
                    help="CPU runs per contender in the modes other than default")
    ap.add_argument("--ladder1", help="override the N=1 ladder (comma list of pps)")
    ap.add_argument("--ladder4", help="override the N=4 ladder")
    ap.add_argument("--no-validate", action="store_true")
    ap.add_argument("--perf", action="store_true",
                    help="perf record -C 1 during one udpfan af_xdp and one ref_gso --pack N=4 run")
    ap.add_argument("--perf-rate", type=int, default=50000)
    ap.add_argument("--sys-time", action=argparse.BooleanOptionalAction, default=True,
                    help="run each forwarder under sys_time.so and report the time inside "
                         "its send calls per datagram (default on)")
    ap.add_argument("--udpfan-rx-desc", type=int, default=4096,
                    help="ports[].rx_desc for udpfan (default 4096; 0: udpfan's own, 1024)")
    ap.add_argument("--udpfan-idle-sleep-us", type=int, default=0,
                    help="forward.idle_sleep_us for udpfan (default 0: udpfan's own, busy "
                         "polling)")
    ap.add_argument("--udpfan-forward", default="",
                    help="more forward settings for udpfan, as YAML flow-map entries "
                         "(e.g. \"flush_idle: false, drain_us: 50\"), for A/B runs")
    ap.add_argument("--sink-poll-us", type=int, default=1000)
    ap.add_argument("--sink-rcvbuf", type=int, default=8 << 20)
    ap.add_argument("--quiet-below", type=float, default=0.3)
    ap.add_argument("--quiet-wait", type=float, default=30)
    ap.add_argument("--max-other", type=float, default=0.1)
    ap.add_argument("--retries", type=int, default=2)
    ap.add_argument("--netflow", choices=("auto", "on", "off"), default="auto",
                    help="NetFlow v5-shaped datagrams (a 24-byte header, then the sequence "
                         "number) for every contender; auto: on when nfacctd is one")
    ap.add_argument("--raw", default=None, help="raw log directory (default /tmp/veth-bench-DATE)")
    ap.add_argument("--json", help="summary JSON here")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("needs root (network namespaces)")
    for b in [GEN, os.environ["UDPFAN"]] + [os.path.join(REFBIN, t) for t in rb.TOOLS] + \
            ([SYS_TIME] if a.sys_time else []):
        if not os.path.exists(b):
            sys.exit("%s is missing: ninja -C %s" % (b, BUILD))
    if a.quick:
        a.seconds = min(a.seconds, 3)
        a.cpu_runs = 1
        a.mit_cpu_runs = 1
    if not 1 <= a.seconds <= 30:
        sys.exit("--seconds must be 1..30")
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    a.raw = a.raw or "/tmp/veth-bench-" + stamp
    os.makedirs(a.raw, exist_ok=True)
    contenders = [c for c in a.contenders.split(",") if c and c != "none"]
    for c in contenders:
        if c not in CONTENDERS:
            sys.exit("unknown contender %s (one of %s, or none)" % (c, ",".join(CONTENDERS)))
    if "nfacctd" in contenders and not os.path.exists(NFACCTD):
        sys.exit("%s is missing: apt-get install pmacct" % NFACCTD)
    a.netflow = a.netflow == "on" or (a.netflow == "auto" and "nfacctd" in contenders)
    if a.netflow and a.size < NF5_SEQ_OFF + 8:
        sys.exit("--size must be >= %d with NetFlow-shaped datagrams" % (NF5_SEQ_OFF + 8))
    dests = [int(x) for x in a.dests.split(",")]
    modes = a.modes.split(",")
    ladders = dict(QUICK_LADDER if a.quick else LADDER)
    if a.ladder1:
        ladders[1] = [int(float(x)) for x in a.ladder1.split(",")]
    if a.ladder4:
        ladders[4] = [int(float(x)) for x in a.ladder4.split(",")]
    t_start = time.monotonic()
    summary = {"argv": sys.argv, "started": stamp, "kernel": os.uname().release,
               "cpus": os.cpu_count(), "samplicator": samplicator_note(), "modes": {}}
    log("udpfan bench 2 (veth), raw logs in %s" % a.raw)
    log("samplicator: " + summary["samplicator"])
    with tempfile.TemporaryDirectory(prefix="ufv-") as wd, \
            Testbed(prefix="ufv", sinks=4) as tb:
        b = Bench(a, tb, wd)
        b.fairness()
        for mode in modes:
            b.set_mode(mode)
            ms = summary["modes"][mode] = {"validate": None, "clean": {}, "cpu": {}}
            mdests = dests if mode == "default" else [int(x) for x in a.rps_dests.split(",")]
            log("\n=== mode %s ===" % mode)
            if not a.no_validate:
                ms["validate"] = b.validate(mdests)
            for c in contenders:
                b.contender_setup(c)
                try:
                    for n in mdests:
                        log("%s N=%d ladder:" % (LABEL[c], n))
                        best = b.ladder(c, n, ladders[n], "ladder")
                        ms["clean"]["%s/%d" % (c, n)] = None if not best else {
                            "pps": best["gen_pps"], "rate": best["rate"],
                            "gen_bound": best["gen_bound"], "xdp_mode": best.get("xdp_mode"),
                            "loss": best["loss"]}
                        log("  => %s N=%d highest clean: %s" % (LABEL[c], n, fmt_rate(best)))
                    for n in mdests:
                        k = a.cpu_runs if mode == "default" else a.mit_cpu_runs
                        rs = [b.point(c, n, a.cpu_rate, "cpu") for _ in range(k)]
                        ms["cpu"]["%s/%d" % (c, n)] = {
                            "us_per_dgram": median_or_none(r.get("cpu_us_per_dgram") for r in rs),
                            "cpu1_kernel_us_per_dgram": median_or_none(
                                r.get("cpu1_kernel_us_per_dgram") for r in rs),
                            "send_us_per_dgram": median_or_none(
                                r.get("send_us_per_dgram") for r in rs),
                            "runs": len(rs), "max_loss": max(r["loss"] for r in rs),
                            "xdp_mode": rs[-1].get("xdp_mode")}
                    if a.perf and mode == "default" and c in ("udpfan-af_xdp", "ref_gso-pack") \
                            and 4 in mdests:
                        pf = os.path.join(a.raw, "perf-%s-N4.data" % c)
                        r = b.run_point(c, 4, a.perf_rate, "perf", perf=pf)
                        ps = perf_summary(pf, r)
                        with open(os.path.join(a.raw, "perf-%s-N4.txt" % c), "w") as f:
                            f.write(ps["text"])
                        ms.setdefault("perf", {})[c] = {k: v for k, v in ps.items()
                                                        if k != "text"}
                        log("perf record -C %d, %s N=4 at %d pps:\n%s" % (
                            FWD_CPU, LABEL[c], a.perf_rate, ps["short"]))
                finally:
                    b.contender_teardown()
            table(ms, contenders, mdests, mode, a)
    summary["elapsed_s"] = time.monotonic() - t_start
    log("\nelapsed %.0f s" % summary["elapsed_s"])
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f, indent=1)
    with open(os.path.join(a.raw, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)


def table(ms, contenders, dests, mode, a):
    log("\n--- mode %s: highest rate with < 0.1 %% loss (input datagrams/s achieved by the "
        "generator), CPU per forwarded datagram at %d pps ---" % (mode, a.cpu_rate))
    if ms["validate"]:
        log("generator + sinks alone: " + ", ".join(
            "N=%d clean %.0f k%s" % (n, v["clean_pps"] / 1000, "" if v["flood_pps"] is None else
                                     " (flood %.0f k, loss %.2f %%, sink socket drops %d)" % (
                                         v["flood_pps"] / 1000, 100 * v["flood_loss"],
                                         v["flood_sink_sockdrops"]))
            for n, v in sorted(ms["validate"].items())))
    hdr = "%-18s %-14s" % ("contender", "xdp_mode")
    for n in dests:
        hdr += " %14s" % ("clean N=%d" % n)
    for n in dests:
        hdr += " %22s" % ("us/dgram N=%d (CPU1 k)" % n)
    log(hdr)
    for c in contenders:
        xm = "-"
        row = ""
        for n in dests:
            best = ms["clean"].get("%s/%d" % (c, n))
            if best and best.get("xdp_mode"):
                xm = best["xdp_mode"]
            row += " %14s" % (("≥ " if best["gen_bound"] else "") +
                              "%.0f k" % (best["pps"] / 1000) if best else "none")
        for n in dests:
            cp = ms["cpu"].get("%s/%d" % (c, n))
            if cp and cp.get("xdp_mode"):
                xm = cp["xdp_mode"]
            row += " %22s" % ("%.2f (%.2f)" % (cp["us_per_dgram"], cp["cpu1_kernel_us_per_dgram"])
                              if cp and cp["us_per_dgram"] is not None else "-")
        log("%-18s %-14s%s" % (LABEL[c], xm, row))
    for n in dests:
        nf = ms["clean"].get("nfacctd/%d" % n)
        nfc = (ms["cpu"].get("nfacctd/%d" % n) or {}).get("us_per_dgram")
        for c in contenders:
            if not c.startswith("udpfan"):
                continue
            u = ms["clean"].get("%s/%d" % (c, n))
            uc = (ms["cpu"].get("%s/%d" % (c, n)) or {}).get("us_per_dgram")
            if u and nf:
                ms.setdefault("ratio_nfacctd", {})["%s/%d" % (c, n)] = u["pps"] / nf["pps"]
                log("ratio %s / nfacctd tee at N=%d: %.2f (%s%.0f k / %s%.0f k)" % (
                    LABEL[c], n, u["pps"] / nf["pps"], "≥ " if u["gen_bound"] else "",
                    u["pps"] / 1000, "≥ " if nf["gen_bound"] else "", nf["pps"] / 1000))
            if uc and nfc:
                ms.setdefault("cpu_ratio_nfacctd", {})["%s/%d" % (c, n)] = nfc / uc
                log("  CPU per copy at N=%d: %s %.3f us, nfacctd tee %.3f us "
                    "(nfacctd / udpfan = %.2f)" % (n, LABEL[c], uc / n, nfc / n, nfc / uc))
                us = (ms["cpu"].get("%s/%d" % (c, n)) or {}).get("send_us_per_dgram")
                ns_ = (ms["cpu"].get("nfacctd/%d" % n) or {}).get("send_us_per_dgram")
                if us:
                    # the kernel's transmit path inside the send calls bounds the ratio: were
                    # udpfan's own work free, nfacctd / udpfan would be nfc / us
                    ms.setdefault("cpu_ratio_nfacctd_bound", {})["%s/%d" % (c, n)] = nfc / us
                    log("  in send at N=%d: %s %.2f us/dgram (%.0f %% of its CPU), nfacctd tee "
                        "%s; nfacctd / udpfan's send time alone = %.2f" % (
                            n, LABEL[c], us, 100 * us / uc,
                            "%.2f us/dgram (%.0f %%)" % (ns_, 100 * ns_ / nfc) if ns_ else "-",
                            nfc / us))
    for n in dests:
        kern = [(ms["clean"].get("%s/%d" % (c, n)) or {}).get("pps", 0)
                for c in contenders if c.startswith("ref_")]
        if not kern or not max(kern):
            continue
        bk = max(kern)
        bkc = [c for c in contenders if c.startswith("ref_") and
               (ms["clean"].get("%s/%d" % (c, n)) or {}).get("pps", 0) == bk][0]
        bkgb = ms["clean"]["%s/%d" % (bkc, n)]["gen_bound"]
        cpus = [(ms["cpu"].get("%s/%d" % (c, n)) or {}).get("us_per_dgram")
                for c in contenders if c.startswith("ref_")]
        cpus = [x for x in cpus if x]
        for c in contenders:
            if c.startswith("udpfan"):
                u = ms["clean"].get("%s/%d" % (c, n))
                if u:
                    ms.setdefault("ratio", {})["%s/%d" % (c, n)] = u["pps"] / bk
                    log("ratio %s / best kernel (%s) at N=%d: %.2f (%s%.0f k / %s%.0f k%s)" % (
                        LABEL[c], LABEL[bkc], n, u["pps"] / bk, "≥ " if u["gen_bound"] else "",
                        u["pps"] / 1000, "≥ " if bkgb else "", bk / 1000,
                        "; generator-bound: the ratio is not resolved" if u["gen_bound"] and bkgb
                        else ""))
                uc = (ms["cpu"].get("%s/%d" % (c, n)) or {}).get("us_per_dgram")
                if uc and cpus:
                    ms.setdefault("cpu_ratio", {})["%s/%d" % (c, n)] = min(cpus) / uc
                    log("  CPU per datagram at N=%d: %s %.2f us, cheapest kernel %.2f us "
                        "(kernel / udpfan = %.2f)" % (n, LABEL[c], uc, min(cpus),
                                                      min(cpus) / uc))


if __name__ == "__main__":
    main()
