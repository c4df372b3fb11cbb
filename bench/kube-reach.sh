#!/usr/bin/env bash
# bench/kube-reach.sh: what reaching the pods through the API server
# (testnet.kubernetes.reach = "api", port-forwards) costs against reaching
# them at their pod IPs ("pods"), on the local cluster: the same run
# (4 validators + 1 full node as pods, RATE tx/s for 20 s) under each
# reach, with the load from 2 generator pods and from chainperf itself
# (with reach = "api", every tx through a port-forward). REPEATS rounds,
# the four interleaved. Prints each run's summary lines. Uses the
# cluster $KUBECONFIG names if it answers, else brings one up and takes it
# down. Needs root; about 1 minute a run.
#
#   sudo bench/kube-reach.sh [REPEATS] [RATE]
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "bench/kube-reach.sh: needs root (the cluster)" >&2; exit 2; }
repeats=${1:-2} rate=${2:-300}
work=$(mktemp -d /tmp/chainperf-bench-reach.XXXXXX)
own=0
if [ -z "${KUBECONFIG:-}" ] || [ -z "${CHAINPERF_KUBE_CTR:-}" ] || [ ! -S "$CHAINPERF_KUBE_CTR" ]; then
  own=1
  bash kube/localcluster/up.sh > "$work/env" 2>/dev/null
  eval "$(cat "$work/env")"; export KUBECONFIG CHAINPERF_KUBE_CTR
fi
trap '[ $own = 1 ] && bash kube/localcluster/down.sh >/dev/null 2>&1; rm -rf "$work"' EXIT
go build -o "$work/chainperf" ./cmd/chainperf
scenario() { # NAME REACH GENERATORS
  cat <<TOML
name = "$1"
[testnet]
provider = "kubernetes"
validators = 4
full_nodes = 1
[testnet.kubernetes]
reach = "$2"
[load]
rate = $rate
duration = "20s"
generators = $3
[experiment]
kind = "steady"
warmup = "2s"
TOML
}
scenario pods-generators pods 2 > "$work/pods-generators.toml"
scenario api-generators api 2 > "$work/api-generators.toml"
scenario pods-local pods 1 > "$work/pods-local.toml"
scenario api-local api 1 > "$work/api-local.toml"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(date -u '+%Y-%m-%d %H:%M UTC')"
for r in $(seq 1 "$repeats"); do
  for s in pods-generators api-generators pods-local api-local; do
    echo "== round $r: $s, $rate tx/s for 20 s"
    (cd "$work" && ./chainperf run "$s.toml" --db runs.db --report-dir reports 2>&1 |
      grep -E '^(run |  (throughput|latency|load|fates|chain|harness):)') || true
  done
done
