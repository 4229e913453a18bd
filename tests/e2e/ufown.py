"""Helpers for the ownership, signal and privilege tests: what the kernel says about the
interface udpfan drives (its XDP program), and a second udpfan run to completion."""
import os
import re
import subprocess

from ufrun import UDPFAN


def xdp_prog(tb, ifname=None):
    """the id of the XDP program on udpfan's interface, or 0"""
    out = tb.nsx(tb.ns_fwd, "ip -d link show %s" % (ifname or tb.fwd_if), capture=True)
    m = re.search(r"prog/xdp\w* id (\d+)", out)
    return int(m.group(1)) if m else 0


def run_in_fwd(tb, cfg_path, wrap="", timeout=60, extra=""):
    """udpfan in the fwd namespace to its end: (returncode, stderr)"""
    cmd = "mount -t bpf bpf /sys/fs/bpf 2>/dev/null; exec %s %s -c %s %s" % (wrap, UDPFAN,
                                                                          cfg_path, extra)
    r = subprocess.run(["ip", "netns", "exec", tb.ns_fwd, "sh", "-c", cmd],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       timeout=timeout)
    return r.returncode, r.stderr


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o644)
    return path


def hugefiles(prefix):
    """hugepage files EAL made for file_prefix (<hugedir>/<prefix>map_N)"""
    n = 0
    with open("/proc/mounts") as f:
        mounts = [ln.split()[1] for ln in f if ln.split()[2] == "hugetlbfs"]
    for m in mounts:
        n += len([x for x in os.listdir(m) if re.fullmatch(re.escape(prefix) + r"map_\d+", x)])
    return n
