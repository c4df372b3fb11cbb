#!/usr/bin/env bash
# Third-party Cosmos SDK chains from their Go module versions: builds wasmd
# v0.55.1 (SDK v0.50), v0.61.14 (SDK v0.53) and v0.70.3 (SDK v0.54,
# CometBFT v0.39), and two chains of other families, celestia-app v6.4.10
# (on forks of the SDK and CometBFT) and the Interchain Security provider
# v7.0.1, with `chainperf scenario build` (timed; COLD=1 builds into an empty
# cache, else the usual cache is used), runs each shipped example (wasmd: a
# message mix with staking, 3+1 nodes, 50 tx/s for 15 s; the others: bank
# sends on 2 validators) and prints the run summaries; then, with AB=1, the two parameter experiments
# (block max gas; the SDK replaced by a newer patch) with `chainperf ab`.
# Usage: bench/apps.sh; KEEP=DIR keeps the database and reports there;
# ONLY="celestia-send ..." runs those examples alone.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP"; work=$(cd "$KEEP" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
if [ -n "${COLD:-}" ]; then export CHAINPERF_BUILD_CACHE="$work/builds"; fi
go build -o "$work/chainperf" ./cmd/chainperf
chains=${ONLY:-wasmd-sdk050 wasmd-sdk053 wasmd-sdk054 celestia-send ics-provider-send}
for ex in $chains; do
  start=$(date +%s)
  "$work/chainperf" scenario build "examples/$ex.toml" | tail -1
  echo "$ex: build or cache lookup took $(( $(date +%s) - start )) s"
done
for ex in $chains; do
  (cd "$work" && ./chainperf run "$OLDPWD/examples/$ex.toml" --db runs.db --report-dir reports) | sed -n '/^run /,$p'
done
if [ -n "${AB:-}" ]; then
  for cand in wasmd-send-low-gas wasmd-send-sdk-v0.53.8; do
    (cd "$work" && ./chainperf ab "$OLDPWD/examples/wasmd-send.toml" "$OLDPWD/examples/$cand.toml" --db runs.db --report-dir reports) | tail -25 || true
  done
fi
