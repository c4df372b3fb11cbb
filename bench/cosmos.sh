#!/usr/bin/env bash
# Cosmos SDK figures: signing throughput (chainperf's encoder against the
# SDK client's own path, same tx, same run), pregenerating 100,000 txs,
# deriving and funding 100,000 wallets in genesis, then find-max of the
# 4-validator kvstore testnet and of the 4-validator Cosmos SDK test chain,
# stored in one database and compared side by side.
#   bench/cosmos.sh            (about 8 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "== signing one MsgSend, SIGN_MODE_DIRECT, one core"
(cd chains/cosmos && go test -run X -bench Sign ./app | grep -E '^Benchmark')
echo "== pregenerate 100,000 txs (all cores), derive and fund 100,000 wallets"
go test -run X -bench 'Pregenerate100k|Genesis100k' -benchtime 3x ./internal/cosmos | grep -E '^Benchmark'
go build -o "$work/chainperf" ./cmd/chainperf
for s in find-max cosmos-find-max; do
  echo "== chainperf run examples/$s.toml"
  "$work/chainperf" run "examples/$s.toml" --db "$work/runs.db" --report-dir "$work/reports" >"$work/$s.log" 2>&1 ||
    { echo "$s failed:"; tail -20 "$work/$s.log"; exit 1; }
  grep -E '^run |^  find-max:|^  balances:' "$work/$s.log"
done
echo "== kvstore (A) against cosmos-send (B)"
"$work/chainperf" compare scenario:find-max scenario:cosmos-find-max --db "$work/runs.db" --force || true
