#!/usr/bin/env bash
# Observer overhead benchmark: CPU (share of one core) and memory chainperf
# spends on watching a testnet (block follower over every node with a ledger
# that hashes and looks up every tx, as in a real run; Prometheus
# scraper and /proc sampler at 1 s, everything written to SQLite), at 4 and
# 20 validators (plus 1 full node) while another chainperf process sends
# 200 tx/s to the full node.
# Usage: bench/observe.sh [seconds] [sizes...]   (default: 60 s; 4 20)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}; shift || true
sizes=("$@"); [ ${#sizes[@]} -eq 0 ] && sizes=(4 20)
work=$(mktemp -d)
bin=$work/chainperf
go build -o "$bin" ./cmd/chainperf
printf '%s, %s cores, %s; %s s per size\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" "$(date -u +%F)" "$secs"
for v in "${sizes[@]}"; do
  dir=$work/net$v scn=$work/v$v.toml
  printf '[testnet]\nvalidators = %d\nfull_nodes = 1\n' "$v" > "$scn"
  trap '"$bin" testnet down --dir "$dir" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
  "$bin" testnet up -f "$scn" --detach --dir "$dir" > /dev/null
  rpc=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(["http://%s:%d" % (n["host"], n["ports"]["rpc"]) for n in s["nodes"] if n["role"] == "full"][0])' "$dir/testnet.json")
  "$bin" load --rpc "$rpc" --rate 200 --duration "$((secs + 10))s" --no-follow --no-store > /dev/null &
  load=$!
  printf '%3d validators: ' "$v"
  "$bin" testnet watch --dir "$dir" --duration "${secs}s" --db "$work/watch.db"
  wait $load
  "$bin" testnet down --dir "$dir" > /dev/null
  trap 'rm -rf "$work"' EXIT
done
