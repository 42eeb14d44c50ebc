// Scheduled backups of a PostgresCluster: the planner and the objects it makes
// (src/controllers/postgrescluster/backup_schedule.h).
#include "src/controllers/postgrescluster/backup_schedule.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace quorum::postgrescluster {
namespace {

absl::Time At(const char* rfc3339) {
  absl::Time t;
  std::string err;
  EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err)) << err;
  return t;
}

PostgresCluster Cluster(const std::string& full, const std::string& incr = "") {
  PostgresCluster c;
  c.metadata = {.name = "hippo", .ns = "db", .uid = "u1", .generation = 1};
  api::PgBackRestSpec pgbr;
  api::PgBackRestRepo repo{.name = "repo1", .s3 = {.bucket = "b", .endpoint = "s3", .region = "r"}};
  repo.schedules.full = full;
  repo.schedules.incremental = incr;
  pgbr.repos = {repo};
  c.spec.backups.pgbackrest = pgbr;
  return c;
}

const absl::Time kCreated = At("2026-12-04T00:30:00Z");

TEST(BackupScheduleTest, NothingBeforeTheFirstCronTimeThenOneBackupForIt) {
  const PostgresCluster c = Cluster("0 1 * * *");
  BackupSchedulePlan before = PlanScheduledBackups(c, kCreated, {}, At("2026-12-04T00:59:00Z"));
  EXPECT_FALSE(before.create.has_value());
  EXPECT_EQ(before.next, At("2026-12-04T01:00:00Z"));
  BackupSchedulePlan at = PlanScheduledBackups(c, kCreated, {}, At("2026-12-04T01:00:30Z"));
  ASSERT_TRUE(at.create.has_value());
  EXPECT_EQ(at.create->repo, "repo1");
  EXPECT_EQ(at.create->type, "full");
  EXPECT_EQ(at.create->at, At("2026-12-04T01:00:00Z"));
  EXPECT_EQ(at.next, At("2026-12-05T01:00:00Z"));
  // Once created, the same time never gives another.
  const std::vector<ScheduledBackup> made = {
      {.name = "x", .schedule = "repo1-full", .scheduled_at = at.create->at, .phase = "Complete"}};
  EXPECT_FALSE(PlanScheduledBackups(c, kCreated, made, At("2026-12-04T01:30:00Z")).create);
}

TEST(BackupScheduleTest, CronTimesBeforeTheClusterNeverCount) {
  const PostgresCluster c = Cluster("0 0 * * *");  // midnight; created at 00:30
  EXPECT_FALSE(PlanScheduledBackups(c, kCreated, {}, At("2026-12-04T12:00:00Z")).create);
}

TEST(BackupScheduleTest, MissedTimesGiveOneCatchUpForTheLatest) {
  const PostgresCluster c = Cluster("0 * * * *");
  const std::vector<ScheduledBackup> made = {{.name = "x",
                                              .schedule = "repo1-full",
                                              .scheduled_at = At("2026-12-04T01:00:00Z"),
                                              .phase = "Complete"}};
  BackupSchedulePlan plan = PlanScheduledBackups(c, kCreated, made, At("2026-12-04T05:10:00Z"));
  ASSERT_TRUE(plan.create.has_value());
  EXPECT_EQ(plan.create->at, At("2026-12-04T05:00:00Z"));
}

TEST(BackupScheduleTest, OneBackupAtATimeAndFullGoesFirst) {
  const PostgresCluster c = Cluster("0 1 * * *", "0 * * * *");
  BackupSchedulePlan both = PlanScheduledBackups(c, kCreated, {}, At("2026-12-04T01:00:10Z"));
  ASSERT_TRUE(both.create.has_value());
  EXPECT_EQ(both.create->type, "full");
  for (const char* phase : {"", "Pending", "Started"}) {
    const std::vector<ScheduledBackup> running = {{.name = "x",
                                                   .schedule = "repo1-full",
                                                   .scheduled_at = At("2026-12-04T01:00:00Z"),
                                                   .phase = phase}};
    EXPECT_FALSE(PlanScheduledBackups(c, kCreated, running, At("2026-12-04T01:00:20Z")).create)
        << phase;
  }
  // When the full is done, the incremental due at the same time follows.
  const std::vector<ScheduledBackup> done = {{.name = "x",
                                              .schedule = "repo1-full",
                                              .scheduled_at = At("2026-12-04T01:00:00Z"),
                                              .phase = "Complete"}};
  BackupSchedulePlan next = PlanScheduledBackups(c, kCreated, done, At("2026-12-04T01:05:00Z"));
  ASSERT_TRUE(next.create.has_value());
  EXPECT_EQ(next.create->type, "incr");
}

