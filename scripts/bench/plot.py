#!/usr/bin/env python3
"""Plots for docs/benchmarks.md, drawn with gnuplot (Debian's gnuplot-nox) from the --json
files the benches write.

    scripts/bench/plot.py --inmem inmem.json --out docs/benchmarks/inmem.png
    scripts/bench/plot.py --veth veth.json --out docs/benchmarks/veth.png
"""
import argparse
import json
import os
import subprocess
import tempfile


def gnuplot(script, data):
    with tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False) as f:
        f.write(data)
        path = f.name
    try:
        subprocess.run(["gnuplot"], input=script.replace("DATA", path), text=True, check=True)
    finally:
        os.unlink(path)


def plot_inmem(js, out):
    rows = [r for r in js["rows"] if r["workers"] == 1 and "rules" not in r["label"] and
            "arp" not in r["label"]]
    lines = []
    for r in rows:
        lines.append('"%s B, N=%d" %.2f %.2f %.2f %.2f' % (
            r["payload"], r["n"], r["udpfan_rx_pps"] / 1e6, r["udpfan_tx_pps"] / 1e6,
            r["testpmd_5tswap_pps"] / 1e6, r["testpmd_txonly_pps"] / 1e6))
    gnuplot("""set terminal png size 900,420 font ",10" noenhanced
set output "%s"
set title "bench 1, in memory (net_pcap -> net_null, one worker): Mpps"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top right
set ylabel "Mpps"
set yrange [0:*]
set xtics nomirror
plot "DATA" using 2:xtic(1) title "udpfan in", '' using 3 title "udpfan out", \\
     '' using 4 title "testpmd 5tswap", '' using 5 title "testpmd txonly"
""" % out, "\n".join(lines) + "\n")


def plot_veth(js, out):
    clean = js["modes"]["default"]["clean"]
    names = []
    for key in clean:
        name = key.rsplit("/", 1)[0]
        if name not in names:
            names.append(name)
    lines = ['"%s" %.1f %.1f' % (nm, (clean.get(nm + "/1") or {}).get("pps", 0) / 1e3,
                                   (clean.get(nm + "/4") or {}).get("pps", 0) / 1e3)
             for nm in names]
    gnuplot("""set terminal png size 900,420 font ",10" noenhanced
set output "%s"
set title "bench 2, veth: highest rate with < 0.1%% loss (kpps in; higher bars may be generator-bound)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top right
set ylabel "kpps"
set yrange [0:*]
plot "DATA" using 2:xtic(1) title "N = 1", '' using 3 title "N = 4"
""" % out, "\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--inmem")
    ap.add_argument("--veth")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.inmem:
        plot_inmem(json.load(open(a.inmem)), a.out)
    elif a.veth:
        plot_veth(json.load(open(a.veth)), a.out)
    print("wrote %s" % a.out)


if __name__ == "__main__":
    main()
