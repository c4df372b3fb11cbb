#!/usr/bin/env bash
# Two chains and a relayer (issue 73), on examples/ibc-transfer.toml's
# pair (two one-validator wasmd v0.61.14 testnets, Hermes between them):
#   transfer [N]  the example N times: 2 minutes of ICS-20 transfers at
#                 5 tx/s and 1 tx/s back; each run's verdict, packets,
#                 relay latencies, escrow and the relayer's line
#   pause [N]     the example with the relayer stopped (SIGSTOP) 40 s into
#                 the load and let go 20 s later: the faults table's
#                 "caught up" is how long after every packet sent before
#                 was on B
#   pace [N]      examples/ibc-pace.toml: transfers at 5, 20, 60 and 120
#                 tx/s, 30 s a cell; the heaviest rate the relayer kept
#                 pace with, cell by cell
#   ab [ROUNDS]   chainperf ab of two relayer settings, a known answer:
#                 45 s at 10 tx/s, the candidate with [ibc.hermes]
#                 max_msg_num = 2 and sequential_batch_tx = true (each
#                 relay tx of a block's batch waits for the block of the
#                 one before); expected: relay to B p50 regressed
# Usage: bench/ibc.sh MODE [N] (KEEP=DIR keeps the database and reports).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-transfer} n=${2:-1}
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP"; work=$(cd "$KEEP" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
go build -o "$work/chainperf" ./cmd/chainperf
cp examples/ibc-counterparty.toml "$work/"
# variant NAME EDIT...: examples/ibc-transfer.toml as $work/NAME.toml,
# each EDIT a python expression on its text t.
variant() {
  local name=$1; shift
  python3 - "$work/$name.toml" "$name" "$@" <<'PY'
import sys
t = open("examples/ibc-transfer.toml").read().replace('name = "ibc-transfer"', 'name = "%s"' % sys.argv[2])
for edit in sys.argv[3:]:
    u = eval(edit, {"t": t})
    assert u != t, edit
    t = u
open(sys.argv[1], "w").write(t)
PY
}
printf '%s, %s cores, %s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" "$(date -u '+%F %H:%M')"
runs() { # SCENARIO: n runs, each one's lines
  local i start id
  for i in $(seq "$n"); do
    start=$(date +%s)
    "$work/chainperf" run "$1" --db "$work/runs.db" --report-dir "$work/reports" > "$work/run-$i.log" 2>&1 || true
    echo "run $i ($(( $(date +%s) - start )) s):"
    grep -E '^run |failed:|passed:|balances:|packets:|escrow:|relayer:|load:|packet:|pace:|sweep c=|caught up|saturation' "$work/run-$i.log" || tail -5 "$work/run-$i.log"
    id=$(grep -oE '^run [0-9]{8}-[0-9]{6}-[0-9a-f]{4}' "$work/run-$i.log" | cut -d' ' -f2) || continue
    "$work/chainperf" runs show "$id" --db "$work/runs.db" 2>/dev/null |
      grep -E 'relay (to [AB]|and acknowledgement) p(50|99)|relayer backlog|kept pace|pause +relayer|caught-up' || true
  done
}
case $mode in
transfer) runs examples/ibc-transfer.toml ;;
pause)
  variant ibc-pause "t.replace('\n[ibc]\n', '\n[[perturbation]]\nkind = \"pause\"\nnodes = [\"relayer\"]\nat = \"40s\"\nduration = \"20s\"\n\n[ibc]\n', 1)"
  runs "$work/ibc-pause.toml" ;;
pace) runs examples/ibc-pace.toml ;;
ab)
  short="t.replace('duration = \"2m\"', 'duration = \"45s\"', 1).replace('rate = 5\n', 'rate = 10\n', 1)"
  variant ibc-base "$short"
  variant ibc-sequential "$short" "t.replace('\n[workload]\n', '\n[ibc.hermes]\nmax_msg_num = 2\nsequential_batch_tx = true\n\n[workload]\n', 1)"
  start=$(date +%s) code=0
  "$work/chainperf" ab "$work/ibc-base.toml" "$work/ibc-sequential.toml" --db "$work/runs.db" --report-dir "$work/reports" \
    --decide-on "relay to B p50" --min-rounds 2 --max-rounds "$n" --threshold 10 > "$work/ab.log" 2>&1 || code=$?
  echo "ab exit $code ($(( $(date +%s) - start )) s)"
  grep -E 'after round|relay to B|relay and ack|kept pace|decided|regressed|improved|unchanged|undecided|seed' "$work/ab.log" | head -40 ;;
*) echo "bench/ibc.sh: mode $mode: transfer, pause, pace or ab" >&2; exit 2 ;;
esac
