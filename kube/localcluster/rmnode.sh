#!/usr/bin/env bash
# rmnode.sh N: removes node N that addnode.sh made: its kubelet, its pods'
# processes, its containerd (each by its recorded PID, only if still ours),
# mounts, bridge, cgroups, Node object and directory. Safe to run twice.
set -uo pipefail
dir=${CHAINPERF_KUBE_DIR:-/var/lib/chainperf-kube}
n=${1:?usage: rmnode.sh N}
[ "$(id -u)" = 0 ] || { echo "rmnode.sh: needs root" >&2; exit 2; }
[[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 2 ] || { echo "rmnode.sh: N is 2 or more, not $n" >&2; exit 2; }
node=chainperf-node-$n
nd=$dir/node$n
[ -d "$dir" ] || exit 0
cd "$dir"
ours() {
  local pid start
  read -r pid start 2>/dev/null < "$1" || return 1
  [ -r "/proc/$pid/stat" ] && [ "$(awk '{print $22}' "/proc/$pid/stat" 2>/dev/null)" = "$start" ] && echo "$pid"
}
descendants() {
  local kids
  kids=$(ps -o pid= --ppid "$1" 2>/dev/null)
  for k in $kids; do echo "$k"; descendants "$k"; done
}
stop() {
  local pid
  pid=$(ours "run/$1.pid") || return 0
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.25; done
  kill -KILL "$pid" 2>/dev/null
}
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
