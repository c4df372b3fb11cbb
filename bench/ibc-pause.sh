#!/usr/bin/env bash
# A relayer paused mid-run (issue 73): examples/ibc-transfer.toml with the
# relayer stopped (SIGSTOP) 40 s into the 2 minutes of transfers and let
# go (SIGCONT) 20 s later. Prints the verdict, the packets, the relay
# latencies and the faults table, whose "caught up" is how long after the
# relayer went on every packet sent before was on B.
# Usage: bench/ibc-pause.sh [runs, default 1] (KEEP=DIR keeps the database
# and reports).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1}
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP"; work=$(cd "$KEEP" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
go build -o "$work/chainperf" ./cmd/chainperf
cp examples/ibc-counterparty.toml "$work/"
python3 - examples/ibc-transfer.toml "$work/ibc-pause.toml" <<'PY'
import sys
text = open(sys.argv[1]).read().replace('name = "ibc-transfer"', 'name = "ibc-pause"')
pause = '[[perturbation]]\nkind = "pause"\nnodes = ["relayer"]\nat = "40s"\nduration = "20s"\n\n[ibc]\n'
assert "\n[ibc]\n" in text
open(sys.argv[2], "w").write(text.replace("\n[ibc]\n", "\n" + pause, 1))
PY
printf '%s, %s cores, %s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" "$(date -u '+%F %H:%M')"
for i in $(seq "$n"); do
  start=$(date +%s)
  "$work/chainperf" run "$work/ibc-pause.toml" --db "$work/runs.db" --report-dir "$work/reports" > "$work/run-$i.log" 2>&1 || true
  echo "run $i ($(( $(date +%s) - start )) s):"
  grep -E '^run |failed:|passed:|packets:|escrow:|relayer:|caught up|pause|continue' "$work/run-$i.log" || tail -5 "$work/run-$i.log"
  "$work/chainperf" runs show "$(grep -oE '^run [0-9]{8}-[0-9]{6}-[0-9a-f]{4}' "$work/run-$i.log" | cut -d' ' -f2)" --db "$work/runs.db" 2>/dev/null |
    grep -E 'relay (to B|and acknowledgement) p(50|99)|relayer backlog' || true
done
