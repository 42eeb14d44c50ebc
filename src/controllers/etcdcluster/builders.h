// Pure builders: from a parsed EtcdCluster (api/etcdcluster_types.h:
// defaulted and validated) to the objects the reconciler applies with
// server-side apply. Each result carries apiVersion,
// kind, metadata (name, namespace, labels, owner reference) and only the
// fields Quorum owns, so applying it twice writes nothing.
// No client, clock or logger here; thread-safe.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_BUILDERS_H_
#define QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_BUILDERS_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/controllers/etcdcluster/names.h"

namespace quorum::etcdcluster {

// What new members are told about the cluster they start in, carried by the
// <cluster>-cluster-state ConfigMap into the pods' environment
// (ETCD_INITIAL_CLUSTER, ETCD_INITIAL_CLUSTER_STATE,
// ETCD_INITIAL_CLUSTER_TOKEN). Read by etcd only on its first start.
struct BootstrapState {
  std::string state = "new";  // "new" for the first member, then "existing"
  std::vector<std::pair<std::string, std::string>> members;  // {name, peer URL}
  bool operator==(const BootstrapState&) const = default;
};

// The etcd command line: identity and URLs from the pod's name and
// namespace ($(POD_NAME) expansion by the kubelet), data dir, metrics
// listener for probes, TLS file flags (or --peer-auto-tls), the auto-compaction defaults below
// for what spec.options does not set, then spec.options sorted by key
// ("--key=value", or "--key" for an empty value).
std::vector<std::string> BuildEtcdArgs(const EtcdCluster& cluster);

// etcd's own default keeps every revision forever. Unless spec.options sets
// them: auto-compaction-mode=periodic, auto-compaction-retention=1h (with
// auto-compaction-mode=revision alone: a retention of 10000 revisions).
inline constexpr char kDefaultAutoCompactionMode[] = "periodic";
inline constexpr char kDefaultAutoCompactionRetention[] = "1h";
inline constexpr char kDefaultAutoCompactionRevisions[] = "10000";

// metadata for an owned object `name`: the user's labels and annotations
// first, ours win.
Json Metadata(const EtcdCluster& cluster, const std::string& name,
              const api::TemplateMeta& user = {});

Json BuildHeadlessService(const EtcdCluster& cluster);
Json BuildClientService(const EtcdCluster& cluster);
Json BuildStateConfigMap(const EtcdCluster& cluster, const BootstrapState& state);
// The member StatefulSet with `replicas` pods (the planner decides how many).
// `operator_image`: the image of the restore init containers (restore.h);
// without it a restore source adds nothing.
Json BuildStatefulSet(const EtcdCluster& cluster, int replicas,
                      const std::string& operator_image = "");
// nullopt when spec.podDisruptionBudgetTemplate is absent. An empty template
// spec means minAvailable = quorum of `voting_members`.
std::optional<Json> BuildPodDisruptionBudget(const EtcdCluster& cluster, int voting_members);

}  // namespace quorum::etcdcluster

#endif  // QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_BUILDERS_H_
