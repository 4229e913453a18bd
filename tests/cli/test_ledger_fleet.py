#!/usr/bin/env python3
"""scripts/ledger.py --fleet: the ledger of several hosts from their stats files (one per host,
tests/data/fleet/, counters of two real runs), each host's line and the fleet's sum line.

  balanced: the two recorded hosts; every identity holds on each and on the sums, exit 0;
  unbalanced: a host whose tx_ok lost 5 copies no counter explains: named, exit 1;
  cancelling: +3 frames on one host and -3 on the other leave the fleet's sums balanced, and
      the per-host lines still catch both, exit 1;
  interval: a file without a final object is read from its last object and marked."""
import copy
import json
import os
import subprocess
import sys
import tempfile

from ufrun import UF_SRC, Suite

LEDGER = os.path.join(UF_SRC, "scripts", "ledger.py")
DATA = os.path.join(UF_SRC, "tests", "data", "fleet")
HOSTS = [os.path.join(DATA, h + ".stats.json") for h in ("host-a", "host-b")]


def run(*args):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "fleet.json")
        r = subprocess.run([sys.executable, LEDGER, "--fleet"] + list(args) + ["--json", out],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=60)
        res = json.load(open(out)) if os.path.exists(out) else None
    print(r.stdout)
    return r, res


def objs(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def write(d, name, objects):
    p = os.path.join(d, name)
    with open(p, "w") as f:
        for o in objects:
            f.write(json.dumps(o) + "\n")
    return p


def case_balanced():
    r, res = run(*HOSTS)
    assert r.returncode == 0, r.stdout
    assert [h["host"] for h in res["hosts"]] == ["host-a", "host-b"], res["hosts"]
    a, b = (h["ledger"] for h in res["hosts"])
    for k, v in res["fleet"].items():
        assert v == a[k] + b[k], (k, v, a[k], b[k])
    assert res["fleet"]["rx"] == 112640 + 198063, res["fleet"]
    assert res["fleet_gaps"] == {"rx": 0, "fanout": 0, "copies": 0}, res["fleet_gaps"]
    # the NIC's losses beside, not folded in: the recorded runs' AF_XDP rx_ring_full
    assert res["fleet"]["nic_lost"] == 323063 + 401953, res["fleet"]
    assert "fleet balances" in r.stdout and res["problems"] == [], r.stdout
    # a name given on the command line
    r, res = run("edge-1=" + HOSTS[0])
    assert r.returncode == 0 and res["hosts"][0]["host"] == "edge-1", r.stdout


def case_unbalanced():
    with tempfile.TemporaryDirectory() as d:
        o = objs(HOSTS[1])
        o[-1]["fwd"]["tx_ok"] -= 5
        bad = write(d, "host-b.stats.json", o)
        r, res = run(HOSTS[0], bad)
    assert r.returncode == 1, r.stdout
    assert res["problems"] == ["host-b: copies gap 5"], res["problems"]
    assert res["unexplained"] == 5 and res["fleet_gaps"]["copies"] == 5, res
    assert "UNEXPLAINED: host-b: copies gap 5" in r.stdout, r.stdout


def case_cancelling():
    with tempfile.TemporaryDirectory() as d:
        a, b = objs(HOSTS[0]), objs(HOSTS[1])
        a[-1]["fwd"]["rx"] += 3
        b[-1]["fwd"]["rx"] -= 3
        r, res = run(write(d, "a.stats.json", a), write(d, "b.stats.json", b))
    assert r.returncode == 1, r.stdout
    assert res["fleet_gaps"]["rx"] == 0, res["fleet_gaps"]
    assert res["problems"] == ["a: rx gap 3", "b: rx gap -3"], res["problems"]
    assert res["unexplained"] == 6, res


def case_interval():
    with tempfile.TemporaryDirectory() as d:
        fin = objs(HOSTS[0])[-1]
        early = copy.deepcopy(fin)
        del early["final"]
        early["fwd"]["rx"] -= 1000  # an interval object before the final one: not used
        both = write(d, "both.stats.json", [early, fin])
        only = copy.deepcopy(fin)
        del only["final"]
        r, res = run(both, write(d, "live.stats.json", [only]))
    assert r.returncode == 0, r.stdout
    assert [h["final"] for h in res["hosts"]] == [True, False], res["hosts"]
    assert res["hosts"][0]["ledger"]["rx"] == fin["fwd"]["rx"], res["hosts"][0]
    assert "live (interval)" in r.stdout and "approximate" in r.stdout, r.stdout


def main():
    s = Suite()
    s.run(case_balanced)
    s.run(case_unbalanced)
    s.run(case_cancelling)
    s.run(case_interval)
    s.finish()


if __name__ == "__main__":
    main()
