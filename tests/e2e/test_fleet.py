#!/usr/bin/env python3
"""e2e fleet: two udpfan hosts behind a router that spreads a service address over them by
BGP and ECMP (docs/scale-out.md#ecmp-and-bgp-measured, deploy/bgp/; the bed:
tests/lib/fleet.py). The router is FRR (zebra, bgpd, bfdd) with maximum-paths and the L4
multipath hash; each host announces the service address with ExaBGP and exabgp-healthcheck
running scripts/udpfan-health, from the deploy/bgp/ templates.

  spread      both hosts carry traffic; every datagram reaches both collector ports exactly
              once; the fleet's ledger (the sum over the hosts) = what the exporters sent =
              what the collectors received
  drain       SIGTERM on one host (control.drain_s longer than the withdraw): the route is
              withdrawn, the senders move to the other host, 0 datagrams lost end to end
  spread_af_xdp_ipv6, drain_af_xdp_ipv6
              the same two with an IPv6 service address (2001:db8:100::100, IPv6 senders):
              the speakers announce it as BGP IPv6 unicast, the router's IPv6 ECMP route
              spreads it; drain loses nothing
  health      udpfan's port health responder on both hosts: curl and HAProxy (tcp-check and
              httpchk backends, a server per host's port address) in the router's namespace
              see 200 / UP while the traffic runs; SIGTERM on host 1: its HTTP check 503 and
              DOWN, host 2's 200 and UP, 0 lost; the probes only in the healthcheck counters
              (`_ipv6`: the IPv6 bed, curl -6 to each port's IPv6 address too)
  rolling     drain host 1, restart it, it rejoins; then host 2 the same: 0 lost (a skip
              when the loaded machine took a host's route out of the router outside its
              drain: a health check past its timeout, a BGP hold timer; the logs say which)
  crash       kill -9 of udpfan on one host: the health check withdraws the route; the time
              until the router stops using the host and the datagrams lost meanwhile (all
              in that window: the other host loses none)
  pool_rejoin a hash-sender pool on both hosts: every sender's datagrams reach one member
              whichever host they cross; after a crash and the host's return, the same one
  host_dies   udpfan killed and the host's BGP speaker frozen: BIRD with BFD, ExaBGP with
              the hold timer; the time until the router stops using the host, the loss
  rolling_af_xdp_ipv6, crash_af_xdp_ipv6, host_dies_bird_ipv6
              rolling, crash and host_dies (BIRD with BFD, its ipv6 channel) with the IPv6
              service address
  netflow     softflowd -> the fleet -> nfcapd on both collector ports: nfdump counts every
              flow softflowd exported at each

Root only; exit 77 (skip) otherwise."""
import contextlib
import json
import os
import shutil
import sys
import time

from fleet import COL_PORTS, SERVICE, Fleet, Sink, add_senders, send
from testbed import wait_for
from ufrun import Suite, SkipCase, tmpdir

RATE = 10000
# seconds between the senders' end and the sink's stop: what is still on its way reaches the
# collectors within it (udpfan's workers hold up to 16384 frames in their rings for the
# moment they get their CPU back)
SETTLE = 2


def need_tools():
    for b in ("/usr/lib/frr/bgpd", "/usr/lib/frr/zebra", "/usr/lib/frr/bfdd", "vtysh",
              "/usr/sbin/exabgp", "exabgp-healthcheck"):
        if not (os.access(b, os.X_OK) if b.startswith("/") else shutil.which(b)):
            raise SkipCase("%s not installed (frr, exabgp: scripts/setup.sh deps)" % b)


def up(fl, kind="af_xdp", drain_s=10, pool=False, speaker="exabgp", health=False):
    """both hosts forwarding and announcing; the router has a next hop for each"""
    for h in fl.hosts:
        h.start_udpfan(drain_s=drain_s, kind=kind, pool=pool, health=health)
        h.start_bird() if speaker == "bird" else h.start_exabgp()
    fl.wait_nexthops([h.nh for h in fl.hosts], 30)
    for h in fl.hosts:  # the router resolves each host once before the traffic
        fl.nsx(fl.ns_rtr, "ping -c 1 -W 2 %s" % h.nh, check=False)
    if speaker == "bird":
        assert wait_for(lambda: fl.vtysh("show bfd peers").count("Status: up") == 2, 10), \
            fl.vtysh("show bfd peers")


