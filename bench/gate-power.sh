#!/usr/bin/env bash
# The gate's power on real nodes (issue 74): how many rounds `chainperf ab`
# takes to call a planted 5 % and 3 % longer height time, and how often
# A/A sessions call a change, when the session is about the steady
# per-height figure ("height time", latency p50 judged beside it) at a 2 %
# threshold.
# Usage: bench/gate-power.sh [A/A sessions, default 5] [planted sessions
# of each size, default 5] (KEEP=DIR keeps the database, scenarios and
# verdicts there).
#   A/A:     4+1 kvstore nodes, steady 800 tx/s for 15 s (3 s warm-up);
#            3 to 6 rounds.
#   planted: the candidate's consensus.timeout_commit longer by 5 % (3 %)
#            of the A/A sessions' mean height time; 3 to 10 rounds.
#   knob:    a known answer from CometBFT's own documentation
#            (docs/core/running-in-production.md: on a private high-speed
#            network "it makes sense to lower flush throttle timeout"): the
#            candidate flushes its p2p connections after 10 ms instead of
#            v0.38's default 100 ms, so votes and block parts go sooner and
#            the height time and latency should read improved; 3 sessions,
#            3 to 10 rounds.
# Each session prints the calibration of the ones before it (ab does).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-5}
planted=${2:-5}
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP"; work=$(cd "$KEEP" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
go build -o "$work/chainperf" ./cmd/chainperf
steady() { # file timeout_commit [config line]
  cat > "$work/$1.toml" <<TOML
name = "gate-power"
[testnet]
validators = 4
full_nodes = 1
[testnet.config]
"consensus.timeout_commit" = "$2"
${3:-}
[load]
rate = 800
duration = "15s"
[experiment]
kind = "steady"
warmup = "3s"
cooldown = "1s"
TOML
}
steady aa 1s
printf '%s, %s cores, %s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" "$(date -u '+%F %H:%M')" | tee "$work/machine.txt"
about=(--decide-on "height time" --threshold 2) # latency p50 is judged too, informative
ab() { # out args...
  local out=$1; shift
  (cd "$work" && ./chainperf ab "$@" "${about[@]}" --db runs.db --report-dir reports --format json -o "$out.json" > "$out.log" 2>&1) || true
  grep -E '^[0-9]+ round' "$work/$out.log" || tail -3 "$work/$out.log"
}
start=$(date +%s)
for i in $(seq "$n"); do
  printf 'A/A %d: ' "$i"; ab "aa-$i" aa.toml --min-rounds 3 --max-rounds 6
done
aa_end=$(date +%s)
# The A/A sessions' mean height time, ms: what 5 % and 3 % are of.
h=$(python3 - "$work" "$n" <<'PY'
import json, sys
xs = []
for i in range(1, int(sys.argv[2]) + 1):
    try:
        res = json.load(open(f"{sys.argv[1]}/aa-{i}.json"))
    except OSError:
        continue
    xs += [r["baseline_mean"] for r in res["figures"] if r["figure"] == "height time"]
print(round(sum(xs) / len(xs)) if xs else 1000)
PY
)
echo "A/A mean height time ${h} ms" | tee "$work/height.txt"
for pct in 5 3; do
  steady "p$pct" "$((1000 + h * pct / 100))ms"
  for i in $(seq "$planted"); do
    printf '+%s %% planted %d: ' "$pct" "$i"; ab "p$pct-$i" aa.toml "p$pct.toml" --min-rounds 3 --max-rounds 10
  done
done
steady knob 1s '"p2p.flush_throttle_timeout" = "10ms"'
for i in $(seq 3); do
  printf 'knob %d: ' "$i"; ab "knob-$i" aa.toml knob.toml --min-rounds 3 --max-rounds 10
done
end=$(date +%s)
echo "A/A took $(( (aa_end - start) / 60 )) min, planted $(( (end - aa_end) / 60 )) min"
python3 bench/gate-power.py "$work" "$n" "$planted"
