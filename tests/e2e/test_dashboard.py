#!/usr/bin/env python3
"""e2e: the Grafana dashboard (deploy/grafana/udpfan.json) asks only for what the exporter
really serves, and shows everything that matters of it.

live_<kind>: udpfan on the veth bed (af_xdp, then af_packet: each has its own socket
counters), scripts/udpfan-exporter.py against it, one scrape over HTTP (and the Kubernetes
readiness probe, `udpfan-k8s ready`, on the same socket: ready, then not once stopped);
every metric name in every panel query must be in the scrape, and every label a query groups
by must be on that metric's samples. A made-up metric put into a copy of the dashboard must be reported (the
negative case).

covers_counters: every metric the exporter can emit (`udpfan --list-counters --json` through
the exporter's own naming, plus the families it adds) appears in some panel; the reason-keyed
families (drop, tx_drop) and the socket counters are grouped by their key, so every reason
shows. A dashboard with a panel taken away must be reported (the negative case)."""
import copy
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
import urllib.request

from testbed import FWD_IP, Testbed
from uflive import Udpfan, dest_lines, send
from ufrun import UF_SRC, Suite, need_root, tmpdir

PREFIX = "ufdash"
DASHBOARD = os.path.join(UF_SRC, "deploy", "grafana", "udpfan.json")
EXPORTER = os.path.join(UF_SRC, "scripts", "udpfan-exporter.py")
# what the exporter adds beyond udpfan's counter list (scripts/udpfan-exporter.py collect())
EXTRA = {"udpfan_up", "udpfan_lcore_busy_ratio", "udpfan_destination_resolved",
         "udpfan_port_xstat_total", "udpfan_port_xstat_level", "udpfan_health_state", "udpfan_degraded",
         "udpfan_drain_seconds", "udpfan_drain_left_seconds", "udpfan_drain_start_seconds"}
# families whose label names the counter: every value must show (grouped by that label)
KEYED = {"udpfan_drop_total": "reason", "udpfan_tx_drop_total": "reason",
         "udpfan_port_xsk_total": "name", "udpfan_port_pkt_socket_total": "name",
         "udpfan_port_xstat_total": "name"}
NAME = re.compile(r"\budpfan_[a-z0-9_]+")


def load(path=DASHBOARD):
    with open(path) as f:
        return json.load(f)


def targets(dash):
    """(panel title, expr) of every query of every panel, rows' nested panels included"""
    out = []

    def walk(panels):
        for p in panels:
            for t in p.get("targets", []):
                out.append((p.get("title", ""), t["expr"]))
            walk(p.get("panels", []))

    walk(dash["panels"])
    return out


