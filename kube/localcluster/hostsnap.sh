#!/usr/bin/env bash
# hostsnap.sh: what of the host the cluster can change, printed so that two
# snapshots (before up.sh, after down.sh) can be compared with diff:
# sysctls, iptables rules and chains of Kubernetes and CNI, the pod
# network's links and namespaces, mounts and processes of the cluster, the
# directories kubelet and containerd use. (Only what is the cluster's: a
# kernel module another test loads, with its links, is not a leftover.)
dir=${CHAINPERF_KUBE_DIR:-/var/lib/chainperf-kube}
for s in vm.overcommit_memory kernel.panic kernel.panic_on_oops net.ipv4.ip_forward; do
  echo "sysctl $s=$(sysctl -n "$s")"
done
for t in iptables-legacy iptables-nft ip6tables-legacy ip6tables-nft; do
  command -v "$t" >/dev/null || continue
  for table in filter nat mangle; do
    "$t" -t "$table" -S 2>/dev/null | grep -E 'KUBE-|CNI-|cpkube|10\.244\.77\.' | sed "s/^/$t $table /"
  done
done
ip -o link show | awk '{print "link", $2}' | sed 's/@.*//' | grep -E 'cpkube|veth|cni'
ls /run/netns 2>/dev/null | grep '^cni-' | sed 's/^/netns /'
grep -E "$dir|kubelet|containerd|/run/netns/cni-" /proc/mounts | awk '{print "mount", $2}'
for p in /proc/[0-9]*; do
  c=$(tr '\0' ' ' < "$p/cmdline" 2>/dev/null) || continue
  case "$c" in *"$dir"*|*kube-apiserver*|*containerd-shim*) echo "process ${c:0:120}" ;; esac
done
for d in /var/lib/kubelet /var/log/containers /var/log/pods /var/lib/cni /run/containerd /etc/cni "$dir"; do
  [ -e "$d" ] && echo "dir $d"
done
exit 0
