#!/usr/bin/env bash
# examples/many-validators.toml (VALIDATORS validators, 25 by default, + 1
# full node in 4 emulated zones on netns, 20 tx/s) with the nodes at each
# of NICES below the harness (node_nice; default "5 0": 0 is the harness's
# own priority), interleaved RUNS times each: whether the load was
# delivered as asked (p99 schedule lag <= 50 ms), every tx's fate, the
# chain's block interval and p99 latency, and how long the harness's
# goroutines waited for a CPU.
# Usage: bench/many-validators.sh [RUNS] [VALIDATORS] [NICES]   (default 3 25 "5 0")
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3} validators=${2:-25} nices=${3:-5 0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$work/chainperf
go build -o "$bin" ./cmd/chainperf
printf '%s, %s cores, %s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" "$(date -u +%FT%TZ)"
for i in $(seq 1 "$runs"); do
  for nice in $nices; do
    sed -e "s/^\[testnet\]$/[testnet]\nnode_nice = $nice/" -e "s/^validators = 25$/validators = $validators/" examples/many-validators.toml > "$work/mv.toml"
    out=$("$bin" run "$work/mv.toml" --db "$work/runs.db" --report-dir "$work/reports" 2>&1 || true)
    verdict=$(grep -oE '^run [^ ]+: (PASS|FAIL)' <<<"$out" | awk '{print $3}')
    lag=$(grep -oE 'p99 schedule lag [0-9.]+ms|as asked: [0-9]+ of [0-9]+' <<<"$out" | head -1)
    wait=$(grep -oE 'waited [0-9.]+ ms for a CPU' <<<"$out")
    fates=$(grep -oE '[0-9]+ sent = [0-9]+ committed.*unresolved' <<<"$out" | sed 's/ + 0 [a-z_]*//g')
    chain=$(grep -oE '[0-9.]+ s interval' <<<"$out")
    p99=$(grep -oE 'p99 [0-9]+ ms in the measured' <<<"$out" | awk '{print $2}')
    echo "run $i validators=$validators node_nice=$nice: $verdict; $lag; $fates; $chain, p99 $p99 ms; goroutines $wait"
  done
done
