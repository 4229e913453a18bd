#!/usr/bin/env python3
"""e2e: one udpfan per interface (docs/deployment.md "One instance per
interface"). A second udpfan on the interface a first one forwards on, with another
file_prefix, is refused before EAL (exit 3, the owner named) on net_af_xdp and
net_af_packet, and the first loses nothing: every sink receives every datagram sent
throughout, and on af_xdp its XDP program stays. A packet socket another program put in a
fanout group on the interface, or an XDP program udpfan did not load, is refused too. An
unprivileged user cannot plant a lock in /run/udpfan/lock (root's, 0755), and one planted
while the directory was world-writable (as earlier releases made it) is refused, not
trusted: its xdp_prog line does not get someone else's XDP program detached."""
import os
import subprocess
import time

from testbed import Testbed, wait_for
from uflive import PY, Sink, Udpfan, send
from ufown import run_in_fwd, write, xdp_prog
from ufrun import Suite, tmpdir
from test_forward import config

COUNT = 6000
RATE = 2000


def case_second_refused(kind):
    wd = tmpdir()
    with Testbed(prefix="ufe", sinks=3) as tb:
        tb.static_neighbours()
        sinks = [Sink(tb, ns, [6000], wd) for ns in tb.sink_ns]
        uf = Udpfan(tb, config(tb, kind), wd)
        prog = xdp_prog(tb)
        if kind == "af_xdp":
            assert prog != 0, "the first instance has no XDP program"
        sender = send(tb, COUNT, RATE, wait=False)
        time.sleep(0.5)
        second = write(os.path.join(wd, "second.yaml"),
                       config(tb, kind).replace("file_prefix: ufe2e", "file_prefix: ufe2e2"))
        rc, err = run_in_fwd(tb, second, extra="--duration 2")
        assert rc == 3, "second instance exited %d:\n%s" % (rc, err[-2000:])
        assert "in use by another udpfan (pid %d" % uf.proc.pid in err, err[-2000:]
        assert "interface fwd0" in err and "EAL:" not in err, err[-2000:]
        assert xdp_prog(tb) == prog, "the first one's XDP program changed"
        sender.communicate(timeout=60)
        res = [s.result()["6000"] for s in sinks]
        st = uf.stop()
    assert st["fwd"]["forwarded"] == COUNT, st["fwd"]
    for r in res:
        assert r["received"] == COUNT and r["distinct"] == COUNT, r


def packet_holder(tb, ready, fanout):
    """a packet socket bound to fwd0 in another process, in a fanout group or (a tap like
    tcpdump's) not"""
    prog = ("import socket,sys,time\n"
            "s=socket.socket(socket.AF_PACKET,socket.SOCK_RAW,socket.htons(3))\n"
            "s.bind(('fwd0',0))\n"
            "%s\n"
            "open(sys.argv[1],'w').close()\n"
            "time.sleep(30)\n") % ("s.setsockopt(263,18,0x4242)" if fanout else "")
    return tb.popen(tb.ns_fwd, [PY, "-c", prog, ready])


def case_tap_socket_allowed():
    """a plain packet socket on the interface (tcpdump's kind) is no owner: udpfan starts"""
    wd = tmpdir()
    ready = os.path.join(wd, "ready")
    with Testbed(prefix="ufe", sinks=1) as tb:
        holder = packet_holder(tb, ready, fanout=False)
        try:
            assert wait_for(lambda: os.path.exists(ready), 10), "tap did not start"
            cfg = write(os.path.join(wd, "u.yaml"), config(tb, "af_packet"))
            rc, err = run_in_fwd(tb, cfg, extra="--duration 1")
            assert rc == 0, "exited %d:\n%s" % (rc, err[-2000:])
        finally:
            holder.kill()
            holder.wait()


def case_foreign_fanout_socket():
    """another program's packet socket in a fanout group on the interface: af_packet refused
    with the socket's pid, and the socket keeps its interface"""
    wd = tmpdir()
    ready = os.path.join(wd, "ready")
    with Testbed(prefix="ufe", sinks=1) as tb:
        holder = packet_holder(tb, ready, fanout=True)
        try:
            assert wait_for(lambda: os.path.exists(ready), 10), "fanout holder did not start"
            cfg = write(os.path.join(wd, "u.yaml"), config(tb, "af_packet"))
            rc, err = run_in_fwd(tb, cfg, extra="--duration 1")
            assert rc == 3, "exited %d:\n%s" % (rc, err[-2000:])
            assert "packet socket" in err and "pid %d" % holder.pid in err, err[-2000:]
            assert "EAL:" not in err, err[-2000:]
        finally:
            holder.kill()
            holder.wait()


