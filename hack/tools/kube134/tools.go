//go:build tools

// Package tools pins Kubernetes 1.34 (the newest patch the Go module proxy serves,
// 1.34.4) for the version matrix (make test-matrix): the control plane's binaries and
// the node's, selected with QUORUM_K8S_VERSION=1.34 (hack/build-tools.sh). The
// default version lives in hack/tools/kube and hack/tools/kubenode. Nothing here is
// Quorum product code.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
