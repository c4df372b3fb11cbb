#!/usr/bin/env bash
# Planted causes and what chainperf says of them (docs/guides/why.md): a
# 4+1 kvstore testnet at 300 tx/s for 20 s, as is (base), with the p2p
# send and receive rates held to 250 kB/s a connection (gossip), with the
# tx indexer off (noindex), and with validator3 killed (missing); then
# compare noindex -> base (the indexer's allocations) and base -> gossip
# (block parts held back). The same runs as TestWhyNamesPlantedCauses.
# Usage: bench/why-causes.sh
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$work/chainperf
go build -o "$bin" ./cmd/chainperf
printf '%s, %s cores, %s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" "$(date -u +%F)"
declare -A extra=(
  [base]=''
  [gossip]=$'[testnet.config]\n"p2p.send_rate" = 250000\n"p2p.recv_rate" = 250000'
  [noindex]=$'[testnet.config]\n"tx_index.indexer" = "null"'
  [missing]=$'[[perturbation]]\nkind = "kill"\nnodes = ["validator3"]\nat = "1s"'
)
declare -A id
for name in base gossip noindex missing; do
  cat > "$work/$name.toml" <<TOML
name = "why-$name"
[testnet]
validators = 4
full_nodes = 1
[load]
rate = 300
duration = "20s"
[experiment]
kind = "steady"
warmup = "4s"
cooldown = "1s"
[criteria]
load_delivered = false
${extra[$name]}
TOML
  (cd "$work" && "$bin" run "$name.toml" --db "$work/why.db" > "$work/$name.out" 2>&1) || true
  id[$name]=$(grep -o '^run [0-9a-f-]*' "$work/$name.out" | cut -d' ' -f2)
  echo "== $name (${id[$name]})"
  grep -E '^  (throughput|latency|height|internals|missing|allocs|cpu):' "$work/$name.out"
done
echo "== compare noindex -> base (the tx indexer on)"
"$bin" compare --force --db "$work/why.db" "${id[noindex]}" "${id[base]}" | grep -E '^(changed|why):' || true
echo "== compare base -> gossip (p2p rates held to 250 kB/s)"
"$bin" compare --force --db "$work/why.db" "${id[base]}" "${id[gossip]}" | grep -E '^(changed|why):' || true
