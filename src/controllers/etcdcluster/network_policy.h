// Who may reach an EtcdCluster's members (issue 34.2), a pure builder: the
// NetworkPolicy <cluster> (spec.networkPolicy.enabled, default true, also for
// aenix manifests that never name the field), selecting the member pods,
// Ingress only:
//   * peer port 2380: the members;
//   * metrics port 2381: the members and the operator (Prometheus and the
//     like: a policy of your own beside it, policies add up);
//   * client port 2379: the members, the operator, the pods of the
//     PostgresClusters whose spec.patroni.dcs.etcd.clusterRef names the
//     cluster (label postgres.quorum.dev/cluster, same namespace), the
//     EtcdBackup snapshot Jobs (kSnapshotClientLabel), and the peers of
//     spec.networkPolicy.clientFrom when it is set ([] admits nobody else);
//     unset, every pod of the cluster's namespace — or anyone when the client
//     Service is a NodePort or LoadBalancer (its clients come from outside).
// The restore init containers run in the member pods. Kubelet probes come
// from the node, which NetworkPolicy always admits.
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_NETWORK_POLICY_H_
#define QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_NETWORK_POLICY_H_

#include <optional>
#include <string>
#include <vector>

#include "src/controllers/common/operator_peer.h"
#include "src/controllers/etcdcluster/names.h"

namespace quorum::etcdcluster {

// The NetworkPolicy, or nullopt when spec.networkPolicy.enabled is false.
// `postgres_clients`: the names of the PostgresClusters of the cluster's
// namespace that reference it (any order; duplicates are dropped).
std::optional<Json> BuildNetworkPolicy(const EtcdCluster& cluster,
                                       const controllers::OperatorPeer& operator_peer,
                                       std::vector<std::string> postgres_clients);

}  // namespace quorum::etcdcluster

#endif  // QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_NETWORK_POLICY_H_
