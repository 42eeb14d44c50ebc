// The major upgrade's plan (major_upgrade.h): each phase from what the
// members, pods and Job show, the spec the members run meanwhile, and the
// replicas each instance set gets.
#include "src/controllers/postgrescluster/major_upgrade.h"

#include <gtest/gtest.h>

#include "api/postgrescluster.h"
#include "src/controllers/postgrescluster/upgrade_job.h"

namespace quorum::postgrescluster {
namespace {

using api::PostgresMajorUpgradeStatus;

const absl::Time kNow = absl::FromUnixSeconds(1796379300);  // 2026-12-04T10:15:00Z
constexpr char kNowText[] = "2026-12-04T10:15:00Z";

PostgresCluster Cluster(int spec, int data) {
  PostgresCluster c;
  c.metadata.name = "pg";
  c.metadata.ns = "db";
  c.spec.postgres_version = spec;
  c.spec.instances = {{.name = "main", .replicas = 3}, {.name = "big", .replicas = 1}};
  c.status.postgres_version = data;
  return c;
}

Members Leading(const std::string& primary, std::vector<std::string> streaming = {}) {
  Members m;
  m.primary = primary;
  m.primary_ready = !primary.empty();
  if (!primary.empty()) {
    m.roles[primary] = patroni::ObservedRole{.reachable = true, .role = "primary"};
    m.roles[primary].streaming_to = std::move(streaming);
  }
  return m;
}

PostgresMajorUpgradeStatus Underway(const char* phase, const char* member = "pg-main-0") {
  return {.from = 15,
          .to = 17,
          .phase = phase,
          .member = member,
          .from_image = "ghcr.io/quorum-dev/postgres:15-patroni4",
          .started_at = kNowText};
}

UpgradeStep Plan(const PostgresCluster& c, const Members& m, std::set<std::string> pods = {},
                 std::optional<controllers::JobOutcome> job = std::nullopt, absl::Time now = kNow) {
  return PlanMajorUpgrade({.cluster = &c,
                           .members = &m,
                           .pods = std::move(pods),
                           .running_image = "ghcr.io/quorum-dev/postgres:15-patroni4",
                           .job = std::move(job),
                           .now = now});
}

TEST(MajorUpgradeTest, NothingHappensWhileTheSpecIsTheDatasMajor) {
  PostgresCluster c = Cluster(17, 0);  // never recorded: the spec's
  UpgradeStep s = Plan(c, Leading("pg-main-1"));
  EXPECT_EQ(s.data_major, 17);
  EXPECT_FALSE(s.status.has_value());
  EXPECT_EQ(s.action, UpgradeStep::kNone);
  EXPECT_TRUE(s.event_reason.empty());
}

TEST(MajorUpgradeTest, APrimaryOnAnOrdinalZeroPodGoesStraightToStoppingTheOthers) {
  for (const char* primary : {"pg-main-0", "pg-big-0"}) {
    UpgradeStep s = Plan(Cluster(17, 15), Leading(primary));
    ASSERT_TRUE(s.status.has_value());
    EXPECT_EQ(s.status->phase, api::kUpgradeStoppingReplicas) << primary;
    EXPECT_EQ(s.status->member, primary);
    EXPECT_EQ(s.status->from, 15);
    EXPECT_EQ(s.status->to, 17);
    EXPECT_EQ(s.status->from_image, "ghcr.io/quorum-dev/postgres:15-patroni4");
    EXPECT_EQ(s.status->started_at, kNowText);
    EXPECT_EQ(s.data_major, 15);
    EXPECT_EQ(s.event_reason, "MajorUpgradeStopping");
  }
}

TEST(MajorUpgradeTest, OtherwiseASwitchoverToAStreamingOrdinalZeroPodComesFirst) {
  // pg-main-2 leads; pg-main-0 does not stream yet: wait (nothing asked).
  UpgradeStep wait = Plan(Cluster(17, 15), Leading("pg-main-2", {"pg-main-1"}));
  EXPECT_EQ(wait.status->phase, api::kUpgradePreparing);
  EXPECT_EQ(wait.action, UpgradeStep::kNone);
  EXPECT_EQ(wait.event_reason, "MajorUpgradeStarted");
  EXPECT_TRUE(wait.recheck_after.has_value());
  // It streams: asked once, then waited for.
  UpgradeStep ask = Plan(Cluster(17, 15), Leading("pg-main-2", {"pg-main-1", "pg-main-0"}));
  EXPECT_EQ(ask.action, UpgradeStep::kSwitchover);
  EXPECT_EQ(ask.switchover_to, "pg-main-0");
  EXPECT_EQ(ask.status->member, "pg-main-0");
  PostgresCluster asked = Cluster(17, 15);
  asked.status.major_upgrade = ask.status;
  UpgradeStep again = Plan(asked, Leading("pg-main-2", {"pg-main-1", "pg-main-0"}));
  EXPECT_EQ(again.action, UpgradeStep::kNone);
  EXPECT_EQ(again.status->phase, api::kUpgradePreparing);
  // Done: the next look stops the others.
  EXPECT_EQ(Plan(asked, Leading("pg-main-0")).status->phase, api::kUpgradeStoppingReplicas);
  // Past the bound without it: Failed, nothing stopped.
  UpgradeStep late = Plan(asked, Leading("pg-main-2", {"pg-main-1"}), {}, std::nullopt,
                          kNow + kUpgradeSwitchoverWait);
  EXPECT_EQ(late.status->phase, api::kUpgradeFailed);
  EXPECT_TRUE(late.event_warning);
  EXPECT_NE(late.status->message.find("nothing was stopped"), std::string::npos);
}

TEST(MajorUpgradeTest, AClusterWithBackupsIsNotUpgradedYet) {
  PostgresCluster c = Cluster(17, 15);
  c.spec.backups.pgbackrest.emplace();
  UpgradeStep s = Plan(c, Leading("pg-main-0"));
  EXPECT_EQ(s.status->phase, api::kUpgradeFailed);
  EXPECT_EQ(s.action, UpgradeStep::kNone);
  EXPECT_EQ(s.data_major, 15);
  EXPECT_NE(s.status->message.find("nothing was stopped"), std::string::npos);
}

TEST(MajorUpgradeTest, AnEarlierAttemptsJobIsDeletedBeforeAnythingElse) {
  UpgradeStep s =
      Plan(Cluster(17, 15), Leading("pg-main-0"), {}, controllers::JobOutcome{.failed = true});
  EXPECT_EQ(s.action, UpgradeStep::kDeleteJob);
  EXPECT_EQ(s.status->phase, api::kUpgradePreparing);
}

TEST(MajorUpgradeTest, TheReplicasStopFirstThenThePrimaryThenTheJobRuns) {
  PostgresCluster c = Cluster(17, 15);
  c.status.major_upgrade = Underway(api::kUpgradeStoppingReplicas);
  EXPECT_EQ(Plan(c, Leading("pg-main-0"), {"pg-main-0", "pg-main-1"}).status->phase,
            api::kUpgradeStoppingReplicas);
  // Alone but not leading (a replica was promoted meanwhile): its data may
  // be behind, so it must lead again first.
  EXPECT_EQ(Plan(c, Leading(""), {"pg-main-0"}).status->phase, api::kUpgradeStoppingReplicas);
  EXPECT_EQ(Plan(c, Leading(""), {}).status->phase, api::kUpgradeStoppingReplicas);
  EXPECT_EQ(Plan(c, Leading("pg-main-0"), {"pg-main-0"}).status->phase, api::kUpgradeStopping);
  c.status.major_upgrade = Underway(api::kUpgradeStopping);
  EXPECT_EQ(Plan(c, Leading("pg-main-0"), {"pg-main-0"}).status->phase, api::kUpgradeStopping);
  UpgradeStep run = Plan(c, Leading(""), {});
  EXPECT_EQ(run.status->phase, api::kUpgradeUpgrading);
  EXPECT_EQ(run.action, UpgradeStep::kCreateJob);
}

TEST(MajorUpgradeTest, TheJobsEndDecides) {
  PostgresCluster c = Cluster(17, 15);
  c.status.major_upgrade = Underway(api::kUpgradeUpgrading);
  EXPECT_EQ(Plan(c, Leading("")).action, UpgradeStep::kCreateJob);
  EXPECT_EQ(Plan(c, Leading(""), {}, controllers::JobOutcome{}).action, UpgradeStep::kCreateJob)
      << "running: creating it again is a no-op";
  UpgradeStep ok = Plan(c, Leading(""), {}, controllers::JobOutcome{.complete = true});
  EXPECT_EQ(ok.action, UpgradeStep::kClearDcs);
  EXPECT_EQ(ok.status->phase, api::kUpgradeStarting);
  EXPECT_EQ(ok.data_major, 15) << "the new major counts once it leads";
  UpgradeStep bad = Plan(c, Leading(""), {},
                         controllers::JobOutcome{.failed = true, .message = "extension missing"});
  EXPECT_EQ(bad.status->phase, api::kUpgradeFailed);
  EXPECT_NE(bad.status->message.find("extension missing"), std::string::npos);
  EXPECT_EQ(bad.status->finished_at, kNowText);
  EXPECT_EQ(bad.data_major, 15);
}

TEST(MajorUpgradeTest, StartingEndsWhenTheMemberLeadsOnTheNewMajor) {
  PostgresCluster c = Cluster(17, 15);
  c.status.major_upgrade = Underway(api::kUpgradeStarting);
  EXPECT_EQ(Plan(c, Leading(""), {"pg-main-0"}).status->phase, api::kUpgradeStarting);
  UpgradeStep done = Plan(c, Leading("pg-main-0"), {"pg-main-0"});
  EXPECT_EQ(done.status->phase, api::kUpgradeSucceeded);
  EXPECT_EQ(done.data_major, 17);
  EXPECT_EQ(done.event_reason, "MajorUpgradeSucceeded");
}

TEST(MajorUpgradeTest, AFailedUpgradeIsNotRetriedUntilTheSpecChangesAgain) {
  PostgresCluster c = Cluster(17, 15);
  c.status.major_upgrade = Underway(api::kUpgradeFailed);
  UpgradeStep s = Plan(c, Leading("pg-main-0"));
  EXPECT_EQ(s.status->phase, api::kUpgradeFailed);
  EXPECT_EQ(s.action, UpgradeStep::kNone);
  // Set back to 15: the record goes; then to 17 again: a new attempt.
  c.spec.postgres_version = 15;
  UpgradeStep back = Plan(c, Leading("pg-main-0"));
  EXPECT_FALSE(back.status.has_value());
  EXPECT_EQ(back.event_reason, "MajorUpgradeAbandoned");
  c.status.major_upgrade = back.status;
  c.spec.postgres_version = 17;
  EXPECT_EQ(Plan(c, Leading("pg-main-0")).status->phase, api::kUpgradeStoppingReplicas);
}

TEST(MajorUpgradeTest, TheMembersRunTheDatasMajorUntilTheJobSucceeded) {
  PostgresCluster c = Cluster(17, 15);
  c.spec.image = "";
  for (const char* phase : {api::kUpgradePreparing, api::kUpgradeStoppingReplicas,
                            api::kUpgradeStopping, api::kUpgradeUpgrading, api::kUpgradeFailed}) {
    PostgresCluster v = c;
    v.status.major_upgrade = Underway(phase);
    ApplyRunningView(v, "running:image");
    EXPECT_EQ(v.spec.postgres_version, 15) << phase;
    EXPECT_EQ(v.spec.image, "ghcr.io/quorum-dev/postgres:15-patroni4") << phase;
  }
  PostgresCluster starting = c;
  starting.status.major_upgrade = Underway(api::kUpgradeStarting);
  ApplyRunningView(starting, "running:image");
  EXPECT_EQ(starting.spec.postgres_version, 17);
  EXPECT_EQ(starting.spec.image, "");
  // No record (a downgrade the webhook would refuse): the data's major, the
  // image the StatefulSet runs.
  PostgresCluster down = Cluster(15, 17);
  ApplyRunningView(down, "running:image");
  EXPECT_EQ(down.spec.postgres_version, 17);
  EXPECT_EQ(down.spec.image, "running:image");
  PostgresCluster same = Cluster(17, 17);
  same.spec.image = "mine";
  ApplyRunningView(same, "running:image");
  EXPECT_EQ(same.spec.image, "mine");
}

TEST(MajorUpgradeTest, ReplicasFollowThePhase) {
  PostgresCluster c = Cluster(17, 15);
  EXPECT_EQ(UpgradeReplicas(c, "main"), std::nullopt);
  struct Case {
    const char* phase;
    std::optional<int> main, big;
  };
  const Case cases[] = {{api::kUpgradePreparing, std::nullopt, std::nullopt},
                        {api::kUpgradeStoppingReplicas, 1, 0},
                        {api::kUpgradeStopping, 0, 0},
                        {api::kUpgradeUpgrading, 0, 0},
                        {api::kUpgradeStarting, 1, 0},
                        {api::kUpgradeSucceeded, std::nullopt, std::nullopt},
                        {api::kUpgradeFailed, std::nullopt, std::nullopt}};
  for (const Case& k : cases) {
    c.status.major_upgrade = Underway(k.phase);
    EXPECT_EQ(UpgradeReplicas(c, "main"), k.main) << k.phase;
    EXPECT_EQ(UpgradeReplicas(c, "big"), k.big) << k.phase;
  }
  c.status.major_upgrade = Underway(api::kUpgradeStarting, "pg-big-0");
  EXPECT_EQ(UpgradeReplicas(c, "main"), 0);
  EXPECT_EQ(UpgradeReplicas(c, "big"), 1);
}

TEST(UpgradeJobTest, RunsTheNewImageOnTheMembersVolumeAsTheMemberDoes) {
  PostgresCluster c = Cluster(17, 15);
  c.metadata.uid = "u-1";
  const Json job = BuildUpgradeJob(c, Underway(api::kUpgradeUpgrading, "pg-big-0"));
  EXPECT_EQ(job["metadata"]["name"], "pg-upgrade");
  EXPECT_EQ(job["metadata"]["ownerReferences"][0]["uid"], "u-1");
  const Json& pod = job["spec"]["template"]["spec"];
  const Json& container = pod["containers"][0];
  EXPECT_EQ(container["image"], "ghcr.io/quorum-dev/postgres:17-patroni4");
  const Json& command = container["command"];
  ASSERT_EQ(command.size(), 8u);
  EXPECT_EQ(command[4], "15");
  EXPECT_EQ(command[5], "17");
  EXPECT_EQ(command[6], "/pgdata/pg15");
  EXPECT_EQ(command[7], "/pgdata/pg17");
  EXPECT_EQ(pod["volumes"][0]["persistentVolumeClaim"]["claimName"], "pgdata-pg-big-0");
  // A recursive fsGroup change would leave the data directory group-writable.
  EXPECT_EQ(pod["securityContext"]["fsGroupChangePolicy"], "OnRootMismatch");
  EXPECT_EQ(pod["securityContext"]["runAsUser"], 999);
  EXPECT_FALSE(pod.value("automountServiceAccountToken", true));
  // Not a member: no Service, PDB or member count takes its pod for one.
  EXPECT_FALSE(
      job["spec"]["template"]["metadata"]["labels"].contains(std::string(api::kClusterLabel)));
}

}  // namespace
}  // namespace quorum::postgrescluster
