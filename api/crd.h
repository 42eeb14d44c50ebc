// The EtcdCluster CustomResourceDefinition (apiextensions.k8s.io/v1), built
// from the schema source (etcdcluster_schema.h) and the API server's OpenAPI
// documents. What cmd/crdgen writes to deploy/crds/.
//
// Thread-safety: pure function.
#ifndef QUORUM_API_CRD_H_
#define QUORUM_API_CRD_H_

#include <nlohmann/json_fwd.hpp>

#include "absl/status/statusor.h"
#include "api/openapi_schema.h"

namespace quorum::api {

// The whole CRD object. Errors: as InlineStructuralSchema (a Kubernetes type
// missing from `index`, an upstream construct with no structural form).
absl::StatusOr<nlohmann::json> BuildEtcdClusterCrd(const OpenApiIndex& index,
                                                   const InlineOptions& options = {});

}  // namespace quorum::api

#endif  // QUORUM_API_CRD_H_
