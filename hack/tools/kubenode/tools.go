//go:build tools

// Package tools pins the node binaries of the real single-node test bed (kubelet,
// kube-proxy). The Kubernetes version is the same as hack/tools/kube's
// (hack/build-tools.sh refuses a mismatch). Nothing here is Quorum product code.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
