// deploy/monitoring/quorum-rules.yaml as the end-to-end test reads it: every
// rule's expression, and the series those read (promtool checks the rules
// themselves: promtool_test.cc).
#include <gtest/gtest.h>

#include "test/monitoring/expressions.h"
#include "test/monitoring/metric_names.h"
#include "test/testmain/paths.h"
#include "test/unit/monitoring/metric_prefixes.h"

namespace quorum::monitoring {
namespace {

std::string RulesFile() {
  return std::string(QUORUM_SOURCE_DIR) + "/deploy/monitoring/quorum-rules.yaml";
}

TEST(RuleExpressionsTest, ReadsEveryRulesExpression) {
  absl::StatusOr<std::vector<std::string>> exprs = RuleExpressions(RulesFile());
  ASSERT_TRUE(exprs.ok()) << exprs.status();
  EXPECT_GE(exprs->size(), 15u);
  for (const std::string& e : *exprs) {
    const std::set<std::string> names = MetricNamesInPromQL(e);
    EXPECT_FALSE(names.empty()) << e;
    for (const std::string& name : names) EXPECT_TRUE(HasKnownPrefix(name)) << name << " in " << e;
  }
}

TEST(RuleExpressionsTest, TheRulesReadTheSeriesTheyAreAbout) {
  absl::StatusOr<std::vector<std::string>> exprs = RuleExpressions(RulesFile());
  ASSERT_TRUE(exprs.ok()) << exprs.status();
  const std::set<std::string> names = MetricNamesInPromQL(*exprs);
  for (const char* want :
       {"etcd_server_has_leader", "up", "etcd_mvcc_db_total_size_in_bytes",
        "etcd_server_quota_backend_bytes", "etcd_server_leader_changes_seen_total",
        "etcd_disk_wal_fsync_duration_seconds_bucket", "pg_up", "pg_replication_is_replica",
        "pg_replication_lag_seconds", "pg_stat_database_numbackends", "pg_settings_max_connections",
        "quorum_backup_last_success_timestamp_seconds", "quorum_backup_schedule_interval_seconds",
        "quorum_certificate_expiry_timestamp_seconds", "leader_election_master_status",
        "controller_runtime_reconcile_errors_total", "events_dropped_total"}) {
    EXPECT_TRUE(names.count(want)) << want;
  }
}

TEST(RuleExpressionsTest, ReportsMissingAndMalformedFiles) {
  EXPECT_EQ(RuleExpressions("/nonexistent/rules.yaml").status().code(),
            absl::StatusCode::kNotFound);
  // A dashboard parses as YAML (JSON is YAML) but has no groups.
  EXPECT_EQ(RuleExpressions(std::string(QUORUM_SOURCE_DIR) +
                            "/deploy/monitoring/dashboards/quorum-etcd.json")
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace quorum::monitoring
