#!/usr/bin/env python3
"""e2e: udpfanctl (scripts/udpfanctl.py, docs/deployment.md#udpfanctl) against a live udpfan.

commands: every subcommand, human and --json, against the stats JSON and the telemetry of
  the same instance (destinations' tx_ok equal, ports' ipackets equal, ...); counters --watch
  --count 2 gives rates while a sender runs; --instance NAME reads NAME.yaml's file_prefix;
  without --prefix the one udpfan is found; a prefix nobody runs is exit 3 with the socket
  looked for and how to start udpfan; as uid 65534, exit 3 naming the socket, the directory's
  owner and mode, and root as the fix.
drain_reload: reload applies a changed file (exit 0, one more destination), refuses a port
  change (exit 1); health exits 0 when ready, 1 once SIGTERM starts control.drain_s.
unit_layout: under udpfan@.service's RuntimeDirectory (EAL's runtime dir in
  /run/udpfan/dpdk/PREFIX), udpfanctl --prefix finds the socket, and so does
  `RUNTIME_DIRECTORY=/run/udpfan dpdk-telemetry.py -f PREFIX` (/udpfan/stats), and
  `dpdk-proc-info --file-prefix PREFIX --no-pci -- --stats` attaches as a secondary.
paging_stale: 30 destinations (net_null, no hugepages), more than one telemetry answer
  holds: destinations, neighbors and counters list all 30; after SIGKILL, exit 3 naming the
  stale socket."""
import json
import os
import shutil
import signal
import subprocess
import time

from testbed import FWD_IP, Testbed, wait_for
from uflive import PY, Udpfan, dest_lines, send
from ufrun import UDPFAN, UF_SRC, Suite, tmpdir

PREFIX = "ufctl"
CTL = os.path.join(UF_SRC, "scripts", "udpfanctl.py")
sys_path = os.path.join(UF_SRC, "scripts")


def ctl(*args, user=None, check=None, timeout=30, env=None):
    """run udpfanctl; returns (rc, stdout, stderr); user: a uid to run as (setpriv)"""
    argv = [PY, CTL] + list(args)
    if user is not None:
        argv = ["setpriv", "--reuid", str(user), "--regid", str(user), "--clear-groups"] + argv
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout, env=env)
    if check is not None:
        assert r.returncode == check, (args, r.returncode, r.stdout, r.stderr)
    return r.returncode, r.stdout, r.stderr


def ctl_json(*args, check=0):
    _, out, _ = ctl(*(("--prefix", PREFIX, "--json") + args), check=check)
    return json.loads(out)


def telemetry(cmd, prefix=PREFIX):
    import sys
    sys.path.insert(0, sys_path)
    from udpfan_telemetry import Telemetry, locate
    return Telemetry(locate(prefix)).query(cmd)


def config(tb, kind, extra=""):
    return """eal: { lcores: "0-1", file_prefix: %s }
ports:
  - { name: lan, device: "%s", ip: %s/24 }
listen: { port: lan, udp_port: 5000 }
destinations:
%s
  - { ip: 198.18.0.99, udp_port: 6000 }
stats: { interval_s: 0.5 }
arp: { retry_ms: 50, max_probes: 2 }
%s""" % (PREFIX, tb.vdev(kind), FWD_IP, dest_lines(tb), extra)


def rows(text):
    """a table's rows (header first) as lists of cells"""
    return [line.split() for line in text.splitlines() if line.strip()]


