// The membership planner: a pure function from what the reconciler observed
// of one etcd cluster (desired size, the StatefulSet, the member list, each
// member's health, each pod) to the single next step that is safe to take.
// No I/O, no clock: every decision comes from the Observation alone, so the
// operator may stop between any two steps and the next reconcile resumes.
//
// Ordinals and members. Pod k of the StatefulSet runs member k, named
// member_name(k) and peering at peer_url(k). A member belongs to ordinal k
// when its peer URL is peer_url(k) (a member that has not started has no
// name yet) or its name is member_name(k). The membership target is ordinals
// 0..N-1 as voting members, N = max(desired_replicas, 1): members are never
// removed below one, so a cluster scaled to 0 keeps member 0 registered and
// its data (on a PVC) and comes back with the same identity.
//
// Health and quorum. A member counts as healthy only when `healthy` is true
// (unknown counts as unhealthy). The cluster has a healthy quorum when more
// than half of its voting members are healthy. Learners never count. Removing
// a voting member is safe only when, after the removal, more than half of the
// remaining voting members are healthy; a promotion only when the same holds
// with the learner counted as a healthy voter. Unsafe steps become kWait with
// a sentence saying why.
//
// The steps, in priority order (the first that applies is returned):
//  1. Not bootstrapped (and no member list proves otherwise): desired 0 →
//     StatefulSet to 0, then kNone; else kBootstrap until the StatefulSet asks
//     for exactly 1 replica, then kWait for member 0.
//  2. No member list (no quorum answered): desired 0 with the StatefulSet at 0
//     is kNone (scaled to zero); desired > 0 with the StatefulSet at 0 is
//     kScaleStatefulSet(1) (member 0 restarts with its data); otherwise kWait.
//  3. A member that maps to no ordinal, or two members on one ordinal: kWait
//     (a person must look; Quorum never removes what it cannot place).
//  4. The learner (at most one exists): beyond the target or its pod lost its
//     data → kRemoveMember; its pod not in the StatefulSet → kScaleStatefulSet;
//     not started and its pod crash-looping → kDeletePod (restart it now so it
//     joins); not started while its pod's etcd has run for kJoinDeadline →
//     kDeletePod too (that process is not the learner: see kJoinDeadline);
//     not started → kWait; started and healthy → kPromote when safe.
//  5. StatefulSet larger than needed (pods above the highest member and the
//     desired size) → kScaleStatefulSet down, so the pod of a removed member
//     goes at once; to 0 only when desired is 0 and member 0 alone remains.
//  6. Voting members beyond the target, highest ordinal first: when safe,
//     kMoveLeader away if it leads, then kRemoveMember.
//  7. A started voting member whose pod lost its data → kRemoveMember when
//     safe (then step 8 adds it again as a learner at the same ordinal).
//  8. StatefulSet smaller than the members need → kScaleStatefulSet up.
//  9. The lowest ordinal below the target without a member → kAddLearner,
//     when every voting member has started and the cluster has a healthy
//     quorum; growing onto a pod that does not exist yet also needs every
//     voting member healthy.
// 10. Otherwise kNone (converged; some members may still be unhealthy).
//
// Thread-safety: NextAction is a pure function, safe to call concurrently.
#ifndef QUORUM_SRC_ETCD_PLANNER_H_
#define QUORUM_SRC_ETCD_PLANNER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"

