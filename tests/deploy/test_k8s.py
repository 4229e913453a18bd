#!/usr/bin/env python3
"""deploy/: the Kubernetes manifests and the container recipe, checked offline.

- Every object in deploy/k8s/*.yaml validates against two offline copies of the Kubernetes API
  schemas (scripts/setup.sh deps puts both in /var/cache/udpfan-lab):
  * the OpenAPI document in Debian's golang-k8s-kube-openapi-dev (Kubernetes v1.14's, shipped
    as that library's test data), through python3-jsonschema with every object closed
    (additionalProperties: false, as kubeconform's -strict does): a misspelt field fails;
  * npm's kubernetes-models (validators generated from a current API), through node: types,
    enums and required fields of today's API.
  A misspelt field and a wrongly typed one must each be refused (the negative cases).
- What docs/deployment.md requires of the pod: Guaranteed QoS, an integer cpu >= 2 for
  udpfan, hugepages requests == limits, no privileged, exactly the capabilities of its PMD,
  the metrics annotation on the exporter's port, readiness from /udpfan/health, the drain
  (control.drain_s within the grace period, the exporter's preStop waiting for udpfan's stop).
- The ConfigMap renders (deploy/container/udpfan-k8s) to a config `udpfan --check` accepts.
- deploy/container/Dockerfile builds with setup.sh's build packages and commands, installs a
  DPDK runtime that has every library the binary needs, and is the image the manifests name.
  The image itself is not built here (no registry to pull debian:12 from).
"""
import copy
import glob
import json
import os
import re
import shlex
import socket
import subprocess
import sys
import tempfile

import yaml

from ufrun import Suite, SkipCase

UF_SRC = os.environ.get("UF_SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
UDPFAN = os.environ.get("UDPFAN", os.path.join(UF_SRC, "build", "udpfan"))
CACHE = os.environ.get("UDPFAN_LAB_CACHE", "/var/cache/udpfan-lab")
SWAGGER = os.path.join(CACHE, "kube-openapi/usr/share/gocode/src/k8s.io/kube-openapi/pkg/"
                       "schemaconv/testdata/swagger.json")
MODELS = os.path.join(CACHE, "k8s-models/node_modules")
MANIFESTS = sorted(glob.glob(os.path.join(UF_SRC, "deploy", "k8s", "*.yaml")))
DOCKERFILE = os.path.join(UF_SRC, "deploy", "container", "Dockerfile")
HELPER = os.path.join(UF_SRC, "deploy", "container", "udpfan-k8s")
EXPORTER_PORT = "9917"  # scripts/udpfan-exporter.py's default --listen port

# docs/deployment.md, "Least privilege": what each variant's PMD needs, no more
CAPS = {"vfio": {"IPC_LOCK"}, "af-xdp": {"NET_RAW", "NET_ADMIN", "SYS_ADMIN", "IPC_LOCK"}}


def need(path, what):
    if not os.path.exists(path):
        raise AssertionError("%s is missing (%s): run scripts/setup.sh deps" % (path, what))


def docs_of(path):
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d]


_strict = None


def strict_schemas():
    """{(apiVersion, kind): schema} from the OpenAPI document, every object closed"""
    global _strict
    if _strict is not None:
        return _strict
    need(SWAGGER, "Debian's golang-k8s-kube-openapi-dev")
    with open(SWAGGER) as f:
        defs = json.load(f)["definitions"]

    def close(s):
        if isinstance(s, dict):
            if "properties" in s and "additionalProperties" not in s:
                s["additionalProperties"] = False
            for v in s.values():
                close(v)
        elif isinstance(s, list):
            for v in s:
                close(v)

    close(defs)
    # what the document's "string" types also accept as YAML writes them
    defs["io.k8s.apimachinery.pkg.util.intstr.IntOrString"] = {"type": ["string", "integer"]}
    defs["io.k8s.apimachinery.pkg.api.resource.Quantity"] = {"type": ["string", "number"]}
    out = {}
    for name, d in defs.items():
        for gvk in d.get("x-kubernetes-group-version-kind", []):
            av = gvk["version"] if not gvk["group"] else gvk["group"] + "/" + gvk["version"]
            out[(av, gvk["kind"])] = {"$ref": "#/definitions/" + name, "definitions": defs}
    _strict = out
    return out


