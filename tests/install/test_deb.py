#!/usr/bin/env python3
"""The Debian package (docs/deployment.md#debian-package, docs/testing.md#install).

build_install: copy the checkout (its tracked and untracked, not ignored files) to a temp
directory outside the repository, build the binary package there with dpkg-buildpackage
-b -us -uc (debian/, debhelper with meson), check its contents and Depends, then install
it with apt-get into a clean Debian 12 root (tests/install/lab-chroot.sh: mmdebstrap, cached
in /var/cache/udpfan-lab, used through an overlay so the cache stays clean) resolving its
dependencies from the archive, and there run udpfan --version and udpfan --check on every
shipped example config. Needs root and the network to the Debian archive (skipped without
them: the package build alone still runs without the network).
"""
import glob
import os
import shutil
import subprocess
import tempfile
import time

from ufrun import UF_SRC, SkipCase, Suite


def sh(argv, timeout, **kw):
    t = time.time()
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=timeout, **kw)
    print("  [%5.1fs] %s -> %d" % (time.time() - t, " ".join(argv)[:120], r.returncode))
    return r


def must(argv, timeout, **kw):
    r = sh(argv, timeout, **kw)
    assert r.returncode == 0, "%s failed (%d):\n%s" % (argv, r.returncode, r.stdout[-4000:])
    return r.stdout


def version():
    with open(os.path.join(UF_SRC, "debian/changelog")) as f:
        return f.readline().split("(")[1].split(")")[0]


def copy_tree(dst):
    files = must(["git", "-C", UF_SRC, "ls-files", "-z", "--cached", "--others",
                  "--exclude-standard"], 60).split("\0")
    for rel in files:
        src = os.path.join(UF_SRC, rel)
        if not rel or not os.path.isfile(src):
            continue  # a file deleted in the work tree
        os.makedirs(os.path.join(dst, os.path.dirname(rel)), exist_ok=True)
        shutil.copy2(src, os.path.join(dst, rel))


def build_deb(work):
    src = os.path.join(work, "udpfan-" + version())
    copy_tree(src)
    env = dict(os.environ, DEB_BUILD_OPTIONS="parallel=2 nocheck")
    must(["dpkg-checkbuilddeps"], 60, cwd=src)
    must(["dpkg-buildpackage", "-b", "-us", "-uc"], 900, cwd=src, env=env)
    debs = glob.glob(os.path.join(work, "udpfan_%s_*.deb" % version()))
    assert len(debs) == 1, os.listdir(work)
    return debs[0]


def check_deb(deb):
    contents = must(["dpkg-deb", "-c", deb], 60)
    for path in ("./usr/bin/udpfan", "./usr/bin/udpfan-gen", "./usr/bin/udpfan-sink",
                 "./usr/share/man/man8/udpfan.8.gz", "./usr/share/man/man5/udpfan.yaml.5.gz",
                 "./usr/share/man/man1/udpfan-gen.1.gz", "./usr/share/man/man1/udpfan-sink.1.gz",
                 "./lib/systemd/system/udpfan@.service", "./etc/udpfan/",
                 "./usr/share/udpfan/examples/config/af-xdp.yaml",
                 "./usr/share/udpfan/examples/systemd/hugepages.conf",
                 "./usr/bin/udpfanctl", "./usr/share/man/man8/udpfanctl.8.gz",
                 "./usr/share/udpfan/python/udpfan_telemetry.py"):
        assert (" " + path + "\n") in contents or contents.endswith(" " + path) \
            or (" " + path + " ") in contents, "%s not in the package:\n%s" % (path, contents)
    assert "test_" not in contents and "uf-mangen" not in contents, contents
    depends = must(["dpkg-deb", "-f", deb, "Depends"], 60)
    # ${shlibs:Depends}: DPDK's libraries, libyaml, libsystemd, from the archive
    for lib in ("librte-eal", "libyaml-0-2", "libsystemd0"):
        assert lib in depends, depends
    # EAL's ring mempool plugin, which shlibs cannot see: without it no pool is created
    assert "librte-mempool-ring" in depends, depends
    # the unit is shipped but neither enabled nor started by the maintainer scripts
    ctl = tempfile.mkdtemp(prefix="ufdebctl-")
    must(["dpkg-deb", "-e", deb, ctl], 60)
    for script in ("postinst", "prerm", "postrm"):
        p = os.path.join(ctl, script)
        if os.path.exists(p):
            with open(p) as f:
                text = f.read()
            assert "deb-systemd-invoke start" not in text and " enable " not in text, text
    shutil.rmtree(ctl)


