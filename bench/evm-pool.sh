#!/usr/bin/env bash
# What reading the nodes' EVM mempools costs and tells: examples/evm-nonce-gaps.toml
# (4 validators, 20 accounts, 8 txs in flight each, the app mempool) at
# one rate with testnet.evm.pool_reads at each interval given ("0s": no
# reads), the intervals in turn, K rounds. For each run: the chain's block
# interval, latency, committed tx/s, the harness's cores, and what the
# reads saw (txs the pool named queued, of the gaps the answers gave;
# their time to pending and then pending to their block).
#   bench/evm-pool.sh [K] [rate] ["0s 1s 250ms"]    (about 1 minute a run)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2}
rate=${2:-100}
intervals=${3:-0s 1s 250ms}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; $(date -u '+%Y-%m-%d %H:%M UTC'); $rate tx/s, $rounds rounds"
go build -o "$work/chainperf" ./cmd/chainperf
printf '%-6s %5s %9s %8s %8s %7s %7s %-34s %s\n' reads round "block s" "p50 ms" "p99 ms" "tx/s" harness "pool: queued (gap) of gaps" "to pending p50/p99, then pending p50 ms"
for round in $(seq "$rounds"); do
  for every in $intervals; do
    sed -e "s/^mempool = .*/mempool = \"app\"\npool_reads = \"$every\"/" -e "s/^rate = .*/rate = $rate/" \
      examples/evm-nonce-gaps.toml >"$work/s.toml"
    "$work/chainperf" run "$work/s.toml" --db "$work/runs.db" --report-dir "$work/reports" >"$work/run.log" 2>&1 || true
    sum=$(ls -td "$work"/reports/*/ | head -1)record.json
    python3 - "$sum" "$every" "$round" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
p = s["phases"][-1]
f = p["figures"]
pool = (s.get("evm") or {}).get("pool")
h = p.get("harness") or {}
cores = h.get("cpu_s", 0) / h["seconds"] if h.get("seconds") else 0
if pool:
    seen = f'{pool["seen_queued"]} ({pool["gap_queued"]}) of {pool["answered_gap"]}'
    times = f'{pool["to_pending_p50_ms"]:.0f}/{pool["to_pending_p99_ms"]:.0f}, {pool["pending_p50_ms"]:.0f}'
else:
    seen, times = "-", "-"
print(f'{sys.argv[2]:<6} {sys.argv[3]:>5} {f["block_interval_s"]:>9.2f} {f["latency_p50_ms"]:>8.0f} {f["latency_p99_ms"]:>8.0f} '
      f'{f["committed_tps"]:>7.1f} {cores:>7.3f} {seen:<34} {times}', flush=True)
PY
  done
done
