#!/usr/bin/env python3
"""The command line contract of docs/configuration.md#command-line: --check on every example
config, one `udpfan: error: FILE:LINE:COL: key: ...` line and exit 2 for each bad config,
exit 3 for an environment problem, --version, --help, --list-quirks --json."""
import glob
import json
import os
import subprocess
import sys

from ufrun import UDPFAN, UF_SRC, Suite, tmpdir

# file, expected line:col, key, a fragment of the message
BAD = [
    ("bad_ip.yaml", "6:11", "destinations[1].ip", '"10.0.1" is not an IPv4 address'),
    ("unknown_key.yaml", "5:5", "ports[0].speed", "unknown key"),
    ("missing_port.yaml", "4:9", "listen.port", 'no port is named "wan"'),
    ("syntax.yaml", "3:7", "YAML", ""),
    ("shadowed_rule.yaml", "9:5", "rules[1]", "can never match"),
    ("off_subnet.yaml", "5:5", "destinations[0]", "has no gateway"),
    ("port_range.yaml", "3:32", "listen.udp_port", "out of range"),
    ("burst_small.yaml", "6:19", "forward.burst",
     "3 is out of range 4..64 (the vector RX paths of i40e, ixgbe, ice, iavf and mlx5 round"),
    ("ipv6_no_ip6.yaml", "8:5", "destinations[1]", "is IPv6 and port lan has no ip6"),
    ("ipv6_original.yaml", "9:5", "destinations[1]",
     "source: original keeps the sender's IPv4 address, which an IPv6 destination"),
    ("service_own.yaml", "6:28", "ports[1].service[1]", "198.18.0.10 is port lan's own address"),
]


def run(*args):
    return subprocess.run([UDPFAN] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=30)


def case_examples_check():
    files = sorted(glob.glob(os.path.join(UF_SRC, "config", "*.yaml")))
    assert len(files) >= 5, files
    for f in files:
        r = run("-c", f, "--check")
        assert r.returncode == 0, "%s: --check exited %d: %s" % (f, r.returncode, r.stderr)
        assert "valid" in r.stdout, r.stdout


def case_bad_configs():
    for name, pos, key, frag in BAD:
        path = os.path.join(UF_SRC, "tests", "data", "bad", name)
        for extra in (["--check"], []):
            r = run("-c", path, *extra)
            assert r.returncode == 2, "%s %s: exit %d, expected 2: %s" % (name, extra,
                                                                         r.returncode, r.stderr)
            lines = [ln for ln in r.stderr.splitlines() if ln.startswith("udpfan: error:")]
            assert len(lines) == 1, r.stderr
            want = "udpfan: error: %s:%s: %s" % (path, pos, key)
            assert lines[0].startswith(want), "%r does not start with %r" % (lines[0], want)
            assert frag in lines[0], "%r lacks %r" % (lines[0], frag)


def case_env_error():
    """a vdev on an interface that does not exist: exit 3 before EAL, naming the fix"""
    wd = tmpdir()
    cfg = os.path.join(wd, "c.yaml")
    with open(cfg, "w") as f:
        f.write("eal: { no_huge: true }\nports:\n  - { name: lan, device: "
                "\"net_af_packet0,iface=ufnosuchif0\", ip: 198.18.0.10/24 }\n"
                "listen: { port: lan, udp_port: 5000 }\n"
                "destinations:\n  - { ip: 198.18.0.21, udp_port: 6000 }\n")
    r = run("-c", cfg)
    assert r.returncode == 3, (r.returncode, r.stderr)
    assert "udpfan: error:" in r.stderr and ("ufnosuchif0" in r.stderr or "root" in r.stderr)
    r = run("-c", cfg, "--check")
    assert r.returncode == 0 and "udpfan: note:" in r.stderr, (r.returncode, r.stderr)


def case_check_line():
    """--check's line counts the listeners and says 1 of a thing in the singular"""
    wd = tmpdir()
    cfg = os.path.join(wd, "one.yaml")
    with open(cfg, "w") as f:
        f.write("eal: { no_huge: true }\nports:\n  - { name: lan, device: "
                "\"net_af_packet0,iface=ufnosuchif0\", ip: 198.18.0.10/24 }\n"
                "listen: { port: lan, udp_port: 5000 }\n"
                "destinations:\n  - { ip: 198.18.0.21, udp_port: 6000 }\n"
                "rules:\n  - { from: 0.0.0.0/0, to: [0] }\n")
    r = run("-c", cfg, "--check")
    want = "udpfan: %s: valid: 1 port, 1 listener, 1 destination, 1 rule; EAL: " % cfg
    assert r.returncode == 0 and r.stdout.startswith(want), (r.returncode, r.stdout, want)
    path = os.path.join(UF_SRC, "config", "listeners.yaml")
    r = run("-c", path, "--check")
    assert r.returncode == 0 and ", 3 listeners, " in r.stdout, (r.returncode, r.stdout)