@contextlib.contextmanager
def running(kind, count, drain_s=10, speaker="exabgp", family="ipv4", health=False):
    """the set-up of the cases that act while the traffic runs: the bed with both hosts up
    and announcing (BIRD with BFD on both sessions, or ExaBGP; with `health`, udpfan's port
    health responder on), a sink expecting 0..count-1 on both collector ports, and the
    exporters sending `count` datagrams at RATE to the service address (IPv4 or IPv6), not
    waited for; yields (fleet, sink, sender)"""
    need_tools()
    with Fleet(tmpdir(), bfd_hosts=(1, 2) if speaker == "bird" else (),
               family=6 if family == "ipv6" else 4) as fl:
        add_senders(fl)
        up(fl, kind, drain_s=drain_s, speaker=speaker, health=health)
        sink = Sink(fl, "sink", expect=(0, count - 1))
        fl.mark()
        yield fl, sink, send(fl, count, RATE, wait=False)


def rx(st):
    """datagrams a host's listeners received (the IPv6 bed has two listeners)"""
    return sum(li["rx"] for li in st["listeners"])


def fleet_sum(sts, key):
    return sum(st["fwd"][key] for st in sts)


def check_exact(res, count, fl=None, sts=()):
    """udpfan-sink's result: every collector port got 0..count-1 exactly once. A loss that
    the machine's stalls explain (fl.unaccounted: a worker off its CPU long enough to fill
    its socket's ring, counted by udpfan, the kernel's or the sink's drops) is reported and
    skips the case instead: the bed runs on 2 CPUs shared with other jobs"""
    assert len(res["destinations"]) == 2, res["destinations"].keys()
    for d, r in res["destinations"].items():
        assert r["duplicated"] == 0 and r["received"] + r["lost"] == count, (d, r)
    lost = max(r["lost"] for r in res["destinations"].values())
    if lost and fl is not None:
        explained, detail = fl.unaccounted(sts, lost, res)
        print("lost %d: %s" % (lost, detail))
        if explained == lost:
            raise SkipCase("%d datagrams lost to the machine's stalls (counted by udpfan's "
                           "XDP sockets and the kernel's interfaces: %s), none to the fleet"
                           % (lost, detail))
    for d, r in res["destinations"].items():
        assert r["received"] == count and r["lost"] == 0, (d, r)


def case_spread(kind, family="ipv4"):
    count = 4 * RATE
    with running(kind, count, family=family) as (fl, sink, p):
        prom = kind == "af_xdp" and family == "ipv4" and fl.start_prometheus()
        sent = json.loads(p.communicate(timeout=120)[0])
        res = sink.result(settle=SETTLE)
        if prom:
            # the fleet's sum as Prometheus sees it, two live exporters scraped every second
            q = "sum(udpfan_forwarded_total)"
            assert wait_for(lambda: fl.prom_query(q) == count, 10, 0.5), \
                (fl.prom_query(q), count)
            assert fl.prom_query("sum(udpfan_up)") == 2
            print("prometheus: %s = %d over %d exporters" % (
                q, fl.prom_query(q), fl.prom_query("count(udpfan_up)")))
        drops = fl.kernel_drops()
        flaps = [h.withdrawals() for h in fl.hosts]
        sts = [h.stop() for h in fl.hosts]
        print("kernel drops before udpfan: %s" % drops)
        assert flaps == [0, 0], "a health check failed during the run: withdrawals %s" % flaps
        assert sent["sent"] == count, sent
        check_exact(res, count, fl, sts)
    per = [sum(li["forwarded"] for li in st["listeners"]) for st in sts]
    print("spread (%s): %d sent, hosts forwarded %s, collectors %s" % (
        family, count, per, {d: r["received"] for d, r in res["destinations"].items()}))
    assert sum(per) == count and min(per) > count // 5, per
    assert fleet_sum(sts, "forwarded") == count, [st["fwd"] for st in sts]
    assert fleet_sum(sts, "tx_ok") == 2 * count, [st["fwd"] for st in sts]
    for port in COL_PORTS:  # each collector port, over the hosts and their listeners
        assert sum(d["tx_ok"] for st in sts for d in st["destinations"]
                   if d["udp_port"] == port) == count, port


