//go:build tools

// Package localcluster pins the Kubernetes binaries that kube/localcluster/up.sh
// builds: a single-node cluster for the kubernetes provider's tests.
package localcluster

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
