// The Ready condition says whether writes through the primary Service can
// succeed: the DCS, a leader that runs writable, its pod Ready, every member.
#include "src/controllers/postgrescluster/status.h"

#include <gtest/gtest.h>

#include "absl/time/clock.h"

namespace quorum::postgrescluster {
namespace {

struct Case {
  const char* name;
  bool dcs_ready;
  std::string primary;
  bool primary_ready;
  int ready_replicas;
  std::string problem;
  std::string want_status;
  std::string want_reason;
  std::string leftover_claim = "";  // one claim an earlier cluster left
};

TEST(StatusTest, ReadyFollowsTheWritablePrimary) {
  const std::vector<Case> cases = {
      {"all well", true, "pg-main-0", true, 2, "", "True", "AllInstancesReady"},
      {"DCS down", false, "pg-main-0", true, 2, "", "False", "DCSNotReady"},
      {"a problem", true, "pg-main-0", true, 2, "labels", "False", "Error"},
      {"no leader", true, "", false, 2, "", "False", "NoPrimary"},
      // The StatefulSet still counts the crashed primary ready: its pod
      // says otherwise first.
      {"primary pod not Ready", true, "pg-main-0", false, 2, "", "False", "PrimaryNotReady"},
      {"a replica not ready", true, "pg-main-0", true, 1, "", "False", "InstancesNotReady"},
      // Claims of an earlier cluster hold a set back: that comes first.
      {"leftover claims", true, "", false, 0, "labels", "False", "LeftoverClaims",
       "pgdata-pg-main-0"},
  };
  for (const Case& c : cases) {
    PostgresCluster cluster;
    cluster.metadata = {.name = "pg", .ns = "db", .generation = 1};
    cluster.spec.instances = {{.name = "main", .replicas = 2}};
    DcsResolution dcs{.ready = c.dcs_ready, .reason = "r", .message = "m"};
    const Json sts = {{"metadata", {{"generation", 1}}},
                      {"status",
                       {{"observedGeneration", 1},
                        {"replicas", 2},
                        {"readyReplicas", c.ready_replicas},
                        {"updatedReplicas", 2}}}};
    const api::PostgresClusterStatus s = BuildStatus(
        {.cluster = &cluster,
         .dcs = &dcs,
         .statefulsets = {{"main", sts}},
         .primary = c.primary,
         .primary_ready = c.primary_ready,
         .problem = c.problem,
         .leftover_claims = c.leftover_claim.empty() ? std::vector<std::string>{}
                                                     : std::vector<std::string>{c.leftover_claim},
         .now = absl::Now()});
    const api::Condition* ready = api::FindCondition(s, "Ready");
    ASSERT_NE(ready, nullptr) << c.name;
    EXPECT_EQ(ready->status, c.want_status) << c.name;
    EXPECT_EQ(ready->reason, c.want_reason) << c.name;
  }
}

TEST(StatusTest, LeftoverClaimsNameTheClaimsAndTheCommand) {
  const std::string m = LeftoverClaimsProblem({"pgdata-pg-main-0", "pgdata-pg-main-1"});
  EXPECT_NE(m.find("pgdata-pg-main-0, pgdata-pg-main-1 predate this PostgresCluster"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("kubectl delete pvc pgdata-pg-main-0 pgdata-pg-main-1"), std::string::npos) << m;
  EXPECT_NE(m.find("spec.dataSource"), std::string::npos) << m;
}

// Progressing stays True until every member runs the current template: the
// operator rolls the pods itself (OnDelete), so the StatefulSet having seen
// the new template is not the end of a rollout.
TEST(BuildStatusTest, ProgressingUntilEveryMemberRunsTheTemplate) {
  struct Case {
    const char* name;
    int observed, ready, updated;
    bool written;  // this reconcile wrote the StatefulSet; the cached one is older
    const char* want_status;
  };
  const Case cases[] = {
      {"stable", 2, 2, 2, false, "False"},
      {"template not seen yet", 1, 2, 2, false, "True"},
      {"one member still on the old template", 2, 2, 1, false, "True"},
      {"no member updated yet", 2, 2, 0, false, "True"},
      {"a member not ready", 2, 1, 2, false, "True"},
      {"just written: the cache has the old, settled StatefulSet", 2, 2, 2, true, "True"},
  };
  for (const Case& c : cases) {
    PostgresCluster cluster;
    cluster.metadata = {.name = "pg", .ns = "db", .generation = 1};
    cluster.spec.instances = {{.name = "main", .replicas = 2}};
    DcsResolution dcs{.ready = true, .reason = "r", .message = "m"};
    const Json sts = {{"metadata", {{"generation", 2}}},
                      {"status",
                       {{"observedGeneration", c.observed},
                        {"replicas", 2},
                        {"readyReplicas", c.ready},
                        {"updatedReplicas", c.updated}}}};
    const api::PostgresClusterStatus s = BuildStatus({.cluster = &cluster,
                                                      .dcs = &dcs,
                                                      .statefulsets = {{"main", sts}},
                                                      .primary = "pg-main-0",
                                                      .primary_ready = true,
                                                      .statefulset_written = c.written,
                                                      .now = absl::Now()});
    const api::Condition* progressing = api::FindCondition(s, "Progressing");
    ASSERT_NE(progressing, nullptr) << c.name;
    EXPECT_EQ(progressing->status, c.want_status) << c.name;
    // What a backup reads to know the members run the current spec: never
    // the old template's count right after a write.
    ASSERT_EQ(s.instances.size(), 1u);
    EXPECT_EQ(s.instances[0].updated_replicas, c.written ? 0 : c.updated) << c.name;
  }
}

// RepoHostReady only with a volume repository, True once the host's pod is
// ready; Ready does not depend on it (the primary serves without it).
TEST(BuildStatusTest, RepoHostReadyFollowsTheHostsPod) {
  PostgresCluster cluster;
  cluster.metadata = {.name = "pg", .ns = "db", .generation = 1};
  cluster.spec.instances = {{.name = "main", .replicas = 1}};
  DcsResolution dcs{.ready = true};
  const Json sts = {
      {"metadata", {{"generation", 1}}},
      {"status",
       {{"observedGeneration", 1}, {"replicas", 1}, {"readyReplicas", 1}, {"updatedReplicas", 1}}}};
  auto build = [&](const Json& host) {
    return BuildStatus({.cluster = &cluster,
                        .dcs = &dcs,
                        .statefulsets = {{"main", sts}},
                        .repo_host = host,
                        .primary = "pg-main-0",
                        .primary_ready = true,
                        .now = absl::Now()});
  };
  EXPECT_EQ(api::FindCondition(build(Json()), "RepoHostReady"), nullptr);
  api::PgBackRestSpec pgbr;
  pgbr.repos = {
      api::PgBackRestRepo{.name = "repo1", .volume_claim_spec = {{"resources", Json::object()}}}};
  cluster.spec.backups.pgbackrest = pgbr;
  for (const auto& [host, want] :
       {std::pair{Json(), "False"}, std::pair{Json{{"status", {{"readyReplicas", 0}}}}, "False"},
        std::pair{Json{{"status", {{"readyReplicas", 1}}}}, "True"}}) {
    const api::PostgresClusterStatus s = build(host);
    const api::Condition* c = api::FindCondition(s, "RepoHostReady");
    ASSERT_NE(c, nullptr) << host.dump();
    EXPECT_EQ(c->status, want) << host.dump();
    EXPECT_NE(c->message.find("pg-repo-host"), std::string::npos) << c->message;
    EXPECT_EQ(api::FindCondition(s, "Ready")->status, "True");
  }
}

}  // namespace
}  // namespace quorum::postgrescluster
