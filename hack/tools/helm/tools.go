//go:build tools

// Package tools pins the upstream helm binary that Quorum's chart tests run
// (helm lint, helm template). Nothing here is Quorum product code.
package tools

import (
	_ "helm.sh/helm/v3/cmd/helm"
)
