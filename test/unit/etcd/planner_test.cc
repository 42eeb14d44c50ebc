#include "src/etcd/planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace quorum::etcd {
namespace {

std::string NameOf(int k) { return "test-" + std::to_string(k); }
std::string UrlOf(int k) {
  return "https://test-" + std::to_string(k) + ".test-headless.default.svc:2380";
}
uint64_t IdOf(int k) { return 1000 + k; }

// A readable way to write an observation: O(desired, statefulset).Voters(3)...
struct O {
  Observation o;
  std::set<int> data_lost, crash_looping, missing_pods;
  std::map<int, absl::Duration> running_for;

  O(int desired, int sts) {
    o.desired_replicas = desired;
    o.statefulset_replicas = sts;
    o.bootstrapped = true;
    o.members_known = true;
    o.leader_id = IdOf(0);
    o.member_name = NameOf;
    o.peer_url = UrlOf;
  }
  O& Voters(int n) {
    for (int k = 0; k < n; ++k) Member(k);
    return *this;
  }
  O& Member(int k, bool learner = false, bool started = true, std::optional<bool> healthy = true) {
    o.members.push_back({.id = IdOf(k),
                         .name = started ? NameOf(k) : "",
                         .peer_url = UrlOf(k),
                         .is_learner = learner,
                         .started = started,
                         .healthy = started ? healthy : std::nullopt});
    return *this;
  }
  O& Learner(int k, bool started = false, std::optional<bool> healthy = true) {
    return Member(k, true, started, healthy);
  }
  O& Down(int k) {
    for (MemberView& m : o.members) {
      if (m.id == IdOf(k)) m.healthy = false;
    }
    return *this;
  }
  O& Leader(int k) {
    o.leader_id = IdOf(k);
    return *this;
  }
  O& NoLeader() {
    o.leader_id.reset();
    return *this;
  }
  O& NoMemberList() {
    o.members_known = false;
    o.members.clear();
    o.leader_id.reset();
    return *this;
  }
  O& NeverBootstrapped() {
    o.bootstrapped = false;
    return *this;
  }
  O& DataLost(int k) {
    data_lost.insert(k);
    return *this;
  }
  O& CrashLooping(int k) {
    crash_looping.insert(k);
    return *this;
  }
  O& RunningFor(int k, absl::Duration d) {
    running_for[k] = d;
    return *this;
  }
  operator Observation() const {
    Observation out = o;
    for (int k = 0; k < std::max(o.statefulset_replicas, o.desired_replicas); ++k) {
      const bool exists = k < o.statefulset_replicas;
      out.pods.push_back({.ordinal = k,
                          .exists = exists,
                          .ready = exists && !crash_looping.count(k) && !data_lost.count(k),
                          .crash_looping = exists && crash_looping.count(k) > 0,
                          .data_lost = exists && data_lost.count(k) > 0,
                          .running_for = exists && running_for.count(k) ? running_for.at(k)
                                                                        : absl::ZeroDuration()});
    }
    return out;
  }
};

struct Case {
  std::string name;
  Observation observation;
  Action::Kind kind;
  int ordinal = -1;
  uint64_t member_id = 0;
  int replicas = -1;
  std::string reason_contains = "";
};

class PlannerTableTest : public ::testing::TestWithParam<Case> {};

TEST_P(PlannerTableTest, ChoosesTheNextSafeStep) {
  const Case& c = GetParam();
  const Action a = NextAction(c.observation);
  EXPECT_EQ(KindName(a.kind), KindName(c.kind)) << a.reason;
  if (c.ordinal >= 0) {
    EXPECT_EQ(a.ordinal, c.ordinal) << a.reason;
  }
  if (c.member_id != 0) {
    EXPECT_EQ(a.member_id, c.member_id) << a.reason;
  }
  if (c.replicas >= 0) {
    EXPECT_EQ(a.replicas, c.replicas) << a.reason;
  }
  if (a.kind == Action::kAddLearner) {
    EXPECT_EQ(a.peer_url, UrlOf(a.ordinal));
  }
  EXPECT_FALSE(a.reason.empty());
  EXPECT_NE(a.reason.find(c.reason_contains), std::string::npos) << a.reason;
}

const Case kCases[] = {
    // Bootstrap.
    {"ZeroReplicasNeverBootstrappedIsConverged", O(0, 0).NoMemberList().NeverBootstrapped(),
     Action::kNone},
    {"ZeroReplicasNeverBootstrappedScalesTheStatefulSetDown",
     O(0, 2).NoMemberList().NeverBootstrapped(), Action::kScaleStatefulSet, -1, 0, 0},
    {"FirstReconcileBootstrapsMemberZero", O(3, 0).NoMemberList().NeverBootstrapped(),
     Action::kBootstrap, 0, 0, 1},
    {"BootstrapTakesTheStatefulSetToOne", O(3, 3).NoMemberList().NeverBootstrapped(),
     Action::kBootstrap, 0, 0, 1},
    {"BootstrapWaitsForTheFirstMember", O(3, 1).NoMemberList().NeverBootstrapped(), Action::kWait,
     -1, 0, -1, "test-0"},
    {"AMemberListProvesTheBootstrap", O(3, 1).Voters(1).NeverBootstrapped(), Action::kAddLearner,
     1},

    // Scale up, one member at a time.
    {"GrowAddsTheNextOrdinalAsALearner", O(3, 1).Voters(1), Action::kAddLearner, 1, 0, -1,
     "scaling up to 3"},
    {"GrowStartsThePodOfTheNewLearner", O(3, 1).Voters(1).Learner(1), Action::kScaleStatefulSet, -1,
     0, 2},
    {"GrowWaitsForTheLearnerToStart", O(3, 2).Voters(1).Learner(1), Action::kWait, -1, 0, -1,
     "learner test-1 to start"},
    {"GrowRestartsACrashLoopingLearnerPod", O(3, 2).Voters(1).Learner(1).CrashLooping(1),
     Action::kDeletePod, 1, IdOf(1)},
    {"GrowWaitsForTheLearnerToBeHealthy", O(3, 2).Voters(1).Learner(1, true, false), Action::kWait,
     -1, 0, -1, "healthy"},
    {"GrowWaitsForALearnerOfUnknownHealth", O(3, 2).Voters(1).Learner(1, true, std::nullopt),
     Action::kWait},
    {"GrowPromotesAHealthyLearner", O(3, 2).Voters(1).Learner(1, true), Action::kPromote, 1,
     IdOf(1)},
    {"GrowContinuesWithTheNextOrdinal", O(3, 2).Voters(2), Action::kAddLearner, 2},
    {"AClusterOfTheDesiredSizeIsConverged", O(3, 3).Voters(3), Action::kNone, -1, 0, -1,
     "converged: 3 voting members"},
    {"ConvergedReportsUnhealthyMembers", O(3, 3).Voters(3).Down(1), Action::kNone, -1, 0, -1,
     "1 of them unhealthy"},
    {"NoGrowthWhileAMemberIsUnhealthy", O(5, 3).Voters(3).Down(1), Action::kWait, -1, 0, -1,
     "member test-1 is unhealthy"},
    {"NoAddWithoutAHealthyQuorum", O(5, 3).Voters(3).Down(1).Down(2), Action::kWait, -1, 0, -1,
     "lacks a healthy quorum (1 healthy of 3"},
    {"NoAddWhileAVotingMemberHasNotStarted", O(3, 2).Voters(1).Member(1, false, false),
     Action::kWait, -1, 0, -1, "test-1 to start"},
    {"NoPromotionThatWouldLackQuorum", O(5, 4).Voters(3).Down(1).Down(2).Learner(3, true),
     Action::kWait, -1, 0, -1, "promoting test-3 would leave 2 healthy of 4"},

    // Scale down, highest ordinal first.
    {"ShrinkMovesLeadershipAwayFirst", O(3, 5).Voters(5).Leader(4), Action::kMoveLeader, 0,
     IdOf(0)},
    {"ShrinkRemovesTheHighestOrdinal", O(3, 5).Voters(5), Action::kRemoveMember, 4, IdOf(4)},
    {"ShrinkStopsThePodOfTheRemovedMember", O(3, 5).Voters(4), Action::kScaleStatefulSet, -1, 0, 4},
    {"ShrinkRemovesTheNextMember", O(3, 4).Voters(4), Action::kRemoveMember, 3, IdOf(3)},
    {"ShrinkEndsWithTheStatefulSet", O(3, 4).Voters(3), Action::kScaleStatefulSet, -1, 0, 3},
    {"ShrinkWaitsWithoutALeader", O(3, 5).Voters(5).NoLeader(), Action::kWait, -1, 0, -1, "leader"},
    {"ShrinkRefusedWhenItWouldLoseQuorum", O(2, 3).Voters(3).Down(1), Action::kWait, -1, 0, -1,
     "member test-1 is unhealthy: removing test-2 would leave 1 healthy of 2 voting members, "
     "below quorum"},
    {"ShrinkRefusedWithTwoDownOfFive", O(4, 5).Voters(5).Down(2).Down(3), Action::kWait, -1, 0, -1,
     "members test-2, test-3 are unhealthy: removing test-4 would leave 2 healthy of 4 voting "
     "members, below quorum"},
    {"ShrinkRemovesAnUnhealthyHighestMember", O(2, 3).Voters(3).Down(2), Action::kRemoveMember, 2,
     IdOf(2)},
    {"ALearnerBeyondTheTargetGoesWithoutQuorum", O(3, 4).Voters(3).Down(1).Down(2).Learner(3, true),
     Action::kRemoveMember, 3, IdOf(3)},
    {"ExtraLearnersGoHighestFirst", O(5, 5).Voters(3).Learner(3).Learner(4), Action::kRemoveMember,
     4, IdOf(4)},

    // Scale to zero and back.
    {"ToZeroRemovesMembersDownToOne", O(0, 2).Voters(2), Action::kRemoveMember, 1, IdOf(1)},
    {"ToZeroMovesLeadershipToMemberZero", O(0, 2).Voters(2).Leader(1), Action::kMoveLeader, 0,
     IdOf(0)},
    {"ToZeroStopsTheLastPodKeepingItsMember", O(0, 1).Voters(1), Action::kScaleStatefulSet, -1, 0,
     0, "test-0 stays registered"},
    {"ToZeroKeepsTheStatefulSetWhileTheLastMemberIsNotMemberZero", O(0, 3).Member(2), Action::kWait,
     -1, 0, -1, "only voting member"},
    {"ScaledToZeroIsConverged", O(0, 0).NoMemberList(), Action::kNone},
    {"FromZeroRestartsMemberZero", O(3, 0).NoMemberList(), Action::kScaleStatefulSet, -1, 0, 1},
    {"NoMemberListMeansWait", O(3, 3).NoMemberList(), Action::kWait, -1, 0, -1, "no quorum"},

    // Lost data.
    {"DataLostMemberIsRemoved", O(3, 3).Voters(3).Down(1).DataLost(1).CrashLooping(1),
     Action::kRemoveMember, 1, IdOf(1), -1, "test-1 lost its data"},
    {"DataLostMemberIsAddedAgainForItsPod", O(3, 3).Member(0).Member(2).CrashLooping(1),
     Action::kAddLearner, 1, 0, -1, "existing pod"},
    {"DataLostReplacementRestartsThePod", O(3, 3).Member(0).Member(2).Learner(1).CrashLooping(1),
     Action::kDeletePod, 1, IdOf(1)},
    {"DataLostReplacementWhoseEtcdRanTooLongRestartsThePod",
     O(3, 3).Member(0).Member(2).Learner(1).RunningFor(1, kJoinDeadline), Action::kDeletePod, 1,
     IdOf(1), -1, "has run for 1m without joining"},
    {"DataLostReplacementWaitsForItsEtcdBeforeTheDeadline",
     O(3, 3).Member(0).Member(2).Learner(1).RunningFor(1, kJoinDeadline - absl::Seconds(1)),
     Action::kWait, -1, 0, -1, "learner test-1 to start"},
    {"AStartedLearnerIsPromotedHoweverLongItRan",
     O(3, 3).Member(0).Member(2).Learner(1, true).RunningFor(1, absl::Hours(1)), Action::kPromote,
     1, IdOf(1)},
    {"DataLostReplacementPromotes", O(3, 3).Member(0).Member(2).Learner(1, true), Action::kPromote,
     1, IdOf(1)},
    {"DataLostRemovalRefusedWithoutQuorum", O(3, 3).Voters(3).Down(1).DataLost(1).Down(2),
     Action::kWait, -1, 0, -1, "removing test-1 would leave 1 healthy of 2"},
    {"TheOnlyMemberLosingDataWaits", O(1, 1).Voters(1).Down(0).DataLost(0), Action::kWait, -1, 0,
     -1, "only voting member"},
    {"AStartedLearnerThatLostDataIsRemoved", O(3, 3).Voters(2).Learner(2, true).DataLost(2),
     Action::kRemoveMember, 2, IdOf(2)},
    {"DataLostBeyondTheTargetGoesAsPartOfTheShrink", O(2, 3).Voters(3).Down(2).DataLost(2),
     Action::kRemoveMember, 2, IdOf(2)},

    // Resuming after the operator stopped between two steps.
    {"ResumeScalesUpForAMemberWithoutPod", O(3, 2).Voters(3).Down(2), Action::kScaleStatefulSet, -1,
     0, 3},
    {"ResumeAddsTheMemberOfARunningPod", O(3, 3).Voters(2).CrashLooping(2), Action::kAddLearner, 2},
    {"ResumeStopsThePodOfARemovedMember", O(2, 3).Voters(2), Action::kScaleStatefulSet, -1, 0, 2},

    // Members that do not fit.
    {"AForeignMemberStopsThePlanner",
     [] {
       Observation o = O(3, 3).Voters(3);
       o.members.push_back({.id = 7, .name = "x", .peer_url = "https://x:2380", .started = true});
       return o;
     }(),
     Action::kWait, -1, 0, -1, "belongs to no pod"},
    {"AMemberIsFoundByNameWhenItsPeerUrlDiffers",
     [] {
       Observation o = O(2, 2).Voters(1);
       o.members.push_back({.id = IdOf(1),
                            .name = NameOf(1),
                            .peer_url = "http://old:2380",
                            .started = true,
                            .healthy = true});
       return o;
     }(),
     Action::kNone},
    {"TwoMembersOnOneOrdinalStopThePlanner",
     [] {
       Observation o = O(2, 2).Voters(2);
       o.members.push_back(
           {.id = 9, .name = NameOf(1), .peer_url = "http://old:2380", .started = true});
       return o;
     }(),
     Action::kWait, -1, 0, -1, "both claim test-1"},
};

INSTANTIATE_TEST_SUITE_P(Table, PlannerTableTest, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return info.param.name; });

