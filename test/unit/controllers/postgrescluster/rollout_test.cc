#include "src/controllers/postgrescluster/rollout.h"

#include <gtest/gtest.h>

namespace quorum::postgrescluster {
namespace {

MemberPod Pod(std::string name, bool outdated, bool primary = false, bool ready = true) {
  return {.name = std::move(name), .ready = ready, .outdated = outdated, .primary = primary};
}

TEST(RolloutTest, NothingToDoWhenEveryPodIsCurrent) {
  EXPECT_EQ(NextRollStep({Pod("a-0", false, true), Pod("a-1", false)}, 2).kind, RollStep::kNone);
}

TEST(RolloutTest, WaitsUntilEveryMemberIsReadyAndPresent) {
  EXPECT_EQ(NextRollStep({Pod("a-0", true, true), Pod("a-1", true, false, false)}, 2).kind,
            RollStep::kWait);
  EXPECT_EQ(NextRollStep({Pod("a-0", true, true)}, 2).kind, RollStep::kWait)
      << "a missing member is not replaced by taking another one down";
}

TEST(RolloutTest, ReplicasFirstHighestNameFirst) {
  const RollStep step =
      NextRollStep({Pod("a-0", true, true), Pod("a-1", true), Pod("a-2", true)}, 3);
  EXPECT_EQ(step.kind, RollStep::kDeletePod);
  EXPECT_EQ(step.pod, "a-2");
}

TEST(RolloutTest, PrimaryHandsOverBeforeItsPodGoes) {
  const RollStep step =
      NextRollStep({Pod("a-0", true, true), Pod("a-1", false), Pod("a-2", false)}, 3);
  EXPECT_EQ(step.kind, RollStep::kSwitchover);
  EXPECT_EQ(step.pod, "a-0");
  // After the switchover a-0 is a replica: it is replaced like one.
  const RollStep next =
      NextRollStep({Pod("a-0", true, false), Pod("a-1", false, true), Pod("a-2", false)}, 3);
  EXPECT_EQ(next.kind, RollStep::kDeletePod);
  EXPECT_EQ(next.pod, "a-0");
}

TEST(RolloutTest, ASingleMemberRestartsInPlace) {
  const RollStep step = NextRollStep({Pod("a-0", true, true)}, 1);
  EXPECT_EQ(step.kind, RollStep::kDeletePod);
  EXPECT_EQ(step.pod, "a-0");
}

}  // namespace
}  // namespace quorum::postgrescluster
