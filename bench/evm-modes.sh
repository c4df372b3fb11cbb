#!/usr/bin/env bash
# The EVM load modes on one load: examples/evm-erc20.toml (live, the EVM
# default), examples/evm-pregenerate.toml (mode = "pregenerate") and
# examples/evm-persistent.toml (mode = "persistent"), REPEATS runs each in
# turn: each run's verdict, latency, fates and the harness's own CPU as the
# summary prints them, and the mode's own row of the findings.
#   bench/evm-modes.sh [repeats] [duration]    (about 45 s a run)
set -euo pipefail
cd "$(dirname "$0")/.."
repeats=${1:-1}
duration=${2:-30s}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; $(date -u '+%Y-%m-%d %H:%M UTC'); $duration a run"
go build -o "$work/chainperf" ./cmd/chainperf
for i in $(seq "$repeats"); do
  for ex in evm-erc20 evm-pregenerate evm-persistent; do
    "$work/chainperf" run "examples/$ex.toml" --duration "$duration" --db "$work/runs.db" --report-dir "$work/reports" >"$work/run.log" 2>&1 || true
    echo "== $ex, run $i"
    grep -E '^run |^  (latency|fates|harness):' "$work/run.log" || tail -5 "$work/run.log"
    grep -h -e 'txs signed before their phase' -e "senders' nonce and balance read" "$(ls -td "$work"/reports/*/ | head -1)report.md" || true
  done
done
