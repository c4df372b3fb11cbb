#!/usr/bin/env bash
# chainperf's peak memory (MiB, the process's max RSS) and exit code
# against each hostile node class of TestHostileNodes, for this tree's
# build and, given a commit, that commit's build (e.g. the one before the
# caps) on the same fake chain in the same run.
# Usage: bench/hostile-memory.sh [old-commit]
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'git worktree remove --force "$work/old" 2>/dev/null || true; rm -rf "$work"' EXIT
printf '%s, %s cores, %s GiB, %s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" \
  "$(awk '/MemTotal/ {printf "%.0f", $2/1048576}' /proc/meminfo)" "$(date -u +%F)"
run() { # $1: label, $2: binary ("" = this tree's)
  CHAINPERF_TEST_BINARY="$2" go test -count=1 -v -run 'TestHostileNodes' ./cmd/chainperf 2>&1 |
    awk -v who="$1" '/hostile_test.go:[0-9]+: .*: exit [0-9]+, peak/ {
      sub(/.*hostile_test.go:[0-9]+: /, ""); name = $1; sub(/:$/, "", name)
      printf "%-8s %-22s %s %s %s %s\n", who, name, $2, $3, $4, $5 }' | sed 's/,//g'
}
run this ""
if [ $# -ge 1 ]; then
  git worktree add -q --detach "$work/old" "$1"
  (cd "$work/old" && go build -o "$work/chainperf-old" ./cmd/chainperf)
  run "$1" "$work/chainperf-old"
fi
