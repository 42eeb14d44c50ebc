//go:build tools

// Package tools pins containerd 2.x (daemon, ctr, the runc shim)
// for the real single-node test bed. Nothing here is Quorum product code.
package tools

import (
	_ "github.com/containerd/containerd/v2/cmd/containerd"
	_ "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2"
	_ "github.com/containerd/containerd/v2/cmd/ctr"
)
