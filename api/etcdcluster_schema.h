// The one source of the EtcdCluster schema: every field of API.md with its
// type, description, default and CEL rules, as an OpenAPI v3 schema in which
// Kubernetes types (PodSpec, PersistentVolumeClaimSpec, ServiceSpec,
// EmptyDirVolumeSource, Condition, IntOrString) are `$ref`s into the API
// server's own OpenAPI document. openapi_schema.h inlines those references;
// crd.h wraps the result into the CustomResourceDefinition.
//
// Extension understood by the inliner (and removed by it):
//   x-quorum-partial: true   on a $ref: the referenced type is a partial
//                            object merged over Quorum's own (podTemplate.spec),
//                            so its top-level `required` list is dropped.
//
// Thread-safety: pure functions.
#ifndef QUORUM_API_ETCDCLUSTER_SCHEMA_H_
#define QUORUM_API_ETCDCLUSTER_SCHEMA_H_

#include <nlohmann/json_fwd.hpp>

namespace quorum::api {

// openAPIV3Schema of EtcdCluster, with $refs of the form
// "#/components/schemas/io.k8s.api.core.v1.PodSpec".
nlohmann::json EtcdClusterSchemaSource();

// additionalPrinterColumns of the v1alpha1 version: Replicas (desired),
// Ready (ready members), Leader, Version (the lowest member version), Status
// (the Ready condition's reason), Age. aenix's CRD has none; these are
// Quorum's own, kept as they were and extended (issue 38).
nlohmann::json EtcdClusterPrinterColumns();

}  // namespace quorum::api

#endif  // QUORUM_API_ETCDCLUSTER_SCHEMA_H_
