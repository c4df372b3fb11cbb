#!/usr/bin/env bash
# up.sh: a real single-node Kubernetes cluster on this machine, for the
# kubernetes provider's tests and `chainperf run examples/kubernetes.toml`:
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubelet,
# containerd and runc, pods on a bridge of their own. No Docker engine, no
# registry, no systemd. Recipe and the settings it needs: ../shared/KUBERNETES.md.
#
#   sudo kube/localcluster/up.sh            # prints: export KUBECONFIG=... CHAINPERF_KUBE_CTR=... CHAINPERF_KUBE_POD_API=...
#   sudo kube/localcluster/down.sh          # removes all of it
#
# Everything lives under $CHAINPERF_KUBE_DIR (default /var/lib/chainperf-kube);
# what it changes on the host (sysctls, iptables chains, the bridge, network
# namespaces) is recorded there first, and down.sh puts it back. The
# Kubernetes binaries are built from pinned modules (go.mod beside this
# script) once and cached under /var/cache/chainperf-kube/VERSION.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
K8S=v1.33.13
dir=${CHAINPERF_KUBE_DIR:-/var/lib/chainperf-kube}
cache=/var/cache/chainperf-kube/$K8S
bridge=cpkube0
subnet=10.244.77
node_ip=$subnet.1
node=chainperf-node

