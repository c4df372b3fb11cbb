#!/usr/bin/env bash
# rmnode.sh N: removes node N that addnode.sh made: its kubelet, its pods'
# processes, its containerd (each by its recorded PID, only if still ours),
# mounts, bridge, cgroups, Node object and directory. Safe to run twice.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${CHAINPERF_KUBE_DIR:-/var/lib/chainperf-kube}
n=${1:?usage: rmnode.sh N}
[ "$(id -u)" = 0 ] || { echo "rmnode.sh: needs root" >&2; exit 2; }
[[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 2 ] || { echo "rmnode.sh: N is 2 or more, not $n" >&2; exit 2; }
node=chainperf-node-$n
nd=$dir/node$n
[ -d "$dir" ] || exit 0
cd "$dir"
. "$here/lib.sh" # ours, descendants, stop
stop "kubelet-$n"
sock="$nd/containerd/containerd.sock"
for s in $(pgrep -f -- "containerd-shim.*-address $sock" || true); do
  for p in $(descendants "$s"); do kill -KILL "$p" 2>/dev/null; done
  kill -KILL "$s" 2>/dev/null
done
stop "containerd-$n"
rm -f "run/kubelet-$n.pid" "run/containerd-$n.pid"
sleep 0.5
grep -F " $nd/" /proc/mounts | awk '{print $2}' | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
ip link del "cpkube$((n - 1))" 2>/dev/null
# The cgroups its kubelet made, deepest first.
for h in /sys/fs/cgroup/*/; do
  [ -d "$h$node" ] && find "$h$node" -depth -type d -exec rmdir {} \; 2>/dev/null
done
if [ -f kubeconfig ] && [ -f pki/admin.crt ]; then
  curl -sf --cacert pki/ca.crt --cert pki/admin.crt --key pki/admin.key -X DELETE "https://127.0.0.1:6443/api/v1/nodes/$node" >/dev/null 2>&1
fi
rm -rf "$nd"
echo "rmnode.sh: node $node removed" >&2
