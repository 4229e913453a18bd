#!/usr/bin/env python3
"""udpfanctl: ask a running udpfan, over its DPDK telemetry socket, what it is doing.

    udpfanctl [--prefix P | --instance NAME | --socket PATH] [--json] COMMAND

    stats          the totals of the last stats interval: forwarded, drops by reason, reload
    ports          per port: link, packets, the loss counters
    destinations   per destination: state, tx_ok, tx_drop, sampled_out, no_neighbor
    neighbors      per destination: next hop, MAC, neighbour state
    health         state, degraded and why, the drain; exit 0 only when ready and not degraded
    reload         re-read the config file and apply it (as SIGHUP); exit 0 only when applied
    counters       the counters per port, listener and destination; --watch: their rates,
                   refreshed every --interval seconds (--count N refreshes, then exit)

Which udpfan: --prefix (its eal.file_prefix), --instance NAME (udpfan@NAME.service: the
file_prefix of /etc/udpfan/NAME.yaml), --socket PATH; without any of them, the one udpfan
running on this host. Exit status: 0 success (health: ready and not degraded; reload:
applied), 1 the answer says no (not ready, degraded, a reload refused, no stats yet),
2 usage, 3 udpfan not reachable (not running, permission denied on its socket).
docs/deployment.md#udpfanctl, udpfanctl(8).
"""
import argparse
import errno
import json
import os
import re
import sys
import time

# the socket's location and protocol, shared with udpfan-exporter: beside this script in a
# checkout, share/udpfan/python once installed (docs/deployment.md#install)
_here = os.path.dirname(os.path.realpath(__file__))
sys.path[:0] = [_here, os.path.join(_here, "..", "share", "udpfan", "python")]
from udpfan_telemetry import (SOCKET_NAME, Telemetry, bases, blocking_path,  # noqa: E402
                              live_sockets, locate, owner_mode)

PROG = "udpfanctl"
# meson install writes the configured sysconfdir here; a checkout reads /etc/udpfan
CONFDIR = "@sysconfdir@/udpfan"
if CONFDIR.startswith("@"):
    CONFDIR = "/etc/udpfan"
VERSION = "@version@"
if VERSION.startswith("@"):
    VERSION = "(checkout)"
DEFAULT_PREFIX = "udpfan"
PAGE = 24  # destinations per /udpfan/neighbors answer (docs/loss-accounting.md#telemetry)

EXIT_OK, EXIT_NO, EXIT_USAGE, EXIT_UNREACHABLE = 0, 1, 2, 3


class Unreachable(Exception):
    """udpfan cannot be asked: the message says what was looked for and the fix"""


def fail(code, msg):
    print("%s: %s" % (PROG, msg), file=sys.stderr)
    sys.exit(code)


# ---- which udpfan -------------------------------------------------------------------------

def instance_prefix(name, confdir):
    """the file_prefix of udpfan@NAME.service: eal.file_prefix of CONFDIR/NAME.yaml (the
    unit runs that file: docs/deployment.md#systemd), "udpfan" when the file has none"""
    path = os.path.join(confdir, name + ".yaml")
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise Unreachable("instance %s: cannot read its config %s: %s (udpfan@%s.service "
                          "runs %s/%s.yaml)" % (name, path, e.strerror, name, confdir, name))
    # file_prefix is a key of eal: only; block or flow style, quoted or not
    text = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    m = re.search(r"\bfile_prefix\s*:\s*[\"']?([A-Za-z0-9_-]+)", text)
    return m.group(1) if m else DEFAULT_PREFIX


def not_running(prefix, path):
    return Unreachable(
        "udpfan is not running with file prefix \"%s\": no telemetry socket at %s (EAL "
        "puts it in <runtime dir>/<eal.file_prefix>/%s; looked under %s). Start it: "
        "systemctl start udpfan@NAME, or udpfan -c FILE; or name another one with "
        "--prefix / --instance" % (prefix, path, SOCKET_NAME, ", ".join(bases())))


def permission(path):
    where = blocking_path(path)
    om = owner_mode(where)
    hint = "run %s as root (sudo %s ...)" % (PROG, PROG)
    m = re.search(r":(\S+), mode (\d+)", om)
    if m and where == path and int(m.group(2), 8) & 0o020:
        hint += " or as a member of group %s" % m.group(1)
    elif m and where != path and int(m.group(2), 8) & 0o010:
        hint += " or as a member of group %s" % m.group(1)
    return Unreachable("permission denied on udpfan's telemetry socket %s: %s is %s; %s" %
                       (path, where, om, hint))


