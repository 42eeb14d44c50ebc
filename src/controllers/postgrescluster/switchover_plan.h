// What a new switchover trigger (the annotation, spec.patroni.switchover)
// asks for, decided from the members as observed (pure). A Switchover moves
// the primary role with Patroni's clean shutdown of the primary, which hands
// every acknowledged write only to the standbys connected to it: like a
// member removal's (handover.h), it goes only to a member that the primary's
// WAL streams to now — the target, or without one some replica (Patroni then
// picks among them).
//
// A trigger is answered, never left to wait on what may not come:
//   * a target the spec does not ask for, switchovers not enabled, or a
//     Failover without a running target: Failed at once, with the reason;
//   * the target is the primary already: Succeeded at once;
//   * the target (or, without one, every replica) does not stream yet: the
//     trigger waits, recorded in status.patroni.switchover with result
//     Waiting and why, for up to kSwitchoverStreamWait from the first such
//     look (the record's time): right after a role change the old primary
//     restarts as a replica and connects within seconds, and a switchover
//     back to it must not fail for that. Past the bound: Failed, not
//     attempted, saying what the target was doing.
// Only a switchover Patroni is asked for in this reconcile (kAct) holds the
// rollout and member removals back (one risky step per reconcile); a trigger
// that waits or is answered holds nothing back.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_SWITCHOVER_PLAN_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_SWITCHOVER_PLAN_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "api/postgrescluster_types.h"
#include "src/controllers/postgrescluster/phase.h"

namespace quorum::postgrescluster {

// status.patroni.switchover.result of a trigger still waiting (not handled).
inline constexpr std::string_view kSwitchoverWaiting = "Waiting";
// How long a Switchover waits for its candidate to stream.
inline constexpr absl::Duration kSwitchoverStreamWait = absl::Minutes(2);

struct SwitchoverPlan {
  enum Kind {
    kNone,    // no new trigger
    kHold,    // no primary to move from yet: nothing recorded, looked at again
    kWait,    // the candidate does not stream yet: `record` (result Waiting)
    kAnswer,  // answered without asking Patroni: `record` (Succeeded or Failed)
    kAct,     // ask Patroni now: `record` without result
  } kind = kNone;
  api::PostgresSwitchoverStatus record;
  std::optional<absl::Duration> recheck_after;  // kWait: when the bound runs out
  bool operator==(const SwitchoverPlan&) const = default;
};

// The switchover trigger annotation when it is new (not yet handled: no
// record of it, or one that still waits), else "".
std::string NewSwitchoverTrigger(const PostgresCluster& cluster);

// Why `target` cannot be switched or failed over to — it is not one of the
// pods the spec asks for (MemberPodNames) — naming the field and the members;
// "" when it is empty or a member. Such a trigger is answered Failed at once
// instead of waiting for a pod that will never run.
std::string NotAMember(const PostgresCluster& cluster, const std::string& target);

// The plan for a new trigger at `now` (the file comment's rules).
SwitchoverPlan PlanSwitchover(const PostgresCluster& cluster, const Members& members,
                              absl::Time now);

// PlanSwitchover's kind is kAct: Patroni is asked for a switchover or
// failover in this reconcile, and the rollout and member removals wait.
bool SwitchoverActsNow(const PostgresCluster& cluster, const Members& members, absl::Time now);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_SWITCHOVER_PLAN_H_