def drain_one(fl, h, other, rate, drain_s=10, during=None):
    """SIGTERM on h (drain_s 10) while the traffic runs: (seconds until the router's FIB has
    only `other`, datagrams h received after a stats interval that began after that: 0
    once nothing is in flight); `during(t0)` runs right after the SIGTERM"""
    t0 = time.monotonic()
    h.drain()
    if during:
        during(t0)
    fl.wait_nexthops([other.nh], drain_s)
    t_wd = time.monotonic() - t0
    after = time.time() + 0.1
    # a stats object begun after the withdrawal; or the final one, when the withdrawal came
    # so late that the drain ended first (the collectors' counts then show any loss)
    assert wait_for(lambda: h.latest()["time"] > after or h.latest()["final"], 5), h.latest()
    rx_at = rx(h.latest())
    st = h.wait_stopped()
    late = rx(st) - rx_at
    assert st["health"]["state"] == "stopping", st["health"]
    return t_wd, late, st


def unplanned_withdrawals(fl, planned):
    """the times the router lost a host's route outside that host's planned drain and
    restart (planned: {k: [(from, to), ...]}, wall clock): its health check withdrew it
    (exabgp.log "route removed") or the router took its BGP session down (frr.log: the
    hold timer expired, 3 s); a second of slack either side (the logs count whole
    seconds). Lines of the logs, for the report"""
    def inside(k, t):
        return any(a - 1 <= t <= b + 1 for a, b in planned.get(k, ()))
    t0 = min(a for w in planned.values() for a, _ in w)
    out = []
    for h in fl.hosts:
        with open(os.path.join(h.wd, "exabgp.log")) as f:
            for ln in f:
                if "route removed" not in ln:
                    continue
                t = time.mktime(time.strptime(ln[:25], "%a, %d %b %Y %H:%M:%S"))
                if t >= t0 - 1 and not inside(h.k, t):
                    out.append("host %d: %s" % (h.k, ln[:200].strip()))
    with open(os.path.join(fl.rundir, "frr.log")) as f:
        for ln in f:
            if "ADJCHANGE" not in ln or " Down " not in ln:
                continue
            t = time.mktime(time.strptime(ln[:19], "%Y/%m/%d %H:%M:%S"))
            k = [h.k for h in fl.hosts if "neighbor %s(" % h.mg_ip in ln]
            if t >= t0 - 1 and not (k and inside(k[0], t)):
                out.append("router: " + ln.strip())
    return out


def case_drain(kind, family="ipv4"):
    count = 10 * RATE
    with running(kind, count, family=family) as (fl, sink, p):
        h1, h2 = fl.hosts
        time.sleep(2)
        t_wd, late, st1 = drain_one(fl, h1, h2, RATE)
        out, _ = p.communicate(timeout=120)
        res = sink.result(settle=SETTLE)
        st2 = h2.stop()
        check_exact(res, count, fl, [st1, st2])
    print("drain (%s): withdrawn from the router's FIB %.2f s after SIGTERM; host 1 received %d "
          "after that; host 1 forwarded %d, host 2 %d" % (
              family, t_wd, late, st1["fwd"]["forwarded"], st2["fwd"]["forwarded"]))
    assert late == 0, late
    assert st1["fwd"]["forwarded"] + st2["fwd"]["forwarded"] == count
    assert st1["fwd"]["forwarded"] > 0 and st2["fwd"]["forwarded"] > count // 2


