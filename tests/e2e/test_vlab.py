#!/usr/bin/env python3
"""The vhost-user and memif lab (tests/lib/vlab.py): udpfan-gen -> udpfan -> udpfan-sink,
three DPDK processes joined by real PMD rings (virtio_user <-> net_vhost, or net_memif), no
NIC, no kernel on the wire. The DPDK sink sees every header: it checks the IPv4 and UDP
checksums, the sequence numbers per destination and the senders' addresses.

Run with the PMD as the first argument (tests/e2e/meson.build registers the file twice, as
the suites `vhost` and `memif`):

  fanout4        N = 4 destinations: each gets every datagram udpfan sent (tx_ok), in order,
                 checksums right, any gap exactly udpfan's tx_drop (a full ring: the sink
                 shares a CPU);
                 the ledger at both ends: gen sent == udpfan rx, udpfan tx_ok per destination
                 == what the sink received there, nothing unexplained; the RX checksum
                 offloads on: udp on virtio_user (GUEST_CSUM negotiated), none on memif
  sampling       sample: 4 on one destination: a quarter arrives, the rest is sampled_out
  rules          a rule sends the generator's prefix to destinations 0 and 2 only
  source_modes   ours, original and a fixed address: the sink sees each as the sender
  peer_restart   the sink is killed mid-run and started again: udpfan sees the lan link go
                 down and up (link_downs counted), keeps running, copies sent while it was
                 down are counted as tx drops, and the new sink gets the rest (any gap
                 in it within udpfan's tx_drop: a sink sharing a CPU can overrun a ring)
  peer_flaps     (memif) the sink is killed and started again 5 times under traffic: each
                 time net_memif unmaps the rings on EAL's interrupt thread while the worker
                 polls them (udpfan's munmap() guard waits for the worker there, or the
                 patched PMD itself, docs/pmd-quirks.md): udpfan never dies, every flap
                 is counted, the ledger balances and the last sink gets the tail
  two_workers    2 queue pairs, 2 workers (vhost: queues=2; memif: the client takes the
                 server's queue count): the generator spreads its flows over both queues,
                 each worker carries traffic, per-flow order kept at the sink
  start_fail     (vhost) with --legacy-mem (which rules out --single-file-segments) the
                 virtio device cannot start: udpfan exits 3 naming the PMD's reason, never
                 "link up"
  peer_wait_stop (vhost) udpfan's probe waits for the backend (bounded: 60 s); SIGTERM
                 ends the wait with exit 3

Root only (hugepages); exit 77 (skip) otherwise.
"""
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from ufrun import Suite, ledger, tmpdir  # noqa: E402
from vlab import Lab, GEN_IP, LAN_IP, SINK_IP, DEST_PORT, wait_for  # noqa: E402

PMD = None
COUNT = 6000
RATE = 2000


def check(cond, what, *ctx):
    if not cond:
        raise AssertionError(what + "".join("\n" + str(c)[:3000] for c in ctx))
    print("ok: " + what)


def run_basic(lab, count=COUNT, rate=RATE, flows=1, **cfg):
    lab.start_udpfan(**cfg)
    lab.start_sink(idle=2)
    lab.start_gen(count=count, rate=rate, flows=flows)
    lab.udpfan_ready()
    g = lab.wait_json("gen")
    s = lab.wait_json("sink")
    st = lab.stop_udpfan()
    return g, s, st


def dest(s, port):
    return s["destinations"].get("%s:%d" % (SINK_IP, port))


def check_wan_ledger(g, st):
    """The generator's end of the ledger: udpfan took in every datagram sent. (Not the wan
    port's ipackets: memif reads 0 once its peer is gone, docs/pmd-quirks.md.)"""
    f = ledger(st)
    check(g["sent"] == COUNT, "the generator sent all %d" % COUNT, g)
    check(f["rx"] - f["control"] == g["sent"],
          "udpfan received what the generator sent (%d)" % g["sent"], f)
    return f


