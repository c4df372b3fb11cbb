#!/usr/bin/env bash
# The wallet-count experiment (Cosmos Labs': "we vary the number of test
# wallets ... by increasing this number, we reduce the frequency of nonce
# gaps seen in the mempool"): examples/evm-nonce-gaps.toml (4 validators,
# 200 tx/s by default, 8 txs in flight per account) at each wallet count, with
# Cosmos EVM's application-side mempool and with CometBFT's alone, one
# run each. For each: the nonce gaps (with the app mempool the txs its
# pool named queued, read every 250 ms: Cosmos EVM v0.7 answers a gap as
# any tx; with CometBFT's the txs refused with a gap), refused, unresolved,
# committed tx/s and latency.
#   bench/evm-wallets.sh ["20 200 2000"] [duration] [rate]    (about 1 minute a run; 3 at 100,000 wallets)
# KEEP=1 keeps the runs' reports (their directory is printed).
set -euo pipefail
cd "$(dirname "$0")/.."
counts=${1:-20 200 2000}
duration=${2:-30s}
rate=${3:-200}
work=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then echo "reports in $work/reports"; else trap 'rm -rf "$work"' EXIT; fi
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; $(date -u '+%Y-%m-%d %H:%M UTC'); $rate tx/s for $duration"
go build -o "$work/chainperf" ./cmd/chainperf
printf '%-9s %8s %6s %7s %7s %9s %10s %11s %8s %8s %s\n' mempool wallets sent gaps refused committed unresolved "tx/s" "p50 ms" "p99 ms" verdict
for n in $counts; do
  for mempool in app cometbft; do
    sed -e "s/^wallets = .*/wallets = $n/" -e "s/^mempool = .*/mempool = \"$mempool\"/" \
      -e "s/^duration = .*/duration = \"$duration\"/" -e "s/^rate = .*/rate = $rate/" examples/evm-nonce-gaps.toml >"$work/s.toml"
    if [ "$mempool" = app ]; then sed -i 's/^\[testnet.evm\]$/[testnet.evm]\npool_reads = "250ms"/' "$work/s.toml"; fi
    "$work/chainperf" run "$work/s.toml" --db "$work/runs.db" --report-dir "$work/reports" >"$work/run.log" 2>&1 || true
    sum=$(ls -td "$work"/reports/*/ | head -1)record.json
    python3 - "$sum" "$mempool" "$n" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
p = s["phases"][-1]
l, f = p["ledger"], p["figures"]
gap = sum(v for k, v in l.get("reasons", {}).items() if "nonce too high" in k)
gap += (s.get("evm", {}).get("pool") or {}).get("seen_queued", 0)
fates = l["fates"]
print(f'{sys.argv[2]:<9} {int(sys.argv[3]):>8} {l["sent"]:>6} {l.get("queued", 0) + gap:>7} {l["rejected"]:>7} '
      f'{fates.get("committed", 0):>9} {fates.get("unresolved", 0):>10} {f["committed_tps"]:>11.1f} '
      f'{f["latency_p50_ms"]:>8.0f} {f["latency_p99_ms"]:>8.0f} {"PASS" if s.get("passed") else "FAIL"}', flush=True)
EOF
  done
done
