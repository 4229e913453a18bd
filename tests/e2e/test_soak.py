#!/usr/bin/env python3
"""e2e: the soak (scripts/soak.py) for one minute on the veth test bed: udpfan-gen ->
udpfan (af_xdp) -> three kernel sinks at 10 kpps, udpfan sampled every 10 s.

  1. the pass criteria themselves, on made-up samples: a VmRSS growth of more than 1 MiB,
     an fd more, a hugepage file more and an interval with nothing forwarded each fail
     the soak, and a sink short of one datagram does too;
  2. the real minute: it passes (memory flat, every datagram received by every sink,
     nothing unexplained), with a sample every 10 s that saw udpfan's own process."""
import copy
import json
import os
import subprocess
import sys
import types

from ufrun import UF_SRC, SkipCase, Suite, tmpdir

SOAK = os.path.join(UF_SRC, "scripts", "soak.py")
sys.path.insert(0, os.path.join(UF_SRC, "scripts"))


def case_criteria():
    import soak
    a = types.SimpleNamespace(rss_growth_kib=1024, rate=100, duration=30)
    base = {"t": 10, "rss_kib": 20000, "hugetlb_kib": 40960, "hugepage_files": 20, "fds": 40,
            "threads": 5, "forwarded": 1000}
    samples = [dict(base, t=10 * (i + 1), forwarded=1000 * (i + 1)) for i in range(3)]
    res = {"gen": {"sent": 3000}, "unexplained": 0,
           "sinks": [{"ip": "198.18.0.21", "received": 3000, "duplicated": 0}]}
    assert soak.judge(a, res, samples) == [], soak.judge(a, res, samples)
    for key, val, what in (("rss_kib", 20000 + 1025, "VmRSS grew"), ("fds", 41, "fds"),
                           ("hugepage_files", 21, "hugepage_files"),
                           ("forwarded", 2000, "nothing forwarded")):
        s2 = copy.deepcopy(samples)
        s2[2][key] = val
        bad = soak.judge(a, res, s2)
        assert len(bad) == 1 and what in bad[0], (key, bad)
    r2 = copy.deepcopy(res)
    r2["sinks"][0]["received"] = 2999
    bad = soak.judge(a, r2, samples)
    assert len(bad) == 1 and "received 2999 of 3000" in bad[0], bad
    assert soak.judge(a, res, samples[:1]), "one sample cannot show memory is flat"


def case_one_minute():
    if os.geteuid() != 0:
        raise SkipCase("needs root (network namespaces)")
    out = os.path.join(tmpdir(), "soak.json")
    r = subprocess.run([sys.executable, SOAK, "--duration", "60", "--sample", "10",
                        "--json", out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=400)
    print(r.stdout[-4000:])
    with open(out) as f:
        res = json.load(f)
    assert r.returncode == 0 and res["passed"], res["failures"]
    assert len(res["samples"]) >= 5, res["samples"]
    for s in res["samples"]:
        assert s["rss_kib"] > 0 and s["fds"] > 0 and s["threads"] >= 2, s
    sent = res["ledger"]["gen"]["sent"]
    assert sent == 600000, sent
    assert [s["received"] for s in res["ledger"]["sinks"]] == [sent] * 3, res["ledger"]["sinks"]
    assert res["samples"][-1]["forwarded"] > res["samples"][0]["forwarded"] > 0


def main():
    s = Suite()
    s.run(case_criteria)
    s.run(case_one_minute)
    s.finish()


if __name__ == "__main__":
    main()
