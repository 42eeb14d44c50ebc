// The Kubernetes resources the EtcdCluster controller reads and writes.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_RESOURCES_H_
#define QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_RESOURCES_H_

#include "src/kube/resource.h"

namespace quorum::etcdcluster {

inline const kube::GroupVersionResource kEtcdClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};
inline const kube::GroupVersionResource kStatefulSets{"apps", "v1", "statefulsets"};
inline const kube::GroupVersionResource kServices{"", "v1", "services"};
inline const kube::GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
inline const kube::GroupVersionResource kPods{"", "v1", "pods"};
inline const kube::GroupVersionResource kSecrets{"", "v1", "secrets"};
inline const kube::GroupVersionResource kPvcs{"", "v1", "persistentvolumeclaims"};
inline const kube::GroupVersionResource kPdbs{"policy", "v1", "poddisruptionbudgets"};

}  // namespace quorum::etcdcluster

#endif  // QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_RESOURCES_H_
