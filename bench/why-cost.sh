#!/usr/bin/env bash
# What the "why" observation costs the harness: chainperf's own CPU (cores)
# and peak RSS over a steady run, with the default observation (node
# internals' metric families, every node's consensus events, cpu and allocs
# profiles from every node over the window) and without it (the 11 families
# kept before, no events, no window profiles), the two alternating so that
# the machine's drift falls on both. The generator's work is the same on
# both sides: the difference is the observer's.
# Usage: bench/why-cost.sh [repeats] [sizes...]   (default: 2; 4 25)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-2}; shift || true
sizes=("$@"); [ ${#sizes[@]} -eq 0 ] && sizes=(4 25)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$work/chainperf
go build -o "$bin" ./cmd/chainperf
printf '%s, %s cores, %s GiB, %s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" \
  "$(awk '/MemTotal/ {printf "%.0f", $2/1048576}' /proc/meminfo)" "$(date -u +%F)"
old='metrics = ["cometbft_mempool_size", "cometbft_mempool_size_bytes", "cometbft_consensus_height", "cometbft_consensus_rounds", "cometbft_consensus_block_size_bytes", "cometbft_consensus_num_txs", "cometbft_consensus_total_txs", "cometbft_consensus_block_interval_seconds", "cometbft_p2p_peers", "process_cpu_seconds_total", "process_resident_memory_bytes"]'
for v in "${sizes[@]}"; do
  rate=500; [ "$v" -gt 4 ] && rate=100
  for side in with without; do
    {
      printf 'name = "why-cost-%s"\n[testnet]\nvalidators = %d\nfull_nodes = 1\n' "$side" "$v"
      [ "$v" -gt 4 ] && printf 'scale_profile = "auto"\n'
      printf '[load]\nrate = %d\nduration = "40s"\n[experiment]\nkind = "steady"\nwarmup = "5s"\n' "$rate"
      if [ $side = without ]; then printf '[observe]\ntimeline = false\nwindow_profiles = []\n%s\n' "$old"; fi
    } > "$work/$side-$v.toml"
  done
  for i in $(seq 1 "$reps"); do
    for side in with without; do
      # Exit 1 is a run that FAILed its criteria (at 25 validators on 2 cores
      # the generator is late among the nodes): its harness figures stand.
      code=0; (cd "$work" && "$bin" run "$side-$v.toml" --db "$work/cost.db" > "$work/out.txt" 2>&1) || code=$?
      if [ $code -gt 1 ]; then tail -20 "$work/out.txt"; exit 1; fi
      id=$(grep -o 'run [0-9a-f-]*:' "$work/out.txt" | head -1 | cut -d' ' -f2 | tr -d :)
      PYTHONPATH=bench python3 - "$work/cost.db" "$id" "$v" "$side" "$bin" <<'PY'
import sys
from datetime import datetime
import nodeseries
db, run, v, side, bin_ = sys.argv[1:]
c = nodeseries.load(bin_, db, [run])
rows = c.execute("select at, series, value from node_series where run_id=? and node='chainperf' order by at", (run,)).fetchall()
cpu = [(r[0], r[2]) for r in rows if r[1] == 'process_cpu_seconds_total']
rss = [r[2] for r in rows if r[1] == 'process_resident_memory_bytes']
def ts(s):
    s = s.replace('Z', '+00:00')
    head, _, tz = s.rpartition('+')
    if '.' in head:
        a, b = head.split('.')
        head = a + '.' + b[:6]
    return datetime.fromisoformat(head + '+' + tz)
secs = (ts(cpu[-1][0]) - ts(cpu[0][0])).total_seconds()
cores = (cpu[-1][1] - cpu[0][1]) / secs
# The nodes' CPU over the same seconds (the profiles they serve cost them too).
nodes = 0.0
for (node,) in c.execute("select distinct node from node_series where run_id=? and node not in ('chainperf', 'machine')", (run,)):
    pts = c.execute("select at, value from node_series where run_id=? and node=? and series='process_cpu_seconds_total' order by at", (run, node)).fetchall()
    if len(pts) > 1:
        nodes += pts[-1][1] - pts[0][1]
print(f"{v:>3} validators + 1 full, {side:7}: harness {cores:.3f} cores, peak RSS {max(rss)/2**20:.0f} MiB; nodes {nodes/secs:.2f} cores; over {secs:.0f} s ({run})", flush=True)
PY
    done
  done
done