def case_commands():
    wd = tmpdir()
    count, rate = 1500, 1000
    with Testbed(prefix="ufc", sinks=2) as tb:
        uf = Udpfan(tb, config(tb, "af_packet"), wd)
        assert uf.wait_stats(lambda s: s["destinations"][2]["state"] == "failed", 10), \
            uf.latest()
        send(tb, count, rate, size=32)
        # what af_packet took (a loaded host's ring may drop some): quiet for two intervals,
        # so telemetry and the file agree
        last = {}

        def quiet(st):
            n, t = st["fwd"]["forwarded"], st["time"]
            if last.get("n") != n:
                last.update(n=n, t=t)
            return n > 0 and t - last["t"] >= 0.9

        assert uf.wait_stats(quiet, 10), uf.latest()
        time.sleep(1.2)
        st = uf.latest()
        count = st["fwd"]["forwarded"]
        assert count > 1000, st["fwd"]
        tel = telemetry("/udpfan/stats")

        # stats: the telemetry object; the human form names the state and the totals
        js = ctl_json("stats")
        # (control frames and stray IPv6 ones go on arriving: rx, control, drop may move)
        for k in ("forwarded", "fanout", "copies_attempted", "tx_ok", "tx_drop"):
            assert js["fwd"][k] == tel["fwd"][k] == st["fwd"][k], (k, js["fwd"], st["fwd"])
        _, out, _ = ctl("--prefix", PREFIX, "stats", check=0)
        assert "ready" in out.splitlines()[0] and PREFIX in out.splitlines()[0], out
        assert ["forwarded", str(count)] in rows(out), out
        assert ["tx_drop.no_neighbor", str(st["fwd"]["tx_drop"]["no_neighbor"])] in rows(out)

        # ports: /udpfan/ports (stray frames, IPv6 ones from the kernels, may arrive: each
        # count lies between the telemetry's before and after)
        before = telemetry("/udpfan/ports")["lan"]
        jp = ctl_json("ports")
        _, out, _ = ctl("--prefix", PREFIX, "ports", check=0)
        after = telemetry("/udpfan/ports")["lan"]
        assert jp["lan"]["driver"] == before["driver"] == "net_af_packet", jp
        assert count <= before["ipackets"] <= jp["lan"]["ipackets"] <= after["ipackets"], jp
        assert before["opackets"] <= jp["lan"]["opackets"] <= after["opackets"], jp
        r = rows(out)
        assert r[0][:5] == ["port", "driver", "link", "ipackets", "opackets"], r
        assert r[1][:3] == ["lan", "net_af_packet", "up"], r
        assert before["ipackets"] <= int(r[1][3]) <= after["ipackets"], (r, after)

        # destinations: every one, tx counts equal to the stats file's
        jd = ctl_json("destinations")
        assert jd["count"] == 3, jd
        for i, d in enumerate(st["destinations"]):
            got = jd["destinations"][str(i)]
            for k in ("ip", "udp_port", "state", "tx_ok", "tx_drop", "no_neighbor"):
                assert got[k] == d[k], (i, k, got, d)
        assert jd["destinations"]["0"]["tx_ok"] == count
        _, out, _ = ctl("--prefix", PREFIX, "destinations", check=0)
        r = rows(out)
        assert r[0][:5] == ["#", "destination", "port", "state", "tx_ok"], r
        assert r[1][:5] == ["0", "%s:6000" % tb.sink_ip[0], "lan", "reachable", str(count)], r
        assert r[3][:4] == ["2", "198.18.0.99:6000", "lan", "failed"], r

        # neighbors: next hop, MAC, state as /udpfan/neighbors
        jn = ctl_json("neighbors")
        tn = telemetry("/udpfan/neighbors")
        for i in range(3):
            for k in ("next_hop", "mac", "state"):
                assert jn["destinations"][str(i)][k] == tn["destinations"][str(i)][k], (i, k)
        _, out, _ = ctl("--prefix", PREFIX, "neighbors", check=0)
        assert [x for x in rows(out) if x[0] == "1"][0][3:] == [tb.sink_ip[1], tb.sink_mac[1],
                                                                "reachable"], out

        # health: ready, not degraded (two of the three resolve): exit 0
        jh = ctl_json("health")
        assert jh["state"] == "ready" and jh["degraded"] == 0, jh
        rc, out, _ = ctl("--prefix", PREFIX, "health")
        assert rc == 0 and out.strip() == "ready", (rc, out)

        # counters: cumulative per port, listener, destination
        jc = ctl_json("counters")
        assert jc["counters"]["destinations"]["0 %s:6000" % tb.sink_ip[0]]["tx_ok"] == count
        assert jc["counters"]["ports"]["lan"]["ipackets"] >= after["ipackets"], jc

        # counters --watch --count 2: rates while 1,000 datagrams/s arrive
        sender = send(tb, rate * 4, rate, size=32, wait=False)
        time.sleep(1)
        t0 = time.monotonic()
        _, out, _ = ctl("--prefix", PREFIX, "--json", "counters", "--watch", "--count", "2",
                        "--interval", "0.5", check=0)
        took = time.monotonic() - t0
        w = [json.loads(x) for x in out.splitlines()]
        assert len(w) == 2 and took < 4, (out, took)
        for x in w:
            r0 = x["rates"]["destinations"]["0 %s:6000" % tb.sink_ip[0]]["tx_ok"]
            assert 0.3 * rate < r0 < 1.5 * rate, x
            assert 0.3 * rate < x["rates"]["listeners"]["listen (%s:5000)" % FWD_IP]["rx"]
            assert 0.4 < x["interval_s"] < 0.8, x
        _, out, _ = ctl("--prefix", PREFIX, "counters", "--watch", "-n", "1", check=0)
        assert "rates over" in out and "tx_ok/s" in out, out

        # --instance NAME: NAME.yaml's eal.file_prefix; no name at all: the one running
        confdir = os.path.join(wd, "etc")
        os.mkdir(confdir)
        shutil.copy(uf.cfg, os.path.join(confdir, "edge.yaml"))
        ctl("--instance", "edge", "--confdir", confdir, "health", check=0)
        rc, out, err = ctl("health")
        assert rc == 0 or "udpfan processes are running" in err, (rc, out, err)
        rc, _, err = ctl("--instance", "nosuch", "--confdir", confdir, "health")
        assert rc == 3 and "nosuch.yaml" in err, (rc, err)

        # permission: as nobody, the socket, who owns what blocks it, and the fix
        rc, out, err = ctl("--prefix", PREFIX, "health", user=65534)
        assert rc == 3 and out == "", (rc, out, err)
        assert "permission denied" in err and "/%s/dpdk_telemetry.v2" % PREFIX in err, err
        assert "owned by root" in err and "mode 0700" in err and "as root" in err, err
        rc, _, err = ctl("stats", user=65534)
        assert rc == 3 and "permission denied" in err, (rc, err)
        sender.communicate(timeout=60)
        uf.stop()

    # not running: the prefix, the socket looked for, how to start it
    rc, out, err = ctl("--prefix", "ufctl_none", "destinations")
    assert rc == 3 and out == "", (rc, out, err)
    assert '"ufctl_none"' in err and "/ufctl_none/dpdk_telemetry.v2" in err, err
    assert "systemctl start udpfan@" in err and "udpfan -c FILE" in err, err