def case_foreign_xdp_program():
    """an XDP program udpfan did not load (here: one whose owner died without a record of
    it, as ip link would leave one) is refused with the command that removes it, and left
    where it is"""
    wd = tmpdir()
    with Testbed(prefix="ufe", sinks=1) as tb:
        uf = Udpfan(tb, config(tb, "af_xdp"), wd)
        prog = xdp_prog(tb)
        uf.proc.kill()
        uf.proc.wait()
        # forget that it was udpfan's: the lock's record is what proves it
        ino = tb.nsx(tb.ns_fwd, "stat -L -c %i /proc/self/ns/net", capture=True).strip()
        idx = tb.nsx(tb.ns_fwd, "cat /sys/class/net/fwd0/ifindex", capture=True).strip()
        lock = "/run/udpfan/lock/netns%s-if%s" % (ino, idx)
        assert os.path.exists(lock), lock
        write(lock, "pid=1\nxdp_prog=0\n")
        cfg = write(os.path.join(wd, "u.yaml"), config(tb, "af_xdp"))
        rc, err = run_in_fwd(tb, cfg, extra="--duration 1")
        assert rc == 3, "exited %d:\n%s" % (rc, err[-2000:])
        assert "XDP program (id %d) that this udpfan did not load" % prog in err, err[-2000:]
        assert "ip link set dev fwd0 xdp" in err, err[-2000:]
        assert xdp_prog(tb) == prog, "a refused instance touched the XDP program"
        tb.nsx(tb.ns_fwd, "ip link set dev fwd0 xdp off", check=False)


def as_nobody(cmd):
    """cmd under sh as uid/gid 65534 (no capabilities): its exit status"""
    return subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                           "--inh-caps=-all", "sh", "-c", cmd],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode


def case_planted_lock():
    """another user's lock file, naming the XDP program on the interface: refused (exit 3,
    its owner and the fix named), the program left where it is, the lock directory 0755"""
    wd = tmpdir()
    with Testbed(prefix="ufe", sinks=1) as tb:
        uf = Udpfan(tb, config(tb, "af_xdp"), wd)
        prog = xdp_prog(tb)
        uf.proc.kill()
        uf.proc.wait()
        assert prog != 0, "no XDP program to protect"
        ino = tb.nsx(tb.ns_fwd, "stat -L -c %i /proc/self/ns/net", capture=True).strip()
        idx = tb.nsx(tb.ns_fwd, "cat /sys/class/net/fwd0/ifindex", capture=True).strip()
        d = "/run/udpfan/lock"
        lock = "%s/netns%s-if%s" % (d, ino, idx)
        st = os.stat(d)
        assert st.st_uid == 0 and st.st_mode & 0o7777 == 0o755, oct(st.st_mode)
        # the directory as root keeps it: nobody cannot add a lock
        os.unlink(lock)
        assert as_nobody("echo pid=1 > %s" % lock) != 0, "nobody created a lock"
        assert not os.path.exists(lock)
        # the directory as earlier releases made it: nobody plants a record naming the
        # program, as if a dead udpfan had loaded it
        os.chmod(d, 0o1777)
        try:
            assert as_nobody("printf 'pid=1\\nxdp_prog=%d\\n' > %s" % (prog, lock)) == 0
            assert os.stat(lock).st_uid == 65534
            cfg = write(os.path.join(wd, "u.yaml"), config(tb, "af_xdp"))
            rc, err = run_in_fwd(tb, cfg, extra="--duration 1")
            assert rc == 3, "exited %d:\n%s" % (rc, err[-2000:])
            assert "%s for interface fwd0 is not to be trusted (uid 65534" % lock in err, \
                err[-2000:]
            assert "was writable by other users (mode 1777): now 0755" in err, err[-2000:]
            assert "reclaimed" not in err and "EAL:" not in err, err[-2000:]
            assert xdp_prog(tb) == prog, "a planted lock got the XDP program detached"
            with open(lock) as f:
                assert f.read() == "pid=1\nxdp_prog=%d\n" % prog, "the planted lock changed"
        finally:
            # never leave the planted lock to the next test (or another udpfan)
            os.chmod(d, 0o755)
            if os.path.exists(lock) and os.stat(lock).st_uid == 65534:
                os.unlink(lock)
        tb.nsx(tb.ns_fwd, "ip link set dev fwd0 xdp off", check=False)


def main():
    s = Suite(root=True)
    for kind in ("af_xdp", "af_packet"):
        s.run(case_second_refused, kind)
    s.run(case_foreign_fanout_socket)
    s.run(case_tap_socket_allowed)
    s.run(case_foreign_xdp_program)
    s.run(case_planted_lock)
    s.finish()


if __name__ == "__main__":
    main()
