"""A running udpfan on the veth test bed, with kernel senders and sinks around it."""
import json
import os
import signal
import subprocess
import time

from testbed import FWD_IP, Testbed, wait_for
from ufrun import UDPFAN, UF_SRC, final, ledger, read_stats

TOOLS = os.path.join(UF_SRC, "tests", "tools")
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"


class Udpfan:
    """udpfan in the fwd namespace; stop() sends SIGTERM and returns the final stats."""

    def __init__(self, tb, cfg_text, workdir, name="udpfan", wrap="", wait=True):
        self.tb = tb
        self.wd = workdir
        self.cfg = os.path.join(workdir, name + ".yaml")
        self.stats = os.path.join(workdir, name + ".jsonl")
        self.log = os.path.join(workdir, name + ".log")
        with open(self.cfg, "w") as f:
            f.write(cfg_text)
        if os.path.exists(self.stats):
            os.unlink(self.stats)
        # a bpffs in udpfan's own mount namespace keeps libxdp from falling back noisily
        # wrap: a command udpfan runs under (setpriv for the least-privilege tests)
        cmd = "mount -t bpf bpf /sys/fs/bpf 2>/dev/null; exec %s %s -c %s --stats-json %s" % (
            wrap, UDPFAN, self.cfg, self.stats)
        self.proc = tb.popen(tb.ns_fwd, ["sh", "-c", cmd], stdout=subprocess.DEVNULL,
                             stderr=open(self.log, "w"))
        if not wait:
            return
        if not wait_for(lambda: len(read_stats(self.stats)) > 0 or self.proc.poll() is not None,
                        30):
            raise AssertionError("udpfan did not start:\n" + self.logtext())
        if self.proc.poll() is not None:
            raise AssertionError("udpfan exited %d:\n%s" % (self.proc.returncode,
                                                          self.logtext()))

    def logtext(self):
        with open(self.log) as f:
            return f.read()[-4000:]

    def latest(self):
        objs = read_stats(self.stats)
        return objs[-1] if objs else None

    def wait_stats(self, pred, timeout):
        return wait_for(lambda: (lambda s: s is not None and pred(s))(self.latest()), timeout,
                        0.2)

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise AssertionError("udpfan did not stop on SIGTERM:\n" + self.logtext())
        if self.proc.returncode != 0:
            raise AssertionError("udpfan exited %d:\n%s" % (self.proc.returncode,
                                                          self.logtext()))
        st = final(read_stats(self.stats))
        ledger(st)
        return st


def quiet_snapshot(objs, cap, guard=0.02):
    """of udpfan's stats objects (their "time": CLOCK_REALTIME when the workers' counters
    were read), the first that no frame captured by `cap` (testbed.Capture) can have raced:
    none within `guard` seconds of it (outside overload udpfan counts a frame microseconds
    after the bridge sent it). Returns that object; fails when every one raced a frame."""
    for o in objs:
        if cap.count(o["time"] - guard, o["time"] + guard) == 0:
            return o
    raise AssertionError("every stats snapshot raced a captured frame: %r" %
                         [o["time"] for o in objs])


class Sink:
    """tests/tools/udp_sink.py in a sink namespace. result() fails the test when the
    namespace's kernel refused a datagram for a bad UDP or IPv4 header checksum meanwhile
    (a copy udpfan counted as sent that no socket could receive), unless bad_csum_ok."""

    def __init__(self, tb, ns, ports, workdir, idle=3.0, timeout=120, listing=False,
                 bad_csum_ok=False, bind="", join=()):
        """bind: the address to listen on ("::" takes IPv6 and IPv4; default 0.0.0.0);
        join: IPv6 multicast groups to join, "GROUP%IFACE" each"""
        self.ns = ns
        self.bad_csum_ok = bad_csum_ok
        self.ready = os.path.join(workdir, "ready-%s-%s" % (ns, ports[0]))
        if os.path.exists(self.ready):
            os.unlink(self.ready)
        argv = [PY, os.path.join(TOOLS, "udp_sink.py"), "--idle", str(idle), "--timeout",
                str(timeout), "--ready", self.ready]
        for p in ports:
            argv += ["--port", str(p)]
        if bind:
            argv += ["--bind", bind]
        for j in join:
            argv += ["--join", j]
        if listing:
            argv.append("--list")
        self.proc = tb.popen(ns, argv, stdout=subprocess.PIPE, text=True)
        if not wait_for(lambda: os.path.exists(self.ready), 10):
            raise AssertionError("sink in %s did not start" % ns)

    def result(self, timeout=150):
        out, _ = self.proc.communicate(timeout=timeout)
        res = json.loads(out)
        k = res["kernel"]
        if not self.bad_csum_ok:
            assert k["udp_in_csum_errors"] == 0 and k["ip_in_hdr_errors"] == 0, \
                "the kernel in %s refused copies with a bad checksum: %r" % (self.ns, k)
            assert k.get("udp6_in_csum_errors", 0) == 0 and \
                k.get("ip6_in_hdr_errors", 0) == 0, \
                "the kernel in %s refused IPv6 copies with a bad checksum: %r" % (self.ns, k)
        return res

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.result()


def send(tb, count, rate, port=5000, size=32, flows=1, sport=41000, dst=FWD_IP, ns=None,
         start_seq=0, wait=True, bind="", gso=0, bind_count=1):
    argv = [PY, os.path.join(TOOLS, "udp_send.py"), "--dst", dst, "--port", str(port),
            "--count", str(count), "--rate", str(rate), "--size", str(size), "--flows",
            str(flows), "--sport", str(sport), "--start-seq", str(start_seq)]
    if bind:
        argv += ["--bind", bind]
    if bind_count > 1:
        argv += ["--bind-count", str(bind_count)]
    if gso:
        argv += ["--gso", str(gso)]
    p = tb.popen(ns or tb.ns_src, argv, stdout=subprocess.PIPE, text=True)
    if not wait:
        return p
    out, _ = p.communicate(timeout=count / max(rate, 1) + 60)
    return json.loads(out)


def dest_lines(tb, port=6000, static=False, extra=""):
    out = []
    for i, ip in enumerate(tb.sink_ip):
        mac = ', mac: "%s"' % tb.sink_mac[i] if static else ""
        out.append("  - { ip: %s, udp_port: %d%s%s }" % (ip, port, mac, extra))
    return "\n".join(out)
