// Admission webhooks for EtcdCluster (etcd.aenix.io/v1alpha1), served by the
// runtime's WebhookServer at the paths kubebuilder would give them, so the
// aenix operator's webhook configurations carry over:
//
//  * MutateEtcdCluster (defaulting): the JSON Patch that applies
//    api::DefaultEtcdCluster — it only adds what is missing.
//  * ValidateEtcdClusterAdmission: api::ValidateEtcdCluster (with the stored
//    object on UPDATE). A denial (HTTP 422, Invalid) lists every field error
//    as "field: message; ..."; warnings (a budget that can lose quorum, ...)
//    are returned in both cases and kubectl prints them.
//
// Both allow DELETE and CONNECT, and requests for a subresource (status), as
// they are. Thread-safety: the handlers are pure and may run concurrently.
#ifndef QUORUM_SRC_WEBHOOKS_ETCDCLUSTER_WEBHOOK_H_
#define QUORUM_SRC_WEBHOOKS_ETCDCLUSTER_WEBHOOK_H_

#include <string_view>

#include "absl/status/status.h"
#include "src/runtime/admission.h"

namespace quorum::runtime {
class WebhookServer;
}  // namespace quorum::runtime

namespace quorum::webhooks {

inline constexpr std::string_view kMutateEtcdClusterPath =
    "/mutate-etcd-aenix-io-v1alpha1-etcdcluster";
inline constexpr std::string_view kValidateEtcdClusterPath =
    "/validate-etcd-aenix-io-v1alpha1-etcdcluster";

runtime::AdmissionResponse MutateEtcdCluster(const runtime::AdmissionRequest& request);
runtime::AdmissionResponse ValidateEtcdClusterAdmission(const runtime::AdmissionRequest& request);

// Registers both handlers. Errors: as WebhookServer::Register (AlreadyExists
// when a path is taken, FailedPrecondition after Start()).
absl::Status RegisterEtcdClusterWebhooks(runtime::WebhookServer& server);

}  // namespace quorum::webhooks

#endif  // QUORUM_SRC_WEBHOOKS_ETCDCLUSTER_WEBHOOK_H_
