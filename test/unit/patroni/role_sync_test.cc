#include "src/patroni/role_sync.h"

#include <gtest/gtest.h>

namespace quorum::patroni {
namespace {

using Labels = std::vector<PodRoleLabel>;
using Observed = std::map<std::string, ObservedRole>;
using Patches = std::vector<LabelPatch>;

const std::optional<std::string> kNone = std::nullopt;
ObservedRole Up(const char* role) { return {true, role}; }
const ObservedRole kDown{false, ""};

struct Case {
  const char* name;
  Labels pods;
  Observed observed;
  std::string leader;
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
       "",
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
       "",
       {{"a", kNone}, {"b", kNone}}},
      {"unreachable member keeps its label when no other primary is confirmed",
       {{"a", "primary"}, {"b", "replica"}},
       {{"a", kDown}, {"b", Up("replica")}},
       "",
       {}},
      {"unreachable former primary is demoted once another member is primary",
       {{"a", "primary"}, {"b", "replica"}, {"c", "replica"}},
       {{"a", kDown}, {"b", Up("primary")}, {"c", Up("replica")}},
       "b",
       {{"a", kNone}, {"b", "primary"}}},
      {"member missing from the observations counts as unreachable",
       {{"a", "primary"}, {"b", "replica"}},
       {{"b", Up("primary")}},
       "",
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

TEST(RoleSyncTest, LeaderKeyFollowsPatronisPathRules) {
  EXPECT_EQ(LeaderKey("/quorum/db/", "hippo"), "/quorum/db/hippo/leader");
  EXPECT_EQ(LeaderKey("quorum", "hippo"), "/quorum/hippo/leader");
  EXPECT_EQ(LeaderKey("/service", "x"), "/service/x/leader");
}

}  // namespace
}  // namespace quorum::patroni