def strict_errors(doc):
    import jsonschema
    key = (doc.get("apiVersion"), doc.get("kind"))
    schema = strict_schemas().get(key)
    if schema is None:
        return ["no schema for %s %s" % key]
    v = jsonschema.Draft4Validator(schema)
    return ["%s: %s" % ("/".join(map(str, e.absolute_path)), e.message)
            for e in v.iter_errors(doc)]


NODE_VALIDATE = r"""
const [base, file] = process.argv.slice(2);
const docs = JSON.parse(require("fs").readFileSync(file, "utf8"));
(async () => {
  const out = [];
  for (const d of docs) {
    const [g, v] = d.apiVersion.includes("/") ? d.apiVersion.split("/") : [null, d.apiVersion];
    const mod = base + "/kubernetes-models/" + (g ? g + "/" : "") + v + "/" + d.kind + ".js";
    try {
      const cls = (await import(mod))[d.kind];
      new cls(d).validate();
      out.push(null);
    } catch (e) {
      out.push(String(e.message || e));
    }
  }
  console.log(JSON.stringify(out));
})();
"""


def models_errors(docs):
    """one error string (or None) per document, from npm's kubernetes-models"""
    need(os.path.join(MODELS, "kubernetes-models", "package.json"), "npm's kubernetes-models")
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "docs.json")
        with open(p, "w") as f:
            json.dump(docs, f)
        js = os.path.join(d, "validate.cjs")
        with open(js, "w") as f:
            f.write(NODE_VALIDATE)
        r = subprocess.run(["node", js, MODELS, p], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def case_schema(variant):
    name = "udpfan-%s.yaml" % variant
    docs = docs_of(os.path.join(UF_SRC, "deploy", "k8s", name))
    assert {d["kind"] for d in docs} == {"ConfigMap", "DaemonSet"}, [d["kind"] for d in docs]
    for d in docs:
        errs = strict_errors(d)
        assert not errs, "%s %s: %s" % (d["kind"], name, errs)
    errs = models_errors(docs)
    assert errs == [None] * len(docs), errs


def daemonset(name="udpfan-vfio.yaml"):
    return next(d for d in docs_of(os.path.join(UF_SRC, "deploy", "k8s", name))
                if d["kind"] == "DaemonSet")


def case_negative_misspelt_field():
    """a field the API does not have (hostNetwork misspelt) is refused"""
    ds = daemonset()
    assert not strict_errors(ds)
    bad = copy.deepcopy(ds)
    bad["spec"]["template"]["spec"]["hostNetwrok"] = True
    errs = strict_errors(bad)
    assert any("hostNetwrok" in e for e in errs), errs
    bad = copy.deepcopy(ds)
    bad["spec"]["template"]["spec"]["containers"][0]["resources"]["limit"] = {"cpu": "3"}
    errs = strict_errors(bad)
    assert any("'limit'" in e for e in errs), errs


def case_negative_wrong_type():
    """a field of the wrong type, or a missing required one, is refused by both validators"""
    ds = daemonset()
    bad = copy.deepcopy(ds)
    bad["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["periodSeconds"] = "5s"
    assert any("periodSeconds" in e for e in strict_errors(bad)), strict_errors(bad)
    nobody = copy.deepcopy(ds)
    del nobody["spec"]["selector"]
    errs = models_errors([bad, nobody, ds])
    assert errs[0] and "periodSeconds" in errs[0], errs
    assert errs[1] and "selector" in errs[1], errs
    assert errs[2] is None, errs


def qty(v):
    m = re.fullmatch(r"(\d+)(m|Ki|Mi|Gi)?", str(v))
    assert m, v
    n = int(m.group(1))
    return {None: n * 1000, "m": n}.get(m.group(2), n) if m.group(2) in (None, "m") else \
        n * {"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}[m.group(2)]


def case_pod_policy(variant):
    name = "udpfan-%s.yaml" % variant
    docs = docs_of(os.path.join(UF_SRC, "deploy", "k8s", name))
    cm = next(d for d in docs if d["kind"] == "ConfigMap")
    ds = next(d for d in docs if d["kind"] == "DaemonSet")
    tmpl = ds["spec"]["template"]
    spec = tmpl["spec"]
    assert ds["spec"]["selector"]["matchLabels"].items() <= tmpl["metadata"]["labels"].items()
    byname = {c["name"]: c for c in spec["containers"]}
    assert set(byname) == {"udpfan", "reload", "exporter"}, list(byname)
    # Guaranteed QoS: every container's cpu and memory requests equal their limits
    for c in spec["containers"]:
        r = c["resources"]
        assert r["requests"] == r["limits"], (c["name"], r)
        assert {"cpu", "memory"} <= set(r["limits"]), (c["name"], r)
        sc = c["securityContext"]
        assert not sc.get("privileged"), c["name"]
        assert sc.get("allowPrivilegeEscalation") is False, c["name"]
        assert sc["capabilities"]["drop"] == ["ALL"], c["name"]
    uf = byname["udpfan"]
    lim = uf["resources"]["limits"]
    # static CPU manager: exclusive CPUs only for an integer cpu; >= main + 1 worker
    assert re.fullmatch(r"\d+", str(lim["cpu"])) and int(lim["cpu"]) >= 2, lim
    assert qty(lim["hugepages-2Mi"]) >= 256 << 20, lim
    assert set(uf["securityContext"]["capabilities"].get("add", [])) == CAPS[variant]
    for side in ("reload", "exporter"):
        assert not byname[side]["securityContext"]["capabilities"].get("add"), side
        # fractional cpu: the sidecars stay in the shared pool, off udpfan's CPUs
        assert not re.fullmatch(r"\d+", str(byname[side]["resources"]["limits"]["cpu"]))
    if variant == "vfio":
        assert any(k.endswith("sriov_vfio") for k in lim), lim
        assert not spec.get("hostNetwork")
    else:
        assert spec.get("hostNetwork") is True
        assert not any("/" in k for k in lim), lim
    # readiness from /udpfan/health (udpfan-k8s ready)
    assert uf["readinessProbe"]["exec"]["command"] == ["udpfan-k8s", "ready"]
    # the drain (docs/deployment.md, "Kubernetes"): the kubelet's SIGTERM starts udpfan's
    # drain of control.drain_s; readiness notices within the drain; the grace period covers
    # the drain and the stop; the exporter outlives udpfan (its preStop waits for the stop,
    # at most drain_s + 10 s, inside the grace period)
    drain_s = yaml.safe_load(cm["data"]["udpfan.yaml.in"])["control"]["drain_s"]
    rp = uf["readinessProbe"]
    assert drain_s > rp["periodSeconds"] * rp["failureThreshold"], (drain_s, rp)
    grace = spec["terminationGracePeriodSeconds"]
    assert drain_s + 10 <= grace <= drain_s + 60, (drain_s, grace)
    assert byname["exporter"]["lifecycle"]["preStop"]["exec"]["command"] == \
        ["udpfan-k8s", "wait-stopped"], byname["exporter"].get("lifecycle")
    assert "lifecycle" not in uf, "udpfan's drain starts with the kubelet's SIGTERM"
    # metrics: annotated on the port the exporter serves
    ann = tmpl["metadata"]["annotations"]
    assert ann["prometheus.io/scrape"] == "true" and ann["prometheus.io/port"] == EXPORTER_PORT
    cmd = byname["exporter"]["command"]
    assert cmd[cmd.index("--listen") + 1].endswith(":" + EXPORTER_PORT), cmd
    assert byname["exporter"]["ports"][0]["containerPort"] == int(EXPORTER_PORT)
    # the config: the ConfigMap mounted whole (a subPath mount never sees an update) in
    # udpfan and in the reload sidecar; the telemetry socket's directory shared by all three
    vols = {v["name"]: v for v in spec["volumes"]}
    assert vols["config"]["configMap"]["name"] == cm["metadata"]["name"]
    assert vols["hugepages"]["emptyDir"]["medium"] == "HugePages"
    for c in spec["containers"]:
        mounts = {m["name"]: m for m in c.get("volumeMounts", [])}
        assert mounts["dpdk"]["mountPath"] == "/var/run/dpdk", c["name"]
        assert not any("subPath" in m for m in mounts.values()), c["name"]
        if c["name"] != "exporter":
            assert mounts["config"]["mountPath"] == "/etc/udpfan", c["name"]
    assert byname["reload"]["args"] == ["watch"] and uf["args"] == ["run"]
    # one image, the one the Dockerfile's header builds
    images = {c["image"] for c in spec["containers"]}
    with open(DOCKERFILE) as f:
        m = re.search(r"docker build .* -t (\S+) \.", f.read())
    assert images == {m.group(1)}, (images, m.group(1))


def case_render(variant):
    """the ConfigMap's template, rendered as the pod renders it, passes udpfan --check"""
    name = "udpfan-%s.yaml" % variant
    cm = next(d for d in docs_of(os.path.join(UF_SRC, "deploy", "k8s", name))
              if d["kind"] == "ConfigMap")
    with tempfile.TemporaryDirectory() as d:
        for k, v in cm["data"].items():
            with open(os.path.join(d, k), "w") as f:
                f.write(v)
        env = dict(os.environ, UDPFAN_CONF_DIR=d, NODE_NAME="worker-b",
                   PCIDEVICE_INTEL_COM_SRIOV_VFIO="0000:03:02.1")
        r = subprocess.run(["taskset", "-c", "0,1", sys.executable, HELPER, "render"],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=30)
        assert r.returncode == 0, r.stderr
        cfg = yaml.safe_load(r.stdout)
        assert cfg["eal"]["lcores"] == "0@0,1@1", cfg["eal"]
        assert cfg["ports"][0]["ip"] == "10.0.1.11/24", cfg["ports"]
        dev = cfg["ports"][0]["device"]
        assert dev == ("0000:03:02.1" if "vfio" in name else
                       "net_af_xdp0,iface=eth1,queue_count=1"), dev
        p = os.path.join(d, "udpfan.yaml")
        with open(p, "w") as f:
            f.write(r.stdout)
        c = subprocess.run([UDPFAN, "-c", p, "--check"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=30)
        # 0: valid; 3: valid, but this machine lacks the VF or the interface
        assert c.returncode in (0, 3), c.stdout
        assert c.returncode == 3 or ": valid: 1 port" in c.stdout, c.stdout
        # a node the table does not list is a clear error, not a half-filled config
        env["NODE_NAME"] = "nowhere"
        r = subprocess.run([sys.executable, HELPER, "render"], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=30)
        assert r.returncode != 0 and "no row for node 'nowhere'" in r.stderr, r.stderr


def case_reload_sidecar():
    """udpfan-k8s watch: a changed ConfigMap is rendered again with the values recorded at
    start (the CPUs and the device do not follow the sidecar's own) and udpfan is asked to
    reload; a change that cannot be rendered leaves the running config alone"""
    import time
    cm = next(d for d in docs_of(os.path.join(UF_SRC, "deploy", "k8s", "udpfan-vfio.yaml"))
              if d["kind"] == "ConfigMap")
    with tempfile.TemporaryDirectory() as d:
        conf, run = os.path.join(d, "conf"), os.path.join(d, "run")
        os.makedirs(conf)
        for k, v in cm["data"].items():
            with open(os.path.join(conf, k), "w") as f:
                f.write(v)
        env = dict(os.environ, UDPFAN_CONF_DIR=conf, UDPFAN_RUN_DIR=run, NODE_NAME="worker-a",
                   PCIDEVICE_INTEL_COM_SRIOV_VFIO="0000:03:02.1",
                   UDPFAN_FILE_PREFIX="uf-k8s-test-none")
        # `run` as the udpfan container does it, with `true` for udpfan
        r = subprocess.run(["taskset", "-c", "0,1", sys.executable, HELPER, "run", "--udpfan",
                            "true"], env=env, stderr=subprocess.PIPE, text=True, timeout=30)
        assert r.returncode == 0, r.stderr
        cfg = os.path.join(run, "udpfan.yaml")
        first = yaml.safe_load(open(cfg))
        assert first["eal"]["lcores"] == "0@0,1@1", first
        w = subprocess.Popen(["taskset", "-c", "0", sys.executable, HELPER, "watch",
                              "--interval", "0.2"], env=env, stderr=subprocess.PIPE, text=True)
        try:
            time.sleep(0.5)
            tmpl = os.path.join(conf, "udpfan.yaml.in")
            with open(tmpl) as f:
                text = f.read()
            with open(tmpl, "w") as f:
                f.write(text.replace("10.0.2.21", "10.0.2.99"))
            for _ in range(50):
                time.sleep(0.1)
                now = yaml.safe_load(open(cfg))
                if now["destinations"][1]["ip"] == "10.0.2.99":
                    break
            assert now["destinations"][1]["ip"] == "10.0.2.99", now
            assert now["eal"] == first["eal"] and now["ports"] == first["ports"], now
            # an unrenderable change (a placeholder nothing fills): config left as it was
            with open(tmpl, "w") as f:
                f.write(text.replace("10.0.2.21", "@NOPE@"))
            time.sleep(1.0)
            assert yaml.safe_load(open(cfg)) == now
        finally:
            w.terminate()
            err = w.communicate(timeout=10)[1]
        assert "ConfigMap changed: /udpfan/reload" in err or \
            "ConfigMap changed but udpfan's telemetry did not answer" in err, err
        assert "cannot be rendered, not reloading" in err and "@NOPE@" in err, err


class FakeTelemetry:
    """a DPDK telemetry socket (SOCK_SEQPACKET: the info object, then one answer per
    command) answering from a dict that the test changes; None: the command is unknown"""

    def __init__(self, path):
        import threading
        self.answers = {}
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.bind(path)
        self.sock.listen(4)
        self.path = path
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            with c:
                c.send(json.dumps({"version": "fake", "pid": 1,
                                   "max_output_len": 16384}).encode())
                cmd = c.recv(1024).decode()
                c.send(json.dumps({cmd: self.answers.get(cmd)}).encode())

    def close(self):
        self.sock.close()
        os.unlink(self.path)


def case_probe():
    """udpfan-k8s ready (the readiness probe) from /udpfan/health: 0 when ready (degraded
    too), 1 when starting, draining or stopping, or nothing answers; an older udpfan without
    the command: from /udpfan/stats. udpfan-k8s wait-stopped (the exporter's preStop) returns
    once the socket stops answering, and gives up after drain_s + 10 s"""
    import time
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, UDPFAN_TELEMETRY=os.path.join(d, "dpdk_telemetry.v2"))

        def helper(*args):
            r = subprocess.run([sys.executable, HELPER] + list(args), env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=60)
            return r.returncode, r.stdout

        rc, out = helper("ready")
        assert rc == 1 and "not ready" in out, out
        tel = FakeTelemetry(env["UDPFAN_TELEMETRY"])
        health = {"state": "ready", "degraded": 0, "reasons": [], "drain_s": 1,
                  "drain_left_s": "0.000"}
        for state, want in (("starting", 1), ("ready", 0), ("draining", 1), ("stopping", 1)):
            tel.answers["/udpfan/health"] = dict(health, state=state)
            rc, out = helper("ready")
            assert rc == want, (state, rc, out)
        tel.answers["/udpfan/health"] = dict(health, degraded=1, reasons=["port vf0: link down"])
        rc, out = helper("ready")
        assert rc == 0 and "degraded: port vf0: link down" in out, out
        # an older udpfan: no /udpfan/health; ready once the stats have counters
        del tel.answers["/udpfan/health"]
        rc, out = helper("ready")
        assert rc == 1 and "no stats interval" in out, out
        tel.answers["/udpfan/stats"] = {"fwd": {"rx": 0}}
        rc, out = helper("ready")
        assert rc == 0, out
        # wait-stopped: udpfan (drain_s 1) still answering: gives up after 1 + 10 s
        tel.answers["/udpfan/health"] = dict(health, state="draining")
        t0 = time.monotonic()
        rc, out = helper("wait-stopped", "--interval", "0.2")
        took = time.monotonic() - t0
        assert rc == 0 and 10.5 < took < 20 and "still answers after 11 s" in out, (took, out)
        # ... and returns as soon as it stops
        p = subprocess.Popen([sys.executable, HELPER, "wait-stopped", "--interval", "0.1"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(1.0)
        assert p.poll() is None, p.communicate()
        tel.close()
        t0 = time.monotonic()
        out = p.communicate(timeout=10)[0]
        assert p.returncode == 0 and time.monotonic() - t0 < 2 and not out, out


def dockerfile_stages():
    with open(DOCKERFILE) as f:
        text = f.read().replace("\\\n", " ")
    stages = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        op, _, rest = line.partition(" ")
        if op == "FROM":
            stages.append({"from": rest, "run": [], "copy": []})
        elif op == "RUN":
            stages[-1]["run"] += [c.strip() for c in rest.split("&&")]
        elif op == "COPY":
            stages[-1]["copy"].append(rest.split())
    return stages


def apt_installs(cmds):
    pk = set()
    for c in cmds:
        w = shlex.split(c)
        if w[:2] == ["apt-get", "install"]:
            pk |= {x for x in w[2:] if not x.startswith("-")}
    return pk


def case_dockerfile():
    build, run = dockerfile_stages()
    assert build["from"].startswith("debian:12") and run["from"] == "debian:12"
    # the build stage: setup.sh's build packages, setup.sh build's commands, meson install
    with open(os.path.join(UF_SRC, "scripts", "setup.sh")) as f:
        setup = f.read()
    pkgs = re.search(r"PKGS=\(([^)]*)\)", setup).group(1).split()
    build_pkgs = pkgs[:pkgs.index("gcc") + 1]
    assert apt_installs(build["run"]) == set(build_pkgs), apt_installs(build["run"])
    cmds = [c for c in build["run"]]
    assert any(c.startswith("meson setup build") for c in cmds), cmds
    assert "ninja -C build" in cmds, cmds
    assert any("meson install -C build" in c for c in cmds), cmds
    assert "meson setup build" in setup and "ninja -C build" in setup
    # every COPY source exists, and the tree meson needs is there
    srcs = set()
    for c in build["copy"]:
        for s in c[:-1]:
            assert os.path.exists(os.path.join(UF_SRC, s)), s
            srcs.add(s)
    # what the top-level meson.build reads: its subdir()s and module folders, its files
    with open(os.path.join(UF_SRC, "meson.build")) as f:
        mb = f.read()
    top = {"meson.build", "meson_options.txt", "lib"}
    top |= {m.split("/")[0] for m in re.findall(r"subdir\('([^']+)'\)", mb)}
    top |= {m.split("/")[0] for m in re.findall(r"'[a-z_]+': '([^']+)'", mb)}
    top |= {m.split("/")[0] for m in re.findall(r"install_data\('([^']+)'", mb)}
    assert top <= srcs, "the Dockerfile does not copy %s" % sorted(top - srcs)
    for c in cmds:
        for src in re.findall(r"install -D -m \d+ (?:-t \S+ )?(\S+)", c):
            assert glob.glob(os.path.join(UF_SRC, src)), src
    # the runtime stage: a Debian package for every library the built binary needs
    rt = apt_installs(run["run"])
    r = subprocess.run(["ldd", UDPFAN], stdout=subprocess.PIPE, text=True, check=True)
    libs = re.findall(r"=> (/\S+)", r.stdout)
    owners = set()
    for lib in libs:
        q = subprocess.run(["dpkg", "-S", os.path.realpath(lib)], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        if q.returncode != 0:
            q = subprocess.run(["dpkg", "-S", lib], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
        assert q.returncode == 0, "no package owns %s" % lib
        owners.add(q.stdout.split(":")[0])
    # libc6 and what dpdk's libraries depend on come with debian:12 or with apt's Depends
    missing = {o for o in owners if o.startswith(("librte-", "libnuma", "libyaml", "libxdp",
                                                   "libbpf"))} - rt
    dpdk_libs = {o for o in owners if o.startswith("librte-")}
    if dpdk_libs:
        # the dpdk package Recommends its libraries; --no-install-recommends needs them named
        # or pulled in by a PMD's Depends
        deps = subprocess.run(["apt-cache", "depends", "--recurse", "--no-recommends",
                               "--no-suggests", "--no-conflicts", "--no-breaks",
                               "--no-replaces", "--no-enhances"] + sorted(rt),
                              stdout=subprocess.PIPE, text=True, timeout=120)
        reach = set(re.findall(r"^(\S+)$", deps.stdout, re.M))
        if not reach:
            raise SkipCase("apt-cache knows no packages (apt-get update)")
        missing -= reach
    assert not missing, "the runtime stage lacks %s" % sorted(missing)
    # the PMDs docs/deployment.md covers, as plugins
    # and the mempool driver of every mbuf pool (a plugin too: dpdk only Recommends it)
    for pmd in ("librte-net-ena23", "librte-net-af-xdp23", "librte-net-iavf23",
                "librte-net-mlx5-23", "librte-mempool-ring23"):
        assert pmd in rt, pmd
    assert run["copy"] == [["--from=build", "/staging/", "/"]], run["copy"]


def main():
    s = Suite()
    names = [os.path.basename(p)[len("udpfan-"):-len(".yaml")] for p in MANIFESTS]
    assert set(names) == set(CAPS), names
    for n in names:
        s.run(case_schema, n)
    s.run(case_negative_misspelt_field)
    s.run(case_negative_wrong_type)
    for n in names:
        s.run(case_pod_policy, n)
    for n in names:
        s.run(case_render, n)
    s.run(case_reload_sidecar)
    s.run(case_probe)
    s.run(case_dockerfile)
    s.finish()


if __name__ == "__main__":
    main()
