"""Health checks against udpfan's port health responder from tests: curl and Debian's HAProxy
(docs/deployment.md#health-checks-on-the-port). Shared by the e2e suites healthcheck and
fleet."""
import socket
import subprocess


def curl(ns, url, v6=False):
    """(HTTP status, body) of one GET from namespace `ns`; (0, "") when it failed"""
    out = subprocess.run(["ip", "netns", "exec", ns, "curl", "-s", "-g", "-m", "3",
                          "-6" if v6 else "-4", "-w", "\n%{http_code}", url],
                         capture_output=True, text=True)
    body, _, code = out.stdout.rpartition("\n")
    return int(code or 0), body.strip()


def url(ip, port, path="/healthz"):
    return "http://%s:%d%s" % ("[%s]" % ip if ":" in ip else ip, port, path)


def haproxy_config(sock, backends, path="/healthz", inter=300):
    """an HAProxy config: a stats socket at `sock` and one backend per (name, check, servers):
    check "tcp" (option tcp-check: connect and close) or "http" (option httpchk GET `path`),
    servers [(server name, address, port)]; every server checked each `inter` ms, down
    after 2 failures, up after 1 success"""
    out = ["global", "    stats socket %s mode 600 level admin" % sock, "defaults",
           "    timeout connect 1s", "    timeout client 5s", "    timeout server 5s",
           "    timeout check 1s"]
    for name, check, servers in backends:
        out.append("backend %s" % name)
        if check == "tcp":
            out += ["    mode tcp", "    option tcp-check"]
        else:
            out += ["    mode http", "    option httpchk GET %s" % path]
        for sv, ip, port in servers:
            out.append("    server %s %s:%d check inter %d fall 2 rise 1" % (
                sv, "[%s]" % ip if ":" in ip else ip, port, inter))
    return "\n".join(out) + "\n"


def show_stat(sock):
    """{"backend/server": status} of every server, from haproxy's `show stat` CSV on its
    stats socket"""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(2)
    s.connect(sock)
    s.sendall(b"show stat\n")
    data = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        data += b
    s.close()
    lines = data.decode().splitlines()
    head = lines[0].lstrip("# ").split(",")
    px, sv, stc = head.index("pxname"), head.index("svname"), head.index("status")
    return {"%s/%s" % (c[px], c[sv]): c[stc] for c in (ln.split(",") for ln in lines[1:] if ln)
            if len(c) > stc and c[sv] not in ("FRONTEND", "BACKEND")}
