#!/usr/bin/env python3
"""What `meson install` puts in place (docs/deployment.md#install, docs/testing.md#install).

Each case installs the build into its own staging DESTDIR (`meson install --destdir`, no
rebuild) and checks one thing there:
  files         every expected file, and no other program, man page or unit: the four
                programs (udpfanctl with its module in share/udpfan/python), five man
                pages, every config/*.yaml under
                share/udpfan/examples/config, the unit and its drop-in examples, the empty
                /etc/udpfan
  binaries      each staged program runs --version (udpfanctl: found its module)
  man_pages     groff -ww and man --warnings are silent on every page; udpfan.yaml(5) has an
                entry for every key of docs/configuration.md's key tables (which
                test_config_schema holds to the schema), and udpfan(8) every long option of
                udpfan --help
  examples      the staged udpfan --check accepts every staged example config
  unit          systemd-analyze verify on the unit (ExecStart pointed at the staged binary,
                MANPATH at the staged pages, the drop-in examples beside it): silent, exit 0;
                systemd-analyze security --offline: exposure 3.5 or less
  setup_sudo    scripts/setup.sh never assumes sudo: as root it calls no
                sudo; as another user it re-runs itself under sudo when there is one, and
                without one stops with "run it as root"; the README shows both forms
  notify        udpfan (net_null, --no-huge) tells $NOTIFY_SOCKET READY=1 once forwarding and
                STOPPING=1 at the stop (built with libsystemd); without it, the log line
"""
import glob
import os
import re
import shutil
import socket
import subprocess
import tempfile

from ufrun import UDPFAN, UF_BUILD, UF_SRC, SkipCase, Suite, tmpdir


def build_option(name):
    out = subprocess.run(["meson", "introspect", "--buildoptions", UF_BUILD],
                         stdout=subprocess.PIPE, text=True, check=True).stdout
    import json
    for o in json.loads(out):
        if o["name"] == name:
            return o["value"]
    raise KeyError(name)


def staged():
    """Install into a fresh DESTDIR; return (destdir, paths) with paths of the layout."""
    dest = tempfile.mkdtemp(prefix="ufinstall-")
    subprocess.run(["meson", "install", "-C", UF_BUILD, "--destdir", dest, "--no-rebuild",
                    "--quiet"], check=True, stdout=subprocess.DEVNULL, timeout=120)
    prefix = build_option("prefix")

    def under(opt):
        v = build_option(opt)
        return dest + os.path.join(prefix, v)
    p = {
        "bin": under("bindir"),
        "man": under("mandir"),
        "share": os.path.join(under("datadir"), "udpfan"),
        "etc": os.path.join(under("sysconfdir"), "udpfan"),
        "prefix": prefix,
    }
    units = glob.glob(dest + "/**/udpfan@.service", recursive=True)
    assert len(units) == 1, "unit installed %d times: %s" % (len(units), units)
    p["unit"] = units[0]
    return dest, p


def cleanup(dest):
    shutil.rmtree(dest, ignore_errors=True)


def configs():
    return sorted(os.path.basename(f) for f in glob.glob(os.path.join(UF_SRC, "config/*.yaml")))


DROPINS = ["af-packet.conf", "hugepages.conf", "vfio.conf"]
MANS = ["man8/udpfan.8", "man8/udpfanctl.8", "man5/udpfan.yaml.5", "man1/udpfan-gen.1",
        "man1/udpfan-sink.1"]
BINS = ["udpfan", "udpfanctl", "udpfan-gen", "udpfan-sink"]


