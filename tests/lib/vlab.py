"""The lab of real PMDs without a NIC (docs/testing.md, "The vhost-user and memif lab"):
udpfan-gen -> udpfan -> udpfan-sink, three DPDK processes joined by vhost-user or memif
sockets, each with its own --file-prefix and lcores. No namespaces, no kernel on the wire.

  pmd "vhost": udpfan's ports are virtio_user (server=1: the virtio PMD's rings, as in a VM
               or container guest); gen and sink are net_vhost backends (client=1, they
               reconnect). udpfan's probe blocks in accept() until each backend connects,
               in port order: lan (to the sink) first, then wan (from the generator).
  pmd "memif": udpfan's ports are net_memif role=server; gen and sink are role=client.

Usable from scripts (scripts/bench/vlab.py) as well as tests:

    with Lab("memif", workdir) as lab:
        lab.start_udpfan(dests=4)
        lab.start_sink(); lab.start_gen(count=20000, rate=2000)
        g = lab.wait_gen(); s = lab.wait_sink(); st = lab.stop_udpfan()
"""
import json
import os
import signal
import subprocess
import time

from ufrun import UDPFAN, UF_BUILD, final, read_stats

GEN = os.path.join(UF_BUILD, "app", "udpfan-gen", "udpfan-gen")
SINK = os.path.join(UF_BUILD, "app", "udpfan-sink", "udpfan-sink")

WAN_IP, LAN_IP = "198.18.0.10", "198.18.1.10"
GEN_IP, SINK_IP = "198.18.0.2", "198.18.1.21"
UF_WAN_MAC, UF_LAN_MAC = "02:00:00:00:00:0a", "02:00:00:00:01:0a"
# net_vhost's MAC is fixed (rte_eth_vhost.c base_eth_addr, last byte the port id); memif's
# is given by the mac= devarg
VHOST_MAC = "56:48:4f:53:54:00"
MEMIF_SINK_MAC, MEMIF_GEN_MAC = "02:00:00:00:01:15", "02:00:00:00:00:02"
LISTEN_PORT, DEST_PORT = 5000, 6000
PMDS = ("vhost", "memif")

# 2 CPUs: udpfan's worker alone on CPU 1, the generator's and the sink's polling lcores share
# CPU 0; every main lcore sleeps. Correctness, not speed.
UF_LCORES = "0@0,1@1"
UF_LCORES_2W = "0@0,1@1,2@1"
GEN_LCORES = "0@1,1@0"
SINK_LCORES = "0@1,1@0"


def wait_for(pred, timeout, step=0.05):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(step)
    return pred()