def case_fanout4():
    with Lab(PMD, tmpdir(prefix="vlab-")) as lab:
        g, s, st = run_basic(lab, dests=4)
        f = check_wan_ledger(g, st)
        check(f["forwarded"] == COUNT, "all %d forwarded" % COUNT, f)
        for i, d in enumerate(st["destinations"]):
            sd = dest(s, DEST_PORT + i)
            check(sd is not None and sd["received"] == d["tx_ok"],
                  "destination %d: the sink got udpfan's tx_ok %d" % (i, d["tx_ok"]), sd, d)
            # the sink's CPU is shared: a full ring is possible, and counted by udpfan
            check(sd["lost"] == d["tx_drop"] and sd["duplicated"] == 0 and
                  sd["reordered"] == 0,
                  "destination %d: lost %d == udpfan's tx_drop, none duplicated or reordered"
                  % (i, sd["lost"]), sd, d)
            check(sd["received"] + d["tx_drop"] == COUNT,
                  "destination %d: received + tx_drop == sent (zero unexplained)" % i, d)
        check(s["bad_checksum"] == 0 and s["checksums_verified"],
              "every IPv4/UDP checksum right at the sink", s)
        check(sum(v["received"] for v in s["destinations"].values()) == f["tx_ok"],
              "the sink received udpfan's tx_ok %d" % f["tx_ok"], s)
        check(st["ports"]["lan"]["driver"] == ("net_virtio_user" if PMD == "vhost"
                                              else "net_memif"), "the driver", st["ports"])
        # RX checksum offloads (docs/pmd-quirks.md, "RX checksum verdicts"): virtio_user
        # negotiates VIRTIO_NET_F_GUEST_CSUM with the vhost backend and gets UDP only (no
        # IPv4 verdict on virtio); memif offers none
        want_ck = "udp" if PMD == "vhost" else "none"
        check(all(p["rx_checksum"] == want_ck for p in st["ports"].values()),
              "rx_checksum %s on every port" % want_ck,
              {k: v["rx_checksum"] for k, v in st["ports"].items()})


