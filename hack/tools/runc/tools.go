//go:build tools

// Package tools pins runc, the OCI runtime under containerd on the real node
// (Debian 12's runc 1.1 cannot start containerd 2.x's sandboxes). It needs cgo
// and libseccomp (libseccomp-dev). Nothing here is Quorum product code.
package tools

import (
	_ "github.com/opencontainers/runc"
)
