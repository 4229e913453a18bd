#!/usr/bin/env bash
# Run every test suite: unit, eal (no hugepages), e2e (root: veth pairs in namespaces, af_xdp
# and af_packet against the kernel), plus the format check; then, in a second build dir
# (build-asan: clang, ASan+UBSan, libFuzzer), the unit and eal suites again and a bounded run
# of every fuzzer (docs/testing.md#sanitizers, #fuzzing). CI runs exactly this (.ci/run).
#
#   scripts/test.sh [meson test args...]     as root: a root shell, or with sudo
#
# With arguments, only `meson test -C build ARGS` runs (one test, one suite). UF_TEST_SAN=0
# skips the sanitizer and fuzz steps; UF_FUZZ_SECONDS (default 30) bounds each fuzzer;
# UF_TEST_LTS=0 skips the DPDK 24.11 leg; UF_TEST_SCALAR=0 the scalar (-Dsimd=false) leg.
# The last line is "N passed, N failed, N skipped" over every step; the exit status is
# non-zero if any step failed.
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

passed=0
failed=0
skipped=0
steps=()

# meson test, its summary added to the totals; never stops the script
step() {
	local name=$1 log rc ok xf fl up to sk
	shift
	log=$(mktemp)
	echo "test: == $name: meson test $*"
	set +e
	meson test "$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	set -e
	# meson's summary: "Ok:  N", "Expected Fail:  N", ... (the last one, if printed twice)
	get() { awk -v k="$1:" 'index($0, k) == 1 { n = $NF } END { print n + 0 }' "$log"; }
	ok=$(get Ok)
	xf=$(get "Expected Fail")
	fl=$(get Fail)
	up=$(get "Unexpected Pass")
	to=$(get Timeout)
	sk=$(get Skipped)
	rm -f "$log"
	if [ "$rc" != 0 ] && [ $((fl + up + to)) = 0 ]; then
		fl=1 # meson itself failed (build, setup): count it
	fi
	passed=$((passed + ok + xf))
	failed=$((failed + fl + up + to))
	skipped=$((skipped + sk))
	steps+=("$name: $((ok + xf)) passed, $((fl + up + to)) failed, $sk skipped")
}

step build -C build --print-errorlogs --num-processes 1 "$@"

if [ $# -eq 0 ] && [ "${UF_TEST_SAN:-1}" != 0 ]; then
	if command -v clang-14 >/dev/null; then
		if [ ! -f build-asan/build.ninja ]; then
			CC=clang-14 meson setup build-asan -Dbuildtype=debugoptimized -Dfuzz=true \
				-Db_sanitize=address,undefined -Db_lundef=false >/dev/null
		fi
		if ninja -C build-asan >/dev/null; then
			# ASan's leak check stays on: udpfan under EAL --no-huge passes it
			step asan -C build-asan --print-errorlogs --num-processes 1 --suite unit --suite eal
			step fuzz -C build-asan --print-errorlogs --num-processes 1 --suite fuzz
		else
			failed=$((failed + 1))
			steps+=("asan: build failed")
		fi
	else
		echo "test: no clang: the sanitizer and fuzz steps are skipped" >&2
		skipped=$((skipped + 1))
		steps+=("asan, fuzz: skipped (no clang: scripts/setup.sh deps)")
	fi
fi

# the scalar leg (docs/testing.md#scalar): the tree built with -Dsimd=false (the data path
# without SSE4.1) and -Werror, its unit suite and the eal tests in the suite "scalar"
if [ $# -eq 0 ] && [ "${UF_TEST_SCALAR:-1}" != 0 ]; then
	if [ ! -f build-scalar/build.ninja ]; then
		meson setup build-scalar -Dsimd=false -Dwerror=true >/dev/null
	fi
	if out=$(ninja -C build-scalar 2>&1); then
		step scalar -C build-scalar --print-errorlogs --num-processes 1 --suite unit --suite scalar
	else
		failed=$((failed + 1))
		printf '%s\n' "$out" | tail -40
		steps+=("scalar: build failed")
	fi
fi

# the DPDK 24.11 leg (docs/testing.md#dpdk-lts): udpfan built with -Werror against Debian 13's
# LTS, its unit and eal suites; DPDK itself built once per machine under /var/cache
if [ $# -eq 0 ] && [ "${UF_TEST_LTS:-1}" != 0 ]; then
	echo "test: == dpdk-lts: scripts/dpdk-lts.sh 24.11"
	lts=$(mktemp)
	set +e
	scripts/dpdk-lts.sh 24.11 2>&1 | tee "$lts"
	set -e
	line=$(grep '^dpdk-lts: 24.11' "$lts" | tail -1 || true)
	rm -f "$lts"
	if [[ $line =~ :\ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
		passed=$((passed + BASH_REMATCH[1]))
		failed=$((failed + BASH_REMATCH[2]))
		steps+=("dpdk 24.11: ${BASH_REMATCH[1]} passed, ${BASH_REMATCH[2]} failed")
	elif [[ $line == *skipped* ]]; then
		skipped=$((skipped + 1))
		steps+=("dpdk 24.11: skipped (no DPDK 24.11 source: docs/testing.md#dpdk-lts)")
	else
		failed=$((failed + 1))
		steps+=("dpdk 24.11: ${line:-no result} (1 failed)")
	fi
fi

echo "test: summary"
for s in "${steps[@]}"; do
	echo "test:   $s"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
