// Rolling a spec change through the members. The instance StatefulSets use
// the OnDelete strategy, because only the operator knows which pod is the
// primary: it replaces outdated pods one at a time, only while every member
// is ready, replicas first, and moves the primary role away (a Patroni
// switchover) before the primary's own pod is replaced. A single-member
// cluster can only be restarted in place.
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
  bool outdated = false;  // its controller-revision-hash is not the StatefulSet's updateRevision
  bool primary = false;
};

struct RollStep {
  enum Kind { kNone, kWait, kDeletePod, kSwitchover } kind = kNone;
  std::string pod;  // kDeletePod: the pod; kSwitchover: the primary to move away from
  std::string reason;
};

// `desired` is the number of members the spec asks for.
RollStep NextRollStep(const std::vector<MemberPod>& pods, int desired);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ROLLOUT_H_
