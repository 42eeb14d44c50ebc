// The backup metrics' values, table-driven: the last success and the
// schedule's period at it, for EtcdBackupSchedules and PostgresClusters.
#include "src/controllers/common/backup_metrics.h"

#include <gtest/gtest.h>

#include <string>

namespace quorum::controllers {
namespace {

absl::Time At(const std::string& rfc3339) {
  absl::Time t;
  std::string err;
  EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err)) << err;
  return t;
}

struct PeriodCase {
  const char* name;
  const char* cron;
  const char* last_success;  // "" none
  const char* now;
  absl::Duration want;
};

TEST(SchedulePeriodTest, IsThePeriodThatHoldsTheLastSuccess) {
  const absl::Duration day = absl::Hours(24);
  const PeriodCase cases[] = {
      {"hourly", "0 * * * *", "2024-03-01T10:05:00Z", "2024-03-01T10:30:00Z", absl::Hours(1)},
      {"every 15 minutes", "*/15 * * * *", "2024-03-01T10:01:00Z", "2024-03-01T10:02:00Z",
       absl::Minutes(15)},
      {"daily", "@daily", "2024-03-01T00:20:00Z", "2024-03-03T00:00:00Z", day},
      // Friday's backup of a weekdays-only schedule is due again on Monday:
      // the weekend is no gap, though the next two firings are a day apart.
      {"weekdays, after Friday's", "0 3 * * 1-5", "2024-03-01T03:10:00Z", "2024-03-02T12:00:00Z",
       3 * day},
      {"weekdays, after Thursday's", "0 3 * * 1-5", "2024-02-29T03:10:00Z", "2024-03-02T12:00:00Z",
       day},
      // Monday's firing came and its backup is still running: the measure
      // stays Friday's period, so the alert does not fire early.
      {"weekdays, Monday's running", "0 3 * * 1-5", "2024-03-01T03:10:00Z", "2024-03-04T03:05:00Z",
       3 * day},
      {"monthly, in February", "0 0 1 * *", "2024-02-01T00:30:00Z", "2024-02-10T00:00:00Z",
       29 * day},
      {"no success yet: the period of now", "0 3 * * 1-5", "", "2024-03-02T12:00:00Z", 3 * day},
      {"no success yet, leap days only", "0 0 29 2 *", "", "2024-03-01T00:00:00Z",
       (4 * 365 + 1) * day},
  };
  for (const PeriodCase& c : cases) {
    absl::StatusOr<api::CronSchedule> schedule = api::CronSchedule::Parse(c.cron);
    ASSERT_TRUE(schedule.ok()) << c.name;
    std::optional<absl::Time> last;
    if (*c.last_success != '\0') last = At(c.last_success);
    EXPECT_EQ(SchedulePeriod(*schedule, last, At(c.now)), c.want) << c.name;
  }
}

TEST(EtcdBackupScheduleBackupStateTest, ReadsTheLastSuccessAndThePeriodAtIt) {
  api::EtcdBackupSchedule s;
  s.spec.schedule = "0 3 * * 1-5";
  const absl::Time now = At("2024-03-02T12:00:00Z");
  EXPECT_EQ(EtcdBackupScheduleBackupState(s, now),
            (BackupState{std::nullopt, absl::Hours(72)}));  // never succeeded
  s.status.last_successful_backup_time = "2024-02-29T03:10:00Z";
  EXPECT_EQ(EtcdBackupScheduleBackupState(s, now),
            (BackupState{At("2024-02-29T03:10:00Z"), absl::Hours(24)}));
  s.status.last_successful_backup_time = "yesterday";
  EXPECT_EQ(EtcdBackupScheduleBackupState(s, now).last_success, std::nullopt);
  s.spec.schedule = "not cron";
  EXPECT_EQ(EtcdBackupScheduleBackupState(s, now).interval, std::nullopt);
}

api::PgBackRestBackupRef Stopped(const char* at) { return {.stop_time = at}; }

api::PostgresCluster TwoRepos() {
  api::PostgresCluster c;
  c.spec.backups.pgbackrest.emplace();
  api::PgBackRestRepo& repo1 = c.spec.backups.pgbackrest->repos.emplace_back();
  repo1.name = "repo1";
  repo1.schedules = {.full = "0 1 * * 0", .differential = "0 1 * * 1-6"};
  api::PgBackRestRepo& repo2 = c.spec.backups.pgbackrest->repos.emplace_back();
  repo2.name = "repo2";
  repo2.schedules = {.incremental = "0 * * * *"};
  c.status.backup_repos = {
      {.name = "repo1",
       .full = Stopped("2024-03-03T01:20:00Z"),
       .differential = Stopped("2024-03-04T01:10:00Z")},
      {.name = "repo2", .incremental = Stopped("2024-03-04T05:02:00Z")},
  };
  return c;
}

TEST(PostgresClusterBackupStateTest, TakesTheNewestStopTimeAndTheShortestPeriod) {
  EXPECT_EQ(PostgresClusterBackupState(TwoRepos(), At("2024-03-04T05:30:00Z")),
            (BackupState{At("2024-03-04T05:02:00Z"), absl::Hours(1)}));
}

TEST(PostgresClusterBackupStateTest, ScheduledButNeverBackedUpHasOnlyAnInterval) {
  api::PostgresCluster c = TwoRepos();
  c.status.backup_repos.clear();
  EXPECT_EQ(PostgresClusterBackupState(c, At("2024-03-04T05:30:00Z")),
            (BackupState{std::nullopt, absl::Hours(1)}));
}

TEST(PostgresClusterBackupStateTest, IsAbsentWithoutSchedules) {
  api::PostgresCluster none;  // no spec.backups at all
  EXPECT_EQ(PostgresClusterBackupState(none, absl::UnixEpoch()), std::nullopt);
  api::PostgresCluster manual = TwoRepos();  // backups, but only taken by hand
  for (api::PgBackRestRepo& r : manual.spec.backups.pgbackrest->repos) r.schedules = {};
  EXPECT_EQ(PostgresClusterBackupState(manual, absl::UnixEpoch()), std::nullopt);
}

TEST(PostgresClusterBackupStateTest, IgnoresAStopTimeThatDoesNotParse) {
  api::PostgresCluster c = TwoRepos();
  c.status.backup_repos[1].incremental = Stopped("soon");
  EXPECT_EQ(PostgresClusterBackupState(c, At("2024-03-04T05:30:00Z"))->last_success,
            At("2024-03-04T01:10:00Z"));
}

}  // namespace
}  // namespace quorum::controllers
