#!/usr/bin/env bash
# Release against release, the CometBFT QA way: runs examples/qa-v038-vs-v1.toml
# on CometBFT v0.38.19 (the embedded node) and on v1.0.1 (built from its Go
# module), each on 4 validators + 1 full node, prints both processed-tx
# tables with their saturation points, then `chainperf compare` of the two
# and writes the side-by-side page (qa-compare.html) and its screenshot.
#   bench/qa-release.sh [cell_duration] [steady_duration] [out_dir]
# The QA's own values are 90s cells and a long steady run (the example's
# 5m); shorter cells (e.g. 20s 60s) give a quicker, noisier table.
set -euo pipefail
cd "$(dirname "$0")/.."
cell=${1:-90s}
steady=${2:-5m}
out=${3:-bench/qa-out}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/chainperf" ./cmd/chainperf
sed -e "s/^cell_duration = .*/cell_duration = \"$cell\"/" -e "s/^steady_duration = .*/steady_duration = \"$steady\"/" \
  examples/qa-v038-vs-v1.toml > "$work/qa.toml"
db="$work/runs.db"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB"
echo "cells $cell, steady run $steady"
for rel in v0.38.19 v1.0.1; do
  flags=()
  [ "$rel" = v1.0.1 ] && flags=(--binary module:github.com/cometbft/cometbft/cmd/cometbft@v1.0.1)
  start=$(date +%s)
  "$work/chainperf" run "$work/qa.toml" --db "$db" --report-dir "$work/reports" --label "release=$rel" "${flags[@]}" \
    >"$work/$rel.log" 2>&1 || echo "($rel: run exit $?, see below)"
  id=$(grep -oE '^run [0-9]{8}-[0-9]{6}-[0-9a-f]{4}' "$work/$rel.log" | cut -d' ' -f2)
  echo
  echo "== CometBFT $rel: run $id, $(( $(date +%s) - start )) s"
  grep -E '^run |^  (throughput|latency|fates|chain|sweep|failed):' "$work/$rel.log" || tail -20 "$work/$rel.log"
  awk '/^## Processed txs/{p=1} p&&/^$/&&n++>1{exit} p' "$work/reports/$id/report.md"
  cp "$work/reports/$id/report.html" "$out/qa-$rel.html"
done
echo
echo "== compare v0.38.19 (baseline) vs v1.0.1 (candidate)"
"$work/chainperf" compare --db "$db" "label:release=v0.38.19 latest" "label:release=v1.0.1 latest" \
  --html "$out/qa-compare.html" || echo "(compare exit $?: 1 regressed, 3 inconclusive)"
if command -v chromium >/dev/null; then
  bash bench/screenshot.sh "$out/qa-compare.html" 9000 >/dev/null && echo "screenshot: $out/qa-compare.png"
fi
