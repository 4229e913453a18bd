#!/usr/bin/env python3
"""Host side of the lab (docs/testing.md#lab): two network namespaces with a tap each, a QEMU
guest whose e1000e and virtio-net-pci NICs are those taps, and an agent on a virtio-serial
port that runs the guest's requests in the namespaces (senders, sinks, link down/up).

    python3 scripts/lab/host.py IMAGE_DIR SRC BUILD OUT

The guest (scripts/lab/guest-init.sh, tests/lab/lab_guest.py) runs the cases and writes
OUT/results.json; this prints one line per case and "N passed, N failed". Every wait is
bounded: QEMU runs under a deadline and is killed past it."""
import json, os, re, shutil, socket, subprocess, sys, threading, time

NS = {"a": "qlab-a", "b": "qlab-b"}
TAP = {"a": "qlab-ta", "b": "qlab-tb"}
HOST_IP = {"a": "10.19.1.1/24", "b": "10.19.2.1/24"}
DEADLINE = int(os.environ.get("UF_LAB_TIMEOUT", "900"))


def sh(cmd, check=True):
    return subprocess.run(cmd, shell=True, check=check, capture_output=True, text=True)


def cleanup():
    for k in NS:
        sh(f"ip netns del {NS[k]} 2>/dev/null", check=False)
        sh(f"ip link del {TAP[k]} 2>/dev/null", check=False)


def accel():
    """TCG unless UF_LAB_ACCEL says kvm: on the development VM (itself a guest) /dev/kvm
    opens but a KVM guest hangs after the kernel's decompression (2026-12-01)."""
    return os.environ.get("UF_LAB_ACCEL", "tcg")


class Agent:
    """One request per line from the guest, one JSON reply per line. Requests:
    {"run": CMD, "ns": "a"|"b"|null, "timeout": S} runs CMD (shell) in that namespace;
    {"spawn": CMD, "ns": ...} starts it and answers its id; {"wait": ID, "timeout": S}
    collects it (killed past the timeout)."""

    def __init__(self, path, src):
        # the commands see the host's source tree as $UF_LAB_SRC (tests/tools/ on the host)
        self.env = dict(os.environ, UF_LAB_SRC=src)
        self.srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.srv.bind(path)
        self.srv.listen(1)
        self.procs = {}
        self.log = []
        self.hmp_path = os.path.join(os.path.dirname(path), "hmp.sock")

    def serve(self):
        try:
            conn, _ = self.srv.accept()
        except OSError:
            return
        f = conn.makefile("rw")
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                req = json.loads(line)
                rep = self.handle(req)
            except Exception as e:  # the guest sees the failure as a reply
                rep = {"rc": -1, "out": "", "err": f"agent: {e!r}"}
            f.write(json.dumps(rep) + "\n")
            f.flush()

    def wrap(self, req, key):
        cmd = req[key]
        ns = req.get("ns")
        self.log.append(f"{ns or '-'}: {cmd}")
        if ns:
            return ["ip", "netns", "exec", NS[ns], "sh", "-c", cmd]
        return ["sh", "-c", cmd]

    def handle(self, req):
        if "run" in req:
            try:
                r = subprocess.run(self.wrap(req, "run"), capture_output=True, text=True,
                                   timeout=req.get("timeout", 30), env=self.env)
                return {"rc": r.returncode, "out": r.stdout, "err": r.stderr}
            except subprocess.TimeoutExpired as e:
                return {"rc": 124, "out": str(e.stdout or ""), "err": "timeout"}
        if "spawn" in req:
            p = subprocess.Popen(self.wrap(req, "spawn"), stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env=self.env)
            self.procs[p.pid] = p
            return {"id": p.pid}
        if "wait" in req:
            p = self.procs.pop(req["wait"])
            try:
                out, err = p.communicate(timeout=req.get("timeout", 30))
            except subprocess.TimeoutExpired:
                p.kill()
                out, err = p.communicate()
                return {"rc": 124, "out": out, "err": err + " (killed: timeout)"}
            return {"rc": p.returncode, "out": out, "err": err}
        if "hmp" in req:
            return self.hmp(req["hmp"])
        raise ValueError(f"unknown request {req}")

    def hmp(self, cmd):
        """One command to QEMU's human monitor (set_link NETDEV on|off: the guest NIC's link)."""
        self.log.append(f"hmp: {cmd}")
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        s.connect(self.hmp_path)
        buf = b""
        while not buf.endswith(b"(qemu) "):
            buf += s.recv(4096)
        s.sendall(cmd.encode() + b"\n")
        buf = b""
        while not buf.endswith(b"(qemu) "):
            buf += s.recv(4096)
        s.close()
        text = buf.decode(errors="replace")
        return {"rc": 1 if "rror" in text else 0, "out": text, "err": ""}

    def stop(self):
        for p in self.procs.values():
            p.kill()
            p.wait()
        self.srv.close()


