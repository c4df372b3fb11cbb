#!/usr/bin/env bash
# addnode.sh N: node N (2, 3, ...) of the cluster up.sh made, on this same
# machine: a bridge of its own (10.244.(76+N).0/24, its gateway the node's
# IP), a containerd and a kubelet of its own (pods' cgroups under
# /chainperf-node-N), the pause image imported. Pods of every node reach
# each other through this machine (up.sh gives them a route to
# 10.244.0.0/16). rmnode.sh N removes it; down.sh removes every node.
#
#   sudo kube/localcluster/addnode.sh 2   # prints: export CHAINPERF_KUBE_CTR=<every node's socket, comma-separated>
#   sudo kube/localcluster/rmnode.sh 2
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
K8S=v1.33.13
dir=${CHAINPERF_KUBE_DIR:-/var/lib/chainperf-kube}
cache=/var/cache/chainperf-kube/$K8S
n=${1:?usage: addnode.sh N (2 or more)}
die() { echo "addnode.sh: $*" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "needs root"
[[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 2 ] && [ "$n" -le 9 ] || die "N is 2 to 9, not $n"
[ -e "$dir/up" ] || die "no cluster in $dir: run up.sh first"
node=chainperf-node-$n
bridge=cpkube$((n - 1))
subnet=10.244.$((76 + n))
node_ip=$subnet.1
nd=$dir/node$n
[ ! -e "$nd" ] || die "node $n is there already ($nd): rmnode.sh $n first"
bin=$cache/bin
mkdir -p "$nd"/{kubelet,containerd/root,containerd/state,cni/net.d,cni/ipam,pod-logs}
trap 'echo "addnode.sh: failed; removing node $n" >&2; "$here/rmnode.sh" "$n" >&2 || true' ERR
cd "$dir"
. "$here/lib.sh" # start, wait_for

ip link add "$bridge" type bridge
ip addr add "$node_ip/24" dev "$bridge"
ip link set "$bridge" up
cat > "$nd/cni/net.d/10-chainperf.conflist" <<JSON
{"cniVersion": "0.4.0", "name": "chainperf-$n", "plugins": [
  {"type": "bridge", "bridge": "$bridge", "isGateway": true, "ipMasq": false,
   "ipam": {"type": "host-local", "dataDir": "$nd/cni/ipam",
            "ranges": [[{"subnet": "$subnet.0/24", "gateway": "$node_ip"}]],
            "routes": [{"dst": "10.244.0.0/16"}]}},
  {"type": "loopback"}]}
JSON
sed -e "s|$dir/containerd/|$nd/containerd/|g" -e "s|$dir/cni/net.d|$nd/cni/net.d|" containerd/config.toml > "$nd/containerd/config.toml"
start "containerd-$n" containerd --config "$nd/containerd/config.toml"
wait_for "containerd-$n" 30 ctr --address "$nd/containerd/containerd.sock" version
ctr --address "$nd/containerd/containerd.sock" -n k8s.io images import --no-unpack=false "$cache/pause.tar" >/dev/null

# Its pods' cgroups apart from node 1's (kubelet makes kubepods below).
for h in /sys/fs/cgroup/*/; do
  [ -d "$h" ] && [ "$(basename "$h")" != unified ] && mkdir -p "$h/$node" 2>/dev/null || true
done
sed -e "s|$dir/containerd/containerd.sock|$nd/containerd/containerd.sock|" \
    -e "s|^address: .*|address: $node_ip|" -e "s|^healthzBindAddress: .*|healthzBindAddress: $node_ip|" \
    kubelet/config.yaml > "$nd/kubelet/config.yaml"
cat >> "$nd/kubelet/config.yaml" <<YAML
cgroupRoot: /$node
podLogsDir: $nd/pod-logs
YAML
start "kubelet-$n" "$bin/kubelet" --config="$nd/kubelet/config.yaml" --kubeconfig=kubeconfig \
  --root-dir="$nd/kubelet" --node-ip="$node_ip" --hostname-override="$node"
kc() { curl -sf --cacert pki/ca.crt --cert pki/admin.crt --key pki/admin.key "https://127.0.0.1:6443$1"; }
node_ready() { kc "/api/v1/nodes/$node" | tr -d ' \n' | grep -q '"type":"Ready","status":"True"'; }
wait_for "kubelet-$n" 90 node_ready
echo "addnode.sh: node $node up (pods on $subnet.0/24)" >&2
socks=$dir/containerd/containerd.sock
for d in "$dir"/node*/; do socks="$socks,${d}containerd/containerd.sock"; done
echo "export CHAINPERF_KUBE_CTR=$socks"
