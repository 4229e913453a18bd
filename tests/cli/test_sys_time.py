#!/usr/bin/python3
"""scripts/bench/ref/sys_time.so, the LD_PRELOAD shim bench 2 uses to time a forwarder's send
calls (docs/benchmarks.md#where-the-cpu-goes-on-veth): a Python child under it sends and
receives known numbers of datagrams over 127.0.0.1 in two threads and a forked child, and the
shim's files must count each thread's calls, apart, and the child's alone. No root needed."""
import json
import os
import subprocess
import sys
import tempfile

BUILD = os.environ.get("UF_BUILD", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
SO = os.path.join(BUILD, "scripts", "bench", "ref", "sys_time.so")
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable

CHILD = r"""
import os, socket, sys, threading
rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
rx.bind(("127.0.0.1", 0))
rx.settimeout(5)
dst = rx.getsockname()

def sender(n):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i in range(n):
        s.sendto(b"x" * 32, dst)
    s.close()

sender(200)                # main thread: 200 sendto
for i in range(200):       # and 200 recvfrom
    rx.recvfrom(64)
t = threading.Thread(target=sender, args=(50,))
t.start()
t.join()
for i in range(50):
    rx.recvfrom(64)
pid = os.fork()
if pid == 0:               # the child: 7 sends of its own, then a normal exit
    sender(7)
    sys.exit(0)
os.waitpid(pid, 0)
for i in range(7):
    rx.recvfrom(64)
"""


def main():
    if not os.path.exists(SO):
        print("sys_time.so missing: ninja -C %s" % BUILD)
        return 1
    with open(SO, "rb") as f:
        if b"__asan_init" in f.read():
            # a sanitized shim cannot be preloaded into an uninstrumented interpreter
            print("skipped: sanitizer build")
            return 77
    fails = []
    with tempfile.TemporaryDirectory(prefix="uftest-systime-") as d:
        env = dict(os.environ, LD_PRELOAD=SO, UF_SYS_TIME_DIR=d)
        p = subprocess.run([PY, "-c", CHILD], env=env, capture_output=True, text=True,
                           timeout=60)
        if p.returncode != 0:
            print("child failed %d: %s" % (p.returncode, p.stderr[-2000:]))
            return 1
        files = {}
        for fn in os.listdir(d):
            with open(os.path.join(d, fn)) as f:
                o = json.load(f)
            files[o["pid"]] = o
        if len(files) != 2:
            fails.append("want 2 files (the process and its forked child), got %d: %s" %
                         (len(files), sorted(files)))
        procs = sorted(files.values(), key=lambda o: -sum(t["send"]["calls"]
                                                           for t in o["threads"]))
        if len(procs) == 2:
            parent, child = procs
            sends = sorted(t["send"]["calls"] for t in parent["threads"])
            if sends != [50, 200]:
                fails.append("parent's threads' sends: want [50, 200], got %s" % sends)
            main_t = [t for t in parent["threads"] if t["send"]["calls"] == 200]
            if main_t and main_t[0]["recv"]["calls"] != 257:
                fails.append("main thread's receives: want 257, got %d" %
                             main_t[0]["recv"]["calls"])
            if main_t and main_t[0]["tid"] != parent["pid"]:
                fails.append("main thread's tid %d is not the pid %d" % (main_t[0]["tid"],
                                                                        parent["pid"]))
            csends = [t["send"]["calls"] for t in child["threads"]]
            if csends != [7]:
                fails.append("forked child: want one thread with 7 sends, got %s" % csends)
            for o in procs:
                for t in o["threads"]:
                    if t["send"]["calls"] and not 0 < t["send"]["s"] < 5:
                        fails.append("pid %d tid %d: %d sends took %r s" % (
                            o["pid"], t["tid"], t["send"]["calls"], t["send"]["s"]))
    for f in fails:
        print("FAIL: " + f)
    print("%d passed, %d failed" % (0 if fails else 1, 1 if fails else 0))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
