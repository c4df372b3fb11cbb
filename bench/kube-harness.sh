#!/usr/bin/env bash
# bench/kube-harness.sh: the same run with chainperf's harness here and as a
# pod of the local cluster (testnet.kubernetes.harness = "pod"), REPEATS
# rounds interleaved: each run's wall time (from `chainperf run` to its
# exit: image, pods, results brought back) and summary lines. Makes a
# namespace with kube/rbac/role.yaml's service account (with the harness
# pod's rights only) and deletes it. Uses the cluster $KUBECONFIG names if
# it answers, else brings one up and takes it down. Needs root.
#
#   sudo bench/kube-harness.sh [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "bench/kube-harness.sh: needs root (the cluster)" >&2; exit 2; }
repeats=${1:-2}
work=$(mktemp -d /tmp/chainperf-bench-harness.XXXXXX)
own=0
if [ -z "${KUBECONFIG:-}" ] || [ -z "${CHAINPERF_KUBE_CTR:-}" ] || [ ! -S "$CHAINPERF_KUBE_CTR" ]; then
  own=1
  bash kube/localcluster/up.sh > "$work/env" 2>/dev/null
  eval "$(cat "$work/env")"; export KUBECONFIG CHAINPERF_KUBE_CTR CHAINPERF_KUBE_POD_API
fi
ns=chainperf-bench-harness
dir=$(dirname "$KUBECONFIG")
kc() { curl -sf --cacert "$dir/pki/ca.crt" --cert "$dir/pki/admin.crt" --key "$dir/pki/admin.key" "$@"; }
api=$(awk '/server:/ {print $2; exit}' "$KUBECONFIG")
cleanup() {
  kc -X DELETE "$api/api/v1/namespaces/$ns" >/dev/null 2>&1 || true
  [ $own = 1 ] && bash kube/localcluster/down.sh >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/chainperf" ./cmd/chainperf
kc -X POST -H 'Content-Type: application/json' "$api/api/v1/namespaces" \
  -d "{\"metadata\":{\"name\":\"$ns\",\"labels\":{\"pod-security.kubernetes.io/enforce\":\"privileged\"}}}" >/dev/null
kc -X POST -H 'Content-Type: application/json' "$api/api/v1/namespaces/$ns/serviceaccounts" -d '{"metadata":{"name":"chainperf"}}' >/dev/null
rules=$(python3 -c '
import re, json
text = open("kube/rbac/role.yaml").read().split("\n---\n")[1]
rules = []
for block in text.split("\n- ")[1:]:
    r = {}
    for key in ("apiGroups", "resources", "verbs"):
        m = re.search(key + r": \[(.*?)\]", block)
        r[key] = [x.strip().strip("\"") for x in m.group(1).split(",")]
    rules.append(r)
print(json.dumps(rules))')
kc -X POST -H 'Content-Type: application/json' "$api/apis/rbac.authorization.k8s.io/v1/namespaces/$ns/roles" -d "{\"metadata\":{\"name\":\"chainperf\"},\"rules\":$rules}" >/dev/null
kc -X POST -H 'Content-Type: application/json' "$api/apis/rbac.authorization.k8s.io/v1/namespaces/$ns/rolebindings" \
  -d "{\"metadata\":{\"name\":\"chainperf\"},\"subjects\":[{\"kind\":\"ServiceAccount\",\"name\":\"chainperf\",\"namespace\":\"$ns\"}],\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"Role\",\"name\":\"chainperf\"}}" >/dev/null
for h in here pod; do
  cat > "$work/$h.toml" <<TOML
name = "harness-$h"
[testnet]
provider = "kubernetes"
validators = 4
full_nodes = 1
[testnet.kubernetes]
namespace = "$ns"
harness = "$h"
[load]
rate = 300
duration = "20s"
[experiment]
kind = "steady"
warmup = "2s"
TOML
done
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(date -u '+%Y-%m-%d %H:%M UTC')"
for r in $(seq 1 "$repeats"); do
  for h in here pod; do
    echo "== round $r: harness $h, 4 validators + 1 full node as pods, 300 tx/s for 20 s"
    s=$(date +%s.%N)
    (cd "$work" && ./chainperf run "$h.toml" --db runs.db --report-dir reports 2>&1 |
      grep -E '^(run |  (throughput|latency|load|fates|harness):)') || true
    awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN {printf "  wall %.1f s\n", e - s}'
  done
done
echo "== the caller's database"
(cd "$work" && ./chainperf runs list --db runs.db)
