#!/usr/bin/env python3
"""Bench 3 and the latency table on a host with 8+ idle cores (docs/benchmarks.md#bench-3-scaling,
#latency), in one run, printed beside the numbers docs/benchmarks.md has now.

    sudo scripts/bench/bighost.py [--workers 1,2,4,8] [--seconds 8] [--out DIR] [--shared]
                                  [--lat-rounds 9] [--lat-seconds 2] [--lat-rates 1000,10000,100000]
    scripts/bench/bighost.py --plan [--workers 1,2,4,8]     the CPUs it would use, nothing run
    scripts/bench/bighost.py --compare DIR                  the comparison again, from DIR
    scripts/bench/bighost.py --self-test                    CPU choice and docs parsing

scripts/bench/portable.sh run calls it with the carried binaries (UDPFAN, UDPFAN_GEN, TESTPMD).

CPUs: CPU 0 and its SMT siblings are left to the OS and this script. The W workers go on
isolated CPUs (/sys/devices/system/cpu/isolated, isolcpus=) when there are enough, one per
physical core before any SMT sibling; the main lcores on another CPU. With none isolated the
lcores are pinned to CPUs away from CPU 0 and the output says they were not isolated. Fewer
than W+2 online CPUs (CPU 0, a main lcore, W workers) for the largest W: refused, with the fix;
--shared runs anyway on inmem.py's own placement (workers share CPUs: not comparable).

Scaling: scripts/bench/inmem.py --scaling W --cpus MAIN,WORKERS (testpmd 5tswap, io and txonly
first on MAIN and the first worker's CPU, then udpfan N = 1 and N = 4 at each W, as inmem.py
runs them). Latency: scripts/bench/latency.py --cpus MAIN,GEN,FWD, the generator's TX lcore
and the forwarding lcore on two of the chosen CPUs, udpfan-1, udpfan-4 and testpmd-io turned
per point as latency.py does. Then one table: each new number, the one docs/benchmarks.md has
(parsed from the carried checkout, with its date and commit), new/docs; and which rows of
docs/benchmarks.md the run would replace. OUT gets compare.txt, compare.json, scaling.json,
scaling-log.txt, latency-log.txt, latency-raw/ and machine.txt.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
DOCS = os.path.join(SRC, "docs", "benchmarks.md")
SYS_CPU = "/sys/devices/system/cpu"


def parse_list(s):
    """a kernel CPU list ("0-3,8,10-11") as a sorted list"""
    out = set()
    for part in s.strip().split(","):
        if not part:
            continue
        if "-" in part:
            lo, hi = part.split("-")
            out.update(range(int(lo), int(hi) + 1))
        else:
            out.add(int(part))
    return sorted(out)


def fmt_list(cpus):
    return ",".join(str(c) for c in sorted(cpus)) or "none"


def read(path, default=""):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def topology(root=SYS_CPU):
    """online CPUs, isolated, nohz_full, SMT siblings and NUMA node of each"""
    online = parse_list(read(os.path.join(root, "online"), "0"))
    sib, node = {}, {}
    for c in online:
        d = os.path.join(root, "cpu%d" % c)
        sib[c] = set(parse_list(read(os.path.join(d, "topology", "thread_siblings_list"),
                                     str(c))))
        node[c] = 0
        try:
            node[c] = int(next(x[4:] for x in os.listdir(d) if re.match(r"node\d+$", x)))
        except (OSError, StopIteration):
            pass
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except OSError:
        allowed = online
    return {"online": online, "isolated": parse_list(read(os.path.join(root, "isolated"))),
            "nohz_full": parse_list(read(os.path.join(root, "nohz_full"))),
            "siblings": {c: sorted(s) for c, s in sib.items()}, "node": node,
            "allowed": allowed}


def plan(topo, workers):
    """the CPUs for `workers` workers: {"main", "workers", "latency", "isolated", "notes"}; a
    refusal is {"refused": message}"""
    online, iso = topo["online"], set(topo["isolated"])
    sib = {c: set(s) for c, s in topo["siblings"].items()}
    house = {0} | sib.get(0, set())
    # the process's affinity leaves isolated CPUs out; a cpuset that also leaves others out
    # makes them unusable
    usable = [c for c in online if c not in house and (c in topo["allowed"] or c in iso)]
    need = workers + 2
    if len(online) < need or len(usable) < workers + 1:
        return {"refused": (
            "bighost: %d workers need %d online CPUs (CPU 0 for the OS and this script, one "
            "for the main lcores, one per worker) and %d usable besides CPU 0 and its SMT "
            "siblings (%s); this host has %d online (%s), %d usable (%s). Fix: run on a host "
            "with at least %d idle CPUs, or ask for fewer workers (%s), or set SHARED=1 "
            "(--shared) to run with workers sharing CPUs: numbers that replace nothing in "
            "docs/benchmarks.md" % (
                workers, need, workers + 1, fmt_list(house), len(online), fmt_list(online),
                len(usable), fmt_list(usable), need,
                "W=" + ",".join(str(w) for w in (1, 2, 4, 8, 16) if w + 2 <= len(online) and
                                w + 1 <= len(usable)) if len(online) >= 3 and len(usable) >= 2
                else "none fits this host"))}
    # workers: isolated first, one thread per physical core before any sibling, then by id
    order = sorted(usable, key=lambda c: (c not in iso, c))
    chosen, notes = [], []
    for c in order:
        if len(chosen) < workers and not (sib.get(c, {c}) - {c}) & set(chosen):
            chosen.append(c)
    if len(chosen) < workers:
        notes.append("SMT: fewer physical cores than workers; some workers share a core with "
                     "another (hyper-threads)")
        for c in order:
            if len(chosen) < workers and c not in chosen:
                chosen.append(c)
    rest = [c for c in usable if c not in chosen]
    busy_cores = set().union(*(sib.get(c, {c}) for c in chosen))
    # the main lcores sleep (udpfan) or print once a second (testpmd): a CPU not isolated
    # and not a worker's SMT sibling first
    main = sorted(rest, key=lambda c: (c in busy_cores, c in iso, c))[0]
    n_iso = sum(c in iso for c in chosen)
    if n_iso == workers:
        isolated = "isolated"
    elif n_iso:
        isolated = "partly isolated"
        notes.append("only %d of %d worker CPUs isolated (%s): the others are pinned, not "
                     "isolated" % (n_iso, workers, fmt_list(c for c in chosen if c in iso)))
    else:
        isolated = "not isolated"
        notes.append("no isolated CPUs (/sys/devices/system/cpu/isolated is empty): the "
                     "lcores are pinned to CPUs %s but the scheduler may run other tasks "
                     "there; for isolated cores boot with isolcpus=%s nohz_full=%s "
                     "rcu_nocbs=%s" % ((fmt_list(chosen + [main]),) + (fmt_list(
                         chosen + [main]),) * 3))
    nohz = set(topo["nohz_full"])
    if chosen and not set(chosen) <= nohz:
        notes.append("nohz_full does not cover every worker CPU (nohz_full: %s): the tick "
                     "still interrupts them" % fmt_list(nohz))
    nodes = sorted({topo["node"].get(c, 0) for c in chosen + [main]})
    if len(nodes) > 1:
        notes.append("the chosen CPUs span NUMA nodes %s" % fmt_list(nodes))
    lat = None
    if len(chosen) >= 2:
        # the forwarding lcore where worker 1 ran, the generator's TX lcore on worker 2's
        lat = [main, chosen[1], chosen[0]]
    return {"main": main, "workers": chosen, "latency": lat, "isolated": isolated,
            "notes": notes, "house": sorted(house)}


# ---- docs/benchmarks.md as it is now ----------------------------------------------------

def section(text, title):
    i = text.find("\n## " + title)
    if i < 0:
        return ""
    j = text.find("\n## ", i + 4)
    return text[i:j if j > 0 else len(text)]


def num(cell):
    """the first number of a table cell ("2.3 [1.3]", "1,139")"""
    m = re.search(r"[\d,]*\.?\d+", cell)
    return float(m.group(0).replace(",", "")) if m else None


LAT_NAMES = {"udpfan N = 1": "udpfan-1", "udpfan N = 4": "udpfan-4", "testpmd io": "testpmd-io"}
LAT_COLS = ["p50", "p90", "p99", "p99_unstalled", "p999", "warm_p99"]
SCALE_COLS = ["n1_cpu", "n1_wall", "n4_cpu", "n4_wall"]


def parse_docs(text):
    """the Bench 3 and Latency tables of docs/benchmarks.md, their dates and commits"""
    out = {"scaling": {}, "latency": {}, "current_rows": {}}
    for line in text.splitlines():
        if line.startswith("| [3: scaling"):
            out["current_rows"]["scaling"] = line
        elif line.startswith("| [latency]"):
            out["current_rows"]["latency"] = line
    s = section(text, "Bench 3: scaling")
    m = re.search(r"\*\*([^*]+)\*\*, (\d{4}-\d\d-\d\d), commit ([0-9a-f]+)", s)
    sc = out["scaling"]
    if m:
        sc.update(what=m.group(1), date=m.group(2), commit=m.group(3))
    m = re.search(r"a lent machine with ([^:]+?), with\s", s.replace("\n", " "))
    if m:
        sc["machine"] = m.group(1)
    rows = {}
    for w, *v in re.findall(r"^\| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|", s,
                            re.M):
        rows[int(w)] = dict(zip(SCALE_COLS, map(float, v)))
    sc["rows"] = rows
    m = re.search(r"testpmd made ([\d.]+) Mpps/CPU-s in\s+5tswap and ([\d.]+) in txonly", s)
    if m:
        sc["tp_5tswap"], sc["tp_txonly"] = float(m.group(1)), float(m.group(2))
    lt = section(text, "Latency")
    lat = out["latency"]
    m = re.search(r"^(\d{4}-\d\d-\d\d), medians over the (\w+) rounds", lt, re.M)
    if m:
        lat.update(date=m.group(1), rounds=m.group(2))
    m = re.search(r"sudo nice -n -20 scripts/bench/latency\.py ([^`]*?)\n```", lt, re.S)
    if m:
        lat["command"] = " ".join(m.group(1).replace("\\\n", " ").split())
    rows = {}
    for line in lt.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 8 and cells[0] in LAT_NAMES:
            rate = int(round(num(cells[1]) * (1000 if "k" in cells[1] else 1)))
            rows["%s@%d" % (LAT_NAMES[cells[0]], rate)] = dict(zip(LAT_COLS,
                                                                  map(num, cells[2:])))
    lat["rows"] = rows
    return out


# ---- the comparison ----------------------------------------------------------------------

def ratio(new, old):
    return "%.2f" % (new / old) if new is not None and old else "-"


def f2(x, fmt="%.2f"):
    return "-" if x is None else fmt % x


def new_scaling(sj):
    """scaling.json of inmem.py --scaling as {W: cols}, testpmd's per-CPU-s references"""
    rows = {}
    for r in sj["rows"]:
        w, n = r["workers"], r["n"]
        d = rows.setdefault(w, {})
        if n == 1:
            d["n1_cpu"], d["n1_wall"] = r["udpfan_rx_per_cpu_s"] / 1e6, r["udpfan_rx_pps"] / 1e6
        else:
            d["n4_cpu"], d["n4_wall"] = r["udpfan_tx_per_cpu_s"] / 1e6, r["udpfan_tx_pps"] / 1e6
    r0 = sj["rows"][0] if sj["rows"] else {}
    return rows, r0.get("testpmd_5tswap_per_cpu_s", 0) / 1e6, r0.get(
        "testpmd_txonly_per_cpu_s", 0) / 1e6