def boot(img, src, build, out, phase, acc):
    cleanup()
    for k in NS:
        sh(f"ip netns add {NS[k]}")
        sh(f"ip -n {NS[k]} link set lo up")
        # multi_queue (b): the virtio NIC's two queue pairs are two fds on the same tap
        sh(f"ip tuntap add dev {TAP[k]} mode tap{' multi_queue' if k == 'b' else ''}")
    sock = os.path.join(out, f"agent-{phase}.sock")
    agent = Agent(sock, src)
    threading.Thread(target=agent.serve, daemon=True).start()
    append = (f"console=ttyS0 root=/dev/vda rw init=/sbin/lab-init panic=-1 lab.phase={phase} "
              "hugepagesz=2M hugepages=256 net.ifnames=0 loglevel=" + os.environ.get("UF_LAB_LOGLEVEL", "4"))
    # phase iommu: q35 with QEMU's intel-iommu (interrupt remapping: vfio_iommu_type1 wants
    # it), so each NIC has an IOMMU group; Debian's kernel has no vfio no-IOMMU mode. The
    # virtio NIC's DMA goes through it only with iommu_platform=on (modern virtio).
    iommu = phase == "iommu"
    machine = ["-M", "q35", "-device", "intel-iommu,intremap=on"] if iommu else ["-M", "pc"]
    if iommu:
        append += " intel_iommu=on"
    # UF_LAB_CASES reaches the guest's suite on the kernel command line (its init has no
    # other environment): guest-init.sh exports it again
    cases = os.environ.get("UF_LAB_CASES", "")
    if cases:
        if not re.fullmatch(r"[a-z0-9_,]+", cases):
            raise SystemExit(f"lab: UF_LAB_CASES={cases!r}: case names are [a-z0-9_], comma-separated")
        append += f" lab.cases={cases}"
    vio_extra = ",disable-legacy=on,iommu_platform=on" if iommu else ""
    qemu = ["qemu-system-x86_64", "-accel", acc] + machine + ["-cpu", "max" if acc == "tcg" else "host",
            "-smp", "2", "-m", "2048", "-nographic", "-no-reboot", "-nodefaults",
            "-serial", "stdio", "-kernel", f"{img}/vmlinuz", "-initrd", f"{img}/initrd.img",
            "-append", append,
            # fixed PCI slots: the NICs at 03..05 whatever else there is
            "-drive", f"file={img}/rootfs.img,format=raw,if=none,id=root,snapshot=on",
            "-device", "virtio-blk-pci,drive=root,addr=07.0",
            "-fsdev", f"local,id=src,path={src},security_model=none,readonly=on",
            "-device", "virtio-9p-pci,fsdev=src,mount_tag=src,addr=08.0",
            "-fsdev", f"local,id=build,path={build},security_model=none,readonly=on",
            "-device", "virtio-9p-pci,fsdev=build,mount_tag=build,addr=09.0",
            "-fsdev", f"local,id=out,path={out},security_model=none",
            "-device", "virtio-9p-pci,fsdev=out,mount_tag=out,addr=0a.0",
            # management NIC (user networking): scripts/dpdk-bind.sh must refuse it
            "-netdev", "user,id=mgmt", "-device", "virtio-net-pci,netdev=mgmt,addr=03.0,romfile=",
            # port "em": 82574 (DPDK net_e1000_em), host side qlab-ta in qlab-a
            "-netdev", f"tap,id=na,ifname={TAP['a']},script=no,downscript=no",
            "-device", "e1000e,netdev=na,addr=04.0,romfile=,mac=52:54:00:19:01:02",
            # port "vio": virtio-net with two queue pairs and RSS, host side qlab-tb in qlab-b
            "-netdev", f"tap,id=nb,ifname={TAP['b']},script=no,downscript=no,queues=2,vhost=off",
            "-device", "virtio-net-pci,netdev=nb,addr=05.0,romfile=,mq=on,vectors=6,rss=on,mac=52:54:00:19:02:02" + vio_extra,
            "-device", "virtio-serial-pci,addr=06.0",
            "-chardev", f"socket,id=agent,path={sock}",
            "-device", "virtserialport,chardev=agent,name=lab",
            "-monitor", f"unix:{agent.hmp_path},server=on,wait=off"]
    t0 = time.time()
    console = open(os.path.join(out, f"console-{phase}.log"), "w")
    print(f"lab: booting the guest ({phase}: {acc}, 2 vCPUs): {' '.join(qemu)}", flush=True)
    q = subprocess.Popen(qemu, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, errors="replace")

    def pump():
        for line in q.stdout:
            console.write(line)
            console.flush()
            if os.environ.get("UF_LAB_VERBOSE", "1") != "0":
                sys.stdout.write("guest: " + line)
                sys.stdout.flush()

    threading.Thread(target=pump, daemon=True).start()
    # QEMU has opened the taps once they have a carrier; then they go to their namespaces
    moved = set()
    while len(moved) < 2 and q.poll() is None and time.time() - t0 < 60:
        for k in NS:
            if k in moved:
                continue
            sh(f"ip link set {TAP[k]} up", check=False)
            try:
                carrier = open(f"/sys/class/net/{TAP[k]}/carrier").read().strip()
            except OSError:
                carrier = "0"
            if carrier == "1":
                sh(f"ip link set {TAP[k]} netns {NS[k]}")
                sh(f"ip -n {NS[k]} addr add {HOST_IP[k]} dev {TAP[k]}")
                sh(f"ip -n {NS[k]} link set {TAP[k]} up")
                moved.add(k)
        time.sleep(0.2)
    rc = None
    try:
        rc = q.wait(timeout=max(1, DEADLINE - (time.time() - t0)))
    except subprocess.TimeoutExpired:
        print(f"lab: the guest ran past {DEADLINE} s: killed", flush=True)
        q.kill()
        q.wait()
    took = time.time() - t0
    agent.stop()
    cleanup()
    return rc, took


