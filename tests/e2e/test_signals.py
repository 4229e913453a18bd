#!/usr/bin/env python3
"""e2e: signals and leftovers (docs/deployment.md "Signals" and "What a dead
instance leaves"). SIGHUP under traffic neither kills nor disturbs (logged, every datagram
still arrives, exit 0 with a final object on SIGTERM later); SIGTERM 0.1 s after start, while
EAL and the ports are still coming up, is a clean stop (exit 0, one final object, no XDP
program left); after SIGKILL the next start proves the dead instance dead and reclaims its
XDP program, EAL runtime directory and hugepage files, with a log line for each, and
forwards. A clean stop (SIGTERM, or --duration) leaves no hugepage file and no runtime
directory behind.

Health and drain (docs/deployment.md#health-and-drain): with control.drain_s, SIGTERM under
traffic turns /udpfan/health to draining at once, every datagram sent during the drain is
forwarded, and udpfan exits 0 after drain_s with a balanced ledger (drain_af_packet); a second
SIGTERM, or a SIGINT, during a drain stops at once (drain_stops_at_once)."""
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time

from testbed import Testbed
from uflive import Sink, Udpfan, send
from ufown import hugefiles, run_in_fwd, write, xdp_prog
from ufrun import UDPFAN, UF_SRC, Suite, final, ledger, read_stats, tmpdir
from test_forward import config

COUNT = 6000
RATE = 2000


def case_sighup_under_traffic(kind):
    wd = tmpdir()
    with Testbed(prefix="ufe", sinks=3) as tb:
        tb.static_neighbours()
        sinks = [Sink(tb, ns, [6000], wd) for ns in tb.sink_ns]
        uf = Udpfan(tb, config(tb, kind), wd)
        prog = xdp_prog(tb)
        sender = send(tb, COUNT, RATE, wait=False)
        for _ in range(3):
            time.sleep(0.5)
            uf.proc.send_signal(signal.SIGHUP)
        time.sleep(0.5)
        assert uf.proc.poll() is None, "SIGHUP killed udpfan (%s)" % uf.proc.returncode
        sender.communicate(timeout=60)
        res = [s.result()["6000"] for s in sinks]
        assert xdp_prog(tb) == prog
        st = uf.stop()  # SIGTERM: exit 0 and one final object, or it raises
        log = uf.logtext()
    assert "reload: " in log and "no change" in log, log[-2000:]
    assert st["fwd"]["forwarded"] == COUNT, st["fwd"]
    for r in res:
        assert r["received"] == COUNT and r["distinct"] == COUNT, r


