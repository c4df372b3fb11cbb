#!/usr/bin/env bash
# Does chainperf name a slower message handler? An interleaved A/B
# (chainperf ab) on the EVM test chain with the application's traces on:
# the baseline as it is, the candidate with a planted wait of WAIT in every
# /cosmos.evm.vm.v1.MsgEthereumTx handler (the test chain's
# chainperf.slow-msg app.toml key, inside the SDK's msgHandler span). The
# known answer: a block's execution grows by WAIT times its EVM txs, and the
# why line names MsgEthereumTx as the part that moved it.
# Usage: bash bench/traces-planted-handler.sh [WAIT=1ms] [MAX_ROUNDS=4]
set -euo pipefail
cd "$(dirname "$0")/.."
wait=${1:-1ms} rounds=${2:-4}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/chainperf" ./cmd/chainperf
(cd chains/evm && go build -o "$tmp/chainperf-evmd" ./cmd/chainperf-evmd)
export CHAINPERF_EVMD="$tmp/chainperf-evmd"
base='name = "evm-traces"
[testnet]
validators = 2
full_nodes = 1
chain = "evm"
[testnet.evm]
wallets = 1000
[workload]
kind = "evm-transfer"
amount = 7
[load]
rate = 100
duration = "15s"
[experiment]
kind = "steady"
warmup = "3s"
cooldown = "2s"
drain_timeout = "20s"
[observe]
traces = true
[criteria]
max_unresolved = 0
load_delivered = false
'
printf '%s' "$base" >"$tmp/base.toml"
printf '%s[testnet.app.chainperf]\nslow-msg = "/cosmos.evm.vm.v1.MsgEthereumTx=%s"\n' "$base" "$wait" >"$tmp/slow.toml"
"$tmp/chainperf" ab "$tmp/base.toml" "$tmp/slow.toml" --min-rounds 2 --max-rounds "$rounds" \
  --db "$tmp/runs.db" --report-dir "$tmp/reports"
