// The in-place restore's trigger: each new annotation value starts one when
// spec.backups.pgbackrest.restore.enabled, once; the status carries it on.
#include "src/controllers/postgrescluster/restore.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "src/controllers/postgrescluster/status.h"

namespace quorum::postgrescluster {
namespace {

PostgresCluster Cluster(const std::string& trigger, std::optional<bool> enabled,
                        std::optional<api::PgBackRestRestoreStatus> status = std::nullopt) {
  PostgresCluster c;
  c.metadata = {.name = "pg", .ns = "db", .generation = 1};
  if (!trigger.empty())
    c.metadata.annotations[std::string(api::kRestoreTriggerAnnotation)] = trigger;
  c.spec.instances = {{.name = "main", .replicas = 2}};
  api::PgBackRestSpec& pgbr = c.spec.backups.pgbackrest.emplace();
  pgbr.repos.push_back({.name = "repo1"});
  if (enabled.has_value()) pgbr.restore = {.enabled = *enabled, .repo_name = "repo1"};
  c.status.restore = std::move(status);
  return c;
}

api::PgBackRestRestoreStatus State(const char* id, const char* phase) {
  return {.id = id, .phase = phase, .started_at = "2026-12-04T10:00:00Z"};
}

TEST(PlanRestoreTest, ANewTriggerStartsOnceWhenEnabled) {
  const absl::Time now = absl::FromUnixSeconds(1796378400);  // 2026-12-04T10:00:00Z
  // No trigger: nothing, and a finished restore stays recorded.
  EXPECT_FALSE(PlanRestore(Cluster("", true), now).status.has_value());
  RestorePlan plan = PlanRestore(Cluster("", true, State("a", "Succeeded")), now);
  EXPECT_EQ(plan.status->phase, "Succeeded");
  EXPECT_FALSE(plan.started);
  // A new value starts one in Checking: nothing stops before the newest WAL
  // is archived (restore_check.h).
  plan = PlanRestore(Cluster("b", true, State("a", "Succeeded")), now);
  EXPECT_TRUE(plan.started);
  EXPECT_EQ(plan.status->id, "b");
  EXPECT_EQ(plan.status->phase, "Checking");
  EXPECT_EQ(plan.status->started_at, "2026-12-04T10:00:00Z");
  EXPECT_TRUE(plan.ignored.empty());
  // The same value again: carried on as recorded, whatever its phase.
  plan = PlanRestore(Cluster("b", true, State("b", "Restoring")), now);
  EXPECT_FALSE(plan.started);
  EXPECT_EQ(plan.status->phase, "Restoring");
  // A new value during a restore starts over from Stopping (the volumes are
  // gone: no WAL left to check); during Checking, from Checking.
  plan = PlanRestore(Cluster("c", true, State("b", "Restoring")), now);
  EXPECT_TRUE(plan.started);
  EXPECT_EQ(plan.status->phase, "Stopping");
  plan = PlanRestore(Cluster("c", true, State("b", "Stopping")), now);
  EXPECT_EQ(plan.status->phase, "Stopping");
  plan = PlanRestore(Cluster("c", true, State("b", "Checking")), now);
  EXPECT_EQ(plan.status->phase, "Checking");
  // Not enabled (or no restore at all): ignored, with the field to set.
  for (std::optional<bool> enabled : {std::optional<bool>(false), std::optional<bool>()}) {
    plan = PlanRestore(Cluster("d", enabled, State("b", "Succeeded")), now);
    EXPECT_FALSE(plan.started);
    EXPECT_EQ(plan.status->id, "b");
    EXPECT_TRUE(absl::StrContains(plan.ignored, "spec.backups.pgbackrest.restore.enabled"))
        << plan.ignored;
  }
}

// What status.backups knows of the repository refuses a restore that cannot
// succeed, before anything stops; unknown (no summary) lets it go.
TEST(PlanRestoreTest, ARestoreThatCannotSucceedFailsBeforeAnythingStops) {
  const absl::Time now = absl::FromUnixSeconds(1796378400);
  PostgresCluster c = Cluster("b", true);
  c.spec.backups.pgbackrest->restore->target.time = "2026-12-03T23:00:00Z";
  EXPECT_TRUE(PlanRestore(c, now).started);  // nothing known of repo1
  c.status.backup_repos = {{.name = "repo1"}};
  RestorePlan plan = PlanRestore(c, now);
  EXPECT_FALSE(plan.started);
  EXPECT_TRUE(plan.refused);
  EXPECT_EQ(plan.status->id, "b");
  EXPECT_EQ(plan.status->phase, "Failed");
  EXPECT_TRUE(absl::StrContains(plan.status->message, "holds no backup")) << plan.status->message;
  c.status.backup_repos[0].full =
      api::PgBackRestBackupRef{.backup = "f", .label = "L", .stop_time = "2026-12-04T01:00:05Z"};
  c.status.backup_repos[0].recoverable_from = "2026-12-04T01:00:05Z";
  plan = PlanRestore(c, now);
  EXPECT_EQ(plan.status->phase, "Failed");
  EXPECT_TRUE(absl::StrContains(plan.status->message, "is before the end of the oldest backup"))
      << plan.status->message;
  // A reachable time, or the end of the archive: it starts.
  c.spec.backups.pgbackrest->restore->target.time = "2026-12-04T01:30:00Z";
  EXPECT_TRUE(PlanRestore(c, now).started);
  c.spec.backups.pgbackrest->restore->target.time = "";
  EXPECT_TRUE(PlanRestore(c, now).started);
  // Issue 33: a time no WAL can reach yet, known or not what the repository
  // holds, is refused before anything stops.
  c.spec.backups.pgbackrest->restore->target.time = "2026-12-04T10:00:01Z";
  plan = PlanRestore(c, now);
  EXPECT_TRUE(plan.refused);
  EXPECT_TRUE(absl::StrContains(plan.status->message,
                                "target.time 2026-12-04T10:00:01Z is in the future (now "
                                "2026-12-04T10:00:00Z)"))
      << plan.status->message;
  c.status.backup_repos.clear();
  EXPECT_TRUE(PlanRestore(c, now).refused);
  // Refused once: the same trigger again is carried on as recorded.
  c.status.restore = plan.status;
  EXPECT_FALSE(PlanRestore(c, now).refused);
}

TEST(PlanRestoreTest, ARestoreWhoseSpecIsGoneIsBlocked) {
  EXPECT_TRUE(RestoreIn(Cluster("a", true, State("a", "Stopping")), api::kRestoreStopping));
  EXPECT_FALSE(RestoreIn(Cluster("a", true, State("a", "Stopping")), api::kRestoreRestoring));
  EXPECT_EQ(RestoreBlocked(Cluster("a", true, State("a", "Restoring"))), "");
  // Disabled or removed mid-way: nothing more is done, and the status says why.
  for (std::optional<bool> enabled : {std::optional<bool>(false), std::optional<bool>()}) {
    for (const char* phase : {"Stopping", "Restoring"}) {
      const std::string why = RestoreBlocked(Cluster("a", enabled, State("a", phase)));
      EXPECT_TRUE(absl::StrContains(why, "spec.backups.pgbackrest.restore")) << why;
      EXPECT_TRUE(absl::StrContains(why, "stay stopped")) << why;
    }
  }
  // Finished: nothing to block.
  EXPECT_EQ(RestoreBlocked(Cluster("a", std::nullopt, State("a", "Succeeded"))), "");
}

TEST(PlanRestoreTest, ARestoreKeepsTheClusterNotReady) {
  for (const char* phase : {"Stopping", "Restoring"}) {
    const PostgresCluster cluster = Cluster("a", true, State("a", phase));
    DcsResolution dcs{.ready = true};
    const api::PostgresClusterStatus s = BuildStatus(
        {.cluster = &cluster, .dcs = &dcs, .primary = "pg-main-0", .primary_ready = true});
    const api::Condition* ready = api::FindCondition(s, "Ready");
    ASSERT_NE(ready, nullptr);
    EXPECT_EQ(ready->status, "False") << phase;
    EXPECT_EQ(ready->reason, "Restoring") << phase;
    ASSERT_TRUE(s.restore.has_value());
    EXPECT_EQ(s.restore->phase, phase);
  }
}

}  // namespace
}  // namespace quorum::postgrescluster
