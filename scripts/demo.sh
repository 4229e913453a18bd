#!/usr/bin/env bash
# The embedded default: build the veth test bed, run udpfan on it (config/veth-testbed.yaml),
# send sequence-numbered datagrams from a kernel socket, count them in kernel-socket sinks,
# and print udpfan's ledger beside what the sinks got. Needs root and a build (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
exec /usr/bin/python3 scripts/demo.py "$@"