def find_socket(a):
    """the telemetry socket to ask, from --socket, --prefix, --instance, or the one udpfan
    running"""
    if a.socket:
        return a.socket, None
    if a.prefix or a.instance:
        prefix = a.prefix or instance_prefix(a.instance, a.confdir)
        return locate(prefix), prefix
    found = live_sockets()
    ok = [(p, s) for p, s, e in found if e is None]
    denied = [s for p, s, e in found if e is not None and e.errno in (errno.EACCES,
                                                                       errno.EPERM)]
    udpfans = [(p, s) for p, s in ok if is_udpfan(s)]
    if len(udpfans) == 1:
        return udpfans[0][1], udpfans[0][0]
    if len(udpfans) > 1:
        raise Unreachable("%d udpfan processes are running (file prefixes %s): name one with "
                          "--prefix or --instance" % (len(udpfans),
                                                      ", ".join(p for p, _ in udpfans)))
    if denied:
        raise permission(denied[0] if denied[0].endswith(SOCKET_NAME) else
                         os.path.join(denied[0], "...", SOCKET_NAME))
    raise not_running(DEFAULT_PREFIX, locate(DEFAULT_PREFIX))


def is_udpfan(path):
    """a DPDK process's telemetry socket is udpfan's when it knows /udpfan/health"""
    try:
        cmds = Telemetry(path, 1.0).query("/")
    except (OSError, ValueError, KeyError):
        return False
    return isinstance(cmds, list) and "/udpfan/health" in cmds


class Ctl:
    def __init__(self, path, prefix, timeout):
        self.path = path
        self.prefix = prefix
        self.tel = Telemetry(path, timeout)

    def ask(self, cmd, timeout=None):
        try:
            return self.tel.query(cmd, timeout)
        except FileNotFoundError:
            raise not_running(self.prefix or "?", self.path)
        except ConnectionRefusedError:
            raise Unreachable("udpfan is not running with file prefix \"%s\": %s is a stale "
                              "socket (connection refused), left by a udpfan that stopped. "
                              "Start it: systemctl start udpfan@NAME, or udpfan -c FILE"
                              % (self.prefix or "?", self.path))
        except PermissionError:
            raise permission(self.path)
        except (OSError, ValueError, KeyError) as e:
            raise Unreachable("udpfan's telemetry socket %s: %s" % (self.path, e))

    def stats(self):
        st = self.ask("/udpfan/stats")
        if not isinstance(st, dict) or "fwd" not in st:
            raise NoStats()
        return st

    def destinations(self):
        """every destination, paged through /udpfan/neighbors: {"count", "destinations"}"""
        out, first, count = {}, 0, None
        while True:
            page = self.ask("/udpfan/neighbors,%d" % first)
            if not isinstance(page, dict):
                raise NoStats()
            count = int(page.get("count", 0))
            out.update(page.get("destinations", {}))
            first += PAGE
            if first >= count:
                break
        return {"count": count, "destinations": out}


class NoStats(Exception):
    pass


# ---- output -------------------------------------------------------------------------------

def table(rows, head, out=sys.stdout):
    """rows of cells as a left/right aligned text table (numbers right)"""
    cells = [[str(c) for c in r] for r in [head] + rows]
    width = [max(len(r[i]) for r in cells) for i in range(len(head))]
    num = [all(isinstance(r[i], (int, float)) for r in rows) and rows != []
           for i in range(len(head))]
    for r in cells:
        print("  ".join(c.rjust(width[i]) if num[i] else c.ljust(width[i])
                        for i, c in enumerate(r)).rstrip(), file=out)


def by_index(d):
    return [(k, d[k]) for k in sorted(d, key=int)]


def emit_json(obj):
    json.dump(obj, sys.stdout, indent=None, sort_keys=False)
    print()


def cmd_stats(ctl, a):
    st = ctl.stats()
    if a.json:
        emit_json(st)
        return EXIT_OK
    f, h = st["fwd"], st.get("health", {})
    print("udpfan %s (file prefix %s): %s%s, up %s s, plan %s" % (
        ctl.path, ctl.prefix or "?", h.get("state", "?"),
        ", degraded" if h.get("degraded") else "", st.get("uptime_s", "?"),
        st.get("plan_version", "?")))
    rows = [[k, f[k]] for k in ("rx", "forwarded", "control", "fanout", "sampled_out",
                                "copies_attempted", "tx_ok") if k in f]
    rows += [["drop." + k, v] for k, v in f.get("drop", {}).items() if v]
    rows += [["tx_drop." + k, v] for k, v in f.get("tx_drop", {}).items() if v]
    table(rows, ["counter", "value"])
    r = st.get("reload", {})
    if r:
        print("reload: last %s, generation %s, applied %s, refused %s, invalid %s%s" % (
            r.get("last"), r.get("generation"), r.get("applied"), r.get("refused"),
            r.get("invalid"), (": " + r["reason"]) if r.get("reason") else ""))
    return EXIT_OK


