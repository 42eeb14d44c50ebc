//go:build tools

// Package tools pins the CNI plugins the node's pod network uses (bridge, host-local, loopback, portmap)
// for the real single-node test bed. Nothing here is Quorum product code.
package tools

import (
	_ "github.com/containernetworking/plugins/plugins/main/bridge"
	_ "github.com/containernetworking/plugins/plugins/ipam/host-local"
	_ "github.com/containernetworking/plugins/plugins/main/loopback"
	_ "github.com/containernetworking/plugins/plugins/meta/portmap"
)
