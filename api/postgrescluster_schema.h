// The one source of the PostgresCluster schema: every field of API.md with
// its type, description, default, limits and CEL rules, as an OpenAPI v3
// schema in which Kubernetes types (PersistentVolumeClaimSpec,
// ResourceRequirements, Affinity, Toleration, TopologySpreadConstraint,
// Condition) are `$ref`s into the API server's own OpenAPI document.
// openapi_schema.h inlines those references; crd.h wraps the result into the
// CustomResourceDefinition.
//
// Everything CEL can express is here, so that the API server refuses it even
// without the webhooks: the DCS type is immutable (rule on spec, so adding
// `dcs` later counts as a change from kubernetes), the etcd block's
// endpoints/clusterRef choice and URL rules, Patroni's timing rule,
// podAPIAccess only with the etcd DCS, name lengths, reserved role names,
// the PostgreSQL major and storage that cannot shrink.
//
// Thread-safety: pure functions.
#ifndef QUORUM_API_POSTGRESCLUSTER_SCHEMA_H_
#define QUORUM_API_POSTGRESCLUSTER_SCHEMA_H_

#include <nlohmann/json_fwd.hpp>

namespace quorum::api {

// openAPIV3Schema of PostgresCluster, with $refs of the form
// "#/components/schemas/io.k8s.api.core.v1.Affinity".
nlohmann::json PostgresClusterSchemaSource();

// The `status` part of it: what the reconciler reports (conditions,
// observedGeneration, instances[], readyInstances "ready/desired", primary,
// primaryService, replicaService, users[] with their Secrets, patroni
// {systemIdentifier, switchover}). Fields not in it are pruned by the API
// server, so the reconciler writes only these.
nlohmann::json PostgresClusterStatusSchema();

// additionalPrinterColumns of the v1alpha1 version: Version, Instances
// (ready/desired), Primary, DCS, Ready, Age.
nlohmann::json PostgresClusterPrinterColumns();

}  // namespace quorum::api

#endif  // QUORUM_API_POSTGRESCLUSTER_SCHEMA_H_
