#!/usr/bin/env python3
"""deploy/prometheus/: the recording and alerting rules, checked offline with promtool
(Debian's prometheus package; scripts/setup.sh deps installs it).

- check_rules: `promtool check rules` accepts the rules file; a broken expression is refused.
- test_rules: `promtool test rules` passes over deploy/prometheus/tests/*.yml, recorded input
  series in which every alert fires for one host and stays quiet for another; a copy of the
  rules with one alert's filter taken away fails them (the negative case).
- every_alert_tested: each alert of the rules file has a test where it fires and one where it
  does not.
- metric_names: every udpfan_* metric a rule reads is one scripts/udpfan-exporter.py emits
  (udpfan's counter list through the exporter's naming, and the families it adds), but for
  udpfan_upstream_sent_datagrams_total, the senders' counter the operator maps
  (docs/deployment.md, "Prometheus rules"); a made-up name is reported.
- dashboard_parses: every query of the Grafana dashboard parses as PromQL (promtool).
- exporter_drain_start: udpfan_drain_start_seconds, the gauge the drain alert reads: 0 when
  not draining, the drain's start while draining, kept when the drain outlives drain_s.
"""
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
import time

import yaml

from ufrun import Suite

UF_SRC = os.environ.get("UF_SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
PROM = os.path.join(UF_SRC, "deploy", "prometheus")
RULES = os.path.join(PROM, "udpfan-rules.yml")
TESTS = sorted(glob.glob(os.path.join(PROM, "tests", "*.yml")))
EXPORTER = os.path.join(UF_SRC, "scripts", "udpfan-exporter.py")
# the senders' own count, not udpfan's: the operator maps it (docs/deployment.md)
MAPPED = {"udpfan_upstream_sent_datagrams_total"}
NAME = re.compile(r"\b[a-zA-Z_:][a-zA-Z0-9_:]*\b")


def promtool(*args, cwd=None):
    tool = shutil.which("promtool")
    assert tool, "promtool is missing (Debian's prometheus package): run scripts/setup.sh deps"
    return subprocess.run([tool] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=120, cwd=cwd)


def rules(path=RULES):
    with open(path) as f:
        return [r for g in yaml.safe_load(f)["groups"] for r in g["rules"]]


def case_check_rules():
    r = promtool("check", "rules", RULES)
    assert r.returncode == 0, r.stdout
    m = re.search(r"SUCCESS: (\d+) rules found", r.stdout)
    assert m and int(m.group(1)) == len(rules()), r.stdout
    # negative: an expression that does not parse
    with tempfile.TemporaryDirectory() as d:
        bad = os.path.join(d, "bad.yml")
        with open(RULES) as f:
            text = f.read()
        with open(bad, "w") as f:
            f.write(text.replace("sum(rate(udpfan_rx_total[5m]))", "sum(rate(udpfan_rx_total[5m])"))
        r = promtool("check", "rules", bad)
        assert r.returncode != 0 and "udpfan:fleet_rx:rate5m" in r.stdout, r.stdout


def run_tests(rules_dir):
    """promtool test rules over the recorded tests, with the rules file of rules_dir"""
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "tests"))
        shutil.copy(os.path.join(rules_dir, "udpfan-rules.yml"), d)
        for t in TESTS:
            shutil.copy(t, os.path.join(d, "tests"))
        names = [os.path.join("tests", os.path.basename(t)) for t in TESTS]
        return promtool("test", "rules", *names, cwd=d)


def case_test_rules():
    assert TESTS, "no tests in deploy/prometheus/tests"
    r = run_tests(PROM)
    print(r.stdout)
    assert r.returncode == 0, r.stdout
    assert r.stdout.count("SUCCESS") == len(TESTS), r.stdout
    # negative: the drop alert without its filter fires on drop.not_for_us too
    with tempfile.TemporaryDirectory() as d:
        with open(RULES) as f:
            text = f.read()
        broken = re.sub(r'\{reason!~"[^"]*"\}', "", text, count=1)
        assert broken != text
        with open(os.path.join(d, "udpfan-rules.yml"), "w") as f:
            f.write(broken)
        r = run_tests(d)
        assert r.returncode != 0 and "UdpfanDropsRising" in r.stdout, r.stdout


def case_every_alert_tested():
    alerts = {r["alert"] for r in rules() if "alert" in r}
    fires, quiet = set(), set()
    for t in TESTS:
        with open(t) as f:
            doc = yaml.safe_load(f)
        for test in doc["tests"]:
            for a in test.get("alert_rule_test", []):
                (fires if a.get("exp_alerts") else quiet).add(a["alertname"])
    assert alerts, RULES
    assert not alerts - fires, "alerts no test makes fire: %s" % sorted(alerts - fires)
    assert not alerts - quiet, "alerts no test keeps quiet: %s" % sorted(alerts - quiet)
    assert not (fires | quiet) - alerts, "tests of alerts the rules lack: %s" % \
        sorted((fires | quiet) - alerts)


def load_exporter():
    spec = importlib.util.spec_from_file_location("udpfan_exporter", EXPORTER)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def exporter_names():
    """every metric name the exporter can emit, as a scrape names it"""
    mod = load_exporter()
    schema = mod.load_schema(os.environ.get("UDPFAN", mod.find_udpfan()))
    out = set()
    for c in schema["counters"]:
        n = mod.metric_name(c)
        out.add(n + "_total" if c["type"] == "counter" else n)
    with open(EXPORTER) as f:
        src = f.read()
    for kind, n in re.findall(r'(Gauge|Counter)MetricFamily\(\s*"(udpfan_\w+)"', src):
        out.add(n + "_total" if kind == "Counter" and not n.endswith("_total") else n)
    return out


