#!/usr/bin/env bash
# The relayer's pace (issue 73): runs examples/ibc-pace.toml (two wasmd
# v0.61.14 testnets, Hermes between them, ICS-20 transfers at 5, 20, 60
# and 120 tx/s, 30 s a cell) N times and prints each run's verdict, the
# chain's saturation and the relay's pace: each cell's packets and relay
# latencies, and the heaviest rate the relayer kept pace with.
# Usage: bench/ibc-pace.sh [runs, default 1] (KEEP=DIR keeps the database
# and reports).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1}
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP"; work=$(cd "$KEEP" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
go build -o "$work/chainperf" ./cmd/chainperf
printf '%s, %s cores, %s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" "$(date -u '+%F %H:%M')"
for i in $(seq "$n"); do
  start=$(date +%s)
  "$work/chainperf" run examples/ibc-pace.toml --db "$work/runs.db" --report-dir "$work/reports" > "$work/run-$i.log" 2>&1 || true
  echo "run $i ($(( $(date +%s) - start )) s):"
  grep -E '^run |failed:|passed:|saturation|packets:|escrow:|relayer:|pace:|sweep c=' "$work/run-$i.log" || tail -5 "$work/run-$i.log"
done