def case_health(kind, family="ipv4"):
    """udpfan's port health responder inside the fleet: curl and HAProxy (a tcp-check and an
    httpchk backend, one server per host's port address) in the router's namespace probe
    each host while the traffic runs through the router's ECMP; SIGTERM on host 1 turns its
    HTTP check 503 and DOWN, host 2's stays 200 and UP, and nothing is lost"""
    if shutil.which("haproxy") is None:
        raise SkipCase("haproxy not installed (scripts/setup.sh deps)")
    import subprocess
    from fleet import HEALTH_PORT, PRIO
    from ufhealth import curl, haproxy_config, show_stat, url
    count = 10 * RATE
    with running(kind, count, family=family, health=True) as (fl, sink, p):
        h1, h2 = fl.hosts
        sock = os.path.join(fl.wd, "haproxy.sock")
        cfg = os.path.join(fl.wd, "haproxy.cfg")
        with open(cfg, "w") as f:
            f.write(haproxy_config(sock, [
                (name, name, [("h%d" % h.k, h.ip, HEALTH_PORT) for h in fl.hosts])
                for name in ("tcp", "http")]))
        # at the bed's priority, as the router's other daemons (tests/lib/fleet.py, PRIO)
        hap = subprocess.Popen(["ip", "netns", "exec", fl.ns_rtr] + PRIO +
                               ["haproxy", "-db", "-f", cfg], stdout=subprocess.DEVNULL,
                               stderr=open(os.path.join(fl.wd, "haproxy.log"), "w"))
        fl.procs.append(hap)
        every = {"%s/h%d" % (b, h.k): "UP" for b in ("tcp", "http") for h in fl.hosts}
        assert wait_for(lambda: os.path.exists(sock) and show_stat(sock) == every, 10), \
            show_stat(sock) if os.path.exists(sock) else "no stats socket"
        ready = [curl(fl.ns_rtr, url(h.ip, HEALTH_PORT)) for h in fl.hosts]
        if fl.family == 6:  # the ports' IPv6 addresses answer too
            ready += [curl(fl.ns_rtr, url(h.ip6, HEALTH_PORT), v6=True) for h in fl.hosts]
        assert ready == [(200, "ready")] * len(ready), ready
        time.sleep(1)
        seen = {}

        def during(t0):
            want = dict(every, **{"http/h1": "DOWN"})
            ok = wait_for(lambda: show_stat(sock) == want, 8)
            seen["down"] = time.monotonic() - t0
            seen["stat"] = show_stat(sock)
            seen["curl"] = [curl(fl.ns_rtr, url(h.ip, HEALTH_PORT)) for h in fl.hosts]
            assert ok, "%.2f s after SIGTERM: %r" % (seen["down"], seen["stat"])

        t_wd, late, st1 = drain_one(fl, h1, h2, RATE, during=during)
        p.communicate(timeout=120)
        res = sink.result(settle=SETTLE)
        st2 = h2.stop()
        hap.kill()
        hap.wait()
        check_exact(res, count, fl, [st1, st2])
    sts = [st1, st2]
    hcs = [st["healthcheck"] for st in sts]
    print("health (%s): HAProxy marked host 1's HTTP check DOWN %.2f s after SIGTERM (TCP "
          "checks and host 2 UP: %r); curl then %r; withdrawn from the router's FIB %.2f s "
          "after SIGTERM, %d to host 1 after that; hosts forwarded %s; healthcheck %r" % (
              family, seen["down"], seen["stat"], seen["curl"], t_wd, late,
              [st["fwd"]["forwarded"] for st in sts], hcs))
    assert seen["curl"] == [(503, "draining"), (200, "ready")], seen["curl"]
    assert late == 0, late
    assert hcs[0]["http_503"] >= 2 and all(hc["http_200"] > 0 and hc["syn"] > 0 for hc in hcs)
    # the probes are in the healthcheck counters only: nothing forwarded, sent or dropped
    # because of them (each host's ledger balanced: Host.wait_stopped)
    for st, hc in zip(sts, hcs):
        for k in ("bad_cookie", "malformed", "rate_limited"):
            assert hc[k] == 0, hc
        assert st["fwd"]["control"] >= sum(hc.values()), (st["fwd"]["control"], hc)
        # the bed's own few: the router's IPv6 frames on the link (neighbour and multicast
        # listener messages), not_ipv4 where the port has no IPv6 address, not_for_us (other
        # groups) where it has: 2 to 6 per host with or without the probes (a probe is 3 to
        # 5 segments, ~40 of them per host here); any other drop would be a probe's
        drop = st["fwd"]["drop"]
        assert not any(n for k, n in drop.items() if k not in ("not_ipv4", "not_for_us")) \
            and drop["not_ipv4"] + drop["not_for_us"] <= 8, drop
    assert fleet_sum(sts, "forwarded") == count, [st["fwd"] for st in sts]
    assert fleet_sum(sts, "tx_ok") == 2 * count, [st["fwd"] for st in sts]


