#!/usr/bin/env bash
# The lifecycle examples and what they measure (docs/guides/lifecycle.md):
# a rolling upgrade of 4 validators from the embedded CometBFT v0.38.19
# to v0.38.26 under 200 tx/s (examples/upgrade.toml), the same load on a
# mixed network of both (examples/mixed-versions.toml), and two state-sync
# joins under 100 tx/s (examples/state-sync.toml), and a coordinated
# upgrade of wasmd at height 30 under 50 tx/s (examples/sdk-upgrade.toml).
# Prints each run's summary lines and its faults or rotating-nodes table.
# Usage: bench/lifecycle.sh [RUNS]   (each example RUNS times, default 1)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$work/chainperf
go build -o "$bin" ./cmd/chainperf
printf '%s, %s cores, %s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" "$(date -u +%FT%TZ)"
for ex in upgrade mixed-versions state-sync sdk-upgrade; do
  for i in $(seq 1 "$runs"); do
    echo "== $ex ($i of $runs)"
    out=$("$bin" run "examples/$ex.toml" --db "$work/runs.db" --report-dir "$work/reports" 2>&1 | grep -v '^\(steady\|rotate\) 1/1 \(load\|drain\)' || true)
    grep -E '^run |throughput:|latency:|fates:|unresolved:|versions:|rotate:|missing:|balances:' <<<"$out" || true
    dir=$(ls -td "$work"/reports/*/ | head -1)
    sed -n '/^## \(Faults\|Rotating nodes\)/,/^$/p;/^| \(upgrade\|rotate\|halt\)/p' "$dir/report.md" | grep '^|' | sort -u || true
  done
done
