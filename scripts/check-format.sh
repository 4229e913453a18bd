#!/usr/bin/env bash
# Every C file must be as clang-format-14 (with the repo's .clang-format) would write it.
set -euo pipefail
cd "$(dirname "$0")/.."
cf=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$cf" ]; then
	echo "check-format: clang-format-14 is missing (scripts/setup.sh deps installs it)" >&2
	exit 1
fi
bad=()
while IFS= read -r f; do
	"$cf" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done < <(git ls-files '*.c' '*.h')
if [ ${#bad[@]} -ne 0 ]; then
	echo "check-format: clang-format disagrees with: ${bad[*]}" >&2
	echo "check-format: fix with: $cf -i ${bad[*]}" >&2
	exit 1
fi
echo "check-format: $(git ls-files '*.c' '*.h' | wc -l) C files formatted"
