#!/usr/bin/env bash
# bench/kube.sh: the kubernetes provider on the local cluster, timed:
# cluster up (warm: binaries cached), the default job on Kubernetes
# (examples/kubernetes.toml: 4 validators + 1 full node as pods) and the
# same load from 2 generator pods, the 200-validator dry run, cluster down.
# Prints each step's wall time and the runs' summaries. Needs root; takes
# about 5 minutes; leaves nothing (down.sh, and the runs' own teardown).
#
#   sudo bench/kube.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "bench/kube.sh: needs root (the cluster)" >&2; exit 2; }
work=$(mktemp -d /tmp/chainperf-bench-kube.XXXXXX)
trap 'bash kube/localcluster/down.sh >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
go build -o "$work/chainperf" ./cmd/chainperf
t() { local s=$(date +%s.%N); "$@"; awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN {printf "  took %.1f s\n", e - s}'; }
echo "== cluster up"
t bash -c "bash kube/localcluster/up.sh > $work/env 2>/dev/null"
eval "$(cat "$work/env")"; export KUBECONFIG CHAINPERF_KUBE_CTR
cat > "$work/spread.toml" <<'TOML'
name = "spread"
[testnet]
provider = "kubernetes"
validators = 4
full_nodes = 1
[load]
rate = 500
duration = "30s"
generators = 2
[experiment]
kind = "steady"
TOML
grep -v '^generators' "$work/spread.toml" | sed 's/^name = "spread"/name = "steady"/' > "$work/steady.toml"
for s in steady spread; do
  echo "== $s: 4 validators + 1 full node as pods, 500 tx/s for 30 s$([ $s = spread ] && echo ', from 2 generator pods')"
  t bash -c "cd $work && ./chainperf run $s.toml --db runs.db --report-dir reports 2>&1 | grep -E '^(run |  (throughput|latency|load|fates|chain):)'"
done
echo "== dry run of examples/kubernetes-200.toml (200 validators, 8 full nodes, 8 generator pods)"
t bash -c "cd $work && ./chainperf testnet up -f $PWD/examples/kubernetes-200.toml --dry-run | tail -1"
echo "== cluster down"
t bash kube/localcluster/down.sh
