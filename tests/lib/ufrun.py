"""Run udpfan (and friends) from tests, and check what it says about itself."""
import atexit
import inspect
import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

UDPFAN = os.environ.get("UDPFAN", "build/udpfan")
UF_BUILD = os.environ.get("UF_BUILD", "build")
UF_SRC = os.environ.get("UF_SRC", ".")
PCAP_MAC = "02:70:63:61:70:%02x"  # net_pcapN's MAC (pcap_ethdev.c: "\x02pcap" + port id)


# the folders tmpdir() made, oldest first: Suite.run removes those of a case that passed or
# was skipped, and keeps a failed case's (it names them); what a script made outside any
# case (scripts/ledger.py, scripts/demo.py) goes when it exits
_made = []


def tmpdir(prefix="uftest-"):
    """A fresh folder for a case's files (configs, captures, logs). It lasts while the case
    runs; afterwards it is removed unless the case failed or UF_KEEP_TMP=1 is set. Made by a
    script outside any case, it lasts until the script exits."""
    d = tempfile.mkdtemp(prefix=prefix)
    _made.append(d)
    return d


def _has_mount(top):
    for dirpath, dirnames, _ in os.walk(top):
        if any(os.path.ismount(os.path.join(dirpath, d)) for d in dirnames):
            return True
    return False


def _tidy(since, keep):
    """Remove the folders tmpdir() made since index `since`, or with keep say where they are.
    A folder with something still mounted under it is kept and named."""
    dirs = _made[since:]
    del _made[since:]
    for d in dirs:
        if not os.path.isdir(d):
            continue
        if keep or os.environ.get("UF_KEEP_TMP") == "1":
            print("     kept %s" % d)
        elif _has_mount(d):
            print("     kept %s: something is still mounted under it" % d)
        else:
            shutil.rmtree(d, ignore_errors=True)


atexit.register(lambda: _tidy(0, False))


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
    """The runner of every Python test file: each case a function, run in main() by
    `s.run(case_fn, *args)`. A case's name is the function's without `case_`, then each
    argument, a bool as its parameter's name or no_<name>: case_static("af_xdp", False) is
    `static_af_xdp_no_offload`.

    The command line picks what runs: no argument, every case (by hand); `--list`, print
    each case's name and run nothing (meson registers one test per name: tests/e2e/meson.build,
    docs/testing.md); NAME..., only those cases, an unknown name a failure. Each case prints
    `ok|FAIL|SKIP name`, the run ends with `N passed, N failed[, N skipped]`; exit 0, 1, or
    77 (meson's skip) when every case that ran was skipped.

    root: the cases need root (namespaces, AF_XDP); without it nothing runs, exit 77."""

    def __init__(self, root=False, argv=None):
        argv = list(sys.argv[1:] if argv is None else argv)
        self.listing = argv == ["--list"]
        self.wanted = None if self.listing or not argv else argv
        self.names = []
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        if root and not self.listing:
            need_root()

    @staticmethod
    def case_name(fn, args):
        name = fn.__name__[5:] if fn.__name__.startswith("case_") else fn.__name__
        params = list(inspect.signature(fn).parameters)
        for i, a in enumerate(args):
            if isinstance(a, bool):
                a = params[i] if a else "no_" + params[i]
            name += "_" + str(a)
        return name

    def run(self, fn, *args):
        name = self.case_name(fn, args)
        if name in self.names:
            raise SystemExit("two cases named %s" % name)
        self.names.append(name)
        if self.listing:
            print(name)
            return
        if self.wanted is not None and name not in self.wanted:
            return
        since = len(_made)
        try:
            fn(*args)
        except SkipCase as e:
            self.skipped += 1
            print("SKIP %s: %s" % (name, e))
            _tidy(since, False)
            return
        except Exception:
            self.failed += 1
            print("FAIL %s" % name)
            traceback.print_exc(file=sys.stdout)
            _tidy(since, True)
            return
        self.passed += 1
        print("ok   %s" % name)
        _tidy(since, False)

    def finish(self):
        if self.listing:
            sys.exit(0)
        for w in self.wanted or ():
            if w not in self.names:
                self.failed += 1
                print("FAIL %s: no such case (--list names them)" % w)
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
