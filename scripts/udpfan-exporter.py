#!/usr/bin/env python3
"""udpfan-exporter: udpfan's counters in the Prometheus text format.

Reads udpfan's DPDK telemetry socket (/udpfan/stats, the same object as a stats JSON line, and
/udpfan/health, the instance's state as of now) at every scrape and serves it with python3-prometheus-client on a localhost port:

    scripts/udpfan-exporter.py --file-prefix udpfan --listen 127.0.0.1:9917
    curl -s 127.0.0.1:9917/metrics

The metric families come from udpfan's own list of its counters (`udpfan --list-counters
--json`, asked once at start), so a counter udpfan adds is exported without a change here.
Metric names and labels: docs/loss-accounting.md ("Prometheus"). Counters are cumulative
since udpfan started (they reset when it restarts, as Prometheus expects of counters).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

# the socket's location and protocol, shared with udpfanctl: beside this script in a checkout,
# share/udpfan/python once installed (docs/deployment.md#install)
_here = os.path.dirname(os.path.realpath(__file__))
sys.path[:0] = [_here, os.path.join(_here, "..", "share", "udpfan", "python")]
from udpfan_telemetry import Telemetry, runtime_dir  # noqa: E402

from prometheus_client import start_http_server
from prometheus_client.core import REGISTRY, CounterMetricFamily, GaugeMetricFamily


# How each group of `udpfan --list-counters --json` becomes metric families: the name
# ("{key}": one family per counter, else one family holding the group's counters under the
# label "reason" or "name") and the labels. A counter added to udpfan's lists (one line in
# lib/stats/uf_counters.h) is exported without a line here.
FAMILIES = {
    "fwd": ("udpfan_{key}", ()),
    "fwd.drop": ("udpfan_drop", ("reason",)),
    "fwd.tx_drop": ("udpfan_tx_drop", ("reason",)),
    "arp": ("udpfan_arp_{key}", ()),
    "ndp": ("udpfan_ndp_{key}", ()),
    "icmp": ("udpfan_icmp_{key}", ()),
    "icmp6": ("udpfan_icmp6_{key}", ()),
    "healthcheck": ("udpfan_healthcheck_{key}", ()),
    "control": ("udpfan_control_{key}", ()),
    "reload": ("udpfan_reload_{key}", ()),
    "port.stats": ("udpfan_port_{key}", ("port", "driver")),
    "port": ("udpfan_port_{key}", ("port",)),
    "port.xsk": ("udpfan_port_xsk", ("port", "name")),
    "port.pkt_socket": ("udpfan_port_pkt_socket", ("port", "name")),
    "lcore": ("udpfan_lcore_{key}", ("lcore",)),
    "destination": ("udpfan_destination_{key}", ("index", "ip", "udp_port", "port")),
    "listener": ("udpfan_listener_{key}", ("index", "ip", "udp_port", "port")),
}
DEST_LABELS = FAMILIES["destination"][1]
# the instance's states (docs/deployment.md#health-and-drain): udpfan_health_state is one-hot
HEALTH_STATES = ("starting", "ready", "draining", "stopping")


def family_of(group):
    """(name template, labels) of a group; a group this exporter does not know yet gets a
    name from the group and the labels of the placeholders in its paths"""
    return FAMILIES.get(group, ("udpfan_%s_{key}" % group.replace(".", "_"), None))


def metric_name(counter):
    name, _ = family_of(counter["group"])
    return name.format(key=counter["key"])


def find_udpfan():
    """udpfan's binary: $UDPFAN, the build next to this script, or udpfan on the PATH"""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "udpfan")
    for p in (os.environ.get("UDPFAN"), here, shutil.which("udpfan")):
        if p and os.access(p, os.X_OK):
            return p
    return "udpfan"


