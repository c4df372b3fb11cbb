#!/usr/bin/env bash
# Repeats find-max on the default 4-validator kvstore testnet and prints
# each run's max sustainable tx/s with its 95 % CI, then the spread over
# the runs (coefficient of variation; the target is under 2 %).
#   bench/findmax.sh [runs] [scenario]      (default: 5, examples/find-max.toml)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
scenario=${2:-examples/find-max.toml}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/chainperf" ./cmd/chainperf
for i in $(seq 1 "$runs"); do
  # A run that FAILs its criteria (the load not delivered as asked: at the
  # chain's limit the node's backpressure can do that) still has its
  # find-max result; a run without one stops the script.
  verdict=PASS
  "$work/chainperf" run "$scenario" --db "$work/runs.db" --report-dir "$work/reports" >"$work/run$i.log" 2>&1 || verdict=FAIL
  grep -qE '^  find-max:' "$work/run$i.log" || { echo "run $i failed:"; tail -20 "$work/run$i.log"; exit 1; }
  grep -E '^  find-max:' "$work/run$i.log" | sed "s/^/run $i $verdict /"
done
python3 - "$work/reports" <<'PY'
import glob, json, statistics, sys
xs = [json.load(open(f))["find_max"]["max_tps"] for f in sorted(glob.glob(sys.argv[1] + "/*/record.json"))]
m = statistics.mean(xs)
cv = statistics.stdev(xs) / m if len(xs) > 1 else 0
print(f"max sustainable tx/s over {len(xs)} runs: " + ", ".join(f"{x:.0f}" for x in xs))
print(f"mean {m:.0f}, median {statistics.median(xs):.0f}, min {min(xs):.0f}, max {max(xs):.0f}, CV {100*cv:.1f} %")
PY