// Issue 14: the planner named every ordinal below spec.replicas each time it
// placed the members, so 50000000 desired members cost gigabytes per call.
TEST(PlannerTest, NamesOnlyTheOrdinalsThatCanHoldAMember) {
  Observation o = static_cast<Observation>(O(3, 3).Voters(3));
  o.desired_replicas = 1'000'000;
  int calls = 0;
  o.member_name = [&](int k) { return ++calls, NameOf(k); };
  o.peer_url = [&](int k) { return ++calls, UrlOf(k); };
  const Action a = NextAction(o);
  EXPECT_EQ(KindName(a.kind), KindName(Action::kAddLearner)) << a.reason;
  EXPECT_EQ(a.ordinal, 3);
  EXPECT_LT(calls, 100);
}

TEST(PlannerTest, AWaitForALearnerLooksAgainWhenItsPodReachesTheDeadline) {
  const Action running =
      NextAction(O(3, 3).Member(0).Member(2).Learner(1).RunningFor(1, absl::Seconds(20)));
  EXPECT_EQ(running.kind, Action::kWait) << running.reason;
  EXPECT_EQ(running.recheck_after, kJoinDeadline - absl::Seconds(20));
  const Action not_running = NextAction(O(3, 3).Member(0).Member(2).Learner(1));
  EXPECT_EQ(not_running.kind, Action::kWait) << not_running.reason;
  EXPECT_EQ(not_running.recheck_after, absl::ZeroDuration()) << "a pod event will come";
}

