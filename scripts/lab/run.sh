#!/usr/bin/env bash
# The lab: udpfan on emulated PCI NICs bound to vfio-pci inside a QEMU guest
# (docs/testing.md#lab, docs/deployment.md#vfio-pci-in-the-lab).
#
#   sudo scripts/lab/run.sh [BUILD_DIR]
#
# Builds the guest image once per recipe (scripts/lab/image.sh, cached in
# /var/cache/udpfan-vm), builds udpfan on the host (the guest runs the host's build over 9p),
# boots the guest (TCG; UF_LAB_ACCEL=kvm where KVM works), runs the
# lab cases (tests/lab/lab_guest.py) and prints one line per case and "N passed, N failed".
# Exit 0 all passed, 1 a case failed, 77 (meson: skipped) without root or QEMU.
# UF_LAB_CASES=a,b runs only those cases; UF_LAB_TIMEOUT bounds the guest (default 900 s).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-${UF_BUILD:-$src/build}}" && pwd)
if [ "$(id -u)" != 0 ]; then
	echo "lab: skipped: needs root (taps, namespaces, the image)" >&2
	exit 77
fi
for c in qemu-system-x86_64 mmdebstrap; do
	command -v $c >/dev/null || { echo "lab: skipped: $c is missing: sudo scripts/setup.sh deps" >&2; exit 77; }
done
[ -x "$build/udpfan" ] || { echo "lab: error: no $build/udpfan: ninja -C $build" >&2; exit 1; }
# one lab at a time on a machine: the namespaces and taps have fixed names
exec 8>/tmp/udpfan-lab.lock
flock -w 1800 8
t0=$(date +%s)
img=$("$src/scripts/lab/image.sh")
echo "lab: image $img ($(cat "$img/done")), ready in $(($(date +%s) - t0)) s"
out=$(mktemp -d /tmp/udpfan-lab.XXXXXX)
echo "lab: guest output in $out"
rc=0
python3 "$src/scripts/lab/host.py" "$img" "$src" "$build" "$out" || rc=$?
echo "lab: total $(($(date +%s) - t0)) s"
# the guest's logs (console, udpfan's, xstats) stay only when something failed
if [ $rc = 0 ]; then rm -rf "$out"; else echo "lab: kept $out"; fi
exit $rc
