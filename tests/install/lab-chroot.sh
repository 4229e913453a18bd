#!/usr/bin/env bash
# A clean Debian 12 root for the package test (tests/install/test_deb.py), made by mmdebstrap
# from the archive and cached outside the repository, keyed by a hash of what makes it:
#   tests/install/lab-chroot.sh            prints the root's path (builds it when missing)
# Cache: ${UDPFAN_LAB_CACHE:-/var/cache/udpfan-lab}/bookworm-<hash>/ (docs/testing.md#install).
# The root is the "apt" variant (Essential: yes + apt): nothing of udpfan's dependencies is in
# it, so installing the .deb there proves apt resolves them from the archive.
set -euo pipefail

suite=bookworm
variant=apt
mirror=${UDPFAN_LAB_MIRROR:-http://deb.debian.org/debian}
cache=${UDPFAN_LAB_CACHE:-/var/cache/udpfan-lab}
key=$(printf '%s\n' "$suite" "$variant" "$mirror" "v1" | sha256sum | cut -c1-12)
root=$cache/$suite-$key

if [ -f "$root/.udpfan-lab-ok" ]; then
	echo "$root"
	exit 0
fi
command -v mmdebstrap >/dev/null || {
	echo "lab-chroot: mmdebstrap is missing: scripts/setup.sh deps" >&2
	exit 77
}
mkdir -p "$cache"
# one builder at a time; a half-made root from a killed run is removed first
exec 9>"$cache/.lock"
flock 9
if [ ! -f "$root/.udpfan-lab-ok" ]; then
	rm -rf "$root" "$root.tmp"
	echo "lab-chroot: mmdebstrap $suite ($variant) into $root" >&2
	mmdebstrap --quiet --variant="$variant" --mode=root "$suite" "$root.tmp" \
		"deb $mirror $suite main" "deb $mirror $suite-updates main" \
		"deb ${mirror%/debian}/debian-security $suite-security main" >&2
	touch "$root.tmp/.udpfan-lab-ok"
	mv "$root.tmp" "$root"
fi
echo "$root"
