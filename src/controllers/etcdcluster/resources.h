// The Kubernetes resources the EtcdCluster controller reads and writes.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_RESOURCES_H_
#define QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_RESOURCES_H_

#include "src/controllers/common/resources.h"
#include "src/kube/resource.h"
#include "src/kube/resources.h"

namespace quorum::etcdcluster {

using controllers::kEtcdClusters;
using controllers::kPostgresClusters;
using kube::kConfigMaps;
using kube::kNetworkPolicies;
using kube::kPdbs;
using kube::kPods;
using kube::kPvcs;
using kube::kSecrets;
using kube::kServices;
using kube::kStatefulSets;

// Index on the PostgresCluster informer (WatchPostgresClients, reconciler.h):
// "<ns>/<etcd cluster>" of each PostgresCluster whose
// spec.patroni.dcs.etcd.clusterRef names one.
inline constexpr char kPostgresClientIndex[] = "etcdcluster-postgres-clients";

}  // namespace quorum::etcdcluster

#endif  // QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_RESOURCES_H_
