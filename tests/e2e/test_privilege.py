#!/usr/bin/env python3
"""e2e: least privilege (docs/deployment.md "Least privilege"). udpfan as
uid 65534 with exactly the capabilities docs/deployment.md lists for the PMD (and
eal.in_memory, since the hugetlbfs mount is root's) forwards every datagram on
net_af_packet and net_af_xdp; with any one of them taken away it refuses before EAL, exit 3,
naming the capability it lacks."""
import os

from testbed import Testbed
from uflive import Sink, Udpfan, send
from ufown import run_in_fwd, write
from ufrun import Suite, tmpdir
from test_forward import config

# docs/deployment.md, "Least privilege"
CAPS = {
    "af_packet": ["net_raw", "net_admin"],
    "af_xdp": ["net_raw", "net_admin", "sys_admin", "ipc_lock"],
}
COUNT = 2000


def setpriv(caps):
    c = ",".join("+" + x for x in caps)
    return ("setpriv --reuid 65534 --regid 65534 --clear-groups --inh-caps -all%s "
            "--ambient-caps -all%s --bounding-set -all%s" % (("," + c) if c else "",
                                                            ("," + c) if c else "",
                                                            ("," + c) if c else ""))


def nonroot_config(tb, kind):
    return config(tb, kind).replace("file_prefix: ufe2e }",
                                    "file_prefix: ufe2enr, in_memory: true }")


def workdir():
    wd = tmpdir()
    os.chmod(wd, 0o777)  # the unprivileged udpfan writes its stats here
    return wd


def case_exact_caps_forward(kind):
    wd = workdir()
    with Testbed(prefix="ufe", sinks=3) as tb:
        tb.static_neighbours()
        sinks = [Sink(tb, ns, [6000], wd) for ns in tb.sink_ns]
        uf = Udpfan(tb, nonroot_config(tb, kind), wd, wrap=setpriv(CAPS[kind]))
        os.chmod(uf.cfg, 0o644)
        pid = uf.proc.pid
        with open("/proc/%d/status" % pid) as f:
            uid = [ln.split()[1] for ln in f if ln.startswith("Uid:")][0]
        assert uid == "65534", "udpfan runs as uid %s" % uid
        sent = send(tb, COUNT, 2000)
        assert sent["sent"] == COUNT
        res = [s.result()["6000"] for s in sinks]
        st = uf.stop()
    assert st["fwd"]["forwarded"] == COUNT, st["fwd"]
    for r in res:
        assert r["received"] == COUNT and r["distinct"] == COUNT, r


def case_one_cap_less(kind):
    wd = workdir()
    with Testbed(prefix="ufe", sinks=1) as tb:
        cfg = write(os.path.join(wd, "u.yaml"), nonroot_config(tb, kind))
        for drop in CAPS[kind]:
            caps = [c for c in CAPS[kind] if c != drop]
            rc, err = run_in_fwd(tb, cfg, wrap=setpriv(caps), extra="--duration 1")
            assert rc == 3, "without %s: exit %d\n%s" % (drop, rc, err[-2000:])
            assert "needs CAP_%s," % drop.upper() in err, "without %s:\n%s" % (drop,
                                                                              err[-2000:])
            assert "EAL:" not in err, err[-2000:]


def main():
    s = Suite(root=True)
    for kind in ("af_packet", "af_xdp"):
        s.run(case_exact_caps_forward, kind)
    for kind in ("af_packet", "af_xdp"):
        s.run(case_one_cap_less, kind)
    s.finish()


if __name__ == "__main__":
    main()
