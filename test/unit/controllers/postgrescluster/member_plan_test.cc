#include "src/controllers/postgrescluster/member_plan.h"

#include <gtest/gtest.h>

namespace quorum::postgrescluster {
namespace {

// A ready member of set c-main; replicas stream from the primary.
MemberPod Pod(std::string name, bool primary = false, bool outdated = false) {
  return {.name = std::move(name),
          .ready = true,
          .outdated = outdated,
          .primary = primary,
          .streaming = !primary};
}

SetScale Main(int desired, int current) {
  return {.statefulset = "c-main", .desired = desired, .current = current};
}

const LockRelease kCrashLoop{.leader = "c-main-0", .candidates = {"c-main-1"}};

struct Case {
  const char* name;
  MemberObservation in;
  MemberPlan::Step want;
  bool held = false;                      // c-main keeps its current replicas
  RollStep::Kind roll = RollStep::kNone;  // the rollout's answer
  std::string waiting_for = "";           // what waiting steps say they wait for
  bool users = true;                      // spec.users and the pooler's role, through the primary
  bool config = true;                     // the dynamic configuration
};

// Issue 33: every decision on the members comes from one pure plan with at
// most one risky step per reconcile, in a fixed order of precedence.
TEST(MemberPlanTest, AtMostOneRiskyStepInOrderOfPrecedence) {
  const std::vector<MemberPod> three = {Pod("c-main-0", true), Pod("c-main-1"), Pod("c-main-2")};
  const std::vector<MemberPod> outdated = {
      Pod("c-main-0", true, true), Pod("c-main-1", false, true), Pod("c-main-2", false, true)};
  const std::vector<MemberPod> no_primary = {Pod("c-main-0"), Pod("c-main-1"), Pod("c-main-2")};
  const std::vector<Case> cases = {
      {.name = "converged: only the idempotent writes",
       .in = {.sets = {Main(3, 3)}, .pods = three, .desired = 3},
       .want = MemberPlan::kNone},
      {.name = "a scale-down without the primary is the step",
       .in = {.sets = {Main(2, 3)}, .pods = three, .desired = 2},
       .want = MemberPlan::kRemoval},
      {.name = "a removal goes before the rollout, which waits without a word",
       .in = {.sets = {Main(2, 3)}, .pods = outdated, .desired = 2},
       .want = MemberPlan::kRemoval},
      {.name = "an outdated replica is replaced when nothing else is due",
       .in = {.sets = {Main(3, 3)}, .pods = outdated, .desired = 3},
       .want = MemberPlan::kRoll,
       .roll = RollStep::kDeletePod},
      {.name = "the user's switchover goes before a removal and the rollout",
       .in = {.sets = {Main(2, 3)}, .pods = outdated, .desired = 2, .user_switchover_acts = true},
       .want = MemberPlan::kUserSwitchover,
       .held = true,
       .roll = RollStep::kWait,
       .waiting_for = "the requested switchover"},
      {.name = "a crash-looping leader's lock goes before everything",
       .in = {.sets = {Main(2, 3)},
              .pods = outdated,
              .desired = 2,
              .lock_release = kCrashLoop,
              .user_switchover_acts = true},
       .want = MemberPlan::kReleaseLock,
       .held = true,
       .roll = RollStep::kWait,
       .waiting_for = "lock to be released"},
      {.name = "without a known primary nothing is written through it",
       .in = {.sets = {Main(3, 3)}, .pods = no_primary, .desired = 3},
       .want = MemberPlan::kNone,
       .users = false},
      {.name = "a major upgrade holds every step but the lock's, and every write",
       .in = {.sets = {Main(2, 3)},
              .pods = outdated,
              .desired = 2,
              .user_switchover_acts = true,
              .upgrade_underway = true},
       .want = MemberPlan::kNone,
       .users = false,
       .config = false},
      {.name = "a major upgrade with a crash-looping leader: its lock still ends",
       .in = {.sets = {Main(3, 3)},
              .pods = three,
              .desired = 3,
              .lock_release = kCrashLoop,
              .upgrade_underway = true},
       .want = MemberPlan::kReleaseLock,
       .users = false,
       .config = false},
  };
  for (const Case& c : cases) {
    const MemberPlan plan = PlanMemberSteps(c.in);
    EXPECT_EQ(plan.step, c.want) << c.name << ": " << StepName(plan.step);
    EXPECT_EQ(plan.membership.hold.contains("c-main"), c.held) << c.name;
    EXPECT_EQ(plan.roll.kind, c.roll) << c.name << ": " << plan.roll.reason;
    if (!c.waiting_for.empty()) {
      EXPECT_NE(plan.roll.reason.find(c.waiting_for), std::string::npos) << c.name;
      EXPECT_NE(plan.membership.waiting.find(c.waiting_for), std::string::npos) << c.name;
    }
    EXPECT_EQ(plan.ensure_users, c.users) << c.name;
    EXPECT_EQ(plan.sync_config, c.config) << c.name;
    // One risky step: the removal's and the rollout's only when they are the plan's.
    if (plan.step != MemberPlan::kRemoval) {
      EXPECT_EQ(plan.membership.step, "") << c.name;
      EXPECT_FALSE(plan.membership.switchover.has_value()) << c.name;
      EXPECT_TRUE(plan.membership.delete_sets.empty()) << c.name;
    }
    if (plan.step != MemberPlan::kRoll) {
      EXPECT_NE(plan.roll.kind, RollStep::kDeletePod) << c.name;
      EXPECT_NE(plan.roll.kind, RollStep::kSwitchover) << c.name;
    }
    EXPECT_EQ(plan.lock, plan.step == MemberPlan::kReleaseLock ? kCrashLoop : LockRelease{})
        << c.name;
  }
}

// Issue 33: removing a set whose primary leaves moves the primary first, and
// that switchover is the reconcile's one step.
TEST(MemberPlanTest, ASetRemovalWithThePrimarySwitchesOverFirst) {
  const MemberPlan plan =
      PlanMemberSteps({.sets = {{.statefulset = "c-main", .desired = 1, .current = 1},
                                {.statefulset = "c-old", .current = 1, .removed = true}},
                       .pods = {Pod("c-main-0"), Pod("c-old-0", true)},
                       .desired = 1});
  EXPECT_EQ(plan.step, MemberPlan::kRemoval);
  ASSERT_TRUE(plan.membership.switchover.has_value());
  EXPECT_EQ(plan.membership.switchover->from, "c-old-0");
  EXPECT_EQ(plan.membership.switchover->to, "c-main-0");
  EXPECT_TRUE(plan.membership.delete_sets.empty()) << "the set goes once its primary moved";
}

// A removed set with no pod left is deleted whatever the step: nothing
// leaves with it.
TEST(MemberPlanTest, AnEmptyRemovedSetIsNoRiskyStep) {
  const MemberPlan plan = PlanMemberSteps(
      {.sets = {{.statefulset = "c-main", .desired = 3, .current = 3},
                {.statefulset = "c-old", .current = 0, .removed = true}},
       .pods = {Pod("c-main-0", true, true), Pod("c-main-1", false, true), Pod("c-main-2")},
       .desired = 3});
  EXPECT_EQ(plan.membership.delete_sets, std::vector<std::string>{"c-old"});
  EXPECT_EQ(plan.step, MemberPlan::kRoll) << "the rollout still takes its step";
}

}  // namespace
}  // namespace quorum::postgrescluster
