// Removing members safely: a set scaled down (its replicas lowered) or an
// instance set removed from spec.instances. The StatefulSet controller
// deletes the highest ordinals, and a removed set's StatefulSet takes all its
// pods — the primary among them, if it runs there. So members leave only
// while the primary is known and stays (or none of them ever started: a
// Pending pod cannot be the primary): when it is among the leaving pods the
// primary role first moves (a Patroni switchover) to a ready member that
// stays and streams from it (so the primary's clean shutdown hands it every
// acknowledged write), and the set keeps its current replicas until then.
//
// At most one risky step per reconcile (member_plan.h orders them): one
// switchover, one set scaled down or one removed set deleted; a step taken
// first (the user's switchover) makes every removal wait. A removed set whose
// pods are all gone is deleted at once (nothing leaves with it). The claims
// of leaving pods stay (the StatefulSets retain them): adding the set again,
// or scaling up again, reuses them.
//
// Pure (thread-safe): the reconciler observes, this decides, the reconciler acts.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_MEMBERSHIP_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_MEMBERSHIP_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/controllers/postgrescluster/rollout.h"

namespace quorum::postgrescluster {

// One instance StatefulSet as the spec wants it and the cache holds it.
struct SetScale {
  std::string statefulset;
  int desired = 0;             // the spec's replicas (a removed set: 0)
  std::optional<int> current;  // the StatefulSet's spec.replicas; nullopt: none yet
  bool removed = false;        // no longer in spec.instances: the StatefulSet goes
};

struct MembershipPlan {
  // Replicas to apply for each set of the spec (absent: as the spec says),
  // held at the current value while its scale-down must wait.
  std::map<std::string, int> hold;
  // Removed sets' StatefulSets to delete now.
  std::vector<std::string> delete_sets;
  // A switchover to take first: from the primary to a member that stays.
  struct Switchover {
    std::string from;
    std::string to;
    bool operator==(const Switchover&) const = default;
  };
  std::optional<Switchover> switchover;
  // The risky step taken (a scale-down, a deletion with pods, the
  // switchover), for the event; "" none.
  std::string step;
  // Why a removal waits, "" when none does.
  std::string waiting;
  bool operator==(const MembershipPlan&) const = default;
};

// The pod names of StatefulSet `statefulset` are `<statefulset>-<ordinal>`;
// the ordinal of `pod`, or nullopt when it is not one of them.
std::optional<int> OrdinalIn(const std::string& statefulset, const std::string& pod);

// `pods`: the cluster's member pods (not being deleted), with readiness and
// the known primary (MemberPods). `first`: the risky step taken in this
// reconcile instead ("the requested switchover"; member_plan.h), "" none;
// every shrinking set then waits, saying for what.
MembershipPlan PlanMembership(const std::vector<SetScale>& sets, const std::vector<MemberPod>& pods,
                              const std::string& first);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_MEMBERSHIP_H_
