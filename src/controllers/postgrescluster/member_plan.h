// What happens to a PostgresCluster's members in one reconcile, decided in
// one place. The reconciler observes (MemberObservation), PlanMemberSteps
// decides, and one act switch (reconciler.cc, ActOnMembers) carries it out.
//
// A risky step is one that moves the primary role or takes a member away.
// At most one is taken per reconcile; the next reconcile sees the members as
// they are after it. In order of precedence:
//   1. kReleaseLock: the DCS leader crash-loops and holds the leader lock
//      (crash_loop.h); until a replica takes over no write succeeds, and no
//      other step could be taken safely anyway;
//   2. kUserSwitchover: the user's switchover trigger is acted on now
//      (switchover_plan.h, kAct);
//   3. kRemoval: a member removal's step (membership.h): the switchover away
//      from a leaving primary, a set scaled down, a removed set deleted;
//   4. kRoll: a rollout step (rollout.h): a pod replaced, or the primary
//      role moved away from an outdated primary.
// A step that must wait its turn says so (the removal's `waiting`, the
// rollout's kWait reason), and a set that shrinks keeps its current replicas
// until its removal is the step taken (`hold`).
// A major upgrade (major_upgrade.h) moves and stops the members itself: only
// kReleaseLock remains, and no removal, rollout or write through the primary.
// The idempotent writes are planned beside the step: spec.users and the
// pooler's role through a known primary, the dynamic configuration. The act
// corrects the role labels first (they route clients); while that fails it
// takes no rollout step and none of the idempotent writes (a removal goes on:
// its scale-down was applied with the owned objects already).
//
// Pure (thread-safe).
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_MEMBER_PLAN_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_MEMBER_PLAN_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/controllers/postgrescluster/crash_loop.h"
#include "src/controllers/postgrescluster/membership.h"
#include "src/controllers/postgrescluster/rollout.h"

namespace quorum::postgrescluster {

struct MemberObservation {
  std::vector<SetScale> sets;   // the instance sets, removed ones too (remove_members.h)
  std::vector<MemberPod> pods;  // the member pods (roll_members.h MemberPods)
  int desired = 0;              // members the spec asks for
  std::optional<LockRelease> lock_release;  // PlanLockRelease, with the DCS reachable
  bool user_switchover_acts = false;        // SwitchoverActsNow
  bool upgrade_underway = false;            // UpgradeUnderway
};

struct MemberPlan {
  enum Step { kNone, kReleaseLock, kUserSwitchover, kRemoval, kRoll } step = kNone;
  LockRelease lock;           // kReleaseLock
  MembershipPlan membership;  // its step is taken on kRemoval; its holds and wait always
  RollStep roll;              // taken on kRoll; a kWait is said
  bool ensure_users = false;  // spec.users and the pooler's role, through the primary
  bool sync_config = false;   // the dynamic configuration
  bool operator==(const MemberPlan&) const = default;
};

// The name of `step`, for logs and tests.
const char* StepName(MemberPlan::Step step);

// The plan for `o` (the file comment's rules).
MemberPlan PlanMemberSteps(const MemberObservation& o);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_MEMBER_PLAN_H_
