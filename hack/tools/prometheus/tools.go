//go:build tools

// Package tools pins the upstream Prometheus server and promtool: promtool checks and
// unit-tests Quorum's alert rules (deploy/monitoring), and the server lets the
// end-to-end tests scrape the operator, etcd and the PostgreSQL exporter. Nothing here
// is Quorum product code.
package tools

import (
	_ "github.com/prometheus/prometheus/cmd/prometheus"
	_ "github.com/prometheus/prometheus/cmd/promtool"
)
