#include "test/monitoring/metric_names.h"

#include <gtest/gtest.h>

namespace quorum::monitoring {
namespace {

using Names = std::set<std::string>;

struct Case {
  const char* expr;
  Names want;
};

TEST(MetricNamesInPromQLTest, FindsTheSeriesAndSkipsEverythingElse) {
  const Case cases[] = {
      {"up", {"up"}},
      {"", {}},
      {"  etcd_server_has_leader{job=\"etcd\"} == 0", {"etcd_server_has_leader"}},
      // Label names and values inside {} are not names, braces in strings neither.
      {"pg_up{namespace=\"db\", cluster=~\"pg-.*\", pod!=\"}x{\"}", {"pg_up"}},
      // Functions, ranges, durations and numbers.
      {"increase(etcd_server_leader_changes_seen_total[15m]) >= 3",
       {"etcd_server_leader_changes_seen_total"}},
      {"rate(x_total[5m:30s] offset 1h30m) * 1e-3 + 0x1F - .5 > Inf", {"x_total"}},
      // Aggregations with their label lists before or after the argument.
      {"sum by (namespace, pod, le) (rate(a_bucket[5m]))", {"a_bucket"}},
      {"sum(rate(a_total[5m])) without (instance)", {"a_total"}},
      {"max without(job)(b)", {"b"}},
      {"count by (namespace, cluster) (pg_up) unless on (namespace, cluster) "
       "count by (namespace, cluster) (pg_replication_is_replica == 0)",
       {"pg_up", "pg_replication_is_replica"}},
      // Vector matching, bool, and/or/unless, atan2.
      {"a / on (pod) group_left (cluster, role) b", {"a", "b"}},
      {"a * ignoring(le) group_right b", {"a", "b"}},
      {"a > bool 3 and b or c unless d", {"a", "b", "c", "d"}},
      {"a atan2 b", {"a", "b"}},
      {"A AND B BY", {"A", "B"}},  // keywords in any case
      // histogram_quantile, time(), absent, label_replace with strings.
      {"histogram_quantile(0.99, sum by (le) (rate(c_seconds_bucket{job=\"x\"}[5m]))) > 0.5",
       {"c_seconds_bucket"}},
      {"time() - max by (namespace, name, kind) (quorum_backup_last_success_timestamp_seconds)",
       {"quorum_backup_last_success_timestamp_seconds"}},
      {"absent(up{job=\"quorum-operator\"} == 1)", {"up"}},
      {"label_replace(d, \"dst\", \"$1\", \"src\", \"(.*)\")", {"d"}},
      {"topk(3, e) + quantile(0.5, f) + count_values(\"v\", g)", {"e", "f", "g"}},
      // Recording-rule names with colons; a __name__ matcher; raw and single-quoted strings.
      {"job:up:sum + {__name__=\"h\", job='x'} + {__name__=~\"ignored.*\"}", {"job:up:sum", "h"}},
      {"i{path=`/a\\b`} + j{x='it\\'s'}", {"i", "j"}},
      // Grafana variables, in ranges and elsewhere.
      {"rate(k_total{namespace=\"$namespace\"}[$__rate_interval]) + ${l} + $m", {"k_total"}},
      // Subqueries, @ modifiers, comments.
      {"max_over_time(n[1h:5m] @ end()) # o\n + p @ 1609746000", {"n", "p"}},
      // Unbalanced input ends the scan without a crash.
      {"q{job=\"x", {"q"}},
      {"sum by (", {}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(MetricNamesInPromQL(c.expr), c.want) << c.expr;
  }
}

TEST(MetricNamesInPromQLTest, TheListFormIsTheUnion) {
  EXPECT_EQ(MetricNamesInPromQL(std::vector<std::string>{"a + b", "rate(c[1m])", "a"}),
            (Names{"a", "b", "c"}));
}

}  // namespace
}  // namespace quorum::monitoring