TEST(PlannerTest, WithoutNamingFunctionsItWaits) {
  Observation o = O(3, 3).Voters(3);
  o.peer_url = nullptr;
  EXPECT_EQ(NextAction(o).kind, Action::kWait);
}

// A model of the cluster the planner drives: membership and pods only, with
// every running member healthy unless marked down. It checks the planner's
// promises over whole sequences of steps rather than one step at a time.
class Model {
 public:
  struct M {
    uint64_t id;
    int ordinal;
    bool learner;
    bool started;
  };

  bool bootstrapped = false;
  int sts = 0;
  std::vector<M> members;
  std::set<int> down;  // ordinals whose process does not run
  uint64_t leader = 0;
  uint64_t next_id = 1;

  Observation Observe(int desired) const {
    Observation o;
    o.desired_replicas = desired;
    o.statefulset_replicas = sts;
    o.bootstrapped = bootstrapped;
    o.member_name = NameOf;
    o.peer_url = UrlOf;
    o.members_known = HasQuorum();
    if (o.members_known) {
      for (const M& m : members) {
        const bool runs = Runs(m.ordinal);
        o.members.push_back({.id = m.id,
                             .name = m.started ? NameOf(m.ordinal) : "",
                             .peer_url = UrlOf(m.ordinal),
                             .is_learner = m.learner,
                             .started = m.started,
                             .healthy = m.started ? std::optional<bool>(runs) : std::nullopt});
      }
      if (leader != 0) o.leader_id = leader;
    }
    for (int k = 0; k < std::max(sts, desired); ++k) {
      o.pods.push_back({.ordinal = k, .exists = k < sts, .ready = Runs(k)});
    }
    return o;
  }

