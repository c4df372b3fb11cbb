#!/usr/bin/env bash
# How many nodes fit on this machine on the netns provider with regional
# latency while the chain still makes blocks at a stable interval, and what
# each part of the scale profile (testnet.scale_profile) changes: for each
# N:PROFILE, N validators + 1 full node as emulated hosts, zones round-robin
# over 4 regions of the built-in table (nfqueue or tc backend), 20 tx/s for
# 60 s. Prints blocks, mean and spread of the block interval, max round,
# the share of heights committed in round 0, the committed share, the
# median inclusion latency, CPU and RSS per node (means over the nodes),
# and chainperf's own CPU (with the delay daemon).
#   bench/netns-scale.sh [N:PROFILE ...]   (needs root)
#   CONFIG='"consensus.timeout_commit" = "3s"' bench/netns-scale.sh 50:on
#   PROVIDER=process bench/netns-scale.sh 10:on   (the same on loopback, no
#   emulated WAN: what the netns provider and its delays cost a node)
# PROFILE is off, on, or parts such as peers,procs. Default: each of 10,
# 25 and 50 with the profile off and on, and 50 with the parts added one
# by one, and 100 with the profile on (the netns provider takes up to 200).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(10:off 10:on 25:off 25:on 50:off 50:peers 50:peers,procs 50:peers,procs,log 50:peers,procs,log,timeouts 50:on 100:on)
work=$(mktemp -d)
# KEEP=1 leaves the runs (logs, database, reports) in the work dir.
if [ -n "${KEEP:-}" ]; then echo "work dir $work"; else trap 'rm -rf "$work"' EXIT; fi
go build -o "$work/chainperf" ./cmd/chainperf
provider=${PROVIDER:-netns}
zones='zones = ["n-virginia", "frankfurt", "tokyo", "sydney"]'
[ "$provider" = netns ] || zones=""
# CONFIG='"consensus.timeout_commit" = "3s"' adds node config to every run
# (what a candidate part of the profile would set).
config=""
[ -z "${CONFIG:-}" ] || config=$'[testnet.config]\n'"$CONFIG"
echo "provider $provider"
i=0
for r in "${runs[@]}"; do
  n=${r%%:*} profile=${r#*:} i=$((i + 1))
  cat >"$work/s$i.toml" <<TOML
name = "netns-scale-$n-$profile"
[testnet]
provider = "$provider"
validators = $n
full_nodes = 1
$zones
scale_profile = "$profile"
$config
[load]
rate = 20
duration = "60s"
[experiment]
kind = "steady"
warmup = "5s"
drain_timeout = "60s"
TOML
  start=$(date +%s)
  "$work/chainperf" run "$work/s$i.toml" --db "$work/runs.db" --report-dir "$work/reports/$i" >"$work/run$i.log" 2>&1 || true
  echo "N=$n profile=$profile: run took $(( $(date +%s) - start )) s"
done
PYTHONPATH=bench python3 - "$work/reports" "$work/runs.db" "$work/chainperf" <<'PY'
import glob, json, statistics, sys
from datetime import datetime
import nodeseries
summaries = glob.glob(sys.argv[1] + "/*/*/record.json")
db = nodeseries.load(sys.argv[3], sys.argv[2], [json.load(open(f))["id"] for f in summaries])
print("| validators (+1 full) | scale profile | blocks in 60 s | interval mean | interval stdev | max round | round 0 | committed | latency p50 | CPU per node | RSS per node | chainperf CPU |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
def per_node(run, series, agg):
    return [v for (v,) in db.execute(f"SELECT {agg} FROM node_series WHERE run_id=? AND series=? AND node NOT IN ('chainperf','machine') GROUP BY node", (run, series))]
for f in sorted(summaries, key=lambda f: int(f.split("/")[-3])):
    r = json.load(open(f))
    n, profile = r["scenario"].split("-", 3)[2:]
    if not r.get("phases") or len(r["phases"][0].get("blocks") or []) < 2:
        why = r.get("error", "")[:70] or "fewer than 2 blocks in the measured window"
        print(f"| {n} | {profile} | none: {why} | | | | | | | | | |")
        continue
    p = r["phases"][0]
    t = [datetime.fromisoformat(b["time"][:26].rstrip("Z")) for b in p["blocks"]]
    iv = [(b - a).total_seconds() for a, b in zip(t, t[1:])]
    # A block's commit round is read from the next block: the last one's
    # is not known (-1) and is left out of the round-0 share.
    rounds = [b["round"] for b in p["blocks"] if b.get("round", -1) >= 0]
    rss = per_node(r["id"], "process_resident_memory_bytes", "MAX(value)")
    # CPU share of one core: the counter's rise over the sampled span.
    cpu = {node: (hi - lo) / ((datetime.fromisoformat(t1[:26]) - datetime.fromisoformat(t0[:26])).total_seconds() or 1)
           for node, hi, lo, t0, t1 in db.execute("SELECT node, MAX(value), MIN(value), MIN(at), MAX(at) FROM node_series WHERE run_id=? "
                                                  "AND series='process_cpu_seconds_total' AND node != 'machine' GROUP BY node", (r["id"],))}
    # chainperf's own process: the harness, the load, the scraper and,
    # on the netns provider, the delay daemon that holds every packet.
    self_cpu = cpu.pop("chainperf", 0)
    cpu = list(cpu.values())
    print(f"| {n} | {profile} | {len(p['blocks'])} | {statistics.mean(iv):.2f} s | {statistics.pstdev(iv):.2f} s | {p['figures']['max_round']} | "
          f"{100 * sum(1 for x in rounds if x == 0) / max(1, len(rounds)):.0f} % of {len(rounds)} | {100 * p['figures']['committed_share']:.1f} % | {p['figures'].get('latency_p50_ms', 0) / 1000:.1f} s | "
          f"{100 * statistics.mean(cpu) if cpu else 0:.1f} % | {statistics.mean(rss) / 2**20 if rss else 0:.0f} MiB | {100 * self_cpu:.0f} % |")
PY
