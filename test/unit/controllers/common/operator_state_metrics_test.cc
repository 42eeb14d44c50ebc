// Which backup series come from which cached objects, and their samples.
#include "src/controllers/common/operator_state_metrics.h"

#include <gtest/gtest.h>

#include <memory>

namespace quorum::controllers {
namespace {

using nlohmann::json;

runtime::ObjectPtr Ptr(const char* text) { return std::make_shared<const json>(json::parse(text)); }

const absl::Time kNow = absl::FromUnixSeconds(1'709'546'400);  // 2024-03-04T10:00:00Z

TEST(BackupSeriesOfTest, OneSeriesPerScheduleAndPerScheduledCluster) {
  const std::vector<runtime::ObjectPtr> schedules = {
      Ptr(R"({"apiVersion": "etcd.aenix.io/v1alpha1", "kind": "EtcdBackupSchedule",
              "metadata": {"name": "hourly", "namespace": "db"},
              "spec": {"clusterRef": {"name": "main"}, "schedule": "0 * * * *",
                       "destination": {"pvc": {"claimName": "backups"}}},
              "status": {"lastSuccessfulBackupTime": "2024-03-04T09:01:00Z"}})"),
      Ptr(R"({"apiVersion": "etcd.aenix.io/v1alpha1", "kind": "EtcdBackupSchedule",
              "metadata": {"name": "broken", "namespace": "db"}, "spec": {}})"),
  };
  const std::vector<runtime::ObjectPtr> clusters = {
      Ptr(R"({"apiVersion": "postgres.quorum.dev/v1alpha1", "kind": "PostgresCluster",
              "metadata": {"name": "pg", "namespace": "db"},
              "spec": {"backups": {"pgbackrest": {"repos": [
                {"name": "repo1", "schedules": {"full": "0 1 * * *"}}]}}}})"),
      Ptr(R"({"apiVersion": "postgres.quorum.dev/v1alpha1", "kind": "PostgresCluster",
              "metadata": {"name": "unscheduled", "namespace": "db"}, "spec": {}})"),
  };
  const std::vector<BackupSeries> series = BackupSeriesOf(schedules, clusters, kNow);
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0], (BackupSeries{"db",
                                     "hourly",
                                     "EtcdBackupSchedule",
                                     {absl::FromUnixSeconds(1'709'542'860), absl::Hours(1)}}));
  EXPECT_EQ(series[1],
            (BackupSeries{"db", "pg", "PostgresCluster", {std::nullopt, absl::Hours(24)}}));

  EXPECT_EQ(LastSuccessSamples(series).size(), 1u);  // pg never succeeded
  const runtime::Sample last = LastSuccessSamples(series)[0];
  EXPECT_EQ(last.labels, (runtime::LabelValues{"db", "hourly", "EtcdBackupSchedule"}));
  EXPECT_EQ(last.value, 1'709'542'860);
  const std::vector<runtime::Sample> intervals = IntervalSamples(series);
  ASSERT_EQ(intervals.size(), 2u);
  EXPECT_EQ(intervals[1].labels, (runtime::LabelValues{"db", "pg", "PostgresCluster"}));
  EXPECT_EQ(intervals[1].value, 86400);
}

TEST(CertificateExpirySamplesTest, LabelsEachByNamespaceAndSecret) {
  const std::vector<runtime::Sample> samples =
      CertificateExpirySamples({{"db", "pg-tls", absl::FromUnixSeconds(1'800'000'000)}});
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].labels, (runtime::LabelValues{"db", "pg-tls"}));
  EXPECT_EQ(samples[0].value, 1'800'000'000);
}

}  // namespace
}  // namespace quorum::controllers
