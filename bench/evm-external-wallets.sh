#!/usr/bin/env bash
# Many wallets on an existing EVM network: a detached chainperf-evmd
# testnet (1 validator) stands in for the team's network, its genesis
# wallet 0 for their funder (`chainperf testnet funder-key`). Two runs of
# the external scenario with WALLETS wallets, one after the other, the
# wallets kept funded (sweep_back = false): the first tops every wallet up,
# the second only those the first run left below wallet_balance. For
# each: the set-up's time (reading every wallet, funding, reading the
# start), the funding's txs and wallets, the whole run's wall time, the
# check and the verdict.
#   bench/evm-external-wallets.sh [WALLETS=100000] [RATE=50] [DURATION=10s]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100000}
rate=${2:-50}
duration=${3:-10s}
work=$(mktemp -d)
bin=$work/chainperf
net=$work/net
trap '"$bin" testnet down --dir "$net" >/dev/null 2>&1 || true; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; $(date -u '+%Y-%m-%d %H:%M UTC'); $n wallets, $rate tx/s for $duration"
go build -o "$bin" ./cmd/chainperf
cat >"$work/local.toml" <<EOF
[testnet]
validators = 1
full_nodes = 0
chain = "evm"
[testnet.evm]
wallets = 2
wallet_balance = 100000000
[workload]
kind = "evm-transfer"
EOF
"$bin" testnet up -f "$work/local.toml" --detach --dir "$net" >/dev/null
"$bin" testnet funder-key -f "$work/local.toml" --out "$work/funder.key"
nodes=$(python3 - "$net/testnet.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
for n in s["nodes"]:
    print(f'[[testnet.node]]\nname = "{n["name"]}"\nrole = "{n["role"]}"\nrpc = "http://{n["host"]}:{n["ports"]["rpc"]}"\njson_rpc = "http://{n["host"]}:{n["ports"]["json_rpc"]}"')
EOF
)
cat >"$work/ext.toml" <<EOF
name = "external-wallets"
[testnet]
provider = "external"
chain = "evm"
[testnet.evm]
funder_key_file = "$work/funder.key"
wallets = $n
wallet_balance = 1
sweep_back = false
[workload]
kind = "evm-transfer"
[load]
rate = $rate
duration = "$duration"
[experiment]
kind = "steady"
warmup = "1s"
cooldown = "1s"
drain_timeout = "30s"
$nodes
EOF
printf '%-4s %9s %7s %7s %10s %5s %8s %10s %s\n' run "set-up s" "read s" "txs s" "topped up" txs "run s" committed verdict
for round in 1 2; do
  start=$(date +%s.%N)
  "$bin" run "$work/ext.toml" --db "$work/runs.db" --report-dir "$work/reports" >"$work/run$round.log" 2>&1 || true
  end=$(date +%s.%N)
  sum=$(ls -td "$work"/reports/*/ | head -1)record.json
  python3 - "$sum" "$round" "$start" "$end" "$work/run$round.log" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
evm = next((f["detail"] for f in s.get("findings", []) if f.get("source") == "chain/evm"), {})
evm = json.loads(evm) if isinstance(evm, str) else evm
f = evm.get("funding") or {}
p = s["phases"][-1]
b = evm.get("balances") or {}
print(f'{sys.argv[2]:<4} {f.get("s", 0):>9.1f} {f.get("read_s", 0):>7.1f} {f.get("tx_s", 0):>7.1f} {f.get("topped_up", 0):>10} {f.get("txs", 0):>5} {float(sys.argv[4]) - float(sys.argv[3]):>8.1f} '
      f'{p["ledger"]["fates"].get("committed", 0):>10} {"PASS" if s.get("passed") else "FAIL"} {"conserved" if b.get("conserved") else "not conserved"}', flush=True)
EOF
done
