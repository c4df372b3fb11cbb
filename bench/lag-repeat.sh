#!/usr/bin/env bash
# Schedule lag, run after run: `chainperf load` at RATE (default 20,000
# tx/s) for 10 s, N times (default 9), against one `chainperf sink` that
# stays up, generator on CPU 0 and sink on CPU 1. Prints each run's p99
# and max lag and the most senders at once: a run whose senders reached
# max_in_flight met a pause in answers. Not part of CI.
#   bench/lag-repeat.sh [N] [RATE]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-9} rate=${2:-20000}
work=$(mktemp -d)
sink=""
cleanup() {
  [ -n "$sink" ] && kill "$sink" 2>/dev/null && wait "$sink" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/chainperf" ./cmd/chainperf
addr=127.0.0.1:$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
taskset -c 1 "$work/chainperf" sink --listen "$addr" >/dev/null 2>&1 &
sink=$!
sleep 1
echo "# $rate tx/s for 10 s, $n runs, $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
echo "| run | p99 lag ms | max lag ms | senders at most | on time of due |"
echo "|---|---|---|---|---|"
for ((i = 1; i <= n; i++)); do
  taskset -c 0 "$work/chainperf" load --rpc "http://$addr" --no-follow --no-store --rate "$rate" --duration 10s \
    --json "$work/r.json" >/dev/null 2>&1
  python3 - "$work/r.json" "$i" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
lag, g = r["ledger"]["lag"], r["generator"]
print(f"| {sys.argv[2]} | {lag['p99_ms']:.3f} | {lag['max_ms']:.1f} | {g['senders']} | {g['on_time']} of {g['due']:.0f} |")
PY
done