PORT_COLS = ("ipackets", "opackets", "imissed", "ierrors", "oerrors", "rx_nombuf", "resets",
             "link_downs")


def cmd_ports(ctl, a):
    ports = ctl.ask("/udpfan/ports")
    if not isinstance(ports, dict):
        raise NoStats()
    if a.json:
        emit_json(ports)
        return EXIT_OK
    rows = [[n, p.get("driver", ""), "up" if p.get("link_up") else "down"] +
            [p.get(c, 0) for c in PORT_COLS] for n, p in ports.items()]
    table(rows, ["port", "driver", "link"] + list(PORT_COLS))
    return EXIT_OK


DEST_COLS = ("tx_ok", "tx_drop", "sampled_out", "no_neighbor")
NEIGH_KEYS = ("ip", "udp_port", "port", "next_hop", "mac", "state")


def cmd_destinations(ctl, a):
    d = ctl.destinations()
    if a.json:
        emit_json(d)
        return EXIT_OK
    rows = [[int(i), "%s:%s" % (x["ip"], x["udp_port"]), x.get("port", ""),
             x.get("state", "")] + [x.get(c, 0) for c in DEST_COLS]
            for i, x in by_index(d["destinations"])]
    table(rows, ["#", "destination", "port", "state"] + list(DEST_COLS))
    return EXIT_OK


def cmd_neighbors(ctl, a):
    d = ctl.destinations()
    neigh = {i: {k: x[k] for k in NEIGH_KEYS if k in x} for i, x in d["destinations"].items()}
    if a.json:
        emit_json({"count": d["count"], "destinations": neigh})
        return EXIT_OK
    rows = [[int(i), "%s:%s" % (x["ip"], x["udp_port"]), x.get("port", ""),
             x.get("next_hop", ""), x.get("mac", ""), x.get("state", "")]
            for i, x in by_index(neigh)]
    table(rows, ["#", "destination", "port", "next_hop", "mac", "state"])
    return EXIT_OK


def cmd_health(ctl, a):
    h = ctl.ask("/udpfan/health")
    if not isinstance(h, dict):
        raise Unreachable("udpfan at %s did not answer /udpfan/health" % ctl.path)
    ok = h.get("state") == "ready" and not int(h.get("degraded", 0))
    if a.json:
        emit_json(h)
    else:
        line = "%s%s" % (h.get("state"), ", degraded" if int(h.get("degraded", 0)) else "")
        if h.get("reasons"):
            line += ": " + "; ".join(h["reasons"])
        if h.get("state") == "draining":
            line += " (stopping in %s s of %s)" % (h.get("drain_left_s"), h.get("drain_s"))
        print(line)
    return EXIT_OK if ok else EXIT_NO


def cmd_reload(ctl, a):
    r = ctl.ask("/udpfan/reload", timeout=max(ctl.tel.timeout, 15.0))
    if not isinstance(r, dict):
        raise Unreachable("udpfan at %s did not answer /udpfan/reload (an older udpfan: use "
                          "SIGHUP, systemctl reload udpfan@NAME)" % ctl.path)
    if a.json:
        emit_json(r)
    else:
        print("reload: %s, generation %s%s" % (r.get("result"), r.get("generation"),
                                                (": " + r["reason"]) if r.get("reason")
                                                else ""))
    return EXIT_OK if r.get("result") == "applied" else EXIT_NO


# counters: what a row is, its label and its counters, per section
SECTIONS = (
    ("ports", ("ipackets", "opackets", "imissed", "ierrors", "oerrors")),
    ("listeners", ("rx", "forwarded", "tx_ok", "tx_drop")),
    ("destinations", ("tx_ok", "tx_drop", "sampled_out", "no_neighbor")),
)


def snapshot(ctl):
    """the counters of one stats interval: {"time", "sections": {section: {row: {...}}}}"""
    st = ctl.stats()
    dests = st.get("destinations", {})
    alld = ctl.destinations()["destinations"] if len(dests) >= PAGE else dests
    lst = st.get("listeners", {})
    rows = {
        "ports": {n: p for n, p in st.get("ports", {}).items()},
        "listeners": {"%s (%s:%s)" % (x.get("name", i), x.get("ip", ""),
                                      x.get("udp_port", "")): x for i, x in by_index(lst)},
        "destinations": {"%s %s:%s" % (i, x["ip"], x["udp_port"]): x
                         for i, x in by_index(alld)},
    }
    out = {}
    for sec, cols in SECTIONS:
        out[sec] = {name: {c: int(x.get(c, 0)) for c in cols} for name, x in rows[sec].items()}
    return {"time": float(st["time"]), "sections": out}


