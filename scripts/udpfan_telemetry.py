"""udpfan's DPDK telemetry socket: where it is, and one request/answer exchange on it.

Shared by scripts/udpfan-exporter.py and scripts/udpfanctl.py (stdlib only). The socket is
<runtime dir>/<file_prefix>/dpdk_telemetry.v2, the runtime dir being EAL's: under
udpfan@.service (RuntimeDirectory=udpfan) $RUNTIME_DIRECTORY/dpdk, i.e. /run/udpfan/dpdk;
else /var/run/dpdk for root, $XDG_RUNTIME_DIR/dpdk (or /tmp/dpdk) for a user
(docs/deployment.md#systemd-hardening, docs/loss-accounting.md#telemetry).
"""
import errno
import grp
import json
import os
import pwd
import socket
import stat

SOCKET_NAME = "dpdk_telemetry.v2"
UNIT_BASE = "/run/udpfan/dpdk"


def user_base():
    """EAL's runtime base for this process: /var/run/dpdk for root, else under
    $XDG_RUNTIME_DIR (or /tmp)"""
    if os.geteuid() == 0:
        return "/var/run/dpdk"
    return os.environ.get("XDG_RUNTIME_DIR", "/tmp") + "/dpdk"


def bases():
    """every runtime base a udpfan may use, the unit's first, each once"""
    out = []
    for b in (UNIT_BASE, "/var/run/dpdk", os.environ.get("XDG_RUNTIME_DIR", "/tmp") + "/dpdk",
              "/tmp/dpdk"):
        if all(os.path.realpath(b) != os.path.realpath(o) for o in out):
            out.append(b)
    return out


def runtime_dir(prefix):
    """where EAL put this prefix's runtime files: the base of this user's EAL, else the
    unit's when only that one exists"""
    base = user_base()
    unit = os.path.join(UNIT_BASE, prefix)
    if not os.path.isdir(os.path.join(base, prefix)) and os.path.isdir(unit):
        return unit
    return os.path.join(base, prefix)


def socket_path(prefix):
    return os.path.join(runtime_dir(prefix), SOCKET_NAME)


def locate(prefix):
    """this prefix's telemetry socket, looked for under every base (this user's EAL's
    first, then the unit's): the first that accepts a connection, else the first that
    exists (a stale one: asking it is refused), else the first this process may not look
    into (asking it then fails with EACCES), else where this user's EAL would put it"""
    found = denied = None
    for base in [user_base()] + [b for b in bases() if b != user_base()]:
        path = os.path.join(base, prefix, SOCKET_NAME)
        try:
            os.stat(path)
        except PermissionError:
            denied = denied or path
            continue
        except OSError:
            continue
        if accepts(path):
            return path
        found = found or path
    return found or denied or socket_path(prefix)


def accepts(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(1.0)
    try:
        s.connect(path)
        return True
    except OSError:
        return False
    finally:
        s.close()


def owner_mode(path):
    """'owned by USER:GROUP, mode 0NNN' of a path, for an error message"""
    try:
        st = os.stat(path)
    except OSError as e:
        return "(%s)" % e.strerror
    try:
        user = pwd.getpwuid(st.st_uid).pw_name
    except KeyError:
        user = str(st.st_uid)
    try:
        group = grp.getgrgid(st.st_gid).gr_name
    except KeyError:
        group = str(st.st_gid)
    return "owned by %s:%s, mode %04o" % (user, group, stat.S_IMODE(st.st_mode))


def blocking_path(path):
    """the first directory on the way to path this process may not search (or path
    itself when it may not write to it): what a permission error is about"""
    parts = os.path.abspath(path).split("/")
    for i in range(2, len(parts)):
        d = "/".join(parts[:i])
        if os.path.isdir(d) and not os.access(d, os.X_OK):
            return d
    return path


class Telemetry:
    """One request/answer exchange per call on DPDK's SOCK_SEQPACKET telemetry socket."""

    def __init__(self, path, timeout=2.0):
        self.path = path
        self.timeout = timeout

    def query(self, cmd, timeout=None):
        """the answer's value for cmd ("/udpfan/stats", "/udpfan/neighbors,24"): None
        when udpfan answers null. Raises OSError (the socket), ValueError (the answer)."""
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.settimeout(self.timeout if timeout is None else timeout)
        try:
            s.connect(self.path)
            info = json.loads(s.recv(1024).decode())
            bufsz = int(info.get("max_output_len", 16384)) + 1024
            s.send(cmd.encode())
            return json.loads(s.recv(bufsz).decode())[cmd.split(",")[0]]
        finally:
            s.close()


def live_sockets():
    """(prefix, socket path, error) of every telemetry socket under the bases: error None
    when it accepts a connection, else the OSError (ECONNREFUSED: a stale socket; EACCES:
    not ours to open). A base or prefix directory this process may not search is listed
    with the EACCES error and path the directory."""
    out = []
    for base in bases():
        try:
            names = sorted(os.listdir(base))
        except FileNotFoundError:
            continue
        except PermissionError as e:
            out.append((None, base, e))
            continue
        for name in names:
            d = os.path.join(base, name)
            path = os.path.join(d, SOCKET_NAME)
            try:
                os.stat(path)
            except FileNotFoundError:
                continue
            except PermissionError as e:
                out.append((name, d, e))
                continue
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            s.settimeout(1.0)
            try:
                s.connect(path)
                out.append((name, path, None))
            except OSError as e:
                if e.errno != errno.ECONNREFUSED:
                    out.append((name, path, e))
            finally:
                s.close()
    return out