def case_rolling(kind, family="ipv4"):
    """a rolling upgrade: drain host 1, start it again, it rejoins; then host 2"""
    # drain_s 10, as the drain case: with the bed's control plane ahead of the workers
    # (tests/lib/fleet.py, PRIO) the withdrawal reached the router's FIB 1.3 to 2.4 s after
    # SIGTERM (before: up to 13.0 s, health checks past their 3 s timeout on the starved CPUs)
    drain_s = 10
    # each host: 1.5 s, its drain, its restart and rejoin (~2 to 4 s): ~28 s for both
    count = 38 * RATE
    with running(kind, count, drain_s=drain_s, family=family) as (fl, sink, p):
        h1, h2 = fl.hosts
        sts = []
        t_start = time.monotonic()
        planned = {}
        for h, other in ((h1, h2), (h2, h1)):
            time.sleep(1.5)
            w0 = time.time()
            t_wd, late, st = drain_one(fl, h, other, RATE, drain_s)
            sts.append(st)
            t0 = time.monotonic()
            h.start_udpfan(kind=kind)
            fl.wait_nexthops([h1.nh, h2.nh], 15)
            planned[h.k] = [(w0, time.time())]
            print("rolling: host %d withdrawn %.2f s after SIGTERM, %d datagrams after; "
                  "back in the router %.2f s after its restart" % (h.k, t_wd, late,
                                                                   time.monotonic() - t0))
        assert p.poll() is None, "the traffic ended before the second host was back: " \
            "too short a run"
        out, _ = p.communicate(timeout=200)
        print("rolling: both hosts upgraded in %.1f s" % (time.monotonic() - t_start))
        res = sink.result(settle=SETTLE)
        sts += [h.stop() for h in fl.hosts]
        # a planned drain loses nothing; the loaded machine (2 CPUs, a spinning worker
        # per host) can also take the route of a host that is not draining out of the
        # router: its health check timed out twice (--fall 2), or the router's hold timer
        # (3 s) expired while a speaker or bgpd waited for a CPU. With the other host
        # drained or restarting, no host is then in the FIB (and a draining host's
        # session that comes back announces it again): that loss is the machine's
        extra = unplanned_withdrawals(fl, planned)
        lost = max(r["lost"] for r in res["destinations"].values())
        print("rolling: %d lost, %d withdrawals outside the planned drains" % (lost, len(extra)))
        if lost and extra:
            raise SkipCase("%d lost while the router lost a host's route outside its "
                           "planned drain (health check or BGP hold timer on the loaded "
                           "machine):\n%s" % (lost, "\n".join(extra)))
        check_exact(res, count, fl, sts)
    assert fleet_sum(sts, "forwarded") == count, [st["fwd"]["forwarded"] for st in sts]
    assert all(st["fwd"]["forwarded"] > 0 for st in sts), [st["fwd"]["forwarded"]
                                                            for st in sts]


def case_crash(kind, family="ipv4"):
    """kill -9 of udpfan on host 1 (its BGP speaker lives on: the health check withdraws)"""
    count = 8 * RATE
    with running(kind, count, family=family) as (fl, sink, p):
        h1, h2 = fl.hosts
        time.sleep(2)
        t0 = time.monotonic()
        h1.kill9()
        fl.wait_nexthops([h2.nh], 10)
        window = time.monotonic() - t0
        out, _ = p.communicate(timeout=120)
        res = sink.result(settle=SETTLE)
        st2 = h2.stop()
    lost = {d: r["lost"] for d, r in res["destinations"].items()}
    fwd2 = st2["fwd"]["forwarded"]
    print("crash (%s): the router stopped using host 1 %.2f s after kill -9 (exabgp-healthcheck"
          " interval 1 s, fall 2; BGP hold 3 s not needed: the speaker withdrew); lost %s of "
          "%d, host 2 forwarded %d" % (family, window, lost, count, fwd2))
    for d, r in res["destinations"].items():
        assert r["duplicated"] == 0, r
        # every loss is host 1's share of the window (its half of RATE); host 2 lost none:
        # it forwarded all that the collectors got beyond host 1's part
        assert r["lost"] <= RATE * (window + 0.5), (window, r)
        assert r["received"] + r["lost"] == count, r


