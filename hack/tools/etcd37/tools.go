//go:build tools

// Package tools pins etcd 3.7 (latest patch) for the version-matrix etcd
// image (hack/images.sh): etcd, etcdctl and etcdutl. Nothing here is Quorum
// product code.
package tools

import (
	_ "go.etcd.io/etcd/etcdctl/v3"
	_ "go.etcd.io/etcd/etcdutl/v3"
	_ "go.etcd.io/etcd/server/v3"
)
