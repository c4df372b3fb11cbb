#!/bin/bash
# Per-thread wake-ups and CPU of a chainperf generator: BIN sends RATE tx/s to a chainperf sink
# for 10 s (generator on CPU 0, sink on CPU 1) and, after 9 s, each of its threads' voluntary and
# involuntary context switches and CPU ticks (1/100 s) are printed from /proc, then their sums.
# Which threads wake, and how often, is what a change to the send path moves.
# Usage: bash bench/generator-threads.sh BIN RATE   (e.g. bash bench/generator-threads.sh /tmp/chainperf 5000)
set -euo pipefail
BIN=${1:?chainperf binary}; RATE=${2:?tx/s}
ADDR=127.0.0.1:27791
taskset -c 1 "$BIN" sink --listen "$ADDR" >/dev/null 2>&1 &
SINK=$!
trap 'kill $SINK 2>/dev/null || true' EXIT
sleep 1
taskset -c 0 "$BIN" load --rpc "http://$ADDR" --no-follow --no-store --rate "$RATE" --duration 10s >/dev/null 2>&1 &
GEN=$!
sleep 9
printf '%-8s %10s %10s %10s\n' thread cpu_ticks voluntary involuntary
for t in /proc/$GEN/task/*; do
  read -r -a st < "$t/stat"
  v=$(awk '/^voluntary_ctxt/ {print $2}' "$t/status")
  nv=$(awk '/^nonvoluntary_ctxt/ {print $2}' "$t/status")
  printf '%-8s %10d %10d %10d\n' "$(basename "$t")" $(( ${st[13]} + ${st[14]} )) "$v" "$nv"
done | tee /dev/stderr | awk '{c+=$2; v+=$3; n+=$4} END {printf "all      %10d %10d %10d\n", c, v, n}'
wait $GEN
