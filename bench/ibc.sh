#!/usr/bin/env bash
# Two chains and a relayer (issue 73): runs examples/ibc-transfer.toml
# (two one-validator wasmd v0.61.14 testnets, Hermes between them, 2
# minutes of ICS-20 transfers at 5 tx/s) N times and prints each run's
# verdict, packets, relay latencies, escrow and the relayer's line.
# Usage: bench/ibc.sh [runs, default 1] (KEEP=DIR keeps the database and
# reports).
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
  "$work/chainperf" run examples/ibc-transfer.toml --db "$work/runs.db" --report-dir "$work/reports" > "$work/run-$i.log" 2>&1 || true
  echo "run $i ($(( $(date +%s) - start )) s):"
  grep -E '^run |failed:|passed:|balances:|packets:|escrow:|relayer:|packet:|latency:' "$work/run-$i.log" || tail -5 "$work/run-$i.log"
  "$work/chainperf" runs show "$(grep -oE '^run [0-9]{8}-[0-9]{6}-[0-9a-f]{4}' "$work/run-$i.log" | cut -d' ' -f2)" --db "$work/runs.db" 2>/dev/null |
    grep -E 'relay (to B|and acknowledgement) p(50|99)' || true
done