def case_drain_reload():
    wd = tmpdir()
    with Testbed(prefix="ufc", sinks=3) as tb:
        cfg2 = config(tb, "af_packet", "control: { drain_s: 4 }\n")
        uf = Udpfan(tb, cfg2.replace("  - { ip: %s," % tb.sink_ip[2], "#"), wd)
        assert ctl_json("destinations")["count"] == 3
        # a changed file: one more destination; reload applies it
        with open(uf.cfg, "w") as f:
            f.write(cfg2)
        rc, out, err = ctl("--prefix", PREFIX, "reload")
        assert rc == 0 and out.startswith("reload: applied, generation 1"), (rc, out, err)
        # (/udpfan/neighbors serves the last stats interval's snapshot)
        assert wait_for(lambda: ctl_json("destinations")["count"] == 4, 2)
        # a port change needs a restart: refused, exit 1, the running config stays
        with open(uf.cfg, "w") as f:
            f.write(cfg2.replace("ip: %s/24 }" % FWD_IP, "ip: %s/24, mtu: 1400 }" % FWD_IP))
        rc, out, _ = ctl("--prefix", PREFIX, "--json", "reload")
        ans = json.loads(out)
        assert rc == 1 and ans["result"] == "refused" and "mtu" in ans["reason"], (rc, ans)
        assert ctl_json("destinations")["count"] == 4
        # health: 0 while ready; 1 as soon as SIGTERM starts the drain
        assert ctl("--prefix", PREFIX, "health")[0] == 0
        uf.proc.send_signal(signal.SIGTERM)
        assert wait_for(lambda: ctl("--prefix", PREFIX, "health")[0] == 1, 2)
        rc, out, _ = ctl("--prefix", PREFIX, "health")
        assert rc == 1 and out.startswith("draining") and "stopping in" in out, (rc, out)
        assert ctl_json("health", check=1)["state"] == "draining"
        uf.stop()


