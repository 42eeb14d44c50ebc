// Defaulting of a PostgresCluster, as the mutating admission webhook applies
// it (API.md "spec"). The same defaults are in the CRD schema, so an object
// written without the webhooks gets them too — except two the schema cannot
// express: instances[].dataVolumeClaimSpec.accessModes (inside a Kubernetes
// type) becomes [ReadWriteOnce] when missing or empty (builders apply the
// same default when they meet an object the webhook never saw), and
// patroni.podAPIAccess, which depends on dcs.type (the operator's parse
// applies it to an object the webhook never saw).
//
// What is filled in, only where missing: instances[].name "main",
// instances[].replicas 1, spec.patroni with leaderLeaseDurationSeconds 30,
// syncPeriodSeconds 10, retryTimeoutSeconds 10, dcs.type kubernetes and
// podAPIAccess true with the kubernetes DCS, false with etcd; switchover.type Switchover and
// service.type ClusterIP when those blocks exist. spec.image stays empty on purpose: the reconciler
// takes DefaultPostgresImage(postgresVersion) each time, so the image follows
// the version instead of freezing the first default. etcd.namespace stays
// empty too (the reconciler derives the key prefix).
//
// Thread-safety: pure function.
#ifndef QUORUM_API_POSTGRESCLUSTER_DEFAULTS_H_
#define QUORUM_API_POSTGRESCLUSTER_DEFAULTS_H_

#include <nlohmann/json_fwd.hpp>

namespace quorum::api {

// Defaults `obj` (a whole PostgresCluster) in place; never changes a value
// the user set. A missing spec is left missing and values of the wrong JSON
// type are left alone, for validation to report. Never throws.
void DefaultPostgresCluster(nlohmann::json& obj);

}  // namespace quorum::api

#endif  // QUORUM_API_POSTGRESCLUSTER_DEFAULTS_H_
