#!/usr/bin/env bash
# How often the gate calls a change that is not there (issue 74, item 4):
# A/A sessions, the same scenario on both sides, on two scenarios, each
# session decided on the steady per-height figure ("height time") at a 2 %
# threshold and calibrated by the sessions of its scenario before it (ab
# reads them from the database, as a team's gate would). Every gated
# figure's verdict is counted: regressed or improved is a false verdict.
# Usage: bench/aa-false.sh [kvstore sessions, default 20] [SDK sessions,
# default 10] (KEEP=DIR keeps the database, scenarios, logs and verdicts).
#   kvstore: 4+1 nodes (CometBFT's kvstore, the embedded node), steady
#            800 tx/s for 15 s (3 s warm-up), 3 to 4 rounds.
#   SDK:     chainperf's SDK test chain, 2 validators + 1 full node,
#            cosmos-send from 1,000 wallets at 100 tx/s for 15 s (3 s
#            warm-up), pregenerated, 3 rounds.
set -euo pipefail
cd "$(dirname "$0")/.."
kv=${1:-20}
sdk=${2:-10}
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP"; work=$(cd "$KEEP" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
go build -o "$work/chainperf" ./cmd/chainperf
(cd chains/cosmos && go build -o "$work/chainperf-sdkd" ./cmd/chainperf-sdkd)
export CHAINPERF_SDKD=$work/chainperf-sdkd
cat > "$work/kvstore.toml" <<TOML
name = "aa-kvstore"
[testnet]
validators = 4
full_nodes = 1
[load]
rate = 800
duration = "15s"
[experiment]
kind = "steady"
warmup = "3s"
cooldown = "1s"
TOML
cat > "$work/sdk.toml" <<TOML
name = "aa-sdk"
[testnet]
validators = 2
full_nodes = 1
chain = "cosmos"
[testnet.cosmos]
wallets = 1000
gas_price = 0.001
[workload]
kind = "cosmos-send"
mode = "pregenerate"
gas_limit = 100000
[load]
rate = 100
duration = "15s"
[experiment]
kind = "steady"
warmup = "3s"
cooldown = "2s"
drain_timeout = "20s"
[criteria]
load_delivered = false
TOML
printf '%s, %s cores, %s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" "$(date -u '+%F %H:%M')" | tee "$work/machine.txt"
ab() { # out scenario max-rounds
  (cd "$work" && ./chainperf ab "$2" --min-rounds 3 --max-rounds "$3" --decide-on "height time" --threshold 2 \
    --db runs.db --report-dir reports --format json -o "$1.json" > "$1.log" 2>&1) || true
  grep -E '^[0-9]+ round' "$work/$1.log" || tail -3 "$work/$1.log"
}
start=$(date +%s)
for i in $(seq "$kv"); do printf 'kvstore A/A %d: ' "$i"; ab "kvstore-$i" kvstore.toml 4; done
mid=$(date +%s)
for i in $(seq "$sdk"); do printf 'SDK A/A %d: ' "$i"; ab "sdk-$i" sdk.toml 3; done
end=$(date +%s)
echo "kvstore took $(( (mid - start) / 60 )) min, SDK $(( (end - mid) / 60 )) min; until $(date -u '+%H:%M')"
python3 bench/aa-false.py "$work" "$kv" "$sdk"