namespace quorum::etcd {

// How long a pod's etcd may run without the learner registered for its
// ordinal having joined. A learner publishes its name within seconds of
// starting, however much data it has yet to receive (the leader commits the
// name; the snapshot follows). An etcd that runs this long without joining is
// another member: one whose failed start left a WAL (a pod whose data was
// lost starts as the old member, panics on the leader's first heartbeat, and
// after that member is removed comes back as it, knowing no peers: real etcd
// 3.6 then waits forever, neither serving clients nor exiting).
inline constexpr absl::Duration kJoinDeadline = absl::Seconds(60);

struct MemberView {
  uint64_t id = 0;
  std::string name;  // empty until the member's process has joined
  std::string peer_url;
  bool is_learner = false;
  bool started = false;  // name non-empty: the member's process has joined
  // From maintenance/status on the member's client URL: true when it answered
  // with no errors and knows a leader. nullopt: not asked or no answer.
  std::optional<bool> healthy;
};

struct PodView {
  int ordinal = 0;
  bool exists = false;  // the pod object exists
  bool ready = false;   // informational; health comes from MemberView::healthy
  // The etcd container keeps failing (CrashLoopBackOff or repeated restarts).
  bool crash_looping = false;
  // The pod's storage is newer than the member registered at this ordinal:
  // the emptyDir pod or the PVC was recreated after that member (by ID) first
  // started. Key the record by member ID so a replacement member starts clean.
  bool data_lost = false;
  // How long the etcd container has been running (zero when it is not).
  absl::Duration running_for = absl::ZeroDuration();
};

struct Observation {
  int desired_replicas = 0;      // spec.replicas (>= 0)
  int statefulset_replicas = 0;  // what the StatefulSet currently asks for
  bool bootstrapped = false;     // recorded in status: the cluster was initialized
  bool members_known = false;    // the member list succeeded (a quorum answered)
  std::optional<uint64_t> leader_id;
  std::vector<MemberView> members;
  // The pods that exist, by ordinal (any order); a missing ordinal means its
  // pod does not exist. NextAction's work and memory grow with the pods, the
  // members and the StatefulSet's size, never with desired_replicas alone.
  std::vector<PodView> pods;
  // Naming of ordinals; called for any ordinal >= 0, also past the StatefulSet.
  std::function<std::string(int ordinal)> member_name;  // "<cluster>-<ordinal>"
  std::function<std::string(int ordinal)> peer_url;  // "https://<cluster>-<k>.<headless>...:2380"
};

struct Action {
  enum Kind {
    kNone,  // converged: nothing to do
    kWait,  // something is in progress or the next step is unsafe: requeue
    // Create the first member: StatefulSet replicas=1 with
    // initial-cluster-state=new and initial-cluster = {ordinal 0}.
    kBootstrap,
    kAddLearner,  // MemberAdd(peer_url, learner) for `ordinal`
    // Set the StatefulSet's replicas; every pod after bootstrap starts with
    // initial-cluster-state=existing. Scaling down, also delete the PVCs of
    // the stopped ordinals >= max(replicas, 1): their members are gone, and a
    // stale volume makes a later member of that ordinal start as the removed
    // one (kDeletePod recovers that, slowly). Ordinal 0 keeps its PVC, so a
    // scale to zero keeps the data.
    kScaleStatefulSet,
    kPromote,       // MemberPromote(member_id); "learner not ready" → retry later
    kMoveLeader,    // MoveLeader(member_id): the new leader
    kRemoveMember,  // MemberRemove(member_id) of `ordinal`
    // Delete pod `ordinal` together with its data volume (its PVC; an
    // emptyDir goes with the pod) so that it restarts now with an empty data
    // dir and joins as the learner registered for it. Only planned for a
    // learner that has never started, so the volume holds nothing of value:
    // at most what a failed start wrote, which would make etcd come up as the
    // removed member (seen with real etcd 3.6) instead of the new learner.
    kDeletePod,
    // Roll steps (src/controllers/etcdcluster/roll.h), never returned by
    // NextAction: delete pod `ordinal` only, so that it comes back with the
    // StatefulSet's current template as the same member, its data kept.
    kRollPod,
    // MemberRemove(member_id) of `ordinal`, then delete its pod: an emptyDir
    // member rolled through the membership path (it comes back as a learner).
    kReplaceMember,
  };
  Kind kind = kNone;
  uint64_t member_id = 0;
  int ordinal = -1;
  int replicas = -1;
  std::string peer_url;
  std::string pod_uid;  // kRollPod, kReplaceMember: the pod deleted (as observed)
  std::string reason;   // one human sentence for events and logs
  // kWait: the plan may change by itself after this long (a clock runs out,
  // no event will say so); zero when only an event or etcd can change it.
  absl::Duration recheck_after = absl::ZeroDuration();
};

Action NextAction(const Observation& observation);

// "AddLearner", "Wait", ... for logs and tests.
std::string_view KindName(Action::Kind kind);

}  // namespace quorum::etcd

#endif  // QUORUM_SRC_ETCD_PLANNER_H_
