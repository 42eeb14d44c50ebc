#include "src/etcd/space.h"

#include <gtest/gtest.h>

namespace quorum::etcd {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

// A member that answered with a `size` MiB file of which `in_use` MiB are live.
SpaceMember M(uint64_t id, int64_t size, int64_t in_use, bool learner = false) {
  return {.id = id,
          .client_url = "http://m" + std::to_string(id) + ":2379",
          .is_learner = learner,
          .answered = true,
          .db_size = size * kMiB,
          .db_size_in_use = in_use * kMiB};
}

SpaceObservation Alarmed(std::vector<SpaceMember> members, bool compacted,
                         std::vector<uint64_t> defragmented = {}) {
  return {.members = std::move(members),
          .leader_id = 1,
          .nospace_alarm = true,
          .compacted = compacted,
          .defragmented = std::move(defragmented),
          .revision = 77,
          .quota_bytes = 16 * kMiB};
}

struct Case {
  const char* name;
  SpaceObservation in;
  SpaceAction::Kind kind;
  uint64_t member_id = 0;
};

class SpacePlannerTest : public ::testing::TestWithParam<Case> {};

TEST_P(SpacePlannerTest, NextStep) {
  const Case& c = GetParam();
  const SpaceAction a = NextSpaceAction(c.in);
  EXPECT_EQ(SpaceKindName(a.kind), SpaceKindName(c.kind)) << a.reason;
  EXPECT_EQ(a.member_id, c.member_id) << a.reason;
  if (a.kind != SpaceAction::kNone) {
    EXPECT_FALSE(a.reason.empty());
  }
}

SpaceObservation NotAnswering() {
  SpaceObservation o = Alarmed({M(1, 16, 16), M(2, 16, 16), M(3, 16, 16)}, false);
  o.members[2].answered = false;
  return o;
}

SpaceObservation NoLeader() {
  SpaceObservation o = Alarmed({M(1, 16, 16), M(2, 16, 16)}, false);
  o.leader_id = 0;
  return o;
}

SpaceObservation Quiet(int64_t size, int64_t in_use) {
  return {.members = {M(1, size, in_use), M(2, size, in_use)},
          .leader_id = 1,
          .quota_bytes = 16 * kMiB};
}

INSTANTIATE_TEST_SUITE_P(
    Table, SpacePlannerTest,
    ::testing::Values(
        Case{"NoAlarmSmallFilesNothingToDo", Quiet(4, 1), SpaceAction::kNone},
        Case{"NoAlarmBigButLiveNothingToDo", Quiet(12, 10), SpaceAction::kNone},
        Case{"NoAlarmBigAndHalfFreeDefragmentsFollowerFirst", Quiet(12, 3),
             SpaceAction::kDefragment, 2},
        Case{"AlarmFirstCompacts", Alarmed({M(1, 16, 16), M(2, 16, 16), M(3, 16, 16)}, false),
             SpaceAction::kCompact},
        Case{"AlarmWaitsForAMemberThatDoesNotAnswer", NotAnswering(), SpaceAction::kWait},
        Case{"AlarmWaitsForALeader", NoLeader(), SpaceAction::kWait},
        Case{"AfterCompactionFollowersFirstInOrder",
             Alarmed({M(1, 16, 1), M(2, 16, 1), M(3, 16, 1)}, true), SpaceAction::kDefragment, 2},
        Case{"FollowersEvenBeforeTheyReportTheFreedSpace",
             Alarmed({M(1, 16, 16), M(2, 16, 16), M(3, 16, 16)}, true), SpaceAction::kDefragment,
             2},
        Case{"ThenTheNextFollower", Alarmed({M(1, 16, 1), M(2, 1, 1), M(3, 16, 1)}, true, {2}),
             SpaceAction::kDefragment, 3},
        Case{"LearnersAreFollowersToo",
             Alarmed({M(1, 16, 1), M(2, 1, 1), M(4, 16, 1, true)}, true, {2}),
             SpaceAction::kDefragment, 4},
        Case{"TheLeaderLastAfterMovingLeadership",
             Alarmed({M(1, 16, 1), M(2, 1, 1), M(3, 1, 1)}, true, {2, 3}), SpaceAction::kMoveLeader,
             2},
        Case{"LeadershipNeverMovesToALearner",
             Alarmed({M(1, 16, 1), M(4, 1, 1, true), M(2, 1, 1)}, true, {4, 2}),
             SpaceAction::kMoveLeader, 2},
        Case{"ASingleMemberDefragmentsInPlace", Alarmed({M(1, 16, 1)}, true),
             SpaceAction::kDefragment, 1},
        Case{"AllDefragmentedDisarms",
             Alarmed({M(1, 1, 1), M(2, 1, 1), M(3, 1, 1)}, true, {1, 2, 3}), SpaceAction::kDisarm},
        Case{"StillFullAfterwardsWaitsInsteadOfDisarming",
             Alarmed({M(1, 16, 15), M(2, 16, 15)}, true, {1, 2}), SpaceAction::kWait}),
    [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

TEST(SpacePlannerTest, CompactsToTheObservedRevision) {
  const SpaceAction a = NextSpaceAction(Alarmed({M(1, 16, 16)}, false));
  EXPECT_EQ(a.revision, 77);
}

TEST(SpacePlannerTest, DefragmentsAtTheMembersClientUrl) {
  const SpaceAction a = NextSpaceAction(Alarmed({M(1, 16, 1), M(2, 16, 1)}, true));
  EXPECT_EQ(a.endpoint, "http://m2:2379");
}

TEST(SpacePlannerTest, StillFullNamesTheOption) {
  const SpaceAction a = NextSpaceAction(Alarmed({M(1, 16, 15)}, true, {1}));
  EXPECT_NE(a.reason.find("spec.options.quota-backend-bytes"), std::string::npos) << a.reason;
}

TEST(SpacePlannerTest, QuotaBytesFallsBackToEtcdsDefault) {
  EXPECT_EQ(QuotaBytes("8589934592"), int64_t{8589934592});
  EXPECT_EQ(QuotaBytes(""), kDefaultQuotaBytes);
  EXPECT_EQ(QuotaBytes("0"), kDefaultQuotaBytes);
  EXPECT_EQ(QuotaBytes("-5"), kDefaultQuotaBytes);
  EXPECT_EQ(QuotaBytes("8Gi"), kDefaultQuotaBytes);
}

}  // namespace
}  // namespace quorum::etcd
