//go:build tools

// Package tools pins CoreDNS, the cluster DNS (cluster.local)
// for the real single-node test bed. Nothing here is Quorum product code.
package tools

import (
	_ "github.com/coredns/coredns"
)
