#include "src/controllers/postgrescluster/crash_loop.h"

#include <gtest/gtest.h>

#include <memory>

namespace quorum::postgrescluster {
namespace {

using runtime::ObjectPtr;

// A member pod: Ready or not, its database container running, waiting in
// CrashLoopBackOff, or waiting for another reason; being deleted or not.
ObjectPtr Pod(const std::string& name, bool ready, const std::string& waiting = "",
              bool deleting = false) {
  Json state = waiting.empty() ? Json{{"running", Json::object()}}
                               : Json{{"waiting", {{"reason", waiting}}}};
  Json metadata = {{"name", name}};
  if (deleting) metadata["deletionTimestamp"] = "2026-12-03T16:00:00Z";
  return std::make_shared<const Json>(
      Json{{"metadata", metadata},
           {"status",
            {{"conditions", {{{"type", "Ready"}, {"status", ready ? "True" : "False"}}}},
             {"containerStatuses", {{{"name", "database"}, {"state", state}}}}}}});
}

patroni::ObservedRole Replica(const char* state = "streaming") {
  return {.reachable = true, .role = "replica", .state = state};
}

TEST(DatabaseCrashLoopingTest, OnlyTheDatabaseContainerWaitingInBackOff) {
  EXPECT_TRUE(DatabaseCrashLooping(*Pod("a", false, "CrashLoopBackOff")));
  EXPECT_FALSE(DatabaseCrashLooping(*Pod("a", false, "ContainerCreating")));
  EXPECT_FALSE(DatabaseCrashLooping(*Pod("a", true)));
  const Json sidecar = {
      {"status",
       {{"containerStatuses",
         {{{"name", "exporter"}, {"state", {{"waiting", {{"reason", "CrashLoopBackOff"}}}}}}}}}}};
  EXPECT_FALSE(DatabaseCrashLooping(sidecar));
  EXPECT_FALSE(DatabaseCrashLooping(Json::object()));
}

TEST(PlanLockReleaseTest, EndsOnlyACrashLoopingLeadersLockWithAReplicaToTakeOver) {
  struct Case {
    const char* name;
    std::optional<std::string> leader;
    std::vector<ObjectPtr> pods;
    std::map<std::string, patroni::ObservedRole> roles;
    std::optional<LockRelease> want;
  };
  const std::vector<ObjectPtr> looping = {Pod("m-0", false, "CrashLoopBackOff"), Pod("m-1", true),
                                          Pod("m-2", true)};
  const Case cases[] = {
      {"crash-looping leader, two streaming replicas",
       "m-0",
       looping,
       {{"m-0", {}}, {"m-1", Replica()}, {"m-2", Replica()}},
       LockRelease{.leader = "m-0", .candidates = {"m-1", "m-2"}}},
      {"replicas whose PostgreSQL runs are candidates, Ready or not (no leader to stream from)",
       "m-0",
       {Pod("m-0", false, "CrashLoopBackOff"), Pod("m-1", false), Pod("m-2", true)},
       {{"m-0", {}}, {"m-1", Replica("running")}, {"m-2", Replica()}},
       LockRelease{.leader = "m-0", .candidates = {"m-1", "m-2"}}},
      {"a replica whose pod is being deleted is no candidate",
       "m-0",
       {Pod("m-0", false, "CrashLoopBackOff"), Pod("m-1", false, "", /*deleting=*/true),
        Pod("m-2", false)},
       {{"m-0", {}}, {"m-1", Replica()}, {"m-2", Replica("running")}},
       LockRelease{.leader = "m-0", .candidates = {"m-2"}}},
      {"no candidate: the lock stays (a release would only be taken back)",
       "m-0",
       looping,
       {{"m-0", {}}, {"m-1", Replica("starting")}, {"m-2", {}}},
       std::nullopt},
      {"the leader's container runs",
       "m-0",
       {Pod("m-0", false), Pod("m-1", true)},
       {{"m-0", {}}, {"m-1", Replica()}},
       std::nullopt},
      {"the leader's Patroni answers (the kubelet's status is behind)",
       "m-0",
       looping,
       {{"m-0", {.reachable = true, .role = "primary", .state = "running"}}, {"m-1", Replica()}},
       std::nullopt},
      {"another member crash-loops, not the leader",
       "m-1",
       looping,
       {{"m-0", {}},
        {"m-1", {.reachable = true, .role = "primary", .state = "running"}},
        {"m-2", Replica()}},
       std::nullopt},
      {"no leader key", "", looping, {{"m-1", Replica()}}, std::nullopt},
      {"leader unknown (the DCS did not answer)",
       std::nullopt,
       looping,
       {{"m-1", Replica()}},
       std::nullopt},
      {"the leader's pod is gone", "m-9", looping, {{"m-1", Replica()}}, std::nullopt},
  };
  for (const Case& c : cases) {
    Members m;
    m.leader = c.leader;
    m.roles = c.roles;
    const std::optional<LockRelease> got = PlanLockRelease(c.pods, m);
    EXPECT_EQ(got.has_value(), c.want.has_value()) << c.name;
    if (got.has_value() && c.want.has_value()) {
      EXPECT_EQ(*got, *c.want) << c.name;
    }
  }
}

}  // namespace
}  // namespace quorum::postgrescluster
