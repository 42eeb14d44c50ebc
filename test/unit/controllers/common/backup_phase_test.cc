#include "src/controllers/common/backup_phase.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/base/clock.h"
#include "src/controllers/common/kube_fields.h"
#include "src/runtime/conditions.h"

namespace quorum::controllers {
namespace {

using Json = nlohmann::json;

// A kind of its own: the lifecycle knows nothing of etcd or Postgres.
struct TestStatus {
  int64_t observed_generation = 0;
  std::string phase;
  std::string job_name;
  std::vector<api::Condition> conditions;
  std::string report;
  bool operator==(const TestStatus&) const = default;
};

BackupPhaseKind<TestStatus> Kind(const std::string& wait_reason) {
  return {.job_name = "b-job",
          .wait = {wait_reason, wait_reason.empty() ? "" : "waiting: " + wait_reason},
          .created_message = "created",
          .running_message = "running",
          .complete_reason = "Stored",
          .failed_reason = "JobFailed",
          .failed_message_limit = 4,
          .read_report = [](const std::string& report, TestStatus& s) -> BackupReport {
            if (report.empty()) return {.message = "no report"};
            s.report = report;
            return {.readable = true, .message = "stored " + report};
          }};
}

// The reconciler's view of time: the backup's age is the clock's now minus
// its creationTimestamp. Each row advances a FakeClock (nothing sleeps),
// reconciles with the cluster as the row says, and keeps the status written.
TEST(BackupPhaseTest, ABackupThatCannotStartWithinTheBoundFailsByTheClock) {
  FakeClock clock;
  const Json stored = {{"metadata", {{"creationTimestamp", runtime::Rfc3339(clock.Now())}}}};
  struct Row {
    absl::Duration advance;
    const char* wait;  // "" : the cluster is ready for a backup
    const char* phase;
    const char* reason;
    std::optional<absl::Duration> recheck;
  } rows[] = {
      {absl::ZeroDuration(), "ClusterNotFound", "Pending", "ClusterNotFound", absl::Minutes(10)},
      {absl::Minutes(4), "ClusterNotReady", "Pending", "ClusterNotReady", absl::Minutes(6)},
      {absl::Seconds(359), "ClusterNotReady", "Pending", "ClusterNotReady", absl::Seconds(1)},
      {absl::Seconds(1), "ClusterNotReady", "Failed", "StartTimeout", std::nullopt},
      {absl::Hours(1), "", "Failed", "StartTimeout", std::nullopt},  // final: never starts late
  };
  TestStatus status;
  for (const Row& r : rows) {
    clock.Advance(r.advance);
    const BackupMoment at{.now = runtime::Rfc3339(clock.Now()), .age = Age(stored, clock.Now())};
    const BackupPhasePlan<TestStatus> p =
        PlanBackupPhase(status, 1, std::nullopt, at, Kind(r.wait));
    const std::string row = absl::StrCat("at +", absl::FormatDuration(Age(stored, clock.Now())));
    EXPECT_EQ(p.status.phase, r.phase) << row;
    EXPECT_FALSE(p.create_job) << row;
    ASSERT_EQ(p.status.conditions.size(), 2u) << row;
    EXPECT_EQ(p.status.conditions[1].reason, r.reason) << row;
    EXPECT_EQ(p.recheck_after, r.recheck) << row;
    status = p.status;
  }
  EXPECT_EQ(status.conditions[1].message, "not started within 10m: waiting: ClusterNotReady");
  EXPECT_EQ(status.conditions[1].status, "True");
}

TEST(BackupPhaseTest, AClusterReadyJustInTimeStartsAndTheBoundNoLongerApplies) {
  FakeClock clock;
  const Json stored = {{"metadata", {{"creationTimestamp", runtime::Rfc3339(clock.Now())}}}};
  clock.Advance(absl::Minutes(9) + absl::Seconds(59));
  BackupPhasePlan<TestStatus> p = PlanBackupPhase(
      TestStatus{}, 1, std::nullopt, {.now = "t1", .age = Age(stored, clock.Now())}, Kind(""));
  EXPECT_TRUE(p.create_job);
  EXPECT_EQ(p.status.phase, "Started");
  EXPECT_EQ(p.status.job_name, "b-job");
  EXPECT_EQ(p.status.conditions[0].reason, "JobCreated");
  clock.Advance(absl::Hours(2));
  p = PlanBackupPhase(p.status, 1, JobOutcome{}, {.now = "t2", .age = Age(stored, clock.Now())},
                      Kind("ClusterNotReady"));
  EXPECT_FALSE(p.create_job);
  EXPECT_EQ(p.status.phase, "Started") << "a running Job is not timed out by the start bound";
  EXPECT_EQ(p.status.conditions[0].reason, "JobRunning");
  EXPECT_EQ(p.status.conditions[0].last_transition_time, "t1") << "status unchanged: kept";
}

TEST(BackupPhaseTest, TheJobsOutcomeDecidesTheFinalPhase) {
  struct Case {
    const char* name;
    JobOutcome job;
    const char* phase;
    const char* reason;
    const char* message;
    const char* report;
  } cases[] = {
      {"report read", {.complete = true, .message = "r1"}, "Complete", "Stored", "stored r1", "r1"},
      {"report unreadable", {.complete = true}, "Failed", "ResultUnreadable", "no report", ""},
      {"failed, message cut",
       {.failed = true, .message = "boom!"},
       "Failed",
       "JobFailed",
       "boom",
       ""},
      {"failed, no message", {.failed = true}, "Failed", "JobFailed", "the Job failed", ""},
  };
  for (const Case& c : cases) {
    const BackupPhasePlan<TestStatus> p =
        PlanBackupPhase(TestStatus{.phase = "Started", .job_name = "b-job"}, 2, c.job,
                        {.now = "t", .age = absl::Hours(5)}, Kind(""));
    EXPECT_EQ(p.status.phase, c.phase) << c.name;
    EXPECT_EQ(p.status.observed_generation, 2) << c.name;
    EXPECT_EQ(p.status.conditions[0].status, c.phase == std::string("Complete") ? "True" : "False")
        << c.name;
    EXPECT_EQ(p.status.conditions[1].status, c.phase == std::string("Failed") ? "True" : "False")
        << c.name;
    EXPECT_EQ(p.status.conditions[0].reason, c.reason) << c.name;
    EXPECT_EQ(p.status.conditions[0].message, c.message) << c.name;
    EXPECT_EQ(p.status.report, c.report) << c.name;
    const BackupPhasePlan<TestStatus> again =
        PlanBackupPhase(p.status, 3, JobOutcome{}, {.now = "later"}, Kind("Gone"));
    EXPECT_EQ(again.status, p.status) << c.name << ": final, written once";
  }
}

}  // namespace
}  // namespace quorum::controllers