def case_files():
    dest, p = staged()
    try:
        want = [os.path.join(p["bin"], b) for b in BINS]
        want += [os.path.join(p["man"], m) for m in MANS]
        want += [os.path.join(p["share"], "examples/config", c) for c in configs()]
        want += [os.path.join(p["share"], "examples/systemd", d) for d in DROPINS]
        want.append(p["unit"])
        want.append(os.path.join(p["share"], "python", "udpfan_telemetry.py"))
        assert len(configs()) >= 5, configs()
        missing = [w for w in want if not os.path.isfile(w)]
        assert not missing, "not installed: %s" % missing
        for b in BINS:
            assert os.access(os.path.join(p["bin"], b), os.X_OK), b
        assert os.path.isdir(p["etc"]) and not os.listdir(p["etc"]), p["etc"]
        assert re.search(r"/lib/systemd/system/udpfan@\.service$", p["unit"]), p["unit"]
        # no test program, no build helper (uf-mangen) among the installed programs, man
        # pages and units (share/udpfan may hold more: dashboards, manifests)
        got = set()
        for d in (p["bin"], p["man"], os.path.dirname(p["unit"])):
            for root, _, files in os.walk(d):
                got.update(os.path.join(root, f) for f in files)
        extra = sorted(got - set(want))
        assert not extra, "installed but not expected: %s" % extra
    finally:
        cleanup(dest)