def scrape_names(body):
    """{sample or family name: set of label names, None for a family without samples} of
    one Prometheus text scrape"""
    names = {}
    for line in body.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, typ = line.split()
            names.setdefault(name, None)
            if typ == "counter":
                names.setdefault(name + "_total", None)
        elif line and not line.startswith("#"):
            m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})?", line)
            labels = set(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="', m.group(3) or ""))
            names[m.group(1)] = (names.get(m.group(1)) or set()) | labels
    return names


def missing_in(dash, names):
    """what the dashboard asks for that the scrape lacks: metric names, and labels grouped by
    that none of the metric's samples carry"""
    bad = []
    for title, expr in targets(dash):
        used = set(NAME.findall(expr))
        for n in used - set(names):
            bad.append("%s: %s" % (title, n))
        for grp in re.findall(r"by \(([^)]*)\)", expr):
            for lab in {x.strip() for x in grp.split(",")} - {"instance", "job"}:
                for n in used & set(names):
                    if names[n] is not None and lab not in names[n]:
                        bad.append("%s: %s has no label %s" % (title, n, lab))
    return bad


def scrape(kind):
    wd = tmpdir()
    port = 19918
    with Testbed(prefix="ufd", sinks=2) as tb:
        cfg = """eal: { lcores: "0-1", file_prefix: %s }
ports:
  - { name: lan, device: "%s", ip: %s/24 }
listen: { port: lan, udp_port: 5000 }
destinations:
%s
  - { ip: 198.18.0.99, udp_port: 6000 }
  - pool: { members: [ { ip: 198.18.0.98, udp_port: 6000 } ] }
stats: { interval_s: 0.5 }
arp: { retry_ms: 50, max_probes: 2 }
""" % (PREFIX, tb.vdev(kind), FWD_IP, dest_lines(tb))
        uf = Udpfan(tb, cfg, wd)
        exp = subprocess.Popen([sys.executable, EXPORTER, "--file-prefix", PREFIX,
                                "--listen", "127.0.0.1:%d" % port],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            assert "serving" in exp.stdout.readline()
            send(tb, 500, 2000, size=32)
            assert uf.wait_stats(lambda st: st["fwd"]["forwarded"] == 500, 10), uf.latest()
            time.sleep(0.6)
            body = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port,
                                          timeout=5).read().decode()
            # the pod's readiness probe (deploy/k8s) on the same socket: ready now
            assert ready() == 0
        finally:
            exp.terminate()
            exp.wait(timeout=10)
        uf.stop()
    assert ready() == 1, "udpfan-k8s ready says ready with udpfan stopped"
    return scrape_names(body)


def ready():
    """deploy/container/udpfan-k8s ready: the readiness probe of deploy/k8s/*.yaml"""
    return subprocess.run([sys.executable, os.path.join(UF_SRC, "deploy", "container",
                                                        "udpfan-k8s"), "ready"],
                          env=dict(os.environ, UDPFAN_FILE_PREFIX=PREFIX),
                          stdout=subprocess.DEVNULL, timeout=20).returncode


def case_live(kind):
    names = scrape(kind)
    assert names.get("udpfan_up") is not None and names.get("udpfan_rx_total") is not None, \
        sorted(names)
    dash = load()
    sock = {"af_xdp": "udpfan_port_xsk_total", "af_packet": "udpfan_port_pkt_socket_total"}
    other = sock["af_packet" if kind == "af_xdp" else "af_xdp"]
    # a port has the socket counters of its own PMD only; the other family is absent from
    # this scrape and is checked by the other kind's case
    bad = [b for b in missing_in(dash, names) if not b.endswith(": " + other)]
    assert not bad, "the dashboard asks for what the exporter does not serve: %s" % bad
    assert sock[kind] in names and names[sock[kind]] >= {"port", "name"}, names.get(sock[kind])
    # negative: a made-up metric in one panel's query is reported
    fake = copy.deepcopy(dash)
    p = next(p for p in fake["panels"] if p.get("targets"))
    p["targets"][0]["expr"] = p["targets"][0]["expr"].replace("udpfan_up",
                                                              "udpfan_upp_made_up")
    p["targets"].append({"refId": "Z", "expr": "rate(udpfan_rx_frames_total[1m])"})
    bad = missing_in(fake, names)
    assert any("udpfan_upp_made_up" in b for b in bad), bad
    assert any("udpfan_rx_frames_total" in b for b in bad), bad
    # and a label the metric does not have
    p["targets"].append({"refId": "Y", "expr": "sum by (reason) (udpfan_rx_total)"})
    assert any("udpfan_rx_total has no label reason" in b for b in missing_in(fake, names))


def exporter_names():
    """every metric name the exporter can emit, as it would name it in a scrape"""
    spec = importlib.util.spec_from_file_location("udpfan_exporter", EXPORTER)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    schema = mod.load_schema(os.environ.get("UDPFAN", mod.find_udpfan()))
    out = set(EXTRA)
    for c in schema["counters"]:
        n = mod.metric_name(c)
        out.add(n + "_total" if c["type"] == "counter" else n)
    return out


def uncovered(dash, emitted):
    used = set()
    exprs = [e for _, e in targets(dash)]
    for e in exprs:
        used |= set(NAME.findall(e))
    bad = sorted(emitted - used)
    for fam, key in KEYED.items():
        shown = [e for e in exprs if fam in e]
        if shown and not any(re.search(r"by \([^)]*\b%s\b" % key, e) and
                             not re.search(r"\b%s\s*=" % key, e) for e in shown):
            bad.append("%s: no query groups by %s (some values would not show)" % (fam, key))
    return bad


def case_covers_counters():
    emitted = exporter_names()
    assert {"udpfan_rx_total", "udpfan_drop_total", "udpfan_port_xsk_total",
            "udpfan_lcore_busy_ratio"} <= emitted, sorted(emitted)
    dash = load()
    bad = uncovered(dash, emitted)
    assert not bad, "the exporter emits what no panel shows: %s" % bad
    # negative: take the "Busy %", "Drops by reason" and fleet panels away, and filter the
    # TX drops to one reason
    fake = copy.deepcopy(dash)
    fake["panels"] = [p for p in fake["panels"]
                      if p.get("title") not in ("Busy %", "Drops by reason", "Fleet rx and tx")]
    for p in fake["panels"]:
        for t in p.get("targets", []):
            if "udpfan_tx_drop_total" in t["expr"] and "by (instance, reason)" in t["expr"]:
                t["expr"] = 'sum by (instance) (rate(udpfan_tx_drop_total{reason="nombuf"}[1m]))'
    bad = uncovered(fake, emitted)
    assert "udpfan_lcore_busy_ratio" in bad, bad
    assert any(b.startswith("udpfan_drop_total: no query groups by reason") for b in bad), bad
    assert any(b.startswith("udpfan_tx_drop_total: no query groups by reason") for b in bad), bad
    # the dashboard is what meson installs (deploy/meson.build)
    with open(os.path.join(UF_SRC, "deploy", "meson.build")) as f:
        assert "grafana/udpfan.json" in f.read()


def main():
    s = Suite()
    if not s.listing and os.geteuid() != 0:
        need_root()
    for kind in ("af_xdp", "af_packet"):
        s.run(case_live, kind)
    s.run(case_covers_counters)
    s.finish()


if __name__ == "__main__":
    main()