def case_early_sigterm(kind):
    """SIGTERM (and SIGINT) while EAL initialises: a clean stop, not exit 143"""
    wd = tmpdir()
    with Testbed(prefix="ufe", sinks=1) as tb:
        for sig in (signal.SIGTERM, signal.SIGINT):
            cfg = write(os.path.join(wd, "u.yaml"), config(tb, kind))
            stats = os.path.join(wd, "s.jsonl")
            if os.path.exists(stats):
                os.unlink(stats)
            cmd = "mount -t bpf bpf /sys/fs/bpf 2>/dev/null; exec %s -c %s --stats-json %s" % (
                UDPFAN, cfg, stats)
            p = tb.popen(tb.ns_fwd, ["sh", "-c", cmd], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
            time.sleep(0.1)
            p.send_signal(sig)
            _, err = p.communicate(timeout=30)
            assert p.returncode == 0, "%s at 0.1 s: exit %d\n%s" % (sig.name, p.returncode,
                                                                    err[-2000:])
            ledger(final(read_stats(stats)))
            assert xdp_prog(tb) == 0, "an XDP program was left behind"


def case_sigkill_leftovers():
    wd = tmpdir()
    prefix = "ufe2e"
    rundir = "/var/run/dpdk/%s" % prefix
    with Testbed(prefix="ufe", sinks=1) as tb:
        tb.static_neighbours()
        uf = Udpfan(tb, config(tb, "af_xdp"), wd, name="first")
        prog = xdp_prog(tb)
        uf.proc.kill()
        uf.proc.wait()
        left = hugefiles(prefix)
        assert prog != 0 and xdp_prog(tb) == prog, "SIGKILL took the XDP program with it?"
        assert left > 0 and os.path.isdir(rundir), "nothing left to reclaim (%d files)" % left
        sink = Sink(tb, tb.sink_ns[0], [6000], wd)
        uf = Udpfan(tb, config(tb, "af_xdp"), wd, name="second")
        log = uf.logtext()
        assert "reclaimed interface fwd0: detached XDP program id %d" % prog in log, log[-2000:]
        assert ("reclaimed what a dead DPDK process with file_prefix \"%s\" left: %d hugepage "
                "files" % (prefix, left)) in log, log[-2000:]
        now = xdp_prog(tb)
        assert now not in (0, prog), "XDP program %d, was %d" % (now, prog)
        sent = send(tb, 1000, RATE)
        assert sent["sent"] == 1000
        res = sink.result()["6000"]
        st = uf.stop()
    assert res["received"] == 1000, res
    assert st["fwd"]["forwarded"] == 1000, st["fwd"]


def case_clean_stop_leaves_nothing(kind):
    """after exit 0 nothing of the prefix is left: no <hugetlbfs>/ufe2emap_N, no
    /var/run/dpdk/ufe2e"""
    wd = tmpdir()
    prefix = "ufe2e"
    rundir = "/var/run/dpdk/%s" % prefix
    with Testbed(prefix="ufe", sinks=1) as tb:
        tb.static_neighbours()
        uf = Udpfan(tb, config(tb, kind), wd)
        assert hugefiles(prefix) > 0 and os.path.isdir(rundir), "no hugepages in use?"
        uf.stop()  # SIGTERM: exit 0 and one final object, or it raises
        assert hugefiles(prefix) == 0, "%d hugepage files left" % hugefiles(prefix)
        assert not os.path.exists(rundir), "left in %s: %s" % (rundir, os.listdir(rundir))
        cfg = write(os.path.join(wd, "u.yaml"), config(tb, kind))
        rc, err = run_in_fwd(tb, cfg, extra="--duration 1")
        assert rc == 0, "exited %d:\n%s" % (rc, err[-2000:])
        assert "reclaimed" not in err, err[-2000:]
        assert hugefiles(prefix) == 0, "%d hugepage files left" % hugefiles(prefix)
        assert not os.path.exists(rundir), "left in %s: %s" % (rundir, os.listdir(rundir))


class Health:
    """/udpfan/health over one telemetry connection (DPDK's SOCK_SEQPACKET socket), opened
    while udpfan runs, so a question after a signal costs no client start-up"""

    def __init__(self, prefix="ufe2e"):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.s.settimeout(2)
        self.s.connect("/var/run/dpdk/%s/dpdk_telemetry.v2" % prefix)
        json.loads(self.s.recv(1024).decode())  # the greeting

    def ask(self):
        self.s.send(b"/udpfan/health")
        return json.loads(self.s.recv(16384).decode())["/udpfan/health"]

    def close(self):
        self.s.close()


def k8s(*args, prefix="ufe2e"):
    """deploy/container/udpfan-k8s (the pod's readiness probe, the exporter's preStop):
    (exit status, stdout)"""
    r = subprocess.run([sys.executable, os.path.join(UF_SRC, "deploy", "container",
                                                     "udpfan-k8s")] + list(args),
                       env=dict(os.environ, UDPFAN_FILE_PREFIX=prefix),
                       stdout=subprocess.PIPE, text=True, timeout=30)
    return r.returncode, r.stdout


def drain_start(prefix="ufe2e"):
    """scripts/udpfan-exporter.py's udpfan_drain_start_seconds, from the live /udpfan/health"""
    spec = importlib.util.spec_from_file_location(
        "udpfan_exporter", os.path.join(UF_SRC, "scripts", "udpfan-exporter.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    col = mod.Collector(mod.Telemetry("/var/run/dpdk/%s/dpdk_telemetry.v2" % prefix),
                        {"counters": []})
    fams = {m.name: m for m in col.health(col.tel.query("/udpfan/health"))}
    return fams["udpfan_drain_start_seconds"].samples[0].value


def wait_draining(uf, h, t0, limit):
    """the first /udpfan/health that says draining, and seconds since t0; fails after limit"""
    while True:
        a = h.ask()
        dt = time.monotonic() - t0
        if a["state"] == "draining":
            return a, dt
        assert dt < limit and uf.proc.poll() is None, \
            "not draining %.2f s after SIGTERM: %r\n%s" % (dt, a, uf.logtext())
        time.sleep(0.01)


def case_drain(kind):
    """drain_s 3: SIGTERM under 2,000 datagrams/s; draining within 0.5 s; the sender goes on
    for about 2 s of the drain and every datagram reaches every sink; exit 0 after ~3 s with
    a balanced final ledger. The pod's pieces (deploy/k8s) on the live socket: `udpfan-k8s
    ready` 0 before, 1 during the drain; the exporter's udpfan_drain_start_seconds the time of
    the SIGTERM; `udpfan-k8s wait-stopped` back at once after the exit"""
    drain, rate, count = 3, 2000, 6000  # the sender runs 3 s: SIGTERM at ~1 s, it ends at ~3 s
    wd = tmpdir()
    with Testbed(prefix="ufe", sinks=3) as tb:
        tb.static_neighbours()
        sinks = [Sink(tb, ns, [6000], wd, idle=4) for ns in tb.sink_ns]
        uf = Udpfan(tb, config(tb, kind, extra="control: { drain_s: %d }" % drain), wd)
        h = Health()
        a = h.ask()
        assert a["state"] == "ready" and a["degraded"] == 0 and a["drain_s"] == drain, a
        assert float(a["drain_left_s"]) == 0, a
        sender = send(tb, count, rate, wait=False)
        assert uf.wait_stats(lambda st: st["fwd"]["forwarded"] > 0, 10), uf.latest()
        assert k8s("ready")[0] == 0, "the pod's readiness probe: ready"
        time.sleep(0.5)
        t0, wall0 = time.monotonic(), time.time()
        uf.proc.send_signal(signal.SIGTERM)
        a, dt = wait_draining(uf, h, t0, 0.5)
        assert 0 < float(a["drain_left_s"]) <= drain, a
        h.close()
        # the pod leaves its endpoints (deploy/k8s), and the exporter dates the drain
        assert k8s("ready") == (1, "not ready: draining\n"), "readiness during the drain"
        start = drain_start()
        assert wall0 - 0.5 <= start <= time.time(), (wall0, start)
        sent = json.loads(sender.communicate(timeout=60)[0])
        t_sent = time.monotonic() - t0
        # the last datagram left while udpfan still drained: it must be forwarded
        assert t_sent < drain - 0.2, "the sender ended %.2f s after SIGTERM" % t_sent
        try:
            uf.proc.wait(timeout=drain + 10)
        except subprocess.TimeoutExpired:
            uf.proc.kill()
            raise AssertionError("udpfan still running %d s after SIGTERM" % (drain + 10))
        t_exit = time.monotonic() - t0
        assert k8s("wait-stopped", "--timeout", "5")[0] == 0  # the exporter's preStop
        assert time.monotonic() - t0 - t_exit < 2, "wait-stopped waited on a stopped udpfan"
        st = uf.stop()  # exit 0, the final object, its ledger
        res = [sk.result()["6000"] for sk in sinks]
        objs = read_stats(uf.stats)
        log = uf.logtext()
    print("draining after %.3f s; sender done %.2f s, udpfan exited %.2f s after SIGTERM; "
          "%d sent, %d forwarded" % (dt, t_sent, t_exit, sent["sent"], st["fwd"]["forwarded"]))
    assert drain - 0.1 <= t_exit <= drain + 2.5, "exited %.2f s after SIGTERM" % t_exit
    assert sent["sent"] == count, sent
    assert st["fwd"]["forwarded"] == count and st["fwd"]["tx_ok"] == 3 * count, st["fwd"]
    for r in res:
        assert r["received"] == count and r["distinct"] == count, r
    # the stats objects say it too: draining during the drain, stopping in the final one
    assert any(o["health"]["state"] == "draining" and not o["final"] for o in objs), \
        [o["health"] for o in objs]
    assert st["health"]["state"] == "stopping" and st["health"]["drain_s"] == drain, st["health"]
    assert "SIGTERM: draining" in log and "drain: %d s done, stopping" % drain in log, log[-2000:]


def case_drain_stops_at_once(kind):
    """drain_s 30: SIGTERM starts the drain; a second SIGTERM, or a SIGINT, stops at once
    (exit 0, final object, balanced ledger), 25 s or more before the drain's end"""
    wd = tmpdir()
    with Testbed(prefix="ufe", sinks=1) as tb:
        tb.static_neighbours()
        for second in (signal.SIGTERM, signal.SIGINT):
            uf = Udpfan(tb, config(tb, kind, extra="control: { drain_s: 30 }"), wd,
                        name="u-%s" % second.name)
            h = Health()
            send(tb, 500, 2000)
            t0 = time.monotonic()
            uf.proc.send_signal(signal.SIGTERM)
            wait_draining(uf, h, t0, 1.0)
            h.close()
            assert uf.proc.poll() is None, "the first SIGTERM stopped udpfan"
            uf.proc.send_signal(second)
            try:
                uf.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                uf.proc.kill()
                raise AssertionError("%s during the drain did not stop udpfan" % second.name)
            dt = time.monotonic() - t0
            st = uf.stop()
            print("SIGTERM, then %s: exited %.2f s after the first (drain_s 30)" %
                  (second.name, dt))
            assert dt < 5, dt
            assert st["fwd"]["forwarded"] == 500, st["fwd"]
            if second == signal.SIGTERM:
                assert "SIGTERM again: stopping now" in uf.logtext(), uf.logtext()[-2000:]


def main():
    s = Suite(root=True)
    for kind in ("af_xdp", "af_packet"):
        s.run(case_sighup_under_traffic, kind)
    for kind in ("af_xdp", "af_packet"):
        s.run(case_early_sigterm, kind)
    s.run(case_sigkill_leftovers)
    for kind in ("af_xdp", "af_packet"):
        s.run(case_clean_stop_leaves_nothing, kind)
    s.run(case_drain, "af_packet")
    s.run(case_drain_stops_at_once, "af_packet")
    s.finish()


if __name__ == "__main__":
    main()