def new_latency(summ):
    rows = {}
    for r in summ["table"]:
        rows["%s@%s" % (r["contender"], r["pps"])] = dict({k: r[k][0] for k in LAT_COLS},
                                                          noisy=r.get("noisy", 0))
    return rows


def compare(docs, run):
    """the text lines and the JSON of the comparison; run: {"plan", "scaling", "latency",
    "shared", "machine", "commit"}"""
    L, J = [], {"docs": {}, "run": {k: run.get(k) for k in ("plan", "shared", "commit",
                                                           "machine_line", "date")}}
    sc, lat = docs["scaling"], docs["latency"]
    pl = run.get("plan") or {}
    L.append("== udpfan on this host against docs/benchmarks.md (new / docs) ==")
    L.append("this run: %s, commit %s, %s" % (run.get("date"), run.get("commit"),
                                              run.get("machine_line")))
    if run.get("shared"):
        L.append("PLACEMENT: --shared: workers share CPUs (inmem.py's own placement): NOT "
                 "comparable, replaces nothing")
    elif pl:
        L.append("PLACEMENT: main lcores on CPU %d, workers on CPUs %s (%s); latency: MAIN,GEN,"
                 "FWD = %s; CPU 0 and its siblings (%s) left to the OS" % (
                     pl["main"], ",".join(map(str, pl["workers"])), pl["isolated"],
                     ",".join(map(str, pl["latency"])) if pl.get("latency") else
                     "0,0,1 (too few CPUs: latency.py's 2-CPU placement)",
                     fmt_list(pl["house"])))
        for n in pl["notes"]:
            L.append("  note: %s" % n)
    replaced = []
    if run.get("scaling"):
        rows, t5, tt = new_scaling(run["scaling"])
        old = sc.get("rows", {})
        L.append("")
        L.append("-- Bench 3: scaling, each cell docs -> new (new/docs) (docs: %s, %s, commit "
                 "%s; %s) --" % (
            sc.get("what", "?"), sc.get("date", "?"), sc.get("commit", "?"),
            sc.get("machine", "?")))
        L.append("%-3s %-28s %-28s %-28s %-28s%s" % (
            "W", "N=1 in Mpps/CPU-s", "N=1 in wall Mpps", "N=4 out Mpps/CPU-s",
            "N=4 out wall Mpps", "efficiency N=1 / N=4"))
        one_new, one_old = rows.get(1, {}), old.get(1, {})
        js = []
        for w in sorted(rows):
            n, o = rows[w], old.get(w, {})
            cells = ["%7s -> %7s (%s)" % (f2(o.get(k)), f2(n.get(k)), ratio(n.get(k), o.get(k)))
                     for k in SCALE_COLS]

            def eff(d, base, k):
                return d[k] / base[k] if w > 1 and d.get(k) and base.get(k) else None
            e = "%s / %s -> %s / %s" % tuple(f2(x) for x in (
                eff(o, one_old, "n1_cpu"), eff(o, one_old, "n4_cpu"),
                eff(n, one_new, "n1_cpu"), eff(n, one_new, "n4_cpu")))
            L.append("%-3d %s   %s" % (w, "   ".join("%-25s" % c for c in cells), e))
            js.append({"workers": w, "new": n, "docs": o})
        L.append("testpmd 5tswap Mpps/CPU-s %s -> %s (%s); txonly %s -> %s (%s)" % (
            f2(sc.get("tp_5tswap")), f2(t5), ratio(t5, sc.get("tp_5tswap")),
            f2(sc.get("tp_txonly")), f2(tt), ratio(tt, sc.get("tp_txonly"))))
        r1o = one_old.get("n1_cpu", 0) / sc["tp_5tswap"] if sc.get("tp_5tswap") else None
        r4o = one_old.get("n4_cpu", 0) / sc["tp_txonly"] if sc.get("tp_txonly") else None
        r1n = one_new.get("n1_cpu", 0) / t5 if t5 else None
        r4n = one_new.get("n4_cpu", 0) / tt if tt else None
        L.append("udpfan W=1 / testpmd (targets >= 0.9): N=1 in / 5tswap %s -> %s; N=4 out / "
                 "txonly %s -> %s" % (f2(r1o), f2(r1n), f2(r4o), f2(r4n)))
        J["scaling"] = {"rows": js, "testpmd_5tswap": [sc.get("tp_5tswap"), t5],
                        "testpmd_txonly": [sc.get("tp_txonly"), tt],
                        "n1_vs_5tswap": [r1o, r1n], "n4_vs_txonly": [r4o, r4n]}
        ws = sorted(rows)
        part = "" if set(ws) >= set(old) else " (only its rows W=%s)" % ",".join(map(str, ws))
        replaced.append("the Current results row \"3: scaling\"; in section \"Bench 3: scaling\" "
                        "the run line (date, commit, machine), the table of workers%s and the "
                        "testpmd 5tswap/txonly figures and ratios in the paragraph under it" %
                        part)
    if run.get("latency"):
        rows = new_latency(run["latency"])
        old = lat.get("rows", {})
        L.append("")
        L.append("-- Latency, memif, bursts of 1, us (docs: %s, medians over %s rounds; this "
                 "run: %s round(s)) --" % (lat.get("date", "?"), lat.get("rounds", "?"),
                                           run.get("lat_rounds", "?")))
        L.append("%-11s %7s  %s" % ("contender", "rate", "  ".join(
            "%-24s" % c for c in ("p50", "p90", "p99", "p99 gen unstalled", "p99.9",
                                  "warm-up p99"))))
        js = []
        order = ["udpfan-1", "udpfan-4", "testpmd-io"]
        for key in sorted(rows, key=lambda k: (int(k.split("@")[1]), order.index(
                k.split("@")[0]) if k.split("@")[0] in order else 9)):
            c, rate = key.split("@")
            n, o = rows[key], old.get(key, {})
            L.append("%-11s %7s  %s%s" % (c, rate, "  ".join(
                "%-24s" % ("%s->%s (%s)" % (f2(o.get(k), "%.1f"), f2(n.get(k), "%.1f"),
                                            ratio(n.get(k), o.get(k)))) for k in LAT_COLS),
                " (%d of its rounds NOISY)" % n["noisy"] if n.get("noisy") else ""))
            js.append({"contender": c, "rate": int(rate), "new": n, "docs": o})
        # the goal: udpfan N = 1's p99 within 1 us of testpmd io's, per rate
        for rate in sorted({int(k.split("@")[1]) for k in rows}):
            a, b = "udpfan-1@%d" % rate, "testpmd-io@%d" % rate
            if a in rows and b in rows:
                dn = {k: rows[a][k] - rows[b][k] for k in ("p50", "p90", "p99")}
                do = ({k: old[a][k] - old[b][k] for k in ("p50", "p90", "p99")}
                      if a in old and b in old else {})
                L.append("udpfan N=1 minus testpmd io at %d pps: p50 %s -> %s, p90 %s -> %s, "
                         "p99 %s -> %s us (goal: p99 within 1 us)" % (
                             rate, f2(do.get("p50"), "%+.1f"), f2(dn["p50"], "%+.1f"),
                             f2(do.get("p90"), "%+.1f"), f2(dn["p90"], "%+.1f"),
                             f2(do.get("p99"), "%+.1f"), f2(dn["p99"], "%+.1f")))
        probes = run["latency"].get("stall_probe") or []
        for p in probes:
            L.append("stall probe %s, CPU %d: away %.2f %% of the time, longest %.0f us" % (
                p["when"], p["cpu"], p["away_pct"], p["max_gap_us"]))
        J["latency"] = {"rows": js, "stall_probe": probes}
        keys = set(rows)
        part = "" if keys >= set(old) else " (only its rows %s)" % ", ".join(sorted(keys))
        replaced.append("the Current results row \"latency\"; in section \"Latency\" the date "
                        "line and the table%s, and the p99 bullet's \"not resolved here\" if "
                        "the p99 rows above settle it" % part)
    L.append("")
    if run.get("shared"):
        line = ("REPLACES: nothing in docs/benchmarks.md (workers shared CPUs: --shared; run on "
                "a host with W+2 idle CPUs)")
    elif not replaced:
        line = "REPLACES: nothing (neither table ran)"
    else:
        line = "REPLACES in docs/benchmarks.md: " + "; ".join(replaced)
        if pl.get("isolated") != "isolated":
            line += (" -- and say there that the cores were %s (pinned only)" %
                     pl.get("isolated", "not isolated"))
        if run.get("lat_rounds") and run.get("latency") and str(run["lat_rounds"]) != "9":
            line += ("; the latency table there is 9 rounds, this run %s: rerun with "
                     "LAT_ROUNDS=9 before replacing it" % run["lat_rounds"])
    L.append(line)
    J["replaces"] = line
    J["docs"] = docs
    return L, J


