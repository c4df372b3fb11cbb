#!/usr/bin/env bash
# Startup benchmark: time from `chainperf testnet up` to height 1 and to
# height 5 on every node, and resident memory per node at height 5, for
# 4, 10 and 20 validators (plus 1 full node). Prints one line per size.
# Usage: bench/startup.sh [sizes...]   (default: 4 10 20)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/chainperf
go build -o "$bin" ./cmd/chainperf
sizes=("$@")
[ $# -eq 0 ] && sizes=(4 10 20)
printf '%s, %s cores, %s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" "$(date -u +%F)"
printf '%-11s %-10s %-10s %-14s\n' validators height1_s height5_s rss_mib_per_node
for v in "${sizes[@]}"; do
  dir=$(mktemp -d)/net scn=$(mktemp --suffix=.toml)
  printf '[testnet]\nvalidators = %d\nfull_nodes = 1\n' "$v" > "$scn"
  trap '"$bin" testnet down --dir "$dir" >/dev/null 2>&1 || true' EXIT
  t0=$(date +%s.%N)
  "$bin" testnet up -f "$scn" --detach --dir "$dir" > /dev/null
  rpcs=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(" ".join("http://%s:%d" % (n["host"], n["ports"]["rpc"]) for n in s["nodes"]))' "$dir/testnet.json")
  pids=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(" ".join(str(n["pid"]) for n in s["nodes"]))' "$dir/testnet.json")
  min_height() { local m=999999 h; for r in $rpcs; do h=$(curl -s -m 1 "$r/status" | grep -o '"latest_block_height":"[0-9]*"' | grep -o '[0-9]*' || true); h=${h:-0}; [ "$h" -lt "$m" ] && m=$h; done; echo "$m"; }
  until [ "$(min_height)" -ge 1 ]; do sleep 0.1; done; t1=$(date +%s.%N)
  until [ "$(min_height)" -ge 5 ]; do sleep 0.1; done; t5=$(date +%s.%N)
  rss=0; for p in $pids; do r=$(awk '/VmRSS/{print $2}' /proc/$p/status); rss=$((rss + r)); done
  n=$(echo $pids | wc -w)
  printf '%-11s %-10.1f %-10.1f %-14.0f\n' "$v" "$(echo "$t1 - $t0" | bc)" "$(echo "$t5 - $t0" | bc)" "$(echo "$rss / $n / 1024" | bc)"
  "$bin" testnet down --dir "$dir" > /dev/null
  trap - EXIT
done
