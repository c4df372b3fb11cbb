#!/usr/bin/env bash
# EVM txs signed live vs before their phase: examples/evm-erc20.toml
# (live, the EVM default) and examples/evm-pregenerate.toml (the same
# load, mode = "pregenerate"), REPEATS runs each in turn, each run's
# verdict, latency and the harness's own CPU as the summary prints them.
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
  for ex in evm-erc20 evm-pregenerate; do
    "$work/chainperf" run "examples/$ex.toml" --duration "$duration" --db "$work/runs.db" --report-dir "$work/reports" >"$work/run.log" 2>&1 || true
    echo "== $ex, run $i"
    grep -E '^run |^  (latency|fates|harness):' "$work/run.log" || tail -5 "$work/run.log"
    grep -h 'txs signed before their phase' "$(ls -td "$work"/reports/*/ | head -1)report.md" || true
  done
done
