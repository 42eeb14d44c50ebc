#include "src/controllers/postgrescluster/membership.h"

#include <gtest/gtest.h>

namespace quorum::postgrescluster {
namespace {

// A ready replica streams from the primary unless a test says otherwise.
MemberPod Pod(std::string name, bool primary = false, bool ready = true) {
  return {
      .name = std::move(name), .ready = ready, .primary = primary, .streaming = ready && !primary};
}

SetScale Set(std::string sts, int desired, std::optional<int> current) {
  return {.statefulset = std::move(sts), .desired = desired, .current = current};
}

SetScale Removed(std::string sts, int current) {
  return {.statefulset = std::move(sts), .current = current, .removed = true};
}

TEST(MembershipTest, OrdinalsBelongToTheirOwnStatefulSet) {
  EXPECT_EQ(OrdinalIn("c-main", "c-main-0"), 0);
  EXPECT_EQ(OrdinalIn("c-main", "c-main-12"), 12);
  EXPECT_EQ(OrdinalIn("c-a", "c-a-1-0"), std::nullopt) << "set a-1's pod is not set a's";
  EXPECT_EQ(OrdinalIn("c-a-1", "c-a-1-0"), 0);
  EXPECT_EQ(OrdinalIn("c-a", "c-a-"), std::nullopt);
  EXPECT_EQ(OrdinalIn("c-a", "c-a-01"), std::nullopt);
  EXPECT_EQ(OrdinalIn("c-a", "c-b-0"), std::nullopt);
}

TEST(MembershipTest, NothingShrinksNothingHappens) {
  EXPECT_EQ(PlanMembership({Set("c-main", 3, 3), Set("c-new", 2, std::nullopt)},
                           {Pod("c-main-0", true), Pod("c-main-1"), Pod("c-main-2")}, ""),
            MembershipPlan{});
  EXPECT_EQ(PlanMembership({Set("c-main", 3, 1)}, {Pod("c-main-0", true)}, ""), MembershipPlan{})
      << "a scale-up is applied as the spec says";
}

TEST(MembershipTest, AScaleDownWithoutThePrimaryGoesAtOnce) {
  const MembershipPlan plan = PlanMembership(
      {Set("c-main", 1, 3)}, {Pod("c-main-0", true), Pod("c-main-1"), Pod("c-main-2")}, "");
  EXPECT_TRUE(plan.hold.empty());
  EXPECT_FALSE(plan.switchover.has_value());
  EXPECT_EQ(plan.step,
            "scaling c-main down to 1 (removing c-main-1, c-main-2; their claims are kept)");
  EXPECT_EQ(plan.waiting, "");
}

TEST(MembershipTest, AScaleDownWithThePrimarySwitchesOverToAMemberThatStaysFirst) {
  const MembershipPlan plan =
      PlanMembership({Set("c-main", 1, 3)},
                     {Pod("c-main-0", false, false), Pod("c-main-1"), Pod("c-main-2", true)}, "");
  EXPECT_EQ(plan.hold, (std::map<std::string, int>{{"c-main", 3}}));
  EXPECT_FALSE(plan.switchover.has_value()) << "c-main-0, the one that stays, is not ready";
  EXPECT_EQ(plan.waiting,
            "waiting for a ready member that stays to take over the primary role from c-main-2 "
            "before scaling c-main down to 1 (removing c-main-1, c-main-2; their claims are kept)");

  const MembershipPlan ready = PlanMembership(
      {Set("c-main", 1, 3)}, {Pod("c-main-0"), Pod("c-main-1"), Pod("c-main-2", true)}, "");
  EXPECT_EQ(ready.hold, (std::map<std::string, int>{{"c-main", 3}}));
  ASSERT_TRUE(ready.switchover.has_value());
  EXPECT_EQ(*ready.switchover, (MembershipPlan::Switchover{.from = "c-main-2", .to = "c-main-0"}))
      << "never to c-main-1, which leaves too";

  // Only to a member the primary's WAL streams to: a switchover to one that
  // is not connected would lose the writes it has not received.
  MemberPod reconnecting = Pod("c-main-0");
  reconnecting.streaming = false;
  const MembershipPlan waits = PlanMembership(
      {Set("c-main", 1, 3)}, {reconnecting, Pod("c-main-1"), Pod("c-main-2", true)}, "");
  EXPECT_FALSE(waits.switchover.has_value());
  EXPECT_EQ(waits.hold, (std::map<std::string, int>{{"c-main", 3}}));
  EXPECT_EQ(waits.waiting.rfind("waiting for a ready member that stays to stream from c-main-2", 0),
            0u)
      << waits.waiting;
}

TEST(MembershipTest, ARemovedSetIsDeletedOnceThePrimaryIsElsewhere) {
  const std::vector<SetScale> sets = {Set("c-main", 1, 1), Removed("c-extra", 2)};
  const MembershipPlan with_primary =
      PlanMembership(sets, {Pod("c-main-0"), Pod("c-extra-0", true), Pod("c-extra-1")}, "");
  EXPECT_TRUE(with_primary.delete_sets.empty());
  EXPECT_TRUE(with_primary.hold.empty()) << "a removed set is not applied at all";
  ASSERT_TRUE(with_primary.switchover.has_value());
  EXPECT_EQ(with_primary.switchover->to, "c-main-0");

  const MembershipPlan after =
      PlanMembership(sets, {Pod("c-main-0", true), Pod("c-extra-0"), Pod("c-extra-1")}, "");
  EXPECT_EQ(after.delete_sets, std::vector<std::string>{"c-extra"});
  EXPECT_EQ(after.step,
            "removing instance set StatefulSet c-extra (members c-extra-0, c-extra-1; their "
            "claims are kept)");

  EXPECT_EQ(PlanMembership({Set("c-main", 1, 1), Removed("c-extra", 0)}, {Pod("c-main-0")}, "")
                .delete_sets,
            std::vector<std::string>{"c-extra"})
      << "without pods it goes even while no primary is known";
}

TEST(MembershipTest, NothingLeavesWhileThePrimaryIsUnknownOrAUserSwitchoverIsPending) {
  const std::vector<SetScale> sets = {Set("c-main", 1, 2)};
  const MembershipPlan unknown = PlanMembership(sets, {Pod("c-main-0"), Pod("c-main-1")}, "");
  EXPECT_EQ(unknown.hold, (std::map<std::string, int>{{"c-main", 2}}));
  EXPECT_EQ(unknown.waiting.rfind("waiting for a known primary before scaling c-main", 0), 0u);

  MemberPod never_ran = Pod("c-main-1", false, false);
  never_ran.pending = true;
  const MembershipPlan unscheduled = PlanMembership(sets, {Pod("c-main-0"), never_ran}, "");
  EXPECT_TRUE(unscheduled.hold.empty()) << "a Pending pod cannot be the primary";
  EXPECT_EQ(unscheduled.step.rfind("scaling c-main down to 1", 0), 0u);

  const MembershipPlan pending =
      PlanMembership(sets, {Pod("c-main-0", true), Pod("c-main-1")}, "the requested switchover");
  EXPECT_EQ(pending.hold, (std::map<std::string, int>{{"c-main", 2}}));
  EXPECT_EQ(pending.step, "");
  EXPECT_EQ(pending.waiting.rfind("waiting for the requested switchover", 0), 0u);
}

TEST(MembershipTest, OneRiskyStepPerReconcile) {
  const MembershipPlan plan = PlanMembership(
      {Set("c-a", 1, 2), Set("c-b", 1, 2), Removed("c-x", 1)},
      {Pod("c-a-0", true), Pod("c-a-1"), Pod("c-b-0"), Pod("c-b-1"), Pod("c-x-0")}, "");
  EXPECT_EQ(plan.step.rfind("scaling c-a down to 1", 0), 0u);
  EXPECT_EQ(plan.hold, (std::map<std::string, int>{{"c-b", 2}})) << "c-b waits its turn";
  EXPECT_TRUE(plan.delete_sets.empty()) << "c-x waits its turn";
}

TEST(MembershipTest, StoppingEveryMemberNeedsNoSwitchover) {
  const MembershipPlan plan =
      PlanMembership({Set("c-main", 0, 2)}, {Pod("c-main-0", true), Pod("c-main-1")}, "");
  EXPECT_TRUE(plan.hold.empty());
  EXPECT_FALSE(plan.switchover.has_value());
  EXPECT_EQ(plan.step,
            "scaling c-main down to 0 (removing c-main-0, c-main-1; their claims are kept)");
}

}  // namespace
}  // namespace quorum::postgrescluster
