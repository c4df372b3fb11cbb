#!/usr/bin/env bash
# Committed tx/s on identical runs, as chainperf computed it before
# 2026-11-25 (by the seconds of the window) and as it does now (by the
# blocks of the window): N runs (default 12) of one scenario, 4+1 kvstore
# nodes at a steady 600 tx/s for 20 s (the chain keeps up), nothing changed
# between them. Usage: bench/committed.sh [runs]; KEEP=DIR keeps the
# database and reports there (to compare runs with `chainperf compare`).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-12}
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP"; work=$(cd "$KEEP" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
go build -o "$work/chainperf" ./cmd/chainperf
cat > "$work/s.toml" <<'TOML'
name = "committed-calibration"
[testnet]
validators = 4
full_nodes = 1
[load]
rate = 600
duration = "20s"
[experiment]
kind = "steady"
TOML
printf '%s, %s cores, %s; %s runs of 4+1 kvstore at 600 tx/s for 20 s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" "$(date -u +%F)" "$n"
for i in $(seq "$n"); do
  (cd "$work" && ./chainperf run s.toml --db runs.db --report-dir reports --label calib=committed | grep '^run ' || true)
done
go run ./bench/committed --db "$work/runs.db" --runs "label:calib=committed latest:$n"