def unknown_names(rule_list, emitted):
    bad = []
    for r in rule_list:
        for n in set(NAME.findall(r["expr"])):
            if n.startswith("udpfan_") and n not in emitted and n not in MAPPED:
                bad.append("%s: %s" % (r.get("alert") or r.get("record"), n))
    return bad


def case_metric_names():
    emitted = exporter_names()
    assert {"udpfan_rx_total", "udpfan_drop_total", "udpfan_health_state",
            "udpfan_drain_start_seconds", "udpfan_port_xstat_total"} <= emitted, sorted(emitted)
    rl = rules()
    bad = unknown_names(rl, emitted)
    assert not bad, "rules read what the exporter does not emit: %s" % bad
    # negative: a misspelt counter is reported
    rl[0] = dict(rl[0], expr=rl[0]["expr"].replace("udpfan_rx_total", "udpfan_rx_frames_total"))
    assert any("udpfan_rx_frames_total" in b for b in unknown_names(rl, emitted))


def case_exporter_drain_start():
    mod = load_exporter()
    col = mod.Collector(None, {"counters": []})

    def gauges(h):
        return {m.name: m.samples[0].value for m in col.health(h)
                if m.name != "udpfan_health_state"}

    g = gauges({"state": "ready", "degraded": 0, "drain_s": 30, "drain_left_s": "0.000"})
    assert g["udpfan_drain_start_seconds"] == 0 and g["udpfan_drain_seconds"] == 30, g
    t0 = time.time()
    g = gauges({"state": "draining", "drain_s": 30, "drain_left_s": "20.000"})
    start = g["udpfan_drain_start_seconds"]
    assert abs(start - (t0 - 10)) < 2, (start, t0)
    # the drain outlives drain_s (left 0): its start stays where it was
    g = gauges({"state": "draining", "drain_s": 30, "drain_left_s": "0.000"})
    assert g["udpfan_drain_start_seconds"] == start, g
    g = gauges({"state": "stopping", "drain_s": 30, "drain_left_s": "0.000"})
    assert g["udpfan_drain_start_seconds"] == 0, g
    # the next drain has its own start
    g = gauges({"state": "draining", "drain_s": 30, "drain_left_s": "30.000"})
    assert abs(g["udpfan_drain_start_seconds"] - time.time()) < 2, g


def case_exporter_xstat_levels():
    """an xstat that is a level (ENA's conntrack_allowance_available) goes to the gauge
    udpfan_port_xstat_level, the counters to udpfan_port_xstat_total, a null to neither"""
    mod = load_exporter()

    class Tel:
        path = "fake"

        def query(self, cmd):
            if cmd == "/udpfan/health":
                return {"state": "ready"}
            return {"fwd": {}, "lcores": {}, "ports": {"eni1": {"xstats": {
                "pps_allowance_exceeded": 7, "bw_in_allowance_exceeded": None,
                "conntrack_allowance_available": 120000, "tx_drops": 0}}}}

    col = mod.Collector(Tel(), {"counters": []})
    fams = list(col.collect())
    # one family per name (a counter family "x_total" is named "x" in the scrape's TYPE)
    assert len({m.name for m in fams}) == len(fams), [m.name for m in fams]
    types = {m.name: m.type for m in fams}
    assert types["udpfan_port_xstat_level"] == "gauge", types
    assert types["udpfan_port_xstat"] == "counter", types
    got = {(s.name, s.labels["name"]): s.value for m in fams for s in m.samples
           if s.name.startswith("udpfan_port_xstat")}
    assert got == {("udpfan_port_xstat_total", "pps_allowance_exceeded"): 7,
                   ("udpfan_port_xstat_total", "tx_drops"): 0,
                   ("udpfan_port_xstat_level", "conntrack_allowance_available"): 120000}, got


def case_dashboard_parses():
    """every query of deploy/grafana/udpfan.json parses as PromQL (promtool, each as a
    recording rule, with Grafana's variables filled); a broken one is refused"""
    import json
    with open(os.path.join(UF_SRC, "deploy", "grafana", "udpfan.json")) as f:
        dash = json.load(f)
    exprs = []

    def walk(panels):
        for p in panels:
            exprs.extend(t["expr"] for t in p.get("targets", []))
            walk(p.get("panels", []))

    walk(dash["panels"])
    assert any("sum(rate(udpfan_rx_total" in e for e in exprs), "no fleet panel"

    def check(exprs):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "dash.yml")
            rl = [{"record": "dashboard:q%d" % i,
                   "expr": e.replace("$instance", ".*").replace("$__rate_interval", "1m")}
                  for i, e in enumerate(exprs)]
            with open(p, "w") as f:
                yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rl}]}, f)
            return promtool("check", "rules", p)

    r = check(exprs)
    assert r.returncode == 0 and "SUCCESS: %d rules" % len(exprs) in r.stdout, r.stdout
    r = check(exprs + ["sum by (instance (udpfan_rx_total)"])
    assert r.returncode != 0, r.stdout


def case_installed():
    """the rules are what meson installs (deploy/meson.build)"""
    with open(os.path.join(UF_SRC, "deploy", "meson.build")) as f:
        assert "prometheus/udpfan-rules.yml" in f.read()


def main():
    s = Suite()
    s.run(case_check_rules)
    s.run(case_test_rules)
    s.run(case_every_alert_tested)
    s.run(case_metric_names)
    s.run(case_exporter_drain_start)
    s.run(case_exporter_xstat_levels)
    s.run(case_dashboard_parses)
    s.run(case_installed)
    s.finish()


if __name__ == "__main__":
    main()
