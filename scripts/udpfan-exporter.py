#!/usr/bin/env python3
"""udpfan-exporter: udpfan's counters in the Prometheus text format.

Reads udpfan's DPDK telemetry socket (/udpfan/stats, the same object as a stats JSON line) at
every scrape and serves it with python3-prometheus-client on a localhost port:

    scripts/udpfan-exporter.py --file-prefix udpfan --listen 127.0.0.1:9917
    curl -s 127.0.0.1:9917/metrics

Metric names and labels: docs/loss-accounting.md ("Prometheus"). Counters are cumulative
since udpfan started (they reset when it restarts, as Prometheus expects of counters).
"""
import argparse
import json
import os
import socket
import sys
import time

from prometheus_client import start_http_server
from prometheus_client.core import REGISTRY, CounterMetricFamily, GaugeMetricFamily


def runtime_dir(prefix):
    base = "/var/run/dpdk" if os.geteuid() == 0 else os.environ.get(
        "XDG_RUNTIME_DIR", "/tmp") + "/dpdk"
    return os.path.join(base, prefix)


class Telemetry:
    """One request/answer exchange per call on DPDK's SOCK_SEQPACKET telemetry socket."""

    def __init__(self, path, timeout=2.0):
        self.path = path
        self.timeout = timeout

    def query(self, cmd):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.settimeout(self.timeout)
        try:
            s.connect(self.path)
            info = json.loads(s.recv(1024).decode())
            bufsz = int(info.get("max_output_len", 16384)) + 1024
            s.send(cmd.encode())
            return json.loads(s.recv(bufsz).decode())[cmd.split(",")[0]]
        finally:
            s.close()


def c(name, doc, value):
    m = CounterMetricFamily(name, doc)
    m.add_metric([], value)
    return m


