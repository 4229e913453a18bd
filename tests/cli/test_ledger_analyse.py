#!/usr/bin/env python3
"""scripts/ledger.py's attribution (analyse) on counters recorded from real overload runs on
the veth bed (tests/data/ledger/*.json, each with a note saying how it was made): every
difference between two stages attributed, nothing counted twice. The e2e `ledger` suite runs
the whole chain; these runs needed a starved CPU, which a test cannot order up on a shared
machine, so their counters are kept instead.

  sink_rcvbuf: sinks starved of CPU overflowed their socket buffers; the kernel counts each
      such datagram in RcvbufErrors and in InErrors, and the ledger must add it once;
  bed_veth: the bridge's port into fwd0 dropped frames fwd0's XDP ring could not take
      (counted only on that port, never on fwd0 or in udpfan);
  fwd0_tx_dropped: the same run with copies taken out on udpfan's own veth (fwd0
      tx_dropped) and from the sinks' counts: the sinks are then accounted together."""
import copy
import json
import os
import sys

from ufrun import UF_SRC, Suite

sys.path.insert(0, os.path.join(UF_SRC, "scripts"))
import ledger  # noqa: E402

DATA = os.path.join(UF_SRC, "tests", "data", "ledger")


def load(name):
    with open(os.path.join(DATA, name + ".json")) as f:
        return json.load(f)


def remainders(res):
    _, diffs = ledger.analyse(res)
    return {d[0]: d[4] for d in diffs}, diffs


def case_sink_rcvbuf():
    res = load("overload-sink-rcvbuf")
    assert any(s["rcvbuf_errors"] > 0 for s in res["sinks"]), "the run had no RcvbufErrors"
    rest, diffs = remainders(res)
    assert all(v == 0 for v in rest.values()), diffs
    for s, d in zip(res["sinks"], res["udpfan"]["destinations"]):
        row = [x for x in diffs if x[0] == "%s: tx_ok - received" % s["ip"]][0]
        # attributed exactly once: InErrors already holds RcvbufErrors
        assert row[1] == d["tx_ok"] - s["received"] == row[3], (row, s)
        assert s["udp_mib"]["InErrors"] >= s["rcvbuf_errors"], s


def case_bed_veth():
    res = load("overload-bed-veth")
    drop = res["bed"][res["bed_names"]["fwd_peer"]]["tx_dropped"]
    assert drop > 0, "the run had no drop on the bridge's port into fwd0"
    rest, diffs = remainders(res)
    assert all(v == 0 for v in rest.values()), diffs
    # without the bridge port's count the same run leaves exactly that much unexplained
    res0 = copy.deepcopy(res)
    res0["bed"][res["bed_names"]["fwd_peer"]]["tx_dropped"] = 0
    rest0, _ = remainders(res0)
    assert rest0["gen sent - udpfan forwarded"] == drop, rest0


def case_fwd0_tx_dropped():
    res = copy.deepcopy(load("overload-bed-veth"))
    lost = 37
    res["bed"][res["bed_names"]["fwd"]]["tx_dropped"] = lost
    res["sinks"][1]["received"] -= lost
    rest, diffs = remainders(res)
    assert "all sinks: tx_ok - received" in rest, diffs
    assert not any(k.startswith("198.18.0.") for k in rest), diffs
    assert all(v == 0 for v in rest.values()), diffs
    # and one copy lost where no counter saw it shows
    res["sinks"][0]["received"] -= 1
    rest, _ = remainders(res)
    assert rest["all sinks: tx_ok - received"] == 1, rest


def main():
    s = Suite()
    s.run(case_sink_rcvbuf)
    s.run(case_bed_veth)
    s.run(case_fwd0_tx_dropped)
    s.finish()


if __name__ == "__main__":
    main()
