// Quorum's own resources (the CRDs in deploy/crds), as GroupVersionResources
// built from the names api/ defines for the CRD generator, so that each string
// is written once; the built-in ones are in src/kube/resources.h.
#ifndef QUORUM_SRC_CONTROLLERS_COMMON_RESOURCES_H_
#define QUORUM_SRC_CONTROLLERS_COMMON_RESOURCES_H_

#include <string>

#include "api/etcdbackup.h"
#include "api/etcdbackupschedule.h"
#include "api/etcdcluster.h"
#include "api/postgresbackup.h"
#include "api/postgrescluster.h"
#include "api/postgresrole.h"
#include "src/kube/resource.h"

namespace quorum::controllers {

inline const kube::GroupVersionResource kEtcdClusters{std::string(api::kEtcdGroup),
                                                      std::string(api::kEtcdVersion),
                                                      std::string(api::kEtcdClusterPlural)};
inline const kube::GroupVersionResource kEtcdBackups{std::string(api::kEtcdGroup),
                                                     std::string(api::kEtcdVersion),
                                                     std::string(api::kEtcdBackupPlural)};
inline const kube::GroupVersionResource kEtcdBackupSchedules{
    std::string(api::kEtcdGroup), std::string(api::kEtcdVersion),
    std::string(api::kEtcdBackupSchedulePlural)};
inline const kube::GroupVersionResource kPostgresClusters{std::string(api::kPostgresGroup),
                                                          std::string(api::kPostgresVersion),
                                                          std::string(api::kPostgresClusterPlural)};
inline const kube::GroupVersionResource kPostgresBackups{std::string(api::kPostgresGroup),
                                                         std::string(api::kPostgresVersion),
                                                         std::string(api::kPostgresBackupPlural)};
inline const kube::GroupVersionResource kPostgresRoles{std::string(api::kPostgresGroup),
                                                       std::string(api::kPostgresVersion),
                                                       std::string(api::kPostgresRolePlural)};
inline const kube::GroupVersionResource kPostgresDatabases{
    std::string(api::kPostgresGroup), std::string(api::kPostgresVersion),
    std::string(api::kPostgresDatabasePlural)};

}  // namespace quorum::controllers

#endif  // QUORUM_SRC_CONTROLLERS_COMMON_RESOURCES_H_