class Lab:
    def __init__(self, pmd, workdir, tag="vl", queues=1, udpfan_bin=UDPFAN):
        assert pmd in PMDS
        self.pmd = pmd
        self.wd = os.path.abspath(workdir)  # memif wants an absolute socket path
        self.tag = tag
        self.queues = queues
        self.udpfan_bin = udpfan_bin
        self.procs = {}
        self.logs = {}
        # memif tools started with --hold: they write their summary, stop polling and keep
        # the port open until udpfan has stopped (docs/pmd-quirks.md, net_memif: a peer that
        # closes while the other side's datapath reads the rings can crash that side)
        self.holding = set()
        self.wan_sock = os.path.join(self.wd, "wan.sock")
        self.lan_sock = os.path.join(self.wd, "lan.sock")
        self.start_file = os.path.join(self.wd, "udpfan.started")
        self.stats = os.path.join(self.wd, "udpfan.jsonl")
        for p in (self.wan_sock, self.lan_sock, self.start_file, self.stats):
            if os.path.exists(p):
                os.unlink(p)

    # ---- device strings ----
    def udpfan_dev(self, side, extra=""):
        sock = self.wan_sock if side == "wan" else self.lan_sock
        mac = UF_WAN_MAC if side == "wan" else UF_LAN_MAC
        n = 0 if side == "wan" else 1
        if self.pmd == "vhost":
            return "virtio_user%d,path=%s,server=1,queues=%d,queue_size=1024,mac=%s%s" % (
                n, sock, self.queues, mac, extra)
        return "net_memif%d,role=server,socket=%s,socket-abstract=no,id=0,mac=%s%s" % (
            n, sock, mac, extra)

    def peer_dev(self, side):
        sock = self.wan_sock if side == "wan" else self.lan_sock
        if self.pmd == "vhost":
            return "net_vhost0,iface=%s,client=1,queues=%d" % (sock, self.queues)
        mac = MEMIF_GEN_MAC if side == "wan" else MEMIF_SINK_MAC
        return "net_memif0,role=client,socket=%s,socket-abstract=no,id=0,mac=%s" % (sock, mac)

    def sink_mac(self):
        return VHOST_MAC if self.pmd == "vhost" else MEMIF_SINK_MAC

    # ---- udpfan ----
    def config(self, dests=4, workers=1, forward="", destinations=None, extra_top="",
               eal_extra=None, lan_tx_desc=1024):
        lines = ["eal:",
                 "  lcores: \"%s\"" % (UF_LCORES if workers == 1 else UF_LCORES_2W),
                 "  file_prefix: %s-uf" % self.tag]
        if eal_extra:
            lines.append("  extra_args: [%s]" % ", ".join('"%s"' % a for a in eal_extra))
        lines += ["ports:",
                  "  - name: lan",
                  "    device: \"%s\"" % self.udpfan_dev("lan"),
                  "    ip: %s/24" % LAN_IP,
                  "    tx_desc: %d" % lan_tx_desc,
                  "  - name: wan",
                  "    device: \"%s\"" % self.udpfan_dev("wan"),
                  "    ip: %s/24" % WAN_IP,
                  "listen: { port: wan, udp_port: %d }" % LISTEN_PORT,
                  "destinations:"]
        if destinations is None:
            destinations = ["{ ip: %s, udp_port: %d, port: lan, mac: \"%s\" }" % (
                SINK_IP, DEST_PORT + i, self.sink_mac()) for i in range(dests)]
        lines += ["  - " + d for d in destinations]
        if forward:
            lines.append("forward: " + forward)
        lines.append("stats: { interval_s: 0.2 }")
        if extra_top:
            lines.append(extra_top)
        return "\n".join(lines) + "\n"

    def wait_socket(self, side, timeout=30):
        """memif: a client's start fails (memif_connect_client, -EPERM) unless the server's
        socket is there, and a client that connects before the server's port is started is
        turned away for good (the DPDK client does not retry): wait for udpfan to run."""
        if self.pmd != "memif":
            return
        p = self.procs.get("udpfan")
        if p is None:
            return
        if not wait_for(lambda: len(read_stats(self.stats)) > 0 or p.poll() is not None,
                        timeout) or p.poll() is not None:
            raise AssertionError("udpfan did not start (memif %s):\n%s" % (side,
                                                                          self.log("udpfan")))

    def _popen(self, name, argv):
        log = open(os.path.join(self.wd, name + ".log"), "w")
        out = open(os.path.join(self.wd, name + ".out"), "w")
        self.logs[name] = log.name
        p = subprocess.Popen(argv, stdout=out, stderr=log, start_new_session=True)
        self.procs[name] = p
        return p

    def start_udpfan(self, cfg_text=None, **kw):
        """Start udpfan (it waits for its peers on vhost: start_sink/start_gen next)."""
        cfg = os.path.join(self.wd, "udpfan.yaml")
        with open(cfg, "w") as f:
            f.write(cfg_text if cfg_text is not None else self.config(**kw))
        return self._popen("udpfan", [self.udpfan_bin, "-c", cfg, "--stats-json", self.stats])

    def udpfan_ready(self, timeout=30):
        """Wait until udpfan forwards with both links up (its stats say so), then let the
        generator go."""
        p = self.procs["udpfan"]

        def links_up():
            st = self.latest()
            return st is not None and all(v["link_up"] for v in st["ports"].values())

        ok = wait_for(lambda: links_up() or p.poll() is not None, timeout)
        if not ok or p.poll() is not None:
            raise AssertionError("udpfan did not start (rc %s):\n%s" % (p.poll(),
                                                                        self.log("udpfan")))
        open(self.start_file, "w").close()

    def stop_udpfan(self, sig=signal.SIGTERM, timeout=30):
        p = self.procs.get("udpfan")
        if p is None:
            return None
        if p.poll() is None:
            p.send_signal(sig)
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            raise AssertionError("udpfan did not stop on SIGTERM:\n" + self.log("udpfan"))
        # the holding tools see their link go down and exit: cleanly, or the test fails
        for name in sorted(self.holding):
            t = self.procs[name]
            try:
                t.wait(timeout=15)
            except subprocess.TimeoutExpired:
                t.kill()
                t.wait()
            self.holding.discard(name)
            if t.returncode != 0:
                raise AssertionError("%s exited %d after udpfan stopped:\n%s" %
                                     (name, t.returncode, self.log(name)))
        return final(read_stats(self.stats))

    def latest(self):
        objs = read_stats(self.stats)
        return objs[-1] if objs else None

    # ---- peers ----
    def start_sink(self, name="sink", duration=60, idle=None, extra=()):
        argv = [SINK, "--dev", self.peer_dev("lan"), "--ip", SINK_IP + "/24",
                "--duration", str(duration), "--file-prefix", "%s-%s" % (self.tag, name),
                "--lcores", SINK_LCORES, "--json", os.path.join(self.wd, name + ".json")]
        if idle is not None:
            argv += ["--idle", str(idle)]
        if self.queues > 1:
            argv += ["--queues", str(self.queues)]
        if self.pmd == "memif":
            argv += ["--hold", "60000"]
            self.holding.add(name)
        self.wait_socket("lan")
        return self._popen(name, argv + list(extra))

    def start_gen(self, name="gen", count=10000, rate=2000, flows=1, size=32, duration=60,
                  wait_udpfan=True, extra=()):
        argv = [GEN, "--dev", self.peer_dev("wan"), "--ip", GEN_IP + "/24",
                "--dst", "%s:%d" % (WAN_IP, LISTEN_PORT), "--dst-mac", UF_WAN_MAC,
                "--rate", str(rate), "--count", str(count), "--flows", str(flows),
                "--size", str(size), "--duration", str(duration),
                "--file-prefix", "%s-%s" % (self.tag, name), "--lcores", GEN_LCORES,
                "--json", os.path.join(self.wd, name + ".json"),
                # memif: the client owns the rings' memory; what udpfan has not read when
                # the generator closes is lost unseen (docs/pmd-quirks.md)
                "--linger", "1500"]
        if wait_udpfan:
            argv += ["--start-after", self.start_file]
        if self.queues > 1:
            argv += ["--queues", str(self.queues)]
        if self.pmd == "memif":
            argv += ["--hold", "60000"]
            self.holding.add(name)
        self.wait_socket("wan")
        return self._popen(name, argv + list(extra))

    def wait_json(self, name, timeout=90):
        p = self.procs[name]
        path = os.path.join(self.wd, name + ".json")
        if name in self.holding:
            # its summary is written before it holds; it exits once udpfan has stopped
            def summary():
                try:
                    with open(path) as f:
                        return json.loads(f.read())
                except (OSError, ValueError):
                    return None
            if wait_for(lambda: summary() is not None or p.poll() is not None, timeout) \
                    and p.poll() is None:
                return summary()
            self.holding.discard(name)
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGINT)
            p.wait(timeout=20)
        if p.returncode != 0:
            raise AssertionError("%s exited %d:\n%s" % (name, p.returncode, self.log(name)))
        with open(os.path.join(self.wd, name + ".json")) as f:
            return json.loads(f.read())

    def stop(self, name, sig=signal.SIGINT):
        p = self.procs.get(name)
        if p is not None and p.poll() is None:
            p.send_signal(sig)

    def kill(self, name):
        """The peer dies (SIGKILL): its socket end closes with no goodbye."""
        self.holding.discard(name)
        p = self.procs.get(name)
        if p is not None and p.poll() is None:
            p.kill()
            p.wait()

    def log(self, name):
        return self.log_all(name)[-4000:]

    def log_all(self, name):
        try:
            with open(self.logs[name]) as f:
                return f.read()
        except (KeyError, OSError):
            return ""

    def close(self):
        # udpfan first: the memif tools that hold are not polling (docs/pmd-quirks.md)
        try:
            self.stop_udpfan(timeout=15)
        except AssertionError:
            pass
        for name in ("gen", "sink", "sink2", "gen2"):
            self.kill(name)
        for p in self.procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