  bool Runs(int k) const { return k < sts && !down.count(k); }

  bool HasQuorum() const {
    int voting = 0, up = 0;
    for (const M& m : members) {
      if (m.learner) continue;
      ++voting;
      if (m.started && Runs(m.ordinal)) ++up;
    }
    return voting > 0 && 2 * up > voting;
  }

  // Applies `a` the way the reconciler and etcd would; fails the test on a
  // step that etcd would refuse or that loses quorum.
  void Apply(const Action& a) {
    switch (a.kind) {
      case Action::kBootstrap:
        ASSERT_TRUE(members.empty());
        members.push_back({next_id++, 0, false, true});
        leader = members[0].id;
        bootstrapped = true;
        sts = 1;
        break;
      case Action::kAddLearner:
        ASSERT_TRUE(HasQuorum());
        members.push_back({next_id++, a.ordinal, true, false});
        break;
      case Action::kScaleStatefulSet:
        sts = a.replicas;
        break;
      case Action::kPromote:
        for (M& m : members) {
          if (m.id == a.member_id) {
            ASSERT_TRUE(m.learner && m.started);
            m.learner = false;
          }
        }
        ASSERT_TRUE(HasQuorum());
        break;
      case Action::kMoveLeader:
        leader = a.member_id;
        break;
      case Action::kRemoveMember: {
        auto it = std::find_if(members.begin(), members.end(),
                               [&](const M& m) { return m.id == a.member_id; });
        ASSERT_NE(it, members.end());
        ASSERT_NE(it->id, leader) << "removed the leader without moving leadership";
        members.erase(it);
        ASSERT_TRUE(HasQuorum()) << "a removal lost quorum";
        break;
      }
      case Action::kRollPod:  // roll steps: never from NextAction
      case Action::kReplaceMember:
        ADD_FAILURE() << "NextAction returned a roll step";
        break;
      case Action::kDeletePod:
      case Action::kNone:
      case Action::kWait:
        break;
    }
    // Pods that run join as their member (learners catch up at once).
    for (M& m : members) {
      if (Runs(m.ordinal)) m.started = true;
    }
  }

