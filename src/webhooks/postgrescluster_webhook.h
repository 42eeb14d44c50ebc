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
runtime::AdmissionResponse ValidatePostgresClusterAdmission(
    const runtime::AdmissionRequest& request);

// Registers both handlers. Errors: as WebhookServer::Register (AlreadyExists
// when a path is taken, FailedPrecondition after Start()).
absl::Status RegisterPostgresClusterWebhooks(runtime::WebhookServer& server);

}  // namespace quorum::webhooks

#endif  // QUORUM_SRC_WEBHOOKS_POSTGRESCLUSTER_WEBHOOK_H_
