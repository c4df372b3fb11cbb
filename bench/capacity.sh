#!/usr/bin/env bash
# How much the chain's own capacity varies from run to run, without any
# controller: N runs of a constant rate well above what the find-max
# testnet (4 validators + 1 full node, kvstore) commits, each measured as
# find-max measures (90 s, the first 30 s left out), and the spread of
# the committed tx/s over the runs. find-max cannot repeat more closely
# than the chain it measures: compare this CV with bench/findmax.sh's.
#   bench/capacity.sh [runs] [rate]      (default: 5, 3000 tx/s)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
rate=${2:-3000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/chainperf" ./cmd/chainperf
cat >"$work/s.toml" <<TOML
name = "capacity-$rate"
[testnet]
validators = 4
full_nodes = 1
[load]
rate = $rate
duration = "90s"
[experiment]
kind = "steady"
warmup = "30s"
drain_timeout = "60s"
TOML
for i in $(seq 1 "$runs"); do
  # Above capacity the run FAILs its criteria (refused txs, the load not
  # delivered): its committed rate is what is measured.
  "$work/chainperf" run "$work/s.toml" --db "$work/runs.db" --report-dir "$work/reports/$i" >"$work/run$i.log" 2>&1 || true
  ls "$work/reports/$i"/*/record.json >/dev/null 2>&1 || { echo "run $i made no report:"; tail -20 "$work/run$i.log"; exit 1; }
done
python3 - "$work/reports" <<'PY'
import glob, json, statistics, sys
rows = []
for f in sorted(glob.glob(sys.argv[1] + "/*/*/record.json"), key=lambda f: int(f.split("/")[-3])):
    p = json.load(open(f))["phases"][0]["figures"]
    rows.append(p)
    print(f"offered {p['offered_tps']:.0f} tx/s: committed {p['committed_tps']:.0f} tx/s, refused {100 * p['rejected_share']:.0f} %, "
          f"{p['blocks']} blocks, {p['txs_per_block']:.0f} txs a block, interval {p['block_interval_s']:.2f} s")
xs = [p["committed_tps"] for p in rows]
m = statistics.mean(xs)
cv = statistics.stdev(xs) / m if len(xs) > 1 else 0
print(f"committed tx/s over {len(xs)} runs: " + ", ".join(f"{x:.0f}" for x in xs))
print(f"mean {m:.0f}, min {min(xs):.0f}, max {max(xs):.0f}, CV {100*cv:.1f} %")
PY
