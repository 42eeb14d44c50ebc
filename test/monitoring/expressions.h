// The PromQL expressions of deploy/monitoring's files: the queries of a
// Grafana dashboard (JSON) and the `expr` of every rule of a Prometheus rule
// file (YAML). With metric_names.h they give the metric names those files
// read, which the unit tests check for shape and an end-to-end test compares
// with what a real Prometheus scrapes.
//
// Thread-safe: the functions share nothing (each reads its file).
#ifndef QUORUM_TEST_MONITORING_EXPRESSIONS_H_
#define QUORUM_TEST_MONITORING_EXPRESSIONS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace quorum::monitoring {

// One query of a dashboard panel (targets[i]).
struct DashboardQuery {
  std::string panel;              // the panel's title
  std::string expr;               // targets[i].expr ("" when absent)
  std::string panel_datasource;   // the panel's datasource uid ("" when it names none)
  std::string target_datasource;  // the target's datasource uid ("" when it names none)
};

// Every query of every panel of the dashboard in `path`, panels nested in
// rows included, in the file's order. A datasource given as a plain string
// (Grafana's old form) is returned as that string.
// Errors: NotFound (cannot read the file), InvalidArgument (not JSON, or no
// `panels` array).
absl::StatusOr<std::vector<DashboardQuery>> DashboardQueries(const std::string& path);

// The `expr` of every query of DashboardQueries(path), in order.
absl::StatusOr<std::vector<std::string>> DashboardExpressions(const std::string& path);

// The `expr` of every rule (alerting and recording) of every group of the
// Prometheus rule file in `path`, in order.
// Errors: NotFound (cannot read the file), InvalidArgument (not YAML, no
// `groups` list, or a rule without a string `expr`).
absl::StatusOr<std::vector<std::string>> RuleExpressions(const std::string& path);

}  // namespace quorum::monitoring

#endif  // QUORUM_TEST_MONITORING_EXPRESSIONS_H_
