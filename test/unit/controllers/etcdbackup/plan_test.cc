#include "src/controllers/etcdbackup/plan.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "src/backup/snapshot_job.h"

namespace quorum::etcdbackup {
namespace {

using Json = nlohmann::json;

api::EtcdBackup Backup(bool pvc = false) {
  api::EtcdBackup b;
  b.metadata = {.name = "nightly", .ns = "db", .uid = "u1", .generation = 1};
  b.spec.cluster_ref = "main";
  if (pvc) {
    b.spec.destination.pvc = api::BackupPvc{.claim_name = "backups", .sub_path = "etcd"};
  } else {
    b.spec.destination.s3 =
        api::BackupS3{.endpoint = "https://s", .bucket = "b", .credentials_secret = "c"};
  }
  return b;
}

std::string Result(const std::string& uri) {
  return backup::ResultJson({.uri = uri,
                             .revision = 1001,
                             .size = 4096,
                             .sha256 = std::string(64, 'f'),
                             .taken_at = absl::FromUnixSeconds(1764633600),
                             .member = "m"});
}

TEST(BackupPlanTest, PhasesFollowTheClusterAndTheJob) {
  const api::EtcdBackup b = Backup();
  const api::EtcdCluster cluster;
  struct Case {
    const char* name;
    const api::EtcdCluster* cluster;
    bool ready;
    std::optional<JobOutcome> job;
    std::string phase;
    bool create;
    std::string reason;
  } cases[] = {
      {"no cluster", nullptr, false, std::nullopt, "Pending", false, "ClusterNotFound"},
      {"cluster not ready", &cluster, false, std::nullopt, "Pending", false, "ClusterNotReady"},
      {"ready: create the Job", &cluster, true, std::nullopt, "Started", true, "JobCreated"},
      {"job running", &cluster, true, JobOutcome{}, "Started", false, "JobRunning"},
      {"job running, cluster gone", nullptr, false, JobOutcome{}, "Started", false, "JobRunning"},
      {"job done", &cluster, true, JobOutcome{.complete = true, .message = Result("s3://b/k")},
       "Complete", false, "SnapshotStored"},
      {"job done, no result", &cluster, true, JobOutcome{.complete = true, .message = "???"},
       "Failed", false, "ResultUnreadable"},
      {"job failed", &cluster, true,
       JobOutcome{.failed = true, .message = "DATA_LOSS: snapshot cut"}, "Failed", false,
       "SnapshotFailed"},
  };
  for (const Case& c : cases) {
    const BackupPlan p = PlanBackup({.backup = &b,
                                     .cluster = c.cluster,
                                     .cluster_serves = c.ready,
                                     .job = c.job,
                                     .now = "2026-12-02T00:00:00Z"});
    EXPECT_EQ(p.status.phase, c.phase) << c.name;
    EXPECT_EQ(p.create_job, c.create) << c.name;
    ASSERT_EQ(p.status.conditions.size(), 2u) << c.name;
    EXPECT_EQ(p.status.conditions[0].reason, c.reason) << c.name;
    EXPECT_EQ(p.status.conditions[0].type, "Complete");
    EXPECT_EQ(p.status.conditions[0].status, c.phase == "Complete" ? "True" : "False") << c.name;
    EXPECT_EQ(p.status.conditions[1].status, c.phase == "Failed" ? "True" : "False") << c.name;
  }
}

TEST(BackupPlanTest, CompleteRecordsTheSnapshotAndPvcUris) {
  const api::EtcdBackup b = Backup(/*pvc=*/true);
  const BackupPlan p =
      PlanBackup({.backup = &b,
                  .job = JobOutcome{.complete = true,
                                    .message = Result("file:///backup/etcd/main-nightly.db")},
                  .now = "t"});
  ASSERT_TRUE(p.status.snapshot.has_value());
  EXPECT_EQ(p.status.snapshot->uri, "pvc://backups/etcd/main-nightly.db");
  EXPECT_EQ(p.status.snapshot->revision, 1001);
  EXPECT_EQ(p.status.snapshot->size, 4096);
  EXPECT_EQ(p.status.snapshot->taken_at, "2025-12-02T00:00:00Z");
}

TEST(BackupPlanTest, FinalPhasesAreKeptAndTransitionTimesToo) {
  api::EtcdBackup b = Backup();
  b.status.phase = "Failed";
  b.status.conditions = {{.type = "Failed", .status = "True", .reason = "SnapshotFailed"}};
  const api::EtcdCluster cluster;
  BackupPlan p =
      PlanBackup({.backup = &b, .cluster = &cluster, .cluster_serves = true, .now = "t"});
  EXPECT_FALSE(p.create_job);
  EXPECT_EQ(p.status, b.status);  // zero writes

  api::EtcdBackup pending = Backup();
  pending.status =
      PlanBackup({.backup = &pending, .now = "2026-01-01T00:00:00Z"}).status;  // ClusterNotFound
  p = PlanBackup({.backup = &pending, .now = "2026-01-01T00:05:00Z"});
  EXPECT_EQ(p.status, pending.status);  // the same answer writes nothing
}

// Issue 33: a backup waits for a quorum, not for every member, and never
// waits forever: past api::kBackupStartTimeout it fails with the reason.
TEST(BackupPlanTest, APendingBackupFailsOnceItCannotStartInTime) {
  const api::EtcdBackup b = Backup();
  const api::EtcdCluster cluster;
  BackupPlan p =
      PlanBackup({.backup = &b, .cluster = &cluster, .now = "t", .age = absl::Minutes(4)});
  EXPECT_EQ(p.status.phase, "Pending");
  EXPECT_EQ(p.recheck_after, absl::Minutes(6)) << "comes back when the bound runs out";
  p = PlanBackup({.backup = &b, .cluster = &cluster, .now = "t", .age = absl::Minutes(10)});
  EXPECT_EQ(p.status.phase, "Failed");
  EXPECT_FALSE(p.create_job);
  EXPECT_EQ(p.status.conditions[1].reason, "StartTimeout");
  EXPECT_EQ(p.status.conditions[1].message,
            "not started within 10m: waiting for EtcdCluster main to have a quorum (a majority "
            "of its members healthy)");
  p = PlanBackup({.backup = &b, .now = "t", .age = absl::Hours(1)});
  EXPECT_EQ(p.status.conditions[1].reason, "StartTimeout") << "no cluster at all";
  p = PlanBackup({.backup = &b,
                  .cluster = &cluster,
                  .cluster_serves = true,
                  .now = "t",
                  .age = absl::Hours(1)});
  EXPECT_TRUE(p.create_job) << "a cluster that serves starts it, however late";
}

TEST(BackupPlanTest, AClusterWithAMemberDownServesBackups) {
  api::EtcdClusterStatus status;
  status.conditions = {{.type = "Initialized", .status = "True"},
                       {.type = "Ready", .status = "False", .reason = "StatefulSetNotReady"}};
  status.members = {{.name = "m-0", .healthy = true},
                    {.name = "m-1", .healthy = true},
                    {.name = "m-2", .healthy = false}};
  EXPECT_TRUE(api::HasQuorum(status)) << "two of three voters";
  status.members[1].healthy = false;
  EXPECT_FALSE(api::HasQuorum(status)) << "one of three";
  status.members.push_back({.name = "m-3", .is_learner = true, .healthy = true});
  EXPECT_FALSE(api::HasQuorum(status)) << "a learner does not vote";
  status.conditions[1].status = "True";
  EXPECT_TRUE(api::HasQuorum(status)) << "Ready says so";
  EXPECT_FALSE(api::HasQuorum(api::EtcdClusterStatus{})) << "never formed";
}

TEST(BackupPlanTest, OutcomeReadsJobConditionsAndTheTerminationMessage) {
  const Json job = Json::parse(
      R"({"status": {"conditions": [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded", "message": "Job has reached the specified backoff limit"}]}})");
  const Json pods = Json::parse(
      R"({"items": [{"status": {"containerStatuses": [{"state": {"terminated": {"exitCode": 1, "message": "UNAVAILABLE: no healthy member"}}}]}}]})");
  JobOutcome o = OutcomeOf(job, pods);
  EXPECT_TRUE(o.failed);
  EXPECT_FALSE(o.complete);
  EXPECT_EQ(o.message, "UNAVAILABLE: no healthy member");
  o = OutcomeOf(job, Json::object());
  EXPECT_TRUE(absl::StrContains(o.message, "BackoffLimitExceeded")) << o.message;
  EXPECT_FALSE(OutcomeOf(Json::object(), Json::object()).complete);
}

}  // namespace
}  // namespace quorum::etcdbackup