def case_binaries():
    dest, p = staged()
    try:
        for b in BINS:
            r = subprocess.run([os.path.join(p["bin"], b), "--version"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=30)
            assert r.returncode == 0 and r.stdout.startswith(b + " "), (b, r.returncode,
                                                                        r.stdout)
    finally:
        cleanup(dest)


def doc_keys():
    """section.key of every row of docs/configuration.md's key tables (the rows
    test_config_schema compares with the schema)"""
    keys, section = [], ""
    with open(os.path.join(UF_SRC, "docs/configuration.md")) as f:
        for line in f:
            if line.startswith("## "):
                m = re.match(r"## `([^`]+)`", line)
                section = m.group(1) if m else ""
            elif line.startswith("### "):
                section = ""
            elif section and line.startswith("| `"):
                keys.append(section + "." + line.split("`")[1])
    return keys


def case_man_pages():
    dest, p = staged()
    try:
        env = dict(os.environ, LC_ALL="C.UTF-8", MANWIDTH="80")
        for m in MANS:
            path = os.path.join(p["man"], m)
            if shutil.which("groff"):
                r = subprocess.run(["groff", "-ww", "-z", "-man", path], stderr=subprocess.PIPE,
                                   text=True, env=env, timeout=30)
                assert r.returncode == 0 and r.stderr == "", (m, r.stderr)
            if shutil.which("man"):
                r = subprocess.run(["man", "--warnings", "-l", path], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, env=env, timeout=30)
                assert r.returncode == 0 and r.stderr == "", (m, r.stderr)
                assert len(r.stdout.splitlines()) > 20, (m, r.stdout)
        with open(os.path.join(p["man"], "man5/udpfan.yaml.5")) as f:
            page = f.read()
        keys = doc_keys()
        assert len(keys) > 30, keys
        missing = [k for k in keys if ".TP\n\\fB%s\\fR" % k not in page]
        assert not missing, "udpfan.yaml(5) lacks %s" % missing
        # and no key the docs lack: every entry of the KEYS section is a docs row
        # (a section may hold dots itself: destinations[].pool.balance)
        entries = re.findall(r"\.TP\n\\fB([a-z0-9_\[\].]+\.[a-z0-9_]+)\\fR", page)
        assert sorted(entries) == sorted(keys), set(entries) ^ set(keys)
        # udpfan(8) documents every long option udpfan --help lists
        helptext = subprocess.run([UDPFAN, "--help"], stdout=subprocess.PIPE, text=True).stdout
        with open(os.path.join(p["man"], "man8/udpfan.8")) as f:
            page8 = f.read().replace("\\-", "-")
        for opt in sorted(set(re.findall(r"--[a-z][a-z-]+", helptext))):
            assert opt in page8, "udpfan(8) lacks %s" % opt
        for word in ("SIGHUP", "SIGTERM", "EXIT STATUS", "/etc/udpfan"):
            assert word in page8, word
    finally:
        cleanup(dest)


def case_examples():
    dest, p = staged()
    try:
        udpfan = os.path.join(p["bin"], "udpfan")
        for c in configs():
            path = os.path.join(p["share"], "examples/config", c)
            r = subprocess.run([udpfan, "--check", "-c", path], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=30)
            assert r.returncode == 0 and ": valid: " in r.stdout, (c, r.returncode, r.stderr)
    finally:
        cleanup(dest)


def case_unit():
    if not shutil.which("systemd-analyze"):
        raise SkipCase("no systemd-analyze")
    dest, p = staged()
    try:
        with open(p["unit"]) as f:
            unit = f.read()
        bindir = os.path.join(p["prefix"], build_option("bindir"))
        for must in ("Type=notify", "ExecReload=/bin/kill -HUP $MAINPID", "Restart=on-failure",
                     "ExecStartPre=%s/udpfan --check -c " % bindir,
                     "CapabilityBoundingSet=CAP_NET_RAW CAP_NET_ADMIN CAP_SYS_ADMIN CAP_IPC_LOCK",
                     "AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN CAP_SYS_ADMIN CAP_IPC_LOCK",
                     "/udpfan/%i.yaml"):
            assert must in unit, must
        # verify checks that ExecStart's binary exists: point it at the staged one
        vdir = tmpdir()
        with open(os.path.join(vdir, "udpfan@.service"), "w") as f:
            f.write(unit.replace(bindir + "/", p["bin"] + "/"))
        os.mkdir(os.path.join(vdir, "udpfan@.service.d"))
        for d in DROPINS:
            shutil.copy(os.path.join(p["share"], "examples/systemd", d),
                        os.path.join(vdir, "udpfan@.service.d", d))
        env = dict(os.environ, MANPATH=p["man"], SYSTEMD_LOG_COLOR="0")
        r = subprocess.run(["systemd-analyze", "verify", os.path.join(vdir, "udpfan@.service")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                           timeout=60)
        # verify exits 0 on "Unknown key ..., ignoring": any line is a failure
        assert r.returncode == 0 and r.stdout.strip() == "", r.stdout
        # and it would say so: a misspelt key in a drop-in is reported
        with open(os.path.join(vdir, "udpfan@.service.d", "af-packet.conf"), "a") as f:
            f.write("Restart=on-failur\n")
        r = subprocess.run(["systemd-analyze", "verify", os.path.join(vdir, "udpfan@.service")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                           timeout=60)
        assert "on-failur" in r.stdout, r.stdout
        # the sandbox holds (docs/deployment.md#systemd-hardening): 7.2 before it, 3.5 with it
        r = subprocess.run(["systemd-analyze", "security", "--offline=true", "--no-pager",
                            p["unit"]], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, env=env, timeout=60)
        m = re.search(r"Overall exposure level for \S+: ([0-9.]+)", r.stdout)
        if m is None:  # systemd before 252 has no --offline
            print("unit: no exposure score here: " + r.stdout[-300:])
        else:
            assert float(m.group(1)) <= 3.5, r.stdout
        shutil.rmtree(vdir)
    finally:
        cleanup(dest)


def tool_dir(with_sudo, log):
    """A PATH of one folder: what setup.sh needs before its first root step, and a sudo
    that only records its arguments (with_sudo)"""
    d = tmpdir(prefix="ufpath-")
    os.chmod(d, 0o755)
    for t in ("bash", "env", "readlink", "dirname", "id", "cat", "dpkg-query", "grep"):
        os.symlink(shutil.which(t), os.path.join(d, t))
    if with_sudo:
        with open(os.path.join(d, "sudo"), "w") as f:
            f.write("#!/bin/bash\necho \"$@\" >%s\n" % log)
        os.chmod(os.path.join(d, "sudo"), 0o755)
    return d


def case_setup_sudo():
    if os.geteuid() != 0:
        raise SkipCase("needs root (to run as root and as uid 65534)")
    wd = tmpdir()
    os.chmod(wd, 0o777)
    os.makedirs(os.path.join(wd, "scripts"))
    setup = os.path.join(wd, "scripts/setup.sh")
    shutil.copy(os.path.join(UF_SRC, "scripts/setup.sh"), setup)
    os.chmod(setup, 0o755)
    os.chmod(os.path.join(wd, "scripts"), 0o755)
    log = os.path.join(wd, "sudo.log")
    nobody = [shutil.which("setpriv"), "--reuid", "65534", "--regid", "65534", "--clear-groups"]

    def run(argv, path):
        return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, env={"PATH": path}, timeout=60)
    # root: hugepages 0 changes nothing (only ever raises the count) and needs no sudo
    path = tool_dir(True, log)
    r = run([setup, "hugepages", "0"], path + ":/usr/sbin:/usr/bin:/sbin:/bin")
    assert r.returncode == 0 and "hugepages:" in r.stdout, r.stdout
    assert not os.path.exists(log), "root ran sudo"
    # another user with sudo: the same command again under sudo, by its absolute path
    r = run(nobody + [setup, "hugepages", "0"], path)
    assert r.returncode == 0, r.stdout
    with open(log) as f:
        assert f.read().split() == ["--", setup, "hugepages", "0"]
    # another user without sudo: a clear error, exit 3
    r = run(nobody + [setup, "hugepages", "0"], tool_dir(False, log))
    assert r.returncode == 3 and "no sudo here: run it as root" in r.stdout, r.stdout
    # the README's two commands, in a root shell and with sudo
    with open(os.path.join(UF_SRC, "README.md")) as f:
        readme = f.read()
    for cmd in ("./scripts/setup.sh", "./scripts/test.sh"):
        assert "\n%s " % cmd in readme and "\nsudo %s\n" % cmd in readme, cmd
    assert "as root" in readme
    shutil.rmtree(wd, ignore_errors=True)


NOTIFY_CFG = """eal: { lcores: "0-1", no_huge: true, memory_mb: 256, file_prefix: ufnotify }
ports:
  - { name: wan, device: "net_null0,no-rx=1", ip: 198.18.0.10/24 }
listen: { port: wan, udp_port: 5000 }
destinations:
  - { ip: 198.18.0.21, udp_port: 6000, mac: "02:18:00:00:00:21" }
stats: { interval_s: 0.5 }
"""


def case_notify():
    wd = tmpdir()
    cfg = os.path.join(wd, "udpfan.yaml")
    with open(cfg, "w") as f:
        f.write(NOTIFY_CFG)
    sock_path = os.path.join(wd, "notify")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(sock_path)
    try:
        env = dict(os.environ, NOTIFY_SOCKET=sock_path)
        r = subprocess.run([UDPFAN, "-c", cfg, "--duration", "1"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=env, timeout=60)
        assert r.returncode == 0, r.stderr[-2000:]
        s.setblocking(False)
        msgs = []
        while True:
            try:
                msgs.append(s.recv(4096).decode())
            except BlockingIOError:
                break
    finally:
        s.close()
    linked = "libsystemd" in subprocess.run(["ldd", UDPFAN], stdout=subprocess.PIPE,
                                            text=True).stdout
    assert "udpfan: ready: 1 port, 1 worker, 1 destination" in r.stderr, r.stderr[-2000:]
    if not linked:
        assert msgs == [], msgs
        raise SkipCase("built without libsystemd: only the log line is checked")
    assert len(msgs) == 2, msgs
    assert msgs[0].startswith("READY=1\n") and "STATUS=ready: 1 port" in msgs[0], msgs
    assert msgs[1].startswith("STOPPING=1\n"), msgs
    assert "(told the service manager)" in r.stderr, r.stderr[-2000:]
    shutil.rmtree(wd, ignore_errors=True)


def main():
    s = Suite()
    s.run(case_files)
    s.run(case_binaries)
    s.run(case_man_pages)
    s.run(case_examples)
    s.run(case_unit)
    s.run(case_setup_sudo)
    s.run(case_notify)
    s.finish()


if __name__ == "__main__":
    main()
