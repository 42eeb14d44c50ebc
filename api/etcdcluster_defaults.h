// Defaulting of an EtcdCluster, as the mutating admission webhook applies it
// (API.md "spec"): replicas 3, and storage — when spec.storage has no
// emptyDir — a PVC template with accessModes [ReadWriteOnce] and a 4Gi
// storage request wherever those are missing (a zero request counts as
// missing, as in the aenix operator). Only adds what is missing;
// never changes a value the user set. An empty podDisruptionBudgetTemplate
// spec is left empty on purpose: it means "minAvailable = quorum", which the
// reconciler computes from the current replicas.
//
// Thread-safety: pure function.
#ifndef QUORUM_API_ETCDCLUSTER_DEFAULTS_H_
#define QUORUM_API_ETCDCLUSTER_DEFAULTS_H_

#include <nlohmann/json_fwd.hpp>

namespace quorum::api {

// Defaults `obj` (a whole EtcdCluster) in place. Values of the wrong JSON
// type are left alone for validation to report. Never throws.
void DefaultEtcdCluster(nlohmann::json& obj);

// The storage used when spec.storage is absent:
// {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce],
//  resources: {requests: {storage: 4Gi}}}}}. Also the CRD's default.
nlohmann::json DefaultEtcdStorage();

}  // namespace quorum::api

#endif  // QUORUM_API_ETCDCLUSTER_DEFAULTS_H_