def load_schema(udpfan):
    """every counter udpfan reports, with its help: `udpfan --list-counters --json`"""
    r = subprocess.run([udpfan, "--list-counters", "--json"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=30, check=True)
    return json.loads(r.stdout)


def expand(obj, parts, bound=()):
    """the values at a schema path in a telemetry answer; a placeholder (<port>, <lcore>,
    <index>) goes over every entry, bound with its key and its object"""
    if not parts:
        yield bound, obj
        return
    head, rest = parts[0], parts[1:]
    if not isinstance(obj, dict):
        return
    if head.startswith("<"):
        for k, v in obj.items():
            yield from expand(v, rest, bound + ((head, k, v),))
    elif head in obj:
        yield from expand(obj[head], rest, bound)


def labels_of(bound):
    lv = {}
    for ph, k, v in bound:
        if ph == "<port>":
            lv.update(port=k, driver=v.get("driver", ""))
        elif ph == "<lcore>":
            lv["lcore"] = k
        elif ph == "<index>":
            lv.update(index=k, ip=v.get("ip", ""), udp_port=str(v.get("udp_port", "")),
                      port=v.get("port", ""))
    return lv


class Collector:
    def __init__(self, tel, schema):
        self.tel = tel
        self.schema = schema
        self.drain_start = 0.0  # the drain under way's start (Unix time), 0 when none

    def drain_started(self, h, now):
        """while draining: when the drain began, now - (drain_s - drain_left_s) as of the
        first scrape that saw it, kept for the rest of the drain (so a drain that outlives
        drain_s shows its true age); 0 otherwise"""
        if h.get("state") != "draining":
            self.drain_start = 0.0
        elif not self.drain_start:
            done = float(h.get("drain_s", 0)) - float(h.get("drain_left_s", 0))
            self.drain_start = now - max(done, 0.0)
        return self.drain_start

    def counters(self, st):
        """the metric families of every counter in the schema"""
        fams = {}
        groups = self.schema.get("groups", {})
        for ctr in self.schema["counters"]:
            tmpl, labels = family_of(ctr["group"])
            name = tmpl.format(key=ctr["key"])
            keyed = "{key}" not in tmpl
            for bound, v in expand(st, ctr["path"].split(".")):
                lv = labels_of(bound)
                if labels is None:
                    labels = tuple(k for k in ("port", "driver", "lcore") + DEST_LABELS
                                   if k in lv)
                if keyed:
                    lv["reason" if ctr["group"].startswith("fwd.") else "name"] = ctr["key"]
                    labels_k = labels + (("reason",) if ctr["group"].startswith("fwd.")
                                         else ("name",))
                else:
                    labels_k = labels
                m = fams.get(name)
                if m is None:
                    doc = groups.get(ctr["group"], ctr["group"]) if keyed else ctr["help"]
                    cls = GaugeMetricFamily if ctr["type"] == "gauge" else CounterMetricFamily
                    m = fams[name] = cls(name, doc, labels=list(labels_k))
                m.add_metric([str(lv.get(k, "")) for k in labels_k], int(v))
        return fams.values()

    def health(self, h):
        """the state (one-hot), degraded, the drain: from /udpfan/health (live) or the stats
        object's "health" (an older udpfan without the command)"""
        state = GaugeMetricFamily("udpfan_health_state", "1 for the state udpfan is in: "
                                  "starting, ready, draining, stopping", labels=["state"])
        for s in HEALTH_STATES:
            state.add_metric([s], 1 if h.get("state") == s else 0)
        yield state
        yield GaugeMetricFamily("udpfan_degraded", "1 while ready or draining with a "
                                "listening port down or a listener with no reachable "
                                "destination", value=int(h.get("degraded", 0)))
        yield GaugeMetricFamily("udpfan_drain_seconds", "control.drain_s: how long a SIGTERM "
                                "drains before the stop", value=int(h.get("drain_s", 0)))
        yield GaugeMetricFamily("udpfan_drain_left_seconds", "while draining: seconds until "
                                "the stop; else 0", value=float(h.get("drain_left_s", 0)))
        yield GaugeMetricFamily("udpfan_drain_start_seconds", "while draining: Unix time the "
                                "drain began; else 0", value=self.drain_started(h, time.time()))

    def collect(self):
        up = GaugeMetricFamily("udpfan_up", "1 when udpfan's telemetry socket answered")
        try:
            st = self.tel.query("/udpfan/stats")
        except (OSError, ValueError, KeyError) as e:
            print("udpfan-exporter: %s: %s" % (self.tel.path, e), file=sys.stderr)
            st = None
        try:
            h = self.tel.query("/udpfan/health")
        except (OSError, ValueError, KeyError):
            h = None
        if not isinstance(h, dict) and isinstance(st, dict):
            h = st.get("health")
        if not isinstance(st, dict) or "fwd" not in st:
            # not running, or no stats interval has passed yet: telemetry answers null
            up.add_metric([], 0)
            yield up
            if isinstance(h, dict):
                yield from self.health(h)  # starting: the state before the first interval
            return
        up.add_metric([], 1)
        yield up
        if isinstance(h, dict):
            yield from self.health(h)
        yield from self.counters(st)

        # what the schema cannot describe: the PMD's own xstat names, a ratio, a state
        xs = CounterMetricFamily("udpfan_port_xstat_total", "loss-relevant extended stats "
                                 "named in the PMD's quirk row", labels=["port", "name"])
        # levels, not counters (ENA's customer metrics, DPDK 23.11 on: docs/pmd-quirks.md)
        xg = GaugeMetricFamily("udpfan_port_xstat_level", "extended stats that are levels, "
                               "not counters", labels=["port", "name"])
        for pname, p in st["ports"].items():
            for name, v in p.get("xstats", {}).items():
                if v is not None:  # null: an implausible reading, unavailable
                    (xg if name in GAUGE_XSTATS else xs).add_metric([pname, name], v)
        yield xs
        yield xg  # declared without samples where no port has levels: the dashboard's panel
        busy = GaugeMetricFamily("udpfan_lcore_busy_ratio", "cycles in loop passes that "
                                 "received something / all cycles (busy-poll CPU is always "
                                 "100%; this is the useful part)", labels=["lcore"])
        for lc, v in st["lcores"].items():
            busy.add_metric([lc], float(v["busy_pct"]) / 100.0)
        yield busy
        res = GaugeMetricFamily("udpfan_destination_resolved", "1 when the next hop's MAC is "
                                "usable (static, reachable or being re-probed)",
                                labels=list(DEST_LABELS))
        for idx, d in sorted(st.get("destinations", {}).items(), key=lambda kv: int(kv[0])):
            lv = [idx, d["ip"], str(d["udp_port"]), d["port"]]
            res.add_metric(lv, 1 if d["state"] in ("static", "multicast", "reachable",
                                                   "probe") else 0)
        yield res


# xstats that are levels (lib/port/uf_ena_metrics.c, uf_xstat_gauge)
GAUGE_XSTATS = {"conntrack_allowance_available"}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--file-prefix", default="udpfan", help="udpfan's eal.file_prefix")
    ap.add_argument("--socket", help="telemetry socket path (default: from the prefix)")
    ap.add_argument("--listen", default="127.0.0.1:9917", help="address:port to serve on")
    ap.add_argument("--udpfan", help="udpfan's binary, asked once for its counters "
                    "(--list-counters --json; default: $UDPFAN, ../build/udpfan, the PATH)")
    ap.add_argument("--list-metrics", action="store_true",
                    help="print the metric name of every counter and exit")
    a = ap.parse_args()
    try:
        schema = load_schema(a.udpfan or find_udpfan())
    except (OSError, ValueError, subprocess.SubprocessError) as e:
        sys.exit("udpfan-exporter: cannot ask udpfan for its counters: %s" % e)
    if a.list_metrics:
        for ctr in schema["counters"]:
            print("%s %s %s" % (ctr["path"], metric_name(ctr), ctr["type"]))
        return
    path = a.socket or os.path.join(runtime_dir(a.file_prefix), "dpdk_telemetry.v2")
    host, port = a.listen.rsplit(":", 1)
    REGISTRY.register(Collector(Telemetry(path), schema))
    start_http_server(int(port), addr=host)
    print("udpfan-exporter: serving %s on http://%s/metrics" % (path, a.listen), flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