def case_host_dies(speaker, family="ipv4"):
    """host 1 dies without a word: udpfan killed and its BGP speaker frozen (SIGSTOP: no
    keepalive, no BFD; the links up). BIRD's session has BFD (3 x 100 ms); ExaBGP has none:
    the hold timer (3 s) takes it out"""
    if speaker == "bird" and not shutil.which("bird"):
        raise SkipCase("bird not installed")
    count = 8 * RATE
    with running("af_xdp", count, speaker=speaker, family=family) as (fl, sink, p):
        h1, h2 = fl.hosts
        time.sleep(2)
        t0 = time.monotonic()
        t_silent = int(time.time())  # frr.log's lines count whole seconds
        h1.silence()
        h1.kill9()
        fl.wait_nexthops([h2.nh], 10)
        window = time.monotonic() - t0
        p.communicate(timeout=120)
        res = sink.result(settle=SETTLE)
        st2 = h2.stop()
        with open(os.path.join(fl.rundir, "frr.log")) as f:  # from the silence on (the
            # sessions' set-up can go down and up once before: BIRD's first connection)
            flaps = sum(1 for ln in f if "10.255.2.2" in ln and "Down" in ln and time.mktime(
                time.strptime(ln[:19], "%Y/%m/%d %H:%M:%S")) >= t_silent)
    lost = max(r["lost"] for r in res["destinations"].values())
    if flaps:
        raise SkipCase("host 2's session went down too (%d times: BFD or hold timer on the "
                       "loaded machine), so host 1's window does not explain the %d lost" %
                       (flaps, lost))
    print("host dies (%s, %s): the router stopped using host 1 %.2f s after it went silent "
          "(%s); lost %d of %d, host 2 forwarded %d" % (
              speaker, family, window, "BFD 3 x 100 ms" if speaker == "bird" else "BGP hold 3 s",
              lost, count, st2["fwd"]["forwarded"]))
    for r in res["destinations"].values():
        assert r["duplicated"] == 0 and r["received"] + r["lost"] == count, r
        assert r["lost"] <= RATE * (window + 0.5), (window, r)
    assert window < (1.5 if speaker == "bird" else 5), window


def case_pool_rejoin(kind):
    """a hash-sender pool on both hosts: a sender's flows hash over both hosts at the router,
    yet all its datagrams reach one member; host 1 crashes and returns: the same members"""
    need_tools()
    from uflive import Sink as PySink
    wd = tmpdir()
    n_senders = 50

    def round_(fl, start):
        sinks = [PySink(_Bed(fl), fl.ns_col, [6000], wd, idle=2, timeout=60, listing=True,
                        bind=ip) for ip in fl.col_ips]
        send(fl, n_senders * 8, 2000, senders=n_senders, flows=4, start_seq=start)
        owner = {}
        seqs = []
        for i, s in enumerate(sinks):
            r = s.result()["6000"]
            assert r["duplicates"] == 0, r
            seqs += r["seq_list"]
            for key in r["senders"]:
                ip = key.split(":")[0]
                assert owner.get(ip, i) == i, "sender %s reached two members" % ip
                owner[ip] = i
        assert sorted(seqs) == list(range(start, start + n_senders * 8)), len(seqs)
        return owner

    with Fleet(wd, collectors=2) as fl:
        add_senders(fl, n_senders)
        up(fl, kind, pool=True)
        h1, h2 = fl.hosts
        base = round_(fl, 0)
        r1 = h1.latest()["listeners"][0]["rx"]
        r2 = h2.latest()["listeners"][0]["rx"]
        h1.kill9()
        fl.wait_nexthops([h2.ip], 10)
        h1.start_udpfan(kind=kind, pool=True)
        fl.wait_nexthops([h1.ip, h2.ip], 15)
        fl.nsx(fl.ns_rtr, "ping -c 1 -W 2 %s" % h1.ip, check=False)
        again = round_(fl, 10000)
        st1 = h1.stop()
        st2 = h2.stop()
    print("pool: senders per member %s; host 1 forwarded %d before its crash and %d after "
          "its return, host 2 %d in all" % (
              [sum(1 for m in base.values() if m == i) for i in range(2)], r1,
              st1["listeners"][0]["rx"], st2["listeners"][0]["rx"]))
    assert len(base) == n_senders and again == base, "members changed for %d senders" % sum(
        1 for ip in base if again.get(ip) != base[ip])
    assert r1 > 0 and r2 > 0 and st1["listeners"][0]["rx"] > 0