def case_usage():
    r = run()
    assert r.returncode == 2 and r.stderr.startswith("udpfan: error: no config"), r.stderr
    r = run("-c", "/nonexistent/udpfan.yaml")
    assert r.returncode == 2 and "cannot open" in r.stderr, r.stderr
    r = run("-c", os.path.join(UF_SRC, "config", "af-xdp.yaml"), "--duration", "abc")
    assert r.returncode == 2 and "--duration" in r.stderr, r.stderr
    r = run("--version")
    assert r.returncode == 0 and r.stdout.startswith("udpfan ") and "DPDK" in r.stdout
    r = run("--help")
    assert r.returncode == 0 and "--stats-json" in r.stdout


def case_list_quirks():
    r = run("--list-quirks", "--json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    names = {row["driver"] for row in rows}
    for d in ("net_ena", "net_ice", "net_i40e", "net_ixgbe", "mlx5", "net_iavf", "net_virtio",
              "net_vmxnet3", "net_af_xdp", "net_af_packet", "net_tap", "net_ring", "net_null",
              "net_pcap", "net_memif", "*"):
        assert d in names, "row %s missing" % d
    for row in rows:
        assert row["source"], row
    af = [r for r in rows if r["driver"] == "net_af_xdp"][0]
    assert af["multiseg_tx_ok"] is False and af["sw_pad60"] is True
    r = run("--list-quirks")
    assert r.returncode == 0 and "net_ena" in r.stdout


def case_list_counters():
    """--list-counters describes every counter once; the exporter names a metric for each,
    and docs/loss-accounting.md names each metric family (the Prometheus table)"""
    r = run("--list-counters", "--json")
    assert r.returncode == 0, r.stderr
    sch = json.loads(r.stdout)
    paths = [c["path"] for c in sch["counters"]]
    assert len(paths) == len(set(paths)), "a path twice"
    for want in ("fwd.rx", "fwd.drop.no_rule", "fwd.tx_drop.link_down", "control.unhandled",
                 "ports.<port>.rx_before_ready", "ports.<port>.xsk.fill_ring_empty",
                 "destinations.<index>.no_neighbor", "lcores.<lcore>.tx"):
        assert want in paths, want
    for c in sch["counters"]:
        assert c["help"] and c["type"] in ("counter", "gauge") and c["group"], c
    r = run("--list-counters")
    assert r.returncode == 0 and len(r.stdout.splitlines()) == len(paths), r.stdout
    env = dict(os.environ, UDPFAN=UDPFAN)
    r = subprocess.run([sys.executable, os.path.join(UF_SRC, "scripts", "udpfan-exporter.py"),
                        "--list-metrics"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, env=env, timeout=60)
    if r.returncode != 0 and "prometheus_client" in r.stderr:
        print("  (prometheus_client missing: exporter not checked)")
        return
    assert r.returncode == 0, r.stderr
    metrics = dict(line.split()[:2] for line in r.stdout.splitlines())
    assert set(metrics) == set(paths), set(paths) ^ set(metrics)
    with open(os.path.join(UF_SRC, "docs", "loss-accounting.md")) as f:
        doc = f.read()
    prom = doc[doc.index("## Prometheus"):]
    for path, name in metrics.items():
        c = [x for x in sch["counters"] if x["path"] == path][0]
        full = name + ("" if c["type"] == "gauge" else "_total")
        # a family per field may be documented as udpfan_<object>_<field>_total
        generic = name[:len(name) - len(c["key"])] + "<field>_total"
        assert "`%s`" % full in prom or "`%s`" % generic in prom, \
            "docs/loss-accounting.md (Prometheus) does not name %s (%s)" % (full, path)


def main():
    s = Suite()
    s.run(case_examples_check)
    s.run(case_bad_configs)
    s.run(case_env_error)
    s.run(case_check_line)
    s.run(case_usage)
    s.run(case_list_quirks)
    s.run(case_list_counters)
    s.finish()


if __name__ == "__main__":
    main()
