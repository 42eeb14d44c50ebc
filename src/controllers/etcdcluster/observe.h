// What the reconciler reads about one EtcdCluster before it decides: the
// pods (from the cache) and the etcd members (from etcd itself), turned into
// the planner's Observation. Observing never writes anything.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_OBSERVE_H_
#define QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_OBSERVE_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/controllers/etcdcluster/names.h"
#include "src/etcd/client.h"
#include "src/etcd/planner.h"
#include "src/runtime/store.h"

namespace quorum::etcdcluster {

struct MemberStatus {
  etcd::Member member;
  std::optional<etcd::StatusResponse> status;  // nullopt: did not answer
};

struct EtcdView {
  bool members_known = false;
  uint64_t cluster_id = 0;
  bool split_brain = false;  // members report different cluster IDs
  std::optional<uint64_t> leader_id;
  std::vector<MemberStatus> members;
  std::string error;  // why the member list failed, if it did
};

// Lists members and asks each for its status. Never fails: an unreachable
// cluster is an EtcdView with members_known = false and the reason.
EtcdView ObserveEtcd(etcd::Client& client);

// Ordinal of a pod name "<cluster>-<k>", or -1.
int PodOrdinal(const std::string& cluster, const std::string& pod_name);

// The planner's view of the pods: ordinal → exists/ready/crash-looping, and
// data_lost when the pod's storage identity (pod UID for emptyDir, PVC UID
// otherwise) differs from the one recorded in status for that ordinal's
// member.
std::vector<etcd::PodView> ObservePods(const Json& cluster,
                                       const std::vector<runtime::ObjectPtr>& pods,
                                       const std::map<int, std::string>& storage_uids,
                                       const std::map<int, std::string>& recorded_uids, int count);

// Builds the planner input.
etcd::Observation BuildObservation(const Json& cluster, int statefulset_replicas, bool bootstrapped,
                                   const EtcdView& view, std::vector<etcd::PodView> pods);

}  // namespace quorum::etcdcluster

#endif  // QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_OBSERVE_H_
