#!/usr/bin/env bash
# Known answers on the SDK test chain (issue 74): a send made slower by a
# planted cost of 5 % and 3 % of a block's execution, and whether
# `chainperf ab` calls it, in how many rounds. The test chain's
# chainperf.slow-msg app.toml key spins CPU in every MsgSend handler, so
# a block's execution grows by the cost times its sends; the cost is sized
# from the A/A sessions' own block execution and sends a block.
# Usage: bench/sdk-planted.sh [A/A sessions, default 2] [sessions of each
# size, default 1] (KEEP=DIR keeps the database, scenarios and verdicts).
#   scenario: 2 validators + 1 full node, cosmos-send from 1,000 wallets at
#             100 tx/s for 15 s (3 s warm-up), pregenerated.
#   A/A:      3 rounds each (they calibrate the planted sessions).
#   planted:  3 to 10 rounds, decided on "height time: execution" (the
#             per-height timeline's) at a 2 % threshold; block execution
#             (CometBFT's metric), latency and the rest are informative.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-2}
planted=${2:-1}
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP"; work=$(cd "$KEEP" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
go build -o "$work/chainperf" ./cmd/chainperf
(cd chains/cosmos && go build -o "$work/chainperf-sdkd" ./cmd/chainperf-sdkd)
export CHAINPERF_SDKD=$work/chainperf-sdkd
scenario() { # file [slow-msg]
  cat > "$work/$1.toml" <<TOML
name = "sdk-planted"
[testnet]
validators = 2
full_nodes = 1
chain = "cosmos"
[testnet.cosmos]
wallets = 1000
gas_price = 0.001
[testnet.app.chainperf]
slow-msg = "${2:-}"
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
}
scenario aa
printf '%s, %s cores, %s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" "$(date -u '+%F %H:%M')" | tee "$work/machine.txt"
about=(--decide-on "height time: execution" --threshold 2)
ab() { # out args...
  local out=$1; shift
  (cd "$work" && ./chainperf ab "$@" "${about[@]}" --db runs.db --report-dir reports --format json -o "$out.json" > "$out.log" 2>&1) || true
  grep -E '^[0-9]+ round|^why' "$work/$out.log" || tail -3 "$work/$out.log"
}
for i in $(seq "$n"); do
  printf 'A/A %d: ' "$i"; ab "aa-$i" aa.toml --min-rounds 3 --max-rounds 3
done
# A block's execution (ms) and its sends, from the A/A sessions.
read -r exec sends < <(python3 - "$work" "$n" <<'PY'
import json, sys
ex, tps, iv = [], [], []
for i in range(1, int(sys.argv[2]) + 1):
    try:
        res = json.load(open(f"{sys.argv[1]}/aa-{i}.json"))
    except OSError:
        continue
    for r in res["figures"]:
        {"height time: execution": ex, "committed tx/s": tps, "block interval": iv}.get(r["figure"], []).append(r["baseline_mean"])
m = lambda xs: sum(xs) / len(xs) if xs else 0
print(round(m(ex), 2), round(m(tps) * m(iv) / (1000 if m(iv) > 100 else 1), 1))
PY
)
echo "A/A: a block's execution ${exec} ms, ${sends} sends a block" | tee "$work/aa.txt"
for pct in 5 3; do
  us=$(python3 -c "print(max(1, round($pct / 100 * $exec * 1000 / $sends)))")
  scenario "p$pct" "/cosmos.bank.v1beta1.MsgSend=${us}us"
  for i in $(seq "$planted"); do
    printf '+%d %% (%d us a send) %d: ' "$pct" "$us" "$i"
    ab "p$pct-$i" aa.toml "p$pct.toml" --min-rounds 3 --max-rounds 10
  done
done