die() { echo "up.sh: $*" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "needs root (containerd, kubelet and the pod network): run it with sudo"
[ ! -e "$dir/up" ] || die "a cluster is up already ($dir): run $here/down.sh first"

# Debian packages: containerd, runc, the CNI plugins, etcd, openssl.
need=()
command -v containerd >/dev/null || need+=(containerd)
command -v runc >/dev/null || need+=(runc)
[ -x /usr/lib/cni/bridge ] || need+=(containernetworking-plugins)
command -v etcd >/dev/null || need+=(etcd-server)
command -v openssl >/dev/null || need+=(openssl)
command -v ss >/dev/null || need+=(iproute2)
command -v curl >/dev/null || need+=(curl)
command -v pgrep >/dev/null || need+=(procps) # down.sh finds the pods' shims with it
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

# After the packages: ss is iproute2's, and without it no taken port would show.
for port in 2379 2380 6443 10248 10250 10257 10259; do
  if ss -Htln "sport = :$port" | grep -q .; then die "port $port is taken: a cluster (or something else) listens there; stop it first"; fi
done

# The Kubernetes binaries and the pod sandbox image, built once per version.
if [ ! -x "$cache/bin/kubelet" ] || [ ! -f "$cache/pause.tar" ]; then
  echo "up.sh: building Kubernetes $K8S from modules (once; about 4 minutes cold)" >&2
  mkdir -p "$cache/bin.new"
  (cd "$here" && CGO_ENABLED=0 GOFLAGS=-mod=readonly go build -trimpath -ldflags='-s -w' -o "$cache/bin.new/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubelet)
  # The sandbox image's program and its image maker are a module of their own
  # (images/), so that go-containerregistry moves no pin of Kubernetes'.
  (cd "$here/images" && CGO_ENABLED=0 GOFLAGS=-mod=readonly go build -trimpath -o "$cache/bin.new/" ./pause ./mkimage)
  "$cache/bin.new/mkimage" -binary "$cache/bin.new/pause" -name chainperf.local/pause:1 -out "$cache/pause.tar"
  rm -rf "$cache/bin" && mv "$cache/bin.new" "$cache/bin"
fi
bin=$cache/bin

mkdir -p "$dir"/{pki,etcd,log,run,kubelet,containerd/root,containerd/state,cni/net.d,cni/ipam}
cd "$dir"
echo $$ > up # marks a cluster (being) set up: down.sh removes it
trap 'echo "up.sh: failed; removing what was made" >&2; "$here/down.sh" >&2 || true' ERR

# What the cluster changes on the host, recorded before it changes it.
for s in vm.overcommit_memory kernel.panic kernel.panic_on_oops net.ipv4.ip_forward; do
  echo "$s=$(sysctl -n "$s")"
done > host-sysctls
for t in iptables-legacy iptables-nft ip6tables-legacy ip6tables-nft; do
  command -v "$t" >/dev/null || continue
  for table in filter nat mangle; do "$t" -t "$table" -S 2>/dev/null | awk -v t="$t" -v tb="$table" '$1 == "-N" {print t, tb, $2}'; done
done > host-chains || true
ls /run/netns 2>/dev/null > host-netns || true
for d in /var/lib/kubelet /var/log/containers /var/log/pods /var/lib/cni /run/containerd /etc/cni; do
  [ -e "$d" ] && echo "$d"
done > host-dirs || true

# Certificates: one CA; the API server's serving cert; one admin client
# (system:masters) that every component uses (a test cluster of one
# machine); the service-account key pair.
cd pki
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 30 -subj "/CN=chainperf-kube-ca" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr -subj "/CN=kube-apiserver" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,IP:10.0.0.1,IP:%s,DNS:kubernetes,DNS:kubernetes.default,DNS:localhost\n' "$node_ip" > san.ext
openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out apiserver.crt -days 30 -extfile san.ext 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout admin.key -out admin.csr -subj "/O=system:masters/CN=chainperf-admin" 2>/dev/null
openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out admin.crt -days 30 2>/dev/null
openssl genrsa -out sa.key 2048 2>/dev/null
openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
cd ..
cat > kubeconfig <<EOF
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority: $dir/pki/ca.crt
users:
- name: admin
  user:
    client-certificate: $dir/pki/admin.crt
    client-key: $dir/pki/admin.key
contexts:
- name: local
  context: {cluster: local, user: admin}
current-context: local
EOF

. "$here/lib.sh" # start, wait_for

# The pod network: a bridge whose gateway is the node's IP (kubelet wants a
# node IP on an interface, and refuses loopback).
ip link add "$bridge" type bridge
ip addr add "$node_ip/24" dev "$bridge"
ip link set "$bridge" up
cat > cni/net.d/10-chainperf.conflist <<EOF
{"cniVersion": "0.4.0", "name": "chainperf", "plugins": [
  {"type": "bridge", "bridge": "$bridge", "isGateway": true, "ipMasq": false,
   "ipam": {"type": "host-local", "dataDir": "$dir/cni/ipam",
            "ranges": [[{"subnet": "$subnet.0/24", "gateway": "$node_ip"}]],
            "routes": [{"dst": "10.244.0.0/16"}]}},
  {"type": "loopback"}]}
EOF

start etcd etcd --name local --data-dir "$dir/etcd" \
  --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
  --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
  --initial-cluster local=http://127.0.0.1:2380
wait_for etcd 30 curl -sf http://127.0.0.1:2379/health

# It listens on the node IP too: a harness pod (harness = "pod") reaches it
# there, since no kube-proxy routes the kubernetes Service's cluster IP.
start kube-apiserver "$bin/kube-apiserver" --etcd-servers=http://127.0.0.1:2379 \
  --bind-address=0.0.0.0 --secure-port=6443 --advertise-address="$node_ip" \
  --service-cluster-ip-range=10.0.0.0/24 --authorization-mode=Node,RBAC \
  --client-ca-file=pki/ca.crt --tls-cert-file=pki/apiserver.crt --tls-private-key-file=pki/apiserver.key \
  --service-account-issuer=https://kubernetes.default.svc --service-account-key-file=pki/sa.pub \
  --service-account-signing-key-file=pki/sa.key --allow-privileged=true \
  --kubelet-client-certificate=pki/admin.crt --kubelet-client-key=pki/admin.key --kubelet-preferred-address-types=InternalIP
wait_for kube-apiserver 60 curl -sf --cacert pki/ca.crt --cert pki/admin.crt --key pki/admin.key https://127.0.0.1:6443/readyz

start kube-controller-manager "$bin/kube-controller-manager" --kubeconfig=kubeconfig --leader-elect=false \
  --service-account-private-key-file=pki/sa.key --root-ca-file=pki/ca.crt \
  --controllers='*,-nodeipam,-cloud-node-lifecycle,-service-lb-controller,-node-route-controller' \
  --bind-address=127.0.0.1
start kube-scheduler "$bin/kube-scheduler" --kubeconfig=kubeconfig --leader-elect=false --bind-address=127.0.0.1

# containerd of our own (root, state, socket); the CRI settings this
# machine needs (restrict_oom_score_adj: root here cannot lower
# oom_score_adj) and the sandbox image we import below.
cat > containerd/config.toml <<EOF
version = 2
root = "$dir/containerd/root"
state = "$dir/containerd/state"
[grpc]
  address = "$dir/containerd/containerd.sock"
[plugins."io.containerd.grpc.v1.cri"]
  restrict_oom_score_adj = true
  sandbox_image = "chainperf.local/pause:1"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$dir/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    default_runtime_name = "runc"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
    SystemdCgroup = false
EOF
start containerd containerd --config containerd/config.toml
wait_for containerd 30 ctr --address "$dir/containerd/containerd.sock" version
ctr --address "$dir/containerd/containerd.sock" -n k8s.io images import --no-unpack=false "$cache/pause.tar" >/dev/null

cat > kubelet/config.yaml <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
failSwapOn: false
failCgroupV1: false
containerRuntimeEndpoint: unix://$dir/containerd/containerd.sock
authentication: {anonymous: {enabled: false}, webhook: {enabled: false}, x509: {clientCAFile: $dir/pki/ca.crt}}
authorization: {mode: AlwaysAllow}
address: $node_ip # the API server reads pod logs here (its node address)
healthzBindAddress: 127.0.0.1
resolvConf: ""
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%"}
imageGCHighThresholdPercent: 100
EOF
start kubelet "$bin/kubelet" --config=kubelet/config.yaml --kubeconfig=kubeconfig \
  --root-dir="$dir/kubelet" --node-ip="$node_ip" --hostname-override="$node"
kc() { curl -sf --cacert pki/ca.crt --cert pki/admin.crt --key pki/admin.key "https://127.0.0.1:6443$1"; }
node_ready() { kc "/api/v1/nodes/$node" | tr -d ' \n' | grep -q '"type":"Ready","status":"True"'; }
wait_for kubelet 90 node_ready
wait_for kube-controller-manager 60 sh -c "curl -sf --cacert pki/ca.crt --cert pki/admin.crt --key pki/admin.key https://127.0.0.1:6443/api/v1/namespaces/default/serviceaccounts/default >/dev/null"
echo "up.sh: cluster up in $dir (node $node, pods on $subnet.0/24)" >&2
echo "export KUBECONFIG=$dir/kubeconfig CHAINPERF_KUBE_CTR=$dir/containerd/containerd.sock CHAINPERF_KUBE_POD_API=$node_ip:6443"
