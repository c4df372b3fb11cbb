#!/usr/bin/env bash
# A known answer from two CometBFT releases (issue 74, item 3): v0.38.8's
# changelog says "This release contains a few bug fixes and performance
# improvements", most of them fewer allocations on the p2p and consensus
# paths (#2949 ProtoIO writer creation, #2986 WritePacketMsgTo reusing its
# buffers, #3003 LRU caches in the blockstore, #3017 consensus metrics with
# fewer string operations, #3018 one allocation less in ReadMsg). The same
# scenario on v0.38.7 against v0.38.8, each built from its Go module by
# chainperf, decided on what a validator allocates per committed tx.
# Usage: bench/release-pair.sh [sessions, default 2] (KEEP=DIR keeps the
# database, scenario, logs and verdicts; BASE, CAND and DECIDE change the
# releases and the figure: BASE=v0.38.19 CAND=v1.0.1 DECIDE="height time"
# is the pair whose v1.0.0 changelog lowered the default
# p2p.flush_throttle_timeout from 100 ms to 10 ms (#2988), which each
# release's own default config.toml carries into its nodes).
#   4+1 kvstore nodes (the release's own cometbft binary, --proxy_app
#   kvstore), steady 800 tx/s for 15 s (3 s warm-up), 3 to 8 rounds,
#   --decide-on "$decide" --threshold 2; the height
#   time, latency and the rest are informative.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-2}
base=${BASE:-v0.38.7}
cand=${CAND:-v0.38.8}
decide=${DECIDE:-allocated per committed tx}
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP"; work=$(cd "$KEEP" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
go build -o "$work/chainperf" ./cmd/chainperf
cat > "$work/release.toml" <<TOML
name = "release-pair"
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
printf '%s, %s cores, %s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" "$(date -u '+%F %H:%M')" | tee "$work/machine.txt"
mod=module:github.com/cometbft/cometbft/cmd/cometbft
for i in $(seq "$n"); do
  printf '%s against %s on %s, %d: ' "$base" "$cand" "$decide" "$i"
  (cd "$work" && ./chainperf ab release.toml --baseline-binary "$mod@$base" --candidate-binary "$mod@$cand" \
    --min-rounds 3 --max-rounds 8 --decide-on "$decide" --threshold 2 \
    --db runs.db --report-dir reports -o "$base-$cand-$i.txt" > "$base-$cand-$i.log" 2>&1) || true
  grep -E '^[0-9]+ round' "$work/$base-$cand-$i.log" || tail -3 "$work/$base-$cand-$i.log"
  grep -E "$decide|latency p50|committed tx/s|^why|share (grew|fell)" "$work/$base-$cand-$i.txt" | head -12 || true
done
