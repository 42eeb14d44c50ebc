// Rolling a spec change through the members. The instance StatefulSets use
// the OnDelete strategy, because only the operator knows which pod is the
// primary: it replaces outdated pods one at a time, only while every member
// is ready and the primary is known, replicas first, and moves the primary
// role away (a Patroni switchover) before the primary's own pod is replaced:
// to a ready replica the primary's WAL streams to, named (handover.h, the
// evidence a member removal takes); while none streams, the rollout waits.
// One exception to "every member ready": an outdated replica that is not
// ready is replaced first while the known primary is ready — it serves
// nobody, and waiting for it would wedge the rollout that may heal it.
// A single-member cluster can only be restarted in place.
//
// Risky steps (deleting a member pod, a rollout switchover, the user's
// switchover/failover) are taken at most one per reconcile (member_plan.h):
// a step taken first makes the rollout wait for the next reconcile, which
// sees the members as they are after it.
//
// Pure (thread-safe): the reconciler observes, this decides, the reconciler acts.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ROLLOUT_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ROLLOUT_H_

#include <string>
#include <vector>

namespace quorum::postgrescluster {

struct MemberPod {
  std::string name;
  bool ready = false;
  bool outdated = false;   // its controller-revision-hash is not the StatefulSet's updateRevision
  bool primary = false;    // the DCS leader that accepts writes, as observed this reconcile
  bool pending = false;    // status.phase Pending: none of its containers ran yet
  bool streaming = false;  // the primary's WAL streams to it now (its WAL sender says so)
};

struct RollStep {
  enum Kind { kNone, kWait, kDeletePod, kSwitchover } kind = kNone;
  std::string pod;        // kDeletePod: the pod; kSwitchover: the primary to move away from
  std::string candidate;  // kSwitchover: the member that takes over
  std::string reason;
  bool operator==(const RollStep&) const = default;
};

// `desired` is the number of members the spec asks for. While no pod is the
// known primary (no leader, or the members could not be asked) nothing is
// replaced: the highest-named pod could be the real primary.
// `first`: the risky step taken in this reconcile instead ("the requested
// switchover"; member_plan.h), "" none; the rollout then waits, saying for what.
RollStep NextRollStep(const std::vector<MemberPod>& pods, int desired,
                      const std::string& first = "");

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ROLLOUT_H_
