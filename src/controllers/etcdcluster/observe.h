// Observe phase of the EtcdCluster reconciler: what it reads before it
// decides, as typed values. Two sources:
//   * Kubernetes, from the informer cache (ObserveWorld): the StatefulSet's
//     replicas, the member pods, their storage identities, the state
//     ConfigMap;
//   * etcd itself (ObserveMembers / ObserveEtcd): the member list and each
//     member's status.
// Observing never writes anything. The conversions to the planner's input
// (ObservePods, BuildObservation) are pure.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_OBSERVE_H_
#define QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_OBSERVE_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "src/controllers/etcdcluster/builders.h"
#include "src/etcd/client.h"
#include "src/etcd/planner.h"
#include "src/runtime/cache.h"

namespace quorum::etcdcluster {

// One member pod as the cache shows it.
struct PodInfo {
  std::string name;
  int ordinal = -1;
  std::string uid;
  bool has_ip = false;  // status.podIP set: etcd may answer there
  bool ready = false;
  bool crash_looping = false;  // CrashLoopBackOff or >= 3 restarts
  bool deleting = false;
  std::string revision;  // label controller-revision-hash: the template it runs
  // How long the etcd container has been running, as of the look; zero when
  // it is not running.
  absl::Duration running_for = absl::ZeroDuration();
};

// The Kubernetes side of one cluster.
struct World {
  int statefulset_replicas = 0;                   // 0 when the StatefulSet does not exist
  std::string update_revision;                    // its status.updateRevision ("" unknown)
  std::vector<PodInfo> pods;                      // the cluster's member pods
  std::map<int, std::string> storage_uids;        // ordinal → PVC UID (pod UID for emptyDir)
  std::optional<BootstrapState> state_configmap;  // as last applied; nullopt when absent
  // Data claims of this cluster's name made before it was created: an
  // earlier EtcdCluster's, left behind (claims outlive their StatefulSet).
  std::vector<std::string> leftover_claims;
};

// `now` dates the pods' running_for.
World ObserveWorld(const runtime::Cache& cache, const EtcdCluster& cluster, absl::Time now);

// How ordinals are named and reached: from the cluster's DNS names in
// production (TopologyOf), from local ports in the real-etcd tests.
struct Topology {
  std::function<std::string(int ordinal)> member_name;
  std::function<std::string(int ordinal)> peer_url;
  std::function<std::string(int ordinal)> client_url;
};
Topology TopologyOf(const EtcdCluster& cluster);

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

// The deadline of each call ObserveEtcd makes (per endpoint the member list
// tries): a hung or frozen member answers nothing, and the look at a cluster
// whose members are all frozen must still end well before the readiness
// probes' ~15 s, so that Ready follows a quorum loss promptly (a member of a
// healthy cluster answers these in milliseconds).
inline constexpr absl::Duration kObserveTimeout = absl::Seconds(2);

// Lists members and asks each for its status. Never fails: an unreachable
// cluster is an EtcdView with members_known = false and the reason.
EtcdView ObserveEtcd(etcd::Client& client);

// How the reconciler reaches etcd; tests substitute endpoints.
using EtcdClientFactory =
    std::function<absl::StatusOr<std::unique_ptr<etcd::Client>>(etcd::ClientConfig)>;

// A client for ordinals 0..max(ordinals, 1)-1 (credentials from `config`,
// endpoints from `topology`) and what it saw. `client` is null when the
// factory refused the configuration (view.error says why).
struct EtcdConnection {
  std::unique_ptr<etcd::Client> client;
  EtcdView view;
};
EtcdConnection ObserveMembers(const EtcdClientFactory& factory, etcd::ClientConfig config,
                              const Topology& topology, int ordinals);

// Ordinal of a pod name "<cluster>-<k>", or -1.
int PodOrdinal(const std::string& cluster, const std::string& pod_name);

// The planner's view of the pods that exist, by ascending ordinal:
// exists/ready/crash-looping, and data_lost when the pod's storage identity
// differs from the one recorded in status for that ordinal's member. Sized by
// the pods, never by spec.replicas: an ordinal without a pod has no entry
// (the planner reads that as "no pod").
std::vector<etcd::PodView> ObservePods(const std::vector<PodInfo>& pods,
                                       const std::map<int, std::string>& storage_uids,
                                       const std::map<int, std::string>& recorded_uids);

// Builds the planner input.
etcd::Observation BuildObservation(const Topology& topology, int desired_replicas,
                                   int statefulset_replicas, bool bootstrapped,
                                   const EtcdView& view, std::vector<etcd::PodView> pods);

}  // namespace quorum::etcdcluster

#endif  // QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_OBSERVE_H_
