//go:build tools

// Package tools pins the upstream etcd binaries that Quorum's tests and demo
// run. Nothing here is Quorum product code.
package tools

import (
	_ "go.etcd.io/etcd/etcdctl/v3"
	_ "go.etcd.io/etcd/server/v3"
)
