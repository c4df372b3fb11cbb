#!/usr/bin/env bash
# Faults and large-genesis figures of the README, reproduced: a 2|2
# partition of 4 validators for 10 s (examples/partition.toml), a 90 s
# disconnect of 1 of 4 validators (examples/disconnect.toml), both on the
# netns provider (root), and a Cosmos run with 100,000 wallets
# (examples/cosmos-100k-wallets.toml) and an EVM one
# (examples/evm-100k-wallets.toml: set CHAINPERF_EVMD). Prints each run's summary and its
# Faults table; every run is stored in a temp database.
# Usage: sudo bench/faults.sh [partition|disconnect|wallets|evm-wallets ...]   (default: all four)
set -euo pipefail
cd "$(dirname "$0")/.."
which=("$@"); [ ${#which[@]} -eq 0 ] && which=(partition disconnect wallets evm-wallets)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$work/chainperf
go build -o "$bin" ./cmd/chainperf
printf '%s, %s cores, %s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" "$(date -u +%F)"
for w in "${which[@]}"; do
  case $w in
    partition) scn=examples/partition.toml ;;
    disconnect) scn=examples/disconnect.toml ;;
    wallets) scn=examples/cosmos-100k-wallets.toml ;;
    evm-wallets) scn=examples/evm-100k-wallets.toml ;;
    *) echo "unknown: $w" >&2; exit 2 ;;
  esac
  echo "== $scn"
  start=$(date +%s)
  "$bin" run "$scn" --db "$work/runs.db" --report-dir "$work/reports" 2>/dev/null | grep -v '^ *$' || true
  echo "   took $(( $(date +%s) - start )) s"
  md=$(ls "$work"/reports/*/report.md | tail -1)
  sed -n '/^## Faults/,/^## [^F]/p' "$md" | sed '$d'
done
