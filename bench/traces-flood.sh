#!/usr/bin/env bash
# What a flooding node costs chainperf's readers: the span receiver under a
# node that sends spans without end (traces whose root never comes, a new
# message type each), through the real HTTP receiver, and the log reader
# on the most of one node's log a run keeps (8 MiB of errors, timeouts and
# peers dropped). Heap in MiB after it all, and the rate.
# Usage: bash bench/traces-flood.sh [REQUESTS=2000]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-2000}
printf '%s, %s cores, %s GiB, %s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" \
  "$(awk '/MemTotal/ {printf "%.0f", $2/1048576}' /proc/meminfo)" "$(date -u +%F)"
for x in 100 $n; do
  go test ./internal/traces -run '^$' -bench BenchmarkFlood -benchtime "${x}x" | grep '^Benchmark'
done
go test ./internal/nodelog -run '^$' -bench BenchmarkReadFlood -benchtime 5x | grep '^Benchmark'
