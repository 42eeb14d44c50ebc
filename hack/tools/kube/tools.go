//go:build tools

// Package tools pins the upstream Kubernetes binaries that Quorum's tests and
// demo run. Nothing here is Quorum product code.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