# ---- the run -----------------------------------------------------------------------------

def tee(argv, log, timeout, name, env=None):
    """run argv, its output to stdout and to log; the exit status (124: timed out)"""
    with open(log, "w") as f:
        f.write(" ".join(argv) + "\n")
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=env, start_new_session=True)
        end = time.monotonic() + timeout
        for line in p.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            f.write(line)
            if time.monotonic() > end:
                break
        if p.poll() is None and time.monotonic() > end:
            os.killpg(p.pid, 2)
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, 9)
            msg = "bighost: %s ran past %d s, stopped\n" % (name, timeout)
            sys.stdout.write(msg)
            f.write(msg)
            return 124
        return p.wait()


def git_commit():
    c = read(os.path.join(os.environ.get("UF_BUNDLE", ""), "commit")) if os.environ.get(
        "UF_BUNDLE") else ""
    if c:
        return c
    try:
        return subprocess.run(["git", "-C", SRC, "describe", "--always", "--dirty"],
                              capture_output=True, text=True, timeout=10).stdout.strip() or "?"
    except (OSError, subprocess.TimeoutExpired):
        return "?"


def machine_line():
    model = re.search(r"model name\s*:\s*(.*)", read("/proc/cpuinfo"))
    return "%d CPUs online, %s, kernel %s" % (len(topology()["online"]),
                                              model.group(1) if model else "?", os.uname().release)


