//go:build tools

// Package tools pins etcdutl, the offline etcd tool that restores a snapshot
// into a new data folder (`etcdutl snapshot restore`): the backup tests and
// the etcd image's restore step run it. A module of its own, at the same
// release as tools/etcd, so that adding it did not change etcd's cache key.
// Nothing here is Quorum product code.
package tools

import (
	_ "go.etcd.io/etcd/etcdutl/v3"
)
