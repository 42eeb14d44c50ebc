// The metric names a PromQL expression reads, for the monitoring tests: the
// alert rules and dashboards of deploy/monitoring must only name series that
// etcd, postgres_exporter and the operator export, and an end-to-end test
// compares these names with a real Prometheus's
// /api/v1/label/__name__/values.
//
// A scan of PromQL's tokens, not a parser: an identifier is a metric name
// unless it is a function (followed by `(`), an aggregation, a keyword (and,
// or, unless, bool, offset, by, without, on, ignoring, group_left,
// group_right, atan2, inf, nan) or a label name in a `by (...)`-style list.
// Label matchers in `{}` (except a `__name__="..."` matcher, whose value is a
// name), ranges in `[]`, strings, numbers, durations, comments and Grafana
// variables (`$x`, `${x}`) are skipped. Invalid PromQL gives some set, never
// a crash.
//
// Thread-safe: pure functions.
#ifndef QUORUM_TEST_MONITORING_METRIC_NAMES_H_
#define QUORUM_TEST_MONITORING_METRIC_NAMES_H_

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace quorum::monitoring {

std::set<std::string> MetricNamesInPromQL(std::string_view expr);

// The union over `exprs`.
std::set<std::string> MetricNamesInPromQL(const std::vector<std::string>& exprs);

}  // namespace quorum::monitoring

#endif  // QUORUM_TEST_MONITORING_METRIC_NAMES_H_
