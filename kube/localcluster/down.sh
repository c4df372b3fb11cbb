#!/usr/bin/env bash
# down.sh: removes the cluster up.sh made, and what it did to the host:
# every pod's processes, the components (each by its recorded PID, only if
# that PID is still the process up.sh started), mounts, network namespaces,
# the bridge, iptables chains, sysctls and directories that were not there
# before. Safe to run twice, and after a failed up.sh.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${CHAINPERF_KUBE_DIR:-/var/lib/chainperf-kube}
bridge=cpkube0
[ "$(id -u)" = 0 ] || { echo "down.sh: needs root" >&2; exit 2; }
[ -e "$dir/up" ] || { echo "down.sh: no cluster in $dir" >&2; exit 0; }
cd "$dir"

. "$here/lib.sh" # ours, descendants, stop

# Nodes addnode.sh added, each with its own kubelet and containerd.
for d in "$dir"/node*/; do
  [ -d "$d" ] || continue
  d=${d%/}
  bash "$here/rmnode.sh" "${d##*/node}" >/dev/null 2>&1
done
# kubelet first, so that it restarts nothing; then every container: the
# shims of our containerd (found by its socket in their command lines) and
# all below them.
stop kubelet
sock="$dir/containerd/containerd.sock"
shims=$(pgrep -f -- "containerd-shim.*-address $sock" || true)
for s in $shims; do
  for p in $(descendants "$s"); do kill -KILL "$p" 2>/dev/null; done
  kill -KILL "$s" 2>/dev/null
done
for c in kube-scheduler kube-controller-manager kube-apiserver etcd containerd; do stop "$c"; done
sleep 0.5

# Mounts under our dir (volumes, rootfs, shm) and the pods' network namespaces.
grep -F " $dir/" /proc/mounts | awk '{print $2}' | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
for ns in $(ls /run/netns 2>/dev/null); do
  case "$ns" in cni-*) ;; *) continue ;; esac
  grep -qx "$ns" host-netns 2>/dev/null && continue
  umount -l "/run/netns/$ns" 2>/dev/null; rm -f "/run/netns/$ns"
done
ip link del "$bridge" 2>/dev/null

# iptables chains the cluster added (kubelet's KUBE-*, the bridge plugin's
# CNI-*): the rules that jump to them first, then the chains.
if [ -f host-chains ]; then
  for t in iptables-legacy iptables-nft ip6tables-legacy ip6tables-nft; do
    command -v "$t" >/dev/null || continue
    for table in filter nat mangle; do
      new=$("$t" -t "$table" -S 2>/dev/null | awk '$1 == "-N" {print $2}' | grep -E '^(KUBE-|CNI-)' |
        while read -r c; do grep -qx "$t $table $c" host-chains || echo "$c"; done)
      [ -n "$new" ] || continue
      for c in $new; do
        "$t" -t "$table" -S 2>/dev/null | grep -E -- "-j $c( |\$)" | sed 's/^-A /-D /' |
          while read -r rule; do eval "\"$t\" -t \"$table\" $rule" 2>/dev/null; done
      done
      for c in $new; do "$t" -t "$table" -F "$c" 2>/dev/null; done
      for c in $new; do "$t" -t "$table" -X "$c" 2>/dev/null; done
    done
  done
fi
# Sysctls back to what they were.
if [ -f host-sysctls ]; then
  while IFS== read -r k v; do [ -n "$k" ] && sysctl -qw "$k=$v" >/dev/null; done < host-sysctls
fi
# Directories kubelet and containerd made outside our dir.
for d in /var/lib/kubelet /var/log/containers /var/log/pods /var/lib/cni /run/containerd /etc/cni; do
  [ -e "$d" ] || continue
  grep -qx "$d" host-dirs 2>/dev/null && continue
  grep -F " $d/" /proc/mounts | awk '{print $2}' | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
  rm -rf "$d"
done
cd /
rm -rf "$dir"
echo "down.sh: cluster removed" >&2
