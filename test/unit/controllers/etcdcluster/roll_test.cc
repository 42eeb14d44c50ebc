// roll.h: which member rolls next to the StatefulSet's current pod template,
// and what the roll waits for.
#include "src/controllers/etcdcluster/roll.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace quorum::etcdcluster {
namespace {

using etcd::Action;

// Ordinal k runs member 100+k, healthy, ready, caught up, on the current
// template unless listed in `outdated`.
RollInput Healthy(int members, std::vector<int> outdated, int leader, bool empty_dir = false) {
  RollInput in{.empty_dir = empty_dir,
               .voting_members = members,
               .leader_id = 100 + leader,
               .leader_raft_index = 5000};
  for (int k = 0; k < members; ++k) {
    in.ordinals.push_back(
        {.ordinal = k,
         .pod = absl::StrCat("e-", k),
         .pod_uid = absl::StrCat("uid-", k),
         .outdated = std::find(outdated.begin(), outdated.end(), k) != outdated.end(),
         .pod_ready = true,
         .member_id = 100 + k,
         .healthy = true,
         .applied_index = 4990});
  }
  return in;
}

TEST(PlanRollTest, NothingOutdatedIsNothingToDo) {
  EXPECT_EQ(PlanRoll(Healthy(3, {}, 0)).kind, Action::kNone);
  RollInput unknown = Healthy(3, {}, 0);
  unknown.ordinals[1].healthy = false;  // not the roll's business
  EXPECT_EQ(PlanRoll(unknown).kind, Action::kNone);
}

TEST(PlanRollTest, FollowersFirstHighestOrdinalFirstThenTheLeaderAfterLeadershipMoves) {
  struct Case {
    const char* name;
    std::vector<int> outdated;
    int leader;
    Action::Kind kind;
    int ordinal;          // the pod rolled, or the new leader's ordinal
    uint64_t member = 0;  // kMoveLeader: the new leader
  } cases[] = {
      {"all outdated, leader 0", {0, 1, 2}, 0, Action::kRollPod, 2},
      {"all outdated, leader 2", {0, 1, 2}, 2, Action::kRollPod, 1},
      {"one follower left", {0, 1}, 1, Action::kRollPod, 0},
      {"only the leader left: move to an updated member", {1}, 1, Action::kMoveLeader, 0, 100},
      {"only the leader left, ordinal 0", {0}, 0, Action::kMoveLeader, 1, 101},
  };
  for (const Case& c : cases) {
    const Action a = PlanRoll(Healthy(3, c.outdated, c.leader));
    EXPECT_EQ(a.kind, c.kind) << c.name << ": " << a.reason;
    EXPECT_EQ(a.ordinal, c.ordinal) << c.name;
    if (c.kind == Action::kRollPod) {
      EXPECT_EQ(a.pod_uid, absl::StrCat("uid-", c.ordinal)) << c.name;
    } else {
      EXPECT_EQ(a.member_id, c.member) << c.name;
    }
  }
}

TEST(PlanRollTest, TheNewLeaderIsTheUpdatedMemberFurthestInTheLog) {
  RollInput in = Healthy(5, {2}, 2);
  in.ordinals[0].applied_index = 4999;
  in.ordinals[3].applied_index = 4995;
  const Action a = PlanRoll(in);
  ASSERT_EQ(a.kind, Action::kMoveLeader);
  EXPECT_EQ(a.member_id, 100u);
  EXPECT_TRUE(absl::StrContains(a.reason, "from e-2 to e-0")) << a.reason;
}

TEST(PlanRollTest, EachStepWaitsForTheClusterToSettle) {
  struct Case {
    const char* name;
    std::function<void(RollInput&)> change;
    const char* says;
  } cases[] = {
      {"an updated pod not ready", [](RollInput& in) { in.ordinals[2].pod_ready = false; },
       "e-2 is not ready"},
      {"an updated member not healthy", [](RollInput& in) { in.ordinals[2].healthy = false; },
       "e-2 is not healthy"},
      {"a learner", [](RollInput& in) { in.ordinals[2].learner = true; }, "learner"},
      {"a pod without member", [](RollInput& in) { in.ordinals[2].member_id.reset(); },
       "no member"},
      {"a pod being deleted", [](RollInput& in) { in.ordinals[2].deleting = true; },
       "being deleted"},
      {"no leader", [](RollInput& in) { in.leader_id.reset(); }, "no leader"},
      {"behind the leader", [](RollInput& in) { in.ordinals[2].applied_index = 100; },
       "catching up"},
      {"a member without a pod", [](RollInput& in) { in.ordinals.pop_back(); }, "only 2 of the 3"},
  };
  for (const Case& c : cases) {
    RollInput in = Healthy(3, {0, 1}, 0);
    c.change(in);
    const Action a = PlanRoll(in);
    EXPECT_EQ(a.kind, Action::kWait) << c.name;
    EXPECT_TRUE(absl::StrContains(a.reason, c.says)) << c.name << ": " << a.reason;
  }
  RollInput slack = Healthy(3, {0, 1}, 0);
  slack.ordinals[2].applied_index = 5000 - kCatchUpSlack;
  EXPECT_EQ(PlanRoll(slack).kind, Action::kRollPod) << "within the slack counts as caught up";
}

TEST(PlanRollTest, AnOutdatedMemberThatIsDownGoesFirst) {
  // A bad image fixed by the user: the pod that never came up rolls again at
  // once, whatever the others wait for.
  RollInput in = Healthy(3, {0, 1, 2}, 0);
  in.ordinals[2].pod_ready = false;
  in.ordinals[2].healthy = false;
  in.ordinals[1].applied_index = 0;  // a wait for the healthy roll
  Action a = PlanRoll(in);
  EXPECT_EQ(a.kind, Action::kRollPod) << a.reason;
  EXPECT_EQ(a.ordinal, 2);
  in.ordinals[2].deleting = true;  // already going: wait for it
  EXPECT_EQ(PlanRoll(in).kind, Action::kWait);
}

TEST(PlanRollTest, EmptyDirMembersAreReplacedThroughTheMembership) {
  Action a = PlanRoll(Healthy(3, {0, 1, 2}, 0, /*empty_dir=*/true));
  EXPECT_EQ(a.kind, Action::kReplaceMember) << a.reason;
  EXPECT_EQ(a.ordinal, 2);
  EXPECT_EQ(a.member_id, 102u);
  EXPECT_EQ(a.pod_uid, "uid-2");

  // Removing a down member of three with one other down would lose quorum.
  RollInput two_down = Healthy(3, {2}, 0, /*empty_dir=*/true);
  two_down.ordinals[2].healthy = false;
  two_down.ordinals[1].healthy = false;
  a = PlanRoll(two_down);
  EXPECT_EQ(a.kind, Action::kWait) << a.reason;
  EXPECT_TRUE(absl::StrContains(a.reason, "healthy quorum")) << a.reason;

  // A pod whose member is gone already (removed, pod not yet deleted) rolls.
  RollInput removed = Healthy(3, {2}, 0, /*empty_dir=*/true);
  removed.voting_members = 2;
  removed.ordinals[2].member_id.reset();
  removed.ordinals[2].healthy = false;
  a = PlanRoll(removed);
  EXPECT_EQ(a.kind, Action::kRollPod) << a.reason;
  EXPECT_EQ(a.ordinal, 2);
}

TEST(PlanRollTest, OneMember) {
  Action a = PlanRoll(Healthy(1, {0}, 0));
  EXPECT_EQ(a.kind, Action::kRollPod) << "with its volume, the only member restarts";
  a = PlanRoll(Healthy(1, {0}, 0, /*empty_dir=*/true));
  EXPECT_EQ(a.kind, Action::kWait) << "an emptyDir member would lose the data";
  EXPECT_TRUE(absl::StrContains(a.reason, "spec.replicas")) << a.reason;
}

}  // namespace
}  // namespace quorum::etcdcluster

namespace quorum::etcdcluster {
namespace {

TEST(RolledPodsTest, ADeletedPodCountsAsGoingWhileTheCacheStillShowsIt) {
  RolledPods rolled;
  EXPECT_TRUE(rolled.StillShown("ns/c", {"uid-0", "uid-1"}).empty());
  rolled.Deleted("ns/c", "uid-1");
  EXPECT_EQ(rolled.StillShown("ns/c", {"uid-0", "uid-1"}), std::set<std::string>{"uid-1"});
  EXPECT_TRUE(rolled.StillShown("ns/other", {"uid-1"}).empty()) << "per cluster";
  // The cache caught up (the pod is gone or replaced): forgotten for good.
  EXPECT_TRUE(rolled.StillShown("ns/c", {"uid-0", "uid-1-new"}).empty());
  EXPECT_TRUE(rolled.StillShown("ns/c", {"uid-1"}).empty());
}

}  // namespace
}  // namespace quorum::etcdcluster
