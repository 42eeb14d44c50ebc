#include "src/patroni/role_sync.h"

#include <gtest/gtest.h>

#include "src/patroni/role_plan.h"

namespace quorum::patroni {
namespace {

using Labels = std::vector<PodRoleLabel>;
using Observed = std::map<std::string, ObservedRole>;
using Patches = std::vector<LabelPatch>;

const std::optional<std::string> kNone = std::nullopt;
ObservedRole Up(const char* role, const char* state = "running") { return {true, role, state}; }
const ObservedRole kDown{false, ""};

struct Case {
  const char* name;
  Labels pods;
  Observed observed;
  std::optional<std::string> leader;  // nullopt: the leader key was not read
  Patches want;
};

TEST(RoleSyncTest, PlansTheLabelPatchesOverATable) {
  const Case cases[] = {
      {"all correct: nothing to do",
       {{"a", "primary"}, {"b", "replica"}, {"c", "replica"}},
       {{"a", Up("primary")}, {"b", Up("replica")}, {"c", Up("sync_standby")}},
       "a",
       {}},
      {"fresh pods get their labels",
       {{"a", kNone}, {"b", kNone}},
       {{"a", Up("primary")}, {"b", Up("replica")}},
       std::nullopt,
       {{"a", "primary"}, {"b", "replica"}}},
      {"switchover flips both labels",
       {{"a", "primary"}, {"b", "replica"}},
       {{"a", Up("replica")}, {"b", Up("primary")}},
       "b",
       {{"a", "replica"}, {"b", "primary"}}},
      {"standby leader is routed as primary",
       {{"a", "replica"}},
       {{"a", Up("standby_leader")}},
       "a",
       {{"a", "primary"}}},
      {"unroutable roles lose the label",
       {{"a", "primary"}, {"b", "replica"}},
       {{"a", Up("demoted")}, {"b", Up("uninitialized")}},
       std::nullopt,
       {{"a", kNone}, {"b", kNone}}},
      {"unreachable member keeps its label when no other primary is confirmed",
       {{"a", "primary"}, {"b", "replica"}},
       {{"a", kDown}, {"b", Up("replica")}},
       std::nullopt,
       {}},
      {"unreachable former primary is demoted once another member is primary",
       {{"a", "primary"}, {"b", "replica"}, {"c", "replica"}},
       {{"a", kDown}, {"b", Up("primary")}, {"c", Up("replica")}},
       "b",
       {{"a", kNone}, {"b", "primary"}}},
      {"member missing from the observations counts as unreachable",
       {{"a", "primary"}, {"b", "replica"}},
       {{"b", Up("primary")}},
       std::nullopt,
       {{"a", kNone}, {"b", "primary"}}},
      {"unreachable replica keeps its label even with a confirmed primary",
       {{"a", "replica"}, {"b", "primary"}},
       {{"a", kDown}, {"b", Up("primary")}},
       "b",
       {}},
      {"a primary claim that is not the DCS leader gets no label",
       {{"a", "primary"}, {"b", "replica"}},
       {{"a", Up("primary")}, {"b", Up("primary")}},
       "b",
       {{"a", kNone}, {"b", "primary"}}},
      {"a non-leader claim confirms nothing, so the unreachable primary stays",
       {{"a", "primary"}, {"b", "replica"}},
       {{"a", kDown}, {"b", Up("primary")}},
       "a",
       {{"b", kNone}}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(PlanRoleLabels(c.pods, c.observed, c.leader), c.want) << c.name;
  }
}

// Issue 18.3: the old primary loses its label before the new one gets it, and
// the DCS leader key is the only truth for who may carry it.
TEST(RoleSyncTest, NeverTwoPrimariesAndTheLeaderKeyDecides) {
  const Case cases[] = {
      {"the old primary's label goes first even when the new one sorts first",
       {{"a", "replica"}, {"b", "primary"}},
       {{"a", Up("primary")}, {"b", Up("replica")}},
       "a",
       {{"b", "replica"}, {"a", "primary"}}},
      {"an unreachable old primary loses its label once the leader key names another member",
       {{"a", "replica"}, {"b", "replica"}, {"c", "primary"}},
       {{"a", Up("replica")}, {"b", Up("replica")}, {"c", kDown}},
       "a",
       {{"c", kNone}}},
      {"an unreachable leader keeps its label",
       {{"a", "primary"}, {"b", "replica"}},
       {{"a", kDown}, {"b", Up("replica")}},
       "a",
       {}},
      {"an unreachable leader whose pod is restarting (PostgreSQL crashed) loses its label",
       {{"a", "primary", /*restarting=*/true}, {"b", "replica"}},
       {{"a", kDown}, {"b", Up("replica")}},
       "a",
       {{"a", kNone}}},
      {"so does one without the leader key",
       {{"a", "primary", /*restarting=*/true}, {"b", "replica"}},
       {{"a", kDown}, {"b", Up("replica")}},
       std::nullopt,
       {{"a", kNone}}},
      {"a reachable leader whose pod is restarting keeps it (Patroni's word decides)",
       {{"a", "primary", /*restarting=*/true}, {"b", "replica"}},
       {{"a", Up("primary")}, {"b", Up("replica")}},
       "a",
       {}},
      {"the leader restarting read-only (Patroni says replica) is a replica, not a primary",
       {{"a", "primary"}, {"b", "replica"}},
       {{"a", Up("replica")}, {"b", Up("replica")}},
       "a",
       {{"a", "replica"}}},
      {"no leader key: no member is labelled primary, whatever it claims",
       {{"a", "primary"}, {"b", "replica"}, {"c", "primary"}},
       {{"a", Up("primary")}, {"b", Up("replica")}, {"c", kDown}},
       "",
       {{"a", kNone}, {"c", kNone}}},
      {"the leader still starting is not labelled primary until it runs",
       {{"a", "primary"}, {"b", "replica"}},
       {{"a", Up("primary", "starting")}, {"b", Up("replica")}},
       "a",
       {{"a", kNone}}},
      {"without the leader key a running primary claim is believed",
       {{"a", kNone}, {"b", "primary"}},
       {{"a", Up("primary")}, {"b", Up("replica")}},
       std::nullopt,
       {{"b", "replica"}, {"a", "primary"}}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(PlanRoleLabels(c.pods, c.observed, c.leader), c.want) << c.name;
  }
}

TEST(RoleSyncTest, LeaderKeyFollowsPatronisPathRules) {
  EXPECT_EQ(LeaderKey("/quorum/db/", "hippo"), "/quorum/db/hippo/leader");
  EXPECT_EQ(LeaderKey("quorum", "hippo"), "/quorum/hippo/leader");
  EXPECT_EQ(LeaderKey("/service", "x"), "/service/x/leader");
}

}  // namespace
}  // namespace quorum::patroni
