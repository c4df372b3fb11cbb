#!/usr/bin/env bash
# Do reads beside the writes slow the txs? An interleaved A/B (chainperf
# ab) of the CosmWasm example without reads (baseline) and with its read
# load at READ_RATE reads a second (a balance, an account, the latest block,
# a sender's txs, the contracts' smart query, in turn): the verdict on tx
# latency and throughput, exit 1 when the reads made them worse.
# Usage: bash bench/reads-ab.sh [READ_RATE=200] [MAX_ROUNDS=6]
set -euo pipefail
cd "$(dirname "$0")/.."
rate=${1:-200} rounds=${2:-6}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/chainperf" ./cmd/chainperf
python3 - "$tmp" "$rate" <<'PY'
import re, sys
tmp, rate = sys.argv[1], sys.argv[2]
text = open("examples/wasmd-contract.toml").read()
open(f"{tmp}/reads.toml", "w").write(re.sub(r"(?m)^read_rate = .*$", f"read_rate = {rate}", text))
off = re.sub(r"(?ms)^\[\[workload\.read\]\].*?(?=^\[)", "", text)
open(f"{tmp}/no-reads.toml", "w").write(re.sub(r"(?m)^read_rate = .*$", "read_rate = 0", off))
PY
"$tmp/chainperf" ab "$tmp/no-reads.toml" "$tmp/reads.toml" --min-rounds 2 --max-rounds "$rounds" \
  --db "$tmp/runs.db" --report-dir "$tmp/reports"
