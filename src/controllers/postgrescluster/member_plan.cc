#include "src/controllers/postgrescluster/member_plan.h"

#include <algorithm>
#include <string>

namespace quorum::postgrescluster {

const char* StepName(MemberPlan::Step step) {
  switch (step) {
    case MemberPlan::kNone:
      return "none";
    case MemberPlan::kReleaseLock:
      return "release-lock";
    case MemberPlan::kUserSwitchover:
      return "user-switchover";
    case MemberPlan::kRemoval:
      return "removal";
    case MemberPlan::kRoll:
      return "roll";
  }
  return "unknown";
}

MemberPlan PlanMemberSteps(const MemberObservation& o) {
  MemberPlan plan;
  if (o.lock_release.has_value()) {
    plan.step = MemberPlan::kReleaseLock;
    plan.lock = *o.lock_release;
  }
  if (o.upgrade_underway) return plan;  // the upgrade sets the replicas and moves the primary
  const bool user_switchover = plan.step == MemberPlan::kNone && o.user_switchover_acts;
  if (user_switchover) plan.step = MemberPlan::kUserSwitchover;
  std::string first;  // what goes first, for the messages of the steps that wait their turn
  if (plan.step == MemberPlan::kReleaseLock) {
    first = "the crash-looping leader's lock to be released";
  } else if (user_switchover) {
    first = "the requested switchover";
  }
  plan.membership = PlanMembership(o.sets, o.pods, first);
  if (plan.step == MemberPlan::kNone && !plan.membership.step.empty()) {
    plan.step = MemberPlan::kRemoval;
  }
  // A removal's step holds the rollout back without a word: it comes next.
  if (plan.step != MemberPlan::kRemoval) {
    plan.roll = NextRollStep(o.pods, o.desired, first);
    const bool acts =
        plan.roll.kind == RollStep::kDeletePod || plan.roll.kind == RollStep::kSwitchover;
    if (acts && plan.step == MemberPlan::kNone) plan.step = MemberPlan::kRoll;
  }
  const bool primary_known =
      std::any_of(o.pods.begin(), o.pods.end(), [](const MemberPod& p) { return p.primary; });
  plan.ensure_users = primary_known;
  plan.sync_config = true;
  return plan;
}

}  // namespace quorum::postgrescluster
