#!/usr/bin/env bash
# Calibrates compare's gate on real nodes, as issue 41 asks: how often
# interleaved A/A runs (the same scenario on both sides) end with a false
# verdict (regressed or improved), and whether planted changes are
# called. Usage: bench/calibrate.sh [A/A sessions, default 20] [planted
# sessions of each change, default 3] (KEEP=DIR keeps the database,
# scenarios and verdicts there).
#   A/A:      4+1 kvstore nodes, steady 600 tx/s for 10 s; `chainperf ab`
#             with 3 to 4 rounds (6-8 runs) a session.
#   blocks:   the same runs as a CI user would compare them without
#             interleaving: all runs of session 2k-1 against all of 2k.
#   p99:      the candidate's blocks are 0.3 s later (consensus.timeout_commit
#             1.3 s instead of 1 s): latency p99 about +20 %.
#   capacity: offered 1,200 tx/s, above what a block takes when the
#             mempool holds 700 txs; the candidate's holds 595 (-15 %):
#             committed tx/s at saturation about -15 %.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-20}
planted=${2:-3}
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP"; work=$(cd "$KEEP" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
go build -o "$work/chainperf" ./cmd/chainperf
steady() { # name rate extra-config
  cat > "$work/$1.toml" <<TOML
name = "calibrate-$1"
[testnet]
validators = 4
full_nodes = 1
[testnet.config]
$3
[load]
rate = $2
duration = "10s"
[experiment]
kind = "steady"
TOML
}
steady aa 600 ''
steady p99 600 '"consensus.timeout_commit" = "1.3s"'
steady full 1200 '"mempool.size" = 700'
steady smaller 1200 '"mempool.size" = 595'
printf '%s, %s cores, %s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" "$(date -u '+%F %H:%M')" | tee "$work/machine.txt"
ab() { # out args...
  local out=$1; shift
  (cd "$work" && ./chainperf ab "$@" --db runs.db --report-dir reports --format json -o "$out.json" > "$out.log" 2>&1) || true
  grep -E '^[0-9]+ round' "$work/$out.log" || tail -3 "$work/$out.log"
}
start=$(date +%s)
for i in $(seq "$n"); do
  printf 'A/A %d: ' "$i"; ab "aa-$i" aa.toml --min-rounds 3 --max-rounds 4 --label calib=aa
done
aa_end=$(date +%s)
for i in $(seq "$planted"); do
  printf 'p99 planted %d: ' "$i"; ab "p99-$i" aa.toml p99.toml --min-rounds 3 --max-rounds 10
  printf 'capacity planted %d: ' "$i"; ab "capacity-$i" full.toml smaller.toml --min-rounds 3 --max-rounds 10
done
end=$(date +%s)
echo "A/A took $(( (aa_end - start) / 60 )) min, planted $(( (end - aa_end) / 60 )) min"
python3 bench/calibrate.py "$work" "$n" "$planted"
