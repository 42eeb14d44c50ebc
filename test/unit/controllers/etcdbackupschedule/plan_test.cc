// The schedule planner, table-style: when a backup is due (never before the
// schedule existed, never twice for one cron time, one catch-up after
// downtime), the next wake-up, history limits, retention, status.
#include "src/controllers/etcdbackupschedule/plan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace quorum::etcdbackupschedule {
namespace {

absl::Time At(const std::string& hhmmss) {  // on 2026-12-02
  absl::Time t;
  std::string err;
  EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, "2026-12-02T" + hhmmss + "Z", &t, &err)) << err;
  return t;
}

class PlanTest : public ::testing::Test {
 protected:
  PlanTest() {
    schedule_.metadata = {.name = "every", .ns = "db", .uid = "u", .generation = 1};
    schedule_.creation_timestamp = "2026-12-02T02:00:30Z";
    schedule_.spec.schedule = "* * * * *";
    schedule_.spec.destination.s3 = api::BackupS3{.bucket = "b"};
    cron_ = *api::CronSchedule::Parse(schedule_.spec.schedule);
  }
  SchedulePlan Plan(absl::Time now) {
    return PlanSchedule({.schedule = &schedule_, .cron = &cron_, .backups = backups_, .now = now});
  }
  // A backup for the cron time hh:mm:00, in `phase`; Complete ones took a snapshot at +5 s.
  void Add(const std::string& hhmm, std::string_view phase) {
    OwnedBackup b{
        .name = "every-" + hhmm, .scheduled_at = At(hhmm + ":00"), .phase = std::string(phase)};
    if (phase == api::kBackupComplete) {
      b.snapshot =
          api::BackupSnapshotStatus{.uri = "s3://b/" + hhmm, .taken_at = Rfc3339(At(hhmm + ":05"))};
    }
    if (phase == api::kBackupFailed) b.failure = "no healthy member";
    backups_.push_back(b);
  }
  // Marks every Complete backup's snapshot as recorded in status.
  void Record() {
    for (const OwnedBackup& b : backups_) {
      if (!b.snapshot) continue;
      schedule_.status.snapshots.push_back(
          {.backup = b.name, .uri = b.snapshot->uri, .taken_at = b.snapshot->taken_at});
    }
  }

  api::EtcdBackupSchedule schedule_;
  api::CronSchedule cron_ = *api::CronSchedule::Parse("* * * * *");
  std::vector<OwnedBackup> backups_;
};

std::string Names(const std::vector<api::ScheduledSnapshot>& v) {
  std::vector<std::string> out;
  for (const auto& s : v) out.push_back(s.backup);
  return absl::StrJoin(out, ",");
}

TEST_F(PlanTest, NothingIsDueBeforeTheFirstCronTimeAfterCreation) {
  const SchedulePlan p = Plan(At("02:00:40"));
  EXPECT_FALSE(p.create.has_value());
  EXPECT_EQ(p.next, At("02:01:00"));
  EXPECT_EQ(p.status.next_schedule_time, "2026-12-02T02:01:00Z");
  EXPECT_EQ(p.status.last_schedule_time, "");
}

TEST_F(PlanTest, CreatesOneBackupForTheCronTimeJustPassed) {
  const SchedulePlan p = Plan(At("02:01:02"));
  ASSERT_TRUE(p.create.has_value());
  EXPECT_EQ(*p.create, At("02:01:00"));
  EXPECT_EQ(p.status.last_schedule_time, "2026-12-02T02:01:00Z");
  EXPECT_EQ(p.next, At("02:02:00"));
}

TEST_F(PlanTest, NeverTwiceForOneCronTimeEvenWithAStaleStatus) {
  Add("02:01", api::kBackupPending);  // created; the status write was lost (crash)
  SchedulePlan p = Plan(At("02:01:30"));
  EXPECT_FALSE(p.create.has_value());
  EXPECT_EQ(p.status.last_schedule_time, "2026-12-02T02:01:00Z");
  backups_.clear();
  schedule_.status.last_schedule_time = "2026-12-02T02:01:00Z";  // or the object is gone
  p = Plan(At("02:01:59"));
  EXPECT_FALSE(p.create.has_value());
}

TEST_F(PlanTest, MissedCronTimesGiveOneCatchUpForTheLatest) {
  schedule_.status.last_schedule_time = "2026-12-02T02:01:00Z";
  const SchedulePlan p = Plan(At("02:45:10"));  // 44 cron times missed while down
  ASSERT_TRUE(p.create.has_value());
  EXPECT_EQ(*p.create, At("02:45:00"));
  EXPECT_EQ(p.next, At("02:46:00"));
}

TEST_F(PlanTest, AnUnfinishedBackupHoldsTheNextOneBackThenOneCatchUp) {
  Add("02:01", api::kBackupPending);  // the cluster is not Ready
  EXPECT_FALSE(Plan(At("02:05:10")).create.has_value());
  backups_.back().phase = api::kBackupStarted;
  EXPECT_FALSE(Plan(At("02:06:10")).create.has_value());
  backups_.back().phase = api::kBackupFailed;
  const SchedulePlan p = Plan(At("02:07:10"));
  ASSERT_TRUE(p.create.has_value());
  EXPECT_EQ(*p.create, At("02:07:00"));
}

