#!/usr/bin/env bash
# Run every test suite: unit, eal (no hugepages), e2e (root: veth pairs in namespaces, af_xdp
# and af_packet against the kernel), plus the format check. CI runs exactly this (.ci/run).
#
#   sudo scripts/test.sh [meson test args...]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh deps
if [ "$(id -u)" = 0 ]; then
	scripts/setup.sh hugepages 1024
else
	echo "test: not root: the e2e suite will be skipped" >&2
fi
scripts/setup.sh build
scripts/check-format.sh
meson test -C build --print-errorlogs --num-processes 1 "$@"
