// Quorum's CustomResourceDefinitions (apiextensions.k8s.io/v1), built from
// the schema sources (etcdcluster_schema.h, postgrescluster_schema.h) and the
// API server's OpenAPI documents. What cmd/crdgen writes to deploy/crds/.
//
// Thread-safety: pure functions.
#ifndef QUORUM_API_CRD_H_
#define QUORUM_API_CRD_H_

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "api/openapi_schema.h"

namespace quorum::api {

// The whole CRD object. Errors: as InlineStructuralSchema (a Kubernetes type
// missing from `index`, an upstream construct with no structural form).
absl::StatusOr<nlohmann::json> BuildEtcdClusterCrd(const OpenApiIndex& index,
                                                   const InlineOptions& options = {});
absl::StatusOr<nlohmann::json> BuildEtcdBackupCrd(const OpenApiIndex& index,
                                                  const InlineOptions& options = {});
absl::StatusOr<nlohmann::json> BuildEtcdBackupScheduleCrd(const OpenApiIndex& index,
                                                          const InlineOptions& options = {});
absl::StatusOr<nlohmann::json> BuildPostgresClusterCrd(const OpenApiIndex& index,
                                                       const InlineOptions& options = {});
absl::StatusOr<nlohmann::json> BuildPostgresBackupCrd(const OpenApiIndex& index,
                                                      const InlineOptions& options = {});
absl::StatusOr<nlohmann::json> BuildPostgresRoleCrd(const OpenApiIndex& index,
                                                    const InlineOptions& options = {});
absl::StatusOr<nlohmann::json> BuildPostgresDatabaseCrd(const OpenApiIndex& index,
                                                        const InlineOptions& options = {});

// Every CRD Quorum serves, in a fixed order (EtcdCluster, EtcdBackup, EtcdBackupSchedule,
// PostgresCluster, PostgresBackup, PostgresRole, PostgresDatabase).
// Errors: the first CRD's that fails.
absl::StatusOr<std::vector<nlohmann::json>> BuildCrds(const OpenApiIndex& index,
                                                      const InlineOptions& options = {});

// "<group>_<plural>.yaml", the file name of a CRD under deploy/crds/
// (kubebuilder's convention); "" when `crd` lacks spec.group or the plural.
std::string CrdFileName(const nlohmann::json& crd);

}  // namespace quorum::api

#endif  // QUORUM_API_CRD_H_