def main():
    img, src, build, out = sys.argv[1:5]
    acc = accel()
    results, bad = [], []
    total = 0.0
    # two boots: without an IOMMU (what binding does there), then with QEMU's intel-iommu
    for phase in ("noiommu", "iommu"):
        rc, took = boot(img, src, build, out, phase, acc)
        total += took
        path = os.path.join(out, f"results-{phase}.json")
        got = json.load(open(path)) if os.path.exists(path) else None
        results += got or []
        # no results: the suite did not run, unless UF_LAB_CASES selected none of this phase's
        if rc != 0 or got is None or (not got and not os.environ.get("UF_LAB_CASES")):
            bad.append(f"{phase}: the guest ended with {rc} and {len(got or [])} results "
                       f"(console: {out}/console-{phase}.log)")
        print(f"lab: {phase} boot: {took:.0f} s", flush=True)
    passed = sum(1 for r in results if r["ok"])
    failed = sum(1 for r in results if not r["ok"])
    for r in results:
        print(f"lab: {'PASS' if r['ok'] else 'FAIL'} {r['name']} ({r['s']:.1f} s){'' if r['ok'] else ': ' + r['why']}")
    for b in bad:
        print(f"lab: {b}")
        failed += 1
    print(f"lab: guest runs {total:.0f} s ({acc})")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        cleanup()