def rates(prev, cur):
    dt = cur["time"] - prev["time"]
    out = {}
    for sec, cols in SECTIONS:
        out[sec] = {}
        for name, x in cur["sections"][sec].items():
            p = prev["sections"][sec].get(name)
            out[sec][name] = {c: (round((x[c] - p[c]) / dt, 1) if p is not None and dt > 0
                                  else None) for c in cols}
    return {"time": cur["time"], "interval_s": round(dt, 3), "rates": out}


def show_counters(obj, key, unit, clear):
    if clear:
        sys.stdout.write("\x1b[H\x1b[2J")
    print("udpfan %s: %s%s" % (obj.get("prefix", "?"), key,
                               " over %.1f s" % obj["interval_s"] if "interval_s" in obj
                               else ""))
    for sec, cols in SECTIONS:
        rows = []
        for name, x in obj[key][sec].items():
            rows.append([name] + [("-" if x[c] is None else x[c]) for c in cols])
        if rows:
            print()
            table(rows, [sec[:-1]] + [c + unit for c in cols])
    sys.stdout.flush()


def cmd_counters(ctl, a):
    if not a.watch:
        snap = snapshot(ctl)
        obj = {"prefix": ctl.prefix or ctl.path, "time": snap["time"],
               "counters": snap["sections"]}
        if a.json:
            emit_json(obj)
        else:
            show_counters(obj, "counters", "", False)
        return EXIT_OK
    clear = not a.json and sys.stdout.isatty()
    prev = snapshot(ctl)
    n = 0
    while a.count is None or n < a.count:
        # telemetry serves the last stats interval: wait for a newer one than prev
        deadline = time.monotonic() + a.interval
        while True:
            time.sleep(max(0.05, min(0.25, deadline - time.monotonic())))
            if time.monotonic() < deadline:
                continue
            cur = snapshot(ctl)
            if cur["time"] > prev["time"]:
                break
        obj = rates(prev, cur)
        obj["prefix"] = ctl.prefix or ctl.path
        if a.json:
            emit_json(obj)
            sys.stdout.flush()
        else:
            show_counters(obj, "rates", "/s", clear)
        prev = cur
        n += 1
    return EXIT_OK


COMMANDS = {
    "stats": cmd_stats,
    "ports": cmd_ports,
    "destinations": cmd_destinations,
    "neighbors": cmd_neighbors,
    "health": cmd_health,
    "reload": cmd_reload,
    "counters": cmd_counters,
}


def parse(argv):
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    who = ap.add_mutually_exclusive_group()
    who.add_argument("--prefix", "-f", help="udpfan's eal.file_prefix")
    who.add_argument("--instance", "-i", help="the systemd instance: udpfan@NAME.service")
    who.add_argument("--socket", help="the telemetry socket's path")
    ap.add_argument("--confdir", default=CONFDIR,
                    help="where --instance finds NAME.yaml (default %s)" % CONFDIR)
    ap.add_argument("--json", action="store_true", help="JSON instead of tables")
    ap.add_argument("--version", action="version", version="%s %s" % (PROG, VERSION))
    ap.add_argument("--timeout", type=float, default=3.0,
                    help="seconds to wait for an answer (default 3; reload: 15 at least)")
    ap.add_argument("command", choices=sorted(COMMANDS), metavar="COMMAND",
                    help=", ".join(COMMANDS))
    ap.add_argument("--watch", "-w", action="store_true",
                    help="counters: rates, refreshed every --interval seconds")
    ap.add_argument("--interval", type=float, default=1.0,
                    help="counters --watch: seconds between refreshes (default 1; at least "
                    "udpfan's stats.interval_s)")
    ap.add_argument("--count", "-n", type=int,
                    help="counters --watch: this many refreshes, then exit")
    a = ap.parse_args(argv)
    if (a.watch or a.count is not None) and a.command != "counters":
        ap.error("--watch and --count are options of counters")
    if a.count is not None and a.count < 1:
        ap.error("--count must be 1 or more")
    if a.interval <= 0:
        ap.error("--interval must be above 0")
    return a


def main(argv=None):
    a = parse(sys.argv[1:] if argv is None else argv)
    try:
        path, prefix = find_socket(a)
        ctl = Ctl(path, prefix, a.timeout)
        return COMMANDS[a.command](ctl, a)
    except Unreachable as e:
        fail(EXIT_UNREACHABLE, str(e))
    except NoStats:
        fail(EXIT_NO, "udpfan (%s) has no stats yet: the first stats interval has not "
             "passed (udpfanctl health answers at once)" % path)
    except KeyboardInterrupt:
        return EXIT_NO
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