class Collector:
    def __init__(self, tel):
        self.tel = tel

    def collect(self):
        up = GaugeMetricFamily("udpfan_up", "1 when udpfan's telemetry socket answered")
        try:
            st = self.tel.query("/udpfan/stats")
        except (OSError, ValueError, KeyError) as e:
            print("udpfan-exporter: %s: %s" % (self.tel.path, e), file=sys.stderr)
            st = None
        if not isinstance(st, dict) or "fwd" not in st:
            # not running, or no stats interval has passed yet: telemetry answers null
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        f = st["fwd"]
        for key, doc in (("rx", "frames received on every port"),
                         ("forwarded", "datagrams accepted for fan-out"),
                         ("control", "ARP/ICMP frames handed to the control plane"),
                         ("fanout", "datagram x destination pairs planned"),
                         ("sampled_out", "copies skipped by per-destination sampling"),
                         ("copies_attempted", "copies built or attempted"),
                         ("tx_ok", "copies the PMD accepted"),
                         ("tx_retries", "extra tx_burst calls while a TX ring was full"),
                         ("chained", "copies sent as a header chained to the shared payload"),
                         ("csum_completed", "datagrams whose partial UDP checksum was "
                          "completed before fan-out")):
            yield c("udpfan_%s_total" % key, doc, f[key])
        drop = CounterMetricFamily("udpfan_drop_total", "received frames not forwarded",
                                   labels=["reason"])
        for reason, v in f["drop"].items():
            drop.add_metric([reason], v)
        yield drop
        txd = CounterMetricFamily("udpfan_tx_drop_total", "attempted copies that did not "
                                  "reach the PMD", labels=["reason"])
        for reason, v in f["tx_drop"].items():
            txd.add_metric([reason], v)
        yield txd
        for sec in ("arp", "icmp"):
            for key, v in st[sec].items():
                yield c("udpfan_%s_%s_total" % (sec, key), "%s %s" % (sec, key), v)

        port_counters = {}
        for pname, p in st["ports"].items():
            for key in ("ipackets", "opackets", "ibytes", "obytes", "imissed", "ierrors",
                        "oerrors", "rx_nombuf"):
                m = port_counters.setdefault(key, CounterMetricFamily(
                    "udpfan_port_%s_total" % key, "the PMD's own %s (rte_eth_stats)" % key,
                    labels=["port", "driver"]))
                m.add_metric([pname, p["driver"]], p[key])
        yield from port_counters.values()
        xs = CounterMetricFamily("udpfan_port_xstat_total", "loss-relevant extended stats "
                                 "named in the PMD's quirk row", labels=["port", "name"])
        xsk = CounterMetricFamily("udpfan_port_xsk_total", "AF_XDP socket counters read from "
                                  "the PMD's own sockets", labels=["port", "name"])
        link = GaugeMetricFamily("udpfan_port_link_up", "link state", labels=["port"])
        resets = CounterMetricFamily("udpfan_port_resets_total", "device resets handled",
                                     labels=["port"])
        downs = CounterMetricFamily("udpfan_port_link_downs_total", "link down transitions",
                                    labels=["port"])
        stalled = GaugeMetricFamily("udpfan_port_tx_stalled", "1 while the port is skipped "
                                    "for making no TX progress", labels=["port"])
        retries = CounterMetricFamily("udpfan_port_reset_retries_total", "resets the PMD "
                                      "called -EAGAIN and udpfan tried again", labels=["port"])
        faults = CounterMetricFamily("udpfan_port_fault_resets_total", "resets requested "
                                     "because a reset-worthy xstat rose", labels=["port"])
        early = CounterMetricFamily("udpfan_port_rx_before_ready_total",
                                    "frames discarded at start-up, before the port was "
                                    "ready (af_packet; not in udpfan_rx_total)",
                                    labels=["port"])
        for pname, p in st["ports"].items():
            for name, v in p.get("xstats", {}).items():
                if v is not None:  # null: an implausible reading, unavailable
                    xs.add_metric([pname, name], v)
            for name, v in p.get("xsk", {}).items():
                if name != "sockets":
                    xsk.add_metric([pname, name], v)
            link.add_metric([pname], p["link_up"])
            resets.add_metric([pname], p.get("resets", 0))
            downs.add_metric([pname], p.get("link_downs", 0))
            stalled.add_metric([pname], 1 if p.get("tx_stalled") else 0)
            retries.add_metric([pname], p.get("reset_retries", 0))
            faults.add_metric([pname], p.get("fault_resets", 0))
            early.add_metric([pname], p.get("rx_before_ready", 0))
        yield xs
        yield xsk
        yield link
        yield resets
        yield downs
        yield stalled
        yield retries
        yield faults
        yield early

        lrx = CounterMetricFamily("udpfan_lcore_rx_total", "frames a worker received",
                                  labels=["lcore"])
        ltx = CounterMetricFamily("udpfan_lcore_tx_total", "frames a worker sent",
                                  labels=["lcore"])
        busy = GaugeMetricFamily("udpfan_lcore_busy_ratio", "cycles in loop passes that "
                                 "received something / all cycles (busy-poll CPU is always "
                                 "100%%; this is the useful part)", labels=["lcore"])
        for lc, v in st["lcores"].items():
            lrx.add_metric([lc], v["rx"])
            ltx.add_metric([lc], v["tx"])
            busy.add_metric([lc], float(v["busy_pct"]) / 100.0)
        yield lrx
        yield ltx
        yield busy

        labels = ["index", "ip", "udp_port", "port"]
        dm = {k: CounterMetricFamily("udpfan_destination_%s_total" % k, doc, labels=labels)
              for k, doc in (("tx_ok", "copies the PMD accepted for this destination"),
                             ("tx_drop", "copies lost for this destination, every reason"),
                             ("sampled_out", "datagrams sampling kept from it"),
                             ("no_neighbor", "copies dropped while its MAC was unresolved"))}
        res = GaugeMetricFamily("udpfan_destination_resolved", "1 when the next hop's MAC is "
                                "usable (static, reachable or being re-probed)", labels=labels)
        for idx, d in sorted(st.get("destinations", {}).items(), key=lambda kv: int(kv[0])):
            lv = [idx, d["ip"], str(d["udp_port"]), d["port"]]
            for k in dm:
                dm[k].add_metric(lv, d[k])
            res.add_metric(lv, 1 if d["state"] in ("static", "multicast", "reachable",
                                                   "probe") else 0)
        yield from dm.values()
        yield res


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--file-prefix", default="udpfan", help="udpfan's eal.file_prefix")
    ap.add_argument("--socket", help="telemetry socket path (default: from the prefix)")
    ap.add_argument("--listen", default="127.0.0.1:9917", help="address:port to serve on")
    a = ap.parse_args()
    path = a.socket or os.path.join(runtime_dir(a.file_prefix), "dpdk_telemetry.v2")
    host, port = a.listen.rsplit(":", 1)
    REGISTRY.register(Collector(Telemetry(path)))
    start_http_server(int(port), addr=host)
    print("udpfan-exporter: serving %s on http://%s/metrics" % (path, a.listen), flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