def write_compare(out, docs, run):
    L, J = compare(docs, run)
    text = "\n".join(L) + "\n"
    sys.stdout.write("\n" + text)
    with open(os.path.join(out, "compare.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(out, "compare.json"), "w") as f:
        json.dump(J, f, indent=1, default=list)


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def self_test():
    """CPU choice on made-up hosts; the current docs/benchmarks.md parses"""
    def topo(n, iso=(), smt=False, nohz=()):
        sib = {c: ([c % (n // 2), c % (n // 2) + n // 2] if smt else [c]) for c in range(n)}
        return {"online": list(range(n)), "isolated": list(iso), "nohz_full": list(nohz),
                "siblings": sib, "node": {c: 0 for c in range(n)},
                "allowed": [c for c in range(n) if c not in iso]}
    r = plan(topo(2), 1)
    assert "refused" in r and "SHARED=1" in r["refused"], r
    assert "refused" in plan(topo(8), 8) and "W=1,2,4" in plan(topo(8), 8)["refused"]
    r = plan(topo(16), 8)
    assert r["workers"] == list(range(1, 9)) and r["main"] == 9, r
    assert r["isolated"] == "not isolated" and "isolcpus=" in r["notes"][0], r
    r = plan(topo(16, iso=range(4, 16), nohz=range(4, 16)), 8)
    assert r["workers"] == list(range(4, 12)) and r["main"] == 1, r
    assert r["isolated"] == "isolated" and not r["notes"], r
    assert r["latency"] == [1, 5, 4], r
    # SMT: 16 threads on 8 cores (cpu c and c+8 siblings): CPU 0 and 8 are the OS's; 7
    # physical cores left, so 8 workers must pair two threads
    r = plan(topo(16, smt=True), 8)
    assert 0 not in r["workers"] and 8 not in r["workers"], r
    assert any("SMT" in n for n in r["notes"]), r
    r = plan(topo(16, smt=True), 4)
    assert r["workers"] == [1, 2, 3, 4] and r["main"] == 5, r
    with open(DOCS) as f:
        d = parse_docs(f.read())
    sc, lat = d["scaling"], d["latency"]
    assert set(sc["rows"]) == {1, 2, 4, 8} and sc.get("date") and sc.get("commit"), sc
    assert sc.get("tp_5tswap") and sc.get("tp_txonly"), sc
    assert len(lat["rows"]) == 9 and lat.get("date"), lat
    assert set(d["current_rows"]) == {"scaling", "latency"}, d["current_rows"]
    # a comparison of the docs with themselves: every ratio 1.00
    sj = {"rows": []}
    for w, v in sc["rows"].items():
        for n in (1, 4):
            k = "n%d" % n
            sj["rows"].append({"workers": w, "n": n,
                               "udpfan_rx_per_cpu_s": v[k + "_cpu"] * 1e6,
                               "udpfan_rx_pps": v[k + "_wall"] * 1e6,
                               "udpfan_tx_per_cpu_s": v[k + "_cpu"] * 1e6,
                               "udpfan_tx_pps": v[k + "_wall"] * 1e6,
                               "testpmd_5tswap_per_cpu_s": sc["tp_5tswap"] * 1e6,
                               "testpmd_txonly_per_cpu_s": sc["tp_txonly"] * 1e6})
    summ = {"table": [{"contender": k.split("@")[0], "pps": int(k.split("@")[1]),
                       **{c: [v[c], 0] for c in LAT_COLS}} for k, v in lat["rows"].items()]}
    L, J = compare(d, {"plan": plan(topo(16, iso=range(4, 16), nohz=range(4, 16)), 8),
                       "scaling": sj, "latency": summ, "lat_rounds": 9, "date": "today",
                       "commit": "x", "machine_line": "test"})
    body = "\n".join(L)
    assert "(1.00)" in body and "(0." not in body and "(1.01)" not in body, body
    assert J["replaces"].startswith("REPLACES in docs/benchmarks.md: the Current results row "
                                    "\"3: scaling\""), J["replaces"]
    assert "pinned only" not in J["replaces"], J["replaces"]
    print("bighost: self-test passed")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__)
    ap.add_argument("--workers", default="1,2,4,8")
    ap.add_argument("--seconds", type=int, default=8, help="scaling: seconds per run")
    ap.add_argument("--limit", type=int, default=500, help="scaling: limit for all its runs")
    ap.add_argument("--out", default="/tmp/udpfan-bighost")
    ap.add_argument("--shared", action="store_true",
                    help="run even with fewer than W+2 CPUs (workers share CPUs: not "
                         "comparable)")
    ap.add_argument("--lat-rounds", type=int, default=9)
    ap.add_argument("--lat-seconds", type=float, default=2)
    ap.add_argument("--lat-rates", default="1000,10000,100000")
    ap.add_argument("--lat-limit", type=int, default=1200, help="latency: limit in seconds")
    ap.add_argument("--skip-scaling", action="store_true")
    ap.add_argument("--skip-latency", action="store_true")
    ap.add_argument("--plan", action="store_true", help="print the CPU choice, run nothing")
    ap.add_argument("--compare", metavar="DIR", help="print the comparison again from DIR")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        self_test()
        return 0
    with open(DOCS) as f:
        docs = parse_docs(f.read())
    if a.compare:
        run = load(os.path.join(a.compare, "run.json")) or {}
        run["scaling"] = load(os.path.join(a.compare, "scaling.json"))
        run["latency"] = load(os.path.join(a.compare, "latency-raw", "summary.json"))
        write_compare(a.compare, docs, run)
        return 0
    ws = [int(x) for x in a.workers.split(",")]
    topo = topology()
    pl = plan(topo, max(ws))
    print("bighost: online CPUs %s, isolated %s, nohz_full %s" % (
        fmt_list(topo["online"]), fmt_list(topo["isolated"]), fmt_list(topo["nohz_full"])))
    if "refused" in pl:
        print(pl["refused"], file=sys.stderr)
        if not a.shared:
            return 2
        print("bighost: --shared: going on with workers sharing CPUs (inmem.py's and "
              "latency.py's own placement); the numbers replace nothing", file=sys.stderr)
        pl = None
    else:
        print("bighost: main lcores on CPU %d, workers on %s (%s)%s" % (
            pl["main"], ",".join(map(str, pl["workers"])), pl["isolated"],
            "".join("\n  note: " + n for n in pl["notes"])))
    if a.plan:
        return 0
    if os.geteuid() != 0:
        print("bighost: needs root (hugepages, memif)", file=sys.stderr)
        return 1
    out = a.out
    os.makedirs(out, exist_ok=True)
    if pl:
        # this script and whatever it starts stay off the lcores' CPUs (DPDK pins the
        # lcores itself; its control threads keep this affinity minus the lcores')
        keep = set(topo["allowed"]) - set(pl["workers"]) - {pl["main"]}
        if keep:
            os.sched_setaffinity(0, keep)
    run = {"plan": pl, "shared": pl is None, "commit": git_commit(),
           "machine_line": machine_line(), "lat_rounds": a.lat_rounds,
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "topology": topo}
    with open(os.path.join(out, "run.json"), "w") as f:
        json.dump(run, f, indent=1)
    rc = 0
    py = sys.executable
    if not a.skip_scaling:
        raw = os.path.join(out, "scaling-raw")
        argv = [py, os.path.join(HERE, "inmem.py"), "--scaling", a.workers, "--seconds",
                str(a.seconds), "--warmup", "2", "--out", raw, "--json",
                os.path.join(out, "scaling.json")]
        if pl:
            argv += ["--cpus", ",".join(map(str, [pl["main"]] + pl["workers"]))]
        print("bighost: == scaling: %s" % " ".join(argv[1:]), flush=True)
        r = tee(argv, os.path.join(out, "scaling-log.txt"), a.limit, "scaling")
        if r:
            print("bighost: scaling exited %d (see %s/scaling-log.txt)" % (r, out))
            rc = rc or r
    if not a.skip_latency:
        cpus = pl["latency"] if pl and pl.get("latency") else [0, 0, 1]
        argv = [py, os.path.join(HERE, "latency.py"), "--rates", a.lat_rates, "--rounds",
                str(a.lat_rounds), "--seconds", str(a.lat_seconds), "--contenders",
                "udpfan-1,udpfan-4,testpmd-io", "--cpus", ",".join(map(str, cpus)), "--raw",
                os.path.join(out, "latency-raw")]
        print("bighost: == latency: %s" % " ".join(argv[1:]), flush=True)
        r = tee(["nice", "-n", "-20"] + argv, os.path.join(out, "latency-log.txt"),
                a.lat_limit, "latency")
        if r:
            print("bighost: latency exited %d (see %s/latency-log.txt)" % (r, out))
            rc = rc or r
    run["scaling"] = load(os.path.join(out, "scaling.json"))
    run["latency"] = load(os.path.join(out, "latency-raw", "summary.json"))
    write_compare(out, docs, run)
    return rc


if __name__ == "__main__":
    sys.exit(main())
