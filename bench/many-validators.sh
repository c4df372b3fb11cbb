#!/usr/bin/env bash
# examples/many-validators.toml (25 validators + 1 full node in 4 emulated
# zones on netns, 20 tx/s) with the nodes below the harness (node_nice = 5,
# the default) and at its priority (node_nice = 0), interleaved RUNS times
# each: whether the load was delivered as asked (p99 schedule lag <= 50
# ms), and how long the harness's goroutines waited for a CPU.
# Usage: bench/many-validators.sh [RUNS]   (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$work/chainperf
go build -o "$bin" ./cmd/chainperf
printf '%s, %s cores, %s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" "$(date -u +%FT%TZ)"
for i in $(seq 1 "$runs"); do
  for nice in 5 0; do
    sed "s/^\[testnet\]$/[testnet]\nnode_nice = $nice/" examples/many-validators.toml > "$work/mv.toml"
    out=$("$bin" run "$work/mv.toml" --db "$work/runs.db" --report-dir "$work/reports" 2>&1 || true)
    verdict=$(grep -oE '^run [^ ]+: (PASS|FAIL)' <<<"$out" | awk '{print $3}')
    lag=$(grep -oE 'p99 schedule lag [0-9.]+ms|as asked: [0-9]+ of [0-9]+' <<<"$out" | head -1)
    wait=$(grep -oE 'waited [0-9.]+ ms for a CPU' <<<"$out")
    echo "run $i node_nice=$nice: $verdict; $lag; goroutines $wait"
  done
done
