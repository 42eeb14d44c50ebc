// The validating admission webhook of PostgresBackup (postgres.quorum.dev/v1alpha1) at
// the path kubebuilder would give it: api::ValidatePostgresBackup (with the stored
// object on UPDATE: the spec is immutable). A denial (HTTP 422) lists every
// field error. DELETE, CONNECT and subresources (status) pass as they are.
// Thread-safety: the handler is pure and may run concurrently.
#ifndef QUORUM_SRC_WEBHOOKS_POSTGRESBACKUP_WEBHOOK_H_
#define QUORUM_SRC_WEBHOOKS_POSTGRESBACKUP_WEBHOOK_H_

#include <string_view>

#include "absl/status/status.h"
#include "src/runtime/admission.h"

namespace quorum::runtime {
class WebhookServer;
}  // namespace quorum::runtime

namespace quorum::webhooks {

inline constexpr std::string_view kValidatePostgresBackupPath =
    "/validate-postgres-quorum-dev-v1alpha1-postgresbackup";

runtime::AdmissionResponse ValidatePostgresBackupAdmission(
    const runtime::AdmissionRequest& request);

// Errors: as WebhookServer::Register.
absl::Status RegisterPostgresBackupWebhooks(runtime::WebhookServer& server);

}  // namespace quorum::webhooks

#endif  // QUORUM_SRC_WEBHOOKS_POSTGRESBACKUP_WEBHOOK_H_
