// Quorum's own resources (the CRDs in deploy/crds), named once; the built-in
// ones are in src/kube/resources.h.
#ifndef QUORUM_SRC_CONTROLLERS_COMMON_RESOURCES_H_
#define QUORUM_SRC_CONTROLLERS_COMMON_RESOURCES_H_

#include "src/kube/resource.h"

namespace quorum::controllers {

inline const kube::GroupVersionResource kEtcdClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};
inline const kube::GroupVersionResource kEtcdBackups{"etcd.aenix.io", "v1alpha1", "etcdbackups"};
inline const kube::GroupVersionResource kEtcdBackupSchedules{"etcd.aenix.io", "v1alpha1",
                                                             "etcdbackupschedules"};
inline const kube::GroupVersionResource kPostgresClusters{"postgres.quorum.dev", "v1alpha1",
                                                          "postgresclusters"};
inline const kube::GroupVersionResource kPostgresBackups{"postgres.quorum.dev", "v1alpha1",
                                                         "postgresbackups"};

}  // namespace quorum::controllers

#endif  // QUORUM_SRC_CONTROLLERS_COMMON_RESOURCES_H_
