"""Run udpfan (and friends) from tests, and check what it says about itself."""
import json
import os
import subprocess
import sys
import tempfile
import traceback

UDPFAN = os.environ.get("UDPFAN", "build/udpfan")
UF_BUILD = os.environ.get("UF_BUILD", "build")
UF_SRC = os.environ.get("UF_SRC", ".")
PCAP_MAC = "02:70:63:61:70:%02x"  # net_pcapN's MAC (pcap_ethdev.c: "\x02pcap" + port id)


def tmpdir():
    return tempfile.mkdtemp(prefix="uftest-")


def run_udpfan(cfg_text, workdir, duration=1.0, extra=(), ns=None, timeout=60, check_rc=0):
    """Write the config, run udpfan for `duration` seconds with --stats-json, return
    (returncode, stderr text, [stats objects])."""
    cfg = os.path.join(workdir, "udpfan.yaml")
    stats = os.path.join(workdir, "stats.jsonl")
    with open(cfg, "w") as f:
        f.write(cfg_text)
    if os.path.exists(stats):
        os.unlink(stats)
    argv = [UDPFAN, "-c", cfg, "--stats-json", stats]
    if duration:
        argv += ["--duration", str(duration)]
    argv += list(extra)
    if ns:
        argv = ["ip", "netns", "exec", ns] + argv
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout)
    objs = read_stats(stats)
    if check_rc is not None and r.returncode != check_rc:
        raise AssertionError("udpfan exited %d (expected %d):\n%s" % (r.returncode, check_rc,
                                                                      r.stderr[-3000:]))
    return r.returncode, r.stderr, objs


def read_stats(path):
    objs = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    objs.append(json.loads(line))
    return objs


def final(objs):
    fin = [o for o in objs if o.get("final")]
    if len(fin) != 1:
        raise AssertionError("expected exactly one final stats object, got %d" % len(fin))
    return fin[0]


def ledger(stats):
    """Assert the three identities of docs/loss-accounting.md on one stats object."""
    f = stats["fwd"]
    drops = sum(f["drop"].values())
    txd = sum(f["tx_drop"].values())
    assert f["rx"] == f["forwarded"] + f["control"] + drops, \
        "rx %d != forwarded %d + control %d + drops %d" % (f["rx"], f["forwarded"],
                                                           f["control"], drops)
    assert f["fanout"] == f["copies_attempted"] + f["sampled_out"], \
        "fanout %d != copies_attempted %d + sampled_out %d" % (f["fanout"],
                                                               f["copies_attempted"],
                                                               f["sampled_out"])
    assert f["copies_attempted"] == f["tx_ok"] + txd, \
        "copies_attempted %d != tx_ok %d + tx drops %d" % (f["copies_attempted"], f["tx_ok"],
                                                            txd)
    return f


class Suite:
    """Minimal runner: each case a function; prints `N passed, N failed` at the end."""

    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.skipped = 0

    def run(self, fn, *args):
        name = fn.__name__ + (repr(args) if args else "")
        try:
            fn(*args)
        except SkipCase as e:
            self.skipped += 1
            print("SKIP %s: %s" % (name, e))
            return
        except Exception:
            self.failed += 1
            print("FAIL %s" % name)
            traceback.print_exc(file=sys.stdout)
            return
        self.passed += 1
        print("ok   %s" % name)

    def finish(self):
        line = "%d passed, %d failed" % (self.passed, self.failed)
        if self.skipped:
            line += ", %d skipped" % self.skipped
        print(line)
        if self.failed:
            sys.exit(1)
        if self.passed == 0 and self.skipped:
            sys.exit(77)
        sys.exit(0)


class SkipCase(Exception):
    pass


def need_root():
    if os.geteuid() != 0:
        print("0 passed, 0 failed, 1 skipped (needs root)")
        sys.exit(77)