class Root:
    """The cached clean root under an overlay: writes go to a temp upper directory."""

    def __init__(self, lower, work):
        self.lower = lower
        self.dir = os.path.join(work, "root")
        self.upper = os.path.join(work, "upper")
        self.ovl = os.path.join(work, "ovlwork")
        self.mounts = []

    def __enter__(self):
        for d in (self.dir, self.upper, self.ovl):
            os.makedirs(d)
        must(["mount", "-t", "overlay", "overlay", "-o", "lowerdir=%s,upperdir=%s,workdir=%s"
              % (self.lower, self.upper, self.ovl), self.dir], 60)
        self.mounts.append(self.dir)
        for fs, sub, opts in (("proc", "proc", []), ("/dev", "dev", ["--rbind"])):
            target = os.path.join(self.dir, sub)
            if opts:
                must(["mount"] + opts + [fs, target], 60)
            else:
                must(["mount", "-t", fs, fs, target], 60)
            self.mounts.append(target)
        shutil.copy("/etc/resolv.conf", os.path.join(self.dir, "etc/resolv.conf"))
        # no daemon starts inside the root
        prc = os.path.join(self.dir, "usr/sbin/policy-rc.d")
        with open(prc, "w") as f:
            f.write("#!/bin/sh\nexit 101\n")
        os.chmod(prc, 0o755)
        return self

    def run(self, cmd, timeout):
        env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND": "noninteractive",
               "LC_ALL": "C.UTF-8"}
        return must(["chroot", self.dir, "sh", "-ec", cmd], timeout, env=env)

    def __exit__(self, *exc):
        for m in reversed(self.mounts):
            subprocess.run(["umount", "-R", "-l", m], stderr=subprocess.DEVNULL)


def case_build_install():
    if os.geteuid() != 0:
        raise SkipCase("needs root (mount, chroot)")
    for tool in ("dpkg-buildpackage", "dh"):
        if not shutil.which(tool):
            raise SkipCase("%s is missing: scripts/setup.sh deps" % tool)
    work = tempfile.mkdtemp(prefix="ufdeb-")
    try:
        deb = build_deb(work)
        check_deb(deb)
        if not shutil.which("mmdebstrap"):
            raise SkipCase("built and checked %s; mmdebstrap is missing, so not installed"
                           % os.path.basename(deb))
        r = sh([os.path.join(UF_SRC, "tests/install/lab-chroot.sh")], 900)
        if r.returncode != 0:
            raise SkipCase("built and checked %s; no clean root (no archive?):\n%s"
                           % (os.path.basename(deb), r.stdout[-2000:]))
        lower = r.stdout.strip().splitlines()[-1]
        with Root(lower, work) as root:
            shutil.copy(deb, os.path.join(root.dir, "tmp"))
            name = os.path.basename(deb)
            root.run("test ! -e /usr/bin/udpfan && ! dpkg -s librte-eal23 2>/dev/null", 60)
            root.run("apt-get update -qq", 300)
            root.run("apt-get install -y -qq --no-install-recommends /tmp/%s >/dev/null" % name,
                     600)
            # apt brought the dependencies the root lacked, from the archive
            root.run("dpkg -s libyaml-0-2 libnuma1 libsystemd0 >/dev/null && "
                     "dpkg-query -W 'librte-eal*' >/dev/null", 60)
            out = root.run("udpfan --version", 60)
            assert out.startswith("udpfan %s " % version()), out
            out = root.run("for c in /usr/share/udpfan/examples/config/*.yaml; do "
                           "udpfan --check -c $c; done", 120)
            n = len(glob.glob(os.path.join(UF_SRC, "config/*.yaml")))
            assert out.count(": valid: ") == n, out
            root.run("udpfan-gen --version && udpfan-sink --version && "
                     "test -f /lib/systemd/system/udpfan@.service && test -d /etc/udpfan && "
                     "dpkg -s udpfan | grep -q '^Status: install ok installed'", 60)
            # removal leaves nothing running and the root consistent
            root.run("apt-get remove -y -qq udpfan >/dev/null && test ! -e /usr/bin/udpfan", 120)
    finally:
        subprocess.run(["rm", "-rf", "--one-file-system", work])


def main():
    s = Suite()
    s.run(case_build_install)
    s.finish()


if __name__ == "__main__":
    main()