def case_sampling():
    with Lab(PMD, tmpdir(prefix="vlab-")) as lab:
        dests = ["{ ip: %s, udp_port: %d, port: lan, mac: \"%s\" }" % (SINK_IP, DEST_PORT,
                                                                      lab.sink_mac()),
                 "{ ip: %s, udp_port: %d, port: lan, mac: \"%s\", sample: 4 }" % (
                     SINK_IP, DEST_PORT + 1, lab.sink_mac())]
        g, s, st = run_basic(lab, destinations=dests)
        f = check_wan_ledger(g, st)
        d1 = st["destinations"][1]
        check(d1["sampled_out"] == COUNT - COUNT // 4, "3 in 4 sampled out", d1)
        check(f["sampled_out"] == d1["sampled_out"], "fwd.sampled_out is that destination's", f)
        check(dest(s, DEST_PORT + 1)["received"] == d1["tx_ok"] == COUNT // 4 - d1["tx_drop"],
              "the sink got the sampled quarter", s["destinations"], d1)
        check(dest(s, DEST_PORT)["received"] + st["destinations"][0]["tx_drop"] == COUNT,
              "the unsampled destination got everything", s["destinations"])


def case_rules():
    with Lab(PMD, tmpdir(prefix="vlab-")) as lab:
        g, s, st = run_basic(lab, dests=4,
                             extra_top="rules:\n  - { from: 198.18.0.0/24, to: [0, 2] }")
        f = check_wan_ledger(g, st)
        check(f["drop"]["no_rule"] == 0, "no no_rule drops", f)
        check(set(s["destinations"]) == {"%s:%d" % (SINK_IP, DEST_PORT),
                                         "%s:%d" % (SINK_IP, DEST_PORT + 2)},
              "only destinations 0 and 2 saw traffic", s["destinations"])
        check(f["fanout"] == 2 * COUNT, "fanout is 2 per datagram", f)


def case_source_modes():
    with Lab(PMD, tmpdir(prefix="vlab-")) as lab:
        m = lab.sink_mac()
        dests = ["{ ip: %s, udp_port: %d, port: lan, mac: \"%s\" }" % (SINK_IP, DEST_PORT, m),
                 "{ ip: %s, udp_port: %d, port: lan, mac: \"%s\", source: original }" % (
                     SINK_IP, DEST_PORT + 1, m),
                 "{ ip: %s, udp_port: %d, port: lan, mac: \"%s\", source: 192.0.2.77 }" % (
                     SINK_IP, DEST_PORT + 2, m)]
        g, s, st = run_basic(lab, destinations=dests, forward="{ udp_checksum: compute }")
        check_wan_ledger(g, st)
        want = {"%s:40000" % LAN_IP: 0, "%s:40000" % GEN_IP: 1, "192.0.2.77:40000": 2}
        for sender, i in want.items():
            got = s["senders"].get(sender, 0)
            check(got == st["destinations"][i]["tx_ok"] and got > 0,
                  "sender %s (destination %d) seen %d times" % (sender, i, got), s["senders"])
        check(len(s["senders"]) == 3, "no other sender", s["senders"])
        check(s["bad_checksum"] == 0, "checksums right in every mode", s)


def case_peer_restart():
    with Lab(PMD, tmpdir(prefix="vlab-")) as lab:
        count = 3 * RATE * 4  # ~12 s of traffic
        lab.start_udpfan(dests=2)
        lab.start_sink(idle=30)
        lab.start_gen(count=count, rate=RATE, duration=60)
        lab.udpfan_ready()
        check(lab.procs["udpfan"].poll() is None, "udpfan runs")
        time.sleep(3)
        lab.kill("sink")
        check(wait_for(lambda: not lab.latest()["ports"]["lan"]["link_up"], 10),
              "udpfan sees the lan link go down", lab.latest()["ports"]["lan"])
        time.sleep(1)
        lab.start_sink(name="sink2", idle=2)
        check(wait_for(lambda: lab.latest()["ports"]["lan"]["link_up"], 20),
              "udpfan sees the lan link up again", lab.latest()["ports"]["lan"],
              lab.log("udpfan"))
        g = lab.wait_json("gen", timeout=60)
        s2 = lab.wait_json("sink2", timeout=60)
        st = lab.stop_udpfan()
        f = ledger(st)
        check(g["sent"] == count and f["rx"] - f["control"] == count,
              "udpfan received all %d" % count, g, f)
        check(st["ports"]["lan"]["link_downs"] >= 1, "the flap is counted (link_downs %d)" %
              st["ports"]["lan"]["link_downs"], st["ports"]["lan"])
        check(f["tx_drop"]["link_down"] + f["tx_drop"]["ring_full"] > 0,
              "copies sent while the sink was gone are counted as tx drops", f)
        for i in range(2):
            d = st["destinations"][i]
            got2 = dest(s2, DEST_PORT + i)
            check(got2 is not None and got2["received"] > 0 and got2["duplicated"] == 0,
                  "destination %d: the new sink gets the tail" % i, got2)
            check(got2["lost"] <= d["tx_drop"],
                  "destination %d: its gaps (%d) are within udpfan's tx_drop (%d)" % (
                      i, got2["lost"], d["tx_drop"]), got2, d)
            check(got2["received"] <= d["tx_ok"], "the new sink got no more than tx_ok", d)
            check(got2["max_seq"] == count - 1, "up to the last datagram", got2)


FLAPS = 5


def case_peer_flaps():
    with Lab(PMD, tmpdir(prefix="vlab-")) as lab:
        count = RATE * 30  # 30 s of traffic: the flaps take about 4 s each
        lab.start_udpfan(dests=2)
        lab.start_sink(idle=30)
        lab.start_gen(count=count, rate=RATE, duration=60)
        lab.udpfan_ready()
        sink = "sink"
        for i in range(FLAPS):
            time.sleep(1)
            lab.kill(sink)
            check(wait_for(lambda: not lab.latest()["ports"]["lan"]["link_up"], 10),
                  "flap %d: udpfan sees the lan link go down" % (i + 1),
                  lab.latest()["ports"]["lan"])
            time.sleep(0.3)
            check(lab.procs["udpfan"].poll() is None,
                  "flap %d: udpfan survives its peer's disconnect" % (i + 1),
                  lab.procs["udpfan"].poll(), lab.log("udpfan"))
            sink = "sink%d" % (i + 1)
            lab.start_sink(name=sink, idle=2 if i == FLAPS - 1 else 30)
            check(wait_for(lambda: lab.latest()["ports"]["lan"]["link_up"], 20),
                  "flap %d: the lan link is up again" % (i + 1), lab.latest()["ports"]["lan"],
                  lab.log("udpfan"))
        check(lab.procs["gen"].poll() is None and lab.latest()["fwd"]["rx"] < count,
              "the generator still sends after the last flap", lab.latest()["fwd"])
        g = lab.wait_json("gen", timeout=60)
        s = lab.wait_json(sink, timeout=60)
        st = lab.stop_udpfan()
        check(lab.procs["udpfan"].returncode == 0, "udpfan exits 0",
              lab.procs["udpfan"].returncode, lab.log("udpfan"))
        f = ledger(st)
        print("ok: the ledger balances (rx %d, forwarded %d, tx_ok %d, tx_drop %s)" % (
            f["rx"], f["forwarded"], f["tx_ok"], f["tx_drop"]))
        check(g["sent"] == count and f["rx"] - f["control"] == count,
              "udpfan received all %d" % count, g, f)
        check(st["ports"]["lan"]["link_downs"] >= FLAPS, "every flap is counted (link_downs %d)"
              % st["ports"]["lan"]["link_downs"], st["ports"]["lan"])
        log = lab.log_all("udpfan")
        if "net_memif quiesces its bursts before unmapping" in log:
            # the DPDK build carries the net_memif patch: the PMD waits itself, no guard
            check("guard armed" not in log and
                  "munmap() guard: the workers left their bursts" not in log,
                  "the PMD quiesces: the munmap() guard is not armed and never waits")
        else:
            waits = log.count("munmap() guard: the workers left their bursts")
            check(waits >= FLAPS, "the munmap() guard waited for the worker at each flap (%d)"
                  % waits)
        for i in range(2):
            d = st["destinations"][i]
            got = dest(s, DEST_PORT + i)
            check(got is not None and got["received"] > 0 and got["duplicated"] == 0,
                  "destination %d: the last sink gets the tail" % i, got)
            check(got["lost"] <= d["tx_drop"],
                  "destination %d: its gaps (%d) are within udpfan's tx_drop (%d)" % (
                      i, got["lost"], d["tx_drop"]), got, d)
            check(got["max_seq"] == count - 1, "up to the last datagram", got)


def case_two_workers():
    """2 queue pairs, 2 workers: the generator's 4 flows over both queues (flow f on queue
    f % 2), one destination so that the sink's per-sender order is per-flow order."""
    count = 8000
    with Lab(PMD, tmpdir(prefix="vlab-"), queues=2) as lab:
        lab.start_udpfan(dests=1, workers=2)
        lab.start_sink(idle=2)
        lab.start_gen(count=count, rate=RATE, flows=4)
        lab.udpfan_ready()
        g = lab.wait_json("gen")
        s = lab.wait_json("sink")
        st = lab.stop_udpfan()
        f = ledger(st)
        check(g["sent"] == count and f["rx"] - f["control"] == count,
              "udpfan received all %d" % count, g, f)
        lc = st["lcores"]
        check(len(lc) == 2 and all(v["rx"] > count // 4 for v in lc.values()),
              "both workers carried traffic: %s" % {k: v["rx"] for k, v in lc.items()}, lc)
        check(sum(v["rx"] for v in lc.values()) == f["rx"], "per-lcore rx sums to rx", lc, f)
        check(all(0 < v["busy_pct"] <= 100 for v in lc.values()),
              "busy figures in (0, 100]: %s" % {k: v["busy_pct"] for k, v in lc.items()}, lc)
        d = st["destinations"][0]
        sd = dest(s, DEST_PORT)
        check(sd["received"] == d["tx_ok"] and sd["received"] + d["tx_drop"] == count,
              "the sink got udpfan's tx_ok, the rest counted as tx_drop", sd, d)
        check(sd["duplicated"] == 0 and sd["distinct"] == sd["received"], "no duplicates", sd)
        check(s["senders_backwards"] == 0, "per-flow order kept (no sender went backwards)", s)
        check(len(s["senders"]) == 4 and all(n > 0 for n in s["senders"].values()),
              "all 4 flows arrived", s["senders"])


def case_start_fail():
    """vhost-user with one file per hugepage: the PMD's start fails inside; udpfan must
    exit 3 with the PMD's reason and never log the port as up."""
    if PMD != "vhost":
        return
    with Lab(PMD, tmpdir(prefix="vlab-")) as lab:
        # --legacy-mem: one file per hugepage and no --single-file-segments (udpfan adds it
        # otherwise); -m 64: legacy memory takes every free hugepage without it
        lab.start_udpfan(dests=1, eal_extra=["--legacy-mem", "-m", "64"])
        lab.start_sink(idle=2, duration=20)
        lab.start_gen(count=10, duration=20)
        p = lab.procs["udpfan"]
        check(wait_for(lambda: p.poll() is not None, 60), "udpfan gives up", lab.log("udpfan"))
        log = lab.log("udpfan")
        check(p.returncode == 3, "exit 3 (environment), not %s" % p.returncode, log)
        check("failed to start the device" in log and "--single-file-segments" in log,
              "the error quotes the PMD and names the fix", log)
        check("link up" not in log, "never \"link up\"", log)


def case_peer_wait_stop():
    """vhost: udpfan's probe waits in accept() for its backend; SIGTERM ends the wait."""
    with Lab(PMD, tmpdir(prefix="vlab-")) as lab:
        p = lab.start_udpfan(dests=1)
        check(wait_for(lambda: "waiting for client connection" in lab.log("udpfan"), 20),
              "udpfan waits for its backend", lab.log("udpfan"))
        time.sleep(0.5)
        p.send_signal(signal.SIGTERM)
        check(wait_for(lambda: p.poll() is not None, 5), "SIGTERM ends the wait at once",
              lab.log("udpfan"))
        check(p.returncode == 3 and "waited for a vhost-user backend" in lab.log("udpfan"),
              "exit 3 and why", p.returncode, lab.log("udpfan"))


def main():
    global PMD
    argv = sys.argv[1:]
    if not argv or argv[0] not in ("vhost", "memif"):
        raise SystemExit("usage: test_vlab.py vhost|memif [--list | CASE...]")
    PMD = argv[0]
    s = Suite(root=True, argv=argv[1:])
    s.run(case_fanout4)
    s.run(case_sampling)
    s.run(case_rules)
    s.run(case_source_modes)
    s.run(case_peer_restart)
    if PMD == "memif":
        s.run(case_peer_flaps)
    s.run(case_two_workers)
    if PMD == "vhost":
        s.run(case_start_fail)
        s.run(case_peer_wait_stop)
    s.finish()


if __name__ == "__main__":
    main()
