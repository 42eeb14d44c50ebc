// EtcdBackupSchedule's admission rules and decoding, table-driven: aenix's
// field names (v0.4.3) decode; each bad field is refused by name.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "api/etcdbackupschedule_types.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

Json Schedule() {
  return Json::parse(R"({
    "apiVersion": "etcd.aenix.io/v1alpha1", "kind": "EtcdBackupSchedule",
    "metadata": {"name": "hourly", "namespace": "db", "uid": "u1", "generation": 2,
                 "creationTimestamp": "2026-12-02T00:00:00Z"},
    "spec": {"clusterRef": {"name": "main"}, "schedule": "0 * * * *",
             "destination": {"s3": {"endpoint": "https://s3.example.com", "bucket": "etcd-backups",
                                    "key": "db/main", "forcePathStyle": true,
                                    "credentialsSecretRef": {"name": "s3-creds"}}},
             "successfulJobsHistoryLimit": 2, "failedJobsHistoryLimit": 0,
             "activeBackupJobDeadline": 900, "finishedBackupJobsTTL": 600,
             "keepLast": 24, "keepWithin": "168h"}})");
}

Json With(const char* patch) {
  Json obj = Schedule();
  obj.merge_patch(Json::parse(patch));
  return obj;
}

TEST(EtcdBackupScheduleTest, DecodesAenixFieldsAndQuorumRetention) {
  absl::StatusOr<EtcdBackupSchedule> s = ParseEtcdBackupSchedule(Schedule());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.cluster_ref, "main");
  EXPECT_EQ(s->spec.schedule, "0 * * * *");
  ASSERT_TRUE(s->spec.destination.s3.has_value());
  EXPECT_EQ(s->spec.destination.s3->key, "db/main");
  EXPECT_EQ(s->spec.successful_jobs_history_limit, 2);
  EXPECT_EQ(s->spec.failed_jobs_history_limit, 0);
  EXPECT_EQ(s->spec.keep_last, 24);
  EXPECT_EQ(s->spec.keep_within, absl::Hours(168));
  EXPECT_EQ(s->creation_timestamp, "2026-12-02T00:00:00Z");
  EXPECT_EQ(s->metadata.generation, 2);
}

TEST(EtcdBackupScheduleTest, DefaultsAreCronJobs) {
  absl::StatusOr<EtcdBackupSchedule> s = ParseEtcdBackupSchedule(
      With(R"({"spec": {"successfulJobsHistoryLimit": null, "failedJobsHistoryLimit": null,
                        "keepLast": null, "keepWithin": null}})"));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.successful_jobs_history_limit, 3);
  EXPECT_EQ(s->spec.failed_jobs_history_limit, 1);
  EXPECT_EQ(s->spec.keep_last, 0);
  EXPECT_EQ(s->spec.keep_within, absl::ZeroDuration());
}

TEST(EtcdBackupScheduleTest, RefusesEachBadFieldByName) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"spec": {"clusterRef": null}})", "spec.clusterRef.name"},
      {R"({"spec": {"schedule": ""}})", "spec.schedule"},
      {R"({"spec": {"schedule": "61 * * * *"}})", "spec.schedule: minute: 61"},
      {R"({"spec": {"schedule": "0 0 30 2 *"}})", "spec.schedule: \"0 0 30 2 *\" never fires"},
      {R"({"spec": {"schedule": 5}})", "spec.schedule"},
      {R"({"spec": {"destination": {"s3": null}}})", "spec.destination: set exactly one"},
      {R"({"spec": {"destination": {"s3": {"bucket": "B!"}}}})", "spec.destination.s3.bucket"},
      {R"({"spec": {"successfulJobsHistoryLimit": -1}})", "spec.successfulJobsHistoryLimit"},
      {R"({"spec": {"failedJobsHistoryLimit": -3}})", "spec.failedJobsHistoryLimit"},
      {R"({"spec": {"failedJobsHistoryLimit": "2"}})", "spec.failedJobsHistoryLimit"},
      {R"({"spec": {"keepLast": 0}})", "spec.keepLast: want an integer >= 1"},
      {R"({"spec": {"keepLast": -2}})", "spec.keepLast"},
      {R"({"spec": {"keepWithin": "7d"}})", "spec.keepWithin"},
      {R"({"spec": {"keepWithin": "-1h"}})", "spec.keepWithin"},
      {R"({"spec": {"keepWithin": "0s"}})", "spec.keepWithin"},
      {R"({"spec": {"keepWithin": "inf"}})", "spec.keepWithin"},
      {R"({"spec": {"activeBackupJobDeadline": -1}})", "spec.activeBackupJobDeadline"},
  };
  for (const auto& [patch, want] : cases) {
    const std::vector<FieldError> errors = ValidateEtcdBackupSchedule(With(patch));
    const std::string joined = JoinFieldErrors(errors);
    EXPECT_TRUE(absl::StrContains(joined, want)) << patch << " gave: " << joined;
    EXPECT_FALSE(ParseEtcdBackupSchedule(With(patch)).ok()) << patch;
  }
  EXPECT_TRUE(ValidateEtcdBackupSchedule(Schedule()).empty());
  EXPECT_EQ(JoinFieldErrors(ValidateEtcdBackupSchedule(Json::object())).rfind("spec", 0), 0u);
}

TEST(EtcdBackupScheduleTest, StatusRoundTrips) {
  EtcdBackupScheduleStatus status{.observed_generation = 2,
                                  .conditions = {{.type = "Ready",
                                                  .status = "True",
                                                  .reason = "Scheduled",
                                                  .message = "m",
                                                  .observed_generation = 2,
                                                  .last_transition_time = "2026-12-02T00:00:00Z"}},
                                  .last_schedule_time = "2026-12-02T01:00:00Z",
                                  .last_successful_backup_time = "2026-12-02T01:00:03Z",
                                  .next_schedule_time = "2026-12-02T02:00:00Z",
                                  .snapshots = {{.backup = "hourly-1",
                                                 .uri = "s3://b/k",
                                                 .taken_at = "2026-12-02T01:00:03Z",
                                                 .size = 10,
                                                 .revision = 7}}};
  Json obj = Schedule();
  obj["status"] = ToJson(status);
  absl::StatusOr<EtcdBackupSchedule> s = ParseEtcdBackupSchedule(obj);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->status, status);
}

}  // namespace
}  // namespace quorum::api