  // Runs the planner to convergence; returns the kinds taken.
  std::vector<Action::Kind> Converge(int desired) {
    std::vector<Action::Kind> kinds;
    for (int step = 0; step < 100; ++step) {
      const Action a = NextAction(Observe(desired));
      if (a.kind == Action::kNone || a.kind == Action::kWait) {
        kinds.push_back(a.kind);
        return kinds;
      }
      kinds.push_back(a.kind);
      Apply(a);
      if (::testing::Test::HasFatalFailure()) return kinds;
    }
    ADD_FAILURE() << "no convergence in 100 steps";
    return kinds;
  }

  int Voting() const {
    return static_cast<int>(
        std::count_if(members.begin(), members.end(), [](const M& m) { return !m.learner; }));
  }
};

TEST(PlannerModelTest, EverySizeChangeConvergesWithoutLosingQuorum) {
  for (int from = 0; from <= 5; ++from) {
    for (int to = 0; to <= 5; ++to) {
      SCOPED_TRACE("from " + std::to_string(from) + " to " + std::to_string(to));
      Model m;
      EXPECT_EQ(m.Converge(from).back(), Action::kNone);
      EXPECT_EQ(m.Converge(to).back(), Action::kNone);
      EXPECT_EQ(m.sts, to);
      EXPECT_EQ(m.Voting(), std::max(to, m.bootstrapped ? 1 : 0));
      EXPECT_EQ(m.members.size(), static_cast<size_t>(m.Voting()));
      for (const Model::M& mm : m.members) EXPECT_LT(mm.ordinal, std::max(to, 1));
    }
  }
}

TEST(PlannerModelTest, GrowingTakesLearnerScalePromotePerMember) {
  Model m;
  m.Converge(1);
  const std::vector<Action::Kind> kinds = m.Converge(3);
  const std::vector<Action::Kind> want = {
      Action::kAddLearner,       Action::kScaleStatefulSet, Action::kPromote, Action::kAddLearner,
      Action::kScaleStatefulSet, Action::kPromote,          Action::kNone};
  EXPECT_EQ(kinds, want);
}

TEST(PlannerModelTest, ShrinkingWithAMemberDownStopsBeforeQuorumIsLost) {
  Model m;
  m.Converge(5);
  m.down = {1, 2};
  // 5 → 4: removing test-4 would leave 2 healthy of 4.
  EXPECT_EQ(m.Converge(4).back(), Action::kWait);
  EXPECT_EQ(m.Voting(), 5);
  m.down = {1};
  EXPECT_EQ(m.Converge(3).back(), Action::kNone);
  EXPECT_EQ(m.Voting(), 3);
}

}  // namespace
}  // namespace quorum::etcd
