#!/usr/bin/env bash
# The compare gate's power table of the README: N runs of the default job
# (default 5) stored in a temp database, each figure's noise estimated from
# them, then bench/power simulates 2,000 comparisons a cell with compare's
# own rule. Usage: bench/power.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/chainperf" ./cmd/chainperf
printf '%s, %s cores, %s; %s runs of the default job\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" "$(date -u +%F)" "$n"
for i in $(seq "$n"); do
  (cd "$work" && ./chainperf run --db runs.db --label power=1 | grep '^run ')
done
go run ./bench/power --db "$work/runs.db" --runs "label:power=1 latest:$n"