def case_unit_layout():
    """EAL's runtime dir as udpfan@.service makes it: $RUNTIME_DIRECTORY/dpdk/PREFIX"""
    wd = tmpdir()
    rundir = "/run/udpfan/dpdk/" + PREFIX
    with Testbed(prefix="ufc", sinks=1) as tb:
        uf = Udpfan(tb, config(tb, "af_packet"), wd, wrap="env RUNTIME_DIRECTORY=/run/udpfan")
        try:
            assert os.path.exists(rundir + "/dpdk_telemetry.v2"), os.listdir("/run/udpfan")
            time.sleep(1.2)
            js = ctl_json("stats")
            _, out, _ = ctl("--prefix", PREFIX, "stats", check=0)
            assert rundir in out.splitlines()[0], out
            # Debian's client, as docs/deployment.md says to run it
            env = dict(os.environ, RUNTIME_DIRECTORY="/run/udpfan")
            r = subprocess.run(["dpdk-telemetry.py", "-f", PREFIX], input="/udpfan/stats\n",
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=20, env=env)
            dec, text, got = json.JSONDecoder(), r.stdout, None
            i = text.find('{"/udpfan/stats"')
            assert i >= 0, text[-2000:]
            got = dec.raw_decode(text, i)[0]["/udpfan/stats"]
            assert got["ports"]["lan"]["driver"] == js["ports"]["lan"]["driver"], got
            assert got["destinations"]["0"]["ip"] == tb.sink_ip[0], got
            # dpdk-proc-info attaches as a secondary process (hugepages, not in_memory)
            r = subprocess.run(["dpdk-proc-info", "--file-prefix", PREFIX, "--no-pci", "--",
                                "--stats"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, timeout=30, env=env)
            assert r.returncode == 0 and "NIC statistics for port 0" in r.stdout, r.stdout
            assert "RX-packets:" in r.stdout, r.stdout
        finally:
            uf.stop()


def case_paging_stale():
    """30 destinations (telemetry answers 24 at a time): destinations, neighbors and counters
    page through them all; udpfan killed by SIGKILL leaves a stale socket: exit 3 saying so"""
    wd = tmpdir()
    prefix = "ufctl_page"
    dests = "\n".join('  - { ip: 198.18.0.%d, udp_port: %d, mac: "02:18:00:00:00:%02x" }'
                      % (21 + i % 3, 6000 + i, 0x21 + i % 3) for i in range(30))
    cfg = os.path.join(wd, "udpfan.yaml")
    with open(cfg, "w") as f:
        f.write("""eal: { lcores: "0-1", no_huge: true, memory_mb: 256, file_prefix: %s }
ports:
  - { name: wan, device: "net_null0,no-rx=1", ip: 198.18.0.10/24 }
listen: { port: wan, udp_port: 5000 }
destinations:
%s
stats: { interval_s: 0.5 }
""" % (prefix, dests))
    p = subprocess.Popen([UDPFAN, "-c", cfg, "--duration", "30"], stdout=subprocess.DEVNULL,
                         stderr=open(os.path.join(wd, "log"), "w"))
    try:
        assert wait_for(lambda: ctl("-f", prefix, "stats")[0] == 0, 15), \
            open(os.path.join(wd, "log")).read()[-2000:]
        _, out, _ = ctl("-f", prefix, "--json", "destinations", check=0)
        d = json.loads(out)
        assert d["count"] == 30 and sorted(d["destinations"], key=int) == \
            [str(i) for i in range(30)], d
        assert d["destinations"]["29"]["udp_port"] == 6029, d["destinations"]["29"]
        _, out, _ = ctl("-f", prefix, "neighbors", check=0)
        assert len(rows(out)) == 31 and rows(out)[30][:2] == ["29", "198.18.0.23:6029"], out
        _, out, _ = ctl("-f", prefix, "--json", "counters", check=0)
        assert len(json.loads(out)["counters"]["destinations"]) == 30, out
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=10)
        rc, out, err = ctl("-f", prefix, "health")
        assert rc == 3 and "stale socket" in err and prefix in err, (rc, out, err)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        # what the killed one left (no hugepage files: no_huge)
        shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)


def main():
    s = Suite(root=True)
    s.run(case_commands)
    s.run(case_drain_reload)
    s.run(case_unit_layout)
    s.run(case_paging_stale)
    s.finish()


if __name__ == "__main__":
    main()