TEST(BackupScheduleTest, KeepsTheNewestFinishedObjectsPerSchedule) {
  const PostgresCluster c = Cluster("0 * * * *");
  std::vector<ScheduledBackup> made;
  for (int h = 1; h <= 8; ++h) {
    const std::string phase = h % 3 == 0 ? "Failed" : "Complete";  // 3, 6 failed
    made.push_back({.name = "b" + std::to_string(h),
                    .schedule = "repo1-full",
                    .scheduled_at = kCreated + absl::Hours(h),
                    .phase = phase});
  }
  made.push_back({.name = "other",  // another schedule's history is its own
                  .schedule = "repo1-incr",
                  .scheduled_at = kCreated,
                  .phase = "Complete"});
  BackupSchedulePlan plan = PlanScheduledBackups(c, kCreated, made, kCreated + absl::Hours(9));
  std::vector<std::string> removed = plan.remove;
  std::sort(removed.begin(), removed.end());
  // Complete: 8, 7, 5 kept; 4, 2, 1 removed. Failed: 6 kept; 3 removed.
  EXPECT_EQ(removed, (std::vector<std::string>{"b1", "b2", "b3", "b4"}));
}

TEST(BackupScheduleTest, TheObjectIsNamedByTheCronTimeAndOwnedByTheCluster) {
  const PostgresCluster c = Cluster("0 1 * * *");
  const Json b =
      BuildScheduledBackup(c, {.repo = "repo1", .type = "incr", .at = At("2026-12-04T01:00:00Z")});
  EXPECT_EQ(b["metadata"]["name"], "hippo-repo1-incr-29939100");
  EXPECT_EQ(b["metadata"]["annotations"][kScheduledAtAnnotation], "2026-12-04T01:00:00Z");
  EXPECT_EQ(b["metadata"]["labels"][kBackupScheduleLabel], "repo1-incr");
  EXPECT_EQ(b["metadata"]["ownerReferences"][0]["uid"], "u1");
  EXPECT_EQ(b["spec"]["repoName"], "repo1");
  EXPECT_EQ(b["spec"]["type"], "incr");
  EXPECT_TRUE(HasBackupSchedules(c));
  EXPECT_FALSE(HasBackupSchedules(Cluster("")));
}

TEST(BackupScheduleTest, TheStatusSummaryHasTheNewestOfEachTypePerRepository) {
  PostgresCluster c = Cluster("0 1 * * *");
  c.spec.backups.pgbackrest->repos.push_back(
      {.name = "repo2", .s3 = {.bucket = "b2", .endpoint = "s3", .region = "r"}});
  const std::vector<FinishedBackup> done = {
      {"f1", "repo1", "full", "L1F", "2026-12-04T01:00:05Z"},
      {"f2", "repo1", "full", "L2F", "2026-12-05T01:00:05Z"},
      {"i1", "repo1", "incr", "L2F_I1", "2026-12-05T07:00:05Z", "00000001000000000000002A",
       "2026-12-04T01:00:05Z"},
      {"x", "repo3", "full", "gone", "2026-12-06T01:00:05Z"},  // no longer in the spec
  };
  const std::vector<api::PgBackRestRepoStatus> repos = SummarizeBackups(c, done);
  // The newest backup of any type saw the repository last.
  EXPECT_EQ(repos[0].wal_archived_up_to, "00000001000000000000002A");
  EXPECT_EQ(repos[0].recoverable_from, "2026-12-04T01:00:05Z");
  EXPECT_EQ(repos[0].recoverable_to, "2026-12-05T07:00:05Z");
  ASSERT_EQ(repos.size(), 2u);
  EXPECT_EQ(repos[0].name, "repo1");
  ASSERT_TRUE(repos[0].full.has_value());
  EXPECT_EQ(repos[0].full->backup, "f2");
  EXPECT_EQ(repos[0].full->label, "L2F");
  ASSERT_TRUE(repos[0].incremental.has_value());
  EXPECT_EQ(repos[0].incremental->stop_time, "2026-12-05T07:00:05Z");
  EXPECT_FALSE(repos[0].differential.has_value());
  EXPECT_EQ(repos[1], (api::PgBackRestRepoStatus{.name = "repo2"}));
}

}  // namespace
}  // namespace quorum::postgrescluster
