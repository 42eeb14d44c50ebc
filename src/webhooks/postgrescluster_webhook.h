// Admission webhooks for PostgresCluster (postgres.quorum.dev/v1alpha1),
// served by the runtime's WebhookServer at the paths kubebuilder would give
// them:
//
//  * MutatePostgresCluster (defaulting): the JSON Patch that applies
//    api::DefaultPostgresCluster — it only adds what is missing.
//  * ValidatePostgresClusterAdmission: api::ValidatePostgresCluster (with
//    the stored object on UPDATE). A denial (HTTP 422, Invalid) lists every
//    field error as "field: message; ..."; warnings (a single instance,
//    https:// without tlsSecret, ...) are returned in both cases and kubectl
//    prints them.
//
// Both allow DELETE and CONNECT, and requests for a subresource (status), as
// they are. The CRD's schema and CEL rules hold the same defaults and most of
// the same rules, so the API server keeps the important ones even when the
// webhooks are not installed. Thread-safety: the handlers are pure and may
// run concurrently.
#ifndef QUORUM_SRC_WEBHOOKS_POSTGRESCLUSTER_WEBHOOK_H_
#define QUORUM_SRC_WEBHOOKS_POSTGRESCLUSTER_WEBHOOK_H_

#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "src/runtime/admission.h"

namespace quorum::runtime {
class WebhookServer;
}  // namespace quorum::runtime

namespace quorum::webhooks {

inline constexpr std::string_view kMutatePostgresClusterPath =
    "/mutate-postgres-quorum-dev-v1alpha1-postgrescluster";
inline constexpr std::string_view kValidatePostgresClusterPath =
    "/validate-postgres-quorum-dev-v1alpha1-postgrescluster";

runtime::AdmissionResponse MutatePostgresCluster(const runtime::AdmissionRequest& request);

// Reads the EtcdCluster (namespace, name) a clusterRef names, e.g. from the
// operator's cache; nullptr when absent. Must be safe to call concurrently.
using EtcdClusterGetter = std::function<std::shared_ptr<const nlohmann::json>(
    const std::string& ns, const std::string& name)>;

// With `etcd_clusters`, a clusterRef to an EtcdCluster without client TLS or
// auth also gets a warning (api::DcsSecurityOf); the request is never
// refused for it, nor when the EtcdCluster is absent.
runtime::AdmissionResponse ValidatePostgresClusterAdmission(
    const runtime::AdmissionRequest& request, const EtcdClusterGetter& etcd_clusters = nullptr);

// Registers both handlers. Errors: as WebhookServer::Register (AlreadyExists
// when a path is taken, FailedPrecondition after Start()).
absl::Status RegisterPostgresClusterWebhooks(runtime::WebhookServer& server,
                                             EtcdClusterGetter etcd_clusters = nullptr);

}  // namespace quorum::webhooks

#endif  // QUORUM_SRC_WEBHOOKS_POSTGRESCLUSTER_WEBHOOK_H_
