#!/usr/bin/env python3
"""e2e: health checks answered on udpfan's own port (docs/deployment.md#health-checks-on-the-port).

curl_drain: curl from the sender's namespace gets 200 from http://198.18.0.10:8080/healthz
and from http://[2001:db8:18::10]:8080/healthz (curl -6) while udpfan is ready, 404 for
another path; after SIGTERM with control.drain_s, 503 (body `draining`) on both families
while udpfan still runs; udpfan then exits 0 with a balanced ledger in which nothing was
forwarded or dropped as not_udp: every segment is in one healthcheck counter, with no RST,
bad cookie, malformed or rate-limited one.

haproxy_drain: Debian's haproxy in the sender's namespace, with a temp config: a backend
with `option tcp-check` and two with `option httpchk GET /healthz` (IPv4 and IPv6), checks
every 300 ms. Its stats socket (`show stat`) shows the three servers UP; after SIGTERM with
control.drain_s, the HTTP ones DOWN within a few checks while the TCP one stays UP (the port
still answers during the drain)."""
import os
import shutil
import signal
import subprocess
import time

import ufhealth
from testbed import FWD_IP, FWD_IP6, Testbed, wait_for
from ufhealth import haproxy_config, show_stat
from ufrun import Suite, tmpdir
from uflive import Udpfan, dest_lines

PORT = 8080


def config(tb, kind, drain):
    return """eal: { lcores: "0-1", file_prefix: ufe2e }
ports:
  - { name: lan, device: "%s", ip: %s/24, ip6: ["%s/64"] }
listen: { port: lan, udp_port: 5000 }
destinations:
%s
stats: { interval_s: 0.5 }
control: { drain_s: %d }
health: { tcp_port: %d, http_path: /healthz }
""" % (tb.vdev(kind), FWD_IP, FWD_IP6, dest_lines(tb, static=True), drain, PORT)


def curl(tb, url, v6=False):
    return ufhealth.curl(tb.ns_src, url, v6)


def url(ip6=False, path="/healthz"):
    return ufhealth.url(FWD_IP6 if ip6 else FWD_IP, PORT, path)


def case_curl_drain(kind):
    drain = 4
    wd = tmpdir()
    with Testbed(prefix="ufe", sinks=1, ipv6=True) as tb:
        uf = Udpfan(tb, config(tb, kind, drain), wd)
        assert uf.wait_stats(lambda s: s["health"]["state"] == "ready" and
                             not s["health"]["degraded"], 10), uf.latest()["health"]
        got = [curl(tb, url()), curl(tb, url(ip6=True), v6=True),
               curl(tb, url(path="/other"))]
        assert got == [(200, "ready"), (200, "ready"), (404, "not found")], got
        t0 = time.monotonic()
        uf.proc.send_signal(signal.SIGTERM)
        assert uf.wait_stats(lambda s: s["health"]["state"] == "draining", 2), uf.latest()
        late = [curl(tb, url()), curl(tb, url(ip6=True), v6=True)]
        dt = time.monotonic() - t0
        assert late == [(503, "draining"), (503, "draining")], late
        assert dt < drain and uf.proc.poll() is None, "answered %.2f s after SIGTERM" % dt
        # the drain ends by itself (uf.stop()'s SIGTERM would stop it at once, before the
        # last curl's FIN is in)
        uf.proc.wait(timeout=drain + 10)
        st = uf.stop()  # exit 0, the final object, a balanced ledger
    hc, f = st["healthcheck"], st["fwd"]
    print("healthcheck %r; fwd.control %d" % (hc, f["control"]))
    assert hc["syn"] == 5 and hc["http_200"] == 2 and hc["http_503"] == 2, hc
    assert hc["http_other"] == 1, hc
    assert hc["fin"] == 5, hc  # each curl closes after our response and FIN
    for k in ("bad_cookie", "rst_sent", "malformed", "rate_limited"):
        assert hc[k] == 0, hc
    # nothing forwarded; no TCP lost to not_udp: each segment is in one healthcheck counter
    assert f["forwarded"] == 0 and f["tx_ok"] == 0, f
    assert f["drop"]["not_udp"] == 0, f["drop"]
    assert f["control"] >= sum(hc.values()), (f["control"], hc)


def case_haproxy_drain(kind):
    if shutil.which("haproxy") is None:
        raise AssertionError("haproxy is missing (scripts/setup.sh deps)")
    drain = 6
    wd = tmpdir()
    sock = os.path.join(wd, "haproxy.sock")
    cfg = os.path.join(wd, "haproxy.cfg")
    with open(cfg, "w") as fh:
        fh.write(haproxy_config(sock, [("tcp", "tcp", [("fan", FWD_IP, PORT)]),
                                       ("http", "http", [("fan", FWD_IP, PORT)]),
                                       ("http6", "http", [("fan", FWD_IP6, PORT)])]))
    with Testbed(prefix="ufe", sinks=1, ipv6=True) as tb:
        uf = Udpfan(tb, config(tb, kind, drain), wd)
        assert uf.wait_stats(lambda s: s["health"]["state"] == "ready" and
                             not s["health"]["degraded"], 10), uf.latest()["health"]
        hap = tb.popen(tb.ns_src, ["haproxy", "-db", "-f", cfg], stdout=subprocess.DEVNULL,
                       stderr=open(os.path.join(wd, "haproxy.log"), "w"))
        try:
            up = {"tcp/fan": "UP", "http/fan": "UP", "http6/fan": "UP"}
            assert wait_for(lambda: os.path.exists(sock) and show_stat(sock) == up, 10), \
                show_stat(sock) if os.path.exists(sock) else "no stats socket"
            t0 = time.monotonic()
            uf.proc.send_signal(signal.SIGTERM)
            want = {"tcp/fan": "UP", "http/fan": "DOWN", "http6/fan": "DOWN"}
            ok = wait_for(lambda: show_stat(sock) == want, drain - 1)
            dt = time.monotonic() - t0
            seen = show_stat(sock)
            assert ok and uf.proc.poll() is None, "%.2f s after SIGTERM: %r" % (dt, seen)
        finally:
            hap.kill()
            hap.wait()
        st = uf.stop()
    hc, f = st["healthcheck"], st["fwd"]
    print("HTTP checks DOWN %.2f s after SIGTERM; healthcheck %r" % (dt, hc))
    assert hc["http_200"] > 0 and hc["http_503"] >= 4, hc  # fall 2, both families
    assert hc["syn"] > 0 and hc["bad_cookie"] == 0 and hc["malformed"] == 0, hc
    assert f["forwarded"] == 0 and f["drop"]["not_udp"] == 0, f


def main():
    s = Suite(root=True)
    s.run(case_curl_drain, "af_packet")
    s.run(case_haproxy_drain, "af_packet")
    s.finish()


if __name__ == "__main__":
    main()
