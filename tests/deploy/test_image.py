#!/usr/bin/env python3
"""image: the container image built and run (docs/deployment.md, "Container image").
scripts/image.sh builds deploy/container/Dockerfile with podman on the mmdebstrap base (or
reuses the image tagged with the recipe's content hash); then the image's udpfan runs in the
veth test bed's fwd namespace (podman --network ns:...) as deploy/k8s/udpfan-af-xdp.yaml runs
it: the capabilities its securityContext lists and no others, no new privileges, not
privileged, the host's hugepages mounted (and bpffs, as the manifest does). A bounded stream
through it: every copy counted at the kernel sinks, the final ledger balanced. Needs root,
podman and the Debian archive on the first build (minutes), so it runs only with
UF_TEST_IMAGE=1 and skips (77) otherwise: not part of the default CI run."""
import json
import os
import subprocess
import time

import yaml

from testbed import FWD_IP, Testbed, wait_for
from uflive import Sink, dest_lines, send
from ufrun import UF_SRC, SkipCase, Suite, final, ledger, read_stats, tmpdir

COUNT = 3000
RATE = 3000
NAME = "udpfan-image-test"
IMAGE_SH = os.path.join(UF_SRC, "scripts", "image.sh")
MANIFEST = os.path.join(UF_SRC, "deploy", "k8s", "udpfan-af-xdp.yaml")


def manifest_container():
    """the udpfan container of the af_xdp manifest: its securityContext and volume mounts"""
    for doc in yaml.safe_load_all(open(MANIFEST)):
        if doc and doc.get("kind") == "DaemonSet":
            for c in doc["spec"]["template"]["spec"]["containers"]:
                if c["name"] == "udpfan":
                    return c
    raise AssertionError("no udpfan container in %s" % MANIFEST)


def image():
    if os.environ.get("UF_TEST_IMAGE") != "1":
        raise SkipCase("the image test runs when asked: UF_TEST_IMAGE=1 (docs/testing.md#image)")
    r = subprocess.run([IMAGE_SH, "build"], cwd=UF_SRC, text=True, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if r.returncode == 77:
        raise SkipCase(r.stderr.strip().splitlines()[-1])
    assert r.returncode == 0, "scripts/image.sh build failed:\n" + r.stderr[-4000:]
    return r.stdout.strip().splitlines()[-1]


def podman_flags():
    out = subprocess.run([IMAGE_SH, "flags"], cwd=UF_SRC, text=True, check=True,
                         stdout=subprocess.PIPE).stdout.split("\n")
    i = out.index("--")
    return out[:i], [x for x in out[i + 1:] if x]


def config(tb, kind):
    return """eal: { lcores: "0-1", file_prefix: ufimg }
ports:
  - { name: lan, device: "%s", ip: %s/24 }
listen: { port: lan, udp_port: 5000 }
destinations:
%s
stats: { interval_s: 0.5 }
""" % (tb.vdev(kind), FWD_IP, dest_lines(tb, static=True))


def run_argv(podman, ulimits, tag, tb, wd, cfg, stats):
    sc = manifest_container()["securityContext"]
    assert sc["capabilities"]["drop"] == ["ALL"], sc
    assert not sc.get("privileged") and sc["allowPrivilegeEscalation"] is False, sc
    caps = ",".join(sc["capabilities"]["add"])
    argv = podman + ["run", "--rm", "--name", NAME, "--network", "ns:/run/netns/" + tb.ns_fwd,
                     "--cap-drop", "ALL", "--cap-add", caps,
                     "--security-opt", "no-new-privileges",
                     "--user", str(sc["runAsUser"])] + ulimits
    for path in ("/dev/hugepages", "/sys/fs/bpf"):
        argv += ["-v", "%s:%s" % (path, path)]
    argv += ["-v", "%s:%s" % (wd, wd), "--entrypoint", "udpfan", tag,
             "-c", cfg, "--stats-json", stats]
    return argv


def case_forward(kind):
    tag = image()
    podman, ulimits = podman_flags()
    subprocess.run(podman + ["rm", "-f", NAME], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wd = tmpdir()
    cfg, stats, log = (os.path.join(wd, n) for n in ("udpfan.yaml", "udpfan.jsonl",
                                                       "udpfan.log"))
    with Testbed(prefix="ufi", sinks=3) as tb:
        tb.static_neighbours()
        with open(cfg, "w") as f:
            f.write(config(tb, kind))
        sinks = [Sink(tb, ns, [6000], wd) for ns in tb.sink_ns]
        argv = run_argv(podman, ulimits, tag, tb, wd, cfg, stats)
        print("+ " + " ".join(argv))
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=open(log, "w"))
        try:
            if not wait_for(lambda: read_stats(stats) or proc.poll() is not None, 60):
                raise AssertionError("udpfan did not start in the container:\n" +
                                     open(log).read()[-4000:])
            assert proc.poll() is None, "podman run exited %d:\n%s" % (
                proc.returncode, open(log).read()[-4000:])
            insp = json.loads(subprocess.run(podman + ["inspect", NAME], text=True,
                                             stdout=subprocess.PIPE).stdout)[0]
            hc = insp["HostConfig"]
            assert hc["Privileged"] is False, hc["Privileged"]
            want = sorted("CAP_" + c for c in manifest_container()["securityContext"]
                          ["capabilities"]["add"])
            assert sorted(insp.get("EffectiveCaps") or []) == want, insp.get("EffectiveCaps")
            sent = send(tb, COUNT, RATE, size=64)
            assert sent["sent"] == COUNT, sent
            res = [s.result() for s in sinks]
            t0 = time.time()
            # podman stop: SIGTERM, as the kubelet sends it
            subprocess.run(podman + ["stop", "-t", "30", NAME], check=True,
                           stdout=subprocess.DEVNULL)
            rc = proc.wait(timeout=60)
            print("stopped in %.1f s, exit %d" % (time.time() - t0, rc))
        finally:
            if proc.poll() is None:
                subprocess.run(podman + ["rm", "-f", NAME], stdout=subprocess.DEVNULL)
                proc.wait(timeout=30)
        assert rc == 0, "udpfan exited %d:\n%s" % (rc, open(log).read()[-4000:])
    st = final(read_stats(stats))
    f = ledger(st)
    print("ledger: rx %d = forwarded %d + control %d + drops %d; fanout %d = copies %d + "
          "sampled_out %d; copies %d = tx_ok %d + tx_drop %d" % (
              f["rx"], f["forwarded"], f["control"], sum(f["drop"].values()), f["fanout"],
              f["copies_attempted"], f["sampled_out"], f["copies_attempted"], f["tx_ok"],
              sum(f["tx_drop"].values())))
    print("sinks: %s" % [r["6000"]["received"] for r in res])
    assert f["forwarded"] == COUNT, f
    assert f["tx_ok"] == 3 * COUNT and sum(f["tx_drop"].values()) == 0, f
    for r in res:
        c = r["6000"]
        assert c["received"] == COUNT and c["distinct"] == COUNT, c
        assert c["duplicates"] == 0, c


def main():
    s = Suite(root=True)
    for kind in ("af_packet", "af_xdp"):
        s.run(case_forward, kind)
    s.finish()


if __name__ == "__main__":
    main()
