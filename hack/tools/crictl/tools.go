//go:build tools

// Package tools pins crictl, the CRI client hack/node.sh uses to stop and remove
// the node's pod sandboxes (so that CNI tears their network down) and people use
// to look at the node. Nothing here is Quorum product code.
package tools

import (
	_ "sigs.k8s.io/cri-tools/cmd/crictl"
)
