#!/usr/bin/env bash
# Workload figures: the example scenarios of a message mix, of ten messages
# a tx and of CometBFT's loadtime payload, then ordered against unordered
# txs from 4 wallets on the same testnet shape (examples/cosmos-unordered.toml
# and the same with unordered = false), each pair run $REPEATS times (fresh
# testnet each run) to show the spread. Prints each run's summary lines and
# the mix's results by message kind.
#   bench/workloads.sh            (about 10 minutes; REPEATS=2)
set -euo pipefail
cd "$(dirname "$0")/.."
REPEATS=${REPEATS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/chainperf" ./cmd/chainperf
run() { # name file
  "$work/chainperf" run "$2" --db "$work/runs.db" --report-dir "$work/reports/$1" >"$work/$1.log" 2>&1 || true
  echo "== $1 ($2)"
  grep -E '^run |^  throughput:|^  latency:|^  load:|^  fates:|^  reasons:|^  failed:|^  balances:' "$work/$1.log" || tail -20 "$work/$1.log"
}
run mix examples/cosmos-mix.toml
awk '/^## By message kind/{on=1; next} /^## /{on=0} on && /^\|/' "$work"/reports/mix/*/report.md
run msgs-per-tx examples/cosmos-msgs-per-tx.toml
run loadtime examples/loadtime.toml
sed 's/^unordered = true/unordered = false/; s/^name = "cosmos-unordered"/name = "cosmos-ordered"/' examples/cosmos-unordered.toml >"$work/cosmos-ordered.toml"
for i in $(seq "$REPEATS"); do
  run "ordered-$i" "$work/cosmos-ordered.toml"
  run "unordered-$i" examples/cosmos-unordered.toml
done
echo "== committed tx/s and p99 (measured window), ordered vs unordered"
for i in $(seq "$REPEATS"); do
  for k in ordered unordered; do
    printf '%-10s run %d: %s | %s\n' "$k" "$i" "$(grep -oE 'committed [0-9]+ tx/s' "$work/$k-$i.log" | tail -1)" "$(grep -oE 'p99 [0-9]+ ms' "$work/$k-$i.log" | tail -1)"
  done
done
