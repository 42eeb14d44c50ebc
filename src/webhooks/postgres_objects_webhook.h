// The validating admission webhooks of PostgresRole and PostgresDatabase
// (postgres.quorum.dev/v1alpha1), at the paths kubebuilder would give them:
// api::ValidatePostgresRole / ValidatePostgresDatabase, with the stored
// object on UPDATE (cluster and name are immutable). A denial (HTTP 422)
// lists every field error. DELETE, CONNECT and subresources pass.
// Thread-safety: the handlers are pure and may run concurrently.
#ifndef QUORUM_SRC_WEBHOOKS_POSTGRES_OBJECTS_WEBHOOK_H_
#define QUORUM_SRC_WEBHOOKS_POSTGRES_OBJECTS_WEBHOOK_H_

#include <string_view>

#include "absl/status/status.h"
#include "src/runtime/admission.h"

namespace quorum::runtime {
class WebhookServer;
}  // namespace quorum::runtime

namespace quorum::webhooks {

inline constexpr std::string_view kValidatePostgresRolePath =
    "/validate-postgres-quorum-dev-v1alpha1-postgresrole";
inline constexpr std::string_view kValidatePostgresDatabasePath =
    "/validate-postgres-quorum-dev-v1alpha1-postgresdatabase";

runtime::AdmissionResponse ValidatePostgresRoleAdmission(const runtime::AdmissionRequest& request);
runtime::AdmissionResponse ValidatePostgresDatabaseAdmission(
    const runtime::AdmissionRequest& request);

// Errors: as WebhookServer::Register.
absl::Status RegisterPostgresObjectWebhooks(runtime::WebhookServer& server);

}  // namespace quorum::webhooks

#endif  // QUORUM_SRC_WEBHOOKS_POSTGRES_OBJECTS_WEBHOOK_H_
