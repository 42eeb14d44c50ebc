// The Kubernetes resources the EtcdCluster controller reads and writes.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_RESOURCES_H_
#define QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_RESOURCES_H_

#include "src/controllers/common/resources.h"
#include "src/kube/resource.h"
#include "src/kube/resources.h"

namespace quorum::etcdcluster {

using controllers::kEtcdClusters;
using kube::kConfigMaps;
using kube::kPdbs;
using kube::kPods;
using kube::kPvcs;
using kube::kSecrets;
using kube::kServices;
using kube::kStatefulSets;

}  // namespace quorum::etcdcluster

#endif  // QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_RESOURCES_H_
