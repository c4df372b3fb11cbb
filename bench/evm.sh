#!/usr/bin/env bash
# Cosmos EVM figures: signing throughput (chainperf's signer against
# go-ethereum's own, same tx, same run; Cosmos EVM needs cgo, so
# go-ethereum's secp256k1 is libsecp256k1 there), the two
# ways a tx reaches a node at the same rate (CometBFT's broadcast_tx_sync
# against the node's eth_sendRawTransaction), then find-max of the
# 4-validator kvstore testnet, the Cosmos SDK test chain and the Cosmos
# EVM test chain (native and ERC20 transfers), stored in one database and
# compared.
#   bench/evm.sh [rate] [duration]     (about 17 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
rate=${1:-100}
duration=${2:-60s}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB"
echo "== signing one EIP-1559 transfer, one core (go-ethereum with cgo: libsecp256k1)"
(cd chains/evm && go test -run X -bench Sign ./app | grep -E '^Benchmark')
go build -o "$work/chainperf" ./cmd/chainperf
run() { # name scenario
  "$work/chainperf" run "$2" --db "$work/runs.db" --report-dir "$work/reports" >"$work/$1.log" 2>&1 ||
    echo "($1: run exit $?)"
  grep -E '^run |^  (throughput|latency|load|fates|chain|find-max|balances):' "$work/$1.log" || tail -20 "$work/$1.log"
}
for via in cometbft json-rpc; do
  echo "== evm-transfer via $via at $rate tx/s for $duration (4 validators + 1 full node)"
  sed -e "s/^wallets = 2000/wallets = 2000\nsend_via = \"$via\"/" -e "s/^rate = .*/rate = $rate/" \
    -e "s/^duration = .*/duration = \"$duration\"/" -e "s/^name = .*/name = \"evm-via-$via\"/" \
    examples/evm-transfer.toml >"$work/via-$via.toml"
  run "via-$via" "$work/via-$via.toml"
done
echo "== cometbft (A) against json-rpc (B)"
"$work/chainperf" compare scenario:evm-via-cometbft scenario:evm-via-json-rpc --db "$work/runs.db" --force || true
sed -e 's/^name = .*/name = "evm-erc20-find-max"/' -e 's/^kind = "evm-transfer"/kind = "evm-erc20"/' \
  examples/evm-find-max.toml >"$work/evm-erc20-find-max.toml"
for s in examples/find-max.toml examples/cosmos-find-max.toml examples/evm-find-max.toml "$work/evm-erc20-find-max.toml"; do
  echo "== chainperf run $(basename "$s")"
  run "$(basename "$s" .toml)" "$s"
done
echo "== kvstore (A) against evm-transfer (B)"
"$work/chainperf" compare scenario:find-max scenario:evm-find-max --db "$work/runs.db" --force || true
echo "== cosmos-send (A) against evm-transfer (B)"
"$work/chainperf" compare scenario:cosmos-find-max scenario:evm-find-max --db "$work/runs.db" --force || true
echo "== evm-transfer (A) against evm-erc20 (B)"
"$work/chainperf" compare scenario:evm-find-max scenario:evm-erc20-find-max --db "$work/runs.db" --force || true