def case_netflow():
    """real exporters and collectors: softflowd (NetFlow v9) watching an interface in
    the exporters' namespace sends to the service address; nfcapd on both collector ports;
    nfdump counts the same flows at each as softflowd exported"""
    need_tools()
    for b in ("softflowd", "softflowctl", "nfcapd", "nfdump"):
        if not shutil.which(b):
            raise SkipCase(b + " not installed")
    import re
    import subprocess
    wd = tmpdir()
    n_flows = 100
    with Fleet(wd) as fl:
        up(fl, "af_xdp")
        e = fl.ns_exp
        # the kernel here has no dummy interfaces: a veth pair whose far end drops all
        # (a static neighbour: the frames leave nfd0 without ARP, for softflowd's capture)
        fl.nsx(e, "ip link add nfd0 type veth peer name nfd1")
        fl.nsx(e, "ip addr add 203.0.113.1/24 dev nfd0")
        fl.nsx(e, "ip link set nfd0 up")
        fl.nsx(e, "ip link set nfd1 up")
        fl.nsx(e, "ip neigh replace 203.0.113.50 lladdr 02:00:00:00:00:50 dev nfd0")
        caps = []
        for port in (6000, 6001):
            d = os.path.join(wd, "nf%d" % port)
            os.makedirs(d)
            caps.append((d, subprocess.Popen(["ip", "netns", "exec", fl.ns_col, "nfcapd", "-w",
                                              d, "-p", str(port), "-t", "3600"],
                                             stdout=subprocess.DEVNULL,
                                             stderr=subprocess.DEVNULL)))
        ctl = os.path.join(wd, "sf.ctl")
        sf = subprocess.Popen(["ip", "netns", "exec", e, "softflowd", "-d", "-i", "nfd0", "-n",
                               "%s:5000" % SERVICE, "-v", "9", "-c", ctl, "-p",
                               os.path.join(wd, "sf.pid"), "-t", "maxlife=60", "-B", "65536"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        assert wait_for(lambda: os.path.exists(ctl), 10), "softflowd did not start"
        time.sleep(1)
        # n_flows UDP flows out of the dummy interface (the kernel drops them there)
        fl.nsx(e, "%s %s --dst 203.0.113.50 --port 9999 --count %d --rate 5000 --flows %d "
               "--sport 42000" % ("/usr/bin/python3", os.path.join(
                   os.environ.get("UF_SRC", "."), "tests", "tools", "udp_send.py"),
                   n_flows * 30, n_flows), capture=True)
        time.sleep(1)
        fl.nsx(e, "softflowctl -c %s expire-all" % ctl, check=False)
        time.sleep(2)
        stats = fl.nsx(e, "softflowctl -c %s statistics" % ctl, capture=True)
        sf.terminate()
        sf.wait(timeout=10)
        time.sleep(1)
        for _, p in caps:
            p.terminate()
            p.wait(timeout=10)
        got = []
        total = []
        for d, _ in caps:
            info = subprocess.run(["nfdump", "-R", d, "-I"], stdout=subprocess.PIPE,
                                  text=True).stdout
            total.append(int(re.search(r"(?m)^Flows: (\d+)", info).group(1)))
            out = subprocess.run(["nfdump", "-R", d, "-q", "-o", "csv", "proto udp and "
                                  "dst port 9999"], stdout=subprocess.PIPE, text=True).stdout
            got.append(sum(1 for ln in out.splitlines() if "203.0.113.50" in ln))
        sts = [h.stop() for h in fl.hosts]
    m = re.search(r"Flows exported:\s*(\d+)", stats) or re.search(r"(\d+) flows? exported",
                                                                  stats)
    print("netflow: softflowd %s; nfdump at each collector port: %s flows, %s of them the "
          "test's; hosts forwarded %s" % (m.group(0) if m else stats[-300:], total, got,
                  [st["fwd"]["forwarded"] for st in sts]))
    assert got == [n_flows, n_flows], got
    exported = int(m.group(1))
    assert total == [exported, exported], (total, exported)


class _Bed:
    """what uflive.Sink needs of a test bed"""

    def __init__(self, fl):
        self.fl = fl

    def popen(self, ns, argv, **kw):
        import subprocess
        return subprocess.Popen(["ip", "netns", "exec", ns] + list(argv), **kw)


def main():
    s = Suite(root=True)
    s.run(case_spread, "af_xdp")
    s.run(case_spread, "af_packet")
    s.run(case_drain, "af_xdp")
    s.run(case_spread, "af_xdp", "ipv6")
    s.run(case_drain, "af_xdp", "ipv6")
    s.run(case_health, "af_xdp")
    s.run(case_health, "af_xdp", "ipv6")
    s.run(case_rolling, "af_xdp")
    s.run(case_crash, "af_xdp")
    s.run(case_rolling, "af_xdp", "ipv6")
    s.run(case_crash, "af_xdp", "ipv6")
    s.run(case_pool_rejoin, "af_xdp")
    s.run(case_host_dies, "bird")
    s.run(case_host_dies, "exabgp")
    s.run(case_host_dies, "bird", "ipv6")
    s.run(case_netflow)
    s.finish()


if __name__ == "__main__":
    main()
