#!/usr/bin/env bash
# Every fuzz target for its long budget (.ci/fuzz's last column; CI runs
# the short one). Usage: bench/fuzz.sh [TARGET-REGEX]
set -euo pipefail
cd "$(dirname "$0")/.."
grep -v '^#' .ci/fuzz | while read -r pkg target _ long; do
  [ -n "$pkg" ] || continue
  [[ "$target" =~ ${1:-.} ]] || continue
  echo "== $pkg $target ($long inputs)"
  go test -run '^$' -fuzz "^$target\$" -fuzztime "${long}x" "./$pkg"
done
