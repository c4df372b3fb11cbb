#!/usr/bin/env bash
# An ab of two relayer settings (issue 73), a known answer: the pair of
# examples/ibc-transfer.toml with 45 s of transfers at 10 tx/s, the
# baseline on chainperf's Hermes settings, the candidate with
# [ibc.hermes] max_msg_num = 2 and sequential_batch_tx = true (each relay
# tx of a block's batch waits for the block of the one before: the batch
# of ~10 packets takes ~5 blocks). Expected: relay to B p50 regressed.
# Prints the session's verdict.
# Usage: bench/ibc-ab.sh [max rounds, default 4] (KEEP=DIR keeps the
# database and reports).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-4}
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP"; work=$(cd "$KEEP" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
go build -o "$work/chainperf" ./cmd/chainperf
cp examples/ibc-counterparty.toml "$work/"
python3 - examples/ibc-transfer.toml "$work" <<'PY'
import sys
text = open(sys.argv[1]).read()
for a, b in [('duration = "2m"', 'duration = "45s"'), ("rate = 5\n", "rate = 10\n")]:
    assert a in text, a
    text = text.replace(a, b, 1)
open(sys.argv[2] + "/base.toml", "w").write(text.replace('name = "ibc-transfer"', 'name = "ibc-base"'))
cand = text.replace('name = "ibc-transfer"', 'name = "ibc-sequential"').replace(
    "\n[workload]\n", "\n[ibc.hermes]\nmax_msg_num = 2\nsequential_batch_tx = true\n\n[workload]\n", 1)
open(sys.argv[2] + "/cand.toml", "w").write(cand)
PY
printf '%s, %s cores, %s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" "$(date -u '+%F %H:%M')"
start=$(date +%s)
code=0
"$work/chainperf" ab "$work/base.toml" "$work/cand.toml" --db "$work/runs.db" --report-dir "$work/reports" \
  --decide-on "relay to B p50" --min-rounds 2 --max-rounds "$rounds" --threshold 10 > "$work/ab.log" 2>&1 || code=$?
echo "ab exit $code ($(( $(date +%s) - start )) s)"
grep -E 'after round|relay to B|relay and ack|transfers|decided|regressed|improved|unchanged|undecided|seed' "$work/ab.log" | head -40
