#!/usr/bin/env python3
"""e2e: signals and leftovers (issue 13, item 5; docs/deployment.md "Signals" and "What a dead
instance leaves"). SIGHUP under traffic neither kills nor disturbs (logged, every datagram
still arrives, exit 0 with a final object on SIGTERM later); SIGTERM 0.1 s after start, while
EAL and the ports are still coming up, is a clean stop (exit 0, one final object, no XDP
program left); after SIGKILL the next start proves the dead instance dead and reclaims its
XDP program, EAL runtime directory and hugepage files, with a log line for each, and
forwards. A clean stop (SIGTERM, or --duration) leaves no hugepage file and no runtime
directory behind."""
import os
import signal
import subprocess
import time

from testbed import Testbed
from uflive import Sink, Udpfan, send
from ufown import hugefiles, run_in_fwd, write, xdp_prog
from ufrun import UDPFAN, Suite, final, ledger, read_stats, tmpdir
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


def main():
    s = Suite(root=True)
    for kind in ("af_xdp", "af_packet"):
        s.run(case_sighup_under_traffic, kind)
    for kind in ("af_xdp", "af_packet"):
        s.run(case_early_sigterm, kind)
    s.run(case_sigkill_leftovers)
    for kind in ("af_xdp", "af_packet"):
        s.run(case_clean_stop_leaves_nothing, kind)
    s.finish()


if __name__ == "__main__":
    main()
