#!/usr/bin/env bash
# Build udpfan against the DPDK LTS releases users run beside Debian 12's 22.11
# (docs/testing.md#dpdk-lts): each upstream source in ../shared/dpdk (or $UF_DPDK_SRC) is
# built once per machine, minimal (the drivers udpfan uses; no apps, tests or docs), and
# installed under /var/cache/udpfan-dpdk/<version>; then udpfan is built against it with
# -Werror in build-dpdk<version> and its unit and eal suites run there.
#
#   scripts/dpdk-lts.sh [24.11] [23.11] [25.11]    default: 24.11
#
# Prints one line per version, "dpdk-lts: <version>: N passed, N failed" (or "skipped" where
# no source release of that version is on the machine); exits non-zero if any build or test
# failed.
set -euo pipefail
cd "$(dirname "$0")/.."
# the source releases: $UF_DPDK_SRC, else ../shared/dpdk beside the checkout, else /work/shared/dpdk
SRC=${UF_DPDK_SRC:-}
if [ -z "$SRC" ]; then
	for d in ../shared/dpdk /work/shared/dpdk; do
		if ls "$d"/dpdk-*.tar.xz >/dev/null 2>&1; then
			SRC=$(realpath "$d")
			break
		fi
	done
fi
CACHE=${UF_DPDK_CACHE:-/var/cache/udpfan-dpdk}
# the PMDs udpfan has quirk rows for (pmd_quirks/), less mlx5 (rdma-core), and their buses
DRIVERS="bus/pci,bus/vdev,bus/auxiliary,mempool/ring,mempool/stack,net/af_packet,net/af_xdp"
DRIVERS="$DRIVERS,net/ena,net/e1000,net/i40e,net/iavf,net/ice,net/ixgbe,net/memif,net/null"
DRIVERS="$DRIVERS,net/pcap,net/ring,net/tap,net/vhost,net/virtio,net/vmxnet3,common/iavf"

# The fixes udpfan carries for a version's PMDs (docs/testing.md#dpdk-lts), applied in name
# order after extracting: the stamp names their hash, so a changed patch rebuilds
patches_of() { # version -> the patch files, one a line
	ls patches/dpdk/"$1"/*.patch 2>/dev/null | sort || true
}
patches_key() { # version -> "" (none) or "patches <sha256 of their names and contents>"
	local p
	p=$(patches_of "$1")
	[ -n "$p" ] || return 0
	# shellcheck disable=SC2086
	echo "patches $( (echo $p; cat $p) | sha256sum | cut -d' ' -f1)"
}

build_dpdk() { # version -> prefix
	local v=$1 tar pfx=$CACHE/$1 src key p
	key=$(patches_key "$v")
	if [ -f "$pfx/.built" ] && [ "$(cat "$pfx/.built")" = "$key" ]; then
		echo "$pfx"
		return
	fi
	tar=$(ls "${SRC:-/nonexistent}"/dpdk-"$v".*.tar.xz 2>/dev/null | sort -V | tail -1)
	if [ -z "$tar" ]; then
		echo "dpdk-lts: no dpdk-$v.*.tar.xz in ${SRC:-../shared/dpdk or /work/shared/dpdk} (set UF_DPDK_SRC)" >&2
		return 2
	fi
	src=$CACHE/src/$(basename "$tar" .tar.xz)
	mkdir -p "$CACHE/src"
	# a fresh source and prefix: an earlier build's may carry other patches
	rm -rf "$src" "$pfx"
	tar xf "$tar" -C "$CACHE/src"
	: >"$CACHE/build-$v.log"
	for p in $(patches_of "$v"); do
		patch -d "$src" -p1 --forward --batch <"$p" >>"$CACHE/build-$v.log" 2>&1 || {
			echo "dpdk-lts: $p does not apply to $(basename "$tar" .tar.xz): $CACHE/build-$v.log" >&2
			return 1
		}
	done
	echo "dpdk-lts: building $(basename "$tar" .tar.xz)${key:+ with $(patches_of "$v" | wc -l) patch(es)} into $pfx (once per machine)" >&2
	# Debian's python3 first: it has pyelftools (setup.sh), which 25.11's buildtools
	# require of the python3 meson finds; a python3 earlier in PATH (pyenv) may lack it
	PATH=/usr/bin:$PATH meson setup "$src/build" "$src" --prefix="$pfx" --libdir=lib -Dtests=false \
		-Denable_docs=false -Ddisable_apps='*' -Dexamples= -Denable_drivers="$DRIVERS" \
		-Dplatform=generic -Dmax_lcores=128 >>"$CACHE/build-$v.log" 2>&1
	PATH=/usr/bin:$PATH ninja -C "$src/build" install >>"$CACHE/build-$v.log" 2>&1 || {
		echo "dpdk-lts: DPDK $v failed to build: $CACHE/build-$v.log" >&2
		return 1
	}
	echo "$key" >"$pfx/.built"
	echo "$pfx"
}

rc=0
summary=()
for v in "${@:-24.11}"; do
	set +e
	pfx=$(build_dpdk "$v")
	b=$?
	set -e
	if [ "$b" = 2 ]; then
		# no source on this machine: nothing to build against, not a failure of udpfan's
		summary+=("dpdk-lts: $v: skipped (no DPDK $v source)")
		continue
	elif [ "$b" != 0 ]; then
		summary+=("dpdk-lts: $v: DPDK build failed")
		rc=1
		continue
	fi
	b=build-dpdk$v
	export PKG_CONFIG_PATH=$pfx/lib/pkgconfig
	export LD_LIBRARY_PATH=$pfx/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	if [ ! -f "$b/build.ninja" ]; then
		meson setup "$b" -Dwerror=true >/dev/null || { summary+=("dpdk-lts: $v: meson setup failed"); rc=1; continue; }
	fi
	if ! ninja -C "$b"; then
		summary+=("dpdk-lts: $v: udpfan failed to build")
		rc=1
		continue
	fi
	log=$(mktemp)
	set +e
	meson test -C "$b" --print-errorlogs --num-processes 1 --suite unit --suite eal 2>&1 | tee "$log"
	t=${PIPESTATUS[0]}
	set -e
	ok=$(awk '/^Ok:/ { n = $NF } END { print n + 0 }' "$log")
	fl=$(awk '/^(Fail|Timeout|Unexpected Pass):/ { n += $NF } END { print n + 0 }' "$log")
	rm -f "$log"
	[ "$t" = 0 ] || rc=1
	summary+=("dpdk-lts: $v ($("$b/udpfan" --version | sed 's/.*running //; s/)//')): $ok passed, $fl failed")
done
printf '%s\n' "${summary[@]}"
exit $rc
