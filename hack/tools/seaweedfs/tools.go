//go:build tools

// Package tools pins the upstream SeaweedFS `weed` binary whose S3 gateway is the
// object store of Quorum's backup tests (hack/s3.sh). Nothing here is Quorum
// product code.
package tools

import (
	_ "github.com/seaweedfs/seaweedfs/weed"
)
