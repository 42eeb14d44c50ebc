// The member roll of an EtcdCluster: how pods that run an older pod template
// than the StatefulSet asks for (an image upgrade, any template change) are
// replaced. The StatefulSet is OnDelete, so nothing rolls until the operator
// deletes a pod, and PlanRoll decides which, one at a time:
//
//   * only when the membership planner has nothing to do (PlanStep calls it
//     after etcd::NextAction answered kNone);
//   * an outdated member that is already down (pod not ready or member not
//     healthy) goes first: replacing it takes nothing away, and it is the
//     way out of a bad template (a wrong image) that the user has fixed;
//   * otherwise every voting member must answer healthy, every pod be ready,
//     no learner exist, and every member have applied the leader's log up to
//     kCatchUpSlack entries: the member rolled last is back and caught up;
//   * followers first, highest ordinal first; the leader last, after
//     leadership moved to an updated member (kMoveLeader; to another follower
//     when none is updated yet), so the leader is never the member restarted;
//   * a member on a PersistentVolumeClaim keeps its data: its pod is deleted
//     (kRollPod) and comes back with the new template as the same member;
//   * an emptyDir member has no data to keep: it is removed from the cluster
//     and its pod deleted in one step (kReplaceMember, only when the removal
//     leaves a healthy quorum); the membership planner then adds the new pod
//     as a learner and promotes it, and the next roll waits for that;
//   * a one-member emptyDir cluster never rolls: its data would be gone (the
//     plan waits and says to scale to 3 first).
//
// Thread-safety: pure function.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_ROLL_H_
#define QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_ROLL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "src/etcd/planner.h"

namespace quorum::etcdcluster {

// How far (in raft entries) a member's applied index may trail the leader's
// last index and still count as caught up. Writes go on during a roll, so
// equality is never seen; a member that replayed its WAL and follows the
// leader is within a few entries of it, while one still receiving a snapshot
// or replaying is far behind.
inline constexpr uint64_t kCatchUpSlack = 1000;

// One ordinal whose pod exists.
struct RollOrdinal {
  int ordinal = 0;
  std::string pod;        // its name, for the reasons
  std::string pod_uid;    // the pod observed; only that one is deleted
  bool outdated = false;  // the pod's revision is not the StatefulSet's update revision
  bool pod_ready = false;
  bool deleting = false;              // the pod is being deleted
  std::optional<uint64_t> member_id;  // the member registered for this ordinal
  bool learner = false;               // that member is a learner
  bool healthy = false;               // it answered its status with no errors
  uint64_t applied_index = 0;         // its raft applied index, when it answered
};

struct RollInput {
  bool empty_dir = false;
  std::string revision;  // the StatefulSet's update revision, for the reasons

  int voting_members = 0;  // in the member list
  std::optional<uint64_t> leader_id;
  uint64_t leader_raft_index = 0;  // the leader's last log index, when it answered
  std::vector<RollOrdinal> ordinals;
};

// kNone when no pod is outdated; else kRollPod, kReplaceMember, kMoveLeader
// or kWait (the reason names what the roll waits for).
etcd::Action PlanRoll(const RollInput& in);

// The pods roll steps deleted, per cluster, until the cache stops showing
// them as they were: for a moment after the delete the cache may still show
// the pod without its deletionTimestamp, and the roll must see it as going,
// not as an outdated member that is down. Thread-safe.
class RolledPods {
 public:
  void Deleted(const std::string& cluster_key, const std::string& pod_uid);
  // Which of `live_uids` (the pods the cache shows, not deleting) a step
  // deleted; the deleted pods no longer among them are forgotten.
  std::set<std::string> StillShown(const std::string& cluster_key,
                                   const std::vector<std::string>& live_uids);
  void Forget(const std::string& cluster_key);

 private:
  absl::Mutex mu_;
  std::map<std::string, std::set<std::string>> deleted_ ABSL_GUARDED_BY(mu_);
};

}  // namespace quorum::etcdcluster

#endif  // QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_ROLL_H_
