#!/usr/bin/env bash
# A live chain's state size: chainperf's SDK test chain (1 validator)
# started with 10,000, 100,000 and 1,000,000 funded accounts. Each state is
# built once and kept (testnet.cosmos.state_cache): the first run loads the
# genesis and saves the store, the second starts from it. Both send
# cosmos-send at 100 tx/s (live signing, senders uniform over every
# wallet) for 30 s; the table gives the state (accounts, application
# store, disk), how long building and restoring took, block execution
# (FinalizeBlock) and the app's Commit from CometBFT's own metrics, the
# node's peak RSS while loading, and chainperf's RSS. The largest size runs a
# third time at 1,000 tx/s offered (above what one validator commits) for
# chainperf's RSS at that rate.
# Usage: bench/state-size.sh [N ...]   (default: 10000 100000 1000000)
#   CHAINPERF_STATE_CACHE=DIR keeps the states across invocations (default: a
#   temp dir, removed at the end); CHAINPERF_SDKD=PATH skips building the chain.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@"); [ ${#sizes[@]} -eq 0 ] && sizes=(10000 100000 1000000)
work=$(mktemp -d)
sampler=
trap '[ -n "$sampler" ] && kill "$sampler" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
export CHAINPERF_STATE_CACHE=${CHAINPERF_STATE_CACHE:-$work/states}
bin=$work/chainperf
go build -o "$bin" ./cmd/chainperf
if [ -z "${CHAINPERF_SDKD:-}" ]; then
  (cd chains/cosmos && go build -o "$work/chainperf-sdkd" ./cmd/chainperf-sdkd)
  export CHAINPERF_SDKD=$work/chainperf-sdkd
fi
printf '%s, %s cores, %s GiB, %s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" \
  "$(awk '/MemTotal/ {printf "%.0f", $2/1048576}' /proc/meminfo)" "$(date -u '+%F %H:%M UTC')"

# run N PASS RATE: one run; prints a row of the table.
run() {
  local n=$1 pass=$2 rate=$3 scn=$work/s$1.toml
  cat >"$scn" <<TOML
name = "state-$n"
[testnet]
validators = 1
full_nodes = 0
chain = "cosmos"
[testnet.cosmos]
wallets = $n
gas_price = 0.001
state_cache = true
[workload]
kind = "cosmos-send"
mode = "live"
gas_limit = 100000
[load]
rate = $rate
max_in_flight = 2000
duration = "30s"
[experiment]
kind = "steady"
drain_timeout = "60s"
[criteria]
# Above what one validator commits the rejections are expected.
max_rejected_share = 1
max_unresolved_share = 1
load_delivered = false
TOML
  # The node's and chainperf's own RSS, sampled each second (time's
  # maximum would be the largest of chainperf and the nodes it waited for).
  (set +e; while :; do
    node=$(ps -C chainperf-sdkd -o rss= | sort -n | tail -1) harness=$(ps -C chainperf -o rss= | sort -n | tail -1)
    echo "${node:-0} ${harness:-0}"
    sleep 1
  done >"$work/rss" 2>/dev/null) &
  sampler=$!
  local t0=$SECONDS
  "$bin" run "$scn" --db "$work/runs.db" --report-dir "$work/reports" >"$work/out" 2>&1 || true
  local took=$((SECONDS - t0))
  kill "$sampler" 2>/dev/null || true; wait "$sampler" 2>/dev/null || true; sampler=
  local rec
  rec=$(ls -d "$work"/reports/*/ | tail -1)record.json
  python3 - "$rec" "$n" "$pass" "$rate" "$took" "$work/rss" <<'PY'
import json, sys
rec, n, pas, rate, took, rss = sys.argv[1:]
node_kb = cp_kb = 0
for line in open(rss):
    a, b = line.split()
    node_kb, cp_kb = max(node_kb, int(a)), max(cp_kb, int(b))
r = json.load(open(rec))
figs = {}
for f in r.get("findings", []):
    for x in f.get("figures") or []:
        figs[x["name"]] = x["value"]
c = r.get("cosmos") or {}
st = (c.get("state") or {})
saved = st.get("saved") or {}
b = c.get("balances") or {}
def g(k, fmt="%.1f"):
    return fmt % figs[k] if k in figs else "-"
print("| %s | %s | %s | %d | %.0f | %.0f | %s | %s | %s | %s | %s | %s | %s | %d | %d | %s |" % (
    f"{int(n):,}", pas, rate, st.get("accounts", 0), st.get("store_bytes", 0) / 1e6, saved.get("bytes", 0) / 1e6,
    "%.0f" % saved.get("build_s", 0) if not saved.get("restored") else "-",
    "%.1f" % saved.get("s", 0), took,
    g("block execution"), g("app commit", "%.2f"), g("height time: execution"),
    "%s of %s" % (b.get("committed", "-"), r["phases"][0]["ledger"]["sent"] if r.get("phases") else "-"),
    node_kb // 1024, cp_kb // 1024,
    ("PASS" if r.get("passed") else "FAIL") + (", conserved" if b.get("conserved") else "")))
PY
}

echo
echo "| accounts funded | run | offered tx/s | accounts in genesis | app store MB | state on disk MB | build s | restore/save s | run s | block execution ms | app commit ms | height time: execution ms | committed | node peak RSS MiB | chainperf RSS MiB | verdict |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
  run "$n" build 100
  run "$n" reuse 100
done
last=${sizes[${#sizes[@]}-1]}
run "$last" reuse 1000
