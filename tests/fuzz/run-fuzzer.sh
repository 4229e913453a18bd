#!/bin/sh
# One bounded libFuzzer run (the fuzz suite; docs/testing.md#fuzzing).
#   run-fuzzer.sh FUZZER WORKDIR [libFuzzer options...] SEED_DIR...
# New inputs go to WORKDIR/corpus (never into the tree); a crash leaves its input in
# WORKDIR/ as crash-* / leak-* / timeout-* and fails the test. UF_FUZZ_SECONDS (default 30)
# bounds the time, UF_FUZZ_RUNS (default 5000000) the executions.
set -eu
fuzzer=$1
work=$2
shift 2
mkdir -p "$work/corpus"
# libFuzzer's own default exit code for a crash is 77, which meson reads as "skipped"
exec "$fuzzer" -max_total_time="${UF_FUZZ_SECONDS:-30}" -runs="${UF_FUZZ_RUNS:-5000000}" \
	-error_exitcode=1 -timeout_exitcode=1 -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
	-artifact_prefix="$work/" "$work/corpus" "$@"
