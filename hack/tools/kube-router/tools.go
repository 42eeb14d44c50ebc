//go:build tools

// Package tools pins kube-router, of which the real single-node test bed (hack/node.sh)
// runs only the network policy controller (--run-firewall): it enforces NetworkPolicy
// with iptables chains and ipsets. Nothing here is Quorum product code.
package tools

import (
	_ "github.com/cloudnativelabs/kube-router/v2/cmd/kube-router"
)