TEST_F(PlanTest, HistoryLimitsDeleteOldObjectsOnceTheirSnapshotIsRecorded) {
  schedule_.spec.successful_jobs_history_limit = 2;
  schedule_.spec.failed_jobs_history_limit = 1;
  for (const char* m : {"02:01", "02:02", "02:03", "02:04"}) Add(m, api::kBackupComplete);
  for (const char* m : {"02:05", "02:06", "02:07"}) Add(m, api::kBackupFailed);
  Add("02:08", api::kBackupStarted);
  Add("02:00", api::kBackupPending);  // old but unfinished: never deleted
  SchedulePlan p = Plan(At("02:08:30"));
  // Failed beyond 1; Complete ones not yet recorded in status stay.
  EXPECT_EQ(absl::StrJoin(p.delete_backups, ","), "every-02:06,every-02:05");
  Record();
  p = Plan(At("02:08:30"));
  EXPECT_EQ(absl::StrJoin(p.delete_backups, ","),
            "every-02:06,every-02:05,every-02:02,every-02:01");
  EXPECT_TRUE(p.prune.empty());  // no retention rules: the snapshots stay
  EXPECT_EQ(Names(p.status.snapshots), "every-02:04,every-02:03,every-02:02,every-02:01");
}

TEST_F(PlanTest, KeepLastPrunesOlderSnapshotsAndTheirObjects) {
  schedule_.spec.keep_last = 2;
  schedule_.spec.successful_jobs_history_limit = 10;
  // Two snapshots whose objects are gone, recorded in status.
  schedule_.status.snapshots = {
      {.backup = "every-01:58", .uri = "s3://b/01:58", .taken_at = "2026-12-02T01:58:05Z"},
      {.backup = "every-01:59", .uri = "s3://b/01:59", .taken_at = "2026-12-02T01:59:05Z"}};
  Add("02:01", api::kBackupComplete);
  const SchedulePlan p = Plan(At("02:01:30"));
  EXPECT_EQ(Names(p.status.snapshots), "every-02:01,every-01:59");
  EXPECT_EQ(Names(p.prune), "every-01:58");
  EXPECT_TRUE(p.delete_backups.empty());
  EXPECT_EQ(p.status.last_successful_backup_time, "2026-12-02T02:01:05Z");
}

TEST_F(PlanTest, FailedBackupsNeverCountAsKept) {
  schedule_.spec.keep_last = 2;
  schedule_.spec.successful_jobs_history_limit = 10;
  schedule_.spec.failed_jobs_history_limit = 10;
  Add("02:01", api::kBackupComplete);
  Add("02:02", api::kBackupComplete);
  Add("02:03", api::kBackupComplete);
  Add("02:04", api::kBackupFailed);
  Add("02:05", api::kBackupFailed);
  const SchedulePlan p = Plan(At("02:05:30"));
  EXPECT_EQ(Names(p.status.snapshots), "every-02:03,every-02:02");
  EXPECT_EQ(Names(p.prune), "every-02:01");
  EXPECT_EQ(absl::StrJoin(p.delete_backups, ","), "every-02:01");  // its snapshot is gone
}

TEST_F(PlanTest, TheNewestSnapshotSurvivesAnyKeepWithin) {
  schedule_.spec.keep_within = absl::Minutes(1);
  Add("02:01", api::kBackupComplete);
  Add("02:02", api::kBackupComplete);
  const SchedulePlan p = Plan(At("05:00:00"));  // both far older than a minute
  EXPECT_EQ(Names(p.status.snapshots), "every-02:02");
  EXPECT_EQ(Names(p.prune), "every-02:01");
}

TEST_F(PlanTest, FailedConditionFollowsTheNewestFinishedBackup) {
  Add("02:01", api::kBackupComplete);
  Add("02:02", api::kBackupFailed);
  Add("02:03", api::kBackupStarted);
  SchedulePlan p = Plan(At("02:03:30"));
  ASSERT_EQ(p.status.conditions.size(), 2u);
  EXPECT_EQ(p.status.conditions[0].type, "Ready");
  EXPECT_EQ(p.status.conditions[0].status, "True");
  EXPECT_EQ(p.status.conditions[1].type, "Failed");
  EXPECT_EQ(p.status.conditions[1].status, "True");
  EXPECT_EQ(p.status.conditions[1].message, "EtcdBackup every-02:02 failed: no healthy member");
  Add("02:04", api::kBackupComplete);
  p = Plan(At("02:04:30"));
  EXPECT_EQ(p.status.conditions[1].status, "False");
}

TEST_F(PlanTest, ReplanningWithItsOwnStatusChangesNothing) {
  schedule_.spec.keep_last = 3;
  Add("02:01", api::kBackupComplete);
  Add("02:02", api::kBackupComplete);
  const SchedulePlan first = Plan(At("02:02:30"));
  schedule_.status = first.status;
  const SchedulePlan again = Plan(At("02:02:50"));
  EXPECT_FALSE(again.create.has_value());
  EXPECT_TRUE(again.prune.empty());
  EXPECT_TRUE(again.delete_backups.empty());
  EXPECT_EQ(again.status, first.status);  // zero writes between cron times
}

}  // namespace
}  // namespace quorum::etcdbackupschedule
