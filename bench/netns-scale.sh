#!/usr/bin/env bash
# How many nodes fit on this machine on the netns provider with regional
# latency while the chain still makes blocks at a stable interval: for
# each N, N validators + 1 full node as emulated hosts, zones round-robin
# over 4 regions of the built-in table (nfqueue or tc backend), 20 tx/s for
# 60 s. Prints blocks, mean and spread of the block interval, max round,
# committed share, and RSS per node (mean of the nodes' peaks).
#   bench/netns-scale.sh [N ...]     (default: 10 25 50; needs root)
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10 25 50)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/chainperf" ./cmd/chainperf
for n in "${sizes[@]}"; do
  cat >"$work/s$n.toml" <<TOML
name = "netns-scale-$n"
[testnet]
provider = "netns"
validators = $n
full_nodes = 1
zones = ["n-virginia", "frankfurt", "tokyo", "sydney"]
[load]
rate = 20
duration = "60s"
[experiment]
kind = "steady"
warmup = "5s"
drain_timeout = "60s"
TOML
  start=$(date +%s)
  if ! "$work/chainperf" run "$work/s$n.toml" --db "$work/runs.db" --report-dir "$work/reports" >"$work/run$n.log" 2>&1; then
    echo "N=$n: run failed after $(( $(date +%s) - start )) s:"; tail -5 "$work/run$n.log"; continue
  fi
  echo "N=$n: run took $(( $(date +%s) - start )) s"
done
python3 - "$work/reports" "$work/runs.db" <<'PY'
import glob, json, sqlite3, statistics, sys
from datetime import datetime
db = sqlite3.connect(sys.argv[2])
print("| validators (+1 full) | blocks in 60 s | interval mean | interval stdev | max round | committed share | RSS per node |")
print("|---|---|---|---|---|---|---|")
for f in sorted(glob.glob(sys.argv[1] + "/*/summary.json"), key=lambda f: json.load(open(f))["scenario"]):
    r = json.load(open(f))
    n = r["scenario"].rsplit("-", 1)[1]
    if not r.get("phases") or len(r["phases"][0].get("blocks") or []) < 2:
        print(f"| {n} | no blocks ({r.get('error', '')[:80]}) | | | | | |")
        continue
    p = r["phases"][0]
    t = [datetime.fromisoformat(b["time"][:26].rstrip("Z")) for b in p["blocks"]]
    iv = [(b - a).total_seconds() for a, b in zip(t, t[1:])]
    rss = [v for (v,) in db.execute("SELECT MAX(value) FROM node_series WHERE run_id=? AND series='process_resident_memory_bytes' AND node NOT IN ('chainperf','machine') GROUP BY node", (r["id"],))]
    print(f"| {n} | {len(p['blocks'])} | {statistics.mean(iv):.2f} s | {statistics.pstdev(iv):.2f} s | {p['figures']['max_round']} | "
          f"{100*p['figures']['committed_share']:.1f} % | {statistics.mean(rss)/2**20:.0f} MiB |")
PY
